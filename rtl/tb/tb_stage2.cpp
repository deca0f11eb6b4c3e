// rtl/tb/tb_stage2.cpp — stage 2 (rtl/lamp_stage2.sv) against hw/lamp:
//  - the float64 adder against the CPU's double addition: named cases (ties, carries into the
//    exponent, subnormals, overflow) and random non-negative pairs of every exponent distance;
//  - the subset walk against lslamp_knapsack (tiebreak lexicographic) on costs the engine's own
//    steps compute (lslamp_normaliser, lslamp_stage2_costs) from exponentials drawn as LUT codes,
//    at n_k = 4 and 8, with tau from 1 down to 2^-5 and random candidate sets; the walk must take
//    2^|cand| cycles. How often the default worst_query tie-break would choose differently is
//    printed (that rule is not in the RTL).
#include "Vlamp_f64_add_pos.h"
#include "Vlamp_stage2_select_nk4.h"
#include "Vlamp_stage2_select_nk8.h"
#include "tb_common.h"
#include "verilated.h"

#include <vector>

static uint64_t d_bits(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u; }
static double bits_d(uint64_t u) { double d; std::memcpy(&d, &u, 8); return d; }

template <class W> static void set64(W &w, int idx, uint64_t v)
{
    w[2 * idx] = (uint32_t)v;
    w[2 * idx + 1] = (uint32_t)(v >> 32);
}

static int check_adder(bool lng)
{
    tb::counter k("f64 add");
    Vlamp_f64_add_pos m;
    auto one = [&](double a, double b) {
        m.a = d_bits(a); m.b = d_bits(b);
        m.eval();
        double want = a + b;
        k.check(m.s == d_bits(want), "%a + %a: rtl %a, C %a", a, b, bits_d(m.s), want);
    };
    const double named[][2] = {
        { 0.0, 0.0 }, { 1.0, 0x1p-53 }, { 1.0 + 0x1p-52, 0x1p-53 }, { 1.0, 0x1p-53 + 0x1p-105 }, { 0x1.fffffffffffffp0, 0x1p-53 },
        { 0x1.fffffffffffffp1023, 0x1p970 }, { 0x1p-1074, 0x1p-1074 }, { 0x1p-1022 - 0x1p-1074, 0x1p-1074 },
        { 0x1.8p-1060, 0x1.8p-1070 }, { 3.0, 5.0 }, { 0x1p60, 1.0 }, { 1e300, 1e300 },
    };
    for (auto &p : named) { one(p[0], p[1]); one(p[1], p[0]); }
    tb::rng r(64);
    long n = lng ? 200000000L : 2000000L;
    for (long t = 0; t < n; t++) {
        uint64_t a = r.next() & 0x7FFFFFFFFFFFFFFFull, b;
        if (t % 4 == 0) {
            b = r.next() & 0x7FFFFFFFFFFFFFFFull;
        } else {                                       // exponents within 70 of each other: every alignment
            int64_t eb = (int64_t)((a >> 52) & 0x7FF) + (int64_t)r.below(141) - 70;
            eb = eb < 0 ? 0 : eb > 2046 ? 2046 : eb;
            b = ((uint64_t)eb << 52) | (r.next() & 0xFFFFFFFFFFFFFull);
        }
        if (((a >> 52) & 0x7FF) == 0x7FF) a &= ~(1ull << 62);   // finite operands only
        if (((b >> 52) & 0x7FF) == 0x7FF) b &= ~(1ull << 62);
        one(bits_d(a), bits_d(b));
    }
    return k.done(lng ? "named + 200M random non-negative pairs" : "named + 2M random non-negative pairs");
}

