// rtl/tb/tb_tcdot.cpp — the baseline tensor-core dot products (rtl/lamp_tc_dot.sv: 4-term bf16 x bf16 and
// e4m3 x e4m3 with an fp32 accumulator) against hw/fp lsfp_tc_dot, bit for bit:
//  - named corners (signed zeros, Inf, NaN, Inf x 0, Infs of both signs, overflow, subnormal results,
//    cancellation that exposes truncated bits), each also against its documented value;
//  - random operands: uniform codes (specials included), clustered exponents (full cancellation),
//    accumulators near the products and far above or below them.
// Where no term loses bits to the alignment window, the sum is exact in a double, and the C model must
// equal the double rounded once to fp32 (an independent check of the C model itself).
#include "Vlamp_tc_dot_bf16_k4.h"
#include "Vlamp_tc_dot_e4m3_k4.h"
#include "tb_common.h"
#include "verilated.h"

static const int K = 4, WINDOW = 26;   // as rtl/lamp_tc_dot.sv's wrappers and default F

static float bits_f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

// The exact sum as a double when no term loses bits (else NAN): the independent reference.
static double exact_or_nan(const lsfp_format *f, const uint32_t *a, const uint32_t *b, uint32_t c)
{
    double v[K + 1];
    for (int i = 0; i < K; i++) v[i] = (double)lsfp_decode(f, a[i]) * (double)lsfp_decode(f, b[i]);
    v[K] = (double)bits_f(c);
    int top = -100000, bottom = 100000;
    for (int i = 0; i <= K; i++) {
        if (!std::isfinite(v[i])) return NAN;
        if (v[i] == 0.0) continue;
        int ex;
        (void)std::frexp(std::fabs(v[i]), &ex);   // |v| in [2^(ex-1), 2^ex)
        int lead = ex - 1, last = lead;
        while (std::ldexp(std::fabs(v[i]), -last) != std::floor(std::ldexp(std::fabs(v[i]), -last))) last--;   // lowest set bit
        if (lead > top) top = lead;
        if (last < bottom) bottom = last;
    }
    if (top == -100000) return NAN;   // all zero: signs are the model's rule, checked by the named cases
    if (bottom < top - WINDOW || top - bottom > 52) return NAN;
    double s = 0.0;
    for (int i = 0; i <= K; i++) s += v[i];   // exact: every partial sum fits 53 bits
    return s;
}

template <class M, class W> struct dut {
    M m;
    const lsfp_format *f;
    tb::counter &k;
    uint64_t exact = 0;
    dut(const lsfp_format *ff, tb::counter &kk) : f(ff), k(kk) {}
    uint32_t run(const uint32_t *a, const uint32_t *b, uint32_t c)
    {
        W pa = 0, pb = 0;
        for (int i = 0; i < K; i++) {
            pa |= (W)a[i] << (i * f->nbits);
            pb |= (W)b[i] << (i * f->nbits);
        }
        m.a = pa; m.b = pb; m.c = c;
        m.eval();
        uint32_t want = lsfp_tc_dot(f, K, WINDOW, a, b, c);
        k.check(m.res == want, "%s a %08llx b %08llx c %08x: rtl %08x, C %08x", f->name, (unsigned long long)pa,
                (unsigned long long)pb, c, (unsigned)m.res, want);
        double x = exact_or_nan(f, a, b, c);
        if (!std::isnan(x)) {
            exact++;
            uint32_t xr = f_bits((float)x);
            if (x == 0.0) xr = want & 0x80000000u ? 0x80000000u : 0u;   // zero signs: the rule, not a double's
            k.check(xr == want, "%s a %08llx b %08llx c %08x: C %08x, exact sum rounded %08x", f->name,
                    (unsigned long long)pa, (unsigned long long)pb, c, want, xr);
        }
        return want;
    }
};

// operands of the named cases, as values in format f
static void vals(const lsfp_format *f, const double *av, const double *bv, uint32_t *a, uint32_t *b)
{
    for (int i = 0; i < K; i++) { a[i] = tb::encode(f, av[i]); b[i] = tb::encode(f, bv[i]); }
}

