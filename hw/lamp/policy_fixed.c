/* hw/lamp/policy_fixed.c — the two fixed rules: none (pure 8-bit, mu_hat from the LP maxima,
 * G-23) and all (the 16-bit machine: every active sub-block accumulated and exponentiated in HP). */
#include "lslamp.h"

#include <math.h>

void lslamp_mu_from_max(const lslamp_cfg *c, const lslamp_tile_io *io, const float *mu, float *mu_hat)
{
    int bq = c->b_q;
    for (int j = 0; j < bq; j++) mu_hat[j] = mu[j];
    for (int i = 0; i < c->bc; i++) {
        const float *y = io->Y + (long)i * io->ldy;
        for (int j = 0; j < bq; j++) mu_hat[j] = y[j] > mu_hat[j] ? y[j] : mu_hat[j];
    }
}

static uint32_t none_pre(const lslamp_policy_ctx *x)
{
    lslamp_mu_from_max(x->c, x->io, x->mu, x->ws->mu_hat);
    return 0;
}

static uint32_t all_pre(const lslamp_policy_ctx *x)
{
    const lslamp_cfg *c = x->c;
    for (int th = 0; th < c->n_k && !x->io->y_is_hp; th++)
        if (x->active >> th & 1u) lslamp_logits(c, true, x->io, th * c->b_k, c->b_k, x->rng, x->ev);
    lslamp_mu_from_max(c, x->io, x->mu, x->ws->mu_hat);
    return x->active;
}

const lslamp_policy lslamp_policy_none = { "none", none_pre, NULL };
const lslamp_policy lslamp_policy_all = { "all", all_pre, NULL };
