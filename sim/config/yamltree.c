#include "yamltree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct {
    char *name;
    ls_yamltree_node *node;
} anchor;

typedef struct {
    ls_yamltree_doc *doc;
    anchor *anchors;
    int nanchors, capanchors;
    ls_yamltree_node *stack[LS_YAMLTREE_MAX_DEPTH + 2];
    int depth;
    size_t expanded;
    int line, col;
    char msg[256];
} pstate;

static ls_yamltree_node *new_node(pstate *s, ls_yamltree_kind kind, const yaml_mark_t *m)
{
    ls_yamltree_doc *d = s->doc;
    if (d->nall == d->capall) {
        size_t nc = d->capall ? 2 * d->capall : 64;
        ls_yamltree_node **na = realloc(d->all, nc * sizeof *na);
        if (!na) return NULL;
        d->all = na;
        d->capall = nc;
    }
    ls_yamltree_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    d->all[d->nall++] = n;
    n->kind = kind;
    n->line = (int)m->line + 1;
    n->col = (int)m->column + 1;
    n->weight = 1;
    return n;
}

static int fail(pstate *s, const yaml_mark_t *m, const char *msg)
{
    if (m) {
        s->line = (int)m->line + 1;
        s->col = (int)m->column + 1;
    }
    snprintf(s->msg, sizeof s->msg, "%s", msg);
    return -1;
}

static int add_kid(ls_yamltree_node *parent, ls_yamltree_node *kid)
{
    if (parent->n == parent->cap) {
        int nc = parent->cap ? 2 * parent->cap : 8;
        ls_yamltree_node **nk = realloc(parent->kids, (size_t)nc * sizeof *nk);
        if (!nk) return -1;
        parent->kids = nk;
        parent->cap = nc;
    }
    parent->kids[parent->n++] = kid;
    return 0;
}

/* Attaches a finished or starting node to the current container (or as the root). */
static int attach(pstate *s, ls_yamltree_node *node, const yaml_mark_t *m)
{
    if (s->depth == 0) {
        if (s->doc->root) return fail(s, m, "more than one root node");
        s->doc->root = node;
        return 0;
    }
    ls_yamltree_node *top = s->stack[s->depth - 1];
    if (top->kind == LS_YAMLTREE_MAP && top->n % 2 == 0) {
        /* a key */
        if (node->kind != LS_YAMLTREE_SCALAR) return fail(s, m, "mapping keys must be plain scalars");
        if (top->n / 2 >= 4096) return fail(s, m, "mapping has more than 4096 keys");
    }
    if (add_kid(top, node)) return fail(s, m, "out of memory");
    return 0;
}

static int register_anchor(pstate *s, const char *name, ls_yamltree_node *node)
{
    if (!name) return 0;
    for (int i = 0; i < s->nanchors; ++i)
        if (!strcmp(s->anchors[i].name, name)) { /* redefinition: the later one wins */
            s->anchors[i].node = node;
            return 0;
        }
    if (s->nanchors == s->capanchors) {
        int nc = s->capanchors ? 2 * s->capanchors : 8;
        anchor *na = realloc(s->anchors, (size_t)nc * sizeof *na);
        if (!na) return -1;
        s->anchors = na;
        s->capanchors = nc;
    }
    size_t l = strlen(name);
    char *c = malloc(l + 1);
    if (!c) return -1;
    memcpy(c, name, l + 1);
    s->anchors[s->nanchors].name = c;
    s->anchors[s->nanchors].node = node;
    s->nanchors++;
    return 0;
}

static int count(pstate *s, size_t w, const yaml_mark_t *m)
{
    s->expanded += w;
    if (s->expanded > LS_YAMLTREE_MAX_NODES || w > LS_YAMLTREE_MAX_NODES) {
        char b[160];
        snprintf(b, sizeof b, "document too large: more than %d nodes after expanding aliases", LS_YAMLTREE_MAX_NODES);
        return fail(s, m, b);
    }
    return 0;
}

