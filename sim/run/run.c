#define _POSIX_C_SOURCE 200809L  /* gethostname, strdup */
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_dir.h"
#include "atomic_file.h"
#include "fields.h"
#include "json.h"
#include "lampsim_version.h"
#include "report.h"
#include "timed.h"
#include "workload.h"

void ls_run_engine_params(const ls_config *cfg, ls_engine_params *p)
{
    *p = cfg->algorithm;   /* the algorithm section is the engine's parameters; the run's are zero */
    p->seed = (uint64_t)cfg->seed;
}

void ls_run_engine_defaults(ls_engine_params *p)
{
    ls_config cfg;
    ls_config_defaults(&cfg);
    ls_run_engine_params(&cfg, p);
    ls_config_free(&cfg);
}

static int write_text(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
    char *path = ls_io_path_join(dir, name);
    if (!path) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    int rc = ls_atomic_file_write(path, text, strlen(text), err, errlen) ? 1 : 0;
    free(path);
    return rc;
}

/* Host-dependent facts of the run, kept apart from the deterministic report. */
void ls_run_info_begin(ls_json *j, const ls_config *cfg, int threads)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    ls_json_begin_object(j, NULL);
    ls_json_string(j, "lampsim_version", LAMPSIM_VERSION);
    ls_json_string(j, "git", LAMPSIM_GIT_REV);
    ls_json_string(j, "config_source", cfg->source);
    ls_json_string(j, "host", host);
    ls_json_int(j, "threads", threads);
}

static char *run_info_json(const ls_config *cfg, const ls_engine_result *r, const ls_timed_result *tr, int threads)
{
    ls_json j;
    ls_json_init(&j);
    ls_run_info_begin(&j, cfg, threads);
    if (tr) {
        ls_json_double(&j, "wall_seconds", tr->wall_seconds);
        ls_json_double(&j, "simulated_cycles_per_second", tr->cycles_per_second);
        ls_json_bool(&j, "numerics_reused", tr->numerics_reused != 0);
        ls_json_string(&j, "numerics_path", tr->numerics_path ? tr->numerics_path : "units");
        ls_json_bool(&j, "timing_only", tr->timing_only != 0);
    } else {
        ls_json_double(&j, "wall_seconds", r->wall_seconds);
    }
    ls_json_end_object(&j);
    const char *t = ls_json_text(&j);
    char *out = t ? strdup(t) : NULL;
    ls_json_free(&j);
    return out;
}

/* records.npy (per-tile records, float32 [n_records, 4]) and, for lamp_code, lamp_code_mask.npy. */
static int save_records(const char *dir, const ls_engine_result *res, char *err, size_t errlen)
{
    char *pt = ls_io_path_join(dir, "records.npy"), *pm = ls_io_path_join(dir, "lamp_code_mask.npy");
    int rc = -1;
    if (!pt || !pm) snprintf(err, errlen, "out of memory");
    else if (ls_engine_save_npy(res, NULL, NULL, pt, err, errlen) == 0)
        rc = res->lamp_code_mask ? ls_engine_save_lamp_code_mask(res, pm, err, errlen) : 0;
    free(pt);
    free(pm);
    return rc;
}

/* The report's fields, in report.json's order: one list for the files and for fields_out. */
static void report_fields(ls_fields *fs, const ls_config *cfg, const ls_workload_info *wl, const ls_engine_result *res,
                          const ls_timed_result *tr)
{
    ls_report_fields(fs, cfg, tr ? "timed" : "golden", wl, res);
    if (tr) ls_timed_report_fields(fs, tr);
    ls_report_config_fields(fs, cfg);
}

/* Writes the run's files into dir (the run directory's temporary until the caller commits it). */
static int write_outputs(const ls_config *cfg, const ls_run_opts *o, const char *dir, const ls_workload_info *wl,
                         const ls_engine_result *res, const ls_timed_result *tr, const ls_engine_params *ep,
                         char *err, size_t errlen)
{
    char *path = NULL, *po = NULL, *pr = NULL;
    ls_fields fs;
    ls_json j;
    int rc = 1;
    ls_fields_init(&fs);
    ls_json_init(&j);
    report_fields(&fs, cfg, wl, res, tr);
    ls_fields_to_json(&fs, &j);
    char *csv = ls_fields_to_csv(&fs);
    char *info = run_info_json(cfg, res, tr, ep->threads);
    const char *json = ls_json_text(&j);
    if (!csv || !json || !info) {
        snprintf(err, errlen, "out of memory while writing the report");
        goto out;
    }
    path = ls_io_path_join(dir, "config.resolved.yaml");
    po = ls_io_path_join(dir, "O.npy");
    pr = ls_io_path_join(dir, "O_ref.npy");
    if (!path || !po || !pr) {
        snprintf(err, errlen, "out of memory while writing the report");
        goto out;
    }
    if (ls_config_write_resolved_file(cfg, path, err, errlen)) goto out;
    if (o->save_o && ls_engine_save_npy(res, po, res->o_ref ? pr : NULL, NULL, err, errlen)) goto out;
    if (o->save_records && save_records(dir, res, err, errlen)) goto out;
    if (write_text(dir, "report.csv", csv, err, errlen) || write_text(dir, "run_info.json", info, err, errlen))
        goto out;
    /* report.json last: its presence marks a complete run directory */
    if (write_text(dir, "report.json", json, err, errlen)) goto out;
    rc = 0;
out:
    free(path);
    free(po);
    free(pr);
    free(csv);
    free(info);
    ls_json_free(&j);
    ls_fields_free(&fs);
    return rc;
}

