/* sim/timed/timed_trace.c — Chrome trace-event JSON (opens in ui.perfetto.dev); see timed_trace.h. */
#define _POSIX_C_SOURCE 200809L
#include "timed_trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timed_internal.h"

/* Steps of a tile's dependency chain, in order: its K/V load, QK, the exponentials, P.V. */
enum { CHAIN_LOAD, CHAIN_QK, CHAIN_EXP, CHAIN_PV, CHAIN_N };

void ls_timed_trace_init(ls_timed_trace *t, int first_tile, int ntiles, size_t max_events)
{
    memset(t, 0, sizeof *t);
    t->first_tile = first_tile < 0 ? 0 : first_tile;
    t->ntiles = ntiles < 1 ? 1 : ntiles;
    t->max_events = max_events;
    t->pend_ch = -1;
}

void ls_timed_trace_free(ls_timed_trace *t)
{
    for (size_t i = 0; i < t->nitems; i++) free(t->items[i].chain);
    free(t->items);
    free(t->ev);
    free(t->ctr);
    memset(t, 0, sizeof *t);
}

static ls_timed_trace_item *item_of(ls_timed_trace *t, int item)
{
    if (item < 0) return NULL;
    if ((size_t)item >= t->nitems) {
        size_t n = t->nitems ? t->nitems : 64;
        while (n <= (size_t)item) n *= 2;
        ls_timed_trace_item *ni = realloc(t->items, n * sizeof *ni);
        if (!ni) { t->oom = 1; return NULL; }
        memset(ni + t->nitems, 0, (n - t->nitems) * sizeof *ni);
        t->items = ni;
        t->nitems = n;
    }
    return &t->items[item];
}

/* Adds an event; returns its index, or SIZE_MAX when dropped (the cap, or memory). */
static size_t add(ls_timed_trace *t, const ls_timed_trace_ev *e)
{
    if (t->nev >= t->max_events) { t->dropped++; return SIZE_MAX; }
    if (t->nev == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 4096;
        ls_timed_trace_ev *n = realloc(t->ev, nc * sizeof *n);
        if (!n) { t->dropped++; t->oom = 1; return SIZE_MAX; }
        t->ev = n;
        t->cap = nc;
    }
    t->ev[t->nev] = *e;
    return t->nev++;
}

static int chain_step(const lsdp_txn *x)
{
    if (x->cont || x->part != 0) return -1;
    switch (x->op) {
    case LSUCODE_OP_LDKV: return CHAIN_LOAD;
    case LSUCODE_OP_QK_LP: case LSUCODE_OP_QK_HP: return CHAIN_QK;
    case LSUCODE_OP_EXP: return CHAIN_EXP;
    case LSUCODE_OP_PV: case LSUCODE_OP_SLOWPV: return CHAIN_PV;
    default: return -1;
    }
}

static int is_transfer(int op) { return op == LSUCODE_OP_LDQ || op == LSUCODE_OP_LDKV || op == LSUCODE_OP_STO; }

void ls_timed_trace_channel(void *user, int channel, uint64_t start, uint64_t busy, uint64_t bytes)
{
    ls_timed_trace *t = user;
    t->pend_ch = channel;
    t->pend_start = start;
    t->pend_busy = busy;
    t->pend_bytes = bytes;
}

