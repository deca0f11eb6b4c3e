/* hw/mem/mem.c — memory behaviour (query block preparation, hw/lamp) and timing. */
#include "lsmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lsmem_init(lsmem_state *m, const lsdp_shape *sh, const lsdp_hw *hw)
{
    memset(m, 0, sizeof *m);
    m->map = lsmem_map_default(sh);
    m->model.sh = sh;
    m->model.hw = hw;
    m->model.map = &m->map;
    size_t n = (size_t)sh->batch * sh->heads_kv * sh->nkt;
    if (hw->memory.v_transpose && !(m->vt_free = calloc((size_t)(hw->cores > 0 ? hw->cores : 1), sizeof(uint64_t)))) return -1;
    return lslru_init(&m->model.l2_tiles, n, hw->l2_bytes > 0 ? (uint64_t)hw->l2_bytes : 0);
}

void lsmem_free(lsmem_state *m)
{
    lslru_free(&m->model.l2_tiles);
    free(m->vt_free);
    memset(m, 0, sizeof *m);
}

uint64_t lsmem_region_bytes(const lsdp_shape *sh, lsmem_region r)
{
    uint64_t q = (uint64_t)sh->batch * sh->heads_q * sh->seq_q * sh->dim;
    uint64_t kv = 2ull * sh->batch * sh->heads_kv * sh->seq_k * sh->dim;
    switch (r) {
    case LSMEM_Q: return q * (uint64_t)sh->elem_bytes;
    case LSMEM_KV: return kv * (uint64_t)sh->elem_bytes;
    default: return q * (uint64_t)sh->out_bytes;
    }
}

static uint64_t align_4k(uint64_t a) { return (a + 4095) & ~(uint64_t)4095; }

lsmem_map lsmem_map_default(const lsdp_shape *sh)
{
    lsmem_map m;
    m.q = 0;
    m.kv = align_4k(m.q + lsmem_region_bytes(sh, LSMEM_Q));
    m.o = align_4k(m.kv + lsmem_region_bytes(sh, LSMEM_KV));
    m.part = align_4k(m.o + lsmem_region_bytes(sh, LSMEM_O));
    return m;
}

uint64_t lsmem_tile_bytes(const lsdp_shape *sh, int kt)
{
    int nkeys = sh->seq_k - kt * sh->bc;
    if (nkeys > sh->bc) nkeys = sh->bc;
    return 2ull * (uint64_t)nkeys * sh->dim * sh->elem_bytes;
}

uint64_t lsmem_q_bytes(const lsdp_ctx *x) { return (uint64_t)x->nqv * x->sh->dim * x->sh->elem_bytes; }
uint64_t lsmem_o_bytes(const lsdp_ctx *x) { return (uint64_t)x->nqv * x->sh->dim * x->sh->out_bytes; }

/* The element range and address of a context's transfer (load of key tile kt for LSMEM_KV). */
static lsmem_access access_of(const lsmem_map *map, const lsdp_ctx *x, lsmem_region r, int kt, uint64_t req)
{
    const lsdp_shape *sh = x->sh;
    lsmem_access a;
    memset(&a, 0, sizeof a);
    a.region = r;
    a.req = req;
    if (r == LSMEM_KV) {
        a.elem = (((size_t)x->b * sh->heads_kv + x->hkv) * sh->seq_k + (size_t)kt * sh->bc) * sh->dim;
        a.bytes = lsmem_tile_bytes(sh, kt);
        a.count = (size_t)(a.bytes / 2 / sh->elem_bytes);
        a.addr = map->kv + 2ull * a.elem * sh->elem_bytes;
        return a;
    }
    a.write = r == LSMEM_O;
    if (sh->split_kv > 1 && ((a.write && x->split >= 0 && !x->combine) || (!a.write && x->combine))) {
        /* split-KV: a split stores its rows' fp32 O and LSE; the combine loads every split's */
        uint64_t row = (uint64_t)sh->dim + 1, first = (uint64_t)x->item * sh->split_kv + (x->combine ? 0 : x->split);
        a.elem = first * sh->br * row;
        a.count = (size_t)x->nqv * row * (x->combine ? x->combine : 1);
        a.bytes = a.count * 4;
        a.addr = map->part + a.elem * 4;
        return a;
    }
    a.elem = (((size_t)x->b * sh->heads_q + x->hq) * sh->seq_q + x->q0) * sh->dim;
    a.count = (size_t)x->nqv * sh->dim;
    a.bytes = a.write ? lsmem_o_bytes(x) : lsmem_q_bytes(x);
    a.addr = (a.write ? map->o : map->q) + a.elem * (a.write ? sh->out_bytes : sh->elem_bytes);
    return a;
}

