/* sim/timed/timed_trace.c — Chrome trace-event JSON (opens in ui.perfetto.dev). */
#define _POSIX_C_SOURCE 200809L
#include "timed_trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ls_timed_trace_init(ls_timed_trace *t, int first_tile, int ntiles, size_t max_events)
{
    memset(t, 0, sizeof *t);
    t->first_tile = first_tile < 0 ? 0 : first_tile;
    t->ntiles = ntiles < 1 ? 1 : ntiles;
    t->max_events = max_events;
}

void ls_timed_trace_free(ls_timed_trace *t)
{
    free(t->ev);
    free(t->ctr);
    memset(t, 0, sizeof *t);
}

void ls_timed_trace_txn(void *user, const lsdp_txn *x, int item, int tile_ordinal)
{
    ls_timed_trace *t = user;
    if (tile_ordinal < t->first_tile || tile_ordinal >= t->first_tile + t->ntiles) return;
    uint64_t dur = x->unit == LSUCODE_MEM ? x->end - x->start : x->busy;
    if (dur == 0) return;
    if (t->nev >= t->max_events) { t->dropped++; return; }
    if (t->nev == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 4096;
        ls_timed_trace_ev *n = realloc(t->ev, nc * sizeof *n);
        if (!n) { t->dropped++; return; }
        t->ev = n;
        t->cap = nc;
    }
    ls_timed_trace_ev *e = &t->ev[t->nev++];
    e->core = (uint32_t)x->core; e->unit = (uint32_t)x->unit; e->op = (uint32_t)x->op;
    e->item = (uint32_t)item; e->tile = (uint32_t)tile_ordinal;
    e->start = x->start; e->dur = dur;
}

void ls_timed_trace_resident(void *user, int core, uint64_t cycle, int resident)
{
    ls_timed_trace *t = user;
    if (t->nctr == t->ccap) {
        size_t nc = t->ccap ? 2 * t->ccap : 1024;
        ls_timed_trace_ctr *n = realloc(t->ctr, nc * sizeof *n);
        if (!n) return;
        t->ctr = n;
        t->ccap = nc;
    }
    ls_timed_trace_ctr *c = &t->ctr[t->nctr++];
    c->core = (uint32_t)core; c->cycle = cycle; c->resident = (uint32_t)resident;
}

/* Whole nanoseconds since cycle 0. Every timestamp (slice start, slice end, counter) goes through
 * this one monotonic function and a duration is the difference of two of them, so slices that do
 * not overlap in cycles cannot overlap after rounding either. */
static uint64_t to_ns(uint64_t cycle, double clock_ghz)
{
    return (uint64_t)llround((double)cycle / clock_ghz);
}

/* Microseconds (the Chrome trace unit) printed exactly from whole nanoseconds. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
    fprintf(f, "\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

typedef struct {
    uint32_t core, unit;
    uint64_t s, e;      /* ns */
    size_t i;           /* index into t->ev */
    uint32_t lane;      /* track of the (core, unit): 0 unless work overlaps (in-flight loads) */
} ls_timed_trace_slice;

