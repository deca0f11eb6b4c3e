/* sim/engine — the golden LampAttention engine: FlashAttention-2 forward over batch x heads (GQA),
 * query blocks and key tiles, with the block-LAMP procedure of hw/lamp per (warp, key tile), the
 * baselines, the fp64 reference, accuracy metrics and per-tile records. See docs/engine.md. */
#ifndef LAMPSIM_SIM_ENGINE_H
#define LAMPSIM_SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attn_inputs.h"
#include "lslamp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    LS_ENGINE_MODE_LAMP,        /* LampAttention: two-stage block-LAMP (default) */
    LS_ENGINE_MODE_FA2_FP32,    /* vanilla FlashAttention-2 in fp32 */
    LS_ENGINE_MODE_FA2_16BIT,   /* the 16-bit machine: e4m11 logits, ue5m11 exponentials everywhere */
    LS_ENGINE_MODE_PURE_8BIT,   /* no recompute, running max from LP maxima (G-23) */
    LS_ENGINE_MODE_LAMP_CODE,   /* LAMP reference-code rule (B.2) on the materialised softmax */
    LS_ENGINE_MODE_RANDOM,      /* random sub-block recompute at random_rate (the LAMP paper's control) */
    LS_ENGINE_MODE_FA3_FP8      /* FP8 FlashAttention (FlashAttention-3 FP8-like): e4m3 Q, K, V and P, fp32 S and O */
} ls_engine_mode;
typedef enum { LS_ENGINE_ACC_AUTO, LS_ENGINE_ACC_PAPER, LS_ENGINE_ACC_EXACT } ls_engine_acc_model;
typedef enum { LS_ENGINE_STATE_FP32, LS_ENGINE_STATE_FP64 } ls_engine_state_precision;
/* Width of Q/K/V in memory and operands, for the timed model: the workload dtype, or e4m3 bytes. */
typedef enum { LS_ENGINE_OPFMT_INPUT, LS_ENGINE_OPFMT_E4M3 } ls_engine_operand_format;
/* The engine's parameters. The algorithm's (mode .. compute_reference) are the config keys
 * algorithm.*, and this struct is the configuration's algorithm section (ls_config.algorithm):
 * names, defaults and ranges are the schema's (sim/config/schema.c), the only defaults.
 * ls_run_engine_params (sim/run) takes them from a configuration, ls_run_engine_defaults from the
 * schema. The rest are the run's (seed, what to keep, hooks): zero in a configuration. */
struct ls_engine_split_state;
typedef struct ls_engine_params {
    ls_engine_mode mode;
    ls_engine_operand_format operand_format;   /* timed model only: bytes of Q/K/V (numerics: none) */
    lslamp_arith arithmetic;
    ls_engine_acc_model acc_model;
    int b_q, n_q, b_k, n_k;
    double tau, delta;
    bool stage1, stage2;
    lsfp_rounding rounding;
    lsfp_overflow overflow;
    lslamp_mu_shift mu_lp_shift;
    lslamp_hp_shift hp_shift;
    lslamp_scale_point scale_point;
    lsfp_acc_order acc_order;
    int chunk_k;
    lslamp_lp_datapath lp_datapath;
    int lp_fused_k;
    lslamp_tiebreak knapsack_tiebreak;
    lslamp_disruptive disruptive_numerics;
    lslamp_above_one above_one;
    ls_engine_state_precision state_precision;
    double lamp_code_tau;
    double random_rate;
    /* number formats by lslamp_fmt_role (algorithm.lp_format, hp_format, lp_shift_format, lp_exp_format,
     * hp_shift_format, hp_exp_format; "" or "auto" = derived: hw/lamp lslamp_formats_resolve) */
    char formats[LSLAMP_FMT_COUNT][LSLAMP_FMT_NAME_MAX];
    int threads;              /* 0 = all cores */
    bool compute_reference;   /* fp64 reference + accuracy metrics */
    /* ---- the run's ---- */
    uint64_t seed;            /* a configuration's top-level seed */
    bool keep_reference;      /* keep the reference O in the result (for saving) */
    bool keep_tile_records;   /* per-tile records (default off) */
    bool keep_lamp_code_mask; /* lamp_code: keep the per-logit selection mask (default off) */
    int sample_query_blocks;  /* > 0: only this many query blocks of each head are computed, the others'
                                 records copied from them (engine_sample.h); 0: all */
    int query_block_order;    /* test hook: 0 ascending, 1 descending work-item order (results identical) */
    /* called after each work item (query block of one head) with the items done so far and the
     * total, from whichever engine thread finished it; NULL: nothing. Results do not depend on it. */
    void (*progress)(void *user, long done, long total);
    void *progress_user;
    /* test hook (split-KV): called per work item, from its engine thread, with the splits' partial
     * states just before they are combined; NULL: nothing. */
    void (*split_hook)(void *user, const struct ls_engine_split_state *s);
    void *split_user;
} ls_engine_params;

