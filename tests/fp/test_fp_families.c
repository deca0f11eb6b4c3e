/* fp_families — the format families the configuration accepts (lsfp_format_parse): [u]eXmY with
 * every bias and specials rule, ps<m> and fp32, checked against the independent reference
 * (ref_round.c, written from the spec, not from the library).
 *  - every code of every format up to 16 bits: [u]e<E>m<M> for all E in 1..8, M in 0..15 with the
 *    default rules, and every specials rule, a shifted bias and flushed subnormals up to 12 bits:
 *    decode equals the reference, NaN codes are exactly the rule's, encode(decode(c)) = c, values
 *    strictly increase with the magnitude code, and rounding a decoded value (RNE, RTZ, scalar and
 *    array kernels) is the identity;
 *  - random inputs for every format (all of ps1..ps23 and fp32 too): lsfp_round equals the
 *    reference in RNE and RTZ, saturating and not, and the array kernels equal lsfp_round;
 *  - accumulation in new accumulator formats: lsfp_dot and lsfp_logit_tile equal the reference dot
 *    product (paper and exact models, chunks, both orders);
 *  - LUTs between new shift and exponential formats: every entry is the reference's rounding of
 *    exp(-s);
 *  - the parser: names, the fields a name fixes, and clear refusals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fp_test_util.h"

static long g_formats, g_codes;

static bool rule_nan(const lsfp_format *f, uint32_t c)
{
    uint32_t mag = c & ((1u << (f->ebits + f->mbits)) - 1u);
    uint32_t E = mag >> f->mbits, M = mag & ((1u << f->mbits) - 1u), topE = (1u << f->ebits) - 1u;
    switch (f->special) {
    case LSFP_SPECIAL_OCP: return E == topE && M == (1u << f->mbits) - 1u;
    case LSFP_SPECIAL_IEEE: return E == topE && M != 0;
    default: return false;
    }
}

/* Every code of f (at most 16 bits). */
static void all_codes(const lsfp_format *f)
{
    ref_fmt r;
    ref_fmt_from(&r, f);
    uint32_t n = 1u << f->nbits, half = f->is_signed ? n / 2 : n;
    float *vals = malloc(sizeof(float) * n), *outs = malloc(sizeof(float) * n);
    lsfp_format frtz = *f;
    frtz.rounding = LSFP_RND_RTZ;
    long bad = 0;
    float prev[2] = {0, 0};
    int have[2] = {0, 0};
    for (uint32_t c = 0; c < n; c++) {
        float v = lsfp_decode(f, c);
        vals[c] = v;
        if (!f->subnormals && (c & ((1u << (f->ebits + f->mbits)) - 1u)) >> f->mbits == 0 && (c & ((1u << f->mbits) - 1u))) {
            /* flushed format: subnormal codes read as zero (lsfp.h), the reference keeps their value */
            if (v != 0.0f && bad++ < 5) fprintf(stderr, "%s: subnormal code %#x decodes to %a\n", f->name, c, (double)v);
            continue;
        }
        if (!same_float(v, ref_decode(&r, c)) && bad++ < 5)
            fprintf(stderr, "%s decode(%#x) = %a, reference %a\n", f->name, c, (double)v, (double)ref_decode(&r, c));
        if ((v != v) != rule_nan(f, c) && bad++ < 5) fprintf(stderr, "%s code %#x: NaN %d\n", f->name, c, v != v);
        if (v != v) { vals[c] = 0.0f; continue; }
        if (isinf(v) && f->overflow == LSFP_OVF_SATURATE) {
            /* an IEEE format that saturates clamps Inf like any overflow */
            if (!same_float(lsfp_round(f, v, NULL, NULL), copysignf(f->max_finite, v)) && bad++ < 5)
                fprintf(stderr, "%s: Inf does not saturate\n", f->name);
            vals[c] = 0.0f;
            continue;
        }
        if (lsfp_encode(f, v) != c && bad++ < 5) fprintf(stderr, "%s encode(decode(%#x)) = %#x\n", f->name, c, lsfp_encode(f, v));
        int sg = f->is_signed && c >= half;
        float mag = sg ? -v : v;
        if (have[sg] && !(mag > prev[sg]) && !(isinf(mag) && isinf(prev[sg])) && bad++ < 5)
            fprintf(stderr, "%s code %#x: %a not above %a\n", f->name, c, (double)mag, (double)prev[sg]);
        prev[sg] = mag;
        have[sg] = 1;
        if ((!same_float(lsfp_round(f, v, NULL, NULL), v) || !same_float(lsfp_round(&frtz, v, NULL, NULL), v)) && bad++ < 5)
            fprintf(stderr, "%s: rounding decode(%#x) = %a moved it\n", f->name, c, (double)v);
    }
    for (int fs = 0; fs < 2; fs++) {
        lsfp_set_force_scalar(fs != 0);
        lsfp_round_array(f, vals, outs, n, NULL);
        for (uint32_t c = 0; c < n; c++)
            if (!same_float(vals[c], outs[c]) && bad++ < 5)
                fprintf(stderr, "%s: round_array(decode(%#x)) = %a (scalar %d)\n", f->name, c, (double)outs[c], fs);
    }
    lsfp_set_force_scalar(false);
    CHECK_MSG(bad == 0, "%s: %ld code-level failures", f->name, bad);
    g_codes += n;
    free(vals);
    free(outs);
}

