/* hw/lamp — the LampAttention block procedure (numerics.md D.2), one C function per step.
 *
 * These functions are the behaviour of the accelerator's units: the C engine (sim/engine) composes
 * them per (warp, key tile) through lslamp_warp_tile(), and the SystemC units call the same steps
 * one by one. Everything here is deterministic and allocation-free in the hot path: buffers live
 * in an lslamp_ws workspace sized once by lslamp_ws_init().
 *
 * Layouts. A key tile holds Bc = n_k * b_k keys, sub-block theta = keys theta*b_k .. +b_k-1.
 * Logits are stored key-major: Y[i*ldy + j] is key i of the tile against query j of the warp
 * (the paper's Y = K^T Q / sqrt(d), keys x queries). Qt is the pre-scaled query block transposed
 * (d x Br, row stride ldq); a warp's view starts at column w*b_q. Masked logits are -inf.
 */
#ifndef LAMPSIM_HW_LAMP_H
#define LAMPSIM_HW_LAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lsfp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSLAMP_MAX_NK 16     /* sub-blocks per key tile (bitmasks are uint16_t) */

typedef enum { LSLAMP_ARITH_HARDWARE, LSLAMP_ARITH_PAPER } lslamp_arith;
typedef enum { LSLAMP_MU_TRUNC, LSLAMP_MU_RNE, LSLAMP_MU_EXACT } lslamp_mu_shift;
typedef enum { LSLAMP_HPSHIFT_ROUNDED, LSLAMP_HPSHIFT_EXACT } lslamp_hp_shift;
typedef enum { LSLAMP_SCALE_PRE_FP32, LSLAMP_SCALE_PRE_BF16, LSLAMP_SCALE_POST } lslamp_scale_point;
/* How the LP dot product is built (docs/numerics.md "The LP datapath"): SEQUENTIAL rounds into the LP
 * format after every product (or chunk_k products, acc_model); FUSED sums lp_fused_k exact products
 * and the accumulator in one aligned window and rounds once (lsfp_fused_step). The HP path is
 * sequential either way; the operands are the scale point's (scale_point). */
typedef enum { LSLAMP_LP_SEQUENTIAL, LSLAMP_LP_FUSED } lslamp_lp_datapath;
typedef enum { LSLAMP_TIE_WORST_QUERY, LSLAMP_TIE_LEXICOGRAPHIC } lslamp_tiebreak;
typedef enum { LSLAMP_DISRUPT_FLAGGED, LSLAMP_DISRUPT_FULL_TILE } lslamp_disruptive;
typedef enum { LSLAMP_ABOVE_KEEP, LSLAMP_ABOVE_RAISE } lslamp_above_one;
/* FORMAT: exponentials in the configured formats (LUT / SFU). IDEAL: float64 exp of the exact
 * difference y - mu_hat, no rounding of shifts or exponentials, no narrowing of mu_hat (test hook
 * for numerics.md F vector 21; needs state_fp64 for float64 state). */
typedef enum { LSLAMP_EXP_FORMAT, LSLAMP_EXP_IDEAL } lslamp_exp_mode;

struct lslamp_policy;

