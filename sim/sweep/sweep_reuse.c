/* sim/sweep/sweep_reuse.c — a point's files, and reuse of a finished point's report by a point
 * with the same cache key (see sweep_reuse.h). */
#define _GNU_SOURCE /* open_memstream, strdup */
#include "sweep_reuse.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_dir.h"
#include "atomic_file.h"
#include "fields.h"
#include "json.h"
#include "report.h"
#include "run.h"
#include "sweep.h"

/* The text of dir/name (malloc'ed), or NULL. */
char *ls_sweep_read_in(const char *dir, const char *name)
{
    char *p = ls_io_path_join(dir, name);
    char *t = p ? ls_sweep_read_file(p, NULL) : NULL;
    free(p);
    return t;
}

int ls_sweep_write_in(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
    char *p = ls_io_path_join(dir, name);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = ls_atomic_file_write(p, text, strlen(text), err, errlen);
    free(p);
    return rc;
}

/* Top-level sections that depend only on the numerics-relevant keys (ls_sweep_cache_key). Any
 * other section in a report (for instance timing figures from the timed model) makes the report
 * ineligible for reuse, and the point is run in full. */
static const char *const k_reusable[] = {"schema_version", "lampsim", "seed", "mode", "model", "workload",
                                         "numerics", "tiles", "recompute", "accuracy", "events", "config", NULL};

static bool reusable_name(const char *name, size_t len)
{
    for (int i = 0; k_reusable[i]; i++)
        if (strlen(k_reusable[i]) == len && !strncmp(k_reusable[i], name, len)) return true;
    return false;
}

static bool reusable_column(const char *col)
{
    const char *dot = strchr(col, '.');
    return reusable_name(col, dot ? (size_t)(dot - col) : strlen(col));
}

