/* hw/seq/seq.c — the sequencer and its scoreboard (see lsseq.h). */
#include "lsseq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNREQ UINT64_MAX

const char *lsseq_stall_name(int s)
{
    static const char *const n[LSSEQ_NSTALLS] = { "dependency", "unit_busy", "memory", "scheduler", "slow_path" };
    return s >= 0 && s < LSSEQ_NSTALLS ? n[s] : "?";
}

/* A unit instruction whose parts are still owed cycles (interleaving) or wait on another part. */
typedef struct {
    bool active;
    uint64_t ready;              /* when the instruction could start */
    uint64_t issue;              /* start of its first part-0 slice, then of its latest slice */
    bool sent[3], done[3];
    uint64_t rest[3], latency[3], next[3], end[3];
    uint64_t instrs[3];          /* warp instructions still owed to the issue port */
} lsseq_pending;

struct lsseq_slot {
    int core, index;
    int pos;                     /* position in the schedule's order of the current item */
    bool busy, ctx_ok;
    lsdp_ctx ctx;
    int pc;
    uint64_t issue;              /* cycle of the last issue (in-order point) */
    bool issued;
    uint64_t ready;              /* heap key: when the next instruction can issue */
    int ready_cause;             /* stall cause of ready - in-order point, or -1 */
    uint64_t ready_stall;
    uint64_t sb[LSUCODE_NREGIONS];   /* scoreboard: region ready cycle */
    uint8_t sbk[LSUCODE_NREGIONS];   /* ... and the kind of its producer (stall cause) */
    int *tiles, ntiles, cur;
    uint64_t *kv;                /* [nkt] load completion per active tile index (K usable) */
    uint64_t *vt;                /* [nkt] when the tile's V is usable by P.V (after the transpose step, if any) */
    uint64_t item_start, first_start, last_end;
    bool ever;
    uint64_t steps;
    uint64_t stored;             /* completion of the item's output stores */
    lsseq_pending pend;
};

/* ---- heap of busy slots keyed by (ready, core, index) ---- */
static int before(const lsseq *s, int a, int b)
{
    const lsseq_slot *x = &s->slots[a], *y = &s->slots[b];
    if (x->ready != y->ready) return x->ready < y->ready;
    if (x->core != y->core) return x->core < y->core;
    return x->index < y->index;
}
static void heap_push(lsseq *s, int v)
{
    int i = s->nheap++;
    s->heap[i] = v;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(s, s->heap[i], s->heap[p])) break;
        int t = s->heap[i]; s->heap[i] = s->heap[p]; s->heap[p] = t;
        i = p;
    }
}
static int heap_pop(lsseq *s)
{
    int top = s->heap[0];
    s->heap[0] = s->heap[--s->nheap];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && before(s, s->heap[l], s->heap[m])) m = l;
        if (r < s->nheap && before(s, s->heap[r], s->heap[m])) m = r;
        if (m == i) break;
        int t = s->heap[i]; s->heap[i] = s->heap[m]; s->heap[m] = t;
        i = m;
    }
    return top;
}

static int stall_kind(int op)
{
    switch (op) {
    case LSUCODE_OP_LDQ: case LSUCODE_OP_PREF: case LSUCODE_OP_LDKV: case LSUCODE_OP_STO: return LSSEQ_STALL_MEMORY;
    case LSUCODE_OP_SORT: case LSUCODE_OP_SEL1: case LSUCODE_OP_SEL2: return LSSEQ_STALL_SCHEDULER;
    case LSUCODE_OP_SLOWPV: return LSSEQ_STALL_SLOW_PATH;
    default: return LSSEQ_STALL_DEPENDENCY;
    }
}

/* t comes zero-initialised from the caller, with only its slice / continuation fields set. The
 * timeline sees it with the tile ordinal it works on: the context's current tile, or for a K/V load
 * the tile it loads (ordinal). */
static void send_for(lsseq *s, lsseq_slot *sl, int op, int unit, int part, uint64_t req, int arg, lsdp_txn *t, int ordinal)
{
    t->op = op; t->unit = unit; t->part = part; t->core = sl->core; t->ctx = &sl->ctx; t->arg = arg; t->req = req;
    s->port(s->port_user, t);
    s->transactions++;
    if (s->trace_txn && t->end > t->start) s->trace_txn(s->trace_user, t, sl->ctx.item, ordinal);
    s->op_work[op][part] += t->work;
    s->op_work_hp[op][part] += t->work_hp;
}

static void send(lsseq *s, lsseq_slot *sl, int op, int unit, int part, uint64_t req, int arg, lsdp_txn *t)
{
    /* the epilogue after the last tile (FIN, the O store) goes with the last tile */
    send_for(s, sl, op, unit, part, req, arg, t, sl->cur < sl->ntiles ? sl->cur : (sl->ntiles > 0 ? sl->ntiles - 1 : 0));
}