/* The six number formats of the procedure, by role (docs/numerics.md "Formats as configuration"). */
typedef enum {
    LSLAMP_FMT_LP, LSLAMP_FMT_HP,                  /* logit accumulators (default e4m3 / e4m11) */
    LSLAMP_FMT_LP_SHIFT, LSLAMP_FMT_LP_EXP,        /* LP shift and exponential (ue5m3-S / ue5m3-X) */
    LSLAMP_FMT_HP_SHIFT, LSLAMP_FMT_HP_EXP,        /* HP shift and exponential (ue5m11-S / ue5m11-X) */
    LSLAMP_FMT_COUNT
} lslamp_fmt_role;
#define LSLAMP_FMT_NAME_MAX 24
/* Knob names by role: "lp_format", "hp_format", "lp_shift_format", ... (config keys algorithm.*). */
extern const char *const lslamp_fmt_knob[LSLAMP_FMT_COUNT];
/* Resolve the formats from their names (lsfp_format_parse syntax; "" or "auto" = derived):
 * accumulators default to e4m3 / e4m11 (hardware) or PS(3) / PS(11) (paper) and must be signed;
 * a derived shift / exponential format of an accumulator eEmM is ue(E+1)mM, of a PS(m) / fp32
 * accumulator the accumulator's own format. Bias and special rule left open by a name follow the
 * role: a shift's largest exponent is floor(log2(2 x accumulator max)); an exponential has every code
 * finite and largest exponent 0, and must hold 1.0. Overflow policies are the formats' own
 * (lslamp_cfg_finalize applies the overflow knob to the accumulators). Returns 0, or -1 with the
 * role to blame in *which (may be NULL; an accumulator when its derived format fails) and a message. */
int lslamp_formats_resolve(const char names[][LSLAMP_FMT_NAME_MAX], lslamp_arith arith,
                           lsfp_format out[LSLAMP_FMT_COUNT], int *which, char *err, size_t errlen);

/* Tile-procedure configuration. Fill every knob (sim/engine ls_engine_lamp_cfg does, from the
 * engine's parameters, whose defaults are the configuration schema's), then call
 * lslamp_cfg_finalize(), which builds formats, accumulators and the LUT. The finalized struct
 * holds pointers into itself: do not copy it afterwards (use it through a pointer). Read-only after
 * finalize, so any number of threads may share it. */
typedef struct lslamp_cfg {
    /* ---- knobs ---- */
    int b_q, b_k, n_k, d;
    double delta, tau;
    bool stage1, stage2;
    lslamp_arith arith;
    lsfp_acc_model acc_model;      /* resolved (the engine maps "auto") */
    lsfp_rounding rounding;        /* LP accumulator rounding; stochastic applies to LP only */
    lsfp_overflow overflow;        /* e4m3 / e4m11 accumulators */
    lslamp_mu_shift mu_shift;
    lslamp_hp_shift hp_shift;
    lslamp_scale_point scale_point;
    lsfp_acc_order acc_order;
    int chunk_k;
    lslamp_lp_datapath lp_datapath;
    int lp_fused_k;                /* products per rounding of the fused LP datapath */
    lslamp_tiebreak tiebreak;
    lslamp_disruptive disruptive;
    lslamp_above_one above_one;
    bool state_fp64;               /* omega, O, lambda in float64 (else fp32) */
    lslamp_exp_mode exp_mode;
    const struct lslamp_policy *policy;  /* sub-block selection rule (default: lslamp_policy_lamp) */
    double random_rate;            /* random policy: per sub-block probability */
    bool no_tables;                /* skip building the LUT and the SFU table (fp32-only users) */
    char formats[LSLAMP_FMT_COUNT][LSLAMP_FMT_NAME_MAX]; /* by lslamp_fmt_role; "" = derived */
    /* ---- derived by lslamp_cfg_finalize ---- */
    int bc;                        /* n_k * b_k */
    lsfp_format lp_fmt, hp_fmt;    /* accumulators: e4m3 / e4m11 or PS(3) / PS(11) by default */
    lsfp_format lp_s, lp_x;        /* LP shift and exponential formats */
    lsfp_format hp_s, hp_x;        /* HP shift and exponential formats */
    lsfp_format bf16;
    lsfp_accum lp_acc, hp_acc;
    lsfp_exp_lut lut;
    bool use_lut;                  /* LP exps via LUT (hardware mode) else lsfp_exp_neg per element */
    bool lp_diff_exact;            /* mu_lp - y is exact in fp32 for any two LP values (the LUT hot path) */
    float scale;                   /* 1/sqrt(d) in fp32 */
    /* The 16-bit SFU as a table: hp_exp[code of the ue5m11-S shift] = lsfp_exp_neg(ue5m11-X, shift),
     * built from the HP formats at finalize (hardware mode, rounded HP shifts, an unsigned shift format
     * of at most 16 bits; wider ones call lsfp_exp_neg per element); same values as calling
     * lsfp_exp_neg per element, at table speed. */
    bool use_hp_table;
    uint32_t hp_s_maxcode;         /* code of the HP shift format's largest finite value */
    float hp_exp[1u << 16];
} lslamp_cfg;

