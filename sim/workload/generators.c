/* Synthetic generators. Every random number comes from a stream keyed by (seed, tensor, batch,
 * head), so the data does not depend on the order of generation or on thread counts, and the
 * arithmetic uses only IEEE operations and the deterministic helpers of prng.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "prng.h"
#include "workload_internal.h"

enum { TAG_HEAD_K = 1, TAG_HEAD_Q = 2, TAG_Q = 3, TAG_K = 4, TAG_V = 5 };

typedef struct {
    float *q, *k, *v;
} syn_owner;

static void syn_release(ls_attn_inputs *in)
{
    syn_owner *o = in->owner;
    if (o) {
        free(o->q);
        free(o->k);
        free(o->v);
        free(o);
    }
    in->q = in->k = in->v = NULL;
    in->owner = NULL;
    in->release = NULL;
}

static void normalize_to_rms1(double *x, int d)
{
    double ss = 0;
    for (int i = 0; i < d; ++i) ss += x[i] * x[i];
    if (ss <= 0) return;
    double f = sqrt((double)d / ss);
    for (int i = 0; i < d; ++i) x[i] *= f;
}

/* RoPE's (sin, cos) of pos * invf[i]: a table per position when it fits, shared by every head and
 * by Q and K (the same function of the same double, so the same bits as computing it in place). */
typedef struct {
    const double *invf;
    int half, pmin, npos;
    double *sc; /* [npos][sin, cos][half], or NULL: computed in place */
} rope_table;

enum { ROPE_TABLE_MAX_BYTES = 64 << 20 };

static void rope_table_init(rope_table *t, const double *invf, int half, int pmin, int pmax)
{
    *t = (rope_table){.invf = invf, .half = half, .pmin = pmin, .npos = pmax - pmin + 1};
    if (half <= 0 || (double)t->npos * half * 2 * sizeof(double) > ROPE_TABLE_MAX_BYTES) return;
    t->sc = malloc((size_t)t->npos * half * 2 * sizeof(double));
    if (!t->sc) return; /* the in-place path needs no memory */
    for (int p = 0; p < t->npos; ++p) {
        double *e = t->sc + (size_t)p * half * 2;
        for (int i = 0; i < half; ++i) e[i] = (double)(pmin + p) * invf[i];
        ls_prng_det_sincos_n(e, e, e + half, half);
    }
}

static void rope_rotate(double *x, const rope_table *t, int pos)
{
    const int half = t->half;
    const double *e = t->sc ? t->sc + (size_t)(pos - t->pmin) * half * 2 : NULL;
    for (int i = 0; i < half; ++i) {
        double s, c;
        if (e) s = e[i], c = e[half + i];
        else ls_prng_det_sincos((double)pos * t->invf[i], &s, &c);
        double a = x[i], b = x[i + half];
        x[i] = a * c - b * s;
        x[i + half] = a * s + b * c;
    }
}

static void rms_gain(double *x, int d, const double *gain)
{
    double ss = 0;
    for (int i = 0; i < d; ++i) ss += x[i] * x[i];
    double inv = 1.0 / sqrt(ss / d + 1e-6);
    for (int i = 0; i < d; ++i) x[i] = x[i] * inv * gain[i];
}

