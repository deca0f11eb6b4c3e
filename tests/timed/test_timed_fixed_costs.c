/* The mechanisms of the timed model that short runs and 8-bit kernels depend on (issue 12), each
 * checked against a closed form on small shapes:
 *  1. launch overhead: cycles grow by exactly accelerator.launch_cycles;
 *  2. per-item set-up: with one resident context every item pays item_setup_cycles in series;
 *     with two the other context keeps working, so the total grows by less;
 *  3. wave quantisation: one item more than the machine holds costs a whole extra wave;
 *  4. K/V sharing (memory.kv_shared_contexts): the contexts of a block load each K/V tile once,
 *     only for the same (batch, KV head), and the numerics do not change;
 *  5. operand width (algorithm.operand_format e4m3): every Q/K/V byte halves, O stores do not,
 *     and the 16-bit instructions run at tensor.macs_per_cycle_fp8_wide;
 *  6. V transpose: the buffer port moves each loaded K/V tile's V half twice more;
 *  7. the V transpose is a step of its own (issue 28): P.V waits for it, QK does not, and the core's
 *     producer transposes one tile after another (memory.v_transpose_cycles);
 *  8. the FP8 epilogue writes O into the buffer at memory.o_write_bytes_per_cycle;
 *  9. the configuration refuses what these keys cannot do, naming the key;
 * 10. sfu.cycles_per_exp: each exponential holds an SFU lane that many cycles, so the SFU's busy
 *     cycles double at 2 while its work (exponentials) stays. */
#include <string.h>

#include "check.h"
#include "timed_testutil.h"

typedef struct {
    ls_timed_result tr;
    uint64_t dram, l2, buffer, tensor_busy;
    float *o;
    size_t no;
} outcome;


