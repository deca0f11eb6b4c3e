/* sim/engine/engine_item.c — one work item (batch, head, query block): the LampAttention /
 * baseline tile loop over key tiles and warps, the fp32 FA2 and LAMP-code paths, and the fp64
 * reference with the accuracy metrics of numerics.md E (exported through engine_parts.h). Work-item
 * geometry and warp operands are hw/lamp's (lslamp_block). */
#include "engine_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline int imin(int a, int b) { return a < b ? a : b; }

int eng_ws_init(eng_ws *w, const eng_ctx *x)
{
    memset(w, 0, sizeof *w);
    const ls_engine_params *p = x->p;
    const ls_attn_inputs *in = x->in;
    size_t br = (size_t)x->br, bc = (size_t)x->bc, nkt = (size_t)x->nkt, sk = (size_t)in->seq_k;
    bool code = p->mode == LS_ENGINE_MODE_LAMP_CODE;
    w->blk = (lslamp_block){ .seq_k = in->seq_k, .dim = in->dim, .b_q = p->b_q, .br = x->br, .bc = x->bc,
                             .causal = in->causal, .window = in->causal ? in->window : 0, .qpack = in->qpack };
    int bad = lslamp_block_alloc(&w->blk) != 0;
    w->nsplit = ls_engine_split_tiles(x->nkt, in->split_kv, &w->tps);
    if (w->nsplit > 1) {
        size_t n = (size_t)w->nsplit * br;
        w->pmu = malloc(n * sizeof(float));
        w->pom32 = malloc(n * sizeof(float));
        w->pom64 = malloc(n * sizeof(double));
        w->pO32 = malloc(n * (size_t)in->dim * sizeof(float));
        w->pO64 = malloc(n * (size_t)in->dim * sizeof(double));
        bad |= !w->pmu || !w->pom32 || !w->pom64 || !w->pO32 || !w->pO64;
    }
    if (lslamp_ws_init(&w->ws, x->cfg) != 0) bad = 1;
    if (x->accuracy) {
        w->Ebuf = malloc(nkt * bc * br * sizeof(float));
        w->muh = malloc(nkt * br * sizeof(float));
        bad |= !w->Ebuf || !w->muh || ls_engine_acc_ws_init(&w->acc, in->seq_k, in->dim) != 0;
    }
    if (code) {
        w->Yall = malloc(nkt * bc * br * sizeof(float));
        w->Yallhp = malloc(nkt * bc * br * sizeof(float));
        w->dz = malloc(sk * sizeof(double));
        if (!w->acc.dtest) w->acc.dtest = malloc(sk * sizeof(double));
        w->sel = malloc(sk);
        w->zi = malloc(sk * sizeof(lslamp_zi));
        w->tmask = malloc((size_t)p->n_q * nkt * sizeof(uint16_t));
        bad |= !w->Yall || !w->Yallhp || !w->dz || !w->acc.dtest || !w->sel || !w->zi || !w->tmask;
    }
    if (p->mode == LS_ENGINE_MODE_FA3_FP8) {
        w->kvq = malloc(2 * sk * (size_t)in->dim * sizeof(float));
        bad |= !w->kvq;
    }
    if (bad) { eng_ws_free(w); return -1; }
    return 0;
}

void eng_ws_free(eng_ws *w)
{
    lslamp_block_free(&w->blk);
    lslamp_ws_free(&w->ws);
    free(w->Ebuf); free(w->muh); free(w->Yall); free(w->Yallhp);
    free(w->dz);
    ls_engine_acc_ws_free(&w->acc);
    free(w->sel); free(w->zi); free(w->tmask); free(w->kvq);
    free(w->pmu); free(w->pom32); free(w->pom64); free(w->pO32); free(w->pO64);
    memset(w, 0, sizeof *w);
}

