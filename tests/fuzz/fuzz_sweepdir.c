/* Fuzz target: `lampsim sweep merge` (and `report`, which merges first) on a damaged sweep
 * directory. A valid two-point directory is laid out under the fuzz base directory; the input
 * replaces its files in order, parts separated by a line "==" (a missing part keeps the valid
 * file): manifest.tsv, objective.tsv, the first point's report.csv, its DONE, the second point's
 * report.csv, its FAILED. Any crash or sanitizer report is a finding, and so is a refusal without
 * a message, or an accepted merge whose counts do not add up, whose rows do not have the header's
 * number of fields, or whose best.winner cells are not 0 or 1. The DONE marker is also read as a
 * resume reads it (ls_sweep_done_stale): it vouches for the point only when it is exactly the id,
 * a how line and the point's input identity. */
#define _XOPEN_SOURCE 700
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_basedir.h"
#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef LAMPSIM_FUZZ_STANDALONE
const char ls_config_default_yaml[] = ""; /* built without the generated default */
#endif

enum { NFILES = 6 };
static const char *const rel[NFILES] = {"manifest.tsv", "objective.tsv", "points/tau=1/report.csv", "points/tau=1/DONE",
                                        "points/tau=0.5/report.csv", "points/tau=0.5/FAILED"};
static const char *const valid[NFILES] = {
    "0\t08664f2c40029f5d\talgorithm.tau=1\n1\t1da54157131c15aa\talgorithm.tau=0.5\n",
    "minimise\tcycles\nover\talgorithm.tau\nper\n",
    "schema_version,mode,cycles,tiles.disruptive_rate\n3,lamp,1752,0.75\n",
    "08664f2c40029f5d\n-\n",
    "schema_version,mode,cycles,tiles.disruptive_rate\n3,lamp,1700,0.5\n",
    "worker killed by signal 7 (SIGBUS: Bus error)\n"};

static void put(const char *dir, int i, const char *text, size_t n)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel[i]);
    FILE *f = fopen(p, "wb");
    if (!f) abort();
    if (n && fwrite(text, 1, n, f) != n) abort();
    if (fclose(f)) abort();
}

static void check_csv(const char *text, size_t len, const ls_sweep_merge_stats *st)
{
    size_t pos = 0;
    char **h = NULL;
    int nh = ls_sweep_csv_record(text, &pos, &h), rows = 0, win_col = -1;
    if (nh <= 0) abort();
    for (int c = 0; c < nh; c++)
        if (!strcmp(h[c], "best.winner")) win_col = c;
    while (pos < len) {
        char **r = NULL;
        int nr = ls_sweep_csv_record(text, &pos, &r);
        if (nr != nh) {
            fprintf(stderr, "row %d has %d fields, the header %d:\n%.*s\n", rows, nr, nh, (int)len, text);
            abort();
        }
        if (win_col >= 0 && strcmp(r[win_col], "0") && strcmp(r[win_col], "1")) abort();
        ls_sweep_csv_free(r, nr);
        rows++;
    }
    ls_sweep_csv_free(h, nh);
    if (rows != st->done || st->done + st->failed + st->missing != st->total) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[512];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/sweepdir", fuzz_base_dir());
        char p[1024];
        mkdir(dir, 0777);
        snprintf(p, sizeof p, "%s/points", dir), mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/points/tau=1", dir), mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/points/tau=0.5", dir), mkdir(p, 0777);
    }
    const char *t = (const char *)data, *end = t + size;
    for (int i = 0; i < NFILES; i++) {
        if (t >= end) {
            put(dir, i, valid[i], strlen(valid[i]));
            continue;
        }
        const char *sep = NULL;
        for (const char *c = t; c + 3 <= end && !sep; c++)
            if (c[0] == '=' && c[1] == '=' && c[2] == '\n' && (c == t || c[-1] == '\n')) sep = c;
        put(dir, i, t, (size_t)((sep ? sep : end) - t));
        t = sep ? sep + 3 : end;
    }
    char *out = NULL, err[2048] = "";
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    FILE *msgs = fopen("/dev/null", "w");
    if (!m || !msgs) abort();
    ls_sweep_merge_stats st;
    memset(&st, 0, sizeof st);
    int rc = ls_sweep_merge(dir, m, msgs, &st, err, sizeof err);
    fclose(m);
    fclose(msgs);
    if (rc && !err[0]) abort();
    if (!rc) check_csv(out, len, &st);
    free(out);
    ls_sweep_objective ob;
    if (!ls_sweep_objective_read(dir, &ob, err, sizeof err)) ls_sweep_objective_free(&ob);
    /* the resume's reading of the DONE marker */
    static const char ident[] = "input workload.trace.q 16512 1796176532.088425642\ninput timed.program missing\n";
    char pdir[600], path[700];
    snprintf(pdir, sizeof pdir, "%s/points/tau=1", dir);
    snprintf(path, sizeof path, "%s/DONE", pdir);
    size_t dl = 0;
    char *done = ls_sweep_read_file(path, &dl);
    for (int k = 0; k < 2; k++) {
        const char *want = k ? "" : ident;
        char *why = ls_sweep_done_stale(pdir, "08664f2c40029f5d", want);
        if (!why && done) {   /* vouched for: the marker must be exactly id, how, identity */
            const char *l2 = strchr(done, '\n'), *rest = l2 ? strchr(l2 + 1, '\n') : NULL;
            if (!l2 || !rest || strncmp(done, "08664f2c40029f5d\n", 17) || strcmp(rest + 1, want)) abort();
        }
        if (why && !why[0]) abort();
        free(why);
    }
    free(done);
    return 0;
}
