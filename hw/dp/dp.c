/* hw/dp/dp.c — contexts of the timed model: buffers, work items and per-tile operands (hw/lamp's
 * lslamp_block, as the golden engine uses them) and the exponential pass helpers. */
#include "lsdp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int lsdp_ctx_init(lsdp_ctx *x, const lsdp_shape *sh)
{
    memset(x, 0, sizeof *x);
    x->sh = sh;
    x->split = -1;
    size_t br = (size_t)sh->br, bc = (size_t)sh->bc, nkt = (size_t)sh->nkt;
    lslamp_block *blk = &x->blk;
    *blk = (lslamp_block){ .seq_k = sh->seq_k, .dim = sh->dim, .b_q = sh->b_q, .br = sh->br, .bc = sh->bc,
                           .causal = sh->causal, .window = sh->causal ? sh->window : 0, .qpack = sh->qpack };
    int bad = lslamp_block_alloc(blk) != 0;
    /* the units address the block buffers through the context */
    x->Qt = blk->Qt; x->Y = blk->Y; x->mu = blk->mu; x->om32 = blk->om32; x->O32 = blk->O32;
    x->om64 = blk->om64; x->O64 = blk->O64;
    x->runmask = malloc(nkt * sizeof(uint64_t));
    x->w = calloc((size_t)sh->n_q, sizeof *x->w);
    bad |= !x->runmask || !x->w;
    if (sh->accuracy) {
        x->Ebuf = malloc(nkt * bc * br * sizeof(float));
        x->muh = malloc(nkt * br * sizeof(float));
        bad |= !x->Ebuf || !x->muh;
    }
    /* a replay or timing-only run does no arithmetic: the warps' workspaces are never touched */
    for (int wi = 0; wi < sh->n_q && !bad && !lsdp_no_data(sh); wi++)
        if (lslamp_ws_init(&x->w[wi].ws, sh->cfg) != 0) bad = 1;
    if (bad) { lsdp_ctx_free(x); return -1; }
    return 0;
}

void lsdp_ctx_free(lsdp_ctx *x)
{
    if (!x->sh) return;
    for (int wi = 0; wi < x->sh->n_q && x->w; wi++) lslamp_ws_free(&x->w[wi].ws);
    lslamp_block_free(&x->blk);
    free(x->runmask); free(x->Ebuf); free(x->muh); free(x->w);
    memset(x, 0, sizeof *x);
}

int lsdp_item_begin(lsdp_ctx *x, int item, lsdp_item_stats *st, uint64_t *hist, lslamp_tile_record *rec)
{
    const lsdp_shape *sh = x->sh;
    x->item = item;
    lslamp_block *blk = &x->blk;
    lslamp_block_locate(blk, item, sh->nqb, sh->heads_q, sh->heads_kv, sh->seq_q, sh->q, sh->k, sh->v, sh->o, sh->o_ref);
    x->qb = blk->qb; x->hq = blk->hq; x->b = blk->b; x->hkv = blk->hkv;
    x->q0 = blk->q0; x->nqv = blk->nqv;
    x->Q = blk->Q; x->K = blk->K; x->V = blk->V; x->O = blk->O; x->Oref = blk->Oref;
    x->shift = blk->shift;
    x->stats = st;
    x->hist = hist;
    x->rec = rec;
    memset(st, 0, sizeof *st);
    int ntiles = 0;
    for (int kt = 0; kt < sh->nkt; kt++) {
        uint64_t run = 0;
        x->runmask[kt] = 0;
        if (x->kt_hi > 0 && (kt < x->kt_lo || kt >= x->kt_hi)) continue;   /* another split's tiles */
        for (int wi = 0; wi < sh->n_q; wi++) {
            lslamp_tile_io io;
            int nqw = lslamp_warp_io(&x->blk, wi, kt, &io);
            if (nqw == 0) {
                if (rec) rec[(size_t)wi * sh->nkt + kt].flags = LSLAMP_REC_ABSENT;
                continue;
            }
            if (lslamp_tile_fully_masked(sh->cfg, &io)) {
                st->masked++;
                if (rec) rec[(size_t)wi * sh->nkt + kt].flags = LSLAMP_REC_MASKED;
                continue;
            }
            run |= 1ull << wi;
        }
        x->runmask[kt] = run;
        ntiles += run != 0;
    }
    x->kt = -1;
    x->run = x->slow = 0;
    return ntiles;
}

