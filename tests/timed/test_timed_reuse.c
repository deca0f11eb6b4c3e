#define _POSIX_C_SOURCE 200809L
/* reuse_numerics: a run that changes only timing parameters replays the per-tile records of the
 * cached numerics instead of recomputing the arithmetic, and gives exactly what a full run gives
 * (O, statistics, records, cycles and every timed figure). Any change of a parameter that affects
 * numerics, of the inputs or of the program must miss the cache (never stale). */
#include <string.h>

#include "check.h"
#include "timed_testutil.h"
#include "lsucode.h"

static int same_result(const ls_engine_result *a, const ls_engine_result *b)
{
    size_t n = (size_t)a->batch * a->heads_q * a->seq_q * a->dim;
    if (!a->o || !b->o || memcmp(a->o, b->o, n * sizeof(float)) != 0) return 0;
    if ((a->o_ref == NULL) != (b->o_ref == NULL)) return 0;
    if (a->o_ref && memcmp(a->o_ref, b->o_ref, n * sizeof(float)) != 0) return 0;
    if (a->tiles.executed != b->tiles.executed || a->tiles.masked_skipped != b->tiles.masked_skipped) return 0;
    if (memcmp(a->tiles.hp_subblocks_hist, b->tiles.hp_subblocks_hist, (size_t)a->tiles.hist_len * 8) != 0) return 0;
    if (memcmp(&a->recompute, &b->recompute, sizeof a->recompute) != 0) return 0;
    if (memcmp(&a->events, &b->events, sizeof a->events) != 0) return 0;
    if (memcmp(&a->accuracy, &b->accuracy, sizeof a->accuracy) != 0) return 0;
    if (a->n_records != b->n_records) return 0;
    for (size_t i = 0; i < a->n_records; i++)
        if (a->records[i].stage1_mask != b->records[i].stage1_mask || a->records[i].stage2_mask != b->records[i].stage2_mask ||
            a->records[i].n_hp != b->records[i].n_hp || a->records[i].flags != b->records[i].flags) return 0;
    return 1;
}

static int same_timing(const ls_timed_result *a, const ls_timed_result *b)
{
    if (a->cycles != b->cycles || a->nunits != b->nunits || a->slow_tiles != b->slow_tiles ||
        a->slow_cycles != b->slow_cycles || memcmp(a->stalls, b->stalls, sizeof a->stalls) != 0)
        return 0;
    for (int u = 0; u < a->nunits; u++)
        if (a->units[u].busy_cycles != b->units[u].busy_cycles || a->units[u].work != b->units[u].work ||
            a->units[u].ops != b->units[u].ops) return 0;
    return memcmp(&a->energy_uj, &b->energy_uj, sizeof a->energy_uj) == 0;
}

/* Runs ov with reuse on; checks the result against a full run (reuse off) of the same config.
 * Returns whether the run was replayed from the cache. */
static int run(const char *name, const char *const *ov, int nov)
{
    tt_case c;
    if (tt_setup(&c, ov, nov) != 0) { CHECK_MSG(0, "%s: setup", name); return -1; }
    c.ep.keep_tile_records = true;
    c.ep.keep_reference = true;
    ls_timed_options o;
    ls_timed_options_default(&o);
    ls_engine_result full, re;
    ls_timed_result tf, tre;
    char err[512];
    CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &full, &tf, err, sizeof err) == 0, "%s: %s", name, err);
    o.reuse_numerics = 1;
    CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &re, &tre, err, sizeof err) == 0, "%s: %s", name, err);
    CHECK_MSG(same_result(&full, &re), "%s: results differ from a full run (reused %d)", name, tre.numerics_reused);
    CHECK_MSG(same_timing(&tf, &tre), "%s: timing differs from a full run: %llu vs %llu (reused %d)", name,
              (unsigned long long)tf.cycles, (unsigned long long)tre.cycles, tre.numerics_reused);
    int reused = tre.numerics_reused;
    printf("%-24s reused %d  cycles %llu\n", name, reused, (unsigned long long)tre.cycles);
    ls_engine_result_free(&full);
    ls_engine_result_free(&re);
    tt_free(&c);
    return reused;
}

