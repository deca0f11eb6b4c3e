/* hw/seq — the sequencer: per core, runs the microprogram for every resident context (in order
 * within a context, contexts interleaved), tracks dependencies with a scoreboard of register-file
 * regions, and distributes the layer's work items (batch x heads x query blocks) over the cores.
 * Every instruction becomes one transaction per unit it occupies, sent through `port` (the TLM
 * sockets in the SystemC top, or a direct call); contention is resolved in time order: the
 * context whose next instruction is ready earliest goes first. */
#ifndef LAMPSIM_HW_SEQ_H
#define LAMPSIM_HW_SEQ_H
#include "lsdp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { LSSEQ_STALL_DEPENDENCY, LSSEQ_STALL_UNIT_BUSY, LSSEQ_STALL_MEMORY, LSSEQ_STALL_SCHEDULER,
               LSSEQ_STALL_SLOW_PATH, LSSEQ_NSTALLS } lsseq_stall;
const char *lsseq_stall_name(int s);

/* The order in which work items are handed to the slots (accelerator.scheduling; the schema spells
 * these in value order). Each is a GPU kernel's tile scheduler, derived from its released code
 * (docs/architecture.md, "Work ordering"):
 *   INDEX          items in index order (batch, head, query block fastest), each to the next free
 *                  slot: FlashAttention-2's grid (blockIdx.x = query block) under the hardware's
 *                  block dispatcher, and FlashAttention-3's causal scheduler as first released
 *   LONGEST_FIRST  FlashAttention-3's DynamicPersistentTileScheduler since 2025: heads in L2-sized
 *                  sections, within a section the query blocks last to first (the causal mask's
 *                  longest first), heads fastest; each to the next free slot
 *   PERSISTENT     FlashAttention-3's StaticPersistentTileScheduler: index order, item i fixed to
 *                  worker i mod (slots), whenever that worker frees up */
typedef enum { LSSEQ_SCHEDULE_INDEX, LSSEQ_SCHEDULE_LONGEST_FIRST, LSSEQ_SCHEDULE_PERSISTENT, LSSEQ_NSCHEDULES } lsseq_schedule;

/* The item order of a schedule: order[p] is the item handed out p-th, or -1 for a hole, p <
 * lsseq_order_len (n = batch x heads_q x nqb items; any other n gets index order). LONGEST_FIRST
 * orders groups of `unit` consecutive query blocks of a head (a block of kv_shared_contexts slots:
 * the warpgroups of one GPU thread block), a head's last group padded with holes; l2_bytes sizes
 * its head sections (0: the query heads of one KV head each). */
int lsseq_order_len(int schedule, const lsdp_shape *sh, int n, int unit);
void lsseq_item_order(int schedule, const lsdp_shape *sh, double l2_bytes, int n, int unit, int *order);
/* The length of the order's prefix that holds exactly the items below `limit` (holes included up to its
 * last such item), or -1 where an item below it comes after one at or above it. */
int lsseq_order_prefix(const int *order, int norder, int limit);

typedef void (*lsseq_port_fn)(void *user, lsdp_txn *t);
typedef void (*lsseq_item_fn)(void *user, lsdp_ctx *x);

typedef struct lsseq_slot lsseq_slot;
/* A block of kv_shared_contexts slots: which (batch, KV head) + 1 each K/V tile was last loaded for, when it is
 * ready, and when its transposed V is (accelerator.memory.v_transpose; = ready otherwise). */
typedef struct { uint64_t *head, *ready, *v_ready; } lsseq_block;

typedef struct {
    /* inputs */
    const lsucode_program *prog;
    const lsdp_shape *sh;
    const lsdp_hw *hw;
    int contexts_per_core;       /* resident limit */
    int prefetch_depth;
    lsseq_port_fn port; void *port_user;
    lsseq_item_fn item_done; void *item_user;   /* called when a context finishes its item */
    /* optional timeline hooks: every served transaction (with the item and the tile ordinal it works
     * on: the context's current tile, or the one a K/V load brings) and every change of a core's
     * resident contexts */
    void (*trace_txn)(void *user, const lsdp_txn *t, int item, int tile_ordinal);
    void (*trace_resident)(void *user, int core, uint64_t cycle, int resident);
    void *trace_user;
    lsdp_item_stats *item_stats; /* [items] */
    uint64_t *hist;              /* [items][n_k + 1] */
    lslamp_tile_record *records; /* [items][n_q][nkt] or NULL */
    int items;                   /* work items: batch x heads x query blocks (x sh->split_kv splits) */
    int schedule;                /* lsseq_schedule (accelerator.scheduling) */
    int item_limit;              /* > 0: run only the items below it, the order's prefix that holds them (the
                                    fast-forward's repetitions); refused where they are not a prefix. 0: all */
    /* results */
    uint64_t cycles;
    uint64_t stalls[LSSEQ_NSTALLS];
    uint64_t slow_tiles, slow_cycles;
    uint64_t op_work[LSUCODE_NOPS][3], op_work_hp[LSUCODE_NOPS][3], op_count[LSUCODE_NOPS];   /* [op][part] */
    uint64_t instructions, transactions;
    uint64_t kv_loads;           /* K/V tile loads sent to memory */
    uint64_t shared_loads;       /* K/V tile loads served by a sibling context's load (kv_shared_contexts) */
    uint64_t slot_busy_cycles;   /* sum over slots of resident time */
    uint64_t combine_cycles;     /* split-KV: the combine step's items, summed (sh->split_kv > 1) */
    int cores_used, max_resident;
    uint64_t *core_end;          /* [cores] */
    uint64_t *core_stalls;       /* [cores][LSSEQ_NSTALLS]: stalls by core (they sum to stalls) */
    /* internal */
    lsseq_slot *slots;
    int nslots, next_item;       /* next_item: the next position in order[] (dynamic schedules) */
    int *order, norder;          /* [norder]: the schedule's item order (-1: a hole) */
    lsseq_block *blocks;
    int nblocks;
    int *heap, nheap;
    char err[256];
    /* set by the port (an error response from memory): the run ends before the next instruction */
    int stop;
} lsseq;

/* Runs the whole layer. Returns 0, or -1 with s->err set (out of memory, runaway program, stopped
 * by the port). */
int lsseq_run(lsseq *s);
void lsseq_free(lsseq *s);

#ifdef __cplusplus
}
#endif
#endif
