/* Sweeps: a base configuration plus axes of configuration keys, expanded into a manifest of
 * points with stable ids, run by local worker processes (resumable, shardable), and merged into
 * one CSV. A point of a sweep is exactly a `lampsim run` of its resolved configuration.
 *
 * Sweep file (YAML, docs/sweeps.md):
 *   name: tau_layout                  # optional; default: the file's base name
 *   description: "..."                # optional
 *   base: ../lampattention.yaml       # a config file (relative to the sweep file) or an inline mapping
 *   axes:                             # grid: the cartesian product of its entries, first entry slowest
 *     algorithm.tau: {geom: [1, 2^-5], points: 6}
 *     accelerator.regfile.layout: [compact, full]
 *     zip:                            # any key without a dot starting with "zip": lists advance together
 *       algorithm.b_k: [16, 32]
 *       algorithm.n_k: [4, 2]
 *   best: {minimise: cycles, over: [algorithm.b_k, ...], per: [algorithm.tau, ...]}   # optional
 * Values: an explicit list, one scalar, {lin: [a, b], points: n} or {geom: [a, b], points: n}. */
#ifndef LAMPSIM_SWEEP_SWEEP_H
#define LAMPSIM_SWEEP_SWEEP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

#define LS_SWEEP_ID_LEN 16          /* hex digits of a point id / cache key */
#ifndef LS_SWEEP_MAX_POINTS   /* the sweep-file fuzzer builds with a small limit */
#define LS_SWEEP_MAX_POINTS 100000
#endif

typedef struct {
    char *key;          /* config key, e.g. "algorithm.tau" */
    int n;              /* values */
    char **values;      /* override value text (YAML scalar; quoted strings keep their quotes) */
    int *line, *col;    /* where each value comes from (for messages) */
    int dim;            /* grid dimension this axis belongs to */
} ls_sweep_axis;

typedef struct {
    int index;                          /* position in the manifest */
    char id[LS_SWEEP_ID_LEN + 1];       /* hash of the resolved config text and lampsim version */
    char cache_key[LS_SWEEP_ID_LEN + 1];/* hash of the numerics-relevant keys (ls_sweep_cache_key) */
    char **overrides;                   /* "key=value", one per axis (naxes) */
} ls_sweep_point;

/* The objective of a sweep (`best:`): within each group of points sharing the values of the `per`
 * axes, the point minimising (or maximising) a report metric over the `over` axes wins. */
typedef struct {
    bool set;                       /* the sweep declares best: */
    char metric[64];                /* a report column (ls_sweep_best_metric) */
    bool maximise;
    int nover, nper;
    int *over, *per;                /* axis indices; every axis is in exactly one of the two */
    int line, col;                  /* of the metric in the sweep file */
} ls_sweep_best;

/* A point of a sweep with an objective whose configuration is refused or whose registers do not
 * fit: skipped (not in points[]) and counted. */
typedef struct {
    char **overrides;               /* "key=value", one per axis */
    char *why;                      /* the refusal */
} ls_sweep_infeasible;

typedef struct {
    char file[LS_CONFIG_PATH_MAX];     /* the sweep file as given */
    char name[LS_CONFIG_NAME_MAX];
    char description[LS_CONFIG_TEXT_MAX];
    char base_dir[LS_CONFIG_PATH_MAX]; /* directory of the sweep file */
    char *base_text;                /* YAML text of the base configuration */
    size_t base_len;
    char base_name[LS_CONFIG_PATH_MAX];/* name used in messages for base_text */
    char base_file_dir[LS_CONFIG_PATH_MAX]; /* directory relative paths of the base resolve against */
    int naxes, ndims;
    ls_sweep_axis *axes;
    int npoints;
    ls_sweep_point *points;
    ls_sweep_best best;
    int ninfeasible;                /* only with best: (else a refused point is an error) */
    ls_sweep_infeasible *infeasible;
} ls_sweep;

/* Parses and expands a sweep file; every point's configuration is loaded and checked. Returns 0,
 * or 2 with "file:line:col: key: what" in err. */
int ls_sweep_load(ls_sweep *sw, const char *path, char *err, size_t errlen);
/* Same from the text of a sweep file named path (messages; relative paths resolve against its
 * directory). */
int ls_sweep_load_text(ls_sweep *sw, const char *text, size_t len, const char *path, char *err, size_t errlen);
void ls_sweep_free(ls_sweep *sw);
/* Loads point p's configuration. Returns 0, or 2 with a message. */
int ls_sweep_point_config(const ls_sweep *sw, const ls_sweep_point *p, ls_config *cfg, char *err, size_t errlen);
/* Stable id of a configuration: 16 hex digits of a 64-bit hash of its resolved YAML (comments and
 * the git revision left out) followed by the lampsim release version. */
