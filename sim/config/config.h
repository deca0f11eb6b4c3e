/* lampsim configuration: a typed structure filled from YAML (libyaml) through one schema table.
 *
 * Layers, later ones win: schema defaults -> the file's includes (in order, recursively) -> the
 * file itself -> --set overrides. A `workload.file` reference replaces the whole workload
 * section by defaults + that workload file, then the other workload keys of the same mapping
 * apply on top. Relative paths (includes, workload files, traces) are resolved against the
 * directory of the file that names them. Every error names file:line:column, the key path and
 * what was expected; loading never crashes on any input. */
#ifndef LAMPSIM_CONFIG_CONFIG_H
#define LAMPSIM_CONFIG_CONFIG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The algorithm section is the engine's parameter struct (ls_engine_params), whose choices have
 * one enum each, in the lowest layer that uses it: number formats (lsfp_rounding, lsfp_overflow,
 * lsfp_acc_order), the block procedure (lslamp_arith, ...), the engine (ls_engine_mode, ...).
 * The schema's names list each enum's spellings in value order. */
#include "engine.h"
#include "lsfp.h"
#include "lslamp.h"
#include "lsunit_params.h"

#define LS_CONFIG_NAME_MAX 128
#define LS_CONFIG_TEXT_MAX 512
#define LS_CONFIG_PATH_MAX 1024
#define LS_CONFIG_LIST_MAX 32768   /* a per-(head, pair) knob list of the heads generator */

/* ---- enumerations of the configuration's own choices (order = the schema's names) ---- */
typedef enum { LS_CONFIG_DTYPE_FP32, LS_CONFIG_DTYPE_BF16, LS_CONFIG_DTYPE_FP16 } ls_config_dtype;
typedef enum { LS_CONFIG_GEN_GAUSSIAN, LS_CONFIG_GEN_QKNORM, LS_CONFIG_GEN_TRACE, LS_CONFIG_GEN_HEADS } ls_config_generator;

/* picojoules per action (Accelergy style: the timed model counts actions, see timed_energy.h) and the area
 * table (square micrometres per instance at the area model's node, 7 nm; sim/timed/timed_area.h) with leakage
 * per mm2: each unit declares its own rows (LSCOST in hw/<folder>/<section>.params), the technology's table
 * is hw/cost/tech.params; the structs are generated from them (hw/unit/lsunit_params.h). */
typedef lsunit_energy_params ls_config_energy;
typedef lsunit_area_params ls_config_area;

typedef struct ls_config_accelerator {
    char name[LS_CONFIG_NAME_MAX];
    int cores;
    double clock_ghz;
    int warp_size, max_warps, max_ctas;
    int interleave_cycles;              /* slice size with which contexts share a unit (0 = whole instructions) */
    bool skip_masked;                   /* false: a computed tile costs its masked warps / sub-blocks too */
    int scheduling;                     /* lsseq_schedule: the order work items go to the slots */
    int launch_cycles;                  /* fixed cost of a launch before the first item starts */
    int item_setup_cycles;              /* fixed latency between a slot taking an item and its first instruction */
    /* the units' sections, declared by the units (hw/<folder>/<section>.params, hw/unit/lsunit_params.h) */
    lsunit_issue_params issue;          /* the cores' instruction issue (0 per cycle: not modelled) */
    lsunit_tensor_params tensor;
    lsunit_lut_params lut;
    lsunit_sfu_params sfu;
    lsunit_vector_params vector;
    lsunit_scheduler_params scheduler;
    lsunit_regfile_params regfile;      /* layout: lsregfile_layout; q/o_placement: lsregfile_place */
    lsunit_memory_params memory;        /* the on-chip buffer and its port, L2, DRAM */
    ls_config_energy energy;
    ls_config_area area;
} ls_config_accelerator;