static uint64_t channel(lsmem_model *m, int which, uint64_t req, uint64_t bytes, double bpc, uint64_t lat)
{
    lsdp_txn t;
    memset(&t, 0, sizeof t);
    t.req = req;
    lsdp_unit_serve(which ? &m->l2 : &m->dram, &t, (uint64_t)ceil((double)bytes / bpc - 1e-9), lat, bytes);
    if (m->on_channel && t.busy) m->on_channel(m->on_channel_user, which, t.start, t.busy, bytes);
    return t.end;
}

/* Bytes the matrix instruction t reads from the on-chip buffer into the tensor unit's operand
 * registers: each group of operand_read_rows query rows reads the K (or V) tile once; HP
 * recomputes read their own sub-blocks per warp; with Q in the buffer (regfile.q_placement) every
 * reading warp also re-reads its Q fragment (FlashAttention-2's sm80 kernels keep Q in shared
 * memory); with O in the buffer (o_placement) every P.V reads and writes its warps' fp32 O rows. */
static uint64_t operand_bytes(const lsdp_hw *hw, const lsdp_txn *t)
{
    const lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    uint64_t eb = (uint64_t)sh->elem_bytes, d = (uint64_t)sh->dim, bq = (uint64_t)sh->b_q;
    uint64_t row = d * eb;                       /* one key / value / query row */
    int nkeys = sh->seq_k - x->kt * sh->bc;
    if (nkeys > sh->bc) nkeys = sh->bc;
    uint64_t warps = 0, subblocks = 0, readers = 0, updating;
    for (int wi = 0; wi < sh->n_q; wi++) {
        if (!(x->run >> wi & 1)) continue;
        const lsdp_warp *w = &x->w[wi];
        uint32_t sel = 0;
        switch (t->op) {
        case LSUCODE_OP_QK_LP: case LSUCODE_OP_QK_HP: warps++; continue;
        case LSUCODE_OP_PV: case LSUCODE_OP_SLOWPV:
            if ((x->slow >> wi & 1) == (uint64_t)(t->op == LSUCODE_OP_SLOWPV)) warps++;
            continue;
        case LSUCODE_OP_SEL1:
            if (!w->io.y_is_hp && c->policy != &lslamp_policy_none) sel = w->pre;
            break;
        case LSUCODE_OP_RECOMP: sel = w->post; break;
        case LSUCODE_OP_FULLHP: sel = w->rest; break;
        default: break;
        }
        subblocks += (uint64_t)lsdp_popc(sel);
        readers += sel != 0;
    }
    updating = warps;   /* the warps whose O a P.V updates */
    if (t->op == LSUCODE_OP_QK_LP || t->op == LSUCODE_OP_QK_HP || t->op == LSUCODE_OP_PV)
        warps += lsdp_masked_padding(hw, x).warps;   /* whole tiles: every warp of the block reads */
    uint64_t rows = (uint64_t)hw->memory.operand_read_rows;
    uint64_t kv = warps ? lsdp_ceil_div(warps * bq, rows) * (uint64_t)nkeys * row : subblocks * (uint64_t)sh->b_k * row;
    bool pv = t->op == LSUCODE_OP_PV || t->op == LSUCODE_OP_SLOWPV;
    uint64_t q = hw->q_in_buffer && !pv ? (warps + readers) * bq * row : 0;
    uint64_t o = hw->o_in_buffer && pv ? 2 * updating * bq * d * 4 : 0;   /* read and write back, fp32 */
    return kv + q + o;
}

