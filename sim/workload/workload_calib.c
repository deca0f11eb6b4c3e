#include <math.h>
#include <stdlib.h>

#include "workload_fit_internal.h"
#include "workload_heads.h"

/* The fit's calibration (ls_wfit_calibrate_layer): the analytic fit matches the mean profile; the softmax depends
 * on more (the near keys' spread, tails). Each head's profile and noise amplitudes are scaled, and its sink bonus
 * shifted, so that the generated head's local mass and entropy, and its sink mass, come closest to the trace's,
 * measured the same way (workload_stats.c). Then the layer's far spread (every head's scale, by one factor) is set
 * so that the engine's stage-1 share, averaged over the layer's heads, matches the trace's (one factor per layer: a
 * head's own share on one seed is mostly that seed's noise), and the heads' amplitudes are calibrated again. */

typedef struct {
    ls_config_workload w;          /* one query head, one KV head, the trace's geometry */
    const ls_engine_params *p;
    ls_wheads_knobs k0;
    double fr[FIT_PAIRS_MAX], ac0[FIT_PAIRS_MAX], as0[FIT_PAIRS_MAX], nc0[FIT_PAIRS_MAX], ns0[FIT_PAIRS_MAX];
    double alpha, sink;            /* the knobs being calibrated: a factor on the profile and noise amplitudes, the sink */
    double beta;                   /* the layer's factor on the far spread (scale) */
    bool sink_on;                  /* whether the sink bonus is calibrated */
    bool failed;
    int64_t seed;
    int qh, kvh;                   /* the head's indices in the fitted workload: its very numbers */
    ls_wheads_layout layout;       /* the fitted workload's channels */
    const ls_wstats_head *t;       /* the trace's statistics of this head */
} calib;

/* The generated head's statistics at the current knobs; the LAMP rates only with lamp (an engine run). */
static ls_wstats_head calib_eval(calib *c, bool lamp)
{
    ls_wstats_head st = {0};
    double ac[FIT_PAIRS_MAX], as[FIT_PAIRS_MAX], nc[FIT_PAIRS_MAX], ns[FIT_PAIRS_MAX];
    for (int f = 0; f < c->w.heads.pairs; ++f)
        ac[f] = c->alpha * c->ac0[f], as[f] = c->alpha * c->as0[f], nc[f] = c->alpha * c->nc0[f], ns[f] = c->alpha * c->ns0[f];
    ls_wheads_knobs k = c->k0;
    k.sink = c->sink, k.scale = c->beta * c->k0.scale;
    ls_attn_inputs g;
    char err[256];
    ls_wstats_opts o = ls_wstats_default_opts();
    o.lamp = lamp;
    if (ls_wheads_rotary_one(&c->w, c->seed, c->qh, c->kvh, &c->layout, &k, c->fr, ac, as, nc, ns, &g, err, sizeof err)) {
        c->failed = true;
        return st;
    }
    if (ls_wstats_measure(&g, 0, c->p, &o, &st, err, sizeof err) != 1) c->failed = true;
    ls_attn_inputs_release(&g);
    return st;
}

/* A knob's error against its target at the value x. */
typedef double (*knob_err)(void *ctx, double x);

/* Solves err(x) = 0 for a knob in [lo, hi] (log scale when logx), taking the root nearest the starting point x0:
 * the steps from it grow (x 2) towards the side that lowers the error until the error changes sign, then regula
 * falsi (Illinois) in that bracket. A far root is no better a fit: on a near-flat head the statistic hardly moves
 * with the knob, and a root 8 times away blows up the profile's wobbles. Without a sign change before the bounds,
 * the best point is kept only when it is clearly nearer the target (else the knob hardly matters). Returns x. */
