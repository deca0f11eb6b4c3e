/* Interleaving of contexts (accelerator.interleave_cycles) and timed operand reads from the on-chip
 * buffer (accelerator.memory.operand_read_rows, regfile.q_placement), on one core:
 *  1. slicing conserves work: every unit's busy cycles, operations and work are the same with
 *     whole-instruction service and with 8-cycle slices, and O is bit-identical;
 *  2. with one resident context there is nobody to take turns with: cycles within 1 %;
 *  3. with two contexts, fine slices break the ping-pong that whole tile instructions settle
 *     into, so the exponentials no longer hide behind the other context's matrix products:
 *     more cycles (the FlashAttention-3 paper's reason for explicit ping-pong scheduling);
 *  4. operand bytes equal the closed form computed here (K and V tile per group of
 *     operand_read_rows query rows, Q fragment per warp), and the buffer port bounds the run
 *     when it is narrow;
 *  5. the SystemC top and the direct drive give the same cycles with slices and reads on;
 *  6. whole tiles (accelerator.skip_masked false): a causal run's tensor and SFU work is the full
 *     Br x Bc tile for every key tile a query block computes (closed form here), O is unchanged,
 *     and a non-causal run does not change at all;
 *  7. one issue slot for the SFU and the tensor unit (accelerator.sfu.shares_tensor_issue): the
 *     same work, O bit-identical, and the two units are never busy in the same cycle (cycles >=
 *     tensor busy + SFU busy on one core, with slices and with whole instructions), while without
 *     it the exponentials of one context hide under the other's matrix products (cycles below
 *     that sum); the SystemC top agrees. */
#include <string.h>

#include "check.h"
#include "timed_testutil.h"

typedef struct {
    ls_timed_result tr;
    float *o;
    size_t no;
} outcome;

static int run(const char *const *ov, int nov, int systemc, outcome *out)
{
    memset(out, 0, sizeof *out);
    ls_engine_result r;
    if (tt_run(ov, nov, systemc, &r, &out->tr) != 0) return -1;
    out->o = tt_copy_o(&r, &out->no);
    ls_engine_result_free(&r);
    return 0;
}


#define N(a) ((int)(sizeof a / sizeof a[0]))
/* FlashAttention-2 shape on one core: Br 128 (4 warps x 32 rows), Bc 64, d 64: the exponentials
 * take as long as the matrix products at this tensor rate (64/d = 1) */
#define FA2 "accelerator.cores=1", "workload.heads_q=1", "workload.heads_kv=1", "workload.causal=false", \
            "algorithm.mode=fa2_16bit", "workload.dim=64", "workload.seq_q=256", "workload.seq_k=1024", \
            "accelerator.regfile.registers=262144", "accelerator.tensor.macs_per_cycle_16bit=1024"

static void conservation_and_contention(void)
{
    const char *il[2] = { "accelerator.interleave_cycles=0", "accelerator.interleave_cycles=8" };
    outcome two[2], one[2];
    for (int i = 0; i < 2; i++) {
        const char *ov2[] = { FA2, "accelerator.regfile.max_contexts=2", il[i] };
        const char *ov1[] = { FA2, "accelerator.regfile.max_contexts=1", il[i] };
        CHECK(run(ov2, N(ov2), 0, &two[i]) == 0);
        CHECK(run(ov1, N(ov1), 0, &one[i]) == 0);
    }
    static const char *const names[] = { "tensor", "sfu", "vector", "lut", "scheduler", "buffer" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const ls_timed_unit *a = tt_unit(&two[0].tr, names[k]), *b = tt_unit(&two[1].tr, names[k]);
        CHECK(a && b);
        if (!a || !b) continue;
        CHECK_MSG(a->busy_cycles == b->busy_cycles && a->ops == b->ops && a->work == b->work,
                  "%s: busy %llu/%llu ops %llu/%llu work %llu/%llu", names[k], (unsigned long long)a->busy_cycles,
                  (unsigned long long)b->busy_cycles, (unsigned long long)a->ops, (unsigned long long)b->ops,
                  (unsigned long long)a->work, (unsigned long long)b->work);
    }
    CHECK(two[0].o && two[1].o && two[0].no == two[1].no && memcmp(two[0].o, two[1].o, two[0].no * sizeof(float)) == 0);
    CHECK_MSG(two[1].tr.transactions > 4 * two[0].tr.transactions, "slices should add transactions: %llu vs %llu",
              (unsigned long long)two[1].tr.transactions, (unsigned long long)two[0].tr.transactions);
    double r1 = (double)one[1].tr.cycles / (double)one[0].tr.cycles;
    double r2 = (double)two[1].tr.cycles / (double)two[0].tr.cycles;
    printf("one context: %llu -> %llu cycles (x%.4f); two contexts: %llu -> %llu cycles (x%.4f)\n",
           (unsigned long long)one[0].tr.cycles, (unsigned long long)one[1].tr.cycles, r1,
           (unsigned long long)two[0].tr.cycles, (unsigned long long)two[1].tr.cycles, r2);
    CHECK_MSG(r1 > 0.99 && r1 < 1.01, "one context: slices alone should cost nothing (x%.4f)", r1);
    CHECK_MSG(r2 > 1.05, "two contexts: fine interleaving should lose the ping-pong (x%.4f)", r2);
    CHECK_MSG(two[0].tr.cycles < one[0].tr.cycles, "two contexts should still beat one");
    for (int i = 0; i < 2; i++) { free(two[i].o); free(one[i].o); }
}

