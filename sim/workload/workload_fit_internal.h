/* Internals shared by the fit (workload_fit.c) and its calibration (workload_calib.c). */
#ifndef LAMPSIM_WORKLOAD_WORKLOAD_FIT_INTERNAL_H
#define LAMPSIM_WORKLOAD_WORKLOAD_FIT_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "workload_fit.h"
#include "workload_stats.h"

enum { FIT_PAIRS_MAX = 24 };   /* rotary pairs per head at most */
/* the layer's factor on the far spread: searched from 1 / FIT_SPREAD_MAX to FIT_SPREAD_MAX (2 FIT_SPREAD_STEPS + 1
 * points, log-spaced) when the layer's stage-1 share is more than FIT_SPREAD_TRIGGER off; its error counted over
 * FIT_SPREAD_STAGE1, the heads' mean errors of local mass and entropy over (and held within) the check's limits */
#define FIT_SPREAD_MAX 2.8284271247461903
#define FIT_SPREAD_TRIGGER 0.02
enum { FIT_SPREAD_STEPS = 6 };
#define FIT_SPREAD_STAGE1 0.025
#define FIT_TOL_LOCAL 0.05
#define FIT_TOL_ENTROPY 0.06

/* A layer at a factor on its heads' scale: its stage-1 error (mean over heads and 3 seeds) and the heads' mean
 * absolute errors of local mass and entropy. */
typedef struct {
    double factor, stage1, local, entropy;
} ls_wfit_spread;

/* A layer whose stage-1 share the analytic far spread missed by more than FIT_SPREAD_TRIGGER: there and at the
 * factor taken (factor 1: kept). */
typedef struct {
    int layer;                  /* the fitted layer (its query heads layer * heads_q ..) */
    ls_wfit_spread at1, taken;
} ls_wfit_spread_note;

struct ls_wfit_sums {
    ls_wheads_knobs *k;
    double *freq, *ac, *as;   /* rotary profile: freq per fitted KV head x pairs; amplitudes per query head x pairs */
    double *nc, *ns;          /* the near keys' extra spread: noise-kernel amplitudes per query head x pairs */
    int pairs;                /* pairs per head (chosen at the first layer from d) */
    bool layout_set;          /* pairs / noise / channels already chosen (by the search, or a trial's) */
    bool noise;               /* whether d leaves channels for the noise kernel */
    bool bias_ch, sink_ch;    /* whether d leaves channels for the bias and the sink */
    bool calibrate;           /* scale each head so its local mass, entropy and sink mass match the trace's */
    int64_t seed;             /* the seed the fitted workload will be generated with (calibration uses its numbers) */
    int n, cap;
    int heads_q, heads_kv, layers, seq_q, seq_k, dim, sinks;
    bool causal;
    int qk_norm_votes;
    ls_wfit_spread_note *spread;   /* the layers whose far spread was searched */
    int nspread;
};

/* Calibrates the query heads base .. base + in->heads_q - 1 of s (fitted from in, their KV heads from kv_base)
 * against the trace's statistics t: each head's amplitude and sink for local mass, entropy and sink mass, then
 * the layer's far spread for its stage-1 share (docs/workloads.md, "Fitting", step 4). Where it cannot measure,
 * the analytic fit stands. */
void ls_wfit_calibrate_layer(ls_wfit_sums *s, const ls_attn_inputs *in, int base, int kv_base, bool qk_norm,
                             const ls_engine_params *p, const ls_wstats_head *t);
#endif
