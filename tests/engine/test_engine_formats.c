/* Formats as configuration in the procedure and the engine:
 *  - the role rules: derived shift / exponential formats of e4m3 / e4m11 are exactly ue5m3s / ue5m3x /
 *    ue5m11s / ue5m11x, of PS(m) the accumulator itself; refusals name the knob to blame;
 *  - default formats spelled out by name give the auto run bit for bit (hardware and paper);
 *  - with other formats the LUT and SFU-table fast paths equal the fp library's scalar definition
 *    (including an LP format whose fp32 differences are not exact, which must leave the hot path);
 *  - a non-default run is deterministic across threads, and a wider LP mantissa is more accurate. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "eng_testutil.h"
#include "engine.h"
#include "lslamp.h"

static lslamp_cfg g_cfg;   /* large (LUT and SFU table): static */

static int cfg_with(lslamp_arith arith, const char *lp, const char *hp, char *err, size_t errlen)
{
    if (tu_lamp_cfg_default(&g_cfg, 128, err, errlen) != 0) return -1;
    g_cfg.arith = arith;
    snprintf(g_cfg.formats[LSLAMP_FMT_LP], LSLAMP_FMT_NAME_MAX, "%s", lp);
    snprintf(g_cfg.formats[LSLAMP_FMT_HP], LSLAMP_FMT_NAME_MAX, "%s", hp);
    return lslamp_cfg_finalize(&g_cfg, err, errlen);
}

static bool same_fmt(const lsfp_format *a, const lsfp_format *b)
{
    return a->ebits == b->ebits && a->mbits == b->mbits && a->bias == b->bias && a->is_signed == b->is_signed &&
           a->special == b->special && a->subnormals == b->subnormals && a->max_finite == b->max_finite;
}