template <class M> static void walk_case(tb::counter &k, M &m, const lslamp_cfg &cfg, int nk, tb::rng &r, uint64_t *differ)
{
    static lslamp_cfg c;                       // the steps below read b_k, n_k, bc, state_fp64 only
    int bq = cfg.b_q, bk = cfg.b_k;
    c.b_k = bk; c.n_k = nk; c.bc = bk * nk; c.b_q = bq; c.state_fp64 = false;
    std::vector<double> E((size_t)c.bc * bq), xi((size_t)nk * bq), lam(bq), al(bq), oh(bq);
    std::vector<float> mu(bq), om(bq), muh(bq);
    // exponentials: LUT codes, rows peaky or flat, some all zero (omega_hat 0: no constraint)
    int style = r.below(3);
    for (int j = 0; j < bq; j++) {
        bool zero_row = r.below(20) == 0;
        for (int i = 0; i < c.bc; i++) {
            uint32_t code = style == 0 ? 0xC0 + r.below(0x39) : style == 1 ? r.below(0xF9) : (r.below(6) ? 0x80 + r.below(0x40) : 0xF8);
            E[(size_t)i * bq + j] = zero_row ? 0.0 : lsfp_decode(&cfg.lp_x, code);
        }
        mu[j] = 0.0f; muh[j] = 0.0f;           // lambda = 1
        om[j] = zero_row ? 0.0f : (float)((r.next() >> 11) * 0x1p-53 * (r.below(2) ? 4.0 : 0.0));
    }
    lslamp_state st;
    std::memset(&st, 0, sizeof st);
    st.mu = mu.data(); st.omega32 = om.data();
    lslamp_normaliser(&c, &st, muh.data(), E.data(), bq, lam.data(), al.data(), oh.data());
    lslamp_stage2_costs(&c, E.data(), oh.data(), bq, xi.data());
    const double taus[] = { 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.75, 0.0 };
    double tau = taus[r.below(8)];
    uint32_t cand = (uint32_t)r.next() & ((1u << nk) - 1u);
    if (r.below(4) == 0) cand = (1u << nk) - 1u;
    uint32_t want = lslamp_knapsack(nk, cand, xi.data(), oh.data(), bq, tau, LSLAMP_TIE_LEXICOGRAPHIC);
    *differ += want != lslamp_knapsack(nk, cand, xi.data(), oh.data(), bq, tau, LSLAMP_TIE_WORST_QUERY);
    for (int i = 0; i < nk * bq; i++) set64(m.xi, i, d_bits(xi[i]));
    uint32_t act = 0;
    for (int j = 0; j < bq; j++) {
        set64(m.lim, j, d_bits(tau * oh[j] * oh[j]));
        act |= (uint32_t)(oh[j] > 0.0) << j;
    }
    m.act = act; m.cand = cand; m.start = 1;
    m.clk = 0; m.eval(); m.clk = 1; m.eval();
    m.start = 0;
    int guard = 0;
    do { m.clk = 0; m.eval(); m.clk = 1; m.eval(); } while (m.busy && ++guard < 70000);
    int pc = __builtin_popcount(cand);
    k.check(m.keep == want && m.cycles == (1u << pc), "n_k %d tau %g cand 0x%X: rtl keep 0x%X in %u cycles, C 0x%X",
            nk, tau, cand, (unsigned)m.keep, (unsigned)m.cycles, want);
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = tb::default_cfg();
    bool lng = tb::long_mode(argc, argv);
    int rc = check_adder(lng);
    tb::counter k("stage 2");
    Vlamp_stage2_select_nk4 s4;
    Vlamp_stage2_select_nk8 s8;
    tb::rng r(0x57a9e2);
    uint64_t d4 = 0, d8 = 0;
    int n = lng ? 200000 : 3000;
    for (int t = 0; t < n; t++) {
        walk_case(k, s4, c, 4, r, &d4);
        if (t % 4 == 0) walk_case(k, s8, c, 8, r, &d8);
    }
    std::printf("stage 2: the worst_query tie-break would choose differently in %llu of %d (n_k 4) and %llu of %d (n_k 8)\n",
                (unsigned long long)d4, n, (unsigned long long)d8, (n + 3) / 4);
    rc |= k.done(lng ? "200k walks at n_k 4, 50k at n_k 8, against lslamp_knapsack (lexicographic)"
                     : "3000 walks at n_k 4, 750 at n_k 8, against lslamp_knapsack (lexicographic)");
    return rc;
}
