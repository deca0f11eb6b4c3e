/* hw/fp/fp_dot64.c — the float64 kernels of the fp64 references (engine accuracy, workload
 * max |logit|). A dot product is eight partial sums s_l over t = l mod 8, folded as
 * ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)); the transposed product adds the rows in order
 * per element. Each product is added by one fused multiply-add (fma(): the product of two floats is
 * exact in double, so the FMA rounds only the sum), so the AVX2 and AVX-512 versions (lanes = partial
 * sums or columns) give the plain loops' bits, on any CPU. */
#include "lsfp.h"

#include <math.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LSFP_X86 1
#endif

static double dot_scalar(const float *a, const float *b, int n)
{
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int t = 0;
    for (; t + 8 <= n; t += 8)
        for (int l = 0; l < 8; l++) s[l] = fma((double)a[t + l], (double)b[t + l], s[l]);
    double r = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
    for (; t < n; t++) r = fma((double)a[t], (double)b[t], r);
    return r;
}

#ifdef LSFP_X86
__attribute__((target("avx2"))) static inline double fold_avx2(__m256d lo, __m256d hi)
{
    double u[4];
    _mm256_storeu_pd(u, _mm256_add_pd(lo, hi));
    return (u[0] + u[1]) + (u[2] + u[3]);
}

/* Rows r0.. in groups of four sharing the loads of q (n a multiple of 8); returns the next row. */
__attribute__((target("avx2,fma"))) static int rows_avx2(const float *q, const float *B, long ldb, int rows, int n,
                                                     double *out)
{
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *b = B + (long)r * ldb;
        __m256d lo[4], hi[4];
        for (int i = 0; i < 4; i++) lo[i] = hi[i] = _mm256_setzero_pd();
        for (int t = 0; t < n; t += 8) {
            __m256d ql = _mm256_cvtps_pd(_mm_loadu_ps(q + t)), qh = _mm256_cvtps_pd(_mm_loadu_ps(q + t + 4));
            for (int i = 0; i < 4; i++) {
                lo[i] = _mm256_fmadd_pd(ql, _mm256_cvtps_pd(_mm_loadu_ps(b + i * ldb + t)), lo[i]);
                hi[i] = _mm256_fmadd_pd(qh, _mm256_cvtps_pd(_mm_loadu_ps(b + i * ldb + t + 4)), hi[i]);
            }
        }
        for (int i = 0; i < 4; i++) out[r + i] = fold_avx2(lo[i], hi[i]);
    }
    return r;
}

__attribute__((target("avx512f"))) static int rows_avx512(const float *q, const float *B, long ldb, int rows, int n,
                                                          double *out)
{
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *b = B + (long)r * ldb;
        __m512d s[4];
        for (int i = 0; i < 4; i++) s[i] = _mm512_setzero_pd();
        for (int t = 0; t < n; t += 8) {
            __m512d qv = _mm512_cvtps_pd(_mm256_loadu_ps(q + t));
            for (int i = 0; i < 4; i++)
                s[i] = _mm512_fmadd_pd(qv, _mm512_cvtps_pd(_mm256_loadu_ps(b + i * ldb + t)), s[i]);
        }
        for (int i = 0; i < 4; i++) {
            double u[8];
            _mm512_storeu_pd(u, s[i]);
            out[r + i] = ((u[0] + u[4]) + (u[1] + u[5])) + ((u[2] + u[6]) + (u[3] + u[7]));
        }
    }
    return r;
}

/* Four queries x four rows at a time (n a multiple of 8): each row's conversion serves four queries.
 * out[i * ldo + r]; returns the next row. */
