/* `lampsim sweep expand SWEEP.yaml`, `lampsim sweep run SWEEP.yaml [-j N] [-o DIR] [--shard i/N]
 * [--point ID]...`, `lampsim sweep merge DIR [-o FILE]` (docs/sweeps.md). The machinery is in sim/sweep. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_dir.h"
#include "atomic_file.h"
#include "cli.h"
#include "run_progress.h"
#include "sweep.h"

#ifndef LAMPSIM_SOURCE_DIR
#define LAMPSIM_SOURCE_DIR "."
#endif

static void sweep_usage(FILE *out)
{
    fputs("usage: lampsim sweep expand SWEEP.yaml [--shard i/N] [--count] [--verbose]\n"
          "       lampsim sweep run SWEEP.yaml [-j N] [-o DIR] [--shard i/N] [--point ID|INDEX]... [--no-reuse]\n"
          "                                    [--progress | --no-progress] [--progress-every S] [--quiet]\n"
          "       lampsim sweep merge DIR [-o FILE] [--strict]\n"
          "  expand   print the manifest: one line per point, index TAB id TAB key=value...; a sweep with\n"
          "           an objective counts its infeasible points in one line on stderr (--verbose: each one)\n"
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
          "           missing and failed points are listed on stderr (--strict: exit 1 then, writing nothing)\n"
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
    char err[2048] = "", fpath[LS_CLI_PATH_MAX];
    file = ls_cli_data_file(file, "configs/sweeps", fpath, sizeof fpath);   /* a shipped sweep by name */
    if (ls_sweep_load(sw, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        ls_cli_data_hint("lampsim sweep", file, "configs/sweeps");
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
    int si = 0, sn = 0, count = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--shard") && i + 1 < argc) {
            if (parse_shard(argv[++i], &si, &sn)) {
                fprintf(stderr, "lampsim sweep expand: --shard: expected i/N with 0 <= i < N, got '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--count")) count = 1;
        else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { sweep_usage(stdout); return 0; }
        else if (argv[i][0] == '-' && strcmp(argv[i], "--shard")) {
            static const char *const known[] = {"--shard", "--count", "--verbose", "--help", NULL};
            return ls_cli_unknown("lampsim sweep expand", "option", argv[i], known);
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "lampsim sweep expand: unexpected argument '%s'\n", argv[i]);
            return 2;
        } else file = argv[i];
    }
    if (!file) { sweep_usage(stderr); return 2; }
    ls_sweep sw;
    if (load_sweep(&sw, file, "expand", verbose ? 2 : 1)) return 2;
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

/* The options of `sweep run` that take a value (given last, without one, they are "missing a value"). */
static const char *const k_run_value_opts[] = {"-j", "-o", "--shard", "--point", "--progress-every", NULL};

static int has_value_option(const char *a, const char *const *opts)
{
    for (int i = 0; opts[i]; i++)
        if (!strcmp(a, opts[i])) return 1;
    return 0;
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
        else if (a[0] == '-' && !has_value_option(a, k_run_value_opts)) {
            static const char *const known[] = {"-j", "-o", "--shard", "--point", "--no-reuse", "--progress", "--no-progress",
                                                "--progress-every", "--quiet", "--help", NULL};
            rc = ls_cli_unknown("lampsim sweep run", "option", a, known);
            goto out;
        } else if (a[0] == '-' || file) {
            fprintf(stderr, "lampsim sweep run: unexpected argument '%s'%s\n", a, a[0] == '-' && !has ? " (missing value?)" : "");
            goto out;
        } else file = a;
    }
    if (!file) { sweep_usage(stderr); goto out; }
    o.only = only;
    ls_sweep sw;
    char err[2048] = "";
    if (load_sweep(&sw, file, "run", o.quiet ? 0 : 1)) goto out;
    char def[LS_CONFIG_PATH_MAX];
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
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { sweep_usage(stdout); return 0; }
        else if (argv[i][0] == '-' && strcmp(argv[i], "-o")) {
            static const char *const known[] = {"-o", "--strict", "--help", NULL};
            return ls_cli_unknown("lampsim sweep merge", "option", argv[i], known);
        } else if (argv[i][0] == '-' || dir) {
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
    if (strict && (st.failed || st.missing)) {
        /* a strict merge that fails writes nothing: -o FILE keeps its previous, complete contents */
        fprintf(stderr, "lampsim sweep merge: --strict: %d point(s) failed and %d missing; %s\n", st.failed, st.missing,
                outp ? "the output file is left unchanged" : "nothing written");
        free(text);
        return 1;
    }
    if (outp) {
        if (ls_atomic_file_write(outp, text, len, err, sizeof err)) {
            fprintf(stderr, "lampsim sweep merge: %s\n", err);
            rc = 1;
        }
    } else if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) rc = 1;
    free(text);
    return rc;
}

int ls_cli_sweep(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        sweep_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "expand")) return sweep_expand(argc - 1, argv + 1);
    if (!strcmp(argv[1], "run")) return sweep_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "merge")) return sweep_merge(argc - 1, argv + 1);
    static const char *const subs[] = {"expand", "run", "merge", NULL};
    return ls_cli_unknown("lampsim sweep", "subcommand", argv[1], subs);
}