/* Random inputs against the reference, every rounding / overflow combination, scalar and arrays. */
static void random_inputs(const lsfp_format *f0, uint64_t seed, int count)
{
    enum { N = 512 };
    trng g;
    trng_seed(&g, seed);
    long bad = 0;
    for (int ov = 0; ov < 2; ov++)
        for (int rm = 0; rm < 2; rm++) {
            lsfp_format f = *f0;
            f.overflow = ov ? LSFP_OVF_NONSAT : LSFP_OVF_SATURATE;
            f.rounding = rm ? LSFP_RND_RTZ : LSFP_RND_RNE;
            ref_fmt r;
            ref_fmt_from(&r, &f);
            float in[N], out[N];
            for (int done = 0; done < count; done += N) {
                for (int i = 0; i < N; i++) in[i] = rand_in_range(&g, &r);
                for (int fs = 0; fs < 2; fs++) {
                    lsfp_set_force_scalar(fs != 0);
                    lsfp_round_array(&f, in, out, N, NULL);
                    for (int i = 0; i < N; i++) {
                        float a = lsfp_round(&f, in[i], NULL, NULL), b = ref_round_float(&r, in[i], rm ? REF_RTZ : REF_RNE, NULL);
                        if ((!same_float(a, b) || !same_float(out[i], a)) && bad++ < 5)
                            fprintf(stderr, "%s ovf %d rtz %d: round(%a) = %a, array %a, reference %a\n", f.name, ov, rm,
                                    (double)in[i], (double)a, (double)out[i], (double)b);
                    }
                }
            }
        }
    lsfp_set_force_scalar(false);
    CHECK_MSG(bad == 0, "%s: %ld random-input mismatches", f0->name, bad);
}

