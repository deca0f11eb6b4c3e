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
#include "sweep.h"

#ifndef LAMPSIM_SOURCE_DIR
#define LAMPSIM_SOURCE_DIR "."
#endif

static void sweep_usage(FILE *out)
{
    fputs("usage: lampsim sweep expand SWEEP.yaml [--shard i/N] [--count]\n"
          "       lampsim sweep run SWEEP.yaml [-j N] [-o DIR] [--shard i/N] [--point ID|INDEX]... [--no-reuse]\n"
          "                                    [--progress | --no-progress] [--quiet]\n"
          "       lampsim sweep merge DIR [-o FILE] [--strict]\n"
          "  expand   print the manifest: one line per point, index TAB id TAB key=value...\n"
          "  run      run the points with N worker processes (default: all cores) into DIR\n"
          "           (default out/<sweep name>): DIR/points/<id>/ with a DONE marker per point;\n"
          "           re-running skips finished points; Ctrl-C stops cleanly\n"
          "  --shard i/N   only points whose index % N == i (0 <= i < N), e.g. one Slurm array task\n"
          "  --point X     only this point (id or manifest index; repeatable)\n"
          "  --no-reuse    recompute the numerics of points that differ only in non-numerics keys\n"
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
    char label[LS_CFG_PATH_MAX];
    char **h, **r;
    int n;
} crow;

static const char *col(const crow *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->h[i], name)) return c->r[i];
    return NULL;
}

/* First of several candidate names present in any row. */
static const char *pick(const crow *rows, int n, const char *const *names)
{
    for (int k = 0; names[k]; k++)
        for (int i = 0; i < n; i++)
            if (col(&rows[i], names[k])) return names[k];
    return NULL;
}

/* Mean of the utilisation columns (units.<u>.utilisation and the like) of a row, or NAN. */
static double utilisation(const crow *c)
{
    double s = 0;
    int k = 0;
    for (int i = 0; i < c->n; i++) {
        const char *h = c->h[i];
        size_t l = strlen(h);
        if (strncmp(h, "units.", 6) || l < 12) continue;
        if (strcmp(h + l - 12, ".utilisation") && strcmp(h + l - 12, ".utilization")) continue;
        char *e;
        double v = strtod(c->r[i], &e);
        if (e != c->r[i]) { s += v; k++; }
    }
    if (!k) {
        const char *v = col(c, "utilisation");
        if (!v) v = col(c, "utilization");
        return v ? strtod(v, NULL) : NAN;
    }
    return s / k;
}

static int load_row(crow *c, const char *dir, const char *label)
{
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
    snprintf(c->label, sizeof c->label, "%s", label);
    return 0;
}

