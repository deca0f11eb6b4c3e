/* Unit tests of the hw/lamp step functions: fast paths against the fp library's definitions,
 * stage-1 edge rules (G-19), the stable sort (G-13), the knapsack against brute force (G-14),
 * masking geometry. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "eng_testutil.h"
#include "lslamp.h"

static lslamp_cfg cfg;   /* large (SFU table): static */

static void hp_shift_code_vs_definition(void)
{
    tu_rng r = { 7, 0, 0 };
    const lsfp_format *e11 = &cfg.hp_fmt;
    int bad = 0;
    for (int it = 0; it < 200000; it++) {
        /* two e4m11 values: mu >= y, shift = exact difference */
        float a = lsfp_round(e11, (float)((tu_unif(&r) * 2 - 1) * (it % 3 == 0 ? 500 : it % 3 == 1 ? 20 : 0.05)), NULL, NULL);
        float b = lsfp_round(e11, (float)((tu_unif(&r) * 2 - 1) * (it % 5 == 0 ? 500 : 8)), NULL, NULL);
        float mu = a > b ? a : b, y = a > b ? b : a;
        double d = (double)mu - (double)y;
        uint32_t fast = lslamp_hp_shift_code(&cfg, d);
        uint32_t ref = lsfp_encode(&cfg.hp_s, lsfp_round_double(&cfg.hp_s, d, NULL));
        if (fast != ref && bad++ < 5) fprintf(stderr, "shift %.17g: fast %x ref %x\n", d, fast, ref);
        float e = cfg.hp_exp[fast];
        float eref = lsfp_exp_neg(&cfg.hp_x, lsfp_round_double(&cfg.hp_s, d, NULL));
        if (e != eref && bad++ < 5) fprintf(stderr, "exp(-%.17g): table %.9g ref %.9g\n", d, e, eref);
    }
    CHECK(bad == 0);
    /* edges: 0, smallest subnormal, tie just above, largest */
    CHECK(lslamp_hp_shift_code(&cfg, 0.0) == 0);
    CHECK(lslamp_hp_shift_code(&cfg, ldexp(1, -32)) == 1);
    CHECK(lslamp_hp_shift_code(&cfg, ldexp(1.5, -32)) == 2);        /* tie to even */
    CHECK(lslamp_hp_shift_code(&cfg, ldexp(2.5, -32)) == 2);
    CHECK(lslamp_hp_shift_code(&cfg, 1023.5) == lsfp_encode(&cfg.hp_s, 1023.5f));
    CHECK(lslamp_hp_shift_code(&cfg, 1023.75) == lsfp_encode(&cfg.hp_s, 1023.5f)); /* saturates */
    CHECK(lslamp_hp_shift_code(&cfg, 1023.74) == lsfp_encode(&cfg.hp_s, 1023.5f));
}

static void lp_exps_vs_definition(void)
{
    tu_rng r = { 11, 0, 0 };
    const int bq = cfg.b_q, bk = cfg.b_k;
    float Y[16 * 32], mu[32], mulp[32], scratch[2 * 16 * 32 * 4];
    double E[64 * 32];
    int bad = 0;
    for (int it = 0; it < 2000; it++) {
        for (int j = 0; j < bq; j++) {
            mu[j] = lsfp_round(&cfg.hp_fmt, (float)((tu_unif(&r) * 2 - 1) * (it % 2 ? 400 : 10)), NULL, NULL);
            mulp[j] = lslamp_mu_lp(&cfg, mu[j]);
        }
        for (int i = 0; i < bk; i++)
            for (int j = 0; j < bq; j++) {
                /* LP logits on the e4m3 grid at least delta below mu (stage-1 invariant) */
                double off = tu_unif(&r) * (it % 3 ? 30 : 900);
                float y = lsfp_truncate_to(&cfg.lp_fmt, (float)((double)mu[j] - fabs(mu[j]) / 256.0 - off - 1e-3));
                if (tu_unif(&r) < 0.05) y = -INFINITY;
                Y[i * bq + j] = y;
            }
        lslamp_exps(&cfg, false, Y, bq, 0, bq, mu, mulp, E, scratch, NULL);
        for (int i = 0; i < bk; i++)
            for (int j = 0; j < bq; j++) {
                float y = Y[i * bq + j];
                double want = 0.0;
                if (y != -INFINITY) {
                    float s = lsfp_round(&cfg.lp_s, mulp[j] - y, NULL, NULL);
                    want = cfg.lut.value[lsfp_encode(&cfg.lp_s, s)];
                }
                if (E[i * bq + j] != want && bad++ < 5)
                    fprintf(stderr, "LP exp mu %.9g y %.9g: %.9g want %.9g\n", mulp[j], y, E[i * bq + j], want);
            }
    }
    CHECK(bad == 0);
}

