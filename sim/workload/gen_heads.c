/* The `heads` generator (workload_heads.h): each logit component lives in its own channels of Q and K,
 *   channel 0:          bias     (q: bias sqrt(d),  k: 1)
 *   channel 1:          sink     (q: sink sqrt(d),  k: 1 for the sink keys, else 0)
 *   next d_u channels:  recency  (k_j: a random unit vector u_j, its identity; q_i: sqrt(d) sum_t
 *                                 recency K(t; decay) (1 + jitter x_it) u_{i-t} over the window, so q.k / sqrt(d) has mean
 *                                 recency K(i - j) and, from the cross terms, variance sum_t (recency K)^2 / d_u)
 *   the rest (d_r):     random   (q: s sqrt(d / d_r) g, k: g', g and g' standard normal rows, s^2 = scale^2
 *                                 minus the cross terms' variance; QK-norm: both rescaled to norm sqrt(d_r);
 *                                 RoPE: rotated by position)
 * so q.k / sqrt(d) follows the model. Keys are shared by a KV head's query heads (GQA); every knob lives
 * in the queries, so each query head has its own. Streams keyed by (seed, tensor, batch, head). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "prng.h"
#include "workload_heads.h"
#include "workload_internal.h"

enum { TAG_HQ = 21, TAG_HK = 22, TAG_HV = 23, TAG_HSHARE = 24, TAG_HFLIP = 25 };

int ls_wheads_identity_dims(int dim) { return 2 * ((dim - 2) / 4); }

int ls_wheads_window(double decay)
{
    double w = ceil(6.0 * decay);
    return w < 1 ? 1 : w > LS_WHEADS_MAX_WINDOW ? LS_WHEADS_MAX_WINDOW : (int)w;
}

double ls_wheads_kernel(double decay, int t)
{
    return t >= 0 && t < ls_wheads_window(decay) ? ls_prng_det_exp(-(double)t / decay) : 0.0;
}

/* List id of w into out, a message naming its key on error (the loader has checked it; a workload built in code
 * has not). */
