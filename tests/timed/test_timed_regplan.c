#define _POSIX_C_SOURCE 200809L
/* The resident plan as the timed model runs it (issue 23): the buffer bounds occupancy (8 contexts
 * with 64 KiB K/V tiles no longer run in a 228 KiB buffer), the report says which limit binds, a
 * dominated layout is flagged with a warning line, the fp32 layout runs without a slow path, Q and
 * O placed in the buffer are charged to its port, and P.V's LP rate is configuration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "timed_testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define ONE "accelerator.cores=1", "workload.heads_q=2", "workload.heads_kv=1", "workload.seq_q=512", "workload.seq_k=512"

typedef struct { ls_timed_result tr; float *o; size_t no; } outcome;

static int run(const char *const *ov, int n, outcome *out)
{
    ls_engine_result r;
    if (tt_run(ov, n, 0, &r, &out->tr) != 0) return -1;
    out->o = tt_copy_o(&r, &out->no);
    ls_engine_result_free(&r);
    return 0;
}

static char *summary(const ls_timed_result *tr)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    ls_timed_summary(f, tr);
    fclose(f);
    return buf;
}

static void buffer_bound(void)
{
    /* Bc 128 x d 128 bf16: a 64 KiB K/V stage; registers for 8 compact contexts (248 per thread) */
    const char *ov[] = { ONE, "accelerator.regfile.registers=262144", "accelerator.regfile.max_contexts=8",
                         "algorithm.b_k=32", "accelerator.memory.pipeline_stages=1", "algorithm.mode=pure_8bit" };
    outcome a;
    CHECK(run(ov, N(ov), &a) == 0);
    printf("8 x 64 KiB in 228 KiB: limit %d (%s), registers fit %d, buffer %d, depth %d, %.0f KiB per block\n",
           a.tr.occupancy.limit, a.tr.occupancy.limited_by, a.tr.occupancy.fit, a.tr.occupancy.buffer_fit,
           a.tr.occupancy.prefetch_depth, a.tr.occupancy.buffer_kib_per_block);
    CHECK(a.tr.occupancy.fit == 8 && a.tr.occupancy.buffer_fit == 3 && a.tr.occupancy.limit == 3);
    CHECK(!strcmp(a.tr.occupancy.limited_by, "buffer") && a.tr.occupancy.max <= 3 && a.tr.occupancy.prefetch_depth == 1);
    CHECK(a.tr.occupancy.buffer_kib_per_block == 64.0);
    /* the fields reach the report */
    ls_fields fs;
    ls_fields_init(&fs);
    ls_timed_report_fields(&fs, &a.tr);
    char *csv = ls_fields_to_csv(&fs);
    CHECK(csv && strstr(csv, "occupancy.limited_by") && strstr(csv, "occupancy.contexts_per_core.buffer_fit") &&
          strstr(csv, ",buffer,"));
    free(csv);
    ls_fields_free(&fs);
    free(a.o);
}

static void limited_by(void)
{
    /* registers (2 compact contexts at the preset tile) = max_contexts 2: registers, the first */
    const char *reg[] = { ONE, "algorithm.mode=pure_8bit" };
    const char *mc[] = { ONE, "algorithm.mode=pure_8bit", "accelerator.regfile.max_contexts=1" };
    /* 8 query blocks (2 heads x 4) on 8 cores: one each */
    const char *work[] = { ONE, "algorithm.mode=pure_8bit", "accelerator.cores=8" };
    const char *const *ovs[] = { reg, mc, work };
    const int ns[] = { N(reg), N(mc), N(work) };
    const char *want[] = { "registers", "max_contexts", "work" };
    const int lim[] = { 2, 1, 1 };
    for (int i = 0; i < 3; i++) {
        outcome a;
        CHECK(run(ovs[i], ns[i], &a) == 0);
        CHECK_MSG(!strcmp(a.tr.occupancy.limited_by, want[i]) && a.tr.occupancy.limit == lim[i],
                  "case %d: limited by %s, limit %d", i, a.tr.occupancy.limited_by, a.tr.occupancy.limit);
        char *s = summary(&a.tr);
        char line[64];
        snprintf(line, sizeof line, "limited by %s;", want[i]);
        CHECK(s && strstr(s, line));
        free(s);
        free(a.o);
    }
}

static void dominated(void)
{
    /* n_k 2: compact needs full's registers and still pays the slow path */
    const char *c2[] = { ONE, "algorithm.b_k=32", "algorithm.n_k=2", "algorithm.tau=0.125" };
    const char *c4[] = { ONE };
    outcome a, b;
    CHECK(run(c2, N(c2), &a) == 0 && run(c4, N(c4), &b) == 0);
    CHECK(!strcmp(a.tr.occupancy.dominated_by, "full") && b.tr.occupancy.dominated_by[0] == 0);
    char *s = summary(&a.tr), *t = summary(&b.tr);
    CHECK(s && strstr(s, "warning: layout compact saves no registers at this tile") && strstr(s, "full dominates it"));
    CHECK(t && !strstr(t, "warning:"));
    free(s); free(t); free(a.o); free(b.o);
}

