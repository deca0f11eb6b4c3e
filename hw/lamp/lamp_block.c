/* hw/lamp/lamp_block.c — work items of the attention: where a query block lies in the tensors and
 * the operands of each (warp, key tile). Shared by the golden engine and the timed model's contexts. */
#include "lslamp.h"

#include <stdlib.h>
#include <string.h>

static inline int imin(int a, int b) { return a < b ? a : b; }

int lslamp_block_alloc(lslamp_block *blk)
{
    size_t br = (size_t)blk->br, bc = (size_t)blk->bc, d = (size_t)blk->dim;
    blk->Qt = malloc(d * br * sizeof(float));
    blk->Y = malloc(bc * br * sizeof(float));
    blk->mu = malloc(br * sizeof(float));
    blk->om32 = malloc(br * sizeof(float));
    blk->O32 = malloc(br * d * sizeof(float));
    blk->om64 = malloc(br * sizeof(double));
    blk->O64 = malloc(br * d * sizeof(double));
    if (blk->Qt && blk->Y && blk->mu && blk->om32 && blk->O32 && blk->om64 && blk->O64) return 0;
    lslamp_block_free(blk);
    return -1;
}

void lslamp_block_free(lslamp_block *blk)
{
    free(blk->Qt); free(blk->Y); free(blk->mu); free(blk->om32); free(blk->O32); free(blk->om64); free(blk->O64);
    blk->Qt = blk->Y = blk->mu = blk->om32 = blk->O32 = NULL;
    blk->om64 = blk->O64 = NULL;
}

void lslamp_block_locate(lslamp_block *blk, int item, int nqb, int heads_q, int heads_kv, int seq_q,
                         const float *q, const float *k, const float *v, float *o, float *o_ref)
{
    int d = blk->dim;
    blk->qb = item % nqb;
    int bh = item / nqb;
    blk->hq = bh % heads_q;
    blk->b = bh / heads_q;
    blk->hkv = blk->hq / (heads_q / heads_kv);
    blk->q0 = blk->qb * blk->br;
    blk->nqv = imin(blk->br, seq_q - blk->q0);
    size_t qoff = (((size_t)blk->b * heads_q + blk->hq) * seq_q + blk->q0) * d;
    size_t koff = ((size_t)blk->b * heads_kv + blk->hkv) * blk->seq_k * d;
    blk->Q = q + qoff;
    blk->K = k + koff;
    blk->V = v + koff;
    blk->O = o + qoff;
    blk->Oref = o_ref ? o_ref + qoff : NULL;
    blk->shift = (int64_t)blk->seq_k - (blk->qpack > 1 ? seq_q / blk->qpack : seq_q);
}

int lslamp_warp_io(const lslamp_block *blk, int wi, int kt, lslamp_tile_io *io)
{
    int d = blk->dim, key0 = kt * blk->bc;
    int nqw = blk->nqv - wi * blk->b_q;
    nqw = nqw < 0 ? 0 : imin(nqw, blk->b_q);
    memset(io, 0, sizeof *io);
    io->K = blk->K + (size_t)key0 * d; io->ldk = d;
    io->V = blk->V + (size_t)key0 * d; io->ldv = d;
    io->Qt = blk->Qt + wi * blk->b_q; io->ldq = blk->br;
    io->nkeys = imin(blk->bc, blk->seq_k - key0);
    io->nq = nqw;
    io->ncols = blk->b_q;
    io->key0 = key0;
    io->query0 = blk->q0 + wi * blk->b_q;
    io->causal_shift = blk->shift;
    io->causal = blk->causal;
    io->window = blk->causal ? blk->window : 0;
    io->qpack = blk->qpack;
    io->Y = blk->Y + wi * blk->b_q; io->ldy = blk->br;
    return nqw;
}

void lslamp_warp_state(const lslamp_block *blk, int wi, lslamp_state *st)
{
    size_t r = (size_t)wi * blk->b_q;
    st->mu = blk->mu + r;
    st->omega32 = blk->om32 + r;
    st->O32 = blk->O32 + r * blk->dim;
    st->omega64 = blk->om64 + r;
    st->O64 = blk->O64 + r * blk->dim;
    st->ldo = blk->dim;
}
