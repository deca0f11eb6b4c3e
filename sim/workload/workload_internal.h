/* Private interface between the files of sim/workload. */
#ifndef LAMPSIM_WORKLOAD_INTERNAL_H
#define LAMPSIM_WORKLOAD_INTERNAL_H
#include "workload.h"

int ls_workload_synthetic(const ls_config_workload *w, int64_t seed, ls_attn_inputs *out, ls_workload_info *info,
                     char *err, size_t errlen);
int ls_workload_trace_load(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                  char *err, size_t errlen);
#endif