/* ---- fp64 reference and the metrics of one row ---- */
int ls_engine_acc_ws_init(ls_engine_acc_ws *w, int seq_k, int dim)
{
    size_t sk = (size_t)seq_k;
    w->dref = malloc(LS_ENGINE_ACC_ROWS * sk * sizeof(double));
    w->dtest = malloc(sk * sizeof(double));
    w->dlogt = malloc(sk * sizeof(double));
    w->dlog = malloc(LS_ENGINE_ACC_ROWS * sk * sizeof(double));
    w->oref = malloc(LS_ENGINE_ACC_ROWS * (size_t)dim * sizeof(double));
    if (w->dref && w->dtest && w->dlogt && w->dlog && w->oref) return 0;
    ls_engine_acc_ws_free(w);
    return -1;
}

void ls_engine_acc_ws_free(ls_engine_acc_ws *w)
{
    free(w->dref); free(w->dtest); free(w->dlogt); free(w->dlog); free(w->oref);
    memset(w, 0, sizeof *w);
}

/* Keys row j of the block sees (causal masking): [0, row_keys), 0 if none ... */
static int row_keys(const lslamp_block *g, int j)
{
    if (!g->causal) return g->seq_k;
    int64_t last = lslamp_row_query(g->q0 + j, g->qpack) + g->shift;
    if (last < 0) return 0;
    return last + 1 < g->seq_k ? (int)(last + 1) : g->seq_k;
}

/* ... from row_first (a sliding window: the keys before it are masked) */
static int row_first(const lslamp_block *g, int j)
{
    if (!g->causal || g->window <= 0) return 0;
    int64_t first = lslamp_row_query(g->q0 + j, g->qpack) + g->shift - g->window + 1;
    return first <= 0 ? 0 : first >= g->seq_k ? g->seq_k : (int)first;
}

/* The fp64 reference of row j from its float64 dot products q . k_i (dl, at least row_keys(j) of
 * them; scaled here, in place): p_ref into dref (seq_k), its max logit and log of the normaliser.
 * Returns the keys the row sees (0: not measured). */
typedef struct { int kmax; double mx, logz; } row_ref;

static row_ref row_reference(const lslamp_block *g, int j, double *dl, double *dref)
{
    row_ref r = { row_keys(g, j), -INFINITY, 0.0 };
    int k0 = row_first(g, j);
    if (r.kmax <= k0) { r.kmax = 0; return r; }
    double sc = 1.0 / sqrt((double)g->dim), Z = 0.0;
    for (int k = 0; k < r.kmax; k++) {
        dl[k] *= sc;
        if (k >= k0 && dl[k] > r.mx) r.mx = dl[k];
    }
    for (int k = 0; k < r.kmax; k++) dref[k] = dl[k] - r.mx;
    lsfp_exp_f64_array(dref, dref, r.kmax);
    for (int k = 0; k < k0; k++) dref[k] = 0.0;   /* before the window */
    for (int k = k0; k < r.kmax; k++) Z += dref[k];
    for (int k = k0; k < r.kmax; k++) dref[k] /= Z;
    for (int k = r.kmax; k < g->seq_k; k++) dref[k] = 0.0;
    r.logz = log(Z);
    return r;
}

/* The metrics of row j against its reference (row_reference: dl, dref; oref = p_ref . V) and the
 * test probabilities w->dtest, added to st; writes O_ref's row if the block keeps it. */
