/* Sliding-window attention (workload.window, issue 38) in the golden engine:
 *  1. fa2_fp32 against an fp64 softmax with the same mask, computed here from Q, K, V (query i sees
 *     keys (i + shift - W, i + shift]): every output within fp32 rounding; the engine's own fp64
 *     reference O agrees with it too (the accuracy pass masks the same keys);
 *  2. lamp (and fa2_16bit) against that reference: the errors of a 16-/8-bit run, not of a wrong mask
 *     (a run that ignored the window would be off by O(1));
 *  3. fully masked tiles: the (warp, key tile) pairs executed and skipped match the closed count of
 *     the window's geometry, on a square and on a ragged shape with seq_k > seq_q;
 *  4. window >= seq_k is the causal run, bit for bit. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "eng_testutil.h"

/* fp64 attention of one (batch, head) with the window mask; o: seq_q x d */
static void reference(const ls_attn_inputs *in, int b, int h, int window, double *o)
{
    int d = in->dim, sq = in->seq_q, sk = in->seq_k, hkv = h / (in->heads_q / in->heads_kv);
    const float *Q = in->q + ((size_t)b * in->heads_q + h) * sq * d;
    const float *K = in->k + ((size_t)b * in->heads_kv + hkv) * sk * d;
    const float *V = in->v + ((size_t)b * in->heads_kv + hkv) * sk * d;
    long shift = (long)sk - sq;
    double *s = malloc((size_t)sk * sizeof(double));
    for (int i = 0; i < sq; i++) {
        long hi = i + shift, lo = window > 0 ? hi - window + 1 : 0;
        if (lo < 0) lo = 0;
        double mx = -INFINITY, z = 0.0;
        for (long k = lo; k <= hi; k++) {
            double t = 0.0;
            for (int c = 0; c < d; c++) t += (double)Q[(size_t)i * d + c] * K[(size_t)k * d + c];
            s[k] = t / sqrt((double)d);
            if (s[k] > mx) mx = s[k];
        }
        for (int c = 0; c < d; c++) o[(size_t)i * d + c] = 0.0;
        for (long k = lo; k <= hi; k++) {
            double p = exp(s[k] - mx);
            z += p;
            for (int c = 0; c < d; c++) o[(size_t)i * d + c] += p * V[(size_t)k * d + c];
        }
        for (int c = 0; c < d; c++) o[(size_t)i * d + c] /= z;
    }
    free(s);
}

static int run(ls_attn_inputs *in, int mode, int window, ls_engine_result *r)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.mode = mode;
    p.threads = 2;
    p.compute_reference = true;
    p.keep_reference = true;
    in->window = window;
    char err[256];
    int rc = ls_engine_run(&p, in, r, err, sizeof err);
    if (rc) fprintf(stderr, "engine: %s\n", err);
    return rc;
}

/* max |O - ref| over all heads, and the largest |ref| (scale) */
static double max_err(const ls_attn_inputs *in, const float *o, int window, double *scale)
{
    int d = in->dim, sq = in->seq_q;
    double *ref = malloc((size_t)sq * d * sizeof(double)), e = 0.0;
    *scale = 0.0;
    for (int b = 0; b < in->batch; b++)
        for (int h = 0; h < in->heads_q; h++) {
            reference(in, b, h, window, ref);
            const float *oh = o + ((size_t)b * in->heads_q + h) * sq * d;
            for (size_t t = 0; t < (size_t)sq * d; t++) {
                double a = fabs((double)oh[t] - ref[t]);
                if (a > e || isnan(a)) e = isnan(a) ? INFINITY : a;
                if (fabs(ref[t]) > *scale) *scale = fabs(ref[t]);
            }
        }
    free(ref);
    return e;
}

