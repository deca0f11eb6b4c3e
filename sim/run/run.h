/* One lampsim run, from a resolved configuration to its outputs: builds the workload, maps the
 * configuration onto the engine, runs it, and writes the run directory atomically. The CLI's
 * `run` and (later) sweep workers call this, so a point of a sweep is exactly a `lampsim run`. */
#ifndef LAMPSIM_RUN_RUN_H
#define LAMPSIM_RUN_RUN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "engine.h"
#include "fields.h"
#include "run_progress.h"
#include "workload.h"

typedef struct {
    const char *out_dir;   /* NULL: print the summary only, write nothing */
    bool force;            /* allow replacing a non-empty out_dir */
    bool save_o;           /* also write O.npy (and O_ref.npy) */
    bool save_records;     /* also write records.npy (and, mode lamp_code, lamp_code_mask.npy) */
    bool quiet;            /* no summary on stdout */
    FILE *summary;         /* where the summary goes (default stdout) */
    ls_run_progress_style progress; /* work-item progress on stderr (OFF unless asked; quiet: OFF) */
    double progress_period;         /* seconds between plain progress lines (<= 0: the default) */
    /* instead of printing progress: each finished work item is reported here (the sweep runner) */
    void (*on_items)(void *user, long done, long total);
    void *on_items_user;
    /* in-process evaluation (lampsim sensitivity): when set, receives the report's fields (those
     * report.json holds) and whether the timed model replayed its numerics from the cache */
    ls_fields *fields_out;
    bool *numerics_reused_out;
    /* the inputs built once by the caller (ls_workload_build of a configuration whose seed and
     * workload.* equal cfg's), used instead of building them again, and not released here */
    const ls_attn_inputs *inputs;
    const ls_workload_info *inputs_info;
} ls_run_opts;

/* Opens run_info.json's object and writes the fields every run records (version, git revision,
 * config source, host, threads); the caller adds its own and closes the object. */
struct ls_json;
void ls_run_info_begin(struct ls_json *j, const ls_config *cfg, int threads);

/* The engine parameters a configuration asks for (the run's own ones zero). */
void ls_run_engine_params(const ls_config *cfg, ls_engine_params *p);
/* The engine parameters of the schema's defaults: the one set of defaults of the algorithm. */
void ls_run_engine_defaults(ls_engine_params *p);

/* The checks that need the configuration only (microprogram, register fit, LUT present for the
 * mode), so `validate` finds what `run` would find, and `run` finds it before generating data.
 * Returns 0, or 2 with "key: what" in err. */
int ls_run_check(const ls_config *cfg, char *err, size_t errlen);

/* True when cfg raises workload.max_elements above its default (a run the guard would refuse). */
bool ls_run_estimate_wanted(const ls_config *cfg);
/* Prints the workload's size and (synthetic workloads) an estimate of the run time, from timing
 * one query block of one head, to out. */
void ls_run_estimate(const ls_config *cfg, FILE *out);

/* Runs cfg. Returns 0; 2 for bad input (workload, out_dir refused) with a message in err; 1 for a
 * run or I/O failure. The output location is checked before anything is computed; the run is
 * written into a temporary directory next to out_dir and swapped in by rename (ls_atomic_dir),
 * so out_dir holds the old run or the new one, never a mix, and a failed run creates no out_dir. */
int ls_run(const ls_config *cfg, const ls_run_opts *opts, char *err, size_t errlen);
#endif
