/* Configuration tests: defaults and presets, every error class with its exact message,
 * overrides, includes, workload files, the resolved-YAML round trip and docs/config.md. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "config.h"
#include "lsreglayout.h"
#include "workload.h"
#include "yamltree.h"

static const char *root, *tmp;

static void write_text(const char *name, const char *text)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    FILE *f = fopen(p, "wb");
    if (!f) {
        perror(p);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static char *tpath(const char *name)
{
    static char p[8][2048];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", tmp, name);
    return p[k];
}

static char *rpath(const char *name)
{
    static char p[8][2048];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", root, name);
    return p[k];
}

static ls_config cfg, cfg2;
static ls_config_diag diag;

/* Loads a YAML string named t.yaml (relative paths against tmp); returns the error message or "". */
static const char *load_str(const char *text, const char *const *ov, int nov)
{
    memset(&diag, 0, sizeof diag);
    int rc = ls_config_load_string(&cfg, text, strlen(text), "t.yaml", tmp, ov, nov, &diag);
    if (rc == 0 && diag.message[0]) return "(rc 0 but message set)";
    if (rc != 0 && !diag.message[0]) return "(rc -1 but no message)";
    return diag.message;
}

#define EXPECT_ERR(text, msg) do { const char *m_ = load_str(text, NULL, 0); \
    CHECK_MSG(!strcmp(m_, msg), "\n  got:      %s\n  expected: %s", m_, msg); } while (0)
#define EXPECT_OK(text) do { const char *m_ = load_str(text, NULL, 0); CHECK_MSG(!*m_, "unexpected error: %s", m_); } while (0)

static void test_defaults(void)
{
    ls_config def;
    ls_config_defaults(&def);
    char diff[512] = "";
    CHECK(ls_config_load(&cfg, NULL, NULL, 0, &diag) == 0);
    CHECK_MSG(ls_config_equal(&def, &cfg, diff, sizeof diff), "embedded default differs from the schema: %s", diff);
    CHECK(ls_config_load(&cfg2, rpath("configs/default.yaml"), NULL, 0, &diag) == 0);
    CHECK_MSG(ls_config_equal(&def, &cfg2, diff, sizeof diff), "configs/default.yaml differs from the schema: %s", diff);
    CHECK(diag.n_warnings == 0);
    /* the embedded text is the file */
    FILE *f = fopen(rpath("configs/default.yaml"), "rb");
    CHECK(f != NULL);
    if (f) {
        static char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        CHECK_MSG(!strcmp(buf, ls_config_default_yaml), "embedded default is stale");
    }
    CHECK(def.algorithm.mode == LS_ENGINE_MODE_LAMP && def.algorithm.b_q == 32 && def.algorithm.n_q == 4);
    CHECK(def.algorithm.b_k == 16 && def.algorithm.n_k == 4 && def.algorithm.tau == 0.5);
    CHECK(def.algorithm.delta == 0.00390625 && def.algorithm.stage1 && def.algorithm.stage2);
    CHECK(def.algorithm.chunk_k == 1 && def.algorithm.threads == 1 && def.algorithm.lamp_code_tau == 1.5);
    CHECK(def.accelerator.regfile.registers == 65536 && def.accelerator.regfile.layout == LSREGFILE_COMPACT);
    CHECK(def.workload.generator == LS_CONFIG_GEN_QKNORM && def.workload.dim == 128 && def.workload.seq_k == 512);
    CHECK(!strcmp(ls_config_enum_name("algorithm.mu_lp_shift", LSLAMP_MU_RNE), "rne_e4m3"));
    CHECK(cfg.workload.seed == -1); /* -1: the top-level seed */
}

static void test_presets(void)
{
    const char *files[] = {"configs/default.yaml", "configs/lampattention.yaml", "configs/h100.yaml",
                           "configs/examples/sweep_tau.yaml", "configs/examples/decode_gemma3.yaml",
                           "configs/examples/lamp_code_reference.yaml"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        int rc = ls_config_load(&cfg, rpath(files[i]), NULL, 0, &diag);
        CHECK_MSG(rc == 0, "%s: %s", files[i], diag.message);
    }
    CHECK(ls_config_load(&cfg, rpath("configs/h100.yaml"), NULL, 0, &diag) == 0);
    CHECK(!strcmp(cfg.accelerator.name, "h100") && cfg.accelerator.lut.lanes == 0);
    CHECK(cfg.accelerator.regfile.layout == LSREGFILE_FULL && cfg.algorithm.mode == LS_ENGINE_MODE_FA2_16BIT);
    CHECK(cfg.accelerator.sfu.lanes == 16); /* inherited */
    CHECK(ls_config_load(&cfg, rpath("configs/examples/sweep_tau.yaml"), NULL, 0, &diag) == 0);
    CHECK(cfg.algorithm.tau == 0.25 && cfg.workload.heads_q == 4 && cfg.workload.heads_kv == 1);
    CHECK(cfg.workload.seq_q == 1024 && cfg.workload.dim == 128 && !strcmp(cfg.workload.name, "qwen3-8b-like"));
    CHECK(cfg.workload.file[0] == 0 && strstr(cfg.workload_source, "workloads/qwen3_8b_like.yaml"));
    CHECK(cfg.workload.rope.base == 1e6);
    const char *wl[] = {"qwen3_8b_like.yaml", "qwen3_8b_like_decode.yaml", "gemma3_like.yaml", "gemma3_like_decode.yaml",
                        "gaussian_small.yaml", "qwen3_8b_sourced.yaml", "gemma3_sourced.yaml"};
    for (size_t i = 0; i < sizeof wl / sizeof wl[0]; ++i) {
        char text[512];
        snprintf(text, sizeof text, "workload:\n  file: %s/workloads/%s\n", root, wl[i]);
        const char *m = load_str(text, NULL, 0);
        CHECK_MSG(!*m, "%s: %s", wl[i], m);
        CHECK_MSG(cfg.workload.generator == LS_CONFIG_GEN_TRACE || strstr(cfg.workload.description, "SYNTHETIC"),
                  "%s is not labelled synthetic", wl[i]);
    }
}