/* The block (accelerator.memory.kv_shared_contexts) a slot belongs to. */
static lsseq_block *block_of(lsseq *s, const lsseq_slot *sl)
{
    return &s->blocks[(size_t)sl->core * (s->contexts_per_core / s->hw->memory.kv_shared_contexts) + sl->index / s->hw->memory.kv_shared_contexts];
}

/* The instructions that read a tile's V (and so wait for its transpose step): the P.V products. */
static bool reads_v(int op) { return op == LSUCODE_OP_PV || op == LSUCODE_OP_SLOWPV; }

/* Load the slot's idx-th active K/V tile. Contexts of one block share the load: a tile that a
 * sibling already requested for the same (batch, KV head) is ready when that load completes. */
static void load_tile(lsseq *s, lsseq_slot *sl, int idx, uint64_t when)
{
    if (idx < 0 || idx >= sl->ntiles || sl->kv[idx] != UNREQ) return;
    int kt = sl->tiles[idx];
    lsseq_block *bl = s->hw->memory.kv_shared_contexts > 1 ? block_of(s, sl) : NULL;
    uint64_t key = ((uint64_t)sl->ctx.b * (uint64_t)s->sh->heads_kv + (uint64_t)sl->ctx.hkv) + 1;
    if (bl && bl->head[kt] == key) { sl->kv[idx] = bl->ready[kt]; sl->vt[idx] = bl->v_ready[kt]; s->shared_loads++; return; }
    lsdp_txn t = { 0 };
    send_for(s, sl, LSUCODE_OP_LDKV, LSUNIT_BUFFER, 0, when, kt, &t, idx);
    s->kv_loads++;
    sl->kv[idx] = t.end;
    sl->vt[idx] = t.v_ready > t.end ? t.v_ready : t.end;
    if (bl) { bl->head[kt] = key; bl->ready[kt] = t.end; bl->v_ready[kt] = sl->vt[idx]; }
}

/* Run zero-time control instructions, then compute when the next unit instruction may issue. */
static int advance(lsseq *s, lsseq_slot *sl)
{
    const lsucode_program *p = s->prog;
    for (int guard = 0; guard < 1000000; guard++) {
        if (sl->pc < 0 || sl->pc >= p->n) {
            snprintf(s->err, sizeof s->err, "%.200s: execution ran past the program", p->file);
            return -1;
        }
        const lsucode_instr *in = &p->code[sl->pc];
        switch (in->op) {
        case LSUCODE_OP_JMP: sl->pc = in->target; continue;
        case LSUCODE_OP_JND:
            sl->pc = lsdp_slow_mask(&sl->ctx) ? sl->pc + 1 : in->target;
            continue;
        case LSUCODE_OP_NEXT:
            if (sl->cur + 1 < sl->ntiles) {
                sl->cur++;
                lsdp_tile_begin(&sl->ctx, sl->tiles[sl->cur]);
                sl->pc = in->target;
            } else {
                sl->cur = sl->ntiles;
                sl->ctx.run = 0;
                sl->ctx.wlo = sl->ctx.whi = -1;
                sl->pc++;
            }
            continue;
        default:
            break;
        }
        /* unit instruction or END: in-order point and operand readiness */
        uint64_t inorder = sl->issued ? sl->issue + 1 : sl->item_start;
        uint64_t ops = inorder;
        int cause = -1;
        if (in->op == LSUCODE_OP_END) {   /* the item ends when its results are computed and stored */
            for (int r = 0; r < LSUCODE_NREGIONS; r++)
                if (sl->sb[r] > ops) { ops = sl->sb[r]; cause = sl->sbk[r]; }
            if (sl->stored > ops) { ops = sl->stored; cause = LSSEQ_STALL_MEMORY; }
        } else {
            for (int k = 0; k < in->nsrc + in->ndst; k++) {
                int r = k < in->nsrc ? in->src[k] : in->dst[k - in->nsrc];
                uint64_t rt;
                int kind;
                if (r == LSUCODE_R_KV) {
                    if (k >= in->nsrc || sl->cur >= sl->ntiles) continue;   /* loads write KV asynchronously */
                    if (sl->kv[sl->cur] == UNREQ) load_tile(s, sl, sl->cur, inorder);   /* demand load */
                    rt = reads_v(in->op) ? sl->vt[sl->cur] : sl->kv[sl->cur];
                    kind = LSSEQ_STALL_MEMORY;
                } else {
                    rt = sl->sb[r];
                    kind = sl->sbk[r];
                }
                if (rt > ops) { ops = rt; cause = kind; }
            }
        }
        sl->ready = ops;
        sl->ready_cause = ops > inorder ? cause : -1;
        sl->ready_stall = ops > inorder ? ops - inorder : 0;
        return 0;
    }
    snprintf(s->err, sizeof s->err, "%.200s: control loop without a unit instruction", p->file);
    return -1;
}