void lsdp_tile_begin(lsdp_ctx *x, int kt)
{
    const lsdp_shape *sh = x->sh;
    x->kt = kt;
    x->run = x->runmask[kt];
    x->slow = 0;
    x->wlo = -1;
    x->whi = -1;
    for (int wi = 0; wi < sh->n_q; wi++) {
        if (!(x->run >> wi & 1)) continue;
        lsdp_warp *w = &x->w[wi];
        lslamp_warp_io(&x->blk, wi, kt, &w->io);
        lslamp_warp_state(&x->blk, wi, &w->st);
        memset(&w->cnt, 0, sizeof w->cnt);
        w->active = w->pre = w->post = w->hp = w->rest = 0;
        w->flags = 0;
        w->above = false;
        if (x->wlo < 0) x->wlo = wi;
        x->whi = wi + 1;
        if (sh->replay) {
            const lslamp_tile_record *r = &sh->replay[((size_t)x->item * sh->n_q + wi) * sh->nkt + kt];
            w->active = lsdp_active_geometry(x, wi);
            w->pre = r->stage1_mask;
            w->post = r->stage2_mask;
            w->flags = r->flags;
            w->above = (r->flags & LSLAMP_REC_ABOVE_ONE) != 0;
        } else if (sh->synth != LSDP_SYNTH_OFF) {
            /* what SMAX and SEL1 compute for the fixed policies: all_pre returns the active mask,
             * none_pre 0; neither has a stage 2 (post 0); flags and above-one stay clear (they
             * only feed records, events and the RAISE option, refused with timing_only) */
            w->active = lsdp_active_geometry(x, wi);
            w->pre = sh->synth == LSDP_SYNTH_ALL ? w->active : 0;
        }
    }
}

uint32_t lsdp_active_geometry(const lsdp_ctx *x, int wi)
{
    const lsdp_shape *sh = x->sh;
    const lslamp_tile_io *io = &x->w[wi].io;
    int nqw = io->nq < io->ncols ? io->nq : io->ncols;
    uint32_t a = 0;
    if (nqw <= 0) return 0;
    int64_t qmax = lslamp_row_query(io->query0 + nqw - 1, io->qpack), qmin = lslamp_row_query(io->query0, io->qpack);
    for (int th = 0; th < sh->n_k; th++) {
        int k0 = th * sh->b_k;
        if (k0 >= io->nkeys) break;
        if (sh->causal && io->key0 + k0 > qmax + io->causal_shift) break;
        /* a window: the sub-block's last key must be inside the first query's window */
        int klast = (k0 + sh->b_k < io->nkeys ? k0 + sh->b_k : io->nkeys) - 1;
        if (io->window > 0 && io->key0 + klast <= qmin + io->causal_shift - io->window) continue;
        a |= 1u << th;
    }
    return a;
}

int lsdp_unmasked_geometry(const lsdp_ctx *x, int wi, uint32_t mask)
{
    const lsdp_shape *sh = x->sh;
    const lslamp_tile_io *io = &x->w[wi].io;
    int ncols = io->ncols, nq = io->nq < ncols ? io->nq : ncols, n = 0;
    /* the complement of lslamp_apply_mask: key i < nkeys sees queries [jlo, nq) */
    for (int th = 0; th < sh->n_k; th++) {
        if (!(mask >> th & 1u)) continue;
        for (int i = th * sh->b_k; i < (th + 1) * sh->b_k && i < io->nkeys; i++) {
            int jlo, jhi;
            lslamp_key_queries_packed(io->causal, io->causal_shift, io->window, io->qpack, io->key0 + i, io->query0, nq,
                                      &jlo, &jhi);
            if (jhi > jlo) n += jhi - jlo;
        }
    }
    return n;
}

uint64_t lsdp_slow_mask(lsdp_ctx *x)
{
    uint64_t m = 0;
    const lsdp_layout_rule *r = &x->sh->layout;
    if (r->slow_path)
        for (int wi = 0; wi < x->sh->n_q; wi++)
            if ((x->run >> wi & 1) && lsdp_popc(x->w[wi].pre | x->w[wi].post) > r->hp_slots) m |= 1ull << wi;
    x->slow = m;
    return m;
}

