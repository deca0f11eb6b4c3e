/* lp_datapath — the LP logits of each datapath variant (docs/numerics.md "The LP datapath") through
 * the engine's mapping and hw/lamp's lslamp_logits, against a composition of the independent
 * references of tests/fp (ref_dot, ref_fused_dot, ref_round_float), nothing of hw/fp's kernels:
 *  - seq_bf16_fp32: bf16 K x fp32 Q pre-scaled by fp32(1/sqrt d), one e4m3 rounding per product;
 *  - seq_bf16_bf16: bf16 K x bf16 Q, e4m3 per product, then y / sqrt(d) in fp32 rounded to e4m3;
 *  - fused4_bf16_bf16: bf16 K x bf16 Q in groups of 4 (window 16 bits), then the same post-scaling;
 *  - fused4_bf16_fp32: the fused form on the pre-scaled fp32 operands;
 * on random tiles whose logits reach the saturation; the HP logits stay sequential under fused. Then
 * whole engine runs: fused is deterministic across thread counts and differs from sequential, and
 * the configuration refuses fused with chunk_k > 1 or stochastic rounding. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "eng_testutil.h"
#include "engine.h"
#include "lslamp.h"
#include "ref_round.h"

enum { D = 64 };
static lslamp_cfg g_cfg;   /* large (LUT and SFU table): static */

static int f_bits_eq(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y || (a != a && b != b);
}

static float bf16(float x) { return lsfp_round(lsfp_named_format(LSFP_BF16), x, NULL, NULL); }

typedef struct { const char *name; lslamp_scale_point sp; lslamp_lp_datapath dp; } variant;

static void one_variant(const variant *v)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.scale_point = v->sp;
    p.lp_datapath = v->dp;
    char err[300];
    CHECK_MSG(ls_engine_lamp_cfg(&p, D, true, &g_cfg, err, sizeof err) == 0, "%s: %s", v->name, err);
    const lslamp_cfg *c = &g_cfg;
    int bq = c->b_q, bc = c->bc;
    static float Q[128 * D], K[64 * D], Qt[D * 128], Y[64 * 128], Yhp[64 * 128], qcol[D];
    tu_rng r = {17, 0, 0};
    ref_fmt e4m3, e4m11;
    ref_fmt_from(&e4m3, lsfp_named_format(LSFP_E4M3));
    ref_fmt_from(&e4m11, lsfp_named_format(LSFP_E4M11));
    long bad = 0, badhp = 0, n = 0;
    uint64_t sat_seen = 0;
    for (int rep = 0; rep < 6; rep++) {
        double sq = 1.0 + rep * 2.0;            /* logits up to the hundreds: saturation reached */
        for (int i = 0; i < bq * D; i++) Q[i] = bf16((float)(sq * tu_gauss(&r)));
        for (int i = 0; i < bc * D; i++) K[i] = bf16((float)(sq * tu_gauss(&r)));
        lslamp_prepare_qt(c, Q, D, bq, bq, Qt, bq);
        lslamp_tile_io io;
        memset(&io, 0, sizeof io);
        io.K = K; io.ldk = D; io.Qt = Qt; io.ldq = bq; io.nkeys = bc; io.nq = bq; io.ncols = bq;
        io.Y = Y; io.ldy = bq;
        lslamp_events ev = {0};
        lslamp_logits(c, false, &io, 0, bc, NULL, &ev);
        sat_seen += ev.lp_saturations;
        io.Y = Yhp;
        lslamp_logits(c, true, &io, 0, bc, NULL, &ev);
        float scale = (float)(1.0 / sqrt((double)D)), root = sqrtf((float)D);
        for (int i = 0; i < bc; i++)
            for (int j = 0; j < bq; j++) {
                for (int t = 0; t < D; t++) qcol[t] = v->sp == LSLAMP_SCALE_POST ? Q[j * D + t] : Q[j * D + t] * scale;
                float want = v->dp == LSLAMP_LP_FUSED
                                 ? ref_fused_dot(&e4m3, REF_RNE, LSFP_ORDER_ASCENDING, 4, LSFP_FUSED_FRAC, K + i * D, qcol, D, NULL)
                                 : ref_dot(&e4m3, REF_RNE, LSFP_ACC_EXACT, LSFP_ORDER_ASCENDING, 1, K + i * D, qcol, D);
                float whp = ref_dot(&e4m11, REF_RNE, LSFP_ACC_EXACT, LSFP_ORDER_ASCENDING, 1, K + i * D, qcol, D);
                if (v->sp == LSLAMP_SCALE_POST) {
                    want = ref_round_float(&e4m3, want / root, REF_RNE, NULL);
                    whp = ref_round_float(&e4m11, whp / root, REF_RNE, NULL);
                }
                n++;
                bad += !(f_bits_eq(Y[i * bq + j], want));
                badhp += !(f_bits_eq(Yhp[i * bq + j], whp));
            }
    }
    CHECK_MSG(bad == 0 && badhp == 0, "%s: %ld LP and %ld HP logits of %ld differ from the reference", v->name, bad,
              badhp, n);
    CHECK_MSG(sat_seen > 0, "%s: the tiles never saturated e4m3", v->name);
    printf("%-18s %ld logits match (LP saturations %llu)\n", v->name, n, (unsigned long long)sat_seen);
}

