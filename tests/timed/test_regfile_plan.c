/* The resident plan (hw/regfile) without SystemC: registers per warp of every layout x Q / O
 * placement in closed form, the buffer a block keeps, the four limits and which binds, dominated
 * layouts, the slow-path rule the datapath reads, the refusals, and the layouts the assembler and
 * the schema accept. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lsregfile.h"
#include "lsucode.h"

/* The LampAttention preset (hardware.md 7.1 register file, 228 KiB buffer, 2 stages) at the preset
 * tile b_q 32 x n_q 4, b_k 16 x n_k 4, d 128, bf16. */
static lsregfile_params preset(int layout)
{
    return (lsregfile_params){ .registers = 65536, .subpartitions = 4, .max_regs_per_thread = 255,
                               .alloc_granularity = 256, .warp_size = 32, .max_warps = 64, .max_ctas = 32,
                               .max_contexts = 2, .layout = layout, .q_place = LSREGFILE_IN_REGISTERS,
                               .o_place = LSREGFILE_IN_REGISTERS, .buffer_bytes = 228 * 1024.0, .stages = 2,
                               .kv_group = 1, .cores = 132 };
}
static const lsregfile_tile TILE = { .b_q = 32, .n_q = 4, .b_k = 16, .n_k = 4, .d = 128, .seq_k = 4096, .elem_bytes = 2 };

static int round256(int r) { return (r + 255) / 256 * 256; }

static void layouts_and_placements(void)
{
    char err[320];
    /* per warp: Q b_q*d/2 = 2048, O b_q*d = 4096, state 4*b_q = 128; logits of 32 x 64 */
    const int y[3] = { 512 + 256, 1024, 2048 };   /* compact, full, fp32 */
    for (int l = 0; l < 3; l++)
        for (int qp = 0; qp < 2; qp++)
            for (int op = 0; op < 2; op++) {
                lsregfile_params p = preset(l);
                p.q_place = qp; p.o_place = op;
                p.max_contexts = 64;
                lsregfile_alloc a;
                int raw = (qp ? 0 : 2048) + y[l] + (op ? 0 : 4096) + 128;
                if (round256(raw) / 32 > 255) {   /* fp32 with Q and O in registers: 264 per thread */
                    CHECK(l == LSREGFILE_FP32 && !qp && !op && lsregfile_plan(&p, &TILE, &a, err, sizeof err) != 0 &&
                          strstr(err, "264 registers per thread"));
                    continue;
                }
                CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) == 0);
                CHECK_MSG(a.y == y[l] && a.q == (qp ? 0 : 2048) && a.o == (op ? 0 : 4096) && a.per_warp == round256(raw),
                          "%s q %d o %d: %d regs/warp", lsregfile_layout_name(l), qp, op, a.per_warp);
                CHECK(a.per_thread == a.per_warp / 32 && a.fit == 4 * (16384 / a.per_warp) / 4);
                /* buffer: Q 128 x 128 x 2 B = 32 KiB, O 128 x 128 x 4 B = 64 KiB, 2 stages of 32 KiB K/V */
                CHECK(a.q_bytes == (qp ? 32768.0 : 0.0) && a.o_bytes == (op ? 65536.0 : 0.0) && a.kv_stage_bytes == 32768.0);
                CHECK(a.buffer_per_block == a.q_bytes + a.o_bytes + 2 * 32768.0 && a.depth == 2);
                CHECK(a.buffer_fit == (int)(228 * 1024.0 / a.buffer_per_block));
            }
    /* the preset: compact 224 and full 232 registers per thread, both 2 contexts */
    lsregfile_params p = preset(LSREGFILE_COMPACT);
    lsregfile_alloc a;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) == 0 && a.per_thread == 224 && a.fit == 2 && a.limit == 2);
    p.layout = LSREGFILE_FULL;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) == 0 && a.per_thread == 232 && a.fit == 2);
    /* fp32 logits need 32 more per thread than full: 264 > 255, refused; with Q in the buffer 200 fit */
    p.layout = LSREGFILE_FP32;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) != 0 && strstr(err, "264 registers per thread"));
    p.q_place = LSREGFILE_IN_BUFFER;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) == 0 && a.per_thread == 200 && a.fit == 2);
}