int lslamp_cfg_finalize(lslamp_cfg *c, char *err, size_t errlen);

/* Event counters of the procedure (merged by the engine in a fixed order). */
typedef struct {
    uint64_t lp_saturations;   /* LP (e4m3) accumulator roundings clamped to +-max */
    uint64_t hp_saturations;   /* HP (e4m11) accumulator saturations */
    uint64_t overflows_nan;    /* accumulator roundings that became NaN (overflow = nan) */
    uint64_t exp_underflows;   /* unmasked logits whose exponential rounded to zero */
    uint64_t exp_above_one;    /* exponentials of logits above mu_hat (G-15) */
    uint64_t exact_fixups;     /* accumulation steps on the fp library's exact slow path */
} lslamp_events;

/* Statistics of one work item (batch, head, query block) of the attention: the tile counts and
 * events of the procedure and the sums of the accuracy pass; the golden engine and the timed model
 * fill one per item and merge them in item order (sim/engine ls_engine_merge_items). */
typedef struct {
    uint64_t executed, masked, stage1, stage2, sub_active, logits_unmasked, logits_hp1, logits_hp2;
    lslamp_events ev;
    double kl_sum, kl_max, l1_sum, l1_max, abs_sum, abs_max, diff2, ref2, rrl2_sum, rrl2_max;
    uint64_t kl_inf, rows, flips, elems;
} lslamp_item_stats;

/* Per (warp, key tile) outcome: what the timing model replays. */
typedef struct {
    uint16_t stage1_mask;      /* sub-blocks made HP before the exponentials (stage 1 / policy) */
    uint16_t stage2_mask;      /* sub-blocks recomputed after the exponentials (stage 2) */
    uint8_t n_hp;              /* popcount(stage1_mask | stage2_mask) */
    uint8_t flags;             /* LSLAMP_REC_* */
} lslamp_tile_record;
enum {
    LSLAMP_REC_MASKED = 1u << 0,      /* fully masked (warp, tile): skipped, not executed */
    LSLAMP_REC_FULL_TILE_HP = 1u << 1,/* disruptive branch recomputed the whole tile in HP */
    LSLAMP_REC_ABOVE_ONE = 1u << 2,   /* at least one exponential above one (G-15) */
    LSLAMP_REC_ABSENT = 1u << 3       /* the warp does not exist (ragged last query block) */
};

/* Per-tile counts for the statistics (the engine sums them). */
typedef struct {
    int subblocks_active;      /* sub-blocks with at least one unmasked logit for this warp */
    int logits_unmasked;
    int logits_hp_stage1;      /* unmasked logits in stage-1 HP sub-blocks */
    int logits_hp_stage2;
} lslamp_tile_counts;

/* Operands of one (warp, key tile). */
typedef struct {
    const float *K; int ldk;   /* tile keys, row i = key key0+i (nkeys valid rows) */
    const float *V; int ldv;   /* tile values, same rows */
    const float *Qt; int ldq;  /* d x b_q view of the pre-scaled transposed query block */
    int nkeys;                 /* valid keys (<= bc); rows beyond are padding (masked) */
    int nq;                    /* valid queries; columns nq..ncols-1 are padding (masked) */
    int ncols;                 /* columns of the Y / Qt view (b_q for a warp, Br for a block) */
    /* Mask geometry: query j is global query query0+j, key i is key0+i; causal: key <= query + shift;
     * window > 0 (causal only): also key > query + shift - window (a sliding window of that many keys). */
    int64_t key0, query0, causal_shift, window;
    /* qpack > 1 (GQA packing): the view's rows are (query, head) pairs, query-major; row r is query
     * r / qpack (query0 and the row indices count rows). 0 or 1: a row is a query. */
    int qpack;
    bool causal;
    float *Y; int ldy;         /* bc x b_q logits; LP on entry to lslamp_warp_tile (masked = -inf) */
    const float *y_hp; int ldyhp; /* test hook: if non-NULL, HP logits are read from here (bc x b_q,
                                     key-major) instead of being accumulated from K and Qt */
    uint64_t tile_seed;        /* seeds stochastic rounding and the random policy for this tile */
    bool y_is_hp;              /* Y already holds HP logits (the 16-bit machine computes them directly) */
} lslamp_tile_io;

