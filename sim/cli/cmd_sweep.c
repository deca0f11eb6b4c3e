/* `lampsim sweep expand SWEEP.yaml`, `lampsim sweep run SWEEP.yaml [-j N] [-o DIR] [--shard i/N]
 * [--point ID]...`, `lampsim sweep merge DIR [-o FILE]`, `lampsim report DIR`, `lampsim compare
 * DIR...`. The machinery is in sim/sweep; plots and report.html come from scripts/plot_sweep.py. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_dir.h"
#include "atomic_file.h"
#include "cmd_sweep.h"
#include "run_progress.h"
#include "sweep.h"

#ifndef LAMPSIM_SOURCE_DIR
#define LAMPSIM_SOURCE_DIR "."
#endif

static void sweep_usage(FILE *out)
{
    fputs("usage: lampsim sweep expand SWEEP.yaml [--shard i/N] [--count]\n"
          "       lampsim sweep run SWEEP.yaml [-j N] [-o DIR] [--shard i/N] [--point ID|INDEX]... [--no-reuse]\n"
          "                                    [--progress | --no-progress] [--progress-every S] [--quiet]\n"
          "       lampsim sweep merge DIR [-o FILE] [--strict]\n"
          "  expand   print the manifest: one line per point, index TAB id TAB key=value...\n"
          "  run      run the points with N worker processes (default: all cores) into DIR\n"
          "           (default out/<sweep name>): DIR/points/<axis values>/ with a DONE marker per point;\n"
          "           re-running skips finished points; Ctrl-C stops cleanly\n"
          "  --shard i/N   only points whose index % N == i (0 <= i < N), e.g. one Slurm array task\n"
          "  --point X     only this point (id or manifest index; repeatable)\n"
          "  --no-reuse    recompute the numerics of points that differ only in non-numerics keys\n"
          "  --progress    status as one live line on stderr (default when stderr is a terminal)\n"
          "  --no-progress status as plain lines: one per finished point and one every S seconds\n"
          "  --progress-every S  seconds between status updates (default 10 plain, 0.5 live)\n"
          "  merge    one CSV row per finished point: axes, point.index, point.id, report columns;\n"
          "           missing and failed points are listed on stderr (--strict: exit 1 then)\n"
          "See docs/sweeps.md.\n",
          out);
}

static int parse_shard(const char *s, int *i, int *n)
{
    char *e1, *e2;
    long a = strtol(s, &e1, 10);
    if (e1 == s || *e1 != '/') return -1;
    long b = strtol(e1 + 1, &e2, 10);
    if (e2 == e1 + 1 || *e2 || b < 1 || b > 1000000 || a < 0 || a >= b) return -1;
    *i = (int)a;
    *n = (int)b;
    return 0;
}

/* Loads a sweep; with an objective (best:) the infeasible points are skipped, and counted on stderr
 * (verbosity 2: also listed, 0: nothing). */
