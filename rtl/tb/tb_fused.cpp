// rtl/tb/tb_fused.cpp — the K-term fused LP dot product (rtl/lamp_dot_fused.sv, K = 4, window 16
// bits, e4m3 saturating RNE: the engine's lp_acc under algorithm.lp_datapath: fused) against hw/fp:
//  - named steps: one rounding per group, the window's truncation, cancellation to +0, Inf and NaN;
//  - every accumulator code x bf16 operand a in lane 0 (every code in the long run, every 16th in the
//    quick one) with random partners and random products in the other lanes;
//  - every accumulator code x random groups (bf16 codes with spread exponents, exact cancellations,
//    a few specials), the step's code and event against lsfp_fused_step;
//  - whole dot products: the lane over d = 128 against lsfp_logit_tile with the engine's lp_acc
//    (values and saturation events) on bf16 keys and unscaled bf16 queries (scale_point: post).
// Every step also drives lamp_fused_step_lp, the generated wrapper (the schema's lp_fused_k and LP format)
// that scripts/rtl_synth.sh and scripts/rtl_energy.py cost, which must give the same code and event.
#include "Vlamp_dot_fused.h"
#include "Vlamp_fused_step.h"
#include "Vlamp_fused_step_lp.h"
#include "tb_common.h"
#include "verilated.h"

static float bits_f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static float bf16_f(uint32_t h) { return bits_f(h << 16); }
static uint32_t f_bf16(float x)
{
    float r = lsfp_round(lsfp_named_format(LSFP_BF16), x, nullptr, nullptr);
    uint32_t u;
    std::memcpy(&u, &r, 4);
    return u >> 16;
}

enum { K = 4 };

static const lslamp_cfg &fused_cfg()
{
    static lslamp_cfg c;
    static bool done = false;
    if (!done) {
        tb::build_cfg(&c, [](ls_engine_params *p) {
            p->lp_datapath = LSLAMP_LP_FUSED;
            p->scale_point = LSLAMP_SCALE_POST;
        });
        done = true;
    }
    return c;
}

struct step_tb {
    Vlamp_fused_step m;
    Vlamp_fused_step_lp w;
    const lsfp_format *f;
    tb::counter &k;
    step_tb(const lsfp_format *ff, tb::counter &kk) : f(ff), k(kk) {}
    // acc: a code; a, b: K bf16 codes each
    bool run(uint32_t acc, const uint32_t *a, const uint32_t *b)
    {
        float fa[K], fb[K];
        uint64_t pa = 0, pb = 0;
        for (int i = 0; i < K; i++) {
            fa[i] = bf16_f(a[i]);
            fb[i] = bf16_f(b[i]);
            pa |= (uint64_t)a[i] << (16 * i);
            pb |= (uint64_t)b[i] << (16 * i);
        }
        unsigned fl = 0;
        float r = lsfp_fused_step(f, lsfp_decode(f, acc), fa, 1, fb, 1, K, LSFP_FUSED_FRAC, &fl);
        uint32_t want = lsfp_encode(f, r);
        bool wovf = (fl & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) != 0;
        m.acc = acc; m.a = pa; m.b = pb;
        m.eval();
        w.acc = acc; w.a = pa; w.b = pb;
        w.eval();
        return k.check(m.res == want && (bool)m.ovf == wovf && w.res == m.res && w.ovf == m.ovf,
                       "acc 0x%02x a %04x %04x %04x %04x b %04x %04x %04x %04x: rtl 0x%02x/%d (wrapper 0x%02x/%d), C 0x%02x/%d",
                       acc, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], (unsigned)m.res, (int)m.ovf, (unsigned)w.res,
                       (int)w.ovf, want, (int)wovf);
    }
};

// A bf16 code of a value around 2^(e) with e spread over +-spread, random sign.
static uint32_t rand_bf16(tb::rng &g, int spread)
{
    int e = 127 + (int)g.below(2 * spread + 1) - spread;
    return (uint32_t)(g.below(2) << 15) | (uint32_t)e << 7 | g.below(128);
}

