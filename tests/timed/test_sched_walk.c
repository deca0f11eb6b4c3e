/* The recompute scheduler's stage-2 timing (hw/sched/sched.c) against its closed form: with stage 1
 * off every active sub-block of a tile is a stage-2 candidate, so on a non-causal layer (all n_k
 * sub-blocks active) a warp's walk costs the tile-wide reduction + 2^n_k + subset_latency - 1, the
 * pipelined walk of rtl/lamp_stage2.sv (docs/rtl.md). With vector lanes wide enough for the
 * reduction to take one cycle and sort_latency 0, the scheduler's busy cycles per walk are exactly
 * 1 (SEL1's tile maxima) + 1 + 2^n_k + subset_latency - 1; a form linear in the candidates fails.
 * The walk's energy counts 2^n_k subset tests on each of b_q query lanes per walk (energy.subset_test each). */
#include <math.h>

#include "check.h"
#include "timed_testutil.h"

/* The scheduler's busy cycles; its energy in uJ with energy.subset_test at subset_pj into *energy_uj. */
static uint64_t sched_run(int n_k, int subset_latency, double subset_pj, double *energy_uj)
{
    char nk[64], sl[64], st[64];
    snprintf(nk, sizeof nk, "algorithm.n_k=%d", n_k);
    snprintf(sl, sizeof sl, "accelerator.scheduler.subset_latency=%d", subset_latency);
    snprintf(st, sizeof st, "accelerator.energy.subset_test=%g", subset_pj);
    const char *ov[] = { "workload.causal=false", "algorithm.stage1=false", "accelerator.scheduler.sort_latency=0",
                         "accelerator.vector.lanes=65536", "workload.seq_q=256", "workload.seq_k=256", nk, sl, st };
    ls_engine_result r;
    ls_timed_result tr;
    if (tt_run(ov, (int)(sizeof ov / sizeof ov[0]), 0, &r, &tr) != 0) return 0;
    ls_engine_result_free(&r);
    const ls_timed_unit *u = tt_unit(&tr, "scheduler");
    *energy_uj = tr.energy_uj.scheduler;
    return u ? u->busy_cycles : 0;
}

static uint64_t sched_busy(int n_k, int subset_latency)
{
    double e;
    return sched_run(n_k, subset_latency, 1.0, &e);
}

int main(void)
{
    for (int n_k = 4; n_k <= 8; n_k += 4) {
        uint64_t b0 = sched_busy(n_k, 0), b1 = sched_busy(n_k, 1), b4 = sched_busy(n_k, 4);
        uint64_t walks = b1 - b0;   /* one cycle more per walk */
        CHECK_MSG(b0 > 0 && walks > 0 && b4 == b0 + 4 * walks, "n_k %d: busy %llu / %llu / %llu", n_k,
                  (unsigned long long)b0, (unsigned long long)b1, (unsigned long long)b4);
        uint64_t per_walk = 1 + 1 + ((uint64_t)1 << n_k) - 1;   /* SEL1 maxima, reduction, the walk at latency 0 */
        CHECK_MSG(b0 == walks * per_walk, "n_k %d: %llu busy cycles for %llu walks, expected %llu each", n_k,
                  (unsigned long long)b0, (unsigned long long)walks, (unsigned long long)per_walk);
        printf("n_k %d: %llu walks, %llu scheduler cycles each at subset_latency 0\n", n_k, (unsigned long long)walks,
               (unsigned long long)(walks ? b0 / walks : 0));
        /* one more pJ per lane test adds a pJ per subset and query lane of every walk (b_q = 32, the default) */
        double e1, e2;
        sched_run(n_k, 0, 1.0, &e1);
        sched_run(n_k, 0, 2.0, &e2);
        double tests = (double)walks * (double)((uint64_t)1 << n_k) * 32.0;
        CHECK_MSG(fabs((e2 - e1) * 1e6 - tests) < 1e-6 * tests, "n_k %d: subset tests priced %.3f, expected %.0f", n_k,
                  (e2 - e1) * 1e6, tests);
    }
    CHECK_DONE();
}
