/* The `heads` generator's model of the logits of query head h at query position i and key position j,
 * distance t = i - j >= 0 (docs/workloads.md, "The heads generator"):
 *     l = bias_h + scale_h * e_ij + sink_h [j < sinks.count] + recency_h * K(t; decay_h) * (1 + jitter_h x_it)
 * e_ij of mean 0 and variance 1 (the dot product of random Q and K parts, optionally rotated by RoPE,
 * optionally of fixed norm: QK-norm), x_it standard normal per (query, distance), K(t; L) = exp(-t / L) for t < ls_wheads_window(L), else 0.
 * Recency is content-like: every key carries a random unit "identity" vector and a query the identities
 * of the keys just before it, weighted by recency K(t; L). Shared by the generator and the fit. */
#ifndef LAMPSIM_WORKLOAD_WORKLOAD_HEADS_H
#define LAMPSIM_WORKLOAD_WORKLOAD_HEADS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LS_WHEADS_MIN_DIM 16   /* identity recency (heads.pairs = 0); rotary pairs take any even d >= 2 */
#define LS_WHEADS_MAX_WINDOW 256

typedef struct {
    double scale, bias, sink, recency, decay, jitter;
    double sink_spread;   /* rotary layout: the sink bonus's standard deviation over queries */
    double key_share;     /* rotary layout: share of the random part's variance alike for every query (key salience) */
    double noise_flip;    /* rotary layout: share of queries whose noise term is negated */
} ls_wheads_knobs;

/* Channels of the key identities at head dimension d (the random part gets the rest, minus bias and sink). */
int ls_wheads_identity_dims(int dim);
/* Keys a query's recency reaches: ceil(6 L), at least 1, at most LS_WHEADS_MAX_WINDOW. */
int ls_wheads_window(double decay);
/* K(t; L). */
double ls_wheads_kernel(double decay, int t);
/* Channels of the rotary-pair layout (heads.pairs > 0): [bias][sink][2 x pairs][random], the bias channel only
 * when some head has a bias, the sink channel only when there are sink keys and some head has a sink bonus. */
typedef struct {
    int bias, sink, pairs, noise, random;   /* channels: bias 0/1, sink 0/1, 2 x pairs, 2 x noise pairs, random the rest */
} ls_wheads_layout;
/* The layout at head dimension dim (noise pairs only when some noise amplitude is not 0); -1 when the fixed
 * channels do not fit (random < 0). */
int ls_wheads_rotary_layout(int dim, int pairs, bool any_bias, bool any_sink, bool any_noise, ls_wheads_layout *l);
/* The rotary-pair generator (heads.pairs > 0) on parsed knobs: kn per query head, fr per KV head x pairs,
 * ac / as (the mean profile) and nc / ns (the noise kernel) per query head x pairs; the shape, seed, sinks, rope,
 * qk_norm, v_std and sharpness from w. */
struct ls_config_workload;
struct ls_attn_inputs;
int ls_wheads_rotary(const struct ls_config_workload *w, int64_t seed, const ls_wheads_knobs *kn, const double *fr,
                     const double *ac, const double *as, const double *nc, const double *ns, struct ls_attn_inputs *out,
                     char *err, size_t errlen);
/* The same for one query head that is query head qh and KV head kvh of a larger workload with layout L: the
 * very numbers that workload gives that head (the fit calibrates on them). */
int ls_wheads_rotary_one(const struct ls_config_workload *w, int64_t seed, int qh, int kvh, const ls_wheads_layout *L,
                         const ls_wheads_knobs *kn, const double *fr, const double *ac, const double *as, const double *nc,
                         const double *ns, struct ls_attn_inputs *out, char *err, size_t errlen);
#endif
