/* The attention problem handed from a workload (synthetic or traced) to the engine. */
#ifndef LAMPSIM_SIM_ATTN_INPUTS_H
#define LAMPSIM_SIM_ATTN_INPUTS_H
#include <stdbool.h>
#include <stddef.h>

/* Q is [batch][heads_q][seq_q][dim], K and V are [batch][heads_kv][seq_k][dim], float32, C order.
 * heads_q is a multiple of heads_kv (grouped-query attention: query head h reads KV head
 * h / (heads_q / heads_kv)). Causal masking is bottom-right aligned as in FlashAttention-2:
 * query i may see key j iff j <= i + (seq_k - seq_q). */
typedef struct ls_attn_inputs {
    int batch, heads_q, heads_kv, seq_q, seq_k, dim;
    bool causal;
    int window;                  /* > 0 (causal only): a sliding window, query i sees keys
                                    (i + seq_k - seq_q - window, i + seq_k - seq_q] */
    /* Decode regimes (workload.split_kv, workload.pack_gqa; 0 or 1 = off). split_kv > 1: every query
     * block's key tiles are cut into that many contiguous ranges, each run from a fresh softmax state,
     * and the partial states combined (engine.md, "Split-KV"). qpack > 1: Q is in the packed layout
     * (ls_workload_pack_gqa): heads_q = heads_kv and seq_q = qpack x the model's seq_q, row r of a
     * head being query r / qpack of query head hkv * qpack + r % qpack; masks see row r as query
     * r / qpack. */
    int split_kv, qpack;
    float *q, *k, *v;
    /* Who owns the storage: release(owner) frees it (malloc'ed buffers or file mappings). */
    void (*release)(struct ls_attn_inputs *self);
    void *owner;
} ls_attn_inputs;

/* The model's query heads and query length of inputs that may be in the packed layout (qpack). */
static inline int ls_attn_inputs_heads(const ls_attn_inputs *in) { return in->qpack > 1 ? in->heads_q * in->qpack : in->heads_q; }
static inline int ls_attn_inputs_seq_q(const ls_attn_inputs *in) { return in->qpack > 1 ? in->seq_q / in->qpack : in->seq_q; }

static inline void ls_attn_inputs_release(ls_attn_inputs *in)
{
    if (in && in->release) in->release(in);
}
#endif
