/* tests/fp/ref_round.c — independent integer-arithmetic reference for hw/fp (see ref_round.h).
 * Nothing here is derived from the hw/fp sources; only the types and flag constants of lsfp.h are used. */
#include "ref_round.h"

#include <assert.h>
#include <math.h>
#include <string.h>

typedef unsigned __int128 u128;

void ref_fmt_from(ref_fmt *r, const lsfp_format *f)
{
    memset(r, 0, sizeof *r);
    r->ebits = f->ebits;
    r->m = f->mbits;
    r->bias = f->bias;
    r->is_signed = f->is_signed;
    r->subnormals = f->subnormals;
    r->special = f->special;
    r->overflow = f->overflow;
    r->emin = 1 - f->bias;
    int etop = (1 << f->ebits) - 1;  /* all-ones exponent field */
    switch (f->special) {
    case LSFP_SPECIAL_IEEE:   /* top exponent reserved */
        r->emax = etop - 1 - f->bias;
        r->max_sig = (UINT64_C(2) << f->mbits) - 1;
        break;
    case LSFP_SPECIAL_OCP:    /* all-ones magnitude is NaN: the top mantissa of the top binade is lost */
        r->emax = etop - f->bias;
        r->max_sig = (UINT64_C(2) << f->mbits) - 2;
        break;
    default:                  /* every code finite */
        r->emax = etop - f->bias;
        r->max_sig = (UINT64_C(2) << f->mbits) - 1;
        break;
    }
    r->nbits = (f->is_signed ? 1 : 0) + f->ebits + f->mbits;
}

double ref_max_finite(const ref_fmt *r) { return ldexp((double)r->max_sig, r->emax - r->m); }
double ref_min_normal(const ref_fmt *r) { return ldexp(1.0, r->emin); }
double ref_min_subnormal(const ref_fmt *r) { return ldexp(1.0, r->emin - r->m); }

static float signed_val(bool neg, float v) { return neg ? -v : v; }

/* Overflow outcome for a finite value beyond max finite (or an infinite input). */
static float overflow_result(const ref_fmt *r, bool neg, unsigned *fl)
{
    if (r->special == LSFP_SPECIAL_FINITE || r->overflow == LSFP_OVF_SATURATE) {
        *fl |= LSFP_FLAG_SATURATED;
        return signed_val(neg, (float)ref_max_finite(r));
    }
    if (r->special == LSFP_SPECIAL_OCP) {
        *fl |= LSFP_FLAG_OVERFLOW | LSFP_FLAG_NAN;
        return NAN;
    }
    *fl |= LSFP_FLAG_OVERFLOW;
    return signed_val(neg, INFINITY);
}

float ref_round_parts(const ref_fmt *r, bool neg, uint64_t M, int E, bool sticky, ref_mode mode,
                      unsigned *flags)
{
    unsigned fl = 0;
    if (M == 0) {
        assert(!sticky);
        if (flags) *flags = 0;
        return neg ? -0.0f : 0.0f;
    }
    int msb = 63 - __builtin_clzll(M);
    assert(!sticky || msb >= 29);
    int L = msb + E;                              /* floor(log2 |x|) (sticky < 1 unit cannot change it) */
    int Q = (L > r->emin ? L : r->emin) - r->m;   /* log2 of the quantum, A.1 */
    int s = Q - E;                                /* bits of M below the quantum */
    uint64_t n;
    int cmp;          /* remainder vs half quantum: -1 below, 0 tie, +1 above; -2 exact */
    if (s <= 0) {
        assert(!sticky && -s < 40);
        n = M << (-s);
        cmp = -2;
    } else if (s > 64) {
        n = 0;
        cmp = -1;     /* M < 2^64 <= half */
    } else {
        uint64_t rem = (s == 64) ? M : (M & ((UINT64_C(1) << s) - 1));
        uint64_t half = UINT64_C(1) << (s - 1);
        n = (s == 64) ? 0 : (M >> s);
        if (rem == 0 && !sticky) cmp = -2;
        else if (rem > half) cmp = 1;
        else if (rem < half) cmp = -1;
        else cmp = sticky ? 1 : 0;
    }
    bool inexact = cmp != -2;
    switch (mode) {
    case REF_RNE: if (cmp == 1 || (cmp == 0 && (n & 1))) n++; break;
    case REF_RTZ: break;
    case REF_RAZ: if (inexact) n++; break;
    }
    if (inexact) fl |= LSFP_FLAG_INEXACT;
    /* Overflow: n * 2^Q > max_sig * 2^(emax - m). */
    bool ovf = (Q > r->emax - r->m) || (Q == r->emax - r->m && n > r->max_sig);
    if (ovf) {
        fl |= LSFP_FLAG_INEXACT;
        float v = overflow_result(r, neg, &fl);
        if (flags) *flags = fl;
        return v;
    }
    if (n == 0) {
        fl |= LSFP_FLAG_UNDERFLOW;
        if (flags) *flags = fl;
        return neg ? -0.0f : 0.0f;
    }
    if (Q == r->emin - r->m && n < (UINT64_C(1) << r->m)) {  /* below min normal */
        if (!r->subnormals) {
            fl |= LSFP_FLAG_UNDERFLOW | LSFP_FLAG_INEXACT;
            if (flags) *flags = fl;
            return neg ? -0.0f : 0.0f;
        }
        fl |= LSFP_FLAG_SUBNORMAL;
    }
    assert(n <= (UINT64_C(1) << 24));
    float v = ldexpf((float)n, Q);
    if (flags) *flags = fl;
    return signed_val(neg, v);
}

