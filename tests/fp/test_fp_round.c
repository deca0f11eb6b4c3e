/* fp_round — lsfp_round, lsfp_round_array and lsfp_round_double against the independent integer
 * reference (ref_round.c), RNE and RTZ, for e4m3, e4m11, ue5m3-S/X, ue5m11-S/X, bf16, fp16, fp32,
 * PS(mu) mu in {1,2,3,7,10,11,22,23}, both overflow policies and subnormal flushing variants.
 * Inputs: millions of seeded random fp32 bit patterns and in-range values, plus every code of the
 * 8/16-bit formats (a sample of codes per binade for the fp32-range ones) with the midpoint to the
 * next code and +-1/2 fp32 ulps around both (ties, subnormal ties, carry into the exponent, the
 * 448/464/480 overflow boundaries), signed zeros, NaN, Inf, fp32 subnormals. Values must be bitwise
 * equal (NaN: any NaN); the SATURATED/OVERFLOW/UNDERFLOW/SUBNORMAL/NAN/INEXACT flags must match for
 * finite inputs, and the array kernel's event counters must count the reference's events. PS(mu)
 * is also checked against the spec's bit-pattern ps_round; lsfp_truncate_to against reference RTZ. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fp_test_util.h"

typedef struct { lsfp_format f; ref_fmt r; char label[64]; } variant;

static const unsigned FLAG_MASK = LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW | LSFP_FLAG_UNDERFLOW |
                                  LSFP_FLAG_SUBNORMAL | LSFP_FLAG_NAN | LSFP_FLAG_INEXACT;

static long g_val_bad, g_flag_bad, g_calls, g_val_base, g_flag_base;
static float *g_in;
static size_t g_n, g_cap;

static void push(float x)
{
    if (g_n == g_cap) { g_cap = g_cap ? 2 * g_cap : 1 << 16; g_in = realloc(g_in, g_cap * sizeof(float)); }
    g_in[g_n++] = x;
}

/* Check one input through the scalar path. */
static void one(const variant *v, float x)
{
    if (!v->f.is_signed && signbit(x)) return;   /* unsigned formats: negative inputs are out of scope */
    ref_mode md = ref_mode_of(v->f.rounding);
    unsigned fl = 0, rfl = 0;
    float a = lsfp_round(&v->f, x, NULL, &fl);
    float b = ref_round_float(&v->r, x, md, &rfl);
    g_calls++;
    if (!same_float(a, b)) {
        if (g_val_bad++ - g_val_base < 6)
            fprintf(stderr, "%s: lsfp_round(%a = %.9g) = %a (%.9g), reference %a (%.9g)\n", v->label, (double)x,
                    (double)x, (double)a, (double)a, (double)b, (double)b);
        return;
    }
    /* Saturation/overflow results are not required to also raise INEXACT. */
    unsigned mask = FLAG_MASK;
    if ((fl | rfl) & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) mask &= ~(unsigned)LSFP_FLAG_INEXACT;
    if (isfinite(x) && (fl & mask) != (rfl & mask) && g_flag_bad++ - g_flag_base < 6)
        fprintf(stderr, "%s: lsfp_round(%a) flags %#x, reference %#x\n", v->label, (double)x, fl & mask,
                rfl & mask);
    if (v->f.mbits <= 23 && v->f.ebits == 8 && v->f.bias == 127 && v->f.special == LSFP_SPECIAL_IEEE &&
        v->f.overflow == LSFP_OVF_NONSAT && v->f.rounding == LSFP_RND_RNE && v->f.subnormals) {
        float c = ref_ps_round_bits(x, v->f.mbits);  /* the PS(mu) family and fp32 */
        if (!same_float(a, c) && g_val_bad++ - g_val_base < 6)
            fprintf(stderr, "%s: lsfp_round(%a) = %a, spec ps_round %a\n", v->label, (double)x, (double)a, (double)c);
    }
}

