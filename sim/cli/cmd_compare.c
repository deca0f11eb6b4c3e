/* `lampsim compare DIR...`: a side-by-side table (CSV, JSON) of runs and sweep points against a
 * baseline (docs/sweeps.md). Rows are labelled by their directory; the configuration keys that
 * differ between them get columns of their own, named below the table; a half-finished sweep and
 * workloads that differ are said first. */
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
#include "json.h"
#include "run_progress.h"
#include "suggest.h"
#include "sweep.h"

typedef struct {
    char *dir;                    /* the run directory, as given (malloc'ed) */
    char *label;                  /* the row's name in the table (malloc'ed) */
    char **h, **r;                /* report.csv header and values */
    int n;
    int order;                    /* position before sorting (ties keep it) */
} crow;

/* A sweep directory some of whose points have not finished. */
typedef struct {
    char *dir;
    int total, done;
    int nmiss;
    char **miss; /* "NAME" or "NAME (failed)", malloc'ed */
} cmissing;

static const char *col(const crow *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->h[i], name)) return c->r[i];
    return NULL;
}

/* A column as a number, NAN when absent, empty or not a number. */
static double num(const crow *c, const char *name)
{
    const char *v = col(c, name);
    char *e;
    double x = v && *v ? strtod(v, &e) : NAN;
    return v && *v && e != v && !*e ? x : NAN;
}

static void row_free(crow *c)
{
    free(c->dir);
    free(c->label);
    ls_sweep_csv_free(c->h, c->n);
    ls_sweep_csv_free(c->r, c->n);
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
    if (!(c->dir = strdup(dir))) {
        ls_sweep_csv_free(c->h, nh);
        ls_sweep_csv_free(c->r, nr);
        return -1;
    }
    return 0;
}

/* The columns: report field, header in the table and name in CSV / JSON (each with its one unit),
 * scale for the table, printf format; ratio columns (against the baseline row) have no field. */
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
    {"energy.dynamic_uj", "energy (uJ)", "energy_uj", "%.3f", 1, 0, NULL, 0},
    {NULL, "energy (x)", "energy_x", "%.3f", 1, 2, "energy.dynamic_uj", 0},
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

/* The workload fields whose difference makes ratios unlike (same shape, same data kind). */
static const char *const k_workload_fields[] = {"workload.name", "workload.batch", "workload.heads_q",
                                                "workload.heads_kv", "workload.seq_q", "workload.seq_k",
                                                "workload.dim", "workload.causal", "workload.dtype", NULL};

static double cell_value(const crow *c, const crow *base, const ccol *k)
{
    if (!k->ratio) return num(c, k->field);
    double a = num(c, k->of), b = num(base, k->of);
    return k->ratio == 1 ? b / a : a / b;
}

/* ---- rows ---- */

static int grow(crow **rows, int *cap, int need)
{
    if (need <= *cap) return 0;
    int nc = need * 2;
    crow *nr = realloc(*rows, (size_t)nc * sizeof *nr);
    if (!nr) return -1;
    *rows = nr;
    *cap = nc;
    return 0;
}

/* 1 when a row's report.csv has at least one column the tables show: a CSV with none of them (not a
 * lampsim report) would otherwise be listed, and taken as the ratios' baseline, as a row of blanks. */
static int has_known_column(const crow *c)
{
    for (int k = 0; k < NCOLS; k++)
        for (int i = 0; k_cols[k].field && i < c->n; i++)
            if (!strcmp(c->h[i], k_cols[k].field)) return 1;
    return 0;
}

static int load_checked(crow *c, const char *dir)
{
    if (load_row(c, dir)) {
        fprintf(stderr, "lampsim compare: %s: no readable report.csv (not a run or sweep directory)\n", dir);
        return 2;
    }
    if (!has_known_column(c)) {
        fprintf(stderr, "lampsim compare: %s/report.csv: none of the columns compare shows (cycles, time_us, "
                "energy.dynamic_uj, accuracy.kl_mean, ...): not a lampsim report\n", dir);
        row_free(c);
        return 2;
    }
    return 0;
}

/* Appends the rows of one argument: a run directory, or every finished point of a sweep directory
 * (its axis keys are added to axes, its unfinished points to miss). */
