#define _POSIX_C_SOURCE 200809L
/* The hardware units' C models without SystemC: the shared timing rule, tensor throughput,
 * register allocation by layout and occupancy, the assembler (shipped programs,
 * errors with file:line and instruction), and the timed report fields (grouped order,
 * deterministic). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lsmem.h"
#include "lsregfile.h"
#include "lstensor.h"
#include "timed_testutil.h"
#include "lsucode.h"

static void timing_rule(void)
{
    lsdp_unit_state u;
    memset(&u, 0, sizeof u);
    lsdp_txn t;
    memset(&t, 0, sizeof t);
    t.req = 10;
    lsdp_unit_serve(&u, &t, 5, 3, 100);
    CHECK(t.start == 10 && t.end == 18 && u.free_at == 15 && u.busy == 5 && u.work == 100);
    t.req = 12;                       /* unit busy until 15: waits */
    lsdp_unit_serve(&u, &t, 4, 3, 1);
    CHECK(t.start == 15 && t.end == 22 && u.free_at == 19 && u.busy == 9 && u.ops == 2);
    t.req = 30;                       /* zero work: no time, unit untouched */
    lsdp_unit_serve(&u, &t, 0, 3, 0);
    CHECK(t.start == 30 && t.end == 30 && u.free_at == 19 && u.ops == 2);
    lsdp_hw hw;
    memset(&hw, 0, sizeof hw);
    hw.tensor.macs_per_cycle_8bit = 4096; hw.tensor_macs16 = 2048;
    CHECK(lstensor_cycles(&hw, 4096 * 10, 0, 128) == 10);
    CHECK(lstensor_cycles(&hw, 0, 2048 * 10, 128) == 10);
    CHECK(lstensor_cycles(&hw, 4096, 2048, 128) == 2);
    CHECK(lstensor_cycles(&hw, 1, 0, 128) == 1);
}

static void regfile(void)
{
    /* the layouts' logit tiles and the plan's register figures (the plan's buffer, limits and
     * refusals: test_regfile_plan.c) */
    lsregfile_params p = { .registers = 65536, .subpartitions = 4, .max_regs_per_thread = 255, .alloc_granularity = 256,
                           .warp_size = 32, .max_warps = 64, .max_ctas = 32, .max_contexts = 16,
                           .layout = LSREGFILE_COMPACT, .buffer_bytes = 228 * 1024.0, .stages = 2, .kv_group = 1 };
    lsregfile_tile t = { .b_q = 32, .n_q = 4, .b_k = 16, .n_k = 4, .d = 128, .seq_k = 4096, .elem_bytes = 2 };
    lsregfile_alloc a;
    char err[320];
    /* b_q 32, n_q 4, b_k 16, n_k 4, d 128 (D.3): logit tile 16 (LP) + 8 (one HP sub-block) regs/thread */
    CHECK(lsregfile_y_regs(LSREGFILE_LP, 32, 16, 4) == 512);
    CHECK(lsregfile_y_regs(LSREGFILE_COMPACT, 32, 16, 4) == 768);
    CHECK(lsregfile_y_regs(LSREGFILE_FULL, 32, 16, 4) == 1024);
    CHECK(lsregfile_y_regs(LSREGFILE_FP32, 32, 16, 4) == 2048);
    /* the widths of the configured formats: 4-bit LP logits pack 8 per register, 12-bit HP ones 2 */
    CHECK(lsregfile_y_regs_bits(LSREGFILE_LP, 32, 16, 4, 4, 12) == 256);
    CHECK(lsregfile_y_regs_bits(LSREGFILE_COMPACT, 32, 16, 4, 4, 12) == 256 + 256);
    CHECK(lsregfile_y_regs_bits(LSREGFILE_COMPACT, 32, 16, 4, 8, 16) == lsregfile_y_regs(LSREGFILE_COMPACT, 32, 16, 4));
    CHECK(lsregfile_y_regs_bits(LSREGFILE_FULL, 32, 16, 4, 7, 32) == 2048);
    CHECK(lsregfile_y_regs_bits(LSREGFILE_FP32, 32, 16, 4, 4, 12) == 2048);   /* fp32 whatever the formats */
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0);
    CHECK(a.per_warp == 7168 && a.per_context == 4 * 7168 && a.fit == 2 && a.limit == 2);
    p.layout = LSREGFILE_FULL;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0);
    CHECK(a.per_warp == 7424 && a.fit == 2);
    p.registers = 86016;            /* 3 compact contexts, 2 full ones */
    p.layout = LSREGFILE_COMPACT;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.fit == 3);
    p.layout = LSREGFILE_FULL;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.fit == 2);
    p.max_contexts = 1;
    p.layout = LSREGFILE_COMPACT;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) == 0 && a.limit == 1);
    /* d = 512 needs 512 fp32 O registers per thread: refused */
    t.d = 512;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) != 0);
    CHECK(strstr(err, "max_regs_per_thread") != NULL);
    t.d = 128;
    p.registers = 4096;
    CHECK(lsregfile_plan(&p, &t, &a, err, sizeof err) != 0);
    CHECK(strstr(err, "no context fits") != NULL);
    lsdp_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.seq_k = 4096; sh.bc = 64; sh.dim = 128; sh.elem_bytes = 2;
    CHECK(lsmem_tile_bytes(&sh, 0) == 32768);
}

