/* fp_exp — the exponential tables and the SFU function are correctly rounded, and this is proven,
 * not sampled: for every input the long-double expl(-s) (error < 2^-60 relative, cross-checked
 * against double exp) must lie farther than its error bound from every rounding midpoint of the
 * output grid, so its reference rounding is the rounding of the true exp(-s).
 *  - LP LUT (ue5m3-S -> ue5m3-X): all 255 non-NaN entries correctly rounded, entry 0 = 0xF8 (1.0),
 *    monotone non-increasing in the input code, NaN code 0xFF -> 0xFF, value[] = decode(code[]).
 *  - lsfp_exp_neg(ue5m11-X, s) for all 65535 non-NaN ue5m11-S codes, and lsfp_exp_neg(ue5m3-X, s)
 *    for every ue5m3-S code (must equal the LUT) and for random off-grid s. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "fp_test_util.h"

static long g_unproven;

/* Reference exp(-s) in r, with the proof obligation that the rounding is insensitive to expl's error. */
static float ref_exp_neg(const ref_fmt *r, float s)
{
    long double e = expl(-(long double)s);
    double ed = exp(-(double)s);
    if (ed > 1e-300 && fabsl((e - ed) / e) > 1e-14L) g_unproven++;  /* expl sanity */
    if (e > 0) {
        long double q, dist = ref_midpoint_distance(r, e, &q);
        long double t = e / q;                       /* error bound in quanta: t * 2^-60 */
        if (dist <= t * 0x1p-60L + 0x1p-62L) g_unproven++;
    }
    return ref_round_ldouble(r, e, REF_RNE, NULL);
}

static void check_lut(void)
{
    const lsfp_format *us = lsfp_named_format(LSFP_UE5M3_S), *ux = lsfp_named_format(LSFP_UE5M3_X);
    ref_fmt rs, rx;
    ref_fmt_from(&rs, us);
    ref_fmt_from(&rx, ux);
    static lsfp_exp_lut lut;   /* large: not on the stack */
    memset(&lut, 0xA5, sizeof lut);
    CHECK(lsfp_exp_lut_build(&lut, us, ux, NULL, 0) == 0);
    CHECK(lut.code[0] == 0xF8);
    CHECK_SAME(lut.value[0], 1.0f);
    CHECK(lut.code[0xFF] == 0xFF);
    long bad = 0;
    for (uint32_t c = 0; c < 0xFF; c++) {
        float s = ref_decode(&rs, c);
        float want = ref_exp_neg(&rx, s);
        uint32_t wc = ref_encode(&rx, want);
        if ((lut.code[c] != wc || !same_float(lut.value[c], want)) && bad++ < 8)
            fprintf(stderr, "LUT[%02X] (s = %g) = %02X / %a, correctly rounded %02X / %a\n", c, (double)s,
                    lut.code[c], (double)lut.value[c], wc, (double)want);
        if (!same_float(lut.value[c], lsfp_decode(ux, lut.code[c])) && bad++ < 8)
            fprintf(stderr, "LUT value[%02X] %a != decode(code)\n", c, (double)lut.value[c]);
        if (c > 0) CHECK_MSG(lut.code[c] <= lut.code[c - 1], "LUT not monotone at %02X", c);
        /* The SFU function gives the same value as the table on the grid. */
        if (!same_float(lsfp_exp_neg(ux, s), lut.value[c]) && bad++ < 8)
            fprintf(stderr, "exp_neg(ue5m3x, %g) = %a, LUT %a\n", (double)s, (double)lsfp_exp_neg(ux, s),
                    (double)lut.value[c]);
    }
    CHECK_MSG(bad == 0, "%ld LUT entries wrong", bad);
    /* Every output code is <= 0xF8 (exp(-s) <= 1; 0xF9-0xFF never produced, numerics.md A.2). */
    for (uint32_t c = 0; c < 0xFF; c++) CHECK(lut.code[c] <= 0xF8);
}

