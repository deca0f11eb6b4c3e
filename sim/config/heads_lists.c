/* sim/config/heads_lists.c — the heads generator's lists (workload.heads.*, docs/workloads.md): each list's range
 * and length in one table, which the loader checks (a bad list fails at its key's file:line, as every other key)
 * and the generator parses with. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"

#define W(f) offsetof(ls_config_workload, heads.f)
#define PI 3.14159265358979323846
#define PER_Q LS_CONFIG_HEADS_PER_QHEAD
#define PAIRS_Q LS_CONFIG_HEADS_PAIRS_PER_QHEAD
const ls_config_heads_list ls_config_heads_lists[LS_CONFIG_HEADS_NLISTS] = {
    [LS_CONFIG_HEADS_SCALE] = {"workload.heads.scale", W(scale), 0, 1e4, PER_Q},
    [LS_CONFIG_HEADS_BIAS] = {"workload.heads.bias", W(bias), -1e4, 1e4, PER_Q},
    [LS_CONFIG_HEADS_SINK] = {"workload.heads.sink", W(sink), -1e4, 1e4, PER_Q},
    [LS_CONFIG_HEADS_RECENCY] = {"workload.heads.recency", W(recency), -1e4, 1e4, PER_Q},
    [LS_CONFIG_HEADS_DECAY] = {"workload.heads.decay", W(decay), 1e-3, 1e9, PER_Q},
    [LS_CONFIG_HEADS_JITTER] = {"workload.heads.jitter", W(jitter), 0, 1e4, PER_Q},
    [LS_CONFIG_HEADS_SINK_SPREAD] = {"workload.heads.sink_spread", W(sink_spread), 0, 1e4, PER_Q},
    [LS_CONFIG_HEADS_KEY_SHARE] = {"workload.heads.key_share", W(key_share), 0, 0.99, PER_Q},
    [LS_CONFIG_HEADS_NOISE_FLIP] = {"workload.heads.noise_flip", W(noise_flip), 0, 0.5, PER_Q},
    [LS_CONFIG_HEADS_FREQ] = {"workload.heads.freq", W(freq), 1e-9, PI, LS_CONFIG_HEADS_PAIRS_PER_KVHEAD},
    [LS_CONFIG_HEADS_AMP_COS] = {"workload.heads.amp_cos", W(amp_cos), -1e4, 1e4, PAIRS_Q},
    [LS_CONFIG_HEADS_AMP_SIN] = {"workload.heads.amp_sin", W(amp_sin), -1e4, 1e4, PAIRS_Q},
    [LS_CONFIG_HEADS_NOISE_COS] = {"workload.heads.noise_cos", W(noise_cos), -1e4, 1e4, PAIRS_Q},
    [LS_CONFIG_HEADS_NOISE_SIN] = {"workload.heads.noise_sin", W(noise_sin), -1e4, 1e4, PAIRS_Q},
};
#undef W
#undef PI
#undef PER_Q
#undef PAIRS_Q

int ls_config_heads_len(ls_config_heads_id id, const ls_config_workload *w)
{
    switch (ls_config_heads_lists[id].len) {
    case LS_CONFIG_HEADS_PER_QHEAD: return w->heads_q;
    case LS_CONFIG_HEADS_PAIRS_PER_QHEAD: return w->heads_q * w->heads.pairs;
    default: return w->heads_kv * w->heads.pairs;
    }
}

int ls_config_heads_parse(ls_config_heads_id id, const ls_config_workload *w, double *out, char *err, size_t errlen)
{
    const ls_config_heads_list *l = &ls_config_heads_lists[id];
    const char *p = (const char *)w + l->off;
    const int n = ls_config_heads_len(id, w);
    int k = 0;
    double first = 0;
    while (*p) {
        while (*p && (isspace((unsigned char)*p) || *p == ',')) ++p;
        if (!*p) break;
        char *end;
        double x = strtod(p, &end);
        if (end == p || !(x >= l->lo && x <= l->hi)) {
            snprintf(err, errlen, "value %d ('%.24s') is not a number in [%g, %g]", k + 1, p, l->lo, l->hi);
            return -1;
        }
        if (!k) first = x;
        if (out && k < n) out[k] = x;
        ++k;
        p = end;
    }
    if (k == 1) {
        for (int i = 0; out && i < n; ++i) out[i] = first;
        return 0;
    }
    if (k == n) return 0;
    if (l->len == LS_CONFIG_HEADS_PER_QHEAD)
        snprintf(err, errlen, "%d values for %d query heads (give one per head, or one for all)", k, w->heads_q);
    else
        snprintf(err, errlen, "%d values for %d %s heads x %d pairs (heads.pairs; give one per head and pair, "
                 "head-major, or one for all)", k, l->len == LS_CONFIG_HEADS_PAIRS_PER_QHEAD ? w->heads_q : w->heads_kv,
                 l->len == LS_CONFIG_HEADS_PAIRS_PER_QHEAD ? "query" : "KV", w->heads.pairs);
    return -1;
}

int ls_config_heads_check(const ls_config_workload *w, ls_config_heads_id *bad, char *err, size_t errlen)
{
    for (int id = 0; id < LS_CONFIG_HEADS_NLISTS; ++id) {
        /* the pair lists are read only with rotary pairs (heads.pairs > 0) */
        if (ls_config_heads_lists[id].len != LS_CONFIG_HEADS_PER_QHEAD && !w->heads.pairs) continue;
        if (ls_config_heads_parse((ls_config_heads_id)id, w, NULL, err, errlen)) {
            *bad = (ls_config_heads_id)id;
            return -1;
        }
    }
    return 0;
}
