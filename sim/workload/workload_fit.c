#include "workload_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "io.h"
#include "workload_fit_internal.h"
#include "workload_internal.h"
#include "lsfp.h"
#include "workload_stats.h"

enum { FIT_ROWS = 512, FIT_GRID = 113 };

ls_wfit_sums *ls_wfit_sums_new(void)
{
    ls_wfit_sums *s = calloc(1, sizeof(ls_wfit_sums));
    if (s) s->calibrate = true;
    return s;
}

void ls_wfit_set_calibrate(ls_wfit_sums *s, bool on) { s->calibrate = on; }
void ls_wfit_set_seed(ls_wfit_sums *s, int64_t seed) { s->seed = seed; }

void ls_wfit_sums_free(ls_wfit_sums *s)
{
    if (s) free(s->k), free(s->spread), free(s->freq), free(s->ac), free(s->as), free(s->nc), free(s->ns), free(s);
}

const ls_wheads_knobs *ls_wfit_knobs(const ls_wfit_sums *s, int *n)
{
    *n = s->n;
    return s->n ? s->k : NULL;
}

/* Calls f(row logits, visible keys, query position) for the sampled rows of head h, last row first: at most about
 * FIT_ROWS of them, in runs of FIT_RUN adjacent rows (how alike neighbouring rows are is measured on them). */
typedef void (*row_fn)(void *user, const double *l, int n, int pos);
enum { FIT_RUN = 8 };

static int for_rows(const ls_attn_inputs *in, int h, row_fn f, void *user)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k, group = in->heads_q / in->heads_kv;
    int stride = SQ > FIT_ROWS ? (SQ + FIT_ROWS - 1) / FIT_ROWS : 1;
    double *l = malloc((size_t)SK * sizeof *l), inv = 1.0 / sqrt((double)D);
    if (!l) return -1;
    for (int b = 0; b < in->batch; ++b)
        for (int top = SQ - 1; top >= 0; top -= stride * FIT_RUN)
            for (int i = top; i > top - FIT_RUN && i >= 0; --i) {
                int n = ls_workload_visible_keys(in, i);
                if (!n) continue;
                lsfp_dot_rows_f64(in->q + (((size_t)b * in->heads_q + h) * SQ + i) * D,
                                  in->k + ((size_t)b * in->heads_kv + h / group) * SK * D, D, n, D, l);
                for (int j = 0; j < n; ++j) l[j] *= inv;
                f(user, l, n, i + SK - SQ);
            }
    free(l);
    return 0;
}

typedef struct {
    int sinks, tmax, window;
    double *sum, *cnt;          /* pass 1: mean logit at distance t < tmax (non-sink keys) */
    const ls_wheads_knobs *k;   /* pass 2: the fitted mean model */
    const double *kern;         /* K(t) at the fitted decay */
    double *vsum, *vcnt;        /* pass 2: variance about the row's far mean at distance t < window */
    double *r;                  /* a row's residuals */
    double sink_sum, sink_cnt, var_sum, var_cnt;
} fit_acc;

static void profile_row(void *user, const double *l, int n, int pos)
{
    fit_acc *a = user;
    for (int j = a->sinks; j < n; ++j) {
        int t = pos - j;
        if (t >= 0 && t < a->tmax) a->sum[t] += l[j], a->cnt[t] += 1;
    }
}

static double mean_model(const fit_acc *a, int t) { return a->k->bias + a->k->recency * (t < a->tmax ? a->kern[t] : 0.0); }

/* Residuals about the mean model: the sink's bonus, the far keys' spread (scale) and the extra spread
 * of the near keys (jitter), all within a row so that a row's own offset does not count. */
static void residual_row(void *user, const double *l, int n, int pos)
{
    fit_acc *a = user;
    double s = 0, ss = 0;
    int m = 0;
    for (int j = 0; j < n; ++j) {
        int t = pos - j < 0 ? 0 : pos - j;
        a->r[j] = l[j] - mean_model(a, t);
        if (j < a->sinks) a->sink_sum += a->r[j], a->sink_cnt += 1;
        else if (t >= a->window) s += a->r[j], ss += a->r[j] * a->r[j], ++m;
    }
    if (m < 2) return;
    double mean = s / m;
    a->var_sum += (ss - s * mean) / (m - 1), a->var_cnt += 1;
    for (int j = a->sinks; j < n; ++j) {
        int t = pos - j;
        if (t >= 0 && t < a->window) a->vsum[t] += (a->r[j] - mean) * (a->r[j] - mean), a->vcnt[t] += 1;
    }
}