static void check_exp_neg_all(void)
{
    const lsfp_format *us11 = lsfp_named_format(LSFP_UE5M11_S), *ux11 = lsfp_named_format(LSFP_UE5M11_X);
    const lsfp_format *ux = lsfp_named_format(LSFP_UE5M3_X);
    ref_fmt rs, rx, rx3;
    ref_fmt_from(&rs, us11);
    ref_fmt_from(&rx, ux11);
    ref_fmt_from(&rx3, ux);
    long bad = 0, nonmono = 0;
    float prev = 2.0f;
    for (uint32_t c = 0; c < 65536; c++) {
        if (ref_code_is_nan(&rs, c)) continue;
        float s = ref_decode(&rs, c);
        float got = lsfp_exp_neg(ux11, s), want = ref_exp_neg(&rx, s);
        if (!same_float(got, want) && bad++ < 8)
            fprintf(stderr, "exp_neg(ue5m11x, %a) = %a, correctly rounded %a\n", (double)s, (double)got, (double)want);
        if (got > prev) nonmono++;
        prev = got;
    }
    CHECK_MSG(bad == 0, "%ld ue5m11-X exponentials wrong", bad);
    CHECK(nonmono == 0);
    CHECK_SAME(lsfp_exp_neg(ux11, 0.0f), 1.0f);
    CHECK_SAME(lsfp_exp_neg(ux11, -0.0f), 1.0f);
    CHECK_SAME(lsfp_exp_neg(ux11, 1e30f), 0.0f);
    CHECK_SAME(lsfp_exp_neg(ux11, INFINITY), 0.0f);
    CHECK_SAME(lsfp_exp_neg(ux, 100.0f), 0.0f);
    /* Off-grid shifts (the exact-fp32 HP shift option, G-7). */
    trng g;
    trng_seed(&g, 77);
    long bad3 = 0;
    for (int i = 0; i < 200000; i++) {
        float s = (float)(trng_unit(&g) * ((i & 1) ? 40.0 : 2.0));
        float a = lsfp_exp_neg(ux11, s), b = ref_exp_neg(&rx, s);
        float a3 = lsfp_exp_neg(ux, s), b3 = ref_exp_neg(&rx3, s);
        if (!same_float(a, b) && bad3++ < 8) fprintf(stderr, "exp_neg(ue5m11x, %a) = %a, want %a\n", (double)s, (double)a, (double)b);
        if (!same_float(a3, b3) && bad3++ < 8) fprintf(stderr, "exp_neg(ue5m3x, %a) = %a, want %a\n", (double)s, (double)a3, (double)b3);
    }
    CHECK_MSG(bad3 == 0, "%ld off-grid exponentials wrong", bad3);
}

/* lsfp_exp_lut_apply (the engine's LP hot path): every shift code of the LP table and of a 16-bit
 * table, masked logits (-inf: 0), NaN and negative shifts (NaN), lengths with tails, every kernel
 * family: the table's value of the shift's code, the same bits on every family. */
static void check_lut_apply(void)
{
    enum { N = 70000 };
    static float sh[N], y[N];
    static double e0[N], e1[N];
    const lsfp_named ins[2] = {LSFP_UE5M3_S, LSFP_UE5M11_S}, outs[2] = {LSFP_UE5M3_X, LSFP_UE5M11_X};
    static lsfp_exp_lut lut;
    trng g;
    trng_seed(&g, 83);
    for (int t = 0; t < 2; t++) {
        const lsfp_format *in = lsfp_named_format(ins[t]);
        char err[256];
        CHECK(lsfp_exp_lut_build(&lut, in, lsfp_named_format(outs[t]), err, sizeof err) == 0);
        int n = 0;
        for (uint32_t c = 0; c < lut.n && n < N - 8; c++) {
            float v = lsfp_decode(in, c);
            sh[n] = v;
            uint32_t r = trng_u32(&g) % 16;
            y[n] = r == 0 ? -INFINITY : 1.0f;       /* masked logits */
            if (r == 1) sh[n] = NAN;                 /* NaN logit */
            if (r == 2 && v > 0) sh[n] = -v;         /* negative shift (exp above one) */
            n++;
        }
        long bad = 0;
        for (int j = 0; j < n; j++) {   /* the definition, element by element */
            float v = sh[j];
            double want = y[j] == -INFINITY ? 0.0 : !(v >= 0.0f) ? NAN : (double)lut.value[lsfp_encode(in, v)];
            double got;
            lsfp_set_isa_limit(LSFP_ISA_SCALAR);
            lsfp_exp_lut_apply(&lut, sh + j, y + j, &got, 1);
            bad += memcmp(&got, &want, sizeof got) != 0;
        }
        CHECK_MSG(bad == 0, "lut apply (%s): %ld values differ from the table", in->name, bad);
        lsfp_exp_lut_apply(&lut, sh, y, e0, n);
        for (int isa = LSFP_ISA_AVX2; isa <= (int)lsfp_isa_best(); isa++)
            for (int len = n - 17; len <= n; len += 4) {
                lsfp_set_isa_limit((lsfp_isa)isa);
                memset(e1, 0, sizeof e1);
                lsfp_exp_lut_apply(&lut, sh, y, e1, len);
                CHECK_MSG(memcmp(e0, e1, (size_t)len * sizeof(double)) == 0, "lut apply (%s, %s, n %d) differs from the plain loop",
                          in->name, lsfp_isa_name((lsfp_isa)isa), len);
            }
        lsfp_set_isa_limit(LSFP_ISA_AVX512);
    }
}

int main(void)
{
    double t0 = now_s();
    check_lut();
    check_exp_neg_all();
    check_lut_apply();
    /* Every comparison above must have been against a provably correct rounding. */
    CHECK_MSG(g_unproven == 0, "%ld inputs where expl's error bound straddles a rounding midpoint", g_unproven);
    printf("fp_exp: %.2f s\n", now_s() - t0);
    CHECK_DONE();
}
