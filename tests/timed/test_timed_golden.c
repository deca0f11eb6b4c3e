/* The timed model's units compute O and every statistic bit-identically to the golden engine
 * (they call the same hw/lamp steps; timed.unit_numerics), on several configurations: causal, sliding window, GQA,
 * ragged lengths, both layouts, the three shipped programs and the numerics options that change the
 * tile procedure. The default path (golden engine first, the units replay its records) gives the
 * same numerics and every timed figure equal to the units' run. Also: the SystemC top and the
 * direct C drive give identical timing, and repeated runs in one process (the kernel elaborates
 * once) are identical. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fields.h"
#include "timed_testutil.h"

/* The timed report fields (cycles, units, stalls, occupancy, slow path, energy, memory) as CSV. */
static char *timed_csv(const ls_timed_result *tr)
{
    ls_fields fs;
    ls_fields_init(&fs);
    ls_timed_report_fields(&fs, tr);
    char *csv = ls_fields_to_csv(&fs);
    ls_fields_free(&fs);
    return csv;
}

static int dbl_same(double a, double b) { return (a != a && b != b) || memcmp(&a, &b, sizeof a) == 0; }

static void compare(const char *name, const ls_engine_result *g, const ls_engine_result *t)
{
    size_t n = (size_t)g->batch * g->heads_q * g->seq_q * g->dim;
    CHECK_MSG(t->o && memcmp(g->o, t->o, n * sizeof(float)) == 0, "%s: O differs", name);
    CHECK_MSG((g->o_ref == NULL) == (t->o_ref == NULL), "%s: o_ref presence", name);
    if (g->o_ref && t->o_ref) CHECK_MSG(memcmp(g->o_ref, t->o_ref, n * sizeof(float)) == 0, "%s: O_ref differs", name);
    CHECK_MSG(g->tiles.executed == t->tiles.executed && g->tiles.masked_skipped == t->tiles.masked_skipped,
              "%s: tiles %llu/%llu vs %llu/%llu", name, (unsigned long long)g->tiles.executed,
              (unsigned long long)g->tiles.masked_skipped, (unsigned long long)t->tiles.executed,
              (unsigned long long)t->tiles.masked_skipped);
    CHECK_MSG(g->tiles.hist_len == t->tiles.hist_len &&
              memcmp(g->tiles.hp_subblocks_hist, t->tiles.hp_subblocks_hist, (size_t)g->tiles.hist_len * 8) == 0,
              "%s: histogram", name);
    CHECK_MSG(dbl_same(g->tiles.disruptive_rate, t->tiles.disruptive_rate), "%s: disruptive rate", name);
    CHECK_MSG(memcmp(&g->recompute, &t->recompute, sizeof g->recompute) == 0, "%s: recompute stats", name);
    CHECK_MSG(memcmp(&g->events, &t->events, sizeof g->events) == 0, "%s: events", name);
    const ls_engine_accuracy_stats *a = &g->accuracy, *b = &t->accuracy;
    CHECK_MSG(a->valid == b->valid && dbl_same(a->kl_mean, b->kl_mean) && dbl_same(a->kl_max, b->kl_max) &&
              a->kl_inf_count == b->kl_inf_count && dbl_same(a->l1_mean, b->l1_mean) && dbl_same(a->l1_max, b->l1_max) &&
              dbl_same(a->o_max_abs_err, b->o_max_abs_err) && dbl_same(a->o_mean_abs_err, b->o_mean_abs_err) &&
              dbl_same(a->o_rel_fro_err, b->o_rel_fro_err) && dbl_same(a->row_rel_l2_mean, b->row_rel_l2_mean) &&
              dbl_same(a->row_rel_l2_max, b->row_rel_l2_max) && dbl_same(a->argmax_flip_rate, b->argmax_flip_rate) &&
              a->rows == b->rows, "%s: accuracy (kl_mean %.17g vs %.17g)", name, a->kl_mean, b->kl_mean);
    CHECK_MSG(g->n_records == t->n_records && g->n_qblocks == t->n_qblocks && g->n_ktiles == t->n_ktiles &&
              g->n_q == t->n_q, "%s: record shape", name);
    if (g->records && t->records && g->n_records == t->n_records) {
        size_t bad = 0;
        for (size_t i = 0; i < g->n_records; i++) {
            const ls_engine_tile_record *x = &g->records[i], *y = &t->records[i];
            bad += x->stage1_mask != y->stage1_mask || x->stage2_mask != y->stage2_mask || x->n_hp != y->n_hp ||
                   x->flags != y->flags;
        }
        CHECK_MSG(bad == 0, "%s: %zu records differ", name, bad);
    }
}