/* A logit above the shift base (G-15): never NaN, an exponential above one in the path's exp
 * format, counted in exp_above_one (numerics.md: negative inputs to unsigned formats). */
static void negative_shifts(void)
{
    const int bq = cfg.b_q, bk = cfg.b_k;
    float Y[16 * 32], mu[32], mulp[32], scratch[2 * 16 * 32 * 4];
    double E[64 * 32];
    for (int j = 0; j < bq; j++) { mu[j] = 2.0f; mulp[j] = lslamp_mu_lp(&cfg, mu[j]); }
    for (int i = 0; i < bk * bq; i++) Y[i] = -INFINITY;
    Y[0] = 2.5f;            /* HP grid, 0.5 above mu_hat */
    Y[1] = 2.25f;           /* LP grid, 0.25 above */
    for (int hp = 0; hp < 2; hp++) {
        lslamp_events ev;
        memset(&ev, 0, sizeof ev);
        bool above = lslamp_exps(&cfg, hp, Y, bq, 0, bq, mu, mulp, E, scratch, &ev);
        CHECK(above && ev.exp_above_one == 2);
        const lsfp_format *x = hp ? &cfg.hp_x : &cfg.lp_x;
        for (int j = 0; j < 2; j++) {
            double s = (double)mu[j] - (double)Y[j];
            double want = hp ? lsfp_round_double(x, exp((double)lsfp_round_double(&cfg.hp_s, -s, NULL)), NULL)
                             : lsfp_round_double(x, exp(-s), NULL);
            CHECK_MSG(!isnan(E[j]) && E[j] > 1.0 && E[j] == want, "%s exp of y %g above mu %g: %.9g want %.9g",
                      hp ? "HP" : "LP", (double)Y[j], (double)mu[j], E[j], want);
        }
        CHECK(E[2] == 0.0);
    }
    /* the library itself: a negative input to an unsigned format is NaN */
    CHECK(isnan(lsfp_round(&cfg.lp_s, -0.5f, NULL, NULL)) && isnan(lsfp_round(&cfg.hp_s, -0.5f, NULL, NULL)));
}

static void stage1_rules(void)
{
    float mh[3] = { 2.0f, -INFINITY, 10.0f };
    float m1[3] = { 1.0f, -INFINITY, 9.0f };
    CHECK(lslamp_stage1_pass(m1, mh, 3, 1.0 / 256));            /* masked query: no constraint */
    float m2[3] = { 1.0f, 0.5f, 9.0f };
    CHECK(!lslamp_stage1_pass(m2, mh, 3, 1.0 / 256));           /* mu_hat = -inf fails any finite m */
    float mh2[1] = { 2.0f }, m3[1] = { 2.0f - 2.0f / 256 };
    CHECK(!lslamp_stage1_pass(m3, mh2, 1, 1.0 / 256));          /* equality fails: strict > */
    float m4[1] = { 2.0f - 2.0f / 256 - 1.0f / 1024 };
    CHECK(lslamp_stage1_pass(m4, mh2, 1, 1.0 / 256));
    float mh3[1] = { -2.0f }, m5[1] = { -2.0f - 2.0f / 256 };   /* |mu_hat| margin for negative mu */
    CHECK(!lslamp_stage1_pass(m5, mh3, 1, 1.0 / 256));
}

static void sort_rules(void)
{
    double T[5] = { INFINITY, INFINITY, 0.5, INFINITY, -INFINITY };
    int o[5];
    lslamp_sort_threats(5, T, o);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 3 && o[3] == 2 && o[4] == 4);
    double T2[4] = { -1, 0.5, 0.5, -0.125 };
    lslamp_sort_threats(4, T2, o);
    CHECK(o[0] == 1 && o[1] == 2 && o[2] == 3 && o[3] == 0);
}

/* Independent brute force: best subset by (size desc, worst asc, lexicographic sorted list). */
static uint32_t brute(int nk, uint32_t cand, const double *xi, const double *oh, int nq, double tau, int lexonly)
{
    uint32_t best = 0;
    int bs = -1;
    double bw = 0;
    for (uint32_t s = 0; s < (1u << nk); s++) {
        if (s & ~cand) continue;
        int ok = 1;
        double worst = 0;
        for (int j = 0; j < nq; j++) {
            if (!(oh[j] > 0)) continue;
            double sum = 0;
            for (int t = 0; t < nk; t++) if (s >> t & 1) sum += xi[t * nq + j];
            if (sum > tau * oh[j] * oh[j]) ok = 0;
            if (sum / (oh[j] * oh[j]) > worst) worst = sum / (oh[j] * oh[j]);
        }
        if (!ok) continue;
        int size = __builtin_popcount(s);
        int better = 0;
        if (size > bs) better = 1;
        else if (size == bs) {
            if (!lexonly && worst < bw) better = 1;
            else if (lexonly || worst == bw) {
                /* lexicographic on sorted lists */
                int a[16], b[16], na = 0, nb = 0;
                for (int t = 0; t < nk; t++) { if (s >> t & 1) a[na++] = t; if (best >> t & 1) b[nb++] = t; }
                for (int q = 0; q < na; q++) if (a[q] != b[q]) { better = a[q] < b[q]; break; }
            }
        }
        if (better) { best = s; bs = size; bw = worst; }
    }
    return best;
}