int ls_wfit_head(const ls_attn_inputs *in, int h, int sinks, ls_wheads_knobs *k, char *err, size_t errlen)
{
    const int SK = in->seq_k;
    fit_acc a = {.sinks = sinks, .tmax = SK};
    a.sum = calloc((size_t)SK, sizeof *a.sum);
    a.cnt = calloc((size_t)SK, sizeof *a.cnt);
    double *kern = malloc((size_t)SK * sizeof *kern), *best_kern = malloc((size_t)SK * sizeof *best_kern);
    int rc = -1;
    if (!a.sum || !a.cnt || !kern || !best_kern || for_rows(in, h, profile_row, &a)) {
        ls_io_err(err, errlen, "workload fit: out of memory");
        goto done;
    }
    /* distances seen by at least 8 pairs, weighted by their counts */
    int tmax = 0;
    for (int t = 0; t < SK; ++t)
        if (a.cnt[t] >= 8) tmax = t + 1;
    if (tmax < 4) {
        ls_io_err(err, errlen, "workload fit: head %d: too few keys per row to fit (need distances 0..3 seen 8 times)", h);
        goto done;
    }
    a.tmax = tmax;
    /* mean logit at distance t = bias + recency K(t; decay): least squares in (bias, recency) per decay on a log grid */
    double best = INFINITY;
    ls_wheads_knobs kb = {0};
    for (int g = 0; g < FIT_GRID; ++g) {
        double L = 0.25 * pow(2.0, g / 8.0);   /* 0.25 .. 4096 tokens */
        double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
        for (int t = 0; t < tmax; ++t) {
            if (!a.cnt[t]) continue;
            double w = a.cnt[t], x = kern[t] = ls_wheads_kernel(L, t), y = a.sum[t] / a.cnt[t];
            sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y, syy += w * y * y;
        }
        double vx = sxx - sx * sx / sw, cxy = sxy - sx * sy / sw;
        double A = vx > 1e-12 * sw ? cxy / vx : 0, c = (sy - A * sx) / sw;
        double sse = syy - 2 * A * sxy - 2 * c * sy + A * A * sxx + 2 * A * c * sx + c * c * sw;
        if (sse < best * (1 - 1e-12)) {
            best = sse;
            kb = (ls_wheads_knobs){.bias = c, .recency = A, .decay = L};
            memcpy(best_kern, kern, (size_t)tmax * sizeof *kern);
        }
    }
    a.k = &kb;
    a.kern = best_kern;
    a.window = ls_wheads_window(kb.decay);
    a.vsum = calloc((size_t)a.window, sizeof *a.vsum);
    a.vcnt = calloc((size_t)a.window, sizeof *a.vcnt);
    a.r = malloc((size_t)SK * sizeof *a.r);
    if (!a.vsum || !a.vcnt || !a.r || for_rows(in, h, residual_row, &a)) {
        ls_io_err(err, errlen, "workload fit: out of memory");
        goto done;
    }
    kb.sink = a.sink_cnt ? a.sink_sum / a.sink_cnt : 0;
    double v_far = a.var_cnt ? a.var_sum / a.var_cnt : 0;
    kb.scale = sqrt(v_far);
    /* near-key variance in excess of the far keys' = (jitter recency K(t))^2: least squares over t */
    double num = 0, den = 0;
    for (int t = 0; t < a.window && t < tmax; ++t) {
        if (a.vcnt[t] < 8) continue;
        double c2 = kb.recency * kb.recency * best_kern[t] * best_kern[t];
        num += a.vcnt[t] * (a.vsum[t] / a.vcnt[t] - v_far) * c2, den += a.vcnt[t] * c2 * c2;
    }
    kb.jitter = den > 0 && num > 0 ? sqrt(num / den) : 0;
    *k = kb;
    rc = 0;
done:
    free(a.sum), free(a.cnt), free(a.vsum), free(a.vcnt), free(a.r), free(kern), free(best_kern);
    return rc;
}

/* Coefficient of variation of the row norms of x (rows of d). */
static double norm_cv(const float *x, size_t rows, int d)
{
    double s = 0, ss = 0;
    for (size_t r = 0; r < rows; ++r) {
        double n2 = 0;
        for (int t = 0; t < d; ++t) n2 += (double)x[r * d + t] * x[r * d + t];
        s += sqrt(n2), ss += n2;
    }
    double m = s / rows, v = ss / rows - m * m;
    return m > 0 ? sqrt(v > 0 ? v : 0) / m : 0;
}

/* ---- the rotary-pair fit (heads.pairs > 0): what `lampsim workload fit` writes ---- */

enum { FIT_OMEGAS = 384, FIT_EXTEND = 32, FIT_EXT_POINTS = 64 };
/* key_share: measured over groups of FIT_WARP query positions (the default tile's warp), at most FIT_SHARE_MAX */
enum { FIT_WARP = 32 };
/* the layout is searched where d / 5 gives fewer profile pairs than this (d < 32) */
enum { FIT_SEARCH_PAIRS = 6 };
#define FIT_SHARE_MAX 0.95
static const double PI = 3.14159265358979323846;

/* Solves the n x n system G x = b in place (Gaussian elimination, partial pivoting, a small ridge). */
static void solve(double *G, double *b, int n)
{
    double tr = 0;
    for (int i = 0; i < n; ++i) tr += G[i * n + i];
    for (int i = 0; i < n; ++i) G[i * n + i] += 1e-10 * (tr > 0 ? tr / n : 1);
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(G[r * n + c]) > fabs(G[p * n + c])) p = r;
        if (p != c) {
            for (int j = 0; j < n; ++j) { double t = G[c * n + j]; G[c * n + j] = G[p * n + j]; G[p * n + j] = t; }
            double t = b[c]; b[c] = b[p]; b[p] = t;
        }
        if (G[c * n + c] == 0) continue;
        for (int r = c + 1; r < n; ++r) {
            double f = G[r * n + c] / G[c * n + c];
            for (int j = c; j < n; ++j) G[r * n + j] -= f * G[c * n + j];
            b[r] -= f * b[c];
        }
    }
    for (int c = n - 1; c >= 0; --c) {
        double v = b[c];
        for (int j = c + 1; j < n; ++j) v -= G[c * n + j] * b[j];
        b[c] = G[c * n + c] != 0 ? v / G[c * n + c] : 0;
    }
}