#define W "workload.seq_q=200", "workload.seq_k=333", "workload.heads_q=4", "workload.heads_kv=2"
#define N(a) (int)(sizeof a / sizeof a[0])

int main(void)
{
    ls_timed_cache_clear();
    const char *base[] = { W };
    CHECK(run("first", base, N(base)) == 0);              /* fills the cache */
    CHECK(run("same", base, N(base)) == 1);
    /* timing-only changes replay */
    const char *t1[] = { W, "accelerator.regfile.layout=full" };
    CHECK(run("layout full", t1, N(t1)) == 1);
    const char *t2[] = { W, "accelerator.sfu.lanes=4", "accelerator.tensor.latency=64", "accelerator.cores=3",
                         "accelerator.regfile.max_contexts=1", "accelerator.memory.latency=2000" };
    CHECK(run("latencies/throughputs", t2, N(t2)) == 1);
    /* every numerics change misses (and each then refills the cache, so compare with base again) */
    const char *numerics[][1] = {
        { "algorithm.tau=0.25" }, { "algorithm.delta=0.0625" }, { "seed=2" }, { "algorithm.stage1=false" },
        { "algorithm.stage2=false" }, { "algorithm.rounding=rtz" }, { "algorithm.overflow=nan" },
        { "algorithm.mu_lp_shift=rne_e4m3" }, { "algorithm.hp_shift=exact" }, { "algorithm.scale_point=pre_bf16" },
        { "algorithm.acc_order=descending" }, { "algorithm.knapsack_tiebreak=lexicographic" },
        { "algorithm.disruptive_numerics=full_tile_hp" }, { "algorithm.state_precision=fp64" },
        { "algorithm.arithmetic=paper" }, { "algorithm.acc_model=paper" }, { "algorithm.b_q=16" },
        { "algorithm.n_q=2" }, { "algorithm.b_k=8" }, { "algorithm.n_k=8" }, { "algorithm.mode=pure_8bit" },
        { "workload.causal=false" }, { "workload.qknorm.gain=3" }, { "workload.seed=7" }, { "workload.dtype=fp16" },
    };
    for (size_t k = 0; k < sizeof numerics / sizeof numerics[0]; k++) {
        const char *ov[] = { W, numerics[k][0] };
        CHECK_MSG(run(numerics[k][0], ov, N(ov)) == 0, "%s reused stale numerics", numerics[k][0]);
        CHECK_MSG(run("base again", base, N(base)) == 0, "base after %s", numerics[k][0]);
    }
    /* a different program with the same numerics parameters misses too */
    tt_case c;
    if (tt_setup(&c, base, N(base)) == 0) {
        c.ep.keep_tile_records = true;
        c.ep.keep_reference = true;     /* part of the key: the same as run() */
        FILE *f = fopen("timed_reuse_prog.lasm", "w");
        const char *file = NULL, *text = lsucode_shipped_text("lampattention", &file);
        if (f && text) {
            fputs(text, f);
            fputs("; same instructions, different file: still the same key\n", f);
            fclose(f);
            ls_timed_options o;
            ls_timed_options_default(&o);
            o.reuse_numerics = 1;
            o.program_path = "timed_reuse_prog.lasm";
            ls_engine_result r;
            ls_timed_result tr;
            char err[512];
            CHECK(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r, &tr, err, sizeof err) == 0 && tr.numerics_reused == 1);
            ls_engine_result_free(&r);
            f = fopen("timed_reuse_prog.lasm", "w");
            if (f) {
                /* drop the stage-2 selection: different numerics */
                char *t = strdup(text), *p = strstr(t, "        SEL2");
                if (p) { char *e = strchr(p, '\n'); memmove(p, e + 1, strlen(e + 1) + 1); }
                fputs(t, f);
                fclose(f);
                free(t);
                CHECK(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r, &tr, err, sizeof err) == 0 && tr.numerics_reused == 0);
                ls_engine_result_free(&r);
            }
        }
        remove("timed_reuse_prog.lasm");
        tt_free(&c);
    }
    ls_timed_cache_clear();
    CHECK_DONE();
}
