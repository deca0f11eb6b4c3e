/* fp_formats — exhaustive code-level checks of every 8- and 16-bit format (numerics.md A.1/A.2):
 * descriptor fields and derived limits against the A.2 table; for all 256 / 65536 codes: decode
 * equals the independent reference decode, encode(decode(c)) == c, the NaN codes are exactly the
 * spec's (e4m3: 0x7F and 0xFF only), finite values strictly increase with the magnitude code
 * within each sign, and rounding any decoded value (RNE, RTZ, scalar and array) is the identity.
 * Also PS(mu) descriptors, lookup by name and format_init on custom/impossible formats. */
#include <float.h>
#include <math.h>

#include "check.h"
#include "fp_test_util.h"

typedef struct { lsfp_named id; const char *name; double minsub, minnorm, maxfin; int emin, emax, nbits; uint32_t maxcode; } expect_t;
static const expect_t EXP[] = {
    {LSFP_E4M3, "e4m3", 0x1p-9, 0x1p-6, 448.0, -6, 8, 8, 0x7E},
    {LSFP_E4M11, "e4m11", 0x1p-17, 0x1p-6, 511.75, -6, 8, 16, 0x7FFE},
    {LSFP_UE5M3_S, "ue5m3s", 0x1p-24, 0x1p-21, 896.0, -21, 9, 8, 0xFE},
    {LSFP_UE5M3_X, "ue5m3x", 0x1p-33, 0x1p-30, 1.875, -30, 0, 8, 0xFF},
    {LSFP_UE5M11_S, "ue5m11s", 0x1p-32, 0x1p-21, 1023.5, -21, 9, 16, 0xFFFE},
    {LSFP_UE5M11_X, "ue5m11x", 0x1p-41, 0x1p-30, 2.0 - 0x1p-11, -30, 0, 16, 0xFFFF},
    {LSFP_BF16, "bf16", 0x1p-133, 0x1p-126, 0x1.FEp127, -126, 127, 16, 0x7F7F},
    {LSFP_FP16, "fp16", 0x1p-24, 0x1p-14, 65504.0, -14, 15, 16, 0x7BFF},
};

static int expect_nan(lsfp_named id, uint32_t c)
{
    switch (id) {
    case LSFP_E4M3: return c == 0x7F || c == 0xFF;
    case LSFP_E4M11: return c == 0x7FFF || c == 0xFFFF;
    case LSFP_UE5M3_S: return c == 0xFF;
    case LSFP_UE5M11_S: return c == 0xFFFF;
    case LSFP_UE5M3_X: case LSFP_UE5M11_X: return 0;
    case LSFP_BF16: return (c & 0x7F80) == 0x7F80 && (c & 0x7F);
    case LSFP_FP16: return (c & 0x7C00) == 0x7C00 && (c & 0x3FF);
    default: return 0;
    }
}