/* Running state of one warp (b_q queries). Exactly one of (omega32, O32) / (omega64, O64) is used,
 * by cfg->state_fp64. O rows have stride ldo (>= d). */
typedef struct {
    float *mu;                 /* running max (HP grid), -inf initially */
    float *omega32; float *O32;
    double *omega64; double *O64;
    int ldo;
} lslamp_state;

/* Workspace for one warp: sized by cfg, reused for every tile. */
typedef struct {
    double *E;                 /* bc x b_q exponentials, key-major (as Y) */
    float *m;                  /* n_k x b_q sub-block maxima of the LP logits */
    float *s;                  /* 2 x bc x b_q scratch (shifts) */
    float *mu_hat;             /* b_q */
    float *mu_lp;              /* b_q: mu_hat narrowed for LP shifts */
    double *lambda, *alpha, *omega_hat; /* b_q */
    double *xi;                /* n_k x b_q stage-2 costs */
    float *tmpk;               /* d scratch */
    double T[LSLAMP_MAX_NK];
    int order[LSLAMP_MAX_NK];
    void *block;               /* single allocation */
} lslamp_ws;

int lslamp_ws_init(lslamp_ws *ws, const lslamp_cfg *c);
void lslamp_ws_free(lslamp_ws *ws);

/* ---------------- Steps of D.2 ---------------- */

/* Step 1 (and the HP recompute): accumulate logits of keys [k0, k0+nk) against the warp view in the
 * given accumulator (lp: c->lp_acc, hp: c->hp_acc), write rows k0.. of Y, apply post-scaling if
 * configured, then the mask. Stochastic rounding (LP only) uses rng. Events are added to ev. */
void lslamp_logits(const lslamp_cfg *c, bool hp, const lslamp_tile_io *io, int k0, int nk,
                   lsfp_rng *rng, lslamp_events *ev);
/* Pre-scaled transposed query block: Qt[t*ldq + j] = scale(Q[j*ldqrow + t]) for j < nq, 0 for
 * nq <= j < ncols (scale_point: fp32 multiply by fp32(1/sqrt d), then bf16 rounding for pre_bf16;
 * unscaled for post). */
void lslamp_prepare_qt(const lslamp_cfg *c, const float *Q, int ldqrow, int nq, int ncols, float *Qt, int ldq);
/* The query of global row r: r itself, or r / qpack for packed rows (GQA packing, qpack > 1). */
static inline int64_t lslamp_row_query(int64_t r, int qpack) { return qpack > 1 ? r / qpack : r; }
/* The mask as one rule: global key `key` is seen by the rows [*jlo, *jhi) of the n rows from global
 * row q0 (causal: key <= query + shift; window > 0: key > query + shift - window; a row's query is
 * lslamp_row_query: query q owns rows [q * qpack, (q + 1) * qpack)). */