/* One distance profile of a query head: a value y[t] at distance t, seen w[t] times (weights). */
typedef struct {
    double *y, *w;
    int tmax;
    bool no_const;   /* fitted without the constant (the noise kernel: its constant would be far spread) */
} profile;

/* Basis function b of the profile model at distance t: 1, then cos / sin of the chosen frequencies. */
static double basis(const double *om, int b, int t)
{
    return !b ? 1.0 : b % 2 ? cos(om[(b - 1) / 2] * t) : sin(om[(b - 1) / 2] * t);
}

static double eval_profile(const double *om, const double *c, int nb, int t)
{
    double m = 0;
    for (int i = 0; i < nb; ++i) m += c[i] * basis(om, i, t);
    return m;
}

/* Weighted least squares of profile p on the basis of nb functions: coefficients c[0 .. nb) (c[0] = 0 without
 * the constant), returns the SSE. */
static double fit_profile(const profile *p, const double *om, int nb, double *c)
{
    enum { NB = 2 * FIT_PAIRS_MAX + 1 };
    double G[NB * NB] = {0}, rhs[NB] = {0}, phi[NB];
    const int i0 = p->no_const, n = nb - i0;
    for (int t = 0; t < p->tmax; ++t) {
        if (!p->w[t]) continue;
        for (int i = 0; i < n; ++i) phi[i] = basis(om, i + i0, t);
        for (int i = 0; i < n; ++i) {
            rhs[i] += p->w[t] * phi[i] * p->y[t];
            for (int j = 0; j < n; ++j) G[i * n + j] += p->w[t] * phi[i] * phi[j];
        }
    }
    if (n > 0) solve(G, rhs, n);
    c[0] = 0;
    for (int i = 0; i < n; ++i) c[i + i0] = rhs[i];
    double sse = 0;
    for (int t = 0; t < p->tmax; ++t)
        if (p->w[t]) {
            double r = p->y[t] - eval_profile(om, c, nb, t);
            sse += p->w[t] * r * r;
        }
    return sse;
}

/* Frequencies shared by a KV head's query heads (their keys are shared), chosen greedily (orthogonal matching
 * pursuit on a log grid from pi / (2 tmax) to pi): each step adds the frequency whose cosine and sine best explain
 * the np profiles' residuals, then every profile's coefficients (coef, 2 P + 1 each) are refitted. Returns the
 * pairs used. */
static int choose_freqs(const profile *p, int np, int P, double *om, double *coef)
{
    int tmax = 0;
    for (int h = 0; h < np; ++h) tmax = p[h].tmax > tmax ? p[h].tmax : tmax;
    double *res = malloc((size_t)np * tmax * sizeof *res);
    if (!res) return -1;
    double total = 0, sse = 0;
    for (int h = 0; h < np; ++h) {
        sse += fit_profile(&p[h], om, 1, coef + h * (2 * P + 1));
        for (int t = 0; t < p[h].tmax; ++t) res[h * tmax + t] = p[h].y[t] - coef[h * (2 * P + 1)];
    }
    total = sse;
    int k = 0;
    for (; k < P && sse > 1e-9 * (total + 1e-300); ++k) {
        double best = -1, bw = PI;
        for (int g = 0; g < FIT_OMEGAS; ++g) {
            double w = PI * pow(2.0 * tmax, -(double)g / (FIT_OMEGAS - 1));
            double gain = 0;
            for (int h = 0; h < np; ++h) {
                double cc = 0, ss = 0, cs = 0, cr = 0, sr = 0;
                for (int t = 0; t < p[h].tmax; ++t) {
                    double wt = p[h].w[t];
                    if (!wt) continue;
                    double c = cos(w * t), s = sin(w * t), r = res[h * tmax + t];
                    cc += wt * c * c, ss += wt * s * s, cs += wt * c * s, cr += wt * c * r, sr += wt * s * r;
                }
                double det = cc * ss - cs * cs;
                if (det > 1e-12 * (cc * ss + 1e-300)) gain += (ss * cr * cr - 2 * cs * cr * sr + cc * sr * sr) / det;
                else if (cc > 0) gain += cr * cr / cc;
            }
            if (gain > best) best = gain, bw = w;
        }
        om[k] = bw;
        sse = 0;
        for (int h = 0; h < np; ++h) {
            double *c = coef + h * (2 * P + 1);
            sse += fit_profile(&p[h], om, 2 * k + 3, c);
            for (int t = 0; t < p[h].tmax; ++t) res[h * tmax + t] = p[h].y[t] - eval_profile(om, c, 2 * k + 3, t);
        }
    }
    free(res);
    return k;
}

/* Pass 2 of a head: the variance of the logits about the traced mean profile y at each distance (within the row,
 * so a row's own offset does not count), and the sink keys' logits with their distance. */
typedef struct {
    const profile *p;
    int sinks;
    double *r, *vsum, *vcnt;
    double *sink_l, *sink_t;   /* per row: the sink keys' mean logit, their distance */
    int nrows;
    /* the far residuals' correlation between the rows of a warp (FIT_WARP positions): per key, their sum and
     * sum of squares over the group's rows so far; pooled over groups into num / den */
    double *cs, *cq, num, den;
    int group, grows, gmin, gend;
    /* the same near the diagonal: the FIT_WARP keys just before the group (distances 1 .. 2 FIT_WARP - 1) */
    double ncs[FIT_WARP], ncq[FIT_WARP], nnum, nden;
} var_acc;

/* Pools a group of rows' cross products into the correlation num / den over keys lo .. hi - 1: per key, the square
 * of the rows' sum less their sum of squares is twice the sum over pairs of rows. */
