/* Private: a YAML document parsed by libyaml into a small tree with source positions, with
 * bounded size (aliases counted as expanded), bounded depth, and duplicate keys rejected. */
#ifndef LAMPSIM_CONFIG_YAMLTREE_H
#define LAMPSIM_CONFIG_YAMLTREE_H
#include <stddef.h>

#define LS_YAMLTREE_MAX_BYTES (1u << 20)   /* largest config file */
#define LS_YAMLTREE_MAX_NODES 10000        /* nodes after alias expansion */
#define LS_YAMLTREE_MAX_DEPTH 32
#define LS_YAMLTREE_MAX_SCALAR 8192

typedef enum { LS_YAMLTREE_NULL, LS_YAMLTREE_SCALAR, LS_YAMLTREE_MAP, LS_YAMLTREE_SEQ } ls_yamltree_kind;

typedef struct ls_yamltree_node {
    ls_yamltree_kind kind;
    char *text;          /* scalars: NUL-terminated text */
    size_t len;
    int quoted;          /* scalar was quoted or tagged !!str */
    int line, col;       /* 1-based */
    struct ls_yamltree_node **kids;    /* maps: key, value, key, value...; sequences: items */
    int n, cap;          /* entries in kids */
    size_t weight;       /* nodes in the expanded subtree */
    int done;
} ls_yamltree_node;

typedef struct ls_yamltree_doc {
    ls_yamltree_node *root;            /* never NULL on success (an empty document is an empty map) */
    ls_yamltree_node **all;            /* every allocated node, for freeing */
    size_t nall, capall;
} ls_yamltree_doc;

/* Parses text; on error returns -1 and writes "line:col: message" parts. */
int ls_yamltree_parse(const char *text, size_t len, ls_yamltree_doc *doc, int *eline, int *ecol, char *emsg, size_t emsglen);
void ls_yamltree_free(ls_yamltree_doc *doc);
/* The index in m->kids of the first key of mapping m whose text repeats an earlier key's, or -1;
 * *first (may be NULL) gets the earlier key's index. libyaml accepts duplicate keys: every reader
 * of a lampsim file refuses them with "key: duplicate key (first defined at line L, column C)". */
int ls_yamltree_duplicate_key(const ls_yamltree_node *m, int *first);
static inline int ls_yamltree_map_len(const ls_yamltree_node *m) { return m->kind == LS_YAMLTREE_MAP ? m->n / 2 : 0; }
#endif