static void test_errors(void)
{
    /* unknown keys, with suggestions */
    EXPECT_ERR("algorithm:\n  tua: 0.3\n", "t.yaml:2:3: algorithm.tua: unknown key; did you mean 'algorithm.tau'?");
    EXPECT_ERR("algorithm:\n  cores: 3\n", "t.yaml:2:3: algorithm.cores: unknown key; did you mean 'accelerator.cores'?");
    EXPECT_ERR("acelerator:\n  cores: 3\n", "t.yaml:1:1: acelerator: unknown key; did you mean 'accelerator'?");
    EXPECT_ERR("workload:\n  qknorm:\n    gian: 2\n",
               "t.yaml:3:5: workload.qknorm.gian: unknown key; did you mean 'workload.qknorm.gain'?");
    EXPECT_ERR("frobnicate: 1\n", "t.yaml:1:1: frobnicate: unknown key");
    EXPECT_ERR("version: [1]\n", "t.yaml:1:10: version: expected a string, got a sequence");
    /* wrong types */
    EXPECT_ERR("algorithm:\n  b_q: \"32\"\n",
               "t.yaml:2:8: algorithm.b_q: expected an integer in [1, 1024], got the quoted string \"32\" (remove the quotes)");
    EXPECT_ERR("algorithm:\n  b_q: 32.0\n",
               "t.yaml:2:8: algorithm.b_q: expected an integer in [1, 1024], got 32.0 (write it without a fraction)");
    EXPECT_ERR("algorithm:\n  b_q: abc\n", "t.yaml:2:8: algorithm.b_q: expected an integer in [1, 1024], got abc");
    /* integers with a decimal exponent, read exactly from their digits (issue #39): exact values pass,
     * inexact ones are refused naming file, line and key, too large ones are out of range */
    EXPECT_OK("workload:\n  max_work: 2e12\n");
    CHECK(cfg.workload.max_work == 2000000000000LL);
    EXPECT_OK("workload:\n  max_work: 1.5E12\n");
    CHECK(cfg.workload.max_work == 1500000000000LL);
    EXPECT_OK("workload:\n  max_work: 9007199254740993e0\n");   /* 2^53 + 1: no double rounding */
    CHECK(cfg.workload.max_work == 9007199254740993LL);
    EXPECT_OK("workload:\n  max_work: 30000000000000e-2\n");
    CHECK(cfg.workload.max_work == 300000000000LL);
    EXPECT_OK("algorithm:\n  b_q: 3.2e+1\n");
    CHECK(cfg.algorithm.b_q == 32);
    EXPECT_ERR("workload:\n  max_work: 2.5e0\n",
               "t.yaml:2:13: workload.max_work: expected an integer in [1, 1e+18], got 2.5e0 (not a whole number)");
    EXPECT_ERR("workload:\n  max_work: 1e-3\n",
               "t.yaml:2:13: workload.max_work: expected an integer in [1, 1e+18], got 1e-3 (not a whole number)");
    EXPECT_ERR("workload:\n  max_work: 2e18\n",
               "t.yaml:2:13: workload.max_work: expected an integer in [1, 1e+18], got 2e18 (out of range)");
    EXPECT_ERR("workload:\n  max_work: 1e99999\n",
               "t.yaml:2:13: workload.max_work: expected an integer in [1, 1e+18], got 1e99999 (out of range)");
    EXPECT_ERR("workload:\n  max_work: 2e\n", "t.yaml:2:13: workload.max_work: expected an integer in [1, 1e+18], got 2e");
    EXPECT_ERR("workload:\n  max_work: 0e5\n",
               "t.yaml:2:13: workload.max_work: expected an integer in [1, 1e+18], got 0e5 (out of range)");
    EXPECT_ERR("algorithm:\n  tau: [1, 2]\n", "t.yaml:2:8: algorithm.tau: expected a finite number in [0, 1], got a sequence");
    EXPECT_ERR("algorithm:\n  tau:\n    x: 1\n", "t.yaml:3:5: algorithm.tau: expected a finite number in [0, 1], got a mapping");
    EXPECT_ERR("algorithm:\n  tau:\n", "t.yaml:2:7: algorithm.tau: expected a finite number in [0, 1], got an empty value");
    EXPECT_ERR("algorithm:\n  stage1: yes\n", "t.yaml:2:11: algorithm.stage1: expected a boolean (true or false), got yes");
    EXPECT_ERR("timed:\n  unit_numerics: 1\n", "t.yaml:2:18: timed.unit_numerics: expected a boolean (true or false), got 1");
    EXPECT_ERR("algorithm:\n  mode: lmap\n",
               "t.yaml:2:9: algorithm.mode: expected one of lamp, fa2_fp32, fa2_16bit, pure_8bit, lamp_code, random, fa3_fp8, got lmap; "
               "did you mean 'lamp'?");
    EXPECT_ERR("algorithm: 3\n", "t.yaml:1:12: algorithm: is a section; expected a mapping of its keys, got a scalar");
    EXPECT_ERR("- a\n- b\n", "t.yaml:1:1: expected a mapping of configuration keys at the top level, got a sequence");
    /* out of range and non-finite */
    EXPECT_ERR("algorithm:\n  tau: 1.5\n", "t.yaml:2:8: algorithm.tau: expected a finite number in [0, 1], got 1.5 (out of range)");
    EXPECT_ERR("algorithm:\n  n_k: 17\n", "t.yaml:2:8: algorithm.n_k: expected an integer in [1, 16], got 17 (out of range)");
    EXPECT_ERR("algorithm:\n  b_q: 99999999999999999999\n",
               "t.yaml:2:8: algorithm.b_q: expected an integer in [1, 1024], got 99999999999999999999 (out of range)");
    EXPECT_ERR("algorithm:\n  delta: -0.1\n", "t.yaml:2:10: algorithm.delta: expected a finite number >= 0, got -0.1 (out of range)");
    EXPECT_ERR("algorithm:\n  tau: .nan\n",
               "t.yaml:2:8: algorithm.tau: expected a finite number in [0, 1], got .nan (NaN and infinity are not allowed)");
    EXPECT_ERR("algorithm:\n  delta: .inf\n",
               "t.yaml:2:10: algorithm.delta: expected a finite number >= 0, got .inf (NaN and infinity are not allowed)");
    EXPECT_ERR("algorithm:\n  delta: 1e999\n",
               "t.yaml:2:10: algorithm.delta: expected a finite number >= 0, got 1e999 (NaN and infinity are not allowed)");
    /* tiles and divisibility */
    EXPECT_ERR("algorithm:\n  b_q: 64\n  n_q: 32\n",
               "t.yaml:3:8: algorithm.n_q: query thread block b_q * n_q = 64 * 32 = 2048 exceeds the limit of 1024 queries");
    EXPECT_ERR("algorithm:\n  b_k: 128\n  n_k: 16\n",
               "t.yaml:3:8: algorithm.n_k: key tile b_k * n_k = 128 * 16 = 2048 exceeds the limit of 1024 keys");
    EXPECT_ERR("algorithm:\n  chunk_k: 48\n", "t.yaml:2:12: algorithm.chunk_k: chunk_k = 48 does not divide workload.dim = 128");
    EXPECT_ERR("workload:\n  heads_q: 6\n  heads_kv: 4\n",
               "t.yaml:3:13: workload.heads_kv: heads_kv = 4 does not divide heads_q = 6 (grouped-query attention needs "
               "heads_q = k * heads_kv)");
    EXPECT_ERR("workload:\n  seq_q: 600\n",
               "t.yaml:2:10: workload.seq_q: causal attention needs seq_q <= seq_k (got seq_q = 600, seq_k = 512): the first "
               "queries would see no key");
    EXPECT_ERR("workload:\n  dim: 127\n", "t.yaml:2:8: workload.dim: rotary embeddings need an even head dimension, got 127");
    /* the heads generator's lists: checked at load, at their key (not first when the workload is built) */
    EXPECT_ERR("workload:\n  generator: heads\n  heads_q: 2\n  heads_kv: 1\n  heads:\n    scale: \"1.0 abc\"\n",
               "t.yaml:6:12: workload.heads.scale: value 2 ('abc') is not a number in [0, 10000]");
    EXPECT_ERR("workload:\n  generator: heads\n  heads_q: 2\n  heads_kv: 1\n  heads:\n    decay: 1 2 3\n",
               "t.yaml:6:12: workload.heads.decay: 3 values for 2 query heads (give one per head, or one for all)");
    EXPECT_ERR("workload:\n  generator: heads\n  heads_q: 2\n  heads_kv: 1\n  heads:\n    key_share: 0.995\n",
               "t.yaml:6:16: workload.heads.key_share: value 1 ('0.995') is not a number in [0, 0.99]");
    EXPECT_ERR("workload:\n  generator: heads\n  heads_q: 4\n  heads_kv: 2\n  heads:\n    pairs: 2\n"
               "    freq: 0.1 0.2 0.3\n",
               "t.yaml:7:11: workload.heads.freq: 3 values for 2 KV heads x 2 pairs (heads.pairs; give one per head and "
               "pair, head-major, or one for all)");
    EXPECT_ERR("workload:\n  generator: heads\n  heads_q: 2\n  heads_kv: 1\n  heads:\n    pairs: 1\n"
               "    amp_cos: 1 2 3\n",
               "t.yaml:7:14: workload.heads.amp_cos: 3 values for 2 query heads x 1 pairs (heads.pairs; give one per head and "
               "pair, head-major, or one for all)");
    {   /* without rotary pairs the pair lists are not read, so not checked; one number stands for every head */
        ls_config g;
        ls_config_diag d;
        const char *text = "workload:\n  generator: heads\n  heads_q: 2\n  heads_kv: 1\n  heads:\n    scale: 2\n"
                           "    freq: 9 9 9\n";
        CHECK(ls_config_load_string(&g, text, strlen(text), "t.yaml", NULL, NULL, 0, &d) == 0);
        double v[2];
        char why[400];
        CHECK(ls_config_heads_parse(LS_CONFIG_HEADS_SCALE, &g.workload, v, why, sizeof why) == 0 && v[0] == 2 && v[1] == 2);
        ls_config_free(&g);
    }
    EXPECT_ERR("workload:\n  seq_q: 100000\n  seq_k: 100000\n  heads_q: 128\n  heads_kv: 1\n",
               "t.yaml:2:10: workload.seq_q: Q tensor of 1638400000 elements exceeds workload.max_elements = 1073741824");
    EXPECT_ERR("workload:\n  generator: trace\n",
               "t.yaml:2:14: workload.generator: generator trace needs trace.q, trace.k and trace.v (.npy) or trace.safetensors");
    EXPECT_ERR("workload:\n  generator: trace\n  trace:\n    q: q.npy\n",
               "t.yaml:2:14: workload.generator: generator trace with .npy files needs workload.trace.k too");
    /* YAML level */
    EXPECT_ERR("algorithm:\n  tau: 0.5\n  tau: 0.6\n", "t.yaml:3:3: algorithm.tau: duplicate key (first defined at line 2, column 3)");
    EXPECT_ERR("algorithm: [1\n",
               "t.yaml:2:1: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 12)");
    EXPECT_ERR("algorithm:\n  tau: 0.5\n bad\n",
               "t.yaml:3:2: YAML syntax error: did not find expected key (while parsing a block mapping at line 1, column 1)");
    EXPECT_ERR("seed: 1\n---\nseed: 2\n", "t.yaml:2:1: more than one YAML document in the file (remove the '---' separator)");
    EXPECT_ERR("a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
               "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n",
               "t.yaml:4:29: document too large: more than 10000 nodes after expanding aliases");
    EXPECT_ERR("a: *nope\n", "t.yaml:1:4: alias '*nope' refers to an undefined anchor");
    EXPECT_ERR("algorithm: !!python/object 3\n", "t.yaml:1:12: unsupported tag 'tag:yaml.org,2002:python/object'");
    {
        char deep[400] = "";
        for (int i = 0; i < 40; ++i) strcat(deep, "[");
        for (int i = 0; i < 40; ++i) strcat(deep, "]");
        strcat(deep, "\n");
        EXPECT_ERR(deep, "t.yaml:1:33: nesting deeper than 32 levels");
    }
    /* aliases within the bound are fine */
    EXPECT_OK("algorithm:\n  b_k: &t 16\n  b_q: *t\n");
    CHECK(cfg.algorithm.b_q == 16);
    /* strings */
    {
        static char longname[400];
        snprintf(longname, sizeof longname, "accelerator:\n  name: %0200d\n", 0);
        EXPECT_ERR(longname, "t.yaml:2:9: accelerator.name: expected a string of at most 127 characters, got 200");
    }
    /* includes */
    write_text("inc_a.yaml", "include: inc_b.yaml\n");
    write_text("inc_b.yaml", "include: [inc_c.yaml]\n");
    write_text("inc_c.yaml", "include: inc_a.yaml\n");
    write_text("inc_bad.yaml", "algorithm:\n  tau: 2\n");
    char msg[4096];
    CHECK(ls_config_load(&cfg, tpath("inc_a.yaml"), NULL, 0, &diag) == -1);
    snprintf(msg, sizeof msg, "%s:1:10: include: include cycle: %s -> %s -> %s -> %s", tpath("inc_c.yaml"),
             tpath("inc_a.yaml"), tpath("inc_b.yaml"), tpath("inc_c.yaml"), tpath("inc_a.yaml"));
    CHECK_MSG(!strcmp(diag.message, msg), "\n  got:      %s\n  expected: %s", diag.message, msg);
    load_str("include: missing.yaml\n", NULL, 0);
    snprintf(msg, sizeof msg, "t.yaml:1:10: include: cannot open included file '%s': No such file or directory", tpath("missing.yaml"));
    CHECK_MSG(!strcmp(diag.message, msg), "\n  got:      %s\n  expected: %s", diag.message, msg);
    load_str("include: inc_bad.yaml\n", NULL, 0);
    snprintf(msg, sizeof msg, "%s:2:8: algorithm.tau: expected a finite number in [0, 1], got 2 (out of range)", tpath("inc_bad.yaml"));
    CHECK_MSG(!strcmp(diag.message, msg), "\n  got:      %s\n  expected: %s", diag.message, msg);
    EXPECT_ERR("include:\n  a: 1\n", "t.yaml:2:3: include: expected a file name or a sequence of file names, got a mapping");
    CHECK(ls_config_load(&cfg, tpath("does_not_exist.yaml"), NULL, 0, &diag) == -1);
    snprintf(msg, sizeof msg, "%s: cannot open: No such file or directory", tpath("does_not_exist.yaml"));
    CHECK_MSG(!strcmp(diag.message, msg), "got %s", diag.message);
    /* a directory is not a config */
    CHECK(ls_config_load(&cfg, tmp, NULL, 0, &diag) == -1);
    snprintf(msg, sizeof msg, "%s: cannot read: not a regular file", tmp);
    CHECK_MSG(!strcmp(diag.message, msg), "got %s", diag.message);
    /* a later layer wins; includes apply before the file's own keys wherever written */
    write_text("base.yaml", "algorithm:\n  tau: 0.125\n  b_q: 16\n");
    EXPECT_OK("algorithm:\n  tau: 0.25\ninclude: base.yaml\n");
    CHECK(cfg.algorithm.tau == 0.25 && cfg.algorithm.b_q == 16);
    /* workload files */
    write_text("wl.yaml", "name: w\nseq_q: 64\nseq_k: 64\ndim: 64\n");
    write_text("wl_nested.yaml", "file: wl.yaml\n");
    write_text("wl_bad.yaml", "seq_q: 64\nseqq: 3\n");
    EXPECT_OK("workload:\n  seq_k: 128\n  file: wl.yaml\n");
    CHECK(cfg.workload.seq_k == 128 && cfg.workload.seq_q == 64 && cfg.workload.dim == 64 && !strcmp(cfg.workload.name, "w"));
    load_str("workload:\n  file: wl_nested.yaml\n", NULL, 0);
    snprintf(msg, sizeof msg, "%s:1:1: workload.file: a workload file cannot name another workload file", tpath("wl_nested.yaml"));
    CHECK_MSG(!strcmp(diag.message, msg), "got %s", diag.message);
    load_str("workload:\n  file: wl_bad.yaml\n", NULL, 0);
    snprintf(msg, sizeof msg, "%s:2:1: workload.seqq: unknown key; did you mean 'workload.seq_q'?", tpath("wl_bad.yaml"));
    CHECK_MSG(!strcmp(diag.message, msg), "got %s", diag.message);
    load_str("workload:\n  file: nowl.yaml\n", NULL, 0);
    snprintf(msg, sizeof msg, "t.yaml:2:9: workload.file: cannot read workload file '%s': No such file or directory",
             tpath("nowl.yaml"));
    CHECK_MSG(!strcmp(diag.message, msg), "got %s", diag.message);
    /* version mismatch is a warning */
    EXPECT_OK("version: \"0.0.1+old\"\n");
    CHECK(diag.n_warnings == 1 && strstr(diag.warnings[0], "written by lampsim 0.0.1+old"));
    CHECK(!strcmp(cfg.version, ls_config_version()));
    /* failed loads leave defaults */
    load_str("algorithm:\n  b_q: 8\n  tau: 3\n", NULL, 0);
    CHECK(cfg.algorithm.b_q == 32);
}