static void row_metrics_vs(const lslamp_block *g, const ls_engine_acc_ws *w, lslamp_item_stats *st, int j,
                           const float *otest, const double *dl, const double *dref, const double *oref, row_ref ref)
{
    int d = g->dim, sk = g->seq_k;
    double mx = ref.mx, logz = ref.logz;
    if (ref.kmax == 0) return;                       /* row sees no key: not measured */
    if (g->Oref)
        for (int t = 0; t < d; t++) g->Oref[(size_t)j * d + t] = (float)oref[t];
    /* probability metrics */
    double l1 = 0.0, kl = 0.0;
    int inf = 0, am_ref = 0, am_test = 0;
    double *logpt = w->dlogt;   /* log p_test of the keys p_ref reaches, clamped at 1e-45 */
    int pt_inf = 0;
    for (int k = 0; k < ref.kmax; k++) {
        logpt[k] = w->dtest[k] > 1e-45 ? w->dtest[k] : 1e-45;
        pt_inf |= isinf(logpt[k]);
    }
    lsfp_log_f64_array(logpt, logpt, ref.kmax);
    if (pt_inf)   /* outside the array log's domain */
        for (int k = 0; k < ref.kmax; k++) logpt[k] = isinf(w->dtest[k]) ? INFINITY : logpt[k];
    for (int k = 0; k < sk; k++) {
        double pr = dref[k], pt = w->dtest[k];
        l1 += fabs(pt - pr);
        if (pr > 0) {
            if (!(pt > 0)) inf = 1;
            kl += pr * ((dl[k] - mx - logz) - logpt[k]);   /* log pr without a log call */
        }
        if (pr > dref[am_ref]) am_ref = k;
        if (pt > w->dtest[am_test]) am_test = k;
    }
    st->rows++;
    st->l1_sum += l1;
    if (l1 > st->l1_max) st->l1_max = l1;
    st->kl_sum += kl;
    if (kl > st->kl_max) st->kl_max = kl;
    st->kl_inf += (uint64_t)inf;
    st->flips += am_ref != am_test;
    /* output metrics */
    double dn = 0.0, rn = 0.0;
    for (int t = 0; t < d; t++) {
        double e = (double)otest[t] - oref[t];
        double ae = fabs(e);
        st->abs_sum += ae;
        if (ae > st->abs_max || isnan(ae)) st->abs_max = isnan(ae) ? INFINITY : ae > st->abs_max ? ae : st->abs_max;
        dn += e * e;
        rn += oref[t] * oref[t];
    }
    st->elems += (uint64_t)d;
    st->diff2 += dn;
    st->ref2 += rn;
    double rr = rn > 0 ? sqrt(dn / rn) : sqrt(dn);
    st->rrl2_sum += rr;
    if (rr > st->rrl2_max) st->rrl2_max = rr;
}

void ls_engine_row_metrics(const lslamp_block *g, const ls_engine_acc_ws *w, lslamp_item_stats *st, int j,
                           const float *otest)
{
    int kmax = row_keys(g, j);
    if (kmax > 0) lsfp_dot_rows_f64(g->Q + (size_t)j * g->dim, g->K, g->dim, kmax, g->dim, w->dlog);
    row_ref rr = row_reference(g, j, w->dlog, w->dref);
    for (int t = 0; t < g->dim; t++) w->oref[t] = 0.0;
    lsfp_gemv_t_f64(w->oref, w->dref, g->V, g->dim, rr.kmax, g->dim);
    row_metrics_vs(g, w, st, j, otest, w->dlog, w->dref, w->oref, rr);
}

/* Rebuild p_test of row j from the final exponentials of each tile (numerics.md E):
 * p_i = E_i * exp(mu_hat_t - mu_final) / omega_final, in float64. */
static void rebuild_row(const lslamp_block *g, const ls_engine_acc_ws *w, const float *Ebuf, const float *muh, int j,
                        double mu_final, double omega_final)
{
    int sk = g->seq_k, br = g->br, bc = g->bc;
    for (int k0 = 0; k0 < sk; k0 += bc) {
        double scale = exp((double)muh[(size_t)(k0 / bc) * br + j] - mu_final);   /* one per tile */
        for (int k = k0; k < sk && k < k0 + bc; k++) {
            float e = Ebuf[(size_t)k * br + j];
            w->dtest[k] = e == 0.0f || !(omega_final > 0) ? 0.0 : (double)e * scale / omega_final;
        }
    }
}

