/* Loading: YAML trees applied to the typed config through the schema, includes, workload
 * files, --set overrides, and the cross-field checks. */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "lslanes.h"
#include "config_internal.h"
#include "lslamp.h"
#include "io.h"
#include "lampsim_version.h"
#include "suggest.h"
#include "yamltree.h"

#define MAX_INCLUDE_DEPTH 16
#define MAX_FILES 64

typedef struct {
    const char *file; /* owned by ctx->files, or a static string */
    int line, col;
} loc;

typedef struct {
    ls_config *cfg;
    ls_config_diag *diag;
    loc *locs;                       /* per schema entry */
    size_t nschema;
    const ls_config_schema_entry *schema;
    char *files[MAX_FILES];          /* display names, owned */
    int nfiles;
    char *stack[MAX_INCLUDE_DEPTH + 2]; /* real paths of the files being applied (include chain) */
    const char *stack_disp[MAX_INCLUDE_DEPTH + 2];
    int depth;
    char file_version[LS_CONFIG_NAME_MAX];
    int failed;
    /* ls_config_load_all: every problem goes to problem(), and loading goes on past it */
    void (*problem)(const char *message, void *ud);
    void *problem_ud;
} ctx;

/* After a problem, inside a loop: stop at the first one, or (ls_config_load_all) note it and go
 * on with the next item (a plain block: `continue` inside do-while(0) would not reach the loop). */
#define STOP_OR_GO_ON(c, rc)          \
    {                                 \
        if (!(c)->problem) return -1; \
        (rc) = -1;                    \
        continue;                     \
    }

static const char DEFAULT_FILE[] = "(default)";

/* ---------------- diagnostics ---------------- */

static void diag_set(ctx *c, const char *file, int line, int col, const char *key, const char *fmt, ...)
{
    if (c->failed && !c->problem) return;
    ls_config_diag later, *d = c->failed ? &later : c->diag; /* the diag keeps the first */
    c->failed = 1;
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(d->file, sizeof d->file, "%s", file ? file : "");
    d->line = line;
    d->column = col;
    snprintf(d->key, sizeof d->key, "%s", key ? key : "");
    char where[LS_CONFIG_PATH_MAX + 40];
    if (file && line > 0) snprintf(where, sizeof where, "%s:%d:%d", file, line, col);
    else snprintf(where, sizeof where, "%s", file ? file : "");
    if (key && *key) ls_io_err(d->message, sizeof d->message, "%s: %s: %s", where, key, what);
    else ls_io_err(d->message, sizeof d->message, "%s: %s", where, what);
    if (c->problem) c->problem(d->message, c->problem_ud);
}

static void diag_warn(ctx *c, const char *fmt, ...)
{
    ls_config_diag *d = c->diag;
    if (d->n_warnings >= LS_CONFIG_DIAG_MAX_WARN) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->warnings[d->n_warnings++], sizeof d->warnings[0], fmt, ap);
    va_end(ap);
}

static const char *keep_name(ctx *c, const char *name)
{
    for (int i = 0; i < c->nfiles; ++i)
        if (!strcmp(c->files[i], name)) return c->files[i];
    if (c->nfiles >= MAX_FILES) return "(too many files)";
    size_t l = strlen(name);
    char *p = malloc(l + 1);
    if (!p) return "(out of memory)";
    memcpy(p, name, l + 1);
    c->files[c->nfiles++] = p;
    return p;
}

/* ---------------- did you mean ---------------- */

static const char *last_component(const char *p)
{
    const char *d = strrchr(p, '.');
    return d ? d + 1 : p;
}

/* Section names (every proper prefix of a schema path) are candidates too. */
static int is_section(const char *path)
{
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    size_t l = strlen(path);
    for (size_t i = 0; i < n; ++i)
        if (!strncmp(s[i].path, path, l) && s[i].path[l] == '.') return 1;
    return 0;
}

int ls_config_suggest(const char *path, char *out, size_t outlen)
{
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    size_t best = (size_t)-1;
    char cand[256] = "";
    size_t lp = strlen(path);
    for (size_t i = 0; i < n; ++i) {
        /* the path itself and each of its section prefixes */
        char buf[256];
        snprintf(buf, sizeof buf, "%s", s[i].path);
        for (;;) {
            size_t dd = ls_suggest_distance(path, buf);
            if (dd < best) {
                best = dd;
                snprintf(cand, sizeof cand, "%s", buf);
            }
            char *dot = strrchr(buf, '.');
            if (!dot) break;
            *dot = '\0';
        }
    }
    size_t limit = lp / 4 > 2 ? lp / 4 : 2;
    if (best == 1) {
        snprintf(out, outlen, "%s", cand);
        return 1;
    }
    /* the same key name in another section */
    const char *lc = last_component(path);
    for (size_t i = 0; i < n; ++i)
        if (!strcmp(last_component(s[i].path), lc) && strcmp(s[i].path, path)) {
            snprintf(out, outlen, "%s", s[i].path);
            return 1;
        }
    if (best <= limit && best > 0) {
        snprintf(out, outlen, "%s", cand);
        return 1;
    }
    return 0;
}

static int suggest_enum(const char *const *names, const char *v, char *out, size_t outlen)
{
    const char *bn = ls_suggest_nearest(v, names);
    if (bn) snprintf(out, outlen, "%s", bn);
    return bn != NULL;
}

/* ---------------- values ---------------- */

void ls_config_expected(const ls_config_schema_entry *e, char *buf, size_t len)
{
    switch (e->type) {
    case LS_CONFIG_T_INT:
    case LS_CONFIG_T_INT64:
        snprintf(buf, len, "an integer in [%.17g, %.17g]", e->min, e->max);
        break;
    case LS_CONFIG_T_DOUBLE:
        if (e->max >= 1e300) snprintf(buf, len, "a finite number >= %.17g", e->min);
        else snprintf(buf, len, "a finite number in [%.17g, %.17g]", e->min, e->max);
        break;
    case LS_CONFIG_T_BOOL:
        snprintf(buf, len, "a boolean (true or false)");
        break;
    case LS_CONFIG_T_STRING:
        snprintf(buf, len, "a string");
        break;
    case LS_CONFIG_T_PATH:
        snprintf(buf, len, "a file path");
        break;
    case LS_CONFIG_T_ENUM: {
        size_t pos = (size_t)snprintf(buf, len, "one of ");
        for (int i = 0; e->names[i] && pos < len; ++i)
            pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", i ? ", " : "", e->names[i]);
        break;
    }
    }
}

static void *field(ls_config *cfg, const ls_config_schema_entry *e) { return (char *)cfg + e->offset; }

