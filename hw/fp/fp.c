/* hw/fp/fp.c — format descriptors and the scalar definition of rounding, encoding and decoding.
 * These functions are the definition of the arithmetic: the branch-free kernels in fp_kernels.c
 * must agree with them bit for bit (tests/fp checks it exhaustively and at random). */
#include "lsfp.h"
#include "fp_internal.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Deterministic generator ---- */

void lsfp_rng_seed(lsfp_rng *rng, uint64_t seed) { rng->state = seed; }

uint64_t lsfp_rng_next(lsfp_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double rng_unit(lsfp_rng *rng) { return (double)(lsfp_rng_next(rng) >> 11) * 0x1p-53; }

/* ---- Descriptors ---- */

int lsfp_format_init(lsfp_format *f, char *err, size_t errlen)
{
    if (f->ebits < 1 || f->ebits > 8 || f->mbits < 0 || f->mbits > 23) {
        if (err) snprintf(err, errlen, "format %s: exponent bits must be 1..8 and mantissa bits 0..23", f->name);
        return -1;
    }
    int top_e = (1 << f->ebits) - 1;             /* largest exponent field */
    int top_m = (1 << f->mbits) - 1;             /* largest fraction field */
    int emax_field = top_e, mmax = top_m;
    switch (f->special) {
    case LSFP_SPECIAL_IEEE: emax_field = top_e - 1; break;
    case LSFP_SPECIAL_OCP: mmax = top_m - 1; break;   /* S.1..1.1..1 is NaN */
    case LSFP_SPECIAL_FINITE: break;
    }
    if (f->special == LSFP_SPECIAL_IEEE && f->ebits < 2) {
        if (err) snprintf(err, errlen, "format %s: IEEE specials need at least two exponent bits", f->name);
        return -1;
    }
    if (f->special == LSFP_SPECIAL_OCP && f->mbits == 0) {
        if (err) snprintf(err, errlen, "format %s: OCP NaN rule needs at least one mantissa bit", f->name);
        return -1;
    }
    f->emin = 1 - f->bias;
    f->emax = emax_field - f->bias;
    f->nbits = (f->is_signed ? 1 : 0) + f->ebits + f->mbits;
    f->fp32_range = (f->emin <= -126 && f->emax >= 127);
    if (f->emin < -126 || f->emax > 127) {   /* values travel as float: stay inside fp32 */
        if (err) snprintf(err, errlen, "format %s: exponent range exceeds float32's", f->name);
        return -1;
    }
    f->max_finite = ldexpf(1.0f + (float)mmax / (float)(1 << f->mbits), f->emax);
    f->min_normal = ldexpf(1.0f, f->emin);
    f->min_subnormal = f->subnormals ? ldexpf(1.0f, f->emin - f->mbits) : f->min_normal;
    return 0;
}

static lsfp_format make(const char *name, int e, int m, int bias, bool sgn, lsfp_special sp, lsfp_overflow ov)
{
    lsfp_format f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", name);
    f.ebits = e; f.mbits = m; f.bias = bias; f.is_signed = sgn; f.special = sp;
    f.subnormals = true; f.overflow = ov; f.rounding = LSFP_RND_RNE;
    if (lsfp_format_init(&f, NULL, 0) != 0) abort();   /* built-in table: cannot fail */
    return f;
}

static lsfp_format g_named[LSFP_NAMED_COUNT];
static pthread_once_t g_named_once = PTHREAD_ONCE_INIT;

static void build_named(void)
{
    g_named[LSFP_E4M3] = make("e4m3", 4, 3, 7, true, LSFP_SPECIAL_OCP, LSFP_OVF_SATURATE);
    g_named[LSFP_E4M11] = make("e4m11", 4, 11, 7, true, LSFP_SPECIAL_OCP, LSFP_OVF_SATURATE);
    g_named[LSFP_UE5M3_S] = make("ue5m3s", 5, 3, 22, false, LSFP_SPECIAL_OCP, LSFP_OVF_SATURATE);
    g_named[LSFP_UE5M3_X] = make("ue5m3x", 5, 3, 31, false, LSFP_SPECIAL_FINITE, LSFP_OVF_SATURATE);
    g_named[LSFP_UE5M11_S] = make("ue5m11s", 5, 11, 22, false, LSFP_SPECIAL_OCP, LSFP_OVF_SATURATE);
    g_named[LSFP_UE5M11_X] = make("ue5m11x", 5, 11, 31, false, LSFP_SPECIAL_FINITE, LSFP_OVF_SATURATE);
    g_named[LSFP_BF16] = make("bf16", 8, 7, 127, true, LSFP_SPECIAL_IEEE, LSFP_OVF_NONSAT);
    g_named[LSFP_FP16] = make("fp16", 5, 10, 15, true, LSFP_SPECIAL_IEEE, LSFP_OVF_NONSAT);
    g_named[LSFP_FP32] = make("fp32", 8, 23, 127, true, LSFP_SPECIAL_IEEE, LSFP_OVF_NONSAT);
}

static void init_named(void) { pthread_once(&g_named_once, build_named); }

const lsfp_format *lsfp_named_format(lsfp_named id)
{
    init_named();
    return (id >= 0 && id < LSFP_NAMED_COUNT) ? &g_named[id] : NULL;
}

void lsfp_ps_format(lsfp_format *out, int mu)
{
    char name[16];
    if (mu < 1) mu = 1;
    if (mu > 23) mu = 23;
    snprintf(name, sizeof name, "ps%d", mu);
    *out = make(name, 8, mu, 127, true, LSFP_SPECIAL_IEEE, LSFP_OVF_NONSAT);
}

const char *lsfp_format_names(void)
{
    return "e4m3, e4m11, ue5m3s, ue5m3x, ue5m11s, ue5m11x, bf16, fp16, fp32, ps<1..23>, "
           "[u]e<E>m<M>[_b<bias>][_ocp|_ieee|_finite][_nosub]";
}

/* Unsigned decimal at *p (at least one digit, at most 4); advances *p. -1 if none. */
static int parse_small(const char **p)
{
    int v = 0, n = 0;
    while (isdigit((unsigned char)**p) && n < 4) { v = v * 10 + (**p - '0'); (*p)++; n++; }
    return n ? v : -1;
}

static int parse_fail(char *err, size_t errlen, const char *name, const char *what)
{
    if (err && errlen) snprintf(err, errlen, "format '%s': %s (known: %s)", name, what, lsfp_format_names());
    return -1;
}

int lsfp_format_parse(const char *name, lsfp_format *out, unsigned *given, char *err, size_t errlen)
{
    char low[sizeof ((lsfp_format *)0)->name];
    size_t n = strlen(name);
    unsigned g = 0;
    if (given) *given = 0;
    if (n == 0 || n >= sizeof low) return parse_fail(err, errlen, name, "empty or too long a name");
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)name[i]);
    init_named();
    for (int i = 0; i < LSFP_NAMED_COUNT; i++)
        if (strcmp(low, g_named[i].name) == 0) {
            *out = g_named[i];
            if (given) *given = LSFP_GIVEN_BIAS | LSFP_GIVEN_SPECIAL;
            return 0;
        }
    const char *p = low;
    if (p[0] == 'p' && p[1] == 's') {
        p += 2;
        int mu = parse_small(&p);
        if (*p || mu < 1 || mu > 23) return parse_fail(err, errlen, name, "ps<m> needs m in 1..23");
        lsfp_ps_format(out, mu);
        if (given) *given = LSFP_GIVEN_BIAS | LSFP_GIVEN_SPECIAL;
        return 0;
    }
    bool sgn = true;
    if (*p == 'u') { sgn = false; p++; }
    if (*p++ != 'e') return parse_fail(err, errlen, name, "unknown format");
    int e = parse_small(&p);
    if (*p++ != 'm') return parse_fail(err, errlen, name, "expected [u]e<E>m<M>");
    int m = parse_small(&p);
    if (e < 1 || e > 8 || m < 0 || m > 23) return parse_fail(err, errlen, name, "E must be 1..8 and M 0..23");
    int bias = (1 << (e - 1)) - 1;
    lsfp_special sp = m > 0 ? LSFP_SPECIAL_OCP : LSFP_SPECIAL_FINITE;
    bool subn = true;
    while (*p) {
        if (*p++ != '_') return parse_fail(err, errlen, name, "suffixes are _b<bias>, _ocp, _ieee, _finite, _nosub");
        if (*p == 'b' && (isdigit((unsigned char)p[1]) || (p[1] == '-' && isdigit((unsigned char)p[2])))) {
            p++;
            bool neg = *p == '-';
            if (neg) p++;
            if (g & LSFP_GIVEN_BIAS) return parse_fail(err, errlen, name, "_b<bias> given twice");
            bias = parse_small(&p);
            if (isdigit((unsigned char)*p) || bias > 254)   /* |bias| past fp32's exponents for any width */
                return parse_fail(err, errlen, name, "bias out of range (the exponents must stay within float32's)");
            if (neg) bias = -bias;
            g |= LSFP_GIVEN_BIAS;
            continue;
        }
        static const struct { const char *s; int sp; } rules[] = {
            {"ocp", LSFP_SPECIAL_OCP}, {"ieee", LSFP_SPECIAL_IEEE}, {"finite", LSFP_SPECIAL_FINITE}, {"nosub", -1}};
        size_t k, nr = sizeof rules / sizeof rules[0];
        for (k = 0; k < nr; k++) {
            size_t l = strlen(rules[k].s);
            if (!strncmp(p, rules[k].s, l) && (p[l] == '_' || p[l] == '\0')) {
                /* one special-value rule, each suffix once: e4m3_ocp_ieee has no meaning to pick */
                if (rules[k].sp < 0 ? !subn : (g & LSFP_GIVEN_SPECIAL) != 0)
                    return parse_fail(err, errlen, name, rules[k].sp < 0 ? "_nosub given twice"
                                      : "conflicting or repeated special-value suffixes (one of _ocp, _ieee, _finite)");
                if (rules[k].sp < 0) subn = false;
                else { sp = (lsfp_special)rules[k].sp; g |= LSFP_GIVEN_SPECIAL; }
                p += l;
                break;
            }
        }
        if (k == nr) return parse_fail(err, errlen, name, "suffixes are _b<bias>, _ocp, _ieee, _finite, _nosub");
    }
    lsfp_format f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", low);
    f.ebits = e; f.mbits = m; f.bias = bias; f.is_signed = sgn; f.special = sp;
    f.subnormals = subn; f.overflow = LSFP_OVF_SATURATE; f.rounding = LSFP_RND_RNE;
    char why[160];
    if (lsfp_format_init(&f, why, sizeof why) != 0) {
        if (err && errlen) snprintf(err, errlen, "%s", why);
        return -1;
    }
    *out = f;
    if (given) *given = g;
    return 0;
}

