/* Merging a sweep directory into one CSV: the manifest gives the points and axes, each finished
 * point's report.csv its columns. Deterministic: rows in manifest order, columns in order of first
 * appearance, cells copied verbatim from the reports. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_dir.h"
#include "sweep.h"

typedef struct {
    char **v;
    int n, cap;
} strv;

static int sv_find(const strv *s, const char *x)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], x)) return i;
    return -1;
}

static int sv_add(strv *s, const char *x)
{
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 32;
        char **nv = realloc(s->v, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n] = strdup(x);
    if (!s->v[s->n]) return -1;
    s->n++;
    return 0;
}

static void sv_free(strv *s)
{
    for (int i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Strips the quotes a manifest value may carry ("text" -> text). */
static void axis_value(const char *v, char *buf, size_t len)
{
    size_t l = strlen(v);
    if (l >= 2 && ((v[0] == '"' && v[l - 1] == '"') || (v[0] == '\'' && v[l - 1] == '\'')))
        snprintf(buf, len, "%.*s", (int)(l - 2), v + 1);
    else snprintf(buf, len, "%s", v);
}

typedef struct {
    int index;
    char id[64];
    char **ov;   /* key=value (tab-split manifest fields) */
    int nov;
    char **hdr, **row;
    int nh;
} mpoint;

/* A point's value of axis key (manifest text, quotes kept), or "". */
static const char *override_of(const mpoint *p, const char *key)
{
    size_t kl = strlen(key);
    for (int k = 0; k < p->nov; k++)
        if (!strncmp(p->ov[k], key, kl) && p->ov[k][kl] == '=') return p->ov[k] + kl + 1;
    return "";
}

/* best.group (the per-axis values, "all" without per axes) and best.winner of every point. */
static int mark_winners(const mpoint *pts, int np, const ls_sweep_objective *ob, char ***groups, char **win)
{
    *groups = calloc((size_t)np + 1, sizeof **groups);
    *win = calloc((size_t)np + 1, 1);
    double *val = malloc(((size_t)np + 1) * sizeof *val);
    if (!*groups || !*win || !val) { free(val); return 1; }
    for (int i = 0; i < np; i++) {
        const mpoint *p = &pts[i];
        char *g = NULL;
        size_t gl = 0;
        FILE *m = open_memstream(&g, &gl);
        if (!m) { free(val); return 1; }
        for (int k = 0; k < ob->nper; k++) fprintf(m, "%s%s=%s", k ? " " : "", ob->per[k], override_of(p, ob->per[k]));
        if (!ob->nper) fputs("all", m);
        if (fclose(m)) { free(g); free(val); return 1; }
        (*groups)[i] = g;
        val[i] = NAN;
        for (int c = 0; p->hdr && c < p->nh; c++) {
            char *e;
            double v = strtod(p->row[c], &e);
            if (!strcmp(p->hdr[c], ob->metric) && e != p->row[c] && !*e && isfinite(v)) val[i] = v;
        }
    }
    ls_sweep_best_pick(np, (const char *const *)*groups, val, ob->maximise, *win);
    free(val);
    return 0;
}