static int load_sweep(ls_sweep *sw, const char *file, const char *cmd, int verbosity)
{
    char err[2048] = "";
    if (ls_sweep_load(sw, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (ls_sweep_best_check(sw, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        ls_sweep_free(sw);
        return 2;
    }
    for (int i = 0; i < sw->ninfeasible && verbosity > 1; i++) {
        fprintf(stderr, "lampsim sweep %s: infeasible, skipped:", cmd);
        for (int a = 0; a < sw->naxes; a++) fprintf(stderr, " %s", sw->infeasible[i].overrides[a]);
        fprintf(stderr, ": %s\n", sw->infeasible[i].why);
    }
    if (sw->ninfeasible && verbosity > 0)
        fprintf(stderr, "lampsim sweep %s: %d of %d points infeasible (skipped and counted), %d left\n", cmd,
                sw->ninfeasible, sw->ninfeasible + sw->npoints, sw->npoints);
    return 0;
}

static int sweep_expand(int argc, char **argv)
{
    const char *file = NULL;
    int si = 0, sn = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--shard") && i + 1 < argc) {
            if (parse_shard(argv[++i], &si, &sn)) {
                fprintf(stderr, "lampsim sweep expand: --shard: expected i/N with 0 <= i < N, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--count")) count = 1;
        else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "lampsim sweep expand: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else file = argv[i];
    }
    if (!file) { sweep_usage(stderr); return 2; }
    ls_sweep sw;
    if (load_sweep(&sw, file, "expand", 2)) return 2;
    if (count) {
        int c = 0;
        for (int p = 0; p < sw.npoints; p++) c += sn <= 0 || p % sn == si;
        printf("%d\n", c);
    } else
        for (int p = 0; p < sw.npoints; p++)
            if (sn <= 0 || p % sn == si) ls_sweep_manifest_line(&sw, &sw.points[p], stdout);
    ls_sweep_free(&sw);
    return fflush(stdout) ? 1 : 0;
}

static int sweep_run(int argc, char **argv)
{
    ls_sweep_run_opts o;
    memset(&o, 0, sizeof o);
    o.reuse = true;
    o.progress = -1;
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = nproc > 0 ? (int)nproc : 1;
    const char *file = NULL;
    const char **only = calloc((size_t)argc + 1, sizeof *only);
    int rc = 2;
    if (!only) return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "-j") && has) {
            char *e;
            long j = strtol(argv[++i], &e, 10);
            if (*e || j < 1 || j > 4096) {
                fprintf(stderr, "lampsim sweep run: -j: expected a number of workers in [1, 4096], got '%s'\n", argv[i]);
                goto out;
            }
            o.jobs = (int)j;
        } else if (!strncmp(a, "-j", 2) && a[2]) {
            char *e;
            long j = strtol(a + 2, &e, 10);
            if (*e || j < 1 || j > 4096) {
                fprintf(stderr, "lampsim sweep run: -j: expected a number of workers in [1, 4096], got '%s'\n", a + 2);
                goto out;
            }
            o.jobs = (int)j;
        } else if (!strcmp(a, "-o") && has) o.out_dir = argv[++i];
        else if (!strcmp(a, "--shard") && has) {
            if (parse_shard(argv[++i], &o.shard_i, &o.shard_n)) {
                fprintf(stderr, "lampsim sweep run: --shard: expected i/N with 0 <= i < N, got '%s'\n", argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--point") && has) only[o.nonly++] = argv[++i];
        else if (!strcmp(a, "--no-reuse")) o.reuse = false;
        else if (!strcmp(a, "--progress")) o.progress = 1;
        else if (!strcmp(a, "--no-progress")) o.progress = 0;
        else if (!strcmp(a, "--progress-every") && has) {
            if (ls_run_progress_parse_period(argv[++i], &o.progress_period)) {
                fprintf(stderr, "lampsim sweep run: --progress-every: expected seconds in (0, 86400], got '%s'\n", argv[i]);
                goto out;
            }
        }
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) o.quiet = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { sweep_usage(stdout); rc = 0; goto out; }
        else if (a[0] == '-' || file) {
            fprintf(stderr, "lampsim sweep run: unexpected argument '%s'%s\n", a, a[0] == '-' && !has ? " (missing value?)" : "");
            goto out;
        } else file = a;
    }
    if (!file) { sweep_usage(stderr); goto out; }
    o.only = only;
    ls_sweep sw;
    char err[2048] = "";
    if (load_sweep(&sw, file, "run", o.quiet ? 0 : 1)) goto out;
    char def[LS_CFG_PATH_MAX];
    if (!o.out_dir) {
        snprintf(def, sizeof def, "out/%s", sw.name);
        o.out_dir = def;
    }
    rc = ls_sweep_run(&sw, &o, err, sizeof err);
    if (err[0]) fprintf(stderr, "lampsim sweep run: %s\n", err);
    ls_sweep_free(&sw);
out:
    free(only);
    return rc;
}

static int sweep_merge(int argc, char **argv)
{
    const char *dir = NULL, *outp = NULL;
    int strict = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) outp = argv[++i];
        else if (!strcmp(argv[i], "--strict")) strict = 1;
        else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "lampsim sweep merge: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else dir = argv[i];
    }
    if (!dir) { sweep_usage(stderr); return 2; }
    char *text = NULL, err[2048] = "";
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return 1;
    ls_sweep_merge_stats st;
    int rc = ls_sweep_merge(dir, m, stderr, &st, err, sizeof err);
    if (fclose(m)) rc = rc ? rc : 1;
    if (rc) {
        fprintf(stderr, "lampsim sweep merge: %s\n", err);
        free(text);
        return rc;
    }
    if (outp) {
        if (ls_atomic_write_file(outp, text, len, err, sizeof err)) {
            fprintf(stderr, "lampsim sweep merge: %s\n", err);
            rc = 1;
        }
    } else if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) rc = 1;
    free(text);
    if (!rc && strict && (st.failed || st.missing)) rc = 1;
    return rc;
}

