#include "workload_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "io.h"
#include "workload_internal.h"
#include "lsfp.h"

struct ls_wfit_sums {
    ls_wheads_knobs *k;
    int n, cap;
    int heads_q, heads_kv, layers, seq_q, seq_k, dim, sinks;
    bool causal;
    int qk_norm_votes;
};

enum { FIT_ROWS = 512, FIT_GRID = 113 };

ls_wfit_sums *ls_wfit_sums_new(void) { return calloc(1, sizeof(ls_wfit_sums)); }

void ls_wfit_sums_free(ls_wfit_sums *s)
{
    if (s) free(s->k), free(s);
}

const ls_wheads_knobs *ls_wfit_knobs(const ls_wfit_sums *s, int *n)
{
    *n = s->n;
    return s->n ? s->k : NULL;
}

/* Calls f(row logits, visible keys, query position) for the sampled rows of head h. */
typedef void (*row_fn)(void *user, const double *l, int n, int pos);

static int for_rows(const ls_attn_inputs *in, int h, row_fn f, void *user)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k, group = in->heads_q / in->heads_kv;
    int stride = SQ > FIT_ROWS ? (SQ + FIT_ROWS - 1) / FIT_ROWS : 1;
    double *l = malloc((size_t)SK * sizeof *l), inv = 1.0 / sqrt((double)D);
    if (!l) return -1;
    for (int b = 0; b < in->batch; ++b)
        for (int i = SQ - 1; i >= 0; i -= stride) {
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

int ls_wfit_accumulate(ls_wfit_sums *s, const ls_attn_inputs *in, int layer, char *err, size_t errlen)
{
    (void)layer;
    if (s->layers && (in->heads_q != s->heads_q || in->heads_kv != s->heads_kv || in->dim != s->dim)) {
        ls_io_err(err, errlen, "heads %d/%d, d %d differ from the first trace's %d/%d, d %d", in->heads_q, in->heads_kv,
                  in->dim, s->heads_q, s->heads_kv, s->dim);
        return -1;
    }
    if (in->dim < LS_WHEADS_MIN_DIM || in->dim % 2) {
        ls_io_err(err, errlen, "head dimension %d: the heads generator needs an even d >= %d", in->dim, LS_WHEADS_MIN_DIM);
        return -1;
    }
    if (s->n + in->heads_q > s->cap) {
        int cap = (s->n + in->heads_q) * 2;
        ls_wheads_knobs *k = realloc(s->k, (size_t)cap * sizeof *k);
        if (!k) {
            ls_io_err(err, errlen, "out of memory");
            return -1;
        }
        s->k = k, s->cap = cap;
    }
    if (!s->layers) s->sinks = 1;
    for (int h = 0; h < in->heads_q; ++h)
        if (ls_wfit_head(in, h, s->sinks, &s->k[s->n + h], err, errlen)) return -1;
    s->n += in->heads_q;
    s->heads_q = in->heads_q, s->heads_kv = in->heads_kv, s->dim = in->dim;
    if (in->seq_q > s->seq_q) s->seq_q = in->seq_q;
    if (in->seq_k > s->seq_k) s->seq_k = in->seq_k;
    s->causal = in->causal;
    /* QK-norm leaves every row with nearly the same norm: a few percent at most */
    size_t nq = (size_t)in->batch * in->heads_q * in->seq_q, nk = (size_t)in->batch * in->heads_kv * in->seq_k;
    s->qk_norm_votes += norm_cv(in->q, nq, in->dim) < 0.05 && norm_cv(in->k, nk, in->dim) < 0.05;
    s->layers++;
    return 0;
}

static void put_list(FILE *f, const char *key, const ls_wheads_knobs *k, int n, size_t off)
{
    fprintf(f, "  %s: \"", key);
    for (int h = 0; h < n; ++h) fprintf(f, "%s%.4g", h ? " " : "", *(const double *)((const char *)&k[h] + off));
    fprintf(f, "\"\n");
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
               "# RoPE is not fitted (it changes no statistic of the random part); rope.* are the defaults.\n",
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
    put_list(f, "recency", s->k, s->n, offsetof(ls_wheads_knobs, recency));
    put_list(f, "decay", s->k, s->n, offsetof(ls_wheads_knobs, decay));
    put_list(f, "jitter", s->k, s->n, offsetof(ls_wheads_knobs, jitter));
    return ls_atomic_file_commit(&af, err, errlen);
}
