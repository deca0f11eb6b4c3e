/* Attention statistics of a workload, per (layer, head), from the float64 reference logits: how
 * peaked (entropy, top-1), where the mass goes (sink keys, the last keys), how large the logits are,
 * how often a key tile raises the running maximum (stage 1's trigger), and the LAMP recompute rates
 * the engine gives at the configured tile. See docs/workloads.md, "Measuring a workload". */
#ifndef LAMPSIM_WORKLOAD_WORKLOAD_STATS_H
#define LAMPSIM_WORKLOAD_WORKLOAD_STATS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "attn_inputs.h"
#include "engine.h"

typedef struct ls_wstats_opts {
    int sink_keys;          /* s: keys 0 .. s-1 are the sink (>= 1) */
    int local_keys;         /* w: the last w keys a row sees are its local window (>= 1) */
    double row_budget;      /* float64 multiply-adds per head for the statistics; beyond it every k-th row */
    int engine_rows;        /* LAMP rates from the last engine_rows query rows of each head (0: all rows) */
    int heads;              /* measure the first `heads` query heads only (0: all) */
    bool lamp;              /* run the engine for the LAMP rates */
} ls_wstats_opts;

/* Defaults: sink 1 key, local 16 keys, 2^27 multiply-adds per head, all rows, all heads, LAMP on. */
ls_wstats_opts ls_wstats_default_opts(void);

typedef struct ls_wstats_head {
    int layer, head, kv_head;
    long rows;              /* (batch, query row) pairs measured with at least one visible key */
    int row_stride;         /* every row_stride-th query row was measured */
    double entropy;         /* mean over rows of H(p) / ln(visible keys) (rows seeing >= 2 keys) */
    double top1;            /* mean of max_j p_j */
    double sink_mass;       /* mean of sum_{j < s} p_j */
    double local_mass;      /* mean of the mass on the row's last w visible keys */
    double logit_span;      /* mean over rows of max_j l_j - min_j l_j */
    double max_abs_logit;   /* largest |l_j| */
    double logit_std;       /* mean over rows of the standard deviation of the row's logits */
    /* mean over rows of the cosine between the query and the key of its largest logit: how the logit is
     * written in Q and K (e4m3's sequential q.k rounding depends on it, not only on the logits) */
    double top_cos;
    /* (row, key tile of b_k n_k keys) pairs, key order, fully masked tiles skipped: share where the
     * tile's maximum m fails stage 1's test mu > m + |mu| delta against the running maximum mu of the
     * earlier tiles (the first tile of each row always does) */
    double raise_tile;
    double raise_sub;       /* the same per sub-block of b_k keys */
    /* stage 1 itself on the float64 logits (warps of b_q rows, sub-blocks by descending threat, one
     * decision per warp and sub-block, numerics.md D.2 step 4): the share of active sub-blocks it sends
     * to HP. Against stage1_rate it shows what e4m3 rounding adds. NAN when rows were subsampled. */
    double stage1_exact;
    /* the engine at the configured algorithm (NAN without lamp): sub-block rates of stage 1, of
     * stage 2 and of both, and the share of disruptive tiles (>= 2 HP sub-blocks) */
    double stage1_rate, stage2_rate, subblock_rate, disruptive_rate;
    long engine_rows;       /* query rows the engine ran per (batch, head) */
} ls_wstats_head;

/* Measures every head of one layer. heads must hold min(opts->heads, in->heads_q) entries (or
 * in->heads_q when opts->heads is 0). p: the engine's parameters (compute_reference is not needed).
 * Returns the number of heads written, or -1 with a message. */
int ls_wstats_measure(const ls_attn_inputs *in, int layer, const ls_engine_params *p, const ls_wstats_opts *opts,
                      ls_wstats_head *heads, char *err, size_t errlen);

/* CSV: a header line (with_header) then one line per head. */
void ls_wstats_csv(FILE *out, const ls_wstats_head *h, int n, bool with_header);
/* The summary: per layer, the mean, min and max over heads of each statistic. */
void ls_wstats_summary(FILE *out, const char *name, const ls_wstats_head *h, int n);
#endif