static void limits(void)
{
    char err[320];
    lsregfile_alloc a;
    /* max_contexts: registers hold 2, the buffer 3, max_contexts 1 */
    lsregfile_params p = preset(LSREGFILE_COMPACT);
    p.max_contexts = 1;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) == 0 && a.limit == 1 && a.limited_by == LSREGFILE_BY_MAX_CONTEXTS);
    /* ties name the first: registers 2 = max_contexts 2 */
    p.max_contexts = 2;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) == 0 && a.limited_by == LSREGFILE_BY_REGISTERS);
    /* registers: Q and O in the buffer free registers (7 contexts) but the buffer holds 228 / 160 = 1 */
    p.max_contexts = 16;
    p.q_place = p.o_place = LSREGFILE_IN_BUFFER;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) == 0 && a.fit == 16 && a.buffer_fit == 1 && a.limit == 1 &&
          a.limited_by == LSREGFILE_BY_BUFFER);
    /* issue 23's case: 8 contexts with 64 KiB K/V tiles (Bc 128, d 128, bf16) in 228 KiB. The buffer
     * holds 3 one-stage blocks, or one block with its 2 stages; it never runs 8 */
    lsregfile_params q = preset(LSREGFILE_FULL);
    q.registers = 1 << 20; q.max_regs_per_thread = 1024; q.max_contexts = 8;
    lsregfile_tile big = TILE;
    big.b_k = 32;                  /* 32 x 4 = 128 keys */
    q.stages = 1;
    CHECK(lsregfile_plan(&q, &big, &a, err, sizeof err) == 0 && a.kv_stage_bytes == 65536.0 && a.buffer_fit == 3 &&
          a.limit == 3 && a.limited_by == LSREGFILE_BY_BUFFER && a.depth == 1);
    q.stages = 2;
    CHECK(lsregfile_plan(&q, &big, &a, err, sizeof err) == 0 && a.limit == 1 && a.depth == 2 && a.limited_by == LSREGFILE_BY_BUFFER);
    /* one block that cannot hold its stages runs with fewer: 4 stages of 64 KiB in 228 KiB -> 3 */
    q.stages = 4;
    CHECK(lsregfile_plan(&q, &big, &a, err, sizeof err) == 0 && a.limit == 1 && a.depth == 3);
    /* a short layer's K/V stage holds only its keys: seq_k 64 -> 32 KiB */
    big.seq_k = 64;
    q.stages = 1;
    CHECK(lsregfile_plan(&q, &big, &a, err, sizeof err) == 0 && a.kv_stage_bytes == 32768.0 && a.buffer_fit == 7);
    /* K/V-sharing blocks: 2 contexts share the stages, each keeps its Q (32 KiB) */
    big.seq_k = 4096;
    q.stages = 2; q.kv_group = 2; q.q_place = LSREGFILE_IN_BUFFER;
    CHECK(lsregfile_plan(&q, &big, &a, err, sizeof err) == 0 && a.buffer_per_block == 2 * 32768.0 + 2 * 65536.0 &&
          a.buffer_fit == 2 && a.limit == 2);
    /* work: 8 query blocks on 132 cores leave one per core (the default run) */
    lsregfile_tile w = TILE;
    w.items = 8;
    p = preset(LSREGFILE_COMPACT);
    CHECK(lsregfile_plan(&p, &w, &a, err, sizeof err) == 0 && a.work == 1 && a.limit == 1 && a.limited_by == LSREGFILE_BY_WORK);
    w.items = 264;                 /* 2 per core: registers bind again (first of the tie) */
    CHECK(lsregfile_plan(&p, &w, &a, err, sizeof err) == 0 && a.work == 2 && a.limit == 2 && a.limited_by == LSREGFILE_BY_REGISTERS);
    w.items = 0;                   /* unknown: no work bound */
    CHECK(lsregfile_plan(&p, &w, &a, err, sizeof err) == 0 && a.work == INT_MAX);
    CHECK(!strcmp(lsregfile_bound_name(LSREGFILE_BY_WORK), "work") && !strcmp(lsregfile_bound_name(LSREGFILE_BY_BUFFER), "buffer"));
}

