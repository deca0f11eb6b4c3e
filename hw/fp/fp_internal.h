/* Private helpers shared by the fp library's translation units. */
#ifndef LAMPSIM_HW_FP_INTERNAL_H
#define LAMPSIM_HW_FP_INTERNAL_H
#include "lsfp.h"

/* Round a double with an explicit mode (stochastic needs rng). */
float lsfp_round_mode(const lsfp_format *f, double x, lsfp_rounding mode, lsfp_rng *rng, unsigned *flags);

/* The exact value a*b + c rounded to odd at double precision: a later RNE or RTZ rounding to any
 * format with at most 51 significand bits is then the correct rounding of the exact value
 * (round-to-odd followed by rounding is innocuous with two spare bits). */
double lsfp_fma_round_odd(float a, float b, float c);

/* A whole dot product in the fused form (spec->fused_k >= 1), from +0, groups of fused_k products in
 * spec->order; adds the roundings above max finite to *above. */
float lsfp_fused_dot(const lsfp_accum *spec, const float *a, long sa, const float *b, long sb, int n, uint64_t *above);
#endif
