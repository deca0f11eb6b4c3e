#define _XOPEN_SOURCE 700
#include "fuzz_basedir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_dir.h"

/* Names the seed corpora use: a config with nested includes, an include cycle, a workload file,
 * a trace workload, a workload file naming another one (refused), a broken file, a sequence. */
static const struct {
    const char *name, *text;
} k_files[] = {
    {"inc.yaml", "include: sub/inc2.yaml\nalgorithm:\n  tau: 0.25\n  b_k: 32\n"},
    {"sub/inc2.yaml", "accelerator:\n  regfile:\n    layout: full\nworkload:\n  file: ../wl.yaml\n"},
    {"self.yaml", "include: self.yaml\nseed: 2\n"},
    {"wl.yaml", "name: fuzz\nbatch: 1\nheads_q: 4\nheads_kv: 2\nseq_q: 64\nseq_k: 64\ndim: 64\ngenerator: qknorm\n"
                "qknorm:\n  gain: 1.5\n  gain_spread: 0.2\nrope:\n  enabled: true\nsinks:\n  count: 1\n"},
    {"wl_trace.yaml", "generator: trace\ndtype: fp32\ntrace:\n  q: q.npy\n  k: k.npy\n  v: v.npy\n"},
    {"wl_st.yaml", "generator: trace\ntrace:\n  safetensors: t.safetensors\n  q_name: query\n"},
    {"wl_nested.yaml", "file: wl.yaml\n"},
    {"base.yaml", "seed: 5\ntimed:\n  enabled: false\nworkload:\n  file: wl.yaml\n  seq_q: 32\n"},
    {"bad.yaml", "algorithm:\n  tau: [1\n"},
    {"list.yaml", "- 1\n- 2\n"},
    {"empty.yaml", ""},
};

static char g_dir[256];

static void remove_dir(void) { (void)ls_io_remove_tree(g_dir); }

const char *fuzz_base_dir(void)
{
    if (g_dir[0]) return g_dir;
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/lampsim-fuzz.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror(g_dir);
        abort();
    }
    atexit(remove_dir);
    char p[512];
    snprintf(p, sizeof p, "%s/sub", g_dir);
    if (mkdir(p, 0755) != 0) abort();
    for (size_t i = 0; i < sizeof k_files / sizeof *k_files; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, k_files[i].name);
        FILE *f = fopen(p, "w");
        if (!f || fputs(k_files[i].text, f) < 0 || fclose(f) != 0) abort();
    }
    return g_dir;
}
