/* Split-KV in the golden engine (workload.split_kv, issue 38):
 *  1. the combine, against a slow reference written here from engine.md's rule: every split's
 *     partial state (the split hook) combined row by row, ascending splits, in the mode's own
 *     arithmetic (LAMP modes: lambda = exp(mu_s - M) rounded to the state's precision, fp32 or
 *     float64 sums, then O / omega; fp32 FA2 and FP8: expf; lamp_code: normalised partial outputs
 *     weighted by expf(m_s - M) S_s / L), bit for bit with the engine's O, in every mode, causal
 *     decode with a ragged last split;
 *  2. each split starts from a fresh state: its partial state, finalised, is bit for bit the O of an
 *     unsplit run on that split's keys alone (non-causal, the deterministic modes);
 *  3. the split geometry: ceil(nkt / S) tiles per split, more splits than tiles clamp, 0 and 1 are
 *     one split and leave O unchanged;
 *  4. splitting changes O by rounding only: within the fp64 reference's accuracy of the unsplit run. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "eng_testutil.h"

#define MAXITEMS 8
typedef struct {
    int n;
    ls_engine_split_state st[MAXITEMS];
    float *mu[MAXITEMS], *om32[MAXITEMS], *O32[MAXITEMS];
    double *om64[MAXITEMS], *O64[MAXITEMS];
} capture;

static float *dupf(const float *x, size_t n)
{
    if (!x) return NULL;
    float *y = malloc(n * sizeof *y);
    memcpy(y, x, n * sizeof *y);
    return y;
}
static double *dupd(const double *x, size_t n)
{
    if (!x) return NULL;
    double *y = malloc(n * sizeof *y);
    memcpy(y, x, n * sizeof *y);
    return y;
}

static void hook(void *user, const ls_engine_split_state *s)
{
    capture *c = user;
    if (c->n >= MAXITEMS) return;
    int i = c->n++;
    size_t r = (size_t)s->nsplit * s->rows, o = r * s->dim;
    c->st[i] = *s;
    c->mu[i] = dupf(s->mu, r);
    c->om32[i] = dupf(s->om32, r);
    c->O32[i] = dupf(s->O32, o);
    c->om64[i] = s->fp64 ? dupd(s->om64, r) : NULL;
    c->O64[i] = s->fp64 ? dupd(s->O64, o) : NULL;
}

static void capture_free(capture *c)
{
    for (int i = 0; i < c->n; i++) { free(c->mu[i]); free(c->om32[i]); free(c->O32[i]); free(c->om64[i]); free(c->O64[i]); }
    memset(c, 0, sizeof *c);
}

/* The documented combine of row j of captured item i into out (d floats). */
static void ref_combine(const capture *c, int i, int j, bool use_expf, float *out)
{
    const ls_engine_split_state *s = &c->st[i];
    int ns = s->nsplit, R = s->rows, d = s->dim;
    float M = -INFINITY;
    for (int k = 0; k < ns; k++) if (c->mu[i][k * R + j] > M) M = c->mu[i][k * R + j];
    for (int t = 0; t < d; t++) out[t] = 0.0f;
    if (M == -INFINITY) return;
    if (s->normalised) {   /* lamp_code */
        float L = 0.0f;
        for (int k = 0; k < ns; k++) {
            float m = c->mu[i][k * R + j];
            if (m != -INFINITY) L = L + expf(m - M) * c->om32[i][k * R + j];
        }
        for (int k = 0; k < ns; k++) {
            float m = c->mu[i][k * R + j];
            if (m == -INFINITY) continue;
            float a = expf(m - M) * c->om32[i][k * R + j] / L;
            for (int t = 0; t < d; t++) out[t] = out[t] + a * c->O32[i][((size_t)k * R + j) * d + t];
        }
        return;
    }
    if (s->fp64) {
        double om = 0.0, *o = calloc((size_t)d, sizeof *o);
        for (int k = 0; k < ns; k++) {
            float m = c->mu[i][k * R + j];
            if (m == -INFINITY) continue;
            double lam = exp((double)m - (double)M);
            om = om + lam * c->om64[i][k * R + j];
            for (int t = 0; t < d; t++) o[t] = o[t] + lam * c->O64[i][((size_t)k * R + j) * d + t];
        }
        for (int t = 0; t < d; t++) out[t] = om == 0.0 ? 0.0f : (float)(o[t] / om);
        free(o);
        return;
    }
    float om = 0.0f, *o = calloc((size_t)d, sizeof *o);
    for (int k = 0; k < ns; k++) {
        float m = c->mu[i][k * R + j];
        if (m == -INFINITY) continue;
        float lam = use_expf ? expf(m - M) : (float)exp((double)m - (double)M);
        om = om + lam * c->om32[i][k * R + j];
        for (int t = 0; t < d; t++) o[t] = o[t] + lam * c->O32[i][((size_t)k * R + j) * d + t];
    }
    for (int t = 0; t < d; t++) out[t] = om == 0.0f ? 0.0f : o[t] / om;
    free(o);
}

