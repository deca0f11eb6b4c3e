// rtl/tb/tb_dot.cpp — the accumulating dot-product step and lane (rtl/lamp_acc_step.sv,
// rtl/lamp_dot_lane.sv, generated default wrappers) against hw/fp:
//  - named corner cases (saturation, the 464 tie, swamping, signed zeros, underflow, NaN and Inf);
//  - every e4m3 pair sum acc + x (both e4m3 codes), saturating and non-saturating;
//  - every accumulator code against bf16 addends (every bf16 code in the long run) and random
//    (acc, bf16 key, fp32 query) triples, LP and HP;
//  - whole logit tiles: the lane over d = 128 against lsfp_logit_tile with the engine's lp_acc and
//    hp_acc (the engine's step 1, its vector kernels), values and saturation events.
// The step reference is lsfp_dot on (acc, a) . (1, b), the library's accumulation kernel, and the
// exact definition lsfp_round_double(round_to_odd(a*b + acc)) beside it.
#include "Vlamp_acc_step_hp.h"
#include "Vlamp_acc_step_lp.h"
#include "Vlamp_acc_step_lp_nonsat.h"
#include "Vlamp_dot_lane_hp.h"
#include "Vlamp_dot_lane_lp.h"
#include "tb_common.h"
#include "verilated.h"

extern "C" {
#include "fp_internal.h"
}

#include <vector>

static float bits_f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static float bf16_f(uint32_t h) { return bits_f(h << 16); }

// One step acc <- round(acc + a*b) by the C library; *ovf: the step counted an event.
static float c_step(const lsfp_accum *spec, float acc, float a, float b, bool *ovf)
{
    // lsfp_dot starts from +0: the first product puts acc in exactly (a -0 accumulator comes from a
    // negative value too small to survive the rounding, which is no event)
    float va[2] = { std::signbit(acc) && acc == 0.0f ? -0x1p-100f : acc, a }, vb[2] = { 1.0f, b };
    lsfp_events ev;
    std::memset(&ev, 0, sizeof ev);
    float r = lsfp_dot(spec, va, vb, 2, &ev);
    *ovf = ev.saturations + ev.overflows != 0;
    return r;
}

template <class Step> struct stepper {
    Step m;
    const lsfp_accum *spec;
    tb::counter &k;
    stepper(const lsfp_accum *s, tb::counter &kk) : spec(s), k(kk) {}
    // Compare one step; acc is a code, a bf16 bits, b fp32 bits.
    bool run(uint32_t acc, uint32_t a, uint32_t b)
    {
        const lsfp_format *f = spec->fmt;
        float facc = lsfp_decode(f, acc), fa = bf16_f(a), fb = bits_f(b);
        bool covf;
        float r = c_step(spec, facc, fa, fb, &covf);
        unsigned fl = 0;
        float rx = std::isnan(facc) || std::isnan(fa) || std::isnan(fb) ? NAN
                   : lsfp_round_double(f, lsfp_fma_round_odd(fa, fb, facc), &fl);
        uint32_t want = lsfp_encode(f, r);
        m.acc = acc; m.a = a; m.b = b;
        m.eval();
        bool ok = m.res == want && (bool)m.ovf == covf && lsfp_encode(f, rx) == want;
        return k.check(ok, "%s acc 0x%X (%g) + bf16 0x%04X (%g) * fp32 0x%08X (%g): rtl 0x%X ovf %d, C 0x%X ovf %d", f->name,
                       acc, facc, a, fa, b, fb, (unsigned)m.res, (int)m.ovf, want, (int)covf);
    }
};