void ls_timed_trace_txn(void *user, const lsdp_txn *x, int item, int tile_ordinal)
{
    ls_timed_trace *t = user;
    int ch = t->pend_ch;   /* the channel occupancy of this transfer, if it was one */
    t->pend_ch = -1;
    ls_timed_trace_item *it = item_of(t, item);
    if (!it) return;
    if (tile_ordinal >= t->first_tile + t->ntiles) { it->cut = 1; return; }
    if (tile_ordinal < t->first_tile) return;
    const lsdp_ctx *c = x->ctx;
    ls_timed_trace_ev e = { .core = (uint32_t)x->core, .op = (uint32_t)x->op, .item = (uint32_t)item,
                            .tile = (uint32_t)tile_ordinal, .kt = c ? c->kt : -1, .work = x->work,
                            .work_hp = x->work_hp, .cont = x->cont };
    if (x->op == LSUCODE_OP_LDKV) e.kt = x->arg;
    size_t idx = SIZE_MAX;
    if (x->unit == LSUNIT_BUFFER && is_transfer(x->op)) {
        /* in flight from request to data in the buffer; the buffer port's share; the channel's */
        e.track = LS_TRACE_REQUESTS; e.start = x->start; e.dur = x->end - x->start;
        idx = add(t, &e);
        if (x->busy) {
            ls_timed_trace_ev b = e;
            b.track = LS_TRACE_BUFFER; b.start = x->fill_start; b.dur = x->busy;
            add(t, &b);
        }
        if (ch >= 0) {
            ls_timed_trace_ev m = e;
            m.track = ch ? LS_TRACE_L2 : LS_TRACE_DRAM; m.start = t->pend_start; m.dur = t->pend_busy;
            m.work = t->pend_bytes;
            add(t, &m);
        }
    } else {
        switch (x->unit) {
        case LSUNIT_TENSOR: e.track = LS_TRACE_TENSOR; break;
        case LSUNIT_LUT: e.track = LS_TRACE_LUT; break;
        case LSUNIT_SFU: e.track = LS_TRACE_SFU; break;
        case LSUNIT_VECTOR: e.track = LS_TRACE_VECTOR; break;
        case LSUNIT_SCHEDULER: e.track = LS_TRACE_SCHEDULER; break;
        case LSUNIT_BUFFER: e.track = LS_TRACE_BUFFER; break;   /* operand reads from the buffer */
        default: return;                                        /* register allocation takes no time */
        }
        e.start = x->start;
        e.dur = x->busy;
        if (e.dur == 0) return;
        idx = add(t, &e);
    }
    if (idx == SIZE_MAX) return;
    if (!it->seen || e.start < it->first) it->first = e.start;
    uint64_t end = t->ev[idx].start + t->ev[idx].dur;
    if (!it->seen || end > it->last) it->last = end;
    if (!it->seen && c) { it->core = (uint32_t)x->core; it->b = c->b; it->hq = c->hq; it->qb = c->qb; }
    it->seen = 1;
    int step = chain_step(x);
    if (step == CHAIN_EXP && x->unit != LSUNIT_LUT) step = -1;   /* the chain goes through the LUT part */
    if (step < 0) return;
    if (!it->chain) {
        it->chain = malloc((size_t)t->ntiles * CHAIN_N * sizeof *it->chain);
        if (!it->chain) { t->oom = 1; return; }
        for (size_t k = 0; k < (size_t)t->ntiles * CHAIN_N; k++) it->chain[k] = SIZE_MAX;
    }
    size_t *slot = &it->chain[(size_t)(tile_ordinal - t->first_tile) * CHAIN_N + (size_t)step];
    if (*slot == SIZE_MAX) *slot = idx;
}

void ls_timed_trace_resident(void *user, int core, uint64_t cycle, int resident)
{
    ls_timed_trace *t = user;
    if (t->nctr == t->ccap) {
        size_t nc = t->ccap ? 2 * t->ccap : 1024;
        ls_timed_trace_ctr *n = realloc(t->ctr, nc * sizeof *n);
        if (!n) { t->oom = 1; return; }
        t->ctr = n;
        t->ccap = nc;
    }
    ls_timed_trace_ctr *c = &t->ctr[t->nctr++];
    c->core = (uint32_t)core; c->cycle = cycle; c->resident = (uint32_t)resident;
}

/* Each traced context: a slice on its core's `contexts` track; chains of two or more links get a
 * flow (bind_id = item * window tiles + tile + 1). */