void ls_engine_item_accuracy(const lslamp_block *g, const ls_engine_acc_ws *w, const float *Ebuf,
                             const float *muh, const float *mu, const float *om32, const double *om64,
                             lslamp_item_stats *st)
{
    /* LS_ENGINE_ACC_ROWS rows' float64 logits at a time (they share the loads of K); the last row of
     * a group sees the most keys */
    for (int j0 = 0; j0 < g->nqv; j0 += LS_ENGINE_ACC_ROWS) {
        int nq = imin(LS_ENGINE_ACC_ROWS, g->nqv - j0), kmax = row_keys(g, j0 + nq - 1);
        if (kmax > 0)
            lsfp_dot_block_f64(g->Q + (size_t)j0 * g->dim, g->dim, nq, g->K, g->dim, kmax, g->dim, w->dlog, g->seq_k);
        size_t sk = (size_t)g->seq_k, d = (size_t)g->dim;
        row_ref rr[LS_ENGINE_ACC_ROWS];
        int keys[LS_ENGINE_ACC_ROWS];
        for (int m = 0; m < nq; m++) {
            rr[m] = row_reference(g, j0 + m, w->dlog + m * sk, w->dref + m * sk);
            keys[m] = rr[m].kmax;
        }
        for (size_t t = 0; t < nq * d; t++) w->oref[t] = 0.0;
        lsfp_gemv_t_block_f64(w->oref, (long)d, w->dref, (long)sk, nq, keys, g->V, (long)d, (int)d);
        for (int m = 0; m < nq; m++) {
            int j = j0 + m;
            double om = om64 ? om64[j] : (double)om32[j];
            rebuild_row(g, w, Ebuf, muh, j, (double)mu[j], om);
            row_metrics_vs(g, w, st, j, g->O + (size_t)j * g->dim, w->dlog + m * sk, w->dref + m * sk,
                           w->oref + m * d, rr[m]);
        }
    }
}

/* ---- LampAttention and the tile-procedure baselines ---- */
static void run_lamp(const eng_ctx *x, eng_ws *w, int item, const lslamp_block *g, lslamp_item_stats *st, uint64_t *hist,
                     ls_engine_tile_record *rec)
{
    const ls_engine_params *p = x->p;
    const lslamp_cfg *cfg = x->cfg;
    int d = x->in->dim, br = x->br, bc = x->bc, nq_w = p->n_q;
    bool allhp = p->mode == LS_ENGINE_MODE_FA2_16BIT;
    lslamp_prepare_qt(cfg, g->Q, d, g->nqv, br, g->Qt, br);
    eng_split_reset(g, d);
    if (x->accuracy) memset(w->Ebuf, 0, (size_t)x->nkt * bc * br * sizeof(float));
    /* split-KV: each split's key tiles from a fresh state, its final state saved, then combined */
    for (int sp = 0, kt = 0; sp < w->nsplit; sp++) {
      if (sp > 0) eng_split_reset(g, d);
      for (int kt_end = imin(x->nkt, (sp + 1) * w->tps); kt < kt_end; kt++) {
        lslamp_tile_io io[64];
        int wlo = -1, whi = -1;
        unsigned char run[64];
        for (int wi = 0; wi < nq_w && wi < 64; wi++) {
            int nqw = lslamp_warp_io(g, wi, kt, &io[wi]);
            run[wi] = 0;
            if (nqw == 0) {                                         /* padding warp: does not exist */
                if (rec) rec[(size_t)wi * x->nkt + kt].flags = LSLAMP_REC_ABSENT;
                continue;
            }
            if (lslamp_tile_fully_masked(cfg, &io[wi])) {
                st->masked++;
                if (rec) rec[(size_t)wi * x->nkt + kt].flags = LSLAMP_REC_MASKED;
                continue;
            }
            run[wi] = 1;
            if (wlo < 0) wlo = wi;
            whi = wi + 1;
        }
        if (wlo < 0) continue;
        /* Step 1 for the warps that run: LP logits (HP for the 16-bit machine), whole block at once. */
        lslamp_tile_io bio = io[wlo];
        bio.ncols = (whi - wlo) * p->b_q;
        bio.nq = imin(g->nqv - wlo * p->b_q, bio.ncols);
        uint64_t base = lslamp_mix64(p->seed ^ lslamp_mix64(((uint64_t)item * 64 + 63) * (uint64_t)x->nkt + (uint64_t)kt));
        lsfp_rng brng;
        lsfp_rng_seed(&brng, base);
        lslamp_logits(cfg, allhp, &bio, 0, bc, &brng, &st->ev);
        for (int wi = wlo; wi < whi; wi++) {
            if (!run[wi]) continue;
            lslamp_tile_io *iw = &io[wi];
            iw->y_is_hp = allhp;
            iw->tile_seed = lslamp_mix64(p->seed ^ lslamp_mix64(((uint64_t)item * 64 + (uint64_t)wi) * (uint64_t)x->nkt + (uint64_t)kt));
            lslamp_state sv;
            lslamp_warp_state(g, wi, &sv);
            lslamp_tile_record tr;
            lslamp_tile_counts tc;
            lslamp_warp_tile(cfg, iw, &sv, &w->ws, &tr, &tc, &st->ev,
                             x->accuracy ? w->Ebuf + (size_t)kt * bc * br + wi * p->b_q : NULL, br,
                             x->accuracy ? w->muh + (size_t)kt * br + wi * p->b_q : NULL);
            st->executed++;
            hist[tr.n_hp]++;
            st->stage1 += (uint64_t)__builtin_popcount(tr.stage1_mask);
            st->stage2 += (uint64_t)__builtin_popcount(tr.stage2_mask);
            st->sub_active += (uint64_t)tc.subblocks_active;
            st->logits_unmasked += (uint64_t)tc.logits_unmasked;
            st->logits_hp1 += (uint64_t)tc.logits_hp_stage1;
            st->logits_hp2 += (uint64_t)tc.logits_hp_stage2;
            if (rec) {
                ls_engine_tile_record *r = &rec[(size_t)wi * x->nkt + kt];
                r->stage1_mask = tr.stage1_mask; r->stage2_mask = tr.stage2_mask;
                r->n_hp = tr.n_hp; r->flags = tr.flags;
            }
        }
      }
      if (w->nsplit > 1) eng_split_save(w, g, d, sp);
    }
    if (w->nsplit > 1) eng_split_combine(x, w, g, item, cfg->state_fp64, false);
    for (int wi = 0; wi < nq_w; wi++) {
        int nqw = imin(g->nqv - wi * p->b_q, p->b_q);
        if (nqw <= 0) break;
        lslamp_state sv;
        lslamp_warp_state(g, wi, &sv);
        lslamp_finalize(cfg, &sv, nqw, g->O + (size_t)wi * p->b_q * d, d);
    }
    if (x->accuracy)
        ls_engine_item_accuracy(g, &w->acc, w->Ebuf, w->muh, g->mu, g->om32, cfg->state_fp64 ? g->om64 : NULL, st);
}