/* The partial softmax states of one work item's splits (workload.split_kv), as the combine reads
 * them. Row j of split s: mu[s * rows + j] (running max; -inf: the split saw no key of the row),
 * omega (om32 or om64 by fp64) and the accumulator O (O32 or O64, [s][rows][dim]). normalised
 * (lamp_code): O is already divided by its split's omega and mu / om32 are the split's max logit and
 * fp32 normaliser. */
typedef struct ls_engine_split_state {
    int item, nsplit, rows, nqv, dim;
    bool fp64, normalised;
    const float *mu, *om32, *O32;
    const double *om64, *O64;
} ls_engine_split_state;

const char *ls_engine_mode_name(ls_engine_mode m);

/* Per (batch, head, query block, warp, key tile): what the timing model replays. */
typedef struct {
    uint16_t stage1_mask;     /* sub-blocks HP before the exponentials (stage 1 / policy choice) */
    uint16_t stage2_mask;     /* sub-blocks recomputed in stage 2 */
    uint8_t n_hp;             /* popcount of both */
    uint8_t flags;            /* bit 0: fully masked (skipped); bit 1: whole tile HP (G-16 option);
                                 bit 2: an exponential above one (G-15); bit 3: the warp does
                                 not exist (queries past seq_q in the last query block) */
} ls_engine_tile_record;

typedef struct {
    uint64_t executed;            /* (warp, key tile) pairs executed */
    uint64_t masked_skipped;      /* (warp, key tile) pairs skipped as fully masked */
    uint64_t *hp_subblocks_hist;  /* [n_k + 1]: executed tiles with 0..n_k HP sub-blocks */
    int hist_len;                 /* n_k + 1 */
    double disruptive_rate;       /* share of executed tiles with >= 2 HP sub-blocks */
} ls_engine_tile_stats;

typedef struct {
    double logit_rate;            /* HP unmasked logits / unmasked logits (both stages) */
    double logit_rate_stage1, logit_rate_stage2;
    double subblock_rate;         /* HP sub-blocks / active sub-blocks of executed tiles */
    uint64_t stage1_subblocks, stage2_subblocks;
    uint64_t subblocks_active;
    uint64_t logits_unmasked, logits_hp;
} ls_engine_recompute_stats;

typedef struct {
    bool valid;                   /* computed (compute_reference on) */
    double kl_mean, kl_max;       /* KL(p_ref || p_test), natural log, per row; mean and max */
    uint64_t kl_inf_count;        /* rows with p_test = 0 where p_ref > 0 (clamped at 1e-45) */
    double l1_mean, l1_max;       /* ||p_test - p_ref||_1 per row */
    double o_max_abs_err, o_mean_abs_err, o_rel_fro_err;
    double row_rel_l2_mean, row_rel_l2_max;
    double argmax_flip_rate;
    uint64_t rows;                /* rows measured (rows with at least one visible key) */
} ls_engine_accuracy_stats;