int lscli_sweep(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        sweep_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "expand")) return sweep_expand(argc - 1, argv + 1);
    if (!strcmp(argv[1], "run")) return sweep_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "merge")) return sweep_merge(argc - 1, argv + 1);
    fprintf(stderr, "lampsim sweep: unknown subcommand '%s' (expand, run, merge)\n", argv[1]);
    return 2;
}

/* ---------------- report ---------------- */

static int is_file(const char *dir, const char *name)
{
    char *p = ls_path_join(dir, name);
    struct stat st;
    int r = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return r;
}

/* scripts/plot_sweep.py: $LAMPSIM_PLOT_SCRIPT, next to the binary (../scripts, ./scripts), or the
 * source tree the binary was built from. */
static int find_plot_script(char *out, size_t len)
{
    const char *env = getenv("LAMPSIM_PLOT_SCRIPT");
    if (env && *env) { snprintf(out, len, "%s", env); return access(out, R_OK) ? -1 : 0; }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *s = strrchr(exe, '/');
        if (s) *s = '\0';
        const char *rel[] = {"/../scripts/plot_sweep.py", "/scripts/plot_sweep.py", "/../share/lampsim/plot_sweep.py"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(out, len, "%s%s", exe, rel[i]);
            if (!access(out, R_OK)) return 0;
        }
    }
    snprintf(out, len, "%s/scripts/plot_sweep.py", LAMPSIM_SOURCE_DIR);
    return access(out, R_OK) ? -1 : 0;
}

static int run_python(char *const *args)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execv(args[0], args);
        fprintf(stderr, "lampsim report: cannot run %s: %s\n", args[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Writes DIR/results.csv (a sweep), then runs plot_sweep.py for DIR/figures and DIR/report.html. */
static int report_dir(const char *dir, int sweep, const char *py, char *script)
{
    char err[2048] = "";
    char *figs = ls_path_join(dir, "figures"), *html = ls_path_join(dir, "report.html"),
         *csv = ls_path_join(dir, sweep ? "results.csv" : "report.csv");
    int rc = 0;
    if (!figs || !html || !csv) {
        rc = 1;
        goto out;
    }
    if (sweep) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m) {
            rc = 1;
            goto out;
        }
        ls_sweep_merge_stats st;
        rc = ls_sweep_merge(dir, m, stderr, &st, err, sizeof err);
        fclose(m);
        if (!rc && ls_atomic_write_file(csv, text, len, err, sizeof err)) rc = 1;
        free(text);
        if (rc) {
            fprintf(stderr, "lampsim report: %s\n", err);
            goto out;
        }
    }
    char *args[] = {(char *)py, script, csv, (char *)"--out", figs, (char *)"--html", html,
                    (char *)(sweep ? "--sweep" : "--run"), NULL};
    int prc = run_python(args);
    if (prc) {
        fprintf(stderr, "lampsim report: plot_sweep.py failed (exit %d)\n", prc);
        rc = 1;
    } else printf("%s\n", html);
out:
    free(figs);
    free(html);
    free(csv);
    return rc;
}

int lscli_report(int argc, char **argv)
{
    const char *dir = NULL, *py = getenv("LAMPSIM_PYTHON");
    if (!py || !*py) py = "/usr/bin/python3";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--python") && i + 1 < argc) py = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: lampsim report DIR [--python PYTHON]\n"
                 "  writes DIR/report.html (tables and embedded figures, self-contained) for a run directory\n"
                 "  (report.csv) or a sweep directory (manifest.tsv; also writes DIR/results.csv and DIR/figures/)");
            return 0;
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "lampsim report: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else dir = argv[i];
    }
    if (!dir) { fputs("usage: lampsim report DIR\n", stderr); return 2; }
    char script[PATH_MAX + 64];
    int sweep = is_file(dir, "manifest.tsv");
    if (!sweep && !is_file(dir, "report.csv")) {
        fprintf(stderr, "lampsim report: %s: neither a run directory (report.csv) nor a sweep directory (manifest.tsv)\n", dir);
        return 2;
    }
    if (find_plot_script(script, sizeof script)) {
        fprintf(stderr, "lampsim report: scripts/plot_sweep.py not found (set LAMPSIM_PLOT_SCRIPT)\n");
        return 1;
    }
    if (access(py, X_OK)) {
        fprintf(stderr, "lampsim report: %s not found; install Debian python3, python3-numpy, python3-matplotlib\n", py);
        return 1;
    }
    return report_dir(dir, sweep, py, script);
}

/* ---------------- compare ---------------- */

