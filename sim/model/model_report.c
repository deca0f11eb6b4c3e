/* Model-level results: the summary table, report.json and layers.csv (deterministic: no wall time). */
#define _POSIX_C_SOURCE 200809L  /* open_memstream */
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "json.h"
#include "report.h"
#include "lampsim_version.h"
#include "model.h"

static const char *row_source(const ls_model_row *w) { return w->traced ? "trace" : "synthetic"; }

void ls_model_summary(FILE *out, const ls_model *m, const ls_model_result *r)
{
    int reused = 0;
    for (int i = 0; i < r->nrows; i++) reused += r->rows[i].reused_from >= 0;
    fprintf(out, "model %s: %d layers, heads %d/%d, d %d, batch %d, prefill %d, decode %d tokens\n", m->name,
            m->layers, m->heads_q, m->heads_kv, m->dim, m->batch, m->prefill, m->decode);
    fprintf(out, "%-8s %6s %8s %8s %7s %-9s %14s %11s %10s %10s  %s\n", "phase", "layer", "seq_q", "seq_k", "window", "source",
            "cycles", "time_us", "disruptive", "recompute", "computed");
    for (int i = 0; i < r->nrows; i++) {
        const ls_model_row *w = &r->rows[i];
        char layer[16], how[32];
        if (w->decode) snprintf(layer, sizeof layer, w->layers == m->layers ? "each" : "%d x", w->layers);
        else snprintf(layer, sizeof layer, "%d", w->layer);
        if (w->reused_from >= 0) snprintf(how, sizeof how, "reused (layer %d)", r->rows[w->reused_from].layer);
        else snprintf(how, sizeof how, "simulated");
        fprintf(out, "%-8s %6s %8d %8d %7d %-9s %14llu %11.2f %9.2f%% %9.2f%%  %s\n", w->decode ? "decode" : "prefill",
                layer, w->seq_q, w->seq_k, w->window, row_source(w), (unsigned long long)w->cycles, w->time_us,
                100.0 * w->disruptive_rate, 100.0 * w->subblock_rate, how);
    }
    double ghz = r->clock_ghz > 0 ? r->clock_ghz : 1.0;
    uint64_t total = r->prefill_cycles + r->decode_cycles;
    fprintf(out, "prefill %llu cycles (%.1f us), decode %llu cycles (%.1f us%s), total %llu cycles = %.1f us at %.3f GHz\n",
            (unsigned long long)r->prefill_cycles, (double)r->prefill_cycles / (ghz * 1e3),
            (unsigned long long)r->decode_cycles, (double)r->decode_cycles / (ghz * 1e3),
            m->decode > 0 ? ", interpolated between the decode samples" : "", (unsigned long long)total,
            (double)total / (ghz * 1e3), ghz);
    fprintf(out, "utilisation (cycle-weighted):");
    for (int u = 0; u < r->nunits; u++) fprintf(out, " %s %.1f%%", r->unit_names[u], 100.0 * r->util[u]);
    fprintf(out, "\n%d timed-model simulations; %d identical synthetic layers reused; attention only (no "
                 "projections or MLP)\n", r->simulations, reused);
}

/* The fields a model report shares with a run's (report.csv, and report.json's top level). */
static void model_fields(ls_fields *fs, const ls_model *m, const ls_model_result *r)
{
    int reused = 0;
    for (int i = 0; i < r->nrows; i++) reused += r->rows[i].reused_from >= 0;
    uint64_t total = r->prefill_cycles + r->decode_cycles;
    char key[64];
    ls_fields_int(fs, "schema_version", LS_REPORT_SCHEMA_VERSION);
    ls_fields_string(fs, "report", "model"); /* a run's report has no such field: it is one layer */
    ls_fields_string(fs, "lampsim.version", LAMPSIM_VERSION);
    ls_fields_string(fs, "lampsim.git", LAMPSIM_GIT_REV);
    ls_fields_string(fs, "mode", r->mode);
    ls_fields_string(fs, "model", "timed");
    ls_fields_string(fs, "workload.name", m->name);
    ls_fields_string(fs, "workload.generator", "model");
    ls_fields_int(fs, "workload.batch", m->batch);
    ls_fields_int(fs, "workload.heads_q", m->heads_q);
    ls_fields_int(fs, "workload.heads_kv", m->heads_kv);
    ls_fields_int(fs, "workload.dim", m->dim);
    ls_fields_int(fs, "workload.layers", m->layers);
    ls_fields_int(fs, "workload.prefill", m->prefill);
    ls_fields_int(fs, "workload.decode", m->decode);
    ls_fields_int(fs, "workload.decode_samples", m->decode_samples);
    ls_fields_uint(fs, "cycles", total);
    ls_fields_uint(fs, "prefill_cycles", r->prefill_cycles);
    ls_fields_uint(fs, "decode_cycles", r->decode_cycles);
    ls_fields_double(fs, "clock_ghz", r->clock_ghz);
    ls_fields_double(fs, "time_us", r->clock_ghz > 0 ? (double)total / (r->clock_ghz * 1e3) : 0.0);
    ls_fields_int(fs, "simulations", r->simulations);
    ls_fields_int(fs, "layers_reused", reused);
    for (int u = 0; u < r->nunits; u++) {
        snprintf(key, sizeof key, "units.%s.utilisation", r->unit_names[u]);
        ls_fields_double(fs, key, r->util[u]);
    }
    ls_fields_string(fs, "occupancy.layout", r->layout);
}

