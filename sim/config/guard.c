/* The guards against accidental huge runs that bound the work a run will do (workload.max_work,
 * workload.max_steps): one check for the configuration loader, the timed model's layer check and
 * the trace reader, so each counts the same work. A timing-only run (timed.timing_only) does no
 * arithmetic, so its multiply-adds are not bounded; the timed model's tile steps are. */
#include <stdint.h>
#include <stdio.h>

#include "config.h"

double ls_config_tile_steps(int batch, int heads_q, int seq_q, int seq_k, bool causal, int window, int rows, int keys)
{
    if (batch < 1 || heads_q < 1 || seq_q < 1 || seq_k < 1 || rows < 1 || keys < 1) return 0.0;
    int64_t shift = (int64_t)seq_k - seq_q;
    int64_t blocks = ((int64_t)seq_q + rows - 1) / rows, tiles_k = ((int64_t)seq_k + keys - 1) / keys;
    double steps = 0.0;
    if (!causal) {
        steps = (double)blocks * (double)tiles_k;
    } else {
        /* a query block runs the key tiles from its first query's first visible key to its last
         * query's last visible key */
        for (int64_t b = 0; b < blocks; ++b) {
            int64_t q0 = b * rows, q1 = q0 + rows - 1 < seq_q ? q0 + rows - 1 : seq_q - 1;
            int64_t hi = q1 + shift, lo = window > 0 ? q0 + shift - window + 1 : 0;
            if (hi >= seq_k) hi = seq_k - 1;
            if (lo < 0) lo = 0;
            if (hi >= lo) steps += (double)(hi / keys - lo / keys + 1);
        }
    }
    return steps * batch * heads_q;
}

int ls_config_check_work(const ls_config *cfg, const ls_config_shape *s, bool numerics, bool timed, char *msg,
                         size_t len, const char **key)
{
    const ls_config_workload *w = &cfg->workload;
    const ls_engine_params *a = &cfg->algorithm;
    if (numerics) {
        double work = ls_config_attention_work_window(s->batch, s->heads_q, s->seq_q, s->seq_k, s->dim, s->causal, s->window);
        /* sampled numerics compute S of each head's query blocks, one per stratum: about S / blocks of the work */
        int rows = a->b_q * a->n_q, blocks = rows > 0 ? (s->seq_q + rows - 1) / rows : 1;
        if (a->sample_query_blocks > 0 && a->sample_query_blocks < blocks)
            work *= (double)a->sample_query_blocks / (double)blocks;
        if (work > (double)w->max_work) {
            if (key) *key = "workload.max_work";
            snprintf(msg, len, "%.3g multiply-adds of Q.K^T exceed workload.max_work = %lld", work, (long long)w->max_work);
            return -1;
        }
    }
    if (timed) {
        double steps = ls_config_tile_steps(s->batch, s->heads_q, s->seq_q, s->seq_k, s->causal, s->window,
                                            a->b_q * a->n_q, a->b_k * a->n_k);
        if (steps > (double)w->max_steps) {
            if (key) *key = "workload.max_steps";
            snprintf(msg, len, "%.3g tile steps of the timed model (query blocks x visible key tiles, all heads) exceed "
                     "workload.max_steps = %lld", steps, (long long)w->max_steps);
            return -1;
        }
    }
    return 0;
}
