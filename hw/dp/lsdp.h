/* hw/dp/lsdp.h — the datapath state shared by the units of the timed model: one context per
 * resident query block (n_q warps, their tile operands, workspaces and running state), the
 * transaction a unit executes, and the per-unit timing state with its one timing rule.
 *
 * Every unit's behaviour calls the hw/lamp step functions on a context (the same functions the
 * golden engine composes in lslamp_warp_tile), so data and statistics match the engine bit for bit. */
#ifndef LAMPSIM_HW_DP_LSDP_H
#define LAMPSIM_HW_DP_LSDP_H
#include <stdbool.h>
#include <stdint.h>

#include "lslamp.h"
#include "lsucode.h"
#include "lsunit_params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LSDP_MAX_WARPS 64

/* Statistics of one work item, as the engine keeps them (merged in item order). */
typedef lslamp_item_stats lsdp_item_stats;

typedef struct {
    lslamp_tile_io io;
    lslamp_ws ws;
    lslamp_state st;
    lsfp_rng rng;
    lslamp_tile_counts cnt;
    uint32_t active, pre, post, hp;   /* sub-block masks of the current tile */
    uint32_t rest;                    /* full_tile_hp: sub-blocks added by the disruptive branch */
    uint8_t flags;                    /* LSLAMP_REC_* of the current tile */
    bool above;
} lsdp_warp;

/* The register layout's rule as the datapath applies it, from the register plan (hw/regfile owns
 * it): a warp whose HP sub-blocks of a tile exceed hp_slots takes the slow path, sequential 16-bit
 * passes of slow_pass sub-blocks. */
typedef struct {
    bool slow_path;          /* the layout has one (compact) */
    int hp_slots;            /* HP sub-blocks a warp holds at once */
    int slow_pass;           /* sub-blocks per pass */
} lsdp_layout_rule;

/* Shape and inputs shared by all contexts of a run. */
typedef struct {
    const lslamp_cfg *cfg;
    const float *q, *k, *v;
    float *o, *o_ref;
    int batch, heads_q, heads_kv, seq_q, seq_k, dim, group;
    bool causal;
    int window;              /* > 0: sliding window of that many keys (causal only) */
    int qpack;               /* > 1: GQA packing, rows are (query, head) pairs (ls_attn_inputs.qpack) */
    int split_kv;            /* > 1: split-KV, each item's key tiles in that many work items + a combine */
    int split_tiles;         /* key tiles per split (split s: [s * split_tiles, (s + 1) * split_tiles)) */
    int b_q, n_q, b_k, n_k, br, bc, nqb, nkt;
    uint64_t seed;
    bool accuracy;
    lsdp_layout_rule layout; /* the register layout's slow-path rule */
    /* Timing-only replay: the units skip the arithmetic and take each (warp, tile)'s selection
     * from these records of an earlier run with the same numerics ([items][n_q][nkt]). */
    const lslamp_tile_record *replay;
    /* Timing only (timed.timing_only): the fixed policies' selection follows from the geometry
     * alone (all: every active sub-block HP at stage 1; none: nothing HP), so the units skip the
     * arithmetic as in a replay and lsdp_tile_begin synthesises what the records would hold. */
    int synth;               /* LSDP_SYNTH_OFF, _ALL or _NONE */
    int elem_bytes;          /* Q/K/V bytes per element in memory and operands (algorithm.operand_format) */
    int out_bytes;           /* O bytes per element in memory (workload dtype) */
} lsdp_shape;

enum { LSDP_SYNTH_OFF = 0, LSDP_SYNTH_ALL, LSDP_SYNTH_NONE };

/* Whether the units skip the data work (replayed or synthesised selection): every unit's
 * arithmetic is guarded by this, never by sh->replay alone. */
static inline bool lsdp_no_data(const lsdp_shape *sh) { return sh->replay != NULL || sh->synth != LSDP_SYNTH_OFF; }