static double solve_knob(knob_err err, void *ctx, double x0, double lo, double hi, bool logx, double tol)
{
#define KNOB_AT(u) err(ctx, logx ? exp(u) : (u))
    const double f0 = err(ctx, x0);
    if (fabs(f0) <= tol) return x0;
    const double u0 = logx ? log(x0) : x0, ulo = logx ? log(lo) : lo, uhi = logx ? log(hi) : hi;
    const double step0 = (uhi - ulo) / 32;
    /* the direction: one small step each way (a side at its bound is skipped) */
    double up = u0 + step0 < uhi ? u0 + step0 : uhi, dn = u0 - step0 > ulo ? u0 - step0 : ulo;
    double fup = up > u0 ? KNOB_AT(up) : f0;
    double fdn = dn < u0 ? KNOB_AT(dn) : f0;
    double a = u0, fa = f0, b, fb;
    if (fup * f0 <= 0 && up > u0) b = up, fb = fup;
    else if (fdn * f0 <= 0 && dn < u0) b = dn, fb = fdn;
    else {
        int dir = dn == u0 ? 1 : up == u0 ? -1 : fabs(fup) <= fabs(fdn) ? 1 : -1;   /* a side at its bound is out */
        double step = step0, bestu = u0, bestf = f0;
        a = dir > 0 ? up : dn, fa = dir > 0 ? fup : fdn, b = a, fb = fa;
        if (fabs(fa) < fabs(bestf)) bestu = a, bestf = fa;
        while (fb * f0 > 0) {
            double edge = dir > 0 ? uhi : ulo;
            if (b == edge) break;
            a = b, fa = fb, step *= 2;
            b = dir > 0 ? (a + step < uhi ? a + step : uhi) : (a - step > ulo ? a - step : ulo);
            fb = KNOB_AT(b);
            if (fabs(fb) < fabs(bestf)) bestu = b, bestf = fb;
        }
        if (fb * f0 > 0) return fabs(f0) - fabs(bestf) > 0.01 ? (logx ? exp(bestu) : bestu) : x0;
    }
    if (fabs(fb) <= tol) return logx ? exp(b) : b;
    int side = 0;
    double xm = b, fm = fb;
    for (int it = 0; it < 10 && fabs(fm) > tol; ++it) {
        xm = (a * fb - b * fa) / (fb - fa);
        fm = KNOB_AT(xm);
        if (fm * fb > 0) {
            b = xm, fb = fm;
            if (side == -1) fa /= 2;
            side = -1;
        } else {
            a = xm, fa = fm;
            if (side == 1) fb /= 2;
            side = 1;
        }
    }
    return logx ? exp(xm) : xm;
#undef KNOB_AT
}

static double local_err(void *ctx, double x)
{
    calib *c = ctx;
    c->alpha = x;
    return calib_eval(c, false).local_mass - c->t->local_mass;
}

static double sink_err(void *ctx, double x)
{
    calib *c = ctx;
    c->sink = x;
    return calib_eval(c, false).sink_mass - c->t->sink_mass;
}

/* Sets up the calibration of query head base + h (fitted from head h of in) against the trace's statistics t. */
static void calib_init(calib *c, const ls_wfit_sums *s, const ls_attn_inputs *in, int h, int base, int kv_out,
                       bool qk_norm, const ls_engine_params *p, const ls_wstats_head *t)
{
    const int P = s->pairs;
    *c = (calib){.p = p, .k0 = s->k[base + h], .alpha = 1, .beta = 1, .sink = s->k[base + h].sink,
                 .seed = s->seed, .qh = base + h, .kvh = kv_out, .t = t};
    ls_wheads_rotary_layout(in->dim, P, s->bias_ch, s->sink_ch, s->noise, &c->layout);
    c->w.batch = 1, c->w.heads_q = c->w.heads_kv = 1, c->w.seq_q = in->seq_q, c->w.seq_k = in->seq_k, c->w.dim = in->dim;
    c->w.causal = in->causal, c->w.sinks.count = s->sinks, c->w.rope.enabled = true, c->w.rope.base = 1e6;
    c->w.heads.qk_norm = qk_norm, c->w.heads.pairs = P, c->w.sharpness = 1, c->w.v_std = 1;
    if (!s->bias_ch) c->k0.bias = 0;
    for (int f = 0; f < P; ++f)
        c->fr[f] = s->freq[kv_out * P + f], c->ac0[f] = s->ac[(size_t)(base + h) * P + f], c->as0[f] = s->as[(size_t)(base + h) * P + f],
        c->nc0[f] = s->nc[(size_t)(base + h) * P + f], c->ns0[f] = s->ns[(size_t)(base + h) * P + f];
    c->sink_on = s->sink_ch && t->sink_mass > 0.02;   /* below, the sink hardly matters and the solve runs off */
}

