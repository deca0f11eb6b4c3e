/* hw/regfile/regfile.c — the resident plan: registers by layout and placement, the buffer a block
 * keeps, occupancy and its binding limit (hardware.md section 4; the buffer bound of issue 23). */
#include "lsregfile.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

const char *lsregfile_bound_name(int b)
{
    static const char *const n[] = { "registers", "buffer", "max_contexts", "work" };
    return b >= 0 && b < 4 ? n[b] : "?";
}

/* Registers per warp of a context with layout `layout` (regions in a, rounded total returned). */
static int warp_regs(const lsregfile_params *p, int layout, const lsregfile_tile *t, lsregfile_alloc *a)
{
    a->q = p->q_place == LSREGFILE_IN_BUFFER ? 0 : (t->b_q * t->d + 1) / 2;   /* 16-bit Q fragment */
    a->y = lsregfile_y_regs_bits(layout, t->b_q, t->b_k, t->n_k, p->lp_bits, p->hp_bits);
    a->o = p->o_place == LSREGFILE_IN_BUFFER ? 0 : t->b_q * t->d;              /* fp32 O accumulator */
    a->state = 4 * t->b_q;                                                      /* mu, omega, lambda, mu_hat */
    int g = p->alloc_granularity > 0 ? p->alloc_granularity : 1;
    return (a->q + a->y + a->o + a->state + g - 1) / g * g;
}

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* The buffer: each block keeps its contexts' Q and O where they are placed there and `depth` K/V
 * stages shared by its contexts. The configured stages are what a block needs (a GPU kernel's
 * shared memory per thread block is fixed); only when one block cannot hold them does it run with
 * fewer, down to one. */
static int plan_buffer(const lsregfile_params *p, const lsregfile_tile *t, int g, lsregfile_alloc *a, char *err, size_t errlen)
{
    int keys = t->b_k * t->n_k < t->seq_k || t->seq_k <= 0 ? t->b_k * t->n_k : t->seq_k;
    double rows = (double)t->b_q * t->n_q, eb = t->elem_bytes > 0 ? t->elem_bytes : 2;
    a->q_bytes = p->q_place == LSREGFILE_IN_BUFFER ? rows * t->d * eb : 0.0;
    a->o_bytes = p->o_place == LSREGFILE_IN_BUFFER ? rows * t->d * 4.0 : 0.0;
    a->kv_stage_bytes = 2.0 * keys * t->d * eb;
    double fixed = g * (a->q_bytes + a->o_bytes);
    int stages = p->stages > 0 ? p->stages : 1;
    a->depth = stages;
    a->buffer_per_block = fixed + stages * a->kv_stage_bytes;
    int blocks = (int)(p->buffer_bytes / a->buffer_per_block);
    if (blocks < 1) {
        int fit = (int)((p->buffer_bytes - fixed) / a->kv_stage_bytes);
        if (p->buffer_bytes < fixed || fit < 1)
            return fail(err, errlen, -1, "no block of %d context(s) fits the on-chip buffer: %.1f KiB of Q/O in the "
                        "buffer and one %.1f KiB K/V stage > memory.buffer_kib = %.1f", g, fixed / 1024.0,
                        a->kv_stage_bytes / 1024.0, p->buffer_bytes / 1024.0);
        a->depth = fit;
        a->buffer_per_block = fixed + fit * a->kv_stage_bytes;
        blocks = 1;
    }
    a->buffer_fit = blocks * g;
    return 0;
}

int lsregfile_plan(const lsregfile_params *p, const lsregfile_tile *t, lsregfile_alloc *a, char *err, size_t errlen)
{
    a->per_warp = warp_regs(p, p->layout, t, a);
    a->per_context = a->per_warp * t->n_q;
    a->per_thread = (a->per_warp + p->warp_size - 1) / p->warp_size;
    a->slow_pass = lsregfile_slow_pass(p->layout, t->b_q, t->b_k, t->n_k, p->lp_bits, p->hp_bits);
    if (a->per_thread > p->max_regs_per_thread)
        return fail(err, errlen, -1, "one warp needs %d registers per thread (> regfile.max_regs_per_thread = %d); "
                    "reduce b_q, the tile or dim, or place Q / O in the buffer", a->per_thread, p->max_regs_per_thread);
    int sp = p->subpartitions > 0 ? p->subpartitions : 1;
    a->fit = sp * (p->registers / sp / a->per_warp) / t->n_q;
    if (a->fit < 1)
        return fail(err, errlen, -1, "no context fits a core: %d registers per context (%d warps x %d), register file "
                    "%d in %d sub-partitions", a->per_context, t->n_q, a->per_warp, p->registers, sp);
    int g = p->kv_group > 0 ? p->kv_group : 1;
    if (plan_buffer(p, t, g, a, err, errlen) != 0) return -1;
    a->hw_limit = p->max_contexts;
    if (p->max_warps / t->n_q < a->hw_limit) a->hw_limit = p->max_warps / t->n_q;
    if (p->max_ctas < a->hw_limit) a->hw_limit = p->max_ctas;
    a->work = INT_MAX;
    if (t->items > 0 && p->cores > 0) {
        long long w = (t->items + p->cores - 1) / p->cores;
        w = (w + g - 1) / g * g;
        a->work = w < INT_MAX ? (int)w : INT_MAX;
    }
    const int bound[] = { a->fit, a->buffer_fit, a->hw_limit, a->work };
    a->limit = INT_MAX;
    a->limited_by = LSREGFILE_BY_REGISTERS;
    for (int b = 0; b < 4; b++)
        if (bound[b] < a->limit) { a->limit = bound[b]; a->limited_by = b; }
    if (a->limit < g)
        return fail(err, errlen, -1, "a block of memory.kv_shared_contexts = %d contexts does not fit (at most %d "
                    "resident, limited by %s)", g, a->limit, lsregfile_bound_name(a->limited_by));
    a->limit -= a->limit % g;
    /* a layout that pays a slow path but needs as many registers per warp as one without: it saves
     * nothing at this tile (compact at n_k <= 2) */
    a->dominated_by = -1;
    if (lsregfile_has_slow_path(p->layout))
        for (int l = 0; l < LSREGFILE_NLAYOUTS && a->dominated_by < 0; l++) {
            lsregfile_alloc o;
            if (l != LSREGFILE_LP && !lsregfile_has_slow_path(l) && warp_regs(p, l, t, &o) <= a->per_warp) a->dominated_by = l;
        }
    return 0;
}

lsdp_layout_rule lsregfile_rule(const lsregfile_params *p, const lsregfile_tile *t)
{
    lsdp_layout_rule r;
    r.slow_path = lsregfile_has_slow_path(p->layout);
    r.hp_slots = lsregfile_hp_slots(p->layout, t->n_k);
    r.slow_pass = lsregfile_slow_pass(p->layout, t->b_q, t->b_k, t->n_k, p->lp_bits, p->hp_bits);
    return r;
}

void lsregfile_exec(lsdp_unit *u, lsdp_txn *t)
{
    /* allocation happens at context start and is released at its end: no time, one operation */
    t->start = t->end = t->req;
    t->busy = 0;
    u->core[t->core].ops++;
    u->core[t->core].work += t->work;
}
