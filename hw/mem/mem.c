/* hw/mem/mem.c — memory behaviour (query block preparation, hw/lamp) and timing. */
#include "lsmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lsmem_init(lsmem_state *m, const lsdp_shape *sh, const lsdp_hw *hw)
{
    memset(m, 0, sizeof *m);
    size_t n = (size_t)sh->batch * sh->heads_kv * sh->nkt;
    return lslru_init(&m->l2_tiles, n, hw->l2_bytes > 0 ? (uint64_t)hw->l2_bytes : 0);
}

void lsmem_free(lsmem_state *m)
{
    lslru_free(&m->l2_tiles);
    memset(m, 0, sizeof *m);
}

uint64_t lsmem_tile_bytes(const lsdp_shape *sh, int kt)
{
    int nkeys = sh->seq_k - kt * sh->bc;
    if (nkeys > sh->bc) nkeys = sh->bc;
    return 2ull * (uint64_t)nkeys * sh->dim * sh->elem_bytes;
}

uint64_t lsmem_q_bytes(const lsdp_ctx *x) { return (uint64_t)x->nqv * x->sh->dim * x->sh->elem_bytes; }
uint64_t lsmem_o_bytes(const lsdp_ctx *x) { return (uint64_t)x->nqv * x->sh->dim * x->sh->out_bytes; }

int lsmem_prefetch_depth(const lsdp_shape *sh, double buffer_bytes, int contexts, int stages)
{
    double per = buffer_bytes / (contexts > 0 ? contexts : 1);
    double tile = (double)lsmem_tile_bytes(sh, 0);
    int fit = (int)floor(per / tile);
    int dpt = stages < fit ? stages : fit;
    return dpt < 1 ? 1 : dpt;
}

static uint64_t channel(lsunit_state *ch, uint64_t req, uint64_t bytes, double bpc, uint64_t lat)
{
    lsdp_txn t;
    memset(&t, 0, sizeof t);
    t.req = req;
    lsunit_serve(ch, &t, (uint64_t)ceil((double)bytes / bpc - 1e-9), lat, bytes);
    return t.end;
}

/* Bytes the matrix instruction t reads from the on-chip buffer into the tensor unit's operand
 * registers: each group of operand_read_rows query rows reads the K (or V) tile once; HP
 * recomputes read their own sub-blocks per warp; with q_operand_reads every reading warp also
 * re-reads its Q fragment (FlashAttention-2's sm80 kernels keep Q in shared memory). */
static uint64_t operand_bytes(const lsdp_hw *hw, const lsdp_txn *t)
{
    const lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    uint64_t eb = (uint64_t)sh->elem_bytes, d = (uint64_t)sh->dim, bq = (uint64_t)sh->b_q;
    uint64_t row = d * eb;                       /* one key / value / query row */
    int nkeys = sh->seq_k - x->kt * sh->bc;
    if (nkeys > sh->bc) nkeys = sh->bc;
    uint64_t warps = 0, subblocks = 0, readers = 0;
    for (int wi = 0; wi < sh->n_q; wi++) {
        if (!(x->run >> wi & 1)) continue;
        const lsdp_warp *w = &x->w[wi];
        uint32_t sel = 0;
        switch (t->op) {
        case LSU_OP_QK_LP: case LSU_OP_QK_HP: warps++; continue;
        case LSU_OP_PV: case LSU_OP_SLOWPV:
            if ((x->slow >> wi & 1) == (uint64_t)(t->op == LSU_OP_SLOWPV)) warps++;
            continue;
        case LSU_OP_SEL1:
            if (!w->io.y_is_hp && c->policy != &lslamp_policy_none) sel = w->pre;
            break;
        case LSU_OP_RECOMP: sel = w->post; break;
        case LSU_OP_FULLHP: sel = w->rest; break;
        default: break;
        }
        subblocks += (uint64_t)lsdp_popc(sel);
        readers += sel != 0;
    }
    if (t->op == LSU_OP_QK_LP || t->op == LSU_OP_QK_HP || t->op == LSU_OP_PV)
        warps += lsdp_masked_padding(hw, x).warps;   /* whole tiles: every warp of the block reads */
    uint64_t rows = (uint64_t)hw->operand_rows;
    uint64_t kv = warps ? lsdp_ceil_div(warps * bq, rows) * (uint64_t)nkeys * row : subblocks * (uint64_t)sh->b_k * row;
    uint64_t q = hw->q_operand_reads && t->op != LSU_OP_PV && t->op != LSU_OP_SLOWPV ? (warps + readers) * bq * row : 0;
    return kv + q;
}

void lsmem_exec(lsunit *u, lsdp_txn *t)
{
    lsmem_state *m = u->impl;
    const lsdp_hw *hw = u->hw;
    lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    uint64_t bytes = 0, end = t->req, dram = 0;
    if (lsdp_operand_read(t->op)) {
        /* operand reads of a matrix instruction: the core's buffer port, shared with the fills */
        uint64_t ob = operand_bytes(hw, t);
        lsunit_serve(&u->core[t->core], t, lsdp_ceil_div(ob, (uint64_t)hw->buf_bpc), (uint64_t)hw->buf_latency, ob);
        m->operand_bytes += ob;
        return;
    }
    switch (t->op) {
    case LSU_OP_LDQ:
        if (!lsdp_no_data(sh)) lslamp_prepare_qt(sh->cfg, x->Q, sh->dim, x->nqv, sh->br, x->Qt, sh->br);
        bytes = lsmem_q_bytes(x);
        end = channel(&m->dram, t->req, bytes, hw->dram_bpc, (uint64_t)hw->dram_latency);
        dram = bytes;
        break;
    case LSU_OP_LDKV: {
        bytes = lsmem_tile_bytes(sh, t->arg);
        size_t key = ((size_t)x->b * sh->heads_kv + x->hkv) * sh->nkt + (size_t)t->arg;
        if (lslru_access(&m->l2_tiles, key, bytes)) {
            end = channel(&m->l2, t->req, bytes, hw->l2_bpc, (uint64_t)hw->l2_latency);
            m->l2_bytes += bytes;
        } else {
            end = channel(&m->dram, t->req, bytes, hw->dram_bpc, (uint64_t)hw->dram_latency);
            dram = bytes;
        }
        break;
    }
    case LSU_OP_STO:
        bytes = lsmem_o_bytes(x);
        end = channel(&m->dram, t->req, bytes, hw->dram_bpc, (uint64_t)hw->dram_latency);
        m->store_bytes += bytes;
        dram = bytes;
        break;
    default:
        break;
    }
    m->dram_bytes += dram;
    /* the core's buffer fill port (stores drain through it too) */
    lsunit_state *port = &u->core[t->core];
    lsdp_txn bt;
    memset(&bt, 0, sizeof bt);
    bt.req = t->req;
    bt.no_issue = true;   /* a DMA fill: no warp instruction */
    /* an FP8 kernel transposes each V tile in the buffer: its V half is read and written once more */
    uint64_t port_bytes = bytes + (t->op == LSU_OP_LDKV && hw->v_transpose ? bytes : 0);
    if (port_bytes) {
        lsunit_serve(port, &bt, lsdp_ceil_div(port_bytes, (uint64_t)hw->buf_bpc), (uint64_t)hw->buf_latency, port_bytes);
        m->buf_bytes += port_bytes;
    }
    t->start = t->req;
    t->end = bt.end > end ? bt.end : end;
    t->busy = bt.busy;
    t->work = bytes;
    t->work_hp = dram;
}