static int add_rows(crow **rows, int *n, int *cap, const char *d, char ***axes, int *naxes, cmissing **miss,
                    int *nmiss)
{
    ls_sweep_manifest mf;
    int sweep = !ls_cli_is_file(d, "report.csv") && !ls_sweep_read_manifest(d, &mf);
    if (!sweep) {
        if (grow(rows, cap, *n + 1)) return 1;
        int lrc = load_checked(&(*rows)[*n], d);
        if (lrc) return lrc;
        (*rows)[*n].order = *n;
        (*n)++;
        return 0;
    }
    int rc = grow(rows, cap, *n + mf.n) ? 1 : 0;
    cmissing m = {strdup(d), mf.n, 0, 0, calloc((size_t)(mf.n ? mf.n : 1), sizeof(char *))};
    if (!m.dir || !m.miss) rc = 1;
    for (int p = 0; p < mf.n && !rc; p++) {
        int done = ls_cli_is_file(mf.paths[p], "DONE");
        if (done && !load_row(&(*rows)[*n], mf.paths[p])) {
            if (!has_known_column(&(*rows)[*n])) {   /* a finished point's report that is not one */
                fprintf(stderr, "lampsim compare: %s/report.csv: none of the columns compare shows: not a lampsim "
                        "report\n", mf.paths[p]);
                row_free(&(*rows)[*n]);
                rc = 2;
                break;
            }
            (*rows)[*n].order = *n;
            (*n)++;
            m.done++;
        } else {
            int failed = ls_cli_is_file(mf.paths[p], "FAILED");
            if (!(m.miss[m.nmiss++] = ls_io_path_fmt("%s%s", mf.names[p], failed ? " (failed)" : ""))) rc = 1;
        }
    }
    if (!rc && m.nmiss) {
        cmissing *nm = realloc(*miss, (size_t)(*nmiss + 1) * sizeof *nm);
        if (!nm) rc = 1;
        else (*miss = nm)[(*nmiss)++] = m;
    }
    if (rc || !m.nmiss) {
        for (int i = 0; i < m.nmiss; i++) free(m.miss[i]);
        free(m.miss);
        free(m.dir);
    }
    char **na = !rc && mf.n ? realloc(*axes, (size_t)(*naxes + mf.naxes + 1) * sizeof *na) : NULL;
    if (na) *axes = na;
    for (int a = 0; na && a < mf.naxes; a++) {
        const char *ov = mf.overrides[0][a], *eq = strchr(ov, '=');
        char *k = strndup(ov, eq ? (size_t)(eq - ov) : strlen(ov));
        if (k) na[(*naxes)++] = k;
    }
    ls_sweep_manifest_free(&mf);
    return rc;
}

/* The last component of a directory path (trailing slashes ignored), malloc'ed. */
static char *base_name(const char *dir)
{
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/') l--;
    size_t s = l;
    while (s > 0 && dir[s - 1] != '/') s--;
    return strndup(dir + s, l - s);
}

/* Labels: each row's directory name when those are unique, else the directory as given. */
static int label_rows(crow *rows, int n)
{
    for (int i = 0; i < n; i++)
        if (!(rows[i].label = base_name(rows[i].dir))) return -1;
    int unique = 1;
    for (int i = 0; i < n && unique; i++)
        for (int j = i + 1; j < n && unique; j++) unique = strcmp(rows[i].label, rows[j].label) != 0;
    for (int i = 0; i < n && !unique; i++) {
        free(rows[i].label);
        if (!(rows[i].label = strdup(rows[i].dir))) return -1;
    }
    return 0;
}

/* ---- the keys that differ ---- */

static int axis_rank(const char *key, char *const *axes, int naxes)
{
    int a = 0;
    while (a < naxes && strcmp(axes[a], key)) a++;
    return a;
}

/* The config.* keys (without "config.") whose values differ between the rows where the row's mode
 * reads them (tau between lamp rows, not against pure_8bit): a sweep's axes first, in its order,
 * then report order. The mode and the register layout have columns of their own. */