static void check_format(const expect_t *x)
{
    const lsfp_format *f = lsfp_named_format(x->id);
    CHECK(f != NULL);
    if (!f) return;
    lsfp_format s = spec_named(x->id);
    CHECK_MSG(f->ebits == s.ebits && f->mbits == s.mbits && f->bias == s.bias && f->is_signed == s.is_signed
              && f->special == s.special && f->subnormals == s.subnormals,
              "%s: descriptor (e%d m%d bias %d signed %d special %d subn %d) differs from A.2", x->name,
              f->ebits, f->mbits, f->bias, f->is_signed, f->special, f->subnormals);
    if (x->id != LSFP_BF16 && x->id != LSFP_FP16)
        CHECK_MSG(f->overflow == LSFP_OVF_SATURATE, "%s: default overflow must saturate (G-3)", x->name);
    CHECK(f->rounding == LSFP_RND_RNE);
    CHECK_MSG(f->emin == x->emin && f->emax == x->emax && f->nbits == x->nbits, "%s: emin %d emax %d nbits %d",
              x->name, f->emin, f->emax, f->nbits);
    CHECK_MSG((double)f->max_finite == x->maxfin, "%s max_finite %a", x->name, (double)f->max_finite);
    CHECK_MSG((double)f->min_normal == x->minnorm, "%s min_normal %a", x->name, (double)f->min_normal);
    CHECK_MSG((double)f->min_subnormal == x->minsub, "%s min_subnormal %a", x->name, (double)f->min_subnormal);
    CHECK(f->fp32_range == (x->id == LSFP_BF16));
    lsfp_format byname;
    CHECK(lsfp_format_by_name(x->name, &byname) == 0 && byname.ebits == f->ebits && byname.mbits == f->mbits
          && byname.bias == f->bias && byname.max_finite == f->max_finite);

    ref_fmt r;
    ref_fmt_from(&r, f);
    CHECK(ref_max_finite(&r) == x->maxfin && ref_min_subnormal(&r) == x->minsub);
    uint32_t ncodes = 1u << f->nbits;
    uint32_t half = f->is_signed ? ncodes / 2 : ncodes;
    long bad_dec = 0, bad_nan = 0, bad_rt = 0, bad_ord = 0, bad_id = 0, nnan = 0;
    float prev[2] = {0, 0};
    int have_prev[2] = {0, 0};
    float *vals = malloc(sizeof(float) * ncodes), *outs = malloc(sizeof(float) * ncodes);
    lsfp_format frtz = *f;
    frtz.rounding = LSFP_RND_RTZ;
    for (uint32_t c = 0; c < ncodes; c++) {
        float v = lsfp_decode(f, c), rv = ref_decode(&r, c);
        vals[c] = v;
        if (!same_float(v, rv) && bad_dec++ < 5)
            fprintf(stderr, "%s decode(%#x) = %a, reference %a\n", x->name, c, (double)v, (double)rv);
        int isn = v != v;
        nnan += isn;
        if (isn != expect_nan(x->id, c) && bad_nan++ < 5) fprintf(stderr, "%s code %#x NaN=%d\n", x->name, c, isn);
        if (isn) { CHECK(lsfp_encode(f, v) == lsfp_nan_code(f)); continue; }
        uint32_t back = lsfp_encode(f, v);
        if (back != c && bad_rt++ < 5) fprintf(stderr, "%s encode(decode(%#x) = %a) = %#x\n", x->name, c, (double)v, back);
        int sg = f->is_signed && c >= half;
        float mag = sg ? -v : v;  /* strictly increasing in the magnitude code */
        if (have_prev[sg] && !(mag > prev[sg]) && bad_ord++ < 5)
            fprintf(stderr, "%s code %#x value %a not above previous %a\n", x->name, c, (double)mag, (double)prev[sg]);
        prev[sg] = mag;
        have_prev[sg] = 1;
        unsigned fl1 = 0, fl2 = 0;
        float r1 = lsfp_round(f, v, NULL, &fl1), r2 = lsfp_round(&frtz, v, NULL, &fl2);
        unsigned bad_fl = LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW | LSFP_FLAG_UNDERFLOW | LSFP_FLAG_INEXACT | LSFP_FLAG_NAN;
        if ((!same_float(r1, v) || !same_float(r2, v) || (fl1 & bad_fl) || (fl2 & bad_fl)) && bad_id++ < 5)
            fprintf(stderr, "%s round(decode(%#x) = %a) = %a / RTZ %a, flags %#x %#x\n", x->name, c, (double)v,
                    (double)r1, (double)r2, fl1, fl2);
    }
    CHECK_MSG(bad_dec == 0, "%s: %ld decode mismatches", x->name, bad_dec);
    CHECK_MSG(bad_nan == 0, "%s: %ld wrong NaN codes", x->name, bad_nan);
    CHECK_MSG(bad_rt == 0, "%s: %ld encode/decode round-trip failures", x->name, bad_rt);
    CHECK_MSG(bad_ord == 0, "%s: %ld ordering violations", x->name, bad_ord);
    CHECK_MSG(bad_id == 0, "%s: %ld decoded values not fixed by rounding", x->name, bad_id);
    if (x->id == LSFP_E4M3) CHECK(nnan == 2);
    CHECK(lsfp_has_nan(f) == (nnan > 0));
    if (nnan) CHECK(isnan(lsfp_decode(f, lsfp_nan_code(f))));
    CHECK(isnan(lsfp_decode(f, ncodes)));  /* out-of-range code */
    /* Extremes are the codes of A.2. */
    CHECK((double)lsfp_decode(f, 1) == x->minsub);
    CHECK((double)lsfp_decode(f, 1u << f->mbits) == x->minnorm);
    CHECK_MSG(lsfp_encode(f, f->max_finite) == x->maxcode, "%s: encode(max_finite) = %#x, A.2 says %#x", x->name,
              lsfp_encode(f, f->max_finite), x->maxcode);
    CHECK_SAME(lsfp_decode(f, x->maxcode), f->max_finite);
    if (!f->is_signed) {
        uint32_t want = lsfp_nan_code(f);  /* lsfp.h: NaN code; top code for formats without NaN (F-23) */
        CHECK_MSG(lsfp_encode(f, -1.0f) == want, "%s: encode(-1) = %#x, lsfp.h says %#x", x->name, lsfp_encode(f, -1.0f), want);
    }
    /* Array rounding of every (non-NaN) code value is the identity too. */
    lsfp_events ev = {0};
    for (uint32_t c = 0; c < ncodes; c++) if (vals[c] != vals[c]) vals[c] = 0.0f;
    for (int fs = 0; fs < 2; fs++) {
        lsfp_set_force_scalar(fs != 0);
        lsfp_round_array(f, vals, outs, ncodes, &ev);
        long bad = 0;
        for (uint32_t c = 0; c < ncodes; c++) bad += !same_float(vals[c], outs[c]);
        CHECK_MSG(bad == 0, "%s: round_array changed %ld code values (force_scalar=%d)", x->name, bad, fs);
    }
    lsfp_set_force_scalar(false);
    CHECK(ev.saturations == 0 && ev.underflows == 0 && ev.overflows == 0);
    free(vals);
    free(outs);
}