// Named corners: the C result must be the documented one and the RTL must agree.
static int check_named(const lslamp_cfg &c)
{
    tb::counter k("dot step named");
    static lsfp_accum nonsat_spec;
    static lsfp_format nonsat_fmt;
    nonsat_fmt = c.lp_fmt;
    nonsat_fmt.overflow = LSFP_OVF_NONSAT;
    nonsat_spec = c.lp_acc;
    nonsat_spec.fmt = &nonsat_fmt;
    stepper<Vlamp_acc_step_lp> lp(&c.lp_acc, k);
    stepper<Vlamp_acc_step_lp_nonsat> ns(&nonsat_spec, k);
    const uint32_t one = f_bits(1.0f);
    struct { const char *name; bool nonsat; uint32_t acc, a, b, want; bool ovf; } t[] = {
        { "448 + 16 is a tie: 448 (even), no event", false, 0x7E, 0x4180, one, 0x7E, false },
        { "448 + 32 saturates to 448, one event", false, 0x7E, 0x4200, one, 0x7E, true },
        { "-448 - 32 saturates to -448", false, 0xFE, 0xC200, one, 0xFE, true },
        { "-448 + 1024 saturates to +448", false, 0xFE, 0x4480, one, 0x7E, true },
        { "non-saturating 448 + 32 is NaN, one event", true, 0x7E, 0x4200, one, 0x7F, true },
        { "NaN operand: NaN, no event", false, 0x38, 0x7FC0, one, 0x7F, false },
        { "NaN accumulator stays NaN", false, 0xFF, 0x3F80, one, 0x7F, false },
        { "Inf x 0: NaN", false, 0x38, 0x7F80, 0, 0x7F, false },
        { "+Inf operand saturates, one event", false, 0x38, 0x7F80, one, 0x7E, true },
        { "1 + -1 = +0", false, 0x38, 0xBF80, one, 0x00, false },
        { "0 - 2^-20 rounds to -0", false, 0x00, 0xB580, one, 0x80, false },
        { "-0 + -0 = -0", false, 0x80, 0x8000, one, 0x80, false },
        { "-0 + +0 = +0", false, 0x80, 0x0000, one, 0x00, false },
        { "swamping: 16 + 1 is a tie, stays 16", false, 0x58, 0x3F80, one, 0x58, false },
        { "2^-10 is half the smallest subnormal: ties to 0", false, 0x00, 0x3A80, one, 0x00, false },
        { "3 x 2^-10 ties to 2 x 2^-9 (even)", false, 0x00, 0x3B40, one, 0x02, false },
        { "3 x 2^-11 rounds to 2^-9", false, 0x00, 0x3AC0, one, 0x01, false },
        { "bf16 subnormal 2^-133 x 2^127 = 2^-6 (min normal)", false, 0x00, 0x0001, f_bits(0x1p127f), 0x08, false },
        { "a product far below the quantum leaves acc unchanged", false, 0x38, 0x0001, one, 0x38, false },
    };
    for (auto &e : t) {
        const lsfp_accum *spec = e.nonsat ? &nonsat_spec : &c.lp_acc;
        bool covf;
        float r = c_step(spec, lsfp_decode(spec->fmt, e.acc), bf16_f(e.a), bits_f(e.b), &covf);
        k.check(lsfp_encode(spec->fmt, r) == e.want && covf == e.ovf, "C model, %s: 0x%X ovf %d", e.name,
                lsfp_encode(spec->fmt, r), (int)covf);
        if (e.nonsat) ns.run(e.acc, e.a, e.b);
        else lp.run(e.acc, e.a, e.b);
    }
    return k.done("named corner cases (C documented values, RTL against C)");
}

static int check_pairs(const lslamp_cfg &c)
{
    tb::counter k("dot step pairs");
    static lsfp_accum nonsat_spec;
    static lsfp_format nonsat_fmt;
    nonsat_fmt = c.lp_fmt;
    nonsat_fmt.overflow = LSFP_OVF_NONSAT;
    nonsat_spec = c.lp_acc;
    nonsat_spec.fmt = &nonsat_fmt;
    stepper<Vlamp_acc_step_lp> lp(&c.lp_acc, k);
    stepper<Vlamp_acc_step_lp_nonsat> ns(&nonsat_spec, k);
    const uint32_t one = f_bits(1.0f);
    for (uint32_t acc = 0; acc < 256; acc++)
        for (uint32_t x = 0; x < 256; x++) {
            uint32_t a = f_bits(lsfp_decode(&c.lp_fmt, x)) >> 16;   // every e4m3 value is a bf16
            lp.run(acc, a, one);
            ns.run(acc, a, one);
        }
    return k.done("every e4m3 pair sum, saturating and non-saturating");
}

static uint32_t rand_bf16(tb::rng &r)
{
    uint32_t u = (uint32_t)r.next();
    if (r.below(8) == 0) return u & 0xFFFF;                             // any code: NaN, Inf, subnormals
    uint32_t e = 127 - 24 + r.below(36);                                // logit-scale exponents
    return (u & 0x807F) | (e << 7);
}

static uint32_t rand_fp32(tb::rng &r)
{
    uint32_t u = (uint32_t)r.next();
    if (r.below(8) == 0) return u;
    uint32_t e = 127 - 20 + r.below(28);
    return (u & 0x807FFFFFu) | (e << 23);
}

