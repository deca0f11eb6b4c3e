/* fp_vectors — the test vectors of numerics.md section F that concern number formats, PS(mu),
 * accumulation order and the exponential LUT (vectors 1-17 and 23), evaluated through the library
 * API and compared with the values printed in the spec (bitwise, codes included). Vector 15's
 * partial sums are checked as dot products of prefixes (forward) and suffixes (descending order),
 * which is what recursive accumulation makes them. Vector 17 is the QK-norm gain formula evaluated
 * with the library's e4m3 max_finite. */
#include <float.h>
#include <math.h>

#include "check.h"
#include "fp_test_util.h"

static const lsfp_format *F(lsfp_named id) { return lsfp_named_format(id); }
static float RN(lsfp_named id, float x) { return lsfp_round(F(id), x, NULL, NULL); }
static float PS(int mu, float x)
{
    lsfp_format f;
    lsfp_ps_format(&f, mu);
    return lsfp_round(&f, x, NULL, NULL);
}

int main(void)
{
    const lsfp_format *e4m3 = F(LSFP_E4M3), *e4m11 = F(LSFP_E4M11), *us = F(LSFP_UE5M3_S), *ux = F(LSFP_UE5M3_X),
                      *u11x = F(LSFP_UE5M11_X);
    lsfp_format rtz = *e4m3;
    rtz.rounding = LSFP_RND_RTZ;
    lsfp_format nonsat = *e4m3;
    nonsat.overflow = LSFP_OVF_NONSAT;
    /* 1 */
    CHECK_SAME(RN(LSFP_E4M3, 0.3f), 0.3125f);
    CHECK(lsfp_encode(e4m3, 0.3125f) == 0x2A);
    CHECK_SAME(lsfp_round(&rtz, 0.3f, NULL, NULL), 0.28125f);
    /* 2 */
    CHECK_SAME(RN(LSFP_E4M3, 1.0625f), 1.0f);
    CHECK_SAME(RN(LSFP_E4M3, 1.1875f), 1.25f);
    CHECK(lsfp_encode(e4m3, 1.0f) == 0x38 && lsfp_encode(e4m3, 1.25f) == 0x3A);
    /* 3 */
    CHECK_SAME(RN(LSFP_E4M3, -2.75f), -2.75f);
    CHECK(lsfp_encode(e4m3, -2.75f) == 0xC3);
    /* 4 */
    static const float x4[] = {460.f, 464.f, 470.f, 500.f};
    for (int i = 0; i < 4; i++) {
        CHECK_SAME(RN(LSFP_E4M3, x4[i]), 448.f);
        CHECK_SAME(RN(LSFP_E4M3, -x4[i]), -448.f);
        float n = lsfp_round(&nonsat, x4[i], NULL, NULL);
        if (i < 2) CHECK_SAME(n, 448.f);
        else CHECK(isnan(n));
    }
    CHECK(lsfp_encode(e4m3, 448.f) == 0x7E);
    /* 5 */
    CHECK_SAME(RN(LSFP_E4M3, 0.005f), 0.005859375f);
    CHECK(lsfp_encode(e4m3, 0.005859375f) == 0x03);
    CHECK_SAME(RN(LSFP_E4M3, 0.001f), 0x1p-9f);
    CHECK(lsfp_encode(e4m3, 0x1p-9f) == 0x01);
    CHECK_SAME(RN(LSFP_E4M3, 0.0029296875f), 0x1p-8f);
    CHECK(lsfp_encode(e4m3, 0x1p-8f) == 0x02);
    CHECK_SAME(RN(LSFP_E4M3, 0.0009765625f), 0.0f);
    /* 6 */
    CHECK_SAME(lsfp_decode(e4m3, 0x7E), 448.f);
    CHECK_SAME(lsfp_decode(e4m3, 0xFE), -448.f);
    CHECK(isnan(lsfp_decode(e4m3, 0x7F)));
    CHECK_SAME(lsfp_decode(e4m3, 0x38), 1.0f);
    CHECK_SAME(lsfp_decode(e4m3, 0x08), 0x1p-6f);
    CHECK_SAME(lsfp_decode(e4m3, 0x07), 0.013671875f);
    /* 7 */
    static const float x7[] = {448.1f, 1.0f / 3.0f, 520.f, -10.9f, 1e-4f};
    static const float y7[] = {448.125f, 0.3333740234375f, 511.75f, -10.8984375f, 9.918212890625e-5f};
    static const uint32_t c7[] = {0x7E01, 0x2AAB, 0x7FFE, 0xD2E6, 0x000D};
    for (int i = 0; i < 5; i++) {
        CHECK_SAME(RN(LSFP_E4M11, x7[i]), y7[i]);
        CHECK(lsfp_encode(e4m11, y7[i]) == c7[i]);
    }
    /* 8 */
    static const float x8[] = {0.3f, 5.0f, 23.5f, 896.f, 900.f, 1e-7f};
    static const float y8[] = {0.3125f, 5.f, 24.f, 896.f, 896.f, 0x1p-23f};
    static const uint32_t c8[] = {0xA2, 0xC2, 0xD4, 0xFE, 0xFE, 0x02};
    for (int i = 0; i < 6; i++) {
        CHECK_SAME(RN(LSFP_UE5M3_S, x8[i]), y8[i]);
        CHECK(lsfp_encode(us, y8[i]) == c8[i]);
    }
    /* 9, 10: exp(-x) in ue5m3-X, through lsfp_exp_neg, and through the LUT when x is on the ue5m3-S grid */
    static lsfp_exp_lut lut;   /* large: not on the stack */
    CHECK(lsfp_exp_lut_build(&lut, us, ux, NULL, 0) == 0);
    static const float x9[] = {0, 0.03f, 0.05f, 0.3125f, 1, 5, 20, 23, 23.5f, 24};
    static const float y9[] = {1, 1, 0.9375f, 0.75f, 0.375f, 0.0068359375f, 9 * 0x1p-32f, 0x1p-33f, 0x1p-33f, 0};
    static const uint32_t c9[] = {0xF8, 0xF8, 0xF7, 0xF4, 0xEC, 0xBE, 0x11, 0x01, 0x01, 0x00};
    for (int i = 0; i < 10; i++) {
        float v = lsfp_exp_neg(ux, x9[i]);
        CHECK_SAME(v, y9[i]);
        CHECK(lsfp_encode(ux, v) == c9[i]);
        if (lsfp_round(us, x9[i], NULL, NULL) == x9[i]) {
            uint32_t sc = lsfp_encode(us, x9[i]);
            CHECK_MSG(lut.code[sc] == c9[i], "LUT[%#x] = %#x, expected %#x", sc, lut.code[sc], c9[i]);
            CHECK_SAME(lut.value[sc], y9[i]);
        }
    }
    /* 11 */
    static const float x11[] = {0, 1, 0.3125f, 30};
    static const float y11[] = {1, 0.367919921875f, 0.731689453125f, 0};
    static const uint32_t c11[] = {0xF800, 0xEBC6, 0xF3B5, 0};
    for (int i = 0; i < 4; i++) {
        float v = lsfp_exp_neg(u11x, x11[i]);
        CHECK_SAME(v, y11[i]);
        CHECK(lsfp_encode(u11x, v) == c11[i]);
    }
    /* 12 */
    CHECK_SAME(PS(7, 1 + 0x1p-8f + 0x1p-10f), 1.0078125f);
    CHECK_SAME(PS(7, 1 + 0x1p-8f), 1.0f);
    CHECK_SAME(PS(7, 1 + 0x1p-7f + 0x1p-8f), 1.015625f);
    /* 13 */
    CHECK_SAME(PS(3, 500.f), 512.f);
    CHECK_SAME(PS(3, 448.f), 448.f);
    CHECK_SAME(PS(3, 0.3f), 0.3125f);
    CHECK_SAME(PS(1, -2.75f), -3.0f);
    CHECK_SAME(PS(3, FLT_MAX), INFINITY);
    CHECK_SAME(PS(3, INFINITY), INFINITY);
    CHECK_SAME(RN(LSFP_E4M3, 500.f), 448.f);
    /* 14: sum of 20 ones */
    float ones[20], ones2[20];
    for (int i = 0; i < 20; i++) ones[i] = ones2[i] = 1.0f;
    lsfp_format ps3;
    lsfp_ps_format(&ps3, 3);
    for (int model = 0; model < 2; model++) {
        lsfp_accum a = {.fmt = &ps3, .model = (lsfp_acc_model)model, .order = LSFP_ORDER_ASCENDING, .chunk_k = 1};
        CHECK_SAME(lsfp_dot(&a, ones, ones2, 20, NULL), 16.0f);
        a.fmt = e4m3;
        CHECK_SAME(lsfp_dot(&a, ones, ones2, 20, NULL), 16.0f);
        a.chunk_k = 20;
        CHECK_SAME(lsfp_dot(&a, ones, ones2, 20, NULL), 20.0f);
        a.fmt = &ps3;
        CHECK_SAME(lsfp_dot(&a, ones, ones2, 20, NULL), 20.0f);
    }
    /* 15: q pre-scaled by 1/sqrt(4) */
    const float q0[4] = {1.5f, -2.5f, 1.f, 4.f}, k[4] = {1.5f, 0.375f, -0.625f, 1.75f};
    float q[4];
    for (int i = 0; i < 4; i++) q[i] = q0[i] * 0.5f;
    static const float fwd[4] = {1.125f, 0.625f, 0.3125f, 3.75f}, rev[4] = {3.5f, 3.25f, 2.75f, 4.0f};
    for (int model = 0; model < 2; model++) {
        lsfp_accum f = {.fmt = e4m3, .model = (lsfp_acc_model)model, .order = LSFP_ORDER_ASCENDING, .chunk_k = 1};
        lsfp_accum r = f;
        r.order = LSFP_ORDER_DESCENDING;
        for (int n = 1; n <= 4; n++) {
            CHECK_SAME(lsfp_dot(&f, q, k, n, NULL), fwd[n - 1]);
            CHECK_SAME(lsfp_dot(&r, q + 4 - n, k + 4 - n, n, NULL), rev[n - 1]);
        }
        lsfp_accum h = {.fmt = e4m11, .model = (lsfp_acc_model)model, .order = LSFP_ORDER_ASCENDING, .chunk_k = 1};
        CHECK_SAME(lsfp_dot(&h, q, k, 4, NULL), 3.84375f);
        /* the same through the tile kernel (K = k as one row, Qt = q as one column) */
        float y = 0;
        lsfp_logit_tile(&f, k, 4, q, 1, 1, 1, 4, &y, 1, NULL);
        CHECK_SAME(y, 3.75f);
        lsfp_logit_tile(&r, k, 4, q, 1, 1, 1, 4, &y, 1, NULL);
        CHECK_SAME(y, 4.0f);
        lsfp_logit_tile(&h, k, 4, q, 1, 1, 1, 4, &y, 1, NULL);
        CHECK_SAME(y, 3.84375f);
    }
    /* 16: running-max narrowing by truncation */
    CHECK_SAME(RN(LSFP_E4M11, 10.9f), 10.8984375f);
    CHECK_SAME(lsfp_truncate_to(e4m3, 10.8984375f), 10.0f);
    CHECK_SAME(lsfp_truncate_to(e4m3, -10.5f), -10.0f);
    CHECK_SAME(lsfp_truncate_to(e4m3, 0.3399658203125f), 0.3125f);
    CHECK_SAME(lsfp_truncate_to(e4m3, 300.25f), 288.0f);
    CHECK_SAME(lsfp_truncate_to(e4m3, 2.4697265625f), 2.25f);  /* vector 22's trunc_e4m3(mu_hat) */
    {   /* a _nosub grid: below the smallest normal (0.25 for e3m4) the narrowed max is 0, the code
         * the format reads; not 0.234375, a subnormal code it reads as zero (issue #25) */
        lsfp_format e3m4n;
        CHECK(lsfp_format_parse("e3m4_nosub", &e3m4n, NULL, NULL, 0) == 0);
        CHECK_SAME(lsfp_truncate_to(&e3m4n, 0.2470703125f), 0.0f);
        CHECK_SAME(lsfp_truncate_to(&e3m4n, -0.2470703125f), -0.0f);
        CHECK_SAME(lsfp_truncate_to(&e3m4n, 0.25f), 0.25f);
        CHECK_SAME(lsfp_round(&e3m4n, 0.234375f, NULL, NULL), 0.0f);
    }
    /* a running max at or above 480 would keep e4m3's NaN pattern S.1111.111: clamped to 448 */
    CHECK_SAME(lsfp_truncate_to(e4m3, 479.75f), 448.0f);
    CHECK_SAME(lsfp_truncate_to(e4m3, 480.0f), 448.0f);
    CHECK_SAME(lsfp_truncate_to(e4m3, 500.0f), 448.0f);
    CHECK_SAME(lsfp_truncate_to(e4m3, -511.75f), -448.0f);
    CHECK_SAME(RN(LSFP_E4M3, 480.0f), 448.0f);
    /* 17: QK-norm gain bound g <= sqrt(max / sqrt(d)) */
    static const double d17[] = {64, 128, 256}, g17[] = {7.4833, 6.2927, 5.2915};
    for (int i = 0; i < 3; i++) {
        double gmax = sqrt((double)e4m3->max_finite / sqrt(d17[i]));
        CHECK_MSG(fabs(gmax - g17[i]) < 5e-5, "d=%g: gain %.6f, spec %.4f", d17[i], gmax, g17[i]);
    }
    CHECK(fabs(8 * sqrt(2.0) * 6.29 * 6.29 - 447.62) < 0.01 && 8 * sqrt(2.0) * 6.29 * 6.29 < 448);
    /* 23: the full LUT */
    static const uint8_t rows[6][16] = {
        {0xF8,0xF8,0xF8,0xF8,0xF8,0xF8,0xF8,0xF8,0xF8,0xF7,0xF7,0xF7,0xF7,0xF7,0xF7,0xF7},
        {0xF7,0xF7,0xF7,0xF7,0xF7,0xF6,0xF6,0xF6,0xF6,0xF6,0xF6,0xF5,0xF5,0xF5,0xF5,0xF5},
        {0xF4,0xF4,0xF4,0xF3,0xF3,0xF3,0xF2,0xF2,0xF2,0xF1,0xF1,0xF0,0xEF,0xEE,0xED,0xED},
        {0xEC,0xEA,0xE9,0xE8,0xE6,0xE5,0xE3,0xE2,0xE1,0xDD,0xDB,0xD8,0xD5,0xD2,0xCF,0xCC},
        {0xC9,0xC3,0xBE,0xB8,0xB2,0xAC,0xA7,0xA1,0x9B,0x90,0x84,0x79,0x6D,0x61,0x56,0x4A},
        {0x3F,0x28,0x11,0x02,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00}};
    int lut_bad = 0;
    for (uint32_t c = 0; c < 256; c++) {
        uint32_t want = c == 0xFF ? 0xFF : c < 0x80 ? 0xF8 : c < 0xE0 ? rows[(c >> 4) - 8][c & 15] : 0x00;
        if (lut.code[c] != want && lut_bad++ < 10) fprintf(stderr, "LUT[%02X] = %02X, spec %02X\n", c, lut.code[c], want);
        if (c != 0xFF && !same_float(lut.value[c], lsfp_decode(ux, want)) && lut_bad++ < 10)
            fprintf(stderr, "LUT value[%02X] = %a\n", c, (double)lut.value[c]);
    }
    CHECK_MSG(lut_bad == 0, "%d LUT entries differ from numerics.md F-23", lut_bad);
    CHECK(lut.code[0x88] == 0xF8 && lut.code[0x89] == 0xF7 && lut.code[0xD3] == 0x02 && lut.code[0xD4] == 0x00);
    CHECK_SAME(lsfp_decode(us, 0xD3), 22.0f);
    CHECK_SAME(lsfp_decode(us, 0x88), 0.03125f);
    CHECK_DONE();
}
