/* hw/fp/fp_tc_dot.c — the baseline tensor-core dot product with fp32 accumulation (lsfp_tc_dot, lsfp.h):
 * the arithmetic of rtl/lamp_tc_dot.sv, written from its statement, integer only. */
#include "lsfp.h"

#include <stdint.h>

typedef struct {
    uint64_t m;   /* exact significand (product or accumulator) */
    int e;        /* exponent of its LSB */
    int s;        /* sign */
} term;

/* sign, significand with its hidden bit, LSB exponent; *nan / *inf for specials */
static void decode(const lsfp_format *f, uint32_t x, int *s, uint64_t *m, int *e, int *nan, int *inf)
{
    uint32_t ef = (x >> f->mbits) & ((1u << f->ebits) - 1u), ff = x & ((1u << f->mbits) - 1u);
    uint32_t etop = (1u << f->ebits) - 1u;
    *s = (int)((x >> (f->ebits + f->mbits)) & 1u);
    *nan = f->special == LSFP_SPECIAL_OCP ? (ef == etop && ff == (1u << f->mbits) - 1u)
                                          : (f->special == LSFP_SPECIAL_IEEE && ef == etop && ff != 0);
    *inf = f->special == LSFP_SPECIAL_IEEE && ef == etop && ff == 0;
    *m = ef ? ((uint64_t)1 << f->mbits) | ff : ff;
    *e = (ef ? (int)ef : 1) - f->bias - f->mbits;
}

static int lead(uint64_t m)
{
    int p = -1;
    while (m) { p++; m >>= 1; }
    return p;
}

uint32_t lsfp_tc_dot(const lsfp_format *f, int k, int window, const uint32_t *a, const uint32_t *b, uint32_t c)
{
    static const lsfp_format fp32 = { .ebits = 8, .mbits = 23, .bias = 127, .is_signed = true,
                                      .special = LSFP_SPECIAL_IEEE };
    term t[LSFP_TC_DOT_MAX_K + 1];
    int n = 0, nan = 0, pinf = 0, ninf = 0, all_neg = 1;
    for (int i = 0; i <= k; i++) {
        int s, xn, xi;
        uint64_t m;
        int e;
        if (i < k) {
            int sb, yn, yi, eb;
            uint64_t mb;
            decode(f, a[i], &s, &m, &e, &xn, &xi);
            decode(f, b[i], &sb, &mb, &eb, &yn, &yi);
            s ^= sb;
            if (xn || yn || (xi && mb == 0) || (yi && m == 0)) nan = 1;
            else if (xi || yi) *(s ? &ninf : &pinf) = 1;
            m = (xn || yn || xi || yi) ? 0 : m * mb;
            e += eb;
        } else {
            decode(&fp32, c, &s, &m, &e, &xn, &xi);
            if (xn) nan = 1;
            else if (xi) *(s ? &ninf : &pinf) = 1;
            if (xn || xi) m = 0;
        }
        all_neg &= s;
        if (m) t[n++] = (term){ m, e, s };
    }
    if (nan || (pinf && ninf)) return 0x7FC00000u;
    if (pinf || ninf) return ninf ? 0xFF800000u : 0x7F800000u;
    if (n == 0) return all_neg ? 0x80000000u : 0u;
    int emax = INT32_MIN;
    for (int i = 0; i < n; i++)
        if (t[i].e + lead(t[i].m) > emax) emax = t[i].e + lead(t[i].m);
    int lsb = emax - window;
    int64_t acc = 0;
    for (int i = 0; i < n; i++) {
        int sh = t[i].e - lsb;   /* <= window: the term fits window + 1 bits */
        uint64_t al = sh >= 0 ? t[i].m << sh : (-sh >= 64 ? 0 : t[i].m >> -sh);
        acc += t[i].s ? -(int64_t)al : (int64_t)al;
    }
    uint32_t sign = acc < 0;
    uint64_t mag = sign ? (uint64_t)-acc : (uint64_t)acc;
    if (mag == 0) return 0u;
    int x = lsb + lead(mag), eq = x > -126 ? x : -126, kk = eq - 23 - lsb;
    uint64_t q, up = 0;
    if (kk <= 0) {
        q = mag << -kk;
    } else if (kk >= 64) {
        q = 0;
    } else {
        q = mag >> kk;
        uint64_t rem = mag & (((uint64_t)1 << kk) - 1), half = (uint64_t)1 << (kk - 1);
        up = rem > half || (rem == half && (q & 1));
    }
    uint64_t code = ((uint64_t)(eq + 126) << 23) + q + up;
    if (code >= 0x7F800000u) return (sign << 31) | 0x7F800000u;
    return (sign << 31) | (uint32_t)code;
}
