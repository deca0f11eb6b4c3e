/* sim/workload/arrange.c — the decode regimes' layout of built inputs (workload.split_kv,
 * workload.pack_gqa): the resolved number of KV splits and FlashAttention-3's PackGQA layout of Q,
 * and O back to the model's layout after the run. */
#include "workload.h"

#include "io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FlashAttention-2's split heuristic (csrc/flash_attn/flash_api.cpp, num_splits_heuristic and
 * set_params_splitkv, v2.6.3): no split when the blocks already fill 80 % of the slots; else the
 * smallest split count whose wave efficiency (n_waves / ceil(n_waves)) is at least 85 % of the best,
 * over the counts (<= 128, <= slots, <= key blocks) that change the blocks per split. FlashAttention-2
 * passes twice the SM count; here slots = 2 x accelerator.cores. */
int ls_workload_split_heuristic(long long blocks, int slots, int key_blocks, int max_splits)
{
    if (slots < 1 || blocks >= 0.8 * slots) return 1;
    if (max_splits > slots) max_splits = slots;
    if (max_splits > key_blocks) max_splits = key_blocks;
    if (max_splits < 1) return 1;
    double best = 0.0, *eff = calloc((size_t)max_splits + 1, sizeof *eff);
    if (!eff) return 1;
    for (int s = 1; s <= max_splits; s++) {
        bool eligible = s == 1 || (key_blocks + s - 1) / s != (key_blocks + s - 2) / (s - 1);
        if (!eligible) { eff[s] = -1.0; continue; }
        double waves = (double)blocks * s / slots;
        eff[s] = waves / ceil(waves);
        if (eff[s] > best) best = eff[s];
    }
    int pick = 1;
    for (int s = 1; s <= max_splits; s++)
        if (eff[s] >= 0 && eff[s] >= 0.85 * best) { pick = s; break; }
    free(eff);
    return pick;
}

typedef struct { ls_attn_inputs inner; float *q; } packed_owner;

static void release_packed(ls_attn_inputs *in)
{
    packed_owner *o = in->owner;
    if (!o) return;
    ls_attn_inputs_release(&o->inner);
    free(o->q);
    free(o);
    in->owner = NULL;
    in->release = NULL;
}

int ls_workload_arrange(const ls_config *cfg, ls_attn_inputs *in, bool borrowed, char *err, size_t errlen)
{
    const ls_config_workload *w = &cfg->workload;
    int g = in->heads_q / in->heads_kv;
    if (w->pack_gqa && g > 1) {
        /* packed row r of KV head hkv is query r / g of query head hkv * g + r % g (query-major, as
         * FlashAttention-3's PackGQA: m_idx = row / qhead_per_khead, head = row % qhead_per_khead) */
        packed_owner *o = calloc(1, sizeof *o);
        size_t n = (size_t)in->batch * in->heads_q * in->seq_q * in->dim;
        float *q = o ? malloc(n * sizeof(float)) : NULL;
        if (!q) {
            free(o);
            ls_io_err(err, errlen, "workload.pack_gqa: out of memory for the packed Q");
            return -1;
        }
        size_t d = (size_t)in->dim;
        for (int b = 0; b < in->batch; b++)
            for (int hq = 0; hq < in->heads_q; hq++)
                for (int i = 0; i < in->seq_q; i++) {
                    size_t src = (((size_t)b * in->heads_q + hq) * in->seq_q + i) * d;
                    size_t dst = (((size_t)b * in->heads_kv + hq / g) * in->seq_q * g + (size_t)i * g + hq % g) * d;
                    memcpy(q + dst, in->q + src, d * sizeof(float));
                }
        o->inner = *in;
        if (borrowed) o->inner.release = NULL;   /* the caller's tensors stay the caller's */
        o->q = q;
        in->q = q;
        in->heads_q = in->heads_kv;
        in->seq_q *= g;
        in->qpack = g;
        in->owner = o;
        in->release = release_packed;
    }
    int br = cfg->algorithm.b_q * cfg->algorithm.n_q, bc = cfg->algorithm.b_k * cfg->algorithm.n_k;
    int nkt = (in->seq_k + bc - 1) / bc;
    long long blocks = (long long)in->batch * in->heads_q * ((in->seq_q + br - 1) / br);
    in->split_kv = w->split_kv == 0 ? ls_workload_split_heuristic(blocks, 2 * cfg->accelerator.cores, nkt, 128)
                                    : w->split_kv;
    return 0;
}

void ls_workload_unpack_rows(const ls_attn_inputs *in, float *o)
{
    int g = in->qpack;
    if (g <= 1 || !o) return;
    size_t d = (size_t)in->dim, rows = (size_t)in->seq_q, per = rows * d;
    float *tmp = malloc(per * sizeof(float));
    if (!tmp) return;
    int sq = in->seq_q / g;
    for (int bh = 0; bh < in->batch * in->heads_kv; bh++) {
        float *blk = o + (size_t)bh * per;   /* the KV head's packed rows = its g query heads' rows */
        memcpy(tmp, blk, per * sizeof(float));
        for (size_t r = 0; r < rows; r++)
            memcpy(blk + (((r % (size_t)g) * (size_t)sq) + r / (size_t)g) * d, tmp + r * d, d * sizeof(float));
    }
    free(tmp);
}
