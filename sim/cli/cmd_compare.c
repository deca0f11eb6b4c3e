/* `lampsim compare DIR...`: a side-by-side table (or CSV) of runs and sweep points against a
 * baseline (docs/sweeps.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
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

typedef struct {
    char dir[LS_CONFIG_PATH_MAX]; /* the run directory */
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
    char *p = ls_io_path_join(dir, "report.csv");
    char *t = p ? ls_sweep_read_file(p, NULL) : NULL;
    free(p);
    if (!t) return -1;
    size_t pos = 0;
    int nh = ls_sweep_csv_record(t, &pos, &c->h);
    int nr = nh > 0 ? ls_sweep_csv_record(t, &pos, &c->r) : -1;
    free(t);
    if (nh <= 0 || nr != nh) {
        ls_sweep_csv_free(c->h, nh > 0 ? nh : 0);
        ls_sweep_csv_free(c->r, nr > 0 ? nr : 0);
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
            char full[LS_CONFIG_PATH_MAX + 8];
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
        char *nl = ls_io_path_fmt("%s%s%s", rows[i].label ? rows[i].label : "", rows[i].label && rows[i].label[0] ? " " : "",
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
    int stack;      /* 1: a cycle-stack column, printed in the second table (cycles and % of the run) */
} ccol;

static const ccol k_cols[] = {
    {"cycles", "cycles", "cycles", "%.0f", 1, 0, NULL, 0},
    {"time_us", "time (us)", "time_us", "%.3f", 1, 0, NULL, 0},
    {NULL, "speedup (x)", "speedup_x", "%.3f", 1, 1, "cycles", 0},
    {"energy.total_uj", "energy (uJ)", "energy_uj", "%.3f", 1, 0, NULL, 0},
    {NULL, "energy (x)", "energy_x", "%.3f", 1, 2, "energy.total_uj", 0},
    {"units.tensor.utilisation", "tensor util (%)", "tensor_utilisation", "%.2f", 100, 0, NULL, 0},
    {"tiles.disruptive_rate", "disruptive (%)", "disruptive_rate", "%.2f", 100, 0, NULL, 0},
    {"recompute.subblock_rate", "recompute (%)", "recompute_rate", "%.2f", 100, 0, NULL, 0},
    {"accuracy.kl_mean", "KL mean (nats)", "kl_mean_nats", "%.3e", 1, 0, NULL, 0},
    {"accuracy.o_rel_fro_err", "O rel err (1)", "o_rel_fro_err", "%.3e", 1, 0, NULL, 0},
    /* cost at 7 nm (docs/reports.md, "Area and power") */
    {"area.total_mm2", "area (mm2)", "area_mm2", "%.2f", 1, 0, NULL, 0},
    {"power.average_w", "power (W)", "power_w", "%.2f", 1, 0, NULL, 0},
    {"energy.per_token_uj", "uJ per token", "energy_per_token_uj", "%.4f", 1, 0, NULL, 0},
    {"efficiency.tflops_per_mm2", "TFLOP/s per mm2", "tflops_per_mm2", "%.4f", 1, 0, NULL, 0},
    {"efficiency.tflops_per_w", "TFLOP/s per W", "tflops_per_w", "%.3f", 1, 0, NULL, 0},
    /* the cycle stack of the cores with work (docs/reports.md): each row's parts sum to its cycles */
    {"cycle_stack.working_cores.launch", "launch", "stack_launch_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.busy", "busy", "stack_busy_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.dependency", "dependency", "stack_dependency_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.unit_busy", "unit_busy", "stack_unit_busy_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.memory", "memory", "stack_memory_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.scheduler", "scheduler", "stack_scheduler_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.slow_path", "slow_path", "stack_slow_path_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.other", "other", "stack_other_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.working_cores.tail", "tail", "stack_tail_cycles", "%.0f", 1, 0, NULL, 1},
    {"cycle_stack.chip.idle", "idle cores", "stack_chip_idle_cycles", "%.0f", 1, 0, NULL, 1},
    {"balance.wave_efficiency", "waves used (%)", "wave_efficiency", "%.1f", 100, 0, NULL, 1},
};
#define NCOLS (int)(sizeof k_cols / sizeof k_cols[0])

/* A table column is as wide as its header, at least 10 (a %.3e value). */
static int colw(const ccol *k) { return strlen(k->head) > 10 ? (int)strlen(k->head) : 10; }
/* A stack column holds "cycles (pp.p%)". */
static int stackw(const ccol *k) { return strlen(k->head) > 14 ? (int)strlen(k->head) : 14; }

static double cell(const crow *c, const crow *base, const ccol *k)
{
    if (!k->ratio) return num(c, k->field);
    double a = num(c, k->of), b = num(base, k->of);
    return k->ratio == 1 ? b / a : a / b;
}

/* The second table: each run's cycle stack side by side, cycles and their share of the run's. */
static void print_stacks(const crow *rows, int n, int w, const int *show)
{
    int any = 0;
    for (int k = 0; k < NCOLS; k++) any |= k_cols[k].stack && show[k];
    if (!any) return;
    printf("\ncycle stack: cycles (%% of the run) on the cores with work, bottleneck unit's busy cycles first;\n"
           "each row sums to its cycles; idle cores over the whole chip (docs/reports.md)\n");
    printf("%-*s  %-10s", w, "run", "bottleneck");
    for (int k = 0; k < NCOLS; k++)
        if (k_cols[k].stack && show[k]) printf("  %*s", stackw(&k_cols[k]), k_cols[k].head);
    putchar('\n');
    for (int i = 0; i < n; i++) {
        const crow *c = &rows[i];
        const char *b = col(c, "cycle_stack.bottleneck");
        double cyc = num(c, "cycles");
        printf("%-*s  %-10s", w, c->label, b && *b ? b : "-");
        for (int k = 0; k < NCOLS; k++) {
            if (!k_cols[k].stack || !show[k]) continue;
            double x = num(c, k_cols[k].field);
            char v[64];
            if (isnan(x)) snprintf(v, sizeof v, "-");
            else if (k_cols[k].scale != 1) snprintf(v, sizeof v, k_cols[k].fmt, x * k_cols[k].scale);
            else snprintf(v, sizeof v, "%.0f (%4.1f%%)", x, cyc > 0 ? 100.0 * x / cyc : 0.0);
            printf("  %*s", stackw(&k_cols[k]), v);
        }
        putchar('\n');
    }
}

static void compare_usage(FILE *out)
{
    fputs("usage: lampsim compare [--csv] [--baseline DIR] DIR...\n"
          "  side-by-side table of run directories (or every finished point of a sweep directory), each row\n"
          "  labelled by the configuration keys that differ between the runs; columns (present when the\n"
          "  reports have them): mode, cycles, time (us), speedup (x) and energy (x) against the baseline,\n"
          "  energy (uJ), tensor utilisation (%), disruptive and recompute rates (%), KL mean (nats),\n"
          "  O relative error, area (mm2), average power (W), energy per token (uJ, leakage included),\n"
          "  TFLOP/s per mm2 and per W; then each run's cycle stack side by side (launch, bottleneck busy, stalls by\n"
          "  cause, tail, idle cores; cycles and % of the run) and the share of the last wave's slots used\n"
          "  --baseline DIR  the run the ratios are taken against (default: the first row); listed first\n"
          "  --csv           CSV: label, directory, then the columns (rates as fractions)\n",
          out);
}

/* Appends the rows of one argument: a run directory, or every finished point of a sweep directory
 * (its axis keys are added to axes, malloc'ed). */
static int add_rows(crow **rows, int *n, int *cap, const char *d, char ***axes, int *naxes)
{
    ls_sweep_manifest mf;
    int sweep = !ls_cli_is_file(d, "report.csv") && !ls_sweep_read_manifest(d, &mf);
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
    int missing = 0, first_missing = -1;
    for (int p = 0; p < mf.n; p++) {
        if (ls_cli_is_file(mf.paths[p], "DONE") && !load_row(&(*rows)[*n], mf.paths[p])) (*n)++;
        else if (missing++ == 0) first_missing = p;
    }
    /* a half-finished sweep is compared as far as it got, and says so (as sweep merge does) */
    if (missing)
        fprintf(stderr, "lampsim compare: %s: %d of %d points not finished (failed or not run; the first: point %d), "
                "left out\n", d, missing, mf.n, first_missing);
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

int ls_cli_compare(int argc, char **argv)
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
                ls_sweep_csv_free(rows[k].h, rows[k].n);
                ls_sweep_csv_free(rows[k].r, rows[k].n);
            }
            free(rows);
            return 0;
        }
        if (d[0] == '-') {
            static const char *const known[] = {"--csv", "--baseline", "--help", NULL};
            rc = ls_cli_unknown("lampsim compare", "option", d, known);
            break;
        }
        rc = add_rows(&rows, &n, &cap, d, &axes, &naxes);
    }
    int b = 0; /* the baseline row */
    if (!rc && baseline) {
        if (!ls_cli_is_file(baseline, "report.csv")) {
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
            if (show[k] && (csv || !k_cols[k].stack)) {
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
                if (!show[k] || (!csv && k_cols[k].stack)) continue;
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
        if (!csv) print_stacks(rows, n, w, show);
    }
    for (int i = 0; i < n; i++) {
        free(rows[i].label);
        ls_sweep_csv_free(rows[i].h, rows[i].n);
        ls_sweep_csv_free(rows[i].r, rows[i].n);
    }
    for (int a = 0; a < naxes; a++) free(axes[a]);
    free(axes);
    free(rows);
    return rc;
}
