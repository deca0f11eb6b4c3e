/* The decode regimes on the timed model and the workload layout (workload.split_kv, pack_gqa; issue 38):
 *  1. the auto split count is FlashAttention-2's heuristic (closed forms);
 *  2. GQA packing: Q in FlashAttention-3's PackGQA layout (row r of a KV head = query r / g of head
 *     r % g); fa2_fp32 on the packed inputs gives the unpacked run's O bit for bit after unpacking
 *     (its rows are independent, and the causal mask sees row r as query r / g); lamp's fp64
 *     reference O and the rows it measures are the unpacked run's (same masks), while its O may
 *     differ (warps share other rows);
 *  3. split-KV on the timed model (lamp, the golden engine's numerics replayed): O is the engine's
 *     with the same splits; the memory traffic grows by exactly the splits' Q loads, their fp32
 *     partial O + LSE stores and the combine's loads of them; a batch-1 decode spreads over more
 *     cores and finishes sooner; the same through the SystemC top;
 *  4. timing only (fa2_16bit): the tile counts are the unsplit run's;
 *  5. the units' own numerics refuse split_kv > 1 (one softmax state per context). */
#include <string.h>

#include "check.h"
#include "timed_testutil.h"

static void heuristic(void)
{
    CHECK(ls_workload_split_heuristic(8, 264, 128, 128) == 32);   /* eligible counts change the blocks per split */
    CHECK(ls_workload_split_heuristic(300, 264, 128, 128) == 1);  /* the blocks fill 80 % of the slots */
    CHECK(ls_workload_split_heuristic(1, 4, 3, 128) == 3);
    CHECK(ls_workload_split_heuristic(2, 16, 1, 128) == 1);        /* one key block: nothing to split */
}

#define PACKW "workload.generator=gaussian", "workload.batch=2", "workload.heads_q=8", "workload.heads_kv=2", \
    "workload.seq_q=4", "workload.seq_k=300", "workload.dim=64", "workload.causal=true", \
    "algorithm.b_q=4", "algorithm.n_q=2", "algorithm.b_k=16", "algorithm.n_k=4"

static int engine(tt_case *c, ls_engine_mode mode, ls_engine_result *r)
{
    c->ep.mode = mode;
    c->ep.compute_reference = true;
    c->ep.keep_reference = true;
    char err[256];
    int rc = ls_engine_run(&c->ep, &c->in, r, err, sizeof err);
    if (rc) fprintf(stderr, "engine: %s\n", err);
    return rc;
}

static void packing(void)
{
    const char *plain[] = { PACKW }, *packed[] = { PACKW, "workload.pack_gqa=true" };
    tt_case a, b;
    CHECK(tt_setup(&a, plain, 12) == 0);
    CHECK(tt_setup(&b, packed, 13) == 0);
    CHECK(b.in.qpack == 4 && b.in.heads_q == 2 && b.in.seq_q == 16 && a.in.qpack <= 1);
    /* the layout: packed row r of (batch 1, KV head 1) is query r / 4 of head 4 + r % 4 */
    for (int r = 0; r < 16; r++) {
        const float *pq = b.in.q + (((size_t)1 * 2 + 1) * 16 + r) * 64;
        const float *uq = a.in.q + (((size_t)1 * 8 + 4 + r % 4) * 4 + r / 4) * 64;
        CHECK(memcmp(pq, uq, 64 * sizeof(float)) == 0);
    }
    size_t n = (size_t)2 * 8 * 4 * 64;
    ls_engine_result ra, rb;
    CHECK(engine(&a, LS_ENGINE_MODE_FA2_FP32, &ra) == 0);
    CHECK(engine(&b, LS_ENGINE_MODE_FA2_FP32, &rb) == 0);
    ls_workload_unpack_rows(&b.in, rb.o);
    CHECK_MSG(memcmp(ra.o, rb.o, n * sizeof(float)) == 0, "fa2_fp32: packed O differs from the unpacked run's");
    CHECK(ra.accuracy.rows == rb.accuracy.rows && ra.accuracy.rows == 64);
    ls_engine_result_free(&ra);
    ls_engine_result_free(&rb);
    CHECK(engine(&a, LS_ENGINE_MODE_LAMP, &ra) == 0);
    CHECK(engine(&b, LS_ENGINE_MODE_LAMP, &rb) == 0);
    ls_workload_unpack_rows(&b.in, rb.o_ref);
    CHECK_MSG(ra.o_ref && rb.o_ref && memcmp(ra.o_ref, rb.o_ref, n * sizeof(float)) == 0,
              "lamp: the fp64 reference of the packed run differs (a mask that is not the model's)");
    CHECK(ra.accuracy.rows == rb.accuracy.rows);
    CHECK_MSG(rb.accuracy.o_rel_fro_err < 2.0 * ra.accuracy.o_rel_fro_err + 0.01, "lamp packed error %.3g, unpacked %.3g",
              rb.accuracy.o_rel_fro_err, ra.accuracy.o_rel_fro_err);
    ls_engine_result_free(&ra);
    ls_engine_result_free(&rb);
    tt_free(&a);
    tt_free(&b);
}