/* The L2 key of a K/V tile read at addr, or -1 if addr is not the start of a K/V tile. */
static long long kv_tile_key(const lsmem_model *m, uint64_t addr)
{
    const lsdp_shape *sh = m->sh;
    uint64_t per_key = 2ull * sh->dim * sh->elem_bytes;   /* a key's K row and V row */
    if (addr < m->map->kv || addr >= m->map->kv + lsmem_region_bytes(sh, LSMEM_KV) || (addr - m->map->kv) % per_key)
        return -1;
    uint64_t key = (addr - m->map->kv) / per_key, head = key / (uint64_t)sh->seq_k, k0 = key % (uint64_t)sh->seq_k;
    if (k0 % (uint64_t)sh->bc) return -1;
    return (long long)(head * (uint64_t)sh->nkt + k0 / (uint64_t)sh->bc);
}

uint64_t lsmem_model_access(lsmem_model *m, lsmem_access *a)
{
    const lsdp_hw *hw = m->hw;
    long long key = a->write ? -1 : kv_tile_key(m, a->addr);
    if (key >= 0 && lslru_access(&m->l2_tiles, (size_t)key, a->bytes)) {
        m->l2_bytes += a->bytes;
        a->dram_bytes = 0;
        return channel(m, 1, a->req, a->bytes, hw->l2_bpc, (uint64_t)hw->memory.l2_latency);
    }
    m->dram_bytes += a->bytes;
    a->dram_bytes = a->bytes;
    return channel(m, 0, a->req, a->bytes, hw->dram_bpc, (uint64_t)hw->memory.latency);
}

/* FP8 kernels transpose every V tile in the buffer (FlashAttention-3's producer warpgroup: LDSM.T,
 * byte permute, STSM into the K-major copy the FP8 wgmma reads). A step of its own after the load:
 * it starts when the tile has landed and the core's producer has finished the previous transpose,
 * takes the port time of the V half read and written (`kv_bytes` in all) plus the port latency and
 * the fixed chain hw->memory.v_transpose_cycles (register permute, fence, barriers). K is usable at t->end,
 * P.V waits for t->v_ready. The bytes are booked on the port when the load is requested, as the fill
 * is (a booking at the landing time would hold the FIFO port for everything requested before it). */
static void transpose_v(lsmem_state *m, const lsdp_hw *hw, lsdp_unit_state *port, lsdp_txn *t, uint64_t kv_bytes)
{
    uint64_t *producer = &m->vt_free[t->core];
    lsdp_txn tt;
    memset(&tt, 0, sizeof tt);
    tt.req = t->req;
    tt.no_issue = true;   /* the producer warps' instructions: ~1 per 100 B, they do not bind (docs/validation.md) */
    uint64_t port_cycles = lsdp_ceil_div(kv_bytes, (uint64_t)hw->memory.buffer_bytes_per_cycle);
    lsdp_unit_serve(port, &tt, port_cycles, (uint64_t)hw->memory.buffer_latency, kv_bytes);
    m->buf_bytes += kv_bytes;
    uint64_t start = t->end > *producer ? t->end : *producer;
    t->v_ready = start + port_cycles + (uint64_t)hw->memory.buffer_latency + (uint64_t)hw->memory.v_transpose_cycles;
    *producer = t->v_ready;
}

