/* hw/regfile — packed register file: per-warp allocation of a context's Q fragment, logit tile,
 * output accumulator and row state by layout, rounded to the allocation granularity; how many
 * contexts fit per core (the occupancy) and the register utilisation. */
#ifndef LAMPSIM_HW_REGFILE_H
#define LAMPSIM_HW_REGFILE_H
#include "lsdp.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct {
    int registers, subpartitions, max_regs_per_thread, alloc_granularity, warp_size;
    int max_warps, max_ctas, max_contexts;
    int lp_bits, hp_bits;        /* code widths of the LP / HP logits (0: 8 / 16, the e4m3 / e4m11 design) */
} lsregfile_params;

typedef struct {
    int q, y, o, state;          /* 32-bit registers per warp for each region */
    int per_warp;                /* rounded to alloc_granularity */
    int per_context;             /* n_q warps */
    int fit;                     /* contexts the register file holds */
    int limit;                   /* min(fit, max_contexts, max_warps / n_q, max_ctas) */
    int per_thread;
} lsregfile_alloc;

/* Registers of the logit tile per warp: lp = four e4m3 per register; compact = lp plus one
 * 16-bit sub-block; full = every sub-block in 16 bits (two per register). */
int lsregfile_y_regs(lsucode_ylayout layout, int b_q, int b_k, int n_k);
/* The same for logits of lp_bits / hp_bits (floor(32 / bits) per 32-bit register: a 4-bit LP
 * accumulator packs 8, a 12-bit one 2). */
int lsregfile_y_regs_bits(lsucode_ylayout layout, int b_q, int b_k, int n_k, int lp_bits, int hp_bits);
/* Returns 0, or -1 with a message when one context does not fit. */
int lsregfile_plan(const lsregfile_params *p, lsucode_ylayout layout, int b_q, int n_q, int b_k, int n_k, int d,
                   lsregfile_alloc *a, char *err, size_t errlen);
void lsregfile_exec(lsdp_unit *u, lsdp_txn *t);   /* ALLOC/FREE bookkeeping (no time) */
#ifdef __cplusplus
}
#endif
#endif
