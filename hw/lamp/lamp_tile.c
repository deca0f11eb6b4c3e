/* hw/lamp/lamp_tile.c — one (warp, key tile) of the block procedure, steps 2-9 of numerics.md D.2,
 * composed from the step functions with the configured selection policy. */
#include "lslamp.h"

#include <math.h>
#include <string.h>

static int popc(uint32_t x) { return __builtin_popcount(x); }

bool lslamp_tile_exps(const lslamp_cfg *c, const lslamp_tile_io *io, lslamp_ws *ws, uint32_t active, uint32_t hp,
                      int passes, lslamp_events *ev)
{
    int bq = c->b_q;
    bool lp = passes & LSLAMP_PASS_LP, hpp = passes & LSLAMP_PASS_HP, above = false;
    if (lp)
        for (int j = 0; j < bq; j++) ws->mu_lp[j] = lslamp_mu_lp(c, ws->mu_hat[j]);
    for (int th = 0; th < c->n_k; th++) {
        if (!(active >> th & 1u)) {
            if (lp) memset(ws->E + (long)th * c->b_k * bq, 0, (size_t)c->b_k * bq * sizeof(double));
            continue;
        }
        bool h = hp >> th & 1u;
        if (!(h ? hpp : lp)) continue;
        above |= lslamp_exps(c, h, io->Y, io->ldy, th, bq, ws->mu_hat, ws->mu_lp, ws->E, ws->s, ev);
    }
    return above;
}

int lslamp_count_rows(const lslamp_cfg *c, const lslamp_tile_io *io, uint32_t mask)
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

void lslamp_warp_tile(const lslamp_cfg *c, const lslamp_tile_io *io, lslamp_state *st, lslamp_ws *ws,
                      lslamp_tile_record *rec, lslamp_tile_counts *cnt, lslamp_events *ev,
                      float *Eout, int ldeout, float *mu_hat_out)
{
    int bq = c->b_q, nk = c->n_k;
    memset(rec, 0, sizeof *rec);
    memset(cnt, 0, sizeof *cnt);
    if (lslamp_tile_fully_masked(c, io)) {
        rec->flags = LSLAMP_REC_MASKED;
        return;
    }
    lsfp_rng rng;
    lsfp_rng_seed(&rng, io->tile_seed);

    /* Step 2-3: sub-block maxima, threats against the old mu, stable sort. */
    lslamp_subblock_max(c, io->Y, io->ldy, bq, ws->m);
    uint32_t active = 0;
    for (int th = 0; th < nk; th++)
        for (int j = 0; j < bq; j++)
            if (ws->m[(long)th * bq + j] > -INFINITY || isnan(ws->m[(long)th * bq + j])) { active |= 1u << th; break; }
    uint32_t all = nk >= 32 ? 0xFFFFFFFFu : ((1u << nk) - 1u);
    cnt->logits_unmasked = lslamp_count_rows(c, io, all);
    for (int th = 0; th < nk; th++) cnt->subblocks_active += (int)(active >> th & 1u);
    lslamp_threats(c, ws->m, st->mu, bq, ws->T);
    lslamp_sort_threats(nk, ws->T, ws->order);

    lslamp_policy_ctx ctx = { c, io, ws, st->mu, active, &rng, ev };
    /* Step 4: stage 1 (or the policy's pre-selection); leaves mu_hat. */
    uint32_t pre = c->policy->pre_select(&ctx) & active;
    /* Steps 5-6: exponentials and normaliser. */
    bool above = lslamp_tile_exps(c, io, ws, active, pre, LSLAMP_PASS_LP | LSLAMP_PASS_HP, ev);
    lslamp_normaliser(c, st, ws->mu_hat, ws->E, bq, ws->lambda, ws->alpha, ws->omega_hat);
    /* Step 7-8: stage 2 selection and recompute; mu_hat is not updated. */
    uint32_t post = c->policy->post_select ? c->policy->post_select(&ctx, pre) & active & ~pre : 0;
    for (int th = 0; th < nk; th++) {
        if (!(post >> th & 1u)) continue;
        lslamp_logits(c, true, io, th * c->b_k, c->b_k, &rng, ev);
        above |= lslamp_exps(c, true, io->Y, io->ldy, th, bq, ws->mu_hat, ws->mu_lp, ws->E, ws->s, ev);
    }
    uint32_t hp = pre | post;
    rec->stage1_mask = (uint16_t)pre;
    rec->stage2_mask = (uint16_t)post;
    rec->n_hp = (uint8_t)popc(hp);
    cnt->logits_hp_stage1 = lslamp_count_rows(c, io, pre);
    cnt->logits_hp_stage2 = lslamp_count_rows(c, io, post);
    /* G-16 option: a disruptive tile is recomputed entirely in 16-bit. */
    if (c->disruptive == LSLAMP_DISRUPT_FULL_TILE && popc(hp) >= 2) {
        uint32_t rest = active & ~hp;
        for (int th = 0; th < nk; th++) {
            if (!(rest >> th & 1u)) continue;
            lslamp_logits(c, true, io, th * c->b_k, c->b_k, &rng, ev);
            above |= lslamp_exps(c, true, io->Y, io->ldy, th, bq, ws->mu_hat, ws->mu_lp, ws->E, ws->s, ev);
        }
        hp |= rest;
        rec->flags |= LSLAMP_REC_FULL_TILE_HP;
    }
    if (above) {
        rec->flags |= LSLAMP_REC_ABOVE_ONE;
        if (c->above_one == LSLAMP_ABOVE_RAISE) {
            /* G-15 option: raise mu_hat to the HP maximum and redo the tile's exponentials. */
            bool changed = false;
            for (int th = 0; th < nk; th++) {
                if (!(hp >> th & 1u)) continue;
                for (int i = th * c->b_k; i < (th + 1) * c->b_k; i++) {
                    const float *y = io->Y + (long)i * io->ldy;
                    for (int j = 0; j < bq; j++)
                        if (y[j] > ws->mu_hat[j]) { ws->mu_hat[j] = y[j]; changed = true; }
                }
            }
            if (changed) {
                lslamp_tile_exps(c, io, ws, active, hp, LSLAMP_PASS_LP | LSLAMP_PASS_HP, NULL);
                lslamp_normaliser(c, st, ws->mu_hat, ws->E, bq, ws->lambda, ws->alpha, ws->omega_hat);
            }
        }
    }
    /* Underflow events: unmasked logits whose final exponential is zero. */
    if (ev) {
        uint64_t uf = 0;
        for (int i = 0; i < c->bc; i++) {
            const float *y = io->Y + (long)i * io->ldy;
            const double *e = ws->E + (long)i * bq;
            for (int j = 0; j < bq; j++) uf += (y[j] != -INFINITY) & (e[j] == 0.0);
        }
        ev->exp_underflows += uf;
    }
    if (Eout) {
        for (int i = 0; i < c->bc; i++)
            for (int j = 0; j < bq; j++) Eout[(long)i * ldeout + j] = (float)ws->E[(long)i * bq + j];
    }
    if (mu_hat_out) memcpy(mu_hat_out, ws->mu_hat, (size_t)bq * sizeof(float));
    /* Step 9: update mu, omega, O. */
    lslamp_update(c, io, st, ws->mu_hat, ws->E, ws->lambda, ws->alpha);
}