typedef struct {
    char dir[LS_CFG_PATH_MAX]; /* the run directory */
    char *label;               /* the config keys that differ between the rows (malloc'ed) */
    char **h, **r;             /* report.csv header and values */
    int n;
} crow;

static const char *col(const crow *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->h[i], name)) return c->r[i];
    return NULL;
}

/* A column as a number, NAN when absent or empty. */
static double num(const crow *c, const char *name)
{
    const char *v = col(c, name);
    char *e;
    double x = v && *v ? strtod(v, &e) : NAN;
    return v && *v && e != v ? x : NAN;
}

static int load_row(crow *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    char *p = ls_path_join(dir, "report.csv");
    char *t = p ? ls_sweep_read_file(p, NULL) : NULL;
    free(p);
    if (!t) return -1;
    size_t pos = 0;
    int nh = ls_csv_record(t, &pos, &c->h);
    int nr = nh > 0 ? ls_csv_record(t, &pos, &c->r) : -1;
    free(t);
    if (nh <= 0 || nr != nh) {
        ls_csv_free(c->h, nh > 0 ? nh : 0);
        ls_csv_free(c->r, nr > 0 ? nr : 0);
        return -1;
    }
    c->n = nh;
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    return 0;
}

#define LABEL_KEYS 4 /* differing keys shown in a table label; the rest are counted */

/* Position of key among a sweep's axis keys (axes[0..naxes)), else naxes: axes come first in labels. */
static int axis_rank(const char *key, char *const *axes, int naxes)
{
    int a = 0;
    while (a < naxes && strcmp(axes[a], key)) a++;
    return a;
}

/* Labels every row by the config.* keys whose values differ between the rows (short keys as in
 * sweep point names; a sweep's axes first, in its order, then report order), up to LABEL_KEYS of
 * them and "+N keys" for the rest; a row whose label is empty or not unique also gets its directory. */
static int label_rows(crow *rows, int n, char *const *axes, int naxes)
{
    int nk = 0, cap = 16;
    const char **keys = malloc((size_t)cap * sizeof *keys);
    if (!keys) return -1;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < rows[i].n; c++) {
            const char *k = rows[i].h[c];
            if (strncmp(k, "config.", 7)) continue;
            int seen = 0, differs = 0;
            for (int j = 0; j < nk && !seen; j++) seen = !strcmp(keys[j], k + 7);
            for (int j = 0; j < n && !seen && !differs; j++) {
                const char *v = col(&rows[j], k);
                differs = !v || strcmp(v, rows[i].r[c]);
            }
            if (seen || !differs) continue;
            if (nk == cap) {
                const char **nk2 = realloc(keys, (size_t)(cap *= 2) * sizeof *nk2);
                if (!nk2) { free(keys); return -1; }
                keys = nk2;
            }
            int r = axis_rank(k + 7, axes, naxes), at = nk++;
            while (at > 0 && axis_rank(keys[at - 1], axes, naxes) > r) { keys[at] = keys[at - 1]; at--; }
            keys[at] = k + 7;
        }
    for (int i = 0; i < n; i++) {
        char *b = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&b, &len);
        if (!m) { free(keys); return -1; }
        for (int j = 0; j < nk && j < LABEL_KEYS; j++) {
            char full[LS_CFG_PATH_MAX + 8];
            snprintf(full, sizeof full, "config.%s", keys[j]);
            const char *v = col(&rows[i], full);
            fprintf(m, "%s%s=%s", j ? "," : "", ls_sweep_short_key(keys[j], keys, nk), v ? v : "-");
        }
        if (nk > LABEL_KEYS) fprintf(m, " +%d keys", nk - LABEL_KEYS);
        fclose(m);
        rows[i].label = b;
    }
    for (int i = 0; i < n; i++) {
        int dup = !rows[i].label || !rows[i].label[0];
        for (int j = 0; j < n && !dup; j++) dup = j != i && !strcmp(rows[i].label, rows[j].label);
        if (!dup) continue;
        char *nl = ls_path_fmt("%s%s%s", rows[i].label ? rows[i].label : "", rows[i].label && rows[i].label[0] ? " " : "",
                               rows[i].dir);
        if (!nl) { free(keys); return -1; }
        free(rows[i].label);
        rows[i].label = nl;
    }
    free(keys);
    return 0;
}

/* The columns: report field, header in the table and in CSV (each with its one unit), scale for the
 * table, printf format; ratio columns (against the baseline row) have no field. */
