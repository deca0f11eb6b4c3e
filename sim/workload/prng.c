#include "prng.h"

#include <math.h>

uint64_t ls_prng_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void ls_prng_stream(ls_prng *r, uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
    uint64_t st = seed;
    uint64_t h = ls_prng_splitmix64(&st);
    st = h ^ (tag * 0xD6E8FEB86659FD93ull);
    h = ls_prng_splitmix64(&st);
    st = h ^ (a * 0xA0761D6478BD642Full);
    h = ls_prng_splitmix64(&st);
    st = h ^ (b * 0xE7037ED1A0B428DBull);
    for (int i = 0; i < 4; ++i) r->s[i] = ls_prng_splitmix64(&st);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) r->s[0] = 1;
    r->have_spare = 0;
    r->spare = 0;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t ls_prng_next(ls_prng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ls_prng_uniform(ls_prng *r) { return (double)(ls_prng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

double ls_prng_normal(ls_prng *r)
{
    if (r->have_spare) {
        r->have_spare = 0;
        return r->spare;
    }
    double u, v, s;
    do {
        u = 2.0 * ls_prng_uniform(r) - 1.0;
        v = 2.0 * ls_prng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * ls_prng_det_log(s) / s);
    r->spare = v * f;
    r->have_spare = 1;
    return u * f;
}

static const double LN2_HI = 6.93147180369123816490e-01; /* high bits of ln 2, exact times small ints */
static const double LN2_LO = 1.90821492927058770002e-10;

double ls_prng_det_log(double x)
{
    if (!(x > 0)) return -HUGE_VAL;
    int e;
    double m = frexp(x, &e); /* x = m * 2^e, m in [0.5, 1) (exact) */
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e -= 1;
    }
    /* log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716 */
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double term = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2) term = 1.0 / k + s2 * term;
    double lm = 2.0 * s * term;
    return (double)e * LN2_HI + ((double)e * LN2_LO + lm);
}

double ls_prng_det_exp(double x)
{
    /* x = k ln2 + r, |r| <= ln2 / 2 */
    double kf = x * 1.44269504088896340736;
    kf = kf >= 0 ? floor(kf + 0.5) : -floor(-kf + 0.5);
    int k = (int)kf;
    double r = (x - kf * LN2_HI) - kf * LN2_LO;
    double term = 1.0, sum = 1.0;
    for (int i = 1; i <= 18; ++i) {
        term = term * r / i;
        sum += term;
    }
    return ldexp(sum, k);
}

void ls_prng_det_sincos(double x, double *s, double *c)
{
    /* reduce by 2 pi in three parts (Cody-Waite), then by pi/2 into [-pi/4, pi/4] */
    static const double PIO2_1 = 1.57079632673412561417e+00, PIO2_2 = 6.07710050630396597660e-11,
                        PIO2_3 = 2.02226624879595063154e-21;
    double kf = x * 0.63661977236758134308; /* 2/pi */
    kf = kf >= 0 ? floor(kf + 0.5) : -floor(-kf + 0.5);
    double r = ((x - kf * PIO2_1) - kf * PIO2_2) - kf * PIO2_3;
    long long q = (long long)kf;
    int quadrant = (int)(((q % 4) + 4) % 4);
    double r2 = r * r;
    double ts, tc;
    /* sin r = r (1 - r2/(2*3) (1 - r2/(4*5) (1 - ...))) */
    ts = 1.0;
    for (int i = 19; i >= 3; i -= 2) ts = 1.0 - r2 / ((double)(i - 1) * i) * ts;
    double sv = r * ts;
    /* cos r = 1 - r2/(1*2) (1 - r2/(3*4) (1 - ...)) */
    tc = 1.0;
    for (int i = 20; i >= 2; i -= 2) tc = 1.0 - r2 / ((double)(i - 1) * i) * tc;
    double cv = tc;
    switch (quadrant) {
    case 0: *s = sv; *c = cv; break;
    case 1: *s = cv; *c = -sv; break;
    case 2: *s = -sv; *c = -cv; break;
    default: *s = -cv; *c = sv; break;
    }
}
