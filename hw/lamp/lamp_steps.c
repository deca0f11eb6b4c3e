/* hw/lamp/lamp_steps.c — the steps of numerics.md D.2 (logits, maxima, threats, sort, stage 1,
 * exponentials, normaliser, stage-2 costs, update, final normalisation). */
#include "lslamp.h"

#include <math.h>
#include <string.h>

static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }

void lslamp_prepare_qt(const lslamp_cfg *c, const float *Q, int ldqrow, int nq, int ncols, float *Qt, int ldq)
{
    int d = c->d;
    for (int t = 0; t < d; t++) {
        float *row = Qt + (long)t * ldq;
        for (int j = 0; j < ncols; j++) {
            float v = 0.0f;
            if (j < nq) {
                v = Q[(long)j * ldqrow + t];
                if (c->scale_point == LSLAMP_SCALE_PRE_FP32) v = v * c->scale;
                else if (c->scale_point == LSLAMP_SCALE_PRE_BF16) v = lsfp_round(&c->bf16, v * c->scale, NULL, NULL);
            }
            row[j] = v;
        }
    }
}

void lslamp_apply_mask(const lslamp_cfg *c, const lslamp_tile_io *io, int k0, int nk)
{
    (void)c;
    int ncols = io->ncols, nq = imin(io->nq, ncols);
    for (int i = k0; i < k0 + nk; i++) {
        float *y = io->Y + (long)i * io->ldy;
        if (i >= io->nkeys) {
            for (int j = 0; j < ncols; j++) y[j] = -INFINITY;
            continue;
        }
        int jlo, jhi;   /* the queries that see key i */
        lslamp_key_queries_packed(io->causal, io->causal_shift, io->window, io->qpack, io->key0 + i, io->query0, ncols,
                                  &jlo, &jhi);
        for (int j = 0; j < jlo; j++) y[j] = -INFINITY;
        for (int j = imax(imin(nq, jhi), jlo); j < ncols; j++) y[j] = -INFINITY;
    }
}

bool lslamp_tile_fully_masked(const lslamp_cfg *c, const lslamp_tile_io *io)
{
    (void)c;
    int nq = imin(io->nq, io->ncols);
    if (io->nkeys <= 0 || nq <= 0) return true;
    int64_t qfirst = lslamp_row_query(io->query0, io->qpack), qlast = lslamp_row_query(io->query0 + nq - 1, io->qpack);
    if (io->causal && io->key0 > qlast + io->causal_shift) return true;
    /* the tile's last key is older than the first query's window */
    if (io->causal && io->window > 0 && io->key0 + io->nkeys - 1 <= qfirst + io->causal_shift - io->window) return true;
    return false;
}

static void add_events(const lsfp_events *le, bool hp, lslamp_events *ev)
{
    if (!ev) return;
    if (hp) ev->hp_saturations += le->saturations;
    else ev->lp_saturations += le->saturations;
    ev->overflows_nan += le->overflows;
    ev->exact_fixups += le->exact_fixups;
}

void lslamp_logits(const lslamp_cfg *c, bool hp, const lslamp_tile_io *io, int k0, int nk,
                   lsfp_rng *rng, lslamp_events *ev)
{
    const lsfp_accum *acc = hp ? &c->hp_acc : &c->lp_acc;
    const lsfp_format *fmt = acc->fmt;
    int nval = imin(k0 + nk, io->nkeys) - k0;
    int ncq = imin(io->nq, io->ncols);
    float *Y = io->Y + (long)k0 * io->ldy;
    lsfp_events le;
    memset(&le, 0, sizeof le);
    if (nval > 0 && ncq > 0) {
        if (hp && io->y_hp) {
            for (int i = 0; i < nval; i++)
                memcpy(Y + (long)i * io->ldy, io->y_hp + (long)(k0 + i) * io->ldyhp, (size_t)ncq * sizeof(float));
        } else if (!hp && c->rounding == LSFP_RND_STOCHASTIC) {
            /* G-24: stochastic rounding of the LP accumulator through the fp library, with the
             * generator fixed per tile (scalar kernel). */
            lsfp_accum sacc = *acc;
            sacc.rng = rng;
            lsfp_logit_tile(&sacc, io->K + (long)k0 * io->ldk, io->ldk, io->Qt, io->ldq, nval, ncq, c->d,
                            Y, io->ldy, &le);
        } else {
            lsfp_logit_tile(acc, io->K + (long)k0 * io->ldk, io->ldk, io->Qt, io->ldq, nval, ncq, c->d,
                            Y, io->ldy, &le);
        }
        if (c->scale_point == LSLAMP_SCALE_POST && !(hp && io->y_hp)) {
            /* LAMP-code style: accumulate unscaled, divide by sqrt(d) in fp32, round again. */
            float sq = sqrtf((float)c->d);
            for (int i = 0; i < nval; i++) {
                float *y = Y + (long)i * io->ldy;
                for (int j = 0; j < ncq; j++) y[j] = y[j] / sq;
                lsfp_round_array(fmt, y, y, (size_t)ncq, &le);
            }
        }
    }
    add_events(&le, hp, ev);
    lslamp_apply_mask(c, io, k0, nk);
}

