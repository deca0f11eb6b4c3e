// rtl/tb/tb_sched.cpp — the scheduler's threat sort and stage-1 margin test (rtl/lamp_sched.sv)
// against hw/lamp: lslamp_threats + lslamp_sort_threats at n_k = 4 and 8, lslamp_stage1_pass at the
// engine's delta. Inputs are drawn so that ties (equal threats, equal margins), masked sub-blocks
// and queries, first tiles (mu = -inf), NaN codes and margins at the boundary all occur; named
// cases first.
#include "Vlamp_sched_sort_nk4.h"
#include "Vlamp_sched_sort_nk8.h"
#include "Vlamp_stage1_test_lp.h"
#include "tb_common.h"
#include "verilated.h"

#include <vector>

template <class W> static void setb(W &w, int pos, int n, uint32_t v)
{
    for (int b = 0; b < n; b++) {
        uint32_t &word = w[(pos + b) / 32];
        uint32_t bit = 1u << ((pos + b) % 32);
        word = (v >> b & 1u) ? (word | bit) : (word & ~bit);
    }
}

struct row_inputs {
    std::vector<uint32_t> m, mu;          // codes
    std::vector<bool> mninf, muninf;
};

// Codes near each other (ties and boundary cases), a few extremes, NaN now and then.
static void draw(tb::rng &r, const lslamp_cfg &c, int nk, int bq, row_inputs &in)
{
    in.m.assign((size_t)nk * bq, 0); in.mninf.assign((size_t)nk * bq, false);
    in.mu.assign(bq, 0); in.muninf.assign(bq, false);
    int style = r.below(4);
    uint32_t base = r.below(0x70);                       // an e4m3 magnitude code
    bool first_tile = r.below(8) == 0;
    for (int j = 0; j < bq; j++) {
        float mv = lsfp_decode(&c.lp_fmt, base | (r.below(2) ? 0x80 : 0));
        uint32_t hc = lsfp_encode(&c.hp_fmt, mv);
        if (style >= 1) hc = (hc + r.below(512) - 256) & 0xFFFF;  // mu a little above or below
        if (style == 3) hc = r.below(65536);
        if (r.below(200) == 0) hc = 0x7FFF;              // NaN
        in.mu[j] = hc;
        in.muninf[j] = first_tile || r.below(64) == 0;
    }
    for (int th = 0; th < nk; th++) {
        uint32_t tb_ = style == 0 ? base : r.below(256);
        bool sub_masked = r.below(10) == 0;
        for (int j = 0; j < bq; j++) {
            uint32_t code = r.below(3) ? tb_ : r.below(256);
            if (r.below(300) == 0) code = 0x7F;          // NaN
            in.m[(size_t)th * bq + j] = code;
            in.mninf[(size_t)th * bq + j] = sub_masked || r.below(16) == 0;
        }
    }
}

template <class M> static void sort_case(tb::counter &k, M &m, const lslamp_cfg &cfg, int nk, const row_inputs &in)
{
    int bq = cfg.b_q, tw = nk > 1 ? (int)std::ceil(std::log2(nk)) : 1;
    std::vector<float> mf((size_t)nk * bq), muf(bq);
    for (int i = 0; i < nk * bq; i++) mf[i] = in.mninf[i] ? -INFINITY : lsfp_decode(&cfg.lp_fmt, in.m[i]);
    for (int j = 0; j < bq; j++) muf[j] = in.muninf[j] ? -INFINITY : lsfp_decode(&cfg.hp_fmt, in.mu[j]);
    static lslamp_cfg c2;                                // lslamp_threats reads n_k only
    c2.n_k = nk;
    double T[LSLAMP_MAX_NK];
    int order[LSLAMP_MAX_NK];
    lslamp_threats(&c2, mf.data(), muf.data(), bq, T);
    lslamp_sort_threats(nk, T, order);
    for (int i = 0; i < nk * bq; i++) { setb(m.m_code, i * 8, 8, in.m[i]); setb(m.m_ninf, i, 1, in.mninf[i]); }
    uint32_t muninf = 0;
    for (int j = 0; j < bq; j++) { setb(m.mu_code, j * 16, 16, in.mu[j]); muninf |= (uint32_t)in.muninf[j] << j; }
    m.mu_ninf = muninf;
    m.eval();
    bool ok = true;
    for (int i = 0; i < nk; i++) ok &= (int)((m.order >> (i * tw)) & ((1u << tw) - 1)) == order[i];
    k.check(ok, "n_k %d: rtl order 0x%X, C first %d (T %g, %g)", nk, (unsigned)m.order, order[0], T[0], T[1]);
}

