/* sim/timed/timed_ff.c — the steady-state fast-forward over whole repetitions (timed.fast_forward).
 *
 * A layer's batch entries are repetitions: each has its own K/V (no L2 reuse between them), the same
 * shape and, handed out batch-major, the same place in the schedule. Once the machine is past its fill
 * (slots, K/V pipeline, DRAM queue) it times every further entry alike, so every count of the run
 * (cycles per core, busy cycles, operations and work per unit and core, stalls, bytes, instructions)
 * grows by the same amount per entry. The sequencer times the first k, 2k and 3k entries, each on fresh
 * hardware; the steady state is detected, not assumed: it holds when the third step of k entries costs
 * the cycles the second did (within LS_TIMED_FF_STEADY). Then every count of the batch is the 3k run's
 * plus (batch - 3k) / k times the third step's. Otherwise k doubles while three more timings fit in the
 * batch, and past that the run is timed in full. A step spans at least two waves of the slots (k starts at
 * the entries that fill every slot twice): with shorter steps a memory-bound run's queue still builds up
 * over several steps, and two of them can agree by chance (decode at 256 keys: 0.9 % off). The
 * numerics (O, statistics, accuracy) stay the whole batch's: the golden engine or the cache computed
 * them for every item. Timing-only runs repeat exactly; LampAttention's entries differ in their HP
 * sub-blocks, so its steps agree only within the data's spread, and its extrapolation samples it.
 * Cross-checked against full runs: test timed_fast_forward, and every study re-times its winners in
 * full (scripts/study.py fast_forward_check; docs/architecture.md "Fast-forward"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timed_run.h"

/* The largest relative difference between the cycles of two consecutive steps of k entries that counts
 * as steady: a timing-only run's steps are equal once past the fill, as are a memory-bound LampAttention
 * decode's; a compute-bound LampAttention run's differ with its entries' HP work (1.6-1.9 % at 2 entries a
 * step in test timed_fast_forward) and is timed in full. */
#define LS_TIMED_FF_STEADY 0.001

/* Every additive count the report reads, in one fixed order: the sequencer's, the units' per core,
 * the memory's and the issue ports'. n: the number of slots (ptr may be NULL to count them). */
static size_t counts(timed_run *t, uint64_t **ptr)
{
    size_t n = 0;
#define C(x) do { if (ptr) ptr[n] = &(x); n++; } while (0)
    lsseq *s = &t->s;
    for (int k = 0; k < LSSEQ_NSTALLS; k++) C(s->stalls[k]);
    C(s->slow_tiles); C(s->slow_cycles);
    for (int op = 0; op < LSUCODE_NOPS; op++) {
        for (int p = 0; p < 3; p++) { C(s->op_work[op][p]); C(s->op_work_hp[op][p]); }
        C(s->op_count[op]);
    }
    C(s->instructions); C(s->transactions); C(s->kv_loads); C(s->shared_loads); C(s->slot_busy_cycles);
    for (int c = 0; c < t->hw.cores; c++) {
        C(s->core_end[c]);
        for (int k = 0; k < LSSEQ_NSTALLS; k++) C(s->core_stalls[c * LSSEQ_NSTALLS + k]);
    }
    for (int u = 0; u < LSUNIT_N; u++)
        for (int c = 0; t->units[u].core && c < t->hw.cores; c++) {
            lsdp_unit_state *us = &t->units[u].core[c];
            C(us->busy); C(us->ops); C(us->work);
        }
    lsmem_state *m = &t->mem;
    C(m->buf_bytes); C(m->store_bytes); C(m->operand_bytes); C(m->model.dram_bytes); C(m->model.l2_bytes);
    C(m->model.dram.busy); C(m->model.dram.ops); C(m->model.dram.work);
    C(m->model.l2.busy); C(m->model.l2.ops); C(m->model.l2.work);
    for (int c = 0; t->issue && c < t->hw.cores; c++) C(t->issue[c].bound_cycles);
#undef C
    return n;
}

static int snapshot(timed_run *t, uint64_t *out, size_t n)
{
    uint64_t **p = malloc(n * sizeof *p);
    if (!p) return -1;
    counts(t, p);
    for (size_t i = 0; i < n; i++) out[i] = *p[i];
    free(p);
    return 0;
}

/* Fresh hardware for the next timing: sequencer, units, issue ports, memory, the per-item buffers. */
static int reset_hardware(timed_run *t)
{
    lsseq_free(&t->s);
    memset(&t->s, 0, sizeof t->s);
    for (int u = 0; u < LSUNIT_N; u++) {
        free(t->units[u].core);
        t->units[u].core = NULL;
    }
    for (int c = 0; c < t->hw.cores && t->issue; c++) lsdp_issue_free(&t->issue[c]);
    free(t->issue);
    t->issue = NULL;
    lsmem_free(&t->mem);
    memset(t->items, 0, (size_t)t->nseq * sizeof *t->items);
    memset(t->hist, 0, (size_t)t->nseq * t->hl * sizeof *t->hist);
    if (lsmem_init(&t->mem, &t->sh, &t->hw) != 0) return ls_timed_run_fail(t, "out of memory");
    return ls_timed_build_units(t);
}