void lslamp_subblock_max(const lslamp_cfg *c, const float *Y, int ldy, int nq, float *m)
{
    int bk = c->b_k;
    for (int th = 0; th < c->n_k; th++) {
        float *mt = m + (long)th * nq;
        for (int j = 0; j < nq; j++) mt[j] = -INFINITY;
        for (int i = th * bk; i < (th + 1) * bk; i++) {
            const float *y = Y + (long)i * ldy;
            for (int j = 0; j < nq; j++) mt[j] = y[j] > mt[j] ? y[j] : mt[j];   /* NaN ignored */
        }
    }
}

void lslamp_threats(const lslamp_cfg *c, const float *m, const float *mu, int nq, double *T)
{
    for (int th = 0; th < c->n_k; th++) {
        double t = -INFINITY;
        const float *mt = m + (long)th * nq;
        for (int j = 0; j < nq; j++) {
            if (!(mt[j] > -INFINITY)) continue;
            double v = mu[j] == -INFINITY ? INFINITY : (double)mt[j] - (double)mu[j];
            if (v > t) t = v;
        }
        T[th] = t;
    }
}

void lslamp_sort_threats(int n_k, const double *T, int *order)
{
    /* insertion sort, descending, stable on theta (G-13) */
    for (int th = 0; th < n_k; th++) {
        int p = th;
        while (p > 0 && T[order[p - 1]] < T[th]) {
            order[p] = order[p - 1];
            p--;
        }
        order[p] = th;
    }
}

bool lslamp_stage1_pass(const float *m_theta, const float *mu_hat, int nq, double delta)
{
    for (int j = 0; j < nq; j++) {
        float m = m_theta[j];
        if (!(m > -INFINITY)) continue;              /* masked query (or NaN): no constraint (G-19) */
        double mh = mu_hat[j];
        if (mh == -INFINITY) return false;
        if (!(mh > (double)m + fabs(mh) * delta)) return false;
    }
    return true;
}

void lslamp_mu_update(const lslamp_cfg *c, const float *Y, int ldy, int theta, int nq, float *mu_hat)
{
    for (int i = theta * c->b_k; i < (theta + 1) * c->b_k; i++) {
        const float *y = Y + (long)i * ldy;
        for (int j = 0; j < nq; j++) mu_hat[j] = y[j] > mu_hat[j] ? y[j] : mu_hat[j];
    }
}

uint32_t lslamp_stage1(const lslamp_cfg *c, const lslamp_tile_io *io, const int *order,
                       const float *m, float *mu_hat, lsfp_rng *rng, lslamp_events *ev)
{
    uint32_t theta_set = 0;
    int bq = c->b_q;
    for (int k = 0; k < c->n_k; k++) {
        int th = order[k];
        if (lslamp_stage1_pass(m + (long)th * bq, mu_hat, bq, c->delta)) continue;
        lslamp_logits(c, true, io, th * c->b_k, c->b_k, rng, ev);
        lslamp_mu_update(c, io->Y, io->ldy, th, bq, mu_hat);
        theta_set |= 1u << th;
    }
    return theta_set;
}

float lslamp_mu_lp(const lslamp_cfg *c, float mu_hat)
{
    if (!isfinite(mu_hat)) return mu_hat;
    switch (c->mu_shift) {
    case LSLAMP_MU_TRUNC: return lsfp_truncate_to(&c->lp_fmt, mu_hat);
    case LSLAMP_MU_RNE: {
        lsfp_format f = c->lp_fmt;
        f.rounding = LSFP_RND_RNE;
        f.overflow = LSFP_OVF_SATURATE;
        return lsfp_round(&f, mu_hat, NULL, NULL);
    }
    default: return mu_hat;
    }
}

/* The HP shift code of d (RNE to the shift format: emin, mbits; codes above maxcode saturate);
 * inlined into the exponential loop with the format's fields held in registers. */
