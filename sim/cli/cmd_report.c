/* `lampsim report DIR`: DIR/results.csv for a sweep, then figures and report.html from
 * scripts/plot_sweep.py (docs/sweeps.md; a run or model directory's page is scripts/report/, docs/reports.md);
 * `lampsim report --fields [--markdown]`: the report's field reference (sim/report/field_docs.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_dir.h"
#include "atomic_file.h"
#include "cli.h"
#include "field_docs.h"
#include "run_progress.h"
#include "sweep.h"

#ifndef LAMPSIM_SOURCE_DIR
#define LAMPSIM_SOURCE_DIR "."
#endif

int ls_cli_is_file(const char *dir, const char *name)
{
    char *p = ls_io_path_join(dir, name);
    struct stat st;
    int r = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return r;
}

/* scripts/NAME: $ENV_VAR (when given and set), next to the binary (../scripts, ./scripts,
 * ../share/lampsim), or the source tree the binary was built from. */
int ls_cli_find_script(const char *name, const char *env_var, char *out, size_t len)
{
    const char *env = env_var ? getenv(env_var) : NULL;
    if (env && *env) { snprintf(out, len, "%s", env); return access(out, R_OK) ? -1 : 0; }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *s = strrchr(exe, '/');
        if (s) *s = '\0';
        const char *rel[] = {"/../scripts/", "/scripts/", "/../share/lampsim/"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(out, len, "%s%s%s", exe, rel[i], name);
            if (!access(out, R_OK)) return 0;
        }
    }
    snprintf(out, len, "%s/scripts/%s", LAMPSIM_SOURCE_DIR, name);
    return access(out, R_OK) ? -1 : 0;
}

int ls_cli_run_python(char *const *args)
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

int ls_cli_run_script(const char *cmd, const char *name, const char *env_var, const char *verb, const char *packages,
                      int argc, char **argv)
{
    const char *py = getenv("LAMPSIM_PYTHON");
    if (!py || !*py) py = "/usr/bin/python3";
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--python") && i + 1 < argc) py = argv[i + 1];
    char script[PATH_MAX + 64], exe[PATH_MAX];
    if (ls_cli_find_script(name, env_var, script, sizeof script)) {
        fprintf(stderr, "lampsim %s: scripts/%s not found (set %s)\n", cmd, name, env_var);
        return 1;
    }
    if (access(py, X_OK)) {
        fprintf(stderr, "lampsim %s: %s not found; install Debian python3, %s\n", cmd, py, packages);
        return 1;
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, "lampsim %s: cannot find the lampsim binary's own path\n", cmd);
        return 1;
    }
    exe[n] = '\0';
    /* the script runs this very binary for its sweeps, costs, statistics and fits */
    char **args = calloc((size_t)argc + 6, sizeof *args);
    if (!args) return 1;
    int k = 0;
    args[k++] = (char *)py;
    args[k++] = script;
    if (verb) args[k++] = (char *)verb;
    args[k++] = (char *)"--lampsim";
    args[k++] = exe;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--python") && i + 1 < argc) { i++; continue; }
        args[k++] = argv[i];
    }
    args[k] = NULL;
    int rc = ls_cli_run_python(args);
    free(args);
    return rc;
}

/* Writes DIR/results.csv (a sweep), then runs plot_sweep.py for DIR/figures and DIR/report.html. */
static int report_dir(const char *dir, int sweep, const char *py, char *script)
{
    char err[2048] = "";
    char *figs = ls_io_path_join(dir, "figures"), *html = ls_io_path_join(dir, "report.html"),
         *csv = ls_io_path_join(dir, sweep ? "results.csv" : "report.csv");
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
        if (!rc && ls_atomic_file_write(csv, text, len, err, sizeof err)) rc = 1;
        free(text);
        if (rc) {
            fprintf(stderr, "lampsim report: %s\n", err);
            goto out;
        }
    }
    /* the field reference for the run page's tables, from the one table in sim/report/field_docs.c */
    const char *tmpdir = getenv("TMPDIR");
    char *fpath = ls_io_path_join(tmpdir && *tmpdir ? tmpdir : "/tmp", "lampsim-fields.XXXXXX");
    int fd = fpath ? mkstemp(fpath) : -1;
    FILE *ff = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!ff) {
        fprintf(stderr, "lampsim report: cannot write a temporary file for the field reference: %s\n", strerror(errno));
        if (fd >= 0) { close(fd); unlink(fpath); }
        free(fpath);
        rc = 1;
        goto out;
    }
    ls_field_docs_tsv(ff);
    if (fclose(ff) != 0) {
        fprintf(stderr, "lampsim report: %s: write failed\n", fpath);
        unlink(fpath);
        free(fpath);
        rc = 1;
        goto out;
    }
    char *args[] = {(char *)py, script, csv, (char *)"--out", figs, (char *)"--html", html,
                    (char *)(sweep ? "--sweep" : "--run"), (char *)"--fields", fpath, NULL};
    int prc = ls_cli_run_python(args);
    unlink(fpath);
    free(fpath);
    if (prc == 2) rc = 2; /* bad input: the script named the file on one line */
    else if (prc) {
        fprintf(stderr, "lampsim report: plot_sweep.py failed (exit %d)\n", prc);
        rc = 1;
    } else printf("%s\n", html);