/* the (warp, key tile) pairs a window leaves, counted from the definition pair by pair */
static void expected_tiles(const ls_attn_inputs *in, const ls_engine_params *p, int window, uint64_t *exec, uint64_t *masked)
{
    int br = p->b_q * p->n_q, bc = p->b_k * p->n_k, nqb = (in->seq_q + br - 1) / br, nkt = (in->seq_k + bc - 1) / bc;
    long shift = (long)in->seq_k - in->seq_q;
    *exec = *masked = 0;
    for (int qb = 0; qb < nqb; qb++)
        for (int wi = 0; wi < p->n_q; wi++) {
            int q0 = qb * br + wi * p->b_q;
            if (q0 >= in->seq_q) continue;                          /* a warp past the last query: absent */
            int q1 = q0 + p->b_q < in->seq_q ? q0 + p->b_q : in->seq_q;
            for (int kt = 0; kt < nkt; kt++) {
                int k0 = kt * bc, k1 = k0 + bc < in->seq_k ? k0 + bc : in->seq_k, any = 0;
                for (int i = q0; i < q1 && !any; i++)
                    for (int k = k0; k < k1 && !any; k++) any = k <= i + shift && (window <= 0 || k > i + shift - window);
                if (any) (*exec)++;
                else (*masked)++;
            }
        }
    *exec *= (uint64_t)in->batch * in->heads_q;
    *masked *= (uint64_t)in->batch * in->heads_q;
}

static void shape(int sq, int sk, int window, int d)
{
    ls_attn_inputs in;
    CHECK(tu_inputs_gauss(&in, 7 + (uint64_t)window, 1, 2, 1, sq, sk, d, 1, 0.9) == 0);
    ls_engine_result r32, rl, r16;
    CHECK(run(&in, LS_ENGINE_MODE_FA2_FP32, window, &r32) == 0);
    CHECK(run(&in, LS_ENGINE_MODE_LAMP, window, &rl) == 0);
    CHECK(run(&in, LS_ENGINE_MODE_FA2_16BIT, window, &r16) == 0);
    double sc, e32 = max_err(&in, r32.o, window, &sc), el = max_err(&in, rl.o, window, &sc),
           e16 = max_err(&in, r16.o, window, &sc), eref = max_err(&in, r32.o_ref, window, &sc);
    double nowin;   /* what ignoring the window would cost: the causal reference against the windowed one */
    {
        ls_engine_result rc;
        CHECK(run(&in, LS_ENGINE_MODE_FA2_FP32, 0, &rc) == 0);
        nowin = max_err(&in, rc.o, window, &sc);
        ls_engine_result_free(&rc);
    }
    printf("seq_q %d seq_k %d window %d: |O - ref| fp32 %.2e, engine's ref %.2e, fa2_16bit %.2e, lamp %.2e; no window %.2e "
           "(max |ref| %.2f)\n", sq, sk, window, e32, eref, e16, el, nowin, sc);
    CHECK_MSG(e32 < 1e-5 * (1 + sc), "fp32 %.3e", e32);
    CHECK_MSG(eref < 1e-6 * (1 + sc), "engine reference %.3e", eref);
    CHECK_MSG(e16 < 2e-2 && el < 0.1, "fa2_16bit %.3e, lamp %.3e", e16, el);
    CHECK_MSG(nowin > 5 * el, "without the window %.3e, lamp %.3e: the mask must matter here", nowin, el);
    CHECK(rl.accuracy.valid && rl.accuracy.rows == (uint64_t)sq * 2);
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    uint64_t ex, ms;
    expected_tiles(&in, &p, window, &ex, &ms);
    CHECK_MSG(rl.tiles.executed == ex && rl.tiles.masked_skipped == ms, "tiles executed %llu skipped %llu, closed %llu / %llu",
              (unsigned long long)rl.tiles.executed, (unsigned long long)rl.tiles.masked_skipped,
              (unsigned long long)ex, (unsigned long long)ms);
    CHECK(r32.tiles.executed == ex && r16.tiles.executed == ex);
    /* window >= the keys: the causal run */
    ls_engine_result rw, rc;
    CHECK(run(&in, LS_ENGINE_MODE_LAMP, sk + 5, &rw) == 0 && run(&in, LS_ENGINE_MODE_LAMP, 0, &rc) == 0);
    CHECK(memcmp(rw.o, rc.o, (size_t)sq * d * 2 * sizeof(float)) == 0);
    CHECK(rw.tiles.executed == rc.tiles.executed);
    ls_engine_result_free(&rw); ls_engine_result_free(&rc);
    ls_engine_result_free(&r32); ls_engine_result_free(&rl); ls_engine_result_free(&r16);
    ls_attn_inputs_release(&in);
}

int main(void)
{
    shape(512, 512, 128, 64);    /* square: tiles before the window skipped */
    shape(200, 456, 100, 64);    /* ragged, seq_k > seq_q: window not a tile multiple */
    shape(256, 256, 1, 64);      /* each query sees itself only */
    CHECK_DONE();
}
