/* sim/model — model-level cycles: a model description (YAML: layers, heads, head dim, GQA, prefill
 * and decode lengths, optional per-layer traces) run layer by layer through the timed model, with
 * identical synthetic layers computed once and reused, rolled up into a per-layer table, the
 * prefill / decode split and cycle-weighted unit utilisation. See docs/models.md. */
#ifndef LAMPSIM_MODEL_MODEL_H
#define LAMPSIM_MODEL_MODEL_H
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "timed.h"

#define LS_MODEL_MAX_LAYERS 1024
#define LS_MODEL_MAX_SETS 64

/* Where a value of the model file is (1-based; 0: not given in the file), for errors that surface
 * later, when the configuration of a layer is loaded or its trace read. */
typedef struct {
    int line, col;
} ls_model_pos;

typedef enum {
    LS_MODEL_KEY_CONFIG, LS_MODEL_KEY_WORKLOAD, LS_MODEL_KEY_BATCH, LS_MODEL_KEY_HEADS_Q, LS_MODEL_KEY_HEADS_KV,
    LS_MODEL_KEY_DIM, LS_MODEL_KEY_PREFILL, LS_MODEL_KEY_DECODE, LS_MODEL_NKEYS
} ls_model_key;
extern const char *const ls_model_key_names[LS_MODEL_NKEYS];

typedef struct {
    char path[LS_CONFIG_PATH_MAX];         /* model file */
    char name[LS_CONFIG_NAME_MAX];
    char config[LS_CONFIG_PATH_MAX];       /* accelerator + algorithm configuration ("" = embedded default) */
    char workload[LS_CONFIG_PATH_MAX];     /* synthetic workload file for untraced layers ("" = the config's) */
    int layers, heads_q, heads_kv, dim, batch;
    int prefill;                        /* prompt tokens (0: no prefill phase) */
    int decode;                         /* generated tokens after the prompt (0: no decode phase) */
    int decode_samples;                 /* decode contexts simulated, interpolated between */
    char *traces[LS_MODEL_MAX_LAYERS];  /* per-layer prefill trace workload file, or NULL */
    /* window_pattern: per-layer sliding windows, the list repeated over the layers (layer l:
     * pattern[l % n]; 0 = a global layer). n = 0: no pattern (the workload's window everywhere). */
    int window_pattern[LS_MODEL_MAX_LAYERS], npattern;
    ls_model_pos window_pos;
    char *sets[LS_MODEL_MAX_SETS];      /* "key=value" overrides of the configuration */
    int nsets;
    ls_model_pos pos[LS_MODEL_NKEYS];      /* the values of the keys above */
    ls_model_pos set_pos[LS_MODEL_MAX_SETS];
    ls_model_pos trace_pos[LS_MODEL_MAX_LAYERS], trace_key_pos[LS_MODEL_MAX_LAYERS];
} ls_model;

/* Parses a model file. Returns 0, or 2 with "file:line:col: key: reason" in err (duplicate keys and
 * duplicate trace layers refused). Paths in the file are resolved against its directory. */
int ls_model_load(ls_model *m, const char *path, char *err, size_t errlen);
void ls_model_free(ls_model *m);

typedef struct {
    int layer;                 /* decode rows: -1 (the same for every layer; empty / null in the outputs) */
    int decode;                /* 0 prefill, 1 decode sample */
    int seq_q, seq_k;
    int window;                /* the layer's sliding window (0: global, or no window_pattern) */
    int layers;                /* decode rows: the layers this row's samples stand for */
    int traced;
    int reused_from;           /* index of the row whose simulation this row reuses, or -1 */
    uint64_t cycles;
    double time_us, disruptive_rate, subblock_rate;
    double util[LS_TIMED_NUNITS];
} ls_model_row;

typedef struct {
    ls_model_row *rows;
    int nrows;
    char unit_names[LS_TIMED_NUNITS][16];
    int nunits;
    int simulations;           /* timed-model runs actually made */
    uint64_t prefill_cycles;   /* summed over layers */
    uint64_t decode_cycles;    /* summed over layers and decode steps (interpolated between samples) */
    double clock_ghz;
    double util[LS_TIMED_NUNITS]; /* cycle-weighted over the whole model */
    double wall_seconds;       /* host time (never in the report) */
    char mode[32];             /* algorithm.mode of the simulations */
    char layout[16];           /* the register layout the timed model ran (occupancy.layout) */
} ls_model_result;

/* Runs every layer (and decode samples) through the timed model; extra_sets ("key=value") apply
 * after the model file's. Progress lines go to progress if non-NULL. Returns 0, 2 for bad input
 * (config, workload, a trace's shape or a sequence length other than prefill), 1 for a run failure,
 * with a message in err that names the model file's line, column and key when one of its values is
 * the cause. */
int ls_model_run(const ls_model *m, const char *const *extra_sets, int n_extra, FILE *progress,
                 ls_model_result *r, char *err, size_t errlen);
void ls_model_result_free(ls_model_result *r);

/* The human summary, report.json text and layers.csv text (malloc'ed; NULL on allocation failure). */
void ls_model_summary(FILE *out, const ls_model *m, const ls_model_result *r);
/* The outputs share the run report's schema family (docs/reports.md, "Model reports"): report.json
 * and report.csv carry schema_version, lampsim.version, mode, workload.*, cycles, time_us and
 * units.<unit>.utilisation as a run's do (so `lampsim compare` and `report` read a model
 * directory), report.json adds the per-row table as "layers"; layers.csv names its columns as
 * the report does (tiles.disruptive_rate, units.<unit>.utilisation), a decode row's layer empty. */
char *ls_model_report_json(const ls_model *m, const ls_model_result *r);
char *ls_model_report_csv(const ls_model *m, const ls_model_result *r);
char *ls_model_layers_csv(const ls_model_result *r);
#endif
