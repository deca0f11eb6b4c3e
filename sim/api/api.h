/* sim/api — the C interface of liblampsim.so, used by the Python package (python/lampsim, ctypes):
 * the golden engine on caller-owned float32 buffers, configured by a YAML file and "key=value"
 * overrides exactly like `lampsim run`, with the report's numerics fields returned as JSON.
 * Plain C types only, so any FFI can call it. */
#ifndef LAMPSIM_API_H
#define LAMPSIM_API_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LS_API_BUILD)
#define LS_API __attribute__((visibility("default")))
#else
#define LS_API
#endif

typedef struct ls_api_ctx ls_api_ctx;

/* Loads and validates a configuration (path NULL: the embedded default) with overrides such as
 * "algorithm.tau=0.25". Returns NULL with "file:line: key: reason" in err on bad input. */
LS_API ls_api_ctx *ls_api_open(const char *config_path, const char *const *overrides, int n_overrides, char *err,
                      size_t errlen);
LS_API void ls_api_close(ls_api_ctx *c);

/* The resolved configuration as YAML (malloc'ed; release with ls_api_free). */
LS_API char *ls_api_config_yaml(const ls_api_ctx *c);

/* 1 if key (e.g. "algorithm.tau") is a configuration key. */
LS_API int ls_api_is_key(const char *key);
/* The closest configuration key or section to an unknown key (the CLI's "did you mean"): 1 when one
 * was written to out. */
LS_API int ls_api_suggest_key(const char *key, char *out, size_t outlen);

enum {
    LS_API_REFERENCE = 1,  /* also compute the fp64 reference and the accuracy.* fields */
    LS_API_RECORDS = 2     /* return the per-tile records */
};

/* Attention of q [batch][heads_q][seq_q][dim], k and v [batch][heads_kv][seq_k][dim] (float32, C
 * order) into o (same shape as q), with the context's configuration. *stats_json receives the
 * report's numerics fields (mode, tiles.*, recompute.*, accuracy.*, events.*) as a JSON object;
 * with LS_API_RECORDS, *records receives n_records x 4 int32 (stage1_mask, stage2_mask, n_hp, flags)
 * in the order [batch][heads_q][query block][warp][key tile] and *geometry n_qblocks, n_q, n_ktiles.
 * Both are malloc'ed (ls_api_free). The configuration's workload.window (causal only), workload.split_kv
 * and workload.pack_gqa apply as in `lampsim run` (records then in the packed layout, [batch][heads_kv]...);
 * algorithm.sample_query_blocks > 0 is bad input (O would be incomplete). Returns 0; 2 for bad input (a shape, or a NaN or infinite element of
 * q, k or v: "q: element [b, h, s, d] is NaN; inputs must be finite"); 1 for an engine failure. */
LS_API int ls_api_attention(const ls_api_ctx *c, int batch, int heads_q, int heads_kv, int seq_q, int seq_k, int dim,
                    int causal, const float *q, const float *k, const float *v, float *o, int flags,
                    char **stats_json, int32_t **records, size_t *n_records, int geometry[3], char *err,
                    size_t errlen);
/* `lampsim workload stats` of q, k, v (shapes as ls_api_attention) with the context's algorithm:
 * *csv receives the per-head CSV (header + one line per head; malloc'ed, ls_api_free). sink_keys,
 * local_keys >= 1; engine_rows 0 = all rows; lamp 0 = statistics only. Returns 0, 2 for bad input,
 * 1 for a failure, with a message in err. */
LS_API int ls_api_workload_stats(const ls_api_ctx *c, int batch, int heads_q, int heads_kv, int seq_q, int seq_k,
                                 int dim, int causal, const float *q, const float *k, const float *v, int sink_keys,
                                 int local_keys, int engine_rows, int lamp, char **csv, char *err, size_t errlen);
/* `lampsim run -o out_dir` of the context's configuration (the timed model where the configuration
 * asks for it; add "timed.enabled=false" to the overrides for the golden engine only): the run
 * directory exactly as the CLI writes it (report.json, report.csv, config.resolved.yaml,
 * run_info.json), atomically. force: replace an existing out_dir. Returns 0; 2 for bad input (the
 * workload, out_dir refused); 1 for a run or I/O failure, with a message in err. */
LS_API int ls_api_run(const ls_api_ctx *c, const char *out_dir, int force, char *err, size_t errlen);
/* `lampsim sweep merge DIR`: the merged CSV of a sweep directory's finished points into *csv
 * (malloc'ed, ls_api_free); counts[0..3] = points in the manifest, merged, failed, missing. Returns
 * 0, or 2 (not a sweep directory, mixed schema versions) with a message in err. */
LS_API int ls_api_sweep_merge(const char *dir, char **csv, int counts[4], char *err, size_t errlen);
LS_API void ls_api_free(void *p);
LS_API const char *ls_api_version(void);

#ifdef __cplusplus
}
#endif
#endif