typedef struct ls_config_workload {
    char file[LS_CONFIG_PATH_MAX];        /* consumed while loading; empty in a loaded config */
    char name[LS_CONFIG_NAME_MAX];
    char description[LS_CONFIG_TEXT_MAX];
    int batch, heads_q, heads_kv, seq_q, seq_k, dim;
    bool causal;
    int window;                           /* sliding window in keys (causal only), 0 = none */
    int split_kv;                         /* KV splits per query block (1 = none, 0 = auto) */
    bool pack_gqa;                        /* GQA packing: a KV head's query heads in one block */
    ls_config_dtype dtype;
    ls_config_generator generator;
    int64_t seed;                       /* -1: use the top-level seed */
    double std, v_std, sharpness, head_variety, locality;
    struct { double gain, gain_spread; bool enforce_bound; } qknorm;
    struct { bool enabled; double base; } rope;
    struct { int count; double strength; } sinks;
    /* heads generator: per-query-head knobs as lists of numbers (one number: every head) */
    struct { char scale[LS_CONFIG_PATH_MAX], bias[LS_CONFIG_PATH_MAX], sink[LS_CONFIG_PATH_MAX],
             recency[LS_CONFIG_PATH_MAX], decay[LS_CONFIG_PATH_MAX], jitter[LS_CONFIG_PATH_MAX];
             /* pairs > 0: the distance profile is a sum of rotary pairs (freq per KV head and pair,
              * amp_cos / amp_sin per query head and pair) instead of key identities (recency, decay) */
             int pairs;
             char sink_spread[LS_CONFIG_PATH_MAX], key_share[LS_CONFIG_PATH_MAX], noise_flip[LS_CONFIG_PATH_MAX];
             char freq[LS_CONFIG_LIST_MAX], amp_cos[LS_CONFIG_LIST_MAX], amp_sin[LS_CONFIG_LIST_MAX];
             char noise_cos[LS_CONFIG_LIST_MAX], noise_sin[LS_CONFIG_LIST_MAX];
             bool qk_norm; } heads;
    int64_t max_elements;               /* per operand tensor */
    int64_t max_work;                   /* multiply-adds of Q.K^T computed (ls_config_check_work) */
    int64_t max_steps;                  /* the timed model's tile steps (ls_config_tile_steps) */
    struct { char q[LS_CONFIG_PATH_MAX], k[LS_CONFIG_PATH_MAX], v[LS_CONFIG_PATH_MAX], safetensors[LS_CONFIG_PATH_MAX];
             char q_name[LS_CONFIG_NAME_MAX], k_name[LS_CONFIG_NAME_MAX], v_name[LS_CONFIG_NAME_MAX]; } trace;
} ls_config_workload;

typedef struct ls_config_timed {
    bool enabled;                       /* run the timed SystemC model (else the golden engine only) */
    char program[LS_CONFIG_PATH_MAX];      /* user microprogram (.lasm), "" = the shipped one for the mode */
    bool trace;                         /* write DIR/trace.json (Perfetto / Chrome timeline) */
    int trace_first_tile, trace_tiles;
    int64_t trace_max_events;
    bool reuse_numerics;                /* timing-only replay from an in-process cache */
    char numerics_dir[LS_CONFIG_PATH_MAX]; /* reuse_numerics: the cache also on disk there, "" = in-process only */
    bool unit_numerics;                 /* the units compute the numerics (else the golden engine first) */
    bool timing_only;                   /* fa2_16bit / pure_8bit: no arithmetic, selection from geometry */
    bool fast_forward;                  /* time a few batch repetitions and extrapolate (timed.h) */
} ls_config_timed;

typedef struct ls_config {
    char version[LS_CONFIG_NAME_MAX];      /* lampsim version that resolved this config */
    char description[LS_CONFIG_TEXT_MAX];
    int64_t seed;
    ls_config_accelerator accelerator;
    ls_engine_params algorithm;         /* algorithm.*: the engine's parameters (engine.h) */
    ls_config_workload workload;
    ls_config_timed timed;
    /* provenance, not part of the configuration proper (not compared, not dumped) */
    char source[LS_CONFIG_PATH_MAX];          /* the top-level file, or "<embedded default>" */
    char workload_source[LS_CONFIG_PATH_MAX]; /* the last workload file applied, if any */
} ls_config;

