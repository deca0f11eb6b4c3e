/* Private interface between the files of sim/workload. */
#ifndef LAMPSIM_WORKLOAD_INTERNAL_H
#define LAMPSIM_WORKLOAD_INTERNAL_H
#include "workload.h"

int ls_workload_synthetic(const ls_config_workload *w, int64_t seed, ls_attn_inputs *out, ls_workload_info *info,
                     char *err, size_t errlen);
/* The heads generator (gen_heads.c, workload_heads.h). */
int ls_workload_heads(const ls_config_workload *w, int64_t seed, ls_attn_inputs *out, char *err, size_t errlen);
int ls_workload_trace_load(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                  char *err, size_t errlen);
/* Largest |q.k|/sqrt(d) over the visible pairs of the scanned rows (-1: out of memory); rows are
 * subsampled beyond 2^28 multiply-adds (*sampled). screened: through the fp32 screen (same result,
 * bit for bit); else every pair in float64 (the definition). */
double ls_workload_max_logit(const ls_attn_inputs *in, bool screened, bool *sampled);
/* Keys query row i sees (bottom-right aligned causal mask): keys 0 .. n-1. */
int ls_workload_visible_keys(const ls_attn_inputs *in, int i);
/* The first key query row i sees: 0, or with a sliding window (in->window > 0) the window's first key. */
int ls_workload_first_visible_key(const ls_attn_inputs *in, int i);
#endif