/* An integer written with a decimal exponent ("2e12", "1.5e3"), read exactly from its digits (no
 * double rounding): 0, -1 when t is not of that form, -2 out of range, -3 when its value is not a
 * whole number ("1.5e0", "2e-3"). */
static int parse_int64_exp(const char *t, long long *v)
{
    const char *p = t;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    char digits[64];
    size_t nd = 0, frac = 0;
    int any = 0, dot = 0;
    for (; isdigit((unsigned char)*p) || (*p == '.' && !dot); ++p) {
        if (*p == '.') {
            dot = 1;
            continue;
        }
        any = 1;
        if (nd == 0 && *p == '0') {   /* leading zeros carry no digit, but still count as fraction places */
            if (dot) frac++;
            continue;
        }
        if (nd + 1 >= sizeof digits) return -2;
        digits[nd++] = *p;
        if (dot) frac++;
    }
    if (!any || (*p != 'e' && *p != 'E')) return -1;
    p++;
    const char *e = p;
    if (*e == '+' || *e == '-') e++;
    if (!isdigit((unsigned char)*e)) return -1;
    for (const char *q = e; *q; ++q)
        if (!isdigit((unsigned char)*q)) return -1;
    errno = 0;
    long ex = strtol(p, NULL, 10);
    if (errno || ex > 40 || ex < -40) return nd == 0 ? (*v = 0, 0) : ex > 0 ? -2 : -3;
    long shift = ex - (long)frac;        /* value = digits x 10^shift */
    if (shift < 0) {
        for (long i = 0; i < -shift; ++i) {
            if (nd == 0) break;
            if (digits[nd - 1] != '0') return -3;
            nd--;
        }
    } else {
        if (nd == 0) shift = 0;
        if (nd + (size_t)shift + 1 >= sizeof digits) return -2;
        for (long i = 0; i < shift; ++i) digits[nd++] = '0';
    }
    if (nd == 0) digits[nd++] = '0';
    digits[nd] = 0;
    errno = 0;
    char *end;
    long long x = strtoll(digits, &end, 10);
    if (errno || *end) return -2;
    *v = neg ? -x : x;
    return 0;
}

static int parse_int64(const char *t, long long *v)
{
    const char *p = t;
    if (*p == '+' || *p == '-') p++;
    if (!isdigit((unsigned char)*p) && *p != '.') return -1;
    for (const char *q = p; *q; ++q)
        if (!isdigit((unsigned char)*q)) return parse_int64_exp(t, v);
    errno = 0;
    char *end;
    long long x = strtoll(t, &end, 10);
    if (errno || *end) return -2;
    *v = x;
    return 0;
}

static int parse_double(const char *t, double *v)
{
    if (!*t) return -1;
    /* YAML spellings of the special values */
    const char *p = t;
    int neg = 0;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
        *v = neg ? -HUGE_VAL : HUGE_VAL;
        return 0;
    }
    if (!strcmp(t, ".nan") || !strcmp(t, ".NaN") || !strcmp(t, ".NAN")) {
        *v = NAN;
        return 0;
    }
    for (const char *q = t; *q; ++q)
        if (isspace((unsigned char)*q)) return -1;
    char *end;
    errno = 0;
    double x = strtod(t, &end);
    if (*end) return -1;
    *v = x;
    return 0;
}

/* Sets entry e from a scalar. kind: LS_YAMLTREE_SCALAR / LS_YAMLTREE_NULL / LS_YAMLTREE_MAP / LS_YAMLTREE_SEQ. base_dir resolves
 * relative paths. Returns 0 or -1 (diag set). */
static int set_from_text(ctx *c, const ls_config_schema_entry *e, ls_yamltree_kind kind, const char *text, int quoted,
                         const char *file, int line, int col, const char *base_dir)
{
    char exp[300];
    ls_config_expected(e, exp, sizeof exp);
    if (kind == LS_YAMLTREE_MAP || kind == LS_YAMLTREE_SEQ) {
        diag_set(c, file, line, col, e->path, "expected %s, got a %s", exp, kind == LS_YAMLTREE_MAP ? "mapping" : "sequence");
        return -1;
    }
    void *f = field(c->cfg, e);
    if (kind == LS_YAMLTREE_NULL) {
        if (e->type == LS_CONFIG_T_STRING || e->type == LS_CONFIG_T_PATH) {
            memset(f, 0, e->size);
            return 0;
        }
        diag_set(c, file, line, col, e->path, "expected %s, got an empty value", exp);
        return -1;
    }
    char shown[96];
    snprintf(shown, sizeof shown, quoted ? "\"%.80s\"" : "%.80s", text);
    if (quoted && e->type != LS_CONFIG_T_STRING && e->type != LS_CONFIG_T_PATH && e->type != LS_CONFIG_T_ENUM) {
        diag_set(c, file, line, col, e->path, "expected %s, got the quoted string %s (remove the quotes)", exp, shown);
        return -1;
    }
    switch (e->type) {
    case LS_CONFIG_T_INT:
    case LS_CONFIG_T_INT64: {
        long long v;
        int rc = parse_int64(text, &v);
        if (rc == -1) {
            double dv;
            if (!parse_double(text, &dv) && isfinite(dv) && dv == floor(dv) && fabs(dv) < 9e15)
                diag_set(c, file, line, col, e->path, "expected %s, got %s (write it without a fraction)", exp, shown);
            else
                diag_set(c, file, line, col, e->path, "expected %s, got %s", exp, shown);
            return -1;
        }
        if (rc == -3) {
            diag_set(c, file, line, col, e->path, "expected %s, got %s (not a whole number)", exp, shown);
            return -1;
        }
        if (rc == -2 || (double)v < e->min || (double)v > e->max) {
            diag_set(c, file, line, col, e->path, "expected %s, got %s (out of range)", exp, shown);
            return -1;
        }
        if (e->type == LS_CONFIG_T_INT) *(int *)f = (int)v;
        else *(int64_t *)f = (int64_t)v;
        return 0;
    }
    case LS_CONFIG_T_DOUBLE: {
        double v;
        if (parse_double(text, &v)) {
            diag_set(c, file, line, col, e->path, "expected %s, got %s", exp, shown);
            return -1;
        }
        if (!isfinite(v)) {
            diag_set(c, file, line, col, e->path, "expected %s, got %s (NaN and infinity are not allowed)", exp, shown);
            return -1;
        }
        if (v < e->min || v > e->max) {
            diag_set(c, file, line, col, e->path, "expected %s, got %s (out of range)", exp, shown);
            return -1;
        }
        *(double *)f = v == 0 ? 0.0 : v; /* no negative zero */
        return 0;
    }
    case LS_CONFIG_T_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "True") || !strcmp(text, "TRUE")) *(bool *)f = true;
        else if (!strcmp(text, "false") || !strcmp(text, "False") || !strcmp(text, "FALSE")) *(bool *)f = false;
        else {
            diag_set(c, file, line, col, e->path, "expected %s, got %s", exp, shown);
            return -1;
        }
        return 0;
    case LS_CONFIG_T_ENUM:
        for (int i = 0; e->names[i]; ++i)
            if (!strcmp(e->names[i], text)) {
                int v = i;
                memcpy(f, &v, sizeof v);
                return 0;
            }
        {
            char sug[64];
            if (suggest_enum(e->names, text, sug, sizeof sug))
                diag_set(c, file, line, col, e->path, "expected %s, got %s; did you mean '%s'?", exp, shown, sug);
            else
                diag_set(c, file, line, col, e->path, "expected %s, got %s", exp, shown);
        }
        return -1;
    case LS_CONFIG_T_STRING:
    case LS_CONFIG_T_PATH: {
        size_t l = strlen(text);
        if (!ls_config_utf8_valid(text)) {
            diag_set(c, file, line, col, e->path, "expected %s, got text that is not valid UTF-8", exp);
            return -1;
        }
        if (e->type == LS_CONFIG_T_PATH && l && text[0] != '/' && base_dir && *base_dir) {
            /* absolute, so that a resolved config reloads from anywhere */
            char joined[2 * LS_CONFIG_PATH_MAX + 2], cwd[LS_CONFIG_PATH_MAX];
            if (base_dir[0] == '/' || !getcwd(cwd, sizeof cwd)) ls_io_err(joined, sizeof joined, "%s/%s", base_dir, text);
            else ls_io_err(joined, sizeof joined, "%s/%s/%s", cwd, base_dir, text);
            ls_config_path_normalize(joined);
            l = strlen(joined);
            if (l + 1 > e->size) {
                diag_set(c, file, line, col, e->path, "path longer than %zu characters", e->size - 1);
                return -1;
            }
            memset(f, 0, e->size);
            memcpy(f, joined, l + 1);
            return 0;
        }
        if (l + 1 > e->size) {
            diag_set(c, file, line, col, e->path, "expected a string of at most %zu characters, got %zu", e->size - 1, l);
            return -1;
        }
        memset(f, 0, e->size);
        memcpy(f, text, l);
        return 0;
    }
    }
    return -1;
}

