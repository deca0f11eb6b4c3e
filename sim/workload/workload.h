/* Workloads: builds the attention problem (Q, K, V) described by the workload section of a
 * configuration, either from a seeded synthetic generator (gaussian, qknorm) or from traced
 * tensors (.npy or .safetensors), and reports facts about it (QK-norm gain vs the D.5 bound,
 * measured largest |logit| vs the e4m3 limit 448, a hash of the data). */
#ifndef LAMPSIM_WORKLOAD_WORKLOAD_H
#define LAMPSIM_WORKLOAD_WORKLOAD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "attn_inputs.h"
#include "config.h"

#define LS_WORKLOAD_E4M3_MAX 448.0

typedef struct ls_workload_info {
    char name[LS_CONFIG_NAME_MAX];
    char generator[16];          /* gaussian, qknorm, trace */
    char dtype[8];               /* operand dtype after rounding */
    bool synthetic;              /* true for generated data */
    int batch, heads_q, heads_kv, seq_q, seq_k, dim;
    bool causal;
    int64_t seed;                /* generator seed used (synthetic) */
    /* largest |q.k| / sqrt(d) over visible pairs (sampled rows when the problem is large) */
    double max_abs_logit;
    bool max_abs_logit_sampled;
    double logit_limit;          /* 448 (e4m3 max) */
    bool logits_within_limit;
    /* QK-norm gains (qknorm generator): largest |gain| of Q (times sharpness) and K */
    bool gain_applicable;
    double gain_q, gain_k;
    double gain_used;            /* sqrt(gain_q * gain_k) */
    double gain_bound;           /* sqrt(448 / sqrt(d)), numerics.md D.5 */
    bool gain_bound_respected;   /* gain_used <= gain_bound */
    /* a priori bound on |logit|: gain_q * gain_k * sqrt(d) (qknorm), or max|q| max|k| / sqrt(d)
     * from the row norms (other generators) */
    double logit_bound;
    int sinks;
    uint64_t hash;               /* ls_workload_hash of the inputs */
    bool data_generated;         /* false: ls_workload_build_geometry (zero tensors; max_abs_logit,
                                    logit_bound, gains and hash not computed) */
    char source[3 * LS_CONFIG_PATH_MAX + 8]; /* trace file(s) */
} ls_workload_info;

/* Builds the inputs. base_dir resolves relative trace paths (NULL: current directory; paths
 * in a loaded config are already absolute). Returns 0, or -1 with a message naming the key, the
 * file and what was wrong. out must be released with ls_attn_inputs_release. */
int ls_workload_build(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                      char *err, size_t errlen);
/* The shape alone, for runs that read no data (timed.timing_only): zero Q, K, V that are never
 * generated (nor touched), info->data_generated false. Trace workloads are loaded as by
 * ls_workload_build (their shape lives in the files). Same errors and release as ls_workload_build. */
int ls_workload_build_geometry(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                               char *err, size_t errlen);
/* The decode regimes (workload.split_kv, workload.pack_gqa) on built inputs: in->split_kv gets the
 * resolved split count (auto: ls_workload_split_heuristic on the packed shape), and with pack_gqa
 * and heads_q > heads_kv Q is copied into the packed layout (heads_q = heads_kv, seq_q x group,
 * qpack = group; K and V shared; released with the inputs, which then release the original ones
 * too unless borrowed). Returns 0, or -1 (out of memory). */
int ls_workload_arrange(const ls_config *cfg, ls_attn_inputs *in, bool borrowed, char *err, size_t errlen);
/* O (or O_ref) of a run on packed inputs, [batch][heads_kv][seq_q x qpack][dim], permuted in place
 * into the model's layout [batch][heads_kv x qpack][seq_q][dim]; nothing when in->qpack <= 1. */
void ls_workload_unpack_rows(const ls_attn_inputs *in, float *o);
/* FlashAttention-2's split count for `blocks` work items on `slots` workers and key_blocks key tiles. */
int ls_workload_split_heuristic(long long blocks, int slots, int key_blocks, int max_splits);
/* FNV-1a 64 over the shape and the float bits of Q, K, V. */
uint64_t ls_workload_hash(const ls_attn_inputs *in);
/* sqrt(448 / sqrt(d)): the largest QK-norm gain that keeps every logit within e4m3 (D.5). */
double ls_workload_qknorm_gain_bound(int dim);
/* Human-readable summary (a few lines). */
void ls_workload_info_print(const ls_workload_info *info, FILE *out);
/* Rounds n floats in place to the dtype (RNE); returns the index of the first value that
 * overflowed to infinity, or -1. */
long long ls_workload_round_to_dtype(float *x, size_t n, ls_config_dtype dtype);
/* 0 if every element of x (C order, ndim <= 8 dimensions) is finite; else -1 with
 * "<what>: element [i, j, ...] is NaN; inputs must be finite" for the first one. The one check of
 * user tensors: traces (workload.file) and the C API (every binding) use it. */
int ls_workload_check_finite(const float *x, int ndim, const int64_t *shape, const char *what, char *err, size_t errlen);
#endif