static void role_rules(void)
{
    char names[LSLAMP_FMT_COUNT][LSLAMP_FMT_NAME_MAX];
    lsfp_format f[LSLAMP_FMT_COUNT];
    char err[400];
    int which = -1;
    memset(names, 0, sizeof names);
    CHECK(lslamp_formats_resolve((const char (*)[LSLAMP_FMT_NAME_MAX])names, LSLAMP_ARITH_HARDWARE, f, &which, err, sizeof err) == 0);
    static const lsfp_named want[] = {LSFP_E4M3, LSFP_E4M11, LSFP_UE5M3_S, LSFP_UE5M3_X, LSFP_UE5M11_S, LSFP_UE5M11_X};
    for (int r = 0; r < LSLAMP_FMT_COUNT; r++)
        CHECK_MSG(same_fmt(&f[r], lsfp_named_format(want[r])) && !strcmp(f[r].name, lsfp_named_format(want[r])->name),
                  "derived %s is %s (e%d m%d bias %d), want %s", lslamp_fmt_knob[r], f[r].name, f[r].ebits, f[r].mbits,
                  f[r].bias, lsfp_named_format(want[r])->name);
    CHECK(lslamp_formats_resolve((const char (*)[LSLAMP_FMT_NAME_MAX])names, LSLAMP_ARITH_PAPER, f, &which, err, sizeof err) == 0);
    for (int r = 0; r < LSLAMP_FMT_COUNT; r++)
        CHECK(f[r].ebits == 8 && f[r].mbits == (r == 1 || r >= 4 ? 11 : 3) && f[r].fp32_range);
    /* e3m2 (max 24) -> ue4m2: shift largest exponent floor(log2(2 * 24)) = 5, exponential largest exponent 0 */
    snprintf(names[0], sizeof names[0], "e3m2");
    CHECK(lslamp_formats_resolve((const char (*)[LSLAMP_FMT_NAME_MAX])names, LSLAMP_ARITH_HARDWARE, f, &which, err, sizeof err) == 0);
    CHECK(f[0].max_finite == 24.0f && f[2].ebits == 4 && f[2].mbits == 2 && f[2].emax == 5 && !f[2].is_signed &&
          f[3].special == LSFP_SPECIAL_FINITE && f[3].emax == 0 && f[3].max_finite == 1.75f);
    /* refusals, each blaming the right knob */
    static const struct { int role; const char *name; int blame; const char *msg; } bad[] = {
        {LSLAMP_FMT_LP, "ue4m3", LSLAMP_FMT_LP, "unsigned"},
        {LSLAMP_FMT_HP, "e7m9", LSLAMP_FMT_HP, "name algorithm.hp_shift_format"},
        {LSLAMP_FMT_HP, "fp32x", LSLAMP_FMT_HP, "unknown format"},
        {LSLAMP_FMT_LP_EXP, "ue5m3_b40", LSLAMP_FMT_LP_EXP, "cannot hold 1.0"},
        /* range past 1 but no 1.0 on the grid (0, 8, 16, ...: issue #25 D3), either exponential */
        {LSLAMP_FMT_LP_EXP, "ue2m1_b-3", LSLAMP_FMT_LP_EXP, "cannot hold 1.0, the exponential of the row maximum (1.0 rounds to"},
        {LSLAMP_FMT_HP_EXP, "ue2m1_b-3", LSLAMP_FMT_HP_EXP, "1.0 rounds to"},
        {LSLAMP_FMT_HP_SHIFT, "ue5m3_b200", LSLAMP_FMT_HP_SHIFT, "exponent range"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(names, 0, sizeof names);
        snprintf(names[bad[i].role], sizeof names[0], "%s", bad[i].name);
        which = -1;
        err[0] = '\0';
        int rc = lslamp_formats_resolve((const char (*)[LSLAMP_FMT_NAME_MAX])names, LSLAMP_ARITH_HARDWARE, f, &which, err, sizeof err);
        CHECK_MSG(rc != 0 && which == bad[i].blame && strstr(err, bad[i].msg), "%s = %s: rc %d, blames %d, '%s'",
                  lslamp_fmt_knob[bad[i].role], bad[i].name, rc, which, err);
    }
    /* hardware arithmetic needs a LUT-indexable LP shift format; the message names the knob */
    CHECK(cfg_with(LSLAMP_ARITH_HARDWARE, "ps3", "", err, sizeof err) != 0 && strstr(err, "lp_shift_format") &&
          strstr(err, "at most 16 bits"));
    CHECK(cfg_with(LSLAMP_ARITH_PAPER, "ps3", "fp32", err, sizeof err) == 0 && !g_cfg.use_lut);
}

/* LP exponentials (LUT path) and HP ones (SFU table) against the scalar definition. */
static void fast_paths(const char *lp, const char *hp, bool expect_exact_diff)
{
    char err[400];
    if (cfg_with(LSLAMP_ARITH_HARDWARE, lp, hp, err, sizeof err) != 0) {
        CHECK_MSG(0, "%s / %s: %s", lp, hp, err);
        return;
    }
    lslamp_cfg *c = &g_cfg;
    CHECK(c->use_lut && c->lp_diff_exact == expect_exact_diff);
    tu_rng r = { 99, 0, 0 };
    const int bq = c->b_q, bk = c->b_k;
    static float Y[16 * 32], mu[32], mulp[32], scratch[2 * 16 * 32 * 4];
    static double E[64 * 32];
    int bad = 0;
    for (int it = 0; it < 400; it++) {
        double span = (double)c->lp_fmt.max_finite;
        for (int j = 0; j < bq; j++) {
            mu[j] = lsfp_round(&c->hp_fmt, (float)((tu_unif(&r) * 2 - 1) * (it % 2 ? span : span / 64)), NULL, NULL);
            mulp[j] = lslamp_mu_lp(c, mu[j]);
        }
        for (int h = 0; h < 2; h++) {
            const lsfp_format *acc = h ? &c->hp_fmt : &c->lp_fmt;
            for (int i = 0; i < bk; i++)
                for (int j = 0; j < bq; j++) {
                    float base = h ? mu[j] : mulp[j];
                    float y = lsfp_truncate_to(acc, (float)((double)base - tu_unif(&r) * (it % 3 ? span / 8 : 2 * span)));
                    Y[i * bq + j] = tu_unif(&r) < 0.05 ? -INFINITY : (y > base ? base : y);
                }
            lslamp_exps(c, h, Y, bq, 0, bq, mu, mulp, E, scratch, NULL);
            for (int i = 0; i < bk; i++)
                for (int j = 0; j < bq; j++) {
                    float y = Y[i * bq + j];
                    double want = 0.0;
                    if (y != -INFINITY) {
                        const lsfp_format *s = h ? &c->hp_s : &c->lp_s, *x = h ? &c->hp_x : &c->lp_x;
                        double d = (double)(h ? mu[j] : mulp[j]) - (double)y;
                        want = lsfp_exp_neg(x, lsfp_round_double(s, d, NULL));
                    }
                    if (E[i * bq + j] != want && bad++ < 5)
                        fprintf(stderr, "%s/%s %s exp: base %.9g y %.9g: %.9g want %.9g\n", lp, hp, h ? "HP" : "LP",
                                h ? (double)mu[j] : (double)mulp[j], (double)y, E[i * bq + j], want);
                }
        }
    }
    CHECK_MSG(bad == 0, "%s / %s: %d fast-path mismatches", lp, hp, bad);
}

static ls_engine_result run(const ls_attn_inputs *in, ls_engine_mode mode, lslamp_arith ar, const char *const names[6], int threads)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.mode = mode;
    p.arithmetic = ar;
    p.threads = threads;
    p.b_q = 16; p.n_q = 2;
    for (int r = 0; r < LSLAMP_FMT_COUNT; r++)
        if (names) snprintf(p.formats[r], sizeof p.formats[r], "%s", names[r]);
    ls_engine_result res;
    char err[400];
    if (ls_engine_run(&p, in, &res, err, sizeof err) != 0) CHECK_MSG(0, "engine: %s", err);
    return res;
}

