/* Timing behaviour of the timed model on controlled workloads (one core):
 *  1. occupancy: more resident contexts hide memory and SFU latency -> fewer cycles;
 *  2. layouts: with a register file that holds one more compact context than full ones and rare
 *     disruptive tiles, compact is faster; with registers to spare (same occupancy) and many
 *     disruptive tiles, compact pays the slow path and is slower; O is identical either way;
 *  3. a compute-bound configuration lies within 10% of the closed-form bound computed here
 *     (tensor MACs of the 16-bit machine / MACs per cycle). */
#include <string.h>

#include "check.h"
#include "timed_testutil.h"

static int run(const char *const *ov, int nov, ls_timed_result *tr, float **o, size_t *no, uint64_t *executed)
{
    tt_case c;
    if (tt_setup(&c, ov, nov) != 0) return -1;
    c.ep.compute_reference = false;
    ls_engine_result r;
    char err[512];
    int rc = ls_timed_run(&c.cfg, &c.ep, &c.in, &r, tr, err, sizeof err);
    if (rc != 0) fprintf(stderr, "timed: %s\n", err);
    if (rc == 0 && o) {
        *no = (size_t)r.batch * r.heads_q * r.seq_q * r.dim;
        *o = malloc(*no * sizeof(float));
        if (*o) memcpy(*o, r.o, *no * sizeof(float));
    }
    if (executed) *executed = r.tiles.executed;
    ls_engine_result_free(&r);
    tt_free(&c);
    return rc;
}

#define BASE "accelerator.cores=1", "workload.heads_q=1", "workload.heads_kv=1"

static void occupancy(void)
{
    uint64_t cyc[3];
    const char *ctx[3] = { "accelerator.regfile.max_contexts=1", "accelerator.regfile.max_contexts=2",
                           "accelerator.regfile.max_contexts=4" };
    for (int i = 0; i < 3; i++) {
        const char *ov[] = { BASE, "workload.seq_q=512", "workload.seq_k=512", "workload.causal=false",
                             "algorithm.mode=pure_8bit", "accelerator.regfile.registers=262144",
                             /* 4 x (2 stages x 32 KiB K/V) must fit the buffer too */
                             "accelerator.memory.buffer_kib=256", ctx[i] };
        ls_timed_result tr;
        CHECK(run(ov, (int)(sizeof ov / sizeof ov[0]), &tr, NULL, NULL, NULL) == 0);
        cyc[i] = tr.cycles;
        CHECK_MSG(tr.occupancy.max == (i == 0 ? 1 : i == 1 ? 2 : 4), "max resident %d", tr.occupancy.max);
        printf("occupancy limit %d: %llu cycles, mean %.2f contexts, stalls memory %llu\n", tr.occupancy.limit,
               (unsigned long long)tr.cycles, tr.occupancy.mean, (unsigned long long)tr.stalls[2]);
    }
    CHECK_MSG(cyc[1] < cyc[0] && cyc[2] < cyc[1], "cycles must fall with occupancy: %llu %llu %llu",
              (unsigned long long)cyc[0], (unsigned long long)cyc[1], (unsigned long long)cyc[2]);
}

static void layouts(void)
{
    /* (a) registers for 3 compact or 2 full contexts; rare disruption (tau = 1: no stage 2) */
    uint64_t c[2];
    float *o[2] = { NULL, NULL };
    size_t no[2] = { 0, 0 };
    const char *lay[2] = { "accelerator.regfile.layout=compact", "accelerator.regfile.layout=full" };
    ls_timed_result tr[2];
    for (int i = 0; i < 2; i++) {
        const char *ov[] = { BASE, "workload.seq_q=768", "workload.seq_k=1024", "workload.causal=false",
                             "algorithm.tau=1", "accelerator.regfile.registers=86016",
                             "accelerator.regfile.max_contexts=8", lay[i] };
        CHECK(run(ov, (int)(sizeof ov / sizeof ov[0]), &tr[i], &o[i], &no[i], NULL) == 0);
        c[i] = tr[i].cycles;
        printf("rare disruption, %s: %llu cycles, %d contexts, slow-path warp-tiles %llu\n", tr[i].layout,
               (unsigned long long)c[i], tr[i].occupancy.limit, (unsigned long long)tr[i].slow_tiles);
    }
    CHECK(tr[0].occupancy.limit == 3 && tr[1].occupancy.limit == 2);
    CHECK_MSG(c[0] < c[1], "compact (more contexts) should be faster: %llu vs %llu", (unsigned long long)c[0],
              (unsigned long long)c[1]);
    CHECK(o[0] && o[1] && no[0] == no[1] && memcmp(o[0], o[1], no[0] * sizeof(float)) == 0);
    free(o[0]); free(o[1]);
    /* (b) same occupancy, many disruptive tiles (small tau): the slow path costs compact cycles */
    for (int i = 0; i < 2; i++) {
        const char *ov[] = { BASE, "workload.seq_q=512", "workload.seq_k=1024", "workload.causal=false",
                             "algorithm.tau=0.03125", "accelerator.regfile.max_contexts=2", lay[i] };
        CHECK(run(ov, (int)(sizeof ov / sizeof ov[0]), &tr[i], NULL, NULL, NULL) == 0);
        c[i] = tr[i].cycles;
        printf("frequent disruption, %s: %llu cycles, %d contexts, slow-path warp-tiles %llu (%llu cycles)\n",
               tr[i].layout, (unsigned long long)c[i], tr[i].occupancy.limit, (unsigned long long)tr[i].slow_tiles,
               (unsigned long long)tr[i].slow_cycles);
    }
    CHECK(tr[0].occupancy.limit == tr[1].occupancy.limit);
    CHECK(tr[0].slow_tiles > 0 && tr[1].slow_tiles == 0);
    CHECK_MSG(c[0] > c[1], "compact with slow paths should be slower: %llu vs %llu", (unsigned long long)c[0],
              (unsigned long long)c[1]);
}

static void bound(void)
{
    /* 16-bit machine, non-causal, 4 resident contexts on one core: tensor-bound */
    int sq = 512, sk = 1024, d = 128, bq = 32, nq = 4, bk = 16, nk = 4, macs16 = 2048;
    const char *ov[] = { BASE, "workload.seq_q=512", "workload.seq_k=1024", "workload.causal=false",
                         "workload.dim=128", "algorithm.mode=fa2_16bit", "accelerator.regfile.registers=262144",
                         "accelerator.memory.buffer_kib=256", "accelerator.regfile.max_contexts=4" };
    ls_timed_result tr;
    uint64_t executed = 0;
    CHECK(run(ov, (int)(sizeof ov / sizeof ov[0]), &tr, NULL, NULL, &executed) == 0);
    double warp_tiles = (double)(sq / (bq * nq)) * nq * (sk / (bk * nk));
    CHECK(executed == (uint64_t)warp_tiles);
    /* per warp-tile: Q.K^T (b_q x Bc x d) and P.V (Bc x b_q x d) MACs, all in 16-bit */
    double mac = warp_tiles * 2.0 * bq * (bk * nk) * d;
    double b = mac / macs16;
    printf("compute bound: %llu cycles, closed-form tensor bound %.0f (ratio %.3f)\n", (unsigned long long)tr.cycles,
           b, (double)tr.cycles / b);
    CHECK_MSG((double)tr.cycles >= b && (double)tr.cycles <= 1.10 * b, "cycles %llu vs bound %.0f",
              (unsigned long long)tr.cycles, b);
}

int main(void)
{
    occupancy();
    layouts();
    bound();
    CHECK_DONE();
}
