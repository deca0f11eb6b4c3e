/* The report of one run: every figure the engine measured, the workload facts, and the resolved
 * configuration with the seed and lampsim version, as one ordered field list (fields.h) written to
 * report.json and report.csv. Deterministic: the same configuration gives byte-identical reports
 * (host-dependent measurements such as wall time go to run_info.json, never here). */
#ifndef LAMPSIM_REPORT_REPORT_H
#define LAMPSIM_REPORT_REPORT_H
#include <stdio.h>

#include "config.h"
#include "report_config.h"
#include "engine.h"
#include "fields.h"
#include "workload.h"

#define LS_REPORT_SCHEMA_VERSION 2   /* 2: energy.total_uj renamed energy.dynamic_uj (no leakage) */

/* Appends the engine's report fields (schema_version, lampsim.*, seed, mode, model, workload.*,
 * numerics.computed, tiles.*, recompute.*, accuracy.*, events.*) in that order; model is "timed" or
 * "golden"; a timing-only result (r->timing_only) stops after recompute.*. A run
 * then appends the timed model's fields (if any) and, last, ls_report_config_fields. */
void ls_report_fields(ls_fields *fs, const ls_config *cfg, const char *model, const ls_workload_info *wl,
                      const ls_engine_result *r);
/* A compact human summary. */
void ls_report_summary(FILE *out, const ls_config *cfg, const ls_workload_info *wl, const ls_engine_result *r);
#endif