/* The address map and the built-in off-chip model seen from the memory port: K/V tiles found by
 * their address hit the L2 when read again; Q reads, O writes and other addresses go to DRAM. */
static void memory_port(void)
{
    lsdp_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.batch = 1; sh.heads_q = 2; sh.heads_kv = 1; sh.seq_q = 100; sh.seq_k = 100; sh.dim = 64;
    sh.bc = 64; sh.nkt = 2; sh.elem_bytes = 2; sh.out_bytes = 4;
    lsdp_hw hw;
    memset(&hw, 0, sizeof hw);
    hw.dram_bpc = 64; hw.l2_bpc = 128; hw.memory.latency = 500; hw.memory.l2_latency = 100; hw.l2_bytes = 1 << 20;
    lsmem_state m;
    CHECK(lsmem_init(&m, &sh, &hw) == 0);
    /* Q 2 x 100 x 64 x 2 B = 25600 -> KV at 28672 (4 KiB aligned), 2 x 100 x 64 x 2 B = 25600 -> O at 57344 */
    CHECK(m.map.q == 0 && m.map.kv == 28672 && m.map.o == 57344);
    CHECK(lsmem_region_bytes(&sh, LSMEM_O) == 51200);
    lsmem_access a;
    memset(&a, 0, sizeof a);
    a.addr = m.map.kv + 2 * 64 * 64 * 2; a.bytes = 2 * 36 * 64 * 2; a.req = 10;   /* tile 1: keys 64..99 */
    CHECK(lsmem_model_access(&m.model, &a) == 10 + 144 + 500 && a.dram_bytes == a.bytes);
    a.req = 1000;
    CHECK(lsmem_model_access(&m.model, &a) == 1000 + 72 + 100 && a.dram_bytes == 0 && m.model.l2_bytes == a.bytes);
    a.addr += 2 * 64 * 2;                 /* not the start of a tile: no L2 lookup */
    a.req = 2000;
    CHECK(lsmem_model_access(&m.model, &a) == 2000 + 144 + 500 && a.dram_bytes == a.bytes);
    a.addr = m.map.o; a.write = true; a.req = 3000;
    CHECK(lsmem_model_access(&m.model, &a) == 3000 + 144 + 500 && m.model.dram_bytes == 3 * a.bytes);
    lsmem_free(&m);
}

static void expect_error(const char *text, const char *want1, const char *want2)
{
    lsucode_program p;
    char err[512] = "";
    int rc = lsucode_assemble(text, "user.lasm", &p, err, sizeof err);
    CHECK_MSG(rc != 0, "accepted: %s", text);
    CHECK_MSG(strstr(err, want1) != NULL && (!want2 || strstr(err, want2) != NULL), "message '%s' lacks '%s' / '%s'",
              err, want1, want2 ? want2 : "");
    lsucode_program_free(&p);
}

static void assembler(void)
{
    const char *names[] = { "lampattention", "fa2_16bit", "pure_8bit" };
    for (int i = 0; i < 3; i++) {
        const char *file = NULL, *text = lsucode_shipped_text(names[i], &file);
        CHECK(text != NULL && file != NULL);
        lsucode_program p;
        char err[512] = "";
        CHECK_MSG(lsucode_assemble(text, file, &p, err, sizeof err) == 0, "%s", err);
        CHECK(strcmp(p.name, names[i]) == 0);
        CHECK(p.n > 10 && p.code[p.n - 1].op == LSUCODE_OP_END);
        lsucode_program_free(&p);
    }
    CHECK(lsucode_shipped_text("nope", NULL) == NULL);
    lsucode_program p;
    char err[512];
    CHECK(lsucode_assemble("top: QK.LP Y <- Q, KV ; c\n NEXT top\n END\n", "ok.lasm", &p, err, sizeof err) == 0);
    CHECK(p.n == 3 && p.code[1].target == 0 && p.code[0].ndst == 1 && p.code[0].nsrc == 2 && p.code[0].src[1] == LSUCODE_R_KV);
    lsucode_program_free(&p);
    expect_error("  LDQ Q\n  FOO Y\n  END\n", "user.lasm:2:", "instruction 'FOO'");
    expect_error("  LDQ Q\n  SMAX M <- Z\n  END\n", "user.lasm:2:", "unknown region 'Z'");
    expect_error("  JMP nowhere\n  END\n", "user.lasm:1:", "undefined label 'nowhere'");
    expect_error("a: LDQ Q\na: END\n", "user.lasm:2:", "already defined");
    expect_error("  SMAX M, Y <- Y\n  END\n", "user.lasm:1:", "destination");
    expect_error("  QK.LP Y, Q\n  END\n", "user.lasm:1:", "destinations <- sources");
    expect_error("  LDQ Q\n", "user.lasm:1:", "no END");
    expect_error("  END\n  LDQ Q\n", "user.lasm:2:", "last instruction");
    expect_error(".ylayout sideways\n END\n", "user.lasm:1:", ".ylayout");
    expect_error("", "user.lasm", "empty");
    CHECK(lsucode_assemble_file("/nonexistent/x.lasm", &p, err, sizeof err) != 0 && strstr(err, "/nonexistent/x.lasm"));
}

