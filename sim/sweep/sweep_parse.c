/* Sweep files: parsing (libyaml through sim/config's position-keeping tree), value ranges, grid
 * and zip expansion, per-point configuration loading and checking, ids and cache keys. */
#define _POSIX_C_SOURCE 200809L /* open_memstream, strdup */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "fields.h"
#include "lampsim_version.h"
#include "report_config.h"
#include "sweep.h"
#include "yamltree.h"

/* ---------------- small helpers ---------------- */

typedef struct {
    const char *file;
    char *err;
    size_t errlen;
} perr;

static int fail_at(perr *pe, int line, int col, const char *key, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (key && *key) snprintf(pe->err, pe->errlen, "%s:%d:%d: %s: %s", pe->file, line, col, key, what);
    else snprintf(pe->err, pe->errlen, "%s:%d:%d: %s", pe->file, line, col, what);
    return 2;
}

static const char *kind_name(const ls_yamltree_node *n)
{
    switch (n->kind) {
    case LS_YAMLTREE_NULL: return "null";
    case LS_YAMLTREE_SCALAR: return "scalar";
    case LS_YAMLTREE_MAP: return "mapping";
    default: return "sequence";
    }
}

char *ls_sweep_read_file(const char *path, size_t *len)
{
    return ls_sweep_read_file_max(path, len, SIZE_MAX - 1);
}

char *ls_sweep_read_file_max(const char *path, size_t *len, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n > max) {   /* stop at the limit: /dev/zero or a huge file is never read whole */
            free(buf);
            fclose(f);
            errno = EFBIG;
            return NULL;
        }
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    if (buf && ferror(f)) { free(buf); buf = NULL; }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

static void dir_of(const char *path, char *out, size_t len)
{
    const char *s = strrchr(path, '/');
    if (!s) snprintf(out, len, ".");
    else if (s == path) snprintf(out, len, "/");
    else snprintf(out, len, "%.*s", (int)(s - path), path);
}

/* 64-bit FNV-1a with a final avalanche (splitmix64), as 16 hex digits. */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void hash_hex(const char *text, size_t n, char out[LS_SWEEP_ID_LEN + 1])
{
    static const char ver[] = "\nlampsim " LAMPSIM_VERSION "\n";
    uint64_t h = fnv1a(0xcbf29ce484222325ull, text, n);
    h = fnv1a(h, ver, sizeof ver - 1);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    snprintf(out, LS_SWEEP_ID_LEN + 1, "%016llx", (unsigned long long)h);
}

/* ---------------- ids and cache keys ---------------- */

void ls_sweep_config_id(const ls_config *cfg, char out[LS_SWEEP_ID_LEN + 1])
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) { snprintf(out, LS_SWEEP_ID_LEN + 1, "%016x", 0); return; }
    ls_config_write_resolved(cfg, m);
    fclose(m);
    /* drop comment lines (they name the source file) and the version line (it carries the git
     * revision); the release version is hashed in by hash_hex */
    size_t w = 0;
    for (size_t r = 0; r < len;) {
        size_t e = r;
        while (e < len && text[e] != '\n') e++;
        if (e < len) e++;
        if (text[r] != '#' && strncmp(text + r, "version:", 8)) {
            memmove(text + w, text + r, e - r);
            w += e - r;
        }
        r = e;
    }
    hash_hex(text, w, out);
    free(text);
}

bool ls_sweep_key_is_numeric(const char *key)
{
    if (!strcmp(key, "seed")) return true;
    if (!strncmp(key, "workload.", 9)) return true;
    if (!strncmp(key, "algorithm.", 10)) return strcmp(key, "algorithm.threads") != 0;
    /* which model runs (timed or golden), the microprogram it runs, and whether it computes
     * numerics at all (a timing-only point must never share numerics with a full one) */
    return !strcmp(key, "timed.enabled") || !strcmp(key, "timed.program") || !strcmp(key, "timed.timing_only");
}

void ls_sweep_cache_key(const ls_config *cfg, char out[LS_SWEEP_ID_LEN + 1])
{
    ls_fields all, num;
    ls_fields_init(&all);
    ls_fields_init(&num);
    ls_report_config_fields(&all, cfg);
    for (size_t i = 0; i < all.n; i++) {
        const ls_fields_item *f = &all.f[i];
        if (!ls_sweep_key_is_numeric(f->name + 7)) continue; /* after "config." */
        switch (f->type) {
        case LS_FIELDS_DOUBLE: ls_fields_double(&num, f->name, f->d); break;
        case LS_FIELDS_INT: ls_fields_int(&num, f->name, f->i); break;
        case LS_FIELDS_UINT: ls_fields_uint(&num, f->name, f->u); break;
        case LS_FIELDS_BOOL: ls_fields_bool(&num, f->name, f->b); break;
        case LS_FIELDS_STRING: ls_fields_string(&num, f->name, f->s); break;
        case LS_FIELDS_UINT_ARRAY: ls_fields_uint_array(&num, f->name, f->arr, f->n); break;
        }
    }
    char *csv = ls_fields_to_csv(&num);
    hash_hex(csv ? csv : "", csv ? strlen(csv) : 0, out);
    free(csv);
    ls_fields_free(&all);
    ls_fields_free(&num);
}

/* ---------------- values ---------------- */

