#include "workload_stats.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "workload_internal.h"
#include "lsfp.h"

ls_wstats_opts ls_wstats_default_opts(void)
{
    return (ls_wstats_opts){.sink_keys = 1, .local_keys = 16, .row_budget = 134217728.0, .lamp = true};
}

/* stage 1's test in float64: does a block whose maximum is m leave the running maximum mu alone? */
static bool keeps_max(double mu, double m, double delta) { return mu > -INFINITY && mu > m + fabs(mu) * delta; }

/* Rows of one (batch, head): accumulates the sums of every statistic. */
typedef struct {
    double entropy, top1, sink, local, span, std, max_abs, cos;
    long rows, rows_entropy, rows_cos, tiles, tiles_raised, subs, subs_raised;
} sums;

/* One row's logits l[j] for its visible keys lo <= j < n (a sliding window starts at lo > 0; sink keys
 * outside it count as no mass, key tiles stay aligned to absolute key positions as the engine's). Returns the
 * key of the largest logit (the first of equals). */
static int measure_row(const double *l, int lo, int n, const ls_wstats_opts *o, int bc, int bk, double delta,
                       sums *s)
{
    double mx = -INFINITY, mn = INFINITY, mean = 0;
    int top = lo;
    for (int j = lo; j < n; ++j) {
        if (l[j] > mx) mx = l[j], top = j;
        mn = l[j] < mn ? l[j] : mn;
        mean += l[j];
        if (fabs(l[j]) > s->max_abs) s->max_abs = fabs(l[j]);
    }
    const int nv = n - lo;
    mean /= nv;
    double z = 0, ez = 0, var = 0, sink = 0, local = 0;
    for (int j = lo; j < n; ++j) {
        double e = exp(l[j] - mx);
        z += e;
        ez += e * (l[j] - mx);
        var += (l[j] - mean) * (l[j] - mean);
        if (j < o->sink_keys) sink += e;
        if (j >= n - o->local_keys) local += e;
    }
    /* H = ln z - E[l - mx] */
    if (nv >= 2) {
        s->entropy += (log(z) - ez / z) / log((double)nv);
        s->rows_entropy++;
    }
    s->top1 += 1.0 / z;
    s->sink += sink / z;
    s->local += local / z;
    s->span += mx - mn;
    s->std += sqrt(var / nv);
    s->rows++;
    for (int pass = 0; pass < 2; ++pass) {
        int w = pass ? bk : bc;
        double mu = -INFINITY;
        for (int j0 = lo / w * w; j0 < n; j0 += w) {
            double m = -INFINITY;
            for (int j = j0 > lo ? j0 : lo; j < n && j < j0 + w; ++j) m = l[j] > m ? l[j] : m;
            bool raised = !keeps_max(mu, m, delta);
            if (pass) s->subs++, s->subs_raised += raised;
            else s->tiles++, s->tiles_raised += raised;
            mu = m > mu ? m : mu;
        }
    }
    return top;
}

/* The cosine between query q and key top, the row's largest logit l[top] = q . k_top / sqrt(d) (rows whose query
 * or top key is zero have none). */
static void measure_top_cos(const double *l, int top, const float *q, const float *kb, int D, sums *s)
{
    double qq = 0, kk = 0;
    const float *k = kb + (size_t)top * D;
    for (int t = 0; t < D; ++t) qq += (double)q[t] * q[t], kk += (double)k[t] * k[t];
    if (!(qq > 0 && kk > 0)) return;
    s->cos += l[top] * sqrt((double)D) / sqrt(qq * kk);
    s->rows_cos++;
}

typedef struct {
    long active, hp;
} stage1_count;

/* Stage 1 (numerics.md D.2 steps 2-4) on one warp's float64 logits l[r * ldl + j], rows seeing nv[r] keys:
 * per key tile, threats T = max_r (m_r - mu_r), sub-blocks by descending T (stable), each kept unless
 * some row fails mu_hat > m + |mu_hat| delta, an HP one raising mu_hat; mu <- mu_hat after the tile. */
