/* hw/seq/dp.c — contexts of the timed model: buffers, work-item geometry (as the golden engine
 * lays it out), per-tile operands and the exponential pass helpers. */
#include "lsdp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline int imin(int a, int b) { return a < b ? a : b; }

int lsdp_ctx_init(lsdp_ctx *x, const lsdp_shape *sh)
{
    memset(x, 0, sizeof *x);
    x->sh = sh;
    size_t br = (size_t)sh->br, bc = (size_t)sh->bc, d = (size_t)sh->dim, nkt = (size_t)sh->nkt;
    x->Qt = malloc(d * br * sizeof(float));
    x->Y = malloc(bc * br * sizeof(float));
    x->mu = malloc(br * sizeof(float));
    x->om32 = malloc(br * sizeof(float));
    x->O32 = malloc(br * d * sizeof(float));
    x->om64 = malloc(br * sizeof(double));
    x->O64 = malloc(br * d * sizeof(double));
    x->runmask = malloc(nkt * sizeof(uint64_t));
    int bad = !x->Qt || !x->Y || !x->mu || !x->om32 || !x->O32 || !x->om64 || !x->O64 || !x->runmask;
    if (sh->accuracy) {
        x->Ebuf = malloc(nkt * bc * br * sizeof(float));
        x->muh = malloc(nkt * br * sizeof(float));
        bad |= !x->Ebuf || !x->muh;
    }
    for (int wi = 0; wi < sh->n_q && !bad; wi++)
        if (lslamp_ws_init(&x->w[wi].ws, sh->cfg) != 0) bad = 1;
    if (bad) { lsdp_ctx_free(x); return -1; }
    return 0;
}

void lsdp_ctx_free(lsdp_ctx *x)
{
    if (!x->sh) return;
    for (int wi = 0; wi < x->sh->n_q; wi++) lslamp_ws_free(&x->w[wi].ws);
    free(x->Qt); free(x->Y); free(x->mu); free(x->om32); free(x->O32); free(x->om64); free(x->O64);
    free(x->runmask); free(x->Ebuf); free(x->muh);
    memset(x, 0, sizeof *x);
}

/* Warp wi's operands for tile kt (the engine's warp_io); returns the warp's valid queries. */
static int warp_io(lsdp_ctx *x, int wi, int kt, lslamp_tile_io *io)
{
    const lsdp_shape *sh = x->sh;
    int d = sh->dim, key0 = kt * sh->bc;
    int nqw = x->nqv - wi * sh->b_q;
    nqw = nqw < 0 ? 0 : imin(nqw, sh->b_q);
    memset(io, 0, sizeof *io);
    io->K = x->K + (size_t)key0 * d; io->ldk = d;
    io->V = x->V + (size_t)key0 * d; io->ldv = d;
    io->Qt = x->Qt + wi * sh->b_q; io->ldq = sh->br;
    io->nkeys = imin(sh->bc, sh->seq_k - key0);
    io->nq = nqw;
    io->ncols = sh->b_q;
    io->key0 = key0;
    io->query0 = x->q0 + wi * sh->b_q;
    io->causal_shift = x->shift;
    io->causal = sh->causal;
    io->Y = x->Y + wi * sh->b_q; io->ldy = sh->br;
    return nqw;
}

int lsdp_item_begin(lsdp_ctx *x, int item, lsdp_item_stats *st, uint64_t *hist, lslamp_tile_record *rec)
{
    const lsdp_shape *sh = x->sh;
    int d = sh->dim;
    x->item = item;
    x->qb = item % sh->nqb;
    int bh = item / sh->nqb;
    x->hq = bh % sh->heads_q;
    x->b = bh / sh->heads_q;
    x->hkv = x->hq / sh->group;
    x->q0 = x->qb * sh->br;
    x->nqv = imin(sh->br, sh->seq_q - x->q0);
    size_t qoff = (((size_t)x->b * sh->heads_q + x->hq) * sh->seq_q + x->q0) * d;
    size_t koff = ((size_t)x->b * sh->heads_kv + x->hkv) * sh->seq_k * d;
    x->Q = sh->q + qoff;
    x->K = sh->k + koff;
    x->V = sh->v + koff;
    x->O = sh->o + qoff;
    x->Oref = sh->o_ref ? sh->o_ref + qoff : NULL;
    x->shift = (int64_t)sh->seq_k - sh->seq_q;
    x->stats = st;
    x->hist = hist;
    x->rec = rec;
    memset(st, 0, sizeof *st);
    int ntiles = 0;
    for (int kt = 0; kt < sh->nkt; kt++) {
        uint64_t run = 0;
        for (int wi = 0; wi < sh->n_q; wi++) {
            lslamp_tile_io io;
            int nqw = warp_io(x, wi, kt, &io);
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
    int d = sh->dim;
    for (int wi = 0; wi < sh->n_q; wi++) {
        if (!(x->run >> wi & 1)) continue;
        lsdp_warp *w = &x->w[wi];
        warp_io(x, wi, kt, &w->io);
        w->st.mu = x->mu + wi * sh->b_q;
        w->st.omega32 = x->om32 + wi * sh->b_q;
        w->st.O32 = x->O32 + (size_t)wi * sh->b_q * d;
        w->st.omega64 = x->om64 + wi * sh->b_q;
        w->st.O64 = x->O64 + (size_t)wi * sh->b_q * d;
        w->st.ldo = d;
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
    int64_t qmax = io->query0 + nqw - 1;
    for (int th = 0; th < sh->n_k; th++) {
        int k0 = th * sh->b_k;
        if (k0 >= io->nkeys) break;
        if (sh->causal && io->key0 + k0 > qmax + io->causal_shift) break;
        a |= 1u << th;
    }
    return a;
}

uint64_t lsdp_slow_mask(lsdp_ctx *x)
{
    uint64_t m = 0;
    if (x->sh->slow_enabled)
        for (int wi = 0; wi < x->sh->n_q; wi++)
            if ((x->run >> wi & 1) && lsdp_popc(x->w[wi].pre | x->w[wi].post) >= 2) m |= 1ull << wi;
    x->slow = m;
    return m;
}

void lsdp_exps(const lslamp_cfg *c, lsdp_warp *w, bool hp_pass, uint32_t hp, lslamp_events *ev, bool *above)
{
    int bq = c->b_q;
    lslamp_ws *ws = &w->ws;
    if (!hp_pass)
        for (int j = 0; j < bq; j++) ws->mu_lp[j] = lslamp_mu_lp(c, ws->mu_hat[j]);
    for (int th = 0; th < c->n_k; th++) {
        bool h = hp >> th & 1u;
        if (!(w->active >> th & 1u)) {
            if (!hp_pass) memset(ws->E + (long)th * c->b_k * bq, 0, (size_t)c->b_k * bq * sizeof(double));
            continue;
        }
        if (h != hp_pass) continue;
        *above |= lslamp_exps(c, h, w->io.Y, w->io.ldy, th, bq, ws->mu_hat, ws->mu_lp, ws->E, ws->s, ev);
    }
}

int lsdp_count_rows(const lslamp_cfg *c, const lslamp_tile_io *io, uint32_t mask)
{
    int n = 0, bq = c->b_q;
    for (int th = 0; th < c->n_k; th++) {
        if (!(mask >> th & 1u)) continue;
        for (int i = th * c->b_k; i < (th + 1) * c->b_k; i++) {
            const float *y = io->Y + (long)i * io->ldy;
            for (int j = 0; j < bq; j++) n += y[j] != -INFINITY;
        }
    }
    return n;
}
