/* hw/fp/fp_fused.c — the K-term fused dot product (lsfp.h lsfp_fused_step): one alignment of K exact
 * products and the accumulator onto a window below the largest term, one exact integer sum, one
 * rounding. A scalar kernel: every product is exact in a double (at most 24 x 24 significand bits),
 * its scaling onto the window is a power of two, and the window sum is an integer below 2^49, so
 * each step is exact up to the truncation that defines it. */
#include "lsfp.h"
#include "fp_internal.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* The fp32 / bf16 exponent of x: floor(log2|x|) for normals, -126 for subnormals (the field's emin;
 * the significand is then below 1, as the hardware's decoder sees it). */
static inline int op_exp(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    int e = (int)((u >> 23) & 0xFFu);
    return e ? e - 127 : -126;
}

static inline double pow2(int e)   /* 2^e for -1022 <= e <= 1023 */
{
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &b, 8);
    return d;
}

float lsfp_fused_step(const lsfp_format *f, float c, const float *a, long sa, const float *b, long sb, int n,
                      int frac, unsigned *flags)
{
    double p[LSFP_FUSED_MAX_K];
    int pe[LSFP_FUSED_MAX_K];
    int finite = isfinite(c), m = INT_MIN;
    for (int i = 0; i < n; i++) {
        float x = a[i * sa], y = b[i * sb];
        finite &= isfinite(x) && isfinite(y);
        p[i] = (double)x * (double)y;          /* exact */
        pe[i] = op_exp(x) + op_exp(y);
        if (p[i] != 0.0 && pe[i] > m) m = pe[i];
    }
    if (!finite) {                             /* IEEE sum of the non-finite terms (Inf, NaN) */
        double s = c;
        for (int i = 0; i < n; i++) s += p[i];
        return lsfp_round_double(f, s, flags);
    }
    int ec = op_exp(c) > f->emin ? op_exp(c) : f->emin;
    if (c != 0.0f && ec > m) m = ec;
    if (m == INT_MIN) return lsfp_round_double(f, 0.0, flags);   /* every term zero: +0 */
    double scale = pow2(frac - m);
    int64_t s = 0;
    for (int i = 0; i < n; i++) {
        int64_t t = (int64_t)(fabs(p[i]) * scale);             /* truncation onto the window */
        s += p[i] < 0 ? -t : t;
    }
    int64_t t = (int64_t)(fabs((double)c) * scale);
    s += c < 0 ? -t : t;
    return lsfp_round_double(f, (double)s * pow2(m - frac), flags);
}

float lsfp_fused_dot(const lsfp_accum *spec, const float *a, long sa, const float *b, long sb, int n, uint64_t *above)
{
    int k = spec->fused_k;
    float acc = 0.0f;
    float ga[LSFP_FUSED_MAX_K], gb[LSFP_FUSED_MAX_K];
    for (int s = 0; s < n; s += k) {
        int len = n - s < k ? n - s : k;
        const float *pa, *pb;
        long qa = sa, qb = sb;
        if (spec->order == LSFP_ORDER_DESCENDING) {   /* the group of indices n-1-s .. n-len-s, in that order */
            for (int t = 0; t < len; t++) {
                ga[t] = a[(long)(n - 1 - s - t) * sa];
                gb[t] = b[(long)(n - 1 - s - t) * sb];
            }
            pa = ga; pb = gb; qa = qb = 1;
        } else {
            pa = a + (long)s * sa; pb = b + (long)s * sb;
        }
        unsigned fl = 0;
        acc = lsfp_fused_step(spec->fmt, acc, pa, qa, pb, qb, len, spec->fused_frac, &fl);
        *above += (fl & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) != 0;
    }
    return acc;
}