static int resident(const lsseq *s, int core)
{
    int n = 0;
    for (int k = 0; k < s->contexts_per_core; k++) n += s->slots[core * s->contexts_per_core + k].busy;
    return n;
}

static int start_item(lsseq *s, lsseq_slot *sl, int pos, uint64_t t0)
{
    const lsdp_shape *sh = s->sh;
    int item = s->order[pos];
    sl->pos = pos;
    t0 += s->hw->item_setup;   /* block dispatch and initialisation before the first instruction */
    if (!sl->ctx_ok) {
        if (lsdp_ctx_init(&sl->ctx, sh) != 0) { snprintf(s->err, sizeof s->err, "out of memory (context)"); return -1; }
        sl->tiles = malloc((size_t)sh->nkt * sizeof(int));
        sl->kv = malloc((size_t)sh->nkt * sizeof(uint64_t));
        sl->vt = malloc((size_t)sh->nkt * sizeof(uint64_t));
        if (!sl->tiles || !sl->kv || !sl->vt) { snprintf(s->err, sizeof s->err, "out of memory (context)"); return -1; }
        sl->ctx_ok = true;
    }
    int eitem = item;   /* the engine's item (batch, head, query block) */
    if (sh->split_kv > 1) {
        /* split-KV: item = ((batch, head) x splits + split) x query blocks + query block, FlashAttention-2's
         * split kernel grid (query block fastest, then the split, then batch x head) */
        int qb = item % sh->nqb, rest = item / sh->nqb, sp = rest % sh->split_kv;
        eitem = rest / sh->split_kv * sh->nqb + qb;
        sl->ctx.split = sp;
        sl->ctx.kt_lo = sp * sh->split_tiles;
        sl->ctx.kt_hi = (sp + 1) * sh->split_tiles < sh->nkt ? (sp + 1) * sh->split_tiles : sh->nkt;
    }
    lsdp_item_begin(&sl->ctx, eitem, &s->item_stats[item], s->hist + (size_t)item * (sh->n_k + 1),
                    s->records ? s->records + (size_t)eitem * sh->n_q * sh->nkt : NULL);
    sl->ntiles = 0;
    for (int kt = 0; kt < sh->nkt; kt++)
        if (sl->ctx.runmask[kt]) { sl->tiles[sl->ntiles] = kt; sl->kv[sl->ntiles] = UNREQ; sl->ntiles++; }
    sl->cur = 0;
    if (sl->ntiles > 0) lsdp_tile_begin(&sl->ctx, sl->tiles[0]);
    else { sl->ctx.run = 0; sl->ctx.wlo = sl->ctx.whi = -1; }
    if (!sl->busy && s->trace_resident) s->trace_resident(s->trace_user, sl->core, t0, resident(s, sl->core) + 1);
    sl->busy = true;
    sl->steps = 0;
    sl->pc = 0;
    sl->issued = false;
    sl->item_start = t0;
    if (!sl->ever) { sl->first_start = t0; sl->ever = true; }
    for (int r = 0; r < LSUCODE_NREGIONS; r++) { sl->sb[r] = t0; sl->sbk[r] = LSSEQ_STALL_DEPENDENCY; }
    sl->stored = t0;
    lsdp_txn t = { 0 };
    send(s, sl, LSUCODE_OP_LDQ, LSUNIT_REGFILE, 1, t0, 0, &t);   /* register allocation (no time) */
    if (advance(s, sl) != 0) return -1;
    heap_push(s, (int)(sl - s->slots));
    return 0;
}

/* The position of the next item a slot (or its block's first slot) takes, or -1 when none is left:
 * the next in order for the dynamic schedules; for PERSISTENT the worker's own next, nslots
 * positions on (a block of g slots takes g consecutive positions, so its workers stride by nslots
 * as well). */
static int next_pos(const lsseq *s, const lsseq_slot *sl)
{
    if (s->schedule == LSSEQ_SCHEDULE_PERSISTENT) {
        int g = s->hw->memory.kv_shared_contexts > 1 ? s->hw->memory.kv_shared_contexts : 1;
        long long p = (long long)(sl - sl->index % g)->pos + s->nslots;
        return p < s->norder ? (int)p : -1;
    }
    return s->next_item < s->norder ? s->next_item : -1;
}

/* A slot's item has ended at `when`. A block (kv_shared_contexts) takes new items when its last
 * context has ended: the next items, consecutive in the schedule's order, one per slot, all
 * starting then with an empty shared-load table. */