static void fp32_layout(void)
{
    /* fp32 needs 264 registers per thread at the preset tile (refused); Q in the buffer fits it */
    const char *refused[] = { ONE, "accelerator.regfile.layout=fp32" };
    ls_engine_result r;
    ls_timed_result tr;
    CHECK(tt_run(refused, N(refused), 0, &r, &tr) != 0);
    const char *lay[3] = { "accelerator.regfile.layout=fp32", "accelerator.regfile.layout=full", "accelerator.regfile.layout=compact" };
    outcome o[3];
    for (int i = 0; i < 3; i++) {
        const char *ov[] = { ONE, "algorithm.tau=0.125", "accelerator.regfile.q_placement=buffer", lay[i] };
        CHECK(run(ov, N(ov), &o[i]) == 0);
    }
    printf("Q in the buffer: fp32 %d, full %d, compact %d regs/thread; slow-path tiles %llu / %llu / %llu\n",
           o[0].tr.occupancy.regs_per_thread, o[1].tr.occupancy.regs_per_thread, o[2].tr.occupancy.regs_per_thread,
           (unsigned long long)o[0].tr.slow_tiles, (unsigned long long)o[1].tr.slow_tiles, (unsigned long long)o[2].tr.slow_tiles);
    CHECK(!strcmp(o[0].tr.layout, "fp32") && o[0].tr.occupancy.regs_per_thread == 200);
    CHECK(o[1].tr.occupancy.regs_per_thread == 168 && o[2].tr.occupancy.regs_per_thread == 160);
    CHECK(o[0].tr.slow_tiles == 0 && o[1].tr.slow_tiles == 0 && o[2].tr.slow_tiles > 0);
    /* the layout is timing only: the same O; fp32 and full at the same occupancy, the same cycles */
    CHECK(o[0].no == o[1].no && !memcmp(o[0].o, o[1].o, o[0].no * sizeof(float)) && !memcmp(o[0].o, o[2].o, o[0].no * sizeof(float)));
    CHECK(o[0].tr.occupancy.limit == o[1].tr.occupancy.limit && o[0].tr.cycles == o[1].tr.cycles);
    for (int i = 0; i < 3; i++) free(o[i].o);
}

static void placements_and_rate(void)
{
    /* Q in the buffer re-read every key tile, O read and written by every P.V: more buffer bytes, same O */
    const char *base[] = { ONE, "accelerator.regfile.layout=full" };
    const char *ob[] = { ONE, "accelerator.regfile.layout=full", "accelerator.regfile.o_placement=buffer" };
    outcome a, b;
    CHECK(run(base, N(base), &a) == 0 && run(ob, N(ob), &b) == 0);
    uint64_t ba = tt_unit(&a.tr, "buffer")->work, bb = tt_unit(&b.tr, "buffer")->work;
    /* each warp's P.V reads and writes its 32 rows x 128 x 4 B of O */
    printf("O in the buffer: buffer bytes %llu -> %llu, regs/thread %d -> %d\n", (unsigned long long)ba,
           (unsigned long long)bb, a.tr.occupancy.regs_per_thread, b.tr.occupancy.regs_per_thread);
    CHECK(bb > ba && (bb - ba) % (2ull * 32 * 128 * 4) == 0);
    CHECK(b.tr.occupancy.regs_per_thread == a.tr.occupancy.regs_per_thread - 128);
    CHECK(!memcmp(a.o, b.o, a.no * sizeof(float)));
    free(a.o); free(b.o);
    /* P.V of LP sub-blocks at the 16-bit rate: more tensor cycles for lamp, none for fa2_16bit (no LP P) */
    const char *r8[] = { ONE, "algorithm.tau=0.5" };
    const char *r16[] = { ONE, "algorithm.tau=0.5", "accelerator.tensor.pv_lp_rate=0.5" };
    CHECK(run(r8, N(r8), &a) == 0 && run(r16, N(r16), &b) == 0);
    printf("pv_lp_rate 8bit -> 16bit: tensor busy %llu -> %llu, cycles %llu -> %llu\n",
           (unsigned long long)tt_unit(&a.tr, "tensor")->busy_cycles, (unsigned long long)tt_unit(&b.tr, "tensor")->busy_cycles,
           (unsigned long long)a.tr.cycles, (unsigned long long)b.tr.cycles);
    CHECK(tt_unit(&b.tr, "tensor")->busy_cycles > tt_unit(&a.tr, "tensor")->busy_cycles && b.tr.cycles >= a.tr.cycles);
    CHECK(tt_unit(&b.tr, "tensor")->work == tt_unit(&a.tr, "tensor")->work && !memcmp(a.o, b.o, a.no * sizeof(float)));
    free(a.o); free(b.o);
    const char *f8[] = { ONE, "algorithm.mode=fa2_16bit" };
    const char *f16[] = { ONE, "algorithm.mode=fa2_16bit", "accelerator.tensor.pv_lp_rate=0.5" };
    CHECK(run(f8, N(f8), &a) == 0 && run(f16, N(f16), &b) == 0);
    CHECK(a.tr.cycles == b.tr.cycles);
    free(a.o); free(b.o);
}

int main(void)
{
    buffer_bound();
    limited_by();
    dominated();
    fp32_layout();
    placements_and_rate();
    CHECK_DONE();
}
