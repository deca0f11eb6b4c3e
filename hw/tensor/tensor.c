/* hw/tensor/tensor.c — behaviour (hw/lamp logit and update steps) and timing of the tensor unit. */
#include "lstensor.h"

#include <math.h>
#include <string.h>

uint64_t lstensor_cycles(const lsdp_hw *hw, uint64_t macs8, uint64_t macs16, int d)
{
    (void)d;
    /* Both modes share the array: 16-bit MACs take macs8/macs16 times the issue slots. */
    double c = (double)macs8 / (double)hw->tensor.macs_per_cycle_8bit + (double)macs16 / (double)hw->tensor_macs16;
    return (uint64_t)ceil(c - 1e-9);
}

void lstensor_exec(lsdp_unit *u, lsdp_txn *t)
{
    lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    const lsdp_hw *hw = u->hw;
    lsdp_unit_state *us = &u->core[t->core];
    uint64_t sub_macs = (uint64_t)sh->b_k * sh->b_q * sh->dim;
    uint64_t m8 = 0, m16 = 0, extra = 0, m8_slow = 0;   /* m8_slow: 8-bit MACs of slower-rate LP P.V, as 8-bit-rate time */
    lslamp_events *ev = &x->stats->ev;
    switch (t->op) {
    case LSUCODE_OP_QK_LP:
    case LSUCODE_OP_QK_HP: {
        if (x->wlo < 0) break;
        bool allhp = t->op == LSUCODE_OP_QK_HP;
        bool no_data = lsdp_no_data(sh);
        /* Step 1 for the running warps, whole block at once (as the engine). */
        lslamp_tile_io bio = x->w[x->wlo].io;
        bio.ncols = (x->whi - x->wlo) * sh->b_q;
        int nq = x->nqv - x->wlo * sh->b_q;
        bio.nq = nq < bio.ncols ? nq : bio.ncols;
        uint64_t nkt = (uint64_t)sh->nkt, kt = (uint64_t)x->kt, item = (uint64_t)x->item;
        uint64_t base = lslamp_mix64(sh->seed ^ lslamp_mix64((item * 64 + 63) * nkt + kt));
        lsfp_rng brng;
        lsfp_rng_seed(&brng, base);
        if (!no_data) lslamp_logits(c, allhp, &bio, 0, sh->bc, &brng, ev);
        for (int wi = x->wlo; wi < x->whi; wi++) {
            if (!(x->run >> wi & 1)) continue;
            lsdp_warp *w = &x->w[wi];
            w->io.y_is_hp = allhp;
            if (no_data) continue;
            w->io.tile_seed = lslamp_mix64(sh->seed ^ lslamp_mix64((item * 64 + (uint64_t)wi) * nkt + kt));
            lsfp_rng_seed(&w->rng, w->io.tile_seed);
        }
        /* whole tiles: every warp's rows of the block, running or not */
        uint64_t rows = hw->whole_tiles ? (uint64_t)sh->n_q * sh->b_q : (uint64_t)bio.ncols;
        uint64_t macs = rows * sh->bc * sh->dim;
        if (allhp) m16 = macs; else m8 = macs;
        /* promotion of the 8-bit partial sums every promote_interval products along d */
        if (!allhp) extra = (uint64_t)((sh->dim + hw->tensor.promote_interval - 1) / hw->tensor.promote_interval - 1);
        break;
    }
    case LSUCODE_OP_SEL1:   /* timing of the stage-1 HP recomputes (data: lslamp_stage1, scheduler) */
        for (int wi = 0; wi < sh->n_q; wi++)
            if ((x->run >> wi & 1) && !x->w[wi].io.y_is_hp && c->policy != &lslamp_policy_none)
                m16 += (uint64_t)lsdp_popc(x->w[wi].pre) * sub_macs;
        break;
    case LSUCODE_OP_RECOMP:   /* step 8: HP logits of the recompute set */
        for (int wi = 0; wi < sh->n_q; wi++) {
            if (!(x->run >> wi & 1)) continue;
            lsdp_warp *w = &x->w[wi];
            for (int th = 0; th < c->n_k && !lsdp_no_data(sh); th++)
                if (w->post >> th & 1u) lslamp_logits(c, true, &w->io, th * c->b_k, c->b_k, &w->rng, ev);
            w->hp = w->pre | w->post;
            m16 += (uint64_t)lsdp_popc(w->post) * sub_macs;
        }
        break;
    case LSUCODE_OP_FULLHP:   /* G-16 option: the rest of a disruptive tile in HP */
        for (int wi = 0; wi < sh->n_q; wi++) {
            if (!(x->run >> wi & 1)) continue;
            lsdp_warp *w = &x->w[wi];
            w->hp = w->pre | w->post;
            w->rest = 0;
            if (c->disruptive != LSLAMP_DISRUPT_FULL_TILE || lsdp_popc(w->hp) < 2) continue;
            w->rest = w->active & ~w->hp;
            for (int th = 0; th < c->n_k && !lsdp_no_data(sh); th++)
                if (w->rest >> th & 1u) lslamp_logits(c, true, &w->io, th * c->b_k, c->b_k, &w->rng, ev);
            w->flags |= LSLAMP_REC_FULL_TILE_HP;
            m16 += (uint64_t)lsdp_popc(w->rest) * sub_macs;
        }
        break;
    case LSUCODE_OP_PV:
    case LSUCODE_OP_SLOWPV: {
        bool slow = t->op == LSUCODE_OP_SLOWPV;
        uint64_t passes = 0, lp = 0;
        for (int wi = 0; wi < sh->n_q; wi++) {
            if (!(x->run >> wi & 1) || ((x->slow >> wi & 1) != slow)) continue;
            lsdp_warp *w = &x->w[wi];
            uint32_t hp = w->hp | w->pre | w->post | w->rest;
            int nact = lsdp_popc(w->active), nhp = lsdp_popc(w->active & hp);
            if (slow) {
                int pass = sh->layout.slow_pass > 0 ? sh->layout.slow_pass : 1;
                passes += (uint64_t)((nact + pass - 1) / pass);
                m16 += (uint64_t)nact * sub_macs;
            } else {
                m16 += (uint64_t)nhp * sub_macs;
                lp += (uint64_t)(nact - nhp) * sub_macs;
            }
            if (!lsdp_no_data(sh)) lsdp_commit_warp(x, wi);
            else if (sh->synth != LSDP_SYNTH_OFF) lsdp_commit_geometry(x, wi);
        }
        if (!slow) {   /* whole tiles: the masked sub-blocks in the tile's precision */
            uint64_t pad = lsdp_masked_padding(hw, x).subblocks * sub_macs;
            if (lsdp_tile_hp(x)) m16 += pad; else lp += pad;
        }
        /* LP P sub-blocks (ue5m3) against V at a fraction of the 8-bit rate (accelerator.tensor.
         * pv_lp_rate: 1 with an 8 x 16-bit product, 0.5 on the preset at the 16-bit rate): as the
         * 8-bit MACs that take the same time */
        m8 += lp;
        if (hw->tensor.pv_lp_rate > 0 && hw->tensor.pv_lp_rate < 1) m8_slow = (uint64_t)ceil((double)lp / hw->tensor.pv_lp_rate) - lp;
        /* each sequential pass drains the pipeline before the next reuses the HP space */
        if (slow && passes) extra = passes * (uint64_t)hw->tensor.latency;
        t->slow = slow;
        break;
    }
    default:
        break;
    }
    uint64_t busy = (m8 || m16) ? lstensor_cycles(hw, m8 + m8_slow, m16, sh->dim) + extra : 0;
    lsdp_unit_serve(us, t, busy, (uint64_t)hw->tensor.latency, m8 + m16);
    t->work_hp = m16;
}