static void add_contexts_and_flows(ls_timed_trace *t)
{
    for (size_t i = 0; i < t->nitems; i++) {
        ls_timed_trace_item *it = &t->items[i];
        if (!it->seen) continue;
        ls_timed_trace_ev e = { .core = it->core, .track = LS_TRACE_CONTEXTS, .op = UINT32_MAX, .item = (uint32_t)i,
                                .kt = -1, .start = it->first, .dur = it->last > it->first ? it->last - it->first : 1 };
        /* bypasses the cap: one per context, and the window-end marks need them */
        size_t keep = t->max_events;
        t->max_events = SIZE_MAX;
        add(t, &e);
        t->max_events = keep;
        if (!it->chain) continue;
        for (int k = 0; k < t->ntiles; k++) {
            size_t *ch = &it->chain[(size_t)k * CHAIN_N], links[CHAIN_N];
            int n = 0;
            for (int s = 0; s < CHAIN_N; s++)
                if (ch[s] != SIZE_MAX) links[n++] = ch[s];
            if (n < 2) continue;
            uint64_t id = (uint64_t)i * (uint64_t)t->ntiles + (uint64_t)k + 1;
            for (int s = 0; s < n; s++) {
                t->ev[links[s]].flow = s == 0 ? 1 : s == n - 1 ? 3 : 2;
                t->ev[links[s]].flow_id = id;
            }
        }
    }
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
    uint32_t core, track;
    uint64_t s, e;      /* ns */
    size_t i;           /* index into t->ev */
    uint32_t lane;      /* lane of the (core, track): 0 unless its slices overlap (in-flight requests, contexts) */
} ls_timed_trace_slice;

static int slice_cmp(const void *a, const void *b)
{
    const ls_timed_trace_slice *x = a, *y = b;
    if (x->core != y->core) return x->core < y->core ? -1 : 1;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    if (x->e != y->e) return x->e > y->e ? -1 : 1;      /* longer first */
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The process of a track: its core, or `cores` for the chip's channels. */
static uint32_t pid_of(const ls_timed_trace_ev *e, int cores)
{
    return e->track >= LS_TRACE_NCORE_TRACKS ? (uint32_t)cores : e->core;
}

/* Sorts the slices by (process, track, start) and puts each on the first lane of its (process,
 * track) free by its start, so every lane holds disjoint slices. lanes[pid * LS_TRACE_NTRACKS +
 * track] receives the lanes used. Returns the slices (caller frees) or NULL. */
static ls_timed_trace_slice *assign_lanes(const ls_timed_trace *t, double clock_ghz, int cores, uint32_t *lanes)
{
    ls_timed_trace_slice *sl = malloc((t->nev ? t->nev : 1) * sizeof *sl);
    uint64_t *free_at = NULL;
    size_t nfree = 0;
    if (!sl) return NULL;
    for (size_t i = 0; i < t->nev; i++) {
        const ls_timed_trace_ev *e = &t->ev[i];
        sl[i] = (ls_timed_trace_slice){pid_of(e, cores), e->track, to_ns(e->start, clock_ghz),
                                       to_ns(e->start + e->dur, clock_ghz), i, 0};
    }
    qsort(sl, t->nev, sizeof *sl, slice_cmp);
    uint32_t used = 0;
    for (size_t k = 0; k < t->nev; k++) {
        if (k == 0 || sl[k].core != sl[k - 1].core || sl[k].track != sl[k - 1].track) used = 0;
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
        if ((int)sl[k].core <= cores) lanes[sl[k].core * LS_TRACE_NTRACKS + sl[k].track] = used;
    }
    free(free_at);
    return sl;
}

/* The unit of a track (units.def), or -1 for the requests and contexts tracks. */
static int track_unit(int track)
{
    static const int unit_of[LS_TRACE_NTRACKS] = {
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) LSUNIT_IF(report, [LS_TRACE_##ID] = LSUNIT_##ID,)
#include "units.def"
#undef LSUNIT
        [LS_TRACE_REQUESTS] = -1, [LS_TRACE_CONTEXTS] = -1 };
    return track >= 0 && track < LS_TRACE_NTRACKS ? unit_of[track] : -1;
}

/* The units' tracks carry the units' names (units.<name>.*). */
static const char *track_name(int track)
{
    if (track == LS_TRACE_REQUESTS) return "memory requests";
    if (track == LS_TRACE_CONTEXTS) return "contexts";
    return lsunit_name(track_unit(track));
}

/* Thread ids in display order (viewers that ignore thread_sort_index sort by tid): contexts first,
 * then the units, memory requests; a track's lanes next to it. */
static unsigned tid_of(uint32_t track, uint32_t lane)
{
    return (track == LS_TRACE_CONTEXTS ? 0u : track + 1u) * 1024u + lane;
}

/* A process per core with work (and the chip's), a thread per (track, lane) that holds a slice:
 * no empty tracks. Lanes of a track sort together. */
static void write_tracks(FILE *f, const ls_timed_trace *t, int cores, const uint32_t *lanes, int *first)
{
    for (int c = 0; c <= cores; c++) {
        int any = 0;
        for (int u = 0; u < LS_TRACE_NTRACKS; u++) any |= lanes[c * LS_TRACE_NTRACKS + u] > 0;
        for (size_t i = 0; i < t->nctr && !any && c < cores; i++) any = t->ctr[i].core == (uint32_t)c;
        if (!any) continue;
        if (c < cores)
            fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"core %d\"}}",
                    *first ? "" : ",\n", c, c);
        else
            fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"chip (dram, l2)\"}}",
                    *first ? "" : ",\n", c);
        *first = 0;
        for (uint32_t u = 0; u < LS_TRACE_NTRACKS; u++) {
            uint32_t nl = lanes[c * LS_TRACE_NTRACKS + u];
            for (uint32_t l = 0; l < nl; l++) {
                if (l == 0)
                    fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
                            c, tid_of(u, l), track_name((int)u));
                else
                    fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"%s #%u\"}}",
                            c, tid_of(u, l), track_name((int)u), l + 1);
                fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
                        c, tid_of(u, l), tid_of(u, l));
            }
        }
    }
}