static void pool_rows(const double *cs, const double *cq, int lo, int hi, int rows, double *num, double *den)
{
    for (int j = lo; j < hi; ++j) *num += cs[j] * cs[j] - cq[j], *den += (rows - 1) * cq[j];
}

/* Ends a group of rows: keys far (t >= tmax / 4) from every row of the group, the group's lowest position gmin. */
static void var_group_end(var_acc *a)
{
    if (a->grows >= 2) {
        pool_rows(a->cs, a->cq, a->sinks, a->gmin - a->p->tmax / 4 + 1, a->grows, &a->num, &a->den);
        pool_rows(a->ncs, a->ncq, 0, FIT_WARP, a->grows, &a->nnum, &a->nden);
    }
    for (int j = 0; j < a->gend; ++j) a->cs[j] = a->cq[j] = 0;
    for (int u = 0; u < FIT_WARP; ++u) a->ncs[u] = a->ncq[u] = 0;
    a->grows = 0, a->gend = 0;
}

static void var_row(void *user, const double *l, int n, int pos)
{
    var_acc *a = user;
    double s = 0, sl = 0;
    int m = 0;
    for (int j = 0; j < n; ++j) {
        int t = pos - j;
        if (j < a->sinks) sl += l[j];
        else if (t >= 0 && t < a->p->tmax && a->p->w[t] >= 8) a->r[j] = l[j] - a->p->y[t], s += a->r[j], ++m;
    }
    if (n > a->sinks && a->sinks) a->sink_l[a->nrows] = sl / a->sinks, a->sink_t[a->nrows++] = pos;
    if (m < 2) return;
    double mean = s / m;
    for (int j = a->sinks; j < n; ++j) {
        int t = pos - j;
        if (t >= 0 && t < a->p->tmax && a->p->w[t] >= 8)
            a->vsum[t] += (a->r[j] - mean) * (a->r[j] - mean), a->vcnt[t] += 1;
    }
    if (pos / FIT_WARP != a->group || (a->grows && pos > a->gmin))   /* a new group, or the next batch entry */
        var_group_end(a), a->group = pos / FIT_WARP;
    a->grows++, a->gmin = pos;   /* rows come last first */
    for (int j = a->sinks; j < n && pos - j >= a->p->tmax / 4; ++j)
        if (a->p->w[pos - j] >= 8) {
            double x = a->r[j] - mean;
            a->cs[j] += x, a->cq[j] += x * x;
            if (j + 1 > a->gend) a->gend = j + 1;
        }
    for (int u = 0, j0 = a->group * FIT_WARP - FIT_WARP; u < FIT_WARP; ++u) {
        int j = j0 + u, t = pos - j;
        if (j < 0 || j < a->sinks || j >= n || t >= a->p->tmax || a->p->w[t] < 8) continue;
        double x = a->r[j] - mean;
        a->ncs[u] += x, a->ncq[u] += x * x;
    }
}

/* The channels d leaves: a bias channel from d 8, a sink channel from d 4; then P pairs for the mean profile and
 * P for the near keys' extra spread (at most 12 each, about a sixth of d each), the random part the rest. */
static void choose_layout(int d, int sinks, ls_wfit_sums *s)
{
    s->bias_ch = d >= 8;
    s->sink_ch = sinks > 0 && d >= 4;
    int avail = d - s->bias_ch - s->sink_ch, P = avail / 5;
    if (!P) P = avail >= 2;
    s->pairs = P > FIT_PAIRS_MAX ? FIT_PAIRS_MAX : P;
    s->noise = avail >= 4 * s->pairs && s->pairs;
}