static int start_block(lsseq *s, lsseq_slot *sl, uint64_t when)
{
    int g = s->hw->memory.kv_shared_contexts;
    int p = next_pos(s, sl);
    if (g <= 1) {   /* (no holes: LONGEST_FIRST pads to blocks of g) */
        if (p < 0) return 0;
        if (s->schedule != LSSEQ_SCHEDULE_PERSISTENT) s->next_item++;
        return start_item(s, sl, p, when);
    }
    lsseq_slot *first = sl - sl->index % g;
    uint64_t t0 = when;
    for (int k = 0; k < g; k++) {
        if (first[k].busy) return 0;          /* a sibling is still working: the block stays resident */
        if (first[k].ever && first[k].last_end > t0) t0 = first[k].last_end;
    }
    if (p < 0) return 0;
    lsseq_block *bl = block_of(s, sl);
    for (int kt = 0; kt < s->sh->nkt; kt++) bl->head[kt] = 0;
    for (int k = 0; k < g && p + k < s->norder; k++) {
        if (s->schedule != LSSEQ_SCHEDULE_PERSISTENT) s->next_item++;
        if (s->order[p + k] >= 0 && start_item(s, &first[k], p + k, t0) != 0) return -1;   /* a hole: idle */
    }
    return 0;
}

/* The units an instruction occupies: up to three parts, each starting when the instruction is
 * ready (dep -1) or when part `dep` has finished. The MEM parts of the matrix instructions are the
 * operand reads from the on-chip buffer (sent only when accelerator.memory.operand_read_rows > 0);
 * they stream alongside the tensor part they feed. */
#define NPARTS 3
typedef struct { int unit, dep; } part_desc;
#define NONE { -1, -1 }
static const part_desc parts[LSUCODE_NOPS][NPARTS] = {
    [LSUCODE_OP_LDQ] = { { LSUNIT_BUFFER, -1 }, NONE, NONE },
    [LSUCODE_OP_INIT] = { { LSUNIT_VECTOR, -1 }, NONE, NONE },
    [LSUCODE_OP_PREF] = { NONE, NONE, NONE },
    [LSUCODE_OP_LDKV] = { NONE, NONE, NONE },
    [LSUCODE_OP_QK_LP] = { { LSUNIT_TENSOR, -1 }, { LSUNIT_BUFFER, -1 }, NONE },
    [LSUCODE_OP_QK_HP] = { { LSUNIT_TENSOR, -1 }, { LSUNIT_BUFFER, -1 }, NONE },
    [LSUCODE_OP_SMAX] = { { LSUNIT_VECTOR, -1 }, NONE, NONE },
    [LSUCODE_OP_SORT] = { { LSUNIT_SCHEDULER, -1 }, NONE, NONE },
    [LSUCODE_OP_SEL1] = { { LSUNIT_SCHEDULER, -1 }, { LSUNIT_TENSOR, 0 }, { LSUNIT_BUFFER, 0 } },
    [LSUCODE_OP_EXP] = { { LSUNIT_LUT, -1 }, { LSUNIT_SFU, -1 }, NONE },
    [LSUCODE_OP_NORM] = { { LSUNIT_VECTOR, -1 }, { LSUNIT_SFU, -1 }, NONE },
    [LSUCODE_OP_SEL2] = { { LSUNIT_SCHEDULER, -1 }, NONE, NONE },
    [LSUCODE_OP_RECOMP] = { { LSUNIT_TENSOR, -1 }, { LSUNIT_SFU, 0 }, { LSUNIT_BUFFER, -1 } },
    [LSUCODE_OP_FULLHP] = { { LSUNIT_TENSOR, -1 }, { LSUNIT_SFU, 0 }, { LSUNIT_BUFFER, -1 } },
    [LSUCODE_OP_RAISE] = { { LSUNIT_VECTOR, -1 }, NONE, NONE },
    [LSUCODE_OP_PV] = { { LSUNIT_TENSOR, -1 }, { LSUNIT_BUFFER, -1 }, NONE },
    [LSUCODE_OP_SLOWPV] = { { LSUNIT_TENSOR, -1 }, { LSUNIT_BUFFER, -1 }, NONE },
    [LSUCODE_OP_FIN] = { { LSUNIT_VECTOR, -1 }, NONE, NONE },
    [LSUCODE_OP_STO] = { { LSUNIT_BUFFER, -1 }, NONE, NONE },
};
#undef NONE

/* Does part k of op take part in this run? (operand reads only when they are timed) */
static bool part_used(const lsseq *s, int op, int k)
{
    const part_desc *p = &parts[op][k];
    if (p->unit < 0) return false;
    if (p->unit == LSUNIT_BUFFER && lsdp_operand_read(op)) return s->hw->memory.operand_read_rows > 0;
    return true;
}

/* Interleaving slice of a unit: the compute units share their cycles between contexts slice by
 * slice; memory transfers and scheduler decisions are served whole (their own queues), but
 * operand reads (MEM parts of matrix instructions) are sliced with the tensor work they feed. */
static uint64_t slice_of(const lsseq *s, int op, int unit)
{
    switch (unit) {
    case LSUNIT_TENSOR: case LSUNIT_LUT: case LSUNIT_SFU: case LSUNIT_VECTOR: return (uint64_t)s->hw->interleave;
    case LSUNIT_BUFFER: return lsdp_operand_read(op) ? (uint64_t)s->hw->interleave : 0;
    default: return 0;
    }
}

