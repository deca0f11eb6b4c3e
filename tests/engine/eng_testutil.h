/* Test helpers for the engine: a seeded generator (splitmix64, Irwin-Hall normals), Gaussian and
 * QK-norm style attention inputs, and a 64-bit FNV-1a hash for golden files. */
#ifndef LAMPSIM_TESTS_ENGINE_TESTUTIL_H
#define LAMPSIM_TESTS_ENGINE_TESTUTIL_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attn_inputs.h"
#include "engine_parts.h"
#include "run.h"

/* hw/lamp's configuration at the schema's defaults (the only defaults) for head dimension d,
 * finalized: the engine's mapping of the default parameters. */
static inline int tu_lamp_cfg_default(lslamp_cfg *c, int d, char *err, size_t errlen)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    return ls_engine_lamp_cfg(&p, d, true, c, err, errlen);
}

typedef struct { uint64_t s; int have; double spare; } tu_rng;   /* have/spare: unused */

static inline uint64_t tu_next(tu_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline double tu_unif(tu_rng *r) { return ((double)(tu_next(r) >> 11) + 0.5) * 0x1p-53; }
/* Approximately standard normal without libm (Irwin-Hall: sum of 12 uniforms - 6), so the
 * generated inputs, and hence the golden hashes, do not depend on the C library's sin/log. */
static inline double tu_gauss(tu_rng *r)
{
    double s = 0.0;
    for (int i = 0; i < 12; i++) s += tu_unif(r);
    return s - 6.0;
}

static void tu_release(ls_attn_inputs *in)
{
    free(in->q); free(in->k); free(in->v);
    in->q = in->k = in->v = NULL;
}

/* Allocate inputs; Q, K, V filled with N(0, sigma^2) (sigma_qk for Q and K, 1 for V). */
static inline int tu_inputs_gauss(ls_attn_inputs *in, uint64_t seed, int batch, int hq, int hkv, int sq, int sk,
                                  int d, int causal, double sigma_qk)
{
    memset(in, 0, sizeof *in);
    in->batch = batch; in->heads_q = hq; in->heads_kv = hkv; in->seq_q = sq; in->seq_k = sk; in->dim = d;
    in->causal = causal != 0;
    size_t nq = (size_t)batch * hq * sq * d, nk = (size_t)batch * hkv * sk * d;
    in->q = malloc(nq * sizeof(float)); in->k = malloc(nk * sizeof(float)); in->v = malloc(nk * sizeof(float));
    in->release = tu_release;
    if (!in->q || !in->k || !in->v) return -1;
    tu_rng r = { seed, 0, 0 };
    for (size_t i = 0; i < nq; i++) in->q[i] = (float)(sigma_qk * tu_gauss(&r));
    for (size_t i = 0; i < nk; i++) in->k[i] = (float)(sigma_qk * tu_gauss(&r));
    for (size_t i = 0; i < nk; i++) in->v[i] = (float)tu_gauss(&r);
    return 0;
}

/* QK-norm style rows: RMS-normalise each row to norm sqrt(d), multiply by per-channel gains drawn
 * in [gmin, gmax] (one gain vector for Q, one for K, per head); so |logit| <= gmax^2 sqrt(d). */
static inline void tu_qknorm_rows(float *x, size_t rows, int d, const double *gain, tu_rng *r)
{
    for (size_t i = 0; i < rows; i++) {
        float *row = x + i * d;
        double ss = 0;
        for (int t = 0; t < d; t++) { row[t] = (float)tu_gauss(r); ss += (double)row[t] * row[t]; }
        double sc = sqrt((double)d / ss);
        for (int t = 0; t < d; t++) row[t] = (float)(row[t] * sc * gain[t]);
    }
}

static inline int tu_inputs_qknorm(ls_attn_inputs *in, uint64_t seed, int batch, int hq, int hkv, int sq, int sk,
                                   int d, int causal, double gmin, double gmax)
{
    if (tu_inputs_gauss(in, seed, batch, hq, hkv, sq, sk, d, causal, 1.0) != 0) return -1;
    tu_rng r = { seed ^ 0x5157u, 0, 0 };
    double *gq = malloc(sizeof(double) * d), *gk = malloc(sizeof(double) * d);
    if (!gq || !gk) { free(gq); free(gk); return -1; }
    for (int b = 0; b < batch; b++) {
        for (int h = 0; h < hkv; h++) {
            for (int t = 0; t < d; t++) gk[t] = gmin + (gmax - gmin) * tu_unif(&r);
            tu_qknorm_rows(in->k + ((size_t)b * hkv + h) * sk * d, (size_t)sk, d, gk, &r);
        }
        for (int h = 0; h < hq; h++) {
            for (int t = 0; t < d; t++) gq[t] = gmin + (gmax - gmin) * tu_unif(&r);
            tu_qknorm_rows(in->q + ((size_t)b * hq + h) * sq * d, (size_t)sq, d, gq, &r);
        }
    }
    free(gq); free(gk);
    return 0;
}

/* Attention-sink structure: key 0 of every KV head gets an extra logit of about `boost` with every
 * query of the group (a shared unit direction c added as sqrt(boost*sqrt(d))*c to Q rows and K row 0),
 * so the running maximum is found in the first key tile, as in trained LLMs. */
static inline void tu_add_sink(ls_attn_inputs *in, uint64_t seed, double boost)
{
    tu_rng r = { seed ^ 0x51Bull, 0, 0 };
    int d = in->dim, group = in->heads_q / in->heads_kv;
    double amp = sqrt(boost * sqrt((double)d));
    double *c = malloc(sizeof(double) * d);
    if (!c) return;
    for (int b = 0; b < in->batch; b++)
        for (int h = 0; h < in->heads_kv; h++) {
            double n = 0;
            for (int t = 0; t < d; t++) { c[t] = tu_gauss(&r); n += c[t] * c[t]; }
            n = sqrt(n);
            for (int t = 0; t < d; t++) c[t] = c[t] / n * amp;
            float *k0 = in->k + ((size_t)b * in->heads_kv + h) * in->seq_k * d;
            for (int t = 0; t < d; t++) k0[t] += (float)c[t];
            for (int g = 0; g < group; g++) {
                float *q = in->q + ((size_t)b * in->heads_q + (size_t)h * group + g) * in->seq_q * d;
                for (int i = 0; i < in->seq_q; i++)
                    for (int t = 0; t < d; t++) q[(size_t)i * d + t] += (float)c[t];
            }
        }
    free(c);
}

static inline uint64_t tu_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001B3ull; }
    return h;
}
#define TU_FNV_INIT 0xCBF29CE484222325ull
#endif