static lsfp_format parsed(const char *name)
{
    lsfp_format f;
    char err[400];
    memset(&f, 0, sizeof f);
    if (lsfp_format_parse(name, &f, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        CHECK_MSG(0, "format %s does not parse", name);
    }
    return f;
}

static void families(void)
{
    static const char *const rules[] = {"", "_ocp", "_ieee", "_finite"};
    char name[32];
    for (int u = 0; u < 2; u++)
        for (int e = 1; e <= 8; e++)
            for (int m = 0; m <= 15 && (u ? 0 : 1) + e + m <= 16; m++)
                for (int k = 0; k < 4; k++)
                    for (int variant = 0; variant < 3; variant++) {   /* 0 default, 1 bias + 2, 2 no subnormals */
                        int bits = (u ? 0 : 1) + e + m;
                        if ((k > 0 || variant > 0) && bits > 12) continue;
                        if (k == 1 && m == 0) continue;              /* OCP needs a mantissa bit */
                        if (k == 2 && e < 2) continue;               /* IEEE needs two exponent bits */
                        int bias = (1 << (e - 1)) - 1 + (variant == 1 ? 2 : 0);
                        snprintf(name, sizeof name, "%se%dm%d%s%s", u ? "u" : "", e, m, rules[k],
                                 variant == 2 ? "_nosub" : "");
                        if (variant == 1) snprintf(name + strlen(name), sizeof name - strlen(name), "_b%d", bias);
                        /* values travel as floats: the exponent range must fit fp32's */
                        int ieee = k == 2;
                        int top = (1 << e) - 1 - ieee;
                        if (top - bias > 127 || 1 - bias < -126) {
                            lsfp_format f;
                            char err[300] = "";
                            CHECK_MSG(lsfp_format_parse(name, &f, NULL, err, sizeof err) != 0 &&
                                      strstr(err, "exponent range exceeds"), "%s must be refused: '%s'", name, err);
                            continue;
                        }
                        lsfp_format f = parsed(name);
                        CHECK_MSG(f.ebits == e && f.mbits == m && f.is_signed == !u && f.bias == bias &&
                                  f.subnormals == (variant != 2) && f.nbits == bits, "%s: fields", name);
                        all_codes(&f);
                        random_inputs(&f, (uint64_t)(e * 100 + m * 7 + k * 3 + variant + 1000 * u), 512);
                        g_formats++;
                    }
    for (int mu = 1; mu <= 23; mu++) {
        snprintf(name, sizeof name, "ps%d", mu);
        lsfp_format f = parsed(name);
        random_inputs(&f, 77 + (uint64_t)mu, 2048);
        /* the LAMP code's bit-pattern rounding (numerics.md A.4), ported literally by the reference */
        trng g;
        trng_seed(&g, (uint64_t)mu);
        long bad = 0;
        for (int i = 0; i < 20000; i++) {
            float x = bits_f(trng_u32(&g));
            if (!same_float(lsfp_round(&f, x, NULL, NULL), ref_ps_round_bits(x, mu)) && bad++ < 3)
                fprintf(stderr, "ps%d(%a)\n", mu, (double)x);
        }
        CHECK_MSG(bad == 0, "ps%d: %ld mismatches with the bit-pattern rounding", mu, bad);
        g_formats++;
    }
    lsfp_format f32 = parsed("fp32");
    random_inputs(&f32, 5, 4096);
    lsfp_format e8 = parsed("e8m7_ieee");   /* bf16's layout, saturating: an fp32-range generic format */
    CHECK(e8.fp32_range && e8.max_finite == lsfp_named_format(LSFP_BF16)->max_finite);
    random_inputs(&e8, 6, 4096);
}

/* Dot products in new accumulator formats against the reference (ref_dot). */
static void accumulation(void)
{
    static const char *const accs[] = {"e5m2", "e3m4", "e2m1", "e5m10_ieee", "e6m9", "e4m6_nosub", "e8m3_ieee", "fp32", "ps7"};
    enum { D = 64, NQ = 8, NK = 5 };
    trng g;
    trng_seed(&g, 2024);
    for (size_t a = 0; a < sizeof accs / sizeof accs[0]; a++) {
        lsfp_format f = parsed(accs[a]);
        ref_fmt r;
        ref_fmt_from(&r, &f);
        long bad = 0;
        for (int it = 0; it < 40; it++) {
            float K[NK * D], Q[NQ * D], Qt[D * NQ], Y[NK * NQ];
            double sc = ldexp(1.0, (int)(trng_next(&g) % 6) - 3);
            for (int i = 0; i < NK * D; i++) K[i] = (float)(trng_gauss(&g) * sc);
            for (int i = 0; i < NQ * D; i++) Q[i] = (float)trng_gauss(&g);
            for (int t = 0; t < D; t++)
                for (int j = 0; j < NQ; j++) Qt[t * NQ + j] = Q[j * D + t];
            lsfp_accum acc = { &f, it % 2 ? LSFP_ACC_EXACT : LSFP_ACC_PAPER,
                               it % 3 ? LSFP_ORDER_ASCENDING : LSFP_ORDER_DESCENDING, (it % 4) == 3 ? 8 : 1, NULL, 0, 0 };
            for (int fs = 0; fs < 2; fs++) {
                lsfp_set_force_scalar(fs != 0);
                lsfp_logit_tile(&acc, K, D, Qt, NQ, NK, NQ, D, Y, NQ, NULL);
                for (int i = 0; i < NK; i++)
                    for (int j = 0; j < NQ; j++) {
                        float want = ref_dot(&r, REF_RNE, acc.model, acc.order, acc.chunk_k, K + i * D, Q + j * D, D);
                        float dot = lsfp_dot(&acc, K + i * D, Q + j * D, D, NULL);
                        if ((!same_float(Y[i * NQ + j], want) || !same_float(dot, want)) && bad++ < 5)
                            fprintf(stderr, "%s model %d: tile %a dot %a reference %a\n", f.name, acc.model,
                                    (double)Y[i * NQ + j], (double)dot, (double)want);
                    }
            }
        }
        lsfp_set_force_scalar(false);
        CHECK_MSG(bad == 0, "%s: %ld accumulation mismatches", f.name, bad);
    }
}

/* LUTs between new shift and exponential formats: each entry rounds exp(-s) as the reference does. */
static void luts(void)
{
    static const char *const pairs[][2] = {{"ue4m2_b11", "ue4m2_finite_b15"}, {"ue5m3_b22", "ue5m5_finite_b31"},
                                           {"ue6m4_b45", "ue6m4_finite_b63"}, {"ue5m11s", "ue5m11x"},
                                           {"ue3m1_b1", "ue3m1_finite_b7"}, {"ue6m10_b45", "ue5m8_finite_b31"}};
    static lsfp_exp_lut lut;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        lsfp_format in = parsed(pairs[p][0]), out = parsed(pairs[p][1]);
        char err[400];
        CHECK_MSG(lsfp_exp_lut_build(&lut, &in, &out, err, sizeof err) == 0, "%s -> %s: %s", in.name, out.name, err);
        CHECK(lut.n == 1u << in.nbits);
        ref_fmt ro;
        ref_fmt_from(&ro, &out);
        long bad = 0;
        for (uint32_t c = 0; c < lut.n; c++) {
            float s = lsfp_decode(&in, c);
            float want = s != s ? lsfp_decode(&out, lsfp_nan_code(&out)) : ref_round_ldouble(&ro, expl(-(long double)s), REF_RNE, NULL);
            if ((!same_float(lut.value[c], want) || !same_float(lsfp_decode(&out, lut.code[c]), lut.value[c])) && bad++ < 5)
                fprintf(stderr, "%s -> %s [%#x] s=%a: %a want %a\n", in.name, out.name, c, (double)s, (double)lut.value[c], (double)want);
        }
        CHECK_MSG(bad == 0, "LUT %s -> %s: %ld wrong entries", in.name, out.name, bad);
    }
    /* too wide or signed shift formats are refused with a message */
    lsfp_format wide = parsed("ue6m12"), sgn = parsed("e5m3"), x = parsed("ue5m3x");
    char err[400] = "";
    CHECK(lsfp_exp_lut_build(&lut, &wide, &x, err, sizeof err) != 0 && strstr(err, "at most 16 bits"));
    CHECK(lsfp_exp_lut_build(&lut, &sgn, &x, err, sizeof err) != 0 && strstr(err, "signed"));
}