/* Whether this configuration runs on the timed model (the shipped programs cover three modes). */
static bool use_timed_model(const ls_config *cfg, const ls_engine_params *ep)
{
    return cfg->timed.enabled && ls_timed_program_for_mode(ep->mode) != NULL;
}

int ls_run(const ls_config *cfg, const ls_run_opts *o, char *err, size_t errlen)
{
    ls_engine_params ep;
    ls_run_engine_params(cfg, &ep);
    ep.keep_reference = o->save_o;
    ep.keep_tile_records = o->save_records;
    ep.keep_lamp_code_mask = o->save_records && ep.mode == LS_ENGINE_MODE_LAMP_CODE;
    if (o->save_records && !o->out_dir) {
        snprintf(err, errlen, "--save-records writes into the run directory: give one with -o DIR");
        return 2;
    }
    FILE *out = o->summary ? o->summary : stdout;
    bool timed = use_timed_model(cfg, &ep);
    if (cfg->timed.enabled && !timed && !o->quiet)
        fprintf(stderr, "note: the timed model runs modes lamp, fa2_16bit and pure_8bit; mode %s runs on the "
                        "golden engine (numerics and accuracy, no cycles)\n", ls_engine_mode_name(ep.mode));
    /* a trace that cannot be written says so (a silent no-trace looks like a trace of nothing) */
    if (cfg->timed.trace && !timed)
        fprintf(stderr, "lampsim: warning: timed.trace: true, but %s: no trace.json (the trace is the timed "
                        "model's timeline)\n", cfg->timed.enabled ? "this mode runs on the golden engine"
                                                                   : "the golden engine runs (--golden or timed.enabled: false)");
    else if (cfg->timed.trace && !o->out_dir)
        fprintf(stderr, "lampsim: warning: timed.trace: true writes trace.json into the run directory: no trace "
                        "without -o DIR\n");
    if (cfg->timed.timing_only && o->save_o) {
        /* before anything is built or written: there would be no O to save */
        snprintf(err, errlen, "--save-o writes O, which timed.timing_only does not compute (run without one of them)");
        return 2;
    }
    if (cfg->algorithm.sample_query_blocks > 0 && o->save_o) {
        snprintf(err, errlen, "--save-o writes O, which algorithm.sample_query_blocks = %d computes for the sampled "
                 "query blocks only (set it to 0 to save O)", cfg->algorithm.sample_query_blocks);
        return 2;
    }
    if (cfg->timed.timing_only && o->save_records) {
        snprintf(err, errlen, "--save-records writes per-tile records, which carry data-dependent flags that "
                              "timed.timing_only does not compute (run without one of them)");
        return 2;
    }
    int crc = ls_run_check(cfg, err, errlen);
    if (crc) return crc;
    /* the output location is checked (and a temporary made next to it) before anything is computed */
    ls_atomic_dir od = {0};
    if (o->out_dir) {
        int rc = ls_atomic_dir_open(&od, o->out_dir, o->force, err, errlen);
        if (rc) return rc;
        (void)ls_atomic_dir_remove_on_signals(&od);   /* no .r.run.XXXXXX left by an interrupted run */
    }
    if (!o->quiet && ls_run_estimate_wanted(cfg)) ls_run_estimate(cfg, stderr);
    ls_run_progress prog;
    ls_run_progress_init(&prog, stderr, o->quiet ? LS_RUN_PROGRESS_OFF : o->progress, o->progress_period);
    if (o->on_items) {
        ep.progress = o->on_items;
        ep.progress_user = o->on_items_user;
    } else if (prog.style != LS_RUN_PROGRESS_OFF) {
        ep.progress = ls_run_progress_items;
        ep.progress_user = &prog;
    }
    ls_attn_inputs in;
    ls_workload_info wl;
    memset(&in, 0, sizeof in);
    /* a timing-only run reads the geometry alone: no tensor data is generated for it */
    int wrc = 0;
    if (o->inputs) {
        in = *o->inputs;
        wl = *o->inputs_info;
    } else
        wrc = timed && cfg->timed.timing_only ? ls_workload_build_geometry(cfg, NULL, &in, &wl, err, errlen)
                                              : ls_workload_build(cfg, NULL, &in, &wl, err, errlen);
    if (!wrc && ls_workload_arrange(cfg, &in, o->inputs != NULL, err, errlen)) {
        if (!o->inputs) ls_attn_inputs_release(&in);
        ls_atomic_dir_abort(&od);
        return 1;
    }
    if (wrc) {
        ls_atomic_dir_abort(&od);
        return 2;
    }
    ls_engine_result res;
    ls_timed_result tr;
    memset(&res, 0, sizeof res);
    memset(&tr, 0, sizeof tr);
    char *trace_path = NULL;
    int rc = 0;
    if (timed) {
        ls_timed_options to;
        ls_timed_options_default(&to);
        to.program_path = cfg->timed.program[0] ? cfg->timed.program : NULL;
        if (cfg->timed.trace && o->out_dir) {
            trace_path = ls_io_path_join(od.tmp_path, "trace.json");
            if (!trace_path) {
                snprintf(err, errlen, "out of memory");
                rc = 1;
            }
            to.trace_path = trace_path;
        }
        to.trace_first_tile = cfg->timed.trace_first_tile;
        to.trace_tiles = cfg->timed.trace_tiles;
        to.trace_max_events = (long)cfg->timed.trace_max_events;
        to.reuse_numerics = cfg->timed.reuse_numerics;
        to.numerics_dir = cfg->timed.numerics_dir;
        to.timing_only = cfg->timed.timing_only;
        to.fast_forward = cfg->timed.fast_forward;
        to.unit_numerics = cfg->timed.unit_numerics;
        to.progress = ep.progress;
        to.progress_user = ep.progress_user;
        if (!rc && ls_timed_run_opts(cfg, &ep, &in, &to, &res, &tr, err, errlen)) rc = 1;
    } else if (ls_engine_run(&ep, &in, &res, err, errlen)) {
        rc = 1;
    }
    ls_run_progress_clear(&prog);
    if (!rc && in.qpack > 1) {   /* O in the model's layout (records and the lamp_code mask stay packed) */
        ls_workload_unpack_rows(&in, res.o);
        ls_workload_unpack_rows(&in, res.o_ref);
        res.heads_q = ls_attn_inputs_heads(&in);
        res.seq_q = ls_attn_inputs_seq_q(&in);
    }
    if (!rc && tr.trace.written && tr.trace.dropped)
        fprintf(stderr, "lampsim: warning: trace.json: %zu slices dropped past timed.trace_max_events = %zu: the "
                        "timeline stops early; raise it or narrow timed.trace_tiles\n", tr.trace.dropped, tr.trace.max_events);
    if (!rc && tr.trace.written && !o->quiet && tr.trace.first_tile + tr.trace.tiles < tr.trace.key_tiles)
        fprintf(stderr, "note: trace.json draws key tiles %d-%d of each context (of up to %d): later tiles run but "
                        "are not drawn (a 'trace window ends' mark on each context's track; timed.trace_tiles=%d draws all)\n",
                tr.trace.first_tile, tr.trace.first_tile + tr.trace.tiles - 1, tr.trace.key_tiles, tr.trace.key_tiles);
    if (!rc && res.events.o_nonfinite)
        fprintf(stderr, "lampsim: warning: %llu output elements are NaN or infinite (events.o_nonfinite): the "
                "arithmetic overflowed fp32, accuracy metrics that include them are null\n",
                (unsigned long long)res.events.o_nonfinite);
    if (!rc && res.accuracy.valid && isnan(res.accuracy.o_rel_fro_err))
        fprintf(stderr, "lampsim: warning: accuracy.o_rel_fro_err is NaN: the fp64 reference or the output is not "
                "finite (reported as null)\n");
    if (!rc && !o->quiet) {
        ls_report_summary(out, cfg, &wl, &res);
        if (timed) ls_timed_summary(out, &tr);
        fprintf(out, "wall      %.3f s%s%s\n", timed ? tr.wall_seconds : res.wall_seconds,
                o->out_dir ? ", results in " : "", o->out_dir ? o->out_dir : "");
    }
    if (!rc && o->fields_out) {
        report_fields(o->fields_out, cfg, &wl, &res, timed ? &tr : NULL);
        if (o->fields_out->oom) {
            snprintf(err, errlen, "out of memory while collecting the report");
            rc = 1;
        }
    }
    if (o->numerics_reused_out) *o->numerics_reused_out = !rc && timed && tr.numerics_reused;
    if (!rc && o->out_dir && (rc = write_outputs(cfg, o, od.tmp_path, &wl, &res, timed ? &tr : NULL, &ep, err, errlen)))
        ls_atomic_dir_name_final(&od, err, errlen);
    if (!rc && o->out_dir && ls_atomic_dir_commit(&od, err, errlen)) rc = 1;
    ls_atomic_dir_abort(&od); /* no-op after a commit */
    free(trace_path);
    ls_timed_result_free(&tr);
    ls_engine_result_free(&res);
    if (!o->inputs || in.qpack > 1) ls_attn_inputs_release(&in);   /* a packed copy of borrowed inputs: its Q */
    return rc;
}
