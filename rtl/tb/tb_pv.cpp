// rtl/tb/tb_pv.cpp — LampAttention's P.V step (rtl/lamp_pv_step.sv: o + p * v into fp32, p a ue5m3 or
// ue5m11 exponential, v bf16) against the engine's own update, hw/fp lsfp_pv_update_f32 (d = 1, lambda 1),
// bit for bit, NaN results by NaN-ness (the C model keeps a payload, the RTL gives 0x7FC00000):
//  - every exponential code (256 LP, 65,536 HP) against random v and o, the o drawn near the product
//    (cancellation), far above and below it, and from all codes (specials, subnormals);
//  - products below fp32's smallest subnormal (rounded first, as the C model's multiply);
//  - the alignment window's edge (products with few significand bits over a much smaller o);
//  - named corners (p = 0 skipped, Inf - Inf, overflow, x + -x = +0).
// Where the product is exact and the sum fits a double, the C model must equal the exact sum rounded
// once to fp32 (an independent check of the C model itself).
#include "Vlamp_pv_step_hp.h"
#include "Vlamp_pv_step_lp.h"
#include "tb_common.h"
#include "verilated.h"

static float bits_f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

// The exact o + p * v as a double when the product and the sum are exact in one (else NAN).
static double exact_or_nan(double e, float v, float o)
{
    double p = e * (double)v;   // <= 12 x 8 significand bits: exact in a double
    if (!std::isfinite(p) || !std::isfinite(o) || p == 0.0) return NAN;
    if ((double)(float)p != p) return NAN;            // the product itself rounds in fp32
    if (o == 0.0f) return p;
    int eo, ep;
    (void)std::frexp((double)o, &eo);
    (void)std::frexp(p, &ep);
    int hi = std::max(eo, ep), lo = std::min(eo - 24, ep - 20);
    if (hi - lo > 52) return NAN;
    return (double)o + p;
}

template <class M> struct dut {
    M m;
    const lsfp_format *x;   // the exponential format
    tb::counter &k;
    uint64_t exact = 0, nans = 0;
    dut(const lsfp_format *f, tb::counter &kk) : x(f), k(kk) {}
    void run(uint32_t p, uint16_t vb, uint32_t o)
    {
        m.o = o; m.p = p; m.v = vb;
        m.eval();
        double e = (double)lsfp_decode(x, p);
        float v = bits_f((uint32_t)vb << 16), out = bits_f(o);
        lsfp_pv_update_f32(&out, 1, 1.0f, &e, 1, 1, &v, 1);
        uint32_t want = f_bits(out), got = m.res;
        // p = 0: no step (the C model skips the key; its lambda multiply may quiet a NaN o, the lane does not)
        bool ok = e == 0.0 ? got == o : std::isnan(out) ? (got == 0x7FC00000u) : got == want;
        nans += std::isnan(out);
        k.check(ok, "%s p %04x v %04x o %08x: rtl %08x, C %08x", x->name, p, vb, o, got, want);
        double s = exact_or_nan(e, v, bits_f(o));
        if (!std::isnan(s)) {
            exact++;
            uint32_t sr = f_bits((float)s);
            if (s == 0.0) sr = want & 0x80000000u ? 0x80000000u : 0u;   // zero signs: IEEE's rule, checked by name
            k.check(sr == want, "%s p %04x v %04x o %08x: C %08x, exact sum rounded %08x", x->name, p, vb, o, want, sr);
        }
    }
};

// an fp32 near x: x's bits moved by a few ulps, sign flipped half the time (cancellation)
static uint32_t near_of(tb::rng &r, float x)
{
    uint32_t b = f_bits(x) + (uint32_t)r.below(9) - 4u;
    return r.below(2) ? b ^ 0x80000000u : b;
}

template <class D> static void sweep(D &d, tb::rng &r, uint32_t ncodes, int per_code)
{
    for (uint32_t p = 0; p < ncodes; p++) {
        for (int i = 0; i < per_code; i++) {
            uint16_t v = (uint16_t)r.below(1u << 16);
            if (i % 4 != 3) v = (uint16_t)((v & 0x807F) | ((100 + r.below(56)) << 7));   // ordinary magnitudes
            float prod = (float)((double)lsfp_decode(d.x, p) * (double)bits_f((uint32_t)v << 16));
            uint32_t o;
            switch (i % 5) {
            case 0: o = near_of(r, prod); break;                                                  // cancellation
            case 1: o = f_bits(prod * std::ldexp(1.0f, (int)r.below(60) - 30)) ^ (r.below(2) << 31); break;
            case 2: o = f_bits(prod * std::ldexp(1.0f, 24 + (int)r.below(8))) ^ (r.below(2) << 31); break;   // o far above
            case 3: o = (uint32_t)r.next(); break;                                                // any code
            default: o = f_bits(prod * std::ldexp(1.0f, -(int)r.below(30))) ^ (r.below(2) << 31); break;
            }
            d.run(p, v, o);
        }
    }
}