static const char *transfer_name(int op)
{
    return op == LSUCODE_OP_LDQ ? "Q load" : op == LSUCODE_OP_LDKV ? "K/V load" : "O store";
}

/* The slice's name and its work in args (after "item", "context", "tile"). */
static void write_slice(FILE *f, const ls_timed_trace *t, const ls_timed_trace_ev *e, const ls_timed_trace_slice *s)
{
    const ls_timed_trace_item *it = &t->items[e->item];
    const lsucode_opinfo *oi = e->op == UINT32_MAX ? NULL : lsucode_op_info((int)e->op);
    const char *mn = oi ? oi->mnemonic : "?";
    char name[96];
    if (e->track == LS_TRACE_CONTEXTS)
        snprintf(name, sizeof name, "item %u (b%d h%d qb%d)", e->item, it->b, it->hq, it->qb);
    else if (e->track == LS_TRACE_REQUESTS || e->track >= LS_TRACE_NCORE_TRACKS)
        snprintf(name, sizeof name, "%s", transfer_name((int)e->op));
    else if (e->track == LS_TRACE_BUFFER)
        snprintf(name, sizeof name, is_transfer((int)e->op) ? "%s (port)" : "%s operands", is_transfer((int)e->op) ? transfer_name((int)e->op) : mn);
    else
        snprintf(name, sizeof name, "%s", mn);
    /* the category is the track: viewers filter by it and name each flow after its slices' */
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,", track_name((int)e->track), name,
            s->core, tid_of(e->track, s->lane));
    put_us(f, "ts", s->s);
    fputc(',', f);
    put_us(f, "dur", s->e - s->s);
    if (e->flow)
        fprintf(f, ",\"bind_id\":%llu%s%s", (unsigned long long)e->flow_id, e->flow >= 2 ? ",\"flow_in\":true" : "",
                e->flow <= 2 ? ",\"flow_out\":true" : "");
    fprintf(f, ",\"args\":{\"item\":%u,\"context\":\"b%d h%d qb%d\",", e->item, it->b, it->hq, it->qb);
    if (e->track == LS_TRACE_CONTEXTS) {
        fprintf(f, "\"tiles_traced\":\"%d-%d\",\"window_cut\":%s,", t->first_tile, t->first_tile + t->ntiles - 1,
                it->cut ? "true" : "false");
    } else {
        fprintf(f, "\"tile\":%u,", e->tile);
        if (e->kt >= 0) fprintf(f, "\"key_tile\":%d,", e->kt);
        if (e->cont) fputs("\"continues\":true,", f);
        else switch (e->track) {
        case LS_TRACE_TENSOR:
            fprintf(f, "\"macs\":%llu,\"macs_16bit\":%llu,\"precision\":\"%s\",", (unsigned long long)e->work,
                    (unsigned long long)e->work_hp,
                    e->work_hp == 0 ? "8-bit" : e->work_hp >= e->work ? "16-bit" : "mixed");
            break;
        case LS_TRACE_REQUESTS:
            fprintf(f, "\"bytes\":%llu,\"bytes_from_dram\":%llu,", (unsigned long long)e->work, (unsigned long long)e->work_hp);
            break;
        default:   /* the unit's work, named as units.<name>.work_unit */
            fprintf(f, "\"%s\":%llu,", lsunit_info_of(track_unit((int)e->track))->work, (unsigned long long)e->work);
            break;
        }
        if (e->track >= LS_TRACE_NCORE_TRACKS) fprintf(f, "\"core\":%u,", e->core);
    }
    fprintf(f, "\"cycle\":%llu,\"cycles\":%llu}}", (unsigned long long)e->start, (unsigned long long)e->dur);
}