static void operand_reads(void)
{
    /* 2 query blocks x 16 key tiles, bf16 operands */
    const int d = 64, warps = 4, bq = 32, bc = 64, eb = 2, tiles = 2 * (1024 / bc);
    const char *cfgs[3][2] = { { "accelerator.memory.operand_read_rows=0", "accelerator.regfile.q_placement=registers" },
                               { "accelerator.memory.operand_read_rows=32", "accelerator.regfile.q_placement=buffer" },
                               { "accelerator.memory.operand_read_rows=128", "accelerator.regfile.q_placement=registers" } };
    outcome o[3];
    for (int i = 0; i < 3; i++) {
        const char *ov[] = { FA2, "accelerator.regfile.max_contexts=2", cfgs[i][0], cfgs[i][1] };
        CHECK(run(ov, N(ov), 0, &o[i]) == 0);
    }
    uint64_t fills = tt_unit(&o[0].tr, "buffer")->work;
    /* per key tile: K and V once per copy, copies = ceil(rows / operand_read_rows); Q per warp */
    uint64_t kv_tile = (uint64_t)bc * d * eb, q_warp = (uint64_t)bq * d * eb;
    uint64_t want32 = (uint64_t)tiles * (2 * (uint64_t)warps * kv_tile + warps * q_warp);
    uint64_t want128 = (uint64_t)tiles * 2 * kv_tile;
    uint64_t got32 = tt_unit(&o[1].tr, "buffer")->work - fills, got128 = tt_unit(&o[2].tr, "buffer")->work - fills;
    printf("operand bytes: per-warp reads + Q %llu (closed form %llu), one read per block %llu (%llu)\n",
           (unsigned long long)got32, (unsigned long long)want32, (unsigned long long)got128,
           (unsigned long long)want128);
    CHECK(got32 == want32 && got128 == want128);
    CHECK(o[1].tr.cycles >= o[0].tr.cycles);
    CHECK(memcmp(o[0].o, o[1].o, o[0].no * sizeof(float)) == 0);
    for (int i = 0; i < 3; i++) free(o[i].o);

    /* a narrow port (8 bytes per cycle) bounds the run: cycles >= all bytes / 8, and close to it */
    const char *ov[] = { FA2, "accelerator.regfile.max_contexts=2", cfgs[1][0], cfgs[1][1],
                         "accelerator.memory.buffer_bytes_per_cycle=8" };
    outcome n;
    CHECK(run(ov, N(ov), 0, &n) == 0);
    double bound = (double)tt_unit(&n.tr, "buffer")->work / 8.0;
    printf("narrow port: %llu cycles, port bound %.0f (x%.3f)\n", (unsigned long long)n.tr.cycles, bound,
           (double)n.tr.cycles / bound);
    CHECK(n.tr.cycles >= bound && n.tr.cycles < 1.1 * bound);
    free(n.o);
}

static void systemc_equal(void)
{
    const char *ov[] = { FA2, "accelerator.regfile.max_contexts=2", "accelerator.interleave_cycles=8",
                         "accelerator.memory.operand_read_rows=32", "accelerator.regfile.q_placement=buffer",
                         "workload.causal=true" };
    outcome a, b;
    CHECK(run(ov, N(ov), 0, &a) == 0);
    CHECK(run(ov, N(ov), 1, &b) == 0);
    CHECK_MSG(a.tr.cycles == b.tr.cycles && a.tr.transactions == b.tr.transactions,
              "direct %llu cycles vs SystemC %llu", (unsigned long long)a.tr.cycles, (unsigned long long)b.tr.cycles);
    free(a.o); free(b.o);
}

