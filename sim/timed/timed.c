/* sim/timed/timed.c — the C side of the timed model's run: the numerics (cache, golden first,
 * merge), the sequencer over the units (through the SystemC top or direct calls) and the entry
 * points; timed_build.c builds the run, timed_report.c reports it. */
#define _POSIX_C_SOURCE 200809L
#include "timed.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timed_internal.h"
#include "timed_run.h"
#include "workload.h"

void ls_timed_options_default(ls_timed_options *o)
{
    memset(o, 0, sizeof *o);
    o->use_systemc = 1;
    o->trace_first_tile = 0;
    o->trace_tiles = 4;
    o->trace_max_events = 200000;
}
#include "timed_numfile.h"

const char *ls_timed_program_for_mode(ls_engine_mode m)
{
    switch (m) {
    case LS_ENGINE_MODE_LAMP: return "lampattention";
    case LS_ENGINE_MODE_FA2_16BIT: return "fa2_16bit";
    case LS_ENGINE_MODE_PURE_8BIT: return "pure_8bit";
    default: return NULL;
    }
}

static int fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return -1;
}

/* ---- numerics cache (reuse_numerics) ---- */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001b3ull; }
    return h;
}

/* Every engine parameter that affects O, the statistics or the records; the input; the program's
 * data operations. Timing parameters (accelerator.*, layout) are deliberately left out. */
static uint64_t numerics_key(const ls_engine_params *p, const ls_attn_inputs *in, const lsucode_program *prog)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int iv[] = { (int)p->mode, (int)p->arithmetic, (int)p->acc_model, p->b_q, p->n_q, p->b_k, p->n_k, p->stage1,
                 p->stage2, (int)p->rounding, (int)p->overflow, (int)p->mu_lp_shift, (int)p->hp_shift,
                 (int)p->scale_point, (int)p->acc_order, p->chunk_k, (int)p->lp_datapath, p->lp_fused_k, (int)p->knapsack_tiebreak,
                 (int)p->disruptive_numerics, (int)p->above_one, (int)p->state_precision, p->compute_reference,
                 p->keep_reference };
    h = fnv(h, iv, sizeof iv);
    double dv[] = { p->tau, p->delta, p->lamp_code_tau, p->random_rate };
    h = fnv(h, dv, sizeof dv);
    h = fnv(h, p->formats, sizeof p->formats);   /* names, NUL-padded by snprintf into zeroed params */
    h = fnv(h, &p->seed, sizeof p->seed);
    uint64_t ih = ls_workload_hash(in);
    h = fnv(h, &ih, sizeof ih);
    int causal = in->causal, window = in->causal ? in->window : 0;
    h = fnv(h, &causal, sizeof causal);
    h = fnv(h, &window, sizeof window);
    if (p->sample_query_blocks > 0) {   /* sampled numerics (absent: the key of earlier runs) */
        int sq = p->sample_query_blocks;
        h = fnv(h, &sq, sizeof sq);
    }
    if (in->split_kv > 1 || in->qpack > 1) {   /* the decode regimes (absent: the key of earlier runs) */
        int dv2[] = { in->split_kv, in->qpack };
        h = fnv(h, dv2, sizeof dv2);
    }
    for (int i = 0; i < prog->n; i++) {
        int op = prog->code[i].op, tgt = prog->code[i].target;
        h = fnv(h, &op, sizeof op);
        h = fnv(h, &tgt, sizeof tgt);
    }
    return h;
}

typedef struct {
    bool valid;
    uint64_t key;
    ls_engine_result r;            /* deep copy (records not kept here) */
    lslamp_tile_record *recs;      /* [items][n_q][nkt] */
    size_t nrecs, nout;
} numerics_cache;
static numerics_cache g_cache;

void ls_timed_cache_clear(void)
{
    free(g_cache.r.o); free(g_cache.r.o_ref); free(g_cache.r.tiles.hp_subblocks_hist); free(g_cache.recs);
    memset(&g_cache, 0, sizeof g_cache);
}