#define DEC "workload.generator=gaussian", "workload.batch=1", "workload.heads_q=4", "workload.heads_kv=1", \
    "workload.seq_q=1", "workload.seq_k=2048", "workload.dim=64", "workload.causal=true", "accelerator.cores=16"

static uint64_t bytes_of(const ls_timed_result *tr)
{
    const ls_timed_unit *d = tt_unit(tr, "dram"), *l = tt_unit(tr, "l2");
    return (d ? d->work : 0) + (l ? l->work : 0);
}

static void split_timed(void)
{
    const char *one[] = { DEC }, *four[] = { DEC, "workload.split_kv=4" };
    ls_engine_result r1, r4;
    ls_timed_result t1, t4, t4s;
    CHECK(tt_run(one, 9, 0, &r1, &t1) == 0);
    CHECK(tt_run(four, 10, 0, &r4, &t4) == 0);
    /* the engine with the same splits */
    tt_case c;
    CHECK(tt_setup(&c, four, 10) == 0);
    CHECK(c.in.split_kv == 4);
    c.ep.compute_reference = false;
    ls_engine_result re;
    char err[256];
    CHECK(ls_engine_run(&c.ep, &c.in, &re, err, sizeof err) == 0);
    size_t n = (size_t)4 * 64;
    CHECK_MSG(memcmp(re.o, r4.o, n * sizeof(float)) == 0, "timed split O differs from the engine's");
    CHECK(memcmp(r1.o, r4.o, n * sizeof(float)) != 0);   /* the splits are real: other roundings */
    ls_engine_result_free(&re);
    tt_free(&c);
    /* traffic: 4 items (heads) x [3 more Q loads (64 bf16) + 4 partial stores and 4 combine loads of (64 + 1) fp32] */
    uint64_t want = 4ull * (3ull * 64 * 2 + 2ull * 4 * 65 * 4);
    CHECK_MSG(bytes_of(&t4) - bytes_of(&t1) == want, "traffic grew by %llu bytes, want %llu",
              (unsigned long long)(bytes_of(&t4) - bytes_of(&t1)), (unsigned long long)want);
    CHECK_MSG(t4.occupancy.cores_used > t1.occupancy.cores_used && t4.cycles < t1.cycles,
              "split 4: %d cores, %llu cycles; unsplit %d cores, %llu cycles", t4.occupancy.cores_used,
              (unsigned long long)t4.cycles, t1.occupancy.cores_used, (unsigned long long)t1.cycles);
    CHECK(t4.kv_tile_loads == t1.kv_tile_loads);
    /* the SystemC top gives the same cycles */
    ls_engine_result r4s;
    CHECK(tt_run(four, 10, 1, &r4s, &t4s) == 0);
    CHECK(t4s.cycles == t4.cycles);
    ls_engine_result_free(&r4s);
    ls_timed_result_free(&t4s);
    ls_engine_result_free(&r1);
    ls_engine_result_free(&r4);
    ls_timed_result_free(&t1);
    ls_timed_result_free(&t4);
}

static void timing_only(void)
{
    const char *one[] = { DEC, "algorithm.mode=fa2_16bit", "timed.timing_only=true" },
               *six[] = { DEC, "algorithm.mode=fa2_16bit", "timed.timing_only=true", "workload.split_kv=6" };
    ls_engine_result r1, r6;
    ls_timed_result t1, t6;
    CHECK(tt_run(one, 11, 0, &r1, &t1) == 0);
    CHECK(tt_run(six, 12, 0, &r6, &t6) == 0);
    CHECK(r1.tiles.executed == r6.tiles.executed && r1.tiles.masked_skipped == r6.tiles.masked_skipped);
    CHECK(r1.recompute.subblocks_active == r6.recompute.subblocks_active);
    CHECK(t6.cycles < t1.cycles);
    ls_engine_result_free(&r1);
    ls_engine_result_free(&r6);
    ls_timed_result_free(&t1);
    ls_timed_result_free(&t6);
}

static void units_refuse(void)
{
    const char *four[] = { DEC, "workload.split_kv=4" };
    tt_case c;
    CHECK(tt_setup(&c, four, 10) == 0);
    c.ep.compute_reference = false;
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.unit_numerics = true;
    ls_engine_result r;
    ls_timed_result tr;
    char err[512] = "";
    CHECK(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r, &tr, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "split_kv") != NULL, "message: %s", err);
    ls_engine_result_free(&r);
    ls_timed_result_free(&tr);
    tt_free(&c);
}

int main(void)
{
    heuristic();
    packing();
    split_timed();
    timing_only();
    units_refuse();
    CHECK_DONE();
}
