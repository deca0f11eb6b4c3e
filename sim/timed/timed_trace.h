/* Perfetto / Chrome JSON timeline of a timed run: unit activity per core (one track per unit)
 * and resident-context counters, bounded to a window of key tiles per context. */
#ifndef LAMPSIM_SIM_TIMED_TRACE_H
#define LAMPSIM_SIM_TIMED_TRACE_H
#include <stdint.h>
#include <stdio.h>

#include "lsdp.h"

typedef struct {
    uint32_t core, unit, op, item, tile;
    uint64_t start, dur;
} ls_timed_trace_ev;
typedef struct {
    uint32_t core, resident;
    uint64_t cycle;
} ls_timed_trace_ctr;

typedef struct {
    int first_tile, ntiles;     /* window: tile ordinals [first, first + n) of every context */
    size_t max_events;
    ls_timed_trace_ev *ev; size_t nev, cap;
    ls_timed_trace_ctr *ctr; size_t nctr, ccap;
    size_t dropped;
    int regs_per_context, registers;
} ls_timed_trace;

void ls_timed_trace_init(ls_timed_trace *t, int first_tile, int ntiles, size_t max_events);
void ls_timed_trace_free(ls_timed_trace *t);
void ls_timed_trace_txn(void *user, const lsdp_txn *x, int item, int tile_ordinal);
void ls_timed_trace_resident(void *user, int core, uint64_t cycle, int resident);
/* Writes the JSON (atomically: path.tmp then rename). Returns 0 or -1 with err. */
int ls_timed_trace_write(const ls_timed_trace *t, const char *path, double clock_ghz, int cores, char *err, size_t errlen);
#endif