int lsfp_format_by_name(const char *name, lsfp_format *out)
{
    return lsfp_format_parse(name, out, NULL, NULL, 0);
}

bool lsfp_has_nan(const lsfp_format *f) { return f->special != LSFP_SPECIAL_FINITE; }

uint32_t lsfp_nan_code(const lsfp_format *f)
{
    /* Canonical NaN: positive, all-ones exponent and fraction (FINITE formats: the top code). */
    return (1u << (f->ebits + f->mbits)) - 1u;
}

/* ---- Rounding ---- */

/* Non-finite output for an overflow or invalid input under the format's rules. */
static float overflow_value(const lsfp_format *f, bool negative, unsigned *flags)
{
    if (f->overflow == LSFP_OVF_SATURATE || f->special == LSFP_SPECIAL_FINITE) {
        *flags |= LSFP_FLAG_SATURATED;
        return negative ? -f->max_finite : f->max_finite;
    }
    *flags |= LSFP_FLAG_OVERFLOW;
    if (f->special == LSFP_SPECIAL_IEEE) return negative ? -INFINITY : INFINITY;
    *flags |= LSFP_FLAG_NAN;
    return NAN;
}

/* Round a non-negative finite double to the format's grid (no overflow handling). */
static double round_magnitude(const lsfp_format *f, double a, lsfp_rounding mode, lsfp_rng *rng)
{
    if (a == 0.0) return 0.0;
    int e = ilogb(a);
    int qe = (e > f->emin ? e : f->emin) - f->mbits;   /* exponent of the quantum */
    double n = ldexp(a, -qe);                           /* exact: a power-of-two scaling */
    double k;
    switch (mode) {
    case LSFP_RND_RTZ: k = trunc(n); break;
    case LSFP_RND_STOCHASTIC: {
        double lo = floor(n);
        k = lo + ((n - lo) > rng_unit(rng) ? 1.0 : 0.0);
        break;
    }
    default: {
        /* ties to even without depending on the FP environment's rounding mode */
        double lo = floor(n), frac = n - lo;
        k = (frac > 0.5 || (frac == 0.5 && fmod(lo, 2.0) != 0.0)) ? lo + 1.0 : lo;
        break;
    }
    }
    return ldexp(k, qe);
}