/* ---- diagnostics ---- */
#define LS_CONFIG_DIAG_MAX_WARN 8
typedef struct ls_config_diag {
    char message[1536];    /* "file:line:col: key.path: what was wrong" (empty when no error) */
    char file[LS_CONFIG_PATH_MAX];
    int line, column;      /* 1-based; 0 when unknown (e.g. --set) */
    char key[256];
    int n_warnings;
    char warnings[LS_CONFIG_DIAG_MAX_WARN][384];
} ls_config_diag;

/* ---- schema ---- */
typedef enum { LS_CONFIG_T_INT, LS_CONFIG_T_INT64, LS_CONFIG_T_DOUBLE, LS_CONFIG_T_BOOL, LS_CONFIG_T_STRING, LS_CONFIG_T_PATH, LS_CONFIG_T_ENUM } ls_config_type;

typedef struct ls_config_schema_entry {
    const char *path;          /* "algorithm.tau" */
    ls_config_type type;
    size_t offset;             /* into ls_config */
    size_t size;               /* for strings: capacity */
    const char *def;           /* default, as YAML scalar text */
    double min, max;           /* inclusive range for numbers */
    const char *const *names;  /* enum spellings, NULL-terminated */
    const char *help;
    unsigned flags;
} ls_config_schema_entry;

#define LS_CONFIG_SF_NODUMP 1u   /* not written to the resolved YAML (workload.file) */
#define LS_CONFIG_SF_NOREPORT 2u /* host-dependent, not in the report's config section (algorithm.threads) */
#define LS_CONFIG_SF_DUMP_IF_SET 4u /* written to the resolved YAML only when not the default: a guard added
                                       later (workload.max_work) changes no sweep point's id */

const ls_config_schema_entry *ls_config_schema(size_t *count);
const ls_config_schema_entry *ls_config_schema_find(const char *path);
/* The heads generator's lists (workload.heads.*): per query head, per (query head, pair) or per (KV head, pair), each
 * with its range; one number stands for all (sim/config/heads_lists.c). The loader checks them, the generator parses
 * them. */
typedef enum {
    LS_CONFIG_HEADS_SCALE, LS_CONFIG_HEADS_BIAS, LS_CONFIG_HEADS_SINK, LS_CONFIG_HEADS_RECENCY, LS_CONFIG_HEADS_DECAY,
    LS_CONFIG_HEADS_JITTER, LS_CONFIG_HEADS_SINK_SPREAD, LS_CONFIG_HEADS_KEY_SHARE, LS_CONFIG_HEADS_NOISE_FLIP,
    LS_CONFIG_HEADS_FREQ, LS_CONFIG_HEADS_AMP_COS, LS_CONFIG_HEADS_AMP_SIN, LS_CONFIG_HEADS_NOISE_COS,
    LS_CONFIG_HEADS_NOISE_SIN, LS_CONFIG_HEADS_NLISTS
} ls_config_heads_id;
typedef enum {
    LS_CONFIG_HEADS_PER_QHEAD, LS_CONFIG_HEADS_PAIRS_PER_QHEAD, LS_CONFIG_HEADS_PAIRS_PER_KVHEAD
} ls_config_heads_len_kind;
typedef struct {
    const char *key;
    size_t off;                     /* of the list's text in ls_config_workload */
    double lo, hi;
    ls_config_heads_len_kind len;
} ls_config_heads_list;
extern const ls_config_heads_list ls_config_heads_lists[LS_CONFIG_HEADS_NLISTS];
/* Values the list holds for w's heads and pairs. */
int ls_config_heads_len(ls_config_heads_id id, const ls_config_workload *w);
/* Parses list id of w ("1.5 2 0.25", comma or space separated) into out (ls_config_heads_len values; NULL: check
 * only). Returns 0, or -1 with a message (without the key). */
int ls_config_heads_parse(ls_config_heads_id id, const ls_config_workload *w, double *out, char *err, size_t errlen);
/* Every list w's generator reads (the pair lists only with heads.pairs > 0); -1: *bad the first bad one. */
int ls_config_heads_check(const ls_config_workload *w, ls_config_heads_id *bad, char *err, size_t errlen);