/* Fits the query heads of one KV head group of one layer: heads h0 .. h0 + nh - 1 into s at index base. */
static int fit_group(ls_wfit_sums *s, const ls_attn_inputs *in, int h0, int nh, int base, int kv_out, char *err,
                     size_t errlen)
{
    const int SK = in->seq_k, SQ = in->seq_q, P = s->pairs, nbmax = 2 * P + 1;
    profile *p = calloc((size_t)2 * nh, sizeof *p);   /* mean profiles, then the extra-spread profiles */
    double *coef = calloc((size_t)2 * nh * nbmax, sizeof *coef), om[FIT_PAIRS_MAX] = {0}, *S2 = calloc((size_t)nh, sizeof *S2);
    var_acc *va = calloc((size_t)nh, sizeof *va);
    int rc = -1, k = 0;
    if (!p || !coef || !S2 || !va) goto oom;
    for (int h = 0; h < nh; ++h) {
        fit_acc a = {.sinks = s->sinks, .tmax = SK};
        a.sum = calloc((size_t)FIT_EXTEND * SK, sizeof *a.sum);
        a.cnt = calloc((size_t)FIT_EXTEND * SK, sizeof *a.cnt);
        p[h].y = a.sum, p[h].w = a.cnt;
        if (!a.sum || !a.cnt || for_rows(in, h0 + h, profile_row, &a)) goto oom;
        int tmax = 0;
        for (int t = 0; t < SK; ++t) {
            if (a.cnt[t]) a.sum[t] /= a.cnt[t];
            if (a.cnt[t] >= 8) tmax = t + 1;
        }
        if (tmax < 4) {
            ls_io_err(err, errlen, "workload fit: head %d: too few keys per row to fit (need distances 0..3 seen 8 times)", h0 + h);
            goto done;
        }
        p[h].tmax = tmax;
        /* the variance about the mean profile per distance: far spread S2 (the last three quarters of the
         * distances) and the near keys' extra standard deviation, a profile of its own */
        var_acc *v = &va[h];
        *v = (var_acc){.p = &p[h], .sinks = s->sinks};
        v->r = calloc((size_t)FIT_EXTEND * SK, sizeof *v->r);
        v->vsum = calloc((size_t)SK, sizeof *v->vsum);
        v->vcnt = calloc((size_t)FIT_EXTEND * SK, sizeof *v->vcnt);
        v->sink_l = malloc((size_t)(SQ + 1) * in->batch * sizeof *v->sink_l);
        v->sink_t = malloc((size_t)(SQ + 1) * in->batch * sizeof *v->sink_t);
        v->cs = calloc((size_t)SK, sizeof *v->cs), v->cq = calloc((size_t)SK, sizeof *v->cq), v->group = -1;
        if (!v->r || !v->vsum || !v->vcnt || !v->sink_l || !v->sink_t || !v->cs || !v->cq ||
            for_rows(in, h0 + h, var_row, v))
            goto oom;
        var_group_end(v);
        double sw = 0, sv = 0;
        for (int t = tmax / 4; t < tmax; ++t)
            if (v->vcnt[t] >= 8) sw += v->vcnt[t], sv += v->vsum[t];
        S2[h] = sw > 0 ? sv / sw : 0;
        profile *e = &p[nh + h];
        e->no_const = true, e->tmax = tmax, e->y = v->r, e->w = v->vcnt;   /* reuses r: no longer needed */
        for (int t = 0; t < tmax; ++t) {
            double var = v->vcnt[t] >= 8 ? v->vsum[t] / v->vcnt[t] : 0;
            e->y[t] = var > S2[h] ? sqrt(var - S2[h]) : 0;
            if (v->vcnt[t] < 8) v->vcnt[t] = 0;
        }
        /* Beyond the traced distances the fitted workload must stay flat (a sum of cosines would otherwise
         * repeat its near peak at longer lengths): FIT_EXT_POINTS distances, log-spaced up to FIT_EXTEND times
         * as far, hold the far mean logit and no extra spread, together weighted as the far half of the trace. */
        double fy = 0, fw = 0;
        for (int t = tmax / 2; t < tmax; ++t) fy += p[h].w[t] * p[h].y[t], fw += p[h].w[t];
        for (int t = tmax; t < FIT_EXTEND * tmax; ++t) p[h].y[t] = p[h].w[t] = e->y[t] = e->w[t] = 0;
        for (int i = 1; i <= FIT_EXT_POINTS && fw > 0; ++i) {
            int t = (int)(tmax * pow(FIT_EXTEND, (double)i / FIT_EXT_POINTS)) - 1;
            p[h].y[t] = fy / fw, p[h].w[t] += fw / FIT_EXT_POINTS;
            e->w[t] = p[h].w[t];
        }
        p[h].tmax = e->tmax = FIT_EXTEND * tmax;
    }
    k = P ? choose_freqs(p, s->noise ? 2 * nh : nh, P, om, coef) : 0;
    if (k < 0) goto oom;
    if (!P)
        for (int h = 0; h < nh; ++h) fit_profile(&p[h], om, 1, coef + h * nbmax);
    for (int f = 0; f < P; ++f) s->freq[kv_out * P + f] = f < k ? om[f] : PI / 2;
    for (int h = 0; h < nh; ++h) {
        const double *c = coef + h * nbmax, *ce = coef + (nh + h) * nbmax;
        const var_acc *v = &va[h];
        /* the sink bonus: the sink keys' logit above the fitted mean profile at their distance */
        double ss = 0, ss2 = 0;
        for (int r = 0; r < v->nrows; ++r) {
            double x = v->sink_l[r] - eval_profile(om, c, 2 * k + 1, (int)v->sink_t[r]);
            ss += x, ss2 += x * x;
        }
        /* its spread over queries beyond what every key has (the far spread) */
        double sv = v->nrows > 1 ? (ss2 - ss * ss / v->nrows) / (v->nrows - 1) - S2[h] : 0;
        /* the noise kernel adds its square to the variance at every distance, the far ones included */
        double tail = 0, tw = 0;
        for (int t = p[h].tmax / 4; s->noise && t < p[h].tmax; ++t) {
            double e = eval_profile(om, ce, 2 * k + 1, t);
            tail += p[h].w[t] * e * e, tw += p[h].w[t];
        }
        double s2 = S2[h] - (tw > 0 ? tail / tw : 0);
        const double sr2 = s2 > 0 ? s2 : 0;   /* the random part's variance */
        ls_wheads_knobs *kn = &s->k[base + h];
        *kn = (ls_wheads_knobs){.scale = sqrt(sr2), .bias = c[0], .sink = v->nrows ? ss / v->nrows : 0,
                                .decay = 16, .sink_spread = sv > 0 ? sqrt(sv) : 0};
        /* the share of the far spread every query of a warp sees alike (a key's salience) */
        double share = v->den > 0 ? v->num / v->den : 0;
        kn->key_share = share > 0 ? (share < FIT_SHARE_MAX ? share : FIT_SHARE_MAX) : 0;
        /* near the diagonal the rows of a warp are alike by c_near; the noise term (kernel K, shared by every row)
         * and the random part (shared by key_share) give (K^2 (1 - 2 flip)^2 + key_share s^2) / (K^2 + s^2), K^2 the
         * kernel's mean square over those (row, key) distances: flip solves it */
        double K2 = 0, cw = 0;
        for (int t = 1; s->noise && t < 2 * FIT_WARP; ++t) {
            double e = eval_profile(om, ce, 2 * k + 1, t), wt = FIT_WARP - abs(t - FIT_WARP);
            K2 += wt * e * e, cw += wt;
        }
        K2 = cw > 0 ? K2 / cw : 0;
        if (K2 > 1e-3 * sr2 && v->nden > 0) {
            double cn = v->nnum / v->nden, c = (cn * (K2 + sr2) - kn->key_share * sr2) / K2;
            c = c < 0 ? 0 : c > 1 ? 1 : c;
            kn->noise_flip = (1 - sqrt(c)) / 2;
        }
        for (int f = 0; f < P; ++f) {
            size_t i = (size_t)(base + h) * P + f;
            s->ac[i] = f < k ? c[1 + 2 * f] : 0, s->as[i] = f < k ? c[2 + 2 * f] : 0;
            s->nc[i] = s->noise && f < k ? ce[1 + 2 * f] : 0, s->ns[i] = s->noise && f < k ? ce[2 + 2 * f] : 0;
        }
    }
    rc = 0;
    goto done;
oom:
    ls_io_err(err, errlen, "workload fit: out of memory");
done:
    for (int h = 0; p && h < nh; ++h) free(p[h].y), free(p[h].w);
    for (int h = 0; va && h < nh; ++h) free(va[h].r), free(va[h].vsum), free(va[h].vcnt), free(va[h].sink_l), free(va[h].sink_t), free(va[h].cs), free(va[h].cq);
    free(p), free(coef), free(S2), free(va);
    return rc;
}