template <class D> static void underflow(D &d, tb::rng &r, uint32_t ncodes, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t p = r.below(ncodes);
        uint16_t v = (uint16_t)((r.below(2) << 15) | (r.below(12) << 7) | r.below(128));   // tiny and subnormal bf16
        uint32_t o = i % 2 ? (uint32_t)r.below(1u << 24) | (r.below(2) << 31) : (uint32_t)r.next();
        d.run(p, v, o);
    }
}

// the window's edge: a product with few significand bits (subnormal exponential, v a power of two) above an
// o of opposite sign 2^20..2^34 smaller, every bit of o set (cancellation exposes the jammed bits)
template <class D> static void window_edge(D &d, tb::rng &r, uint32_t frac_bits, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t p = 1u + r.below((1u << frac_bits) - 1u);                     // exponent field 0
        uint16_t v = (uint16_t)((r.below(2) << 15) | ((60 + r.below(100)) << 7) | (r.below(4) ? 0 : r.below(128)));
        float prod = (float)((double)lsfp_decode(d.x, p) * (double)bits_f((uint32_t)v << 16));
        float o = -prod * std::ldexp(1.0f, -20 - (int)r.below(15));
        uint32_t ob = (f_bits(o) & 0xFF800000u) | (r.below(2) ? 0x7FFFFFu : (uint32_t)r.below(1u << 23));
        d.run(p, v, ob);
    }
}

template <class D> static void named(D &d, uint32_t one)
{
    const uint16_t v1 = 0x3F80, vm1 = 0xBF80, vinf = 0x7F80, vnan = 0x7FC1, vmax = 0x7F7F;
    d.run(0, vnan, 0x3F800000u);        // p = 0: skipped, even for a NaN v
    d.run(0, v1, 0x80000000u);          // p = 0 keeps -0
    d.run(one, vm1, 0x3F800000u);       // 1 - 1 = +0
    d.run(one, vm1, 0x80000000u);       // -0 + -1
    d.run(one, v1, 0xFF800000u);        // -Inf + 1
    d.run(one, vinf, 0xFF800000u);      // -Inf + Inf = NaN
    d.run(one, vinf, 0x3F800000u);      // Inf
    d.run(one, vnan, 0x3F800000u);      // NaN
    d.run(one, v1, 0x7FC00001u);        // NaN o
    d.run(one, vmax, 0x7F7FFFFFu);      // overflow to Inf
    d.run(one, 0x0001, 0x00000000u);    // the smallest bf16 subnormal: 2^-133 exact
    d.run(1, 0x0001, 0x00000000u);      // far below fp32's smallest subnormal: +0
    d.run(1, 0x8001, 0x00000000u);      // its negative: +0 + -0 = +0
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = tb::default_cfg();
    const lsfp_format *lx = &c.lp_x, *hx = &c.hp_x;
    for (const lsfp_format *f : {lx, hx})
        if (f->ebits != 5 || f->bias != 31 || f->special != LSFP_SPECIAL_FINITE || f->is_signed) {
            std::fprintf(stderr, "pv: exponential format %s is not the RTL's (unsigned, 5 exponent bits, bias 31, finite)\n",
                         f->name);
            return 1;
        }
    if (lx->mbits != 3 || hx->mbits != 11) {
        std::fprintf(stderr, "pv: exponential formats %s / %s: the RTL lanes are ue5m3 and ue5m11\n", lx->name, hx->name);
        return 1;
    }
    bool lng = tb::long_mode(argc, argv);
    tb::counter k("pv step");
    tb::rng r(0x9E3779B97F4A7C15ull);
    dut<Vlamp_pv_step_lp> lp(lx, k);
    dut<Vlamp_pv_step_hp> hp(hx, k);
    named(lp, tb::encode(lx, 1.0));
    named(hp, tb::encode(hx, 1.0));
    sweep(lp, r, 256, lng ? 100000 : 4000);
    sweep(hp, r, 1u << 16, lng ? 1000 : 32);
    window_edge(lp, r, 3, lng ? 2000000 : 200000);
    window_edge(hp, r, 11, lng ? 2000000 : 200000);
    underflow(lp, r, 256, lng ? 20000000 : 400000);
    underflow(hp, r, 1u << 16, lng ? 20000000 : 400000);
    std::printf("pv step: %llu cases exact in a double (checked against the exact sum), %llu NaN results\n",
                (unsigned long long)(lp.exact + hp.exact), (unsigned long long)(lp.nans + hp.nans));
    if (lp.exact < 1000 || hp.exact < 1000) {
        std::fprintf(stderr, "pv: too few exactly checkable cases (%llu / %llu)\n", (unsigned long long)lp.exact,
                     (unsigned long long)hp.exact);
        return 1;
    }
    return k.done(lng ? "long" : "quick");
}