int ls_workload_synthetic(const ls_config_workload *w, int64_t seed, ls_attn_inputs *out, ls_workload_info *info,
                     char *err, size_t errlen)
{
    const int B = w->batch, HQ = w->heads_q, HK = w->heads_kv, SQ = w->seq_q, SK = w->seq_k, D = w->dim;
    size_t nq = (size_t)B * HQ * SQ * D, nk = (size_t)B * HK * SK * D;
    syn_owner *o = calloc(1, sizeof *o);
    if (!o) {
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    o->q = malloc(nq * sizeof(float));
    o->k = malloc(nk * sizeof(float));
    o->v = malloc(nk * sizeof(float));
    double *row = malloc((size_t)D * sizeof(double)), *nrm = malloc((size_t)D * sizeof(double));
    double *gk = malloc((size_t)HK * D * sizeof(double)), *gq = malloc((size_t)HQ * D * sizeof(double));
    double *cdir = malloc((size_t)HK * D * sizeof(double)), *udir = malloc((size_t)HK * D * sizeof(double));
    double *floc = malloc((size_t)HK * sizeof(double)), *fsink = malloc((size_t)HK * sizeof(double));
    double *invf = malloc((size_t)(D / 2 + 1) * sizeof(double));
    int ok = o->q && o->k && o->v && row && nrm && gk && gq && cdir && udir && floc && fsink && invf;
    if (!ok) {
        ls_io_err(err, errlen, "out of memory for Q/K/V (%zu + 2 x %zu floats)", nq, nk);
        free(o->q);
        free(o->k);
        free(o->v);
        free(o);
        free(row), free(nrm), free(gk), free(gq), free(cdir), free(udir), free(floc), free(fsink), free(invf);
        return -1;
    }
    const uint64_t s = (uint64_t)seed;
    ls_prng r;
    double gain_q = 0, gain_k = 0;
    const int qk = w->generator == LS_CONFIG_GEN_QKNORM;
    if (qk) {
        int half = D / 2;
        double lb = ls_prng_det_log(w->rope.base);
        for (int i = 0; i < half; ++i) invf[i] = ls_prng_det_exp(-(2.0 * i / D) * lb);
        /* per KV head: gains, shared (locality) and sink directions, variety factors */
        for (int g = 0; g < HK; ++g) {
            ls_prng_stream(&r, s, TAG_HEAD_K, 0, (uint64_t)g);
            double gh = w->qknorm.gain * (1.0 - 0.5 * w->head_variety * ls_prng_uniform(&r));
            for (int i = 0; i < D; ++i) {
                gk[(size_t)g * D + i] = gh * (1.0 - w->qknorm.gain_spread * ls_prng_uniform(&r));
                if (gk[(size_t)g * D + i] > gain_k) gain_k = gk[(size_t)g * D + i];
            }
            floc[g] = 1.0 + w->head_variety * (2.0 * ls_prng_uniform(&r) - 1.0);
            fsink[g] = 1.0 + w->head_variety * (2.0 * ls_prng_uniform(&r) - 1.0);
            double *c = cdir + (size_t)g * D, *u = udir + (size_t)g * D;
            ls_prng_normals(&r, c, (size_t)D);
            normalize_to_rms1(c, D);
            /* the sink direction lives in the lowest-frequency rotary pairs, which barely rotate */
            int lo = 0;
            if (w->rope.enabled) {
                int span = half / 4 > 0 ? half / 4 : 1;
                lo = half - span;
            }
            for (int i = 0; i < D; ++i) {
                int pair = w->rope.enabled ? (i < half ? i : i - half) : lo;
                u[i] = pair >= lo ? ls_prng_normal(&r) : 0.0;
            }
            normalize_to_rms1(u, D);
        }
        for (int h = 0; h < HQ; ++h) {
            ls_prng_stream(&r, s, TAG_HEAD_Q, 0, (uint64_t)h);
            double gh = w->qknorm.gain * (1.0 - 0.5 * w->head_variety * ls_prng_uniform(&r));
            for (int i = 0; i < D; ++i) {
                gq[(size_t)h * D + i] = gh * (1.0 - w->qknorm.gain_spread * ls_prng_uniform(&r));
                if (gq[(size_t)h * D + i] > gain_q) gain_q = gq[(size_t)h * D + i];
            }
        }
    }
    const int group = HQ / HK;
    /* positions: keys 0 .. SK-1, queries SK-SQ .. SK-1 (bottom-right aligned) */
    rope_table rope = {0};
    if (qk && w->rope.enabled) rope_table_init(&rope, invf, D / 2, SK - SQ < 0 ? SK - SQ : 0, SK - 1);
    /* queries carry the sink direction with weight sinks.strength; sink keys are that
     * direction plus a little noise (weight 0.25) */
    const double qsink = w->sinks.count > 0 ? w->sinks.strength : 0.0;
    for (int b = 0; b < B; ++b) {
        for (int h = 0; h < HQ; ++h) {
            int g = h / group;
            ls_prng_stream(&r, s, TAG_Q, (uint64_t)b, (uint64_t)h);
            for (int i = 0; i < SQ; ++i) {
                float *dst = o->q + (((size_t)b * HQ + h) * SQ + i) * D;
                if (qk) {
                    const double *c = cdir + (size_t)g * D, *u = udir + (size_t)g * D;
                    double al = w->locality * floc[g], as = qsink * fsink[g];
                    ls_prng_normals(&r, nrm, (size_t)D);
                    for (int t = 0; t < D; ++t) row[t] = w->std * nrm[t] + al * c[t] + as * u[t];
                    rms_gain(row, D, gq + (size_t)h * D);
                    if (w->rope.enabled) rope_rotate(row, &rope, SK - SQ + i);
                    for (int t = 0; t < D; ++t) dst[t] = (float)(row[t] * w->sharpness);
                } else {
                    ls_prng_normals(&r, nrm, (size_t)D);
                    for (int t = 0; t < D; ++t) dst[t] = (float)(w->std * w->sharpness * nrm[t]);
                }
            }
        }
        for (int g = 0; g < HK; ++g) {
            ls_prng_stream(&r, s, TAG_K, (uint64_t)b, (uint64_t)g);
            for (int j = 0; j < SK; ++j) {
                float *dst = o->k + (((size_t)b * HK + g) * SK + j) * D;
                if (qk) {
                    const double *c = cdir + (size_t)g * D, *u = udir + (size_t)g * D;
                    int sink = j < w->sinks.count;
                    double al = sink ? 0.0 : w->locality * floc[g], as = sink ? 1.0 : 0.0, zs = sink ? 0.25 * w->std : w->std;
                    ls_prng_normals(&r, nrm, (size_t)D);
                    for (int t = 0; t < D; ++t) row[t] = zs * nrm[t] + al * c[t] + as * u[t];
                    rms_gain(row, D, gk + (size_t)g * D);
                    if (w->rope.enabled) rope_rotate(row, &rope, j);
                    for (int t = 0; t < D; ++t) dst[t] = (float)row[t];
                } else {
                    ls_prng_normals(&r, nrm, (size_t)D);
                    for (int t = 0; t < D; ++t) dst[t] = (float)(w->std * nrm[t]);
                }
            }
            ls_prng_stream(&r, s, TAG_V, (uint64_t)b, (uint64_t)g);
            float *vd = o->v + ((size_t)b * HK + g) * SK * D;
            for (int j = 0; j < SK; ++j) {
                ls_prng_normals(&r, nrm, (size_t)D);
                for (int t = 0; t < D; ++t) vd[(size_t)j * D + t] = (float)(w->v_std * nrm[t]);
            }
        }
    }
    free(row), free(nrm), free(gk), free(gq), free(cdir), free(udir), free(floc), free(fsink), free(invf), free(rope.sc);
    out->batch = B;
    out->heads_q = HQ;
    out->heads_kv = HK;
    out->seq_q = SQ;
    out->seq_k = SK;
    out->dim = D;
    out->causal = w->causal;
    out->window = w->window;
    out->q = o->q;
    out->k = o->k;
    out->v = o->v;
    out->owner = o;
    out->release = syn_release;
    if (qk) {
        info->gain_applicable = true;
        info->gain_q = gain_q * w->sharpness;
        info->gain_k = gain_k;
        info->gain_used = sqrt(info->gain_q * info->gain_k);
        info->gain_bound = ls_workload_qknorm_gain_bound(D);
        info->gain_bound_respected = info->gain_used <= info->gain_bound;
        info->logit_bound = info->gain_q * info->gain_k * sqrt((double)D);
        info->sinks = w->sinks.count;
    }
    return 0;
}
