/* A time estimate for runs the default workload.max_elements guard would have refused: the user
 * raised the guard, so the run is expected to be large, and is told its size and roughly how long
 * it will take before it starts. The estimate times the same configuration on one query block of
 * one head (the last block, which sees the most keys) and scales it by the query-key pairs of the
 * whole workload; it is rough (fixed costs and parallel efficiency are not modelled), not a bound. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long long schema_default(const char *key)
{
    const ls_config_schema_entry *e = ls_config_schema_find(key);
    return e ? atoll(e->def) : 0;
}

static long long default_max_elements(void) { return schema_default("workload.max_elements"); }

static void fmt_duration(double s, char *buf, size_t len)
{
    if (s < 120) snprintf(buf, len, "%.0f s", s);
    else if (s < 7200) snprintf(buf, len, "%.0f min", s / 60);
    else snprintf(buf, len, "%.1f h", s / 3600);
}

bool ls_run_estimate_wanted(const ls_config *cfg)
{
    return cfg->workload.max_elements > default_max_elements() || cfg->workload.max_work > schema_default("workload.max_work") ||
           cfg->workload.max_steps > schema_default("workload.max_steps");
}

void ls_run_estimate(const ls_config *cfg, FILE *out)
{
    const ls_config_workload *w = &cfg->workload;
    double nq = (double)w->batch * w->heads_q * w->seq_q * w->dim, nk = (double)w->batch * w->heads_kv * w->seq_k * w->dim;
    const ls_engine_params *a = &cfg->algorithm;
    int rows = a->b_q * a->n_q, keys = a->b_k * a->n_k;
    double steps = ls_config_tile_steps(w->batch, w->heads_q, w->seq_q, w->seq_k, w->causal, w->window, rows, keys);
    fprintf(out, "lampsim: note: workload.max_elements is raised to %lld (max_work to %lld, max_steps to %lld): Q has %.0f "
            "elements, K and V %.0f each (%.1f GiB of float32 inputs and output), %.3g multiply-adds of Q.K^T%s, %.3g "
            "tile steps", (long long)w->max_elements, (long long)w->max_work, (long long)w->max_steps, nq, nk,
            4.0 * (2 * nq + 2 * nk) / 1073741824.0,
            ls_config_attention_work_window(w->batch, w->heads_q, w->seq_q, w->seq_k, w->dim, w->causal, w->window),
            cfg->timed.timing_only ? " (not computed: timing only)" : "", steps);
    if (w->generator == LS_CONFIG_GEN_TRACE) { /* a trace's size is its file's: nothing smaller to time */
        fputs("\n", out);
        return;
    }
    ls_config *mini = malloc(sizeof *mini);
    if (!mini) {
        fputs("\n", out);
        return;
    }
    *mini = *cfg;
    int br = cfg->algorithm.b_q * cfg->algorithm.n_q;
    mini->workload.batch = 1;
    mini->workload.heads_q = mini->workload.heads_kv = 1;
    mini->workload.seq_q = w->seq_q < br ? w->seq_q : br;
    mini->workload.max_elements = default_max_elements();
    mini->workload.max_work = schema_default("workload.max_work");
    mini->workload.max_steps = schema_default("workload.max_steps");
    mini->timed.trace = false;
    ls_run_opts ro = {0};
    ro.quiet = true;
    char err[512];
    double t0 = now_s();
    int rc = ls_run(mini, &ro, err, sizeof err);
    double t = now_s() - t0;
    /* sampled numerics (algorithm.sample_query_blocks) compute S of each head's blocks while the timed model
     * runs every tile step: the block's timed part is timed alone (timing only, at FA2-16's fixed selection: a
     * LampAttention selection needs the numerics) and the rest of its time is the numerics */
    int blocks = rows > 0 ? (w->seq_q + rows - 1) / rows : 1;
    double frac = a->sample_query_blocks > 0 && a->sample_query_blocks < blocks ? (double)a->sample_query_blocks / blocks : 1.0;
    double t_timing = 0.0;
    if (!rc && frac < 1.0 && !cfg->timed.timing_only && cfg->timed.enabled) {
        mini->timed.timing_only = true;
        mini->algorithm.mode = LS_ENGINE_MODE_FA2_16BIT;
        t0 = now_s();
        rc = ls_run(mini, &ro, err, sizeof err);
        t_timing = now_s() - t0;
        if (t_timing > t) t_timing = t;
    }
    if (rc) {
        fprintf(out, "; no time estimate: %s\n", err);
    } else {
        /* a timing-only run's time follows its tile steps, a computing run's its multiply-adds */
        const ls_config_workload *m = &mini->workload;
        double step_scale = steps / ls_config_tile_steps(1, 1, m->seq_q, w->seq_k, w->causal, w->window, rows, keys);
        double work_scale = ls_config_attention_work_window(w->batch, w->heads_q, w->seq_q, w->seq_k, w->dim, w->causal, w->window) /
                            ls_config_attention_work_window(1, 1, m->seq_q, w->seq_k, w->dim, w->causal, w->window);
        double est = cfg->timed.timing_only ? t * step_scale : (t - t_timing) * work_scale * frac + t_timing * step_scale;
        int threads = cfg->algorithm.threads > 0 ? cfg->algorithm.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
        if (!cfg->timed.enabled && threads > 1) est /= threads; /* the golden engine runs items in parallel */
        char d[32];
        fmt_duration(est, d, sizeof d);
        if (frac < 1.0)
            fprintf(out, "; estimated run time ~%s (one query block took %.2f s; numerics on %d of %d blocks per head)\n", d,
                    t, a->sample_query_blocks, blocks);
        else
            fprintf(out, "; estimated run time ~%s (one query block took %.2f s)\n", d, t);
    }
    free(mini);
}