/* Skips one JSON value starting at t[i] (after whitespace); returns the index after it, or 0. */
static size_t json_skip_ws(const char *t, size_t i)
{
    while (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t') i++;
    return i;
}

static size_t json_skip_value(const char *t, size_t i)
{
    i = json_skip_ws(t, i);
    int depth = 0;
    do {
        char c = t[i];
        if (!c) return 0;
        if (c == '"') {
            for (i++; t[i] && t[i] != '"'; i++)
                if (t[i] == '\\' && t[i + 1]) i++;
            if (!t[i]) return 0;
            i++;
        } else if (c == '{' || c == '[') { depth++; i++; }
        else if (c == '}' || c == ']') { depth--; i++; }
        else if (depth == 0) {
            while (t[i] && !strchr(",}] \n\r\t", t[i])) i++;
        } else i++;
    } while (depth > 0);
    return i;
}

/* Walks the top-level object: checks every key is reusable and finds the span of "config"'s
 * value. Returns 0 when eligible. */
static int json_config_span(const char *t, size_t *s, size_t *e)
{
    size_t i = json_skip_ws(t, 0);
    if (t[i] != '{') return -1;
    i++;
    *s = *e = 0;
    for (;;) {
        i = json_skip_ws(t, i);
        if (t[i] == '}') break;
        if (t[i] != '"') return -1;
        size_t k0 = i + 1;
        size_t k1 = json_skip_value(t, i);
        if (!k1) return -1;
        size_t klen = k1 - 1 - k0;
        if (!reusable_name(t + k0, klen)) return -1;
        i = json_skip_ws(t, k1);
        if (t[i] != ':') return -1;
        size_t v0 = json_skip_ws(t, i + 1), v1 = json_skip_value(t, v0);
        if (!v1) return -1;
        if (klen == 6 && !strncmp(t + k0, "config", 6)) { *s = v0; *e = v1; }
        i = json_skip_ws(t, v1);
        if (t[i] == ',') i++;
    }
    return *e ? 0 : -1;
}

/* Builds the report of cfg from a finished point's report with the same cache key: every
 * section but config is taken as is, config is cfg's own. Returns 0, or -1 when not eligible. */
static int reuse_report(const ls_config *cfg, const char *src_dir, char **json_out, char **csv_out)
{
    char *sj = NULL, *sc = NULL, *tj = NULL, *nj = NULL, *nc = NULL;
    char **sh = NULL, **sr = NULL, **th = NULL, **tr = NULL;
    int nsh = 0, nsr = 0, nth = 0, ntr = 0, rc = -1;
    ls_fields cf;
    ls_json j;
    ls_fields_init(&cf);
    ls_json_init(&j);
    sj = ls_sweep_read_in(src_dir, "report.json");
    sc = ls_sweep_read_in(src_dir, "report.csv");
    if (!sj || !sc) goto out;
    ls_report_config_fields(&cf, cfg);
    ls_fields_to_json(&cf, &j);
    char *tcsv = ls_fields_to_csv(&cf);
    const char *tjt = ls_json_text(&j);
    if (!tcsv || !tjt) { free(tcsv); goto out; }
    tj = strdup(tjt);
    size_t pos = 0;
    nth = ls_sweep_csv_record(tcsv, &pos, &th);
    ntr = ls_sweep_csv_record(tcsv, &pos, &tr);
    free(tcsv);
    pos = 0;
    nsh = ls_sweep_csv_record(sc, &pos, &sh);
    nsr = ls_sweep_csv_record(sc, &pos, &sr);
    if (!tj || nth <= 0 || nth != ntr || nsh <= 0 || nsh != nsr) goto out;
    /* JSON: splice the config object */
    size_t s0, s1, t0, t1;
    if (json_config_span(sj, &s0, &s1) || json_config_span(tj, &t0, &t1)) goto out;
    size_t ls = strlen(sj), lt = t1 - t0;
    nj = malloc(ls - (s1 - s0) + lt + 1);
    if (!nj) goto out;
    memcpy(nj, sj, s0);
    memcpy(nj + s0, tj + t0, lt);
    memcpy(nj + s0 + lt, sj + s1, ls - s1 + 1);
    /* CSV: same columns; config.* values replaced by cfg's, every other column reusable */
    int nconf = 0;
    for (int c = 0; c < nsh; c++) {
        if (!reusable_column(sh[c])) goto out;
        if (!strncmp(sh[c], "config.", 7)) {
            int k = 0;
            while (k < nth && strcmp(th[k], sh[c])) k++;
            if (k == nth) goto out;
            free(sr[c]);
            sr[c] = strdup(tr[k]);
            if (!sr[c]) goto out;
            nconf++;
        }
    }
    if (nconf != nth) goto out;
    size_t clen = 0;
    FILE *m = open_memstream(&nc, &clen);
    if (!m) goto out;
    for (int c = 0; c < nsh; c++) { if (c) fputc(',', m); ls_sweep_csv_cell(m, sh[c]); }
    fputc('\n', m);
    for (int c = 0; c < nsr; c++) { if (c) fputc(',', m); ls_sweep_csv_cell(m, sr[c]); }
    fputc('\n', m);
    if (fclose(m)) goto out;
    *json_out = nj;
    *csv_out = nc;
    nj = nc = NULL;
    rc = 0;
out:
    free(sj); free(sc); free(tj); free(nj); free(nc);
    ls_sweep_csv_free(sh, nsh > 0 ? nsh : 0);
    ls_sweep_csv_free(sr, nsr > 0 ? nsr : 0);
    ls_sweep_csv_free(th, nth > 0 ? nth : 0);
    ls_sweep_csv_free(tr, ntr > 0 ? ntr : 0);
    ls_fields_free(&cf);
    ls_json_free(&j);
    return rc;
}

static char *run_info(const ls_config *cfg, const char *reused_from, double wall)
{
    ls_json j;
    ls_json_init(&j);
    ls_run_info_begin(&j, cfg, cfg->algorithm.threads);
    ls_json_double(&j, "wall_seconds", wall);
    ls_json_string(&j, "reused_from", reused_from);
    ls_json_end_object(&j);
    const char *t = ls_json_text(&j);
    char *out = t ? strdup(t) : NULL;
    ls_json_free(&j);
    return out;
}

/* Writes point dir from src_dir's numerics. Returns 0, -1 when not eligible, 1 on I/O error. */
int ls_sweep_reuse_point(const ls_config *cfg, const char *dir, const char *src_dir, const char *src_id, char *err,
                         size_t errlen)
{
    char *json = NULL, *csv = NULL, *info = NULL;
    double t0 = ls_run_progress_now();
    if (reuse_report(cfg, src_dir, &json, &csv)) return -1;
    int rc = 1;
    char *p = ls_io_path_join(dir, "config.resolved.yaml");
    int wrc = p ? ls_config_write_resolved_file(cfg, p, err, errlen) : -1;
    free(p);
    if (wrc) goto out;
    info = run_info(cfg, src_id, ls_run_progress_now() - t0);
    if (!info) goto out;
    if (ls_sweep_write_in(dir, "report.csv", csv, err, errlen) || ls_sweep_write_in(dir, "run_info.json", info, err, errlen) ||
        ls_sweep_write_in(dir, "report.json", json, err, errlen))
        goto out;
    rc = 0;
out:
    free(json);
    free(csv);
    free(info);
    return rc;
}

