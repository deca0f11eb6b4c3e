/* The `heads` generator (workload_heads.h): each logit component lives in its own channels of Q and K,
 *   channel 0:            bias    (q: bias sqrt(d),    k: 1)
 *   channel 1:            sink    (q: sink sqrt(d),    k: 1 for the sink keys, else 0)
 *   channels 2 .. 2+2P:   recency (q: recency w_m sqrt(d) (cos, sin)(omega_m i), k: (cos, sin)(omega_m j))
 *   the rest (d_r):       random  (q: scale sqrt(d / d_r) g, k: g', g and g' standard normal rows;
 *                                  QK-norm: both rescaled to norm sqrt(d_r); RoPE: rotated by position)
 * so q.k / sqrt(d) is the model's logit. Keys are shared by a KV head's query heads (GQA); every knob
 * lives in the queries, so each query head has its own. Streams keyed by (seed, tensor, batch, head). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "prng.h"
#include "workload_heads.h"
#include "workload_internal.h"

enum { TAG_HQ = 21, TAG_HK = 22, TAG_HV = 23 };

int ls_wheads_pairs(int dim) { return dim / 8 < LS_WHEADS_MAX_PAIRS ? dim / 8 : LS_WHEADS_MAX_PAIRS; }

void ls_wheads_freqs(int pairs, double *omega)
{
    for (int m = 0; m < pairs; ++m)
        omega[m] = 3.14159265358979323846 * exp(-log(8192.0) * (pairs > 1 ? (double)m / (pairs - 1) : 0.0));
}

void ls_wheads_weights(int pairs, double decay, double *w)
{
    /* exp(-|t|/L) has spectral density (1/pi) (1/L) / (1/L^2 + omega^2); on a log grid d omega = omega d ln omega */
    double om[LS_WHEADS_MAX_PAIRS], s = 0, a = 1.0 / decay;
    ls_wheads_freqs(pairs, om);
    for (int m = 0; m < pairs; ++m) s += w[m] = om[m] * a / (a * a + om[m] * om[m]);
    for (int m = 0; m < pairs; ++m) w[m] /= s;
}

double ls_wheads_kernel(int pairs, double decay, double t)
{
    double om[LS_WHEADS_MAX_PAIRS], w[LS_WHEADS_MAX_PAIRS], k = 0;
    ls_wheads_freqs(pairs, om);
    ls_wheads_weights(pairs, decay, w);
    for (int m = 0; m < pairs; ++m) {
        double s, c;
        ls_prng_det_sincos(om[m] * t, &s, &c);
        k += w[m] * c;
    }
    return k;
}

int ls_wheads_parse(const char *key, const char *text, int n, double lo, double hi, double *out, char *err, size_t errlen)
{
    int k = 0;
    const char *p = text;
    while (*p) {
        while (*p && (isspace((unsigned char)*p) || *p == ',')) ++p;
        if (!*p) break;
        char *end;
        double x = strtod(p, &end);
        if (end == p || !(x >= lo && x <= hi)) {
            ls_io_err(err, errlen, "%s: value %d ('%.24s') is not a number in [%g, %g]", key, k + 1, p, lo, hi);
            return -1;
        }
        if (k < n) out[k] = x;
        ++k;
        p = end;
    }
    if (k == 1)
        for (int i = 1; i < n; ++i) out[i] = out[0];
    else if (k != n) {
        ls_io_err(err, errlen, "%s: %d values for %d query heads (give one per head, or one for all)", key, k, n);
        return -1;
    }
    return 0;
}

typedef struct {
    float *q, *k, *v;
} heads_owner;

static void heads_release(ls_attn_inputs *in)
{
    heads_owner *o = in->owner;
    if (o) free(o->q), free(o->k), free(o->v), free(o);
    in->q = in->k = in->v = NULL;
    in->owner = NULL;
    in->release = NULL;
}

/* RoPE on the random channels x[0 .. dr): half-split pairs (t, t + dr/2), frequency base^(-2t/dr). */
static void rope_random(double *x, int dr, double base, double pos)
{
    int half = dr / 2;
    for (int t = 0; t < half; ++t) {
        double s, c, a = x[t], b = x[t + half];
        ls_prng_det_sincos(pos * ls_prng_det_exp(-(2.0 * t / dr) * ls_prng_det_log(base)), &s, &c);
        x[t] = a * c - b * s;
        x[t + half] = a * s + b * c;
    }
}

static void set_norm(double *x, int n, double norm)
{
    double ss = 0;
    for (int i = 0; i < n; ++i) ss += x[i] * x[i];
    if (ss > 0)
        for (int i = 0; i < n; ++i) x[i] *= norm / sqrt(ss);
}