/* The work that workload.max_work bounds: multiply-adds of Q.K^T over the visible query-key pairs
 * (causal: query i sees the keys up to i + seq_k - seq_q). */
double ls_config_attention_work(int batch, int heads_q, int seq_q, int seq_k, int dim, bool causal);
/* The same with a sliding window of `window` keys (causal; 0 = none): the visible pairs x dim. */
double ls_config_attention_work_window(int batch, int heads_q, int seq_q, int seq_k, int dim, bool causal, int window);
/* The timed model's tile steps: batch x heads_q x the (query block of `rows`, key tile of `keys`)
 * pairs that hold a visible key; what workload.max_steps bounds (sim/config/guard.c). */
double ls_config_tile_steps(int batch, int heads_q, int seq_q, int seq_k, bool causal, int window, int rows, int keys);
typedef struct ls_config_shape { int batch, heads_q, seq_q, seq_k, dim; bool causal; int window; } ls_config_shape;
/* The work guards on a run of shape s: multiply-adds of Q.K^T against workload.max_work when the run
 * computes numerics (not timed.timing_only), tile steps against workload.max_steps when it runs the
 * timed model. 0, or -1 with msg set and *key (if given) the guard's key. */
int ls_config_check_work(const ls_config *cfg, const ls_config_shape *s, bool numerics, bool timed, char *msg,
                         size_t len, const char **key);
/* Closest schema key or section to path (the "did you mean"); 1 when a suggestion was written. */
int ls_config_suggest(const char *path, char *out, size_t outlen);
/* The modes that read key (space-separated, e.g. "lamp" for algorithm.tau), or NULL when every
 * mode does; a leading "config." is ignored (sim/config/modes.c). */
const char *ls_config_key_modes(const char *key);
/* False when mode (e.g. "pure_8bit") does not read key: labels and point names leave it out. */
bool ls_config_key_applies(const char *key, const char *mode);

/* ---- provenance of the LampAttention preset's values (sim/config/provenance.c) ----
 * Every timing and energy value of configs/lampattention.yaml (= the schema defaults of the
 * accelerator section) and every key the preset sets has one entry: a source (paper and section,
 * datasheet, microbenchmark, public simulator configuration) or an estimate with a plausible
 * [low, high] range and one line of reasoning. Energy entries name the process node their value
 * stands for. tests/config checks that no such key lacks an entry and that low <= default <= high. */
/* SYNTHESIZED: a figure of this project's own synthesis of the unit (rtl/, docs/rtl.md), with the error
 * bars of its gate-to-silicon model as its range; like an estimate it has a range (ls_config_prov_ranged). */
typedef enum { LS_CONFIG_PROV_SOURCE, LS_CONFIG_PROV_ESTIMATE, LS_CONFIG_PROV_SYNTHESIZED } ls_config_prov_kind;

typedef struct ls_config_provenance {
    const char *key;            /* schema path */
    ls_config_prov_kind kind;
    double low, high;           /* estimates and synthesized: the plausible range, inclusive (0, 0 for sources) */
    const char *node;           /* energy and area keys: the process node the value stands for; NULL otherwise */
    const char *text;           /* source: where the value is stated; estimate: one line of reasoning */
} ls_config_provenance;

const ls_config_provenance *ls_config_provenance_table(size_t *count);
const ls_config_provenance *ls_config_provenance_find(const char *key);
/* The entry of a GPU preset (by accelerator.name: h200, h100_pcie) for a key its envelope sets, which
 * replaces the LampAttention entry for that preset; NULL if the preset does not restate the key. */
const ls_config_provenance *ls_config_provenance_preset(const char *preset, const char *key);
const char *ls_config_prov_kind_name(ls_config_prov_kind k);   /* "source", "estimate", "synthesized" */
/* 1 for the kinds that carry a [low, high] range (estimate, synthesized). */
int ls_config_prov_ranged(ls_config_prov_kind k);

/* One estimate with the value it has in a configuration: what a one-at-a-time sensitivity
 * analysis (low / high of every estimate) needs. */