static int differing_keys(const crow *rows, int n, char *const *axes, int naxes, const char ***out)
{
    int nk = 0, cap = 16;
    const char **keys = malloc((size_t)cap * sizeof *keys);
    if (!keys) return -1;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < rows[i].n; c++) {
            const char *k = rows[i].h[c];
            if (strncmp(k, "config.", 7) || !strcmp(k, "config.algorithm.mode") ||
                !strcmp(k, "config.accelerator.regfile.layout"))
                continue;
            int seen = 0, differs = 0;
            for (int j = 0; j < nk && !seen; j++) seen = !strcmp(keys[j], k + 7);
            if (seen || !ls_config_key_applies(k, col(&rows[i], "mode"))) continue;
            for (int j = 0; j < n && !differs; j++) { /* rows without the key (a model report) say nothing */
                if (!ls_config_key_applies(k, col(&rows[j], "mode"))) continue;
                const char *v = col(&rows[j], k);
                differs = v && strcmp(v, rows[i].r[c]);
            }
            if (!differs) continue;
            if (nk == cap) {
                const char **nk2 = realloc(keys, (size_t)(cap *= 2) * sizeof *nk2);
                if (!nk2) { free(keys); return -1; }
                keys = nk2;
            }
            int r = axis_rank(k + 7, axes, naxes), at = nk++;
            while (at > 0 && axis_rank(keys[at - 1], axes, naxes) > r) { keys[at] = keys[at - 1]; at--; }
            keys[at] = k + 7;
        }
    *out = keys;
    return nk;
}

/* A row's value of a differing key: "-" where its mode does not read the key; a number with 15
 * significant digits, as a sweep file writes it (the report's 17 show 0.1 as 0.10000000000000001). */
static const char *key_value(const crow *c, const char *key, char *buf, size_t len)
{
    char full[LS_CONFIG_PATH_MAX + 8];
    snprintf(full, sizeof full, "config.%s", key);
    if (!ls_config_key_applies(key, col(c, "mode"))) return "-";
    const char *v = col(c, full);
    if (!v) return "?";
    char *e;
    double x = *v ? strtod(v, &e) : NAN;
    if (*v && !*e && isfinite(x) && strpbrk(v, ".eE")) {
        snprintf(buf, len, "%.15g", x);
        return buf;
    }
    return v;
}

/* The register layout a row ran (the timed model's occupancy.layout), else the configured one. */
static const char *ran_layout(const crow *c, int *differs)
{
    const char *ran = col(c, "occupancy.layout"), *cfg = col(c, "config.accelerator.regfile.layout");
    *differs = ran && *ran && cfg && strcmp(ran, cfg);
    return ran && *ran ? ran : cfg ? cfg : "-";
}

/* ---- columns ---- */

/* A shown column: one of k_cols, or (--columns) any report field as it is. */
typedef struct {
    ccol k;
    int raw; /* a report field not in k_cols: printed as in report.csv */
} scol;

static int find_kcol(const char *name)
{
    for (int k = 0; k < NCOLS; k++)
        if (!strcmp(name, k_cols[k].csv) || (k_cols[k].field && !strcmp(name, k_cols[k].field))) return k;
    return -1;
}

/* "; did you mean 'NAME'?" for an unknown column, or "" (static). */
static const char *column_hint(const char *name)
{
    static char hint[128];
    const char *names[NCOLS + 1];
    for (int j = 0; j < NCOLS; j++) names[j] = k_cols[j].csv;
    names[NCOLS] = NULL;
    const char *near = ls_suggest_nearest(name, names);
    if (near) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    else snprintf(hint, sizeof hint, " (neither a column of --help nor a field of the reports)");
    return hint;
}

static int any_row_has(const crow *rows, int n, const char *field)
{
    for (int i = 0; i < n; i++)
        if (col(&rows[i], field)) return 1;
    return 0;
}

/* --columns a,b,c: k_cols by CSV or field name, or report fields. Returns the count, or -1 (an
 * unknown name, reported). */
static int parse_columns(const char *list, const crow *rows, int n, scol *out, int cap)
{
    int m = 0;
    char *dup = strdup(list), *save = NULL;
    if (!dup) return -1;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!*t || !strcmp(t, "mode") || !strcmp(t, "layout")) continue; /* always shown */
        int k = find_kcol(t);
        if (m == cap) break;
        if (k >= 0) out[m++] = (scol){k_cols[k], 0};
        else if (any_row_has(rows, n, t)) {
            out[m] = (scol){{t, t, t, "%.6g", 1, 0, NULL, 0}, 1};
            out[m].k.field = out[m].k.head = out[m].k.csv = strdup(t);
            m++;
        } else {
            fprintf(stderr, "lampsim compare: --columns: unknown column '%s'%s\n", t, column_hint(t));
            for (int j = 0; j < m; j++)
                if (out[j].raw) free((char *)out[j].k.field);
            free(dup);
            return -1;
        }
    }
    free(dup);
    return m;
}