static int cache_store(uint64_t key, const ls_engine_result *r, const lslamp_tile_record *recs, size_t nrecs, size_t nout)
{
    ls_timed_cache_clear();
    g_cache.r = *r;
    g_cache.r.records = NULL;
    g_cache.r.n_records = 0;
    g_cache.r.o = malloc(nout * sizeof(float));
    g_cache.r.o_ref = r->o_ref ? malloc(nout * sizeof(float)) : NULL;
    g_cache.r.tiles.hp_subblocks_hist = malloc((size_t)r->tiles.hist_len * sizeof(uint64_t));
    g_cache.recs = malloc(nrecs * sizeof *recs);
    if (!g_cache.r.o || (r->o_ref && !g_cache.r.o_ref) || !g_cache.r.tiles.hp_subblocks_hist || !g_cache.recs) {
        ls_timed_cache_clear();
        return -1;
    }
    memcpy(g_cache.r.o, r->o, nout * sizeof(float));
    if (r->o_ref) memcpy(g_cache.r.o_ref, r->o_ref, nout * sizeof(float));
    memcpy(g_cache.r.tiles.hp_subblocks_hist, r->tiles.hp_subblocks_hist, (size_t)r->tiles.hist_len * sizeof(uint64_t));
    memcpy(g_cache.recs, recs, nrecs * sizeof *recs);
    g_cache.nrecs = nrecs;
    g_cache.nout = nout;
    g_cache.key = key;
    g_cache.valid = true;
    return 0;
}

const lslamp_tile_record *ls_timed_cache_records(void) { return g_cache.recs; }

