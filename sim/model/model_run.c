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

/* The overrides of one simulation, each with the model file's key and position it comes from
 * (blame NULL: the command line's --set, reported as such). */
typedef struct {
    const char *sets[MAX_SETS];
    const char *blame[MAX_SETS];
    ls_model_pos pos[MAX_SETS];
    char own[10][LS_CONFIG_PATH_MAX + 32];   /* storage of the generated overrides */
    int n, nown;
} setlist;

static void add(setlist *s, const char *text, const char *blame, ls_model_pos pos)
{
    s->blame[s->n] = blame;
    s->pos[s->n] = pos;
    s->sets[s->n++] = text;
}

static void add_own(setlist *s, const ls_model *m, ls_model_key from, const char *key, long v, const char *text)
{
    char *dst = s->own[s->nown++];
    if (text) snprintf(dst, sizeof s->own[0], "%s=%s", key, text);
    else snprintf(dst, sizeof s->own[0], "%s=%ld", key, v);
    add(s, dst, ls_model_key_names[from], m->pos[from]);
}

/* The overrides of one simulation: the model's, the command line's, then its workload (layer: the
 * prefill layer whose trace it reads, or -1). */
static void job_sets(setlist *s, const ls_model *m, const char *const *extra, int n_extra, int layer, int seq_q,
                     int seq_k, int window)
{
    s->n = s->nown = 0;
    for (int i = 0; i < m->nsets; i++) add(s, m->sets[i], "set", m->set_pos[i]);
    for (int i = 0; i < n_extra && s->n < MAX_SETS - 10; i++) add(s, extra[i], NULL, (ls_model_pos){0, 0});
    if (layer >= 0 && m->traces[layer]) {
        add_own(s, m, LS_MODEL_KEY_WORKLOAD, "workload.file", 0, m->traces[layer]);
        s->blame[s->n - 1] = "traces", s->pos[s->n - 1] = m->trace_pos[layer];
        return;
    }
    if (m->workload[0]) add_own(s, m, LS_MODEL_KEY_WORKLOAD, "workload.file", 0, m->workload);
    ls_model_key len_key = layer >= 0 ? LS_MODEL_KEY_PREFILL : LS_MODEL_KEY_DECODE;
    add_own(s, m, LS_MODEL_KEY_BATCH, "workload.batch", m->batch, NULL);
    add_own(s, m, LS_MODEL_KEY_HEADS_Q, "workload.heads_q", m->heads_q, NULL);
    add_own(s, m, LS_MODEL_KEY_HEADS_KV, "workload.heads_kv", m->heads_kv, NULL);
    add_own(s, m, LS_MODEL_KEY_DIM, "workload.dim", m->dim, NULL);
    add_own(s, m, len_key, "workload.seq_q", seq_q, NULL);
    add_own(s, m, len_key, "workload.seq_k", seq_k, NULL);
    add_own(s, m, len_key, "workload.causal", 0, "true");
    if (m->npattern) {   /* the layer's window (0 for a global layer, whatever the workload file says) */
        add_own(s, m, len_key, "workload.window", window, NULL);
        s->blame[s->n - 1] = "window_pattern", s->pos[s->n - 1] = m->window_pos;
    }
}

/* The window of layer l (0: global, or no pattern). */
static int layer_window(const ls_model *m, int l) { return m->npattern ? m->window_pattern[l % m->npattern] : 0; }

/* A configuration error of one simulation, placed in the model file when one of its values (a set:
 * entry, config:, workload:, traces:, a shape key) is the cause. */
static void config_error(const ls_model *m, const setlist *s, const ls_config_diag *d, char *err, size_t errlen)
{
    if (!strncmp(d->file, "--set ", 6))
        for (int i = s->n - 1; i >= 0; i--) {
            if (!s->blame[i] || strcmp(d->file + 6, s->sets[i])) continue;
            const char *why = d->message;
            size_t fl = strlen(d->file);
            if (!strncmp(why, d->file, fl) && !strncmp(why + fl, ": ", 2)) why += fl + 2;
            snprintf(err, errlen, "%s:%d:%d: %s: %s", m->path, s->pos[i].line, s->pos[i].col, s->blame[i], why);
            return;
        }
    if (m->config[0] && !strcmp(d->file, m->config) && d->line == 0) {   /* the file itself: missing, unreadable */
        snprintf(err, errlen, "%s:%d:%d: config: %s", m->path, m->pos[LS_MODEL_KEY_CONFIG].line,
                 m->pos[LS_MODEL_KEY_CONFIG].col, d->message);
        return;
    }
    snprintf(err, errlen, "%s", d->message);
}