static void stage1_warp(const double *l, int ldl, const int *lo, const int *nv, int nr, const ls_engine_params *p,
                        stage1_count *c)
{
    const int bk = p->b_k, nk = p->n_k, bc = bk * nk;
    double mu[1024], m[16][1024], T[16];
    int order[16], nmax = 0, lmin = INT_MAX;
    for (int r = 0; r < nr; ++r) {
        mu[r] = -INFINITY, nmax = nv[r] > nmax ? nv[r] : nmax;
        if (nv[r] > lo[r] && lo[r] < lmin) lmin = lo[r];
    }
    if (lmin == INT_MAX) return;
    for (int j0 = lmin / bc * bc; j0 < nmax; j0 += bc) {   /* tiles before every row's window: skipped */
        for (int th = 0; th < nk; ++th) {
            T[th] = -INFINITY;
            bool any = false;
            for (int r = 0; r < nr; ++r) {
                double x = -INFINITY;
                int j1 = j0 + th * bk > lo[r] ? j0 + th * bk : lo[r];
                for (int j = j1; j < j0 + (th + 1) * bk && j < nv[r]; ++j) x = l[(size_t)r * ldl + j] > x ? l[(size_t)r * ldl + j] : x;
                m[th][r] = x;
                if (x == -INFINITY) continue;
                any = true;
                double t = mu[r] == -INFINITY ? INFINITY : x - mu[r];
                T[th] = t > T[th] ? t : T[th];
            }
            c->active += any;
            int q = th;   /* insertion sort, descending, stable */
            while (q > 0 && T[order[q - 1]] < T[th]) order[q] = order[q - 1], --q;
            order[q] = th;
        }
        for (int k = 0; k < nk; ++k) {
            int th = order[k];
            bool pass = true;
            for (int r = 0; r < nr && pass; ++r)
                if (m[th][r] > -INFINITY && !keeps_max(mu[r], m[th][r], p->delta)) pass = false;
            if (pass) continue;
            c->hp++;
            for (int r = 0; r < nr; ++r) mu[r] = m[th][r] > mu[r] ? m[th][r] : mu[r];
        }
    }
}

static int run_engine(const ls_attn_inputs *in, int b, int h, const ls_engine_params *p, int rows, ls_wstats_head *out,
                      char *err, size_t errlen)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k, group = in->heads_q / in->heads_kv;
    int r = rows > 0 && rows < SQ ? rows : SQ;
    ls_attn_inputs view = {.batch = 1, .heads_q = 1, .heads_kv = 1, .seq_q = r, .seq_k = SK, .dim = D, .causal = in->causal,
                           .window = in->window};
    /* the last r rows: bottom-right alignment keeps each row's visible keys */
    view.q = in->q + (((size_t)b * in->heads_q + h) * SQ + (SQ - r)) * D;
    view.k = in->k + ((size_t)b * in->heads_kv + h / group) * SK * D;
    view.v = in->v + ((size_t)b * in->heads_kv + h / group) * SK * D;
    ls_engine_params q = *p;
    q.compute_reference = false;
    q.keep_reference = q.keep_tile_records = q.keep_lamp_code_mask = false;
    q.progress = NULL;
    ls_engine_result res;
    memset(&res, 0, sizeof res);
    int rc = ls_engine_run(&q, &view, &res, err, errlen);
    if (!rc) {
        double act = (double)res.recompute.subblocks_active;
        out->stage1_rate += act > 0 ? res.recompute.stage1_subblocks / act : 0;
        out->stage2_rate += act > 0 ? res.recompute.stage2_subblocks / act : 0;
        out->subblock_rate += res.recompute.subblock_rate;
        out->disruptive_rate += res.tiles.disruptive_rate;
        out->engine_rows = r;
    }
    ls_engine_result_free(&res);
    return rc;
}

