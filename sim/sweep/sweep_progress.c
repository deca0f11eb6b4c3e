/* sim/sweep/sweep_progress.c — work-item counters shared with the workers, and the status line
 * (see sweep_progress.h). */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include "sweep_progress.h"

#include <stdio.h>
#include <sys/mman.h>

ls_sweep_items *ls_sweep_items_map(int n)
{
    void *m = mmap(NULL, (size_t)n * sizeof(ls_sweep_items), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

void ls_sweep_items_unmap(ls_sweep_items *items, int n)
{
    if (items) munmap(items, (size_t)n * sizeof *items);
}

void ls_sweep_items_update(void *user, long done, long total)
{
    ls_sweep_items *pi = user;
    atomic_store_explicit(&pi->total, total, memory_order_relaxed);
    long cur = atomic_load_explicit(&pi->done, memory_order_relaxed);
    while (cur < done && !atomic_compare_exchange_weak_explicit(&pi->done, &cur, done, memory_order_relaxed,
                                                                memory_order_relaxed)) {
    }
}

double ls_sweep_items_fraction(const ls_sweep_items *pi)
{
    long d = atomic_load_explicit(&pi->done, memory_order_relaxed);
    long t = atomic_load_explicit(&pi->total, memory_order_relaxed);
    return t > 0 ? (double)d / (double)t : 0.0;
}

void ls_sweep_show_status(ls_run_progress *pg, const ls_sweep *sw, int fin, int total, int ran, int running,
                          int failed, double share, double now)
{
    char line[256], text[sizeof line + LS_CONFIG_NAME_MAX + 64];
    double el = now - pg->t0;
    ls_run_progress_format(line, sizeof line, fin, total, "points", el > 0 ? ran / el : 0, share, el);
    snprintf(text, sizeof text, "sweep %s: %s; %d running, %d failed, work %.0f%%", sw->name, line, running, failed,
             100.0 * share);
    ls_run_progress_print(pg, now, text);
}