/* The report of the SystemC drive equals the C units called directly, field for field: on a small
 * layer and on memory-bound ones whose many cores keep transfers in flight past the SystemC
 * thread's syncs (before issue 23 such a transfer was timed at the sync, not at its cycle). */
static void report_fields_case(const char *const *ov, int nov)
{
    char *json[2] = { NULL, NULL };
    for (int k = 0; k < 2; k++) {
        tt_case c;
        if (tt_setup(&c, ov, nov) != 0) { CHECK(0); return; }
        ls_engine_result r;
        ls_timed_result tr;
        char err[512];
        ls_timed_options o;
        ls_timed_options_default(&o);
        o.use_systemc = k;          /* both drives give the same report */
        CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r, &tr, err, sizeof err) == 0, "%s", err);
        ls_fields fs;
        ls_fields_init(&fs);
        ls_timed_report_fields(&fs, &tr);
        CHECK(!fs.oom && fs.n > 40);
        CHECK(strcmp(fs.f[0].name, "cycles") == 0 && strcmp(fs.f[1].name, "time_us") == 0 &&
              strcmp(fs.f[2].name, "tflops_effective") == 0);
        /* grouped order: each top-level prefix appears in one run */
        const char *groups[] = { "units.", "stalls.", "occupancy.", "slow_path.", "energy.", "memory.", "fast_forward.",
                                 "area.", "power.", "efficiency.", "cycle_stack.", "balance." };
        size_t last = 2;
        for (int g = 0; g < (int)(sizeof groups / sizeof groups[0]); g++) {
            size_t first = 0, end = 0;
            int seen = 0;
            for (size_t i = 0; i < fs.n; i++)
                if (!strncmp(fs.f[i].name, groups[g], strlen(groups[g]))) {
                    if (!seen) first = i;
                    seen = 1;
                    CHECK_MSG(i == first || i == end + 1, "%s not consecutive at %s", groups[g], fs.f[i].name);
                    end = i;
                }
            CHECK_MSG(seen && first == last + 1, "group %s out of order", groups[g]);
            last = end;
        }
        CHECK(last == fs.n - 1);
        ls_json j;
        ls_json_init(&j);
        ls_json_begin_object(&j, NULL);
        ls_fields_to_json(&fs, &j);
        ls_json_end_object(&j);
        json[k] = strdup(ls_json_text(&j));
        ls_json_free(&j);
        ls_fields_free(&fs);
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) { ls_timed_summary(devnull, &tr); fclose(devnull); }
        ls_engine_result_free(&r);
        tt_free(&c);
    }
    CHECK_MSG(json[0] && json[1] && strcmp(json[0], json[1]) == 0, "SystemC and direct drives differ (%s ...)", ov[0]);
    CHECK(json[0] && strstr(json[0], "\"contexts_per_core\"") && strstr(json[0], "\"slow_path\"") &&
          !strstr(json[0], "wall"));
    free(json[0]);
    free(json[1]);
}

static void report_fields(void)
{
    const char *small[] = { "workload.seq_q=128", "workload.seq_k=192", "accelerator.cores=2" };
    report_fields_case(small, 3);
    const char *wide[] = { "workload.heads_q=8", "workload.heads_kv=2", "workload.seq_q=512", "workload.seq_k=512",
                           "workload.dim=64", "algorithm.b_k=32", "algorithm.tau=0.125", "accelerator.clock_ghz=1.0",
                           "accelerator.memory.bandwidth_gbps=1000", "seed=3" };
    report_fields_case(wide, 10);
    const char *slow_dram[] = { "workload.heads_q=8", "workload.heads_kv=2", "workload.seq_q=1024", "workload.seq_k=1024",
                                "workload.dim=64", "accelerator.cores=16", "accelerator.memory.bandwidth_gbps=300",
                                "accelerator.memory.latency=2000" };
    report_fields_case(slow_dram, 8);
}