static void engine_runs(void)
{
    ls_attn_inputs in;
    tu_inputs_qknorm(&in, 303, 1, 2, 1, 192, 192, D, 1, 1.0, 4.0);
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.compute_reference = false;
    p.lp_datapath = LSLAMP_LP_FUSED;
    size_t no = (size_t)in.batch * in.heads_q * in.seq_q * in.dim;
    ls_engine_result a, b, s;
    char err[300];
    p.threads = 1;
    CHECK(ls_engine_run(&p, &in, &a, err, sizeof err) == 0);
    p.threads = 2;
    CHECK(ls_engine_run(&p, &in, &b, err, sizeof err) == 0);
    p.lp_datapath = LSLAMP_LP_SEQUENTIAL;
    CHECK(ls_engine_run(&p, &in, &s, err, sizeof err) == 0);
    CHECK(memcmp(a.o, b.o, no * sizeof(float)) == 0);
    CHECK_MSG(memcmp(a.o, s.o, no * sizeof(float)) != 0, "fused and sequential gave the same O");
    ls_engine_result_free(&a);
    ls_engine_result_free(&b);
    ls_engine_result_free(&s);
    ls_attn_inputs_release(&in);
    /* refusals of the procedure's configuration */
    ls_run_engine_defaults(&p);
    p.lp_datapath = LSLAMP_LP_FUSED;
    p.chunk_k = 2;
    CHECK(ls_engine_lamp_cfg(&p, D, true, &g_cfg, err, sizeof err) != 0 && strstr(err, "chunk_k"));
    p.chunk_k = 1;
    p.rounding = LSFP_RND_STOCHASTIC;
    CHECK(ls_engine_lamp_cfg(&p, D, true, &g_cfg, err, sizeof err) != 0 && strstr(err, "stochastic"));
}

int main(void)
{
    static const variant vs[] = {
        {"seq_bf16_fp32", LSLAMP_SCALE_PRE_FP32, LSLAMP_LP_SEQUENTIAL},
        {"seq_bf16_bf16", LSLAMP_SCALE_POST, LSLAMP_LP_SEQUENTIAL},
        {"fused4_bf16_bf16", LSLAMP_SCALE_POST, LSLAMP_LP_FUSED},
        {"fused4_bf16_fp32", LSLAMP_SCALE_PRE_FP32, LSLAMP_LP_FUSED},
    };
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) one_variant(&vs[i]);
    engine_runs();
    CHECK_DONE();
}
