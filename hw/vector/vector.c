/* hw/vector/vector.c — behaviour (hw/lamp maxima, normaliser, finalize) and timing of the vector unit. */
#include "lsvector.h"

#include <math.h>
#include <string.h>

void lsvector_exec(lsdp_unit *u, lsdp_txn *t)
{
    lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    int bq = sh->b_q, nk = sh->n_k, d = sh->dim, br = sh->br;
    uint64_t ops = 0;
    bool no_data = lsdp_no_data(sh);
    if (x->combine) {   /* split-KV combine: per row and split a scaled add of O (d) and of omega, then O / omega */
        ops = (uint64_t)x->combine * (uint64_t)x->nqv * (2u * (uint64_t)d + 2u) + (uint64_t)x->nqv * (uint64_t)d;
        lsdp_unit_serve(&u->core[t->core], t, lsdp_ceil_div(ops, (uint64_t)u->hw->vector.lanes), (uint64_t)u->hw->vector.latency, ops);
        return;
    }
    switch (t->op) {
    case LSUCODE_OP_INIT:
        ops = (uint64_t)br * d + 2u * br;
        if (no_data) break;
        for (int j = 0; j < br; j++) { x->mu[j] = -INFINITY; x->om32[j] = 0.0f; x->om64[j] = 0.0; }
        memset(x->O32, 0, (size_t)br * d * sizeof(float));
        memset(x->O64, 0, (size_t)br * d * sizeof(double));
        if (sh->accuracy) memset(x->Ebuf, 0, (size_t)sh->nkt * sh->bc * br * sizeof(float));
        break;
    case LSUCODE_OP_SMAX:     /* step 2: maxima, active sub-blocks, unmasked logits */
        for (int wi = 0; wi < sh->n_q; wi++) {
            if (!(x->run >> wi & 1)) continue;
            lsdp_warp *w = &x->w[wi];
            ops += (uint64_t)sh->bc * bq;
            if (no_data) continue;
            lslamp_subblock_max(c, w->io.Y, w->io.ldy, bq, w->ws.m);
            uint32_t active = 0;
            for (int th = 0; th < nk; th++)
                for (int j = 0; j < bq; j++) {
                    float m = w->ws.m[(long)th * bq + j];
                    if (m > -INFINITY || isnan(m)) { active |= 1u << th; break; }
                }
            w->active = active;
            uint32_t all = nk >= 32 ? 0xFFFFFFFFu : ((1u << nk) - 1u);
            w->cnt.logits_unmasked = lsdp_count_rows(c, &w->io, all);
            for (int th = 0; th < nk; th++) w->cnt.subblocks_active += (int)(active >> th & 1u);
        }
        break;
    case LSUCODE_OP_NORM:     /* step 6 */
        for (int wi = 0; wi < sh->n_q; wi++) {
            if (!(x->run >> wi & 1)) continue;
            lsdp_warp *w = &x->w[wi];
            ops += (uint64_t)(sh->bc + 3) * bq;
            if (no_data) continue;
            lslamp_normaliser(c, &w->st, w->ws.mu_hat, w->ws.E, bq, w->ws.lambda, w->ws.alpha, w->ws.omega_hat);
        }
        break;
    case LSUCODE_OP_RAISE:    /* G-15 option: raise mu_hat to the HP maximum, redo the exponentials */
        for (int wi = 0; wi < sh->n_q; wi++) {
            if (!(x->run >> wi & 1)) continue;
            lsdp_warp *w = &x->w[wi];
            if (no_data || !w->above || c->above_one != LSLAMP_ABOVE_RAISE) continue;
            uint32_t hp = w->pre | w->post | w->rest;
            bool changed = false;
            for (int th = 0; th < nk; th++) {
                if (!(hp >> th & 1u)) continue;
                for (int i = th * c->b_k; i < (th + 1) * c->b_k; i++) {
                    const float *y = w->io.Y + (long)i * w->io.ldy;
                    for (int j = 0; j < bq; j++)
                        if (y[j] > w->ws.mu_hat[j]) { w->ws.mu_hat[j] = y[j]; changed = true; }
                }
            }
            ops += (uint64_t)lsdp_popc(hp) * c->b_k * bq;
            if (changed) {
                bool dummy = false;
                lsdp_exps(c, w, false, hp, NULL, &dummy);
                lsdp_exps(c, w, true, hp, NULL, &dummy);
                lslamp_normaliser(c, &w->st, w->ws.mu_hat, w->ws.E, bq, w->ws.lambda, w->ws.alpha, w->ws.omega_hat);
                ops += (uint64_t)(2 * sh->bc + 3) * bq;
            }
        }
        break;
    case LSUCODE_OP_FIN:
        for (int wi = 0; wi < sh->n_q; wi++) {
            int nqw = x->nqv - wi * bq;
            if (nqw > bq) nqw = bq;
            if (nqw <= 0) break;
            ops += (uint64_t)nqw * d;
            if (no_data) continue;
            lslamp_state sv = { x->mu + wi * bq, x->om32 + wi * bq, x->O32 + (size_t)wi * bq * d,
                                x->om64 + wi * bq, x->O64 + (size_t)wi * bq * d, d };
            lslamp_finalize(c, &sv, nqw, x->O + (size_t)wi * bq * d, d);
        }
        break;
    default:
        break;
    }
    if (t->op == LSUCODE_OP_SMAX || t->op == LSUCODE_OP_NORM)   /* whole tiles: the warps that do not run it too */
        ops += lsdp_masked_padding(u->hw, x).warps * (uint64_t)(sh->bc + (t->op == LSUCODE_OP_NORM ? 3 : 0)) * bq;
    uint64_t busy = lsdp_ceil_div(ops, (uint64_t)u->hw->vector.lanes);
    lsdp_unit_serve(&u->core[t->core], t, busy, (uint64_t)u->hw->vector.latency, ops);
}
