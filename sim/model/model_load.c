/* The model description file: parsing and validation with file:line:col errors. */
#define _POSIX_C_SOURCE 200809L  /* strdup */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "sweep.h"
#include "yamltree.h"

const char *const ls_model_key_names[LS_MODEL_NKEYS] = {"config", "workload", "batch", "heads_q", "heads_kv",
                                                        "dim", "prefill", "decode"};

typedef struct {
    const char *file;
    char *err;
    size_t errlen;
} merr;

static ls_model_pos pos_of(const ls_yamltree_node *n) { return (ls_model_pos){n->line, n->col}; }

static int fail(merr *e, const ls_yamltree_node *n, const char *key, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(e->err, e->errlen, "%s:%d:%d: %s: %s", e->file, n ? n->line : 0, n ? n->col : 0, key, what);
    return 2;
}

static int get_int(merr *e, const ls_yamltree_node *v, const char *key, long lo, long hi, int *out)
{
    if (v->kind != LS_YAMLTREE_SCALAR) return fail(e, v, key, "expected an integer");
    char *end;
    errno = 0;
    long x = strtol(v->text, &end, 10);
    if (errno || end == v->text || *end) return fail(e, v, key, "'%s' is not an integer", v->text);
    if (x < lo || x > hi) return fail(e, v, key, "%ld is out of range [%ld, %ld]", x, lo, hi);
    *out = (int)x;
    return 0;
}

/* path relative to the model file's directory, unless absolute */
static int get_path(merr *e, const ls_yamltree_node *v, const char *key, const char *dir, char *out, size_t len)
{
    if (v->kind != LS_YAMLTREE_SCALAR || !v->len) return fail(e, v, key, "expected a file path");
    int n = v->text[0] == '/' ? snprintf(out, len, "%s", v->text) : snprintf(out, len, "%s/%s", dir, v->text);
    if (n < 0 || (size_t)n >= len) return fail(e, v, key, "path too long");
    return 0;
}

static int parse_traces(merr *e, ls_model *m, const ls_yamltree_node *v, const char *dir)
{
    if (v->kind != LS_YAMLTREE_MAP) return fail(e, v, "traces", "expected a mapping of layer index to workload file");
    for (int i = 0; i + 1 < v->n; i += 2) {
        int layer = 0;
        if (get_int(e, v->kids[i], "traces", 0, m->layers - 1, &layer)) return 2;
        if (m->traces[layer])   /* 1 and 01 are one layer: compared by number, not text */
            return fail(e, v->kids[i], "traces", "layer %d: duplicate key (first defined at line %d, column %d)", layer,
                        m->trace_key_pos[layer].line, m->trace_key_pos[layer].col);
        char path[LS_CONFIG_PATH_MAX];
        if (get_path(e, v->kids[i + 1], "traces", dir, path, sizeof path)) return 2;
        if (!(m->traces[layer] = strdup(path))) return fail(e, v, "traces", "out of memory");
        m->trace_pos[layer] = pos_of(v->kids[i + 1]);
        m->trace_key_pos[layer] = pos_of(v->kids[i]);
    }
    return 0;
}

static int parse_pattern(merr *e, ls_model *m, const ls_yamltree_node *v)
{
    if (v->kind != LS_YAMLTREE_SEQ || v->n < 1 || v->n > LS_MODEL_MAX_LAYERS)
        return fail(e, v, "window_pattern", "expected a list of 1 to %d windows (0: a global layer)", LS_MODEL_MAX_LAYERS);
    m->window_pos = pos_of(v);
    for (int i = 0; i < v->n; i++)
        if (get_int(e, v->kids[i], "window_pattern", 0, 16777216, &m->window_pattern[i])) return 2;
    m->npattern = v->n;
    return 0;
}

static int parse_sets(merr *e, ls_model *m, const ls_yamltree_node *v)
{
    if (v->kind != LS_YAMLTREE_SEQ) return fail(e, v, "set", "expected a list of \"key=value\" strings");
    for (int i = 0; i < v->n; i++) {
        const ls_yamltree_node *s = v->kids[i];
        if (s->kind != LS_YAMLTREE_SCALAR || !strchr(s->text, '=')) return fail(e, s, "set", "expected \"key=value\"");
        if (m->nsets >= LS_MODEL_MAX_SETS) return fail(e, s, "set", "more than %d overrides", LS_MODEL_MAX_SETS);
        m->set_pos[m->nsets] = pos_of(s);
        if (!(m->sets[m->nsets++] = strdup(s->text))) return fail(e, s, "set", "out of memory");
    }
    return 0;
}

/* The value of key in mapping m (for a check between keys to point at the key), else m itself. */
static const ls_yamltree_node *value_of(const ls_yamltree_node *m, const char *key)
{
    for (int i = 0; i + 1 < m->n; i += 2)
        if (m->kids[i]->text && !strcmp(m->kids[i]->text, key)) return m->kids[i + 1];
    return m;
}

