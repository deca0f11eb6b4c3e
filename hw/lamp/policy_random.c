/* hw/lamp/policy_random.c — the LAMP paper's control: every active sub-block goes to high
 * precision with probability random_rate, drawn from the per-tile generator (one draw per
 * sub-block, in theta order, active or not). mu_hat from the resulting HP/LP maxima. */
#include "lslamp.h"

static uint32_t random_pre(const lslamp_policy_ctx *x)
{
    const lslamp_cfg *c = x->c;
    uint32_t mask = 0;
    for (int th = 0; th < c->n_k; th++) {
        double u = (double)(lsfp_rng_next(x->rng) >> 11) * 0x1p-53;
        if (u < c->random_rate && (x->active >> th & 1u)) {
            lslamp_logits(c, true, x->io, th * c->b_k, c->b_k, x->rng, x->ev);
            mask |= 1u << th;
        }
    }
    lslamp_mu_from_max(c, x->io, x->mu, x->ws->mu_hat);
    return mask;
}

const lslamp_policy lslamp_policy_random = { "random", random_pre, NULL };
