/* The `heads` generator's model of the logits of query head h at query position i and key position j,
 * distance t = i - j >= 0 (docs/workloads.md, "The heads generator"):
 *     l = bias_h + scale_h * e_ij + sink_h [j < sinks.count] + recency_h * K(t; decay_h) * (1 + jitter_h x_it)
 * e_ij of mean 0 and variance 1 (the dot product of random Q and K parts, optionally rotated by RoPE,
 * optionally of fixed norm: QK-norm), x_it standard normal per (query, distance), K(t; L) = exp(-t / L) for t < ls_wheads_window(L), else 0.
 * Recency is content-like: every key carries a random unit "identity" vector and a query the identities
 * of the keys just before it, weighted by recency K(t; L). Shared by the generator and the fit. */
#ifndef LAMPSIM_WORKLOAD_WORKLOAD_HEADS_H
#define LAMPSIM_WORKLOAD_WORKLOAD_HEADS_H
#include <stddef.h>

#define LS_WHEADS_MIN_DIM 16
#define LS_WHEADS_MAX_WINDOW 256

typedef struct {
    double scale, bias, sink, recency, decay, jitter;
} ls_wheads_knobs;

/* Channels of the key identities at head dimension d (the random part gets the rest, minus bias and sink). */
int ls_wheads_identity_dims(int dim);
/* Keys a query's recency reaches: ceil(6 L), at least 1, at most LS_WHEADS_MAX_WINDOW. */
int ls_wheads_window(double decay);
/* K(t; L). */
double ls_wheads_kernel(double decay, int t);
/* Parses a knob list ("1.5 2 0.25", comma or space separated): n values, or one value for all.
 * Returns 0, or -1 with a message naming key. */
int ls_wheads_parse(const char *key, const char *text, int n, double lo, double hi, double *out, char *err, size_t errlen);
#endif