static void test_overrides(void)
{
    const char *ov1[] = {"algorithm.tau = 0.125", "algorithm.mode=fa2_fp32", "workload.seq_k=1024", "accelerator.name=my chip"};
    CHECK(*load_str("algorithm:\n  tau: 0.25\n", ov1, 4) == 0);
    CHECK(cfg.algorithm.tau == 0.125 && cfg.algorithm.mode == LS_ENGINE_MODE_FA2_FP32 && cfg.workload.seq_k == 1024);
    CHECK(!strcmp(cfg.accelerator.name, "my chip"));
    const char *ov2[] = {"algorithm.tau=2"};
    CHECK(!strcmp(load_str("", ov2, 1),
                  "--set algorithm.tau=2: algorithm.tau: expected a finite number in [0, 1], got 2 (out of range)"));
    const char *ov3[] = {"algoritm.tau=0.1"};
    CHECK(!strcmp(load_str("", ov3, 1), "--set algoritm.tau=0.1: algoritm.tau: unknown key; did you mean 'algorithm.tau'?"));
    const char *ov4[] = {"algorithm.tau"};
    CHECK(!strcmp(load_str("", ov4, 1), "--set algorithm.tau: expected key.path=value"));
    const char *ov5[] = {"algorithm=3"};
    CHECK(!strcmp(load_str("", ov5, 1),
                  "--set algorithm=3: algorithm: is a section; --set needs a full key path such as 'algorithm.<key>'"));
    const char *ov6[] = {"algorithm.b_q=64", "algorithm.n_q=32"};
    CHECK(!strcmp(load_str("", ov6, 2),
                  "--set algorithm.n_q=32: algorithm.n_q: query thread block b_q * n_q = 64 * 32 = 2048 exceeds the limit of 1024 queries"));
    const char *ov_utf[] = {"workload.name=bad\xff"};
    CHECK(!strcmp(load_str("", ov_utf, 1),
                  "--set workload.name=bad\xff: workload.name: expected a string, got text that is not valid UTF-8"));
    const char *ov7[] = {"algorithm.delta=nan"};
    CHECK(!strcmp(load_str("", ov7, 1),
                  "--set algorithm.delta=nan: algorithm.delta: expected a finite number >= 0, got nan (NaN and infinity are not allowed)"));
    const char *ov8[] = {"workload.name=\"quoted\"", "algorithm.stage2=false", "seed=42"};
    CHECK(*load_str("", ov8, 3) == 0);
    CHECK(!strcmp(cfg.workload.name, "quoted") && !cfg.algorithm.stage2 && cfg.seed == 42 && cfg.workload.seed == -1);
    char wl[2100];
    snprintf(wl, sizeof wl, "workload.file=%s", tpath("wl.yaml"));
    const char *ov9[] = {wl, "workload.seq_q=32"};
    CHECK(*load_str("workload:\n  seq_q: 16\n", ov9, 2) == 0);
    CHECK(cfg.workload.seq_q == 32 && cfg.workload.dim == 64);
}

