/* Private: a YAML document parsed by libyaml into a small tree with source positions, with
 * bounded size (aliases counted as expanded), bounded depth, and duplicate keys rejected. */
#ifndef LAMPSIM_CONFIG_YAMLTREE_H
#define LAMPSIM_CONFIG_YAMLTREE_H
#include <stddef.h>

#define LS_YAML_MAX_BYTES (1u << 20)   /* largest config file */
#define LS_YAML_MAX_NODES 10000        /* nodes after alias expansion */
#define LS_YAML_MAX_DEPTH 32
#define LS_YAML_MAX_SCALAR 8192

typedef enum { YN_NULL, YN_SCALAR, YN_MAP, YN_SEQ } yn_kind;

typedef struct ynode {
    yn_kind kind;
    char *text;          /* scalars: NUL-terminated text */
    size_t len;
    int quoted;          /* scalar was quoted or tagged !!str */
    int line, col;       /* 1-based */
    struct ynode **kids;    /* maps: key, value, key, value...; sequences: items */
    int n, cap;          /* entries in kids */
    size_t weight;       /* nodes in the expanded subtree */
    int done;
} ynode;

typedef struct ydoc {
    ynode *root;            /* never NULL on success (an empty document is an empty map) */
    ynode **all;            /* every allocated node, for freeing */
    size_t nall, capall;
} ydoc;

/* Parses text; on error returns -1 and writes "line:col: message" parts. */
int ls_yaml_parse(const char *text, size_t len, ydoc *doc, int *eline, int *ecol, char *emsg, size_t emsglen);
void ls_yaml_free(ydoc *doc);
static inline int yn_map_len(const ynode *m) { return m->kind == YN_MAP ? m->n / 2 : 0; }
#endif