typedef struct lsdp_ctx {
    const lsdp_shape *sh;
    int item, b, hq, hkv, qb, q0, nqv;
    int64_t shift;
    const float *Q, *K, *V;
    float *O, *Oref;
    float *Qt, *Y, *mu, *om32, *O32;
    double *om64, *O64;
    float *Ebuf, *muh;       /* accuracy: final exponentials and mu_hat per tile */
    lsdp_warp *w;            /* [n_q] (allocated: most runs have far fewer than LSDP_MAX_WARPS) */
    int kt;                  /* current key tile */
    uint64_t run;            /* warps that run the current tile */
    uint64_t slow;           /* warps of the current tile on the slow path (set by JND's test) */
    int wlo, whi;            /* first / one past last running warp */
    uint64_t *runmask;       /* [nkt] warps that run each tile (computed at item start) */
    lslamp_block blk;        /* the item as hw/lamp locates it (warp operands) */
    lsdp_item_stats *stats;  /* this item's statistics (owned by the run) */
    uint64_t *hist;          /* this item's histogram [n_k + 1] */
    lslamp_tile_record *rec; /* this item's records [n_q][nkt], or NULL */
    /* split-KV: the key tiles this context runs, [kt_lo, kt_hi) (set before lsdp_item_begin; kt_hi 0 =
     * all), its split (-1: none; its O store is then the fp32 partial O and LSE), and for the combine
     * step's context the splits it combines (0: not a combine) */
    int kt_lo, kt_hi, split, combine;
} lsdp_ctx;

/* Allocate the buffers of a context for the shape (once per resident slot). */
int lsdp_ctx_init(lsdp_ctx *x, const lsdp_shape *sh);
void lsdp_ctx_free(lsdp_ctx *x);
/* Start work item `item`: geometry, state reset, per-tile run masks; masked / absent (warp, tile)
 * pairs are counted and recorded here exactly as the engine does. Returns the number of key tiles
 * with work. */
int lsdp_item_begin(lsdp_ctx *x, int item, lsdp_item_stats *st, uint64_t *hist, lslamp_tile_record *rec);
/* Make key tile kt current: operands of each running warp. */
void lsdp_tile_begin(lsdp_ctx *x, int kt);
/* Sub-blocks of warp wi in the current tile with at least one unmasked (query, key) pair, from
 * the mask geometry alone (used by the replay). */
uint32_t lsdp_active_geometry(const lsdp_ctx *x, int wi);
/* Unmasked (query, key) pairs of warp wi in the sub-blocks of `mask` of the current tile, from
 * the mask geometry alone (what lslamp_count_rows counts on the masked logits). */
int lsdp_unmasked_geometry(const lsdp_ctx *x, int wi, uint32_t mask);
/* Decide the slow path for the current tile (sh->layout: more HP sub-blocks than slots). */
uint64_t lsdp_slow_mask(lsdp_ctx *x);
/* Exponentials of the active sub-blocks selected by `which` (hp: sub-blocks in hp mask; else the
 * LP ones), as lslamp_warp_tile's exponential pass does (inactive sub-blocks zeroed by the LP
 * pass, which also narrows mu_hat for LP shifts first). */
void lsdp_exps(const lslamp_cfg *c, lsdp_warp *w, bool hp_pass, uint32_t hp, lslamp_events *ev, bool *above);
/* The statistics and records of warp wi's tile once its P.V update is issued: step 9 on the data
 * and the bookkeeping lslamp_warp_tile does after the selection (commit), or, timing only, the
 * same tile and recompute counts from the geometry (commit_geometry). */
void lsdp_commit_warp(lsdp_ctx *x, int wi);
void lsdp_commit_geometry(lsdp_ctx *x, int wi);
static inline int lsdp_count_rows(const lslamp_cfg *c, const lslamp_tile_io *io, uint32_t mask)
{
    return lslamp_count_rows(c, io, mask);
}
static inline int lsdp_popc(uint64_t x) { return __builtin_popcountll(x); }

/* ---- transactions and unit timing ---- */
typedef struct lsdp_txn {
    int op;                  /* lsucode_opcode */
    int unit;                /* lsunit_id (hw/unit/units.def) executing this part */
    int part;                /* which part of a multi-unit instruction (0, 1) */
    int core;
    lsdp_ctx *ctx;
    int arg;                 /* op argument (key tile for loads) */
    uint64_t req;            /* cycle the transaction may start */
    uint64_t start, end;     /* filled by the unit: start of service, result ready */
    uint64_t busy;           /* cycles the unit is occupied */
    uint64_t work;           /* work items (MACs, lookups, exps, element ops, tests, bytes) */
    uint64_t work_hp;        /* tensor: MACs in 16-bit mode; memory: bytes from DRAM;
                                scheduler: the stage-2 walk's subset tests, one per query lane */
    uint64_t fill_start;     /* memory loads and stores: when the core's buffer port began the transfer
                                (it is busy `busy` cycles from then; the timeline draws it) */
    bool slow;               /* counts as slow-path work */
    /* Interleaving (accelerator.interleave_cycles): a unit serves at most `slice` cycles of the
     * transaction (0 = all); `rest` returns the cycles still owed and `latency` the unit's result
     * latency. The sequencer sends the rest as continuations (`cont`: no behaviour, `rest` cycles
     * owed) through the heap, so other contexts' work can take turns between slices. */
    uint64_t slice, rest, latency;
    bool cont;
    /* Issue (accelerator.issue): warp instructions the transaction still owes the core's issue
     * port; set by lsdp_unit_serve from the work, carried by continuations like `rest`. */
    uint64_t instrs;
    bool no_issue;           /* issues no instruction (a DMA fill of the buffer) */
    /* A K/V load with hw->memory.v_transpose: `end` is when K is in the buffer, `v_ready` when the
     * transposed V is (the producer's transpose step, lsmem_exec); P.V waits for v_ready. */
    uint64_t v_ready;
} lsdp_txn;