int ls_sweep_merge(const char *dir, FILE *out, FILE *msgs, ls_sweep_merge_stats *st, char *err, size_t errlen)
{
    char *path = ls_io_path_join(dir, "manifest.tsv");
    size_t manlen = 0;
    char *man = path ? ls_sweep_read_file(path, &manlen) : NULL;
    if (!man) {
        free(path);
        snprintf(err, errlen, "%s: no manifest.tsv (not a sweep directory; run `lampsim sweep run` first)", dir);
        return 2;
    }
    /* a damaged or foreign manifest is refused, not read as a sweep of 0 points */
    if (ls_sweep_check_manifest(man, manlen, path, err, errlen)) {
        free(man);
        free(path);
        return 2;
    }
    memset(st, 0, sizeof *st);
    strv axes = {0}, cols = {0};
    mpoint *pts = NULL;
    ls_sweep_manifest mf = {0};
    int np = 0, cap = 0, rc = 0;
    char schema[64] = "", schema_id[64] = "", git[128] = "", git_id[64] = "";
    int git_mixed = 0;
    ls_sweep_objective ob = {0};
    char **groups = NULL, *win = NULL;
    /* manifest lines */
    for (char *line = man, *nl; *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl) *nl++ = '\0';
        else nl = line + strlen(line);
        if (!*line || *line == '#') continue;
        if (np == cap) {
            cap = cap ? 2 * cap : 64;
            mpoint *n2 = realloc(pts, (size_t)cap * sizeof *n2);
            if (!n2) { rc = 1; goto out; }
            pts = n2;
        }
        mpoint *p = &pts[np];
        memset(p, 0, sizeof *p);
        np++;
        char *save = NULL, *tok = strtok_r(line, "\t", &save);
        char *end = NULL;
        p->index = tok ? (int)strtol(tok, &end, 10) : -1;
        tok = strtok_r(NULL, "\t", &save);
        /* an id is LS_SWEEP_ID_LEN hex digits: it is written into the CSV as it is */
        size_t idl = tok ? strspn(tok, "0123456789abcdef") : 0;
        if (!tok || !end || *end || idl != LS_SWEEP_ID_LEN || tok[idl]) {
            snprintf(err, errlen, "%s: line %d: malformed manifest line", path, np);
            rc = 2;
            goto out;
        }
        snprintf(p->id, sizeof p->id, "%s", tok);
        while ((tok = strtok_r(NULL, "\t", &save))) {
            char **nv = realloc(p->ov, (size_t)(p->nov + 1) * sizeof *nv);
            if (!nv) { rc = 1; goto out; }
            p->ov = nv;
            p->ov[p->nov++] = tok;
            char *eq = strchr(tok, '=');
            if (!eq) {
                snprintf(err, errlen, "%s: line %d: malformed override '%s'", path, np, tok);
                rc = 2;
                goto out;
            }
            *eq = '\0';
            if (sv_find(&axes, tok) < 0 && sv_add(&axes, tok)) { rc = 1; goto out; }
            *eq = '=';
        }
    }
    st->total = np;
    /* the points' directories (named by their axis values) */
    if (ls_sweep_read_manifest(dir, &mf) || mf.n != np) {
        snprintf(err, errlen, "%s: malformed manifest (or out of memory)", path);
        rc = 2;
        goto out;
    }
    /* reports */
    for (int i = 0; i < np; i++) {
        mpoint *p = &pts[i];
        struct stat sb;
        char *pf = ls_io_path_join(mf.paths[i], "DONE");
        if (!pf) { rc = 1; goto out; }
        int done = stat(pf, &sb) == 0;
        free(pf);
        if (!done) {
            pf = ls_io_path_join(mf.paths[i], "FAILED");
            char *why = pf ? ls_sweep_read_file(pf, NULL) : NULL;
            free(pf);
            if (why) {
                size_t l = strlen(why);
                while (l && why[l - 1] == '\n') why[--l] = '\0';
                if (msgs) fprintf(msgs, "merge: point %d %s failed: %s\n", p->index, p->id, why);
                st->failed++;
                free(why);
            } else {
                if (msgs) fprintf(msgs, "merge: point %d %s missing (not run or not finished)\n", p->index, p->id);
                st->missing++;
            }
            continue;
        }
        pf = ls_io_path_join(mf.paths[i], "report.csv");
        char *csv = pf ? ls_sweep_read_file(pf, NULL) : NULL;
        free(pf);
        size_t pos = 0;
        int nh = csv ? ls_sweep_csv_record(csv, &pos, &p->hdr) : -1;
        int nr = nh > 0 ? ls_sweep_csv_record(csv, &pos, &p->row) : -1;
        free(csv);
        if (nh <= 0 || nr != nh) {
            if (msgs) fprintf(msgs, "merge: point %d %s: unreadable report.csv; counted as failed\n", p->index, p->id);
            ls_sweep_csv_free(p->hdr, nh > 0 ? nh : 0);
            ls_sweep_csv_free(p->row, nr > 0 ? nr : 0);
            p->hdr = p->row = NULL;
            st->failed++;
            continue;
        }
        p->nh = nh;
        for (int c = 0; c < nh; c++) {
            if (!strcmp(p->hdr[c], "schema_version")) {
                if (!schema[0]) {
                    snprintf(schema, sizeof schema, "%s", p->row[c]);
                    snprintf(schema_id, sizeof schema_id, "%s", p->id);
                } else if (strcmp(schema, p->row[c])) {
                    snprintf(err, errlen,
                             "%s: mixed report schema versions: point %s has schema_version %s, point %s has %s; "
                             "re-run the older points with one lampsim version",
                             dir, schema_id, schema, p->id, p->row[c]);
                    rc = 2;
                    goto out;
                }
            } else if (!strcmp(p->hdr[c], "lampsim.git")) {
                if (!git[0]) {
                    snprintf(git, sizeof git, "%s", p->row[c]);
                    snprintf(git_id, sizeof git_id, "%s", p->id);
                } else if (strcmp(git, p->row[c]) && !git_mixed++ && msgs)
                    fprintf(msgs, "merge: note: points come from different lampsim builds (git %s at %s, %s at %s)\n", git,
                            git_id, p->row[c], p->id);
            }
            if (sv_find(&cols, p->hdr[c]) < 0 && sv_add(&cols, p->hdr[c])) { rc = 1; goto out; }
        }
        if (!schema[0]) {
            snprintf(err, errlen, "%s: point %s: report.csv has no schema_version column", dir, p->id);
            rc = 2;
            goto out;
        }
        st->done++;
    }
    /* the objective's winners (a sweep with best:) */
    if ((rc = ls_sweep_objective_read(dir, &ob, err, errlen))) goto out;
    /* a damaged objective must not come out as "no winner anywhere" */
    for (int k = 0; ob.set && k < ob.nper; k++)
        if (sv_find(&axes, ob.per[k]) < 0) {
            snprintf(err, errlen, "%s/objective.tsv: per key '%s' is not an axis of manifest.tsv (a damaged or foreign "
                     "objective file; rerun `lampsim sweep run` to rewrite it)", dir, ob.per[k]);
            rc = 2;
            goto out;
        }
    if (ob.set && st->done && sv_find(&cols, ob.metric) < 0) {
        snprintf(err, errlen, "%s/objective.tsv: metric '%s' is in none of the %d finished reports (points that ran "
                 "the golden engine have no cycles; a damaged objective file?)", dir, ob.metric, st->done);
        rc = 2;
        goto out;
    }
    if (ob.set && (rc = mark_winners(pts, np, &ob, &groups, &win))) goto out;
    if (ob.set && msgs && ob.ninfeasible)
        fprintf(msgs, "merge: %d infeasible point%s skipped by the objective (listed in objective.tsv)\n", ob.ninfeasible,
                ob.ninfeasible == 1 ? "" : "s");
    /* header */
    for (int a = 0; a < axes.n; a++) { ls_sweep_csv_cell(out, axes.v[a]); fputc(',', out); }
    fputs("point.index,point.id", out);
    for (int c = 0; c < cols.n; c++) { fputc(',', out); ls_sweep_csv_cell(out, cols.v[c]); }
    if (ob.set) fputs(",best.group,best.winner", out);
    fputc('\n', out);
    for (int i = 0; i < np; i++) {
        mpoint *p = &pts[i];
        if (!p->hdr) continue;
        for (int a = 0; a < axes.n; a++) {
            const char *v = override_of(p, axes.v[a]);
            char *buf = strdup(v);
            if (!buf) { rc = 1; goto out; }
            axis_value(v, buf, strlen(v) + 1);
            ls_sweep_csv_cell(out, buf);
            free(buf);
            fputc(',', out);
        }
        fprintf(out, "%d,%s", p->index, p->id);
        for (int c = 0; c < cols.n; c++) {
            fputc(',', out);
            int k = 0;
            while (k < p->nh && strcmp(p->hdr[k], cols.v[c])) k++;
            if (k < p->nh) ls_sweep_csv_cell(out, p->row[k]);
        }
        if (ob.set) {
            fputc(',', out);
            ls_sweep_csv_cell(out, groups[i]);
            fprintf(out, ",%d", win[i]);
        }
        fputc('\n', out);
    }
    if (msgs && (st->failed || st->missing))
        fprintf(msgs, "merge: %d of %d points merged, %d failed, %d missing\n", st->done, st->total, st->failed,
                st->missing);
out:
    if (groups)
        for (int i = 0; i < np; i++) free(groups[i]);
    free(groups);
    free(win);
    ls_sweep_objective_free(&ob);
    for (int i = 0; i < np; i++) {
        free(pts[i].ov);
        ls_sweep_csv_free(pts[i].hdr, pts[i].nh);
        ls_sweep_csv_free(pts[i].row, pts[i].nh);
    }
    free(pts);
    ls_sweep_manifest_free(&mf);
    sv_free(&axes);
    sv_free(&cols);
    free(man);
    free(path);
    if (rc == 1) snprintf(err, errlen, "out of memory");
    return rc;
}
