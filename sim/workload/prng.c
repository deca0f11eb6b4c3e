#include "prng.h"

#include <math.h>
#include <string.h>

#include "lsfp.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LS_PRNG_X86 1
#endif

uint64_t ls_prng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void ls_prng_stream(ls_prng *r, uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
    uint64_t st = seed;
    uint64_t h = ls_prng_splitmix64(&st);
    st = h ^ (tag * 0xD6E8FEB86659FD93ull);
    h = ls_prng_splitmix64(&st);
    st = h ^ (a * 0xA0761D6478BD642Full);
    h = ls_prng_splitmix64(&st);
    st = h ^ (b * 0xE7037ED1A0B428DBull);
    for (int i = 0; i < 4; ++i) r->s[i] = ls_prng_splitmix64(&st);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) r->s[0] = 1;
    r->have_spare = 0;
    r->spare = 0;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** on a state the caller may keep in registers */
static inline __attribute__((always_inline)) uint64_t xoshiro_next(uint64_t *s)
{
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static inline double uniform_of(uint64_t x) { return (double)(x >> 11) * (1.0 / 9007199254740992.0); }

uint64_t ls_prng_next(ls_prng *r) { return xoshiro_next(r->s); }

double ls_prng_uniform(ls_prng *r) { return uniform_of(xoshiro_next(r->s)); }

/* Marsaglia's polar method: a point (u, v) drawn uniformly in the unit disc minus the origin. */
static void polar_draw(uint64_t *st, double *u, double *v, double *s)
{
    do {
        *u = 2.0 * uniform_of(xoshiro_next(st)) - 1.0;
        *v = 2.0 * uniform_of(xoshiro_next(st)) - 1.0;
        *s = *u * *u + *v * *v;
    } while (*s >= 1.0 || *s == 0.0);
}

static double polar_factor(double s);

double ls_prng_normal(ls_prng *r)
{
    if (r->have_spare) {
        r->have_spare = 0;
        return r->spare;
    }
    double u, v, s;
    polar_draw(r->s, &u, &v, &s);
    double f = polar_factor(s);
    r->spare = v * f;
    r->have_spare = 1;
    return u * f;
}

static const double LN2_HI = 6.93147180369123816490e-01; /* high bits of ln 2, exact times small ints */
static const double LN2_LO = 1.90821492927058770002e-10;

/* 1/k for k = 23, 21, .., 1: the atanh series' coefficients, highest first (each correctly rounded,
 * as the division at run time would be) */
static const double ATANH_COEF[12] = {1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13,
                                      1.0 / 11, 1.0 / 9,  1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0 / 1};
static const double SQRT_HALF = 0.70710678118654752440;

double ls_prng_det_log(double x)
{
    if (!(x > 0)) return -HUGE_VAL;
    int e;
    double m = frexp(x, &e); /* x = m * 2^e, m in [0.5, 1) (exact) */
    if (m < SQRT_HALF) {
        m *= 2.0;
        e -= 1;
    }
    /* log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716 */
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double term = ATANH_COEF[0];
    for (int k = 1; k < 12; ++k) term = ATANH_COEF[k] + s2 * term;
    double lm = 2.0 * s * term;
    return (double)e * LN2_HI + ((double)e * LN2_LO + lm);
}

/* The polar method's factor sqrt(-2 log s / s), several lanes at once: ls_prng_det_log's operations in
 * its order, one rounding each (no FMA: -ffp-contract=off), so every lane has the scalar bits. s is
 * a positive normal number (s >= 2^-104), so frexp is a matter of bits: the mantissa with 0.5's
 * exponent, e = biased exponent - 1022 (made a double exactly as (2^52 + biased) - (2^52 + 1022)). */
static double polar_factor(double s) { return sqrt(-2.0 * ls_prng_det_log(s) / s); }

#ifdef LS_PRNG_X86
/* One body for both widths: VD/VI vector types, MT the compare mask, L lanes, P the intrinsic prefix;
 * LOWER(m) the lanes below sqrt(1/2), WHERE(mask, a, b) a where the mask is set, else b. */
#define LS_PRNG_POLAR(NAME, TGT, VD, VI, MT, L, P, SI, SET1_64, LOWER, WHERE)                                      \
    __attribute__((target(TGT))) static int NAME(const double *s, double *f, int n)                                \
    {                                                                                                               \
        const VI mant = SET1_64(0x000fffffffffffffll), half = SET1_64(0x3fe0000000000000ll);                       \
        const VI magic = SET1_64(0x4330000000000000ll);                                                            \
        const VD one = P##_set1_pd(1.0), bias = P##_set1_pd(4503599627370496.0 + 1022.0);                          \
        int p = 0;                                                                                                  \
        for (; p + (L) <= n; p += (L)) {                                                                           \
            VD x = P##_loadu_pd(s + p);                                                                             \
            VI bits = P##_castpd_##SI(x);                                                                           \
            VD m = P##_cast##SI##_pd(P##_or_##SI(P##_and_##SI(bits, mant), half));                                  \
            VD e = P##_sub_pd(P##_cast##SI##_pd(P##_or_##SI(P##_srli_epi64(bits, 52), magic)), bias);               \
            MT lo = LOWER(m);                                                                                       \
            m = WHERE(lo, P##_add_pd(m, m), m);                                                                     \
            e = WHERE(lo, P##_sub_pd(e, one), e);                                                                   \
            VD t = P##_div_pd(P##_sub_pd(m, one), P##_add_pd(m, one));                                              \
            VD t2 = P##_mul_pd(t, t), term = P##_set1_pd(ATANH_COEF[0]);                                            \
            for (int k = 1; k < 12; ++k) term = P##_add_pd(P##_set1_pd(ATANH_COEF[k]), P##_mul_pd(t2, term));      \
            VD lm = P##_mul_pd(P##_mul_pd(P##_set1_pd(2.0), t), term);                                              \
            VD lg = P##_add_pd(P##_mul_pd(e, P##_set1_pd(LN2_HI)), P##_add_pd(P##_mul_pd(e, P##_set1_pd(LN2_LO)), lm)); \
            P##_storeu_pd(f + p, P##_sqrt_pd(P##_div_pd(P##_mul_pd(P##_set1_pd(-2.0), lg), x)));                    \
        }                                                                                                           \
        return p;                                                                                                   \
    }

#define LS_PRNG_LOWER_512(m) _mm512_cmp_pd_mask(m, _mm512_set1_pd(SQRT_HALF), _CMP_LT_OQ)
#define LS_PRNG_WHERE_512(k, a, b) _mm512_mask_mov_pd(b, k, a)
#define LS_PRNG_LOWER_256(m) _mm256_cmp_pd(m, _mm256_set1_pd(SQRT_HALF), _CMP_LT_OQ)
#define LS_PRNG_WHERE_256(k, a, b) _mm256_blendv_pd(b, a, k)
LS_PRNG_POLAR(polar_avx512, "avx512f", __m512d, __m512i, __mmask8, 8, _mm512, si512, _mm512_set1_epi64,
              LS_PRNG_LOWER_512, LS_PRNG_WHERE_512)
LS_PRNG_POLAR(polar_avx2, "avx2", __m256d, __m256i, __m256d, 4, _mm256, si256, _mm256_set1_epi64x,
              LS_PRNG_LOWER_256, LS_PRNG_WHERE_256)
#endif

static void polar_factors(const double *s, double *f, int n)
{
    int p = 0;
#ifdef LS_PRNG_X86
    lsfp_isa isa = lsfp_isa_active();
    if (isa == LSFP_ISA_AVX512) p = polar_avx512(s, f, n);
    else if (isa == LSFP_ISA_AVX2) p = polar_avx2(s, f, n);
#endif
    for (; p < n; ++p) f[p] = polar_factor(s[p]);
}

void ls_prng_normals(ls_prng *r, double *out, size_t n)
{
    size_t k = 0;
    if (n && r->have_spare) {
        out[k++] = r->spare;
        r->have_spare = 0;
    }
    enum { CHUNK = 64 }; /* pairs per pass */
    double u[CHUNK], v[CHUNK], s[CHUNK], f[CHUNK];
    while (k < n) {
        size_t left = (n - k + 1) / 2;
        int pairs = left < CHUNK ? (int)left : CHUNK;
        uint64_t st[4];
        memcpy(st, r->s, sizeof st);
        /* the draws of polar_draw, a candidate kept by advancing p (no branch to mispredict) */
        for (int p = 0; p < pairs;) {
            u[p] = 2.0 * uniform_of(xoshiro_next(st)) - 1.0;
            v[p] = 2.0 * uniform_of(xoshiro_next(st)) - 1.0;
            s[p] = u[p] * u[p] + v[p] * v[p];
            p += (s[p] < 1.0) & (s[p] != 0.0);
        }
        memcpy(r->s, st, sizeof st);
        polar_factors(s, f, pairs);
        for (int p = 0; p < pairs; ++p) {
            out[k++] = u[p] * f[p];
            if (k < n) out[k++] = v[p] * f[p];
            else {  /* the odd one out waits as the spare, as ls_prng_normal leaves it */
                r->spare = v[p] * f[p];
                r->have_spare = 1;
            }
        }
    }
}

double ls_prng_det_exp(double x)
{
    /* x = k ln2 + r, |r| <= ln2 / 2 */
    double kf = x * 1.44269504088896340736;
    kf = kf >= 0 ? floor(kf + 0.5) : -floor(-kf + 0.5);
    int k = (int)kf;
    double r = (x - kf * LN2_HI) - kf * LN2_LO;
    double term = 1.0, sum = 1.0;
    for (int i = 1; i <= 18; ++i) {
        term = term * r / i;
        sum += term;
    }
    return ldexp(sum, k);
}

/* Cody-Waite parts of pi/2 and the series' denominators (i-1) i (exact) */
static const double TWO_OVER_PI = 0.63661977236758134308, PIO2_1 = 1.57079632673412561417e+00,
                    PIO2_2 = 6.07710050630396597660e-11, PIO2_3 = 2.02226624879595063154e-21;

void ls_prng_det_sincos(double x, double *s, double *c)
{
    /* reduce by 2 pi in three parts (Cody-Waite), then by pi/2 into [-pi/4, pi/4] */
    double kf = x * TWO_OVER_PI;
    kf = kf >= 0 ? floor(kf + 0.5) : -floor(-kf + 0.5);
    double r = ((x - kf * PIO2_1) - kf * PIO2_2) - kf * PIO2_3;
    long long q = (long long)kf;
    int quadrant = (int)(((q % 4) + 4) % 4);
    double r2 = r * r;
    double ts, tc;
    /* sin r = r (1 - r2/(2*3) (1 - r2/(4*5) (1 - ...))) */
    ts = 1.0;
    for (int i = 19; i >= 3; i -= 2) ts = 1.0 - r2 / ((double)(i - 1) * i) * ts;
    double sv = r * ts;
    /* cos r = 1 - r2/(1*2) (1 - r2/(3*4) (1 - ...)) */
    tc = 1.0;
    for (int i = 20; i >= 2; i -= 2) tc = 1.0 - r2 / ((double)(i - 1) * i) * tc;
    double cv = tc;
    switch (quadrant) {
    case 0: *s = sv; *c = cv; break;
    case 1: *s = cv; *c = -sv; break;
    case 2: *s = -sv; *c = -cv; break;
    default: *s = -cv; *c = sv; break;
    }
}

/* ls_prng_det_sincos several lanes at once, its operations in its order. The quadrant kf mod 4 is
 * kf - 4 floor(kf / 4), exact for an integral kf; negation flips the sign bit, as unary minus does. */
#ifdef LS_PRNG_X86
__attribute__((target("avx512f"))) static int sincos_avx512(const double *x, double *s, double *c, int n)
{
    const __m512d one = _mm512_set1_pd(1.0), half = _mm512_set1_pd(0.5), zero = _mm512_setzero_pd();
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ull);
    enum { FLOOR = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC };
#define NEG512(m, v) _mm512_castsi512_pd(_mm512_mask_xor_epi64(_mm512_castpd_si512(v), m, _mm512_castpd_si512(v), sign))
    int p = 0;
    for (; p + 8 <= n; p += 8) {
        __m512d xv = _mm512_loadu_pd(x + p), k = _mm512_mul_pd(xv, _mm512_set1_pd(TWO_OVER_PI));
        __mmask8 up = _mm512_cmp_pd_mask(k, zero, _CMP_GE_OQ);
        __m512d kup = _mm512_roundscale_pd(_mm512_add_pd(k, half), FLOOR);
        __m512d kdn = NEG512(0xff, _mm512_roundscale_pd(_mm512_add_pd(NEG512(0xff, k), half), FLOOR));
        k = _mm512_mask_blend_pd(up, kdn, kup);
        __m512d r = _mm512_sub_pd(_mm512_sub_pd(_mm512_sub_pd(xv, _mm512_mul_pd(k, _mm512_set1_pd(PIO2_1))),
                                                _mm512_mul_pd(k, _mm512_set1_pd(PIO2_2))),
                                  _mm512_mul_pd(k, _mm512_set1_pd(PIO2_3)));
        __m512d quad = _mm512_sub_pd(k, _mm512_mul_pd(_mm512_set1_pd(4.0),
                                                      _mm512_roundscale_pd(_mm512_mul_pd(k, _mm512_set1_pd(0.25)), FLOOR)));
        __m512d r2 = _mm512_mul_pd(r, r), ts = one, tc = one;
        for (int i = 19; i >= 3; i -= 2)
            ts = _mm512_sub_pd(one, _mm512_mul_pd(_mm512_div_pd(r2, _mm512_set1_pd((double)(i - 1) * i)), ts));
        for (int i = 20; i >= 2; i -= 2)
            tc = _mm512_sub_pd(one, _mm512_mul_pd(_mm512_div_pd(r2, _mm512_set1_pd((double)(i - 1) * i)), tc));
        __m512d sv = _mm512_mul_pd(r, ts);
        __mmask8 q1 = _mm512_cmp_pd_mask(quad, one, _CMP_EQ_OQ), q2 = _mm512_cmp_pd_mask(quad, _mm512_set1_pd(2.0), _CMP_EQ_OQ),
                 q3 = _mm512_cmp_pd_mask(quad, _mm512_set1_pd(3.0), _CMP_EQ_OQ);
        __m512d so = _mm512_mask_blend_pd(q1 | q3, sv, tc), co = _mm512_mask_blend_pd(q1 | q3, tc, sv);
        _mm512_storeu_pd(s + p, NEG512(q2 | q3, so));
        _mm512_storeu_pd(c + p, NEG512(q1 | q2, co));
    }
#undef NEG512
    return p;
}

__attribute__((target("avx2"))) static int sincos_avx2(const double *x, double *s, double *c, int n)
{
    const __m256d one = _mm256_set1_pd(1.0), half = _mm256_set1_pd(0.5), zero = _mm256_setzero_pd();
    const __m256d sign = _mm256_set1_pd(-0.0);
    int p = 0;
    for (; p + 4 <= n; p += 4) {
        __m256d xv = _mm256_loadu_pd(x + p), k = _mm256_mul_pd(xv, _mm256_set1_pd(TWO_OVER_PI));
        __m256d up = _mm256_cmp_pd(k, zero, _CMP_GE_OQ);
        __m256d kup = _mm256_floor_pd(_mm256_add_pd(k, half));
        __m256d kdn = _mm256_xor_pd(_mm256_floor_pd(_mm256_add_pd(_mm256_xor_pd(k, sign), half)), sign);
        k = _mm256_blendv_pd(kdn, kup, up);
        __m256d r = _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(xv, _mm256_mul_pd(k, _mm256_set1_pd(PIO2_1))),
                                                _mm256_mul_pd(k, _mm256_set1_pd(PIO2_2))),
                                  _mm256_mul_pd(k, _mm256_set1_pd(PIO2_3)));
        __m256d quad = _mm256_sub_pd(k, _mm256_mul_pd(_mm256_set1_pd(4.0), _mm256_floor_pd(_mm256_mul_pd(k, _mm256_set1_pd(0.25)))));
        __m256d r2 = _mm256_mul_pd(r, r), ts = one, tc = one;
        for (int i = 19; i >= 3; i -= 2)
            ts = _mm256_sub_pd(one, _mm256_mul_pd(_mm256_div_pd(r2, _mm256_set1_pd((double)(i - 1) * i)), ts));
        for (int i = 20; i >= 2; i -= 2)
            tc = _mm256_sub_pd(one, _mm256_mul_pd(_mm256_div_pd(r2, _mm256_set1_pd((double)(i - 1) * i)), tc));
        __m256d sv = _mm256_mul_pd(r, ts);
        __m256d q1 = _mm256_cmp_pd(quad, one, _CMP_EQ_OQ), q2 = _mm256_cmp_pd(quad, _mm256_set1_pd(2.0), _CMP_EQ_OQ),
                q3 = _mm256_cmp_pd(quad, _mm256_set1_pd(3.0), _CMP_EQ_OQ), odd = _mm256_or_pd(q1, q3);
        __m256d so = _mm256_blendv_pd(sv, tc, odd), co = _mm256_blendv_pd(tc, sv, odd);
        _mm256_storeu_pd(s + p, _mm256_xor_pd(so, _mm256_and_pd(_mm256_or_pd(q2, q3), sign)));
        _mm256_storeu_pd(c + p, _mm256_xor_pd(co, _mm256_and_pd(_mm256_or_pd(q1, q2), sign)));
    }
    return p;
}
#endif

void ls_prng_det_sincos_n(const double *x, double *s, double *c, int n)
{
    int p = 0;
#ifdef LS_PRNG_X86
    lsfp_isa isa = lsfp_isa_active();
    if (isa == LSFP_ISA_AVX512) p = sincos_avx512(x, s, c, n);
    else if (isa == LSFP_ISA_AVX2) p = sincos_avx2(x, s, c, n);
#endif
    for (; p < n; ++p) ls_prng_det_sincos(x[p], &s[p], &c[p]);
}