/* ---------------- files ---------------- */

void ls_config_path_normalize(char *p)
{
    /* lexical: collapse '//' and '/./', resolve 'dir/..' where dir is not '..' */
    int abs = p[0] == '/';
    char *parts[512];
    int np = 0;
    char *save = NULL;
    char buf[2 * LS_CONFIG_PATH_MAX + 2];
    snprintf(buf, sizeof buf, "%s", p);
    for (char *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (!strcmp(tok, ".")) continue;
        if (!strcmp(tok, "..") && np > 0 && strcmp(parts[np - 1], "..")) {
            np--;
            continue;
        }
        if (!strcmp(tok, "..") && abs && np == 0) continue;
        if (np < 512) parts[np++] = tok;
    }
    char out[2 * LS_CONFIG_PATH_MAX + 2];
    size_t pos = 0;
    out[0] = '\0';
    if (abs) out[pos++] = '/';
    for (int i = 0; i < np && pos < sizeof out - 1; ++i)
        pos += (size_t)snprintf(out + pos, sizeof out - pos, "%s%s", i ? "/" : "", parts[i]);
    if (pos == 0) snprintf(out, sizeof out, ".");
    out[sizeof out - 1] = '\0';
    strcpy(p, out);
}

static void dir_of(const char *path, char *out, size_t len)
{
    const char *s = strrchr(path, '/');
    if (!s) snprintf(out, len, ".");
    else if (s == path) snprintf(out, len, "/");
    else snprintf(out, len, "%.*s", (int)(s - path), path);
}