static inline uint32_t hp_code(int emin, int mbits, uint32_t maxcode, double d)
{
    if (!(d > 0.0)) return 0;
    uint64_t u;
    memcpy(&u, &d, 8);
    int e = (int)((u >> 52) & 0x7FF) - 1023;          /* d >= 2^-1022 here: shifts are >= 2^-17 */
    int qe = (e > emin ? e : emin) - mbits;           /* exponent of the quantum */
    uint64_t pb = (uint64_t)(1023 - qe) << 52;         /* 2^-qe */
    double scale;
    memcpy(&scale, &pb, 8);
    double n = d * scale;                              /* exact: power-of-two scaling */
    int64_t lo = (int64_t)n;                           /* n >= 0 and < 2^(mbits+2): floor */
    double frac = n - (double)lo;
    int64_t k = lo + ((frac > 0.5) | ((frac == 0.5) & (int)(lo & 1)));
    int64_t code = ((int64_t)(qe - emin + mbits) << mbits) + k;
    return code > (int64_t)maxcode ? maxcode : (uint32_t)code;
}

uint32_t lslamp_hp_shift_code(const lslamp_cfg *c, double d)
{
    return hp_code(c->hp_s.emin, c->hp_s.mbits, c->hp_s_maxcode, d);
}

bool lslamp_exps(const lslamp_cfg *c, bool hp, const float *Y, int ldy, int theta, int nq,
                 const float *mu_hat, const float *mu_lp, double *E, float *scratch, lslamp_events *ev)
{
    int bk = c->b_k, r0 = theta * bk;
    uint64_t above = 0;
    if (c->exp_mode == LSLAMP_EXP_IDEAL) {
        for (int i = r0; i < r0 + bk; i++)
            for (int j = 0; j < nq; j++) {
                float y = Y[(long)i * ldy + j];
                double *e = E + (long)i * nq + j;
                if (y == -INFINITY) { *e = 0.0; continue; }
                above += y > mu_hat[j];
                *e = exp((double)y - (double)mu_hat[j]);
            }
    } else if (hp) {
        const int emin = c->hp_s.emin, mbits = c->hp_s.mbits;
        const uint32_t maxcode = c->hp_s_maxcode;
        const float *table = c->hp_exp;
        for (int i = r0; i < r0 + bk; i++)
            for (int j = 0; j < nq; j++) {
                float y = Y[(long)i * ldy + j];
                double *e = E + (long)i * nq + j;
                if (y == -INFINITY) { *e = 0.0; continue; }
                if (isnan(y)) { *e = NAN; continue; }
                double s = (double)mu_hat[j] - (double)y;
                if (s < 0) {
                    /* G-15 keep: exp above one, in the HP exponential format (encodes up to ~2) */
                    above++;
                    double sm = c->hp_shift == LSLAMP_HPSHIFT_ROUNDED ? (double)lsfp_round_double(&c->hp_s, -s, NULL) : -s;
                    *e = lsfp_round_double(&c->hp_x, exp(sm), NULL);
                } else if (c->use_hp_table) {
                    *e = table[hp_code(emin, mbits, maxcode, s)];
                } else {
                    float sr = c->hp_shift == LSLAMP_HPSHIFT_ROUNDED ? lsfp_round_double(&c->hp_s, s, NULL) : (float)s;
                    *e = lsfp_exp_neg(&c->hp_x, sr);
                }
            }
    } else if (c->use_lut && c->lp_diff_exact && c->mu_shift != LSLAMP_MU_EXACT) {
        /* LP hot path: both operands on the LP grid, so the fp32 difference is exact; round the
         * whole sub-block to ue5m3-S with the branch-free kernel, then index the LUT. */
        int n = bk * nq, neg = 0;
        for (int i = 0; i < bk; i++) {
            const float *y = Y + (long)(r0 + i) * ldy;
            float *s = scratch + (long)i * nq;
            for (int j = 0; j < nq; j++) {
                s[j] = mu_lp[j] - y[j];
                neg |= s[j] < 0.0f;
            }
        }
        lsfp_events junk;
        memset(&junk, 0, sizeof junk);
        float *sr = scratch + n;
        lsfp_round_array(&c->lp_s, scratch, sr, (size_t)n, &junk);
        for (int i = 0; i < bk; i++)   /* NaN logits and negative shifts: below */
            lsfp_exp_lut_apply(&c->lut, sr + (long)i * nq, Y + (long)(r0 + i) * ldy, E + (long)(r0 + i) * nq, nq);
        if (neg) {
            for (int i = 0; i < bk; i++)
                for (int j = 0; j < nq; j++) {
                    float y = Y[(long)(r0 + i) * ldy + j];
                    double d = (double)mu_lp[j] - (double)y;
                    if (!(d < 0) || isnan(y)) continue;
                    above++;
                    E[(long)(r0 + i) * nq + j] = lsfp_round_double(&c->lp_x, exp(-d), NULL);
                }
        }
    } else {
        /* Paper mode (PS formats, fp32 exponent range) or exact mu: per-element rounding. */
        for (int i = r0; i < r0 + bk; i++)
            for (int j = 0; j < nq; j++) {
                float y = Y[(long)i * ldy + j];
                double *e = E + (long)i * nq + j;
                if (y == -INFINITY) { *e = 0.0; continue; }
                if (isnan(y)) { *e = NAN; continue; }
                double s = (double)mu_lp[j] - (double)y;
                if (s < 0) {
                    above++;
                    *e = lsfp_round_double(&c->lp_x, exp(-s), NULL);
                    continue;
                }
                float sr = lsfp_round_double(&c->lp_s, s, NULL);
                if (c->use_lut) {
                    lsfp_exp_lut_apply(&c->lut, &sr, &y, e, 1);   /* sr >= 0, y finite: the table's entry */
                } else {
                    *e = lsfp_exp_neg(&c->lp_x, sr);
                }
            }
    }
    if (ev) ev->exp_above_one += above;
    return above != 0;
}