/* A range endpoint: a number, or "a^b" (e.g. 2^-5). */
static int parse_number(const char *t, double *v)
{
    char *end;
    errno = 0;
    double a = strtod(t, &end);
    if (end == t) return -1;
    while (*end == ' ') end++;
    if (*end == '^') {
        const char *q = end + 1;
        while (*q == ' ') q++;
        double b = strtod(q, &end);
        if (end == q) return -1;
        a = pow(a, b);
        while (*end == ' ') end++;
    }
    if (*end || !isfinite(a)) return -1;
    *v = a;
    return 0;
}

static void fmt_value(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.15g", v);
    if (!strcmp(buf, "-0")) snprintf(buf, len, "0");
}

typedef struct {
    int n, cap;
    char **v;
    int *line, *col;
} vlist;

static int vl_add(vlist *l, const char *text, int quoted, int line, int col)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 8;
        char **nv = realloc(l->v, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        l->v = nv;
        int *nl = realloc(l->line, (size_t)nc * sizeof *nl);
        if (!nl) return -1;
        l->line = nl;
        int *ncl = realloc(l->col, (size_t)nc * sizeof *ncl);
        if (!ncl) return -1;
        l->col = ncl;
        l->cap = nc;
    }
    size_t tl = strlen(text);
    char *s = malloc(tl + 3);
    if (!s) return -1;
    if (quoted) snprintf(s, tl + 3, "\"%s\"", text);
    else memcpy(s, text, tl + 1);
    l->v[l->n] = s;
    l->line[l->n] = line;
    l->col[l->n] = col;
    l->n++;
    return 0;
}

static void vl_free(vlist *l)
{
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    free(l->line);
    free(l->col);
    memset(l, 0, sizeof *l);
}

static int scalar_value(perr *pe, const char *key, const ls_yamltree_node *n, vlist *out)
{
    if (n->kind == LS_YAMLTREE_NULL) return vl_add(out, "", 0, n->line, n->col) ? 1 : 0;
    if (n->kind != LS_YAMLTREE_SCALAR)
        return fail_at(pe, n->line, n->col, key, "expected a scalar value, got a %s", kind_name(n));
    if (strchr(n->text, '\t') || strchr(n->text, '\n'))
        return fail_at(pe, n->line, n->col, key, "values cannot contain tabs or line breaks");
    return vl_add(out, n->text, n->quoted, n->line, n->col) ? 1 : 0;
}

/* A range {lin|geom: [a, b], points: n}. */
static int range_values(perr *pe, const char *key, const ls_yamltree_node *m, vlist *out)
{
    const ls_yamltree_node *kind = NULL, *pts = NULL;
    int geom = 0;
    for (int i = 0; i + 1 < m->n; i += 2) {
        const ls_yamltree_node *k = m->kids[i], *v = m->kids[i + 1];
        if (k->kind != LS_YAMLTREE_SCALAR) return fail_at(pe, k->line, k->col, key, "range keys are lin, geom and points");
        if (!strcmp(k->text, "lin") || !strcmp(k->text, "geom")) {
            if (kind) return fail_at(pe, k->line, k->col, key, "a range is either lin or geom, not both");
            kind = v;
            geom = k->text[0] == 'g';
        } else if (!strcmp(k->text, "points")) pts = v;
        else
            return fail_at(pe, k->line, k->col, key, "unknown range key '%s' (expected lin, geom or points)", k->text);
    }
    if (!kind) return fail_at(pe, m->line, m->col, key, "a range needs lin: [a, b] or geom: [a, b]");
    if (!pts) return fail_at(pe, m->line, m->col, key, "a range needs points: N");
    if (kind->kind != LS_YAMLTREE_SEQ || kind->n != 2)
        return fail_at(pe, kind->line, kind->col, key, "expected a range [start, end] of two numbers");
    double ab[2];
    for (int i = 0; i < 2; i++) {
        const ls_yamltree_node *e = kind->kids[i];
        if (e->kind != LS_YAMLTREE_SCALAR || parse_number(e->text, &ab[i]))
            return fail_at(pe, e->line, e->col, key, "expected a number (or a^b such as 2^-5), got '%s'",
                           e->kind == LS_YAMLTREE_SCALAR ? e->text : kind_name(e));
    }
    char *end;
    long np = pts->kind == LS_YAMLTREE_SCALAR ? strtol(pts->text, &end, 10) : 0;
    if (pts->kind != LS_YAMLTREE_SCALAR || *end || end == pts->text || np < 1 || np > LS_SWEEP_MAX_POINTS)
        return fail_at(pe, pts->line, pts->col, key, "points: expected an integer in [1, %d]", LS_SWEEP_MAX_POINTS);
    if (geom && (ab[0] == 0 || ab[1] == 0 || (ab[0] < 0) != (ab[1] < 0)))
        return fail_at(pe, kind->line, kind->col, key, "a geometric range needs two non-zero numbers of the same sign");
    if (np == 1 && ab[0] != ab[1])
        return fail_at(pe, pts->line, pts->col, key, "one point cannot span [%g, %g]; use points >= 2", ab[0], ab[1]);
    for (long i = 0; i < np; i++) {
        double t = np > 1 ? (double)i / (double)(np - 1) : 0.0;
        double v = i == 0 ? ab[0] : i == np - 1 ? ab[1] : geom ? ab[0] * pow(ab[1] / ab[0], t) : ab[0] + (ab[1] - ab[0]) * t;
        char buf[64];
        fmt_value(v, buf, sizeof buf);
        if (vl_add(out, buf, 0, kind->line, kind->col)) return 1;
    }
    return 0;
}