/* Reads a whole regular file of at most LS_YAMLTREE_MAX_BYTES. */
static char *read_file(const char *path, size_t *len, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "not a regular file");
        return NULL;
    }
    if (st.st_size > (off_t)LS_YAMLTREE_MAX_BYTES) {
        snprintf(why, whylen, "file larger than %u bytes", LS_YAMLTREE_MAX_BYTES);
        return NULL;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(why, whylen, "%s", strerror(errno));
        return NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        fclose(fp);
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    size_t n = fread(buf, 1, (size_t)st.st_size + 1, fp);
    fclose(fp);
    if (n > (size_t)st.st_size || n > LS_YAMLTREE_MAX_BYTES) {
        free(buf);
        snprintf(why, whylen, "file changed while reading");
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int parse_doc(ctx *c, const char *disp, const char *text, size_t len, ls_yamltree_doc *doc)
{
    int l, col;
    char msg[400];
    if (ls_yamltree_parse(text, len, doc, &l, &col, msg, sizeof msg)) {
        diag_set(c, disp, l, col, NULL, "%s", msg);
        return -1;
    }
    if (doc->root->kind != LS_YAMLTREE_MAP) {
        diag_set(c, disp, doc->root->line, doc->root->col, NULL,
                 "expected a mapping of configuration keys at the top level, got a %s",
                 doc->root->kind == LS_YAMLTREE_SEQ ? "sequence" : "scalar");
        ls_yamltree_free(doc);
        return -1;
    }
    return 0;
}

/* ---------------- applying trees ---------------- */

static int apply_map(ctx *c, const ls_yamltree_node *map, const char *prefix, const char *disp, const char *base_dir, int in_wl_file);

static void reset_workload(ctx *c)
{
    ls_config def;
    ls_config_defaults(&def);
    for (size_t i = 0; i < c->nschema; ++i) {
        const ls_config_schema_entry *e = &c->schema[i];
        if (strncmp(e->path, "workload.", 9)) continue;
        memcpy((char *)c->cfg + e->offset, (char *)&def + e->offset, e->size);
        c->locs[i].file = DEFAULT_FILE;
        c->locs[i].line = c->locs[i].col = 0;
    }
}

/* Applies a workload file: resets the workload section, then the file's keys. */
static int apply_workload_file(ctx *c, const char *path, const char *disp, int line, int col)
{
    char why[256];
    size_t len;
    char *text = read_file(path, &len, why, sizeof why);
    if (!text) {
        diag_set(c, disp, line, col, "workload.file", "cannot read workload file '%s': %s", path, why);
        return -1;
    }
    const char *wdisp = keep_name(c, path);
    ls_yamltree_doc doc;
    int rc = parse_doc(c, wdisp, text, len, &doc);
    free(text);
    if (rc) return -1;
    reset_workload(c);
    char bd[LS_CONFIG_PATH_MAX];
    dir_of(path, bd, sizeof bd);
    rc = apply_map(c, doc.root, "workload", wdisp, bd, 1);
    ls_yamltree_free(&doc);
    if (!rc) snprintf(c->cfg->workload_source, sizeof c->cfg->workload_source, "%s", path);
    c->cfg->workload.file[0] = '\0';
    return rc;
}

static int apply_file(ctx *c, const char *path, const char *disp_from, int line, int col);

static int apply_includes(ctx *c, const ls_yamltree_node *v, const char *disp, const char *base_dir)
{
    const ls_yamltree_node *items[64];
    int n = 0, rc = 0;
    if (v->kind == LS_YAMLTREE_SCALAR) items[n++] = v;
    else if (v->kind == LS_YAMLTREE_SEQ) {
        for (int i = 0; i < v->n; ++i) {
            if (v->kids[i]->kind != LS_YAMLTREE_SCALAR) {
                diag_set(c, disp, v->kids[i]->line, v->kids[i]->col, "include", "expected a file name, got a %s",
                         v->kids[i]->kind == LS_YAMLTREE_MAP ? "mapping" : v->kids[i]->kind == LS_YAMLTREE_SEQ ? "sequence" : "empty value");
                STOP_OR_GO_ON(c, rc);
            }
            if (n == 64) {
                diag_set(c, disp, v->kids[i]->line, v->kids[i]->col, "include", "more than 64 includes");
                return -1;
            }
            items[n++] = v->kids[i];
        }
    } else {
        diag_set(c, disp, v->line, v->col, "include", "expected a file name or a sequence of file names, got a %s",
                 v->kind == LS_YAMLTREE_MAP ? "mapping" : "empty value");
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        char p[2 * LS_CONFIG_PATH_MAX + 2];
        if (items[i]->text[0] == '/') snprintf(p, sizeof p, "%s", items[i]->text);
        else snprintf(p, sizeof p, "%s/%s", base_dir, items[i]->text);
        ls_config_path_normalize(p);
        if (apply_file(c, p, disp, items[i]->line, items[i]->col)) STOP_OR_GO_ON(c, rc);
    }
    return rc;
}

static int apply_root(ctx *c, const ls_yamltree_node *root, const char *disp, const char *base_dir)
{
    /* include: first, whatever its position */
    int rc = 0;
    for (int i = 0; i < root->n; i += 2)
        if (!strcmp(root->kids[i]->text, "include")) {
            if (apply_includes(c, root->kids[i + 1], disp, base_dir)) STOP_OR_GO_ON(c, rc);
        }
    for (int i = 0; i < root->n; i += 2)
        if (!strcmp(root->kids[i]->text, "version") && root->kids[i + 1]->kind == LS_YAMLTREE_SCALAR)
            snprintf(c->file_version, sizeof c->file_version, "%s", root->kids[i + 1]->text);
    return apply_map(c, root, "", disp, base_dir, 0) ? -1 : rc;
}

/* Reads, parses and applies one config file (a top-level file or an include). */
static int apply_file(ctx *c, const char *path, const char *disp_from, int line, int col)
{
    char why[256];
    const char *key = disp_from ? "include" : NULL;
    if (c->depth >= MAX_INCLUDE_DEPTH) {
        diag_set(c, disp_from, line, col, key, "includes nested deeper than %d levels", MAX_INCLUDE_DEPTH);
        return -1;
    }
    if (strlen(path) >= LS_CONFIG_PATH_MAX) { /* refused, not truncated into another directory */
        if (disp_from) diag_set(c, disp_from, line, col, key, "included path longer than %d bytes", LS_CONFIG_PATH_MAX - 1);
        else diag_set(c, "(configuration path)", 0, 0, NULL, "path longer than %d bytes", LS_CONFIG_PATH_MAX - 1);
        return -1;
    }
    char *real = realpath(path, NULL);
    if (!real) {
        if (disp_from) diag_set(c, disp_from, line, col, key, "cannot open included file '%s': %s", path, strerror(errno));
        else diag_set(c, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < c->depth; ++i)
        if (!strcmp(c->stack[i], real)) {
            char chain[1024];
            size_t pos = 0;
            chain[0] = '\0';
            for (int j = i; j < c->depth && pos < sizeof chain; ++j)
                pos += (size_t)snprintf(chain + pos, sizeof chain - pos, "%s -> ", c->stack_disp[j]);
            if (pos < sizeof chain) snprintf(chain + pos, sizeof chain - pos, "%s", path);
            diag_set(c, disp_from, line, col, key, "include cycle: %s", chain);
            free(real);
            return -1;
        }
    size_t len;
    char *text = read_file(path, &len, why, sizeof why);
    if (!text) {
        if (disp_from) diag_set(c, disp_from, line, col, key, "cannot read included file '%s': %s", path, why);
        else diag_set(c, path, 0, 0, NULL, "cannot read: %s", why);
        free(real);
        return -1;
    }
    const char *disp = keep_name(c, path);
    ls_yamltree_doc doc;
    int rc = parse_doc(c, disp, text, len, &doc);
    free(text);
    if (rc) {
        free(real);
        return -1;
    }
    if (!disp_from && doc.root->n == 0) /* an empty or all-comment file is legal, but rarely meant */
        diag_warn(c, "%s has no configuration keys: everything is at its default", disp);
    c->stack[c->depth] = real;
    c->stack_disp[c->depth] = disp;
    c->depth++;
    char bd[LS_CONFIG_PATH_MAX];
    dir_of(path, bd, sizeof bd);
    rc = apply_root(c, doc.root, disp, bd);
    c->depth--;
    free(real);
    ls_yamltree_free(&doc);
    return rc;
}

/* A sweep file or a workload file given where a configuration is expected: instead of a
 * did-you-mean for its first key, say what the file is and what to run. Returns 1 when it said so. */
static int wrong_kind_of_file(ctx *c, const ls_yamltree_node *root, const ls_yamltree_node *key, const char *disp)
{
    for (int i = 0; i < root->n; i += 2)
        if (!strcmp(root->kids[i]->text, "axes")) {
            diag_set(c, disp, root->kids[i]->line, root->kids[i]->col, "axes",
                     "this is a sweep file, not a configuration: run it with `lampsim sweep run %s`", disp);
            return 1;
        }
    char wk[512];
    snprintf(wk, sizeof wk, "workload.%s", key->text);
    if (!ls_config_schema_find(wk) && !is_section(wk)) return 0;
    diag_set(c, disp, key->line, key->col, key->text,
             "'%s' is a workload key: this looks like a workload file, not a configuration; use it with "
             "`lampsim run --set workload.file=%s` or `workload: {file: %s}` in a configuration", key->text, disp, disp);
    return 1;
}

static int apply_map(ctx *c, const ls_yamltree_node *map, const char *prefix, const char *disp, const char *base_dir, int in_wl_file)
{
    int rc = 0;
    for (int i = 2; i < map->n; i += 2)
        for (int j = 0; j < i; j += 2)
            if (!strcmp(map->kids[i]->text, map->kids[j]->text)) {
                char path[512];
                if (*prefix) snprintf(path, sizeof path, "%s.%s", prefix, map->kids[i]->text);
                else snprintf(path, sizeof path, "%s", map->kids[i]->text);
                diag_set(c, disp, map->kids[i]->line, map->kids[i]->col, path,
                         "duplicate key (first defined at line %d, column %d)", map->kids[j]->line, map->kids[j]->col);
                if (!c->problem) return -1;
                rc = -1;
                break;
            }
    /* workload.file first */
    if (!strcmp(prefix, "workload")) {
        for (int i = 0; i < map->n; i += 2) {
            const ls_yamltree_node *k = map->kids[i], *v = map->kids[i + 1];
            if (strcmp(k->text, "file")) continue;
            if (in_wl_file) {
                diag_set(c, disp, k->line, k->col, "workload.file", "a workload file cannot name another workload file");
                STOP_OR_GO_ON(c, rc);
            }
            const ls_config_schema_entry *e = ls_config_schema_find("workload.file");
            if (set_from_text(c, e, v->kind, v->text ? v->text : "", v->quoted, disp, v->line, v->col, base_dir))
                STOP_OR_GO_ON(c, rc);
            if (c->cfg->workload.file[0]) {
                char p[LS_CONFIG_PATH_MAX];
                snprintf(p, sizeof p, "%s", c->cfg->workload.file);
                if (apply_workload_file(c, p, disp, v->line, v->col)) STOP_OR_GO_ON(c, rc);
            }
        }
    }
    for (int i = 0; i < map->n; i += 2) {
        const ls_yamltree_node *k = map->kids[i], *v = map->kids[i + 1];
        char path[512];
        if (*prefix) snprintf(path, sizeof path, "%s.%s", prefix, k->text);
        else snprintf(path, sizeof path, "%s", k->text);
        if (!*prefix && !strcmp(k->text, "include")) continue;
        if (!strcmp(path, "workload.file")) continue;
        if (!*prefix && !strcmp(k->text, "version")) { /* informational, see finish() */
            if (v->kind == LS_YAMLTREE_MAP || v->kind == LS_YAMLTREE_SEQ) {
                diag_set(c, disp, v->line, v->col, "version", "expected a string, got a %s", v->kind == LS_YAMLTREE_MAP ? "mapping" : "sequence");
                STOP_OR_GO_ON(c, rc);
            }
            continue;
        }
        const ls_config_schema_entry *e = ls_config_schema_find(path);
        if (e) {
            if (set_from_text(c, e, v->kind, v->text ? v->text : "", v->quoted, disp, v->line, v->col, base_dir))
                STOP_OR_GO_ON(c, rc);
            size_t idx = (size_t)(e - c->schema);
            c->locs[idx].file = disp;
            c->locs[idx].line = v->line;
            c->locs[idx].col = v->col;
            continue;
        }
        if (is_section(path)) {
            if (v->kind == LS_YAMLTREE_NULL) continue;
            if (v->kind != LS_YAMLTREE_MAP) {
                diag_set(c, disp, v->line, v->col, path, "is a section; expected a mapping of its keys, got a %s",
                         v->kind == LS_YAMLTREE_SEQ ? "sequence" : "scalar");
                STOP_OR_GO_ON(c, rc);
            }
            if (apply_map(c, v, path, disp, base_dir, in_wl_file)) STOP_OR_GO_ON(c, rc);
            continue;
        }
        /* a sweep or workload file: one message for the file, not one per key */
        if (!*prefix && wrong_kind_of_file(c, map, k, disp)) return -1;
        char sug[256];
        if (in_wl_file && !strncmp(path, "workload.", 9) && ls_config_suggest(path, sug, sizeof sug))
            diag_set(c, disp, k->line, k->col, path, "unknown key; did you mean '%s'?", sug);
        else if (ls_config_suggest(path, sug, sizeof sug))
            diag_set(c, disp, k->line, k->col, path, "unknown key; did you mean '%s'?", sug);
        else
            diag_set(c, disp, k->line, k->col, path, "unknown key");
        STOP_OR_GO_ON(c, rc);
    }
    return rc;
}

/* ---------------- overrides ---------------- */

static int apply_override(ctx *c, const char *ov, int index)
{
    char disp[600];
    snprintf(disp, sizeof disp, "--set %.500s", ov);
    const char *d = keep_name(c, disp);
    (void)index;
    const char *eq = strchr(ov, '=');
    if (!eq || eq == ov) {
        diag_set(c, d, 0, 0, NULL, "expected key.path=value");
        return -1;
    }
    char key[512];
    snprintf(key, sizeof key, "%.*s", (int)(eq - ov) < 511 ? (int)(eq - ov) : 511, ov);
    /* trim spaces around the key */
    char *kp = key;
    while (*kp == ' ') kp++;
    size_t kl = strlen(kp);
    while (kl && kp[kl - 1] == ' ') kp[--kl] = '\0';
    const char *val = eq + 1;
    const ls_config_schema_entry *e = ls_config_schema_find(kp);
    if (!e) {
        char sug[256];
        if (is_section(kp)) diag_set(c, d, 0, 0, kp, "is a section; --set needs a full key path such as '%s.<key>'", kp);
        else if (ls_config_suggest(kp, sug, sizeof sug)) diag_set(c, d, 0, 0, kp, "unknown key; did you mean '%s'?", sug);
        else diag_set(c, d, 0, 0, kp, "unknown key");
        return -1;
    }
    while (*val == ' ' || *val == '\t') val++;
    size_t vl = strlen(val);
    while (vl && (val[vl - 1] == ' ' || val[vl - 1] == '\t')) vl--;
    char vbuf[LS_CONFIG_PATH_MAX + 8];
    int quoted = 0;
    if (vl >= 2 && ((val[0] == '"' && val[vl - 1] == '"') || (val[0] == '\'' && val[vl - 1] == '\''))) {
        snprintf(vbuf, sizeof vbuf, "%.*s", (int)(vl - 2), val + 1);
        quoted = 1;
    } else {
        snprintf(vbuf, sizeof vbuf, "%.*s", (int)vl, val);
    }
    ls_yamltree_kind kind = (!quoted && (vbuf[0] == '\0' || !strcmp(vbuf, "~") || !strcmp(vbuf, "null"))) ? LS_YAMLTREE_NULL : LS_YAMLTREE_SCALAR;
    char cwd[LS_CONFIG_PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
    if (set_from_text(c, e, kind, vbuf, quoted, d, 0, 0, cwd)) return -1;
    size_t idx = (size_t)(e - c->schema);
    c->locs[idx].file = d;
    c->locs[idx].line = c->locs[idx].col = 0;
    if (!strcmp(e->path, "workload.file") && c->cfg->workload.file[0]) {
        char p[LS_CONFIG_PATH_MAX];
        snprintf(p, sizeof p, "%s", c->cfg->workload.file);
        if (apply_workload_file(c, p, d, 0, 0)) return -1;
    }
    return 0;
}

/* ---------------- cross-field checks ---------------- */

static const loc *loc_of(ctx *c, const char *path)
{
    const ls_config_schema_entry *e = ls_config_schema_find(path);
    return &c->locs[e - c->schema];
}

static void err_at(ctx *c, const char *path, const char *fmt, ...)
{
    const loc *l = loc_of(c, path);
    char what[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    diag_set(c, l->file, l->line, l->col, path, "%s", what);
}

/* Of two keys, the one set last (by a file or --set) is usually the one to blame. */
static const char *later(ctx *c, const char *a, const char *b)
{
    const loc *la = loc_of(c, a), *lb = loc_of(c, b);
    if (la->file == DEFAULT_FILE) return b;
    if (lb->file == DEFAULT_FILE) return a;
    return a;
}

/* The six number formats resolve, and (hardware arithmetic) the LP ones index a LUT: the same
 * function the engine calls, so a bad name fails here with the key's file:line. */
static int check_formats(ctx *c)
{
    const ls_engine_params *a = &c->cfg->algorithm;
    lslamp_arith ar = a->arithmetic == LSLAMP_ARITH_PAPER ? LSLAMP_ARITH_PAPER : LSLAMP_ARITH_HARDWARE;
    lsfp_format f[LSLAMP_FMT_COUNT];
    char why[600], key[64];
    int which = 0;
    if (lslamp_formats_resolve(a->formats, ar, f, &which, why, sizeof why) != 0) {
        snprintf(key, sizeof key, "algorithm.%s", lslamp_fmt_knob[which]);
        err_at(c, key, "%s", why);
        return -1;
    }
    if (ar == LSLAMP_ARITH_HARDWARE && a->mode != LS_ENGINE_MODE_FA2_FP32 && a->mode != LS_ENGINE_MODE_FA3_FP8) {
        if (lsfp_exp_lut_check(&f[LSLAMP_FMT_LP_SHIFT], &f[LSLAMP_FMT_LP_EXP], why, sizeof why) != 0) {
            err_at(c, later(c, "algorithm.lp_shift_format", "algorithm.lp_format"), "%s (arithmetic hardware)", why);
            return -1;
        }
    }
    return 0;
}

/* A cross-field check failed: stop, or (ls_config_load_all) note it and run the others. */
#define FAILED_CHECK(c, rc)           \
    do {                              \
        if (!(c)->problem) return -1; \
        (rc) = -1;                    \
    } while (0)

static int check(ctx *c)
{
    int rc = 0;
    ls_config *g = c->cfg;
    ls_engine_params *a = &g->algorithm;
    ls_config_workload *w = &g->workload;
    if ((long)a->b_q * a->n_q > 1024) {
        err_at(c, later(c, "algorithm.n_q", "algorithm.b_q"),
               "query thread block b_q * n_q = %d * %d = %ld exceeds the limit of 1024 queries", a->b_q, a->n_q,
               (long)a->b_q * a->n_q);
        FAILED_CHECK(c, rc);
    }
    if ((long)a->b_k * a->n_k > 1024) {
        err_at(c, later(c, "algorithm.n_k", "algorithm.b_k"),
               "key tile b_k * n_k = %d * %d = %ld exceeds the limit of 1024 keys", a->b_k, a->n_k, (long)a->b_k * a->n_k);
        FAILED_CHECK(c, rc);
    }
    if (g->timed.timing_only) {
        /* the selection must not depend on the data, and there must be a timed model to run */
        if (a->mode != LS_ENGINE_MODE_FA2_16BIT && a->mode != LS_ENGINE_MODE_PURE_8BIT) {
            err_at(c, later(c, "timed.timing_only", "algorithm.mode"),
                   "timed.timing_only needs a data-independent selection (algorithm.mode fa2_16bit or pure_8bit); "
                   "mode %s %s", ls_config_enum_name("algorithm.mode", a->mode),
                   a->mode == LS_ENGINE_MODE_LAMP || a->mode == LS_ENGINE_MODE_LAMP_CODE || a->mode == LS_ENGINE_MODE_RANDOM
                       ? "selects sub-blocks from the data" : "does not run on the timed model");
            FAILED_CHECK(c, rc);
        }
        if (a->above_one == LSLAMP_ABOVE_RAISE) {
            err_at(c, later(c, "timed.timing_only", "algorithm.above_one"),
                   "timed.timing_only cannot time algorithm.above_one = raise (its cost depends on the data)");
            FAILED_CHECK(c, rc);
        }
        if (!g->timed.enabled) {
            err_at(c, later(c, "timed.timing_only", "timed.enabled"),
                   "timed.timing_only needs the timed model (timed.enabled true, no --golden)");
            FAILED_CHECK(c, rc);
        }
    }
    if (a->sample_query_blocks > 0 && (g->timed.timing_only || g->timed.unit_numerics)) {
        /* sampling is the golden engine's: the units' own numerics and a timing-only run compute no sample */
        const char *other = g->timed.timing_only ? "timed.timing_only" : "timed.unit_numerics";
        err_at(c, later(c, "algorithm.sample_query_blocks", other),
               "algorithm.sample_query_blocks samples the golden engine's numerics; %s computes %s (set it to 0)",
               other, g->timed.timing_only ? "none" : "them in the units");
        FAILED_CHECK(c, rc);
    }
    if (g->accelerator.tensor.lane_16bit == LSLANE16_TC_BF16 && g->timed.enabled && !g->timed.timing_only) {
        /* the price of a datapath the numerics do not compute would look like a result */
        err_at(c, later(c, "accelerator.tensor.lane_16bit", "timed.timing_only"),
               "tc_bf16 prices a bf16 x bf16 -> fp32 lane, which the numerics of mode %s do "
               "not compute (their 16-bit logits are e4m11): use it with timed.timing_only: true",
               ls_config_enum_name("algorithm.mode", a->mode));
        FAILED_CHECK(c, rc);
    }
    if (a->operand_format == LS_ENGINE_OPFMT_E4M3 && !g->timed.timing_only) {
        err_at(c, later(c, "algorithm.operand_format", "timed.timing_only"),
               "algorithm.operand_format e4m3 is timing only: set timed.timing_only: true (the numerics model 16-bit "
               "or fp32 inputs, not FP8 ones)");
        FAILED_CHECK(c, rc);
    }
    if (g->accelerator.regfile.max_contexts % g->accelerator.memory.kv_shared_contexts != 0) {
        err_at(c, later(c, "accelerator.memory.kv_shared_contexts", "accelerator.regfile.max_contexts"),
               "kv_shared_contexts = %d does not divide regfile.max_contexts = %d (resident contexts form whole blocks)",
               g->accelerator.memory.kv_shared_contexts, g->accelerator.regfile.max_contexts);
        FAILED_CHECK(c, rc);
    }
    if (check_formats(c) != 0) FAILED_CHECK(c, rc);
    if (a->lp_datapath == LSLAMP_LP_FUSED && a->chunk_k != 1) {
        err_at(c, later(c, "algorithm.lp_datapath", "algorithm.chunk_k"),
               "algorithm.lp_datapath fused sums its own groups of lp_fused_k products: chunk_k must be 1 (got %d)",
               a->chunk_k);
        FAILED_CHECK(c, rc);
    }
    if (a->lp_datapath == LSLAMP_LP_FUSED && a->rounding == LSFP_RND_STOCHASTIC) {
        err_at(c, later(c, "algorithm.lp_datapath", "algorithm.rounding"),
               "algorithm.lp_datapath fused rounds RNE or RTZ: algorithm.rounding stochastic is not supported");
        FAILED_CHECK(c, rc);
    }
    if (w->generator != LS_CONFIG_GEN_TRACE && w->dim % a->chunk_k != 0) {
        err_at(c, later(c, "algorithm.chunk_k", "workload.dim"), "chunk_k = %d does not divide workload.dim = %d",
               a->chunk_k, w->dim);
        FAILED_CHECK(c, rc);
    }
    if (w->generator != LS_CONFIG_GEN_TRACE) {
        if (w->heads_q % w->heads_kv != 0) {
            err_at(c, later(c, "workload.heads_kv", "workload.heads_q"),
                   "heads_kv = %d does not divide heads_q = %d (grouped-query attention needs heads_q = k * heads_kv)",
                   w->heads_kv, w->heads_q);
            FAILED_CHECK(c, rc);
        }
        if (w->causal && w->seq_q > w->seq_k) {
            err_at(c, later(c, "workload.seq_q", "workload.seq_k"),
                   "causal attention needs seq_q <= seq_k (got seq_q = %d, seq_k = %d): the first queries would see no key",
                   w->seq_q, w->seq_k);
            FAILED_CHECK(c, rc);
        }
        if (w->window > 0 && !w->causal) {
            err_at(c, later(c, "workload.window", "workload.causal"),
                   "a sliding window (window = %d) needs a causal mask (workload.causal: true)", w->window);
            FAILED_CHECK(c, rc);
        }
        ls_config_heads_id bad;
        char bad_why[400];
        if (w->generator == LS_CONFIG_GEN_HEADS && ls_config_heads_check(w, &bad, bad_why, sizeof bad_why)) {
            err_at(c, ls_config_heads_lists[bad].key, "%s", bad_why);
            FAILED_CHECK(c, rc);
        }
        if (w->generator == LS_CONFIG_GEN_QKNORM && w->rope.enabled && w->dim % 2) {
            err_at(c, "workload.dim", "rotary embeddings need an even head dimension, got %d", w->dim);
            FAILED_CHECK(c, rc);
        }
        if (w->generator == LS_CONFIG_GEN_QKNORM && w->sinks.count > w->seq_k) {
            err_at(c, "workload.sinks.count", "%d sink keys but only seq_k = %d keys", w->sinks.count, w->seq_k);
            FAILED_CHECK(c, rc);
        }
        double nq = (double)w->batch * w->heads_q * w->seq_q * w->dim;
        double nk = (double)w->batch * w->heads_kv * w->seq_k * w->dim;
        if (nq > (double)w->max_elements || nk > (double)w->max_elements) {
            const char *which = nq >= nk ? "workload.seq_q" : "workload.seq_k";
            err_at(c, which, "%s tensor of %.0f elements exceeds workload.max_elements = %lld", nq >= nk ? "Q" : "K/V",
                   nq >= nk ? nq : nk, (long long)w->max_elements);
            FAILED_CHECK(c, rc);
        }
        /* the work the run will do: a timing-only run computes no numerics, the golden engine alone
         * runs no timed model */
        ls_config_shape shape = { w->batch, w->heads_q, w->seq_q, w->seq_k, w->dim, w->causal, w->window };
        char why[256];
        const char *guard = NULL;
        if (ls_config_check_work(g, &shape, !g->timed.timing_only, g->timed.enabled, why, sizeof why, &guard)) {
            err_at(c, later(c, "workload.seq_q", "workload.seq_k"),
                   "%s (raise %s to run this; the run then prints a time estimate first)", why, guard);
            return -1;
        }
    } else {
        int have_npy = w->trace.q[0] || w->trace.k[0] || w->trace.v[0];
        if (have_npy && w->trace.safetensors[0]) {
            err_at(c, "workload.trace.safetensors", "give either trace.q/k/v (.npy) or trace.safetensors, not both");
            FAILED_CHECK(c, rc);
        }
        if (!have_npy && !w->trace.safetensors[0]) {
            err_at(c, "workload.generator", "generator trace needs trace.q, trace.k and trace.v (.npy) or trace.safetensors");
            FAILED_CHECK(c, rc);
        }
        if (have_npy && (!w->trace.q[0] || !w->trace.k[0] || !w->trace.v[0])) {
            const char *missing = !w->trace.q[0] ? "workload.trace.q" : !w->trace.k[0] ? "workload.trace.k" : "workload.trace.v";
            err_at(c, "workload.generator", "generator trace with .npy files needs %s too", missing);
            FAILED_CHECK(c, rc);
        }
    }
    return rc;
}

/* ---------------- entry points ---------------- */

const char *ls_config_version(void) { return LAMPSIM_VERSION "+" LAMPSIM_GIT_REV; }

void ls_config_defaults(ls_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    ctx c;
    memset(&c, 0, sizeof c);
    ls_config_diag d;
    memset(&d, 0, sizeof d);
    c.cfg = cfg;
    c.diag = &d;
    c.schema = s;
    c.nschema = n;
    loc dummy[1];
    c.locs = dummy;
    for (size_t i = 0; i < n; ++i)
        (void)set_from_text(&c, &s[i], s[i].def[0] ? LS_YAMLTREE_SCALAR : LS_YAMLTREE_NULL, s[i].def, 0, NULL, 0, 0, NULL);
    snprintf(cfg->version, sizeof cfg->version, "%s", ls_config_version());
}

static int finish(ctx *c)
{
    ls_config *g = c->cfg;
    if (!c->failed && check(c)) return -1;
    if (c->failed) return -1;
    if (c->file_version[0] && strcmp(c->file_version, ls_config_version()))
        diag_warn(c, "configuration written by lampsim %s, this is lampsim %s", c->file_version, ls_config_version());
    snprintf(g->version, sizeof g->version, "%s", ls_config_version());
    return 0;
}

static int load_common(ls_config *cfg, const char *path, const char *text, size_t len, const char *name,
                       const char *base_dir, const char *const *overrides, int n_overrides, ls_config_diag *diag,
                       void (*problem)(const char *message, void *ud), void *ud)
{
    ls_config_diag local;
    if (!diag) diag = &local;
    memset(diag, 0, sizeof *diag);
    ls_config_defaults(cfg);
    ctx c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    c.diag = diag;
    c.problem = problem;
    c.problem_ud = ud;
    c.schema = ls_config_schema(&c.nschema);
    c.locs = calloc(c.nschema, sizeof *c.locs);
    if (!c.locs) {
        snprintf(diag->message, sizeof diag->message, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < c.nschema; ++i) c.locs[i].file = DEFAULT_FILE;
    int rc = 0;
    if (path) {
        snprintf(cfg->source, sizeof cfg->source, "%s", path);
        rc = apply_file(&c, path, NULL, 0, 0);
    } else {
        const char *disp = keep_name(&c, name);
        snprintf(cfg->source, sizeof cfg->source, "%s", name);
        ls_yamltree_doc doc;
        rc = parse_doc(&c, disp, text, len, &doc);
        if (!rc) {
            char cwd[LS_CONFIG_PATH_MAX];
            if (!base_dir) base_dir = getcwd(cwd, sizeof cwd) ? cwd : ".";
            rc = apply_root(&c, doc.root, disp, base_dir);
            ls_yamltree_free(&doc);
        }
    }
    for (int i = 0; (!rc || problem) && i < n_overrides; ++i)
        if (overrides[i] && apply_override(&c, overrides[i], i)) rc = -1;
    if (!rc) rc = finish(&c);
    else c.failed = 1;
    free(c.locs);
    for (int i = 0; i < c.nfiles; ++i) free(c.files[i]);
    if (rc) {
        char src[LS_CONFIG_PATH_MAX];
        snprintf(src, sizeof src, "%s", cfg->source);
        ls_config_defaults(cfg);
        snprintf(cfg->source, sizeof cfg->source, "%s", src);
        if (!diag->message[0]) snprintf(diag->message, sizeof diag->message, "configuration error");
        return -1;
    }
    return 0;
}

int ls_config_load(ls_config *cfg, const char *path, const char *const *overrides, int n_overrides, ls_config_diag *diag)
{
    if (!path) {
        const char *t = ls_config_default_yaml;
        return load_common(cfg, NULL, t, strlen(t), "<embedded default>", NULL, overrides, n_overrides, diag, NULL, NULL);
    }
    return load_common(cfg, path, NULL, 0, NULL, NULL, overrides, n_overrides, diag, NULL, NULL);
}

int ls_config_load_all(ls_config *cfg, const char *path, const char *const *overrides, int n_overrides,
                       ls_config_diag *diag, void (*problem)(const char *message, void *ud), void *ud)
{
    if (!path) {
        const char *t = ls_config_default_yaml;
        return load_common(cfg, NULL, t, strlen(t), "<embedded default>", NULL, overrides, n_overrides, diag, problem, ud);
    }
    return load_common(cfg, path, NULL, 0, NULL, NULL, overrides, n_overrides, diag, problem, ud);
}

int ls_config_load_string(ls_config *cfg, const char *text, size_t len, const char *name, const char *base_dir,
                          const char *const *overrides, int n_overrides, ls_config_diag *diag)
{
    return load_common(cfg, NULL, text, len, name ? name : "<string>", base_dir, overrides, n_overrides, diag, NULL, NULL);
}

int ls_config_load_string_all(ls_config *cfg, const char *text, size_t len, const char *name, const char *base_dir,
                              const char *const *overrides, int n_overrides, ls_config_diag *diag,
                              void (*problem)(const char *message, void *ud), void *ud)
{
    return load_common(cfg, NULL, text, len, name ? name : "<string>", base_dir, overrides, n_overrides, diag, problem,
                       ud);
}

void ls_config_free(ls_config *cfg)
{
    /* All storage is inline; kept so callers need not change if that ever changes. */
    (void)cfg;
}

double ls_config_attention_work(int batch, int heads_q, int seq_q, int seq_k, int dim, bool causal)
{
    double pairs = (double)seq_q * seq_k;
    if (causal) pairs = (double)seq_q * ((double)seq_k - seq_q) + (double)seq_q * (seq_q + 1) / 2.0;
    return (double)batch * heads_q * pairs * dim;
}

double ls_config_attention_work_window(int batch, int heads_q, int seq_q, int seq_k, int dim, bool causal, int window)
{
    if (!causal || window <= 0) return ls_config_attention_work(batch, heads_q, seq_q, seq_k, dim, causal);
    /* query i sees keys (i + shift - window, i + shift] within [0, seq_k) */
    double pairs = 0.0;
    int64_t shift = (int64_t)seq_k - seq_q;
    for (int64_t i = 0; i < seq_q; i++) {
        int64_t hi = i + shift, lo = hi - window + 1;
        if (lo < 0) lo = 0;
        if (hi >= lo) pairs += (double)(hi - lo + 1);
    }
    return (double)batch * heads_q * pairs * dim;
}
