/* sim/timed/timed_trace.c — Chrome trace-event JSON (opens in ui.perfetto.dev). */
#define _POSIX_C_SOURCE 200809L
#include "timed_trace.h"

#include <stdlib.h>
#include <string.h>

void lstrace_init(lstrace *t, int first_tile, int ntiles, size_t max_events)
{
    memset(t, 0, sizeof *t);
    t->first_tile = first_tile < 0 ? 0 : first_tile;
    t->ntiles = ntiles < 1 ? 1 : ntiles;
    t->max_events = max_events;
}

void lstrace_free(lstrace *t)
{
    free(t->ev);
    free(t->ctr);
    memset(t, 0, sizeof *t);
}

void lstrace_txn(void *user, const lsdp_txn *x, int item, int tile_ordinal)
{
    lstrace *t = user;
    if (tile_ordinal < t->first_tile || tile_ordinal >= t->first_tile + t->ntiles) return;
    uint64_t dur = x->unit == LSU_MEM ? x->end - x->start : x->busy;
    if (dur == 0) return;
    if (t->nev >= t->max_events) { t->dropped++; return; }
    if (t->nev == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 4096;
        lstrace_ev *n = realloc(t->ev, nc * sizeof *n);
        if (!n) { t->dropped++; return; }
        t->ev = n;
        t->cap = nc;
    }
    lstrace_ev *e = &t->ev[t->nev++];
    e->core = (uint32_t)x->core; e->unit = (uint32_t)x->unit; e->op = (uint32_t)x->op;
    e->item = (uint32_t)item; e->tile = (uint32_t)tile_ordinal;
    e->start = x->start; e->dur = dur;
}

void lstrace_resident(void *user, int core, uint64_t cycle, int resident)
{
    lstrace *t = user;
    if (t->nctr == t->ccap) {
        size_t nc = t->ccap ? 2 * t->ccap : 1024;
        lstrace_ctr *n = realloc(t->ctr, nc * sizeof *n);
        if (!n) return;
        t->ctr = n;
        t->ccap = nc;
    }
    lstrace_ctr *c = &t->ctr[t->nctr++];
    c->core = (uint32_t)core; c->cycle = cycle; c->resident = (uint32_t)resident;
}

int lstrace_write(const lstrace *t, const char *path, double clock_ghz, int cores, char *err, size_t errlen)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 8);
    if (!tmp) { snprintf(err, errlen, "out of memory"); return -1; }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    if (!f) { snprintf(err, errlen, "%s: cannot write the trace", path); free(tmp); return -1; }
    double us = 1.0 / (clock_ghz * 1e3);     /* microseconds per cycle */
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock_ghz\":%.6g,\"window_first_tile\":%d,"
            "\"window_tiles\":%d,\"dropped_events\":%zu},\n\"traceEvents\":[\n", clock_ghz, t->first_tile,
            t->ntiles, t->dropped);
    /* track names: one process per core that appears, one thread per unit */
    unsigned char *seen = calloc((size_t)cores, 1);
    int first = 1;
    for (size_t i = 0; i < t->nev + t->nctr; i++) {
        uint32_t c = i < t->nev ? t->ev[i].core : t->ctr[i - t->nev].core;
        if (!seen || (int)c >= cores || seen[c]) continue;
        seen[c] = 1;
        fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"core %u\"}}",
                first ? "" : ",\n", c, c);
        first = 0;
        for (int u = 1; u < LSU_NUNITS; u++)
            fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", c, u,
                    lsu_unit_name(u));
    }
    free(seen);
    for (size_t i = 0; i < t->nev; i++) {
        const lstrace_ev *e = &t->ev[i];
        const lsu_opinfo *oi = lsu_op_info((int)e->op);
        fprintf(f, "%s{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,"
                "\"args\":{\"item\":%u,\"tile\":%u,\"cycle\":%llu,\"cycles\":%llu}}",
                first ? "" : ",\n", oi ? oi->mnemonic : "?", e->core, e->unit, (double)e->start * us, (double)e->dur * us,
                e->item, e->tile, (unsigned long long)e->start, (unsigned long long)e->dur);
        first = 0;
    }
    for (size_t i = 0; i < t->nctr; i++) {
        const lstrace_ctr *c = &t->ctr[i];
        double ru = t->registers > 0 ? (double)c->resident * t->regs_per_context / t->registers : 0.0;
        fprintf(f, "%s{\"ph\":\"C\",\"name\":\"occupancy\",\"pid\":%u,\"ts\":%.6f,\"args\":{\"contexts\":%u,"
                "\"register_utilisation\":%.4f}}", first ? "" : ",\n", c->core, (double)c->cycle * us, c->resident, ru);
        first = 0;
    }
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