/* ---- the layout at small d: d / 5 profile pairs (and as many noise pairs) leave too few cosines for a sharp local
 * profile (d 16: two). Below FIT_SEARCH_PAIRS pairs, every layout that leaves the random part 2 channels or more
 * (P pairs with or without noise pairs) is fitted to the first layer and built, and the one whose heads come
 * closest to the trace's, per head, in stage-1 share, local mass and entropy is kept. ---- */

static double layout_score(const ls_wfit_sums *t, const ls_attn_inputs *in, const ls_engine_params *p,
                           const ls_wstats_head *traced, char *err, size_t errlen)
{
    ls_config_workload w = {0};
    w.batch = 1, w.heads_q = in->heads_q, w.heads_kv = in->heads_kv, w.seq_q = in->seq_q, w.seq_k = in->seq_k;
    w.dim = in->dim, w.causal = in->causal, w.sinks.count = t->sinks, w.rope.enabled = true, w.rope.base = 1e6;
    w.heads.qk_norm = t->qk_norm_votes > 0, w.heads.pairs = t->pairs, w.sharpness = 1, w.v_std = 1;
    ls_attn_inputs g;
    if (ls_wheads_rotary(&w, t->seed, t->k, t->freq, t->ac, t->as, t->nc, t->ns, &g, err, errlen)) return -1;
    ls_wstats_head *st = calloc((size_t)in->heads_q, sizeof *st);
    ls_wstats_opts o = ls_wstats_default_opts();
    o.sink_keys = t->sinks;
    double score = -1;
    if (st && ls_wstats_measure(&g, 0, p, &o, st, err, errlen) == in->heads_q) {
        score = 0;
        for (int h = 0; h < in->heads_q; ++h)
            score += fabs(st[h].stage1_rate - traced[h].stage1_rate) + fabs(st[h].local_mass - traced[h].local_mass) +
                     fabs(st[h].entropy - traced[h].entropy);
        score /= in->heads_q;
    }
    free(st);
    ls_attn_inputs_release(&g);
    return score;
}