/* split s of item i finalised as the engine finalises one state (O / omega) */
static void partial_out(const capture *c, int i, int s, int j, float *out)
{
    const ls_engine_split_state *st = &c->st[i];
    size_t r = (size_t)s * st->rows + j;
    for (int t = 0; t < st->dim; t++) {
        if (st->normalised) out[t] = c->O32[i][r * st->dim + t];
        else if (st->fp64) out[t] = c->om64[i][r] == 0.0 ? 0.0f : (float)(c->O64[i][r * st->dim + t] / c->om64[i][r]);
        else out[t] = c->om32[i][r] == 0.0f ? 0.0f : c->O32[i][r * st->dim + t] / c->om32[i][r];
    }
}

typedef struct { const char *name; ls_engine_mode mode; bool fp64; } mode_case;
static const mode_case modes[] = {
    { "lamp", LS_ENGINE_MODE_LAMP, false },          { "lamp/fp64 state", LS_ENGINE_MODE_LAMP, true },
    { "fa2_16bit", LS_ENGINE_MODE_FA2_16BIT, false }, { "pure_8bit", LS_ENGINE_MODE_PURE_8BIT, false },
    { "random", LS_ENGINE_MODE_RANDOM, false },      { "fa2_fp32", LS_ENGINE_MODE_FA2_FP32, false },
    { "fa3_fp8", LS_ENGINE_MODE_FA3_FP8, false },    { "lamp_code", LS_ENGINE_MODE_LAMP_CODE, false },
};

static int run(ls_attn_inputs *in, const mode_case *m, int split, capture *cap, ls_engine_result *r)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.mode = m->mode;
    p.state_precision = m->fp64 ? LS_ENGINE_STATE_FP64 : LS_ENGINE_STATE_FP32;
    p.b_q = 4; p.n_q = 2; p.b_k = 16; p.n_k = 4;   /* 8-row blocks, 64-key tiles */
    p.threads = 1;
    p.compute_reference = true;
    p.split_hook = cap ? hook : NULL;
    p.split_user = cap;
    in->split_kv = split;
    char err[256];
    int rc = ls_engine_run(&p, in, r, err, sizeof err);
    if (rc) fprintf(stderr, "engine: %s\n", err);
    return rc;
}

static bool use_expf(ls_engine_mode m) { return m == LS_ENGINE_MODE_FA2_FP32 || m == LS_ENGINE_MODE_FA3_FP8; }

/* 1 and 4: causal decode, 2 heads on one KV head, 5 queries, 700 keys = 11 tiles in splits of 4, 4, 3 */
static void combine_vs_reference(void)
{
    ls_attn_inputs in;
    CHECK(tu_inputs_qknorm(&in, 38, 1, 2, 1, 5, 700, 64, 1, 0.6, 1.4) == 0);
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        const mode_case *m = &modes[k];
        capture cap = { 0 };
        ls_engine_result r, r1;
        CHECK(run(&in, m, 3, &cap, &r) == 0);
        CHECK(run(&in, m, 1, NULL, &r1) == 0);
        CHECK_MSG(cap.n == 2, "%s: %d items combined, want 2", m->name, cap.n);
        long bad = 0;
        float out[64];
        for (int i = 0; i < cap.n; i++) {
            CHECK(cap.st[i].nsplit == 3 && cap.st[i].fp64 == m->fp64);
            CHECK(cap.st[i].normalised == (m->mode == LS_ENGINE_MODE_LAMP_CODE));
            for (int j = 0; j < cap.st[i].nqv; j++) {
                ref_combine(&cap, i, j, use_expf(m->mode), out);
                const float *o = r.o + ((size_t)cap.st[i].item * 5 + j) * 64;   /* one query block per head */
                bad += memcmp(out, o, sizeof out) != 0;
            }
        }
        CHECK_MSG(bad == 0, "%s: %ld rows differ from the reference combine", m->name, bad);
        /* 4: the split's O is the unsplit one up to rounding (relative to the fp64 reference's error) */
        double e = 0, n = 0;
        for (size_t t = 0; t < (size_t)2 * 5 * 64; t++) { e += (r.o[t] - r1.o[t]) * (r.o[t] - r1.o[t]); n += r1.o[t] * r1.o[t]; }
        double tol = 2.0 * r1.accuracy.o_rel_fro_err + 1e-6;
        CHECK_MSG(sqrt(e / n) <= tol, "%s: split vs unsplit rel. error %.3g > %.3g", m->name, sqrt(e / n), tol);
        CHECK(r.accuracy.rows == r1.accuracy.rows);
        ls_engine_result_free(&r);
        ls_engine_result_free(&r1);
        capture_free(&cap);
    }
    ls_attn_inputs_release(&in);
}