/* Note what a served slice of part k leaves: cycles still owed (queue again when this slice
 * ends: nobody books a slice ahead), or the part's result time. */
static void record_slice(lsseq_pending *pp, int k, const lsdp_txn *t)
{
    if (t->rest) {
        pp->rest[k] = t->rest;
        pp->latency[k] = t->latency;
        pp->instrs[k] = t->instrs;
        pp->next[k] = t->start + t->busy;
    } else {
        pp->done[k] = true;
        pp->end[k] = t->end;
    }
}

/* A context waited n cycles for cause k: counted chip-wide and for its core (the cycle stack). */
static void add_stall(lsseq *s, const lsseq_slot *sl, int k, uint64_t n)
{
    s->stalls[k] += n;
    s->core_stalls[(size_t)sl->core * LSSEQ_NSTALLS + (size_t)k] += n;
}

/* Send the first transaction of part k (behaviour + the first slice of its timing). */
static void send_part(lsseq *s, lsseq_slot *sl, const lsucode_instr *in, int k, uint64_t req)
{
    lsseq_pending *pp = &sl->pend;
    lsdp_txn t = { 0 };
    t.slice = slice_of(s, in->op, parts[in->op][k].unit);
    send(s, sl, in->op, parts[in->op][k].unit, k, req, 0, &t);
    pp->sent[k] = true;
    if (k == 0) {
        pp->issue = t.start;
        if (t.start > req) add_stall(s, sl, LSSEQ_STALL_UNIT_BUSY, t.start - req);
    }
    record_slice(pp, k, &t);
}

/* Start every part whose dependency has finished. */
static void start_ready_parts(lsseq *s, lsseq_slot *sl, const lsucode_instr *in)
{
    lsseq_pending *pp = &sl->pend;
    for (bool again = true; again;) {
        again = false;
        for (int k = 0; k < NPARTS; k++) {
            if (pp->sent[k] || !part_used(s, in->op, k)) continue;
            int d = parts[in->op][k].dep;
            if (d >= 0 && part_used(s, in->op, d) && !pp->done[d]) continue;
            uint64_t req = d >= 0 && part_used(s, in->op, d) ? pp->end[d] : pp->ready;
            send_part(s, sl, in, k, req);
            again = true;
        }
    }
}

/* The part owing cycles whose next slice may issue first, or -1. */
static int next_slice_part(const lsseq *s, const lsseq_slot *sl, const lsucode_instr *in)
{
    const lsseq_pending *pp = &sl->pend;
    int best = -1;
    for (int k = 0; k < NPARTS; k++)
        if (part_used(s, in->op, k) && pp->sent[k] && !pp->done[k] && (best < 0 || pp->next[k] < pp->next[best])) best = k;
    return best;
}

/* The instruction is complete: its destinations become ready at `end`; on to the next one. */
static int retire(lsseq *s, lsseq_slot *sl, const lsucode_instr *in, uint64_t issue, uint64_t end)
{
    int kind = stall_kind(in->op);
    if (in->op == LSUCODE_OP_STO && end > sl->stored) sl->stored = end;
    for (int k = 0; k < in->ndst; k++) {
        int r = in->dst[k];
        if (r == LSUCODE_R_KV) continue;
        sl->sb[r] = end;
        sl->sbk[r] = (uint8_t)kind;
    }
    sl->issue = issue;
    sl->issued = true;
    sl->pc++;
    if (advance(s, sl) != 0) return -1;
    heap_push(s, (int)(sl - s->slots));
    return 0;
}

/* Wait in the heap for the next slice a part owes, or retire the instruction once all are done. */
static int finish_or_wait(lsseq *s, lsseq_slot *sl, const lsucode_instr *in)
{
    lsseq_pending *pp = &sl->pend;
    int k = next_slice_part(s, sl, in);
    if (k >= 0) {
        sl->ready = pp->next[k];
        sl->ready_cause = -1;
        sl->ready_stall = 0;
        heap_push(s, (int)(sl - s->slots));
        return 0;
    }
    uint64_t end = pp->ready;
    for (int j = 0; j < NPARTS; j++)
        if (part_used(s, in->op, j) && pp->end[j] > end) end = pp->end[j];
    if (in->op == LSUCODE_OP_SLOWPV && sl->ctx.slow) {
        s->slow_tiles += (uint64_t)lsdp_popc(sl->ctx.slow);
        s->slow_cycles += end - pp->ready;
    }
    pp->active = false;
    return retire(s, sl, in, pp->issue, end);
}

