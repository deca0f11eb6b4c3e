/* sim/sweep/sweep_progress.h — the runner's progress (private to sim/sweep): the work items each
 * running point has done, counted by its worker in memory shared with the runner, and the status
 * line. Which points count, and how much, is the runner's business (sweep_run.c). */
#ifndef LAMPSIM_SIM_SWEEP_PROGRESS_H
#define LAMPSIM_SIM_SWEEP_PROGRESS_H
#include <stdatomic.h>

#include "run_progress.h"
#include "sweep.h"

/* Work items done by the point a worker runs. */
typedef struct {
    atomic_long done, total;
} ls_sweep_items;

/* n counters in anonymous shared memory (zeroed; inherited by forked workers), or NULL. */
ls_sweep_items *ls_sweep_items_map(int n);
void ls_sweep_items_unmap(ls_sweep_items *items, int n);
/* ls_run's work-item callback (user: one ls_sweep_items); engine threads may report out of
 * order, so it keeps the maximum. */
void ls_sweep_items_update(void *user, long done, long total);
/* done / total of one point, 0 before its first report. */
double ls_sweep_items_fraction(const ls_sweep_items *pi);

/* One status line: points done, rate, elapsed, ETA from share (the work done), workers busy, failures. */
void ls_sweep_show_status(ls_run_progress *pg, const ls_sweep *sw, int fin, int total, int ran, int running,
                          int failed, double share, double now);
#endif