static float round_inf(const ref_fmt *r, bool neg, unsigned *flags)
{
    unsigned fl = 0;
    float v;
    /* IEEE infinities pass through unless the format saturates (then +-max, like any overflow). */
    if (r->special == LSFP_SPECIAL_IEEE && r->overflow == LSFP_OVF_NONSAT) v = signed_val(neg, INFINITY);
    else v = overflow_result(r, neg, &fl);
    if (flags) *flags = fl;
    return v;
}

float ref_round_float(const ref_fmt *r, float x, ref_mode mode, unsigned *flags)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    bool neg = u >> 31;
    uint32_t ef = (u >> 23) & 0xFF, fr = u & 0x7FFFFF;
    if (ef == 0xFF) {
        if (fr) { if (flags) *flags = LSFP_FLAG_NAN; return NAN; }
        return round_inf(r, neg, flags);
    }
    uint64_t M = ef ? (fr | 0x800000u) : fr;
    int E = ef ? (int)ef - 150 : -149;
    return ref_round_parts(r, neg, M, E, false, mode, flags);
}

float ref_round_double(const ref_fmt *r, double x, ref_mode mode, unsigned *flags)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    bool neg = u >> 63;
    uint64_t ef = (u >> 52) & 0x7FF, fr = u & ((UINT64_C(1) << 52) - 1);
    if (ef == 0x7FF) {
        if (fr) { if (flags) *flags = LSFP_FLAG_NAN; return NAN; }
        return round_inf(r, neg, flags);
    }
    uint64_t M = ef ? (fr | (UINT64_C(1) << 52)) : fr;
    int E = ef ? (int)ef - 1075 : -1074;
    return ref_round_parts(r, neg, M, E, false, mode, flags);
}

float ref_round_ldouble(const ref_fmt *r, long double x, ref_mode mode, unsigned *flags)
{
    if (isnan(x)) { if (flags) *flags = LSFP_FLAG_NAN; return NAN; }
    bool neg = signbit(x) != 0;
    if (isinf(x)) return round_inf(r, neg, flags);
    if (x == 0) { if (flags) *flags = 0; return neg ? -0.0f : 0.0f; }
    int e;
    long double f = frexpl(fabsl(x), &e);          /* |x| = f * 2^e, f in [0.5, 1) */
    long double t = ldexpl(f, 62);                 /* in [2^61, 2^62) */
    long double ip = floorl(t);
    uint64_t M = (uint64_t)ip;
    bool sticky = (t - ip) != 0;                   /* exact: t and ip share the exponent range */
    return ref_round_parts(r, neg, M, e - 62, sticky, mode, flags);
}

/* ---- codes ---- */

bool ref_code_is_nan(const ref_fmt *r, uint32_t code)
{
    if ((uint64_t)code >> r->nbits) return true;
    uint32_t Ef = (code >> r->m) & ((1u << r->ebits) - 1);
    uint32_t Mf = code & ((1u << r->m) - 1);
    uint32_t etop = (1u << r->ebits) - 1, mtop = (1u << r->m) - 1;
    switch (r->special) {
    case LSFP_SPECIAL_OCP: return Ef == etop && Mf == mtop;
    case LSFP_SPECIAL_IEEE: return Ef == etop && Mf != 0;
    default: return false;
    }
}