int ls_wstats_measure(const ls_attn_inputs *in, int layer, const ls_engine_params *p, const ls_wstats_opts *o,
                      ls_wstats_head *heads, char *err, size_t errlen)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k, HQ = in->heads_q, group = in->heads_q / in->heads_kv;
    if (o->sink_keys < 1 || o->local_keys < 1) {
        ls_io_err(err, errlen, "workload stats: sink and local key counts must be >= 1 (got %d, %d)", o->sink_keys,
                  o->local_keys);
        return -1;
    }
    int nh = o->heads > 0 && o->heads < HQ ? o->heads : HQ;
    double keys = in->causal && in->window > 0 && in->window < SK ? in->window : SK;   /* per row, at most */
    double work = (double)in->batch * SQ * keys * D;
    int stride = o->row_budget > 0 && work > o->row_budget ? (int)ceil(work / o->row_budget) : 1;
    if (stride > SQ) stride = SQ;
    const int bq = p->b_q;
    double *l = malloc((size_t)SK * (stride == 1 ? bq : 1) * sizeof *l);   /* a warp of rows, or one row */
    if (!l) {
        ls_io_err(err, errlen, "workload stats: out of memory");
        return -1;
    }
    const double inv = 1.0 / sqrt((double)D);
    const int bk = p->b_k, bc = p->b_k * p->n_k;
    for (int h = 0; h < nh; ++h) {
        ls_wstats_head *out = &heads[h];
        memset(out, 0, sizeof *out);
        sums s = {0};
        stage1_count st = {0};
        for (int b = 0; b < in->batch; ++b) {
            const float *kb = in->k + ((size_t)b * in->heads_kv + h / group) * SK * D;
            if (stride > 1) {
                for (int i = SQ - 1; i >= 0; i -= stride) {   /* from the last row: it is always measured */
                    int n = ls_workload_visible_keys(in, i), lo = ls_workload_first_visible_key(in, i);
                    if (n <= lo) continue;
                    const float *qi = in->q + (((size_t)b * HQ + h) * SQ + i) * D;
                    lsfp_dot_rows_f64(qi, kb + (size_t)lo * D, D, n - lo, D, l + lo);
                    for (int j = lo; j < n; ++j) l[j] *= inv;
                    measure_top_cos(l, measure_row(l, lo, n, o, bc, bk, p->delta, &s), qi, kb, D, &s);
                }
                continue;
            }
            for (int w0 = 0; w0 < SQ; w0 += bq) {   /* warps as the engine forms them */
                int nr = SQ - w0 < bq ? SQ - w0 : bq, nv[1024], lo[1024];
                for (int r = 0; r < nr; ++r) {
                    double *lr = l + (size_t)r * SK;
                    nv[r] = ls_workload_visible_keys(in, w0 + r);
                    lo[r] = ls_workload_first_visible_key(in, w0 + r);
                    if (nv[r] <= lo[r]) continue;
                    const float *qr = in->q + (((size_t)b * HQ + h) * SQ + w0 + r) * D;
                    lsfp_dot_rows_f64(qr, kb + (size_t)lo[r] * D, D, nv[r] - lo[r], D, lr + lo[r]);
                    for (int j = lo[r]; j < nv[r]; ++j) lr[j] *= inv;
                    measure_top_cos(lr, measure_row(lr, lo[r], nv[r], o, bc, bk, p->delta, &s), qr, kb, D, &s);
                }
                stage1_warp(l, SK, lo, nv, nr, p, &st);
            }
        }
        *out = (ls_wstats_head){.layer = layer, .head = h, .kv_head = h / group, .rows = s.rows, .row_stride = stride,
                                .max_abs_logit = s.max_abs};
        double r = s.rows > 0 ? (double)s.rows : NAN;
        out->entropy = s.rows_entropy ? s.entropy / s.rows_entropy : NAN;
        out->top1 = s.top1 / r;
        out->sink_mass = s.sink / r;
        out->local_mass = s.local / r;
        out->logit_span = s.span / r;
        out->logit_std = s.std / r;
        out->top_cos = s.rows_cos ? s.cos / s.rows_cos : NAN;
        out->raise_tile = s.tiles ? (double)s.tiles_raised / s.tiles : NAN;
        out->raise_sub = s.subs ? (double)s.subs_raised / s.subs : NAN;
        out->stage1_exact = stride == 1 && st.active ? (double)st.hp / st.active : NAN;
        if (!o->lamp) {
            out->stage1_rate = out->stage2_rate = out->subblock_rate = out->disruptive_rate = NAN;
            continue;
        }
        for (int b = 0; b < in->batch; ++b)
            if (run_engine(in, b, h, p, o->engine_rows, out, err, errlen)) {
                free(l);
                return -1;
            }
        out->stage1_rate /= in->batch;
        out->stage2_rate /= in->batch;
        out->subblock_rate /= in->batch;
        out->disruptive_rate /= in->batch;
    }
    free(l);
    return nh;
}

#define WSTATS_FIELDS(X) \
    X(entropy) X(top1) X(sink_mass) X(local_mass) X(logit_span) X(max_abs_logit) X(logit_std) X(top_cos) X(raise_tile) \
    X(raise_sub) X(stage1_exact) X(stage1_rate) X(stage2_rate) X(subblock_rate) X(disruptive_rate)

void ls_wstats_csv(FILE *out, const ls_wstats_head *h, int n, bool with_header)
{
#define NAME(f) ",", #f,
    if (with_header) {
        const char *names[] = {WSTATS_FIELDS(NAME) NULL};
        fputs("layer,head,kv_head,rows,row_stride,engine_rows", out);
        for (int i = 0; names[i]; ++i) fputs(names[i], out);
        fputc('\n', out);
    }
#undef NAME
#define VAL(f) fprintf(out, ",%.6g", x->f);
    for (int i = 0; i < n; ++i) {
        const ls_wstats_head *x = &h[i];
        fprintf(out, "%d,%d,%d,%ld,%d,%ld", x->layer, x->head, x->kv_head, x->rows, x->row_stride, x->engine_rows);
        WSTATS_FIELDS(VAL)
        fputc('\n', out);
    }
#undef VAL
}

void ls_wstats_summary(FILE *out, const char *name, const ls_wstats_head *h, int n)
{
    if (n <= 0) return;
    fprintf(out, "%s: %d head(s), %ld rows per head (every %d-th), engine on the last %ld rows\n", name, n, h[0].rows,
            h[0].row_stride, h[0].engine_rows);
    fprintf(out, "  %-16s %9s %9s %9s\n", "statistic", "mean", "min", "max");
#define SUM(f)                                                                  \
    {                                                                           \
        double m = 0, lo = INFINITY, hi = -INFINITY;                            \
        for (int i = 0; i < n; ++i) {                                           \
            m += h[i].f;                                                        \
            lo = h[i].f < lo ? h[i].f : lo;                                     \
            hi = h[i].f > hi ? h[i].f : hi;                                     \
        }                                                                       \
        fprintf(out, "  %-16s %9.4g %9.4g %9.4g\n", #f, m / n, lo, hi);         \
    }
    WSTATS_FIELDS(SUM)
#undef SUM
}
