/* Where the cycles go (timed_stack.h): the cycle stack and load balance of a run.
 *  1. apportioning: the largest-remainder split sums exactly, on hand-made weights;
 *  2. per core, on hand-made inputs: launch, bottleneck busy, stalls, tail and idle sum to cycles;
 *  3. on real runs of several configurations (the preset, FA2-16, many waves on few cores, a launch
 *     overhead, a memory-bound chip, interleaved slices): both stacks sum to the run's cycles, the
 *     launch cost lands in `launch`, idle cores in `idle`, a starved chip in `memory`, and the
 *     balance figures follow their closed forms. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "timed_testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static uint64_t sum(const uint64_t *v, int n)
{
    uint64_t s = 0;
    for (int k = 0; k < n; k++) s += v[k];
    return s;
}

static void apportion(void)
{
    uint64_t w[5] = { 1, 1, 1, 0, 0 }, out[5];
    CHECK(ls_stack_apportion(10, w, 5, out) == 0);
    CHECK(sum(out, 5) == 10 && out[0] == 4 && out[1] == 3 && out[2] == 3 && out[3] == 0);   /* ties: lower index */
    uint64_t z[3] = { 0, 0, 0 };
    CHECK(ls_stack_apportion(7, z, 3, out) == 7 && sum(out, 3) == 0);                      /* nothing to split */
    uint64_t big[4] = { UINT64_MAX / 3, UINT64_MAX / 5, 12345, UINT64_MAX / 7 };            /* would overflow */
    CHECK(ls_stack_apportion(1000003, big, 4, out) == 0 && sum(out, 4) == 1000003);
    CHECK(out[0] > out[1] && out[1] > out[3] && out[2] == 0);
}

static void hand_made(void)
{
    uint64_t end[3] = { 100, 60, 0 }, busy[3] = { 50, 70, 0 };
    uint64_t stalls[3 * LSSEQ_NSTALLS] = { 0 };
    stalls[0 * LSSEQ_NSTALLS + LSSEQ_STALL_MEMORY] = 30;   /* core 0: 40 exposed cycles, memory 3 : dependency 1 */
    stalls[0 * LSSEQ_NSTALLS + LSSEQ_STALL_DEPENDENCY] = 10;
    ls_stack_inputs in = { .cycles = 100, .cores = 3, .cores_configured = 4, .launch_cycles = 10, .core_end = end,
                           .core_busy = busy, .core_stalls = stalls, .items = 3, .contexts_per_core = 2 };
    uint64_t c[LS_STACK_NCATS];
    ls_stack_core(&in, 0, c);
    CHECK(c[LS_STACK_LAUNCH] == 10 && c[LS_STACK_BUSY] == 50 && c[LS_STACK_STALL0 + LSSEQ_STALL_MEMORY] == 30 &&
          c[LS_STACK_STALL0 + LSSEQ_STALL_DEPENDENCY] == 10 && c[LS_STACK_TAIL] == 0 && sum(c, LS_STACK_NCATS) == 100);
    ls_stack_core(&in, 1, c);   /* busy beyond the active span is clamped; no stall counted: other; waits 40 */
    CHECK(c[LS_STACK_LAUNCH] == 10 && c[LS_STACK_BUSY] == 50 && c[LS_STACK_OTHER] == 0 && c[LS_STACK_TAIL] == 40 &&
          sum(c, LS_STACK_NCATS) == 100);
    ls_stack_core(&in, 2, c);
    CHECK(c[LS_STACK_IDLE] == 100 && sum(c, LS_STACK_NCATS) == 100);
    ls_stack st;
    ls_stack_build(&in, "tensor", &st);
    CHECK(sum(st.chip, LS_STACK_NCATS) == 100 && sum(st.working, LS_STACK_NCATS) == 100);
    CHECK(st.chip[LS_STACK_IDLE] == 50);            /* 2 of 4 cores idle: half the chip's core-cycles */
    CHECK(st.working[LS_STACK_IDLE] == 0 && st.working[LS_STACK_TAIL] == 20 && st.working[LS_STACK_LAUNCH] == 10);
    CHECK(st.cores_used == 2 && st.end_min == 60 && st.end_max == 100 && st.tail_cycles == 40);
    CHECK(st.slots == 8 && fabs(st.wave_efficiency - 3.0 / 8.0) < 1e-12);
    CHECK(st.core_min[LS_STACK_TAIL] == 0 && st.core_max[LS_STACK_TAIL] == 40);
}

typedef struct { const char *name; const char *ov[12]; int nov; } kase;

#define SMALL "workload.heads_q=4", "workload.heads_kv=4", "workload.seq_q=512", "workload.seq_k=512", "timed.timing_only=true", \
    "algorithm.mode=fa2_16bit"