/* The model file's position of the last override of key (to blame a check made after loading), or NULL. */
static int last_set_of(const setlist *s, const char *key)
{
    size_t kl = strlen(key);
    for (int i = s->n - 1; i >= 0; i--)
        if (!strncmp(s->sets[i], key, kl) && s->sets[i][kl] == '=') return i;
    return -1;
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
        config_error(m, s, diag, err, errlen);
        rc = 2;
        goto out;
    }
    cfg_loaded = 1;
    ls_engine_params ep;
    ls_run_engine_params(cfg, &ep);
    ep.compute_reference = false;   /* cycles and recompute figures only: no fp64 reference */
    if (!ls_timed_program_for_mode(ep.mode)) {
        int i = last_set_of(s, "algorithm.mode");
        char where[LS_CONFIG_PATH_MAX + 64];
        if (i >= 0 && s->blame[i]) snprintf(where, sizeof where, "%s:%d:%d: set", m->path, s->pos[i].line, s->pos[i].col);
        else if (i >= 0) snprintf(where, sizeof where, "--set %.1000s", s->sets[i]);
        else snprintf(where, sizeof where, "%s", m->config[0] ? m->config : m->path);
        snprintf(err, errlen, "%s: algorithm.mode: %s does not run on the timed model (lamp, fa2_16bit, pure_8bit)",
                 where, ls_engine_mode_name(ep.mode));
        rc = 2;
        goto out;
    }
    /* the trace of a layer, or the synthetic workload: its own errors, placed at the model's key */
    int wi = last_set_of(s, "workload.file");
    char wl_err[1024];
    if (ls_workload_build(cfg, NULL, &in, &wl, wl_err, sizeof wl_err)) {
        if (wi >= 0 && s->blame[wi])
            snprintf(err, errlen, "%s:%d:%d: %s: %s", m->path, s->pos[wi].line, s->pos[wi].col, s->blame[wi], wl_err);
        else snprintf(err, errlen, "%s", wl_err);
        rc = 2;
        goto out;
    }
    if (ls_workload_arrange(cfg, &in, false, err, errlen)) {
        rc = 1;
        goto out;
    }
    if (trace) {
        const ls_model_pos *tp = &s->pos[wi];
        if (wl.heads_q != m->heads_q || wl.heads_kv != m->heads_kv || wl.dim != m->dim) {
            snprintf(err, errlen, "%s:%d:%d: traces: trace %s has heads %d/%d and dim %d, the model says %d/%d and %d",
                     m->path, tp->line, tp->col, trace, wl.heads_q, wl.heads_kv, wl.dim, m->heads_q, m->heads_kv, m->dim);
            rc = 2;
            goto out;
        }
        /* every layer of the prefill phase runs at prefill tokens: a trace of another length would mix
         * two sequence lengths into one total */
        if (wl.seq_q != m->prefill || wl.seq_k != m->prefill) {
            snprintf(err, errlen, "%s:%d:%d: traces: trace %s has seq_q %d and seq_k %d, the model's prefill is %d "
                     "(every prefill layer runs prefill x prefill tokens: set prefill to the trace's length)",
                     m->path, tp->line, tp->col, trace, wl.seq_q, wl.seq_k, m->prefill);
            rc = 2;
            goto out;
        }
    }
    ls_timed_options to;
    ls_timed_options_default(&to);
    to.program_path = cfg->timed.program[0] ? cfg->timed.program : NULL;
    to.reuse_numerics = cfg->timed.reuse_numerics;
    to.numerics_dir = cfg->timed.numerics_dir;
    to.timing_only = cfg->timed.timing_only;
    to.unit_numerics = cfg->timed.unit_numerics;
    to.fast_forward = cfg->timed.fast_forward;
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
    snprintf(r->mode, sizeof r->mode, "%s", ls_engine_mode_name(ep.mode));
    snprintf(r->layout, sizeof r->layout, "%s", tr.layout);
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
    /* the distinct windows of the layers, each with its count: decode samples run once per window */
    int wins[LS_MODEL_MAX_LAYERS], wcount[LS_MODEL_MAX_LAYERS], nw = 0;
    for (int l = 0; l < m->layers; l++) {
        int w = layer_window(m, l), k = 0;
        while (k < nw && wins[k] != w) k++;
        if (k == nw) wins[nw] = w, wcount[nw++] = 0;
        wcount[k]++;
    }
    r->rows = calloc((size_t)(prefill_rows + S * nw), sizeof *r->rows);
    if (!r->rows) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    setlist *s = malloc(sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    int rc = 0, synthetic_row[LS_MODEL_MAX_LAYERS];   /* per distinct window: its simulated synthetic row */
    for (int k = 0; k < nw; k++) synthetic_row[k] = -1;
    double weighted[LS_TIMED_NUNITS] = {0}, weight = 0.0;
    for (int l = 0; l < prefill_rows && !rc; l++) {
        ls_model_row *row = &r->rows[r->nrows++];
        const char *trace = m->traces[l];
        int w = layer_window(m, l), k = 0;
        while (wins[k] != w) k++;
        row->layer = l, row->traced = trace != NULL, row->reused_from = -1, row->window = w, row->layers = 1;
        if (!trace && synthetic_row[k] >= 0) {   /* same shape and window, same synthetic inputs: same cycles */
            ls_model_row keep = *row;
            *row = r->rows[synthetic_row[k]];
            row->layer = keep.layer, row->reused_from = synthetic_row[k];
        } else {
            job_sets(s, m, extra, n_extra, l, m->prefill, m->prefill, w);
            if (progress) fprintf(progress, "model: prefill layer %d (%s)\n", l, trace ? trace : "synthetic");
            rc = simulate(m, s, trace, row, r, err, errlen);
            if (!trace) synthetic_row[k] = r->nrows - 1;
        }
        r->prefill_cycles += row->cycles;
        for (int u = 0; u < LS_TIMED_NUNITS; u++) weighted[u] += row->util[u] * (double)row->cycles;
        weight += (double)row->cycles;
    }
    double decode = 0.0;
    for (int k = 0; k < nw && !rc; k++)
    for (int j = 0; j < S && !rc; j++) {
        ls_model_row *row = &r->rows[r->nrows++];
        row->layer = -1, row->decode = 1, row->reused_from = -1, row->window = wins[k], row->layers = wcount[k];
        job_sets(s, m, extra, n_extra, -1, 1, m->prefill + steps[j], wins[k]);
        if (progress) fprintf(progress, "model: decode step %d (context %d)\n", steps[j], m->prefill + steps[j]);
        rc = simulate(m, s, NULL, row, r, err, errlen);
        double c = (double)wcount[k] * coeff[j] * (double)row->cycles;
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