static inline void lslamp_key_queries_packed(bool causal, int64_t shift, int64_t window, int qpack, int64_t key,
                                             int64_t q0, int n, int *jlo, int *jhi)
{
    int64_t g = qpack > 1 ? qpack : 1;
    int64_t lo = causal ? g * (key - shift) - q0 : 0, hi = causal && window > 0 ? g * (key - shift + window) - q0 : n;
    *jlo = lo <= 0 ? 0 : lo >= n ? n : (int)lo;
    *jhi = hi <= 0 ? 0 : hi >= n ? n : (int)hi;
}
static inline void lslamp_key_queries(bool causal, int64_t shift, int64_t window, int64_t key, int64_t q0, int n,
                                      int *jlo, int *jhi)
{
    lslamp_key_queries_packed(causal, shift, window, 1, key, q0, n, jlo, jhi);
}
/* Set masked logits (padding keys/queries, causal, window) of rows [k0, k0+nk) to -inf. */
void lslamp_apply_mask(const lslamp_cfg *c, const lslamp_tile_io *io, int k0, int nk);
/* True if every (query, key) pair of the tile is masked for this warp. */
bool lslamp_tile_fully_masked(const lslamp_cfg *c, const lslamp_tile_io *io);

/* Step 2: m[theta*b_q + j] = max over the sub-block's keys of Y (-inf if all masked). */
void lslamp_subblock_max(const lslamp_cfg *c, const float *Y, int ldy, int nq, float *m);
/* Threats T[theta] = max_j (m[theta][j] - mu_j) over queries with finite m (-inf if none;
 * +inf where mu_j = -inf). Computed in float64. */
void lslamp_threats(const lslamp_cfg *c, const float *m, const float *mu, int nq, double *T);
/* Step 3: order[] = sub-blocks sorted by T descending, stable on theta (G-13). */
void lslamp_sort_threats(int n_k, const double *T, int *order);

/* Stage-1 test of one sub-block (G-19): true iff it stays LP, i.e. for all j with finite m:
 * mu_hat_j > m_j + |mu_hat_j| * delta (strict, float64); mu_hat = -inf fails for finite m. */
bool lslamp_stage1_pass(const float *m_theta, const float *mu_hat, int nq, double delta);
/* mu_hat_j <- max(mu_hat_j, max over the sub-block's keys of Y) (HP logits just recomputed). */
void lslamp_mu_update(const lslamp_cfg *c, const float *Y, int ldy, int theta, int nq, float *mu_hat);
/* Step 4, stage 1: walks order[], recomputes failing sub-blocks in HP (rows of io->Y), updates
 * mu_hat. Returns the mask Theta. */
uint32_t lslamp_stage1(const lslamp_cfg *c, const lslamp_tile_io *io, const int *order,
                       const float *m, float *mu_hat, lsfp_rng *rng, lslamp_events *ev);

/* mu_hat narrowed for LP shifts (trunc e4m3 / rne e4m3 / exact), on the LP grid. */
float lslamp_mu_lp(const lslamp_cfg *c, float mu_hat);
/* Code of the HP shift format for a shift d >= 0 (finite), rounded to nearest even once from the
 * exact double (saturating at the largest finite code). Requires a non-fp32-range unsigned format. */
uint32_t lslamp_hp_shift_code(const lslamp_cfg *c, double d);
/* Step 5: exponentials of sub-block theta into E. hp: Y holds HP logits (shift rounded to the HP
 * shift format, exp in the HP exp format); else LP (LUT on the LP shift from mu_lp). Counts
 * above-one events (logit above mu_hat, G-15). Returns true if there was one. */
bool lslamp_exps(const lslamp_cfg *c, bool hp, const float *Y, int ldy, int theta, int nq,
                 const float *mu_hat, const float *mu_lp, double *E, float *scratch, lslamp_events *ev);
/* Step 6: lambda_j = exp(mu_j - mu_hat_j) (0 if mu_j = -inf), alpha = lambda*omega,
 * omega_hat = alpha + sum_i E[i][j] (ascending keys); in fp32 or float64 per cfg. */
void lslamp_normaliser(const lslamp_cfg *c, const lslamp_state *st, const float *mu_hat, const double *E,
                       int nq, double *lambda, double *alpha, double *omega_hat);