typedef struct {
    const char *field, *head, *csv, *fmt;
    double scale;
    int ratio; /* 1: baseline / row (speedup), 2: row / baseline */
    const char *of; /* the field a ratio is taken of */
} ccol;

static const ccol k_cols[] = {
    {"cycles", "cycles", "cycles", "%.0f", 1, 0, NULL},
    {"time_us", "time (us)", "time_us", "%.3f", 1, 0, NULL},
    {NULL, "speedup (x)", "speedup_x", "%.3f", 1, 1, "cycles"},
    {"energy.total_uj", "energy (uJ)", "energy_uj", "%.3f", 1, 0, NULL},
    {NULL, "energy (x)", "energy_x", "%.3f", 1, 2, "energy.total_uj"},
    {"units.tensor.utilisation", "tensor util (%)", "tensor_utilisation", "%.2f", 100, 0, NULL},
    {"tiles.disruptive_rate", "disruptive (%)", "disruptive_rate", "%.2f", 100, 0, NULL},
    {"recompute.subblock_rate", "recompute (%)", "recompute_rate", "%.2f", 100, 0, NULL},
    {"accuracy.kl_mean", "KL mean (nats)", "kl_mean_nats", "%.3e", 1, 0, NULL},
    {"accuracy.o_rel_fro_err", "O rel err (1)", "o_rel_fro_err", "%.3e", 1, 0, NULL},
};
#define NCOLS (int)(sizeof k_cols / sizeof k_cols[0])

/* A table column is as wide as its header, at least 10 (a %.3e value). */
static int colw(const ccol *k) { return strlen(k->head) > 10 ? (int)strlen(k->head) : 10; }

static double cell(const crow *c, const crow *base, const ccol *k)
{
    if (!k->ratio) return num(c, k->field);
    double a = num(c, k->of), b = num(base, k->of);
    return k->ratio == 1 ? b / a : a / b;
}

static void compare_usage(FILE *out)
{
    fputs("usage: lampsim compare [--csv] [--baseline DIR] DIR...\n"
          "  side-by-side table of run directories (or every finished point of a sweep directory), each row\n"
          "  labelled by the configuration keys that differ between the runs; columns (present when the\n"
          "  reports have them): mode, cycles, time (us), speedup (x) and energy (x) against the baseline,\n"
          "  energy (uJ), tensor utilisation (%), disruptive and recompute rates (%), KL mean (nats),\n"
          "  O relative error\n"
          "  --baseline DIR  the run the ratios are taken against (default: the first row); listed first\n"
          "  --csv           CSV: label, directory, then the columns (rates as fractions)\n",
          out);
}

/* Appends the rows of one argument: a run directory, or every finished point of a sweep directory
 * (its axis keys are added to axes, malloc'ed). */
static int add_rows(crow **rows, int *n, int *cap, const char *d, char ***axes, int *naxes)
{
    ls_sweep_manifest mf;
    int sweep = !is_file(d, "report.csv") && !ls_sweep_read_manifest(d, &mf);
    int want = sweep ? mf.n : 1;
    if (*n + want > *cap) {
        *cap = (*n + want) * 2;
        crow *nr = realloc(*rows, (size_t)*cap * sizeof *nr);
        if (!nr) {
            if (sweep) ls_sweep_manifest_free(&mf);
            return 1;
        }
        *rows = nr;
    }
    if (!sweep) {
        if (load_row(&(*rows)[*n], d)) {
            fprintf(stderr, "lampsim compare: %s: no readable report.csv (not a run or sweep directory)\n", d);
            return 2;
        }
        (*n)++;
        return 0;
    }
    for (int p = 0; p < mf.n; p++)
        if (is_file(mf.paths[p], "DONE") && !load_row(&(*rows)[*n], mf.paths[p])) (*n)++;
    char **na = mf.n ? realloc(*axes, (size_t)(*naxes + mf.naxes + 1) * sizeof *na) : *axes;
    if (na) *axes = na;
    for (int a = 0; na && mf.n && a < mf.naxes; a++) {
        const char *ov = mf.overrides[0][a], *eq = strchr(ov, '=');
        char *k = strndup(ov, eq ? (size_t)(eq - ov) : strlen(ov));
        if (k) na[(*naxes)++] = k;
    }
    ls_sweep_manifest_free(&mf);
    return 0;
}

