/* Fits the `heads` generator's knobs (workload_heads.h) to traced attention, head by head, from the
 * float64 logits, and writes a workload YAML that generates look-alike data at any length. Every
 * traced (layer, head) becomes one query head of the fitted workload (layer-major), KV heads likewise,
 * so its per-head statistics can be compared head by head. See docs/workloads.md, "Fitting". */
#ifndef LAMPSIM_WORKLOAD_WORKLOAD_FIT_H
#define LAMPSIM_WORKLOAD_WORKLOAD_FIT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "attn_inputs.h"
#include "config.h"
#include "engine.h"
#include "workload_heads.h"

typedef struct ls_wfit_sums ls_wfit_sums;

ls_wfit_sums *ls_wfit_sums_new(void);
void ls_wfit_sums_free(ls_wfit_sums *s);
/* Fits every query head of one traced layer (its heads and GQA grouping must match earlier layers'). */
/* p: the algorithm whose tile the calibration measures at (NULL: no calibration). */
int ls_wfit_accumulate(ls_wfit_sums *s, const ls_attn_inputs *in, int layer, const ls_engine_params *p, char *err,
                       size_t errlen);
/* Calibration on (the default) or off: off gives the analytic fit of the mean profile and spreads only. */
void ls_wfit_set_calibrate(ls_wfit_sums *s, bool on);
/* The seed the fitted workload is to be generated with (default 0): calibration measures those very numbers. */
void ls_wfit_set_seed(ls_wfit_sums *s, int64_t seed);
/* The knobs fitted so far: *n query heads (layer-major); NULL when none. */
const ls_wheads_knobs *ls_wfit_knobs(const ls_wfit_sums *s, int *n);
/* Fits one head (query head h of batch 0 .. in->batch-1, sink keys sinks) into *k. */
int ls_wfit_head(const ls_attn_inputs *in, int h, int sinks, ls_wheads_knobs *k, char *err, size_t errlen);
/* Warnings on what the traces' head dimension leaves out (no bias or sink channel, few pairs, no random part). */
void ls_wfit_layout_notes(const ls_wfit_sums *s, FILE *out);
/* One line per layer whose far spread was searched for its stage-1 share: the errors at the analytic spread and
 * what the factor taken changed. */
void ls_wfit_print_spread_notes(const ls_wfit_sums *s, FILE *out);
/* Writes the fitted workload: geometry of the traces (heads stacked over layers), dtype and causal
 * of base, generator heads. name NULL: "fitted". Written whole or not at all. */
int ls_wfit_write(const ls_wfit_sums *s, const ls_config_workload *base, const char *name, const char *path, char *err,
                  size_t errlen);
#endif
