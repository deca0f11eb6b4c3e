/* hw/fp/fp_math64.c — exp and log of float64 arrays for the fp64 reference's metrics (p_ref and
 * log p_test of every visible key), defined here by their operations so that every kernel family
 * gives the same bits: the plain code with fma() and the AVX2 and AVX-512 versions with their FMA
 * instructions do the same IEEE operations in the same order. exp within 1 ulp and log within 2 ulp of glibc
 * over the reference's domain (tests/fp/test_fp_math64.c).
 *
 * exp(x): k = round(x / ln 2) by the 1.5 * 2^52 shifter, r = x - k ln2_hi - k ln2_lo (two FMAs, ln2_hi
 * with trailing zero bits so k ln2_hi is exact), e^r by Horner over 1/n! to n = 13 (|r| <= 0.347:
 * remainder < 2^-57), times 2^(k - kk) and then 2^kk (kk = -1000 below k = -1000, else 0: results in
 * the subnormal range round once). x is clamped to [-800, 709]; exp(-800) is 0.
 * log(x), x > 0 normal: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) with
 * s = (m - 1) / (m + 1), |s| <= 0.1716, the odd series to s^23 (remainder < 2^-60 relative). */
#include "lsfp.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LSFP_X86 1
#endif

static const double LOG2E = 1.4426950408889634074, SHIFTER = 6755399441055744.0; /* 1.5 * 2^52 */
static const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;
static const double EXP_LO = -800.0, EXP_HI = 709.0;
static const double SQRT2 = 1.41421356237309504880;
#define EXP_TERMS 13
#define LOG_TERMS 11 /* odd powers s^3 .. s^23 */

/* 1/n! and 1/(2i + 1), each one correctly rounded division (folded at compile time) */
static const double exp_coef[EXP_TERMS + 1] = {
    1.0, 1.0, 1.0 / 2.0, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0, 1.0 / 40320.0,
    1.0 / 362880.0, 1.0 / 3628800.0, 1.0 / 39916800.0, 1.0 / 479001600.0, 1.0 / 6227020800.0};
static const double log_coef[LOG_TERMS + 1] = {
    1.0, 1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0, 1.0 / 11.0, 1.0 / 13.0, 1.0 / 15.0, 1.0 / 17.0,
    1.0 / 19.0, 1.0 / 21.0, 1.0 / 23.0};

static inline double bits_d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static inline uint64_t d_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

static double exp_one(double x)
{
    x = x < EXP_LO ? EXP_LO : x > EXP_HI ? EXP_HI : x;
    double t = x * LOG2E + SHIFTER, kd = t - SHIFTER;
    int64_t k = (int64_t)(d_bits(t) - d_bits(SHIFTER));
    double r = fma(-kd, LN2_LO, fma(-kd, LN2_HI, x));
    double p = exp_coef[EXP_TERMS];
    for (int n = EXP_TERMS - 1; n >= 0; n--) p = fma(p, r, exp_coef[n]);
    int64_t kk = k < -1000 ? -1000 : 0;
    return p * bits_d((uint64_t)(k - kk + 1023) << 52) * bits_d((uint64_t)(kk + 1023) << 52);
}