/* Serve the next slice a pending instruction owes. */
static int continue_instruction(lsseq *s, lsseq_slot *sl)
{
    const lsucode_instr *in = &s->prog->code[sl->pc];
    lsseq_pending *pp = &sl->pend;
    int k = next_slice_part(s, sl, in);
    lsdp_txn t = { 0 };
    t.cont = true;
    t.rest = pp->rest[k];
    t.latency = pp->latency[k];
    t.instrs = pp->instrs[k];
    t.slice = slice_of(s, in->op, parts[in->op][k].unit);
    send(s, sl, in->op, parts[in->op][k].unit, k, pp->next[k], 0, &t);
    if (k == 0 && t.start > t.req) add_stall(s, sl, LSSEQ_STALL_UNIT_BUSY, t.start - t.req);
    if (t.start > pp->issue) pp->issue = t.start;
    record_slice(pp, k, &t);
    start_ready_parts(s, sl, in);
    return finish_or_wait(s, sl, in);
}

/* Execute the slot's next unit instruction (or END), or the next slice of a pending one. */
static int step(lsseq *s, lsseq_slot *sl)
{
    if (sl->pend.active) return continue_instruction(s, sl);
    const lsucode_instr *in = &s->prog->code[sl->pc];
    uint64_t ready = sl->ready;
    if (++sl->steps > (uint64_t)s->prog->n * (uint64_t)(sl->ntiles + 2) * 8u + 1024u) {
        snprintf(s->err, sizeof s->err, "%.100s:%d: the program does not terminate (%llu instructions of one context without END)", s->prog->file, in->line, (unsigned long long)sl->steps - 1);
        return -1;
    }
    if (sl->ready_cause >= 0) add_stall(s, sl, sl->ready_cause, sl->ready_stall);
    s->instructions++;
    s->op_count[in->op]++;
    if (in->op == LSUCODE_OP_END) {
        lsdp_ctx *x = &sl->ctx;
        if (s->item_done) s->item_done(s->item_user, x);
        lsdp_txn t = { 0 };
        send(s, sl, LSUCODE_OP_STO, LSUNIT_REGFILE, 1, ready, 0, &t);   /* release the registers */
        sl->busy = false;
        sl->last_end = ready;
        if (s->trace_resident && next_pos(s, sl) < 0)
            s->trace_resident(s->trace_user, sl->core, ready, resident(s, sl->core));
        s->slot_busy_cycles += ready - sl->item_start;
        if (ready > s->core_end[sl->core]) s->core_end[sl->core] = ready;
        return start_block(s, sl, ready);
    }
    if (in->op == LSUCODE_OP_PREF || in->op == LSUCODE_OP_LDKV) {
        if (in->op == LSUCODE_OP_PREF)
            for (int i = 0; i < s->prefetch_depth; i++) load_tile(s, sl, sl->cur + i, ready);
        else
            load_tile(s, sl, sl->cur + s->prefetch_depth, ready);
        return retire(s, sl, in, ready, ready);
    }
    /* a unit instruction: start its parts; if a unit served only a slice, come back through the
     * heap for the rest so that other contexts can take turns */
    memset(&sl->pend, 0, sizeof sl->pend);
    sl->pend.active = true;
    sl->pend.ready = ready;   /* part 0 always exists and sets pend.issue */
    start_ready_parts(s, sl, in);
    return finish_or_wait(s, sl, in);
}

/* One transaction of the combine step on core c, requested at req; returns its end. */
static uint64_t combine_txn(lsseq *s, lsdp_ctx *x, int op, int unit, int part, int core, uint64_t req)
{
    lsdp_txn t = { 0 };
    t.op = op; t.unit = unit; t.part = part; t.core = core; t.ctx = x; t.req = req;
    s->port(s->port_user, &t);
    s->transactions++;
    s->instructions++;
    s->op_count[op]++;
    s->op_work[op][part] += t.work;
    return t.end;
}

/* Split-KV's combine step, FlashAttention-2's combine kernel launched after the split kernel: per
 * query block (in index order, each on the core that frees first) a load of every split's fp32
 * partial O and LSE, exp(lse_s - max) per row and split on the SFU, the scaled sums and the division
 * on the vector unit (booked as NORM and FIN work), and the O store. */