static void roundtrip(const char *what)
{
    char path[2100];
    snprintf(path, sizeof path, "%s", tpath("resolved.yaml"));
    char err[512];
    CHECK(ls_config_write_resolved_file(&cfg, path, err, sizeof err) == 0);
    ls_config_diag d2;
    int rc = ls_config_load(&cfg2, path, NULL, 0, &d2);
    CHECK_MSG(rc == 0, "%s: reload failed: %s", what, d2.message);
    char diff[512] = "";
    CHECK_MSG(ls_config_equal(&cfg, &cfg2, diff, sizeof diff), "%s: reload differs: %s", what, diff);
    CHECK_MSG(d2.n_warnings == 0, "%s: reload warns: %s", what, d2.warnings[0]);
    /* dumping the reloaded config gives the same text (apart from the source comment) */
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
    cfg.source[0] = cfg2.source[0] = 0;
    cfg.workload_source[0] = cfg2.workload_source[0] = 0;
    ls_config_write_resolved(&cfg, fa);
    ls_config_write_resolved(&cfg2, fb);
    fclose(fa);
    fclose(fb);
    CHECK_MSG(la == lb && !memcmp(a, b, la), "%s: second dump differs", what);
    free(a);
    free(b);
}

static void test_roundtrip(void)
{
    const char *files[] = {"configs/default.yaml", "configs/h100.yaml", "configs/examples/sweep_tau.yaml"};
    for (size_t i = 0; i < 3; ++i) {
        CHECK(ls_config_load(&cfg, rpath(files[i]), NULL, 0, &diag) == 0);
        roundtrip(files[i]);
    }
    /* awkward values: shortest round-trip doubles, quotes, escapes, unicode, paths */
    const char *ov[] = {"algorithm.tau=0.1", "algorithm.delta=1.0000000000000002e-7", "accelerator.clock_ghz=1.234567890123456789",
                        "workload.rope.base=123456789012.5", "workload.sharpness=3e-300"};
    const char *m = load_str("description: \"quote \\\" backslash \\\\ tab \\t newline \\n \\u00e9 \\x82 \\u0085 \\ufeff # not a comment\"\n"
                             "accelerator:\n  name: \"yes\"\nworkload:\n  name: \"123\"\n  generator: trace\n"
                             "  trace:\n    safetensors: dir with space/x.safetensors\n",
                             ov, 5);
    CHECK_MSG(!*m, "%s", m);
    CHECK(!strcmp(cfg.accelerator.name, "yes") && !strcmp(cfg.workload.name, "123"));
    CHECK(cfg.workload.trace.safetensors[0] == '/');
    roundtrip("awkward values");
    /* a run reproduces: same workload from the reloaded config */
    CHECK(ls_config_load(&cfg, rpath("configs/default.yaml"), NULL, 0, &diag) == 0);
    cfg.workload.seq_q = cfg.workload.seq_k = 64;
    roundtrip("small default");
    ls_attn_inputs a, b;
    ls_workload_info ia, ib;
    char err[512];
    CHECK(ls_workload_build(&cfg, NULL, &a, &ia, err, sizeof err) == 0);
    CHECK(ls_workload_build(&cfg2, NULL, &b, &ib, err, sizeof err) == 0);
    CHECK(ia.hash == ib.hash);
    ls_attn_inputs_release(&a);
    ls_attn_inputs_release(&b);
}

