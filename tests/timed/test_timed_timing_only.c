#define _POSIX_C_SOURCE 200809L
/* timed.timing_only: for the fixed-selection baselines (fa2_16bit: every active sub-block HP;
 * pure_8bit: none) the selection is synthesised from the geometry and no arithmetic is done. Every
 * timed figure (cycles, units, stalls, occupancy, slow path, energy, instruction and transaction
 * counts) and the geometric statistics (tiles, recompute) must equal a full run's, on ragged,
 * causal and non-causal, GQA, multi-core and multi-context shapes; the timing-only run must really
 * skip the arithmetic (O stays zero); data-dependent settings are refused with a clear message. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "timed_testutil.h"
#include "lsucode.h"

static int same_timing(const char *name, const ls_timed_result *a, const ls_timed_result *b)
{
    int ok = 1;
#define SAME(f) do { if (a->f != b->f) { ok = 0; fprintf(stderr, "%s: %s %.17g vs %.17g\n", name, #f, \
                                                          (double)a->f, (double)b->f); } } while (0)
    SAME(cycles); SAME(time_us); SAME(tflops_effective); SAME(nunits);
    SAME(slow_tiles); SAME(slow_cycles); SAME(instructions); SAME(transactions);
    for (int k = 0; k < LS_TIMED_NSTALLS; k++) SAME(stalls[k]);
    for (int u = 0; u < a->nunits && u < b->nunits; u++) {
        SAME(units[u].busy_cycles); SAME(units[u].ops); SAME(units[u].work); SAME(units[u].utilisation);
        if (strcmp(a->units[u].name, b->units[u].name)) ok = 0;
    }
    SAME(occupancy.limit); SAME(occupancy.fit); SAME(occupancy.mean); SAME(occupancy.max);
    SAME(occupancy.register_utilisation); SAME(occupancy.regs_per_warp); SAME(occupancy.regs_per_context);
    SAME(occupancy.prefetch_depth); SAME(occupancy.cores); SAME(occupancy.cores_used);
    SAME(energy_uj.tensor); SAME(energy_uj.lut); SAME(energy_uj.sfu); SAME(energy_uj.vector);
    SAME(energy_uj.scheduler); SAME(energy_uj.regfile); SAME(energy_uj.buffer); SAME(energy_uj.l2);
    SAME(energy_uj.dram); SAME(energy_uj.total);
#undef SAME
    return ok;
}

/* tiles and recompute come from the geometry in a timing-only run: exactly the full run's */
static int same_geometry_stats(const ls_engine_result *a, const ls_engine_result *b)
{
    if (a->tiles.executed != b->tiles.executed || a->tiles.masked_skipped != b->tiles.masked_skipped) return 0;
    if (a->tiles.hist_len != b->tiles.hist_len || a->tiles.disruptive_rate != b->tiles.disruptive_rate) return 0;
    if (memcmp(a->tiles.hp_subblocks_hist, b->tiles.hp_subblocks_hist, (size_t)a->tiles.hist_len * 8) != 0) return 0;
    return memcmp(&a->recompute, &b->recompute, sizeof a->recompute) == 0;
}

static int all_zero(const float *o, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (o[i] != 0.0f) return 0;
    return 1;
}

/* A full run and a timing-only run of ov; program: a .lasm file instead of the shipped one. */
static void compare(const char *name, const char *const *ov, int nov, const char *program)
{
    tt_case c;
    if (tt_setup(&c, ov, nov) != 0) { CHECK_MSG(0, "%s: setup", name); return; }
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.program_path = program;
    ls_engine_result full, to;
    ls_timed_result tf, tt;
    char err[512];
    int rf = ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &full, &tf, err, sizeof err);
    CHECK_MSG(rf == 0, "%s full: %s", name, err);
    o.timing_only = 1;
    int rt = ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &to, &tt, err, sizeof err);
    CHECK_MSG(rt == 0, "%s timing only: %s", name, err);
    if (rf == 0 && rt == 0) {
        size_t n = (size_t)c.in.batch * c.in.heads_q * c.in.seq_q * c.in.dim;
        CHECK_MSG(tf.cycles > 0 && tf.units[0].work > 0, "%s: the full run did no work", name);
        CHECK_MSG(same_timing(name, &tf, &tt), "%s: timing differs (cycles %llu vs %llu)", name,
                  (unsigned long long)tf.cycles, (unsigned long long)tt.cycles);
        CHECK_MSG(same_geometry_stats(&full, &to), "%s: tiles/recompute differ (executed %llu vs %llu)", name,
                  (unsigned long long)full.tiles.executed, (unsigned long long)to.tiles.executed);
        CHECK_MSG(!full.timing_only && !tf.timing_only && to.timing_only && tt.timing_only, "%s: flags", name);
        /* the arithmetic really was skipped: the full O has data, the timing-only O none */
        CHECK_MSG(!all_zero(full.o, n) && all_zero(to.o, n), "%s: O", name);
        CHECK_MSG(!to.accuracy.valid && to.events.exp_underflows == 0, "%s: no accuracy or events", name);
        printf("%-40s cycles %10llu  tiles %llu  wall %.3f s full / %.3f s timing only\n", name,
               (unsigned long long)tt.cycles, (unsigned long long)to.tiles.executed, tf.wall_seconds, tt.wall_seconds);
    }
    ls_engine_result_free(&full);
    ls_engine_result_free(&to);
    tt_free(&c);
}