/* The text of one cell in the table. */
static void cell_text(const crow *c, const crow *base, const scol *s, char *v, size_t len)
{
    if (s->raw) {
        const char *t = col(c, s->k.field);
        double x = num(c, s->k.field);
        if (!isnan(x)) snprintf(v, len, "%.6g", x);
        else snprintf(v, len, "%s", t && *t ? t : "-");
        return;
    }
    double x = cell_value(c, base, &s->k);
    if (isnan(x)) snprintf(v, len, "-");
    else snprintf(v, len, s->k.fmt, x * s->k.scale);
}

static void compare_usage(FILE *out)
{
    fputs("usage: lampsim compare [--csv | --json] [--baseline DIR] [--columns A,B,...] [--sort COL[:desc]] DIR...\n"
          "  side-by-side table of run directories (or every finished point of a sweep directory), each row\n"
          "  labelled by its directory; the configuration keys that differ between the runs follow as\n"
          "  columns (a key the row's mode does not read shows '-'), then the mode and the register layout\n"
          "  the run used ('*': the mode ran its own, not the configured one), then the columns present in\n"
          "  the reports: cycles, time_us, speedup_x and energy_x (against the baseline), energy_uj,\n"
          "  tensor_utilisation, disruptive_rate, recompute_rate, kl_mean_nats, o_rel_fro_err, area_mm2,\n"
          "  power_w, energy_per_token_uj, tflops_per_mm2, tflops_per_w; then each run's cycle stack side by\n"
          "  side (launch, bottleneck busy, stalls by cause, tail, idle cores; cycles and % of the run) and the\n"
          "  share of the last wave's slots used. A sweep with unfinished points is marked INCOMPLETE (with\n"
          "  the missing points) and runs of different workloads are warned about, before the table.\n"
          "  Rates are in % in the table, fractions in --csv and --json (as in report.json).\n"
          "  --baseline DIR  the run the ratios are taken against (default: the first row); listed first\n"
          "  --columns LIST  only these columns, in this order: names above, or any report field\n"
          "                  (e.g. units.lut.utilisation)\n"
          "  --sort COL      rows by this column, ascending (COL:desc descending), the baseline first\n"
          "  --csv           CSV: run, dir, mode, layout, the differing keys (config.*), then the columns\n"
          "  --json          one JSON object: incomplete sweeps, warnings, the differing keys and the rows\n",
          out);
}

typedef struct {
    const crow *rows;
    int n, k; /* the sort column (index into shown) */
    const scol *shown;
    const crow *base;
    int desc;
} sort_ctx;

static sort_ctx g_sort; /* qsort has no context argument in C11 */