void ls_sweep_config_id(const ls_config *cfg, char out[LS_SWEEP_ID_LEN + 1]);
/* Cache key: hash of every numerics-relevant key (seed, algorithm.* but threads, workload.*,
 * timed.enabled, timed.program) and the release version. Points sharing it compute the same
 * arithmetic (O, tiles, recompute, accuracy, events, per-tile records); they differ in timing. */
void ls_sweep_cache_key(const ls_config *cfg, char out[LS_SWEEP_ID_LEN + 1]);
/* True when key (a schema path) is part of the cache key. */
bool ls_sweep_key_is_numeric(const char *key);
/* One manifest line (ends with '\n'): index TAB id TAB key=value TAB key=value ... */
void ls_sweep_manifest_line(const ls_sweep *sw, const ls_sweep_point *p, FILE *out);
/* The whole manifest as text (malloc'ed). */
char *ls_sweep_manifest_text(const ls_sweep *sw);

/* ---- point directories (sweep_names.c) ---- */
/* A point's directory is DIR/points/<name>, the name made of its axis values: the axes whose value
 * varies (all of them for a single point), each as short key = value joined by ',', the short key
 * being the key's last component (more components when two shown keys end alike), quotes dropped,
 * characters outside [A-Za-z0-9._+-] replaced by '_', e.g. "tau=0.5,layout=compact". Names equal
 * after that, or longer than 200 bytes, get "~<id>". No axes: the id. Returns npoints malloc'ed
 * names (ls_sweep_names_free), or NULL when out of memory. */
char **ls_sweep_dir_names(int npoints, int naxes, char *const *const *overrides, const char *const *ids);
char **ls_sweep_point_names(const ls_sweep *sw);
void ls_sweep_names_free(char **names, int n);
/* The shortest tail of key (whole dot-separated components) that no other of keys[0..n) ends in. */
const char *ls_sweep_short_key(const char *key, const char *const *keys, int n);
/* DIR/points/<name>, or DIR/points/<id> when only that exists (a sweep directory written before
 * points had names). Malloc'ed, or NULL. */
char *ls_sweep_point_path(const char *dir, const char *name, const char *id);

/* A sweep directory's manifest.tsv with each point's directory. */
typedef struct {
    char *text;        /* the manifest, split in place */
    int n, naxes;
    char **ids;        /* [n] */
    char ***overrides; /* [n][naxes] "key=value" */
    char **names;      /* [n] directory names */
    char **paths;      /* [n] point directories (ls_sweep_point_path) */
} ls_sweep_manifest;
/* Returns 0, or -1 (no manifest, malformed, out of memory). */
int ls_sweep_read_manifest(const char *dir, ls_sweep_manifest *m);
/* Checks a manifest.tsv's text of len bytes as sweep run writes it: at least one point, one line per
 * point "index TAB id [TAB key=value]...", indices 0, 1, ... in order, 16-hex-digit ids, the same
 * axes on every line, no blank or comment line, no NUL or carriage return. 0, or -1 with err =
 * "PATH: line N: what" (path names the file). */
int ls_sweep_check_manifest(const char *text, size_t len, const char *path, char *err, size_t errlen);
void ls_sweep_manifest_free(ls_sweep_manifest *m);

/* ---- objective (sweep_best.c) ---- */
/* The metrics an objective may name: NULL-terminated report column names, the timed model's first. */
extern const char *const ls_sweep_best_metrics[];
#define LS_SWEEP_N_TIMED_METRICS 11
/* True when metric comes from the timed model (cycles, time, energy). */
bool ls_sweep_best_metric_timed(const char *metric);
/* Moves point p's overrides into sw's infeasible points with the reason (1: out of memory). */
int ls_sweep_add_infeasible(ls_sweep *sw, ls_sweep_point *p, const char *why);
/* For a sweep with best: skips the points whose run would be refused before generating data
 * (ls_run_check: registers that do not fit, ...) and renumbers the others; checks that a timed
 * metric has timed points. No-op without best:. Returns 0, or 2 with "file:line:col: key: what". */
int ls_sweep_best_check(ls_sweep *sw, char *err, size_t errlen);
/* DIR/objective.tsv of a sweep with best: (malloc'ed text), or NULL without one. Lines:
 * "minimise|maximise TAB metric", "over TAB key...", "per TAB key...", then one
 * "infeasible TAB why TAB key=value..." per skipped point. */
char *ls_sweep_objective_text(const ls_sweep *sw);

