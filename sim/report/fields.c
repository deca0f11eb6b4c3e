#define _POSIX_C_SOURCE 200809L  /* strdup */
#include "fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ls_fields_init(ls_fields *fs) { memset(fs, 0, sizeof *fs); }

void ls_fields_free(ls_fields *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->f[i].name);
        free(fs->f[i].s);
        free(fs->f[i].arr);
    }
    free(fs->f);
    memset(fs, 0, sizeof *fs);
}

static ls_fields_item *add(ls_fields *fs, const char *name, ls_fields_type t)
{
    if (fs->oom) return NULL;
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? 2 * fs->cap : 64;
        ls_fields_item *nf = realloc(fs->f, cap * sizeof *nf);
        if (!nf) { fs->oom = true; return NULL; }
        fs->f = nf;
        fs->cap = cap;
    }
    ls_fields_item *f = &fs->f[fs->n];
    memset(f, 0, sizeof *f);
    f->name = strdup(name);
    if (!f->name) { fs->oom = true; return NULL; }
    f->type = t;
    fs->n++;
    return f;
}

void ls_fields_double(ls_fields *fs, const char *name, double v) { ls_fields_item *f = add(fs, name, LS_FIELDS_DOUBLE); if (f) f->d = v; }
void ls_fields_int(ls_fields *fs, const char *name, int64_t v) { ls_fields_item *f = add(fs, name, LS_FIELDS_INT); if (f) f->i = v; }
void ls_fields_uint(ls_fields *fs, const char *name, uint64_t v) { ls_fields_item *f = add(fs, name, LS_FIELDS_UINT); if (f) f->u = v; }
void ls_fields_bool(ls_fields *fs, const char *name, bool v) { ls_fields_item *f = add(fs, name, LS_FIELDS_BOOL); if (f) f->b = v; }

void ls_fields_string(ls_fields *fs, const char *name, const char *v)
{
    ls_fields_item *f = add(fs, name, LS_FIELDS_STRING);
    if (!f) return;
    f->s = strdup(v ? v : "");
    if (!f->s) fs->oom = true;
}

void ls_fields_uint_array(ls_fields *fs, const char *name, const uint64_t *v, size_t n)
{
    ls_fields_item *f = add(fs, name, LS_FIELDS_UINT_ARRAY);
    if (!f) return;
    f->arr = malloc((n ? n : 1) * sizeof *f->arr);
    if (!f->arr) { fs->oom = true; return; }
    if (n) memcpy(f->arr, v, n * sizeof *v);
    f->n = n;
}

/* Number of leading dot-separated components two names share. */
static int common_depth(const char *a, const char *b)
{
    int depth = 0;
    for (;;) {
        const char *da = strchr(a, '.'), *db = strchr(b, '.');
        if (!da || !db) return depth;
        size_t la = (size_t)(da - a), lb = (size_t)(db - b);
        if (la != lb || memcmp(a, b, la)) return depth;
        depth++;
        a = da + 1;
        b = db + 1;
    }
}

static int n_components(const char *s)
{
    int n = 1;
    for (; *s; s++) n += *s == '.';
    return n;
}

/* Component k (0-based) of a dotted name into buf. */
static const char *component(const char *s, int k, char *buf, size_t len)
{
    for (int i = 0; i < k; i++) s = strchr(s, '.') + 1;
    const char *e = strchr(s, '.');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n >= len) n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return buf;
}

void ls_fields_to_json(const ls_fields *fs, ls_json *j)
{
    ls_json_begin_object(j, NULL);
    ls_fields_to_json_members(fs, j);
    ls_json_end_object(j);
}

void ls_fields_to_json_members(const ls_fields *fs, ls_json *j)
{
    char key[128];
    int open = 0;   /* objects opened below the top level for the previous field */
    for (size_t i = 0; i < fs->n; i++) {
        const ls_fields_item *f = &fs->f[i];
        int depth = n_components(f->name) - 1;          /* objects this field lives in */
        int keep = i ? common_depth(fs->f[i - 1].name, f->name) : 0;
        if (keep > open) keep = open;
        while (open > keep) { ls_json_end_object(j); open--; }
        while (open < depth) { ls_json_begin_object(j, component(f->name, open, key, sizeof key)); open++; }
        const char *leaf = component(f->name, depth, key, sizeof key);
        switch (f->type) {
        case LS_FIELDS_DOUBLE: ls_json_double(j, leaf, f->d); break;
        case LS_FIELDS_INT: ls_json_int(j, leaf, f->i); break;
        case LS_FIELDS_UINT: ls_json_uint(j, leaf, f->u); break;
        case LS_FIELDS_BOOL: ls_json_bool(j, leaf, f->b); break;
        case LS_FIELDS_STRING: ls_json_string(j, leaf, f->s); break;
        case LS_FIELDS_UINT_ARRAY:
            ls_json_begin_array(j, leaf);
            for (size_t k = 0; k < f->n; k++) ls_json_uint(j, NULL, f->arr[k]);
            ls_json_end_array(j);
            break;
        }
    }
    while (open > 0) { ls_json_end_object(j); open--; }
}

typedef struct { char *p; size_t len, cap; bool oom; } sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1) cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) { b->oom = true; return; }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_csv_cell(sbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) { sb_put(b, s, strlen(s)); return; }
    sb_put(b, "\"", 1);
    for (; *s; s++) {
        if (*s == '"') sb_put(b, "\"\"", 2);
        else sb_put(b, s, 1);
    }
    sb_put(b, "\"", 1);
}

static void format_value(const ls_fields_item *f, sbuf *b)
{
    char tmp[64];
    switch (f->type) {
    case LS_FIELDS_DOUBLE:
        if (!isfinite(f->d)) snprintf(tmp, sizeof tmp, "%s", isnan(f->d) ? "nan" : (f->d > 0 ? "inf" : "-inf"));
        else snprintf(tmp, sizeof tmp, "%.17g", f->d == 0.0 ? 0.0 : f->d);
        sb_put(b, tmp, strlen(tmp));
        break;
    case LS_FIELDS_INT: snprintf(tmp, sizeof tmp, "%lld", (long long)f->i); sb_put(b, tmp, strlen(tmp)); break;
    case LS_FIELDS_UINT: snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)f->u); sb_put(b, tmp, strlen(tmp)); break;
    case LS_FIELDS_BOOL: sb_put(b, f->b ? "true" : "false", f->b ? 4 : 5); break;
    case LS_FIELDS_STRING: sb_csv_cell(b, f->s); break;
    case LS_FIELDS_UINT_ARRAY:
        for (size_t k = 0; k < f->n; k++) {
            snprintf(tmp, sizeof tmp, "%s%llu", k ? ";" : "", (unsigned long long)f->arr[k]);
            sb_put(b, tmp, strlen(tmp));
        }
        break;
    }
}

char *ls_fields_to_csv(const ls_fields *fs)
{
    sbuf b = {0};
    for (size_t i = 0; i < fs->n; i++) {
        if (i) sb_put(&b, ",", 1);
        sb_csv_cell(&b, fs->f[i].name);
    }
    sb_put(&b, "\n", 1);
    for (size_t i = 0; i < fs->n; i++) {
        if (i) sb_put(&b, ",", 1);
        format_value(&fs->f[i], &b);
    }
    sb_put(&b, "\n", 1);
    if (b.oom || fs->oom) { free(b.p); return NULL; }
    return b.p;
}