static int parse_root(merr *e, ls_model *m, const ls_yamltree_node *root, const char *dir)
{
    if (root->kind != LS_YAMLTREE_MAP) return fail(e, root, "(document)", "expected a mapping");
    const ls_yamltree_node *traces = NULL;
    int first, dup = ls_yamltree_duplicate_key(root, &first);
    if (dup >= 0)
        return fail(e, root->kids[dup], root->kids[dup]->text, "duplicate key (first defined at line %d, column %d)",
                    root->kids[first]->line, root->kids[first]->col);
    for (int i = 0; i + 1 < root->n; i += 2) {
        const ls_yamltree_node *k = root->kids[i], *v = root->kids[i + 1];
        const char *key = k->text ? k->text : "";
        int rc = 0;
        for (int j = 0; j < LS_MODEL_NKEYS; j++)
            if (!strcmp(key, ls_model_key_names[j])) m->pos[j] = pos_of(v);
        if (!strcmp(key, "name")) {
            if (v->kind != LS_YAMLTREE_SCALAR) rc = fail(e, v, key, "expected a string");
            else snprintf(m->name, sizeof m->name, "%s", v->text);
        } else if (!strcmp(key, "config")) rc = get_path(e, v, key, dir, m->config, sizeof m->config);
        else if (!strcmp(key, "workload")) rc = get_path(e, v, key, dir, m->workload, sizeof m->workload);
        else if (!strcmp(key, "layers")) rc = get_int(e, v, key, 1, LS_MODEL_MAX_LAYERS, &m->layers);
        else if (!strcmp(key, "heads_q")) rc = get_int(e, v, key, 1, 65536, &m->heads_q);
        else if (!strcmp(key, "heads_kv")) rc = get_int(e, v, key, 1, 65536, &m->heads_kv);
        else if (!strcmp(key, "dim")) rc = get_int(e, v, key, 1, 4096, &m->dim);
        else if (!strcmp(key, "batch")) rc = get_int(e, v, key, 1, 65536, &m->batch);
        else if (!strcmp(key, "prefill")) rc = get_int(e, v, key, 0, 16777216, &m->prefill);
        else if (!strcmp(key, "decode")) rc = get_int(e, v, key, 0, 16777216, &m->decode);
        else if (!strcmp(key, "decode_samples")) rc = get_int(e, v, key, 2, 1024, &m->decode_samples);
        else if (!strcmp(key, "set")) rc = parse_sets(e, m, v);
        else if (!strcmp(key, "window_pattern")) rc = parse_pattern(e, m, v);
        else if (!strcmp(key, "traces")) traces = v;   /* after `layers` is known */
        else rc = fail(e, k, key, "unknown key (name, config, workload, layers, heads_q, heads_kv, dim, batch, "
                                  "prefill, decode, decode_samples, set, traces, window_pattern)");
        if (rc) return rc;
    }
    static const char *const required[] = {"layers", "heads_q", "heads_kv", "dim"};
    const int *vals[] = {&m->layers, &m->heads_q, &m->heads_kv, &m->dim};
    for (int i = 0; i < 4; i++)
        if (!*vals[i]) return fail(e, root, required[i], "missing (required)");
    if (m->heads_q % m->heads_kv)
        return fail(e, value_of(root, "heads_kv"), "heads_kv", "heads_q %d is not a multiple of heads_kv %d", m->heads_q,
                    m->heads_kv);
    if (!m->prefill && !m->decode)
        return fail(e, value_of(root, "prefill"), "prefill", "prefill and decode are both 0: nothing to run");
    if (traces && parse_traces(e, m, traces, dir)) return 2;
    return 0;
}

int ls_model_load(ls_model *m, const char *path, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->batch = 1;
    m->decode_samples = 4;
    snprintf(m->path, sizeof m->path, "%s", path);
    merr e = {path, err, errlen};
    size_t len = 0;
    char *text = ls_sweep_read_file_max(path, &len, LS_YAMLTREE_MAX_BYTES);
    if (!text) {
        if (errno == EFBIG) snprintf(err, errlen, "%s: model file larger than %u bytes", path, LS_YAMLTREE_MAX_BYTES);
        else snprintf(err, errlen, "%s: cannot read the model file: %s", path, strerror(errno));
        return 2;
    }
    char dir[LS_CONFIG_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    ls_yamltree_doc doc;
    int line = 0, col = 0, rc = 0;
    char msg[512];
    if (ls_yamltree_parse(text, len, &doc, &line, &col, msg, sizeof msg)) {
        snprintf(err, errlen, "%s:%d:%d: %s", path, line, col, msg);
        rc = 2;
    } else {
        rc = parse_root(&e, m, doc.root, dir);
        ls_yamltree_free(&doc);
    }
    free(text);
    if (!rc && !m->name[0]) {
        const char *base = strrchr(path, '/');
        snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : path);
    }
    if (rc) ls_model_free(m);
    return rc;
}

void ls_model_free(ls_model *m)
{
    for (int i = 0; i < LS_MODEL_MAX_LAYERS; i++) free(m->traces[i]), m->traces[i] = NULL;
    for (int i = 0; i < m->nsets; i++) free(m->sets[i]);
    m->nsets = 0;
}