int lscli_compare(int argc, char **argv)
{
    int csv = 0, n = 0, cap = 0, rc = 0;
    crow *rows = NULL;
    for (int i = 1; i < argc && !rc; i++) {
        const char *d = argv[i];
        if (!strcmp(d, "--csv")) { csv = 1; continue; }
        if (!strcmp(d, "--help") || !strcmp(d, "-h")) {
            puts("usage: lampsim compare [--csv] DIR...\n"
                 "  side-by-side table of run directories (or every finished point of a sweep directory):\n"
                 "  mode, cycles and speedup vs the first (when the reports have cycles), mean unit utilisation\n"
                 "  (when present), disruptive-tile rate, recompute rate, KL mean, O relative error");
            free(rows);
            return 0;
        }
        if (d[0] == '-') { fprintf(stderr, "lampsim compare: unknown option '%s'\n", d); rc = 2; break; }
        char *p = ls_path_join(d, "manifest.tsv");
        char *man = is_file(d, "report.csv") || !p ? NULL : ls_sweep_read_file(p, NULL);
        free(p);
        int want = man ? 0 : 1;
        if (man)
            for (char *s = man; *s; s++) want += *s == '\n';
        if (n + want > cap) {
            cap = (n + want) * 2;
            crow *nr = realloc(rows, (size_t)cap * sizeof *nr);
            if (!nr) { free(man); rc = 1; break; }
            rows = nr;
        }
        if (!man) {
            if (load_row(&rows[n], d, d)) {
                fprintf(stderr, "lampsim compare: %s: no readable report.csv (not a run directory)\n", d);
                rc = 2;
            } else n++;
            continue;
        }
        for (char *line = man, *nl; *line; line = nl) {
            nl = strchr(line, '\n');
            if (nl) *nl++ = '\0';
            else nl = line + strlen(line);
            char *t1 = strchr(line, '\t');
            if (!t1) continue;
            char *t2 = strchr(t1 + 1, '\t');
            char id[64];
            snprintf(id, sizeof id, "%.*s", (int)(t2 ? t2 - t1 - 1 : (long)strlen(t1 + 1)), t1 + 1);
            char label[LS_CFG_PATH_MAX];
            char *pd = ls_path_fmt("%s/points/%s", d, id);
            if (!pd || !is_file(pd, "DONE")) {
                free(pd);
                continue;
            }
            snprintf(label, sizeof label, "%s", t2 ? t2 + 1 : id);
            for (char *c = label; *c; c++)
                if (*c == '\t') *c = ' ';
            if (!load_row(&rows[n], pd, label)) n++;
            free(pd);
        }
        free(man);
    }
    if (!rc && n == 0) {
        fputs("usage: lampsim compare [--csv] DIR...\n", stderr);
        rc = 2;
    }
    if (!rc) {
        static const char *const cyc_names[] = {"cycles", "cycles.total", "timing.cycles", NULL};
        const char *cyc = pick(rows, n, cyc_names);
        int has_util = 0;
        for (int i = 0; i < n; i++) has_util |= !isnan(utilisation(&rows[i]));
        size_t w = 3;
        for (int i = 0; i < n; i++) w = strlen(rows[i].label) > w ? strlen(rows[i].label) : w;
        if (w > 60) w = 60;
        const char *sep = csv ? "," : "  ";
        if (csv) printf("run,mode");
        else printf("%-*s  %-10s", (int)w, "run", "mode");
        if (cyc) printf(csv ? ",cycles,speedup" : "  %14s  %8s", "cycles", "speedup");
        if (has_util) printf(csv ? ",utilisation" : "  %11s", "utilisation");
        printf(csv ? ",disruptive_rate,recompute_rate,kl_mean,o_rel_err\n" : "  %10s  %10s  %10s  %10s\n", "disruptive",
               "recompute", "KL mean", "O rel err");
        double c0 = cyc ? strtod(col(&rows[0], cyc) ? col(&rows[0], cyc) : "nan", NULL) : NAN;
        for (int i = 0; i < n; i++) {
            const crow *c = &rows[i];
            const char *mode = col(c, "mode");
            if (csv) {
                printf("\"%s\",%s", c->label, mode ? mode : "");
            } else printf("%-*.*s  %-10s", (int)w, (int)w, c->label, mode ? mode : "-");
            if (cyc) {
                const char *v = col(c, cyc);
                double cv = v ? strtod(v, NULL) : NAN;
                if (csv) printf("%s%s%s%.6g", sep, v ? v : "", sep, c0 / cv);
                else printf("  %14s  %7.3fx", v ? v : "-", c0 / cv);
            }
            if (has_util) printf(csv ? ",%.6g" : "  %11.4f", utilisation(c));
            const char *keys[] = {"tiles.disruptive_rate", "recompute.subblock_rate", "accuracy.kl_mean",
                                  "accuracy.o_rel_fro_err"};
            for (int k = 0; k < 4; k++) {
                const char *v = col(c, keys[k]);
                double x = v && *v ? strtod(v, NULL) : NAN;
                if (csv) printf(",%s", v ? v : "");
                else if (isnan(x)) printf("  %10s", "-");
                else printf(k < 2 ? "  %9.2f%%" : "  %10.3e", k < 2 ? 100 * x : x);
            }
            putchar('\n');
        }
    }
    for (int i = 0; i < n; i++) {
        ls_csv_free(rows[i].h, rows[i].n);
        ls_csv_free(rows[i].r, rows[i].n);
    }
    free(rows);
    return rc;
}
