/* Shared helpers for the hw/fp tests: a test-side generator (independent of lsfp_rng), format
 * tables and float bit helpers. Header-only, static functions. */
#ifndef LAMPSIM_TESTS_FP_TEST_UTIL_H
#define LAMPSIM_TESTS_FP_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lsfp.h"
#include "ref_round.h"

/* xorshift64* (test inputs only; the library's own generator is splitmix64). */
typedef struct { uint64_t s; } trng;
static inline void trng_seed(trng *g, uint64_t seed) { g->s = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull; if (!g->s) g->s = 1; }
static inline uint64_t trng_next(trng *g)
{
    uint64_t x = g->s;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    g->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}
static inline uint32_t trng_u32(trng *g) { return (uint32_t)(trng_next(g) >> 32); }
static inline double trng_unit(trng *g) { return (double)(trng_next(g) >> 11) * 0x1p-53; }
static inline double trng_gauss(trng *g)
{
    double u1 = trng_unit(g), u2 = trng_unit(g);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double bits_d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
/* Bitwise-equal floats, any NaN equal to any NaN. */
static inline int same_float(float a, float b) { return (a != a && b != b) || f_bits(a) == f_bits(b); }

static inline ref_mode ref_mode_of(lsfp_rounding r) { return r == LSFP_RND_RTZ ? REF_RTZ : REF_RNE; }

static inline double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A random float whose magnitude is spread over the format's range (plus a margin of two binades
 * below the smallest subnormal and above the max), random sign if the format is signed. */
static inline float rand_in_range(trng *g, const ref_fmt *r)
{
    int lo = r->emin - r->m - 2, hi = r->emax + 2;
    if (lo < -149) lo = -149;
    if (hi > 127) hi = 127;
    int e = lo + (int)(trng_next(g) % (uint64_t)(hi - lo + 1));
    float v = ldexpf(1.0f + (float)(trng_u32(g) >> 9) * 0x1p-23f, e);
    if (!(v < INFINITY)) v = 1.0f;
    if (r->is_signed && (trng_next(g) & 1)) v = -v;
    return v;
}
#endif

/* A raw descriptor built from the spec's table (numerics.md A.2), without the library. */
static inline lsfp_format spec_fmt(const char *name, int e, int m, int bias, int is_signed,
                                   lsfp_special sp, int subn, lsfp_overflow ovf)
{
    lsfp_format f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", name);
    f.ebits = e; f.mbits = m; f.bias = bias; f.is_signed = is_signed != 0;
    f.special = sp; f.subnormals = subn != 0; f.overflow = ovf; f.rounding = LSFP_RND_RNE;
    return f;
}
/* The spec's formats, in lsfp_named order (fp32 last). */
static inline lsfp_format spec_named(lsfp_named id)
{
    switch (id) {
    case LSFP_E4M3:    return spec_fmt("e4m3", 4, 3, 7, 1, LSFP_SPECIAL_OCP, 1, LSFP_OVF_SATURATE);
    case LSFP_E4M11:   return spec_fmt("e4m11", 4, 11, 7, 1, LSFP_SPECIAL_OCP, 1, LSFP_OVF_SATURATE);
    case LSFP_UE5M3_S: return spec_fmt("ue5m3s", 5, 3, 22, 0, LSFP_SPECIAL_OCP, 1, LSFP_OVF_SATURATE);
    case LSFP_UE5M3_X: return spec_fmt("ue5m3x", 5, 3, 31, 0, LSFP_SPECIAL_FINITE, 1, LSFP_OVF_SATURATE);
    case LSFP_UE5M11_S:return spec_fmt("ue5m11s", 5, 11, 22, 0, LSFP_SPECIAL_OCP, 1, LSFP_OVF_SATURATE);
    case LSFP_UE5M11_X:return spec_fmt("ue5m11x", 5, 11, 31, 0, LSFP_SPECIAL_FINITE, 1, LSFP_OVF_SATURATE);
    case LSFP_BF16:    return spec_fmt("bf16", 8, 7, 127, 1, LSFP_SPECIAL_IEEE, 1, LSFP_OVF_NONSAT);
    case LSFP_FP16:    return spec_fmt("fp16", 5, 10, 15, 1, LSFP_SPECIAL_IEEE, 1, LSFP_OVF_NONSAT);
    default:           return spec_fmt("fp32", 8, 23, 127, 1, LSFP_SPECIAL_IEEE, 1, LSFP_OVF_NONSAT);
    }
}
static inline lsfp_format spec_ps(int mu)
{
    char nm[16];
    snprintf(nm, sizeof nm, "ps%d", mu);
    return spec_fmt(nm, 8, mu, 127, 1, LSFP_SPECIAL_IEEE, 1, LSFP_OVF_NONSAT);
}

/* Bitwise float equality (any NaN equals any NaN). check.h's CHECK_FEQ compares signbit() results
 * directly, and gcc's signbit may return 1 for a constant and 0x80000000 for a runtime value, so
 * it false-fails on negative numbers; these tests use CHECK_SAME instead. Include check.h first. */
#define CHECK_SAME(a, b) do { float sa_ = (a), sb_ = (b); ++check_count_; \
    if (!same_float(sa_, sb_)) { ++check_failures_; \
    fprintf(stderr, "%s:%d: %s = %a (%.9g), expected %s = %a (%.9g)\n", __FILE__, __LINE__, #a, \
            (double)sa_, (double)sa_, #b, (double)sb_, (double)sb_); } } while (0)