static void test_docs(void)
{
    char *md = ls_config_docs_markdown();
    CHECK(md != NULL);
    FILE *f = fopen(rpath("docs/config.md"), "rb");
    CHECK_MSG(f != NULL, "docs/config.md missing (generate it with `lampsim config --docs docs/config.md`)");
    if (f && md) {
        static char buf[1 << 18];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        CHECK_MSG(!strcmp(buf, md), "docs/config.md is stale: regenerate it with `lampsim config --docs docs/config.md`");
    }
    if (f) fclose(f);
    /* every key is documented */
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    for (size_t i = 0; md && i < n; ++i) {
        char k[300];
        snprintf(k, sizeof k, "| `%s` |", s[i].path);
        CHECK_MSG(strstr(md, k) != NULL, "%s not documented", s[i].path);
        CHECK_MSG(s[i].help && strlen(s[i].help) > 10, "%s has no help text", s[i].path);
    }
    free(md);
    /* explain */
    char *out = NULL;
    size_t len = 0;
    char *errs = NULL;
    size_t elen = 0;
    FILE *fo = open_memstream(&out, &len), *fe = open_memstream(&errs, &elen);
    CHECK(ls_config_explain("algorithm.tau", fo, fe) == 0);
    CHECK(ls_config_explain("algorithm.tua", fo, fe) == -1);
    fclose(fo);
    fclose(fe);
    CHECK(strstr(out, "algorithm.tau\n  type:    number (finite)\n  default: 0.5\n  allowed: 0 .. 1\n") != NULL);
    /* the error goes to the error stream only */
    CHECK(strstr(out, "unknown key") == NULL);
    CHECK(strstr(errs, "algorithm.tua: unknown key; did you mean 'algorithm.tau'?") != NULL);
    free(out);
    free(errs);
}