static void parser(void)
{
    lsfp_format f;
    unsigned given = 0;
    char err[400];
    CHECK(lsfp_format_parse("E5M2_B15_IEEE", &f, &given, err, sizeof err) == 0 && f.special == LSFP_SPECIAL_IEEE &&
          f.bias == 15 && given == (LSFP_GIVEN_BIAS | LSFP_GIVEN_SPECIAL) && f.max_finite == 57344.0f);
    CHECK(lsfp_format_parse("ue5m3", &f, &given, err, sizeof err) == 0 && !f.is_signed && given == 0 && f.bias == 15 &&
          f.special == LSFP_SPECIAL_OCP);
    CHECK(lsfp_format_parse("e4m3", &f, &given, err, sizeof err) == 0 && given == (LSFP_GIVEN_BIAS | LSFP_GIVEN_SPECIAL));
    CHECK(lsfp_format_parse("e3m0", &f, &given, err, sizeof err) == 0 && f.special == LSFP_SPECIAL_FINITE);
    CHECK(lsfp_format_parse("ue4m3_b-2", &f, &given, err, sizeof err) == 0 && f.bias == -2 && f.min_subnormal == 1.0f);
    /* the generic spelling of a named format is that format */
    lsfp_format a = parsed("e4m3"), b = parsed("e4m3_b7_ocp");
    CHECK(a.max_finite == b.max_finite && a.bias == b.bias && a.special == b.special && a.nbits == b.nbits);
    static const struct { const char *name, *msg; } refused[] = {
        {"e9m3", "E must be 1..8"}, {"e4m24", "E must be 1..8 and M 0..23"}, {"q4m3", "unknown format"},
        {"e4m3_x", "suffixes"}, {"e4m3_b", "suffixes"}, {"e8m3", "exponent range exceeds"}, {"e1m2_ieee", "two exponent bits"},
        {"e4m0_ocp", "at least one mantissa bit"}, {"ps0", "ps<m> needs m in 1..23"}, {"ps24", "ps<m>"}, {"", "empty"},
        {"e4m3_b7_ocp_nosub_finite_ieee_x", "too long"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        err[0] = '\0';
        int rc = lsfp_format_parse(refused[i].name, &f, NULL, err, sizeof err);
        CHECK_MSG(rc != 0 && strstr(err, refused[i].msg), "'%s' -> rc %d, '%s'", refused[i].name, rc, err);
    }
}

/* 32-bit codes decode as the fp32 bit patterns they are (the size check must not shift by 32) */
static void decode_fp32(void)
{
    lsfp_format f = parsed("fp32");
    static const uint32_t codes[] = { 0x3f800000u, 0xbf800000u, 0x00000001u, 0x7f7fffffu, 0x80000000u, 0x7f800000u,
                                      0x41200000u, 0x00800000u };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        float want;
        memcpy(&want, &codes[i], sizeof want);
        float v = lsfp_decode(&f, codes[i]);
        CHECK_MSG(same_float(v, want), "fp32 decode(%#x) = %a, want %a", codes[i], (double)v, (double)want);
    }
}

int main(void)
{
    double t0 = now_s();
    parser();
    decode_fp32();
    families();
    accumulation();
    luts();
    fprintf(stderr, "fp_families: %ld formats, %ld codes, %.1f s\n", g_formats, g_codes, now_s() - t0);
    CHECK_DONE();
}