/* Stage-2 costs xi[theta][j] = sum_{i in theta} E(omega_hat - E) in float64. */
void lslamp_stage2_costs(const lslamp_cfg *c, const double *E, const double *omega_hat, int nq, double *xi);
/* Step 7: exact block-LAMP knapsack. Candidates = sub-blocks in cand (bitmask); constraint per query
 * j with omega_hat_j > 0: sum_{theta in G} xi[theta][j] <= tau * omega_hat_j^2. Returns the chosen
 * low-precision set G: largest size, then (tiebreak worst_query) minimal max_j sum xi / omega_hat^2,
 * then lexicographically smallest sorted theta list (G-14). */
uint32_t lslamp_knapsack(int n_k, uint32_t cand, const double *xi, const double *omega_hat, int nq,
                         double tau, lslamp_tiebreak tiebreak);
/* Step 9: mu <- mu_hat; omega <- alpha + sum E; O <- O*lambda + sum_i E[i][j] V_i. */
void lslamp_update(const lslamp_cfg *c, const lslamp_tile_io *io, lslamp_state *st, const float *mu_hat,
                   const double *E, const double *lambda, const double *alpha);
/* After the last tile: out[j][:] = O[j][:] / omega_j (fp32 division, or float64 then rounded);
 * rows that saw no key (omega = 0) give 0. */
void lslamp_finalize(const lslamp_cfg *c, const lslamp_state *st, int nq, float *out, int ldout);

/* LAMP reference-code rule (numerics.md B.2) on one materialised probability row: sel[k] = 1 iff
 * key k is recomputed. Sort by (-z, index), exclusive prefix P_k, select iff P_k + 2 z_min <
 * 2 - tau_code (float64). tmp must hold n entries. Returns the number selected. */
typedef struct { double z; int idx; } lslamp_zi;
int lslamp_lampcode_mask(const double *z, int n, double tau_code, unsigned char *sel, lslamp_zi *tmp);

/* ---------------- Selection policies ---------------- */
/* A policy decides which sub-blocks go to high precision. pre_select runs after the LP logits
 * and the maxima/threat sort and must leave mu_hat set (it may recompute sub-blocks in HP through
 * lslamp_logits and must then return them in its mask). post_select runs after the exponentials and
 * the normaliser and returns the sub-blocks to recompute (stage 2); NULL = none. */
typedef struct lslamp_policy_ctx {
    const lslamp_cfg *c;
    const lslamp_tile_io *io;
    lslamp_ws *ws;
    const float *mu;            /* old running max */
    uint32_t active;            /* sub-blocks with an unmasked logit */
    lsfp_rng *rng;              /* per-tile generator (seeded from io->tile_seed) */
    lslamp_events *ev;
} lslamp_policy_ctx;

typedef struct lslamp_policy {
    const char *name;
    uint32_t (*pre_select)(const lslamp_policy_ctx *ctx);
    uint32_t (*post_select)(const lslamp_policy_ctx *ctx, uint32_t hp_mask);
} lslamp_policy;

extern const lslamp_policy lslamp_policy_lamp;    /* two-stage LampAttention (stage1/stage2 knobs) */
extern const lslamp_policy lslamp_policy_random;  /* each active sub-block HP with random_rate */
extern const lslamp_policy lslamp_policy_none;    /* pure 8-bit: mu_hat from LP maxima (G-23) */
extern const lslamp_policy lslamp_policy_all;     /* 16-bit machine: every sub-block HP */
/* mu_hat_j = max(mu_j, max over the tile of Y) for the current mix of LP/HP rows (used by policies
 * that do not run stage 1: LP maxima for LP sub-blocks, G-23). */
void lslamp_mu_from_max(const lslamp_cfg *c, const lslamp_tile_io *io, const float *mu, float *mu_hat);

/* Unmasked logits (Y != -inf) of the warp's b_q columns in the sub-blocks of mask. */
int lslamp_count_rows(const lslamp_cfg *c, const lslamp_tile_io *io, uint32_t mask);
/* Step 5 over a warp tile: exponentials of the active sub-blocks, each in its precision (HP iff in
 * hp), for the passes asked: LSLAMP_PASS_LP narrows mu_hat to ws->mu_lp first, zeroes the E rows
 * of inactive sub-blocks and does the LP sub-blocks; LSLAMP_PASS_HP does the HP sub-blocks. Both
 * passes at once go over the sub-blocks in order. Returns true if an exponential was above one. */