static int by_column(const void *pa, const void *pb)
{
    const crow *a = pa, *b = pb;
    const scol *s = &g_sort.shown[g_sort.k];
    double x = s->raw ? num(a, s->k.field) : cell_value(a, g_sort.base, &s->k);
    double y = s->raw ? num(b, s->k.field) : cell_value(b, g_sort.base, &s->k);
    int c;
    if (isnan(x) || isnan(y)) c = isnan(x) - isnan(y); /* no value: last either way */
    else {
        c = (x > y) - (x < y);
        if (g_sort.desc) c = -c;
    }
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* The workload fields that differ between the rows, as "heads_q 4 vs 32, seq_q 128 vs 2048"
 * (malloc'ed), or NULL when they agree. */
static char *workload_difference(const crow *rows, int n)
{
    char *b = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&b, &len);
    if (!m) return NULL;
    int any = 0;
    for (int f = 0; k_workload_fields[f]; f++) {
        const char *first = NULL;
        int differs = 0;
        for (int i = 0; i < n; i++) {
            const char *v = col(&rows[i], k_workload_fields[f]);
            if (!v) continue;
            if (!first) first = v;
            else if (strcmp(first, v)) differs = 1;
        }
        if (!differs) continue;
        fprintf(m, "%s%s ", any++ ? ", " : "", k_workload_fields[f] + 9);
        int shown = 0;
        for (int i = 0; i < n && shown < 4; i++) {
            const char *v = col(&rows[i], k_workload_fields[f]);
            int dup = !v;
            for (int j = 0; j < i && !dup; j++) {
                const char *w = col(&rows[j], k_workload_fields[f]);
                dup = w && !strcmp(w, v);
            }
            if (!dup) fprintf(m, "%s%s", shown++ ? " vs " : "", v);
        }
    }
    fclose(m);
    if (!any) {
        free(b);
        return NULL;
    }
    return b;
}

#define TABLE_MISSING 8 /* missing points named in the banner; the rest are counted */

static void print_incomplete(FILE *out, const cmissing *miss, int nmiss)
{
    for (int s = 0; s < nmiss; s++) {
        const cmissing *m = &miss[s];
        fprintf(out, "INCOMPLETE: sweep %s: %d of %d points finished; missing:", m->dir, m->done, m->total);
        for (int i = 0; i < m->nmiss && i < TABLE_MISSING; i++) fprintf(out, "%s %s", i ? "," : "", m->miss[i]);
        if (m->nmiss > TABLE_MISSING) fprintf(out, " ... and %d more", m->nmiss - TABLE_MISSING);
        fputc('\n', out);
    }
}

static void print_json(const crow *rows, int n, const scol *shown, int ns, const char **keys, int nk,
                       const cmissing *miss, int nmiss, const char *wl)
{
    ls_json j;
    ls_json_init(&j);
    ls_json_begin_object(&j, NULL);
    ls_json_string(&j, "baseline", rows[0].dir);
    ls_json_begin_array(&j, "incomplete");
    for (int s = 0; s < nmiss; s++) {
        ls_json_begin_object(&j, NULL);
        ls_json_string(&j, "sweep", miss[s].dir);
        ls_json_int(&j, "points", miss[s].total);
        ls_json_int(&j, "finished", miss[s].done);
        ls_json_begin_array(&j, "missing");
        for (int i = 0; i < miss[s].nmiss; i++) ls_json_string(&j, NULL, miss[s].miss[i]);
        ls_json_end_array(&j);
        ls_json_end_object(&j);
    }
    ls_json_end_array(&j);
    ls_json_begin_array(&j, "warnings");
    if (wl) {
        char w[2048];
        snprintf(w, sizeof w, "workloads differ (%s): ratios are not like-for-like", wl);
        ls_json_string(&j, NULL, w);
    }
    ls_json_end_array(&j);
    ls_json_begin_array(&j, "keys");
    for (int k = 0; k < nk; k++) ls_json_string(&j, NULL, keys[k]);
    ls_json_end_array(&j);
    ls_json_begin_array(&j, "rows");
    for (int i = 0; i < n; i++) {
        const crow *c = &rows[i];
        int star;
        ls_json_begin_object(&j, NULL);
        ls_json_string(&j, "run", c->label);
        ls_json_string(&j, "dir", c->dir);
        const char *mode = col(c, "mode");
        if (mode) ls_json_string(&j, "mode", mode);
        else ls_json_null(&j, "mode");
        ls_json_string(&j, "layout", ran_layout(c, &star));
        ls_json_begin_object(&j, "keys");
        for (int k = 0; k < nk; k++) {
            char kb[64];
            const char *v = key_value(c, keys[k], kb, sizeof kb);
            if (!strcmp(v, "-")) ls_json_null(&j, keys[k]);
            else ls_json_string(&j, keys[k], v);
        }
        ls_json_end_object(&j);
        for (int s = 0; s < ns; s++) {
            if (shown[s].raw) {
                const char *v = col(c, shown[s].k.field);
                double x = num(c, shown[s].k.field);
                if (!isnan(x)) ls_json_double(&j, shown[s].k.csv, x);
                else if (v && *v) ls_json_string(&j, shown[s].k.csv, v);
                else ls_json_null(&j, shown[s].k.csv);
            } else
                ls_json_double(&j, shown[s].k.csv, cell_value(c, &rows[0], &shown[s].k));
        }
        ls_json_end_object(&j);
    }
    ls_json_end_array(&j);
    ls_json_end_object(&j);
    const char *t = ls_json_text(&j);
    if (t) printf("%s\n", t);
    ls_json_free(&j);
}

static void csv_field(const char *s)
{
    ls_sweep_csv_cell(stdout, s);
}

static void print_csv(const crow *rows, int n, const scol *shown, int ns, const char **keys, int nk)
{
    printf("run,dir,mode,layout");
    for (int k = 0; k < nk; k++) printf(",config.%s", keys[k]);
    for (int s = 0; s < ns; s++) {
        putchar(',');
        csv_field(shown[s].k.csv);
    }
    putchar('\n');
    for (int i = 0; i < n; i++) {
        const crow *c = &rows[i];
        const char *mode = col(c, "mode");
        int star;
        csv_field(c->label);
        putchar(',');
        csv_field(c->dir);
        printf(",%s,", mode ? mode : "");
        csv_field(ran_layout(c, &star));
        for (int k = 0; k < nk; k++) {
            char kb[64];
            const char *v = key_value(c, keys[k], kb, sizeof kb);
            putchar(',');
            if (strcmp(v, "-")) csv_field(v);
        }
        for (int s = 0; s < ns; s++) {
            putchar(',');
            if (shown[s].raw) {
                const char *v = col(c, shown[s].k.field);
                if (v) csv_field(v);
                continue;
            }
            double x = cell_value(c, &rows[0], &shown[s].k);
            if (!isnan(x)) printf("%.17g", x);
        }
        putchar('\n');
    }
}

/* The table: every column as wide as its widest cell, text left-aligned, numbers right-aligned. */
static int print_table(const crow *rows, int n, const scol *shown, int ns, const char **keys, int nk,
                       int stack_table)
{
    int nkc = nk < 4 ? nk : 4; /* differing keys shown as columns; the rest are named below */
    const char *short_keys[64];
    for (int k = 0; k < nkc; k++) short_keys[k] = ls_sweep_short_key(keys[k], keys, nk);
    int ntext = 1 + nkc + 2; /* run, keys, mode, layout */
    int ncol = ntext + ns;
    char **cells = calloc((size_t)(n + 1) * (size_t)ncol, sizeof *cells);
    int *w = calloc((size_t)ncol, sizeof *w);
    if (!cells || !w) {
        free(cells);
        free(w);
        return 1;
    }
    int any_star = 0, any_na = 0, rc = 0;
    cells[0] = strdup("run");
    for (int k = 0; k < nkc; k++) cells[1 + k] = strdup(short_keys[k]);
    cells[1 + nkc] = strdup("mode");
    cells[2 + nkc] = strdup("layout");
    for (int s = 0; s < ns; s++) cells[ntext + s] = strdup(shown[s].k.head);
    for (int i = 0; i < n; i++) {
        const crow *c = &rows[i];
        char **row = cells + (size_t)(i + 1) * ncol;
        const char *mode = col(c, "mode");
        int star;
        const char *lay = ran_layout(c, &star);
        any_star |= star;
        row[0] = strdup(c->label);
        for (int k = 0; k < nkc; k++) {
            char kb[64];
            const char *v = key_value(c, keys[k], kb, sizeof kb);
            any_na |= !strcmp(v, "-");
            row[1 + k] = strdup(v);
        }
        row[1 + nkc] = strdup(mode ? mode : "-");
        row[2 + nkc] = ls_io_path_fmt("%s%s", lay, star ? "*" : "");
        for (int s = 0; s < ns; s++) {
            char v[256];
            cell_text(c, &rows[0], &shown[s], v, sizeof v);
            row[ntext + s] = strdup(v);
        }
    }
    for (int i = 0; i < (n + 1) * ncol; i++)
        if (!cells[i]) rc = 1;
    for (int i = 0; !rc && i <= n; i++)
        for (int c = 0; c < ncol; c++) {
            int l = (int)strlen(cells[(size_t)i * ncol + c]);
            if (l > w[c]) w[c] = l;
        }
    for (int i = 0; !rc && i <= n; i++) {
        for (int c = 0; c < ncol; c++) {
            const char *t = cells[(size_t)i * ncol + c];
            if (c < ntext) printf(c ? "  %-*s" : "%-*s", c == ncol - 1 ? 0 : w[c], t);
            else printf("  %*s", w[c], t);
        }
        putchar('\n');
    }
    if (!rc) {
        printf("ratios against %s (%s)\n", rows[0].label, rows[0].dir);
        if (nk) {
            printf("keys that differ:");
            for (int k = 0; k < nk && k < nkc + 8; k++)
                printf("%s %s%s%s", k ? ";" : "", k < nkc ? short_keys[k] : "", k < nkc ? " = " : "", keys[k]);
            if (nk > nkc + 8) printf(" ... and %d more", nk - nkc - 8);
            if (nk > nkc) printf(" (%d not in the table: --csv or --json has them)", nk - nkc);
            putchar('\n');
        }
        if (any_na) printf("-: the row's mode does not read this key\n");
        if (any_star) printf("*: the mode runs its own register layout, not the configured one\n");
    }
    if (!rc && stack_table) {
        /* each run's cycle stack side by side, cycles and their share of the run's */
        int any = 0;
        for (int k = 0; k < NCOLS; k++) any |= k_cols[k].stack && any_row_has(rows, n, k_cols[k].field);
        if (any) {
            printf("\ncycle stack: cycles (%% of the run) on the cores with work, bottleneck unit's busy cycles first;\n"
                   "each row sums to its cycles; idle cores over the whole chip (docs/reports.md)\n");
            printf("%-*s  %-10s", w[0], "run", "bottleneck");
            for (int k = 0; k < NCOLS; k++)
                if (k_cols[k].stack && any_row_has(rows, n, k_cols[k].field))
                    printf("  %*s", strlen(k_cols[k].head) > 14 ? (int)strlen(k_cols[k].head) : 14, k_cols[k].head);
            putchar('\n');
            for (int i = 0; i < n; i++) {
                const crow *c = &rows[i];
                const char *b = col(c, "cycle_stack.bottleneck");
                double cyc = num(c, "cycles");
                printf("%-*s  %-10s", w[0], c->label, b && *b ? b : "-");
                for (int k = 0; k < NCOLS; k++) {
                    if (!k_cols[k].stack || !any_row_has(rows, n, k_cols[k].field)) continue;
                    double x = num(c, k_cols[k].field);
                    char v[64];
                    if (isnan(x)) snprintf(v, sizeof v, "-");
                    else if (k_cols[k].scale != 1) snprintf(v, sizeof v, k_cols[k].fmt, x * k_cols[k].scale);
                    else snprintf(v, sizeof v, "%.0f (%4.1f%%)", x, cyc > 0 ? 100.0 * x / cyc : 0.0);
                    printf("  %*s", strlen(k_cols[k].head) > 14 ? (int)strlen(k_cols[k].head) : 14, v);
                }
                putchar('\n');
            }
        }
    }
    for (int i = 0; i < (n + 1) * ncol; i++) free(cells[i]);
    free(cells);
    free(w);
    return rc;
}

int ls_cli_compare(int argc, char **argv)
{
    int csv = 0, json = 0, n = 0, cap = 0, rc = 0, nmiss = 0, naxes = 0, nk = 0, ns = 0;
    const char *baseline = NULL, *columns = NULL, *sort = NULL;
    crow *rows = NULL;
    char **axes = NULL;
    cmissing *miss = NULL;
    const char **keys = NULL;
    scol shown[NCOLS + 64];
    char *wl = NULL;
    for (int i = 1; i < argc && !rc; i++) {
        const char *d = argv[i];
        if (!strcmp(d, "--csv")) { csv = 1; continue; }
        if (!strcmp(d, "--json")) { json = 1; continue; }
        if (!strcmp(d, "--baseline") || !strcmp(d, "--columns") || !strcmp(d, "--sort")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lampsim compare: %s needs a value\n", d);
                rc = 2;
            } else if (!strcmp(d, "--baseline")) baseline = argv[++i];
            else if (!strcmp(d, "--columns")) columns = argv[++i];
            else sort = argv[++i];
            continue;
        }
        if (!strcmp(d, "--help") || !strcmp(d, "-h")) {
            compare_usage(stdout);
            goto out;
        }
        if (d[0] == '-') {
            static const char *const known[] = {"--csv", "--json", "--baseline", "--columns", "--sort", "--help", NULL};
            rc = ls_cli_unknown("lampsim compare", "option", d, known);
            break;
        }
        rc = add_rows(&rows, &n, &cap, d, &axes, &naxes, &miss, &nmiss);
    }
    if (!rc && csv && json) {
        fprintf(stderr, "lampsim compare: --csv and --json: one output format at most\n");
        rc = 2;
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
            if (b < 0) rc = add_rows(&rows, &n, &cap, baseline, &axes, &naxes, &miss, &nmiss), b = n - 1;
        }
    }
    if (!rc && n == 0) {
        if (nmiss) print_incomplete(stderr, miss, nmiss);
        compare_usage(stderr);
        rc = 2;
    }
    if (!rc && b > 0) { /* the baseline first */
        crow t = rows[b];
        memmove(rows + 1, rows, (size_t)b * sizeof *rows);
        rows[0] = t;
        for (int i = 0; i < n; i++) rows[i].order = i;
    }
    if (!rc && label_rows(rows, n)) rc = 1;
    if (!rc && (nk = differing_keys(rows, n, axes, naxes, &keys)) < 0) rc = 1, nk = 0;
    int stack_table = !columns;
    if (!rc && columns) {
        if ((ns = parse_columns(columns, rows, n, shown, (int)(sizeof shown / sizeof shown[0]))) < 0) rc = 2, ns = 0;
    } else if (!rc) {
        for (int k = 0; k < NCOLS; k++) {
            if (!any_row_has(rows, n, k_cols[k].ratio ? k_cols[k].of : k_cols[k].field)) continue;
            int has = 0;
            for (int i = 0; i < n && !has; i++) has = !isnan(num(&rows[i], k_cols[k].ratio ? k_cols[k].of : k_cols[k].field));
            if (has && (csv || json || !k_cols[k].stack)) shown[ns++] = (scol){k_cols[k], 0};
        }
    }
    if (!rc && sort) {
        char name[256];
        snprintf(name, sizeof name, "%s", sort);
        char *colon = strrchr(name, ':');
        int desc = 0;
        if (colon && (!strcmp(colon, ":desc") || !strcmp(colon, ":asc"))) desc = !strcmp(colon, ":desc"), *colon = '\0';
        int k = -1;
        for (int s = 0; s < ns && k < 0; s++)
            if (!strcmp(shown[s].k.csv, name) || (shown[s].k.field && !strcmp(shown[s].k.field, name))) k = s;
        if (k < 0 && ns < (int)(sizeof shown / sizeof shown[0])) { /* a column not shown: sort by it all the same */
            int kc = find_kcol(name);
            if (kc >= 0) shown[ns] = (scol){k_cols[kc], 0}, k = ns;
            else if (any_row_has(rows, n, name)) shown[ns] = (scol){{name, name, name, "%.6g", 1, 0, NULL, 0}, 1}, k = ns;
        }
        if (k < 0) {
            fprintf(stderr, "lampsim compare: --sort: unknown column '%s'%s\n", name, column_hint(name));
            rc = 2;
        } else {
            /* the baseline stays first (the ratios' reference); the others in the column's order */
            g_sort = (sort_ctx){rows, n, k, shown, &rows[0], desc};
            if (n > 2) qsort(rows + 1, (size_t)(n - 1), sizeof *rows, by_column);
        }
    }
    if (!rc) {
        wl = workload_difference(rows, n);
        if (json) print_json(rows, n, shown, ns, keys, nk, miss, nmiss, wl);
        else {
            FILE *note = csv ? stderr : stdout; /* the CSV stays a CSV */
            print_incomplete(note, miss, nmiss);
            if (wl) fprintf(note, "WARNING: workloads differ (%s): ratios are not like-for-like\n", wl);
            if (csv) print_csv(rows, n, shown, ns, keys, nk);
            else rc = print_table(rows, n, shown, ns, keys, nk, stack_table);
        }
    }
out:
    for (int s = 0; s < ns; s++)
        if (shown[s].raw && columns) free((char *)shown[s].k.field);
    free(wl);
    free(keys);
    for (int i = 0; i < n; i++) row_free(&rows[i]);
    for (int a = 0; a < naxes; a++) free(axes[a]);
    for (int s = 0; s < nmiss; s++) {
        for (int i = 0; i < miss[s].nmiss; i++) free(miss[s].miss[i]);
        free(miss[s].miss);
        free(miss[s].dir);
    }
    free(miss);
    free(axes);
    free(rows);
    return rc;
}
