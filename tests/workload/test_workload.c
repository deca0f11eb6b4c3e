/* Workload generators (determinism with pinned hashes, statistics) and trace loading. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "config.h"
#include "lsfp.h"
#include "npy.h"
#include "prng.h"
#include "workload.h"

static char tmp[2048];
static char err[2048];
static ls_config cfg;
static ls_config_diag diag;

static const char *tp(const char *name)
{
    static char p[4][2200];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmp, name);
    return p[k];
}

static int load(const char *text)
{
    int rc = ls_config_load_string(&cfg, text, strlen(text), "w.yaml", tmp, NULL, 0, &diag);
    if (rc) fprintf(stderr, "config error: %s\n", diag.message);
    return rc;
}

static void test_prng(void)
{
    ls_prng r;
    ls_prng_stream(&r, 1, 2, 3, 4);
    uint64_t x = 0;
    for (int i = 0; i < 1000; ++i) x ^= ls_prng_next(&r) * (uint64_t)(i + 1);
    CHECK_MSG(x == 0x4a6ebbb395c30bd8ull, "xoshiro stream changed: %016llx", (unsigned long long)x);
    /* deterministic math is accurate */
    double worst = 0;
    for (int i = 1; i < 2000; ++i) {
        double v = i * 0.37 + 1e-3;
        double e1 = fabs(ls_prng_det_log(v) - log(v)) / fabs(log(v) + 1e-300);
        if (log(v) != 0 && e1 > worst) worst = e1;
        double e2 = fabs(ls_prng_det_exp(-v / 100) - exp(-v / 100)) / exp(-v / 100);
        if (e2 > worst) worst = e2;
        double s, c;
        ls_prng_det_sincos(v * 13.1, &s, &c);
        if (fabs(s - sin(v * 13.1)) > worst) worst = fabs(s - sin(v * 13.1));
        if (fabs(c - cos(v * 13.1)) > worst) worst = fabs(c - cos(v * 13.1));
    }
    CHECK_MSG(worst < 1e-13, "deterministic math error %g", worst);
    /* normal moments */
    double m = 0, m2 = 0;
    const int N = 200000;
    ls_prng_stream(&r, 7, 0, 0, 0);
    for (int i = 0; i < N; ++i) {
        double z = ls_prng_normal(&r);
        m += z;
        m2 += z * z;
    }
    m /= N;
    m2 /= N;
    CHECK_MSG(fabs(m) < 0.01 && fabs(m2 - 1) < 0.01, "normal moments %g %g", m, m2);
}

/* The batched normals are the successive calls, bit for bit, spare and state included, on every
 * kernel family (the families differ in how many logarithms they do at once). */
static void test_normals(void)
{
    static const size_t lens[] = {0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1001};
    double got[1001], want[1001];
    for (int isa = 0; isa <= (int)lsfp_isa_best(); ++isa) {
        lsfp_set_isa_limit((lsfp_isa)isa);
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; ++i)
            for (int spare = 0; spare < 2; ++spare) {
                ls_prng a, b;
                ls_prng_stream(&a, 5, (uint64_t)i, (uint64_t)spare, 9);
                if (spare) (void)ls_prng_normal(&a);
                b = a;
                for (size_t k = 0; k < lens[i]; ++k) want[k] = ls_prng_normal(&a);
                ls_prng_normals(&b, got, lens[i]);
                CHECK_MSG(!memcmp(got, want, lens[i] * sizeof got[0]) && !memcmp(a.s, b.s, sizeof a.s) &&
                              a.have_spare == b.have_spare && (!a.have_spare || a.spare == b.spare) &&
                              ls_prng_normal(&a) == ls_prng_normal(&b),
                          "%s: %zu normals after %d", lsfp_isa_name((lsfp_isa)isa), lens[i], spare);
            }
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
}

/* The batched sines and cosines are ls_prng_det_sincos's, bit for bit, on every family: both signs, every
 * quadrant, the rounding boundaries of the reduction, large arguments (RoPE's positions x frequencies). */