/* Rounds of the head's amplitude (local mass and entropy) and sink bonus (sink mass); the first searches within
 * a factor w0, later ones within 2. */
static void calib_rounds(calib *c, int rounds, double w0)
{
    for (int round = 0; round < rounds && !c->failed; ++round) {
        double w = round ? 2.0 : w0;
        if (c->w.heads.pairs) {
            /* Local mass alone can be nearly flat in the amplitude (a near-uniform head): a far root buys little mass
             * and sharpens the head. So the amplitude is then chosen between the start and that root, on a log grid,
             * for the least error of local mass and entropy together. */
            const double a0 = c->alpha;
            const double a1 = solve_knob(local_err, c, c->alpha, c->alpha / w, c->alpha * w, true, 0.003);
            double best = a1, jbest = INFINITY;
            for (int g = 0; g <= 8 && a1 != a0; ++g) {
                c->alpha = a0 * pow(a1 / a0, g / 8.0);
                ls_wstats_head st = calib_eval(c, false);
                double j = fabs(st.local_mass - c->t->local_mass) + fabs(st.entropy - c->t->entropy);
                if (j < jbest) jbest = j, best = c->alpha;
            }
            c->alpha = best;
        }
        if (c->sink_on) c->sink = solve_knob(sink_err, c, c->sink, c->sink - 2 * w, c->sink + 2 * w, false, 0.002);
    }
}

/* The layer at the spread factor beta (every head's), each head's amplitude and sink calibrated again from its
 * knobs at 1, a0 and s0: the stage-1 share's error, the mean over heads and over 3 seeds (one seed's share is
 * mostly its noise; not the fit check's seeds +1 .. +4), and the heads' mean absolute errors of local mass and
 * entropy at the fitted seed. */
static ls_wfit_spread spread_eval(calib *c, int n, double beta, const double *a0, const double *s0)
{
    static const int64_t offsets[] = {0, 1009, 2017};
    enum { NS = sizeof offsets / sizeof *offsets };
    ls_wfit_spread r = {.factor = beta};
    for (int h = 0; h < n; ++h) {
        calib *ch = &c[h];
        const int64_t seed = ch->seed;
        ch->beta = beta, ch->alpha = a0[h], ch->sink = s0[h];
        if (beta != 1) calib_rounds(ch, 1, 2.0);   /* at 1 they are calibrated */
        for (int i = 0; i < NS; ++i) {
            ch->seed = seed + offsets[i];
            ls_wstats_head st = calib_eval(ch, true);
            r.stage1 += (st.stage1_rate - ch->t->stage1_rate) / (NS * n);
            if (!i) r.local += fabs(st.local_mass - ch->t->local_mass) / n, r.entropy += fabs(st.entropy - ch->t->entropy) / n;
        }
        ch->seed = seed;
    }
    return r;
}

/* The layer's error at r: stage 1 counted against half the fit's target (the rates are what the fit is for), local
 * mass and entropy against the check's limits. */
static double spread_cost(const ls_wfit_spread *r)
{
    return fabs(r->stage1) / FIT_SPREAD_STAGE1 + r->local / FIT_TOL_LOCAL + r->entropy / FIT_TOL_ENTROPY;
}

