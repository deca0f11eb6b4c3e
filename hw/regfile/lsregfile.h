/* hw/regfile — the resident plan of a core: per-warp registers of a context's Q fragment, logit
 * tile (by layout, lsreglayout.h), O accumulator and row state, rounded to the allocation
 * granularity; the on-chip buffer a block of contexts keeps (K/V pipeline stages, and Q and O
 * where they are placed there); how many contexts are resident per core and which limit binds;
 * and whether the layout is dominated at the tile. The register file's unit (ALLOC / FREE). */
#ifndef LAMPSIM_HW_REGFILE_H
#define LAMPSIM_HW_REGFILE_H
#include <stddef.h>

#include "lsdp.h"
#include "lsreglayout.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct {
    /* register file and resident limits (accelerator.regfile.*, warp_size, max_warps, max_ctas) */
    int registers, subpartitions, max_regs_per_thread, alloc_granularity, warp_size;
    int max_warps, max_ctas, max_contexts;
    int lp_bits, hp_bits;        /* code widths of the LP / HP logits (0: 8 / 16, the e4m3 / e4m11 design) */
    int layout;                  /* lsregfile_layout */
    int q_place, o_place;        /* lsregfile_place of the Q fragment and of the fp32 O accumulator */
    /* on-chip buffer (accelerator.memory.*) */
    double buffer_bytes;         /* buffer_kib * 1024 */
    int stages;                  /* K/V tiles in flight per block (pipeline_stages) */
    int kv_group;                /* contexts per K/V-sharing block (kv_shared_contexts; 0: 1) */
    int cores;                   /* for the work bound (0: no work bound) */
} lsregfile_params;

/* The tile and the run's work, from the algorithm and the workload. */
typedef struct {
    int b_q, n_q, b_k, n_k, d;
    int seq_k;                   /* keys of the layer (a K/V stage holds min(b_k * n_k, seq_k) keys) */
    int elem_bytes;              /* Q/K/V bytes per element in the buffer */
    long long items;             /* query blocks of the run (0: unknown, no work bound) */
} lsregfile_tile;

/* Which limit sets the resident contexts per core (ties: the first in this order). max_contexts also
 * stands for the warp and thread-block limits (max_warps / n_q, max_ctas). */
typedef enum { LSREGFILE_BY_REGISTERS, LSREGFILE_BY_BUFFER, LSREGFILE_BY_MAX_CONTEXTS, LSREGFILE_BY_WORK } lsregfile_bound;
const char *lsregfile_bound_name(int b);   /* registers, buffer, max_contexts, work */

typedef struct {
    int q, y, o, state;          /* 32-bit registers per warp for each region (0: kept in the buffer) */
    int per_warp;                /* rounded to alloc_granularity */
    int per_context;             /* n_q warps */
    int per_thread;
    int fit;                     /* contexts the register file holds */
    double q_bytes, o_bytes;     /* buffer bytes of one context's Q block / O accumulator (0: in registers) */
    double kv_stage_bytes;       /* one K/V stage (a block's contexts share it) */
    double buffer_per_block;     /* kv_group x (Q + O) + depth x kv_stage_bytes */
    int depth;                   /* K/V stages per block: stages, fewer only when one block cannot hold them */
    int buffer_fit;              /* contexts the buffer holds, in whole blocks */
    int hw_limit;                /* min(max_contexts, max_warps / n_q, max_ctas) */
    int work;                    /* ceil(items / cores) in whole blocks (INT_MAX: no work bound) */
    int limit;                   /* resident contexts per core: min(fit, buffer_fit, hw_limit, work) in whole blocks */
    int limited_by;              /* lsregfile_bound */
    int dominated_by;            /* a layout without a slow path whose warps need no more registers, or -1 */
    int slow_pass;               /* sub-blocks per slow-path pass (0: no slow path) */
} lsregfile_alloc;

/* The plan of p->layout at the tile. Returns 0, or -1 with a message when no context fits (registers
 * per thread, the register file, the buffer, or a whole K/V-sharing block). */
int lsregfile_plan(const lsregfile_params *p, const lsregfile_tile *tile, lsregfile_alloc *a, char *err, size_t errlen);
/* What the datapath reads of the plan: the slow-path rule of the layout. */
lsdp_layout_rule lsregfile_rule(const lsregfile_params *p, const lsregfile_tile *tile);
void lsregfile_exec(lsdp_unit *u, lsdp_txn *t);   /* ALLOC/FREE bookkeeping (no time) */
#ifdef __cplusplus
}
#endif
#endif