typedef struct {
    uint64_t e4m3_saturations;    /* LP accumulator roundings clamped to +-448 */
    uint64_t hp_saturations;      /* HP accumulator roundings clamped */
    uint64_t overflows_nan;       /* accumulator overflows to NaN (overflow = nan) */
    uint64_t exp_underflows;      /* unmasked logits whose exponential is zero */
    uint64_t exp_above_one;       /* exponentials above one (G-15) */
    uint64_t exact_fixups;        /* exact slow-path accumulation steps (fp library) */
    uint64_t o_nonfinite;         /* output elements that are NaN or infinite */
} ls_engine_event_stats;

/* A sampled run (ls_engine_params.sample_query_blocks): how much was computed and the sampled
 * rates' standard errors (NaN with fewer than two sampled items). */
typedef struct {
    int query_blocks;             /* sampled blocks per head (0: not sampled) */
    int items_sampled, items_total;
    double subblock_rate_se, disruptive_rate_se;
} ls_engine_sample_info;

typedef struct ls_engine_result {
    /* O: [batch][heads_q][seq_q][dim], float32, same layout as Q. */
    float *o;
    float *o_ref;                 /* fp64 reference rounded to fp32 (keep_reference), else NULL */
    int batch, heads_q, seq_q, dim;
    ls_engine_tile_stats tiles;
    ls_engine_recompute_stats recompute;
    ls_engine_accuracy_stats accuracy;
    ls_engine_event_stats events;
    /* Per-tile records, [batch][heads_q][n_qblocks][n_q][n_ktiles] (keep_tile_records). */
    ls_engine_tile_record *records;
    size_t n_records;
    int n_qblocks, n_ktiles, n_q;
    /* lamp_code with keep_lamp_code_mask: [batch][heads_q][seq_q][seq_k] per-logit decisions of the
     * reference rule: 1 selected and recomputed in HP, 2 selected by the rule but causally masked
     * (its z is 0; never replaced), 0 kept in LP. seq_k is lamp_code_mask_keys. */
    uint8_t *lamp_code_mask;
    int lamp_code_mask_keys;
    double wall_seconds;
    /* sampled numerics: O, accuracy, events and recompute.* are the sampled blocks'; tiles.* count
     * every record (the sampled blocks' and the copies the timed model replays) */
    ls_engine_sample_info sample;
    /* Set by the timed model's timing-only mode (timed.timing_only): no arithmetic was done, so O
     * (left zero), accuracy and events are not results; tiles and recompute are exact (geometry). */
    bool timing_only;
} ls_engine_result;

/* Run the engine. Returns 0, or -1 with a message in err. result must be released with
 * ls_engine_result_free (also after a failure). */
int ls_engine_run(const ls_engine_params *p, const ls_attn_inputs *in, ls_engine_result *r,
                  char *err, size_t errlen);
void ls_engine_result_free(ls_engine_result *r);

/* Save O (path_o) and, if non-NULL and kept, the reference O (path_ref) as .npy float32 arrays of
 * shape [batch, heads_q, seq_q, dim]; the records as a float32 .npy [n_records, 4] if path_records
 * is non-NULL (columns: stage1_mask, stage2_mask, n_hp, flags; small integers, exact), record order
 * [batch][heads_q][n_qblocks][n_q][n_ktiles]. NULL paths are skipped. Returns 0 or -1. */
/* Writes the lamp_code selection mask as a float32 [batch, heads_q, seq_q, seq_k] .npy (values
 * 0, 1, 2 as lamp_code_mask). Returns 0, or -1 with a message. */
int ls_engine_save_lamp_code_mask(const ls_engine_result *r, const char *path, char *err, size_t errlen);
int ls_engine_save_npy(const ls_engine_result *r, const char *path_o, const char *path_ref,
                       const char *path_records, char *err, size_t errlen);

/* Native fp32 FlashAttention-2 of one head in plain C, same tiling (Br x Bc), no emulation: the
 * benchmark's yardstick. q: seq_q x dim, k/v: seq_k x dim, o: seq_q x dim. */
void ls_engine_fa2_native_head(const float *q, const float *k, const float *v, float *o, int seq_q, int seq_k,
                        int dim, bool causal, int br, int bc);

#ifdef __cplusplus
}
#endif
#endif