static void test_sincos_n(void)
{
    enum { N = 4099 };
    static double x[N], s[N], c[N];
    ls_prng r;
    ls_prng_stream(&r, 3, 1, 4, 1);
    for (int i = 0; i < N; ++i) {
        double u = ls_prng_uniform(&r);
        switch (i % 4) {
        case 0: x[i] = (u - 0.5) * 20; break;                                  /* a few turns either way */
        case 1: x[i] = (double)(i / 4) * ldexp(1.0, -(i % 40)); break;         /* positions x frequencies */
        case 2: x[i] = ((i / 4) % 64 - 32 + 0.5) * 1.5707963267948966; break; /* halfway between quadrants */
        default: x[i] = (u - 0.5) * 1e6; break;
        }
    }
    x[0] = 0.0, x[4] = -0.0;
    for (int isa = 0; isa <= (int)lsfp_isa_best(); ++isa) {
        lsfp_set_isa_limit((lsfp_isa)isa);
        int bad = -1;
        for (int n = 0; n <= 9 && bad < 0; ++n) {  /* every tail length, then all */
            int len = n == 9 ? N : n;
            ls_prng_det_sincos_n(x, s, c, len);
            for (int i = 0; i < len && bad < 0; ++i) {
                double es, ec;
                ls_prng_det_sincos(x[i], &es, &ec);
                if (memcmp(&es, &s[i], sizeof es) || memcmp(&ec, &c[i], sizeof ec)) bad = i;
            }
        }
        CHECK_MSG(bad < 0, "%s: ls_prng_det_sincos_n differs at x = %.17g", lsfp_isa_name((lsfp_isa)isa), bad < 0 ? 0 : x[bad]);
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
}

static uint64_t build_hash(const char *text, ls_workload_info *info)
{
    ls_attn_inputs in;
    if (load(text)) return 0;
    if (ls_workload_build(&cfg, NULL, &in, info, err, sizeof err)) {
        fprintf(stderr, "build error: %s\n", err);
        return 0;
    }
    uint64_t h = in.q ? ls_workload_hash(&in) : 0;
    ls_attn_inputs_release(&in);
    return h;
}

static void test_determinism(void)
{
    ls_workload_info info;
    /* pinned hashes: a change here changes every synthetic result; only update deliberately */
    static const char *const cases[] = {
        "workload:\n  seq_q: 64\n  seq_k: 64\n",
        "workload:\n  seq_q: 48\n  seq_k: 80\n  generator: gaussian\n  causal: false\n  dtype: fp32\n  heads_q: 4\n  heads_kv: 2\n",
        "workload:\n  seq_q: 32\n  seq_k: 32\n  dtype: fp16\n  rope:\n    enabled: false\n  sinks:\n    count: 3\n  seed: 99\n",
        "seed: 5\nworkload:\n  seq_q: 4\n  seq_k: 100\n  dim: 64\n  batch: 2\n  heads_q: 4\n  heads_kv: 1\n  dtype: fp32\n",
        /* more queries than keys: RoPE positions below zero */
        "workload:\n  seq_q: 40\n  seq_k: 24\n  causal: false\n  dim: 32\n",
        /* RoPE's (sin, cos) beyond the table's 64 MiB: computed in place */
        "workload:\n  seq_q: 1\n  seq_k: 4100\n  dim: 2048\n  heads_q: 1\n  heads_kv: 1\n  causal: false\n",
    };
    static const uint64_t pinned[] = {0x3921bd0e3eb3d464ull, 0x6b0e172a57c1716eull, 0xa57f9d54dca08986ull, 0x92e24197c9b1892dull,
                                      0xa36247a3df0f6462ull, 0xab98def38c257f03ull};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        uint64_t a = build_hash(cases[i], &info), b = build_hash(cases[i], &info);
        CHECK(a != 0 && a == b && info.hash == a);
        CHECK_MSG(a == pinned[i], "case %zu: hash %016llx, pinned %016llx", i, (unsigned long long)a,
                                 (unsigned long long)pinned[i]);
    }
    /* the seed matters; workload.seed -1 follows the top-level seed */
    uint64_t h1 = build_hash("seed: 1\nworkload:\n  seq_q: 32\n  seq_k: 32\n", &info);
    uint64_t h2 = build_hash("seed: 2\nworkload:\n  seq_q: 32\n  seq_k: 32\n", &info);
    uint64_t h3 = build_hash("seed: 2\nworkload:\n  seed: 1\n  seq_q: 32\n  seq_k: 32\n", &info);
    CHECK(h1 != h2 && h1 == h3 && info.seed == 1);
    /* streams are per (batch, head): adding heads leaves the existing ones unchanged */
    ls_attn_inputs a, b;
    CHECK(load("workload:\n  seq_q: 32\n  seq_k: 32\n  heads_q: 2\n  heads_kv: 1\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &a, NULL, err, sizeof err) == 0);
    CHECK(load("workload:\n  seq_q: 32\n  seq_k: 32\n  heads_q: 4\n  heads_kv: 1\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &b, NULL, err, sizeof err) == 0);
    CHECK(!memcmp(a.q, b.q, 2 * 32 * 128 * sizeof(float)) && !memcmp(a.k, b.k, 32 * 128 * sizeof(float)));
    CHECK(!memcmp(a.v, b.v, 32 * 128 * sizeof(float)));
    ls_attn_inputs_release(&a);
    ls_attn_inputs_release(&b);
}

/* Mean softmax probability of key `key` over queries (non-causal rows), per head 0. */
static double mean_mass(const ls_attn_inputs *in, int key, int head)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k;
    const int g = head / (in->heads_q / in->heads_kv);
    double total = 0;
    double *l = malloc((size_t)SK * sizeof(double));
    for (int i = 0; i < SQ; ++i) {
        const float *q = in->q + ((size_t)head * SQ + i) * D;
        int jmax = in->causal ? i + SK - SQ : SK - 1;
        double mx = -1e300;
        for (int j = 0; j <= jmax; ++j) {
            const float *k = in->k + ((size_t)g * SK + j) * D;
            double s = 0;
            for (int t = 0; t < D; ++t) s += (double)q[t] * k[t];
            l[j] = s / sqrt((double)D);
            if (l[j] > mx) mx = l[j];
        }
        double z = 0;
        for (int j = 0; j <= jmax; ++j) z += exp(l[j] - mx);
        total += key <= jmax ? exp(l[key] - mx) / z : 0;
    }
    free(l);
    return total / SQ;
}

/* Mean logit for key distance |i - j| in [lo, hi). */
static double mean_logit_at(const ls_attn_inputs *in, int lo, int hi)
{
    const int D = in->dim, S = in->seq_q;
    double s = 0;
    long n = 0;
    for (int i = 0; i < S; ++i)
        for (int j = 1; j < S; ++j) { /* skip the sink key */
            int dd = abs(i - j);
            if (dd < lo || dd >= hi) continue;
            double dot = 0;
            for (int t = 0; t < D; ++t) dot += (double)in->q[(size_t)i * D + t] * in->k[(size_t)j * D + t];
            s += dot / sqrt((double)D);
            n++;
        }
    return n ? s / n : 0;
}

static void test_statistics(void)
{
    ls_workload_info info;
    ls_attn_inputs in;
    /* QK-norm: gains within the bound, every logit within gain_q * gain_k * sqrt(d) */
    CHECK(load("workload:\n  seq_q: 256\n  seq_k: 256\n  dtype: fp32\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    CHECK(info.gain_applicable && info.gain_bound_respected && info.logits_within_limit && !info.max_abs_logit_sampled);
    CHECK(fabs(info.gain_bound - 6.29271) < 1e-4);
    CHECK(info.gain_q <= 2.5 && info.gain_k <= 2.5 && info.gain_q > 1.2);
    CHECK(info.max_abs_logit <= info.logit_bound && info.logit_bound <= 448);
    for (int r = 0; r < 2 * 256; ++r) { /* |q| <= gain_q sqrt(d) */
        double s = 0;
        for (int t = 0; t < 128; ++t) s += (double)in.q[(size_t)r * 128 + t] * in.q[(size_t)r * 128 + t];
        CHECK(sqrt(s) <= info.gain_q * sqrt(128.0) * (1 + 1e-6));
    }
    ls_attn_inputs_release(&in);
    /* a gain above the bound is reported, and is an error when enforced */
    CHECK(load("workload:\n  seq_q: 64\n  seq_k: 64\n  qknorm:\n    gain: 8\n    gain_spread: 0\n  head_variety: 0\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    CHECK(!info.gain_bound_respected && fabs(info.gain_used - 8) < 1e-9 && fabs(info.logit_bound - 64 * sqrt(128.0)) < 1e-9);
    ls_attn_inputs_release(&in);
    CHECK(load("workload:\n  seq_q: 64\n  seq_k: 64\n  qknorm:\n    gain: 8\n    gain_spread: 0\n    enforce_bound: true\n"
               "  head_variety: 0\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == -1);
    CHECK_MSG(!strcmp(err, "workload.qknorm.gain: effective gain 8 (gain x sharpness) exceeds the D.5 bound sqrt(448/sqrt(128)) "
                           "= 6.293 and workload.qknorm.enforce_bound is true"), "%s", err);
    /* sharpness counts toward the bound */
    CHECK(load("workload:\n  seq_q: 64\n  seq_k: 64\n  sharpness: 4\n  qknorm:\n    gain: 6\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0 && !info.gain_bound_respected);
    ls_attn_inputs_release(&in);
    /* attention sinks receive the mass; without sinks key 0 is ordinary */
    CHECK(load("workload:\n  seq_q: 256\n  seq_k: 256\n  causal: false\n  dtype: fp32\n  head_variety: 0\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    double with = mean_mass(&in, 0, 0);
    ls_attn_inputs_release(&in);
    CHECK(load("workload:\n  seq_q: 256\n  seq_k: 256\n  causal: false\n  dtype: fp32\n  head_variety: 0\n  sinks:\n    count: 0\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    double without = mean_mass(&in, 0, 0);
    ls_attn_inputs_release(&in);
    CHECK_MSG(with > 0.1 && with < 0.9, "sink mass %g", with);
    CHECK_MSG(without < 0.05, "key 0 mass without sinks %g", without);
    /* RoPE + locality: nearby keys score higher than distant ones */
    CHECK(load("workload:\n  seq_q: 256\n  seq_k: 256\n  heads_q: 1\n  causal: false\n  dtype: fp32\n  sinks:\n    count: 0\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    double near = mean_logit_at(&in, 0, 4), far = mean_logit_at(&in, 64, 256);
    ls_attn_inputs_release(&in);
    CHECK_MSG(near > far + 1.0, "near %g far %g", near, far);
    /* gaussian: moments */
    CHECK(load("workload:\n  generator: gaussian\n  std: 2\n  v_std: 0.5\n  dtype: fp32\n  seq_q: 256\n  seq_k: 256\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    double sq = 0, sv = 0;
    size_t n = (size_t)2 * 256 * 128;
    for (size_t i = 0; i < n; ++i) sq += (double)in.q[i] * in.q[i];
    for (size_t i = 0; i < n / 2; ++i) sv += (double)in.v[i] * in.v[i];
    CHECK(fabs(sqrt(sq / n) - 2) < 0.02 && fabs(sqrt(sv / (n / 2)) - 0.5) < 0.01);
    CHECK(!info.gain_applicable && info.max_abs_logit <= info.logit_bound);
    ls_attn_inputs_release(&in);
    /* decode-like shape */
    CHECK(load("workload:\n  seq_q: 1\n  seq_k: 300\n  heads_q: 8\n  heads_kv: 2\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    CHECK(in.seq_q == 1 && in.seq_k == 300 && in.heads_q == 8 && in.heads_kv == 2 && in.causal);
    ls_attn_inputs_release(&in);
}

static void test_dtype(void)
{
    float x[] = {1.0f + 0x1p-11f, 1.0f + 0x1p-10f, 1.0f + 3 * 0x1p-11f, 65519.0f, 0x1p-25f, 3 * 0x1p-25f, -2.5f, 1e-30f};
    float e[] = {1.0f, 1.0f + 0x1p-10f, 1.0f + 0x1p-9f, 65504.0f, 0.0f, 0x1p-23f, -2.5f, 0.0f};
    CHECK(ls_workload_round_to_dtype(x, 8, LS_CONFIG_DTYPE_FP16) == -1);
    for (int i = 0; i < 8; ++i) CHECK_FEQ(x[i], e[i]);
    float y[] = {65520.0f};
    CHECK(ls_workload_round_to_dtype(y, 1, LS_CONFIG_DTYPE_FP16) == 0 && isinf(y[0]));
    float z[] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 3.0e38f, 1.00390625f + 0x1p-20f};
    float ez[] = {1.0f, 1.0f + 0x1p-6f, 3.0e38f, 1.0078125f};
    CHECK(ls_workload_round_to_dtype(z, 4, LS_CONFIG_DTYPE_BF16) == -1);
    CHECK_FEQ(z[0], ez[0]);
    CHECK_FEQ(z[1], ez[1]);
    CHECK(fabsf(z[2] - ez[2]) / ez[2] < 0x1p-8f);
    CHECK_FEQ(z[3], ez[3]);
    /* the first finite value that overflows bf16 is named, in any block; infinities stay and are not named */
    static float big[5000];
    for (int i = 0; i < 5000; ++i) big[i] = (float)i;
    big[1500] = INFINITY, big[1700] = -NAN, big[3001] = -3.4e38f, big[4000] = 3.4e38f;
    CHECK(ls_workload_round_to_dtype(big, 5000, LS_CONFIG_DTYPE_BF16) == 3001);
    CHECK(isinf(big[1500]) && isnan(big[1700]) && big[3001] == -INFINITY && big[4000] == INFINITY && big[257] == 256.0f);
    big[3001] = 3.0e38f;
    CHECK(ls_workload_round_to_dtype(big, 5000, LS_CONFIG_DTYPE_BF16) == -1);
    /* generated bf16 operands are on the bf16 grid */
    ls_attn_inputs in;
    CHECK(load("workload:\n  seq_q: 16\n  seq_k: 16\n  dtype: bf16\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, NULL, err, sizeof err) == 0);
    int ok = 1;
    for (size_t i = 0; i < (size_t)2 * 16 * 128; ++i) {
        uint32_t u;
        memcpy(&u, &in.q[i], 4);
        if (u & 0xffff) ok = 0;
    }
    CHECK(ok);
    ls_attn_inputs_release(&in);
}

static void save(const char *name, const float *d, int ndim, const int64_t *shape)
{
    CHECK(ls_npy_save_f32(tp(name), d, ndim, shape, err, sizeof err) == 0);
}

#define TRACE_ERR(yaml, expected) do { CHECK(load(yaml) == 0); ls_attn_inputs in_; \
    int rc_ = ls_workload_build(&cfg, NULL, &in_, NULL, err, sizeof err); \
    CHECK_MSG(rc_ == -1 && !strcmp(err, expected), "\n  got:      %s\n  expected: %s", rc_ ? err : "(success)", expected); \
    if (!rc_) ls_attn_inputs_release(&in_); } while (0)

static void test_trace(void)
{
    /* Q [1, 4, 8, 16], K/V [1, 2, 8, 16] */
    static float q[4 * 8 * 16], k[2 * 8 * 16], v[2 * 8 * 16];
    for (int i = 0; i < 4 * 8 * 16; ++i) q[i] = (float)((i % 13) - 6) * 0.125f;
    for (int i = 0; i < 2 * 8 * 16; ++i) {
        k[i] = (float)((i % 7) - 3) * 0.25f;
        v[i] = (float)i;
    }
    int64_t sq[4] = {1, 4, 8, 16}, sk[4] = {1, 2, 8, 16}, sk3[3] = {2, 8, 16};
    save("q.npy", q, 4, sq);
    save("k.npy", k, 4, sk);
    save("v.npy", v, 3, sk3); /* rank 3 is [heads, seq, dim] */
    CHECK(load("workload:\n  generator: trace\n  dtype: fp32\n  trace:\n    q: q.npy\n    k: k.npy\n    v: v.npy\n") == 0);
    ls_attn_inputs in;
    ls_workload_info info;
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    CHECK(in.batch == 1 && in.heads_q == 4 && in.heads_kv == 2 && in.seq_q == 8 && in.seq_k == 8 && in.dim == 16);
    CHECK(!memcmp(in.q, q, sizeof q) && !memcmp(in.k, k, sizeof k) && !memcmp(in.v, v, sizeof v));
    CHECK(!info.synthetic && !strcmp(info.generator, "trace") && strstr(info.source, "q.npy"));
    ls_attn_inputs_release(&in);
    /* dtype rounding applies to traces too; sharpness scales Q */
    CHECK(load("workload:\n  generator: trace\n  dtype: bf16\n  sharpness: 2\n  trace:\n    q: q.npy\n    k: k.npy\n    v: v.npy\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    CHECK(in.q[1] == 2 * q[1] && in.v[2 * 8 * 16 - 1] == 255.0f);
    ls_attn_inputs_release(&in);
    /* errors */
    char exp[4096];
    /* finite in the file, infinite after sharpness scaling: checked after the transformation */
    static float qbig[4 * 8 * 16];
    memcpy(qbig, q, sizeof q);
    qbig[7] = 3e38f;
    save("q_big.npy", qbig, 4, sq);
    snprintf(exp, sizeof exp, "workload.sharpness: Q element 7 is infinite after scaling by workload.sharpness = 2 and "
             "rounding to fp32; inputs must stay finite");
    TRACE_ERR("workload:\n  generator: trace\n  dtype: fp32\n  sharpness: 2\n  trace:\n    q: q_big.npy\n    k: k.npy\n    v: v.npy\n", exp);
    static float bad[2 * 8 * 16];
    memcpy(bad, k, sizeof k);
    bad[1 * 128 + 3 * 16 + 5] = NAN;
    save("k_nan.npy", bad, 4, sk);
    snprintf(exp, sizeof exp, "workload.trace.k: %s: element [0, 1, 3, 5] is NaN; inputs must be finite", tp("k_nan.npy"));
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    q: q.npy\n    k: k_nan.npy\n    v: v.npy\n", exp);
    bad[1 * 128 + 3 * 16 + 5] = INFINITY;
    save("k_inf.npy", bad, 4, sk);
    snprintf(exp, sizeof exp, "workload.trace.k: %s: element [0, 1, 3, 5] is infinite; inputs must be finite", tp("k_inf.npy"));
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    q: q.npy\n    k: k_inf.npy\n    v: v.npy\n", exp);
    int64_t s2[2] = {8, 64};
    save("q2.npy", q, 2, s2);
    snprintf(exp, sizeof exp, "workload.trace.q: %s: expected shape [batch, heads, seq, dim] or [heads, seq, dim], got (8, 64)", tp("q2.npy"));
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    q: q2.npy\n    k: k.npy\n    v: v.npy\n", exp);
    int64_t sq3[4] = {1, 3, 8, 16};
    save("q3.npy", q, 4, sq3);
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    q: q3.npy\n    k: k.npy\n    v: v.npy\n",
              "workload.trace.k: 2 KV heads do not divide 3 query heads");
    int64_t sk8[4] = {1, 2, 16, 8};
    save("k8.npy", k, 4, sk8);
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    q: q.npy\n    k: k8.npy\n    v: k8.npy\n",
              "workload.trace.k: Q shape [1, 4, 8, 16] and K shape [1, 2, 16, 8] disagree in head dimension");
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    q: q.npy\n    k: k.npy\n    v: k8.npy\n",
              "workload.trace.v: V shape [1, 2, 16, 8] differs from K shape [1, 2, 8, 16]");
    int64_t sqlong[4] = {1, 2, 16, 16};
    save("qlong.npy", q, 4, sqlong);
    TRACE_ERR("workload:\n  generator: trace\n  causal: true\n  trace:\n    q: qlong.npy\n    k: k.npy\n    v: v.npy\n",
              "workload.causal: causal attention needs seq_q <= seq_k, the trace has seq_q = 16, seq_k = 8");
    TRACE_ERR("algorithm:\n  chunk_k: 32\nworkload:\n  generator: trace\n  trace:\n    q: q.npy\n    k: k.npy\n    v: v.npy\n",
              "algorithm.chunk_k: 32 does not divide the trace head dimension 16");
    snprintf(exp, sizeof exp, "workload.trace.v: %s: cannot open: No such file or directory", tp("nov.npy"));
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    q: q.npy\n    k: k.npy\n    v: nov.npy\n", exp);
    /* safetensors with configurable names (BF16 K) */
    {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"query\":{\"dtype\":\"F32\",\"shape\":[4,8,16],\"data_offsets\":[0,2048]},"
                 "\"key\":{\"dtype\":\"BF16\",\"shape\":[2,8,16],\"data_offsets\":[2048,2560]},"
                 "\"value\":{\"dtype\":\"F32\",\"shape\":[2,8,16],\"data_offsets\":[2560,3584]}}");
        size_t jl = strlen(json);
        FILE *f = fopen(tp("t.safetensors"), "wb");
        uint64_t hl = jl;
        fwrite(&hl, 8, 1, f);
        fwrite(json, 1, jl, f);
        fwrite(q, 4, 4 * 8 * 16, f);
        for (int i = 0; i < 2 * 8 * 16; ++i) {
            uint32_t u;
            memcpy(&u, &k[i], 4);
            uint16_t b16 = (uint16_t)(u >> 16);
            fwrite(&b16, 2, 1, f);
        }
        fwrite(v, 4, 2 * 8 * 16, f);
        fclose(f);
    }
    CHECK(load("workload:\n  generator: trace\n  dtype: fp32\n  trace:\n    safetensors: t.safetensors\n    q_name: query\n"
               "    k_name: key\n    v_name: value\n") == 0);
    CHECK(ls_workload_build(&cfg, NULL, &in, &info, err, sizeof err) == 0);
    CHECK(in.heads_q == 4 && in.heads_kv == 2 && !memcmp(in.q, q, sizeof q) && !memcmp(in.k, k, sizeof k) &&
          !memcmp(in.v, v, sizeof v));
    ls_attn_inputs_release(&in);
    snprintf(exp, sizeof exp, "workload.trace.k_name: %s: tensor 'k' not found (available: 'query', 'key', 'value')", tp("t.safetensors"));
    TRACE_ERR("workload:\n  generator: trace\n  trace:\n    safetensors: t.safetensors\n    q_name: query\n", exp);
}

int main(int argc, char **argv)
{
    snprintf(tmp, sizeof tmp, "%s/workload_tmp", argc > 1 ? argv[1] : ".");
    mkdir(tmp, 0755);
    test_prng();
    test_normals();
    test_sincos_n();
    test_determinism();
    test_statistics();
    test_dtype();
    test_trace();
    CHECK_DONE();
}