/* ---- vanilla fp32 FlashAttention-2 ---- */
/* x[0..n) rounded to e4m3 after scaling by 448 / amax (FP8 kernels' per-tensor scale), then scaled back. */
static void quant_e4m3(float *v, size_t n)
{
    float amax = 0.0f;
    for (size_t i = 0; i < n; i++) amax = fabsf(v[i]) > amax ? fabsf(v[i]) : amax;
    if (amax == 0.0f || !isfinite(amax)) return;
    const lsfp_format *f = lsfp_named_format(LSFP_E4M3);
    float s = 448.0f / amax;
    for (size_t i = 0; i < n; i++) {
        unsigned fl = 0;
        v[i] = lsfp_round(f, v[i] * s, NULL, &fl) / s;
    }
}

static void run_fp32(const eng_ctx *x, eng_ws *w, int item, const lslamp_block *g, lslamp_item_stats *st, ls_engine_tile_record *rec)
{
    const ls_engine_params *p = x->p;
    int d = x->in->dim, br = x->br;
    float scale = (float)(1.0 / sqrt((double)d));
    for (int t = 0; t < d; t++)
        for (int j = 0; j < br; j++) g->Qt[(size_t)t * br + j] = j < g->nqv ? g->Q[(size_t)j * d + t] * scale : 0.0f;
    eng_split_reset(g, d);
    if (x->accuracy) memset(w->Ebuf, 0, (size_t)x->nkt * x->bc * br * sizeof(float));
    /* tile accounting by geometry, as for the other modes */
    for (int kt = 0; kt < x->nkt; kt++)
        for (int wi = 0; wi < p->n_q; wi++) {
            lslamp_tile_io io;
            if (lslamp_warp_io(g, wi, kt, &io) == 0) {
                if (rec) rec[(size_t)wi * x->nkt + kt].flags = LSLAMP_REC_ABSENT;
                continue;
            }
            bool m = lslamp_tile_fully_masked(x->cfg, &io);
            if (m) st->masked++;
            else st->executed++;
            if (rec && m) rec[(size_t)wi * x->nkt + kt].flags = LSLAMP_REC_MASKED;
        }
    const float *K = g->K, *V = g->V;
    bool fp8 = p->mode == LS_ENGINE_MODE_FA3_FP8;
    if (fp8) {   /* e4m3 operands: Q of this block, K and V of the head, each with one amax / 448 scale */
        size_t nk = (size_t)x->in->seq_k * d;
        quant_e4m3(g->Qt, (size_t)d * br);
        memcpy(w->kvq, g->K, nk * sizeof(float));
        memcpy(w->kvq + nk, g->V, nk * sizeof(float));
        quant_e4m3(w->kvq, nk);
        quant_e4m3(w->kvq + nk, nk);
        K = w->kvq;
        V = w->kvq + nk;
    }
    for (int sp = 0; sp < w->nsplit; sp++) {   /* split-KV: each split from a fresh state */
        if (sp > 0) eng_split_reset(g, d);
        eng_fa2_fp32_block(g->Qt, br, g->nqv, g->q0, K, V, x->in->seq_k, d, x->bc, x->in->causal, g->window, g->qpack,
                           g->shift, sp * w->tps, (sp + 1) * w->tps, g->Y, g->mu, g->om32, g->O32,
                           x->accuracy ? w->Ebuf : NULL, x->accuracy ? w->muh : NULL, fp8);
        if (w->nsplit > 1) eng_split_save(w, g, d, sp);
    }
    if (w->nsplit > 1) eng_split_combine(x, w, g, item, false, true);
    for (int j = 0; j < g->nqv; j++) {
        float l = g->om32[j];
        for (int t = 0; t < d; t++) g->O[(size_t)j * d + t] = l == 0.0f ? 0.0f : g->O32[(size_t)j * d + t] / l;
    }
    if (x->accuracy) ls_engine_item_accuracy(g, &w->acc, w->Ebuf, w->muh, g->mu, g->om32, NULL, st);
}