float ref_decode(const ref_fmt *r, uint32_t code)
{
    if (ref_code_is_nan(r, code)) return NAN;
    int magbits = r->ebits + r->m;
    bool neg = r->is_signed && ((code >> magbits) & 1);
    uint32_t Ef = (code >> r->m) & ((1u << r->ebits) - 1);
    uint32_t Mf = code & ((1u << r->m) - 1);
    if (r->special == LSFP_SPECIAL_IEEE && Ef == (1u << r->ebits) - 1) return signed_val(neg, INFINITY);
    float v = Ef == 0 ? ldexpf((float)Mf, r->emin - r->m)
                      : ldexpf((float)((1u << r->m) | Mf), (int)Ef - r->bias - r->m);
    return signed_val(neg, v);
}

uint32_t ref_encode(const ref_fmt *r, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    bool neg = u >> 31;
    if (neg && !r->is_signed) return UINT32_MAX;
    uint32_t sbit = neg ? (1u << (r->ebits + r->m)) : 0;
    uint32_t ef = (u >> 23) & 0xFF, fr = u & 0x7FFFFF;
    if (ef == 0xFF) {
        if (fr || r->special != LSFP_SPECIAL_IEEE) return UINT32_MAX;
        return sbit | (((1u << r->ebits) - 1) << r->m);
    }
    uint64_t M = ef ? (fr | 0x800000u) : fr;
    int E = ef ? (int)ef - 150 : -149;
    if (M == 0) return sbit;
    int msb = 63 - __builtin_clzll(M);
    int L = msb + E;
    int Q = (L > r->emin ? L : r->emin) - r->m;
    uint64_t n;
    if (E >= Q) n = M << (E - Q);
    else {
        int s = Q - E;
        if (s >= 64 || (M & ((UINT64_C(1) << s) - 1))) return UINT32_MAX;  /* not on the grid */
        n = M >> s;
    }
    uint32_t Ef, Mf;
    if (L < r->emin) { Ef = 0; Mf = (uint32_t)n; }
    else { Ef = (uint32_t)(L + r->bias); Mf = (uint32_t)(n - (UINT64_C(1) << r->m)); }
    if (Ef >= (1u << r->ebits)) return UINT32_MAX;
    uint32_t code = sbit | (Ef << r->m) | Mf;
    if (ref_code_is_nan(r, code)) return UINT32_MAX;
    if (r->special == LSFP_SPECIAL_IEEE && Ef == (1u << r->ebits) - 1) return UINT32_MAX;
    return code;
}

float ref_ps_round_bits(float x, int mu)
{
    int k = 23 - mu;
    uint32_t u;
    memcpy(&u, &x, 4);
    if (k <= 0 || (u & 0x7F800000u) == 0x7F800000u) return x;
    uint32_t sg = u & 0x80000000u, ua = u & 0x7FFFFFFFu;
    uint32_t rr = ua & ((1u << k) - 1), half = 1u << (k - 1);
    if (rr > half || (rr == half && ((ua >> k) & 1))) ua += 1u << k;
    ua &= ~((1u << k) - 1) & 0x7FFFFFFFu;
    u = sg | ua;
    float y;
    memcpy(&y, &u, 4);
    return y;
}

/* ---- exact accumulation ---- */

static void split_float(float x, bool *neg, uint64_t *M, int *E)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    *neg = u >> 31;
    uint32_t ef = (u >> 23) & 0xFF, fr = u & 0x7FFFFF;
    *M = ef ? (fr | 0x800000u) : fr;
    *E = ef ? (int)ef - 150 : -149;
}

/* Round (neg) * (mag + sticky*delta) * 2^E with a 128-bit magnitude. */
static float round_u128(const ref_fmt *r, bool neg, u128 mag, int E, bool sticky, ref_mode mode,
                        unsigned *flags)
{
    if ((mag >> 64) != 0) {
        uint64_t hi = (uint64_t)(mag >> 64);
        int bits = 128 - __builtin_clzll(hi);
        int sh = bits - 63;
        u128 mask = (((u128)1) << sh) - 1;
        sticky = sticky || (mag & mask) != 0;
        mag >>= sh;
        E += sh;
    }
    return ref_round_parts(r, neg, (uint64_t)mag, E, sticky, mode, flags);
}