int lscli_compare(int argc, char **argv)
{
    int csv = 0, n = 0, cap = 0, rc = 0;
    const char *baseline = NULL;
    crow *rows = NULL;
    char **axes = NULL;
    int naxes = 0;
    for (int i = 1; i < argc && !rc; i++) {
        const char *d = argv[i];
        if (!strcmp(d, "--csv")) { csv = 1; continue; }
        if (!strcmp(d, "--baseline")) {
            if (i + 1 >= argc) { fprintf(stderr, "lampsim compare: --baseline needs a run directory\n"); rc = 2; }
            else baseline = argv[++i];
            continue;
        }
        if (!strcmp(d, "--help") || !strcmp(d, "-h")) {
            compare_usage(stdout);
            for (int a = 0; a < naxes; a++) free(axes[a]);
            free(axes);
            for (int k = 0; k < n; k++) {
                ls_csv_free(rows[k].h, rows[k].n);
                ls_csv_free(rows[k].r, rows[k].n);
            }
            free(rows);
            return 0;
        }
        if (d[0] == '-') { fprintf(stderr, "lampsim compare: unknown option '%s'\n", d); rc = 2; break; }
        rc = add_rows(&rows, &n, &cap, d, &axes, &naxes);
    }
    int b = 0; /* the baseline row */
    if (!rc && baseline) {
        if (!is_file(baseline, "report.csv")) {
            fprintf(stderr, "lampsim compare: --baseline %s: no report.csv (the baseline is one run directory)\n", baseline);
            rc = 2;
        } else {
            struct stat sb, si;
            b = -1;
            for (int i = 0; i < n && b < 0; i++) /* the same directory, however spelt */
                if (!stat(baseline, &sb) && !stat(rows[i].dir, &si) && sb.st_dev == si.st_dev && sb.st_ino == si.st_ino) b = i;
            if (b < 0) rc = add_rows(&rows, &n, &cap, baseline, &axes, &naxes), b = n - 1;
        }
    }
    if (!rc && n == 0) {
        compare_usage(stderr);
        rc = 2;
    }
    if (!rc && b > 0) { /* the baseline first */
        crow t = rows[b];
        memmove(rows + 1, rows, (size_t)b * sizeof *rows);
        rows[0] = t;
    }
    if (!rc && label_rows(rows, n, axes, naxes)) rc = 1;
    if (!rc) {
        int show[NCOLS];
        for (int k = 0; k < NCOLS; k++) {
            show[k] = 0;
            for (int i = 0; i < n && !show[k]; i++) show[k] = !isnan(num(&rows[i], k_cols[k].ratio ? k_cols[k].of : k_cols[k].field));
        }
        int w = 3;
        for (int i = 0; i < n; i++) w = (int)strlen(rows[i].label) > w ? (int)strlen(rows[i].label) : w;
        if (w > 60) w = 60;
        if (csv) printf("run,dir,mode");
        else printf("%-*s  %-10s", w, "run", "mode");
        for (int k = 0; k < NCOLS; k++)
            if (show[k]) {
                if (csv) printf(",%s", k_cols[k].csv);
                else printf("  %*s", colw(&k_cols[k]), k_cols[k].head);
            }
        putchar('\n');
        for (int i = 0; i < n; i++) {
            const crow *c = &rows[i];
            const char *mode = col(c, "mode");
            if (csv) {
                printf("\"");
                for (const char *q = c->label; *q; q++) printf(*q == '"' ? "\"\"" : "%c", *q);
                printf("\",\"%s\",%s", c->dir, mode ? mode : "");
            } else printf("%-*s  %-10s", w, c->label, mode ? mode : "-");
            for (int k = 0; k < NCOLS; k++) {
                if (!show[k]) continue;
                double x = cell(c, &rows[0], &k_cols[k]);
                if (csv) {
                    if (!isnan(x)) printf(",%.17g", x);
                    else putchar(',');
                } else if (isnan(x)) printf("  %*s", colw(&k_cols[k]), "-");
                else {
                    char v[64];
                    snprintf(v, sizeof v, k_cols[k].fmt, x * k_cols[k].scale);
                    printf("  %*s", colw(&k_cols[k]), v);
                }
            }
            putchar('\n');
        }
        if (!csv) printf("ratios against %s (%s)\n", rows[0].label, rows[0].dir);
    }
    for (int i = 0; i < n; i++) {
        free(rows[i].label);
        ls_csv_free(rows[i].h, rows[i].n);
        ls_csv_free(rows[i].r, rows[i].n);
    }
    for (int a = 0; a < naxes; a++) free(axes[a]);
    free(axes);
    free(rows);
    return rc;
}
