/* hw/fp/fp_lut_apply.c — the exponential LUT in the engine's hot path: shifts on the shift format's
 * grid to exponentials, the plain loop and an AVX-512 version (masked gather) with the same values. */
#include "lsfp.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LSFP_X86 1
#endif

/* Code of a non-negative value already on an unsigned fp32-subset grid (bias, m bits). */
static inline uint32_t grid_code(float v, int bias, int mbits, float minnorm, float inv_minsub)
{
    if (v < minnorm) return (uint32_t)(v * inv_minsub);
    uint32_t u;
    memcpy(&u, &v, 4);
    return ((((u >> 23) & 0xFFu) - 127u + (uint32_t)bias) << mbits) | ((u >> (23 - mbits)) & ((1u << mbits) - 1u));
}

#ifdef LSFP_X86
/* lsfp_exp_lut_apply, 16 lanes at a time (n a multiple of 16): the same codes, a masked gather. */
__attribute__((target("avx512f"))) static void lut_apply_avx512(const lsfp_exp_lut *lut, const float *s, const float *y,
                                                                double *e, int n)
{
    const __m512 minnorm = _mm512_set1_ps(lut->in.min_normal), inv = _mm512_set1_ps(1.0f / lut->in.min_subnormal);
    const __m512 ninf = _mm512_set1_ps(-INFINITY), zero = _mm512_setzero_ps();
    const __m512i ebias = _mm512_set1_epi32(lut->in.bias - 127), mmask = _mm512_set1_epi32((1 << lut->in.mbits) - 1);
    const __m128i up = _mm_cvtsi32_si128(lut->in.mbits), down = _mm_cvtsi32_si128(23 - lut->in.mbits);
    const __m512d nan = _mm512_set1_pd(NAN);
    for (int j = 0; j < n; j += 16) {
        __m512 v = _mm512_loadu_ps(s + j), yv = _mm512_loadu_ps(y + j);
        __m512i u = _mm512_castps_si512(v);
        __m512i nc = _mm512_or_si512(_mm512_sll_epi32(_mm512_add_epi32(_mm512_srli_epi32(u, 23), ebias), up),
                                     _mm512_and_si512(_mm512_srl_epi32(u, down), mmask));
        __mmask16 sub = _mm512_cmp_ps_mask(v, minnorm, _CMP_LT_OQ);
        __m512i code = _mm512_mask_mov_epi32(nc, sub, _mm512_cvttps_epu32(_mm512_mul_ps(v, inv)));
        __mmask16 masked = _mm512_cmp_ps_mask(yv, ninf, _CMP_EQ_OQ);
        __mmask16 ok = _mm512_kandn(masked, _mm512_cmp_ps_mask(v, zero, _CMP_GE_OQ));
        __m512 g = _mm512_mask_i32gather_ps(zero, ok, code, lut->value, 4);
        __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(g));
        __m512d hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(g), 1)));
        __mmask16 bad = (__mmask16)(~masked & ~ok);   /* NaN logit or negative shift */
        lo = _mm512_mask_mov_pd(lo, (__mmask8)bad, nan);
        hi = _mm512_mask_mov_pd(hi, (__mmask8)(bad >> 8), nan);
        _mm512_storeu_pd(e + j, lo);
        _mm512_storeu_pd(e + j + 8, hi);
    }
}
#endif

void lsfp_exp_lut_apply(const lsfp_exp_lut *lut, const float *s, const float *y, double *e, int n)
{
    int j0 = 0;
#ifdef LSFP_X86
    if (lsfp_isa_active() == LSFP_ISA_AVX512) {
        j0 = n / 16 * 16;
        lut_apply_avx512(lut, s, y, e, j0);
    }
#endif
    const float minnorm = lut->in.min_normal, inv_minsub = 1.0f / lut->in.min_subnormal;
    const int bias = lut->in.bias, mbits = lut->in.mbits;
    for (int j = j0; j < n; j++) {
        if (y[j] == -INFINITY) { e[j] = 0.0; continue; }
        float v = s[j];
        if (!(v >= 0.0f)) { e[j] = NAN; continue; }   /* NaN logit or negative shift */
        e[j] = lut->value[grid_code(v, bias, mbits, minnorm, inv_minsub)];
    }
}