static void check_specific_codes(void)
{
    const lsfp_format *e = lsfp_named_format(LSFP_E4M3);
    CHECK(lsfp_encode(e, 448.0f) == 0x7E && lsfp_encode(e, -448.0f) == 0xFE);
    CHECK(lsfp_encode(e, -0.0f) == 0x80 && lsfp_encode(e, 0.0f) == 0x00);
    CHECK(lsfp_nan_code(e) == 0x7F || lsfp_nan_code(e) == 0xFF);
    const lsfp_format *ux = lsfp_named_format(LSFP_UE5M3_X);
    CHECK(lsfp_encode(ux, 1.0f) == 0xF8 && lsfp_decode(ux, 0xFF) == 1.875f);
    CHECK(!lsfp_has_nan(ux));
    const lsfp_format *ux11 = lsfp_named_format(LSFP_UE5M11_X);
    CHECK(lsfp_encode(ux11, 1.0f) == 0xF800);
    const lsfp_format *us = lsfp_named_format(LSFP_UE5M3_S);
    CHECK(lsfp_nan_code(us) == 0xFF && lsfp_encode(us, 896.0f) == 0xFE);
    const lsfp_format *f32 = lsfp_named_format(LSFP_FP32);
    CHECK(f32 && f32->max_finite == FLT_MAX && f32->min_normal == FLT_MIN && f32->min_subnormal == FLT_TRUE_MIN);
    CHECK(f32 && f32->fp32_range);
}

static void check_ps_and_custom(void)
{
    static const int mus[] = {1, 2, 3, 7, 10, 11, 22, 23};
    for (size_t i = 0; i < sizeof mus / sizeof mus[0]; i++) {
        lsfp_format p;
        lsfp_ps_format(&p, mus[i]);
        CHECK_MSG(p.ebits == 8 && p.mbits == mus[i] && p.bias == 127 && p.is_signed && p.special == LSFP_SPECIAL_IEEE
                  && p.subnormals && p.fp32_range && p.overflow == LSFP_OVF_NONSAT,
                  "ps%d descriptor: e%d m%d bias %d special %d ovf %d", mus[i], p.ebits, p.mbits, p.bias, p.special,
                  p.overflow);
        CHECK((double)p.max_finite == ldexp(2.0 - ldexp(1.0, -mus[i]), 127));
        CHECK(p.min_normal == FLT_MIN && (double)p.min_subnormal == ldexp(1.0, -126 - mus[i]));
        char nm[8];
        snprintf(nm, sizeof nm, "PS%d", mus[i]);
        lsfp_format q;
        CHECK(lsfp_format_by_name(nm, &q) == 0 && q.mbits == mus[i] && q.ebits == 8);
    }
    lsfp_format q;
    CHECK(lsfp_format_by_name("E4M3", &q) == 0 && q.max_finite == 448.0f);
    CHECK(lsfp_format_by_name("e4m4x", &q) != 0);
    CHECK(lsfp_format_names() != NULL && strstr(lsfp_format_names(), "e4m3") != NULL);
    char err[128] = "";
    /* IEEE-style e4m3 (exponent 15 reserved) tops out at 240 (numerics.md A.2 notes). */
    lsfp_format c = spec_fmt("ieee_e4m3", 4, 3, 7, 1, LSFP_SPECIAL_IEEE, 1, LSFP_OVF_SATURATE);
    CHECK(lsfp_format_init(&c, err, sizeof err) == 0);
    CHECK(c.max_finite == 240.0f && c.emax == 7 && c.nbits == 8);
    /* All-finite ue5m3-S alternative (G-5): max 960. */
    lsfp_format d = spec_fmt("ue5m3s_fin", 5, 3, 22, 0, LSFP_SPECIAL_FINITE, 1, LSFP_OVF_SATURATE);
    CHECK(lsfp_format_init(&d, err, sizeof err) == 0 && d.max_finite == 960.0f);
    /* Impossible: exponent range beyond fp32, or more fraction bits than fp32 holds. */
    lsfp_format bad1 = spec_fmt("bad", 9, 3, 255, 1, LSFP_SPECIAL_IEEE, 1, LSFP_OVF_SATURATE);
    err[0] = 0;
    CHECK(lsfp_format_init(&bad1, err, sizeof err) == -1 && err[0] != 0);
    lsfp_format bad2 = spec_fmt("bad", 4, 24, 7, 1, LSFP_SPECIAL_OCP, 1, LSFP_OVF_SATURATE);
    CHECK(lsfp_format_init(&bad2, err, sizeof err) == -1);
}

int main(void)
{
    double t0 = now_s();
    for (size_t i = 0; i < sizeof EXP / sizeof EXP[0]; i++) check_format(&EXP[i]);
    check_specific_codes();
    check_ps_and_custom();
    printf("fp_formats: %.2f s\n", now_s() - t0);
    CHECK_DONE();
}
