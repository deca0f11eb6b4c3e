/* hw/fp/fp_pv.c — the P.V update of the running output: o <- o * lambda, then o <- o + e_i * v_i for
 * the keys in order (keys with e_i = 0 skipped), one rounding per multiply and per add, fp32 or
 * float64 state. Every element's operations and order are the plain loop's, so the AVX2 and
 * AVX-512 versions (row chunks held in registers across the keys) give its bits exactly. */
#include "lsfp.h"
#include "fp_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LSFP_X86 1
#endif

/* Columns [t0, d) by the plain loop: the definition, and the tails of the vector versions. */
static void pv_f32_scalar(float *o, int t0, int d, float lam, const double *E, long lde, int nkeys, const float *V,
                          long ldv)
{
    for (int t = t0; t < d; t++) o[t] = o[t] * lam;
    for (int i = 0; i < nkeys; i++) {
        float e = (float)E[(long)i * lde];
        if (e == 0.0f) continue;
        const float *v = V + (long)i * ldv;
        for (int t = t0; t < d; t++) o[t] = o[t] + e * v[t];
    }
}

static void pv_f64_scalar(double *o, int t0, int d, double lam, const double *E, long lde, int nkeys, const float *V,
                          long ldv)
{
    for (int t = t0; t < d; t++) o[t] = o[t] * lam;
    for (int i = 0; i < nkeys; i++) {
        double e = E[(long)i * lde];
        if (e == 0.0) continue;
        const float *v = V + (long)i * ldv;
        for (int t = t0; t < d; t++) o[t] = o[t] + e * (double)v[t];
    }
}

#ifdef LSFP_X86
/* One kernel body per vector type: W lanes, U registers of the row per pass over the keys. */
#define LSFP_PV_KERNEL(NAME, TGT, VT, ET, W, U, LOAD, STORE, SET1, MUL, ADD, LOADV)                              \
    __attribute__((target(TGT))) static int NAME(ET *o, int d, ET lam, const double *E, long lde, int nkeys,     \
                                                 const float *V, long ldv)                                       \
    {                                                                                                            \
        int t0 = 0;                                                                                              \
        VT l = SET1(lam);                                                                                        \
        for (; t0 + (W) * (U) <= d; t0 += (W) * (U)) {                                                           \
            VT acc[U];                                                                                           \
            for (int u = 0; u < (U); u++) acc[u] = MUL(LOAD(o + t0 + (W) * u), l);                               \
            for (int i = 0; i < nkeys; i++) {                                                                    \
                ET e = (ET)E[(long)i * lde];                                                                     \
                if (e == 0) continue;                                                                            \
                VT ev = SET1(e);                                                                                 \
                const float *v = V + (long)i * ldv + t0;                                                         \
                for (int u = 0; u < (U); u++) acc[u] = ADD(acc[u], MUL(ev, LOADV(v + (W) * u)));                 \
            }                                                                                                    \
            for (int u = 0; u < (U); u++) STORE(o + t0 + (W) * u, acc[u]);                                       \
        }                                                                                                        \
        return t0;                                                                                               \
    }

#define LSFP_CVT256(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define LSFP_CVT512(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
LSFP_PV_KERNEL(pv_f32_avx2, "avx2", __m256, float, 8, 4, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps,
               _mm256_mul_ps, _mm256_add_ps, _mm256_loadu_ps)
LSFP_PV_KERNEL(pv_f64_avx2, "avx2", __m256d, double, 4, 4, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd,
               _mm256_mul_pd, _mm256_add_pd, LSFP_CVT256)
LSFP_PV_KERNEL(pv_f32_avx512, "avx512f", __m512, float, 16, 4, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
               _mm512_mul_ps, _mm512_add_ps, _mm512_loadu_ps)
/* d >= 128: the whole of a 128-column row in registers, one pass over the keys (half the per-key work) */
LSFP_PV_KERNEL(pv_f32_avx512_wide, "avx512f", __m512, float, 16, 8, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps,
               _mm512_mul_ps, _mm512_add_ps, _mm512_loadu_ps)
LSFP_PV_KERNEL(pv_f64_avx512, "avx512f", __m512d, double, 8, 4, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd,
               _mm512_mul_pd, _mm512_add_pd, LSFP_CVT512)
#endif

/* The widest family the CPU has takes the leading columns, AVX2 what AVX-512 leaves, the plain loop the rest. */
#ifdef LSFP_X86
#define LSFP_PV_WIDE_f32 pv_f32_avx512_wide
#define LSFP_PV_WIDE_f64(...) 0   /* float64 state: no wide form; the 4-register kernel takes every column */
#define LSFP_PV_VECTOR(T)                                                                                   \
    lsfp_isa isa = lsfp_isa_active();                                                                       \
    if (isa == LSFP_ISA_AVX512) t0 = LSFP_PV_WIDE_##T(o, d, lam, E, lde, nkeys, V, ldv);                     \
    if (isa == LSFP_ISA_AVX512) t0 += pv_##T##_avx512(o + t0, d - t0, lam, E, lde, nkeys, V + t0, ldv);      \
    if (isa >= LSFP_ISA_AVX2) t0 += pv_##T##_avx2(o + t0, d - t0, lam, E, lde, nkeys, V + t0, ldv);
#else
#define LSFP_PV_VECTOR(T)
#endif

void lsfp_pv_update_f32(float *o, int d, float lam, const double *E, long lde, int nkeys, const float *V, long ldv)
{
    int t0 = 0;
    LSFP_PV_VECTOR(f32)
    if (t0 < d) pv_f32_scalar(o, t0, d, lam, E, lde, nkeys, V, ldv);   /* a tail: else its key loop does nothing */
}

void lsfp_pv_update_f64(double *o, int d, double lam, const double *E, long lde, int nkeys, const float *V, long ldv)
{
    int t0 = 0;
    LSFP_PV_VECTOR(f64)
    if (t0 < d) pv_f64_scalar(o, t0, d, lam, E, lde, nkeys, V, ldv);
}
