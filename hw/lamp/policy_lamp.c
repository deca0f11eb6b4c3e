/* hw/lamp/policy_lamp.c — LampAttention's two-stage selection: stage 1 (safety margin delta,
 * G-19) before the exponentials, stage 2 (block-LAMP knapsack with threshold tau) after. With
 * stage 1 off, mu_hat comes from the LP maxima (G-23). */
#include "lslamp.h"

#include <string.h>

static uint32_t lamp_pre(const lslamp_policy_ctx *x)
{
    const lslamp_cfg *c = x->c;
    lslamp_ws *ws = x->ws;
    if (!c->stage1) {
        lslamp_mu_from_max(c, x->io, x->mu, ws->mu_hat);
        return 0;
    }
    memcpy(ws->mu_hat, x->mu, (size_t)c->b_q * sizeof(float));
    return lslamp_stage1(c, x->io, ws->order, ws->m, ws->mu_hat, x->rng, x->ev);
}

static uint32_t lamp_post(const lslamp_policy_ctx *x, uint32_t hp_mask)
{
    const lslamp_cfg *c = x->c;
    lslamp_ws *ws = x->ws;
    if (!c->stage2) return 0;
    uint32_t cand = x->active & ~hp_mask;
    if (!cand) return 0;
    lslamp_stage2_costs(c, ws->E, ws->omega_hat, c->b_q, ws->xi);
    uint32_t keep = lslamp_knapsack(c->n_k, cand, ws->xi, ws->omega_hat, c->b_q, c->tau, c->tiebreak);
    return cand & ~keep;
}

const lslamp_policy lslamp_policy_lamp = { "lamp", lamp_pre, lamp_post };