char *ls_model_report_json(const ls_model *m, const ls_model_result *r)
{
    ls_fields fs;
    ls_fields_init(&fs);
    model_fields(&fs, m, r);
    ls_json j;
    ls_json_init(&j);
    ls_json_begin_object(&j, NULL);
    ls_fields_to_json_members(&fs, &j);
    ls_json_begin_array(&j, "layers");
    for (int i = 0; i < r->nrows; i++) {
        const ls_model_row *w = &r->rows[i];
        ls_json_begin_object(&j, NULL);
        ls_json_string(&j, "phase", w->decode ? "decode" : "prefill");
        if (w->decode) ls_json_null(&j, "layer"); /* a decode row stands for every layer */
        else ls_json_int(&j, "layer", w->layer);
        ls_json_int(&j, "seq_q", w->seq_q);
        ls_json_int(&j, "seq_k", w->seq_k);
        ls_json_int(&j, "window", w->window);
        if (w->decode) ls_json_int(&j, "decode_layers", w->layers);
        ls_json_string(&j, "source", row_source(w));
        if (w->reused_from >= 0) ls_json_int(&j, "reused_from_row", w->reused_from);
        else ls_json_null(&j, "reused_from_row");
        ls_json_uint(&j, "cycles", w->cycles);
        ls_json_double(&j, "time_us", w->time_us);
        ls_json_begin_object(&j, "tiles");
        ls_json_double(&j, "disruptive_rate", w->disruptive_rate);
        ls_json_end_object(&j);
        ls_json_begin_object(&j, "recompute");
        ls_json_double(&j, "subblock_rate", w->subblock_rate);
        ls_json_end_object(&j);
        ls_json_begin_object(&j, "units");
        for (int u = 0; u < r->nunits; u++) {
            ls_json_begin_object(&j, r->unit_names[u]);
            ls_json_double(&j, "utilisation", w->util[u]);
            ls_json_end_object(&j);
        }
        ls_json_end_object(&j);
        ls_json_end_object(&j);
    }
    ls_json_end_array(&j);
    ls_json_end_object(&j);
    const char *t = ls_json_text(&j);
    char *out = t && !fs.oom ? strdup(t) : NULL;
    ls_json_free(&j);
    ls_fields_free(&fs);
    return out;
}

char *ls_model_report_csv(const ls_model *m, const ls_model_result *r)
{
    ls_fields fs;
    ls_fields_init(&fs);
    model_fields(&fs, m, r);
    char *out = fs.oom ? NULL : ls_fields_to_csv(&fs);
    ls_fields_free(&fs);
    return out;
}

char *ls_model_layers_csv(const ls_model_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fprintf(f, "phase,layer,seq_q,seq_k,window,source,reused_from_row,cycles,time_us,tiles.disruptive_rate,"
               "recompute.subblock_rate");
    for (int u = 0; u < r->nunits; u++) fprintf(f, ",units.%s.utilisation", r->unit_names[u]);
    fputc('\n', f);
    for (int i = 0; i < r->nrows; i++) {
        const ls_model_row *w = &r->rows[i];
        char layer[16] = "", from[16] = ""; /* empty: every layer (decode) / simulated, not reused */
        if (!w->decode) snprintf(layer, sizeof layer, "%d", w->layer);
        if (w->reused_from >= 0) snprintf(from, sizeof from, "%d", w->reused_from);
        fprintf(f, "%s,%s,%d,%d,%d,%s,%s,%llu,%.17g,%.17g,%.17g", w->decode ? "decode" : "prefill", layer, w->seq_q,
                w->seq_k, w->window, row_source(w), from, (unsigned long long)w->cycles, w->time_us, w->disruptive_rate,
                w->subblock_rate);
        for (int u = 0; u < r->nunits; u++) fprintf(f, ",%.17g", w->util[u]);
        fputc('\n', f);
    }
    fclose(f);
    return text;
}
