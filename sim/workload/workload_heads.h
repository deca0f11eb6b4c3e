/* The `heads` generator's model of the logits of query head h at query position i and key position j,
 * distance t = i - j >= 0 (docs/workloads.md, "The heads generator"):
 *     l = bias_h + scale_h * e_ij + sink_h [j < sinks.count] + recency_h * K(t; decay_h)
 * e_ij a standard normal from the dot product of random Q and K parts (optionally rotated by RoPE,
 * optionally of fixed norm: QK-norm), K(t; L) = sum_m w_m(L) cos(omega_m t) with K(0) = 1, a sum of
 * rotary frequencies that approximates exp(-t / L). Shared by the generator and the fit. */
#ifndef LAMPSIM_WORKLOAD_WORKLOAD_HEADS_H
#define LAMPSIM_WORKLOAD_WORKLOAD_HEADS_H
#include <stddef.h>

#define LS_WHEADS_MAX_PAIRS 16
#define LS_WHEADS_MIN_DIM 16

typedef struct {
    double scale, bias, sink, recency, decay;
} ls_wheads_knobs;

/* Rotary pairs carrying the recency kernel at head dimension d: min(16, d / 8). */
int ls_wheads_pairs(int dim);
/* The kernel's frequencies omega_m (m < pairs): log-spaced from pi down to pi / 8192. */
void ls_wheads_freqs(int pairs, double *omega);
/* Weights w_m(L) (sum 1) of the kernel approximating exp(-t / L). */
void ls_wheads_weights(int pairs, double decay, double *w);
/* K(t; L). */
double ls_wheads_kernel(int pairs, double decay, double t);
/* Parses a knob list ("1.5 2 0.25", comma or space separated): n values, or one value for all.
 * Returns 0, or -1 with a message naming key. */
int ls_wheads_parse(const char *key, const char *text, int n, double lo, double hi, double *out, char *err, size_t errlen);
#endif