static float finish(const lsfp_format *f, double x, double r, unsigned *flags)
{
    bool neg = signbit(x);
    if (r > (double)f->max_finite) return overflow_value(f, neg, flags);
    if (!f->subnormals && r != 0.0 && r < (double)f->min_normal) r = 0.0;
    if (r != fabs(x)) *flags |= LSFP_FLAG_INEXACT;
    if (r == 0.0 && x != 0.0) *flags |= LSFP_FLAG_UNDERFLOW;
    if (r != 0.0 && r < (double)f->min_normal) *flags |= LSFP_FLAG_SUBNORMAL;
    float v = (float)r;                                 /* exact: r is on an fp32-representable grid */
    if (!f->is_signed) return v;                        /* -0 becomes +0 */
    return neg ? -v : v;
}

static float round_any(const lsfp_format *f, double x, lsfp_rounding mode, lsfp_rng *rng, unsigned *flags)
{
    unsigned local = 0;
    if (!flags) flags = &local;
    if (isnan(x)) { *flags |= LSFP_FLAG_NAN; return NAN; }
    if (!f->is_signed && x < 0) {                       /* unsigned formats hold magnitudes only */
        *flags |= LSFP_FLAG_NAN;
        return NAN;
    }
    if (isinf(x)) {
        if (f->special == LSFP_SPECIAL_IEEE && f->overflow == LSFP_OVF_NONSAT) return (float)x;
        return overflow_value(f, x < 0, flags);
    }
    if (mode == LSFP_RND_STOCHASTIC && !rng) mode = LSFP_RND_RNE;
    return finish(f, x, round_magnitude(f, fabs(x), mode, rng), flags);
}

