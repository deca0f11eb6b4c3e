/* hw/fp/fp_lut.c — exponential tables derived from the formats (numerics.md F-23, G-6, G-7).
 *
 * exp(-s) is evaluated in long double (64-bit significand) and rounded once to the output format
 * (at most 12 significand bits). That is the correctly rounded value unless exp(-s) lies within
 * the long double's error of a rounding boundary of the output; exp of a nonzero rational is
 * transcendental, so it never sits exactly on one, and tests/fp proves the margin for every entry.
 * A double exp (glibc: within 1 ulp, 53 bits) decides first: where its value is clearly inside one
 * rounding interval (farther from the boundary than 8x its error, and not at the ends of its
 * binade) it rounds as the long double does, and the long double is only computed for the rest, a
 * few entries in a table (64k-entry tables build in a fraction of the time).
 */
#include "lsfp.h"
#include "fp_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* 2^k for k in the normal range of a double (exact; ldexp's general path is slow in a table loop) */
static inline double pow2(int k)
{
    uint64_t u = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* k from the double exp(-s), or -1 when it is too close to a decision to be trusted. */
static double exp_neg_quick(const lsfp_format *out, float s, int *qe_out)
{
    double e = exp(-(double)s);
    if (isinf(e) || isnan(e)) return -1.0;
    if (e < 0x1p-1000) {   /* double subnormals carry fewer bits; this far below every format's quantum the result is 0 */
        *qe_out = out->emin - out->mbits;
        return *qe_out > -990 ? 0.0 : -1.0;
    }
    uint64_t eb;
    memcpy(&eb, &e, 8);
    int ex = (int)((eb >> 52) & 0x7FF) - 1022;          /* e in [2^(ex-1), 2^ex): e is normal here */
    int qe = (ex - 1 > out->emin ? ex - 1 : out->emin) - out->mbits;
    if (out->mbits > 40 || qe < -1000 || qe > 1000) return -1.0;
    /* glibc's exp is within 1 ulp (2^-52 relative): n < 2^(mbits+1) is off by < 2^(mbits-51); 8x that */
    double n = e * pow2(-qe), lo = floor(n), frac = n - lo, m = pow2(out->mbits - 48);
    if (m > 0x1p-8) return -1.0;
    double top = pow2(out->mbits + 1);
    if (n > top - m || (ex - 1 > out->emin && n < top / 2 + m)) return -1.0;   /* the exact value may be in the next binade */
    if (out->rounding == LSFP_RND_RTZ) {
        if (frac < m || frac > 1.0 - m) return -1.0;
        *qe_out = qe;
        return lo;
    }
    if (fabs(frac - 0.5) < m) return -1.0;
    *qe_out = qe;
    return frac > 0.5 ? lo + 1.0 : lo;
}

float lsfp_exp_neg(const lsfp_format *out, float s)
{
    if (isnan(s)) return NAN;
    int qq;
    double kq = exp_neg_quick(out, s, &qq);
    if (kq >= 0.0) return lsfp_round_double(out, kq * pow2(qq), NULL);
    /* s < 0 (exp above one) never comes from the LP path; the HP path may ask (G-15). */
    long double e = expl(-(long double)s);
    int ex;
    (void)frexpl(e, &ex);                                /* e in [2^(ex-1), 2^ex) */
    int qe = (ex - 1 > out->emin ? ex - 1 : out->emin) - out->mbits;
    long double n = ldexpl(e, -qe), lo = floorl(n), frac = n - lo, k;
    if (out->rounding == LSFP_RND_RTZ) k = lo;
    else k = (frac > 0.5L || (frac == 0.5L && fmodl(lo, 2.0L) != 0.0L)) ? lo + 1.0L : lo;
    /* k * 2^qe is exact in a double; lsfp_round_double then only applies overflow and flush. */
    return lsfp_round_double(out, (double)ldexpl(k, qe), NULL);
}

int lsfp_exp_lut_check(const lsfp_format *in, const lsfp_format *out, char *err, size_t errlen)
{
    if (in->is_signed || in->fp32_range || in->nbits > LSFP_LUT_MAX_BITS || out->nbits > 16) {
        if (err && errlen)
            snprintf(err, errlen, "an exponential LUT is indexed by the shift code: it needs an unsigned shift format "
                     "of at most %d bits (%u entries) inside fp32's exponent range and an exponential format of at most "
                     "16 bits (shift %s: %d bits%s, exponential %s: %d bits)", LSFP_LUT_MAX_BITS, LSFP_LUT_MAX, in->name,
                     in->nbits, in->is_signed ? ", signed" : "", out->name, out->nbits);
        return -1;
    }
    return 0;
}

int lsfp_exp_lut_build(lsfp_exp_lut *lut, const lsfp_format *in, const lsfp_format *out, char *err, size_t errlen)
{
    if (lsfp_exp_lut_check(in, out, err, errlen) != 0) return -1;
    lut->in = *in;
    lut->out = *out;
    uint32_t ncodes = 1u << in->nbits, n = ncodes < 256 ? 256 : ncodes;
    lut->n = ncodes;
    for (uint32_t c = 0; c < n; c++) {
        float s = c < ncodes ? lsfp_decode(in, c) : NAN;
        uint32_t oc;
        if (isnan(s)) oc = lsfp_nan_code(out);           /* NaN in, top code out (F-23: 0xFF -> 0xFF) */
        else oc = lsfp_encode(out, lsfp_exp_neg(out, s));
        lut->code[c] = (uint16_t)oc;
        lut->value[c] = lsfp_decode(out, oc);
    }
    return 0;
}

