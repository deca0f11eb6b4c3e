/* Sampled numerics (algorithm.sample_query_blocks, issue 38 part 4) in the golden engine:
 *  1. the pick: one block per stratum, every mask phase represented, 0 / >= blocks mean all;
 *  2. the sampled blocks compute exactly what a full run computes (O rows and records bit for bit);
 *     the others' O rows stay zero;
 *  3. the copied records' geometry flags (absent, fully masked) are the full run's, on causal,
 *     sliding-window, ragged (seq_q not a multiple of the block) and decode-like shapes;
 *  4. where every query block sees the same data (non-causal, Q periodic in the block), the copies
 *     equal the full run's records exactly: the mapping moves selections to the right tiles;
 *  5. tiles.* count every record; sample >= blocks is the unsampled run bit for bit; the standard
 *     errors are finite with >= 2 sampled items and NaN with one. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "engine_sample.h"
#include "eng_testutil.h"

static int run(ls_attn_inputs *in, int mode, int sample, ls_engine_result *r)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.mode = mode;
    p.threads = 2;
    p.compute_reference = true;
    p.keep_tile_records = true;
    p.sample_query_blocks = sample;
    char err[256];
    int rc = ls_engine_run(&p, in, r, err, sizeof err);
    if (rc) fprintf(stderr, "engine: %s\n", err);
    return rc;
}

static void test_pick(void)
{
    unsigned char s[64];
    CHECK(ls_engine_sample_pick(64, 16, 1, s) == 16);
    for (int i = 0; i < 16; i++) CHECK(s[4 * i] + s[4 * i + 1] + s[4 * i + 2] + s[4 * i + 3] == 1);
    CHECK(ls_engine_sample_phases(128, 64) == 1);
    CHECK(ls_engine_sample_phases(64, 128) == 2);
    CHECK(ls_engine_sample_phases(96, 64) == 2);
    CHECK(ls_engine_sample_pick(64, 8, 2, s) == 8);
    int ph[2] = {0, 0};
    for (int i = 0; i < 64; i++) if (s[i]) ph[i % 2]++;
    CHECK_MSG(ph[0] == 4 && ph[1] == 4, "phases %d / %d", ph[0], ph[1]);
    CHECK(ls_engine_sample_pick(64, 0, 1, s) == 64);
    CHECK(ls_engine_sample_pick(64, 64, 1, s) == 64 && ls_engine_sample_pick(64, 99, 1, s) == 64);
}

/* 2, 3, 5 on one shape */
static void shape(int sq, int sk, int window, int sample, int bq, int nq, int bk, int nk)
{
    ls_attn_inputs in;
    CHECK(tu_inputs_qknorm(&in, 11 + (uint64_t)sq, 1, 2, 1, sq, sk, 32, 1, 1.0, 3.0) == 0);
    in.window = window;
    ls_engine_result full, smp;
    ls_engine_params q;
    ls_run_engine_defaults(&q);
    q.b_q = bq; q.n_q = nq; q.b_k = bk; q.n_k = nk;
    q.mode = LS_ENGINE_MODE_LAMP; q.threads = 2; q.compute_reference = true; q.keep_tile_records = true;
    char err[256];
    CHECK(ls_engine_run(&q, &in, &full, err, sizeof err) == 0);
    q.sample_query_blocks = sample;
    CHECK(ls_engine_run(&q, &in, &smp, err, sizeof err) == 0);
    int br = bq * nq, nqb = full.n_qblocks, nkt = full.n_ktiles;
    unsigned char *sampled = malloc((size_t)nqb);
    ls_engine_sample_pick(nqb, sample, ls_engine_sample_phases(br, bk * nk), sampled);
    size_t per = (size_t)nq * nkt;
    int flag_bad = 0, rec_bad = 0, o_bad = 0, o_nonzero = 0;
    for (int item = 0; item < 2 * nqb; item++) {
        int qb = item % nqb;
        for (size_t i = 0; i < per; i++) {
            const ls_engine_tile_record *a = &full.records[item * per + i], *b = &smp.records[item * per + i];
            uint8_t geo = LSLAMP_REC_MASKED | LSLAMP_REC_ABSENT;
            if ((a->flags & geo) != (b->flags & geo)) flag_bad++;
            if (sampled[qb] && memcmp(a, b, sizeof *a)) rec_bad++;
        }
        int r0 = qb * br, r1 = r0 + br < sq ? r0 + br : sq;
        for (size_t e = (size_t)(item / nqb * sq + r0) * 32; e < (size_t)(item / nqb * sq + r1) * 32; e++) {
            if (sampled[qb] && memcmp(&full.o[e], &smp.o[e], sizeof(float))) o_bad++;
            if (!sampled[qb] && smp.o[e] != 0.0f) o_nonzero++;
        }
    }
    /* tiles.* from every record */
    uint64_t ex = 0, ms = 0;
    for (size_t i = 0; i < smp.n_records; i++) {
        if (smp.records[i].flags & LSLAMP_REC_ABSENT) continue;
        if (smp.records[i].flags & LSLAMP_REC_MASKED) ms++; else ex++;
    }
    printf("seq %d x %d window %d tile %dx%d/%dx%d sample %d of %d: disruptive full %.4f sampled %.4f (se %.4f), "
           "sub-blocks %.4f / %.4f (se %.4f)\n", sq, sk, window, bq, nq, bk, nk, sample, nqb, full.tiles.disruptive_rate,
           smp.tiles.disruptive_rate, smp.sample.disruptive_rate_se, full.recompute.subblock_rate,
           smp.recompute.subblock_rate, smp.sample.subblock_rate_se);
    CHECK_MSG(flag_bad == 0, "%d geometry flags differ from the full run", flag_bad);
    CHECK_MSG(rec_bad == 0, "%d sampled records differ", rec_bad);
    CHECK_MSG(o_bad == 0 && o_nonzero == 0, "O: %d sampled elements differ, %d unsampled nonzero", o_bad, o_nonzero);
    CHECK(smp.tiles.executed == full.tiles.executed && smp.tiles.masked_skipped == full.tiles.masked_skipped);
    CHECK(smp.tiles.executed == ex && smp.tiles.masked_skipped == ms);
    CHECK(smp.sample.query_blocks == sample && smp.sample.items_total == 2 * nqb);
    CHECK(isfinite(smp.sample.subblock_rate_se) && smp.sample.subblock_rate_se >= 0);
    CHECK(smp.accuracy.valid && smp.accuracy.rows < full.accuracy.rows);
    free(sampled);
    ls_engine_result_free(&full);
    ls_engine_result_free(&smp);
    in.release(&in);
}