int ls_timed_run_fail(timed_run *t, const char *fmt, ...)
{
    if (t->err && t->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->err, t->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- the numerics cache on disk (timed.numerics_dir, timed_numfile.h) ---- */
static const char *numerics_dir(const timed_run *t)
{
    const char *d = t->opt->numerics_dir;
    return d && d[0] ? d : NULL;
}

/* The in-process cache filled from the run's key's file, when one matches the run's sizes. */
static bool cache_load_file(timed_run *t)
{
    const ls_engine_params *ep = t->ep;
    const ls_attn_inputs *in = t->in;
    size_t nqb = (size_t)((in->seq_q + ep->b_q * ep->n_q - 1) / (ep->b_q * ep->n_q));
    size_t nkt = (size_t)((in->seq_k + ep->b_k * ep->n_k - 1) / (ep->b_k * ep->n_k));
    size_t nout = (size_t)in->batch * in->heads_q * in->seq_q * in->dim;
    size_t nrecs = (size_t)in->batch * in->heads_q * nqb * ep->n_q * nkt;
    ls_timed_numerics n;
    if (!ls_timed_numfile_read(numerics_dir(t), t->key, nout, nrecs, ep->n_k + 1, ep->compute_reference && ep->keep_reference, &n))
        return false;
    ls_timed_cache_clear();
    g_cache.r = n.r;
    g_cache.recs = n.recs;
    g_cache.nrecs = n.nrecs;
    g_cache.nout = n.nout;
    g_cache.key = t->key;
    g_cache.valid = true;
    return true;
}

/* The in-process cache (just filled by this run) to the key's file; a failure costs only speed. */
static void cache_save_file(timed_run *t)
{
    if (!numerics_dir(t) || !t->reuse || t->from_file || !g_cache.valid || g_cache.key != t->key) return;
    ls_timed_numerics n = { .r = g_cache.r, .recs = g_cache.recs, .nrecs = g_cache.nrecs, .nout = g_cache.nout };
    char err[256];
    if (ls_timed_numfile_write(numerics_dir(t), t->key, &n, err, sizeof err) != 0)
        fprintf(stderr, "lampsim: warning: timed.numerics_dir: %s (the run goes on without it)\n", err);
}

static void direct_port(void *user, lsdp_txn *x)
{
    timed_run *t = user;
    lsdp_unit_dispatch(&t->units[x->unit], x);
}

static void item_done(void *user, lsdp_ctx *x)
{
    timed_run *t = user;
    const lsdp_shape *sh = x->sh;
    if (sh->accuracy)
        ls_engine_item_accuracy(&x->blk, &t->acc, x->Ebuf, x->muh, x->mu, x->om32,
                                sh->cfg->state_fp64 ? x->om64 : NULL, x->stats);
    t->items_done++;
    /* golden first: the engine reported the items as it computed them */
    if (t->opt->progress && !t->golden) t->opt->progress(t->opt->progress_user, t->items_done, t->nseq);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The numerics configuration, timing-only synthesis and whether the numerics cache is read or filled. */
int ls_timed_plan_numerics(timed_run *t)
{
    const ls_engine_params *ep = t->ep;
    /* the numerics cache holds computed numerics: a timing-only run neither reads nor fills it */
    t->reuse = t->opt->reuse_numerics && !t->opt->timing_only;
    t->key = t->reuse ? numerics_key(ep, t->in, &t->prog) : 0;
    /* a replay takes each tile's selection and flags from records; RAISE's cost also depends on
     * whether it changed mu_hat, which no record holds, so that option always runs the units' numerics */
    bool replayable = ep->above_one != LSLAMP_ABOVE_RAISE;
    t->cached = replayable && t->reuse && g_cache.valid && g_cache.key == t->key;
    if (replayable && t->reuse && !t->cached && numerics_dir(t)) t->cached = t->from_file = cache_load_file(t);
    t->golden = replayable && !t->cached && !t->opt->timing_only && !t->opt->unit_numerics;
    t->replay = t->cached || t->golden;
    t->lc = malloc(sizeof *t->lc);
    if (!t->lc) return ls_timed_run_fail(t, "out of memory");
    /* units that replay do no arithmetic: no exponential tables (the engine builds its own) */
    if (ls_engine_lamp_cfg(ep, t->in->dim, !t->replay, t->lc, t->err, t->errlen) != 0) return -1;

    /* timing only: the fixed policies select from the geometry alone; anything whose timing or
     * output depends on the data is refused rather than approximated */
    t->synth = LSDP_SYNTH_OFF;
    if (t->opt->timing_only) {
        const char *why = NULL;
        if (t->lc->policy == &lslamp_policy_all) t->synth = LSDP_SYNTH_ALL;
        else if (t->lc->policy == &lslamp_policy_none) t->synth = LSDP_SYNTH_NONE;
        else why = "its sub-block selection depends on the data; only fa2_16bit and pure_8bit have a fixed selection";
        if (!why && ep->above_one == LSLAMP_ABOVE_RAISE)
            why = "with algorithm.above_one = raise the RAISE cost depends on the data";
        if (!why && ep->keep_tile_records) why = "per-tile records hold data-dependent flags";
        if (why) return ls_timed_run_fail(t, "timed.timing_only with algorithm.mode %s: %s", ls_engine_mode_name(ep->mode), why);
    }
    t->tr->numerics_key = t->key;
    t->tr->numerics_reused = t->cached;
    t->tr->timing_only = t->synth != LSDP_SYNTH_OFF;
    t->tr->numerics_path = t->synth != LSDP_SYNTH_OFF ? "none" : t->from_file ? "file" : t->cached ? "cache"
                         : t->golden ? "engine" : "units";
    return 0;
}

/* Golden first: the engine computes the numerics into the result (on ep->threads; its result does
 * not depend on them) with the per-tile records the units then replay. The records are dropped
 * from the result unless ep asks for them. */
static int golden_numerics(timed_run *t)
{
    ls_engine_params gp = *t->ep;
    gp.keep_tile_records = true;
    gp.progress = t->opt->progress;
    gp.progress_user = t->opt->progress_user;
    if (ls_engine_run(&gp, t->in, t->r, t->err, t->errlen) != 0) return -1;
    ls_engine_result *r = t->r;
    t->grecs = malloc((r->n_records ? r->n_records : 1) * sizeof *t->grecs);
    if (!t->grecs) return ls_timed_run_fail(t, "out of memory");
    for (size_t i = 0; i < r->n_records; i++)
        t->grecs[i] = (lslamp_tile_record){ r->records[i].stage1_mask, r->records[i].stage2_mask, r->records[i].n_hp,
                                            r->records[i].flags };
    t->sh.replay = t->grecs;
    if (!t->ep->keep_tile_records) {
        free(r->records);
        r->records = NULL;
        r->n_records = 0;
    }
    return 0;
}

/* The sequencer over the units, through the SystemC top or direct calls; the trace if asked. */
static int run_sequencer(timed_run *t)
{
    const ls_timed_options *opt = t->opt;
    lsseq *s = &t->s;
    s->prog = &t->prog; s->sh = &t->sh; s->hw = &t->hw;
    s->contexts_per_core = t->ra.limit;
    s->prefetch_depth = t->depth;
    s->port = direct_port; s->port_user = t;
    s->item_done = item_done; s->item_user = t;
    s->item_stats = t->items; s->hist = t->hist; s->records = t->replay ? NULL : t->recs; s->items = t->nseq;
    s->schedule = t->ac->scheduling;
    if (opt->trace_path && *opt->trace_path) {
        ls_timed_trace_init(&t->trace, opt->trace_first_tile, opt->trace_tiles,
                     (size_t)(opt->trace_max_events > 0 ? opt->trace_max_events : 200000));
        t->trace.regs_per_context = t->ra.per_context;
        t->trace.registers = t->ac->regfile.registers;
        t->trace.key_tiles = t->sh.nkt;
        s->trace_txn = ls_timed_trace_txn;
        s->trace_resident = ls_timed_trace_resident;
        s->trace_user = &t->trace;
        t->mem.model.on_channel = ls_timed_trace_channel;   /* the chip's DRAM and L2 tracks */
        t->mem.model.on_channel_user = &t->trace;
    }
    if (opt->use_systemc) {
        if (ls_timed_sc_run(s, t->units, t->hw.clock_ghz, opt->sc_host, t->err, t->errlen) != 0) return -1;
    } else if (lsseq_run(s) != 0) {
        return ls_timed_run_fail(t, "%s", s->err);
    }
    if (s->trace_user) {
        if (ls_timed_trace_write(&t->trace, opt->trace_path, t->hw.clock_ghz, t->hw.cores, t->err, t->errlen)) return -1;
        t->tr->trace.written = 1;
        t->tr->trace.slices = t->trace.nev;
        t->tr->trace.dropped = t->trace.dropped;
        t->tr->trace.max_events = t->trace.max_events;
        t->tr->trace.first_tile = t->trace.first_tile;
        t->tr->trace.tiles = t->trace.ntiles;
        t->tr->trace.key_tiles = t->trace.key_tiles;
    }
    return 0;
}

/* The numerics into the engine-compatible result: the golden engine's (already there), replayed
 * from the cache, or merged from the items; the last and the engine's stored in the cache; the
 * per-tile flags into the records. */
static void merge_numerics(timed_run *t)
{
    ls_engine_result *r = t->r;
    if (t->golden) {
        if (t->reuse && cache_store(t->key, r, t->grecs, t->nrecs, t->nout) != 0) ls_timed_cache_clear();
        cache_save_file(t);
        return;
    }
    if (t->cached) {
        /* numerics from the cache (same key): O, statistics, records */
        memcpy(r->o, g_cache.r.o, t->nout * sizeof(float));
        if (r->o_ref && g_cache.r.o_ref) memcpy(r->o_ref, g_cache.r.o_ref, t->nout * sizeof(float));
        memcpy(r->tiles.hp_subblocks_hist, g_cache.r.tiles.hp_subblocks_hist, (size_t)t->hl * sizeof(uint64_t));
        r->tiles.executed = g_cache.r.tiles.executed;
        r->tiles.masked_skipped = g_cache.r.tiles.masked_skipped;
        r->tiles.disruptive_rate = g_cache.r.tiles.disruptive_rate;
        r->recompute = g_cache.r.recompute;
        r->accuracy = g_cache.r.accuracy;
        r->events = g_cache.r.events;
        r->sample = g_cache.r.sample;
        if (t->recs) memcpy(t->recs, g_cache.recs, t->nrecs * sizeof *t->recs);
    } else {
        /* timing only: the geometric statistics (tiles, recompute) are exact; no accuracy, no events */
        ls_engine_merge_items(t->items, t->nseq, t->hist, t->hl, t->sh.accuracy, r);
        r->timing_only = t->synth != LSDP_SYNTH_OFF;
        if (!r->timing_only) ls_engine_count_nonfinite(r);   /* timing only: O was never computed */
        if (t->reuse && t->recs && cache_store(t->key, r, t->recs, t->nrecs, t->nout) != 0) ls_timed_cache_clear();
        if (!r->timing_only) cache_save_file(t);
    }
    if (t->recs && r->records)
        for (size_t i = 0; i < r->n_records; i++) {
            r->records[i].stage1_mask = t->recs[i].stage1_mask;
            r->records[i].stage2_mask = t->recs[i].stage2_mask;
            r->records[i].n_hp = t->recs[i].n_hp;
            r->records[i].flags = t->recs[i].flags;
        }
}

/* The one cleanup path: everything timed_run owns, whatever stage the run reached. */
static void timed_free(timed_run *t)
{
    ls_timed_trace_free(&t->trace);
    lsseq_free(&t->s);
    lsmem_free(&t->mem);
    for (int u = 0; u < LSUNIT_N; u++) free(t->units[u].core);
    for (int c = 0; c < t->hw.cores && t->issue; c++) lsdp_issue_free(&t->issue[c]);
    free(t->issue);
    ls_engine_acc_ws_free(&t->acc);
    free(t->items); free(t->hist); free(t->recs); free(t->grecs);
    free(t->lc);
    lsucode_program_free(&t->prog);
    free(t);
}

/* The stages in order; the first that fails stops the run. */
static int timed_stages(timed_run *t)
{
    if (ls_timed_plan_stages(t) != 0 || (t->golden && golden_numerics(t) != 0) || ls_timed_alloc_buffers(t) != 0 || ls_timed_build_units(t) != 0)
        return -1;
    bool forwarded;
    if (ls_timed_fast_forward(t, run_sequencer, &forwarded) != 0 || (!forwarded && run_sequencer(t) != 0)) return -1;
    merge_numerics(t);
    ls_timed_figures(t);
    return 0;
}

/* Q, K/V or O of the layer (map: its bases) outside [0, bytes) of the memory port (bytes 0: only
 * that it does not wrap around the 64-bit address space). */
static int check_regions(const lsdp_shape *sh, const ls_timed_memory *m, char *err, size_t errlen)
{
    static const char *const names[] = { "Q", "K/V", "O" }, *const regs[] = { "Q_BASE", "KV_BASE", "O_BASE" };
    const uint64_t base[] = { m->q_base, m->kv_base, m->o_base };
    for (int r = 0; r < 3; r++) {
        uint64_t n = lsmem_region_bytes(sh, r == 0 ? LSMEM_Q : r == 1 ? LSMEM_KV : LSMEM_O);
        if (base[r] > UINT64_MAX - n) {
            snprintf(err, errlen, "%s = 0x%llx: the %s region (%llu bytes) wraps around the 64-bit address space", regs[r],
                     (unsigned long long)base[r], names[r], (unsigned long long)n);
            return -1;
        }
        if (m->bytes && (base[r] > m->bytes || n > m->bytes - base[r])) {
            snprintf(err, errlen, "%s = 0x%llx: the %s region [0x%llx, 0x%llx) (%llu bytes) does not lie inside the "
                     "memory's %llu bytes", regs[r], (unsigned long long)base[r], names[r], (unsigned long long)base[r],
                     (unsigned long long)(base[r] + n), (unsigned long long)n, (unsigned long long)m->bytes);
            return -1;
        }
    }
    return 0;
}

int ls_timed_check_layer(const ls_config *cfg, const ls_engine_params *ep, const ls_attn_inputs *in,
                         const ls_timed_options *opt, const ls_timed_memory *mem, char *err, size_t errlen)
{
    if (!cfg || !ep || !in) return fail(err, errlen, "timed: null configuration, parameters or inputs");
    const ls_config_workload *w = &cfg->workload;
    if (in->batch >= 1 && in->heads_q >= 1 && in->heads_kv >= 1 && in->seq_q >= 1 && in->seq_k >= 1 && in->dim >= 1) {
        /* the configuration's guards, as a run's workload meets them at load */
        double nq = (double)in->batch * in->heads_q * in->seq_q * in->dim, nk = (double)in->batch * in->heads_kv * in->seq_k * in->dim;
        if (nq > (double)w->max_elements || nk > (double)w->max_elements) {
            snprintf(err, errlen, "%s has %.0f elements, more than workload.max_elements = %lld", nq >= nk ? "Q" : "K/V",
                     nq >= nk ? nq : nk, (long long)w->max_elements);
            return -1;
        }
    }
    ls_timed_options o;
    if (opt) o = *opt;
    else ls_timed_options_default(&o);
    if (in->batch >= 1 && in->heads_q >= 1 && in->seq_q >= 1 && in->seq_k >= 1 && in->dim >= 1) {
        /* the work this layer will do: no multiply-adds when timing only */
        ls_config_shape shape = { in->batch, in->heads_q, in->seq_q, in->seq_k, in->dim, in->causal, in->window };
        if (ls_config_check_work(cfg, &shape, !o.timing_only, true, err, errlen, NULL)) return -1;
    }
    o.reuse_numerics = 0;   /* the numerics key hashes the data */
    ls_engine_result r;
    ls_timed_result tr;
    memset(&r, 0, sizeof r);
    memset(&tr, 0, sizeof tr);
    timed_run *t = calloc(1, sizeof *t);
    if (!t) return fail(err, errlen, "out of memory");
    *t = (timed_run){ .cfg = cfg, .ac = &cfg->accelerator, .ep = ep, .in = in, .opt = &o, .r = &r, .tr = &tr,
                      .err = err, .errlen = errlen };
    int rc = ls_timed_plan_stages(t);
    if (rc == 0 && mem) rc = check_regions(&t->sh, mem, err, errlen);
    timed_free(t);
    return rc;
}

int ls_timed_run(const ls_config *cfg, const ls_engine_params *ep, const ls_attn_inputs *in,
                 ls_engine_result *res, ls_timed_result *tr, char *err, size_t errlen)
{
    return ls_timed_run_opts(cfg, ep, in, NULL, res, tr, err, errlen);
}

int ls_timed_run_opts(const ls_config *cfg, const ls_engine_params *ep, const ls_attn_inputs *in,
                      const ls_timed_options *opt, ls_engine_result *r, ls_timed_result *tr,
                      char *err, size_t errlen)
{
    double t0 = now_s();
    memset(r, 0, sizeof *r);
    memset(tr, 0, sizeof *tr);
    ls_timed_options defo;
    if (!opt) { ls_timed_options_default(&defo); opt = &defo; }
    if (!cfg || !ep || !in) return fail(err, errlen, "timed: null configuration, parameters or inputs");
    timed_run *t = calloc(1, sizeof *t);
    if (!t) return fail(err, errlen, "out of memory");
    *t = (timed_run){ .cfg = cfg, .ac = &cfg->accelerator, .ep = ep, .in = in, .opt = opt, .r = r, .tr = tr,
                      .err = err, .errlen = errlen };
    int rc = timed_stages(t);
    timed_free(t);
    double t1 = now_s();
    r->wall_seconds = t1 - t0;
    tr->wall_seconds = t1 - t0;
    tr->cycles_per_second = tr->wall_seconds > 0 ? (double)tr->cycles / tr->wall_seconds : 0.0;
    return rc;
}

void ls_timed_result_free(ls_timed_result *tr)
{
    if (tr) memset(tr, 0, sizeof *tr);
}
