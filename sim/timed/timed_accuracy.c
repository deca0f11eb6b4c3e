/* sim/timed/timed_accuracy.c — the accuracy pass of one finished work item (numerics.md E),
 * the same computation in the same order as the golden engine's (sim/engine/engine_item.c
 * rebuild_row / row_metrics, which are private to the engine), so the merged metrics are
 * bit-identical; tests/timed checks it. */
#include "timed_accuracy.h"

#include <math.h>

static void row_metrics(const lsdp_ctx *x, const lstimed_acc_ws *w, lsdp_item_stats *st, int j, const float *otest)
{
    const lsdp_shape *sh = x->sh;
    int d = sh->dim, sk = sh->seq_k;
    int64_t qi = x->q0 + j;
    int kmax = sk;
    if (sh->causal) {
        int64_t last = qi + x->shift;
        if (last < 0) return;
        if (last + 1 < kmax) kmax = (int)(last + 1);
    }
    const float *qr = x->Q + (size_t)j * d;
    double sc = 1.0 / sqrt((double)d), mx = -INFINITY;
    for (int k = 0; k < kmax; k++) {
        const float *kr = x->K + (size_t)k * d;
        double s = 0.0;
        for (int t = 0; t < d; t++) s += (double)qr[t] * (double)kr[t];
        w->dlog[k] = s * sc;
        if (w->dlog[k] > mx) mx = w->dlog[k];
    }
    double Z = 0.0;
    for (int k = 0; k < kmax; k++) { w->dref[k] = exp(w->dlog[k] - mx); Z += w->dref[k]; }
    for (int k = 0; k < kmax; k++) w->dref[k] /= Z;
    for (int k = kmax; k < sk; k++) w->dref[k] = 0.0;
    for (int t = 0; t < d; t++) w->oref[t] = 0.0;
    for (int k = 0; k < kmax; k++) {
        const float *vr = x->V + (size_t)k * d;
        double pk = w->dref[k];
        for (int t = 0; t < d; t++) w->oref[t] += pk * (double)vr[t];
    }
    if (x->Oref)
        for (int t = 0; t < d; t++) x->Oref[(size_t)j * d + t] = (float)w->oref[t];
    double l1 = 0.0, kl = 0.0;
    int inf = 0, am_ref = 0, am_test = 0;
    for (int k = 0; k < sk; k++) {
        double pr = w->dref[k], pt = w->dtest[k];
        l1 += fabs(pt - pr);
        if (pr > 0) {
            if (!(pt > 0)) inf = 1;
            double ptc = pt > 1e-45 ? pt : 1e-45;
            kl += pr * (log(pr) - log(ptc));
        }
        if (pr > w->dref[am_ref]) am_ref = k;
        if (pt > w->dtest[am_test]) am_test = k;
    }
    st->rows++;
    st->l1_sum += l1;
    if (l1 > st->l1_max) st->l1_max = l1;
    st->kl_sum += kl;
    if (kl > st->kl_max) st->kl_max = kl;
    st->kl_inf += (uint64_t)inf;
    st->flips += am_ref != am_test;
    double dn = 0.0, rn = 0.0;
    for (int t = 0; t < d; t++) {
        double e = (double)otest[t] - w->oref[t];
        double ae = fabs(e);
        st->abs_sum += ae;
        if (ae > st->abs_max || isnan(ae)) st->abs_max = isnan(ae) ? INFINITY : ae > st->abs_max ? ae : st->abs_max;
        dn += e * e;
        rn += w->oref[t] * w->oref[t];
    }
    st->elems += (uint64_t)d;
    st->diff2 += dn;
    st->ref2 += rn;
    double rr = rn > 0 ? sqrt(dn / rn) : sqrt(dn);
    st->rrl2_sum += rr;
    if (rr > st->rrl2_max) st->rrl2_max = rr;
}

static void rebuild_row(const lsdp_ctx *x, const lstimed_acc_ws *w, int j, double mu_final, double omega_final)
{
    const lsdp_shape *sh = x->sh;
    int sk = sh->seq_k, br = sh->br, bc = sh->bc;
    for (int k = 0; k < sk; k++) {
        float e = x->Ebuf[(size_t)k * br + j];
        if (e == 0.0f || !(omega_final > 0)) { w->dtest[k] = 0.0; continue; }
        double mt = x->muh[(size_t)(k / bc) * br + j];
        w->dtest[k] = (double)e * exp(mt - mu_final) / omega_final;
    }
}

void lstimed_item_accuracy(const lsdp_ctx *x, const lstimed_acc_ws *w)
{
    const lsdp_shape *sh = x->sh;
    if (!sh->accuracy) return;
    for (int j = 0; j < x->nqv; j++) {
        double om = sh->cfg->state_fp64 ? x->om64[j] : (double)x->om32[j];
        rebuild_row(x, w, j, (double)x->mu[j], om);
        row_metrics(x, w, x->stats, j, x->O + (size_t)j * sh->dim);
    }
}