/* The instruction issue of one core (accelerator.issue.per_cycle > 0): the core's schedulers issue
 * `per_cycle` warp instructions per cycle in all, to any unit, first come first served. A slice of
 * unit work issues its instructions paced at the unit's own rate (instruction i of n no earlier than
 * start + i * cycles / n), each in the first cycle at or after that with a free slot; the slice cannot
 * finish before its last instruction has issued. Slot use is remembered for LSDP_ISSUE_WINDOW cycles
 * behind the latest cycle booked (older cycles count as free). */
#define LSDP_ISSUE_WINDOW 65536
typedef struct lsdp_issue_port {
    uint64_t per_cycle;      /* 1..255 */
    uint64_t base;           /* first cycle still remembered */
    uint8_t *used;           /* [LSDP_ISSUE_WINDOW] slots taken in cycle c, at c % LSDP_ISSUE_WINDOW */
    uint64_t instrs;         /* warp instructions issued */
    uint64_t bound_cycles;   /* cycles by which slices were lengthened waiting for issue slots */
} lsdp_issue_port;
int lsdp_issue_init(lsdp_issue_port *p, int per_cycle);
void lsdp_issue_free(lsdp_issue_port *p);

/* Per-unit (per core) timing state and counters. */
typedef struct lsdp_unit_state {
    uint64_t free_at;        /* first cycle the unit can accept new work */
    uint64_t busy, ops, work;
    struct lsdp_unit_state *shares_issue;   /* another unit of the core that never runs in the same cycle, or NULL */
    lsdp_issue_port *issue;     /* the core's issue port, or NULL (issue not modelled or this unit issues nothing) */
    uint64_t per_instr;      /* work per warp instruction of this unit (MACs, exps, element ops, bytes) */
} lsdp_unit_state;

static inline uint64_t lsdp_ceil_div(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : a; }

/* Issue the instructions a slice of `now` of the `owed` cycles starting at cycle s owes: a share of
 * t->instrs proportional to the cycles (the rest with the last slice). Returns the cycle after its
 * last instruction issued (s if none). */
uint64_t lsdp_issue_slice(lsdp_issue_port *p, lsdp_txn *t, uint64_t s, uint64_t now, uint64_t owed);

/* The timing rule every unit shares: service starts when both the request and the unit are
 * ready; the unit is occupied for `busy` cycles; the result is ready `latency` cycles after the
 * last issue cycle. Zero work costs nothing. */
/* Serve the next slice (at most t->slice cycles, all if 0) of `owed` cycles; the result is ready
 * t->latency cycles after the last slice. */
static inline void lsdp_unit_slice(lsdp_unit_state *u, lsdp_txn *t, uint64_t owed)
{
    uint64_t now = t->slice && owed > t->slice ? t->slice : owed;
    uint64_t free_at = u->free_at;
    if (u->shares_issue && u->shares_issue->free_at > free_at) free_at = u->shares_issue->free_at;
    uint64_t s = t->req > free_at ? t->req : free_at;
    uint64_t done = s + now;   /* the slice occupies the unit until its work and its issue are done */
    if (u->issue && t->instrs) {
        uint64_t issued = lsdp_issue_slice(u->issue, t, s, now, owed);
        if (issued > done) { u->issue->bound_cycles += issued - done; done = issued; }
    }
    t->start = s;
    t->busy = done - s;
    t->rest = owed - now;
    t->end = done + (t->rest ? 0 : t->latency);
    u->free_at = done;
    if (u->shares_issue) u->shares_issue->free_at = done;
    u->busy += now;
}
static inline void lsdp_unit_serve(lsdp_unit_state *u, lsdp_txn *t, uint64_t busy, uint64_t latency, uint64_t work)
{
    t->rest = 0;
    t->latency = latency;
    if (busy == 0 && work == 0) { t->start = t->end = t->req; t->busy = 0; t->work = 0; return; }
    t->instrs = u->issue && u->per_instr && !t->no_issue ? lsdp_ceil_div(work, u->per_instr) : 0;
    lsdp_unit_slice(u, t, busy);
    t->work = work;
    u->ops += 1;
    u->work += work;
}
/* A continuation: `rest` more cycles of a transaction already counted (no behaviour, no work). */
static inline void lsdp_unit_continue(lsdp_unit_state *u, lsdp_txn *t)
{
    lsdp_unit_slice(u, t, t->rest);
    t->work = 0;
}
/* Timing parameters of the units (per core unless noted), filled from accelerator.*: each unit's
 * section as it declares it (hw/<folder>/<section>.params; a new parameter needs no copy), and the
 * figures derived from several keys. */