static double log_one(double x)
{
    uint64_t u = d_bits(x);
    double e = (double)((int64_t)(u >> 52) - 1023);
    double m = bits_d((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
    if (m > SQRT2) { m *= 0.5; e += 1.0; }
    double s = (m - 1.0) / (m + 1.0), s2 = s * s, p = log_coef[LOG_TERMS];
    for (int i = LOG_TERMS - 1; i >= 0; i--) p = fma(p, s2, log_coef[i]);
    return fma(e, LN2_HI, fma(e, LN2_LO, 2.0 * s * p));
}

#ifdef LSFP_X86
/* The same operations, L = 8 (AVX-512) or 4 (AVX2) lanes of W bits; n a multiple of L. */
#define LSFP_MATH64_KERNELS(SFX, TGT, VD, VI, MT, L, W, P, SI)                                                            \
    __attribute__((target(TGT))) static void exp_##SFX(const double *x, double *y, int n)                         \
    {                                                                                                               \
        const VD lo = P##_set1_pd(EXP_LO), hi = P##_set1_pd(EXP_HI), sh = P##_set1_pd(SHIFTER);                   \
        const VI shb = SI##_set1_epi64x((long long)d_bits(SHIFTER)), bias = SI##_set1_epi64x(1023);                 \
        for (int i = 0; i < n; i += (L)) {                                                                          \
            VD v = P##_min_pd(P##_max_pd(P##_loadu_pd(x + i), lo), hi);                                             \
            VD t = P##_add_pd(P##_mul_pd(v, P##_set1_pd(LOG2E)), sh), kd = P##_sub_pd(t, sh);                       \
            VI k = SI##_sub_epi64(P##_castpd_si##W##x(t), shb);                                                     \
            VD r = P##_fnmadd_pd(kd, P##_set1_pd(LN2_LO), P##_fnmadd_pd(kd, P##_set1_pd(LN2_HI), v));               \
            VD p = P##_set1_pd(exp_coef[EXP_TERMS]);                                                                \
            for (int c = EXP_TERMS - 1; c >= 0; c--) p = P##_fmadd_pd(p, r, P##_set1_pd(exp_coef[c]));             \
            VI low = SI##_set1_epi64x(-1000);                                                                       \
            VI kk = LSFP_M64_BLEND_LT_##SFX(k, low);                                                                \
            VD s1 = P##_castsi##W##x_pd(SI##_slli_epi64(SI##_add_epi64(SI##_sub_epi64(k, kk), bias), 52));          \
            VD s2 = P##_castsi##W##x_pd(SI##_slli_epi64(SI##_add_epi64(kk, bias), 52));                             \
            P##_storeu_pd(y + i, P##_mul_pd(P##_mul_pd(p, s1), s2));                                                \
        }                                                                                                           \
    }                                                                                                               \
    __attribute__((target(TGT))) static void log_##SFX(const double *x, double *y, int n)                         \
    {                                                                                                               \
        const VI mant = SI##_set1_epi64x(0x000FFFFFFFFFFFFFll), one = SI##_set1_epi64x(0x3FF0000000000000ll);      \
        const VI ebias = SI##_set1_epi64x((long long)d_bits(SHIFTER) - 1023);                                       \
        for (int i = 0; i < n; i += (L)) {                                                                          \
            VI u = P##_castpd_si##W##x(P##_loadu_pd(x + i));                                                       \
            /* e as a double: the shifter's bits plus the biased exponent, minus the shifter (exact) */            \
            VD e = P##_sub_pd(P##_castsi##W##x_pd(SI##_add_epi64(SI##_srli_epi64(u, 52), ebias)),                  \
                              P##_set1_pd(SHIFTER));                                                               \
            VD m = P##_castsi##W##x_pd(SI##_or_si##W(SI##_and_si##W(u, mant), one));                               \
            MT big = LSFP_M64_GT_##SFX(m, P##_set1_pd(SQRT2));                                                      \
            m = LSFP_M64_SEL_##SFX(big, P##_mul_pd(m, P##_set1_pd(0.5)), m);                                         \
            e = LSFP_M64_SEL_##SFX(big, P##_add_pd(e, P##_set1_pd(1.0)), e);                                         \
            VD one_d = P##_set1_pd(1.0);                                                                            \
            VD s = P##_div_pd(P##_sub_pd(m, one_d), P##_add_pd(m, one_d)), s2 = P##_mul_pd(s, s);                  \
            VD p = P##_set1_pd(log_coef[LOG_TERMS]);                                                                \
            for (int c = LOG_TERMS - 1; c >= 0; c--) p = P##_fmadd_pd(p, s2, P##_set1_pd(log_coef[c]));            \
            VD lm = P##_mul_pd(P##_mul_pd(P##_set1_pd(2.0), s), p);                                                 \
            P##_storeu_pd(y + i, P##_fmadd_pd(e, P##_set1_pd(LN2_HI), P##_fmadd_pd(e, P##_set1_pd(LN2_LO), lm)));  \
        }                                                                                                           \
    }

#define _mm512_set1_epi64x(v) _mm512_set1_epi64(v)
#define _mm256_castpd_si256x _mm256_castpd_si256
#define _mm256_castsi256x_pd _mm256_castsi256_pd
#define _mm512_castpd_si512x _mm512_castpd_si512
#define _mm512_castsi512x_pd _mm512_castsi512_pd
#define LSFP_M64_BLEND_LT_avx2(k, low) _mm256_blendv_epi8(_mm256_setzero_si256(), low, _mm256_cmpgt_epi64(low, k))
#define LSFP_M64_GT_avx2(a, b) _mm256_cmp_pd(a, b, _CMP_GT_OQ)
#define LSFP_M64_SEL_avx2(m, a, b) _mm256_blendv_pd(b, a, m)
#define LSFP_M64_BLEND_LT_avx512(k, low) _mm512_maskz_mov_epi64(_mm512_cmpgt_epi64_mask(low, k), low)
#define LSFP_M64_GT_avx512(a, b) _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ)
#define LSFP_M64_SEL_avx512(m, a, b) _mm512_mask_mov_pd(b, m, a)
LSFP_MATH64_KERNELS(avx2, "avx2,fma", __m256d, __m256i, __m256d, 4, 256, _mm256, _mm256)
LSFP_MATH64_KERNELS(avx512, "avx512f,avx512dq", __m512d, __m512i, __mmask8, 8, 512, _mm512, _mm512)
#endif

/* The leading multiple of the active family's width in vector, the rest by the plain code. */
#ifdef LSFP_X86
#define LSFP_MATH64_VECTOR(F)                                                                   \
    lsfp_isa isa = lsfp_isa_active();                                                           \
    if (isa == LSFP_ISA_AVX512) { i0 = n / 8 * 8; F##_avx512(x, y, i0); }                       \
    else if (isa == LSFP_ISA_AVX2) { i0 = n / 4 * 4; F##_avx2(x, y, i0); }
#else
#define LSFP_MATH64_VECTOR(F)
#endif

void lsfp_exp_f64_array(const double *x, double *y, int n)
{
    int i0 = 0;
    LSFP_MATH64_VECTOR(exp)
    for (int i = i0; i < n; i++) y[i] = exp_one(x[i]);
}

void lsfp_log_f64_array(const double *x, double *y, int n)
{
    int i0 = 0;
    LSFP_MATH64_VECTOR(log)
    for (int i = i0; i < n; i++) y[i] = log_one(x[i]);
}