/* DIR/objective.tsv read back (by the merger). */
typedef struct {
    bool set;                       /* the directory has an objective */
    char metric[64];
    bool maximise;
    char **per;                     /* the group axes' keys */
    int nper;
    int ninfeasible;
} ls_sweep_objective;
/* Returns 0 (ob->set false when DIR has no objective.tsv), or 2 with err for a malformed file. */
int ls_sweep_objective_read(const char *dir, ls_sweep_objective *ob, char *err, size_t errlen);
void ls_sweep_objective_free(ls_sweep_objective *ob);
/* One winner per group: rows with equal group[] strings compete; value[] NAN is no candidate; the
 * lowest (maximise: highest) value wins, ties to the earliest row. win[i] = 1 for the winners. */
void ls_sweep_best_pick(int n, const char *const *group, const double *value, bool maximise, char *win);

/* ---- running ---- */
typedef struct {
    const char *out_dir;  /* sweep directory */
    int jobs;             /* worker processes (>= 1) */
    int shard_i, shard_n; /* run points with index % shard_n == shard_i (shard_n 0: all) */
    const char **only;    /* run only these points (ids or indices); NULL: all */
    int nonly;
    bool reuse;           /* run points sharing a cache key in one worker, reusing the first one's
                             numerics (golden report copy, or the timed model's replay) */
    bool quiet;           /* no progress */
    int progress;         /* -1 auto (TTY), 0 plain lines, 1 TTY line */
    double progress_period; /* seconds between status lines (<= 0: 10 s plain, 0.5 s on a TTY) */
} ls_sweep_run_opts;

/* Runs the points. Returns 0 when every selected point is done, 1 when some failed, 2 for bad
 * input, 130 when interrupted by SIGINT/SIGTERM (finished points are kept). */
int ls_sweep_run(const ls_sweep *sw, const ls_sweep_run_opts *o, char *err, size_t errlen);

/* ---- merging ---- */
typedef struct {
    int total, done, failed, missing;
} ls_sweep_merge_stats;

/* Writes the merged CSV of a sweep directory to out: axis columns, point.index, point.id, then
 * the report columns (union, in order of first appearance). Missing and failed points are left
 * out and listed on msgs. Returns 0, or 2 (no manifest, mixed schema versions) with err. */
int ls_sweep_merge(const char *dir, FILE *out, FILE *msgs, ls_sweep_merge_stats *st, char *err, size_t errlen);

/* ---- small helpers shared with the CLI ---- */
/* Parses one CSV record at *pos (RFC 4180); returns the number of fields (malloc'ed strings in
 * *fields), or -1 at end of text. */
int ls_sweep_csv_record(const char *text, size_t *pos, char ***fields);
void ls_sweep_csv_free(char **fields, int n);
/* Writes one CSV field, quoted (RFC 4180) when it holds a comma, quote or line break. */
void ls_sweep_csv_cell(FILE *out, const char *s);
/* Reads a whole file (malloc'ed, NUL-terminated), or NULL. */
char *ls_sweep_read_file(const char *path, size_t *len);
/* The same, reading no more than max + 1 bytes: NULL with errno EFBIG past max (YAML inputs use
 * LS_YAMLTREE_MAX_BYTES, so /dev/zero is refused at once, not read until memory runs out). */
char *ls_sweep_read_file_max(const char *path, size_t *len, size_t max);

/* ---- what a DONE marker vouches for (sweep_done.c) ----
 * A point's DONE marker: its id, how it got its numerics, then the identity of the files its
 * configuration only names (its traces, a user microprogram), one line each: "input KEY SIZE
 * MTIME_S.MTIME_NS" or "input KEY missing" (KEY: workload.trace.q/k/v/safetensors, timed.program).
 * A resume recomputes a point whose files changed since. Size and modification time rather than a
 * content hash: every writer (np.save, cp, rsync, an editor) sets the mtime, so a rewrite is seen;
 * a resume stats the files instead of reading GiBs of traces; a file touched but unchanged only
 * costs a recompute, never a stale point. Not in the point id: an id stays the configuration's
 * own, the same on every machine and clone. Returns those lines (malloc'ed, "" for none), or NULL
 * when out of memory. */
char *ls_sweep_input_identity(const ls_config *cfg);
/* Why the DONE marker in pdir no longer vouches for the point of this id, whose input identity is
 * now ident (malloc'ed), or NULL when it does (or there is no DONE): the marker names another id
 * (the sweep's base or an include changed under the same axis values), or an input file differs
 * from the one the point was computed from (a marker without identities counts as differing when
 * the point has inputs). */
char *ls_sweep_done_stale(const char *pdir, const char *id, const char *ident);
#endif
