/* The steady-state fast-forward (timed.fast_forward, sim/timed/timed_ff.c) against full timed runs, on a
 * decode layer of 24 batch entries (2 cores). The timing-only FA2-16 and pure 8-bit runs repeat exactly once
 * the slots are full: the fast-forward applies, and its extrapolated cycles, dynamic energy and every unit's
 * busy cycles equal the full run's. LampAttention's entries differ in their HP sub-blocks (the golden
 * engine's numerics, compact and full layouts): its steps of entries do not cost the same cycles, the
 * detector says so, and the run is the full one, cycle for cycle. Either way the numerics figures are the
 * full run's; through the SystemC top as directly. With too few entries, or an order that mixes entries
 * (LONGEST_FIRST's head sections), the run is timed in full and says why. */
#include <math.h>

#include "check.h"
#include "timed_testutil.h"

static double rel(double a, double b) { return b != 0 ? fabs(a / b - 1.0) : fabs(a); }

/* steady: the fast-forward applies (and then equals the full run: these runs repeat exactly); else it says
 * why not and the run is the full one */
static void compare(const char *name, const char *const *extra, int nextra, bool steady)
{
    const char *ov[16] = { "accelerator.cores=2", "workload.batch=24", "workload.heads_q=4", "workload.heads_kv=1",
                           "workload.seq_q=4", "workload.seq_k=2048", "workload.causal=false" };
    int n = 7;
    for (int i = 0; i < nextra; i++) ov[n++] = extra[i];
    ls_engine_result rf, rx;
    ls_timed_result full, ff;
    if (tt_run_ff(ov, n, 0, 0, &rf, &full) != 0 || tt_run_ff(ov, n, 0, 1, &rx, &ff) != 0) {
        CHECK_MSG(0, "%s: run failed", name);
        return;
    }
    CHECK_MSG(steady ? ff.fast_forward.applied && ff.fast_forward.k2 > ff.fast_forward.k1 &&
                           ff.fast_forward.timed_entries < 24 && ff.fast_forward.step_diff <= 0.001
                     : !ff.fast_forward.applied && strstr(ff.fast_forward.why_not, "not steady") != NULL,
              "%s: fast-forward applied %d (k1 %d, k2 %d, %d entries timed, steps %.4f apart): %s", name,
              ff.fast_forward.applied, ff.fast_forward.k1, ff.fast_forward.k2, ff.fast_forward.timed_entries,
              ff.fast_forward.step_diff, ff.fast_forward.why_not);
    CHECK_MSG(!full.fast_forward.applied && !full.fast_forward.why_not[0], "%s: the full run says nothing of it", name);
    double dc = rel((double)ff.cycles, (double)full.cycles), de = rel(ff.energy_uj.total, full.energy_uj.total);
    CHECK_MSG(ff.cycles == full.cycles && ff.energy_uj.total == full.energy_uj.total,
              "%s: cycles %llu vs full %llu (%.3f %%), energy %.4f vs %.4f uJ (%.3f %%)", name,
              (unsigned long long)ff.cycles, (unsigned long long)full.cycles, 100 * dc, ff.energy_uj.total,
              full.energy_uj.total, 100 * de);
    double worst = 0;
    const char *worst_unit = "";
    for (int u = 0; u < full.nunits; u++) {
        const ls_timed_unit *a = &full.units[u], *b = tt_unit(&ff, a->name);
        CHECK_MSG(b != NULL, "%s: unit %s missing", name, a->name);
        if (!b) continue;
        double d = rel((double)b->busy_cycles, (double)a->busy_cycles);
        if (d > worst) { worst = d; worst_unit = a->name; }
    }
    CHECK_MSG(worst == 0, "%s: unit %s busy cycles %.3f %% off the full run", name, worst_unit, 100 * worst);
    /* the numerics are the whole batch's either way */
    CHECK_MSG(rx.tiles.executed == rf.tiles.executed && rx.recompute.subblock_rate == rf.recompute.subblock_rate,
              "%s: tiles %llu vs %llu, HP rate %g vs %g", name, (unsigned long long)rx.tiles.executed,
              (unsigned long long)rf.tiles.executed, rx.recompute.subblock_rate, rf.recompute.subblock_rate);
    printf("%-22s %s (k1 %d, k2 %d, %d of 24 entries timed, steps %.4f apart%s%s): cycles %.3f %%, energy %.3f %%, "
           "worst unit %.3f %%\n", name, ff.fast_forward.applied ? "applied" : "not applied", ff.fast_forward.k1,
           ff.fast_forward.k2, ff.fast_forward.timed_entries, ff.fast_forward.step_diff,
           ff.fast_forward.why_not[0] ? ": " : "", ff.fast_forward.why_not, 100 * dc, 100 * de, 100 * worst);
    ls_engine_result_free(&rf);
    ls_engine_result_free(&rx);
}