static int handle(pstate *s, yaml_event_t *ev, int *ndocs)
{
    const yaml_mark_t *m = &ev->start_mark;
    switch (ev->type) {
    case YAML_STREAM_START_EVENT:
    case YAML_STREAM_END_EVENT:
    case YAML_NO_EVENT:
        return 0;
    case YAML_DOCUMENT_START_EVENT:
        if (++*ndocs > 1) return fail(s, m, "more than one YAML document in the file (remove the '---' separator)");
        return 0;
    case YAML_DOCUMENT_END_EVENT:
        return 0;
    case YAML_SCALAR_EVENT: {
        if (count(s, 1, m)) return -1;
        size_t len = ev->data.scalar.length;
        if (len > LS_YAMLTREE_MAX_SCALAR) return fail(s, m, "scalar longer than 8192 characters");
        const char *tag = (const char *)ev->data.scalar.tag;
        int is_str_tag = tag && !strcmp(tag, "tag:yaml.org,2002:str");
        if (tag && !is_str_tag && strcmp(tag, "tag:yaml.org,2002:int") && strcmp(tag, "tag:yaml.org,2002:float") &&
            strcmp(tag, "tag:yaml.org,2002:bool") && strcmp(tag, "tag:yaml.org,2002:null") && strcmp(tag, "!")) {
            char b[160];
            snprintf(b, sizeof b, "unsupported tag '%.80s'", tag);
            return fail(s, m, b);
        }
        const char *v = (const char *)ev->data.scalar.value;
        if (memchr(v, '\0', len)) return fail(s, m, "NUL character in scalar");
        int quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || is_str_tag;
        ls_yamltree_node *n = new_node(s, LS_YAMLTREE_SCALAR, m);
        if (!n) return fail(s, m, "out of memory");
        n->text = malloc(len + 1);
        if (!n->text) return fail(s, m, "out of memory");
        memcpy(n->text, v, len);
        n->text[len] = '\0';
        n->len = len;
        n->quoted = quoted;
        n->done = 1;
        if (!quoted && (len == 0 || !strcmp(n->text, "~") || !strcmp(n->text, "null") || !strcmp(n->text, "Null") ||
                        !strcmp(n->text, "NULL")))
            n->kind = LS_YAMLTREE_NULL;
        /* a null key is still a key: keep its text for messages */
        if (s->depth > 0 && s->stack[s->depth - 1]->kind == LS_YAMLTREE_MAP && s->stack[s->depth - 1]->n % 2 == 0)
            n->kind = LS_YAMLTREE_SCALAR;
        if (register_anchor(s, (const char *)ev->data.scalar.anchor, n)) return fail(s, m, "out of memory");
        return attach(s, n, m);
    }
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        ls_yamltree_node *target = NULL;
        for (int i = 0; i < s->nanchors; ++i)
            if (!strcmp(s->anchors[i].name, name)) target = s->anchors[i].node;
        if (!target) {
            char b[160];
            snprintf(b, sizeof b, "alias '*%.60s' refers to an undefined anchor", name);
            return fail(s, m, b);
        }
        if (!target->done) return fail(s, m, "recursive alias (an anchor referenced inside itself)");
        if (count(s, target->weight, m)) return -1;
        if (s->depth > 0) {
            ls_yamltree_node *top = s->stack[s->depth - 1];
            if (top->kind == LS_YAMLTREE_MAP && top->n % 2 == 0 && target->kind != LS_YAMLTREE_SCALAR)
                return fail(s, m, "mapping keys must be plain scalars");
            if (add_kid(top, target)) return fail(s, m, "out of memory");
        } else {
            s->doc->root = target;
        }
        return 0;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (count(s, 1, m)) return -1;
        if (s->depth >= LS_YAMLTREE_MAX_DEPTH) return fail(s, m, "nesting deeper than 32 levels");
        ls_yamltree_node *n = new_node(s, ev->type == YAML_MAPPING_START_EVENT ? LS_YAMLTREE_MAP : LS_YAMLTREE_SEQ, m);
        if (!n) return fail(s, m, "out of memory");
        const char *anc = (const char *)(ev->type == YAML_MAPPING_START_EVENT ? ev->data.mapping_start.anchor
                                                                               : ev->data.sequence_start.anchor);
        if (register_anchor(s, anc, n)) return fail(s, m, "out of memory");
        if (attach(s, n, m)) return -1;
        s->stack[s->depth++] = n;
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        ls_yamltree_node *n = s->stack[--s->depth];
        size_t w = 1;
        for (int i = 0; i < n->n; ++i) {
            w += n->kids[i]->weight;
            if (w > LS_YAMLTREE_MAX_NODES) w = LS_YAMLTREE_MAX_NODES + 1;
        }
        n->weight = w;
        n->done = 1;
        return 0;
    }
    }
    return 0;
}

