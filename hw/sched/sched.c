/* hw/sched/sched.c — behaviour (hw/lamp threats, sort, policy pre/post selection) and timing. */
#include "lssched.h"

void lssched_exec(lsdp_unit *u, lsdp_txn *t)
{
    lsdp_ctx *x = t->ctx;
    const lsdp_shape *sh = x->sh;
    const lslamp_cfg *c = sh->cfg;
    const lsdp_hw *hw = u->hw;
    int bq = sh->b_q, nk = sh->n_k;
    uint64_t busy = 0, work = 0, subset_tests = 0;
    uint64_t red = lsdp_ceil_div((uint64_t)sh->bc * bq, (uint64_t)hw->vector.lanes);   /* a tile-wide reduction */
    for (int wi = 0; wi < sh->n_q; wi++) {
        if (!(x->run >> wi & 1)) continue;
        lsdp_warp *w = &x->w[wi];
        lslamp_policy_ctx pc = { c, &w->io, &w->ws, w->st.mu, w->active, &w->rng, &x->stats->ev };
        switch (t->op) {
        case LSUCODE_OP_SORT:     /* steps 2-3 */
            if (!lsdp_no_data(sh)) {
                lslamp_threats(c, w->ws.m, w->st.mu, bq, w->ws.T);
                lslamp_sort_threats(nk, w->ws.T, w->ws.order);
            }
            busy += (uint64_t)hw->scheduler.sort_latency;
            work += (uint64_t)nk * bq;
            break;
        case LSUCODE_OP_SEL1:     /* step 4 (stage 1) or the policy's pre-selection */
            if (!lsdp_no_data(sh)) w->pre = c->policy->pre_select(&pc) & w->active;
            if (c->policy == &lslamp_policy_lamp && c->stage1) {
                busy += (uint64_t)lsdp_popc(w->active);   /* one margin test per sub-block, in sort order */
                work += (uint64_t)lsdp_popc(w->active) * bq;
            } else {
                busy += red;                               /* mu_hat from the tile maxima */
                work += (uint64_t)sh->bc * bq;
            }
            break;
        case LSUCODE_OP_SEL2: {   /* step 7 */
            uint32_t cand = w->active & ~w->pre;
            if (!lsdp_no_data(sh))
                w->post = c->policy->post_select ? c->policy->post_select(&pc, w->pre) & w->active & ~w->pre : 0;
            if (c->policy == &lslamp_policy_lamp && c->stage2 && cand) {
                /* the exhaustive walk visits every subset of the candidates, one per cycle once the
                 * pipelined adder chain is full (rtl/lamp_stage2.sv, docs/rtl.md) */
                busy += red + ((uint64_t)1 << lsdp_popc(cand)) + (uint64_t)hw->scheduler.subset_latency - 1;
                work += (uint64_t)lsdp_popc(cand) * c->b_k * bq;
                subset_tests += ((uint64_t)1 << lsdp_popc(cand)) * (uint64_t)bq;   /* one per subset and query lane */
            }
            break;
        }
        default:
            break;
        }
    }
    lsdp_unit_serve(&u->core[t->core], t, busy, 1, work);
    t->work_hp = subset_tests;
}