static int search_layout(ls_wfit_sums *s, const ls_attn_inputs *in, int layer, const ls_engine_params *p, char *err,
                         size_t errlen)
{
    ls_wstats_head *traced = calloc((size_t)in->heads_q, sizeof *traced);
    ls_wstats_opts o = ls_wstats_default_opts();
    o.sink_keys = s->sinks;
    if (!traced || ls_wstats_measure(in, layer, p, &o, traced, err, errlen) != in->heads_q) {
        if (!traced) ls_io_err(err, errlen, "out of memory");
        free(traced);
        return -1;
    }
    const int avail = in->dim - s->bias_ch - s->sink_ch;
    int best_p = s->pairs, rc = 0;
    bool best_noise = s->noise;
    double best = INFINITY;
    for (int noise = 1; noise >= 0 && !rc; --noise)
        for (int P = 1; P <= FIT_PAIRS_MAX && 2 * P * (1 + noise) <= avail - 2; ++P) {
            ls_wfit_sums *t = ls_wfit_sums_new();
            if (!t) {
                ls_io_err(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            t->seed = s->seed, t->calibrate = true, t->sinks = s->sinks, t->bias_ch = s->bias_ch, t->sink_ch = s->sink_ch;
            t->pairs = P, t->noise = noise, t->layout_set = true;
            double sc = ls_wfit_accumulate(t, in, layer, p, err, errlen) ? -1 : layout_score(t, in, p, traced, err, errlen);
            ls_wfit_sums_free(t);
            if (sc < 0) {
                rc = -1;
                break;
            }
            if (sc < best - 1e-12) best = sc, best_p = P, best_noise = noise;
        }
    free(traced);
    s->pairs = best_p, s->noise = best_noise, s->layout_set = true;
    return rc;
}

int ls_wfit_accumulate(ls_wfit_sums *s, const ls_attn_inputs *in, int layer, const ls_engine_params *p, char *err,
                       size_t errlen)
{
    (void)layer;
    if (s->layers && (in->heads_q != s->heads_q || in->heads_kv != s->heads_kv || in->dim != s->dim)) {
        ls_io_err(err, errlen, "heads %d/%d, d %d differ from the first trace's %d/%d, d %d", in->heads_q, in->heads_kv,
                  in->dim, s->heads_q, s->heads_kv, s->dim);
        return -1;
    }
    if (in->dim < 2 || in->dim % 2) {
        ls_io_err(err, errlen, "head dimension %d: the heads generator needs an even d >= 2", in->dim);
        return -1;
    }
    if (in->causal && in->window > 0 && in->window < in->seq_k) {   /* the profiles assume every earlier key seen */
        ls_io_err(err, errlen, "workload.window %d < %d keys: the fit reads causal attention over all keys (fit the "
                  "layer at most %d tokens long, or without the window)", in->window, in->seq_k, in->window);
        return -1;
    }
    if (!s->layers && !s->layout_set) {
        s->sinks = 1, choose_layout(in->dim, s->sinks, s);
        if (p && s->calibrate && s->pairs < FIT_SEARCH_PAIRS && search_layout(s, in, layer, p, err, errlen)) return -1;
    }
    const int P = s->pairs, group = in->heads_q / in->heads_kv;
    int nkv = (s->layers + 1) * in->heads_kv;
    if (s->n + in->heads_q > s->cap) {
        int cap = (s->n + in->heads_q) * 2;
        ls_wheads_knobs *k = realloc(s->k, (size_t)cap * sizeof *k);
        if (k) s->k = k;
        double *ac = k ? realloc(s->ac, (size_t)cap * (P ? P : 1) * sizeof *ac) : NULL;
        if (ac) s->ac = ac;
        double *as = ac ? realloc(s->as, (size_t)cap * (P ? P : 1) * sizeof *as) : NULL;
        if (as) s->as = as;
        double *fr = as ? realloc(s->freq, (size_t)cap * (P ? P : 1) * sizeof *fr) : NULL;
        if (fr) s->freq = fr;
        double *nc = fr ? realloc(s->nc, (size_t)cap * (P ? P : 1) * sizeof *nc) : NULL;
        if (nc) s->nc = nc;
        double *ns = nc ? realloc(s->ns, (size_t)cap * (P ? P : 1) * sizeof *ns) : NULL;
        if (ns) s->ns = ns;
        if (!ns) {
            ls_io_err(err, errlen, "out of memory");
            return -1;
        }
        s->cap = cap;
    }
    for (int g = 0; g < in->heads_kv; ++g)
        if (fit_group(s, in, g * group, group, s->n + g * group, nkv - in->heads_kv + g, err, errlen)) return -1;
    for (int h = 0; h < in->heads_q; ++h) {
        if (!s->bias_ch) s->k[s->n + h].bias = 0;
        if (!s->sink_ch) s->k[s->n + h].sink = s->k[s->n + h].sink_spread = 0;
        if (in->dim - s->bias_ch - s->sink_ch - 2 * s->pairs * (1 + s->noise) <= 0) s->k[s->n + h].scale = 0;
    }
    size_t nq = (size_t)in->batch * in->heads_q * in->seq_q, nk = (size_t)in->batch * in->heads_kv * in->seq_k;
    bool qk_norm = norm_cv(in->q, nq, in->dim) < 0.05 && norm_cv(in->k, nk, in->dim) < 0.05;
    if (p && s->calibrate) {
        ls_wstats_head *t = calloc((size_t)in->heads_q, sizeof *t);
        ls_wstats_opts o = ls_wstats_default_opts();
        o.sink_keys = s->sinks;
        if (!t || ls_wstats_measure(in, layer, p, &o, t, err, errlen) != in->heads_q) {
            free(t);
            if (!t) ls_io_err(err, errlen, "out of memory");
            return -1;
        }
        ls_wfit_calibrate_layer(s, in, s->n, nkv - in->heads_kv, qk_norm, p, t);
        free(t);
    }
    s->n += in->heads_q;
    s->heads_q = in->heads_q, s->heads_kv = in->heads_kv, s->dim = in->dim;
    if (in->seq_q > s->seq_q) s->seq_q = in->seq_q;
    if (in->seq_k > s->seq_k) s->seq_k = in->seq_k;
    s->causal = in->causal;
    /* QK-norm leaves every row with nearly the same norm: a few percent at most */
    s->qk_norm_votes += qk_norm;
    s->layers++;
    return 0;
}

void ls_wfit_layout_notes(const ls_wfit_sums *s, FILE *out)
{
    if (!s->layers) return;
    if (!s->bias_ch)
        fprintf(out, "lampsim workload fit: warning: d %d has no channel for the mean logit (bias set to 0): it moves "
                     "only stage 1's margin |mu| delta\n", s->dim);
    if (!s->sink_ch && s->sinks)
        fprintf(out, "lampsim workload fit: warning: d %d has no channel for the sink bonus (sink set to 0)\n", s->dim);
    int left = s->dim - s->bias_ch - s->sink_ch - 2 * s->pairs * (1 + s->noise);
    if (!left)
        fprintf(out, "lampsim workload fit: warning: d %d leaves no channel for the random part: scale set to 0, the "
                     "fitted logits are the mean profile only\n", s->dim);
    else if (s->pairs < 3)
        fprintf(out, "lampsim workload fit: warning: d %d leaves %d rotary pair(s) for the distance profile: sharp local "
                     "profiles are approximated by %d cosine(s)\n", s->dim, s->pairs, s->pairs);
}

void ls_wfit_print_spread_notes(const ls_wfit_sums *s, FILE *out)
{
    for (int i = 0; i < s->nspread; ++i) {
        const ls_wfit_spread *a = &s->spread[i].at1, *b = &s->spread[i].taken;
        fprintf(out, "lampsim workload fit: fitted layer %d: stage 1 %+.3f off the traces' (3 seeds) at the analytic "
                     "far spread; ", s->spread[i].layer, a->stage1);
        if (b->factor == 1)
            fprintf(out, "kept (no factor on scale from %.2g to %.2g brings it nearer for less error in stage 1, local "
                         "mass and entropy together)\n", 1 / FIT_SPREAD_MAX, FIT_SPREAD_MAX);
        else
            fprintf(out, "scale x%.3g gives %+.3f, the heads' local mass off by %.3f (was %.3f) and entropy by %.3f "
                         "(was %.3f) on average\n", b->factor, b->stage1, b->local, a->local, b->entropy, a->entropy);
    }
}

static void put_list(FILE *f, const char *key, const ls_wheads_knobs *k, int n, size_t off)
{
    fprintf(f, "  %s: \"", key);
    for (int h = 0; h < n; ++h) fprintf(f, "%s%.4g", h ? " " : "", *(const double *)((const char *)&k[h] + off));
    fprintf(f, "\"\n");
}

/* A list of n numbers; -1 when it would not fit a configuration list. */
static int put_array(FILE *f, const char *key, const double *v, int n)
{
    size_t len = 0;
    char buf[32];
    for (int i = 0; i < n; ++i) len += (size_t)snprintf(buf, sizeof buf, " %.6g", v[i]);
    if (len >= LS_CONFIG_LIST_MAX) return -1;
    fprintf(f, "  %s: \"", key);
    for (int i = 0; i < n; ++i) fprintf(f, "%s%.6g", i ? " " : "", v[i]);
    fprintf(f, "\"\n");
    return 0;
}

int ls_wfit_write(const ls_wfit_sums *s, const ls_config_workload *base, const char *name, const char *path, char *err,
                  size_t errlen)
{
    if (!s->n) {
        ls_io_err(err, errlen, "nothing fitted");
        return -1;
    }
    ls_atomic_file af;   /* written whole or not at all (a device or FIFO in place) */
    if (ls_atomic_file_open(&af, path, err, errlen)) return -1;
    FILE *f = af.fp;
    const char *dt[] = {"fp32", "bf16", "fp16"};
    fprintf(f, "# SYNTHETIC: the heads generator fitted by `lampsim workload fit` to %d traced layer(s) of %d query / %d KV\n"
               "# heads each; query head L*%d + h imitates head h of traced layer L (knobs: docs/workloads.md).\n"
               "# The mean logit at distance t is bias + sum of amp_cos cos(freq t) + amp_sin sin(freq t) (heads.pairs rotary\n"
               "# pairs, freq per KV head); RoPE is not fitted (it changes no statistic of the random part).\n",
            s->layers, s->heads_q, s->heads_kv, s->heads_q);
    fputs("name: ", f);   /* quoted: "x: y" or a newline in --name cannot make or inject keys */
    ls_config_write_yaml_string(f, name ? name : "fitted");
    fputc('\n', f);
    fprintf(f, "description: \"SYNTHETIC: heads generator fitted to %d traced layer(s) (lampsim workload fit)\"\n", s->layers);
    fprintf(f, "batch: 1\nheads_q: %d\nheads_kv: %d\nseq_q: %d\nseq_k: %d\ndim: %d\ncausal: %s\ndtype: %s\n", s->n,
            s->heads_kv * s->layers, s->seq_q, s->seq_k, s->dim, s->causal ? "true" : "false", dt[base->dtype]);
    fprintf(f, "generator: heads\nsinks:\n  count: %d\nheads:\n  qk_norm: %s\n", s->sinks,
            2 * s->qk_norm_votes > s->layers ? "true" : "false");
    put_list(f, "scale", s->k, s->n, offsetof(ls_wheads_knobs, scale));
    put_list(f, "bias", s->k, s->n, offsetof(ls_wheads_knobs, bias));
    put_list(f, "sink", s->k, s->n, offsetof(ls_wheads_knobs, sink));
    put_list(f, "sink_spread", s->k, s->n, offsetof(ls_wheads_knobs, sink_spread));
    put_list(f, "key_share", s->k, s->n, offsetof(ls_wheads_knobs, key_share));
    put_list(f, "noise_flip", s->k, s->n, offsetof(ls_wheads_knobs, noise_flip));
    fprintf(f, "  pairs: %d\n", s->pairs ? s->pairs : 0);
    if (s->pairs && (put_array(f, "freq", s->freq, s->heads_kv * s->layers * s->pairs) ||
                     put_array(f, "amp_cos", s->ac, s->n * s->pairs) || put_array(f, "amp_sin", s->as, s->n * s->pairs) ||
                     (s->noise && (put_array(f, "noise_cos", s->nc, s->n * s->pairs) ||
                                   put_array(f, "noise_sin", s->ns, s->n * s->pairs))))) {
        ls_atomic_file_abort(&af);
        ls_io_err(err, errlen, "%s: the fitted amplitude lists exceed %d characters (fit fewer layers at once)", path,
                  LS_CONFIG_LIST_MAX - 1);
        return -1;
    }
    return ls_atomic_file_commit(&af, err, errlen);
}
