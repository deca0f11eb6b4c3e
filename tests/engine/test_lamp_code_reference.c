/* The preset configs/examples/lamp_code_reference.yaml against a port of the LAMP reference code's
 * attention path (numerics.md A.4, B.2), written here from the spec, not from the engine:
 *   scores = PS-GEMM(Q, K^T): c <- round_mu(fmaf(q_t, k_t, c)) over t ascending (block_size_k = 1),
 *   round_mu the fp32 bit-pattern rounding of A.4; then / sqrtf(d) in fp32 and round_mu again;
 *   causal mask (-inf); the row's softmax z (lampsim's documented arithmetic: float64 exp of
 *   y - max, summed in key order); the selection rule of B.2 (sort by (-z, index), exclusive
 *   prefix P, select iff P + 2 z_min < 2 - tau_code); selected unmasked scores replaced by the
 *   full-fp32 ones (fmaf chain / sqrtf(d)); fp32 softmax (exp in float64 rounded to fp32, summed
 *   in key order, p = e / S) and P.V in fp32 (o <- o + p v, key order).
 * The preset is loaded through the config layer and mapped as `lampsim run` maps it; O and every
 * per-logit decision must match bit for bit on fixed cases (several tau_code, mu, shapes). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "eng_testutil.h"
#include "engine.h"
#include "run.h"

/* numerics.md A.4: round_mu on the fp32 bit pattern. */
static float round_mu(float x, int mu)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if (((u >> 23) & 0xFFu) == 0xFFu || mu >= 23) return x;
    int k = 23 - mu;
    uint32_t sign = u & 0x80000000u, mag = u & 0x7FFFFFFFu, r = mag & ((1u << k) - 1u), half = 1u << (k - 1);
    if (r > half || (r == half && (mag >> k & 1u))) mag += 1u << k;
    mag &= ~((1u << k) - 1u);
    u = sign | mag;
    memcpy(&x, &u, 4);
    return x;
}

typedef struct { double z; int idx; } zi;
static int cmp_zi(const void *a, const void *b)
{
    const zi *x = a, *y = b;
    if (x->z != y->z) return x->z > y->z ? -1 : 1;
    return x->idx - y->idx;
}

/* One row of the reference path. sel[k]: 1 selected and replaced, 2 selected but masked. */
static void ref_row(const float *q, const float *K, const float *V, int sk, int d, int visible, int mu, double tau,
                    float *o, unsigned char *sel)
{
    float *y = malloc(sizeof(float) * sk), *yh = malloc(sizeof(float) * sk);
    double *z = malloc(sizeof(double) * sk);
    zi *t = malloc(sizeof(zi) * sk);
    float sq = sqrtf((float)d);
    for (int k = 0; k < sk; k++) {
        float c = 0.0f, ch = 0.0f;
        for (int i = 0; i < d; i++) {
            c = round_mu(fmaf(q[i], K[(size_t)k * d + i], c), mu);
            ch = fmaf(q[i], K[(size_t)k * d + i], ch);
        }
        y[k] = k < visible ? round_mu(c / sq, mu) : -INFINITY;
        yh[k] = ch / sq;
    }
    double mx = -INFINITY, Z = 0.0;
    for (int k = 0; k < sk; k++) mx = y[k] > mx ? y[k] : mx;
    for (int k = 0; k < sk; k++) { z[k] = y[k] == -INFINITY ? 0.0 : exp((double)y[k] - mx); Z += z[k]; }
    for (int k = 0; k < sk; k++) { t[k].z = z[k] / Z; t[k].idx = k; }
    qsort(t, (size_t)sk, sizeof *t, cmp_zi);
    double zmin = t[sk - 1].z, P = 0.0;
    for (int r = 0; r < sk; r++) {
        int k = t[r].idx;
        sel[k] = P + 2.0 * zmin < 2.0 - tau ? (k < visible ? 1 : 2) : 0;
        if (sel[k] == 1) y[k] = yh[k];
        P += t[r].z;
    }
    float m2 = -INFINITY, S = 0.0f;
    for (int k = 0; k < sk; k++) m2 = y[k] > m2 ? y[k] : m2;
    float *e = malloc(sizeof(float) * sk);
    for (int k = 0; k < sk; k++) { e[k] = y[k] == -INFINITY ? 0.0f : (float)exp((double)y[k] - (double)m2); S = S + e[k]; }
    for (int i = 0; i < d; i++) o[i] = 0.0f;
    for (int k = 0; k < sk; k++) {
        float p = e[k] / S;
        if (p == 0.0f) continue;
        for (int i = 0; i < d; i++) o[i] = o[i] + p * V[(size_t)k * d + i];
    }
    free(y); free(yh); free(z); free(t); free(e);
}

