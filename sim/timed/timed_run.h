/* Private to the C side of sim/timed: the state of one run (timed_run) and the stages the build,
 * run and report files share. timed_build.c: configuration -> program, resident plan, shape,
 * hardware and units; timed.c: the numerics (cache, golden first, merge) and the run; timed_report.c:
 * the figures, the report fields and the summary. */
#ifndef LAMPSIM_SIM_TIMED_RUN_H
#define LAMPSIM_SIM_TIMED_RUN_H
#include <stdbool.h>
#include <stdint.h>

#include "engine_parts.h"
#include "lsdp.h"
#include "lsmem.h"
#include "lsregfile.h"
#include "lsseq.h"
#include "lsucode.h"
#include "timed.h"
#include "timed_trace.h"

/* ---- the run ---- */
/* Everything one run builds and owns; zeroed at the start, released in one place (timed_free). */
typedef struct {
    /* the request */
    const ls_config *cfg;
    const ls_config_accelerator *ac;
    const ls_engine_params *ep;
    const ls_attn_inputs *in;
    const ls_timed_options *opt;
    ls_engine_result *r;
    ls_timed_result *tr;
    char *err;
    size_t errlen;
    /* program and register plan */
    lsucode_program prog;
    lsregfile_params rp;           /* the resident plan's inputs and result (hw/regfile) */
    lsregfile_tile rt;
    lsregfile_alloc ra;
    int kvg;                       /* contexts per K/V-sharing block */
    /* numerics */
    lslamp_cfg *lc;
    int synth;                     /* LSDP_SYNTH_*: timing only */
    bool reuse;                    /* fill the numerics cache */
    bool cached, golden;           /* the units replay the cache's records / the golden engine's */
    bool from_file;                /* the cache was filled from timed.numerics_dir for this run */
    bool replay;                   /* either: the units do no arithmetic */
    uint64_t key;
    lslamp_tile_record *grecs;     /* the golden engine's records, as the units read them */
    lsdp_shape sh;
    /* the engine-compatible result's buffers */
    int nitems, hl;
    int nseq;                      /* the sequencer's items: nitems x the split-KV splits */
    size_t nout, nrecs;
    lslamp_tile_record *recs;
    lsdp_item_stats *items;
    uint64_t *hist;
    /* the hardware */
    lsdp_unit units[LSUNIT_N];
    lsdp_issue_port *issue;           /* [cores] when accelerator.issue.per_cycle > 0 */
    lsdp_hw hw;
    lsmem_state mem;
    int depth;                     /* prefetch depth */
    lsseq s;
    ls_timed_trace trace;
    ls_engine_acc_ws acc;
    long items_done;
} timed_run;

/* err <- the formatted message; returns -1 */
int ls_timed_run_fail(timed_run *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* timed_build.c: the stages that need no data (ls_timed_check_layer runs them alone): program,
 * resident plan, numerics configuration, shape, hardware, feasibility; then the result's buffers and
 * the units. */
int ls_timed_plan_stages(timed_run *t);
int ls_timed_alloc_buffers(timed_run *t);
int ls_timed_build_units(timed_run *t);

/* timed.c: the numerics configuration and whether the cache is read or filled; the cache's records. */
int ls_timed_plan_numerics(timed_run *t);
const lslamp_tile_record *ls_timed_cache_records(void);

/* timed_ff.c: with opt->fast_forward, where the batch entries repeat, time the first k1 and k2 of them with
 * `run` (the sequencer over the units) and extrapolate every count to the batch (*applied); otherwise
 * nothing is run and the reason is in tr->fast_forward.why_not. */
int ls_timed_fast_forward(timed_run *t, int (*run)(timed_run *), bool *applied);

/* timed_report.c: cycles, throughput, units, stalls, occupancy, energy, area and the cycle stack of the
 * finished run. */
void ls_timed_figures(timed_run *t);
#endif