static int check_named(const lsfp_format *f)
{
    tb::counter k("fused step named");
    step_tb t(f, k);
    auto h = [](float x) { return f_bf16(x); };
    uint32_t one = h(1.0f);
    { uint32_t a[K] = {h(0.0625f), h(0.0625f), h(0.0625f), h(0.0625f)}, b[K] = {one, one, one, one};
      t.run(lsfp_encode(f, 1.0f), a, b);                       // 1.25: one rounding for the group
      t.m.acc = lsfp_encode(f, 1.0f); t.m.eval();
      k.check(t.m.res == lsfp_encode(f, 1.25f), "1 + 4/16 gave 0x%02x", (unsigned)t.m.res); }
    { uint32_t a[K] = {h(3.0f), h(-3.0f), 0, 0x8000}, b[K] = {one, one, one, one};
      t.run(0x80, a, b); k.check(t.m.res == 0, "cancellation gave 0x%02x, not +0", (unsigned)t.m.res); }
    { uint32_t a[K] = {h(256.0f), h(256.0f), 0, 0}, b[K] = {one, one, 0, 0};
      t.run(lsfp_encode(f, 448.0f), a, b); k.check(t.m.ovf, "saturation not flagged"); }
    { uint32_t a[K] = {0x7F80, 0, 0, 0}, b[K] = {one, 0, 0, 0}; t.run(0, a, b); }           // +Inf
    { uint32_t a[K] = {0x7F80, 0xFF80, 0, 0}, b[K] = {one, one, 0, 0}; t.run(0, a, b); }    // Inf - Inf
    { uint32_t a[K] = {0x7F80, 0, 0, 0}, b[K] = {0, 0, 0, 0}; t.run(0, a, b); }             // Inf x 0
    { uint32_t a[K] = {0x7FC1, one, 0, 0}, b[K] = {one, one, 0, 0}; t.run(0, a, b); }       // NaN
    { uint32_t a[K] = {one, 0, 0, 0}, b[K] = {one, 0, 0, 0}; t.run(0x7F, a, b); }           // NaN accumulator
    { uint32_t a[K] = {0x0001, 0x0080, 0x8001, 0}, b[K] = {0x7F00, 0x3F80, 0x7E80, 0}; t.run(0x01, a, b); } // subnormals
    return k.done("named cases");
}

static int check_exhaustive_a(const lsfp_format *f, bool lng)
{
    tb::counter k("fused step acc x a");
    step_tb t(f, k);
    tb::rng g(91);
    uint32_t stride = lng ? 1 : 16;
    for (uint32_t acc = 0; acc < 256; acc++)
        for (uint32_t ac = 0; ac < 65536; ac += stride) {
            uint32_t a[K] = {ac, rand_bf16(g, 6), rand_bf16(g, 6), rand_bf16(g, 6)};
            uint32_t b[K] = {rand_bf16(g, 10), rand_bf16(g, 6), rand_bf16(g, 6), rand_bf16(g, 6)};
            if (g.below(4) == 0) a[1] = a[2] = a[3] = 0;       // lane 0 alone against the accumulator
            t.run(acc, a, b);
        }
    return k.done(lng ? "every accumulator x every bf16 a" : "every accumulator x every 16th bf16 a");
}

static int check_random(const lsfp_format *f, bool lng)
{
    tb::counter k("fused step random");
    step_tb t(f, k);
    tb::rng g(92);
    int per = lng ? 40000 : 1000;
    for (uint32_t acc = 0; acc < 256; acc++)
        for (int it = 0; it < per; it++) {
            int spread = 1 + (int)g.below(14);
            uint32_t a[K], b[K];
            for (int i = 0; i < K; i++) {
                a[i] = g.below(50) == 0 ? g.below(65536) : rand_bf16(g, spread);
                b[i] = g.below(50) == 0 ? g.below(65536) : rand_bf16(g, spread);
                if (i > 0 && g.below(5) == 0) { a[i] = a[i - 1] ^ 0x8000; b[i] = b[i - 1]; }   // exact cancellation
            }
            t.run(acc, a, b);
        }
    return k.done("random groups");
}

