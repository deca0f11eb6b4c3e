/* Perfetto / Chrome JSON timeline of a timed run (docs/architecture.md, "Timeline").
 *
 * One process per core with work, its tracks named as the report names units (tensor, lut, sfu,
 * vector, scheduler, buffer: the buffer port's operand reads and fills), `memory requests` (Q, K/V
 * loads and O stores in flight, from request to data in the buffer) and `contexts` (one slice per
 * traced context, ending in a `trace window ends` instant where the window cut it short), a
 * `resident contexts` counter; one `chip` process with the `dram` and `l2` channels. Slices carry
 * their context and their work (MACs and precision, lookups, bytes, ...) in args; flows (Chrome
 * JSON v2: bind_id, flow_in, flow_out) chain each traced tile's K/V load, QK.LP, EXP and P.V.
 * Bounded to a window of key tiles of every context and to max_events slices. */
#ifndef LAMPSIM_SIM_TIMED_TRACE_H
#define LAMPSIM_SIM_TIMED_TRACE_H
#include <stdint.h>
#include <stdio.h>

#include "lsdp.h"
#include "lsunit.h"

/* Tracks of a core, then the chip's: the units the report lists (units.def: core and report, then
 * report and not core), named and ordered as there (LS_TRACE_<unit ID>). */
enum {
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) LSUNIT_IF2(core, report, LS_TRACE_##ID,)
#include "units.def"
#undef LSUNIT
    LS_TRACE_REQUESTS, LS_TRACE_CONTEXTS, LS_TRACE_NCORE_TRACKS,
    LS_TRACE_CHIP_FIRST_ = LS_TRACE_NCORE_TRACKS - 1,   /* so that the chip's first track is NCORE_TRACKS */
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) LSUNIT_IF2(report, LSUNIT_NOT(core), LS_TRACE_##ID,)
#include "units.def"
#undef LSUNIT
    LS_TRACE_NTRACKS };

typedef struct {
    uint32_t core, track, op, item, tile;
    int32_t kt;
    uint64_t start, dur, work, work_hp;
    uint8_t cont;
    uint8_t flow;               /* 0, or a link of a dependency chain: 1 out, 2 in and out, 3 in */
    uint64_t flow_id;
} ls_timed_trace_ev;
typedef struct {
    uint32_t core, resident;
    uint64_t cycle;
} ls_timed_trace_ctr;
/* What the trace saw of one context (work item). */
typedef struct {
    int seen;                   /* a traced slice */
    int cut;                    /* activity past the window (not drawn) */
    uint32_t core;
    int b, hq, qb;
    uint64_t first, last;       /* first traced start, last traced end */
    size_t *chain;              /* [ntiles][4]: event index of the tile's K/V load, QK.LP, EXP, P.V, or SIZE_MAX */
} ls_timed_trace_item;

typedef struct {
    int first_tile, ntiles;     /* window: tile ordinals [first, first + n) of every context */
    size_t max_events;
    ls_timed_trace_ev *ev; size_t nev, cap;
    ls_timed_trace_ctr *ctr; size_t nctr, ccap;
    ls_timed_trace_item *items; size_t nitems;
    size_t dropped;
    int regs_per_context, registers, key_tiles;
    /* the channel occupancy of the memory access being served, claimed by its transaction */
    int pend_ch; uint64_t pend_start, pend_busy, pend_bytes;
    int oom;
} ls_timed_trace;

void ls_timed_trace_init(ls_timed_trace *t, int first_tile, int ntiles, size_t max_events);
void ls_timed_trace_free(ls_timed_trace *t);
void ls_timed_trace_txn(void *user, const lsdp_txn *x, int item, int tile_ordinal);
void ls_timed_trace_resident(void *user, int core, uint64_t cycle, int resident);
void ls_timed_trace_channel(void *user, int channel, uint64_t start, uint64_t busy, uint64_t bytes);
/* Writes the JSON (atomically: path.tmp then rename). Returns 0 or -1 with err. */
int ls_timed_trace_write(ls_timed_trace *t, const char *path, double clock_ghz, int cores, char *err, size_t errlen);
#endif