template <class D> static void named(D &d, tb::counter &k, bool bf16)
{
    const lsfp_format *f = d.f;
    uint32_t a[K], b[K];
    struct { double a[K], b[K]; float c; uint32_t want; const char *what; } cs[] = {
        { {1, 2, 3, 4}, {1, 1, 1, 1}, 0.5f, f_bits(10.5f), "plain sum" },
        { {0, 0, 0, 0}, {1, 1, 1, 1}, -0.0f, 0x00000000u, "+0 products with -0 accumulator: +0" },
        { {-0.0, -0.0, -0.0, -0.0}, {1, 1, 1, 1}, -0.0f, 0x80000000u, "all -0: -0" },
        { {1, -1, 2, -2}, {1, 1, 1, 1}, 0.0f, 0x00000000u, "exact cancellation: +0" },
        { {256, -256, 1, 0}, {256, 256, 0.0078125, 0}, 0.0f, f_bits(0.0078125f), "cancellation, small term kept" },
        { {1, 1, 1, 1}, {1, 1, 1, 1}, -4.0f, 0x00000000u, "accumulator cancels the products: +0" },
    };
    for (auto &x : cs) {
        vals(f, x.a, x.b, a, b);
        uint32_t r = d.run(a, b, f_bits(x.c));
        k.check(r == x.want, "%s: %s: got %08x, documented %08x", f->name, x.what, r, x.want);
    }
    // specials: NaN operand, Inf x 0, Infs of both signs, an Inf accumulator
    double one[K] = {1, 1, 1, 1};
    vals(f, one, one, a, b);
    a[2] = lsfp_nan_code(f);
    k.check(d.run(a, b, 0) == 0x7FC00000u, "%s: NaN operand", f->name);
    vals(f, one, one, a, b);
    k.check(d.run(a, b, 0x7FC00001u) == 0x7FC00000u, "%s: NaN accumulator", f->name);
    k.check(d.run(a, b, 0xFF800000u) == 0xFF800000u, "%s: -Inf accumulator", f->name);
    if (bf16) {
        a[1] = 0x7F80; b[1] = 0;                     // Inf x 0
        k.check(d.run(a, b, 0) == 0x7FC00000u, "bf16: Inf x 0");
        vals(f, one, one, a, b);
        a[1] = 0x7F80;                               // +Inf product, -Inf accumulator
        k.check(d.run(a, b, 0xFF800000u) == 0x7FC00000u, "bf16: Infs of both signs");
        k.check(d.run(a, b, 0x3F800000u) == 0x7F800000u, "bf16: +Inf product");
        // subnormal result: 2^-70 x 2^-70 = 2^-140 (fp32 subnormal), exact
        vals(f, one, one, a, b);
        for (int i = 0; i < K; i++) { a[i] = 0x1C80; b[i] = i == 0 ? 0x1C80 : 0; }   // 2^-70
        k.check(d.run(a, b, 0) == 0x00000200u, "bf16: subnormal result 2^-140");
        // truncation: 1 + 2^-30 (dropped: below the window of 26 bits) - 1 -> 0, not 2^-30
        double ta[K] = {1, 0x1p-15, -1, 0}, tbv[K] = {1, 0x1p-15, 1, 0};
        vals(f, ta, tbv, a, b);
        k.check(d.run(a, b, 0) == 0x00000000u, "bf16: a product below the window is dropped");
        double oa[K] = {0x1p100, 0, 0, 0}, ob[K] = {0x1p100, 0, 0, 0};   // 2^200: overflow to Inf
        vals(f, oa, ob, a, b);
        k.check(d.run(a, b, 0) == 0x7F800000u, "bf16: overflow to Inf");
    }
}

template <class D> static void random_cases(D &d, tb::rng &r, uint64_t n, bool bf16)
{
    const lsfp_format *f = d.f;
    uint32_t a[K], b[K], mask = (1u << f->nbits) - 1u;
    for (uint64_t t = 0; t < n; t++) {
        int mode = (int)(t % 4);
        uint32_t c;
        if (mode == 0) {                              // uniform codes: specials, subnormals, everything
            for (int i = 0; i < K; i++) { a[i] = (uint32_t)r.next() & mask; b[i] = (uint32_t)r.next() & mask; }
            c = (uint32_t)r.next();
        } else {                                      // clustered exponents: cancellation, ties, carries
            int ew = bf16 ? 6 : 3, base = bf16 ? 120 + (int)r.below(16) : 4 + (int)r.below(6);
            for (int i = 0; i < K; i++) {
                uint32_t e1 = (uint32_t)(base + (int)r.below(ew)), e2 = (uint32_t)(base + (int)r.below(ew));
                a[i] = ((uint32_t)r.below(2) << (f->nbits - 1)) | (e1 << f->mbits) | ((uint32_t)r.next() & ((1u << f->mbits) - 1));
                b[i] = ((uint32_t)r.below(2) << (f->nbits - 1)) | (e2 << f->mbits) | ((uint32_t)r.next() & ((1u << f->mbits) - 1));
            }
            // accumulator: the products' magnitude (mode 1), far above (2), far below or subnormal (3)
            float pv = 0.0f;
            for (int i = 0; i < K; i++) pv += lsfp_decode(f, a[i]) * lsfp_decode(f, b[i]);
            int sh = mode == 1 ? (int)r.below(9) - 4 : mode == 2 ? 20 + (int)r.below(12) : -(20 + (int)r.below(140));
            float cv = std::ldexp(pv == 0.0f ? 1.0f : pv, sh) * (1.0f + (float)r.below(1 << 20) * 0x1p-20f);
            c = f_bits(cv) ^ (r.below(2) ? 0x80000000u : 0u);
            if (r.below(8) == 0) c = (uint32_t)r.next() & 0x807FFFFFu;   // subnormal accumulators
        }
        d.run(a, b, c);
    }
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    bool lng = tb::long_mode(argc, argv);
    uint64_t n = lng ? 40000000ull : 400000ull;
    lsfp_format bf16, e4m3;
    if (lsfp_format_by_name("bf16", &bf16) != 0 || lsfp_format_by_name("e4m3", &e4m3) != 0) return 1;
    tb::rng r(0x7C0D07ull);
    int fails = 0;
    {
        tb::counter k("tc_dot_bf16_k4");
        dut<Vlamp_tc_dot_bf16_k4, uint64_t> d(&bf16, k);
        named(d, k, true);
        random_cases(d, r, n, true);
        std::printf("tc_dot_bf16_k4: %llu cases also against the exact double sum\n", (unsigned long long)d.exact);
        fails |= k.done("named + random against lsfp_tc_dot");
        if (d.exact < n / 8) { std::fprintf(stderr, "tc_dot_bf16_k4: too few exact cases\n"); fails = 1; }
    }
    {
        tb::counter k("tc_dot_e4m3_k4");
        dut<Vlamp_tc_dot_e4m3_k4, uint32_t> d(&e4m3, k);
        named(d, k, false);
        random_cases(d, r, n, false);
        std::printf("tc_dot_e4m3_k4: %llu cases also against the exact double sum\n", (unsigned long long)d.exact);
        fails |= k.done("named + random against lsfp_tc_dot");
        if (d.exact < n / 8) { std::fprintf(stderr, "tc_dot_e4m3_k4: too few exact cases\n"); fails = 1; }
    }
    return fails;
}