static int check_tiles(const lslamp_cfg &c, bool lng)
{
    tb::counter k("fused lane tiles");
    Vlamp_dot_fused m;
    tb::rng g(93);
    enum { D = 128, NK = 16, NQ = 32 };
    static float Kf[NK * D], Qt[D * NQ], Y[NK * NQ];
    static uint32_t Kc[NK * D], Qc[D * NQ];
    int reps = lng ? 64 : 4;
    uint64_t sat = 0;
    for (int rep = 0; rep < reps; rep++) {
        double sk = 1.0 + (rep % 4) * 8.0;   // larger logits (std up to 25 x sqrt(128)): saturation
        for (int i = 0; i < NK * D; i++) {
            double u1 = (g.next() >> 11) * 0x1p-53 + 1e-300, u2 = (g.next() >> 11) * 0x1p-53;
            Kc[i] = f_bf16((float)(sk * std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2)));
            Kf[i] = bf16_f(Kc[i]);
        }
        for (int i = 0; i < D * NQ; i++) {
            double u1 = (g.next() >> 11) * 0x1p-53 + 1e-300, u2 = (g.next() >> 11) * 0x1p-53;
            Qc[i] = f_bf16((float)(std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2)));
            Qt[i] = bf16_f(Qc[i]);
        }
        lsfp_events ev;
        std::memset(&ev, 0, sizeof ev);
        lsfp_logit_tile(&c.lp_acc, Kf, D, Qt, NQ, NK, NQ, D, Y, NQ, &ev);
        uint64_t rtl_events = 0;
        for (int i = 0; i < NK; i++)
            for (int j = 0; j < NQ; j++) {
                m.clear = 1; m.en = 0; m.clk = 0; m.eval(); m.clk = 1; m.eval();
                m.clear = 0; m.en = 1;
                for (int t0 = 0; t0 < D; t0 += K) {
                    uint64_t pa = 0, pb = 0;
                    for (int q = 0; q < K; q++) {
                        pa |= (uint64_t)Kc[i * D + t0 + q] << (16 * q);
                        pb |= (uint64_t)Qc[(t0 + q) * NQ + j] << (16 * q);
                    }
                    m.a = pa; m.b = pb;
                    m.clk = 0; m.eval(); m.clk = 1; m.eval();
                }
                uint32_t want = lsfp_encode(&c.lp_fmt, Y[i * NQ + j]);
                k.check(m.acc == want, "tile %d key %d query %d: rtl 0x%02x, C 0x%02x", rep, i, j, (unsigned)m.acc, want);
                rtl_events += m.events;
            }
        k.check(rtl_events == ev.saturations + ev.overflows, "tile %d: rtl %llu events, C %llu", rep,
                (unsigned long long)rtl_events, (unsigned long long)(ev.saturations + ev.overflows));
        sat += rtl_events;
    }
    std::printf("fused lane tiles: %llu saturating groups among them\n", (unsigned long long)sat);
    return k.done("d = 128 dot products");
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = fused_cfg();
    bool lng = tb::long_mode(argc, argv);
    // the RTL's parameters are the engine's: K = lp_fused_k, F = LSFP_FUSED_FRAC, e4m3 saturating RNE
    if (c.lp_acc.fused_k != K || c.lp_acc.fused_frac != 16 || c.lp_fmt.ebits != 4 || c.lp_fmt.mbits != 3 ||
        c.lp_fmt.overflow != LSFP_OVF_SATURATE || c.lp_fmt.rounding != LSFP_RND_RNE) {
        std::fprintf(stderr, "the engine's fused LP datapath no longer matches the RTL's parameters\n");
        return 1;
    }
    int rc = 0;
    rc |= check_named(&c.lp_fmt);
    rc |= check_exhaustive_a(&c.lp_fmt, lng);
    rc |= check_random(&c.lp_fmt, lng);
    rc |= check_tiles(c, lng);
    return rc;
}