__attribute__((target("avx512f"))) static int block_avx512(const float *Q, long ldq, const float *B, long ldb,
                                                           int rows, int n, double *out, long ldo)
{
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        const float *b = B + (long)r * ldb;
        __m512d s[4][4];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 4; k++) s[i][k] = _mm512_setzero_pd();
        for (int t = 0; t < n; t += 8) {
            __m512d qv[4], bv;
            for (int i = 0; i < 4; i++) qv[i] = _mm512_cvtps_pd(_mm256_loadu_ps(Q + i * ldq + t));
            for (int k = 0; k < 4; k++) {
                bv = _mm512_cvtps_pd(_mm256_loadu_ps(b + k * ldb + t));
                for (int i = 0; i < 4; i++) s[i][k] = _mm512_fmadd_pd(qv[i], bv, s[i][k]);
            }
        }
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 4; k++) {
                double u[8];
                _mm512_storeu_pd(u, s[i][k]);
                out[i * ldo + r + k] = ((u[0] + u[4]) + (u[1] + u[5])) + ((u[2] + u[6]) + (u[3] + u[7]));
            }
    }
    return r;
}

/* Columns in blocks held in registers across all rows; returns the first column not done. */
__attribute__((target("avx2,fma"))) static int gemv_avx2(double *y, const double *a, const float *X, long ldx, int rows,
                                                     int n)
{
    int t0 = 0;
    for (; t0 + 16 <= n; t0 += 16) {
        __m256d acc[4];
        for (int u = 0; u < 4; u++) acc[u] = _mm256_loadu_pd(y + t0 + 4 * u);
        for (int k = 0; k < rows; k++) {
            const float *x = X + (long)k * ldx + t0;
            __m256d ak = _mm256_set1_pd(a[k]);
            for (int u = 0; u < 4; u++)
                acc[u] = _mm256_fmadd_pd(ak, _mm256_cvtps_pd(_mm_loadu_ps(x + 4 * u)), acc[u]);
        }
        for (int u = 0; u < 4; u++) _mm256_storeu_pd(y + t0 + 4 * u, acc[u]);
    }
    return t0;
}

__attribute__((target("avx512f"))) static int gemv_avx512(double *y, const double *a, const float *X, long ldx,
                                                          int rows, int n)
{
    int t0 = 0;
    for (; t0 + 32 <= n; t0 += 32) {
        __m512d acc[4];
        for (int u = 0; u < 4; u++) acc[u] = _mm512_loadu_pd(y + t0 + 8 * u);
        for (int k = 0; k < rows; k++) {
            const float *x = X + (long)k * ldx + t0;
            __m512d ak = _mm512_set1_pd(a[k]);
            for (int u = 0; u < 4; u++)
                acc[u] = _mm512_fmadd_pd(ak, _mm512_cvtps_pd(_mm256_loadu_ps(x + 8 * u)), acc[u]);
        }
        for (int u = 0; u < 4; u++) _mm512_storeu_pd(y + t0 + 8 * u, acc[u]);
    }
    return t0;
}
#endif

double lsfp_dot_f64(const float *a, const float *b, int n) { return dot_scalar(a, b, n); }

void lsfp_dot_rows_f64(const float *q, const float *B, long ldb, int rows, int n, double *out)
{
    int r = 0;
#ifdef LSFP_X86
    lsfp_isa isa = lsfp_isa_active();
    if (n % 8 == 0 && isa == LSFP_ISA_AVX512) r = rows_avx512(q, B, ldb, rows, n, out);
    else if (n % 8 == 0 && isa == LSFP_ISA_AVX2) r = rows_avx2(q, B, ldb, rows, n, out);
#endif
    for (; r < rows; r++) out[r] = dot_scalar(q, B + (long)r * ldb, n);
}

