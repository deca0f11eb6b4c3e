/* The objective of a sweep (`best:`) against the points: which are infeasible, and whether a timed
 * metric is asked of points that run the golden engine. The objective file and the choice of the
 * winners are sweep_objective.c (no simulator behind them: the merger and its fuzzer use them). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "atomic_dir.h"
#include "run.h"
#include "sweep.h"
#include "timed.h"

bool ls_sweep_best_metric_timed(const char *metric)
{
    for (int i = 0; i < LS_SWEEP_N_TIMED_METRICS; i++)
        if (!strcmp(metric, ls_sweep_best_metrics[i])) return true;
    return false;
}

/* Whether a configuration runs on the timed model (a golden point has no cycles). */
static bool runs_timed(const ls_config *cfg)
{
    ls_engine_params ep;
    ls_run_engine_params(cfg, &ep);
    return cfg->timed.enabled && ls_timed_program_for_mode(ep.mode);
}

int ls_sweep_best_check(ls_sweep *sw, char *err, size_t errlen)
{
    if (!sw->best.set) return 0;
    ls_config *cfg = malloc(sizeof *cfg);
    if (!cfg) { snprintf(err, errlen, "out of memory"); return 1; }
    const char *mkey = sw->best.maximise ? "best.maximise" : "best.minimise";
    int kept = 0, rc = 0;
    char why[2048];
    for (int p = 0; p < sw->npoints; p++) {
        ls_sweep_point *pt = &sw->points[p];
        if (!rc && (ls_sweep_point_config(sw, pt, cfg, why, sizeof why) || ls_run_check(cfg, why, sizeof why))) {
            rc = ls_sweep_add_infeasible(sw, pt, why);
            continue;
        }
        if (!rc && ls_sweep_best_metric_timed(sw->best.metric) && !runs_timed(cfg)) {
            snprintf(err, errlen, "%s:%d:%d: %s: %s comes from the timed model, but point %d (%s) runs the golden "
                     "engine (timed.enabled: false, or a mode the timed model does not run)", sw->file, sw->best.line,
                     sw->best.col, mkey, sw->best.metric, p, sw->naxes ? pt->overrides[0] : "");
            rc = 2;
        }
        sw->points[kept] = *pt;
        sw->points[kept].index = kept;
        if (kept++ != p) pt->overrides = NULL;
    }
    free(cfg);
    sw->npoints = kept;
    if (!rc && !kept)
        snprintf(err, errlen, "%s:%d:%d: %s: every point is infeasible; the first: %s", sw->file, sw->best.line,
                 sw->best.col, mkey, sw->infeasible[0].why);
    if (rc == 1) snprintf(err, errlen, "out of memory");
    return rc ? rc : kept ? 0 : 2;
}

