/* tests/fp/ref_fused.c — the fused dot-product step in integers (ref_round.h ref_fused_step), written
 * from lsfp.h's definition and not from hw/fp/fp_fused.c: no floating-point operation decides an
 * alignment, a sum or a rounding. */
#include "ref_round.h"

#include <math.h>
#include <string.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

/* An fp32 / bf16 value from its bits: value = sig * 2^lsb; al = the alignment exponent (the field's
 * exponent, emin = -126 for subnormals). */
typedef struct { int neg, inf, nan; uint64_t sig; int lsb, al; } term;

static term dec(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    term t = {0};
    int ef = (int)((u >> 23) & 0xFF);
    uint32_t fr = u & 0x7FFFFF;
    t.neg = (int)(u >> 31);
    if (ef == 0xFF) {
        t.inf = fr == 0;
        t.nan = fr != 0;
        return t;
    }
    t.sig = ef ? (fr | 0x800000u) : fr;
    t.lsb = (ef ? ef : 1) - 127 - 23;
    t.al = (ef ? ef : 1) - 127;
    return t;
}

float ref_fused_step(const ref_fmt *r, ref_mode mode, float c, const float *a, const float *b, int n, int frac,
                     unsigned *flags)
{
    term p[64], tc = dec(c);
    int nan = tc.nan, pinf = tc.inf && !tc.neg, ninf = tc.inf && tc.neg;
    for (int i = 0; i < n; i++) {
        term x = dec(a[i]), y = dec(b[i]);
        p[i].neg = x.neg ^ y.neg;
        p[i].nan = x.nan || y.nan || (x.inf && !y.inf && y.sig == 0) || (y.inf && !x.inf && x.sig == 0);
        p[i].inf = !p[i].nan && (x.inf || y.inf);
        nan |= p[i].nan;
        pinf |= p[i].inf && !p[i].neg;
        ninf |= p[i].inf && p[i].neg;
        if (!x.inf && !y.inf && !x.nan && !y.nan) {
            p[i].sig = x.sig * y.sig;
            p[i].lsb = x.lsb + y.lsb;
            p[i].al = x.al + y.al;
        }
    }
    if (nan || (pinf && ninf)) return ref_round_float(r, NAN, mode, flags);
    if (pinf || ninf) return ref_round_float(r, pinf ? INFINITY : -INFINITY, mode, flags);
    /* the accumulator's alignment exponent: floor(log2 |c|), at least the format's emin */
    if (tc.sig) {
        tc.al = tc.lsb + 63 - __builtin_clzll(tc.sig);
        if (tc.al < r->emin) tc.al = r->emin;
    }
    p[n] = tc;
    int have = 0, m = 0;
    for (int i = 0; i <= n; i++)
        if (p[i].sig && (!have || p[i].al > m)) { m = p[i].al; have = 1; }
    if (!have) return ref_round_float(r, 0.0f, mode, flags);
    i128 s = 0;
    for (int i = 0; i <= n; i++) {
        if (!p[i].sig) continue;
        int sh = p[i].lsb - m + frac;           /* T = floor(sig * 2^sh) */
        u128 t = sh >= 0 ? (u128)p[i].sig << sh : (-sh >= 128 ? 0 : (u128)p[i].sig >> -sh);
        s += p[i].neg ? -(i128)t : (i128)t;
    }
    u128 mag = s < 0 ? (u128)(-s) : (u128)s;
    return ref_round_parts(r, s < 0, (uint64_t)mag, m - frac + 0, false, mode, flags);
}

float ref_fused_dot(const ref_fmt *r, ref_mode mode, lsfp_acc_order order, int k, int frac, const float *a,
                    const float *b, int n, uint64_t *above)
{
    float acc = 0.0f, ga[64], gb[64];
    for (int s = 0; s < n; s += k) {
        int len = 0;
        for (int t = 0; t < k && s + t < n; t++, len++) {
            int i = order == LSFP_ORDER_ASCENDING ? s + t : n - 1 - s - t;
            ga[t] = a[i];
            gb[t] = b[i];
        }
        unsigned fl = 0;
        acc = ref_fused_step(r, mode, acc, ga, gb, len, frac, &fl);
        if (above) *above += (fl & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) != 0;
    }
    return acc;
}