static int check_random(const lslamp_cfg &c, bool lng)
{
    tb::counter k("dot step random");
    stepper<Vlamp_acc_step_lp> lp(&c.lp_acc, k);
    stepper<Vlamp_acc_step_hp> hp(&c.hp_acc, k);
    const uint32_t one = f_bits(1.0f);
    tb::rng r(0x29d07);
    // every accumulator code against bf16 addends: all of them in the long run
    if (lng) {
        for (uint32_t acc = 0; acc < 256; acc++)
            for (uint32_t a = 0; a < 65536; a++) lp.run(acc, a, one);
    } else {
        for (uint32_t acc = 0; acc < 256; acc++)
            for (int t = 0; t < 2048; t++) lp.run(acc, rand_bf16(r), one);
    }
    for (uint32_t acc = 0; acc < 65536; acc++)
        for (int t = 0; t < (lng ? 2048 : 24); t++) hp.run(acc, rand_bf16(r), rand_fp32(r));
    long n = lng ? 100000000L : 2000000L;
    for (long t = 0; t < n; t++) {
        lp.run(r.below(256), rand_bf16(r), rand_fp32(r));
        if (t % 2 == 0) hp.run(r.below(65536), rand_bf16(r), rand_fp32(r));
    }
    return k.done(lng ? "every LP acc x every bf16 addend; HP acc x 2048; 150M random triples"
                      : "LP acc x 2048 random addends; HP acc x 24; 3M random triples");
}

// Logit tiles as the engine computes them (lslamp_prepare_qt's fp32 pre-scaling, lsfp_logit_tile).
template <class Lane> static uint64_t tile_check(tb::counter &k, Lane &m, const lslamp_cfg &c, const lsfp_accum *spec,
                                            tb::rng &r, double gain)
{
    const int nk = 16, nq = 32, d = c.d;
    std::vector<float> K((size_t)nk * d), Qt((size_t)d * nq), Y((size_t)nk * nq);
    auto gauss = [&r]() { double s = 0; for (int i = 0; i < 12; i++) s += (double)(r.next() >> 11) * 0x1p-53; return s - 6.0; };
    for (auto &v : K) v = lsfp_round(&c.bf16, (float)(gauss() * gain), NULL, NULL);
    for (auto &v : Qt) v = lsfp_round(&c.bf16, (float)(gauss() * gain), NULL, NULL) * c.scale;
    lsfp_events ev;
    std::memset(&ev, 0, sizeof ev);
    lsfp_logit_tile(spec, K.data(), d, Qt.data(), nq, nk, nq, d, Y.data(), nq, &ev);
    uint64_t events = 0;
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < nq; j++) {
            m.clear = 1; m.en = 0; m.clk = 0; m.eval(); m.clk = 1; m.eval();
            m.clear = 0; m.en = 1;
            for (int t = 0; t < d; t++) {
                m.a = f_bits(K[(size_t)i * d + t]) >> 16;
                m.b = f_bits(Qt[(size_t)t * nq + j]);
                m.clk = 0; m.eval(); m.clk = 1; m.eval();
            }
            uint32_t want = lsfp_encode(spec->fmt, Y[(size_t)i * nq + j]);
            k.check(m.acc == want, "%s tile key %d query %d: rtl 0x%X, C 0x%X (%g)", spec->fmt->name, i, j, (unsigned)m.acc,
                    want, Y[(size_t)i * nq + j]);
            events += m.events;
        }
    k.check(events == ev.saturations + ev.overflows, "%s tile events: rtl %llu, C %llu", spec->fmt->name,
            (unsigned long long)events, (unsigned long long)(ev.saturations + ev.overflows));
    return events;
}

static int check_tiles(const lslamp_cfg &c, bool lng)
{
    tb::counter k("dot lane tiles");
    Vlamp_dot_lane_lp lp;
    Vlamp_dot_lane_hp hp;
    tb::rng r(128);
    int n = lng ? 400 : 12;
    uint64_t sat = 0;
    for (int t = 0; t < n; t++) {
        double gain = 0.5 + 39.5 * (t % 8) / 7.0;   // products up to ~100s: e4m3 saturates (swamping holds it back below)
        sat += tile_check(k, lp, c, &c.lp_acc, r, gain);
        if (t % 3 == 0) sat += tile_check(k, hp, c, &c.hp_acc, r, gain);
    }
    std::printf("dot lane tiles: %llu saturating steps among them\n", (unsigned long long)sat);
    return k.done(lng ? "400 LP + 134 HP tiles of 16 x 32 dot products, d = 128"
                      : "12 LP + 4 HP tiles of 16 x 32 dot products, d = 128");
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = tb::default_cfg();
    bool lng = tb::long_mode(argc, argv);
    int rc = 0;
    rc |= check_named(c);
    rc |= check_pairs(c);
    rc |= check_random(c, lng);
    rc |= check_tiles(c, lng);
    return rc;
}
