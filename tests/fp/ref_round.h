/* tests/fp/ref_round — an independent, deliberately slow-and-simple reference for hw/fp.
 *
 * Written from numerics.md A.1/A.2/A.4 and F (the spec's Python), NOT from the library sources.
 * Every value is handled as an exact integer significand times a power of two (value = M * 2^E,
 * M a 64-bit integer, optionally with a "sticky" flag meaning the true value lies strictly between
 * M*2^E and (M+1)*2^E). Rounding is integer shifting and comparison against the half quantum, so no
 * floating-point operation is involved in deciding a rounding. The only things read from an
 * lsfp_format are its raw parameters (ebits, mbits, bias, is_signed, special, subnormals, overflow);
 * all derived values (emin, emax, max finite, ...) are recomputed here.
 */
#ifndef LAMPSIM_TESTS_FP_REF_ROUND_H
#define LAMPSIM_TESTS_FP_REF_ROUND_H

#include <stdbool.h>
#include <stdint.h>
#include "lsfp.h"

typedef enum { REF_RNE, REF_RTZ, REF_RAZ /* away from zero: the upper neighbour of RTZ */ } ref_mode;

typedef struct {
    int ebits, m, bias;
    bool is_signed, subnormals;
    lsfp_special special;
    lsfp_overflow overflow;
    int emin, emax, nbits;
    uint64_t max_sig;   /* max finite = max_sig * 2^(emax - m) */
} ref_fmt;

void ref_fmt_from(ref_fmt *r, const lsfp_format *f);
double ref_max_finite(const ref_fmt *r);
double ref_min_normal(const ref_fmt *r);
double ref_min_subnormal(const ref_fmt *r);

/* Core: round (neg ? -1 : 1) * (M + sticky*delta) * 2^E, delta in (0,1). When sticky is set, M must
 * hold at least 30 significant bits (the reference guarantees it). flags: LSFP_FLAG_* as the header
 * documents them (may be NULL). */
float ref_round_parts(const ref_fmt *r, bool neg, uint64_t M, int E, bool sticky, ref_mode mode,
                      unsigned *flags);
/* Round a float / double / long double (NaN -> NaN, Inf -> overflow policy: OCP saturate -> +-max,
 * OCP non-saturating -> NaN, IEEE non-saturating -> +-Inf, FINITE or saturating -> +-max). */
float ref_round_float(const ref_fmt *r, float x, ref_mode mode, unsigned *flags);
float ref_round_double(const ref_fmt *r, double x, ref_mode mode, unsigned *flags);
float ref_round_ldouble(const ref_fmt *r, long double x, ref_mode mode, unsigned *flags);

/* Codes. decode: code -> value (NaN for NaN codes and codes >= 2^nbits). encode: value on the grid
 * -> code (returns UINT32_MAX if v is not exactly representable or is NaN). */
float ref_decode(const ref_fmt *r, uint32_t code);
uint32_t ref_encode(const ref_fmt *r, float v);
bool ref_code_is_nan(const ref_fmt *r, uint32_t code);

/* The spec's Python ps_round (numerics.md F) on the fp32 bit pattern, ported literally. */
float ref_ps_round_bits(float x, int mu);

/* Exact accumulation step: round(c + a*b) with one correct rounding of the exact real value
 * (a*b is exact as a 48-bit integer times a power of two). Non-finite operands: IEEE fma semantics
 * then rounding. IEEE sign rules for an exact zero sum (+0 unless both terms are -0). */
float ref_acc_exact(const ref_fmt *r, ref_mode mode, float c, float a, float b, unsigned *flags);
/* Paper model step: round(fmaf(a, b, c)). */
float ref_acc_paper(const ref_fmt *r, ref_mode mode, float c, float a, float b, unsigned *flags);

/* Whole dot product as numerics.md A.4 / lsfp.h describe it (chunk_k >= 1; a chunk is a run of
 * chunk_k consecutive indices in the accumulation order, summed with fmaf in that order). */
float ref_dot(const ref_fmt *r, ref_mode mode, lsfp_acc_model model, lsfp_acc_order order,
              int chunk_k, const float *a, const float *b, int n);

/* The K-term fused step as lsfp.h defines it (lsfp_fused_step), in integers (ref_fused.c, written
 * from that definition): operands decoded from their bits, products as 48-bit integers, alignment
 * by shifts, the window sum in 128 bits, the rounding by ref_round_parts. ref_fused_dot: the whole
 * dot product from +0 in groups of k in the order; *above counts roundings above max finite. */
float ref_fused_step(const ref_fmt *r, ref_mode mode, float c, const float *a, const float *b, int n, int frac,
                     unsigned *flags);
float ref_fused_dot(const ref_fmt *r, ref_mode mode, lsfp_acc_order order, int k, int frac, const float *a,
                    const float *b, int n, uint64_t *above);

/* Distance of x (> 0) to the nearest rounding midpoint of format r, in units of the local quantum
 * q (0 = exactly on a midpoint, 0.5 = on a grid point). Used to prove a long-double value's
 * rounding is insensitive to its error. */
long double ref_midpoint_distance(const ref_fmt *r, long double x, long double *quantum);

#endif