/* ls_timed_run_opts refuses timing_only for ov with a message containing want1 and want2. */
static void refused(const char *name, const char *const *ov, int nov, bool records, const char *want1, const char *want2)
{
    tt_case c;
    if (tt_setup(&c, ov, nov) != 0) { CHECK_MSG(0, "%s: setup", name); return; }
    c.ep.keep_tile_records = records;
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.timing_only = 1;
    ls_engine_result r;
    ls_timed_result tr;
    char err[512] = "";
    CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r, &tr, err, sizeof err) != 0, "%s: accepted", name);
    CHECK_MSG(strstr(err, want1) && strstr(err, want2), "%s: message '%s'", name, err);
    ls_engine_result_free(&r);
    tt_free(&c);
}

#define N(a) (int)(sizeof a / sizeof a[0])

int main(void)
{
    static const char *const modes[] = { "algorithm.mode=fa2_16bit", "algorithm.mode=pure_8bit" };
    for (int m = 0; m < 2; m++) {
        char name[128];
        /* causal, ragged (not multiples of the tile), GQA, 3 cores, up to 2 contexts per core */
        const char *a[] = { modes[m], "workload.seq_q=200", "workload.seq_k=333", "workload.heads_q=4",
                            "workload.heads_kv=2", "accelerator.cores=3", "accelerator.regfile.max_contexts=2" };
        snprintf(name, sizeof name, "%s causal gqa", modes[m] + 15);
        compare(name, a, N(a), NULL);
        /* non-causal, ragged, batch 2, GQA 6/3, 4 cores, small tiles */
        const char *b[] = { modes[m], "workload.causal=false", "workload.seq_q=150", "workload.seq_k=517",
                            "workload.batch=2", "workload.heads_q=6", "workload.heads_kv=3", "accelerator.cores=4",
                            "algorithm.b_q=16", "algorithm.n_q=2", "algorithm.b_k=8", "algorithm.n_k=8" };
        snprintf(name, sizeof name, "%s non-causal batch 2", modes[m] + 15);
        compare(name, b, N(b), NULL);
        /* causal with seq_q < seq_k (bottom-right aligned), fp32 operands, one core with 2 contexts,
         * a slow memory (stalls) */
        const char *d[] = { modes[m], "workload.seq_q=97", "workload.seq_k=300", "workload.heads_q=3",
                            "workload.heads_kv=1", "workload.dtype=fp32", "accelerator.cores=1",
                            "accelerator.regfile.max_contexts=2", "accelerator.memory.latency=3000" };
        snprintf(name, sizeof name, "%s causal seq_q < seq_k", modes[m] + 15);
        compare(name, d, N(d), NULL);
        /* a sliding window (not a tile multiple), seq_q < seq_k */
        const char *w[] = { modes[m], "workload.seq_q=150", "workload.seq_k=400", "workload.window=90",
                            "workload.heads_q=2", "workload.heads_kv=1", "accelerator.cores=2" };
        snprintf(name, sizeof name, "%s sliding window", modes[m] + 15);
        compare(name, w, N(w), NULL);
    }
    /* the compact-layout program with the fixed policies: 8-bit logits, stage-1 HP recomputes of
     * every active sub-block (fa2_16bit) and the slow path of the compact layout */
    const char *file = NULL, *text = lsucode_shipped_text("lampattention", &file);
    FILE *f = fopen("timed_timing_only_prog.lasm", "w");
    CHECK(text && f);
    if (text && f) {
        fputs(text, f);
        fclose(f);
        for (int m = 0; m < 2; m++) {
            const char *e[] = { modes[m], "workload.seq_q=200", "workload.seq_k=333", "workload.heads_q=2",
                                "workload.heads_kv=1", "accelerator.cores=2", "accelerator.regfile.layout=compact" };
            char name[128];
            snprintf(name, sizeof name, "%s lampattention.lasm compact", modes[m] + 15);
            compare(name, e, N(e), "timed_timing_only_prog.lasm");
        }
    }
    remove("timed_timing_only_prog.lasm");

    /* data-dependent settings are refused, naming the key and the mode */
    const char *lamp[] = { "algorithm.mode=lamp" };
    refused("lamp", lamp, N(lamp), false, "timed.timing_only", "mode lamp");
    const char *raise[] = { "algorithm.mode=pure_8bit", "algorithm.above_one=raise" };
    refused("above_one raise", raise, N(raise), false, "timed.timing_only", "raise");
    const char *rec[] = { "algorithm.mode=fa2_16bit" };
    refused("tile records", rec, N(rec), true, "timed.timing_only", "records");
    /* ... and by the configuration (exit 2 on the command line) */
    const char *const bad[][2] = {
        { "timed.timing_only=true", "algorithm.mode=lamp" },
        { "timed.timing_only=true", "algorithm.mode=fa2_fp32" },
    };
    for (int k = 0; k < 2; k++) {
        ls_config cfg;
        ls_config_diag d;
        CHECK_MSG(ls_config_load(&cfg, NULL, bad[k], 2, &d) != 0, "%s accepted", bad[k][1]);
        CHECK_MSG(strstr(d.message, "timed.timing_only") && strstr(d.message, bad[k][1] + 15), "message '%s'", d.message);
        ls_config_free(&cfg);
    }
    CHECK_DONE();
}