static int parse_list(ls_config_heads_id id, const ls_config_workload *w, double *out, char *err, size_t errlen)
{
    char why[400];
    if (!ls_config_heads_parse(id, w, out, why, sizeof why)) return 0;
    ls_io_err(err, errlen, "%s: %s", ls_config_heads_lists[id].key, why);
    return -1;
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
/* V of KV head g (stream g: a head keeps its values whichever heads are generated with it): SK rows of
 * D normals x v_std; row is D doubles of scratch. */
static void gen_values(const ls_config_workload *w, int64_t seed, int b, int g, float *vd, int SK, int D, double *row)
{
    ls_prng r;
    ls_prng_stream(&r, (uint64_t)seed, TAG_HV, (uint64_t)b, (uint64_t)g);
    for (int j = 0; j < SK; ++j) {
        ls_prng_normals(&r, row, (size_t)D);
        for (int t = 0; t < D; ++t) vd[(size_t)j * D + t] = (float)(w->v_std * row[t]);
    }
}

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

int ls_wheads_rotary_layout(int dim, int pairs, bool any_bias, bool any_sink, bool any_noise, ls_wheads_layout *l)
{
    *l = (ls_wheads_layout){.bias = any_bias, .sink = any_sink, .pairs = pairs, .noise = any_noise ? pairs : 0};
    l->random = dim - l->bias - l->sink - 2 * pairs - 2 * l->noise;
    return l->random < 0 ? -1 : 0;
}

static int rotary_heads(const ls_config_workload *w, int64_t seed, const ls_wheads_knobs *kn, ls_attn_inputs *out,
                        char *err, size_t errlen)
{
    const int HQ = w->heads_q, HK = w->heads_kv, P = w->heads.pairs;
    double *fr = malloc((size_t)HK * P * sizeof *fr), *a = malloc((size_t)4 * HQ * P * sizeof *a);
    int rc = -1;
    if (!fr || !a) ls_io_err(err, errlen, "out of memory");
    else if (!parse_list(LS_CONFIG_HEADS_FREQ, w, fr, err, errlen) && !parse_list(LS_CONFIG_HEADS_AMP_COS, w, a, err, errlen) &&
             !parse_list(LS_CONFIG_HEADS_AMP_SIN, w, a + HQ * P, err, errlen) &&
             !parse_list(LS_CONFIG_HEADS_NOISE_COS, w, a + 2 * HQ * P, err, errlen) &&
             !parse_list(LS_CONFIG_HEADS_NOISE_SIN, w, a + 3 * HQ * P, err, errlen))
        rc = ls_wheads_rotary(w, seed, kn, fr, a, a + HQ * P, a + 2 * HQ * P, a + 3 * HQ * P, out, err, errlen);
    free(fr), free(a);
    return rc;
}

int ls_workload_heads(const ls_config_workload *w, int64_t seed, ls_attn_inputs *out, char *err, size_t errlen)
{
    const int B = w->batch, HQ = w->heads_q, HK = w->heads_kv, SQ = w->seq_q, SK = w->seq_k, D = w->dim;
    const int DU = ls_wheads_identity_dims(D), DR = D - 2 - DU, R0 = 2 + DU, group = HQ / HK;
    if (D % 2 || (!w->heads.pairs && D < LS_WHEADS_MIN_DIM)) {
        ls_io_err(err, errlen, "workload.dim: the heads generator needs an even head dimension%s (got %d)",
                  w->heads.pairs ? "" : " >= 16 with key identities (heads.pairs 0; rotary pairs take any even d)", D);
        return -1;
    }
    ls_wheads_knobs *kn = calloc((size_t)HQ, sizeof *kn);
    double *tmp = malloc((size_t)HQ * sizeof *tmp);
    if (!kn || !tmp) {
        free(kn), free(tmp);
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    static const struct { ls_config_heads_id id; size_t off; } lists[] = {   /* the per-head lists, into the knobs */
        {LS_CONFIG_HEADS_SCALE, offsetof(ls_wheads_knobs, scale)},
        {LS_CONFIG_HEADS_BIAS, offsetof(ls_wheads_knobs, bias)},
        {LS_CONFIG_HEADS_SINK, offsetof(ls_wheads_knobs, sink)},
        {LS_CONFIG_HEADS_RECENCY, offsetof(ls_wheads_knobs, recency)},
        {LS_CONFIG_HEADS_DECAY, offsetof(ls_wheads_knobs, decay)},
        {LS_CONFIG_HEADS_JITTER, offsetof(ls_wheads_knobs, jitter)},
        {LS_CONFIG_HEADS_SINK_SPREAD, offsetof(ls_wheads_knobs, sink_spread)},
        {LS_CONFIG_HEADS_KEY_SHARE, offsetof(ls_wheads_knobs, key_share)},
        {LS_CONFIG_HEADS_NOISE_FLIP, offsetof(ls_wheads_knobs, noise_flip)},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; ++l) {
        if (parse_list(lists[l].id, w, tmp, err, errlen)) {
            free(kn), free(tmp);
            return -1;
        }
        for (int h = 0; h < HQ; ++h) *(double *)((char *)&kn[h] + lists[l].off) = tmp[h];
    }
    free(tmp);
    if (w->heads.pairs) {
        int rc = rotary_heads(w, seed, kn, out, err, errlen);
        free(kn);
        return rc;
    }
    size_t nq = (size_t)B * HQ * SQ * D, nk = (size_t)B * HK * SK * D;
    heads_owner *o = calloc(1, sizeof *o);
    double *row = malloc((size_t)D * sizeof *row), c[LS_WHEADS_MAX_WINDOW], x[LS_WHEADS_MAX_WINDOW];
    if (o) o->q = malloc(nq * sizeof(float)), o->k = malloc(nk * sizeof(float)), o->v = malloc(nk * sizeof(float));
    if (!o || !o->q || !o->k || !o->v || !row) {
        if (o) free(o->q), free(o->k), free(o->v), free(o);
        free(kn), free(row);
        ls_io_err(err, errlen, "out of memory for Q/K/V (%zu + 2 x %zu floats)", nq, nk);
        return -1;
    }
    const double sd = sqrt((double)D);
    const int off = SK - SQ;   /* query i sits at position i + SK - SQ */
    ls_prng r;
    for (int b = 0; b < B; ++b) {
        for (int g = 0; g < HK; ++g) {
            ls_prng_stream(&r, (uint64_t)seed, TAG_HK, (uint64_t)b, (uint64_t)g);
            for (int j = 0; j < SK; ++j) {
                row[0] = 1.0;
                row[1] = j < w->sinks.count ? 1.0 : 0.0;
                ls_prng_normals(&r, row + 2, (size_t)DU);
                set_norm(row + 2, DU, 1.0);
                ls_prng_normals(&r, row + R0, (size_t)DR);
                if (w->heads.qk_norm) set_norm(row + R0, DR, sqrt((double)DR));
                if (w->rope.enabled) rope_random(row + R0, DR, w->rope.base, j);
                float *dst = o->k + (((size_t)b * HK + g) * SK + j) * D;
                for (int t = 0; t < D; ++t) dst[t] = (float)row[t];
            }
            gen_values(w, seed, b, g, o->v + ((size_t)b * HK + g) * SK * D, SK, D, row);
        }
        for (int h = 0; h < HQ; ++h) {
            const ls_wheads_knobs *k = &kn[h];
            const int W = ls_wheads_window(k->decay);
            double cross = 0;
            for (int t = 0; t < W; ++t)
                c[t] = k->recency * ls_wheads_kernel(k->decay, t), cross += c[t] * c[t] * (1 + k->jitter * k->jitter) / DU;
            double s2 = k->scale * k->scale - cross, rs = s2 > 0 ? sqrt(s2) : 0;
            const float *kb = o->k + ((size_t)b * HK + h / group) * SK * D;
            ls_prng_stream(&r, (uint64_t)seed, TAG_HQ, (uint64_t)b, (uint64_t)h);
            for (int i = 0; i < SQ; ++i) {
                int pos = i + off;
                row[0] = k->bias * sd;
                row[1] = k->sink * sd;
                for (int t = 0; t < DU; ++t) row[2 + t] = 0;
                ls_prng_normals(&r, x, (size_t)W);
                for (int t = 0; t < W && pos - t >= 0; ++t) {
                    if (pos - t >= SK) continue;
                    const float *u = kb + (size_t)(pos - t) * D + 2;
                    double a = c[t] * (1.0 + k->jitter * x[t]) * sd;
                    for (int e = 0; e < DU; ++e) row[2 + e] += a * u[e];
                }
                ls_prng_normals(&r, row + R0, (size_t)DR);
                if (w->heads.qk_norm) set_norm(row + R0, DR, sqrt((double)DR));
                if (w->rope.enabled) rope_random(row + R0, DR, w->rope.base, pos);
                for (int t = R0; t < D; ++t) row[t] *= rs * sqrt((double)D / DR);
                float *dst = o->q + (((size_t)b * HQ + h) * SQ + i) * D;
                for (int t = 0; t < D; ++t) dst[t] = (float)(row[t] * w->sharpness);
            }
        }
    }
    free(kn), free(row);
    *out = (ls_attn_inputs){.batch = B, .heads_q = HQ, .heads_kv = HK, .seq_q = SQ, .seq_k = SK, .dim = D,
                            .causal = w->causal, .window = w->window, .q = o->q, .k = o->k, .v = o->v, .owner = o, .release = heads_release};
    return 0;
}

/* heads.pairs > 0: the distance profile in rotary pairs. Key j of KV head g carries (cos w j, sin w j) in each
 * pair (w = freq of g and the pair); query i of head h carries sqrt(d) (A cos w i + B sin w i, A sin w i - B cos w i),
 * so q.k / sqrt(d) = sum (A cos w t + B sin w t), t = i - j: a deterministic function of the distance, with no
 * cross terms. Noise pairs do the same with the key's pairs times y_j (standard normal per key) and amplitudes
 * noise_cos / noise_sin: a zero-mean term whose standard deviation at distance t is that kernel, independent from
 * key to key (the near keys' extra spread); noise_flip negates it in that share of the queries. key_share mixes one
 * direction per head into every query's random part. Both keep each row's distribution and set how alike the rows
 * of a warp are, near (the noise) and far (the random part). The random part is the identity layout's (scale,
 * QK-norm, RoPE) in the channels left; jitter is not used. */
static int rotary_gen(const ls_config_workload *w, int64_t seed, int qoff, int kvoff, const ls_wheads_layout *force,
                      const ls_wheads_knobs *kn, const double *fr, const double *ac, const double *as, const double *nc,
                      const double *ns, ls_attn_inputs *out, char *err, size_t errlen);

int ls_wheads_rotary(const ls_config_workload *w, int64_t seed, const ls_wheads_knobs *kn, const double *fr,
                     const double *ac, const double *as, const double *nc, const double *ns, ls_attn_inputs *out,
                     char *err, size_t errlen)
{
    return rotary_gen(w, seed, 0, 0, NULL, kn, fr, ac, as, nc, ns, out, err, errlen);
}

int ls_wheads_rotary_one(const ls_config_workload *w, int64_t seed, int qh, int kvh, const ls_wheads_layout *L,
                         const ls_wheads_knobs *kn, const double *fr, const double *ac, const double *as, const double *nc,
                         const double *ns, ls_attn_inputs *out, char *err, size_t errlen)
{
    return rotary_gen(w, seed, qh, kvh, L, kn, fr, ac, as, nc, ns, out, err, errlen);
}

static int rotary_gen(const ls_config_workload *w, int64_t seed, int qoff, int kvoff, const ls_wheads_layout *force,
                      const ls_wheads_knobs *kn, const double *fr, const double *ac, const double *as, const double *nc,
                      const double *ns, ls_attn_inputs *out, char *err, size_t errlen)
{
    const int B = w->batch, HQ = w->heads_q, HK = w->heads_kv, SQ = w->seq_q, SK = w->seq_k, D = w->dim;
    const int P = w->heads.pairs, group = HQ / HK;
    bool any_bias = false, any_sink = false;
    bool any_noise = false;
    for (int h = 0; h < HQ; ++h) any_bias |= kn[h].bias != 0, any_sink |= kn[h].sink != 0 || kn[h].sink_spread != 0;
    for (int i = 0; i < HQ * P; ++i) any_noise |= nc[i] != 0 || ns[i] != 0;
    any_sink &= w->sinks.count > 0;
    ls_wheads_layout L;
    if (force) L = *force;
    else if (ls_wheads_rotary_layout(D, P, any_bias, any_sink, any_noise, &L)) {
        ls_io_err(err, errlen, "workload.heads.pairs: %d pairs%s%s%s need %d channels, more than workload.dim = %d", P,
                  any_noise ? " (and as many noise pairs)" : "", any_bias ? " + a bias channel" : "",
                  any_sink ? " + a sink channel" : "", 2 * P + 2 * L.noise + L.bias + L.sink, D);
        return -1;
    }
    for (int h = 0; h < HQ; ++h)
        if (!L.random && kn[h].scale > 0) {
            ls_io_err(err, errlen, "workload.heads.scale: head %d asks for a random part (%g) but no channel is left for it "
                      "(workload.dim %d, %d pairs)", h, kn[h].scale, D, P);
            return -1;
        }
    const int P0 = L.bias + L.sink, N0 = P0 + 2 * P, R0 = N0 + 2 * L.noise, DR = L.random;
    size_t nq = (size_t)B * HQ * SQ * D, nk = (size_t)B * HK * SK * D;
    heads_owner *o = calloc(1, sizeof *o);
    double *row = malloc((size_t)D * sizeof *row), *mdir = malloc((size_t)D * sizeof *mdir);
    if (o) o->q = malloc(nq * sizeof(float)), o->k = malloc(nk * sizeof(float)), o->v = malloc(nk * sizeof(float));
    int rc = -1;
    if (!o || !o->q || !o->k || !o->v || !row || !mdir) {
        ls_io_err(err, errlen, "out of memory for Q/K/V (%zu + 2 x %zu floats)", nq, nk);
        goto fail;
    }
    const double sd = sqrt((double)D);
    const int off = SK - SQ;
    ls_prng r;
    for (int b = 0; b < B; ++b) {
        for (int g = 0; g < HK; ++g) {
            ls_prng_stream(&r, (uint64_t)seed, TAG_HK, (uint64_t)b, (uint64_t)(g + kvoff));
            for (int j = 0; j < SK; ++j) {
                for (int t = 0; t < D; ++t) row[t] = 0;
                if (L.bias) row[0] = 1.0;
                if (L.sink) row[L.bias] = j < w->sinks.count ? 1.0 : 0.0;
                /* noise pairs: the key's rotary pairs times y_j, one standard normal per key */
                double y = L.noise ? ls_prng_normal(&r) : 0;
                for (int f = 0; f < P; ++f) {
                    ls_prng_det_sincos(fr[g * P + f] * j, &row[P0 + 2 * f + 1], &row[P0 + 2 * f]);
                    if (L.noise) row[N0 + 2 * f] = y * row[P0 + 2 * f], row[N0 + 2 * f + 1] = y * row[P0 + 2 * f + 1];
                }
                if (DR) {
                    ls_prng_normals(&r, row + R0, (size_t)DR);
                    if (w->heads.qk_norm) set_norm(row + R0, DR, sqrt((double)DR));
                    if (w->rope.enabled && DR >= 2) rope_random(row + R0, DR, w->rope.base, j);
                }
                float *dst = o->k + (((size_t)b * HK + g) * SK + j) * D;
                for (int t = 0; t < D; ++t) dst[t] = (float)row[t];
            }
            gen_values(w, seed, b, g + kvoff, o->v + ((size_t)b * HK + g) * SK * D, SK, D, row);
        }
        for (int h = 0; h < HQ; ++h) {
            const ls_wheads_knobs *k = &kn[h];
            const double *A = ac + (size_t)h * P, *Bs = as + (size_t)h * P, *F = fr + (size_t)(h / group) * P;
            const double *NA = nc + (size_t)h * P, *NB = ns + (size_t)h * P;
            const double rs = k->scale;
            ls_prng_stream(&r, (uint64_t)seed, TAG_HQ, (uint64_t)b, (uint64_t)(h + qoff));
            /* key_share: every query's random part leans on one direction m of the head (its own stream, drawn only
             * when used), after RoPE, so q.k keeps its variance and gains m.k, a salience per key */
            const double ks = DR ? k->key_share : 0, kmix = sqrt(1 - ks), kdir = sqrt(ks);
            if (ks > 0) {
                ls_prng rm;
                ls_prng_stream(&rm, (uint64_t)seed, TAG_HSHARE, (uint64_t)b, (uint64_t)(h + qoff));
                ls_prng_normals(&rm, mdir, (size_t)DR);
                if (w->heads.qk_norm) set_norm(mdir, DR, sqrt((double)DR));
            }
            ls_prng rf;   /* noise_flip: one uniform per query from its own stream (flip 0 draws nothing) */
            ls_prng_stream(&rf, (uint64_t)seed, TAG_HFLIP, (uint64_t)b, (uint64_t)(h + qoff));
            for (int i = 0; i < SQ; ++i) {
                int pos = i + off;
                const double nm = L.noise && k->noise_flip > 0 && ls_prng_uniform(&rf) < k->noise_flip ? -sd : sd;
                for (int t = 0; t < D; ++t) row[t] = 0;
                if (L.bias) row[0] = k->bias * sd;
                if (L.sink) row[L.bias] = (k->sink + (k->sink_spread > 0 ? k->sink_spread * ls_prng_normal(&r) : 0)) * sd;
                const double m = sd;   /* jitter belongs to the identity layout */
                for (int f = 0; f < P; ++f) {
                    double sn, cs;
                    ls_prng_det_sincos(F[f] * pos, &sn, &cs);
                    row[P0 + 2 * f] = m * (A[f] * cs + Bs[f] * sn);
                    row[P0 + 2 * f + 1] = m * (A[f] * sn - Bs[f] * cs);
                    if (L.noise) row[N0 + 2 * f] = nm * (NA[f] * cs + NB[f] * sn), row[N0 + 2 * f + 1] = nm * (NA[f] * sn - NB[f] * cs);
                }
                if (DR) {
                    ls_prng_normals(&r, row + R0, (size_t)DR);
                    if (w->heads.qk_norm) set_norm(row + R0, DR, sqrt((double)DR));
                    if (w->rope.enabled && DR >= 2) rope_random(row + R0, DR, w->rope.base, pos);
                    if (ks > 0) {
                        for (int t = 0; t < DR; ++t) row[R0 + t] = kmix * row[R0 + t] + kdir * mdir[t];
                        if (w->heads.qk_norm) set_norm(row + R0, DR, sqrt((double)DR));
                    }
                    for (int t = R0; t < D; ++t) row[t] *= rs * sqrt((double)D / DR);
                }
                float *dst = o->q + (((size_t)b * HQ + h) * SQ + i) * D;
                for (int t = 0; t < D; ++t) dst[t] = (float)(row[t] * w->sharpness);
            }
        }
    }
    *out = (ls_attn_inputs){.batch = B, .heads_q = HQ, .heads_kv = HK, .seq_q = SQ, .seq_k = SK, .dim = D,
                            .causal = w->causal, .window = w->window, .q = o->q, .k = o->k, .v = o->v, .owner = o,
                            .release = heads_release};
    o = NULL;
    rc = 0;
fail:
    if (o) free(o->q), free(o->k), free(o->v), free(o);
    free(row), free(mdir);
    return rc;
}
