/* hw/regfile/regfile.c — register allocation by layout and occupancy (hardware.md section 4). */
#include "lsregfile.h"

#include <stdio.h>

static int regs_for(int values, int bits)
{
    int per = 32 / (bits > 0 && bits <= 32 ? bits : 32);
    return (values + per - 1) / per;
}

int lsregfile_y_regs_bits(lsucode_ylayout layout, int b_q, int b_k, int n_k, int lp_bits, int hp_bits)
{
    int bc = b_k * n_k;
    switch (layout) {
    case LSUCODE_Y_LP: return regs_for(bc * b_q, lp_bits);
    case LSUCODE_Y_COMPACT: return regs_for(bc * b_q, lp_bits) + regs_for(b_k * b_q, hp_bits);
    default: return regs_for(bc * b_q, hp_bits);
    }
}

int lsregfile_y_regs(lsucode_ylayout layout, int b_q, int b_k, int n_k)
{
    return lsregfile_y_regs_bits(layout, b_q, b_k, n_k, 8, 16);
}

int lsregfile_plan(const lsregfile_params *p, lsucode_ylayout layout, int b_q, int n_q, int b_k, int n_k, int d,
                   lsregfile_alloc *a, char *err, size_t errlen)
{
    a->q = (b_q * d + 1) / 2;            /* Q fragment in 16 bits (LP and HP logits read it) */
    a->y = lsregfile_y_regs_bits(layout, b_q, b_k, n_k, p->lp_bits > 0 ? p->lp_bits : 8, p->hp_bits > 0 ? p->hp_bits : 16);
    a->o = b_q * d;                      /* fp32 output accumulator */
    a->state = 4 * b_q;                  /* mu, omega, lambda, mu_hat */
    int raw = a->q + a->y + a->o + a->state;
    int g = p->alloc_granularity > 0 ? p->alloc_granularity : 1;
    a->per_warp = (raw + g - 1) / g * g;
    a->per_context = a->per_warp * n_q;
    a->per_thread = (a->per_warp + p->warp_size - 1) / p->warp_size;
    if (a->per_thread > p->max_regs_per_thread) {
        if (err && errlen)
            snprintf(err, errlen, "one warp needs %d registers per thread (> regfile.max_regs_per_thread = %d); "
                     "reduce b_q, the tile or dim", a->per_thread, p->max_regs_per_thread);
        return -1;
    }
    int sp = p->subpartitions > 0 ? p->subpartitions : 1;
    int per_sp = p->registers / sp;
    int warps = sp * (per_sp / a->per_warp);
    a->fit = warps / n_q;
    int lim = a->fit;
    if (p->max_contexts < lim) lim = p->max_contexts;
    if (p->max_warps / n_q < lim) lim = p->max_warps / n_q;
    if (p->max_ctas < lim) lim = p->max_ctas;
    a->limit = lim;
    if (lim < 1) {
        if (err && errlen)
            snprintf(err, errlen, "no context fits a core: %d registers per context (%d warps x %d), register file %d "
                     "in %d sub-partitions, max_warps %d", a->per_context, n_q, a->per_warp, p->registers, sp, p->max_warps);
        return -1;
    }
    return 0;
}

void lsregfile_exec(lsdp_unit *u, lsdp_txn *t)
{
    /* allocation happens at context start and is released at its end: no time, one operation */
    t->start = t->end = t->req;
    t->busy = 0;
    u->core[t->core].ops++;
    u->core[t->core].work += t->work;
}