int main(void)
{
    const char *lamp[] = { "algorithm.mode=lamp", "accelerator.regfile.layout=compact" };
    const char *lamp_full[] = { "algorithm.mode=lamp", "accelerator.regfile.layout=full" };
    const char *fa2[] = { "algorithm.mode=fa2_16bit", "timed.timing_only=true" };
    const char *pure8[] = { "algorithm.mode=pure_8bit", "timed.timing_only=true" };
    compare("lamp compact", lamp, 2, false);
    compare("lamp full", lamp_full, 2, false);
    compare("fa2_16bit timing only", fa2, 2, true);
    compare("pure_8bit timing only", pure8, 2, true);

    /* through the SystemC top (the kernel started once per run of the sequencer): the same extrapolation */
    {
        const char *ov[] = { "accelerator.cores=2", "workload.batch=24", "workload.heads_q=4", "workload.heads_kv=1",
                             "workload.seq_q=4", "workload.seq_k=2048", "workload.causal=false", fa2[0], fa2[1] };
        ls_engine_result ra, rb;
        ls_timed_result da, sb;
        if (tt_run_ff(ov, 9, 0, 1, &ra, &da) == 0 && tt_run_ff(ov, 9, 1, 1, &rb, &sb) == 0) {
            CHECK_MSG(sb.fast_forward.applied && sb.cycles == da.cycles && sb.energy_uj.total == da.energy_uj.total,
                      "SystemC: applied %d, cycles %llu vs %llu", sb.fast_forward.applied, (unsigned long long)sb.cycles,
                      (unsigned long long)da.cycles);
            ls_engine_result_free(&ra);
            ls_engine_result_free(&rb);
        } else {
            CHECK_MSG(0, "SystemC runs failed");
        }
    }

    /* LONGEST_FIRST's head sections mix batch entries in the order (a causal prefill, 2 KV heads): timed in
     * full, cycle for cycle, with the reason */
    {
        const char *ov[] = { "accelerator.cores=2", "workload.batch=16", "workload.heads_q=8", "workload.heads_kv=2",
                             "workload.seq_q=256", "workload.seq_k=256", "accelerator.scheduling=longest_first",
                             fa2[0], fa2[1] };
        ls_engine_result ra, rb;
        ls_timed_result fa, fb;
        if (tt_run_ff(ov, 9, 0, 0, &ra, &fa) == 0 && tt_run_ff(ov, 9, 0, 1, &rb, &fb) == 0) {
            CHECK_MSG(!fb.fast_forward.applied && strstr(fb.fast_forward.why_not, "not batch-major") && fb.cycles == fa.cycles,
                      "longest_first: applied %d (%s), cycles %llu vs %llu", fb.fast_forward.applied,
                      fb.fast_forward.why_not, (unsigned long long)fb.cycles, (unsigned long long)fa.cycles);
            ls_engine_result_free(&ra);
            ls_engine_result_free(&rb);
        } else {
            CHECK_MSG(0, "longest_first runs failed");
        }
    }

    /* too few repetitions: timed in full, cycle for cycle, with the reason */
    const char *few[] = { "accelerator.cores=2", "workload.batch=3", "workload.heads_q=4", "workload.heads_kv=1",
                          "workload.seq_q=4", "workload.seq_k=1024", "algorithm.mode=fa2_16bit", "timed.timing_only=true" };
    ls_engine_result r1, r2;
    ls_timed_result a, b;
    if (tt_run_ff(few, 8, 0, 0, &r1, &a) == 0 && tt_run_ff(few, 8, 0, 1, &r2, &b) == 0) {
        CHECK_MSG(!b.fast_forward.applied && b.fast_forward.why_not[0] && b.cycles == a.cycles &&
                  b.energy_uj.total == a.energy_uj.total, "batch 3: applied %d (%s), cycles %llu vs %llu",
                  b.fast_forward.applied, b.fast_forward.why_not, (unsigned long long)b.cycles, (unsigned long long)a.cycles);
        printf("batch 3: not applied (%s)\n", b.fast_forward.why_not);
        ls_engine_result_free(&r1);
        ls_engine_result_free(&r2);
    } else {
        CHECK_MSG(0, "batch 3 runs failed");
    }
    CHECK_DONE();
}
