#define _POSIX_C_SOURCE 200809L  /* open_memstream, strdup */
/* liblampsim.so: the golden engine behind a flat C interface (see api.h). */
#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "fields.h"
#include "json.h"
#include "lampsim_version.h"
#include "report.h"
#include "run.h"
#include "sweep.h"
#include "workload_stats.h"
#include "workload.h"

struct ls_api_ctx {
    ls_config cfg;
    ls_engine_params ep;
};

ls_api_ctx *ls_api_open(const char *config_path, const char *const *overrides, int n_overrides, char *err,
                      size_t errlen)
{
    ls_api_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ls_config_diag diag;
    memset(&diag, 0, sizeof diag);
    if (ls_config_load(&c->cfg, config_path, overrides, n_overrides, &diag) != 0) {
        snprintf(err, errlen, "%s", diag.message);
        ls_config_free(&c->cfg);
        free(c);
        return NULL;
    }
    ls_run_engine_params(&c->cfg, &c->ep);
    return c;
}

void ls_api_close(ls_api_ctx *c)
{
    if (!c) return;
    ls_config_free(&c->cfg);
    free(c);
}

char *ls_api_config_yaml(const ls_api_ctx *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    int rc = ls_config_write_resolved(&c->cfg, f);
    fclose(f);
    if (rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

int ls_api_is_key(const char *key) { return key && ls_config_schema_find(key) != NULL; }

int ls_api_suggest_key(const char *key, char *out, size_t outlen)
{
    return key && out && outlen && ls_config_suggest(key, out, outlen);
}

static int check_shape(int batch, int hq, int hk, int sq, int sk, int d, char *err, size_t errlen)
{
    if (batch < 1 || hq < 1 || hk < 1 || sq < 1 || sk < 1 || d < 1) {
        snprintf(err, errlen, "shape: every dimension must be >= 1 (batch %d, heads %d/%d, seq %d x %d, dim %d)",
                 batch, hq, hk, sq, sk, d);
        return 2;
    }
    if (hq % hk) {
        snprintf(err, errlen, "shape: heads_q %d is not a multiple of heads_kv %d", hq, hk);
        return 2;
    }
    return 0;
}

/* The report's numerics fields of one bridge call: the workload block describes the tensors. */
static char *stats_to_json(const ls_config *cfg, const ls_engine_result *r, int batch, int hq, int hk, int sq,
                           int sk, int d, int causal)
{
    ls_workload_info wl;
    memset(&wl, 0, sizeof wl);
    snprintf(wl.name, sizeof wl.name, "bridge");
    snprintf(wl.generator, sizeof wl.generator, "bridge");
    snprintf(wl.dtype, sizeof wl.dtype, "fp32");
    wl.batch = batch, wl.heads_q = hq, wl.heads_kv = hk, wl.seq_q = sq, wl.seq_k = sk, wl.dim = d;
    wl.causal = causal != 0;
    ls_fields fs;
    ls_fields_init(&fs);
    ls_report_fields(&fs, cfg, "golden", &wl, r);
    /* the counts behind the logit rates, so that the rates of several calls can be merged exactly */
    ls_fields_uint(&fs, "bridge.logits_unmasked", r->recompute.logits_unmasked);
    ls_fields_uint(&fs, "bridge.logits_hp", r->recompute.logits_hp);
    ls_fields_double(&fs, "bridge.wall_seconds", r->wall_seconds);
    ls_json j;
    ls_json_init(&j);
    ls_fields_to_json(&fs, &j);
    const char *t = ls_json_text(&j);
    char *out = t && !fs.oom ? strdup(t) : NULL;
    ls_json_free(&j);
    ls_fields_free(&fs);
    return out;
}

static int copy_records(const ls_engine_result *r, int32_t **records, size_t *n_records, int geometry[3])
{
    *n_records = r->n_records;
    geometry[0] = r->n_qblocks, geometry[1] = r->n_q, geometry[2] = r->n_ktiles;
    *records = malloc((r->n_records ? r->n_records : 1) * 4 * sizeof(int32_t));
    if (!*records) return -1;
    for (size_t i = 0; i < r->n_records; i++) {
        const ls_engine_tile_record *t = &r->records[i];
        int32_t *row = *records + 4 * i;
        row[0] = t->stage1_mask, row[1] = t->stage2_mask, row[2] = t->n_hp, row[3] = t->flags;
    }
    return 0;
}

int ls_api_attention(const ls_api_ctx *c, int batch, int heads_q, int heads_kv, int seq_q, int seq_k, int dim,
                    int causal, const float *q, const float *k, const float *v, float *o, int flags,
                    char **stats_json, int32_t **records, size_t *n_records, int geometry[3], char *err,
                    size_t errlen)
{
    if (stats_json) *stats_json = NULL;
    if (records) *records = NULL;
    int rc = check_shape(batch, heads_q, heads_kv, seq_q, seq_k, dim, err, errlen);
    if (rc) return rc;
    /* as `lampsim run` refuses a trace: a NaN or an infinity would come back as a plausible O
     * (zeros in some modes) with perfect-looking statistics */
    const int64_t qshape[4] = {batch, heads_q, seq_q, dim}, kvshape[4] = {batch, heads_kv, seq_k, dim};
    if (ls_workload_check_finite(q, 4, qshape, "q", err, errlen) || ls_workload_check_finite(k, 4, kvshape, "k", err, errlen) ||
        ls_workload_check_finite(v, 4, kvshape, "v", err, errlen))
        return 2;
    ls_engine_params ep = c->ep;
    ep.compute_reference = (flags & LS_API_REFERENCE) != 0;
    ep.keep_reference = false;
    ep.keep_tile_records = (flags & LS_API_RECORDS) != 0 && records;
    const ls_config_workload *w = &c->cfg.workload;
    /* O is returned whole: a sampled run computes some query blocks only */
    if (ep.sample_query_blocks > 0) {
        snprintf(err, errlen, "algorithm.sample_query_blocks = %d: attention returns O, which a sampled run computes "
                 "for the sampled query blocks only (set it to 0; use lampsim run for sampled long layers)",
                 ep.sample_query_blocks);
        return 2;
    }
    if (w->window > 0 && !causal) {
        snprintf(err, errlen, "workload.window = %d needs causal attention (causal=True)", w->window);
        return 2;
    }
    /* the engine reads the inputs only; the struct's pointers are not const for the owners' sake. The
     * configuration's window, split-KV and GQA packing apply as in `lampsim run` (workload.window,
     * workload.split_kv, workload.pack_gqa) */
    ls_attn_inputs in = {.batch = batch, .heads_q = heads_q, .heads_kv = heads_kv, .seq_q = seq_q,
                         .seq_k = seq_k, .dim = dim, .causal = causal != 0, .window = causal ? w->window : 0,
                         .q = (float *)q, .k = (float *)k, .v = (float *)v};
    if (ls_workload_arrange(&c->cfg, &in, true, err, errlen) != 0) return 1;
    ls_engine_result r;
    memset(&r, 0, sizeof r);
    if (ls_engine_run(&ep, &in, &r, err, errlen) != 0) {
        ls_engine_result_free(&r);
        ls_attn_inputs_release(&in);
        return 1;
    }
    ls_workload_unpack_rows(&in, r.o);   /* packed GQA rows back to [batch][heads_q][seq_q] */
    ls_attn_inputs_release(&in);
    memcpy(o, r.o, sizeof(float) * (size_t)batch * (size_t)heads_q * (size_t)seq_q * (size_t)dim);
    rc = 0;
    if (stats_json && !(*stats_json = stats_to_json(&c->cfg, &r, batch, heads_q, heads_kv, seq_q, seq_k, dim, causal)))
        rc = 1;
    if (!rc && ep.keep_tile_records && copy_records(&r, records, n_records, geometry) != 0) rc = 1;
    if (rc) {
        snprintf(err, errlen, "out of memory");
        free(stats_json ? *stats_json : NULL);
        if (stats_json) *stats_json = NULL;
    }
    ls_engine_result_free(&r);
    return rc;
}

int ls_api_workload_stats(const ls_api_ctx *c, int batch, int heads_q, int heads_kv, int seq_q, int seq_k, int dim,
                          int causal, const float *q, const float *k, const float *v, int sink_keys, int local_keys,
                          int engine_rows, int lamp, char **csv, char *err, size_t errlen)
{
    *csv = NULL;
    int rc = check_shape(batch, heads_q, heads_kv, seq_q, seq_k, dim, err, errlen);
    if (rc) return rc;
    if (sink_keys < 1 || local_keys < 1 || engine_rows < 0) {
        snprintf(err, errlen, "sink_keys and local_keys must be >= 1, engine_rows >= 0");
        return 2;
    }
    ls_attn_inputs in = {.batch = batch, .heads_q = heads_q, .heads_kv = heads_kv, .seq_q = seq_q,
                         .seq_k = seq_k, .dim = dim, .causal = causal != 0, .q = (float *)q, .k = (float *)k,
                         .v = (float *)v};
    ls_wstats_opts o = ls_wstats_default_opts();
    o.sink_keys = sink_keys, o.local_keys = local_keys, o.engine_rows = engine_rows, o.lamp = lamp != 0;
    ls_wstats_head *h = calloc((size_t)heads_q, sizeof *h);
    size_t len = 0;
    FILE *f = NULL;
    if (!h || ls_wstats_measure(&in, 0, &c->ep, &o, h, err, errlen) < 0 || !(f = open_memstream(csv, &len))) {
        if (!h || !f) snprintf(err, errlen, "out of memory");
        free(h);
        return 1;
    }
    ls_wstats_csv(f, h, heads_q, true);
    free(h);
    return fclose(f) ? 1 : 0;
}

int ls_api_run(const ls_api_ctx *c, const char *out_dir, int force, char *err, size_t errlen)
{
    if (!out_dir || !*out_dir) {
        snprintf(err, errlen, "run: an output directory is needed");
        return 2;
    }
    ls_run_opts o;
    memset(&o, 0, sizeof o);
    o.out_dir = out_dir;
    o.force = force != 0;
    o.quiet = true;
    o.progress = LS_RUN_PROGRESS_OFF;
    return ls_run(&c->cfg, &o, err, errlen);
}

int ls_api_sweep_merge(const char *dir, char **csv, int counts[4], char *err, size_t errlen)
{
    *csv = NULL;
    size_t len = 0;
    FILE *m = open_memstream(csv, &len);
    FILE *msgs = fopen("/dev/null", "w"); /* the per-point notes: the counts say it */
    if (!m || !msgs) {
        if (m) fclose(m);
        if (msgs) fclose(msgs);
        free(*csv);
        *csv = NULL;
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    ls_sweep_merge_stats st;
    memset(&st, 0, sizeof st);
    int rc = ls_sweep_merge(dir, m, msgs, &st, err, errlen);
    fclose(m);
    fclose(msgs);
    counts[0] = st.total, counts[1] = st.done, counts[2] = st.failed, counts[3] = st.missing;
    if (rc) {
        free(*csv);
        *csv = NULL;
    }
    return rc;
}

void ls_api_free(void *p) { free(p); }

const char *ls_api_version(void) { return LAMPSIM_VERSION " (git " LAMPSIM_GIT_REV ")"; }