typedef struct ls_config_estimate {
    const char *key;
    double value;               /* in the configuration given (its default when that was NULL) */
    double def;                 /* the schema default = the LampAttention preset's value */
    double low, high;
    bool integer;               /* an integer key: low and high are whole numbers */
    const char *node, *reason;
    ls_config_prov_kind kind;   /* estimate or synthesized */
} ls_config_estimate;

/* The estimates (every ranged entry: estimate or synthesized) in table order, valued in cfg (NULL: the defaults). Writes at most cap entries
 * and returns how many exist. */
size_t ls_config_estimates(const ls_config *cfg, ls_config_estimate *out, size_t cap);
/* The value of a numeric key (int, int64 or number) in cfg; 0, or -1 for another type or key. */
int ls_config_number(const ls_config *cfg, const char *key, double *value);
/* "key=value" for ls_config_load's overrides (integers without a fraction); 0, or -1 when the key is
 * not numeric or the text does not fit. */
int ls_config_override_text(const char *key, double value, char *buf, size_t len);

/* ---- API ---- */
/* path NULL: the embedded default (configs/default.yaml compiled in). Overrides are
 * "key.path=value" strings. Returns 0, or -1 with diag filled and cfg left at defaults. */
int ls_config_load(ls_config *cfg, const char *path, const char *const *overrides, int n_overrides, ls_config_diag *diag);
/* Like ls_config_load, but every problem is reported, not only the first: problem(message, ud) is
 * called for each ("file:line:col: key.path: what"), in the order the files and --set overrides
 * are applied; diag holds the first. The checks between keys (b_q * n_q, heads_kv | heads_q, ...)
 * run, all of them, once every value is valid. Returns 0 or -1 (`lampsim validate`). */
int ls_config_load_all(ls_config *cfg, const char *path, const char *const *overrides, int n_overrides,
                       ls_config_diag *diag, void (*problem)(const char *message, void *ud), void *ud);
/* Same from a YAML text; name is used in messages and relative paths resolve against base_dir
 * (NULL: the current directory). */
int ls_config_load_string(ls_config *cfg, const char *text, size_t len, const char *name, const char *base_dir,
                          const char *const *overrides, int n_overrides, ls_config_diag *diag);
/* ls_config_load_string reporting every problem, as ls_config_load_all. */
int ls_config_load_string_all(ls_config *cfg, const char *text, size_t len, const char *name, const char *base_dir,
                              const char *const *overrides, int n_overrides, ls_config_diag *diag,
                              void (*problem)(const char *message, void *ud), void *ud);
/* Only the schema defaults (no YAML). */
void ls_config_defaults(ls_config *cfg);
/* Writes the resolved configuration as YAML; reloading it yields an identical config. */
/* s as a YAML double-quoted scalar (quotes, backslashes, line breaks and non-printables escaped):
 * every string lampsim writes into YAML goes through it, so no value can inject a key. */
void ls_config_write_yaml_string(FILE *out, const char *s);
int ls_config_write_resolved(const ls_config *cfg, FILE *out);
/* Writes it to path atomically (e.g. out/config.resolved.yaml). */
int ls_config_write_resolved_file(const ls_config *cfg, const char *path, char *err, size_t errlen);
/* 1 when every schema field is equal (provenance ignored). On a difference, names the first
 * differing key in diff (may be NULL). */
int ls_config_equal(const ls_config *a, const ls_config *b, char *diff, size_t difflen);
void ls_config_free(ls_config *cfg);

/* Explanation of one key (type, default, range/enum, help) or of every key under a section
 * prefix, on out. Returns 0, or -1 with a did-you-mean message on errs. */
int ls_config_explain(const char *key, FILE *out, FILE *errs);
/* The Markdown reference of every key (docs/config.md is exactly this text). */
char *ls_config_docs_markdown(void);

/* Enum helpers: spelling of value v of the enum-typed key, or NULL. */
const char *ls_config_enum_name(const char *key, int v);
/* The embedded default YAML text. */
extern const char ls_config_default_yaml[];
/* The lampsim version string stored in resolved configs. */
const char *ls_config_version(void);
#endif