static ls_config g_cfg;
static ls_config_diag g_diag;

static void one_case(const ls_engine_params *base, uint64_t seed, int sq, int sk, int d, int causal, double gain,
                     double tau, int mu)
{
    ls_attn_inputs in;
    if (tu_inputs_qknorm(&in, seed, 1, 2, 1, sq, sk, d, causal, gain * 0.6, gain) != 0) { CHECK(0); return; }
    ls_engine_params p = *base;
    p.lamp_code_tau = tau;
    p.keep_lamp_code_mask = true;
    p.compute_reference = false;
    p.threads = 2;
    snprintf(p.formats[LSLAMP_FMT_LP], sizeof p.formats[0], "ps%d", mu);
    ls_engine_result r;
    char err[300];
    if (ls_engine_run(&p, &in, &r, err, sizeof err) != 0) { CHECK_MSG(0, "engine: %s", err); ls_attn_inputs_release(&in); return; }
    float *o = malloc(sizeof(float) * d);
    unsigned char *sel = malloc((size_t)sk);
    long bad_o = 0, bad_sel = 0, nsel = 0;
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < sq; i++) {
            int visible = causal ? i + (sk - sq) + 1 : sk;
            if (visible > sk) visible = sk;
            ref_row(in.q + ((size_t)h * sq + i) * d, in.k, in.v, sk, d, visible, mu, tau, o, sel);
            const float *eo = r.o + ((size_t)h * sq + i) * d;
            if (memcmp(o, eo, sizeof(float) * d) && bad_o++ < 3)
                fprintf(stderr, "head %d row %d: O[0] %a, reference %a\n", h, i, (double)eo[0], (double)o[0]);
            const uint8_t *em = r.lamp_code_mask + ((size_t)h * sq + i) * sk;
            for (int k = 0; k < sk; k++) {
                nsel += sel[k] == 1;
                if (em[k] != sel[k] && bad_sel++ < 3) fprintf(stderr, "head %d row %d key %d: mask %d, reference %d\n", h, i, k, em[k], sel[k]);
            }
        }
    CHECK_MSG(bad_o == 0 && bad_sel == 0, "seed %llu %dx%d d %d causal %d tau %g ps%d: %ld rows of O and %ld decisions differ",
              (unsigned long long)seed, sq, sk, d, causal, tau, mu, bad_o, bad_sel);
    /* the case exercises the rule (something selected, something kept) */
    uint64_t unmasked = r.recompute.logits_unmasked;
    CHECK_MSG(nsel > 0 && (uint64_t)nsel < unmasked && r.recompute.logits_hp == (uint64_t)nsel,
              "tau %g: %ld selected of %llu (engine %llu)", tau, nsel, (unsigned long long)unmasked,
              (unsigned long long)r.recompute.logits_hp);
    free(o); free(sel);
    ls_engine_result_free(&r);
    ls_attn_inputs_release(&in);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/configs/examples/lamp_code_reference.yaml", argv[1]);
    if (ls_config_load(&g_cfg, path, NULL, 0, &g_diag) != 0) { fprintf(stderr, "%s\n", g_diag.message); return 1; }
    ls_engine_params p;
    ls_run_engine_params(&g_cfg, &p);
    /* the settings the preset promises */
    CHECK(p.mode == LS_ENGINE_MODE_LAMP_CODE && p.arithmetic == LSLAMP_ARITH_PAPER && p.acc_model == LS_ENGINE_ACC_PAPER &&
          p.scale_point == LSLAMP_SCALE_POST && p.chunk_k == 1 && !strcmp(p.formats[LSLAMP_FMT_HP], "fp32") &&
          !strcmp(p.formats[LSLAMP_FMT_LP], "ps3") && g_cfg.workload.dtype == LS_CONFIG_DTYPE_FP32);
    one_case(&p, 1, 96, 96, 64, 1, 2.0, 1.5, 3);
    one_case(&p, 2, 70, 130, 32, 1, 2.5, 1.1, 3);
    one_case(&p, 3, 64, 80, 64, 0, 1.5, 1.02, 5);
    one_case(&p, 4, 48, 48, 128, 1, 2.5, 1.3, 2);
    one_case(&p, 5, 40, 40, 16, 0, 3.0, 1.9, 10);
    ls_config_free(&g_cfg);
    CHECK_DONE();
}
