/* fp_stochastic — stochastic rounding (numerics.md A.3, G-24) through lsfp_round with a seeded
 * lsfp_rng: the generator is deterministic; the same seed reproduces the same roundings and a
 * different seed changes some; every result is one of the two grid neighbours of x (the reference's
 * RTZ and round-away values); representable values are never moved; and the mean over many draws
 * is unbiased (|mean - x| < 5 standard errors, standard error <= q / (2 sqrt(N))), with the
 * round-up frequency matching (|x| - down) / q. Stochastic accumulation (lsfp_accum.rng) is
 * reproducible for a given seed. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fp_test_util.h"

int main(void)
{
    double t0 = now_s();
    lsfp_rng r1, r2;
    lsfp_rng_seed(&r1, 42);
    lsfp_rng_seed(&r2, 42);
    int same = 1, distinct = 0;
    uint64_t prev = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = lsfp_rng_next(&r1), b = lsfp_rng_next(&r2);
        same &= a == b;
        distinct += a != prev;
        prev = a;
    }
    CHECK(same);
    CHECK(distinct == 1000);

    static const lsfp_named ids[] = {LSFP_E4M3, LSFP_E4M11, LSFP_UE5M3_S, LSFP_BF16};
    trng g;
    trng_seed(&g, 61);
    for (size_t fi = 0; fi < sizeof ids / sizeof ids[0]; fi++) {
        lsfp_format f = *lsfp_named_format(ids[fi]);
        f.rounding = LSFP_RND_STOCHASTIC;
        ref_fmt r;
        ref_fmt_from(&r, &f);
        enum { N = 20000 };
        static float xs[N], y1[N], y2[N], y3[N];
        for (int i = 0; i < N; i++) {
            float x;
            do x = rand_in_range(&g, &r);
            while (!(fabsf(x) < (float)ref_max_finite(&r)));
            xs[i] = x;
        }
        lsfp_rng_seed(&r1, 7);
        for (int i = 0; i < N; i++) y1[i] = lsfp_round(&f, xs[i], &r1, NULL);
        lsfp_rng_seed(&r1, 7);
        for (int i = 0; i < N; i++) y2[i] = lsfp_round(&f, xs[i], &r1, NULL);
        lsfp_rng_seed(&r1, 8);
        for (int i = 0; i < N; i++) y3[i] = lsfp_round(&f, xs[i], &r1, NULL);
        long nondet = 0, notnb = 0, moved = 0, diffseed = 0, inexact = 0;
        for (int i = 0; i < N; i++) {
            nondet += !same_float(y1[i], y2[i]);
            float dn = ref_round_float(&r, xs[i], REF_RTZ, NULL), up = ref_round_float(&r, xs[i], REF_RAZ, NULL);
            if (!same_float(y1[i], dn) && !same_float(y1[i], up) && notnb++ < 3)
                fprintf(stderr, "%s stochastic(%a) = %a, neighbours %a %a\n", f.name, (double)xs[i], (double)y1[i],
                        (double)dn, (double)up);
            if (same_float(dn, up)) moved += !same_float(y1[i], xs[i]);
            else inexact++;
            diffseed += !same_float(y1[i], y3[i]);
        }
        CHECK_MSG(nondet == 0, "%s: same seed gave %ld different roundings", f.name, nondet);
        CHECK_MSG(notnb == 0, "%s: %ld results not a grid neighbour", f.name, notnb);
        CHECK(moved == 0);
        CHECK_MSG(diffseed > inexact / 10, "%s: another seed changed only %ld of %ld inexact roundings", f.name, diffseed, inexact);

        /* Unbiasedness at a few points with different fractional positions. */
        for (int t = 0; t < 6; t++) {
            float x = xs[t * 7 + 1];
            float dn = ref_round_float(&r, x, REF_RTZ, NULL), up = ref_round_float(&r, x, REF_RAZ, NULL);
            if (same_float(dn, up)) continue;
            double q = fabs((double)up - (double)dn), p = fabs((double)x - (double)dn) / q;
            const int M = 200000;
            double sum = 0;
            long nup = 0;
            lsfp_rng_seed(&r1, 1000 + (uint64_t)t);
            for (int k = 0; k < M; k++) {
                float y = lsfp_round(&f, x, &r1, NULL);
                sum += (double)y;
                nup += same_float(y, up);
            }
            double mean = sum / M, se = q / (2 * sqrt((double)M));
            CHECK_MSG(fabs(mean - (double)x) < 5 * se, "%s x=%a: mean %.9g, bias %.3g > 5 s.e. %.3g", f.name, (double)x, mean,
                      mean - (double)x, se);
            CHECK_MSG(fabs((double)nup / M - p) < 5 * 0.5 / sqrt((double)M), "%s x=%a: up frequency %.5f, expected %.5f",
                      f.name, (double)x, (double)nup / M, p);
        }
        /* A point a quarter of the way up: 1 + q/4 rounds up about 25% of the time. */
        if (f.is_signed || ids[fi] == LSFP_UE5M3_S) {
            double q = ldexp(1.0, -f.mbits);
            float x = (float)(1.0 + q / 4);
            long nup = 0;
            const int M = 100000;
            lsfp_rng_seed(&r1, 99);
            for (int k = 0; k < M; k++) nup += lsfp_round(&f, x, &r1, NULL) > 1.0f;
            CHECK_MSG(fabs((double)nup / M - 0.25) < 0.01, "%s: 1+q/4 rounded up %.4f of the time", f.name, (double)nup / M);
        }
    }
    /* Stochastic accumulation is reproducible for a given seed. */
    lsfp_format f = *lsfp_named_format(LSFP_E4M3);
    f.rounding = LSFP_RND_STOCHASTIC;
    float a[128], b[128];
    for (int k = 0; k < 128; k++) { a[k] = (float)trng_gauss(&g); b[k] = (float)(trng_gauss(&g) / 11.3); }
    lsfp_rng_seed(&r1, 5);
    lsfp_rng_seed(&r2, 5);
    lsfp_accum s1 = {.fmt = &f, .model = LSFP_ACC_PAPER, .order = LSFP_ORDER_ASCENDING, .chunk_k = 1, .rng = &r1};
    lsfp_accum s2 = s1;
    s2.rng = &r2;
    int reproducible = 1, varies = 0;
    float first = lsfp_dot(&s1, a, b, 128, NULL);
    reproducible &= same_float(first, lsfp_dot(&s2, a, b, 128, NULL));
    for (int i = 0; i < 20; i++) {
        float y1 = lsfp_dot(&s1, a, b, 128, NULL), y2 = lsfp_dot(&s2, a, b, 128, NULL);
        reproducible &= same_float(y1, y2);
        varies += !same_float(y1, first);
    }
    CHECK(reproducible);
    CHECK_MSG(varies > 0, "stochastic accumulation never varied over 20 draws");
    printf("fp_stochastic: %.2f s\n", now_s() - t0);
    CHECK_DONE();
}