static int slice_cmp(const void *a, const void *b)
{
    const ls_timed_trace_slice *x = a, *y = b;
    if (x->core != y->core) return x->core < y->core ? -1 : 1;
    if (x->unit != y->unit) return x->unit < y->unit ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    if (x->e != y->e) return x->e > y->e ? -1 : 1;      /* longer first */
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorts the slices by (core, unit, start) and puts each on the first lane of its (core, unit) that
 * is free by its start, so every lane holds disjoint slices. lanes[core * LSUCODE_NUNITS + unit]
 * receives the number of lanes used. Returns the slices (caller frees) or NULL. */
static ls_timed_trace_slice *assign_lanes(const ls_timed_trace *t, double clock_ghz, int cores, uint32_t *lanes)
{
    ls_timed_trace_slice *sl = malloc((t->nev ? t->nev : 1) * sizeof *sl);
    uint64_t *free_at = NULL;
    size_t nfree = 0;
    if (!sl) return NULL;
    for (size_t i = 0; i < t->nev; i++) {
        const ls_timed_trace_ev *e = &t->ev[i];
        sl[i] = (ls_timed_trace_slice){e->core, e->unit, to_ns(e->start, clock_ghz), to_ns(e->start + e->dur, clock_ghz), i, 0};
    }
    qsort(sl, t->nev, sizeof *sl, slice_cmp);
    uint32_t used = 0;
    for (size_t k = 0; k < t->nev; k++) {
        if (k == 0 || sl[k].core != sl[k - 1].core || sl[k].unit != sl[k - 1].unit) used = 0;
        uint32_t l = 0;
        while (l < used && free_at[l] > sl[k].s) l++;
        if (l == used) {
            if (used == nfree) {
                size_t nn = nfree ? 2 * nfree : 8;
                uint64_t *m = realloc(free_at, nn * sizeof *m);
                if (!m) { free(free_at); free(sl); return NULL; }
                free_at = m;
                nfree = nn;
            }
            used++;
        }
        free_at[l] = sl[k].e;
        sl[k].lane = l;
        if ((int)sl[k].core < cores) lanes[sl[k].core * LSUCODE_NUNITS + sl[k].unit] = used;
    }
    free(free_at);
    return sl;
}

/* One process per core with work, one thread per (unit, lane); lanes of a unit sort together. */
static void write_tracks(FILE *f, const ls_timed_trace *t, int cores, const uint32_t *lanes, int *first)
{
    for (int c = 0; c < cores; c++) {
        int any = 0;
        for (int u = 0; u < LSUCODE_NUNITS; u++) any |= lanes[c * LSUCODE_NUNITS + u] > 0;
        for (size_t i = 0; i < t->nctr && !any; i++) any = t->ctr[i].core == (uint32_t)c;
        if (!any) continue;
        fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"core %d\"}}",
                *first ? "" : ",\n", c, c);
        *first = 0;
        for (int u = 1; u < LSUCODE_NUNITS; u++) {
            uint32_t nl = lanes[c * LSUCODE_NUNITS + u] ? lanes[c * LSUCODE_NUNITS + u] : 1;
            for (uint32_t l = 0; l < nl; l++) {
                unsigned tid = (unsigned)u + (unsigned)LSUCODE_NUNITS * l;
                if (l == 0)
                    fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
                            c, tid, lsucode_unit_name(u));
                else
                    fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"%s (overlap %u)\"}}",
                            c, tid, lsucode_unit_name(u), l + 1);
                fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
                        c, tid, (unsigned)u * 1024u + l);
            }
        }
    }
}

static void write_events(FILE *f, const ls_timed_trace *t, double clock_ghz, const ls_timed_trace_slice *sl, int *first)
{
    for (size_t k = 0; k < t->nev; k++) {
        const ls_timed_trace_ev *e = &t->ev[sl[k].i];
        const lsucode_opinfo *oi = lsucode_op_info((int)e->op);
        fprintf(f, "%s{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,", *first ? "" : ",\n",
                oi ? oi->mnemonic : "?", e->core, e->unit + (uint32_t)LSUCODE_NUNITS * sl[k].lane);
        put_us(f, "ts", sl[k].s);
        fputc(',', f);
        put_us(f, "dur", sl[k].e - sl[k].s);
        fprintf(f, ",\"args\":{\"item\":%u,\"tile\":%u,\"cycle\":%llu,\"cycles\":%llu}}", e->item, e->tile,
                (unsigned long long)e->start, (unsigned long long)e->dur);
        *first = 0;
    }
    for (size_t i = 0; i < t->nctr; i++) {
        const ls_timed_trace_ctr *c = &t->ctr[i];
        double ru = t->registers > 0 ? (double)c->resident * t->regs_per_context / t->registers : 0.0;
        fprintf(f, "%s{\"ph\":\"C\",\"name\":\"occupancy\",\"pid\":%u,", *first ? "" : ",\n", c->core);
        put_us(f, "ts", to_ns(c->cycle, clock_ghz));
        fprintf(f, ",\"args\":{\"contexts\":%u,\"register_utilisation\":%.4f}}", c->resident, ru);
        *first = 0;
    }
}

int ls_timed_trace_write(const ls_timed_trace *t, const char *path, double clock_ghz, int cores, char *err, size_t errlen)
{
    uint32_t *lanes = calloc((size_t)(cores > 0 ? cores : 1) * LSUCODE_NUNITS, sizeof *lanes);
    ls_timed_trace_slice *sl = lanes ? assign_lanes(t, clock_ghz, cores, lanes) : NULL;
    size_t pl = strlen(path);
    char *tmp = sl ? malloc(pl + 8) : NULL;
    if (!tmp) { snprintf(err, errlen, "out of memory"); free(lanes); free(sl); return -1; }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    if (!f) { snprintf(err, errlen, "%s: cannot write the trace", path); free(tmp); free(lanes); free(sl); return -1; }
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock_ghz\":%.6g,\"window_first_tile\":%d,"
            "\"window_tiles\":%d,\"dropped_events\":%zu},\n\"traceEvents\":[\n", clock_ghz, t->first_tile,
            t->ntiles, t->dropped);
    int first = 1;
    write_tracks(f, t, cores, lanes, &first);
    write_events(f, t, clock_ghz, sl, &first);
    free(lanes);
    free(sl);
    fprintf(f, "\n]}\n");
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write the trace", path);
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}