/* Collects the leaf key paths of a YAML mapping ("accelerator.lut.lanes"). */
static void leaf_paths(const ls_yamltree_node *m, const char *prefix, char (*out)[256], int *n, int cap)
{
    for (int i = 0; m->kind == LS_YAMLTREE_MAP && i + 1 < m->n; i += 2) {
        char p[256];
        snprintf(p, sizeof p, "%s%s%s", prefix, prefix[0] ? "." : "", m->kids[i]->text);
        if (m->kids[i + 1]->kind == LS_YAMLTREE_MAP) leaf_paths(m->kids[i + 1], p, out, n, cap);
        else if (*n < cap) snprintf(out[(*n)++], 256, "%s", p);
    }
}

/* The leaf key paths a YAML file of the repository sets (at most cap); 0 when it cannot be read. */
static int file_leaf_paths(const char *name, char (*keys)[256], int cap)
{
    FILE *f = fopen(rpath(name), "rb");
    CHECK_MSG(f != NULL, "%s missing", name);
    static char text[1 << 16];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[len] = 0;
    ls_yamltree_doc doc;
    int el, ec, nk = 0;
    char em[256];
    int ok = ls_yamltree_parse(text, len, &doc, &el, &ec, em, sizeof em) == 0;
    CHECK_MSG(ok, "%s:%d:%d: %s", name, el, ec, em);
    if (!ok) return 0;
    leaf_paths(doc.root, "", keys, &nk, cap);
    ls_yamltree_free(&doc);
    return nk;
}

