/* test_fp_math64 — lsfp_exp_f64_array and lsfp_log_f64_array (hw/fp/fp_math64.c), the fp64
 * reference's exponentials and logs:
 *  - every kernel family the CPU has gives the plain code's bits, for lengths that leave tails;
 *  - exp within 1 ulp and log within 2 ulp of glibc (itself within 1 ulp of the exact value) over the
 *    reference's domain: exp of [-800, 0] (subnormal results: within one subnormal step) and a few
 *    positive arguments, log of (2^-1022, 1] and a few values above one; exp(-800) is 0;
 *  - special points: exp(0) = 1, exp(-800) = 0, log(1) = 0. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fp_test_util.h"
#include "lsfp.h"

enum { N = 20011 };   /* not a multiple of 8: the plain code takes a tail */

static uint64_t d_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

/* |a - b| in units of the last place of b (b finite, nonzero) */
static double ulps(double a, double b)
{
    int e;
    frexp(b, &e);
    double ulp = ldexp(1.0, (e - 53 < -1074 ? -1074 : e - 53));
    return fabs(a - b) / ulp;
}

static void check_families(void (*fn)(const double *, double *, int), const double *x, const char *name)
{
    static double y0[N], y1[N];
    lsfp_set_isa_limit(LSFP_ISA_SCALAR);
    fn(x, y0, N);
    for (int isa = LSFP_ISA_AVX2; isa <= (int)lsfp_isa_best(); isa++) {
        lsfp_set_isa_limit((lsfp_isa)isa);
        for (int n = N - 7; n <= N; n++) {   /* every tail length */
            memset(y1, 0, sizeof y1);
            fn(x, y1, n);
            long bad = 0;
            for (int i = 0; i < n; i++) bad += d_bits(y0[i]) != d_bits(y1[i]);
            CHECK_MSG(bad == 0, "%s: %s differs from the plain code in %ld of %d values", name,
                      lsfp_isa_name((lsfp_isa)isa), bad, n);
        }
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
}

int main(void)
{
    static double x[N], y[N];
    trng g;
    trng_seed(&g, 61);
    /* exp: mostly the reference's (logit - max) in [-60, 0], then the whole range down to -800 */
    for (int i = 0; i < N; i++) {
        int kind = i % 4;
        x[i] = kind == 0 ? -60.0 * trng_unit(&g) : kind == 1 ? -800.0 * trng_unit(&g)
             : kind == 2 ? -1e-6 * trng_unit(&g) : 700.0 * (trng_unit(&g) - 0.9);
    }
    x[0] = 0.0; x[1] = -800.0; x[2] = -745.2; x[3] = -708.5; x[4] = -1e-300;
    check_families(lsfp_exp_f64_array, x, "exp");
    lsfp_exp_f64_array(x, y, N);
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double want = exp(x[i]);
        double u = want == 0.0 ? (y[i] == 0.0 ? 0.0 : fabs(y[i]) / 0x1p-1074) : ulps(y[i], want);
        if (u > worst) worst = u;
    }
    CHECK_MSG(worst <= 1.0, "exp: %.3g ulp from glibc", worst);
    CHECK(y[0] == 1.0 && y[1] == 0.0);
    printf("exp: within %.3f ulp of glibc over %d arguments\n", worst, N);

    /* log: p_test's probabilities in (2^-1022, 1], their clamp 1e-45, powers of two, values above one */
    for (int i = 0; i < N; i++) {
        int kind = i % 4;
        x[i] = kind == 0 ? trng_unit(&g) + 0x1p-60 : kind == 1 ? exp(-700.0 * trng_unit(&g))
             : kind == 2 ? 1.0 - 1e-9 * trng_unit(&g) : 1.0 + 1e3 * trng_unit(&g);
    }
    x[0] = 1.0; x[1] = 1e-45; x[2] = 0x1p-1022; x[3] = 0.5; x[4] = 0x1p-500; x[5] = 1.4142135623730951;
    check_families(lsfp_log_f64_array, x, "log");
    lsfp_log_f64_array(x, y, N);
    worst = 0;
    for (int i = 0; i < N; i++) {
        double want = log(x[i]);
        double u = want == 0.0 ? (y[i] == 0.0 ? 0.0 : INFINITY) : ulps(y[i], want);
        if (u > worst) worst = u;
    }
    CHECK_MSG(worst <= 2.0, "log: %.3g ulp from glibc", worst);
    CHECK(y[0] == 0.0);
    printf("log: within %.3f ulp of glibc over %d arguments\n", worst, N);
    CHECK_DONE();
}