static void real_runs(void)
{
    static const kase cases[] = {
        { "preset", { NULL }, 0 },
        { "preset, full layout", { "accelerator.regfile.layout=full" }, 1 },
        { "fa2_16bit, 4 cores, many waves", { SMALL, "accelerator.cores=4" }, 7 },
        { "launch overhead", { SMALL, "accelerator.cores=4", "accelerator.launch_cycles=9000" }, 8 },
        { "memory-bound", { SMALL, "accelerator.cores=16", "accelerator.memory.bandwidth_gbps=20", "accelerator.memory.l2_mib=0" }, 9 },
        { "interleaved slices", { SMALL, "accelerator.cores=3", "accelerator.interleave_cycles=8" }, 8 },
    };
    for (int i = 0; i < N(cases); i++) {
        const kase *k = &cases[i];
        ls_engine_result r;
        ls_timed_result tr;
        int nov = 0;
        while (nov < 12 && k->ov[nov]) nov++;
        CHECK_MSG(nov == k->nov, "%s: %d overrides", k->name, nov);
        if (tt_run(k->ov, nov, i % 2, &r, &tr) != 0) { CHECK_MSG(0, "%s: run failed", k->name); continue; }
        ls_engine_result_free(&r);
        const ls_stack *st = &tr.stack;
        CHECK_MSG(sum(st->chip, LS_STACK_NCATS) == tr.cycles, "%s: chip stack %llu != %llu cycles", k->name,
                  (unsigned long long)sum(st->chip, LS_STACK_NCATS), (unsigned long long)tr.cycles);
        CHECK_MSG(sum(st->working, LS_STACK_NCATS) == tr.cycles, "%s: working stack sums to %llu", k->name,
                  (unsigned long long)sum(st->working, LS_STACK_NCATS));
        CHECK_MSG(st->cores_used == tr.occupancy.cores_used && st->end_max == tr.cycles, "%s: cores %d/%d, end %llu", k->name,
                  st->cores_used, tr.occupancy.cores_used, (unsigned long long)st->end_max);
        /* idle cores: their share of the chip's core-cycles, to the cycle */
        double idle = (double)tr.cycles * (tr.occupancy.cores - tr.occupancy.cores_used) / tr.occupancy.cores;
        CHECK_MSG(fabs((double)st->chip[LS_STACK_IDLE] - idle) <= 1.0, "%s: idle %llu vs %.1f", k->name,
                  (unsigned long long)st->chip[LS_STACK_IDLE], idle);
        /* the bottleneck's busy cycles, per core at most what it did */
        const ls_timed_unit *b = tt_unit(&tr, st->bottleneck);
        CHECK_MSG(b && st->working[LS_STACK_BUSY] > 0 &&
                  (double)st->working[LS_STACK_BUSY] <= (double)b->busy_cycles / st->cores_used + 1.0,
                  "%s: busy %llu of %s", k->name, (unsigned long long)st->working[LS_STACK_BUSY], st->bottleneck);
        CHECK_MSG(st->tail_cycles == tr.cycles - st->end_min, "%s: tail", k->name);
        CHECK_MSG(fabs(st->wave_efficiency * (double)(ceil(st->waves) * st->slots) - (double)st->items) < 1e-6, "%s: waves",
                  k->name);
        if (strstr(k->name, "launch"))
            CHECK_MSG(st->working[LS_STACK_LAUNCH] == 9000, "%s: launch %llu", k->name,
                      (unsigned long long)st->working[LS_STACK_LAUNCH]);
        else
            CHECK_MSG(st->working[LS_STACK_LAUNCH] == 0, "%s: launch %llu", k->name, (unsigned long long)st->working[LS_STACK_LAUNCH]);
        if (strstr(k->name, "memory-bound")) {
            uint64_t m = st->working[LS_STACK_STALL0 + LSSEQ_STALL_MEMORY];
            CHECK_MSG(m > st->working[LS_STACK_BUSY] && m > tr.cycles / 2, "%s: memory %llu of %llu", k->name,
                      (unsigned long long)m, (unsigned long long)tr.cycles);
        }
        if (strstr(k->name, "many waves"))   /* 4 heads x 4 blocks on 4 cores: 16 items, several per core */
            CHECK_MSG(st->items == 16 && st->waves >= 1.0 && st->chip[LS_STACK_IDLE] == 0, "%s: %lld items, %.2f waves", k->name,
                      st->items, st->waves);
        printf("%-34s cycles %7llu  busy(%s) %6llu  memory %6llu  dependency %6llu  tail %6llu  idle %6llu\n", k->name,
               (unsigned long long)tr.cycles, st->bottleneck, (unsigned long long)st->working[LS_STACK_BUSY],
               (unsigned long long)st->working[LS_STACK_STALL0 + LSSEQ_STALL_MEMORY],
               (unsigned long long)st->working[LS_STACK_STALL0 + LSSEQ_STALL_DEPENDENCY],
               (unsigned long long)st->working[LS_STACK_TAIL], (unsigned long long)st->chip[LS_STACK_IDLE]);
    }
}

int main(void)
{
    apportion();
    hand_made();
    real_runs();
    CHECK_DONE();
}