static int numeric(const ls_config_schema_entry *e)
{
    return e->type == LS_CONFIG_T_INT || e->type == LS_CONFIG_T_INT64 || e->type == LS_CONFIG_T_DOUBLE;
}

/* Every preset value has a source or an estimate whose range holds it (issue 23). */
/* The GPU envelope presets (issue 28): they load, set the datasheet values, keep the kernel presets'
 * settings when stacked on them, and every value their delta file sets has its own source or estimate
 * (ls_config_provenance_preset), an estimate's range holding the value. */
static void test_gpu_presets(void)
{
    static ls_config g;
    CHECK(ls_config_load(&g, rpath("configs/h200.yaml"), NULL, 0, &diag) == 0);
    CHECK(!strcmp(g.accelerator.name, "h200") && g.accelerator.cores == 132 && g.accelerator.memory.bandwidth_gbps == 4800);
    CHECK(g.accelerator.lut.lanes == 0 && g.accelerator.sfu.lanes == 16);   /* the H100 envelope underneath */
    CHECK(ls_config_load(&g, rpath("configs/h100_pcie.yaml"), NULL, 0, &diag) == 0);
    CHECK(!strcmp(g.accelerator.name, "h100_pcie") && g.accelerator.cores == 114 && g.accelerator.clock_ghz == 1.62);
    CHECK(g.accelerator.memory.bandwidth_gbps == 2000 && g.accelerator.memory.l2_mib == 50);
    CHECK(ls_config_load(&g, rpath("configs/validation/fa3_h200_d128.yaml"), NULL, 0, &diag) == 0);
    CHECK(g.accelerator.memory.bandwidth_gbps == 4800 && g.accelerator.launch_cycles == 9000 && g.algorithm.b_k == 44);
    CHECK(ls_config_load(&g, rpath("configs/validation/fa3_h100pcie_d256.yaml"), NULL, 0, &diag) == 0);
    CHECK(g.accelerator.cores == 114 && g.workload.dim == 256 && g.accelerator.regfile.max_contexts == 2);
    const char *names[] = { "h200", "h100_pcie" }, *presets[] = { "configs/h200.yaml", "configs/h100_pcie.yaml" };
    for (int k = 0; k < 2; ++k) {
        char path[128];
        snprintf(path, sizeof path, "configs/gpu/%s.yaml", names[k]);
        CHECK_MSG(ls_config_load(&g, rpath(presets[k]), NULL, 0, &diag) == 0,
                  "%s", diag.message);
        static char keys[64][256];
        int nk = file_leaf_paths(path, keys, 64);
        CHECK(nk >= 3);
        for (int i = 0; i < nk; ++i) {
            if (!strcmp(keys[i], "accelerator.name")) continue;
            const ls_config_provenance *q = ls_config_provenance_preset(names[k], keys[i]);
            CHECK_MSG(q != NULL, "%s sets %s without its own source or estimate", path, keys[i]);
            double v = NAN;
            CHECK(ls_config_number(&g, keys[i], &v) == 0);
            if (q && q->kind == LS_CONFIG_PROV_ESTIMATE)
                CHECK_MSG(q->low <= v && v <= q->high, "%s: %s = %g outside [%g, %g]", names[k], keys[i], v, q->low, q->high);
        }
    }
    CHECK(ls_config_provenance_preset("h100", "accelerator.cores") == NULL);   /* the H100 keeps the main table */
}

