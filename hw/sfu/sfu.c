/* hw/sfu/sfu.c — HP exponentials through lslamp_exps (16-bit path) and the SFU's timing. */
#include "lssfu.h"

void lssfu_exec(lsdp_unit *u, lsdp_txn *t)
{
    lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    uint64_t exps = 0, sub = (uint64_t)sh->b_k * sh->b_q;
    if (x->combine) {   /* split-KV combine: exp(lse_s - max) per row and split (no item stats: x->stats is NULL) */
        exps = (uint64_t)x->combine * (uint64_t)x->nqv;
        uint64_t per = u->hw->sfu.cycles_per_exp > 1 ? (uint64_t)u->hw->sfu.cycles_per_exp : 1;
        lsdp_unit_serve(&u->core[t->core], t, lsdp_ceil_div(exps * per, (uint64_t)u->hw->sfu.lanes), (uint64_t)u->hw->sfu.latency,
                        exps);
        return;
    }
    lslamp_events *ev = &x->stats->ev;
    for (int wi = 0; wi < sh->n_q; wi++) {
        if (!(x->run >> wi & 1)) continue;
        lsdp_warp *w = &x->w[wi];
        switch (t->op) {
        case LSUCODE_OP_EXP:      /* step 5, HP sub-blocks (stage 1 / policy) */
            if (!lsdp_no_data(sh)) lsdp_exps(c, w, true, w->pre, ev, &w->above);
            exps += (uint64_t)lsdp_popc(w->active & w->pre) * sub;
            break;
        case LSUCODE_OP_NORM:     /* step 6: lambda = exp(mu - mu_hat), one per query (data: vector) */
            exps += (uint64_t)sh->b_q;
            break;
        case LSUCODE_OP_RECOMP:   /* step 8: exponentials of the recompute set */
            for (int th = 0; th < c->n_k && !lsdp_no_data(sh); th++)
                if (w->post >> th & 1u)
                    w->above |= lslamp_exps(c, true, w->io.Y, w->io.ldy, th, c->b_q, w->ws.mu_hat, w->ws.mu_lp,
                                            w->ws.E, w->ws.s, ev);
            exps += (uint64_t)lsdp_popc(w->post) * sub;
            break;
        case LSUCODE_OP_FULLHP:
            for (int th = 0; th < c->n_k && !lsdp_no_data(sh); th++)
                if (w->rest >> th & 1u)
                    w->above |= lslamp_exps(c, true, w->io.Y, w->io.ldy, th, c->b_q, w->ws.mu_hat, w->ws.mu_lp,
                                            w->ws.E, w->ws.s, ev);
            exps += (uint64_t)lsdp_popc(w->rest) * sub;
            break;
        default:
            break;
        }
    }
    if (t->op == LSUCODE_OP_EXP && lsdp_tile_hp(x))   /* whole tiles: exp of the masked logits too */
        exps += lsdp_masked_padding(u->hw, x).subblocks * sub;
    if (t->op == LSUCODE_OP_NORM) exps += lsdp_masked_padding(u->hw, x).warps * (uint64_t)sh->b_q;
    /* each exponential holds its lane cycles_per_exp cycles (a multi-pass or reduced-rate exp) */
    uint64_t per = u->hw->sfu.cycles_per_exp > 1 ? (uint64_t)u->hw->sfu.cycles_per_exp : 1;
    uint64_t busy = lsdp_ceil_div(exps * per, (uint64_t)u->hw->sfu.lanes);
    lsdp_unit_serve(&u->core[t->core], t, busy, (uint64_t)u->hw->sfu.latency, exps);
}