float ref_acc_exact(const ref_fmt *r, ref_mode mode, float c, float a, float b, unsigned *flags)
{
    if (!isfinite(a) || !isfinite(b) || !isfinite(c)) return ref_round_float(r, fmaf(a, b, c), mode, flags);
    bool na, nb, nc;
    uint64_t Ma, Mb, Mc;
    int Ea, Eb, Ec;
    split_float(a, &na, &Ma, &Ea);
    split_float(b, &nb, &Mb, &Eb);
    split_float(c, &nc, &Mc, &Ec);
    bool np = na != nb;
    u128 P = (u128)Ma * Mb;        /* < 2^48: exact product significand */
    int EP = Ea + Eb;
    if (P == 0 && Mc == 0) {
        if (flags) *flags = 0;
        return (np && nc) ? -0.0f : 0.0f;
    }
    if (P == 0) return ref_round_parts(r, nc, Mc, Ec, false, mode, flags);
    if (Mc == 0) return round_u128(r, np, P, EP, false, mode, flags);
    int lo = EP < Ec ? EP : Ec;
    int dP = EP - lo, dC = Ec - lo;
    if (dP <= 79 && dC <= 103) {   /* both fit aligned in 127 bits */
        u128 A = P << dP, C = (u128)Mc << dC, mag;
        bool neg;
        if (np == nc) { mag = A + C; neg = np; }
        else if (A >= C) { mag = A - C; neg = np; }
        else { mag = C - A; neg = nc; }
        if (mag == 0) { if (flags) *flags = 0; return 0.0f; }  /* x - x = +0 (RNE and RTZ) */
        return round_u128(r, neg, mag, lo, false, mode, flags);
    }
    /* One operand H lies entirely above the other's reach: |L| < 2^(lsb(H) - 56). Represent
     * H + L as (H << 40) +- delta in units of 2^(lsb(H) - 40), delta in (0, 1): a sticky bit. */
    bool nH, nL;
    u128 MH;
    int EH;
    if (dP > 79) { nH = np; MH = P; EH = EP; nL = nc; }
    else { nH = nc; MH = Mc; EH = Ec; nL = np; }
    u128 mag = MH << 40;
    if (nH != nL) mag -= 1;        /* value in (mag - 1, mag): write as (mag - 1) + delta */
    return round_u128(r, nH, mag, EH - 40, true, mode, flags);
}

float ref_acc_paper(const ref_fmt *r, ref_mode mode, float c, float a, float b, unsigned *flags)
{
    return ref_round_float(r, fmaf(a, b, c), mode, flags);
}

float ref_dot(const ref_fmt *r, ref_mode mode, lsfp_acc_model model, lsfp_acc_order order,
              int chunk_k, const float *a, const float *b, int n)
{
    float acc = 0.0f;
    if (chunk_k <= 1) {
        for (int i = 0; i < n; i++) {
            int k = order == LSFP_ORDER_ASCENDING ? i : n - 1 - i;
            acc = model == LSFP_ACC_EXACT ? ref_acc_exact(r, mode, acc, a[k], b[k], NULL)
                                          : ref_acc_paper(r, mode, acc, a[k], b[k], NULL);
        }
        return acc;
    }
    /* Chunks are consecutive runs of chunk_k indices in the accumulation order; each chunk is summed
     * in fp32 with fmaf in that order, then added to the accumulator with one rounding. */
    for (int i0 = 0; i0 < n; i0 += chunk_k) {
        float s = 0.0f;
        for (int i = i0; i < n && i < i0 + chunk_k; i++) {
            int k = order == LSFP_ORDER_ASCENDING ? i : n - 1 - i;
            s = fmaf(a[k], b[k], s);
        }
        acc = model == LSFP_ACC_EXACT ? ref_acc_exact(r, mode, acc, s, 1.0f, NULL)
                                      : ref_acc_paper(r, mode, acc, s, 1.0f, NULL);
    }
    return acc;
}

long double ref_midpoint_distance(const ref_fmt *r, long double x, long double *quantum)
{
    int e;
    frexpl(x, &e);
    int L = e - 1;
    int Q = (L > r->emin ? L : r->emin) - r->m;
    long double t = ldexpl(x, -Q);
    long double frac = t - floorl(t);
    if (quantum) *quantum = ldexpl(1.0L, Q);
    return fabsl(frac - 0.5L);
}
