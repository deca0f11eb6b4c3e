/* hw/fp/fp_absmax32.c — the fp32 screen of the workload's max-|logit| scan: for each query row
 * the largest |q.k| over its visible keys, each dot product summed in fp32 in whatever order and
 * with whatever fusing the family likes. Only the error bound is promised (lsfp.h), never bits:
 * the caller redoes the candidates exactly in float64. K is packed once into panels of
 * LSFP_ABSMAX_PANEL columns (d x 32, zero-padded) so the vector kernels read a panel contiguously
 * and keep it in L1 while every query row passes over it. */
#include <math.h>

#include "lsfp.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LSFP_X86 1
#endif

enum { W = LSFP_ABSMAX_PANEL };

size_t lsfp_absmax_pack_floats(int nk, int n) { return (size_t)((nk + W - 1) / W) * W * (size_t)n; }

void lsfp_absmax_pack(const float *K, long ldk, int nk, int n, float *P)
{
    int panels = (nk + W - 1) / W;
    for (int p = 0; p < panels; p++)
        for (int l = 0; l < W; l++) {
            int j = p * W + l;
            float *dst = P + (size_t)p * W * n + l;
            for (int t = 0; t < n; t++) dst[(size_t)t * W] = j < nk ? K[(long)j * ldk + t] : 0.0f;
        }
}

/* The largest |value| among the first lim of the panel's W results of one row. */
static float panel_max(const float *v, int lim)
{
    float m = 0;
    for (int l = 0; l < lim && l < W; l++) m = fabsf(v[l]) > m ? fabsf(v[l]) : m;
    return m;
}

static void rows_scalar(const float *Q, long ldq, int nq, const int *cols, const float *P, int n, float *rowmax)
{
    for (int i = 0; i < nq; i++)
        for (int j0 = 0; j0 < cols[i]; j0 += W) {
            const float *pp = P + (size_t)j0 * n;
            float s[W] = {0};
            for (int t = 0; t < n; t++)
                for (int l = 0; l < W; l++) s[l] += Q[(long)i * ldq + t] * pp[t * W + l];
            float m = panel_max(s, cols[i] - j0);
            if (m > rowmax[i]) rowmax[i] = m;
        }
}

#ifdef LSFP_X86
/* MR rows x one panel (two 16-lane halves); always inlined with a constant MR so the
 * accumulators stay in registers. */
__attribute__((target("avx512f"), always_inline)) static inline void tile_avx512(const float *Q, long ldq, int MR,
                                                                                 const int *cols, int j0,
                                                                                 const float *pp, int n, float *rowmax)
{
    __m512 a[6][2];
    for (int r = 0; r < MR; r++) a[r][0] = a[r][1] = _mm512_setzero_ps();
    for (int t = 0; t < n; t++) {
        __m512 k0 = _mm512_loadu_ps(pp + t * W), k1 = _mm512_loadu_ps(pp + t * W + 16);
        for (int r = 0; r < MR; r++) {
            __m512 q = _mm512_set1_ps(Q[r * ldq + t]);
            a[r][0] = _mm512_fmadd_ps(q, k0, a[r][0]);
            a[r][1] = _mm512_fmadd_ps(q, k1, a[r][1]);
        }
    }
    for (int r = 0; r < MR; r++) {
        int lim = cols[r] - j0;
        float m;
        if (lim >= W) {
            m = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(a[r][0]), _mm512_abs_ps(a[r][1])));
        } else {
            float v[W];
            _mm512_storeu_ps(v, a[r][0]);
            _mm512_storeu_ps(v + 16, a[r][1]);
            m = panel_max(v, lim);
        }
        if (m > rowmax[r]) rowmax[r] = m;
    }
}

__attribute__((target("avx512f"))) static void rows_avx512(const float *Q, long ldq, int nq, const int *cols,
                                                            const float *P, int n, int jend, float *rowmax)
{
    for (int j0 = 0; j0 < jend; j0 += W) {
        const float *pp = P + (size_t)j0 * n;
        int i = 0;
        for (; i + 6 <= nq; i += 6) {
            int far = cols[i];
            for (int r = 1; r < 6; r++) far = cols[i + r] > far ? cols[i + r] : far;
            if (far > j0) tile_avx512(Q + (long)i * ldq, ldq, 6, cols + i, j0, pp, n, rowmax + i);
        }
        for (; i < nq; i++)
            if (cols[i] > j0) tile_avx512(Q + (long)i * ldq, ldq, 1, cols + i, j0, pp, n, rowmax + i);
    }
}

/* AVX2: MR rows x one 16-column half of a panel. */
__attribute__((target("avx2,fma"), always_inline)) static inline void tile_avx2(const float *Q, long ldq, int MR,
                                                                                const int *cols, int j0,
                                                                                const float *pp, int n, float *rowmax)
{
    __m256 a[4][2];
    for (int r = 0; r < MR; r++) a[r][0] = a[r][1] = _mm256_setzero_ps();
    for (int t = 0; t < n; t++) {
        __m256 k0 = _mm256_loadu_ps(pp + t * W), k1 = _mm256_loadu_ps(pp + t * W + 8);
        for (int r = 0; r < MR; r++) {
            __m256 q = _mm256_set1_ps(Q[r * ldq + t]);
            a[r][0] = _mm256_fmadd_ps(q, k0, a[r][0]);
            a[r][1] = _mm256_fmadd_ps(q, k1, a[r][1]);
        }
    }
    for (int r = 0; r < MR; r++) {
        float v[16];
        _mm256_storeu_ps(v, a[r][0]);
        _mm256_storeu_ps(v + 8, a[r][1]);
        float m = panel_max(v, cols[r] - j0 < 16 ? cols[r] - j0 : 16);
        if (m > rowmax[r]) rowmax[r] = m;
    }
}

__attribute__((target("avx2,fma"))) static void rows_avx2(const float *Q, long ldq, int nq, const int *cols,
                                                           const float *P, int n, int jend, float *rowmax)
{
    for (int j0 = 0; j0 < jend; j0 += 16) {
        const float *pp = P + (size_t)(j0 / W) * W * n + j0 % W;
        int i = 0;
        for (; i + 4 <= nq; i += 4) {
            int far = cols[i];
            for (int r = 1; r < 4; r++) far = cols[i + r] > far ? cols[i + r] : far;
            if (far > j0) tile_avx2(Q + (long)i * ldq, ldq, 4, cols + i, j0, pp, n, rowmax + i);
        }
        for (; i < nq; i++)
            if (cols[i] > j0) tile_avx2(Q + (long)i * ldq, ldq, 1, cols + i, j0, pp, n, rowmax + i);
    }
}
#endif

void lsfp_absmax_rows_f32(const float *Q, long ldq, int nq, const int *cols, const float *P, int n, float *rowmax)
{
    int jend = 0;
    for (int i = 0; i < nq; i++) {
        rowmax[i] = 0;
        jend = cols[i] > jend ? cols[i] : jend;
    }
#ifdef LSFP_X86
    lsfp_isa isa = lsfp_isa_active();
    if (isa == LSFP_ISA_AVX512) rows_avx512(Q, ldq, nq, cols, P, n, jend, rowmax);
    else if (isa == LSFP_ISA_AVX2) rows_avx2(Q, ldq, nq, cols, P, n, jend, rowmax);
    else
#endif
        rows_scalar(Q, ldq, nq, cols, P, n, rowmax);
}
