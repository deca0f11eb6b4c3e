// rtl/tb/tb_lut.cpp — the LUT exponential (rtl/lamp_lut_exp.sv, generated default wrapper) and the
// HP shift code against hw/fp and hw/lamp:
//  - the ROM: every index code against the engine's table (cfg.lut.code);
//  - every (running max, logit) pair of e4m3 codes, masked and unmasked, against the C chain
//    (fp32 difference -> lsfp_round_array to ue5m3-S -> lsfp_exp_lut_apply) and against
//    lslamp_exps itself (the engine's step 5, LP sub-block);
//  - the HP shift code of e4m11 pairs against lslamp_hp_shift_code: every logit against a set of
//    running maxima and random pairs (quick), every one of the 2^32 pairs (long).
#include "Vlamp_lut_exp_lp.h"
#include "Vlamp_lut_rom.h"
#include "Vlamp_shift_hp.h"
#include "tb_common.h"
#include "verilated.h"

#include <vector>

static int check_rom(const lslamp_cfg &c)
{
    tb::counter k("lut rom");
    Vlamp_lut_rom rom;
    for (uint32_t i = 0; i < c.lut.n; i++) {
        rom.idx = i;
        rom.eval();
        k.check(rom.code == c.lut.code[i], "index 0x%02X: rtl 0x%02X, C 0x%02X", i, rom.code, c.lut.code[i]);
    }
    return k.done("every index code");
}

// The C chain of the LP exponential for one pair, as lslamp_exps runs it on its hot path.
struct lp_ref { bool nan, neg; uint32_t idx, e; };
static lp_ref lp_chain(const lslamp_cfg &c, float mu, float y)
{
    lp_ref r = { false, false, 0, 0 };
    float s = mu - y, sr;
    lsfp_events junk;
    std::memset(&junk, 0, sizeof junk);
    lsfp_round_array(&c.lp_s, &s, &sr, 1, &junk);
    double e;
    lsfp_exp_lut_apply(&c.lut, &sr, &y, &e, 1);
    r.nan = std::isnan(mu) || std::isnan(y);
    r.neg = !r.nan && s < 0.0f;
    if (!r.nan && !r.neg) {
        r.idx = lsfp_encode(&c.lp_s, sr);
        r.e = tb::encode(&c.lp_x, e);
    }
    return r;
}

static int check_lp_pairs(const lslamp_cfg &c)
{
    tb::counter k("lut exp");
    Vlamp_lut_exp_lp m;
    const lsfp_format *a = &c.lp_fmt;
    uint32_t n = 1u << a->nbits;
    uint64_t negs = 0, nans = 0;
    for (uint32_t mu = 0; mu < n; mu++)
        for (uint32_t y = 0; y < n; y++) {
            float fm = lsfp_decode(a, mu), fy = lsfp_decode(a, y);
            lp_ref r = lp_chain(c, fm, fy);
            m.mu_code = mu; m.y_code = y; m.y_masked = 0;
            m.eval();
            negs += r.neg; nans += r.nan;
            bool ok = m.nan == r.nan && m.neg == r.neg && (r.nan || r.neg || (m.idx == r.idx && m.e_code == r.e));
            k.check(ok, "mu 0x%02X y 0x%02X: rtl idx 0x%02X e 0x%02X nan %d neg %d; C idx 0x%02X e 0x%02X nan %d neg %d",
                    mu, y, m.idx, m.e_code, m.nan, m.neg, r.idx, r.e, r.nan, r.neg);
            m.y_masked = 1;   // a masked logit: exponential 0 whatever the codes
            m.eval();
            k.check(m.e_code == 0 && !m.nan && !m.neg, "masked mu 0x%02X y 0x%02X: e 0x%02X", mu, y, m.e_code);
        }
    std::printf("lut exp: %llu negative shifts (off-LUT path), %llu NaN pairs among the pairs\n",
                (unsigned long long)negs, (unsigned long long)nans);
    return k.done("every e4m3 (mu, y) pair, unmasked and masked, against the C chain");
}