static void whole_tiles(void)
{
    /* causal 448 x 448 (ragged: 3.5 query blocks of 128), Bc 64 (4 x 16), d 64 */
    const int sq = 448, br = 128, bc = 64, d = 64;
    const char *sk[2] = { "accelerator.skip_masked=true", "accelerator.skip_masked=false" };
    outcome o[2];
    for (int i = 0; i < 2; i++) {
        const char *ov[] = { FA2, "accelerator.regfile.max_contexts=2", "workload.seq_q=448", "workload.seq_k=448",
                             "workload.causal=true", sk[i] };
        CHECK(run(ov, N(ov), 0, &o[i]) == 0);
    }
    uint64_t tiles = 0;
    for (int q0 = 0; q0 < sq; q0 += br) {
        int last = q0 + br - 1 < sq - 1 ? q0 + br - 1 : sq - 1;   /* last query row of the block */
        tiles += (uint64_t)(last / bc + 1);                         /* key tiles it sees */
    }
    uint64_t want_macs = tiles * 2ull * br * bc * d, want_exps = tiles * (uint64_t)br * bc;
    const ls_timed_unit *t1 = tt_unit(&o[1].tr, "tensor"), *s1 = tt_unit(&o[1].tr, "sfu"), *t0 = tt_unit(&o[0].tr, "tensor");
    printf("whole tiles: %llu tensor MACs (closed form %llu), %llu SFU exps (%llu + lambda); skipping: %llu MACs; "
           "cycles %llu vs %llu\n", (unsigned long long)t1->work, (unsigned long long)want_macs,
           (unsigned long long)s1->work, (unsigned long long)want_exps, (unsigned long long)t0->work,
           (unsigned long long)o[1].tr.cycles, (unsigned long long)o[0].tr.cycles);
    CHECK(t1->work == want_macs);
    CHECK(s1->work == want_exps + tiles * (uint64_t)br);   /* + one lambda per query row and tile */
    CHECK(t0->work < want_macs && o[1].tr.cycles > o[0].tr.cycles);
    CHECK(memcmp(o[0].o, o[1].o, o[0].no * sizeof(float)) == 0);
    for (int i = 0; i < 2; i++) free(o[i].o);
    /* non-causal: nothing is masked, nothing changes */
    for (int i = 0; i < 2; i++) {
        const char *ov[] = { FA2, "accelerator.regfile.max_contexts=2", sk[i] };
        CHECK(run(ov, N(ov), 0, &o[i]) == 0);
    }
    CHECK(o[0].tr.cycles == o[1].tr.cycles && tt_unit(&o[0].tr, "tensor")->work == tt_unit(&o[1].tr, "tensor")->work);
    for (int i = 0; i < 2; i++) free(o[i].o);
}

static void shared_issue(void)
{
    const char *il[2] = { "accelerator.interleave_cycles=0", "accelerator.interleave_cycles=8" };
    const char *sh[2] = { "accelerator.sfu.shares_tensor_issue=false", "accelerator.sfu.shares_tensor_issue=true" };
    for (int i = 0; i < 2; i++) {
        outcome o[2];
        for (int k = 0; k < 2; k++) {
            const char *ov[] = { FA2, "accelerator.regfile.max_contexts=2", il[i], sh[k] };
            CHECK(run(ov, N(ov), 0, &o[k]) == 0);
        }
        const ls_timed_unit *t0 = tt_unit(&o[0].tr, "tensor"), *s0 = tt_unit(&o[0].tr, "sfu");
        const ls_timed_unit *t1 = tt_unit(&o[1].tr, "tensor"), *s1 = tt_unit(&o[1].tr, "sfu");
        CHECK(t0 && s0 && t1 && s1);
        if (!t0 || !s0 || !t1 || !s1) continue;
        uint64_t sum = t1->busy_cycles + s1->busy_cycles;
        printf("%s: separate units %llu cycles, one issue slot %llu cycles; tensor + SFU busy %llu\n", il[i],
               (unsigned long long)o[0].tr.cycles, (unsigned long long)o[1].tr.cycles, (unsigned long long)sum);
        CHECK(t0->busy_cycles == t1->busy_cycles && s0->busy_cycles == s1->busy_cycles && t0->work == t1->work &&
              s0->work == s1->work);
        CHECK_MSG(o[1].tr.cycles >= sum, "one issue slot: %llu cycles < tensor + SFU busy %llu",
                  (unsigned long long)o[1].tr.cycles, (unsigned long long)sum);
        CHECK_MSG(o[1].tr.cycles < 1.1 * (double)sum, "one issue slot: %llu cycles, far above the serial bound %llu",
                  (unsigned long long)o[1].tr.cycles, (unsigned long long)sum);
        CHECK_MSG(o[0].tr.cycles < sum, "separate units should overlap: %llu cycles vs %llu",
                  (unsigned long long)o[0].tr.cycles, (unsigned long long)sum);
        CHECK(memcmp(o[0].o, o[1].o, o[0].no * sizeof(float)) == 0);
        for (int k = 0; k < 2; k++) free(o[k].o);
    }
    const char *ov[] = { FA2, "accelerator.regfile.max_contexts=2", "accelerator.interleave_cycles=8",
                         "accelerator.sfu.shares_tensor_issue=true", "workload.causal=true" };
    outcome a, b;
    CHECK(run(ov, N(ov), 0, &a) == 0);
    CHECK(run(ov, N(ov), 1, &b) == 0);
    CHECK_MSG(a.tr.cycles == b.tr.cycles, "one issue slot: direct %llu cycles vs SystemC %llu",
              (unsigned long long)a.tr.cycles, (unsigned long long)b.tr.cycles);
    free(a.o); free(b.o);
}

int main(void)
{
    conservation_and_contention();
    operand_reads();
    systemc_equal();
    whole_tiles();
    shared_issue();
    CHECK_DONE();
}