void lsdp_exps(const lslamp_cfg *c, lsdp_warp *w, bool hp_pass, uint32_t hp, lslamp_events *ev, bool *above)
{
    *above |= lslamp_tile_exps(c, &w->io, &w->ws, w->active, hp, hp_pass ? LSLAMP_PASS_HP : LSLAMP_PASS_LP, ev);
}

/* Step 9 and the bookkeeping lslamp_warp_tile does after the selection, for one warp. */
void lsdp_commit_warp(lsdp_ctx *x, int wi)
{
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    lsdp_warp *w = &x->w[wi];
    lslamp_ws *ws = &w->ws;
    lsdp_item_stats *st = x->stats;
    int bq = c->b_q;
    uint32_t hpsel = w->pre | w->post;
    uint8_t n_hp = (uint8_t)lsdp_popc(hpsel);
    w->cnt.logits_hp_stage1 = lsdp_count_rows(c, &w->io, w->pre);
    w->cnt.logits_hp_stage2 = lsdp_count_rows(c, &w->io, w->post);
    if (w->above) w->flags |= LSLAMP_REC_ABOVE_ONE;
    uint64_t uf = 0;
    for (int i = 0; i < c->bc; i++) {
        const float *y = w->io.Y + (long)i * w->io.ldy;
        const double *e = ws->E + (long)i * bq;
        for (int j = 0; j < bq; j++) uf += (y[j] != -INFINITY) & (e[j] == 0.0);
    }
    st->ev.exp_underflows += uf;
    if (sh->accuracy) {
        float *Eout = x->Ebuf + (size_t)x->kt * sh->bc * sh->br + wi * bq;
        for (int i = 0; i < c->bc; i++)
            for (int j = 0; j < bq; j++) Eout[(long)i * sh->br + j] = (float)ws->E[(long)i * bq + j];
        memcpy(x->muh + (size_t)x->kt * sh->br + wi * bq, ws->mu_hat, (size_t)bq * sizeof(float));
    }
    lslamp_update(c, &w->io, &w->st, ws->mu_hat, ws->E, ws->lambda, ws->alpha);
    st->executed++;
    x->hist[n_hp]++;
    st->stage1 += (uint64_t)lsdp_popc(w->pre);
    st->stage2 += (uint64_t)lsdp_popc(w->post);
    st->sub_active += (uint64_t)w->cnt.subblocks_active;
    st->logits_unmasked += (uint64_t)w->cnt.logits_unmasked;
    st->logits_hp1 += (uint64_t)w->cnt.logits_hp_stage1;
    st->logits_hp2 += (uint64_t)w->cnt.logits_hp_stage2;
    if (x->rec) {
        lslamp_tile_record *r = &x->rec[(size_t)wi * sh->nkt + x->kt];
        r->stage1_mask = (uint16_t)w->pre;
        r->stage2_mask = (uint16_t)w->post;
        r->n_hp = n_hp;
        r->flags = w->flags;
    }
}

/* Timing only: the statistics commit_warp keeps, from the geometry (the synthesised selection
 * has pre = active or 0 and no stage 2), so tiles.* and recompute.* equal a full run's. Events
 * and records need the data and are not kept. */
void lsdp_commit_geometry(lsdp_ctx *x, int wi)
{
    lsdp_warp *w = &x->w[wi];
    lsdp_item_stats *st = x->stats;
    uint32_t all = x->sh->n_k >= 32 ? 0xFFFFFFFFu : ((1u << x->sh->n_k) - 1u);
    st->executed++;
    x->hist[lsdp_popc(w->pre | w->post)]++;
    st->stage1 += (uint64_t)lsdp_popc(w->pre);
    st->stage2 += (uint64_t)lsdp_popc(w->post);
    st->sub_active += (uint64_t)lsdp_popc(w->active);
    st->logits_unmasked += (uint64_t)lsdp_unmasked_geometry(x, wi, all);
    st->logits_hp1 += (uint64_t)lsdp_unmasked_geometry(x, wi, w->pre);
    st->logits_hp2 += (uint64_t)lsdp_unmasked_geometry(x, wi, w->post);
}
