#define _POSIX_C_SOURCE 200809L /* PATH_MAX, access */
/* `lampsim sensitivity [CONFIG] [--metric M]... [--params estimates|K1,K2,...] [--method oat|morris]
 *  [--ratio A/B]... [--set K=V]... -o DIR`: the analysis is sim/sens; here the options and the HTML
 * (scripts/plot_sensitivity.py). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sens.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: lampsim sensitivity [CONFIG] [--metric M]... [--params estimates|K1,K2,...] [--method oat|morris]\n"
            "                           [--ratio A/B]... [--trajectories R] [--levels P] [--seed S]\n"
            "                           [--set key.path=value]... -o DIR [--force] [--no-html] [--quiet]\n"
            "  How much each metric depends on the estimates (the values nobody measured; `lampsim config\n"
            "  --estimates` lists them with their [low, high] ranges). Every sample is a run of CONFIG with the\n"
            "  parameters set; the numerics are computed once and replayed (timing only). docs/sensitivity.md.\n"
            "  CONFIG           YAML configuration (default: the embedded configs/default.yaml)\n"
            "  --metric M       a metric of sweeps' best: (cycles, time_us, energy.dynamic_uj, area.total_mm2,\n"
            "                   power.average_w, efficiency.tflops_per_mm2, ...); repeatable; default cycles\n"
            "  --params P       'estimates' (default: every estimate with a range) or a comma-separated list of them\n"
            "  --method oat     each parameter at its low and high end, the others at their values in CONFIG\n"
            "  --method morris  (default) the same plus Morris elementary effects: R trajectories on a P-level\n"
            "                   grid, per parameter mu, mu* (influence) and sigma (interactions), in morris.csv\n"
            "  --ratio A/B      also metric(A) / metric(B), A and B two values of one key, both run with the same\n"
            "                   parameter values: full/compact (layout), lamp/fa2_16bit (mode); repeatable\n"
            "  --trajectories R Morris trajectories (default %d)\n"
            "  --levels P       Morris grid levels, even (default %d)\n"
            "  --seed S         Morris's seed (default: the configuration's seed)\n"
            "  --set K=V        override one key of CONFIG (repeatable)\n"
            "  -o DIR           write sensitivity.csv, morris.csv, samples.csv, summary.txt, sensitivity.html,\n"
            "                   config.resolved.yaml and run_info.json (atomically: all or nothing)\n"
            "  --force          allow DIR to be non-empty (replaced as a whole)\n"
            "  --no-html        no sensitivity.html (no Python needed; `lampsim report DIR` writes it later)\n"
            "  --python PY      the Python for sensitivity.html (default $LAMPSIM_PYTHON or /usr/bin/python3)\n"
            "  --quiet          no answer on stdout, no progress on stderr\n",
            LS_SENS_DEFAULT_TRAJECTORIES, LS_SENS_DEFAULT_LEVELS);
}

/* DIR/sensitivity.html from DIR's CSVs: 0, -2 for a damaged input (the script said which file), -1. */
int ls_cli_sensitivity_html(const char *dir, const char *py)
{
    char script[PATH_MAX + 64];
    if (ls_cli_find_script("plot_sensitivity.py", NULL, script, sizeof script)) {
        fprintf(stderr, "lampsim sensitivity: scripts/plot_sensitivity.py not found\n");
        return -1;
    }
    if (access(py, X_OK)) {
        fprintf(stderr, "lampsim sensitivity: %s not found; install Debian python3, python3-matplotlib (or --no-html)\n", py);
        return -1;
    }
    char *args[] = {(char *)py, script, (char *)dir, NULL};
    int rc = ls_cli_run_python(args);
    if (rc == 2) return -2; /* bad input: the script named the file on one line */
    if (rc) fprintf(stderr, "lampsim sensitivity: plot_sensitivity.py failed (exit %d)\n", rc);
    return rc ? -1 : 0;
}

static int html_hook(const char *tmp_dir, void *user) { return ls_cli_sensitivity_html(tmp_dir, user); }