/* 2: non-causal; split s's finalised partial = the unsplit run on keys [s*256, ...) alone */
static void fresh_state(void)
{
    ls_attn_inputs in;
    CHECK(tu_inputs_qknorm(&in, 7, 1, 1, 1, 3, 640, 64, 0, 0.6, 1.4) == 0);
    static const int det[] = { 0, 1, 2, 3, 5, 7 };   /* not random, not fa3_fp8 (its scale is the head's amax) */
    for (size_t k = 0; k < sizeof det / sizeof det[0]; k++) {
        const mode_case *m = &modes[det[k]];
        capture cap = { 0 };
        ls_engine_result r;
        CHECK(run(&in, m, 3, &cap, &r) == 0);   /* 10 tiles: splits of 4, 4, 2 tiles = 256, 256, 128 keys */
        CHECK(cap.n == 1 && cap.st[0].nsplit == 3);
        for (int s = 0; s < 3 && cap.n == 1; s++) {
            int k0 = s * 256, nk = s < 2 ? 256 : 128;
            ls_attn_inputs sl = in;
            sl.k = in.k + (size_t)k0 * 64;
            sl.v = in.v + (size_t)k0 * 64;
            sl.seq_k = nk;
            sl.release = NULL;
            ls_engine_result rs;
            CHECK(run(&sl, m, 1, NULL, &rs) == 0);
            long bad = 0;
            float out[64];
            for (int j = 0; j < 3; j++) {
                partial_out(&cap, 0, s, j, out);
                bad += memcmp(out, rs.o + (size_t)j * 64, sizeof out) != 0;
            }
            CHECK_MSG(bad == 0, "%s split %d: %ld rows differ from a run on its keys alone", m->name, s, bad);
            ls_engine_result_free(&rs);
        }
        ls_engine_result_free(&r);
        capture_free(&cap);
    }
    ls_attn_inputs_release(&in);
}

/* 3: geometry */
static void geometry(void)
{
    int tps;
    CHECK(ls_engine_split_tiles(11, 3, &tps) == 3 && tps == 4);
    CHECK(ls_engine_split_tiles(11, 4, &tps) == 4 && tps == 3);
    CHECK(ls_engine_split_tiles(11, 6, &tps) == 6 && tps == 2);
    CHECK(ls_engine_split_tiles(10, 7, &tps) == 5 && tps == 2);   /* 7 splits of 2 tiles: 5 hold one */
    CHECK(ls_engine_split_tiles(5, 64, &tps) == 5 && tps == 1);
    CHECK(ls_engine_split_tiles(5, 1, &tps) == 1 && tps == 5);
    CHECK(ls_engine_split_tiles(5, 0, &tps) == 1 && tps == 5);
    ls_attn_inputs in;
    CHECK(tu_inputs_qknorm(&in, 3, 1, 2, 1, 4, 300, 64, 1, 0.6, 1.4) == 0);
    ls_engine_result a, b;
    CHECK(run(&in, &modes[0], 0, NULL, &a) == 0);
    CHECK(run(&in, &modes[0], 1, NULL, &b) == 0);
    CHECK(memcmp(a.o, b.o, (size_t)2 * 4 * 64 * sizeof(float)) == 0);
    ls_engine_result_free(&a);
    ls_engine_result_free(&b);
    ls_attn_inputs_release(&in);
}

int main(void)
{
    geometry();
    combine_vs_reference();
    fresh_state();
    CHECK_DONE();
}