/* ---- LAMP reference-code rule on the materialised softmax (numerics.md B.2, A.4) ---- */
/* The LAMP reference-code rule on row j's keys [klo, khi) (all of them, or one split's): the
 * materialised softmax of those keys, the rule's selection, HP logits for it, then the fp32 softmax
 * and P.V into o (normalised by the keys' own sum); *m2 and *S: that softmax's max logit and fp32
 * sum (-inf and 0 when no key is visible: o = 0). p_test of those keys goes to w->acc.dtest. */
static void lampcode_keys(const eng_ctx *x, eng_ws *w, const lslamp_block *g, lslamp_item_stats *st, int j, int klo,
                          int khi, float *o, float *m2out, float *Sout)
{
    const ls_engine_params *p = x->p;
    int d = x->in->dim, br = x->br, bc = x->bc, sk = x->in->seq_k, nkt = x->nkt, wi = j / p->b_q;
    double mx = -INFINITY;
    for (int k = klo; k < khi; k++) {
        double y = w->Yall[(size_t)k * br + j];
        if (y > mx) mx = y;
    }
    *m2out = -INFINITY;
    *Sout = 0.0f;
    if (mx == -INFINITY) {
        for (int t = 0; t < d; t++) o[t] = 0.0f;
        if (w->acc.dtest) for (int k = klo; k < khi; k++) w->acc.dtest[k] = 0.0;
        return;
    }
    double Z = 0.0;
    for (int k = klo; k < khi; k++) {
        float y = w->Yall[(size_t)k * br + j];
        w->dz[k] = y == -INFINITY ? 0.0 : exp((double)y - mx);
        Z += w->dz[k];
    }
    for (int k = klo; k < khi; k++) w->dz[k] /= Z;
    lslamp_lampcode_mask(w->dz + klo, khi - klo, p->lamp_code_tau, w->sel + klo, w->zi);
    if (x->lcmask) {
        uint8_t *mrow = x->lcmask + ((size_t)(g->b * x->in->heads_q + g->hq) * x->in->seq_q + g->q0 + j) * sk;
        for (int k = klo; k < khi; k++)
            mrow[k] = (uint8_t)(w->sel[k] ? (w->Yall[(size_t)k * br + j] == -INFINITY ? 2 : 1) : 0);
    }
    /* replace the selected logits by HP ones; masked entries stay -inf */
    float m2 = -INFINITY;
    for (int k = klo; k < khi; k++) {
        size_t ix = (size_t)k * br + j;
        float y = w->Yall[ix];
        if (y == -INFINITY) continue;
        st->logits_unmasked++;
        if (w->sel[k]) {
            y = w->Yallhp[ix];
            w->Yall[ix] = y;
            st->logits_hp2++;
            int kt = k / bc, th = (k % bc) / p->b_k;
            w->tmask[(size_t)wi * nkt + kt] |= (uint16_t)(1u << th);
        }
        if (y > m2) m2 = y;
    }
    /* fp32 softmax and P.V (ascending keys) */
    float S = 0.0f;
    for (int k = klo; k < khi; k++) {
        float y = w->Yall[(size_t)k * br + j];
        float e = y == -INFINITY ? 0.0f : (float)exp((double)y - (double)m2);
        w->dz[k] = e;
        S = S + e;
    }
    for (int t = 0; t < d; t++) o[t] = 0.0f;
    for (int k = klo; k < khi; k++) {
        float pk = (float)w->dz[k] / S;
        if (w->acc.dtest) w->acc.dtest[k] = pk;
        if (pk == 0.0f) continue;
        const float *v = g->V + (size_t)k * d;
        for (int t = 0; t < d; t++) o[t] = o[t] + pk * v[t];
    }
    *m2out = m2;
    *Sout = S;
}