void lslamp_normaliser(const lslamp_cfg *c, const lslamp_state *st, const float *mu_hat, const double *E,
                       int nq, double *lambda, double *alpha, double *omega_hat)
{
    int bc = c->bc;
    for (int j = 0; j < nq; j++) {
        float mu = st->mu[j], mh = mu_hat[j];
        if (c->state_fp64) {
            double lam = mu == -INFINITY ? 0.0 : exp((double)mu - (double)mh);
            double al = lam * st->omega64[j], rs = 0.0;
            for (int i = 0; i < bc; i++) rs += E[(long)i * nq + j];
            lambda[j] = lam; alpha[j] = al; omega_hat[j] = al + rs;
        } else {
            float lam = mu == -INFINITY ? 0.0f : (float)exp((double)mu - (double)mh);
            float al = lam * st->omega32[j], rs = 0.0f;
            for (int i = 0; i < bc; i++) rs += (float)E[(long)i * nq + j];
            lambda[j] = lam; alpha[j] = al; omega_hat[j] = al + rs;
        }
    }
}

void lslamp_stage2_costs(const lslamp_cfg *c, const double *E, const double *omega_hat, int nq, double *xi)
{
    int bk = c->b_k;
    for (int th = 0; th < c->n_k; th++) {
        double *x = xi + (long)th * nq;
        for (int j = 0; j < nq; j++) x[j] = 0.0;
        for (int i = th * bk; i < (th + 1) * bk; i++) {
            const double *e = E + (long)i * nq;
            for (int j = 0; j < nq; j++) x[j] += e[j] * (omega_hat[j] - e[j]);
        }
    }
}

void lslamp_update(const lslamp_cfg *c, const lslamp_tile_io *io, lslamp_state *st, const float *mu_hat,
                   const double *E, const double *lambda, const double *alpha)
{
    int bq = c->b_q, d = c->d, nq = imin(io->nq, bq), nkeys = imin(io->nkeys, c->bc);
    for (int j = 0; j < nq; j++) {
        st->mu[j] = mu_hat[j];
        if (c->state_fp64) {
            double rs = 0.0;
            for (int i = 0; i < c->bc; i++) rs += E[(long)i * bq + j];
            st->omega64[j] = alpha[j] + rs;
            lsfp_pv_update_f64(st->O64 + (long)j * st->ldo, d, lambda[j], E + j, bq, nkeys, io->V, io->ldv);
        } else {
            float rs = 0.0f;
            for (int i = 0; i < c->bc; i++) rs += (float)E[(long)i * bq + j];
            st->omega32[j] = (float)alpha[j] + rs;
            lsfp_pv_update_f32(st->O32 + (long)j * st->ldo, d, (float)lambda[j], E + j, bq, nkeys, io->V, io->ldv);
        }
    }
}

void lslamp_finalize(const lslamp_cfg *c, const lslamp_state *st, int nq, float *out, int ldout)
{
    int d = c->d;
    for (int j = 0; j < nq; j++) {
        float *r = out + (long)j * ldout;
        if (c->state_fp64) {
            const double *o = st->O64 + (long)j * st->ldo;
            double w = st->omega64[j];
            for (int t = 0; t < d; t++) r[t] = w == 0.0 ? 0.0f : (float)(o[t] / w);
        } else {
            const float *o = st->O32 + (long)j * st->ldo;
            float w = st->omega32[j];
            for (int t = 0; t < d; t++) r[t] = w == 0.0f ? 0.0f : o[t] / w;
        }
    }
}