float lsfp_round_mode(const lsfp_format *f, double x, lsfp_rounding mode, lsfp_rng *rng, unsigned *flags)
{
    return round_any(f, x, mode, rng, flags);
}

double lsfp_fma_round_odd(float a, float b, float c)
{
    double p = (double)a * (double)b;              /* exact: 24 x 24 significand bits */
    double s = (double)c + p;
    double bv = s - (double)c;                      /* TwoSum: err is the exact rounding error */
    double err = ((double)c - (s - bv)) + (p - bv);
    if (err != 0.0) {
        uint64_t u;
        memcpy(&u, &s, sizeof u);
        if (!(u & 1u)) s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
    }
    return s;
}

float lsfp_round(const lsfp_format *f, float x, lsfp_rng *rng, unsigned *flags)
{
    return round_any(f, (double)x, f->rounding, rng, flags);
}

float lsfp_round_double(const lsfp_format *f, double x, unsigned *flags)
{
    lsfp_rounding mode = f->rounding == LSFP_RND_RTZ ? LSFP_RND_RTZ : LSFP_RND_RNE;
    return round_any(f, x, mode, NULL, flags);
}

float lsfp_truncate_to(const lsfp_format *f, float x)
{
    if (isnan(x) || isinf(x)) return x;
    double r = round_magnitude(f, fabs((double)x), LSFP_RND_RTZ, NULL);
    if (r > (double)f->max_finite) r = f->max_finite;
    /* a _nosub format reads its subnormal codes as zero: a value narrowed below the smallest
     * normal is zero there too, as lsfp_round flushes it (not a subnormal the format cannot hold) */
    if (!f->subnormals && r < (double)f->min_normal) r = 0.0;
    return signbit(x) ? -(float)r : (float)r;
}

/* ---- Codes ---- */

uint32_t lsfp_encode(const lsfp_format *f, float v)
{
    unsigned fl = 0;
    lsfp_rounding mode = f->rounding == LSFP_RND_RTZ ? LSFP_RND_RTZ : LSFP_RND_RNE;
    float r = round_any(f, (double)v, mode, NULL, &fl);
    int fieldbits = f->ebits + f->mbits;
    if (isnan(r)) return lsfp_nan_code(f);
    uint32_t sign = (f->is_signed && signbit(r)) ? (1u << fieldbits) : 0u;
    double a = fabs((double)r);
    uint32_t E, M;
    if (isinf(r)) { E = (1u << f->ebits) - 1u; M = 0; }
    else if (a < (double)f->min_normal) { E = 0; M = (uint32_t)ldexp(a, f->mbits - f->emin); }
    else {
        int e = ilogb(a);
        E = (uint32_t)(e + f->bias);
        M = (uint32_t)(ldexp(a, -e) * (double)(1u << f->mbits)) - (1u << f->mbits);
    }
    return sign | (E << f->mbits) | M;
}

float lsfp_decode(const lsfp_format *f, uint32_t code)
{
    if (f->nbits < 32 && code >> f->nbits) return NAN;   /* a shift by 32 would be undefined */
    int fieldbits = f->ebits + f->mbits;
    bool neg = f->is_signed && ((code >> fieldbits) & 1u);
    uint32_t E = (code >> f->mbits) & ((1u << f->ebits) - 1u);
    uint32_t M = code & ((1u << f->mbits) - 1u);
    uint32_t topE = (1u << f->ebits) - 1u, topM = (1u << f->mbits) - 1u;
    double v;
    if (f->special == LSFP_SPECIAL_OCP && E == topE && M == topM) return NAN;
    if (f->special == LSFP_SPECIAL_IEEE && E == topE) {
        if (M) return NAN;
        return neg ? -INFINITY : INFINITY;
    }
    if (E == 0) v = f->subnormals ? ldexp((double)M, f->emin - f->mbits) : 0.0;
    else v = ldexp(1.0 + ldexp((double)M, -f->mbits), (int)E - f->bias);
    return neg ? -(float)v : (float)v;
}