/* The array kernel on the collected inputs vs the reference, with event counts. */
static void array_check(const variant *v)
{
    float *out = malloc(g_n * sizeof(float));
    lsfp_events ev = {0};
    unsigned orfl = lsfp_round_array(&v->f, g_in, out, g_n, &ev);
    uint64_t sat = 0, ovf = 0, unf = 0;
    unsigned ror = 0;
    long bad = 0;
    for (size_t i = 0; i < g_n; i++) {
        unsigned rfl = 0;
        float b = ref_round_float(&v->r, g_in[i], ref_mode_of(v->f.rounding), &rfl);
        if (!same_float(out[i], b) && bad++ < 5)
            fprintf(stderr, "%s: round_array[%zu](%a) = %a, reference %a\n", v->label, i, (double)g_in[i],
                    (double)out[i], (double)b);
        if (isfinite(g_in[i])) {
            ror |= rfl;
            sat += (rfl & LSFP_FLAG_SATURATED) != 0;
            ovf += (rfl & LSFP_FLAG_OVERFLOW) != 0;
            unf += (rfl & LSFP_FLAG_UNDERFLOW) != 0;
        }
    }
    CHECK_MSG(bad == 0, "%s: %ld array-kernel mismatches", v->label, bad);
    /* Every finite-input event is counted (infinite inputs may add saturations/overflows). */
    CHECK_MSG(ev.underflows == unf, "%s: underflow events %llu, reference %llu", v->label,
              (unsigned long long)ev.underflows, (unsigned long long)unf);
    CHECK_MSG(ev.saturations >= sat && ev.overflows >= ovf, "%s: events sat %llu ovf %llu, reference >= %llu %llu",
              v->label, (unsigned long long)ev.saturations, (unsigned long long)ev.overflows,
              (unsigned long long)sat, (unsigned long long)ovf);
    CHECK_MSG((orfl & ror & (LSFP_FLAG_SATURATED | LSFP_FLAG_UNDERFLOW)) == (ror & (LSFP_FLAG_SATURATED | LSFP_FLAG_UNDERFLOW)),
              "%s: array flags %#x miss reference flags %#x", v->label, orfl, ror);
    free(out);
}

/* Grid neighbours: the value of the code above v's code on the magnitude axis (beyond the max:
 * max + top quantum), computed from the reference format. */
static void around_value(const variant *v, double val, double next)
{
    const double pts[] = {val, (val + next) * 0.5};
    for (int k = 0; k < 2; k++) {
        double p = pts[k];
        float x = (float)p;
        if ((double)x != p || !isfinite(x)) continue;  /* midpoint not representable (mu >= 23) */
        float cand[5] = {x, nextafterf(x, INFINITY), nextafterf(x, -INFINITY), 0, 0};
        cand[3] = nextafterf(cand[1], INFINITY);
        cand[4] = nextafterf(cand[2], -INFINITY);
        for (int c = 0; c < 5; c++) {
            push(cand[c]);
            if (v->f.is_signed) push(-cand[c]);
        }
    }
}

static void boundary_inputs(const variant *v, trng *g)
{
    const ref_fmt *r = &v->r;
    double maxf = ref_max_finite(r);
    if (r->nbits <= 16) {
        uint32_t top = r->is_signed ? (1u << (r->nbits - 1)) : (1u << r->nbits);
        for (uint32_t c = 0; c < top; c++) {
            float val = ref_decode(r, c);
            if (!isfinite(val)) continue;
            double next = (double)val == maxf ? maxf + ldexp(1.0, r->emax - r->m) : (double)ref_decode(r, c + 1);
            if (!(next > val) || isinf(next)) next = maxf + ldexp(1.0, r->emax - r->m);
            around_value(v, val, next);
        }
    } else {
        /* fp32-range: a sample of mantissas in every binade plus the subnormal range. */
        for (int e = r->emin - r->m; e <= r->emax; e++) {
            int frac_bits = e < r->emin ? 0 : r->m;
            int nsamp = 12;
            for (int s = 0; s < nsamp; s++) {
                uint64_t M;
                if (e < r->emin) M = 1;  /* subnormal codes: handled below */
                else if (s < 3) M = (uint64_t)s;
                else if (s < 6) M = ((UINT64_C(1) << frac_bits) - 1) - (uint64_t)(s - 3);
                else M = trng_next(g) & ((UINT64_C(1) << frac_bits) - 1);
                if (e < r->emin) break;
                double q = ldexp(1.0, e - r->m);
                double val = ldexp(1.0, e) + (double)M * q;
                if (val > maxf) continue;
                double next = val + q;
                around_value(v, val, next);
            }
        }
        double qs = ldexp(1.0, r->emin - r->m);
        for (int s = 0; s < 64; s++) {
            uint64_t M = s < 8 ? (uint64_t)s : s < 16 ? (UINT64_C(1) << r->m) - (uint64_t)(s - 7)
                                 : trng_next(g) & ((UINT64_C(1) << r->m) - 1);
            around_value(v, (double)M * qs, (double)(M + 1) * qs);
        }
    }
    static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX, FLT_MIN,
        FLT_TRUE_MIN, -FLT_TRUE_MIN, 0x1p-127f, 0x1.fffffcp-127f, 440.f, 447.99f, 448.f, 448.0001f, 455.99f, 456.f,
        456.0001f, 463.99f, 464.f, 464.0001f, 470.f, 479.99f, 480.f, 480.0001f, 496.f, 500.f, 511.75f, 511.875f,
        512.f, 1e6f, 1e38f, 895.f, 896.f, 928.f, 929.f, 960.f, 1023.5f, 1023.75f, 1024.f, 65504.f, 65519.99f,
        65520.f, 65536.f, 1.875f, 1.9375f, 1.999f, 2.0f, 0x1.ffep0f, 0x1.fffp0f};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        push(special[i]);
        push(-special[i]);
    }
    for (int i = 0; i < 20000; i++) push(bits_f(trng_u32(g) & 0x807FFFFFu));  /* fp32 subnormals */
}