static int combine_phase(lsseq *s)
{
    const lsdp_shape *sh = s->sh;
    const lsdp_hw *hw = s->hw;
    lsdp_ctx x;
    if (lsdp_ctx_init(&x, sh) != 0) { snprintf(s->err, sizeof s->err, "out of memory (combine context)"); return -1; }
    uint64_t launch = 0;
    for (int c = 0; c < hw->cores; c++) launch = s->core_end[c] > launch ? s->core_end[c] : launch;
    launch += hw->launch_cycles;
    uint64_t *free_at = malloc((size_t)hw->cores * sizeof *free_at);
    if (!free_at) { lsdp_ctx_free(&x); snprintf(s->err, sizeof s->err, "out of memory"); return -1; }
    for (int c = 0; c < hw->cores; c++) free_at[c] = launch;
    int nitems = sh->batch * sh->heads_q * sh->nqb;
    for (int e = 0; e < nitems; e++) {
        int c = 0;
        for (int k = 1; k < hw->cores; k++) if (free_at[k] < free_at[c]) c = k;
        lslamp_block_locate(&x.blk, e, sh->nqb, sh->heads_q, sh->heads_kv, sh->seq_q, sh->q, sh->k, sh->v, sh->o, sh->o_ref);
        x.item = e; x.b = x.blk.b; x.hq = x.blk.hq; x.hkv = x.blk.hkv; x.qb = x.blk.qb; x.q0 = x.blk.q0; x.nqv = x.blk.nqv;
        x.combine = sh->split_kv;
        uint64_t t0 = free_at[c] + hw->item_setup;
        uint64_t t1 = combine_txn(s, &x, LSUCODE_OP_LDQ, LSUNIT_BUFFER, 0, c, t0);
        uint64_t t2 = combine_txn(s, &x, LSUCODE_OP_NORM, LSUNIT_SFU, 1, c, t1);
        uint64_t t3 = combine_txn(s, &x, LSUCODE_OP_FIN, LSUNIT_VECTOR, 0, c, t2);
        uint64_t t4 = combine_txn(s, &x, LSUCODE_OP_STO, LSUNIT_BUFFER, 0, c, t3);
        s->combine_cycles += t4 - t0;
        free_at[c] = t4;
        if (t4 > s->core_end[c]) s->core_end[c] = t4;
    }
    x.combine = 0;
    free(free_at);
    lsdp_ctx_free(&x);
    return 0;
}

static bool lpt_shape(int schedule, const lsdp_shape *sh, int n)
{
    return schedule == LSSEQ_SCHEDULE_LONGEST_FIRST && sh->nqb >= 1 && (long long)sh->nqb * sh->batch * sh->heads_q == n;
}

int lsseq_order_len(int schedule, const lsdp_shape *sh, int n, int unit)
{
    if (!lpt_shape(schedule, sh, n)) return n;
    if (unit < 1) unit = 1;
    return (sh->nqb + unit - 1) / unit * unit * sh->batch * sh->heads_q;
}

void lsseq_item_order(int schedule, const lsdp_shape *sh, double l2_bytes, int n, int unit, int *order)
{
    if (!lpt_shape(schedule, sh, n)) {
        for (int p = 0; p < n; p++) order[p] = p;
        return;
    }
    /* FlashAttention-3's DynamicPersistentTileScheduler (hopper/tile_scheduler.hpp, commit
     * 0251105a2fb1, get_block_coord and to_underlying_arguments), without PackGQA: the (batch,
     * head) pairs in sections of `swizzle` heads whose K and V fit the L2 share the kernel assumes
     * (32 MiB of the H100's 50 MiB, here the same share of the configured L2), times the query heads
     * per KV head; within a section query block outer, head inner; the query block taken from the
     * last (longest under a causal mask) down. A kernel block is `unit` of the model's. */
    if (unit < 1) unit = 1;
    int nb = sh->nqb, nbu = (nb + unit - 1) / unit, nhb = sh->batch * sh->heads_q;
    double kv_head = (double)sh->seq_k * 2.0 * sh->dim * sh->elem_bytes;
    double budget = l2_bytes * (32.0 / 50.0);
    long long sw = 1;
    if (kv_head > 0 && budget >= kv_head)
        while (sw * 2 <= (long long)(budget / kv_head)) sw *= 2;
    long long swg = sw * (sh->group > 0 ? sh->group : 1);
    int swizzle = (int)(swg < nhb ? swg : nhb);
    if (swizzle < 1) swizzle = 1;
    int quotient = nhb / swizzle, remainder = nhb % swizzle, len = nbu * unit * nhb;
    for (int p = 0; p < len; p++) {
        int u = p / unit, k = p % unit;
        int sec = u / (swizzle * nbu), within = u % (swizzle * nbu);
        int width = sec < quotient ? swizzle : remainder;
        int block = within / width, hb = sec * swizzle + within % width;
        int qb = (nbu - 1 - block) * unit + k;
        order[p] = qb < nb ? hb * nb + qb : -1;
    }
}

int lsseq_order_prefix(const int *order, int norder, int limit)
{
    int len = 0;
    bool above = false;
    for (int p = 0; p < norder; p++) {
        if (order[p] < 0) continue;
        if (order[p] < limit) {
            if (above) return -1;
            len = p + 1;
        } else {
            above = true;
        }
    }
    return len;
}

