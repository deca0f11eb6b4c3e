/* hw/lamp/lamp_cfg.c — configuration of the block procedure: checks and derived formats (the knobs'
 * defaults are the configuration schema's: sim/config/schema.c). */
#include "lslamp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return -1;
}

static int init_fmt(lsfp_format *f, char *err, size_t errlen)
{
    return lsfp_format_init(f, err, errlen);
}

int lslamp_cfg_finalize(lslamp_cfg *c, char *err, size_t errlen)
{
    if (c->b_q < 1 || c->b_k < 1 || c->n_k < 1 || c->d < 1) return fail(err, errlen, "b_q, b_k, n_k and d must be >= 1");
    if (c->n_k > LSLAMP_MAX_NK) return fail(err, errlen, "n_k must be <= 16");
    if (!(c->delta >= 0)) return fail(err, errlen, "delta must be >= 0");
    if (!(c->tau >= 0)) return fail(err, errlen, "tau must be >= 0");
    if (c->chunk_k < 1) return fail(err, errlen, "chunk_k must be >= 1");
    if (!(c->random_rate >= 0 && c->random_rate <= 1)) return fail(err, errlen, "random_rate must be in [0, 1]");
    if (c->lp_datapath == LSLAMP_LP_FUSED) {
        if (c->lp_fused_k < 1 || c->lp_fused_k > LSFP_FUSED_MAX_K)
            return fail(err, errlen, "lp_fused_k must be in 1..64");
        if (c->chunk_k != 1) return fail(err, errlen, "lp_datapath fused sums its own groups: chunk_k must be 1");
        if (c->rounding == LSFP_RND_STOCHASTIC)
            return fail(err, errlen, "lp_datapath fused rounds RNE or RTZ: rounding stochastic is not supported");
    }
    if (!c->policy) c->policy = &lslamp_policy_lamp;
    c->bc = c->n_k * c->b_k;
    c->scale = (float)(1.0 / sqrt((double)c->d));
    c->bf16 = *lsfp_named_format(LSFP_BF16);
    lsfp_format f[LSLAMP_FMT_COUNT];
    int which = 0;
    char why[400];
    if (lslamp_formats_resolve((const char (*)[LSLAMP_FMT_NAME_MAX])c->formats, c->arith, f, &which, why, sizeof why)) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", lslamp_fmt_knob[which], why);
        return -1;
    }
    c->lp_fmt = f[LSLAMP_FMT_LP]; c->hp_fmt = f[LSLAMP_FMT_HP];
    c->lp_s = f[LSLAMP_FMT_LP_SHIFT]; c->lp_x = f[LSLAMP_FMT_LP_EXP];
    c->hp_s = f[LSLAMP_FMT_HP_SHIFT]; c->hp_x = f[LSLAMP_FMT_HP_EXP];
    /* The overflow knob governs the narrow accumulators; fp32-range ones (PS(m), fp32) overflow to
     * Inf as the LAMP code's bit-pattern rounding does. */
    if (!c->lp_fmt.fp32_range) c->lp_fmt.overflow = c->overflow;
    if (!c->hp_fmt.fp32_range) c->hp_fmt.overflow = c->overflow;
    /* The rounding knob applies to the logit accumulators (G-1); stochastic to the LP one only
     * (G-24), the HP accumulator then stays RNE. Shifts and exponentials are always RNE. */
    c->lp_fmt.rounding = c->rounding;
    c->hp_fmt.rounding = c->rounding == LSFP_RND_STOCHASTIC ? LSFP_RND_RNE : c->rounding;
    if (init_fmt(&c->lp_fmt, err, errlen) || init_fmt(&c->hp_fmt, err, errlen) || init_fmt(&c->lp_s, err, errlen) ||
        init_fmt(&c->lp_x, err, errlen) || init_fmt(&c->hp_s, err, errlen) || init_fmt(&c->hp_x, err, errlen))
        return -1;
    memset(&c->lp_acc, 0, sizeof c->lp_acc);
    memset(&c->hp_acc, 0, sizeof c->hp_acc);
    c->lp_acc.fmt = &c->lp_fmt;
    c->hp_acc.fmt = &c->hp_fmt;
    c->lp_acc.model = c->hp_acc.model = c->acc_model;
    c->lp_acc.order = c->hp_acc.order = c->acc_order;
    c->lp_acc.chunk_k = c->hp_acc.chunk_k = c->chunk_k;
    if (c->lp_datapath == LSLAMP_LP_FUSED) {
        c->lp_acc.fused_k = c->lp_fused_k;
        c->lp_acc.fused_frac = LSFP_FUSED_FRAC;
    }
    /* mu_lp and y are multiples of the LP quantum below 2^(emax+2) in magnitude: their difference
     * needs at most emax + 2 - (emin - m) significant bits (19 for e4m3). */
    c->lp_diff_exact = !c->lp_fmt.fp32_range && c->lp_fmt.emax + 2 - (c->lp_fmt.emin - c->lp_fmt.mbits) <= 24;
    c->use_lut = false;
    if (!c->no_tables && c->arith == LSLAMP_ARITH_HARDWARE) {
        /* the hardware's LP exponential is a table lookup: the shift formats must index one */
        if (lsfp_exp_lut_build(&c->lut, &c->lp_s, &c->lp_x, why, sizeof why) != 0) {
            if (err && errlen) snprintf(err, errlen, "%s: %s", lslamp_fmt_knob[LSLAMP_FMT_LP_SHIFT], why);
            return -1;
        }
        c->use_lut = true;
    }
    c->use_hp_table = false;
    if (!c->no_tables && c->arith == LSLAMP_ARITH_HARDWARE && c->hp_shift == LSLAMP_HPSHIFT_ROUNDED && !c->hp_s.is_signed &&
        !c->hp_s.fp32_range && c->hp_s.nbits <= 16) {
        uint32_t n = 1u << c->hp_s.nbits;
        for (uint32_t code = 0; code < n; code++) {
            float s = lsfp_decode(&c->hp_s, code);
            c->hp_exp[code] = isnan(s) ? NAN : lsfp_exp_neg(&c->hp_x, s);
        }
        c->hp_s_maxcode = lsfp_encode(&c->hp_s, c->hp_s.max_finite);
        c->use_hp_table = true;
    }
    return 0;
}

int lslamp_ws_init(lslamp_ws *ws, const lslamp_cfg *c)
{
    memset(ws, 0, sizeof *ws);
    size_t bq = (size_t)c->b_q, bc = (size_t)c->n_k * (size_t)c->b_k, nk = (size_t)c->n_k;
    size_t nd = bc * bq + 3 * bq + nk * bq;                 /* doubles */
    size_t nf = nk * bq + 2 * bc * bq + 2 * bq + (size_t)c->d;  /* floats */
    char *p = malloc(nd * sizeof(double) + nf * sizeof(float) + 64);
    if (!p) return -1;
    ws->block = p;
    double *dp = (double *)p;
    ws->E = dp; dp += bc * bq;
    ws->lambda = dp; dp += bq;
    ws->alpha = dp; dp += bq;
    ws->omega_hat = dp; dp += bq;
    ws->xi = dp; dp += nk * bq;
    float *fp = (float *)dp;
    ws->m = fp; fp += nk * bq;
    ws->s = fp; fp += 2 * bc * bq;
    ws->mu_hat = fp; fp += bq;
    ws->mu_lp = fp; fp += bq;
    ws->tmpk = fp;
    return 0;
}

void lslamp_ws_free(lslamp_ws *ws)
{
    free(ws->block);
    memset(ws, 0, sizeof *ws);
}