int ls_workload_heads(const ls_config_workload *w, int64_t seed, ls_attn_inputs *out, char *err, size_t errlen)
{
    const int B = w->batch, HQ = w->heads_q, HK = w->heads_kv, SQ = w->seq_q, SK = w->seq_k, D = w->dim;
    const int P = ls_wheads_pairs(D), DR = D - 2 - 2 * P, group = HQ / HK;
    if (D < LS_WHEADS_MIN_DIM || D % 2) {
        ls_io_err(err, errlen, "workload.dim: the heads generator needs an even head dimension >= %d (got %d)",
                  LS_WHEADS_MIN_DIM, D);
        return -1;
    }
    ls_wheads_knobs *kn = calloc((size_t)HQ, sizeof *kn);
    double *tmp = malloc((size_t)HQ * sizeof *tmp);
    if (!kn || !tmp) {
        free(kn), free(tmp);
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    struct { const char *key, *text; double lo, hi; size_t off; } lists[] = {
        {"workload.heads.scale", w->heads.scale, 0, 1e4, offsetof(ls_wheads_knobs, scale)},
        {"workload.heads.bias", w->heads.bias, -1e4, 1e4, offsetof(ls_wheads_knobs, bias)},
        {"workload.heads.sink", w->heads.sink, -1e4, 1e4, offsetof(ls_wheads_knobs, sink)},
        {"workload.heads.recency", w->heads.recency, -1e4, 1e4, offsetof(ls_wheads_knobs, recency)},
        {"workload.heads.decay", w->heads.decay, 1e-3, 1e9, offsetof(ls_wheads_knobs, decay)},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; ++l) {
        if (ls_wheads_parse(lists[l].key, lists[l].text, HQ, lists[l].lo, lists[l].hi, tmp, err, errlen)) {
            free(kn), free(tmp);
            return -1;
        }
        for (int h = 0; h < HQ; ++h) *(double *)((char *)&kn[h] + lists[l].off) = tmp[h];
    }
    free(tmp);
    size_t nq = (size_t)B * HQ * SQ * D, nk = (size_t)B * HK * SK * D;
    heads_owner *o = calloc(1, sizeof *o);
    double *row = malloc((size_t)D * sizeof *row), om[LS_WHEADS_MAX_PAIRS], wt[LS_WHEADS_MAX_PAIRS];
    if (o) o->q = malloc(nq * sizeof(float)), o->k = malloc(nk * sizeof(float)), o->v = malloc(nk * sizeof(float));
    if (!o || !o->q || !o->k || !o->v || !row) {
        if (o) free(o->q), free(o->k), free(o->v), free(o);
        free(kn), free(row);
        ls_io_err(err, errlen, "out of memory for Q/K/V (%zu + 2 x %zu floats)", nq, nk);
        return -1;
    }
    ls_wheads_freqs(P, om);
    const double sd = sqrt((double)D), off = SK - SQ;   /* query i sits at position i + SK - SQ */
    ls_prng r;
    for (int b = 0; b < B; ++b) {
        for (int h = 0; h < HQ; ++h) {
            const ls_wheads_knobs *k = &kn[h];
            ls_wheads_weights(P, k->decay, wt);
            ls_prng_stream(&r, (uint64_t)seed, TAG_HQ, (uint64_t)b, (uint64_t)h);
            for (int i = 0; i < SQ; ++i) {
                double pos = i + off, *rnd = row + 2 + 2 * P;
                row[0] = k->bias * sd;
                row[1] = k->sink * sd;
                for (int m = 0; m < P; ++m) {
                    double s, c;
                    ls_prng_det_sincos(om[m] * pos, &s, &c);
                    row[2 + 2 * m] = k->recency * wt[m] * sd * c;
                    row[3 + 2 * m] = k->recency * wt[m] * sd * s;
                }
                ls_prng_normals(&r, rnd, (size_t)DR);
                if (w->heads.qk_norm) set_norm(rnd, DR, sqrt((double)DR));
                if (w->rope.enabled) rope_random(rnd, DR, w->rope.base, pos);
                float *dst = o->q + (((size_t)b * HQ + h) * SQ + i) * D;
                for (int t = 0; t < D; ++t) dst[t] = (float)((t >= 2 + 2 * P ? row[t] * k->scale * sqrt((double)D / DR) : row[t]) * w->sharpness);
            }
        }
        for (int g = 0; g < HK; ++g) {
            ls_prng_stream(&r, (uint64_t)seed, TAG_HK, (uint64_t)b, (uint64_t)g);
            for (int j = 0; j < SK; ++j) {
                double *rnd = row + 2 + 2 * P;
                row[0] = 1.0;
                row[1] = j < w->sinks.count ? 1.0 : 0.0;
                for (int m = 0; m < P; ++m) ls_prng_det_sincos(om[m] * j, &row[3 + 2 * m], &row[2 + 2 * m]);
                ls_prng_normals(&r, rnd, (size_t)DR);
                if (w->heads.qk_norm) set_norm(rnd, DR, sqrt((double)DR));
                if (w->rope.enabled) rope_random(rnd, DR, w->rope.base, j);
                float *dst = o->k + (((size_t)b * HK + g) * SK + j) * D;
                for (int t = 0; t < D; ++t) dst[t] = (float)row[t];
            }
            ls_prng_stream(&r, (uint64_t)seed, TAG_HV, (uint64_t)b, (uint64_t)g);
            float *vd = o->v + ((size_t)b * HK + g) * SK * D;
            for (int j = 0; j < SK; ++j) {
                ls_prng_normals(&r, row, (size_t)D);
                for (int t = 0; t < D; ++t) vd[(size_t)j * D + t] = (float)(w->v_std * row[t]);
            }
        }
    }
    (void)group;
    free(kn), free(row);
    *out = (ls_attn_inputs){.batch = B, .heads_q = HQ, .heads_kv = HK, .seq_q = SQ, .seq_k = SK, .dim = D,
                            .causal = w->causal, .q = o->q, .k = o->k, .v = o->v, .owner = o, .release = heads_release};
    return 0;
}