static void write_events(FILE *f, const ls_timed_trace *t, double clock_ghz, const ls_timed_trace_slice *sl, int *first)
{
    for (size_t k = 0; k < t->nev; k++) {
        const ls_timed_trace_ev *e = &t->ev[sl[k].i];
        fputs(*first ? "" : ",\n", f);
        write_slice(f, t, e, &sl[k]);
        *first = 0;
        const ls_timed_trace_item *it = &t->items[e->item];
        if (e->track == LS_TRACE_CONTEXTS && it->cut) {   /* its later tiles ran, but are not drawn */
            fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":\"trace window ends\",\"pid\":%u,\"tid\":%u,", sl[k].core,
                    tid_of(e->track, sl[k].lane));
            put_us(f, "ts", sl[k].e);
            fprintf(f, ",\"args\":{\"item\":%u,\"context\":\"b%d h%d qb%d\",\"next_tile\":%d,\"cycle\":%llu}}", e->item,
                    it->b, it->hq, it->qb, t->first_tile + t->ntiles, (unsigned long long)it->last);
        }
    }
    for (size_t i = 0; i < t->nctr; i++) {
        const ls_timed_trace_ctr *c = &t->ctr[i];
        double ru = t->registers > 0 ? (double)c->resident * t->regs_per_context / t->registers : 0.0;
        fprintf(f, "%s{\"ph\":\"C\",\"name\":\"resident contexts\",\"pid\":%u,", *first ? "" : ",\n", c->core);
        put_us(f, "ts", to_ns(c->cycle, clock_ghz));
        fprintf(f, ",\"args\":{\"contexts\":%u,\"register_utilisation\":%.4f}}", c->resident, ru);
        *first = 0;
    }
}

int ls_timed_trace_write(ls_timed_trace *t, const char *path, double clock_ghz, int cores, char *err, size_t errlen)
{
    add_contexts_and_flows(t);
    if (t->oom) { snprintf(err, errlen, "%s: out of memory while tracing", path); return -1; }
    uint32_t *lanes = calloc((size_t)(cores > 0 ? cores + 1 : 2) * LS_TRACE_NTRACKS, sizeof *lanes);
    ls_timed_trace_slice *sl = lanes ? assign_lanes(t, clock_ghz, cores, lanes) : NULL;
    size_t pl = strlen(path);
    char *tmp = sl ? malloc(pl + 8) : NULL;
    if (!tmp) { snprintf(err, errlen, "out of memory"); free(lanes); free(sl); return -1; }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    if (!f) { snprintf(err, errlen, "%s: cannot write the trace", path); free(tmp); free(lanes); free(sl); return -1; }
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock_ghz\":%.6g,\"window_first_tile\":%d,"
            "\"window_tiles\":%d,\"max_key_tiles\":%d,\"max_events\":%zu,\"dropped_events\":%zu},\n\"traceEvents\":[\n",
            clock_ghz, t->first_tile, t->ntiles, t->key_tiles, t->max_events, t->dropped);
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