static void refusals(void)
{
    char err[320];
    lsregfile_alloc a;
    /* no block fits the buffer: Q + O of 96 KiB and a 32 KiB stage in 64 KiB */
    lsregfile_params p = preset(LSREGFILE_COMPACT);
    p.q_place = p.o_place = LSREGFILE_IN_BUFFER;
    p.buffer_bytes = 64 * 1024.0;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) != 0 && strstr(err, "buffer_kib"));
    /* Q in registers leaves 64 KiB for O alone: still no K/V stage */
    p.q_place = LSREGFILE_IN_REGISTERS;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) != 0 && strstr(err, "no block"));
    /* a K/V-sharing block larger than the limit */
    p = preset(LSREGFILE_COMPACT);
    p.kv_group = 4; p.max_contexts = 4;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) != 0 && strstr(err, "kv_shared_contexts = 4") &&
          strstr(err, "registers"));
    /* the register file cannot hold one context */
    p = preset(LSREGFILE_FULL);
    p.registers = 16384;
    CHECK(lsregfile_plan(&p, &TILE, &a, err, sizeof err) != 0 && strstr(err, "no context fits"));
}

static void dominated_and_rule(void)
{
    char err[320];
    lsregfile_alloc a;
    lsregfile_params p = preset(LSREGFILE_COMPACT);
    p.max_contexts = 64;
    lsregfile_tile t = TILE;
    /* n_k 2 (b_k 32): compact 512 + 256 = full's 1024? no: 32 x 64 / 4 + 32 x 32 / 2 = 1024 = full */
    t.b_k = 32; t.n_k = 2;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.y == 1024 && a.dominated_by == LSREGFILE_FULL);
    /* n_k 1: compact needs more than full (768 vs 512 logit registers) */
    t.b_k = 64; t.n_k = 1;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.y == 512 + 1024 && a.dominated_by == LSREGFILE_FULL);
    /* n_k 4 and 8: compact saves registers */
    t.b_k = 16; t.n_k = 4;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.dominated_by == -1);
    t.b_k = 16; t.n_k = 8;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.dominated_by == -1);
    /* layouts without a slow path are never dominated (Q in the buffer: fp32 fits) */
    p.q_place = LSREGFILE_IN_BUFFER;
    for (int l = LSREGFILE_FULL; l <= LSREGFILE_FP32; l++) {
        p.layout = l;
        t.b_k = 32; t.n_k = 2;
        CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.dominated_by == -1 && a.slow_pass == 0);
    }
    /* the slow-path rule: compact holds one HP sub-block, its passes n_k / 2 + 1 sub-blocks */
    p.layout = LSREGFILE_COMPACT;
    for (int nk = 1; nk <= 8; nk++) {
        t.b_k = 16; t.n_k = nk;
        lsdp_layout_rule r = lsregfile_rule(&p, &t);
        CHECK_MSG(r.slow_path && r.hp_slots == 1 && r.slow_pass == nk / 2 + 1, "n_k %d: pass %d", nk, r.slow_pass);
    }
    for (int l = LSREGFILE_FULL; l < LSREGFILE_NLAYOUTS; l++) {
        p.layout = l;
        lsdp_layout_rule r = lsregfile_rule(&p, &t);
        CHECK(!r.slow_path && r.slow_pass == 0);
    }
}

static void names(void)
{
    /* the schema's names are the table's configurable layouts; the assembler takes every layout */
    CHECK(!strcmp(lsregfile_layout_names[LSREGFILE_COMPACT], "compact") && !strcmp(lsregfile_layout_names[LSREGFILE_FULL], "full") &&
          !strcmp(lsregfile_layout_names[LSREGFILE_FP32], "fp32") && lsregfile_layout_names[3] == NULL);
    for (int l = 0; l < LSREGFILE_NLAYOUTS; l++) CHECK(lsregfile_layout_parse(lsregfile_layout_name(l)) == l);
    CHECK(lsregfile_layout_parse("sideways") == -1);
    const char *progs[] = { ".program a\n.ylayout fp32\n STO O\n END\n", ".program b\n STO O\n END\n",
                            ".program c\n.ylayout lp\n STO O\n END\n" };
    const int want[] = { LSREGFILE_FP32, LSUCODE_Y_CONFIG, LSREGFILE_LP };
    for (int i = 0; i < 3; i++) {
        lsucode_program pr;
        char err[256];
        CHECK(lsucode_assemble(progs[i], "t.lasm", &pr, err, sizeof err) == 0 && pr.ylayout == want[i]);
        CHECK(lsucode_layout(pr.ylayout, LSREGFILE_FULL) == (want[i] == LSUCODE_Y_CONFIG ? LSREGFILE_FULL : want[i]));
        lsucode_program_free(&pr);
    }
}

int main(void)
{
    layouts_and_placements();
    limits();
    refusals();
    dominated_and_rule();
    names();
    CHECK_DONE();
}
