/* hw/lut/lut.c — LP exponentials through lslamp_exps (LUT path) and the LUT's timing. */
#include "lslut.h"

void lslut_exec(lsdp_unit *u, lsdp_txn *t)
{
    lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    uint64_t lookups = 0, sub = (uint64_t)sh->b_k * sh->b_q;
    if (t->op == LSUCODE_OP_EXP) {
        for (int wi = 0; wi < sh->n_q; wi++) {
            if (!(x->run >> wi & 1)) continue;
            lsdp_warp *w = &x->w[wi];
            if (!lsdp_no_data(sh)) lsdp_exps(c, w, false, w->pre, &x->stats->ev, &w->above);
            lookups += (uint64_t)lsdp_popc(w->active & ~w->pre) * sub;
        }
    }
    if (t->op == LSUCODE_OP_EXP && x->wlo >= 0 && !lsdp_tile_hp(x) && u->hw->lut.lanes > 0)
        lookups += lsdp_masked_padding(u->hw, x).subblocks * sub;   /* whole tiles: the masked logits too */
    uint64_t busy = lsdp_ceil_div(lookups, (uint64_t)(u->hw->lut.lanes > 0 ? u->hw->lut.lanes : 1));
    lsdp_unit_serve(&u->core[t->core], t, busy, (uint64_t)u->hw->lut.latency, lookups);
}
