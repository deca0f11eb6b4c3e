/* sim/engine/engine_parts.h — pieces of the golden engine that other models reuse so that their
 * results are the engine's bit for bit (sim/timed): the parameter -> tile-procedure mapping, the
 * fixed-order merge of per-item statistics, and the accuracy pass of a work item (numerics.md E).
 * Per-item statistics are hw/lamp's lslamp_item_stats; work items are lslamp_block. */
#ifndef LAMPSIM_SIM_ENGINE_PARTS_H
#define LAMPSIM_SIM_ENGINE_PARTS_H
#include "engine.h"
#include "lslamp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The checks ls_engine_run makes on the inputs and the tiling (null pointers, sizes, GQA heads,
 * b_q/n_q/b_k/n_k ranges). Returns 0 or -1 with err. */
int ls_engine_check_inputs(const ls_engine_params *p, const ls_attn_inputs *in, char *err, size_t errlen);

/* Fill r's shape (batch, heads_q, seq_q, dim, n_qblocks, n_ktiles, n_q, tiles.hist_len) for a run
 * of p over in and allocate its zeroed arrays as p asks: o, tiles.hp_subblocks_hist, o_ref
 * (compute_reference and keep_reference), records (keep_tile_records). Returns 0, or -1 if out of
 * memory (r must still be released with ls_engine_result_free). */
int ls_engine_result_alloc(const ls_engine_params *p, const ls_attn_inputs *in, ls_engine_result *r);

/* Map the engine parameters onto the tile procedure's configuration (policy by mode) and finalize
 * it. tables false: no LUT and SFU exponential tables (a user that does no arithmetic with c, only
 * its geometry and policies). c must not be copied afterwards (lslamp_cfg_finalize). Returns 0 or
 * -1 with err. */
int ls_engine_lamp_cfg(const ls_engine_params *p, int dim, bool tables, lslamp_cfg *c, char *err, size_t errlen);

/* Code widths of the LP and HP logits the register file holds: the accumulator formats' bits in
 * hardware arithmetic; 8 and 16 in paper arithmetic (it emulates the numerics of the 8/16-bit
 * design, whose registers stay as they are). Returns 0, or -1 when the formats do not resolve. */
int ls_engine_logit_bits(const ls_engine_params *p, int *lp_bits, int *hp_bits);

/* Merge per-item statistics in item order (identical for any thread count) into r's tiles,
 * recompute, events and, if accuracy, accuracy sections. hist: nitems x hist_len (= n_k + 1)
 * per-item histograms of HP sub-blocks, added into r->tiles.hp_subblocks_hist (allocated, zeroed). */
void ls_engine_merge_items(const lslamp_item_stats *items, int nitems, const uint64_t *hist, int hist_len,
                           bool accuracy, ls_engine_result *r);
/* events.o_nonfinite from the finished O (no arithmetic event covers an fp32 overflow of O itself). */
void ls_engine_count_nonfinite(ls_engine_result *r);

/* Workspace of the accuracy pass: dtest: seq_k doubles; dlog, dref: LS_ENGINE_ACC_ROWS x seq_k and
 * oref: LS_ENGINE_ACC_ROWS x dim (the float64 logits, p_ref and O_ref of that many rows, computed
 * together). */
#define LS_ENGINE_ACC_ROWS 4
typedef struct { double *dref, *dtest, *dlogt, *dlog, *oref; } ls_engine_acc_ws;   /* dlogt: seq_k, log p_test */
/* Returns 0, or -1 with nothing left allocated. Free with ls_engine_acc_ws_free (also when zeroed). */
int ls_engine_acc_ws_init(ls_engine_acc_ws *w, int seq_k, int dim);
void ls_engine_acc_ws_free(ls_engine_acc_ws *w);

/* fp64 reference of row j of the block (written to blk->Oref if non-NULL) and its metrics against
 * the test probabilities w->dtest and the test output row otest, added to st. Rows that see no key
 * are not measured. */
void ls_engine_row_metrics(const lslamp_block *blk, const ls_engine_acc_ws *w, lslamp_item_stats *st, int j,
                           const float *otest);
/* The accuracy pass of a finished work item of the tile procedure: for each valid row j, p_test
 * rebuilt from the final exponentials of every tile Ebuf ((nkt * bc) x br) and the per-tile mu_hat
 * muh (nkt x br) as E * exp(mu_hat_t - mu_j) / omega_j, then ls_engine_row_metrics against the
 * block's O. omega: om64 if non-NULL (float64 state), else om32. */
void ls_engine_item_accuracy(const lslamp_block *blk, const ls_engine_acc_ws *w, const float *Ebuf,
                             const float *muh, const float *mu, const float *om32, const double *om64,
                             lslamp_item_stats *st);

/* Split-KV geometry: nkt key tiles cut into split_kv (<= 1: one) contiguous ranges of
 * ceil(nkt / split_kv) tiles (FlashAttention-2's split-KV kernel: n_split_idx * n_blocks_per_split);
 * returns the splits that hold a tile (<= split_kv) and sets *tiles_per_split. Split s covers tiles
 * [s * tps, min(nkt, (s + 1) * tps)). */
int ls_engine_split_tiles(int nkt, int split_kv, int *tiles_per_split);

#ifdef __cplusplus
}
#endif
#endif