/* A whole number in [lo, hi]; 0 or -1. */
static int parse_int(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

int ls_cli_sensitivity(int argc, char **argv)
{
    static const char *const known[] = {"--metric", "--params", "--method", "--ratio", "--trajectories", "--levels",
                                        "--seed", "--set", "-o", "--force", "--no-html", "--python", "--quiet",
                                        "--help", NULL};
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!sets) return 1;
    ls_sens_opts o;
    memset(&o, 0, sizeof o);
    o.method = LS_SENS_MORRIS;
    bool html = true;
    const char *py = getenv("LAMPSIM_PYTHON");
    if (!py || !*py) py = "/usr/bin/python3";
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        bool takes = false;
        for (int k = 0; k < 9; k++) takes |= !strcmp(a, known[k]);
        takes |= !strcmp(a, "--python");
        if (takes && i + 1 >= argc) {
            fprintf(stderr, "lampsim sensitivity: missing value after %s\n", a);
            rc = 2;
            break;
        }
        const char *v = takes ? argv[++i] : NULL;
        long n;
        if (!strcmp(a, "--metric")) {
            if (o.nmetrics == LS_SENS_MAX_METRICS) {
                fprintf(stderr, "lampsim sensitivity: --metric: at most %d metrics\n", LS_SENS_MAX_METRICS);
                rc = 2;
            } else o.metrics[o.nmetrics++] = v;
        } else if (!strcmp(a, "--ratio")) {
            if (o.nratios == LS_SENS_MAX_RATIOS) {
                fprintf(stderr, "lampsim sensitivity: --ratio: at most %d ratios\n", LS_SENS_MAX_RATIOS);
                rc = 2;
            } else o.ratios[o.nratios++] = v;
        } else if (!strcmp(a, "--params")) o.params = v;
        else if (!strcmp(a, "--method")) {
            if (!strcmp(v, "oat")) o.method = LS_SENS_OAT;
            else if (!strcmp(v, "morris")) o.method = LS_SENS_MORRIS;
            else {
                static const char *const methods[] = {"oat", "morris", NULL};
                rc = ls_cli_unknown("lampsim sensitivity --method", "method", v, methods);
            }
        } else if (!strcmp(a, "--trajectories") || !strcmp(a, "--levels")) {
            if (parse_int(v, 1, 1000, &n)) {
                fprintf(stderr, "lampsim sensitivity: %s: expected a whole number in 1..1000, got '%s'\n", a, v);
                rc = 2;
            } else if (a[2] == 't') o.trajectories = (int)n;
            else o.levels = (int)n;
        } else if (!strcmp(a, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-') {
                fprintf(stderr, "lampsim sensitivity: --seed: expected a non-negative whole number, got '%s'\n", v);
                rc = 2;
            }
            o.seed = s;
            o.seed_set = true;
        } else if (!strcmp(a, "--set")) sets[o.nsets++] = v;
        else if (!strncmp(a, "--set=", 6)) sets[o.nsets++] = a + 6;
        else if (!strcmp(a, "-o")) o.out_dir = v;
        else if (!strcmp(a, "--python")) py = v;
        else if (!strcmp(a, "--force")) o.force = true;
        else if (!strcmp(a, "--no-html")) html = false;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) o.quiet = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(sets);
            return 0;
        } else if (a[0] == '-' && a[1]) rc = ls_cli_unknown("lampsim sensitivity", "option", a, known);
        else if (o.config_path) {
            fprintf(stderr, "lampsim sensitivity: one configuration file at most ('%s' and '%s')\n", o.config_path, a);
            rc = 2;
        } else o.config_path = a;
    }
    if (!rc && !o.out_dir) {
        fprintf(stderr, "lampsim sensitivity: -o DIR is required\n");
        rc = 2;
    }
    char cpath[LS_CLI_PATH_MAX];
    if (!rc) o.config_path = ls_cli_data_file(o.config_path, "configs", cpath, sizeof cpath);
    if (!rc) {
        o.sets = sets;
        if (html) {
            o.before_commit = html_hook;
            o.before_commit_user = (void *)py;
        }
        char err[4096] = "";
        rc = ls_sens_run(&o, stdout, err, sizeof err);
        if (rc) fprintf(stderr, "lampsim sensitivity: %s\n", err);
        if (rc == 3) rc = 1; /* the analysis is written; only its HTML is missing */
    }
    free(sets);
    return rc;
}