static void run_variant(variant *v, uint64_t seed, int nrand)
{
    char err[128];
    CHECK_MSG(lsfp_format_init(&v->f, err, sizeof err) == 0, "%s: format_init: %s", v->label, err);
    ref_fmt_from(&v->r, &v->f);
    long vb = g_val_bad, fb = g_flag_bad;
    g_val_base = vb;
    g_flag_base = fb;
    trng g;
    trng_seed(&g, seed);
    g_n = 0;
    for (int i = 0; i < nrand; i++) push(bits_f(trng_u32(&g)));
    for (int i = 0; i < nrand; i++) push(rand_in_range(&g, &v->r));
    boundary_inputs(v, &g);
    for (size_t i = 0; i < g_n; i++) one(v, g_in[i]);
    if (!v->f.is_signed) {  /* keep the array check to the inputs in scope */
        size_t k = 0;
        for (size_t i = 0; i < g_n; i++) if (!signbit(g_in[i])) g_in[k++] = g_in[i];
        g_n = k;
    }
    array_check(v);
    CHECK_MSG(g_val_bad == vb, "%s: %ld value mismatches", v->label, g_val_bad - vb);
    CHECK_MSG(g_flag_bad == fb, "%s: %ld flag mismatches", v->label, g_flag_bad - fb);
}

/* lsfp_round_double vs the reference on random doubles, exact double midpoints and extremes. */
static void run_double(variant *v, uint64_t seed, int n)
{
    trng g;
    trng_seed(&g, seed);
    const ref_fmt *r = &v->r;
    ref_mode md = ref_mode_of(v->f.rounding);
    long bad = 0;
    for (int i = 0; i < n; i++) {
        double x;
        int kind = i % 4;
        if (kind == 0) x = bits_d(trng_next(&g));
        else if (kind == 1) {
            int lo = r->emin - r->m - 3, hi = r->emax + 3;
            int e = lo + (int)(trng_next(&g) % (uint64_t)(hi - lo + 1));
            x = ldexp(1.0 + (double)(trng_next(&g) >> 12) * 0x1p-52, e);
        } else {  /* midpoint of two adjacent grid values, nudged by 0, +-1 double ulp or +-2^-40 relative */
            int lo = r->emin - r->m, hi = r->emax;
            int e = lo + (int)(trng_next(&g) % (uint64_t)(hi - lo + 1));
            int q = (e < r->emin ? r->emin : e) - r->m;
            uint64_t M = trng_next(&g) & ((UINT64_C(1) << r->m) - 1);
            double val = e < r->emin ? (double)M * ldexp(1.0, q) : ldexp(1.0, e) + (double)M * ldexp(1.0, q);
            x = val + ldexp(1.0, q - 1);
            int nud = (int)(trng_next(&g) % 5);
            if (nud == 1) x = nextafter(x, INFINITY);
            if (nud == 2) x = nextafter(x, -INFINITY);
            if (nud == 3) x *= 1 + 0x1p-40;
            if (nud == 4) x *= 1 - 0x1p-40;
        }
        if (!v->f.is_signed) x = fabs(x);
        else if (kind >= 1 && (trng_next(&g) & 1)) x = -x;
        unsigned fl = 0, rfl = 0;
        float a = lsfp_round_double(&v->f, x, &fl), b = ref_round_double(r, x, md, &rfl);
        if (!same_float(a, b) && bad++ < 8)
            fprintf(stderr, "%s: lsfp_round_double(%a) = %a, reference %a\n", v->label, x, (double)a, (double)b);
    }
    CHECK_MSG(bad == 0, "%s: %ld lsfp_round_double mismatches", v->label, bad);
}