static void user_program(void)
{
    /* A user program: the LampAttention loop without the slow-path branch. Numerics are the
     * golden engine's; on the compact layout it has no slow path, so it is not slower. */
    const char *prog =
        ".program no_slow_path\n.ylayout compact\n"
        "  LDQ Q\n  INIT ST, O\n  PREF KV\n"
        "t: QK.LP Y <- Q, KV\n  SMAX M <- Y\n  SORT SEL <- M, ST\n  SEL1 SEL, Y, ST <- SEL, M, Y, Q, KV\n"
        "  EXP E <- Y, SEL, ST\n  NORM ST <- E, ST\n  SEL2 SEL <- E, ST, SEL\n  RECOMP Y, E <- SEL, Q, KV, ST\n"
        "  FULLHP Y, E <- SEL, Q, KV, ST\n  RAISE E, ST <- Y, SEL\n  PV O <- E, KV, ST\n  LDKV KV\n  NEXT t\n"
        "  FIN O <- ST\n  STO O\n  END\n";
    const char *path = "timed_user_prog.lasm";
    FILE *f = fopen(path, "w");
    if (!f) { CHECK(0); return; }
    fputs(prog, f);
    fclose(f);
    const char *ov[] = { "workload.seq_q=256", "workload.seq_k=256", "algorithm.tau=0.0625" };
    tt_case c;
    if (tt_setup(&c, ov, 3) != 0) { CHECK(0); return; }
    ls_engine_result g, r1, r2;
    ls_timed_result t1, t2;
    char err[512];
    CHECK(ls_engine_run(&c.ep, &c.in, &g, err, sizeof err) == 0);
    CHECK(ls_timed_run(&c.cfg, &c.ep, &c.in, &r1, &t1, err, sizeof err) == 0);
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.program_path = path;
    CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r2, &t2, err, sizeof err) == 0, "%s", err);
    size_t n = (size_t)g.batch * g.heads_q * g.seq_q * g.dim;
    CHECK(r2.o && memcmp(g.o, r2.o, n * sizeof(float)) == 0);
    CHECK(strcmp(t2.program, "no_slow_path") == 0 && t2.slow_tiles == 0 && t1.slow_tiles > 0);
    CHECK_MSG(t2.cycles < t1.cycles, "%llu vs %llu", (unsigned long long)t2.cycles, (unsigned long long)t1.cycles);
    ls_engine_result_free(&g); ls_engine_result_free(&r1); ls_engine_result_free(&r2);
    /* a broken user program: the error names the file, line and instruction */
    f = fopen(path, "w");
    if (f) { fputs("  LDQ Q\n  PV O <- E, KV, XX\n  END\n", f); fclose(f); }
    CHECK(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r2, &t2, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "timed_user_prog.lasm:2:") && strstr(err, "'PV'"), "%s", err);
    ls_engine_result_free(&r2);
    /* programs that never end are stopped with a message */
    const char *loops[2][2] = { { "t: SMAX M <- Y\n  JMP t\n  END\n", "does not terminate" },
                                { "t: JMP t\n  END\n", "control loop" } };
    for (int k = 0; k < 2; k++) {
        f = fopen(path, "w");
        if (f) { fputs(loops[k][0], f); fclose(f); }
        err[0] = 0;
        CHECK(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r2, &t2, err, sizeof err) != 0);
        CHECK_MSG(strstr(err, loops[k][1]) != NULL, "%s", err);
        ls_engine_result_free(&r2);
    }
    remove(path);
    tt_free(&c);
}

static void trace(void)
{
    const char *ov[] = { "workload.seq_q=256", "workload.seq_k=256", "accelerator.cores=2" };
    tt_case c;
    if (tt_setup(&c, ov, 3) != 0) { CHECK(0); return; }
    const char *path = "timed_trace_test.json";
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.trace_path = path;
    o.trace_tiles = 2;
    ls_engine_result r;
    ls_timed_result tr;
    char err[512];
    CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &r, &tr, err, sizeof err) == 0, "%s", err);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        CHECK(strncmp(buf, "{\"displayTimeUnit\"", 17) == 0 && strstr(buf, "\"traceEvents\":["));
        CHECK(strstr(buf, "\"name\":\"QK.LP\"") && strstr(buf, "\"name\":\"tensor\"") &&
              strstr(buf, "\"name\":\"resident contexts\""));
        CHECK(strstr(buf, "\"tile\":2,") == NULL);   /* bounded to tiles 0..1 */
        CHECK(n > 1000 && buf[n - 2] == '}');
    }
    remove(path);
    ls_engine_result_free(&r);
    tt_free(&c);
}

int main(void)
{
    trace();
    timing_rule();
    regfile();
    memory_port();
    assembler();
    report_fields();
    user_program();
    CHECK_DONE();
}