static int axis_values(perr *pe, const char *key, const ls_yamltree_node *v, vlist *out)
{
    int rc = 0;
    if (v->kind == LS_YAMLTREE_SEQ) {
        if (v->n == 0) return fail_at(pe, v->line, v->col, key, "an axis needs at least one value");
        for (int i = 0; !rc && i < v->n; i++) rc = scalar_value(pe, key, v->kids[i], out);
    } else if (v->kind == LS_YAMLTREE_MAP) rc = range_values(pe, key, v, out);
    else rc = scalar_value(pe, key, v, out);
    return rc;
}

/* ---------------- the sweep file ---------------- */

static int check_axis_key(perr *pe, const ls_sweep *sw, const ls_yamltree_node *k)
{
    if (k->kind != LS_YAMLTREE_SCALAR) return fail_at(pe, k->line, k->col, NULL, "axis keys must be configuration keys");
    if (!ls_config_schema_find(k->text)) {
        char sug[256];
        if (ls_config_suggest(k->text, sug, sizeof sug))
            return fail_at(pe, k->line, k->col, k->text, "unknown configuration key; did you mean '%s'?", sug);
        return fail_at(pe, k->line, k->col, k->text, "unknown configuration key (`lampsim config --explain` lists them)");
    }
    if (!strcmp(k->text, "workload.file") || !strcmp(k->text, "version"))
        return fail_at(pe, k->line, k->col, k->text, "cannot be a sweep axis (sweep the workload's keys instead)");
    for (int i = 0; i < sw->naxes; i++)
        if (!strcmp(sw->axes[i].key, k->text))
            return fail_at(pe, k->line, k->col, k->text, "axis given twice (first at line %d)", sw->axes[i].line[0]);
    return 0;
}

static int add_axis(perr *pe, ls_sweep *sw, const ls_yamltree_node *k, const ls_yamltree_node *v, int dim, int *len)
{
    int rc = check_axis_key(pe, sw, k);
    if (rc) return rc;
    vlist l = {0};
    rc = axis_values(pe, k->text, v, &l);
    if (rc) { vl_free(&l); return rc; }
    ls_sweep_axis *na = realloc(sw->axes, (size_t)(sw->naxes + 1) * sizeof *na);
    if (!na) { vl_free(&l); return 1; }
    sw->axes = na;
    ls_sweep_axis *a = &sw->axes[sw->naxes++];
    a->key = strdup(k->text);
    a->n = l.n;
    a->values = l.v;
    a->line = l.line;
    a->col = l.col;
    a->dim = dim;
    if (!a->key) return 1;
    if (*len >= 0 && *len != l.n)
        return fail_at(pe, v->line, v->col, k->text, "zipped axes need lists of the same length (%d values here, %d before)",
                       l.n, *len);
    *len = l.n;
    return 0;
}

/* Converts (line, col) (1-based, col in characters) to a byte offset in text. */
static size_t offset_of(const char *text, size_t len, int line, int col)
{
    size_t o = 0;
    for (int l = 1; l < line && o < len; o++)
        if (text[o] == '\n') l++;
    for (int c = 1; c < col && o < len && text[o] != '\n'; c++) {
        o++;
        while (o < len && ((unsigned char)text[o] & 0xC0) == 0x80) o++;
    }
    return o;
}

/* An inline base mapping: the sweep file with everything outside the base's value blanked, so
 * the configuration loader reports lines and columns of the sweep file itself. */
static int inline_base(ls_sweep *sw, const char *text, size_t len, const ls_yamltree_doc *doc, int bi)
{
    const ls_yamltree_node *v = doc->root->kids[bi + 1];
    size_t s = offset_of(text, len, v->line, v->col), e = len;
    if (bi + 2 < doc->root->n) {
        const ls_yamltree_node *nk = doc->root->kids[bi + 2];
        e = offset_of(text, len, nk->line, 1);
    }
    sw->base_text = malloc(len + 1);
    if (!sw->base_text) return 1;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        sw->base_text[i] = (i < s || i >= e) && c != '\n' ? ' ' : c;
    }
    /* a document end marker after the base would end the mapping early: blank such lines too */
    for (size_t i = s; i < e; i++)
        if ((i == 0 || text[i - 1] == '\n') && (!strncmp(text + i, "...", 3) || !strncmp(text + i, "---", 3)))
            for (size_t j = i; j < e && text[j] != '\n'; j++) sw->base_text[j] = ' ';
    sw->base_text[len] = '\0';
    sw->base_len = len;
    snprintf(sw->base_name, sizeof sw->base_name, "%s", sw->file);
    snprintf(sw->base_file_dir, sizeof sw->base_file_dir, "%s", sw->base_dir);
    return 0;
}

/* Report columns (docs/reports.md) worth optimising; the first LS_SWEEP_N_TIMED_METRICS come from
 * the timed model. */
const char *const ls_sweep_best_metrics[] = {
    "cycles", "time_us", "tflops_effective", "energy.dynamic_uj", "occupancy.contexts_per_core.mean",
    "energy.layer_uj", "energy.per_token_uj", "area.total_mm2", "power.average_w", "efficiency.tflops_per_mm2",
    "efficiency.tflops_per_w", "accuracy.kl_mean", "accuracy.kl_max", "accuracy.o_rel_fro_err", "accuracy.row_rel_l2_mean",
    "accuracy.argmax_flip_rate", "recompute.subblock_rate", "tiles.disruptive_rate", NULL};