static bool same_result(const ls_engine_result *a, const ls_engine_result *b, size_t n)
{
    return a->o && b->o && !memcmp(a->o, b->o, n * sizeof(float)) && a->recompute.stage1_subblocks == b->recompute.stage1_subblocks &&
           a->recompute.stage2_subblocks == b->recompute.stage2_subblocks && !memcmp(&a->events, &b->events, sizeof a->events);
}

static void engine_runs(void)
{
    ls_attn_inputs in;
    if (tu_inputs_qknorm(&in, 5, 1, 2, 1, 160, 160, 64, 1, 1.0, 2.5) != 0) { CHECK(0); return; }
    size_t n = (size_t)in.batch * in.heads_q * in.seq_q * in.dim;
    static const char *const hw[6] = {"e4m3", "e4m11", "ue5m3s", "ue5m3x", "ue5m11s", "ue5m11x"};
    static const char *const paper[6] = {"ps3", "ps11", "ps3", "ps3", "ps11", "ps11"};
    for (int m = 0; m < 3; m++) {
        ls_engine_mode mode = m == 0 ? LS_ENGINE_MODE_LAMP : m == 1 ? LS_ENGINE_MODE_PURE_8BIT : LS_ENGINE_MODE_LAMP_CODE;
        ls_engine_result a = run(&in, mode, LSLAMP_ARITH_HARDWARE, NULL, 1), b = run(&in, mode, LSLAMP_ARITH_HARDWARE, hw, 1);
        ls_engine_result c = run(&in, mode, LSLAMP_ARITH_PAPER, NULL, 1), d = run(&in, mode, LSLAMP_ARITH_PAPER, paper, 1);
        CHECK_MSG(same_result(&a, &b, n), "mode %d: hardware formats by name differ from auto", m);
        CHECK_MSG(same_result(&c, &d, n), "mode %d: paper formats by name differ from auto", m);
        CHECK(!same_result(&a, &c, n));
        ls_engine_result_free(&a); ls_engine_result_free(&b); ls_engine_result_free(&c); ls_engine_result_free(&d);
    }
    /* other formats: deterministic across threads; more LP mantissa bits, less error (pure 8-bit: no recompute) */
    static const char *const e5m2[6] = {"e5m2", "e5m10", "", "", "", ""};
    static const char *const e4m6[6] = {"e4m6", "", "", "", "", ""};
    ls_engine_result a = run(&in, LS_ENGINE_MODE_LAMP, LSLAMP_ARITH_HARDWARE, e5m2, 1), b = run(&in, LS_ENGINE_MODE_LAMP, LSLAMP_ARITH_HARDWARE, e5m2, 3);
    CHECK(same_result(&a, &b, n) && a.accuracy.valid);
    ls_engine_result lo = run(&in, LS_ENGINE_MODE_PURE_8BIT, LSLAMP_ARITH_HARDWARE, e5m2, 1);
    ls_engine_result mid = run(&in, LS_ENGINE_MODE_PURE_8BIT, LSLAMP_ARITH_HARDWARE, NULL, 1);
    ls_engine_result hi = run(&in, LS_ENGINE_MODE_PURE_8BIT, LSLAMP_ARITH_HARDWARE, e4m6, 1);
    CHECK_MSG(lo.accuracy.kl_mean > mid.accuracy.kl_mean && mid.accuracy.kl_mean > hi.accuracy.kl_mean,
              "pure 8-bit kl_mean m2 %.3g, m3 %.3g, m6 %.3g: should fall with the mantissa", lo.accuracy.kl_mean,
              mid.accuracy.kl_mean, hi.accuracy.kl_mean);
    ls_engine_result_free(&a); ls_engine_result_free(&b);
    ls_engine_result_free(&lo); ls_engine_result_free(&mid); ls_engine_result_free(&hi);
    ls_attn_inputs_release(&in);
}

int main(void)
{
    role_rules();
    fast_paths("e4m3", "e4m11", true);     /* the defaults through the same checker */
    fast_paths("e3m2", "e5m7", true);
    fast_paths("e2m4", "e4m9_nosub", true);
    fast_paths("e5m3", "e5m10", false);    /* |mu - y| can need 35 bits: per-element path */
    engine_runs();
    CHECK_DONE();
}
