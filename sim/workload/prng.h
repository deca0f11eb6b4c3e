/* Deterministic random numbers for the workload generators: splitmix64 for seeding and stream
 * derivation, xoshiro256** for the stream, Marsaglia's polar method for normals with a
 * logarithm built from IEEE +,-,*,/ and sqrt only (no libm transcendental), so that every
 * machine produces the same bits. Tests pin hashes of the output. */
#ifndef LAMPSIM_WORKLOAD_PRNG_H
#define LAMPSIM_WORKLOAD_PRNG_H
#include <stddef.h>
#include <stdint.h>

typedef struct ls_prng {
    uint64_t s[4];
    int have_spare;
    double spare;
} ls_prng;

uint64_t ls_prng_splitmix64(uint64_t *state);
/* Independent stream for (seed, tag, a, b): e.g. tag = tensor id, a = batch, b = head. */
void ls_prng_stream(ls_prng *r, uint64_t seed, uint64_t tag, uint64_t a, uint64_t b);
uint64_t ls_prng_next(ls_prng *r);
/* Uniform in [0, 1) with 53 random bits. */
double ls_prng_uniform(ls_prng *r);
/* Standard normal. */
double ls_prng_normal(ls_prng *r);
/* out[0 .. n) = n successive ls_prng_normal(r), bit for bit, leaving r as they would (spare included);
 * the logarithms done several at a time. */
void ls_prng_normals(ls_prng *r, double *out, size_t n);

/* Deterministic elementary functions (double precision, errors of a few ulp; the point is that
 * they are bit-identical everywhere, not that they are correctly rounded). */
double ls_prng_det_log(double x);   /* x > 0 */
double ls_prng_det_exp(double x);   /* |x| < 700 */
void ls_prng_det_sincos(double x, double *s, double *c);
/* ls_prng_det_sincos(x[i], &s[i], &c[i]) for i < n, several at a time (same bits; x may be s). */
void ls_prng_det_sincos_n(const double *x, double *s, double *c, int n);
#endif