/* lsfp_truncate_to (A.3: running max narrowed toward zero) == reference RTZ inside the range, with
 * and without subnormals (a _nosub grid flushes below its smallest normal, issue #25). */
static void check_truncate(void)
{
    static const lsfp_named ids[] = {LSFP_E4M3, LSFP_E4M11};
    trng g;
    trng_seed(&g, 99);
    for (int i = 0; i < 4; i++) {
        lsfp_format nf = *lsfp_named_format(ids[i % 2]);
        if (i >= 2) {
            nf.subnormals = false;
            lsfp_format_init(&nf, NULL, 0);
        }
        const lsfp_format *f = &nf;
        ref_fmt r;
        ref_fmt_from(&r, f);
        long bad = 0;
        for (int k = 0; k < 300000; k++) {
            float x = rand_in_range(&g, &r);
            if (!(fabsf(x) <= f->max_finite)) continue;
            float a = lsfp_truncate_to(f, x), b = ref_round_float(&r, x, REF_RTZ, NULL);
            if (!same_float(a, b) && bad++ < 5)
                fprintf(stderr, "truncate_to(%s, %a) = %a, reference %a\n", f->name, (double)x, (double)a, (double)b);
        }
        CHECK_MSG(bad == 0, "%s%s: %ld lsfp_truncate_to mismatches", f->name, i >= 2 ? "/nosub" : "", bad);
    }
}

int main(void)
{
    double t0 = now_s();
    static variant vs[128];
    int nv = 0;
    static const lsfp_named named[] = {LSFP_E4M3, LSFP_E4M11, LSFP_UE5M3_S, LSFP_UE5M3_X, LSFP_UE5M11_S,
                                       LSFP_UE5M11_X, LSFP_BF16, LSFP_FP16, LSFP_FP32};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        for (int ovf = 0; ovf < 2; ovf++)
            for (int rtz = 0; rtz < 2; rtz++) {
                variant *v = &vs[nv++];
                v->f = *lsfp_named_format(named[i]);
                v->f.overflow = ovf ? LSFP_OVF_NONSAT : LSFP_OVF_SATURATE;
                v->f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
                snprintf(v->label, sizeof v->label, "%.20s/%s/%s", lsfp_named_format(named[i])->name, ovf ? "nonsat" : "sat", rtz ? "rtz" : "rne");
            }
    static const int mus[] = {1, 2, 3, 7, 10, 11, 22, 23};
    for (size_t i = 0; i < sizeof mus / sizeof mus[0]; i++)
        for (int rtz = 0; rtz < 2; rtz++) {
            variant *v = &vs[nv++];
            lsfp_ps_format(&v->f, mus[i]);
            v->f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
            snprintf(v->label, sizeof v->label, "ps%d/%s", mus[i], rtz ? "rtz" : "rne");
        }
    /* Custom descriptors: subnormals flushed, IEEE-style e4m3 (max 240). */
    static const lsfp_named nosub[] = {LSFP_E4M3, LSFP_E4M11, LSFP_UE5M3_S, LSFP_FP16};
    for (size_t i = 0; i < sizeof nosub / sizeof nosub[0]; i++)
        for (int rtz = 0; rtz < 2; rtz++) {
            variant *v = &vs[nv++];
            v->f = *lsfp_named_format(nosub[i]);
            v->f.subnormals = false;
            v->f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
            snprintf(v->label, sizeof v->label, "%.20s/nosub/%s", lsfp_named_format(nosub[i])->name, rtz ? "rtz" : "rne");
        }
    for (int ovf = 0; ovf < 2; ovf++)
        for (int rtz = 0; rtz < 2; rtz++) {
            variant *v = &vs[nv++];
            v->f = spec_fmt("ieee_e4m3", 4, 3, 7, 1, LSFP_SPECIAL_IEEE, 1, ovf ? LSFP_OVF_NONSAT : LSFP_OVF_SATURATE);
            v->f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
            snprintf(v->label, sizeof v->label, "ieee_e4m3/%s/%s", ovf ? "nonsat" : "sat", rtz ? "rtz" : "rne");
        }
    for (int i = 0; i < nv; i++) {
        run_variant(&vs[i], 1000 + (uint64_t)i, 250000);
        run_double(&vs[i], 5000 + (uint64_t)i, 40000);
    }
    check_truncate();
    printf("fp_round: %d format variants, %ld scalar comparisons, %.2f s\n", nv, g_calls, now_s() - t0);
    free(g_in);
    CHECK_DONE();
}