/* One list of axis keys of best: (over or per) into idx[]; in_list[a] marks the axes taken. */
static int best_keys(perr *pe, const ls_sweep *sw, const ls_yamltree_node *v, const char *what, int **idx, int *n, char *in_list)
{
    const ls_yamltree_node *one = v->kind == LS_YAMLTREE_SCALAR ? v : NULL; /* a single key written without brackets */
    if (!one && (v->kind != LS_YAMLTREE_SEQ || v->n == 0))
        return fail_at(pe, v->line, v->col, what, "expected a list of axis keys, e.g. [algorithm.b_k, algorithm.n_k]");
    int cnt = one ? 1 : v->n;
    *idx = calloc((size_t)cnt, sizeof **idx);
    if (!*idx) return 1;
    for (int i = 0; i < cnt; i++) {
        const ls_yamltree_node *k = one ? one : v->kids[i];
        if (k->kind != LS_YAMLTREE_SCALAR) return fail_at(pe, k->line, k->col, what, "expected an axis key");
        int a = 0;
        while (a < sw->naxes && strcmp(sw->axes[a].key, k->text)) a++;
        if (a == sw->naxes) {
            char list[1024] = "";
            size_t o = 0;
            for (int b = 0; b < sw->naxes && o < sizeof list; b++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", b ? ", " : "", sw->axes[b].key);
            return fail_at(pe, k->line, k->col, what, "'%s' is not an axis of this sweep (axes: %s)", k->text, list);
        }
        if (in_list[a])
            return fail_at(pe, k->line, k->col, what, "'%s' appears twice in best (over and per take each axis once)",
                           k->text);
        in_list[a] = 1;
        (*idx)[(*n)++] = a;
    }
    return 0;
}

/* best: {minimise|maximise: METRIC, over: [axis keys], per: [axis keys]}; every axis in exactly
 * one of over and per. */
static int parse_best(perr *pe, ls_sweep *sw, const ls_yamltree_node *b)
{
    if (b->kind != LS_YAMLTREE_MAP)
        return fail_at(pe, b->line, b->col, "best", "expected {minimise: METRIC, over: [keys], per: [keys]}");
    const ls_yamltree_node *metric = NULL, *over = NULL, *per = NULL;
    char mkey[16] = "";
    for (int i = 0; i + 1 < b->n; i += 2) {
        const ls_yamltree_node *k = b->kids[i], *v = b->kids[i + 1];
        const char *t = k->kind == LS_YAMLTREE_SCALAR ? k->text : "";
        if (!strcmp(t, "minimise") || !strcmp(t, "maximise") || !strcmp(t, "minimize") || !strcmp(t, "maximize")) {
            if (metric) return fail_at(pe, k->line, k->col, "best", "one of minimise or maximise, once");
            metric = v;
            snprintf(mkey, sizeof mkey, "best.%.8s", t);
            sw->best.maximise = t[1] == 'a';
        } else if (!strcmp(t, "over")) over = v;
        else if (!strcmp(t, "per")) per = v;
        else
            return fail_at(pe, k->line, k->col, "best", "unknown key '%s' (expected minimise or maximise, over, per)", t);
    }
    if (!metric) return fail_at(pe, b->line, b->col, "best", "needs minimise: METRIC (or maximise: METRIC)");
    if (!over) return fail_at(pe, b->line, b->col, "best", "needs over: [the axis keys the best is chosen among]");
    if (metric->kind != LS_YAMLTREE_SCALAR)
        return fail_at(pe, metric->line, metric->col, mkey, "expected one metric name (such as cycles), got a %s",
                       kind_name(metric));
    int known = 0;
    for (int i = 0; ls_sweep_best_metrics[i]; i++)
        known |= !strcmp(metric->text, ls_sweep_best_metrics[i]);
    if (!known) {
        char list[1024] = "";
        size_t o = 0;
        for (int i = 0; ls_sweep_best_metrics[i] && o < sizeof list; i++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", ls_sweep_best_metrics[i]);
        return fail_at(pe, metric->line, metric->col, mkey, "unknown metric '%s' (expected one of: %s)", metric->text,
                       list);
    }
    snprintf(sw->best.metric, sizeof sw->best.metric, "%s", metric->text);
    sw->best.line = metric->line;
    sw->best.col = metric->col;
    char *in_list = calloc((size_t)sw->naxes, 1);
    if (!in_list) return 1;
    int rc = best_keys(pe, sw, over, "best.over", &sw->best.over, &sw->best.nover, in_list);
    if (!rc && per) rc = best_keys(pe, sw, per, "best.per", &sw->best.per, &sw->best.nper, in_list);
    for (int a = 0; a < sw->naxes && !rc; a++)
        if (!in_list[a])
            rc = fail_at(pe, b->line, b->col, "best",
                         "axis %s is in neither over nor per (every axis is chosen over or grouped by)", sw->axes[a].key);
    free(in_list);
    sw->best.set = !rc;
    return rc;
}

/* Duplicate keys anywhere in the sweep's own mappings (a second axes: or best: would silently win);
 * an inline base is a configuration, checked by the configuration loader with its full key paths. */
static int no_duplicates(perr *pe, const ls_yamltree_node *n, const char *path)
{
    if (n->kind == LS_YAMLTREE_SEQ) {
        for (int i = 0; i < n->n; i++)
            if (no_duplicates(pe, n->kids[i], path)) return 2;
        return 0;
    }
    if (n->kind != LS_YAMLTREE_MAP) return 0;
    int j, i = ls_yamltree_duplicate_key(n, &j);
    if (i >= 0) {
        char key[512];
        snprintf(key, sizeof key, "%s%s%s", path, *path ? "." : "", n->kids[i]->text);
        return fail_at(pe, n->kids[i]->line, n->kids[i]->col, key, "duplicate key (first defined at line %d, column %d)",
                       n->kids[j]->line, n->kids[j]->col);
    }
    for (int k = 0; k + 1 < n->n; k += 2) {
        const char *t = n->kids[k]->text ? n->kids[k]->text : "";
        if (!*path && !strcmp(t, "base")) continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", t);
        if (no_duplicates(pe, n->kids[k + 1], sub)) return 2;
    }
    return 0;
}

static int parse_root(perr *pe, ls_sweep *sw, const char *text, size_t len, const ls_yamltree_doc *doc)
{
    const ls_yamltree_node *root = doc->root;
    if (root->kind != LS_YAMLTREE_MAP) return fail_at(pe, root->line, root->col, NULL, "a sweep file is a mapping (base:, axes:)");
    if (no_duplicates(pe, root, "")) return 2;
    const ls_yamltree_node *axes = NULL, *best = NULL;
    int bi = -1;
    for (int i = 0; i + 1 < root->n; i += 2) {
        const ls_yamltree_node *k = root->kids[i], *v = root->kids[i + 1];
        if (k->kind != LS_YAMLTREE_SCALAR) return fail_at(pe, k->line, k->col, NULL, "expected a key");
        if (!strcmp(k->text, "name") || !strcmp(k->text, "description")) {
            if (v->kind != LS_YAMLTREE_SCALAR) return fail_at(pe, v->line, v->col, k->text, "expected a string");
            if (k->text[0] == 'n') {
                for (const char *c = v->text; *c; c++)
                    if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
                        return fail_at(pe, v->line, v->col, k->text, "use letters, digits, '.', '_' and '-' only");
                if (!v->text[0] || strlen(v->text) >= sizeof sw->name)
                    return fail_at(pe, v->line, v->col, k->text, "expected a non-empty name under %zu characters",
                                   sizeof sw->name);
                if (!strcmp(v->text, ".") || !strcmp(v->text, ".."))   /* the default output out/NAME: one new directory */
                    return fail_at(pe, v->line, v->col, k->text, "'%s' is not a name (the sweep's directory is out/NAME)",
                                   v->text);
                snprintf(sw->name, sizeof sw->name, "%s", v->text);
            } else snprintf(sw->description, sizeof sw->description, "%s", v->text);
        } else if (!strcmp(k->text, "base")) bi = i;
        else if (!strcmp(k->text, "axes")) axes = v;
        else if (!strcmp(k->text, "best")) best = v;
        else
            return fail_at(pe, k->line, k->col, k->text, "unknown sweep key (expected name, description, base, axes, best)");
    }
    if (bi >= 0) {
        const ls_yamltree_node *b = root->kids[bi + 1];
        if (b->kind == LS_YAMLTREE_SCALAR) {
            char path[2 * LS_CONFIG_PATH_MAX + 2];
            if (b->text[0] == '/') snprintf(path, sizeof path, "%s", b->text);
            else snprintf(path, sizeof path, "%s/%s", sw->base_dir, b->text);
            ls_config_path_normalize(path);
            sw->base_text = ls_sweep_read_file_max(path, &sw->base_len, LS_YAMLTREE_MAX_BYTES);
            if (!sw->base_text)
                return fail_at(pe, b->line, b->col, "base", "cannot read configuration '%s': %s", path,
                               errno == EFBIG ? "larger than the 1 MiB limit of a YAML file" : strerror(errno));
            if (strlen(path) >= sizeof sw->base_name)
                return fail_at(pe, b->line, b->col, "base", "path too long");
            memcpy(sw->base_name, path, strlen(path) + 1);
            dir_of(path, sw->base_file_dir, sizeof sw->base_file_dir);
        } else if (b->kind == LS_YAMLTREE_MAP) {
            if (inline_base(sw, text, len, doc, bi)) return 1;
        } else if (b->kind != LS_YAMLTREE_NULL)
            return fail_at(pe, b->line, b->col, "base", "expected a configuration file name or a mapping, got a %s",
                           kind_name(b));
    }
    if (!axes) return fail_at(pe, root->line, root->col, "axes", "a sweep needs axes: (configuration keys and their values)");
    if (axes->kind != LS_YAMLTREE_MAP || axes->n == 0)
        return fail_at(pe, axes->line, axes->col, "axes", "expected a mapping of configuration keys to values");
    for (int i = 0; i + 1 < axes->n; i += 2) {
        const ls_yamltree_node *k = axes->kids[i], *v = axes->kids[i + 1];
        int dim = sw->ndims, len_ = -1, rc;
        if (k->kind == LS_YAMLTREE_SCALAR && !strchr(k->text, '.') && !strncmp(k->text, "zip", 3) && !ls_config_schema_find(k->text)) {
            if (v->kind != LS_YAMLTREE_MAP || v->n == 0)
                return fail_at(pe, v->line, v->col, k->text, "a zip group is a mapping of configuration keys to lists");
            for (int j = 0; j + 1 < v->n; j += 2)
                if ((rc = add_axis(pe, sw, v->kids[j], v->kids[j + 1], dim, &len_))) return rc;
        } else if ((rc = add_axis(pe, sw, k, v, dim, &len_)))
            return rc;
        sw->ndims++;
    }
    return best ? parse_best(pe, sw, best) : 0;
}

/* Maps a configuration error of a point back to the sweep file: errors on an override point at
 * the axis value; others (in the base) keep their own location and name the point. */
static int point_error(perr *pe, const ls_sweep *sw, const ls_sweep_point *p, const int *vi, const ls_config_diag *d)
{
    if (!strncmp(d->file, "--set ", 6)) {
        for (int a = 0; a < sw->naxes; a++) {
            if (strcmp(d->file + 6, p->overrides[a])) continue;
            const char *what = d->message;
            char prefix[LS_CONFIG_PATH_MAX + 300];
            snprintf(prefix, sizeof prefix, "%s: %s: ", d->file, d->key);
            if (!strncmp(what, prefix, strlen(prefix))) what += strlen(prefix);
            else {
                snprintf(prefix, sizeof prefix, "%s: ", d->file);
                if (!strncmp(what, prefix, strlen(prefix))) what += strlen(prefix);
            }
            const ls_sweep_axis *ax = &sw->axes[a];
            return fail_at(pe, ax->line[vi[a]], ax->col[vi[a]], d->key[0] ? d->key : ax->key, "%s (point %d)", what,
                           p->index);
        }
    }
    /* a cross-key check (b_k * n_k too large...) may blame a key of the base or the defaults: when
     * the base alone is valid, the axis values are the cause; point at the first that fails on
     * its own, else at the last one */
    if (sw->naxes > 0) {
        ls_sweep_point one = *p;
        ls_config *c2 = malloc(sizeof *c2);
        char e2[1600];
        int blame = -1;
        if (c2) {
            one.overrides = NULL;
            ls_sweep base_only = *sw;
            base_only.naxes = 0;
            if (!ls_sweep_point_config(&base_only, &one, c2, e2, sizeof e2)) {
                base_only.naxes = 1;
                for (int a = 0; a < sw->naxes && blame < 0; a++) {
                    one.overrides = p->overrides + a;
                    if (ls_sweep_point_config(&base_only, &one, c2, e2, sizeof e2)) blame = a;
                }
                if (blame < 0) blame = sw->naxes - 1;
            }
            free(c2);
        }
        if (blame >= 0) {
            const ls_sweep_axis *ax = &sw->axes[blame];
            const char *what = d->message;
            char pat[300];
            snprintf(pat, sizeof pat, "%s: ", d->key);
            const char *k = d->key[0] ? strstr(what, pat) : NULL;
            if (k) what = k + strlen(pat);
            return fail_at(pe, ax->line[vi[blame]], ax->col[vi[blame]], ax->key, "%s (point %d; checked at %s)", what,
                           p->index, d->key[0] ? d->key : "?");
        }
    }
    char ctx[512] = "";
    size_t o = 0;
    for (int a = 0; a < sw->naxes && o < sizeof ctx; a++)
        o += (size_t)snprintf(ctx + o, sizeof ctx - o, "%s%s", a ? ", " : "", p->overrides[a]);
    snprintf(pe->err, pe->errlen, "%s (sweep %s, point %d: %s)", d->message, sw->file, p->index, ctx);
    return 2;
}

int ls_sweep_point_config(const ls_sweep *sw, const ls_sweep_point *p, ls_config *cfg, char *err, size_t errlen)
{
    ls_config_diag *d = malloc(sizeof *d);
    if (!d) return 1;
    int rc = 0;
    const char *const *ov = (const char *const *)p->overrides;
    if (!sw->base_text) rc = ls_config_load(cfg, NULL, ov, sw->naxes, d);
    else rc = ls_config_load_string(cfg, sw->base_text, sw->base_len, sw->base_name, sw->base_file_dir, ov, sw->naxes, d);
    if (rc) {
        snprintf(err, errlen, "%s", d->message);
        rc = 2;
    }
    free(d);
    return rc;
}

static const ls_sweep *g_dup_sweep; /* qsort has no context argument in C11 */

static int by_id(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(g_dup_sweep->points[x].id, g_dup_sweep->points[y].id);
    return c ? c : (x > y) - (x < y);
}

int ls_sweep_add_infeasible(ls_sweep *sw, ls_sweep_point *p, const char *why)
{
    ls_sweep_infeasible *ni = realloc(sw->infeasible, (size_t)(sw->ninfeasible + 1) * sizeof *ni);
    if (!ni) return 1;
    sw->infeasible = ni;
    ls_sweep_infeasible *f = &sw->infeasible[sw->ninfeasible++];
    f->overrides = p->overrides;
    f->why = strdup(why);
    p->overrides = NULL;
    return f->why ? 0 : 1;
}

static int expand(perr *pe, ls_sweep *sw)
{
    int *dimlen = calloc((size_t)sw->ndims, sizeof *dimlen);
    int *di = calloc((size_t)sw->ndims, sizeof *di);
    int *vi = calloc((size_t)sw->naxes, sizeof *vi);
    ls_config *cfg = malloc(sizeof *cfg);
    ls_config_diag *d = malloc(sizeof *d);
    int *grid = NULL; /* grid position of each kept point */
    int rc = 0;
    if (!dimlen || !di || !vi || !cfg || !d) { rc = 1; goto out; }
    double total = 1;
    for (int a = 0; a < sw->naxes; a++) dimlen[sw->axes[a].dim] = sw->axes[a].n;
    for (int k = 0; k < sw->ndims; k++) total *= dimlen[k];
    if (total > LS_SWEEP_MAX_POINTS) {
        rc = fail_at(pe, sw->axes[0].line[0], sw->axes[0].col[0], "axes", "%.0f points exceed the limit of %d", total,
                     LS_SWEEP_MAX_POINTS);
        goto out;
    }
    sw->npoints = (int)total;
    sw->points = calloc((size_t)sw->npoints, sizeof *sw->points);
    grid = malloc((size_t)sw->npoints * sizeof *grid);
    if (!sw->points || !grid) { rc = 1; goto out; }
    int kept = 0;
    for (int g = 0; g < (int)total; g++) {
        /* first dimension slowest */
        int r = g, p = kept;
        for (int k = sw->ndims - 1; k >= 0; k--) {
            di[k] = r % dimlen[k];
            r /= dimlen[k];
        }
        ls_sweep_point *pt = &sw->points[p];
        pt->index = p;
        pt->overrides = calloc((size_t)sw->naxes, sizeof *pt->overrides);
        if (!pt->overrides) { rc = 1; goto out; }
        for (int a = 0; a < sw->naxes; a++) {
            const ls_sweep_axis *ax = &sw->axes[a];
            vi[a] = di[ax->dim];
            size_t l = strlen(ax->key) + strlen(ax->values[vi[a]]) + 2;
            pt->overrides[a] = malloc(l);
            if (!pt->overrides[a]) { rc = 1; goto out; }
            snprintf(pt->overrides[a], l, "%s=%s", ax->key, ax->values[vi[a]]);
        }
        const char *const *ov = (const char *const *)pt->overrides;
        int lr = sw->base_text ? ls_config_load_string(cfg, sw->base_text, sw->base_len, sw->base_name, sw->base_file_dir,
                                                       ov, sw->naxes, d)
                               : ls_config_load(cfg, NULL, ov, sw->naxes, d);
        /* with an objective, a refused point is skipped (ls_sweep_best_check skips those whose
         * registers do not fit) */
        if (lr && !sw->best.set) {
            rc = point_error(pe, sw, pt, vi, d);
            goto out;
        }
        if (lr) {
            if ((rc = ls_sweep_add_infeasible(sw, pt, d->message))) goto out;
            continue;
        }
        ls_sweep_config_id(cfg, pt->id);
        ls_sweep_cache_key(cfg, pt->cache_key);
        grid[kept++] = g;
    }
    sw->npoints = kept;
    if (!kept) {
        rc = fail_at(pe, sw->best.line, sw->best.col, "best", "every point is refused; the first: %s",
                     sw->infeasible[0].why);
        goto out;
    }
    /* two points with one configuration (a value repeated): sort by id, compare neighbours */
    int *ord = malloc((size_t)sw->npoints * sizeof *ord);
    if (!ord) { rc = 1; goto out; }
    for (int p = 0; p < sw->npoints; p++) ord[p] = p;
    g_dup_sweep = sw;
    qsort(ord, (size_t)sw->npoints, sizeof *ord, by_id);
    for (int k = 1; k < sw->npoints; k++) {
        int q = ord[k - 1], p = ord[k];
        if (strcmp(sw->points[q].id, sw->points[p].id)) continue;
        /* the later point's value of the first axis on which the two differ, else of the first axis */
        int a0 = 0;
        for (int a = 0; a < sw->naxes; a++)
            if (strcmp(sw->points[q].overrides[a], sw->points[p].overrides[a])) { a0 = a; break; }
        int r = grid[p], d0 = sw->axes[a0].dim, vv = 0;
        for (int k2 = sw->ndims - 1; k2 >= 0; k2--) {
            if (k2 == d0) vv = r % dimlen[k2];
            r /= dimlen[k2];
        }
        const ls_sweep_axis *ax = &sw->axes[a0];
        rc = fail_at(pe, ax->line[vv], ax->col[vv], ax->key,
                     "points %d and %d resolve to the same configuration (a value repeated?)", q < p ? q : p, q < p ? p : q);
        break;
    }
    free(ord);
out:
    free(grid);
    free(dimlen);
    free(di);
    free(vi);
    free(cfg);
    free(d);
    return rc;
}

int ls_sweep_load(ls_sweep *sw, const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = ls_sweep_read_file_max(path, &len, LS_YAMLTREE_MAX_BYTES);
    if (!text) {
        memset(sw, 0, sizeof *sw);
        if (errno == EFBIG) snprintf(err, errlen, "%s: sweep file larger than %u bytes", path, LS_YAMLTREE_MAX_BYTES);
        else snprintf(err, errlen, "%s: cannot read sweep file: %s", path, strerror(errno));
        return 2;
    }
    int rc = ls_sweep_load_text(sw, text, len, path, err, errlen);
    free(text);
    return rc;
}

int ls_sweep_load_text(ls_sweep *sw, const char *text, size_t len, const char *path, char *err, size_t errlen)
{
    memset(sw, 0, sizeof *sw);
    if (strlen(path) >= sizeof sw->file) { /* refused, not truncated into another directory */
        snprintf(err, errlen, "sweep file path longer than %zu bytes", sizeof sw->file - 1);
        return 2;
    }
    snprintf(sw->file, sizeof sw->file, "%s", path);
    dir_of(path, sw->base_dir, sizeof sw->base_dir);
    const char *slash = strrchr(path, '/');
    snprintf(sw->name, sizeof sw->name, "%s", slash ? slash + 1 : path);
    char *dot = strrchr(sw->name, '.');
    if (dot && dot != sw->name) *dot = '\0';
    perr pe = {sw->file, err, errlen};
    if (len > LS_YAMLTREE_MAX_BYTES) {
        snprintf(err, errlen, "%s: sweep file larger than %u bytes", path, LS_YAMLTREE_MAX_BYTES);
        return 2;
    }
    ls_yamltree_doc doc;
    int eline, ecol, rc;
    char emsg[512];
    if (ls_yamltree_parse(text, len, &doc, &eline, &ecol, emsg, sizeof emsg)) {
        rc = fail_at(&pe, eline, ecol, NULL, "%s", emsg);
        return rc;
    }
    rc = parse_root(&pe, sw, text, len, &doc);
    ls_yamltree_free(&doc);
    /* a name taken from the file name (no name:) must be one path component too: "..yaml" gives "." */
    if (!rc && (!sw->name[0] || !strcmp(sw->name, ".") || !strcmp(sw->name, "..") || strchr(sw->name, '/'))) {
        snprintf(err, errlen, "%s: the sweep's name '%s' (from the file name) is not one path component: give it a "
                 "name: key", path, sw->name);
        rc = 2;
    }
    if (!rc) rc = expand(&pe, sw);
    if (rc) {
        if (rc == 1 && !err[0]) snprintf(err, errlen, "%s: out of memory", path);
        ls_sweep_free(sw);
        return 2;
    }
    return 0;
}

void ls_sweep_free(ls_sweep *sw)
{
    for (int a = 0; a < sw->naxes; a++) {
        for (int i = 0; i < sw->axes[a].n; i++) free(sw->axes[a].values[i]);
        free(sw->axes[a].values);
        free(sw->axes[a].line);
        free(sw->axes[a].col);
        free(sw->axes[a].key);
    }
    free(sw->axes);
    if (sw->points)
        for (int p = 0; p < sw->npoints; p++) {
            if (sw->points[p].overrides)
                for (int a = 0; a < sw->naxes; a++) free(sw->points[p].overrides[a]);
            free(sw->points[p].overrides);
        }
    free(sw->points);
    for (int i = 0; i < sw->ninfeasible; i++) {
        for (int a = 0; a < sw->naxes; a++) free(sw->infeasible[i].overrides[a]);
        free(sw->infeasible[i].overrides);
        free(sw->infeasible[i].why);
    }
    free(sw->infeasible);
    free(sw->best.over);
    free(sw->best.per);
    free(sw->base_text);
    memset(sw, 0, sizeof *sw);
}

/* ---------------- manifest ---------------- */

void ls_sweep_manifest_line(const ls_sweep *sw, const ls_sweep_point *p, FILE *out)
{
    fprintf(out, "%d\t%s", p->index, p->id);
    for (int a = 0; a < sw->naxes; a++) fprintf(out, "\t%s", p->overrides[a]);
    fputc('\n', out);
}

char *ls_sweep_manifest_text(const ls_sweep *sw)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return NULL;
    for (int p = 0; p < sw->npoints; p++) ls_sweep_manifest_line(sw, &sw->points[p], m);
    if (fclose(m)) { free(text); return NULL; }
    return text;
}

/* ---------------- CSV records ---------------- */

int ls_sweep_csv_record(const char *t, size_t *pos, char ***fields)
{
    size_t i = *pos, n = strlen(t);
    if (i >= n) return -1;
    int nf = 0, cap = 16;
    char **f = malloc((size_t)cap * sizeof *f);
    if (!f) return -1;
    for (;;) {
        size_t bcap = 64, bl = 0;
        char *b = malloc(bcap);
        if (!b) break;
        int q = i < n && t[i] == '"';
        if (q) i++;
        for (; i < n; i++) {
            char c = t[i];
            if (q) {
                if (c == '"') {
                    if (i + 1 < n && t[i + 1] == '"') i++;
                    else { q = 0; continue; }
                }
            } else if (c == ',' || c == '\n' || c == '\r') break;
            if (bl + 2 > bcap) {
                char *nb = realloc(b, bcap *= 2);
                if (!nb) break;
                b = nb;
            }
            b[bl++] = c;
        }
        b[bl] = '\0';
        if (nf == cap) {
            char **nfp = realloc(f, (size_t)(cap *= 2) * sizeof *nfp);
            if (!nfp) { free(b); break; }
            f = nfp;
        }
        f[nf++] = b;
        if (i < n && t[i] == ',') { i++; continue; }
        if (i < n && t[i] == '\r') i++;
        if (i < n && t[i] == '\n') i++;
        break;
    }
    *pos = i;
    *fields = f;
    return nf;
}

void ls_sweep_csv_free(char **fields, int n)
{
    if (!fields) return;
    for (int i = 0; i < n; i++) free(fields[i]);
    free(fields);
}

void ls_sweep_csv_cell(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) { fputs(s, out); return; }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}