static void knapsack_vs_brute(void)
{
    tu_rng r = { 99, 0, 0 };
    int bad = 0;
    for (int it = 0; it < 20000; it++) {
        int nk = 1 + (int)(tu_unif(&r) * 6), nq = 1 + (int)(tu_unif(&r) * 4);
        double xi[6 * 4], oh[4];
        for (int j = 0; j < nq; j++) oh[j] = it % 7 == 0 && j == 0 ? 0.0 : 0.5 + 3 * tu_unif(&r);
        for (int i = 0; i < nk * nq; i++) xi[i] = it % 3 == 0 ? (double)(int)(tu_unif(&r) * 4) / 8 : tu_unif(&r);
        uint32_t cand = (uint32_t)(tu_next(&r) & ((1u << nk) - 1));
        double tau = tu_unif(&r) * 2;
        for (int lex = 0; lex < 2; lex++) {
            uint32_t a = lslamp_knapsack(nk, cand, xi, oh, nq, tau, lex ? LSLAMP_TIE_LEXICOGRAPHIC : LSLAMP_TIE_WORST_QUERY);
            uint32_t b = brute(nk, cand, xi, oh, nq, tau, lex);
            if (a != b && bad++ < 5) fprintf(stderr, "knapsack it %d lex %d: %x vs brute %x\n", it, lex, a, b);
        }
    }
    CHECK(bad == 0);
    /* tie-break example: two feasible pairs, worst-query prefers the cheaper, lexicographic the first */
    double xi[3] = { 0.3, 0.1, 0.1 }, oh[1] = { 1.0 };
    CHECK(lslamp_knapsack(3, 0x7, xi, oh, 1, 0.45, LSLAMP_TIE_WORST_QUERY) == 0x6);
    CHECK(lslamp_knapsack(3, 0x7, xi, oh, 1, 0.45, LSLAMP_TIE_LEXICOGRAPHIC) == 0x3);
    /* tau = 1 keeps everything: sum p(1 - p) < 1 */
    double xi2[2] = { 0.24, 0.24 };
    CHECK(lslamp_knapsack(2, 0x3, xi2, oh, 1, 1.0, LSLAMP_TIE_WORST_QUERY) == 0x3);
}

static void mask_geometry(void)
{
    float Y[8 * 4];
    lslamp_tile_io io;
    memset(&io, 0, sizeof io);
    io.Y = Y; io.ldy = 4; io.ncols = 4; io.nq = 3; io.nkeys = 6;
    io.causal = true; io.key0 = 10; io.query0 = 8; io.causal_shift = 1;   /* query q sees key <= q + 1 */
    for (int i = 0; i < 32; i++) Y[i] = 1.0f;
    lslamp_apply_mask(&cfg, &io, 0, 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) {
            int masked = i >= 6 || j >= 3 || (10 + i > 8 + j + 1);
            CHECK_MSG((Y[i * 4 + j] == -INFINITY) == masked, "mask key %d query %d", i, j);
        }
    CHECK(!lslamp_tile_fully_masked(&cfg, &io));
    io.key0 = 11;                   /* first key 11 > last query 10 + 1? no: 11 <= 11 */
    CHECK(!lslamp_tile_fully_masked(&cfg, &io));
    io.key0 = 12;
    CHECK(lslamp_tile_fully_masked(&cfg, &io));
    io.causal = false;
    CHECK(!lslamp_tile_fully_masked(&cfg, &io));
    io.nq = 0;
    CHECK(lslamp_tile_fully_masked(&cfg, &io));
}

int main(void)
{
    char err[200];
    if (tu_lamp_cfg_default(&cfg, 128, err, sizeof err) != 0) { fprintf(stderr, "%s\n", err); return 1; }
    CHECK(cfg.use_lut && cfg.use_hp_table);
    hp_shift_code_vs_definition();
    lp_exps_vs_definition();
    negative_shifts();
    stage1_rules();
    sort_rules();
    knapsack_vs_brute();
    mask_geometry();
    CHECK_DONE();
}