static void test_provenance(void)
{
    size_t np, ns;
    const ls_config_provenance *p = ls_config_provenance_table(&np);
    const ls_config_schema_entry *s = ls_config_schema(&ns);
    static ls_config def;
    ls_config_defaults(&def);
    size_t n_est = 0;
    for (size_t i = 0; i < np; ++i) {
        const ls_config_schema_entry *e = ls_config_schema_find(p[i].key);
        CHECK_MSG(e != NULL, "provenance of %s: no such key", p[i].key);
        if (!e) continue;
        for (size_t j = 0; j < i; ++j) CHECK_MSG(strcmp(p[i].key, p[j].key), "%s listed twice", p[i].key);
        CHECK_MSG(p[i].text && strlen(p[i].text) > 20 && !strpbrk(p[i].text, "\t\n"),
                  "%s: the source or reasoning must be one line of text", p[i].key);
        int energy = !strncmp(p[i].key, "accelerator.energy.", 19) || !strncmp(p[i].key, "accelerator.area.", 17);
        CHECK_MSG(energy == (p[i].node != NULL), "%s: energy and area entries (and only they) name a process node", p[i].key);
        if (ls_config_prov_ranged(p[i].kind)) {
            n_est++;
            double v = NAN;
            CHECK_MSG(numeric(e) && ls_config_number(&def, p[i].key, &v) == 0, "%s: an estimate needs a number", p[i].key);
            CHECK_MSG(p[i].low <= v && v <= p[i].high, "%s: default %g outside its estimate [%g, %g]", p[i].key, v,
                      p[i].low, p[i].high);
            CHECK_MSG(e->min <= p[i].low && p[i].high <= e->max, "%s: range [%g, %g] leaves the allowed %g .. %g", p[i].key,
                      p[i].low, p[i].high, e->min, e->max);
            if (e->type != LS_CONFIG_T_DOUBLE)
                CHECK_MSG(p[i].low == floor(p[i].low) && p[i].high == floor(p[i].high), "%s: integer key, fractional range",
                          p[i].key);
            CHECK_MSG(p[i].low < p[i].high, "%s: empty range", p[i].key);
        } else {
            CHECK_MSG(p[i].low == 0 && p[i].high == 0, "%s: a source has no range", p[i].key);
        }
    }
    /* no timing or energy value lacks both: every number of the accelerator section... */
    for (size_t i = 0; i < ns; ++i)
        if (!strncmp(s[i].path, "accelerator.", 12) && numeric(&s[i]))
            CHECK_MSG(ls_config_provenance_find(s[i].path) != NULL,
                      "%s has neither a source nor an estimate (add it to sim/config/provenance.c)", s[i].path);
    /* ... and every key the preset file sets */
    static char keys[256][256];
    int nk = file_leaf_paths("configs/lampattention.yaml", keys, 256);
    CHECK(nk > 25);
    for (int i = 0; i < nk; ++i)
        if (strcmp(keys[i], "accelerator.name"))
            CHECK_MSG(ls_config_provenance_find(keys[i]) != NULL, "configs/lampattention.yaml sets %s without a source or "
                      "an estimate", keys[i]);
    /* the recorded preset value is the preset's: the file resolves to the defaults on every entry */
    static ls_config pre;
    CHECK(ls_config_load(&pre, rpath("configs/lampattention.yaml"), NULL, 0, &diag) == 0);
    for (size_t i = 0; i < np; ++i) {
        const ls_config_schema_entry *e = ls_config_schema_find(p[i].key);
        if (e)
            CHECK_MSG(!memcmp((const char *)&pre + e->offset, (const char *)&def + e->offset, e->size),
                      "configs/lampattention.yaml's %s differs from the default its provenance describes", p[i].key);
    }
    /* the API a sensitivity analysis uses */
    CHECK(ls_config_estimates(NULL, NULL, 0) == n_est);
    CHECK(n_est >= 20);
    static ls_config_estimate es[256];
    CHECK(ls_config_estimates(NULL, es, 256) == n_est);
    int seen_tensor = 0;
    for (size_t i = 0; i < n_est && i < 256; ++i) {
        CHECK_MSG(es[i].value == es[i].def && es[i].low <= es[i].def && es[i].def <= es[i].high, "%s", es[i].key);
        char ov[300];
        CHECK(ls_config_override_text(es[i].key, es[i].high, ov, sizeof ov) == 0);
        const char *ovs[1] = {ov};
        CHECK_MSG(ls_config_load(&pre, rpath("configs/lampattention.yaml"), ovs, 1, &diag) == 0, "%s: %s", ov, diag.message);
        double v = NAN;
        CHECK(ls_config_number(&pre, es[i].key, &v) == 0 && v == es[i].high);
        if (!strcmp(es[i].key, "accelerator.tensor.latency")) {
            seen_tensor = 1;
            CHECK(es[i].integer && es[i].def == 32);
            static ls_config_estimate one[256];
            ls_config_estimates(&pre, one, 256);
            CHECK(one[i].value == es[i].high && one[i].def == 32);
        }
    }
    CHECK(seen_tensor);
    char ov[64];
    CHECK(ls_config_override_text("accelerator.energy.lut_lookup", 0.1, ov, sizeof ov) == 0);
    CHECK(!strcmp(ov, "accelerator.energy.lut_lookup=0.1"));
    CHECK(ls_config_override_text("accelerator.tensor.latency", 2.5, ov, sizeof ov) == -1);
    CHECK(ls_config_override_text("accelerator.regfile.layout", 1, ov, sizeof ov) == -1);
    CHECK(ls_config_override_text("accelerator.tensor.latency", 64, ov, 8) == -1);
    /* docs/config.md lists every entry, and --explain prints it */
    char *md = ls_config_docs_markdown();
    const char *sec = md ? strstr(md, "## Sources and estimates of the LampAttention preset") : NULL;
    CHECK(sec != NULL);
    for (size_t i = 0; sec && i < np; ++i) {
        char k[300];
        snprintf(k, sizeof k, "| `%s` |", p[i].key);
        CHECK_MSG(strstr(sec, k) != NULL, "%s missing from the sources section of docs/config.md", p[i].key);
    }
    free(md);
    char *out = NULL;
    size_t olen = 0;
    FILE *fo = open_memstream(&out, &olen);
    CHECK(ls_config_explain("accelerator.tensor.latency", fo, stderr) == 0);
    CHECK(ls_config_explain("accelerator.energy.int_mul_8", fo, stderr) == 0);
    fclose(fo);
    CHECK(strstr(out, "  estimate: 32 in [12, 128] (LampAttention preset): No end-to-end wgmma latency") != NULL);
    CHECK(strstr(out, "  source:  Horowitz") != NULL && strstr(out, "  node:    45 nm\n") != NULL);
    free(out);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_config SOURCE_ROOT TMPDIR\n");
        return 2;
    }
    root = argv[1];
    static char t[2048];
    snprintf(t, sizeof t, "%s/config_tmp", argv[2]);
    mkdir(t, 0755);
    tmp = t;
    test_defaults();
    test_presets();
    test_errors();
    test_overrides();
    test_roundtrip();
    test_docs();
    test_provenance();
    test_gpu_presets();
    CHECK_DONE();
}