static void run_case(const char *name, const char *const *ov, int nov, int records)
{
    tt_case c;
    if (tt_setup(&c, ov, nov) != 0) { CHECK_MSG(0, "%s: setup", name); return; }
    c.ep.keep_tile_records = records != 0;
    c.ep.keep_reference = records != 0;
    ls_engine_result g, t, t2;
    ls_timed_result tr, tr2;
    char err[512];
    int rg = ls_engine_run(&c.ep, &c.in, &g, err, sizeof err);
    CHECK_MSG(rg == 0, "%s: golden: %s", name, err);
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.unit_numerics = 1;
    int rt = ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &t, &tr, err, sizeof err);
    CHECK_MSG(rt == 0, "%s: timed: %s", name, err);
    if (rg == 0 && rt == 0) {
        compare(name, &g, &t);
        CHECK_MSG(tr.cycles > 0, "%s: no cycles", name);
        CHECK_MSG(!strcmp(tr.numerics_path, "units"), "%s: numerics path %s", name, tr.numerics_path);
        /* golden first (the default): the engine's numerics, the units' timing from its records */
        ls_engine_result t3;
        ls_timed_result tr3;
        int r3 = ls_timed_run(&c.cfg, &c.ep, &c.in, &t3, &tr3, err, sizeof err);
        CHECK_MSG(r3 == 0, "%s: golden first: %s", name, err);
        if (r3 == 0) {
            compare(name, &g, &t3);
            bool raise = c.ep.above_one == LSLAMP_ABOVE_RAISE;   /* always the units' numerics */
            CHECK_MSG(!strcmp(tr3.numerics_path, raise ? "units" : "engine"), "%s: numerics path %s", name,
                      tr3.numerics_path);
            char *a = timed_csv(&tr), *b = timed_csv(&tr3);
            CHECK_MSG(a && b && !strcmp(a, b), "%s: timed figures differ between the units' numerics and golden "
                      "first:\n%s\n%s", name, a ? a : "", b ? b : "");
            free(a);
            free(b);
        }
        ls_engine_result_free(&t3);
        ls_timed_result_free(&tr3);
        /* the same units driven without SystemC: identical figures */
        o.use_systemc = 0;
        int r2 = ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &t2, &tr2, err, sizeof err);
        CHECK_MSG(r2 == 0, "%s: direct: %s", name, err);
        if (r2 == 0) {
            compare(name, &g, &t2);
            CHECK_MSG(tr2.cycles == tr.cycles && memcmp(tr2.stalls, tr.stalls, sizeof tr.stalls) == 0 &&
                      tr2.slow_tiles == tr.slow_tiles && tr2.units[0].busy_cycles == tr.units[0].busy_cycles,
                      "%s: SystemC %llu vs direct %llu cycles", name, (unsigned long long)tr.cycles,
                      (unsigned long long)tr2.cycles);
        }
        ls_engine_result_free(&t2);
        ls_timed_result_free(&tr2);
        printf("%-28s cycles %10llu  slow %6llu  executed %llu\n", name, (unsigned long long)tr.cycles,
               (unsigned long long)tr.slow_tiles, (unsigned long long)t.tiles.executed);
    }
    ls_engine_result_free(&g);
    ls_engine_result_free(&t);
    ls_timed_result_free(&tr);
    tt_free(&c);
}

int main(void)
{
    const char *small[] = { "workload.seq_q=256", "workload.seq_k=256" };
    run_case("default-causal-gqa", small, 2, 1);
    const char *ragged[] = { "workload.seq_q=200", "workload.seq_k=333", "workload.heads_q=4", "workload.heads_kv=2",
                             "workload.batch=2" };
    run_case("ragged-causal-gqa", ragged, 5, 1);
    const char *nc[] = { "workload.seq_q=77", "workload.seq_k=300", "workload.causal=false", "workload.dim=64",
                         "accelerator.regfile.layout=full" };
    run_case("noncausal-ragged-full", nc, 5, 1);
    const char *fa2[] = { "workload.seq_q=130", "workload.seq_k=190", "algorithm.mode=fa2_16bit" };
    run_case("fa2_16bit", fa2, 3, 1);
    const char *p8[] = { "workload.seq_q=130", "workload.seq_k=190", "algorithm.mode=pure_8bit" };
    run_case("pure_8bit", p8, 3, 1);
    const char *opt[] = { "workload.seq_q=192", "workload.seq_k=256", "algorithm.disruptive_numerics=full_tile_hp",
                          "algorithm.above_one=raise", "algorithm.rounding=stochastic", "algorithm.state_precision=fp64",
                          "algorithm.tau=0.125" };
    run_case("options-stochastic-fp64", opt, 7, 1);
    const char *geo[] = { "workload.seq_q=100", "workload.seq_k=200", "algorithm.b_q=16", "algorithm.n_q=3",
                          "algorithm.b_k=8", "algorithm.n_k=6", "algorithm.stage1=false", "accelerator.cores=3" };
    run_case("geometry-stage2-only", geo, 8, 1);
    /* a sliding window (issue 38): tiles before it skipped, sub-blocks before it inactive by geometry */
    const char *win[] = { "workload.seq_q=200", "workload.seq_k=333", "workload.window=70", "workload.heads_q=4",
                          "workload.heads_kv=2", "accelerator.cores=2" };
    run_case("sliding-window", win, 6, 1);
    const char *noref[] = { "workload.seq_q=64", "workload.seq_k=1000", "workload.causal=true" };
    run_case("decode-like-norecords", noref, 3, 0);
    /* unsupported modes are refused with a pointer to --golden */
    tt_case c;
    const char *lc[] = { "workload.seq_q=32", "workload.seq_k=32", "algorithm.mode=lamp_code" };
    if (tt_setup(&c, lc, 3) == 0) {
        ls_engine_result r;
        ls_timed_result tr;
        char err[512] = "";
        CHECK(ls_timed_run(&c.cfg, &c.ep, &c.in, &r, &tr, err, sizeof err) != 0);
        CHECK_MSG(strstr(err, "--golden") != NULL, "message: %s", err);
        ls_engine_result_free(&r);
        tt_free(&c);
    }
    CHECK_DONE();
}