void lsfp_dot_block_f64(const float *Q, long ldq, int nq, const float *B, long ldb, int rows, int n, double *out,
                        long ldo)
{
    int i = 0;
#ifdef LSFP_X86
    if (n % 8 == 0 && lsfp_isa_active() == LSFP_ISA_AVX512)
        for (; i + 4 <= nq; i += 4) {
            int r = block_avx512(Q + (long)i * ldq, ldq, B, ldb, rows, n, out + (long)i * ldo, ldo);
            for (int k = 0; k < 4; k++)
                lsfp_dot_rows_f64(Q + (long)(i + k) * ldq, B + (long)r * ldb, ldb, rows - r, n, out + (long)(i + k) * ldo + r);
        }
#endif
    for (; i < nq; i++) lsfp_dot_rows_f64(Q + (long)i * ldq, B, ldb, rows, n, out + (long)i * ldo);
}

/* Four y rows at a time over the rows all of them take (kmin), 16 columns per pass; returns the
 * first column not done. */
__attribute__((target("avx512f"))) static int gemv_block_avx512(double *Y, long ldy, const double *A, long lda,
                                                                int kmin, const float *X, long ldx, int n)
{
    int t0 = 0;
    for (; t0 + 16 <= n; t0 += 16) {
        __m512d acc[4][2];
        for (int m = 0; m < 4; m++)
            for (int u = 0; u < 2; u++) acc[m][u] = _mm512_loadu_pd(Y + m * ldy + t0 + 8 * u);
        for (int k = 0; k < kmin; k++) {
            const float *x = X + (long)k * ldx + t0;
            __m512d x0 = _mm512_cvtps_pd(_mm256_loadu_ps(x)), x1 = _mm512_cvtps_pd(_mm256_loadu_ps(x + 8));
            for (int m = 0; m < 4; m++) {
                __m512d am = _mm512_set1_pd(A[m * lda + k]);
                acc[m][0] = _mm512_fmadd_pd(am, x0, acc[m][0]);
                acc[m][1] = _mm512_fmadd_pd(am, x1, acc[m][1]);
            }
        }
        for (int m = 0; m < 4; m++)
            for (int u = 0; u < 2; u++) _mm512_storeu_pd(Y + m * ldy + t0 + 8 * u, acc[m][u]);
    }
    return t0;
}

void lsfp_gemv_t_block_f64(double *Y, long ldy, const double *A, long lda, int ny, const int *rows, const float *X,
                           long ldx, int n)
{
    int m0 = 0;
#ifdef LSFP_X86
    if (lsfp_isa_active() == LSFP_ISA_AVX512)
        for (; m0 + 4 <= ny; m0 += 4) {
            int kmin = rows[m0];
            for (int m = 1; m < 4; m++) kmin = rows[m0 + m] < kmin ? rows[m0 + m] : kmin;
            int t0 = gemv_block_avx512(Y + m0 * ldy, ldy, A + m0 * lda, lda, kmin, X, ldx, n);
            /* per element the rows run in order: the block's columns go on from kmin, the rest from 0 */
            for (int m = m0; m < m0 + 4; m++) {
                lsfp_gemv_t_f64(Y + m * ldy, A + m * lda + kmin, X + (long)kmin * ldx, ldx, rows[m] - kmin, t0);
                lsfp_gemv_t_f64(Y + m * ldy + t0, A + m * lda, X + t0, ldx, rows[m], n - t0);
            }
        }
#endif
    for (int m = m0; m < ny; m++) lsfp_gemv_t_f64(Y + m * ldy, A + m * lda, X, ldx, rows[m], n);
}

void lsfp_gemv_t_f64(double *y, const double *a, const float *X, long ldx, int rows, int n)
{
    int t0 = 0;
#ifdef LSFP_X86
    lsfp_isa isa = lsfp_isa_active();
    if (isa == LSFP_ISA_AVX512) t0 = gemv_avx512(y, a, X, ldx, rows, n);
    if (isa >= LSFP_ISA_AVX2) t0 += gemv_avx2(y + t0, a, X + t0, ldx, rows, n - t0);
#endif
    for (int k = 0; k < rows; k++)
        for (int t = t0; t < n; t++) y[t] = fma(a[k], (double)X[(long)k * ldx + t], y[t]);
}
