/* Model-level cycles: every layer through the timed model, identical synthetic layers reused. */
#define _POSIX_C_SOURCE 200809L  /* strdup */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "model.h"
#include "run.h"
#include "workload.h"

#define MAX_SETS (2 * LS_MODEL_MAX_SETS + 16)

typedef struct {
    const char *sets[MAX_SETS];
    char own[10][LS_CONFIG_PATH_MAX + 32];   /* storage of the generated overrides */
    int n, nown;
} setlist;

static void add_own(setlist *s, const char *key, long v, const char *text)
{
    char *dst = s->own[s->nown++];
    if (text) snprintf(dst, sizeof s->own[0], "%s=%s", key, text);
    else snprintf(dst, sizeof s->own[0], "%s=%ld", key, v);
    s->sets[s->n++] = dst;
}

/* The overrides of one simulation: the model's, the command line's, then its workload. */
static void job_sets(setlist *s, const ls_model *m, const char *const *extra, int n_extra, const char *trace,
                     int seq_q, int seq_k)
{
    s->n = s->nown = 0;
    for (int i = 0; i < m->nsets; i++) s->sets[s->n++] = m->sets[i];
    for (int i = 0; i < n_extra && s->n < MAX_SETS - 10; i++) s->sets[s->n++] = extra[i];
    if (trace) {
        add_own(s, "workload.file", 0, trace);
        return;
    }
    if (m->workload[0]) add_own(s, "workload.file", 0, m->workload);
    add_own(s, "workload.batch", m->batch, NULL);
    add_own(s, "workload.heads_q", m->heads_q, NULL);
    add_own(s, "workload.heads_kv", m->heads_kv, NULL);
    add_own(s, "workload.dim", m->dim, NULL);
    add_own(s, "workload.seq_q", seq_q, NULL);
    add_own(s, "workload.seq_k", seq_k, NULL);
    add_own(s, "workload.causal", 0, "true");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One timed-model run into row. */
static int simulate(const ls_model *m, const setlist *s, const char *trace, ls_model_row *row, ls_model_result *r,
                    char *err, size_t errlen)
{
    ls_config *cfg = malloc(sizeof *cfg);
    ls_config_diag *diag = calloc(1, sizeof *diag);
    ls_attn_inputs in;
    ls_workload_info wl;
    ls_engine_result res;
    ls_timed_result tr;
    memset(&in, 0, sizeof in);
    memset(&res, 0, sizeof res);
    memset(&tr, 0, sizeof tr);
    int rc = 0, cfg_loaded = 0;
    if (!cfg || !diag) {
        snprintf(err, errlen, "out of memory");
        rc = 1;
        goto out;
    }
    if (ls_config_load(cfg, m->config[0] ? m->config : NULL, s->sets, s->n, diag)) {
        snprintf(err, errlen, "%s", diag->message);
        rc = 2;
        goto out;
    }
    cfg_loaded = 1;
    ls_engine_params ep;
    ls_run_engine_params(cfg, &ep);
    ep.compute_reference = false;   /* cycles and recompute figures only: no fp64 reference */
    if (!ls_timed_program_for_mode(ep.mode)) {
        snprintf(err, errlen, "%s: algorithm.mode %s does not run on the timed model (lamp, fa2_16bit, pure_8bit)",
                 m->path, ls_engine_mode_name(ep.mode));
        rc = 2;
        goto out;
    }
    if (ls_workload_build(cfg, NULL, &in, &wl, err, errlen)) {
        rc = 2;
        goto out;
    }
    if (trace && (wl.heads_q != m->heads_q || wl.heads_kv != m->heads_kv || wl.dim != m->dim)) {
        snprintf(err, errlen, "%s: trace %s has heads %d/%d and dim %d, the model says %d/%d and %d", m->path, trace,
                 wl.heads_q, wl.heads_kv, wl.dim, m->heads_q, m->heads_kv, m->dim);
        rc = 2;
        goto out;
    }
    ls_timed_options to;
    ls_timed_options_default(&to);
    to.program_path = cfg->timed.program[0] ? cfg->timed.program : NULL;
    to.reuse_numerics = cfg->timed.reuse_numerics;
    to.timing_only = cfg->timed.timing_only;
    to.unit_numerics = cfg->timed.unit_numerics;
    if (ls_timed_run_opts(cfg, &ep, &in, &to, &res, &tr, err, errlen)) {
        rc = 1;
        goto out;
    }
    row->seq_q = wl.seq_q, row->seq_k = wl.seq_k;
    row->cycles = tr.cycles;
    row->time_us = tr.time_us;
    row->disruptive_rate = res.tiles.disruptive_rate;
    row->subblock_rate = res.recompute.subblock_rate;
    r->nunits = tr.nunits;
    for (int u = 0; u < tr.nunits && u < LS_TIMED_NUNITS; u++) {
        row->util[u] = tr.units[u].utilisation;
        snprintf(r->unit_names[u], sizeof r->unit_names[u], "%s", tr.units[u].name);
    }
    r->clock_ghz = tr.clock_ghz;
    r->simulations++;
out:
    ls_timed_result_free(&tr);
    ls_engine_result_free(&res);
    ls_attn_inputs_release(&in);
    if (cfg_loaded) ls_config_free(cfg);
    free(cfg);
    free(diag);
    return rc;
}

/* Decode steps t = 1..T (context prefill + t) sampled at S points; coeff[j] is the weight of sample
 * j in the piecewise-linear sum over all steps, so decode cycles = sum_j coeff[j] * cycles_j. */
static int decode_samples(const ls_model *m, int *steps, double *coeff)
{
    int T = m->decode, S = m->decode_samples < T ? m->decode_samples : T;
    for (int j = 0; j < S; j++) {
        steps[j] = S == 1 ? 1 : 1 + (int)llround((double)j * (T - 1) / (S - 1));
        coeff[j] = 0.0;
    }
    for (int t = 1, j = 0; t <= T; t++) {
        while (j + 1 < S && steps[j + 1] <= t) j++;
        if (j + 1 >= S || steps[j] == t) {
            coeff[j] += 1.0;
        } else {
            double a = (double)(t - steps[j]) / (double)(steps[j + 1] - steps[j]);
            coeff[j] += 1.0 - a;
            coeff[j + 1] += a;
        }
    }
    return S;
}

int ls_model_run(const ls_model *m, const char *const *extra, int n_extra, FILE *progress, ls_model_result *r,
                 char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    double t0 = now();
    int prefill_rows = m->prefill ? m->layers : 0;
    int steps[1024];
    double coeff[1024];
    int S = m->decode ? decode_samples(m, steps, coeff) : 0;
    r->rows = calloc((size_t)(prefill_rows + S), sizeof *r->rows);
    if (!r->rows) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    setlist *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    int rc = 0, synthetic_row = -1;
    double weighted[LS_TIMED_NUNITS] = {0}, weight = 0.0;
    for (int l = 0; l < prefill_rows && !rc; l++) {
        ls_model_row *row = &r->rows[r->nrows++];
        const char *trace = m->traces[l];
        row->layer = l, row->traced = trace != NULL, row->reused_from = -1;
        if (!trace && synthetic_row >= 0) {   /* same shape, same synthetic inputs: same cycles */
            ls_model_row keep = *row;
            *row = r->rows[synthetic_row];
            row->layer = keep.layer, row->reused_from = synthetic_row;
        } else {
            job_sets(s, m, extra, n_extra, trace, m->prefill, m->prefill);
            if (progress) fprintf(progress, "model: prefill layer %d (%s)\n", l, trace ? trace : "synthetic");
            rc = simulate(m, s, trace, row, r, err, errlen);
            if (!trace) synthetic_row = r->nrows - 1;
        }
        r->prefill_cycles += row->cycles;
        for (int u = 0; u < LS_TIMED_NUNITS; u++) weighted[u] += row->util[u] * (double)row->cycles;
        weight += (double)row->cycles;
    }
    double decode = 0.0;
    for (int j = 0; j < S && !rc; j++) {
        ls_model_row *row = &r->rows[r->nrows++];
        row->layer = -1, row->decode = 1, row->reused_from = -1;
        job_sets(s, m, extra, n_extra, NULL, 1, m->prefill + steps[j]);
        if (progress) fprintf(progress, "model: decode step %d (context %d)\n", steps[j], m->prefill + steps[j]);
        rc = simulate(m, s, NULL, row, r, err, errlen);
        double c = (double)m->layers * coeff[j] * (double)row->cycles;
        decode += c;
        for (int u = 0; u < LS_TIMED_NUNITS; u++) weighted[u] += row->util[u] * c;
        weight += c;
    }
    r->decode_cycles = (uint64_t)llround(decode);
    for (int u = 0; u < LS_TIMED_NUNITS; u++) r->util[u] = weight > 0 ? weighted[u] / weight : 0.0;
    r->wall_seconds = now() - t0;
    free(s);
    return rc;
}

void ls_model_result_free(ls_model_result *r)
{
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}