void lsmem_exec(lsdp_unit *u, lsdp_txn *t)
{
    lsmem_state *m = u->impl;
    const lsdp_hw *hw = u->hw;
    lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    if (lsdp_operand_read(t->op)) {
        /* operand reads of a matrix instruction: the core's buffer port, shared with the fills */
        uint64_t ob = operand_bytes(hw, t);
        lsdp_unit_serve(&u->core[t->core], t, lsdp_ceil_div(ob, (uint64_t)hw->memory.buffer_bytes_per_cycle), (uint64_t)hw->memory.buffer_latency, ob);
        m->operand_bytes += ob;
        return;
    }
    lsmem_region r = t->op == LSUCODE_OP_LDQ ? LSMEM_Q : t->op == LSUCODE_OP_LDKV ? LSMEM_KV : LSMEM_O;
    lsmem_access a = access_of(&m->map, x, r, t->arg, t->req);
    /* the off-chip side first: through a port the data arrives with it */
    uint64_t end = m->port ? m->port(m->port_user, &a) : lsmem_model_access(&m->model, &a);
    if (r == LSMEM_Q && !x->combine && !lsdp_no_data(sh)) lslamp_prepare_qt(sh->cfg, x->Q, sh->dim, x->nqv, sh->br, x->Qt, sh->br);
    if (r == LSMEM_O) m->store_bytes += a.bytes;
    /* the core's buffer fill port (stores drain through it too) */
    lsdp_unit_state *port = &u->core[t->core];
    lsdp_txn bt;
    memset(&bt, 0, sizeof bt);
    bt.req = t->req;
    bt.no_issue = true;   /* a DMA fill: no warp instruction */
    if (a.bytes) {
        /* the epilogue writes O into the buffer at its own width (FA3 FP8: 16-bit stores) before the store */
        uint64_t bpc = (uint64_t)(r == LSMEM_O && hw->o_write_bpc > 0 ? hw->o_write_bpc : hw->memory.buffer_bytes_per_cycle);
        lsdp_unit_serve(port, &bt, lsdp_ceil_div(a.bytes, bpc), (uint64_t)hw->memory.buffer_latency, a.bytes);
        m->buf_bytes += a.bytes;
    }
    t->fill_start = bt.start;
    t->start = t->req;
    t->end = bt.end > end ? bt.end : end;
    t->busy = bt.busy;
    t->work = a.bytes;
    t->work_hp = a.dram_bytes;
    t->v_ready = t->end;
    if (r == LSMEM_KV && hw->memory.v_transpose) transpose_v(m, hw, port, t, a.bytes);
}

/* fp32 elements are the float's own bits; narrower ones go through the format's codes */
static uint32_t code_of(const lsfp_format *f, float x)
{
    uint32_t c;
    if (f->nbits < 32) return lsfp_encode(f, x);
    memcpy(&c, &x, sizeof c);
    return c;
}

static float value_of(const lsfp_format *f, uint32_t c)
{
    float x;
    if (f->nbits < 32) return lsfp_decode(f, c);
    memcpy(&x, &c, sizeof x);
    return x;
}

static void decode_n(const lsfp_format *f, const unsigned char *b, float *out, size_t n)
{
    int eb = f->nbits / 8;
    for (size_t i = 0; i < n; i++, b += eb) {
        uint32_t code = 0;
        for (int k = eb - 1; k >= 0; k--) code = code << 8 | b[k];
        out[i] = value_of(f, code);
    }
}

void lsmem_load_data(const lsmem_access *a, const lsfp_format *fmt, const unsigned char *bytes, float *q, float *k, float *v)
{
    if (a->region == LSMEM_Q) decode_n(fmt, bytes, q + a->elem, a->count);
    if (a->region != LSMEM_KV) return;
    decode_n(fmt, bytes, k + a->elem, a->count);
    decode_n(fmt, bytes + a->count * (size_t)(fmt->nbits / 8), v + a->elem, a->count);
}

void lsmem_store_data(const lsmem_access *a, const lsfp_format *fmt, const float *o, unsigned char *bytes)
{
    int eb = fmt->nbits / 8;
    for (size_t i = 0; i < a->count; i++, bytes += eb) {
        uint32_t code = code_of(fmt, o[a->elem + i]);
        for (int k = 0; k < eb; k++) bytes[k] = (unsigned char)(code >> 8 * k);
    }
}