enum { LSLAMP_PASS_LP = 1, LSLAMP_PASS_HP = 2 };
bool lslamp_tile_exps(const lslamp_cfg *c, const lslamp_tile_io *io, lslamp_ws *ws, uint32_t active, uint32_t hp,
                      int passes, lslamp_events *ev);

/* ---------------- Work items ---------------- */
/* One work item of the attention: query block qb (br = n_q * b_q queries) of (batch b, query head
 * hq), against the keys of its key/value head hkv (GQA: hkv = hq / (heads_q / heads_kv)) in tiles
 * of bc keys. Tensors are [batch][heads][seq][dim] float32, row-major. */
typedef struct {
    /* shape and block buffers: set by the caller (buffers: or lslamp_block_alloc) */
    int seq_k, dim, b_q, br, bc;
    bool causal;
    float *Qt;                 /* dim x br pre-scaled transposed queries of the block */
    float *Y;                  /* bc x br logits of the current key tile */
    float *mu, *om32, *O32;    /* running state of the block's br queries (O: br x dim) ... */
    double *om64, *O64;        /* ... fp32 or float64 by cfg->state_fp64 (lslamp_warp_state) */
    /* the item: set by lslamp_block_locate */
    int b, hq, hkv, qb;
    int q0, nqv;               /* first query of the block, valid queries (<= br) */
    int64_t shift;             /* causal: key <= query + shift (seq_k - seq_q / qpack) */
    int window;                /* > 0 (causal only): key > query + shift - window (set by the caller) */
    int qpack;                 /* > 1: packed GQA rows, row r is query r / qpack (set by the caller) */
    const float *Q;            /* the block's first query row (stride dim) */
    const float *K, *V;        /* the head's keys and values, seq_k rows of dim */
    float *O, *Oref;           /* the block's first output row; reference output rows or NULL */
} lslamp_block;

/* Allocate the block buffers (Qt, Y, mu, om32, O32, om64, O64) for the shape fields already set
 * (dim, br, bc). Returns 0, or -1 with nothing left allocated. */
int lslamp_block_alloc(lslamp_block *blk);
void lslamp_block_free(lslamp_block *blk);
/* Locate work item `item` (item = (b * heads_q + hq) * nqb + qb) in the tensors (o_ref may be NULL). */
void lslamp_block_locate(lslamp_block *blk, int item, int nqb, int heads_q, int heads_kv, int seq_q,
                         const float *q, const float *k, const float *v, float *o, float *o_ref);
/* Operands of warp wi (block columns wi*b_q ..) for key tile kt; returns the warp's valid queries
 * (0: the warp does not exist in a ragged last query block). */
int lslamp_warp_io(const lslamp_block *blk, int wi, int kt, lslamp_tile_io *io);
/* Running state of warp wi: its b_q rows of the block's state buffers. */
void lslamp_warp_state(const lslamp_block *blk, int wi, lslamp_state *st);

/* ---------------- The composed procedure ---------------- */
/* One (warp, key tile), steps 2-9 (the LP logits must already be in io->Y, masked). Fills rec and
 * counts. If Eout is non-NULL, the final exponentials are copied there as float (Eout[i*ldeout+j])
 * and mu_hat to mu_hat_out, for the accuracy pass. */
void lslamp_warp_tile(const lslamp_cfg *c, const lslamp_tile_io *io, lslamp_state *st, lslamp_ws *ws,
                      lslamp_tile_record *rec, lslamp_tile_counts *cnt, lslamp_events *ev,
                      float *Eout, int ldeout, float *mu_hat_out);

/* Mixing helper for per-tile seeds. */
static inline uint64_t lslamp_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

#ifdef __cplusplus
}
#endif
#endif
