/* hw/fp/fp_dot64.c — the float64 kernels of the fp64 references (engine accuracy, workload
 * max |logit|). Every dot product is eight partial sums t mod 8 in a fixed order: independent chains
 * the compiler turns into vector adds with no reassociation left to it (-ffp-contract=off), so each
 * clone below (chosen at load time for the CPU) gives the same bits. */
#include "fp.h"

#define LSFP_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

static inline double fold8(const double s[8])
{
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

LSFP_CLONES double lsfp_dot_f64(const float *a, const float *b, int n)
{
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int t = 0;
    for (; t + 8 <= n; t += 8)
        for (int l = 0; l < 8; l++) s[l] += (double)a[t + l] * (double)b[t + l];
    double r = fold8(s);
    for (; t < n; t++) r += (double)a[t] * (double)b[t];
    return r;
}

/* Four rows at a time share the loads of q; each row's sums are lsfp_dot_f64's. */
LSFP_CLONES void lsfp_dot_rows_f64(const float *q, const float *B, long ldb, int rows, int n, double *out)
{
    int r = 0;
    if (n % 8 == 0)
        for (; r + 4 <= rows; r += 4) {
            const float *b = B + (long)r * ldb;
            double s[4][8] = {{0}};
            for (int t = 0; t < n; t += 8)
                for (int i = 0; i < 4; i++)
                    for (int l = 0; l < 8; l++) s[i][l] += (double)q[t + l] * (double)b[i * ldb + t + l];
            for (int i = 0; i < 4; i++) out[r + i] = fold8(s[i]);
        }
    for (; r < rows; r++) out[r] = lsfp_dot_f64(q, B + (long)r * ldb, n);
}

/* Columns in blocks of 16 held in registers across all rows; per element the adds run in row order. */
LSFP_CLONES void lsfp_gemv_t_f64(double *y, const double *a, const float *X, long ldx, int rows, int n)
{
    int t0 = 0;
    for (; t0 + 16 <= n; t0 += 16) {
        double acc[16];
        for (int l = 0; l < 16; l++) acc[l] = y[t0 + l];
        for (int k = 0; k < rows; k++) {
            const float *x = X + (long)k * ldx + t0;
            for (int l = 0; l < 16; l++) acc[l] += a[k] * (double)x[l];
        }
        for (int l = 0; l < 16; l++) y[t0 + l] = acc[l];
    }
    for (int k = 0; k < rows; k++)
        for (int t = t0; t < n; t++) y[t] += a[k] * (double)X[(long)k * ldx + t];
}