/* Whether r keeps the heads' shape: their mean local-mass and entropy errors within the fit check's limits, or no
 * worse than at the analytic spread (at1) where that is already past them. */
static bool spread_keeps_shape(const ls_wfit_spread *r, const ls_wfit_spread *at1)
{
    return r->local <= fmax(FIT_TOL_LOCAL, at1->local) && r->entropy <= fmax(FIT_TOL_ENTROPY, at1->entropy);
}

static void note_spread(ls_wfit_sums *s, const ls_wfit_spread *at1, const ls_wfit_spread *taken)
{
    ls_wfit_spread_note *n = realloc(s->spread, (size_t)(s->nspread + 1) * sizeof *n);
    if (!n) return;   /* a note lost, the fit stands */
    s->spread = n;
    n[s->nspread++] = (ls_wfit_spread_note){.layer = s->layers, .at1 = *at1, .taken = *taken};
}

void ls_wfit_calibrate_layer(ls_wfit_sums *s, const ls_attn_inputs *in, int base, int kv_base, bool qk_norm,
                             const ls_engine_params *p, const ls_wstats_head *t)
{
    const int n = in->heads_q, group = in->heads_q / in->heads_kv;
    calib *c = calloc((size_t)n, sizeof *c);
    /* each head's amplitude and sink at factor 1 (a0, s0) and at the best factor so far (ab, sb) */
    double *a0 = malloc((size_t)n * 4 * sizeof *a0), *s0 = a0 + n, *ab = a0 + 2 * n, *sb = a0 + 3 * n;
    if (!c || !a0) goto done;   /* the analytic fit stands */
    bool failed = false, spread = false, rates = true;
    for (int h = 0; h < n; ++h) {
        calib_init(&c[h], s, in, h, base, kv_base + h / group, qk_norm, p, &t[h]);
        calib_rounds(&c[h], 3, 8.0);
        spread |= c[h].k0.scale > 0;
        rates &= isfinite(t[h].stage1_rate);
        ab[h] = a0[h] = c[h].alpha, sb[h] = s0[h] = c[h].sink;
    }
    /* The far spread (it needs a random part) moves the stage-1 share, and entropy and local mass with it: a
     * layer whose share is clearly off (beyond the seeds' noise) gets the factor on a log grid, 1 included, with
     * the least error of the three together (spread_cost) among those that bring stage 1 nearer and keep the
     * heads' shape within the check's limits. */
    ls_wfit_spread at1, best = {.factor = 1};
    if (spread && rates && (at1 = spread_eval(c, n, 1.0, a0, s0), fabs(at1.stage1) > FIT_SPREAD_TRIGGER)) {
        best = at1;
        for (int i = -FIT_SPREAD_STEPS; i <= FIT_SPREAD_STEPS; ++i) {
            if (!i) continue;   /* 1: at1 */
            ls_wfit_spread r = spread_eval(c, n, pow(FIT_SPREAD_MAX, (double)i / FIT_SPREAD_STEPS), a0, s0);
            if (fabs(r.stage1) < fabs(at1.stage1) && spread_keeps_shape(&r, &at1) && spread_cost(&r) < spread_cost(&best)) {
                best = r;
                for (int h = 0; h < n; ++h) ab[h] = c[h].alpha, sb[h] = c[h].sink;
            }
        }
        note_spread(s, &at1, &best);
    }
    for (int h = 0; h < n; ++h) failed |= c[h].failed;
    for (int h = 0; h < n && !failed; ++h) {
        ls_wheads_knobs *k = &s->k[base + h];
        if (c[h].sink_on) k->sink = sb[h];
        k->scale *= best.factor;
        for (int f = 0; f < s->pairs; ++f) {
            size_t i = (size_t)(base + h) * s->pairs + f;
            s->ac[i] *= ab[h], s->as[i] *= ab[h], s->nc[i] *= ab[h], s->ns[i] *= ab[h];
        }
    }
done:
    free(c), free(a0);
}