out:
    free(figs);
    free(html);
    free(csv);
    return rc;
}

int ls_cli_report(int argc, char **argv)
{
    const char *dir = NULL, *py = getenv("LAMPSIM_PYTHON");
    int fields = 0, markdown = 0;
    if (!py || !*py) py = "/usr/bin/python3";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--python") && i + 1 < argc) py = argv[++i];
        else if (!strcmp(argv[i], "--fields")) fields = 1;
        else if (!strcmp(argv[i], "--markdown")) markdown = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: lampsim report DIR [--python PYTHON]\n"
                 "       lampsim report --fields [--markdown]\n"
                 "  writes DIR/report.html (tables and embedded figures, self-contained) for a run or a `lampsim\n"
                 "  model -o` directory (report.csv) or a sweep directory (manifest.tsv; also writes DIR/results.csv\n"
                 "  and DIR/figures/);\n"
                 "  DIR/sensitivity.html for a `lampsim sensitivity` directory (sensitivity.csv)\n"
                 "  --fields: every report field's unit and meaning (tab-separated; --markdown: docs/reports.md's table)");
            return 0;
        } else if (argv[i][0] == '-') {
            static const char *const known[] = {"--python", "--fields", "--markdown", "--help", NULL};
            return ls_cli_unknown("lampsim report", "option", argv[i], known);
        } else if (dir) {
            fprintf(stderr, "lampsim report: one directory at most ('%s' and '%s')\n", dir, argv[i]);
            return 2;
        } else dir = argv[i];
    }
    if (fields) {
        if (dir) { fprintf(stderr, "lampsim report: --fields takes no directory ('%s')\n", dir); return 2; }
        markdown ? ls_field_docs_markdown(stdout) : ls_field_docs_tsv(stdout);
        return fflush(stdout) ? 1 : 0;
    }
    if (markdown) { fputs("lampsim report: --markdown goes with --fields\n", stderr); return 2; }
    if (!dir) { fputs("usage: lampsim report DIR\n", stderr); return 2; }
    char script[PATH_MAX + 64];
    if (ls_cli_is_file(dir, "sensitivity.csv")) {
        int hrc = ls_cli_sensitivity_html(dir, py);
        if (hrc) return hrc == -2 ? 2 : 1;
        printf("%s/sensitivity.html\n", dir);
        return 0;
    }
    int sweep = ls_cli_is_file(dir, "manifest.tsv");
    if (!sweep && !ls_cli_is_file(dir, "report.csv")) {
        fprintf(stderr, "lampsim report: %s: not a run directory (report.csv), a sweep directory (manifest.tsv) or a "
                        "sensitivity directory (sensitivity.csv)\n", dir);
        return 2;
    }
    if (ls_cli_find_script("plot_sweep.py", "LAMPSIM_PLOT_SCRIPT", script, sizeof script)) {
        fprintf(stderr, "lampsim report: scripts/plot_sweep.py not found (set LAMPSIM_PLOT_SCRIPT)\n");
        return 1;
    }
    if (access(py, X_OK)) {
        fprintf(stderr, "lampsim report: %s not found; install Debian python3, python3-numpy, python3-matplotlib\n", py);
        return 1;
    }
    return report_dir(dir, sweep, py, script);
}