/* Split-KV combine of row j's normalised partial outputs (lamp_code), in fp32 and ascending splits:
 * M = max m_s, a_s = expf(m_s - M) * S_s, L = sum a_s, o = sum (a_s / L) o_s; p_test of split s's
 * keys scaled by a_s / L. */
static void lampcode_combine(eng_ws *w, int br, int j, int d, float *o, int sk, int bc)
{
    int ns = w->nsplit;
    float M = -INFINITY, L = 0.0f;
    for (int sp = 0; sp < ns; sp++) M = w->pmu[(size_t)sp * br + j] > M ? w->pmu[(size_t)sp * br + j] : M;
    for (int t = 0; t < d; t++) o[t] = 0.0f;
    if (M == -INFINITY) return;
    for (int sp = 0; sp < ns; sp++) {
        size_t r = (size_t)sp * br + j;
        if (w->pmu[r] != -INFINITY) L = L + expf(w->pmu[r] - M) * w->pom32[r];
    }
    for (int sp = 0; sp < ns; sp++) {
        size_t r = (size_t)sp * br + j;
        float a = w->pmu[r] == -INFINITY ? 0.0f : expf(w->pmu[r] - M) * w->pom32[r] / L;
        const float *os = w->pO32 + r * d;
        if (a != 0.0f)
            for (int t = 0; t < d; t++) o[t] = o[t] + a * os[t];
        if (w->acc.dtest)
            for (int k = sp * w->tps * bc; k < sk && k < (sp + 1) * w->tps * bc; k++) w->acc.dtest[k] *= (double)a;
    }
}