/* Why the fast-forward cannot apply to this run ("" where it may); *k the entries of its first step. */
static void plan(timed_run *t, int *k, char *why, size_t whylen)
{
    const ls_attn_inputs *in = t->in;
    int batch = in->batch, per = t->nseq / (batch > 0 ? batch : 1);
    int slots = t->hw.cores * t->ra.limit;
    *k = per > 0 ? (2 * slots + per - 1) / per : 0;   /* a step spans two waves of the slots at least */
    why[0] = 0;
    if (t->opt->trace_path && *t->opt->trace_path) snprintf(why, whylen, "a trace asks for every transaction");
    else if (t->sh.split_kv > 1) snprintf(why, whylen, "split-KV's combine step spans the batch");
    else if (!t->replay && t->synth == LSDP_SYNTH_OFF) snprintf(why, whylen, "the units compute the numerics");
    else if (t->opt->sc_host) snprintf(why, whylen, "a layer launched through the control port");
    else if (per < 1 || *k < 1 || 6 * *k > batch)
        snprintf(why, whylen, "batch %d: fewer than the 6 x %d entries the three timings take (a step of %d entries "
                 "of %d items fills the %d slots twice)", batch, *k > 0 ? *k : 1, *k, per, slots);
    if (why[0]) return;
    /* every entry's items must be a prefix of the order: the entries never decrease along it (one pass, where
     * asking lsseq_order_prefix of each entry would cost batch x items) */
    int g = t->hw.memory.kv_shared_contexts > 1 ? t->hw.memory.kv_shared_contexts : 1;
    int n = lsseq_order_len(t->ac->scheduling, &t->sh, t->nseq, g);
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order) { snprintf(why, whylen, "out of memory"); return; }
    lsseq_item_order(t->ac->scheduling, &t->sh, t->hw.l2_bytes, t->nseq, g, order);
    for (int p = 0, last = 0; p < n && !why[0]; p++) {
        if (order[p] < 0) continue;   /* a hole */
        if (order[p] / per < last) snprintf(why, whylen, "the schedule's order is not batch-major");
        else last = order[p] / per;
    }
    free(order);
}

/* Times the first `entries` batch entries on fresh hardware; their counts into out, their cycles into *cycles. */
static int time_entries(timed_run *t, int (*run)(timed_run *), int entries, int per, uint64_t *out, size_t n,
                        uint64_t *cycles)
{
    if (reset_hardware(t) != 0) return -1;
    t->s.item_limit = entries * per;
    if (run(t) != 0 || snapshot(t, out, n) != 0) return -1;
    *cycles = t->s.cycles;
    return 0;
}

int ls_timed_fast_forward(timed_run *t, int (*run)(timed_run *), bool *applied)
{
    ls_timed_result *tr = t->tr;
    *applied = false;
    if (!t->opt->fast_forward) return 0;
    int k;
    plan(t, &k, tr->fast_forward.why_not, sizeof tr->fast_forward.why_not);
    if (tr->fast_forward.why_not[0]) return 0;
    int batch = t->in->batch, per = t->nseq / batch, timed = 0;
    size_t n = counts(t, NULL);   /* the same slots in every run: the hardware's shape does not change */
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    uint64_t **p = malloc(n * sizeof *p);
    int rc = -1;
    double step_diff = 0;
    if (!a || !b || !c || !p) { ls_timed_run_fail(t, "out of memory"); goto out; }
    /* steps of k entries: steady when the third costs the cycles the second did; else k doubles while the
     * three timings still take fewer entries than the batch */
    for (;; k *= 2) {
        uint64_t ca, cb, cc;
        if (time_entries(t, run, k, per, a, n, &ca) != 0 || time_entries(t, run, 2 * k, per, b, n, &cb) != 0 ||
            time_entries(t, run, 3 * k, per, c, n, &cc) != 0)
            goto out;
        timed += 6 * k;
        double d1 = (double)cb - (double)ca, d2 = (double)cc - (double)cb;
        step_diff = d2 > 0 ? fabs(d1 / d2 - 1.0) : 1.0;
        if (step_diff <= LS_TIMED_FF_STEADY) break;
        if (timed + 12 * k > batch) {   /* no room for the next attempt: the run is timed in full */
            snprintf(tr->fast_forward.why_not, sizeof tr->fast_forward.why_not,
                     "not steady: steps of %d entries differ by %.2f %% of their cycles (limit %.2f %%)", k,
                     100 * step_diff, 100 * LS_TIMED_FF_STEADY);
            tr->fast_forward.timed_entries = timed;
            tr->fast_forward.step_diff = step_diff;
            rc = reset_hardware(t);
            goto out;
        }
    }
    /* each count: the 3k run's + (batch - 3k) / k x the third step's */
    double f = (double)(batch - 3 * k) / (double)k;
    counts(t, p);
    for (size_t i = 0; i < n; i++) {
        double v = (double)c[i] + f * ((double)c[i] - (double)b[i]);
        *p[i] = v > 0 ? (uint64_t)llround(v) : 0;
    }
    lsseq *s = &t->s;
    s->cycles = 0;
    for (int co = 0; co < t->hw.cores; co++)
        if (s->core_end[co] > s->cycles) s->cycles = s->core_end[co];
    /* timing only: the per-item statistics come from the geometry, the same for every entry */
    for (int e = 3 * k; e < batch; e++) {
        memcpy(&t->items[(size_t)e * per], &t->items[(size_t)(3 * k - 1) * per], (size_t)per * sizeof *t->items);
        memcpy(&t->hist[(size_t)e * per * t->hl], &t->hist[(size_t)(3 * k - 1) * per * t->hl],
               (size_t)per * t->hl * sizeof *t->hist);
    }
    tr->fast_forward.applied = true;
    tr->fast_forward.k1 = 2 * k;
    tr->fast_forward.k2 = 3 * k;
    tr->fast_forward.timed_entries = timed;
    tr->fast_forward.step_diff = step_diff;
    *applied = true;
    rc = 0;
out:
    free(a); free(b); free(c); free(p);
    return rc;
}