static void stage1_case(tb::counter &k, Vlamp_stage1_test_lp &m, const lslamp_cfg &c, const row_inputs &in, int th)
{
    int bq = c.b_q;
    std::vector<float> mf(bq), muh(bq);
    for (int j = 0; j < bq; j++) {
        mf[j] = in.mninf[(size_t)th * bq + j] ? -INFINITY : lsfp_decode(&c.lp_fmt, in.m[(size_t)th * bq + j]);
        muh[j] = in.muninf[j] ? -INFINITY : lsfp_decode(&c.hp_fmt, in.mu[j]);
    }
    bool want = lslamp_stage1_pass(mf.data(), muh.data(), bq, c.delta);
    uint32_t mn = 0, un = 0;
    for (int j = 0; j < bq; j++) {
        setb(m.m_code, j * 8, 8, in.m[(size_t)th * bq + j]);
        setb(m.muh_code, j * 16, 16, in.mu[j]);
        mn |= (uint32_t)in.mninf[(size_t)th * bq + j] << j;
        un |= (uint32_t)in.muninf[j] << j;
    }
    m.m_ninf = mn; m.muh_ninf = un;
    m.eval();
    k.check((bool)m.pass == want, "stage 1 sub-block %d: rtl %d, C %d", th, (int)m.pass, (int)want);
}

// The margin boundary: for each e4m3 maximum, the HP running maxima just around m + |mu_hat| delta.
static void stage1_boundary(tb::counter &k, Vlamp_stage1_test_lp &m, const lslamp_cfg &c, uint64_t *passes)
{
    int bq = c.b_q;
    row_inputs in;
    in.m.assign((size_t)bq, 0); in.mninf.assign((size_t)bq, true); in.mu.assign(bq, 0); in.muninf.assign(bq, false);
    for (uint32_t mc = 0; mc < 256; mc++) {
        float mv = lsfp_decode(&c.lp_fmt, mc);
        if (std::isnan(mv)) continue;
        uint32_t hc = lsfp_encode(&c.hp_fmt, mv * (1.0f + (float)c.delta));
        for (int dlt = -40; dlt <= 40; dlt++) {
            in.m[0] = mc; in.mninf[0] = false;
            in.mu[0] = (hc + (uint32_t)dlt) & 0xFFFF;
            stage1_case(k, m, c, in, 0);
            *passes += m.pass;
        }
    }
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = tb::default_cfg();
    bool lng = tb::long_mode(argc, argv);
    tb::counter ks("sched sort"), k1("stage 1");
    Vlamp_sched_sort_nk4 s4;
    Vlamp_sched_sort_nk8 s8;
    Vlamp_stage1_test_lp t1;
    int bq = c.b_q;
    // named: the first tile (every T = +inf: theta order), everything masked (every T = -inf),
    // one dominant sub-block, a margin exactly at |mu_hat| delta (fails: strict)
    row_inputs in;
    in.m.assign((size_t)8 * bq, 0x38); in.mninf.assign((size_t)8 * bq, false);
    in.mu.assign(bq, 0x3800); in.muninf.assign(bq, true);
    sort_case(ks, s4, c, 4, in); sort_case(ks, s8, c, 8, in);
    in.muninf.assign(bq, false); in.mninf.assign((size_t)8 * bq, true);
    sort_case(ks, s4, c, 4, in); sort_case(ks, s8, c, 8, in);
    in.mninf.assign((size_t)8 * bq, false);
    in.m[(size_t)2 * bq + 5] = 0x50;
    sort_case(ks, s4, c, 4, in); sort_case(ks, s8, c, 8, in);
    {
        // m = 1.0, mu_hat = 1 + 2^-8 (e4m11 0x3808): mu_hat - m = 2^-8 < |mu_hat| 2^-8: fails;
        // mu_hat = 1 + 2^-7 passes
        row_inputs b;
        b.m.assign(bq, 0x38); b.mninf.assign(bq, true); b.mu.assign(bq, 0x3808); b.muninf.assign(bq, false);
        b.mninf[0] = false;
        stage1_case(k1, t1, c, b, 0);
        k1.check(!t1.pass, "named: margin 2^-8 below |mu_hat| 2^-8 must fail");
        b.mu[0] = 0x3810;
        stage1_case(k1, t1, c, b, 0);
        k1.check(t1.pass, "named: margin 2^-7 must pass");
        b.muninf[0] = true;
        stage1_case(k1, t1, c, b, 0);
        k1.check(!t1.pass, "named: mu_hat = -inf fails for a finite maximum");
        b.mninf[0] = true;
        stage1_case(k1, t1, c, b, 0);
        k1.check(t1.pass, "named: a fully masked sub-block passes");
    }
    uint64_t passes = 0;
    stage1_boundary(k1, t1, c, &passes);
    tb::rng r(0x5c4ed);
    long n = lng ? 2000000L : 30000L;
    for (long t = 0; t < n; t++) {
        draw(r, c, 8, bq, in);
        sort_case(ks, s8, c, 8, in);
        sort_case(ks, s4, c, 4, in);                  // the first four sub-blocks
        for (int th = 0; th < 2; th++) {
            stage1_case(k1, t1, c, in, th);
            passes += t1.pass;
        }
    }
    std::printf("stage 1: %llu of the sub-blocks passed\n", (unsigned long long)passes);
    int rc = ks.done(lng ? "named + 2M random rows at n_k = 4 and 8" : "named + 30k random rows at n_k = 4 and 8");
    rc |= k1.done(lng ? "named, every e4m3 maximum at the margin boundary, 4M random sub-blocks"
                      : "named, every e4m3 maximum at the margin boundary, 60k random sub-blocks");
    return rc;
}