static int run(const char *const *ov, int nov, outcome *out)
{
    memset(out, 0, sizeof *out);
    ls_engine_result r;
    if (tt_run(ov, nov, 0, &r, &out->tr) != 0) return -1;
    out->dram = tt_unit(&out->tr, "dram")->work;
    out->l2 = tt_unit(&out->tr, "l2")->work;
    out->buffer = tt_unit(&out->tr, "buffer")->work;
    out->tensor_busy = tt_unit(&out->tr, "tensor")->busy_cycles;
    if (!r.timing_only) out->o = tt_copy_o(&r, &out->no);
    ls_engine_result_free(&r);
    return 0;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* one core, timing only, fa2_16bit, no L2 (every load from DRAM: byte counts in closed form) */
#define ONE "accelerator.cores=1", "algorithm.mode=fa2_16bit", "timed.timing_only=true", \
    "accelerator.memory.l2_mib=0", "workload.generator=gaussian", "workload.causal=false"

static void launch_and_setup(void)
{
    outcome a, b, c1, d1, d2;
    const char *base[] = { ONE, "workload.heads_q=3", "workload.heads_kv=3", "workload.seq_q=256",
                           "workload.seq_k=256", "accelerator.regfile.max_contexts=1" };
    const char *launch[] = { ONE, "workload.heads_q=3", "workload.heads_kv=3", "workload.seq_q=256",
                             "workload.seq_k=256", "accelerator.regfile.max_contexts=1", "accelerator.launch_cycles=5000" };
    CHECK(run(base, N(base), &a) == 0 && run(launch, N(launch), &b) == 0);
    CHECK_MSG(b.tr.cycles == a.tr.cycles + 5000, "launch: %llu vs %llu + 5000", (unsigned long long)b.tr.cycles,
              (unsigned long long)a.tr.cycles);
    /* 3 heads x 2 query blocks = 6 items on one context: six set-ups in series */
    const char *setup[] = { ONE, "workload.heads_q=3", "workload.heads_kv=3", "workload.seq_q=256",
                            "workload.seq_k=256", "accelerator.regfile.max_contexts=1", "accelerator.item_setup_cycles=700" };
    CHECK(run(setup, N(setup), &c1) == 0);
    CHECK_MSG(c1.tr.cycles == a.tr.cycles + 6 * 700, "set-up, one context: %llu vs %llu + 6 x 700",
              (unsigned long long)c1.tr.cycles, (unsigned long long)a.tr.cycles);
    /* two resident contexts: a set-up overlaps the other context's work */
    const char *two0[] = { ONE, "workload.heads_q=4", "workload.heads_kv=4", "workload.seq_q=256",
                           "workload.seq_k=256", "accelerator.regfile.max_contexts=2" };
    const char *two1[] = { ONE, "workload.heads_q=4", "workload.heads_kv=4", "workload.seq_q=256",
                           "workload.seq_k=256", "accelerator.regfile.max_contexts=2", "accelerator.item_setup_cycles=700" };
    CHECK(run(two0, N(two0), &d1) == 0 && run(two1, N(two1), &d2) == 0);
    uint64_t grow = d2.tr.cycles - d1.tr.cycles;
    printf("set-up 700: one context +%llu cycles (6 items), two contexts +%llu (8 items)\n",
           (unsigned long long)(c1.tr.cycles - a.tr.cycles), (unsigned long long)grow);
    CHECK_MSG(d2.tr.cycles > d1.tr.cycles && grow < 4 * 700, "two contexts: +%llu, expected 0 < growth < 4 x 700",
              (unsigned long long)grow);
}

static void waves(void)
{
    /* 4 cores x 1 context; 4 items fill one wave, 5 need a second one of the same length */
    outcome a, b;
    const char *four[] = { ONE, "accelerator.cores=4", "accelerator.regfile.max_contexts=1", "workload.heads_q=4",
                           "workload.heads_kv=4", "workload.seq_q=128", "workload.seq_k=1024" };
    const char *five[] = { ONE, "accelerator.cores=4", "accelerator.regfile.max_contexts=1", "workload.heads_q=5",
                           "workload.heads_kv=5", "workload.seq_q=128", "workload.seq_k=1024" };
    CHECK(run(four, N(four), &a) == 0 && run(five, N(five), &b) == 0);
    printf("waves: 4 items %llu cycles, 5 items %llu\n", (unsigned long long)a.tr.cycles, (unsigned long long)b.tr.cycles);
    CHECK_MSG(b.tr.cycles >= 19 * a.tr.cycles / 10, "a fifth item on 4 slots: %llu vs %llu (expected >= 1.9x)",
              (unsigned long long)b.tr.cycles, (unsigned long long)a.tr.cycles);
}

static void kv_sharing(void)
{
    /* LampAttention numerics, one core, 2 contexts, one head of 2 query blocks x 8 key tiles */
    outcome a, b, c;
    const char *own[] = { "accelerator.cores=1", "accelerator.memory.l2_mib=0", "workload.heads_q=1",
                          "workload.heads_kv=1", "workload.seq_q=256", "workload.seq_k=512", "workload.causal=false",
                          "accelerator.regfile.max_contexts=2" };
    const char *shared[] = { "accelerator.cores=1", "accelerator.memory.l2_mib=0", "workload.heads_q=1",
                             "workload.heads_kv=1", "workload.seq_q=256", "workload.seq_k=512", "workload.causal=false",
                             "accelerator.regfile.max_contexts=2", "accelerator.memory.kv_shared_contexts=2" };
    CHECK(run(own, N(own), &a) == 0 && run(shared, N(shared), &b) == 0);
    uint64_t nkt = 512 / 64, qo = 2ull * 256 * 128 * 2;   /* Q in + O out, bf16 */
    CHECK_MSG(a.tr.kv_tile_loads == 2 * nkt && a.tr.kv_loads_shared == 0, "own loads %llu shared %llu",
              (unsigned long long)a.tr.kv_tile_loads, (unsigned long long)a.tr.kv_loads_shared);
    CHECK_MSG(b.tr.kv_tile_loads == nkt && b.tr.kv_loads_shared == nkt, "shared: loads %llu shared %llu",
              (unsigned long long)b.tr.kv_tile_loads, (unsigned long long)b.tr.kv_loads_shared);
    CHECK_MSG(b.dram - qo == (a.dram - qo) / 2, "K/V bytes from DRAM: %llu shared vs %llu own",
              (unsigned long long)(b.dram - qo), (unsigned long long)(a.dram - qo));
    CHECK(a.o && b.o && a.no == b.no && memcmp(a.o, b.o, a.no * sizeof(float)) == 0);
    printf("K/V sharing: %llu vs %llu cycles, DRAM %llu vs %llu bytes\n", (unsigned long long)b.tr.cycles,
           (unsigned long long)a.tr.cycles, (unsigned long long)b.dram, (unsigned long long)a.dram);
    /* two heads of one query block each: the block's contexts never share a tile */
    const char *heads[] = { ONE, "workload.heads_q=2", "workload.heads_kv=2", "workload.seq_q=128",
                            "workload.seq_k=512", "accelerator.regfile.max_contexts=2",
                            "accelerator.memory.kv_shared_contexts=2" };
    CHECK(run(heads, N(heads), &c) == 0);
    CHECK_MSG(c.tr.kv_loads_shared == 0 && c.tr.kv_tile_loads == 2 * nkt, "different heads shared %llu loads",
              (unsigned long long)c.tr.kv_loads_shared);
    free(a.o); free(b.o);
}

static void operand_width(void)
{
    outcome a, b, t;
    const char *in16[] = { ONE, "workload.heads_q=2", "workload.heads_kv=2", "workload.seq_q=256", "workload.seq_k=512",
                           "workload.dtype=bf16" };
    const char *in8[] = { ONE, "workload.heads_q=2", "workload.heads_kv=2", "workload.seq_q=256", "workload.seq_k=512",
                          "workload.dtype=bf16", "algorithm.operand_format=e4m3",
                          "accelerator.tensor.macs_per_cycle_fp8_wide=4096" };
    CHECK(run(in16, N(in16), &a) == 0 && run(in8, N(in8), &b) == 0);
    uint64_t o_bytes = 2ull * 256 * 128 * 2;
    CHECK_MSG(b.dram - o_bytes == (a.dram - o_bytes) / 2, "Q/K/V bytes: %llu e4m3 vs %llu bf16",
              (unsigned long long)(b.dram - o_bytes), (unsigned long long)(a.dram - o_bytes));
    CHECK_MSG(b.buffer * 2 >= a.buffer - o_bytes && b.buffer < a.buffer, "buffer bytes %llu vs %llu",
              (unsigned long long)b.buffer, (unsigned long long)a.buffer);
    /* 16-bit instructions at 4096 instead of 2048 MAC/clk: half the tensor time, to rounding */
    CHECK_MSG(b.tensor_busy * 2 <= a.tensor_busy + 2 * tt_unit(&b.tr, "tensor")->ops && b.tensor_busy * 2 >= a.tensor_busy,
              "tensor busy %llu (e4m3) vs %llu (bf16)", (unsigned long long)b.tensor_busy, (unsigned long long)a.tensor_busy);
    /* V transpose: each loaded tile's V half read and written again through the port */
    const char *tr8[] = { ONE, "workload.heads_q=2", "workload.heads_kv=2", "workload.seq_q=256", "workload.seq_k=512",
                          "workload.dtype=bf16", "algorithm.operand_format=e4m3",
                          "accelerator.tensor.macs_per_cycle_fp8_wide=4096", "accelerator.memory.v_transpose=true" };
    CHECK(run(tr8, N(tr8), &t) == 0);
    uint64_t kv = b.dram - o_bytes - 2ull * 256 * 128;   /* minus O and the 1-byte Q */
    CHECK_MSG(t.buffer - b.buffer == kv, "V transpose: buffer +%llu bytes, K/V loaded %llu",
              (unsigned long long)(t.buffer - b.buffer), (unsigned long long)kv);
}

/* cycles of one item (one core, one context, 128 query rows) over seq_k keys, e4m3 operands with the
 * V transpose and `vt` cycles of transpose chain per tile */
static uint64_t transpose_cycles(const char *seq_k, const char *vt)
{
    outcome o;
    char k[64], c[64];
    snprintf(k, sizeof k, "workload.seq_k=%s", seq_k);
    snprintf(c, sizeof c, "accelerator.memory.v_transpose_cycles=%s", vt);
    const char *ov[] = { ONE, "workload.heads_q=1", "workload.heads_kv=1", "workload.seq_q=128", k,
                         "workload.dtype=bf16", "algorithm.operand_format=e4m3", "accelerator.regfile.max_contexts=1",
                         "accelerator.tensor.macs_per_cycle_fp8_wide=4096", "accelerator.memory.v_transpose=true", c };
    if (run(ov, N(ov), &o) != 0) return 0;
    return o.tr.cycles;
}

static void v_transpose_step(void)
{
    /* one key tile (64 keys): a chain shorter than QK and the softmax hides under them, so QK does not
     * wait for the transpose; once exposed, each further cycle delays P.V, and so the item, by one */
    uint64_t c0 = transpose_cycles("64", "0"), c50 = transpose_cycles("64", "50");
    uint64_t c1 = transpose_cycles("64", "100000"), c2 = transpose_cycles("64", "200000");
    CHECK_MSG(c0 > 0 && c50 == c0, "short transpose chain hidden under QK + softmax: %llu vs %llu",
              (unsigned long long)c50, (unsigned long long)c0);
    CHECK_MSG(c2 == c1 + 100000, "P.V waits for the transpose: %llu vs %llu + 100000", (unsigned long long)c2,
              (unsigned long long)c1);
    /* two key tiles: the producer transposes them one after the other, so the second P.V waits for two chains */
    uint64_t d1 = transpose_cycles("128", "100000"), d2 = transpose_cycles("128", "200000");
    CHECK_MSG(d2 == d1 + 200000, "transposes in series on the producer: %llu vs %llu + 2 x 100000",
              (unsigned long long)d2, (unsigned long long)d1);
}

static void fp8_epilogue(void)
{
    /* 2 heads x 2 query blocks of 128 rows, d 128, bf16 O: 32 KiB per item written into the buffer; at 1 B
     * per cycle instead of 128 the port time of the O writes (and so each item's end) grows */
    outcome a, b;
    const char *full[] = { ONE, "workload.heads_q=2", "workload.heads_kv=2", "workload.seq_q=256", "workload.seq_k=256",
                           "accelerator.regfile.max_contexts=1" };
    const char *slow[] = { ONE, "workload.heads_q=2", "workload.heads_kv=2", "workload.seq_q=256", "workload.seq_k=256",
                           "accelerator.regfile.max_contexts=1", "accelerator.memory.o_write_bytes_per_cycle=1" };
    const char *same[] = { ONE, "workload.heads_q=2", "workload.heads_kv=2", "workload.seq_q=256", "workload.seq_k=256",
                           "accelerator.regfile.max_contexts=1", "accelerator.memory.o_write_bytes_per_cycle=128" };
    outcome c;
    CHECK(run(full, N(full), &a) == 0 && run(slow, N(slow), &b) == 0 && run(same, N(same), &c) == 0);
    uint64_t o_item = 128ull * 128 * 2;
    CHECK_MSG(c.tr.cycles == a.tr.cycles, "o_write_bytes_per_cycle = port width changes nothing: %llu vs %llu",
              (unsigned long long)c.tr.cycles, (unsigned long long)a.tr.cycles);
    CHECK_MSG(b.tr.cycles >= a.tr.cycles + 4 * (o_item - o_item / 128) - 4 * 1000 && b.tr.cycles <= a.tr.cycles + 4 * o_item,
              "4 items' O written at 1 B/clk: %llu vs %llu (+ about 4 x %llu)", (unsigned long long)b.tr.cycles,
              (unsigned long long)a.tr.cycles, (unsigned long long)o_item);
}

static void refusals(void)
{
    ls_config cfg;
    ls_config_diag d;
    const char *a[] = { "algorithm.operand_format=e4m3" };
    CHECK(ls_config_load(&cfg, NULL, a, 1, &d) != 0 && strstr(d.message, "operand_format"));
    const char *b[] = { "accelerator.regfile.max_contexts=3", "accelerator.memory.kv_shared_contexts=2" };
    CHECK(ls_config_load(&cfg, NULL, b, 2, &d) != 0 && strstr(d.message, "kv_shared_contexts"));
    printf("refused: %s\n", d.message);
}

/* fa2_16bit: every exponential on the SFU, b_k x b_q = 512 per sub-block and b_q = 32 per warp's
 * normaliser, multiples of the 16 lanes: the busy cycles double exactly at cycles_per_exp 2. */
static void sfu_cycles_per_exp(void)
{
    const char *one[] = { ONE, "workload.seq_q=256", "workload.seq_k=256" };
    const char *two[] = { ONE, "workload.seq_q=256", "workload.seq_k=256", "accelerator.sfu.cycles_per_exp=2" };
    ls_engine_result r1, r2;
    ls_timed_result a, b;
    CHECK(tt_run(one, N(one), 0, &r1, &a) == 0 && tt_run(two, N(two), 0, &r2, &b) == 0);
    const ls_timed_unit *sa = tt_unit(&a, "sfu"), *sb = tt_unit(&b, "sfu");
    printf("sfu.cycles_per_exp 1 -> 2: sfu busy %llu -> %llu, work %llu -> %llu, cycles %llu -> %llu\n",
           (unsigned long long)sa->busy_cycles, (unsigned long long)sb->busy_cycles, (unsigned long long)sa->work,
           (unsigned long long)sb->work, (unsigned long long)a.cycles, (unsigned long long)b.cycles);
    CHECK(sa->work > 0 && sb->work == sa->work);
    CHECK_MSG(sb->busy_cycles == 2 * sa->busy_cycles, "sfu busy %llu, expected 2 x %llu",
              (unsigned long long)sb->busy_cycles, (unsigned long long)sa->busy_cycles);
    CHECK(b.cycles >= a.cycles);
    ls_engine_result_free(&r1);
    ls_engine_result_free(&r2);
}

int main(void)
{
    launch_and_setup();
    waves();
    kv_sharing();
    operand_width();
    v_transpose_step();
    fp8_epilogue();
    refusals();
    sfu_cycles_per_exp();
    CHECK_DONE();
}