int ls_yamltree_parse(const char *text, size_t len, ls_yamltree_doc *doc, int *eline, int *ecol, char *emsg, size_t emsglen)
{
    memset(doc, 0, sizeof *doc);
    *eline = *ecol = 0;
    if (len > LS_YAMLTREE_MAX_BYTES) {
        snprintf(emsg, emsglen, "file larger than %u bytes", LS_YAMLTREE_MAX_BYTES);
        return -1;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(emsg, emsglen, "cannot initialise the YAML parser");
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    pstate s;
    memset(&s, 0, sizeof s);
    s.doc = doc;
    int ndocs = 0, rc = 0, done = 0;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            const char *problem = parser.problem ? parser.problem : "unknown error";
            yaml_mark_t mk = parser.problem_mark;
            s.line = (int)mk.line + 1;
            s.col = (int)mk.column + 1;
            if (parser.context)
                snprintf(s.msg, sizeof s.msg, "YAML syntax error: %s (%s at line %d, column %d)", problem,
                         parser.context, (int)parser.context_mark.line + 1, (int)parser.context_mark.column + 1);
            else
                snprintf(s.msg, sizeof s.msg, "YAML syntax error: %s", problem);
            rc = -1;
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        if (handle(&s, &ev, &ndocs)) rc = -1;
        yaml_event_delete(&ev);
        if (rc) break;
    }
    yaml_parser_delete(&parser);
    for (int i = 0; i < s.nanchors; ++i) free(s.anchors[i].name);
    free(s.anchors);
    if (rc) {
        *eline = s.line;
        *ecol = s.col;
        snprintf(emsg, emsglen, "%s", s.msg);
        ls_yamltree_free(doc);
        return -1;
    }
    if (!doc->root || doc->root->kind == LS_YAMLTREE_NULL) {
        yaml_mark_t m0 = {0, 0, 0};
        pstate s2;
        memset(&s2, 0, sizeof s2);
        s2.doc = doc;
        ls_yamltree_node *r = new_node(&s2, LS_YAMLTREE_MAP, &m0);
        if (!r) {
            snprintf(emsg, emsglen, "out of memory");
            ls_yamltree_free(doc);
            return -1;
        }
        r->done = 1;
        doc->root = r;
    }
    return 0;
}

void ls_yamltree_free(ls_yamltree_doc *doc)
{
    if (!doc) return;
    for (size_t i = 0; i < doc->nall; ++i) {
        free(doc->all[i]->text);
        free(doc->all[i]->kids);
        free(doc->all[i]);
    }
    free(doc->all);
    memset(doc, 0, sizeof *doc);
}

int ls_yamltree_duplicate_key(const ls_yamltree_node *m, int *first)
{
    if (!m || m->kind != LS_YAMLTREE_MAP) return -1;
    for (int i = 2; i + 1 < m->n; i += 2)
        for (int j = 0; j < i; j += 2)
            if (m->kids[i]->text && m->kids[j]->text && !strcmp(m->kids[i]->text, m->kids[j]->text)) {
                if (first) *first = j;
                return i;
            }
    return -1;
}
