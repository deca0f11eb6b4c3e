#define _POSIX_C_SOURCE 200809L
/* timed.numerics_dir: the numerics cache on disk. A run whose key matches a file replays it (numerics_path
 * "file") and gives exactly a full run's result and timing; a numerics change misses; a file that does
 * not match the reader (truncated, grown, another key's sizes) is a miss, never a wrong result. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "timed_testutil.h"

static int same_result(const ls_engine_result *a, const ls_engine_result *b)
{
    size_t n = (size_t)a->batch * a->heads_q * a->seq_q * a->dim;
    if (!a->o || !b->o || memcmp(a->o, b->o, n * sizeof(float)) != 0) return 0;
    if (a->tiles.executed != b->tiles.executed || a->tiles.masked_skipped != b->tiles.masked_skipped) return 0;
    if (memcmp(a->tiles.hp_subblocks_hist, b->tiles.hp_subblocks_hist, (size_t)a->tiles.hist_len * 8) != 0) return 0;
    if (memcmp(&a->recompute, &b->recompute, sizeof a->recompute) != 0) return 0;
    if (memcmp(&a->events, &b->events, sizeof a->events) != 0) return 0;
    return memcmp(&a->accuracy, &b->accuracy, sizeof a->accuracy) == 0;
}

static int same_timing(const ls_timed_result *a, const ls_timed_result *b)
{
    if (a->cycles != b->cycles || a->nunits != b->nunits || memcmp(a->stalls, b->stalls, sizeof a->stalls) != 0) return 0;
    for (int u = 0; u < a->nunits; u++)
        if (a->units[u].busy_cycles != b->units[u].busy_cycles || a->units[u].work != b->units[u].work) return 0;
    return memcmp(&a->energy_uj, &b->energy_uj, sizeof a->energy_uj) == 0;
}

static char g_dir[256];

/* ov run with the disk cache (the in-process one cleared first, as in a fresh process) against a full
 * run without any cache; returns the cached run's numerics path ("engine", "file", ...) or "" on error. */
static const char *run(const char *name, const char *const *ov, int nov)
{
    static char path[16];
    path[0] = '\0';
    tt_case c;
    if (tt_setup(&c, ov, nov) != 0) { CHECK_MSG(0, "%s: setup", name); return path; }
    ls_timed_options o;
    ls_timed_options_default(&o);
    ls_engine_result full, re;
    ls_timed_result tf, tre;
    char err[512];
    ls_timed_cache_clear();
    CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &full, &tf, err, sizeof err) == 0, "%s: %s", name, err);
    ls_timed_cache_clear();
    o.reuse_numerics = 1;
    o.numerics_dir = g_dir;
    CHECK_MSG(ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &re, &tre, err, sizeof err) == 0, "%s: %s", name, err);
    CHECK_MSG(same_result(&full, &re), "%s: results differ from a full run (path %s)", name, tre.numerics_path);
    CHECK_MSG(same_timing(&tf, &tre), "%s: timing differs from a full run: %llu vs %llu (path %s)", name,
              (unsigned long long)tf.cycles, (unsigned long long)tre.cycles, tre.numerics_path);
    snprintf(path, sizeof path, "%s", tre.numerics_path);
    printf("%-28s path %-6s cycles %llu\n", name, path, (unsigned long long)tre.cycles);
    ls_engine_result_free(&full);
    ls_engine_result_free(&re);
    tt_free(&c);
    return path;
}

/* The one cache file in g_dir (the test writes one key at a time), or "" */
static const char *the_file(void)
{
    static char p[512];
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/*.lsnum 2>/dev/null | head -1", g_dir);
    FILE *f = popen(cmd, "r");
    p[0] = '\0';
    if (f) {
        if (fgets(p, sizeof p, f)) p[strcspn(p, "\n")] = '\0';
        pclose(f);
    }
    return p;
}

#define W "workload.seq_q=200", "workload.seq_k=333", "workload.heads_q=4", "workload.heads_kv=2"
#define N(a) (int)(sizeof a / sizeof a[0])

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "timed_numfile_%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir %s", g_dir, g_dir);
    CHECK(system(cmd) == 0);
    const char *base[] = { W };
    CHECK(!strcmp(run("first: computes, writes", base, N(base)), "engine"));
    CHECK_MSG(the_file()[0] != '\0', "a cache file written in %s", g_dir);
    CHECK(!strcmp(run("same, fresh process", base, N(base)), "file"));
    /* timing-only changes replay the file */
    const char *t1[] = { W, "accelerator.regfile.layout=full", "accelerator.sfu.lanes=4", "accelerator.cores=3",
                         "accelerator.memory.latency=2000", "accelerator.tensor.macs_per_cycle_16bit=512" };
    CHECK(!strcmp(run("timing changes", t1, N(t1)), "file"));
    /* numerics changes miss (and write their own file) */
    snprintf(cmd, sizeof cmd, "rm -f %s/*.lsnum", g_dir);
    CHECK(system(cmd) == 0);
    const char *n1[] = { W, "algorithm.tau=0.25" };
    CHECK(!strcmp(run("tau 0.25", n1, N(n1)), "engine"));
    const char *n2[] = { W, "algorithm.b_q=16" };
    CHECK(!strcmp(run("b_q 16", n2, N(n2)), "engine"));
    CHECK(!strcmp(run("tau 0.25 again", n1, N(n1)), "file"));
    /* a damaged file is a miss, and the run rewrites it whole */
    CHECK(system(cmd) == 0);
    CHECK(!strcmp(run("base: writes", base, N(base)), "engine"));
    char f[512];
    snprintf(f, sizeof f, "%s", the_file());
    long size = 0;
    FILE *fp = fopen(f, "rb");
    if (fp) { fseek(fp, 0, SEEK_END); size = ftell(fp); fclose(fp); }
    CHECK(size > 1000);
    CHECK(truncate(f, size - 4) == 0);
    CHECK(!strcmp(run("truncated file: a miss", base, N(base)), "engine"));
    CHECK(!strcmp(run("rewritten whole", base, N(base)), "file"));
    fp = fopen(f, "ab");
    if (fp) { fputc(0, fp); fclose(fp); }
    CHECK(!strcmp(run("grown file: a miss", base, N(base)), "engine"));
    fp = fopen(f, "r+b");   /* the build stamp (after the 8-byte magic) */
    if (fp) { fseek(fp, 8, SEEK_SET); fputc('#', fp); fclose(fp); }
    CHECK(!strcmp(run("another build's file: a miss", base, N(base)), "engine"));
    /* an unwritable directory costs only speed */
    {
        const char *saved = "timed_numfile_missing_dir/x";
        snprintf(g_dir, sizeof g_dir, "%s", saved);
        CHECK(!strcmp(run("missing directory: computes", base, N(base)), "engine"));
    }
    snprintf(g_dir, sizeof g_dir, "timed_numfile_%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    CHECK(system(cmd) == 0);
    ls_timed_cache_clear();
    CHECK_DONE();
}