int lsseq_run(lsseq *s)
{
    const lsdp_hw *hw = s->hw;
    s->err[0] = 0;
    s->nslots = hw->cores * s->contexts_per_core;
    s->slots = calloc((size_t)s->nslots, sizeof *s->slots);
    s->heap = malloc((size_t)s->nslots * sizeof(int));
    s->core_end = calloc((size_t)hw->cores, sizeof(uint64_t));
    s->core_stalls = calloc((size_t)hw->cores * LSSEQ_NSTALLS, sizeof(uint64_t));
    int g = hw->memory.kv_shared_contexts > 1 ? hw->memory.kv_shared_contexts : 1;
    s->norder = lsseq_order_len(s->schedule, s->sh, s->items, g);
    s->order = malloc((size_t)(s->norder > 0 ? s->norder : 1) * sizeof(int));
    if (!s->order) { snprintf(s->err, sizeof s->err, "out of memory"); return -1; }
    lsseq_item_order(s->schedule, s->sh, hw->l2_bytes, s->items, g, s->order);
    if (s->item_limit > 0) {
        int len = lsseq_order_prefix(s->order, s->norder, s->item_limit);
        if (len < 0 || s->sh->split_kv > 1) {
            snprintf(s->err, sizeof s->err, "items below %d are not a prefix of the schedule's order%s", s->item_limit,
                     s->sh->split_kv > 1 ? " (split-KV's combine step covers every item)" : "");
            return -1;
        }
        s->norder = len;
    }
    if (s->contexts_per_core % g != 0) {
        snprintf(s->err, sizeof s->err, "%d resident contexts per core do not form whole blocks of %d", s->contexts_per_core, g);
        return -1;
    }
    s->nblocks = g > 1 ? s->nslots / g : 0;
    s->blocks = s->nblocks ? calloc((size_t)s->nblocks, sizeof *s->blocks) : NULL;
    for (int b = 0; b < s->nblocks && s->blocks; b++) {
        s->blocks[b].head = calloc((size_t)s->sh->nkt, sizeof(uint64_t));
        s->blocks[b].ready = calloc((size_t)s->sh->nkt, sizeof(uint64_t));
        s->blocks[b].v_ready = calloc((size_t)s->sh->nkt, sizeof(uint64_t));
        if (!s->blocks[b].head || !s->blocks[b].ready || !s->blocks[b].v_ready) { snprintf(s->err, sizeof s->err, "out of memory"); return -1; }
    }
    if (!s->slots || !s->heap || !s->core_end || !s->core_stalls || (s->nblocks && !s->blocks)) { snprintf(s->err, sizeof s->err, "out of memory"); return -1; }
    for (int c = 0; c < hw->cores; c++)
        for (int k = 0; k < s->contexts_per_core; k++) {
            lsseq_slot *sl = &s->slots[c * s->contexts_per_core + k];
            sl->core = c;
            sl->index = k;
        }
    /* spread the first items (blocks of g consecutive items) over the cores, then fill further
     * slots; nothing starts before the launch overhead has passed */
    s->next_item = 0;
    for (int k = 0; k < s->contexts_per_core && s->next_item < s->norder; k += g)
        for (int c = 0; c < hw->cores && s->next_item < s->norder; c++)
            for (int j = 0; j < g && s->next_item < s->norder; j++, s->next_item++)
                if (s->order[s->next_item] >= 0 &&
                    start_item(s, &s->slots[c * s->contexts_per_core + k + j], s->next_item, hw->launch_cycles) != 0)
                    return -1;
    while (s->nheap > 0) {
        if (s->stop) {
            snprintf(s->err, sizeof s->err, "stopped by the port");
            return -1;
        }
        int v = heap_pop(s);
        if (step(s, &s->slots[v]) != 0) return -1;
    }
    if (s->sh->split_kv > 1 && combine_phase(s) != 0) return -1;
    s->cycles = 0;
    s->cores_used = 0;
    for (int c = 0; c < hw->cores; c++) {
        if (s->core_end[c] > s->cycles) s->cycles = s->core_end[c];
        int used = 0;
        for (int k = 0; k < s->contexts_per_core; k++) used += s->slots[c * s->contexts_per_core + k].ever;
        if (used) s->cores_used++;
        if (used > s->max_resident) s->max_resident = used;
    }
    return 0;
}

void lsseq_free(lsseq *s)
{
    if (s->slots)
        for (int i = 0; i < s->nslots; i++) {
            if (s->slots[i].ctx_ok) lsdp_ctx_free(&s->slots[i].ctx);
            free(s->slots[i].tiles);
            free(s->slots[i].kv);
            free(s->slots[i].vt);
        }
    for (int b = 0; b < s->nblocks && s->blocks; b++) { free(s->blocks[b].head); free(s->blocks[b].ready); free(s->blocks[b].v_ready); }
    free(s->blocks);
    free(s->slots);
    free(s->heap);
    free(s->core_end);
    free(s->core_stalls);
    free(s->order);
    s->core_stalls = NULL;
    s->order = NULL;
    s->slots = NULL; s->heap = NULL; s->core_end = NULL; s->blocks = NULL; s->nblocks = 0;
}