// Step 5 of the engine (lslamp_exps, LP) on sub-blocks holding every pair: columns are running
// maxima, rows logits; the RTL must give the same exponential codes, NaN and above-one cases.
static int check_lp_engine(const lslamp_cfg &c)
{
    tb::counter k("lut exp (lslamp_exps)");
    Vlamp_lut_exp_lp m;
    const lsfp_format *a = &c.lp_fmt;
    int bk = c.b_k, bq = c.b_q;
    uint32_t n = 1u << a->nbits;
    std::vector<float> Y((size_t)bk * bq), mu(bq), scratch((size_t)2 * c.bc * bq);
    std::vector<double> E((size_t)bk * bq);
    for (uint32_t m0 = 0; m0 < n; m0 += bq)
        for (uint32_t y0 = 0; y0 < n; y0 += bk) {
            for (int j = 0; j < bq; j++) mu[j] = lsfp_decode(a, (m0 + j) % n);
            for (int i = 0; i < bk; i++)
                for (int j = 0; j < bq; j++) Y[(size_t)i * bq + j] = lsfp_decode(a, (y0 + i) % n);
            lslamp_events ev;
            std::memset(&ev, 0, sizeof ev);
            lslamp_exps(&c, false, Y.data(), bq, 0, bq, mu.data(), mu.data(), E.data(), scratch.data(), &ev);
            for (int i = 0; i < bk; i++)
                for (int j = 0; j < bq; j++) {
                    uint32_t muc = (m0 + j) % n, yc = (y0 + i) % n;
                    m.mu_code = muc; m.y_code = yc; m.y_masked = 0;
                    m.eval();
                    double e = E[(size_t)i * bq + j];
                    bool cnan = std::isnan(mu[j]) || std::isnan(Y[(size_t)i * bq + j]);
                    bool cneg = !cnan && mu[j] - Y[(size_t)i * bq + j] < 0.0f;
                    bool ok;
                    if (cnan) ok = m.nan && std::isnan(e);
                    else if (cneg) ok = m.neg && e >= 1.0;  // the engine computes it off the LUT: at least one
                    else ok = !m.nan && !m.neg && m.e_code == tb::encode(&c.lp_x, e);
                    k.check(ok, "mu 0x%02X y 0x%02X: rtl e 0x%02X nan %d neg %d, engine %.9g", muc, yc, m.e_code, m.nan,
                            m.neg, e);
                }
        }
    return k.done("every e4m3 pair through lslamp_exps");
}

// Decoded e4m11 values, once (the exhaustive run decodes 2^33 codes otherwise).
static const std::vector<float> &hp_values(const lslamp_cfg &c)
{
    static std::vector<float> v;
    if (v.empty())
        for (uint32_t i = 0; i < (1u << c.hp_fmt.nbits); i++) v.push_back(lsfp_decode(&c.hp_fmt, i));
    return v;
}

static void hp_case(tb::counter &k, Vlamp_shift_hp &m, const lslamp_cfg &c, uint32_t mu, uint32_t y)
{
    const std::vector<float> &hv = hp_values(c);
    float fm = hv[mu], fy = hv[y];
    m.mu_code = mu; m.y_code = y; m.y_masked = 0;
    m.eval();
    bool cnan = std::isnan(fm) || std::isnan(fy);
    double d = (double)fm - (double)fy;
    bool cneg = !cnan && d < 0;
    bool ok = m.nan == cnan && m.neg == cneg;
    if (ok && !cnan && !cneg) ok = m.idx == lslamp_hp_shift_code(&c, d);
    k.check(ok, "hp mu 0x%04X y 0x%04X: rtl idx 0x%04X nan %d neg %d; C idx 0x%04X", mu, y, m.idx, m.nan, m.neg,
            (!cnan && !cneg) ? lslamp_hp_shift_code(&c, d) : 0u);
}

static int check_hp(const lslamp_cfg &c, bool exhaustive)
{
    tb::counter k("hp shift");
    Vlamp_shift_hp m;
    uint32_t n = 1u << c.hp_fmt.nbits;
    if (exhaustive) {
        for (uint64_t mu = 0; mu < n; mu++)
            for (uint32_t y = 0; y < n; y++) hp_case(k, m, c, (uint32_t)mu, y);
        return k.done("every e4m11 (mu, y) pair");
    }
    // named running maxima: zero, the smallest subnormal and normal, one, the largest, NaN, negatives
    const uint32_t named[] = { 0x0000, 0x0001, 0x0800, 0x3800, 0x3801, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xB800, 0xFFFE };
    for (uint32_t mu : named)
        for (uint32_t y = 0; y < n; y++) hp_case(k, m, c, mu, y);
    tb::rng r(29);
    for (int t = 0; t < 2000000; t++) hp_case(k, m, c, r.below(n), r.below(n));
    return k.done("every e4m11 logit against 11 named maxima, 2M random pairs");
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = tb::default_cfg();
    bool lng = tb::long_mode(argc, argv);
    int rc = 0;
    rc |= check_rom(c);
    rc |= check_lp_pairs(c);
    rc |= check_lp_engine(c);
    rc |= check_hp(c, lng);
    return rc;
}