typedef struct {
    int cores;
    double clock_ghz;
    lsunit_tensor_params tensor;     /* accelerator.tensor.* */
    lsunit_lut_params lut;
    lsunit_sfu_params sfu;
    lsunit_vector_params vector;
    lsunit_scheduler_params scheduler;
    lsunit_memory_params memory;     /* the buffer and its port, L2, DRAM */
    lsunit_issue_params issue;
    int tensor_macs16;               /* 16-bit instructions' MACs per cycle (the FP8 rate with 8-bit operands) */
    double dram_bpc, l2_bpc;         /* chip-wide bytes per cycle */
    double l2_bytes;                 /* 0: no L2 */
    int interleave;                  /* cycles: slice size on the compute units (0 = whole instructions) */
    bool q_in_buffer;                /* the Q block lives in the buffer: its fragment is re-read for every key tile */
    bool o_in_buffer;                /* the fp32 O accumulator lives in the buffer: every P.V reads and writes it */
    bool whole_tiles;                /* masked warps / sub-blocks of a computed tile cost as much as the rest */
    int o_write_bpc;                 /* bytes per cycle of the epilogue's write of O into the buffer (<= the port's) */
    uint64_t launch_cycles;          /* fixed cost before the first item of the run starts */
    uint64_t item_setup;             /* fixed latency from a slot taking an item to its first instruction */
} lsdp_hw;

/* Work that whole-tile execution (accelerator.skip_masked false) adds to the current tile: the
 * warps that do not run it (every query row of the block is computed, as a GPU kernel's MMAs
 * cover the whole tile) and the sub-blocks the mask removes from the running ones. Zero when
 * masked work is skipped. Timing only: the data path never sees these. */
typedef struct { uint64_t warps, subblocks; } lsdp_padding;

/* A unit: its timing parameters, per-core state and behaviour. exec runs the transaction's data
 * work on its context (hw/lamp steps) and its timing (lsdp_unit_serve), filling start/end. */
typedef struct lsdp_unit {
    int id;                          /* lsunit_id (hw/unit/units.def) */
    const lsdp_hw *hw;
    lsdp_unit_state *core;              /* [cores] */
    void *impl;                      /* unit-specific state (memory: channels) */
    void (*exec)(struct lsdp_unit *u, lsdp_txn *t);
} lsdp_unit;

/* Run a transaction on its unit: a continuation only owes cycles; otherwise the unit's behaviour
 * and timing. The direct port and the TLM targets both call this. */
static inline void lsdp_unit_dispatch(lsdp_unit *u, lsdp_txn *t)
{
    if (t->cont) lsdp_unit_continue(&u->core[t->core], t);
    else u->exec(u, t);
}

static inline lsdp_padding lsdp_masked_padding(const lsdp_hw *hw, const lsdp_ctx *x)
{
    lsdp_padding p = { 0, 0 };
    if (!hw->whole_tiles || x->wlo < 0) return p;
    const lsdp_shape *sh = x->sh;
    for (int wi = 0; wi < sh->n_q; wi++) {
        if (!(x->run >> wi & 1)) { p.warps++; p.subblocks += (uint64_t)sh->n_k; continue; }
        p.subblocks += (uint64_t)(sh->n_k - lsdp_popc(x->w[wi].active));
    }
    return p;
}

/* Whether the current tile's logits are 16-bit (QK.HP: every sub-block in HP precision). */
static inline bool lsdp_tile_hp(const lsdp_ctx *x) { return x->wlo >= 0 && x->w[x->wlo].io.y_is_hp; }

/* The memory unit's part of a non-memory instruction: the operand reads of a matrix instruction. */
static inline bool lsdp_operand_read(int op) { return op != LSUCODE_OP_LDQ && op != LSUCODE_OP_LDKV && op != LSUCODE_OP_STO; }


#ifdef __cplusplus
}
#endif
#endif