static void run_lampcode(const eng_ctx *x, eng_ws *w, int item, const lslamp_block *g, lslamp_item_stats *st,
                         uint64_t *hist, ls_engine_tile_record *rec)
{
    (void)item;
    const ls_engine_params *p = x->p;
    const lslamp_cfg *cfg = x->cfg;
    int d = x->in->dim, br = x->br, bc = x->bc, sk = x->in->seq_k, nkt = x->nkt;
    lslamp_prepare_qt(cfg, g->Q, d, g->nqv, br, g->Qt, br);
    /* LP and HP logits of the whole block, through the same logit step as the tile procedure. */
    for (int kt = 0; kt < nkt; kt++) {
        lslamp_tile_io bio;
        lslamp_warp_io(g, 0, kt, &bio);
        bio.ncols = br;
        bio.nq = g->nqv;
        bio.query0 = g->q0;
        bio.Y = w->Yall + (size_t)kt * bc * br;
        lslamp_logits(cfg, false, &bio, 0, bc, NULL, &st->ev);
        bio.Y = w->Yallhp + (size_t)kt * bc * br;
        lslamp_logits(cfg, true, &bio, 0, bc, NULL, &st->ev);
    }
    memset(w->tmask, 0, (size_t)p->n_q * nkt * sizeof(uint16_t));
    for (int j = 0; j < g->nqv; j++) {
        float *o = g->O + (size_t)j * d;
        if (w->nsplit == 1) {
            float m2, S;
            lampcode_keys(x, w, g, st, j, 0, sk, o, &m2, &S);
        } else {   /* split-KV: each split's rule on its own keys, then the normalised combine */
            for (int sp = 0; sp < w->nsplit; sp++) {
                size_t r = (size_t)sp * br + j;
                lampcode_keys(x, w, g, st, j, sp * w->tps * bc, imin(sk, (sp + 1) * w->tps * bc), w->pO32 + r * d,
                              &w->pmu[r], &w->pom32[r]);
            }
            lampcode_combine(w, br, j, d, o, sk, bc);
        }
        if (x->accuracy) ls_engine_row_metrics(g, &w->acc, st, j, o);
    }
    if (w->nsplit > 1 && p->split_hook) {
        ls_engine_split_state ss = { .item = item, .nsplit = w->nsplit, .rows = br, .nqv = g->nqv, .dim = d,
                                     .normalised = true, .mu = w->pmu, .om32 = w->pom32, .O32 = w->pO32 };
        p->split_hook(p->split_user, &ss);
    }
    /* per (warp, key tile) records and statistics */
    for (int kt = 0; kt < nkt; kt++)
        for (int wi = 0; wi < p->n_q; wi++) {
            lslamp_tile_io io;
            int nqw = lslamp_warp_io(g, wi, kt, &io);
            ls_engine_tile_record *r = rec ? &rec[(size_t)wi * nkt + kt] : NULL;
            if (nqw == 0) {
                if (r) r->flags = LSLAMP_REC_ABSENT;
                continue;
            }
            if (lslamp_tile_fully_masked(cfg, &io)) {
                st->masked++;
                if (r) r->flags = LSLAMP_REC_MASKED;
                continue;
            }
            st->executed++;
            for (int th = 0; th < p->n_k; th++) {
                int act = 0;
                for (int i = th * p->b_k; i < (th + 1) * p->b_k && !act; i++) {
                    const float *y = w->Yallhp + ((size_t)kt * bc + i) * br + wi * p->b_q;
                    for (int jj = 0; jj < nqw; jj++) if (y[jj] != -INFINITY) { act = 1; break; }
                }
                st->sub_active += (uint64_t)act;
            }
            uint16_t m = w->tmask[(size_t)wi * nkt + kt];
            int n = __builtin_popcount(m);
            hist[n]++;
            st->stage2 += (uint64_t)n;
            if (r) { r->stage2_mask = m; r->n_hp = (uint8_t)n; }
        }
}

void eng_run_item(const eng_ctx *x, eng_ws *w, int item)
{
    const ls_attn_inputs *in = x->in;
    lslamp_block *g = &w->blk;
    lslamp_block_locate(g, item, x->nqb, in->heads_q, in->heads_kv, in->seq_q, in->q, in->k, in->v, x->o, x->o_ref);
    lslamp_item_stats *st = &x->items[item];
    memset(st, 0, sizeof *st);
    uint64_t *hist = x->hist + (size_t)item * (x->p->n_k + 1);
    ls_engine_tile_record *rec = x->records ? x->records + (size_t)item * x->p->n_q * x->nkt : NULL;
    switch (x->p->mode) {
    case LS_ENGINE_MODE_FA2_FP32:
    case LS_ENGINE_MODE_FA3_FP8: run_fp32(x, w, item, g, st, rec); break;
    case LS_ENGINE_MODE_LAMP_CODE: run_lampcode(x, w, item, g, st, hist, rec); break;
    default: run_lamp(x, w, item, g, st, hist, rec); break;
    }
}