/* 4: every query block sees the same logits, so every block's records are the same and the copies
 * must reproduce them tile for tile */
static void periodic(void)
{
    ls_attn_inputs in;
    int sq = 1024, sk = 512, d = 32, br = 128;
    CHECK(tu_inputs_qknorm(&in, 5, 1, 1, 1, sq, sk, d, 0, 1.0, 3.0) == 0);
    for (int r = br; r < sq; r++) memcpy(in.q + (size_t)r * d, in.q + (size_t)(r % br) * d, (size_t)d * sizeof(float));
    ls_engine_result full, smp;
    CHECK(run(&in, LS_ENGINE_MODE_LAMP, 0, &full) == 0);
    CHECK(run(&in, LS_ENGINE_MODE_LAMP, 3, &smp) == 0);
    CHECK(full.n_records == smp.n_records);
    size_t bad = 0;
    for (size_t i = 0; i < full.n_records; i++) bad += memcmp(&full.records[i], &smp.records[i], sizeof full.records[i]) != 0;
    CHECK_MSG(bad == 0, "%zu of %zu records differ", bad, full.n_records);
    CHECK(full.tiles.disruptive_rate == smp.tiles.disruptive_rate);
    ls_engine_result_free(&full);
    ls_engine_result_free(&smp);
    in.release(&in);
}

/* 5: sample >= blocks is no sample; one sampled item has no standard error */
static void edges(void)
{
    ls_attn_inputs in;
    CHECK(tu_inputs_qknorm(&in, 9, 1, 1, 1, 512, 512, 32, 1, 1.0, 3.0) == 0);
    ls_engine_result a, b, c;
    CHECK(run(&in, LS_ENGINE_MODE_LAMP, 0, &a) == 0);
    CHECK(run(&in, LS_ENGINE_MODE_LAMP, 4, &b) == 0);   /* 4 blocks of 128: all */
    CHECK(b.sample.query_blocks == 0);
    CHECK(!memcmp(a.o, b.o, (size_t)512 * 32 * sizeof(float)));
    CHECK(!memcmp(a.records, b.records, a.n_records * sizeof *a.records));
    CHECK(a.tiles.disruptive_rate == b.tiles.disruptive_rate && a.recompute.subblock_rate == b.recompute.subblock_rate);
    CHECK(run(&in, LS_ENGINE_MODE_LAMP, 1, &c) == 0);
    CHECK(c.sample.items_sampled == 1 && isnan(c.sample.subblock_rate_se));
    ls_engine_result_free(&a);
    ls_engine_result_free(&b);
    ls_engine_result_free(&c);
    in.release(&in);
}

int main(void)
{
    test_pick();
    shape(2048, 2048, 0, 4, 32, 4, 16, 4);      /* causal prefill, the default tile */
    shape(2000, 2000, 0, 5, 32, 4, 16, 4);      /* ragged last block */
    shape(2048, 2048, 300, 4, 32, 4, 16, 4);    /* sliding window */
    shape(1024, 1024, 0, 4, 16, 4, 16, 8);      /* blocks of 64 on tiles of 128: two mask phases */
    shape(512, 2048, 0, 2, 32, 4, 16, 4);       /* fewer queries than keys (shifted diagonal) */
    periodic();
    edges();
    CHECK_DONE();
}
