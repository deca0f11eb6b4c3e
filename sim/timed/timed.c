/* sim/timed/timed.c — the C side of the timed model: configuration -> units and program, the
 * run (through the SystemC top or direct calls), the engine-compatible result, the report fields
 * and the summary. */
#define _POSIX_C_SOURCE 200809L
#include "timed.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_parts.h"
#include "lslamp.h"
#include "lslut.h"
#include "lsmem.h"
#include "lsregfile.h"
#include "lssched.h"
#include "lsseq.h"
#include "lssfu.h"
#include "lstensor.h"
#include "timed_energy.h"
#include "timed_internal.h"
#include "timed_numfile.h"
#include "timed_trace.h"
#include "lsucode.h"
#include "lsvector.h"
#include "workload.h"

void ls_timed_options_default(ls_timed_options *o)
{
    memset(o, 0, sizeof *o);
    o->use_systemc = 1;
    o->trace_first_tile = 0;
    o->trace_tiles = 4;
    o->trace_max_events = 200000;
}

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

/* ---- the run ---- */
/* Everything one run builds and owns; zeroed at the start, released in one place (timed_free). */
typedef struct {
    /* the request */
    const ls_config *cfg;
    const ls_config_accelerator *ac;
    const ls_engine_params *ep;
    const ls_attn_inputs *in;
    const ls_timed_options *opt;
    ls_engine_result *r;
    ls_timed_result *tr;
    char *err;
    size_t errlen;
    /* program and register plan */
    lsucode_program prog;
    lsregfile_params rp;           /* the resident plan's inputs and result (hw/regfile) */
    lsregfile_tile rt;
    lsregfile_alloc ra;
    int kvg;                       /* contexts per K/V-sharing block */
    /* numerics */
    lslamp_cfg *lc;
    int synth;                     /* LSDP_SYNTH_*: timing only */
    bool reuse;                    /* fill the numerics cache */
    bool cached, golden;           /* the units replay the cache's records / the golden engine's */
    bool from_file;                /* the cache was filled from timed.numerics_dir for this run */
    bool replay;                   /* either: the units do no arithmetic */
    uint64_t key;
    lslamp_tile_record *grecs;     /* the golden engine's records, as the units read them */
    lsdp_shape sh;
    /* the engine-compatible result's buffers */
    int nitems, hl;
    int nseq;                      /* the sequencer's items: nitems x the split-KV splits */
    size_t nout, nrecs;
    lslamp_tile_record *recs;
    lsdp_item_stats *items;
    uint64_t *hist;
    /* the hardware */
    lsdp_unit units[LSUCODE_NUNITS];
    lsdp_issue_port *issue;           /* [cores] when accelerator.issue.per_cycle > 0 */
    lsdp_hw hw;
    lsmem_state mem;
    int depth;                     /* prefetch depth */
    lsseq s;
    ls_timed_trace trace;
    ls_engine_acc_ws acc;
    long items_done;
} timed_run;

static int run_fail(timed_run *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_fail(timed_run *t, const char *fmt, ...)
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

/* The program for the mode (or opt->program_path), and the register layout it asks for. */
static int assemble_program(timed_run *t, const char *pname)
{
    int rc;
    if (t->opt->program_path && *t->opt->program_path) {
        rc = lsucode_assemble_file(t->opt->program_path, &t->prog, t->err, t->errlen);
    } else {
        const char *file = NULL, *text = lsucode_shipped_text(pname, &file);
        rc = lsucode_assemble(text, file, &t->prog, t->err, t->errlen);
    }
    if (rc != 0) return -1;
    snprintf(t->tr->program, sizeof t->tr->program, "%s", t->prog.name);
    snprintf(t->tr->program_file, sizeof t->tr->program_file, "%s", t->prog.file);
    return 0;
}

void ls_timed_plan_inputs(const ls_config *cfg, const ls_engine_params *ep, int ylayout, int dim, int seq_k,
                          long long items, lsregfile_params *rp, lsregfile_tile *rt)
{
    const ls_config_accelerator *ac = &cfg->accelerator;
    *rp = (lsregfile_params){ .registers = ac->regfile.registers, .subpartitions = ac->regfile.subpartitions,
                              .max_regs_per_thread = ac->regfile.max_regs_per_thread,
                              .alloc_granularity = ac->regfile.alloc_granularity, .warp_size = ac->warp_size,
                              .max_warps = ac->max_warps, .max_ctas = ac->max_ctas,
                              .max_contexts = ac->regfile.max_contexts,
                              .layout = lsucode_layout(ylayout, ac->regfile.layout),
                              .q_place = ac->regfile.q_placement, .o_place = ac->regfile.o_placement,
                              .buffer_bytes = ac->memory.buffer_kib * 1024.0, .stages = ac->memory.pipeline_stages,
                              .kv_group = ac->memory.kv_shared_contexts, .cores = ac->cores };
    ls_engine_logit_bits(ep, &rp->lp_bits, &rp->hp_bits);   /* the formats' widths (bad names fail elsewhere) */
    int eb = cfg->workload.dtype == LS_CONFIG_DTYPE_FP32 ? 4 : 2;
    if (cfg->algorithm.operand_format == LS_ENGINE_OPFMT_E4M3) eb = 1;
    *rt = (lsregfile_tile){ .b_q = ep->b_q, .n_q = ep->n_q, .b_k = ep->b_k, .n_k = ep->n_k, .d = dim, .seq_k = seq_k,
                            .elem_bytes = eb, .items = items };
}

/* Resident contexts per core and the K/V stages of a block: hw/regfile's plan (registers, buffer,
 * max_contexts, work), in whole K/V-sharing blocks. */
/* Split-KV's splits of the layer (1: none) and key tiles per split (engine's geometry). */
static int split_count(const ls_attn_inputs *in, const ls_engine_params *ep, int *tps)
{
    int bc = ep->b_k * ep->n_k;
    return ls_engine_split_tiles((in->seq_k + bc - 1) / bc, in->split_kv, tps);
}

static int plan_resident(timed_run *t)
{
    const ls_attn_inputs *in = t->in;
    long long items = (long long)in->batch * in->heads_q * ((in->seq_q + t->ep->b_q * t->ep->n_q - 1) / (t->ep->b_q * t->ep->n_q));
    items *= split_count(in, t->ep, NULL);
    ls_timed_plan_inputs(t->cfg, t->ep, t->prog.ylayout, in->dim, in->seq_k, items, &t->rp, &t->rt);
    snprintf(t->tr->layout, sizeof t->tr->layout, "%s", lsregfile_layout_name(t->rp.layout));
    char rerr[320];
    if (lsregfile_plan(&t->rp, &t->rt, &t->ra, rerr, sizeof rerr) != 0) return run_fail(t, "register file: %s", rerr);
    t->kvg = t->ac->memory.kv_shared_contexts;
    t->depth = t->ra.depth;
    return 0;
}

/* The numerics configuration, timing-only synthesis and whether the numerics cache is read or filled. */
static int plan_numerics(timed_run *t)
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
    if (!t->lc) return run_fail(t, "out of memory");
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
        if (why) return run_fail(t, "timed.timing_only with algorithm.mode %s: %s", ls_engine_mode_name(ep->mode), why);
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
    if (!t->grecs) return run_fail(t, "out of memory");
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

/* The layer as the units see it: inputs, tiling, what to compute. */
static void build_shape(timed_run *t)
{
    const ls_engine_params *ep = t->ep;
    const ls_attn_inputs *in = t->in;
    lsdp_shape *sh = &t->sh;
    sh->cfg = t->lc;
    sh->q = in->q; sh->k = in->k; sh->v = in->v;
    sh->batch = in->batch; sh->heads_q = in->heads_q; sh->heads_kv = in->heads_kv;
    sh->seq_q = in->seq_q; sh->seq_k = in->seq_k; sh->dim = in->dim; sh->causal = in->causal;
    sh->window = in->causal ? in->window : 0;
    sh->qpack = in->qpack;
    int ns = split_count(in, ep, &sh->split_tiles);
    sh->split_kv = ns > 1 ? ns : 0;
    sh->group = in->heads_q / in->heads_kv;
    sh->b_q = ep->b_q; sh->n_q = ep->n_q; sh->b_k = ep->b_k; sh->n_k = ep->n_k;
    sh->br = ep->b_q * ep->n_q; sh->bc = ep->b_k * ep->n_k;
    sh->nqb = (in->seq_q + sh->br - 1) / sh->br;
    sh->nkt = (in->seq_k + sh->bc - 1) / sh->bc;
    sh->seed = ep->seed;
    sh->accuracy = ep->compute_reference && !t->replay && t->synth == LSDP_SYNTH_OFF;
    sh->replay = t->cached ? g_cache.recs : NULL;   /* golden first: set when the engine has run */
    sh->synth = t->synth;
    sh->layout = lsregfile_rule(&t->rp, &t->rt);
    sh->out_bytes = t->cfg->workload.dtype == LS_CONFIG_DTYPE_FP32 ? 4 : 2;
    sh->elem_bytes = t->cfg->algorithm.operand_format == LS_ENGINE_OPFMT_E4M3 ? 1 : sh->out_bytes;
}

/* accelerator.* -> the units' hardware parameters. */
static void hw_from_config(const ls_config_accelerator *ac, bool fp8_operands, long long nitems, lsdp_hw *hw)
{
    /* cores beyond the number of work items never receive one: leave them out of the simulation
     * (the memory channels are chip-wide, so this changes nothing but the memory footprint) */
    hw->cores = (long long)ac->cores < nitems ? ac->cores : (int)nitems;
    hw->clock_ghz = ac->clock_ghz;
    hw->tensor_macs8 = ac->tensor.macs_per_cycle_8bit;
    /* 8-bit operands: the wide-accumulation (16-bit) instructions run at the FP8 rate */
    int fp8_wide = ac->tensor.macs_per_cycle_fp8_wide > 0 ? ac->tensor.macs_per_cycle_fp8_wide : ac->tensor.macs_per_cycle_8bit;
    hw->tensor_macs16 = fp8_operands ? fp8_wide : ac->tensor.macs_per_cycle_16bit;
    hw->tensor_latency = ac->tensor.latency;
    hw->promote_interval = ac->tensor.promote_interval;
    hw->lut_lanes = ac->lut.lanes; hw->lut_latency = ac->lut.latency;
    hw->sfu_lanes = ac->sfu.lanes; hw->sfu_latency = ac->sfu.latency;
    hw->vec_lanes = ac->vector.lanes; hw->vec_latency = ac->vector.latency;
    hw->sort_latency = ac->scheduler.sort_latency; hw->subset_latency = ac->scheduler.subset_latency;
    hw->dram_bpc = ac->memory.bandwidth_gbps / ac->clock_ghz;
    hw->l2_bpc = ac->memory.l2_bandwidth_gbps > 0 ? ac->memory.l2_bandwidth_gbps / ac->clock_ghz : hw->dram_bpc;
    hw->dram_latency = ac->memory.latency;
    hw->l2_latency = ac->memory.l2_latency;
    hw->l2_bytes = ac->memory.l2_mib * 1048576.0;
    hw->buf_bpc = ac->memory.buffer_bytes_per_cycle;
    hw->buf_latency = ac->memory.buffer_latency;
    hw->interleave = ac->interleave_cycles;
    hw->whole_tiles = !ac->skip_masked;
    hw->operand_rows = ac->memory.operand_read_rows;
    hw->q_in_buffer = ac->regfile.q_placement == LSREGFILE_IN_BUFFER;
    hw->o_in_buffer = ac->regfile.o_placement == LSREGFILE_IN_BUFFER;
    hw->pv_lp_rate = ac->tensor.pv_lp_rate;
    hw->kv_group = ac->memory.kv_shared_contexts;
    hw->v_transpose = ac->memory.v_transpose;
    hw->v_transpose_cycles = (uint64_t)ac->memory.v_transpose_cycles;
    hw->o_write_bpc = ac->memory.o_write_bytes_per_cycle < hw->buf_bpc ? ac->memory.o_write_bytes_per_cycle : hw->buf_bpc;
    hw->launch_cycles = (uint64_t)ac->launch_cycles;
    hw->item_setup = (uint64_t)ac->item_setup_cycles;
    hw->issue_per_cycle = ac->issue.per_cycle;
    hw->issue_tensor = ac->issue.tensor_macs_per_instr;
    hw->issue_sfu = ac->issue.sfu_ops_per_instr;
    hw->issue_lut = ac->issue.lut_ops_per_instr;
    hw->issue_vector = ac->issue.vector_ops_per_instr;
    hw->issue_operand = ac->issue.operand_bytes_per_instr;
}

/* Refuse what this hardware cannot run, or what would not fit in the host's memory. */
static int check_feasible(timed_run *t)
{
    const ls_config_accelerator *ac = t->ac;
    if (t->hw.lut_lanes < 1 && t->ep->mode != LS_ENGINE_MODE_FA2_16BIT)
        return run_fail(t, "accelerator.lut.lanes = 0: this program needs the LUT (only fa2_16bit runs without it)");
    /* the accuracy pass keeps every tile's exponentials of each resident item (as the engine does
     * per thread): refuse sizes that would not fit rather than thrash */
    if (t->sh.accuracy) {
        double slots = (double)ac->cores * t->ra.limit, items_d = (double)t->in->batch * t->in->heads_q * t->sh.nqb;
        if (items_d < slots) slots = items_d;
        double need = slots * (double)t->sh.nkt * t->sh.bc * t->sh.br * 4.0;
        if (need > 8.0 * 1073741824.0)
            return run_fail(t, "timed model: the accuracy pass would hold %.1f GiB of exponentials (%.0f resident "
                            "contexts x seq_k %d); lower accelerator.cores or turn the fp64 reference off",
                            need / 1073741824.0, slots, t->in->seq_k);
    }
    return 0;
}

/* The engine-compatible result and the per-item buffers the sequencer fills. */
static int alloc_buffers(timed_run *t)
{
    const ls_engine_params *ep = t->ep;
    const ls_attn_inputs *in = t->in;
    t->nitems = in->batch * in->heads_q * t->sh.nqb;
    t->nseq = t->nitems * (t->sh.split_kv > 1 ? t->sh.split_kv : 1);
    t->hl = ep->n_k + 1;
    t->nout = (size_t)in->batch * in->heads_q * in->seq_q * in->dim;
    int ralloc = t->golden ? 0 : ls_engine_result_alloc(ep, in, t->r);   /* golden first: the engine's */
    t->nrecs = (size_t)t->nitems * ep->n_q * t->sh.nkt;
    bool want_recs = !t->golden && (ep->keep_tile_records || (t->reuse && !t->cached));
    if (want_recs) t->recs = calloc(t->nrecs, sizeof *t->recs);
    t->items = calloc((size_t)t->nseq, sizeof *t->items);
    t->hist = calloc((size_t)t->nseq * t->hl, sizeof(uint64_t));
    int acc_bad = t->sh.accuracy && ls_engine_acc_ws_init(&t->acc, in->seq_k, in->dim) != 0;
    t->sh.o = t->r->o; t->sh.o_ref = t->r->o_ref;
    if (ralloc != 0 || (want_recs && !t->recs) || !t->items || !t->hist || acc_bad || lsmem_init(&t->mem, &t->sh, &t->hw) != 0)
        return run_fail(t, "out of memory");
    return 0;
}

/* One unit per kind with a state per core; the shared issue slots and ports. */
static int build_units(timed_run *t)
{
    lsdp_hw *hw = &t->hw;
    static void (*const execs[LSUCODE_NUNITS])(lsdp_unit *, lsdp_txn *) = {
        [LSUCODE_MEM] = lsmem_exec, [LSUCODE_TENSOR] = lstensor_exec, [LSUCODE_LUT] = lslut_exec, [LSUCODE_SFU] = lssfu_exec,
        [LSUCODE_VECTOR] = lsvector_exec, [LSUCODE_SCHED] = lssched_exec, [LSUCODE_REGFILE] = lsregfile_exec };
    for (int u = 1; u < LSUCODE_NUNITS; u++) {
        t->units[u].id = u;
        t->units[u].hw = hw;
        t->units[u].exec = execs[u];
        t->units[u].core = calloc((size_t)hw->cores, sizeof(lsdp_unit_state));
        if (!t->units[u].core) return run_fail(t, "out of memory");
    }
    t->units[LSUCODE_MEM].impl = &t->mem;
    if (t->ac->sfu_shares_tensor_issue)   /* one issue slot: either unit's slice holds off the other */
        for (int c = 0; c < hw->cores; c++) {
            t->units[LSUCODE_TENSOR].core[c].shares_issue = &t->units[LSUCODE_SFU].core[c];
            t->units[LSUCODE_SFU].core[c].shares_issue = &t->units[LSUCODE_TENSOR].core[c];
        }
    if (hw->issue_per_cycle > 0) {   /* one issue port per core, shared by the units that issue */
        t->issue = calloc((size_t)hw->cores, sizeof *t->issue);
        if (!t->issue) return run_fail(t, "out of memory");
        static const int issuing[] = { LSUCODE_TENSOR, LSUCODE_LUT, LSUCODE_SFU, LSUCODE_VECTOR, LSUCODE_MEM };
        const int per[] = { hw->issue_tensor, hw->issue_lut, hw->issue_sfu, hw->issue_vector, hw->issue_operand };
        for (int c = 0; c < hw->cores; c++) {
            if (lsdp_issue_init(&t->issue[c], hw->issue_per_cycle) != 0) return run_fail(t, "out of memory");
            for (size_t k = 0; k < sizeof issuing / sizeof issuing[0]; k++) {
                lsdp_unit_state *us = &t->units[issuing[k]].core[c];
                us->per_instr = (uint64_t)per[k];
                us->issue = per[k] > 0 ? &t->issue[c] : NULL;
            }
        }
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
        return run_fail(t, "%s", s->err);
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

/* Busy cycles, operations, work and utilisation of every unit, the issue ports and the memory channels. */
/* The per-core units in report order: their report names and what their work counts. */
static const struct { int id; const char *name, *work; } unit_order[] = {
    { LSUCODE_TENSOR, "tensor", "macs" }, { LSUCODE_LUT, "lut", "lookups" }, { LSUCODE_SFU, "sfu", "exps" },
    { LSUCODE_VECTOR, "vector", "elem_ops" }, { LSUCODE_SCHED, "scheduler", "tests" }, { LSUCODE_MEM, "buffer", "bytes" } };

const char *ls_timed_unit_report_name(int unit)
{
    for (size_t k = 0; k < sizeof unit_order / sizeof unit_order[0]; k++)
        if (unit_order[k].id == unit) return unit_order[k].name;
    return NULL;
}

static void unit_statistics(timed_run *t)
{
    ls_timed_result *tr = t->tr;
    const lsseq *s = &t->s;
    const lsdp_hw *hw = &t->hw;
    int all_cores = t->ac->cores > 0 ? t->ac->cores : 1;
    int cu = s->cores_used > 0 ? s->cores_used : 1;
    double denom = (double)s->cycles * cu;
    tr->nunits = 0;
    for (size_t k = 0; k < sizeof unit_order / sizeof unit_order[0]; k++) {
        ls_timed_unit *tu = &tr->units[tr->nunits++];
        snprintf(tu->name, sizeof tu->name, "%s", unit_order[k].name);
        snprintf(tu->work_unit, sizeof tu->work_unit, "%s", unit_order[k].work);
        for (int c = 0; c < hw->cores; c++) {
            const lsdp_unit_state *us = &t->units[unit_order[k].id].core[c];
            tu->busy_cycles += us->busy; tu->ops += us->ops; tu->work += us->work;
        }
        tu->utilisation = denom > 0 ? (double)tu->busy_cycles / denom : 0.0;
        double chip = (double)s->cycles * all_cores;
        tu->utilisation_chip = chip > 0 ? (double)tu->busy_cycles / chip : 0.0;
    }
    if (t->issue) {   /* the issue ports, as a unit: instructions issued over cycles x per-cycle slots */
        ls_timed_unit *tu = &tr->units[tr->nunits++];
        snprintf(tu->name, sizeof tu->name, "issue");
        snprintf(tu->work_unit, sizeof tu->work_unit, "instructions");
        for (int c = 0; c < hw->cores; c++) {
            tu->work += t->issue[c].instrs;
            tu->busy_cycles += lsdp_ceil_div(t->issue[c].instrs, t->issue[c].per_cycle);
            tr->issue_bound_cycles += t->issue[c].bound_cycles;
        }
        tu->utilisation = denom > 0 ? (double)tu->work / (denom * hw->issue_per_cycle) : 0.0;
        double chip = (double)s->cycles * all_cores * hw->issue_per_cycle;
        tu->utilisation_chip = chip > 0 ? (double)tu->work / chip : 0.0;
        tr->issue_modelled = true;
    }
    const lsdp_unit_state *chans[2] = { &t->mem.model.dram, &t->mem.model.l2 };
    const char *cn[2] = { "dram", "l2" };
    for (int k = 0; k < 2; k++) {
        ls_timed_unit *tu = &tr->units[tr->nunits++];
        snprintf(tu->name, sizeof tu->name, "%s", cn[k]);
        snprintf(tu->work_unit, sizeof tu->work_unit, "bytes");
        tu->busy_cycles = chans[k]->busy; tu->ops = chans[k]->ops; tu->work = chans[k]->work;
        tu->utilisation = s->cycles ? (double)tu->busy_cycles / (double)s->cycles : 0.0;
        tu->utilisation_chip = tu->utilisation;
        tu->chip_wide = 1;
    }
}

/* The cycle stack (timed_stack.h): the bottleneck is the per-core unit with the most busy cycles
 * chip-wide (the first in report order on a tie). */
static void cycle_stack(timed_run *t)
{
    static const int ids[] = { LSUCODE_TENSOR, LSUCODE_LUT, LSUCODE_SFU, LSUCODE_VECTOR, LSUCODE_SCHED, LSUCODE_MEM };
    ls_timed_result *tr = t->tr;
    const lsseq *s = &t->s;
    int cores = t->hw.cores, best = 0;
    for (int k = 1; k < (int)(sizeof ids / sizeof ids[0]); k++)   /* units[0..5] are these, in this order */
        if (tr->units[k].busy_cycles > tr->units[best].busy_cycles) best = k;
    uint64_t *busy = calloc((size_t)(cores > 0 ? cores : 1), sizeof *busy);
    if (!busy) return;   /* out of memory: the stack stays empty (all zero) */
    for (int c = 0; c < cores; c++) busy[c] = t->units[ids[best]].core[c].busy;
    int resident = t->ra.fit < t->ra.buffer_fit ? t->ra.fit : t->ra.buffer_fit;
    if (t->ra.hw_limit < resident) resident = t->ra.hw_limit;
    ls_stack_inputs in = { .cycles = s->cycles, .cores = cores, .cores_configured = t->ac->cores, .launch_cycles = t->hw.launch_cycles,
                           .core_end = s->core_end, .core_busy = busy, .core_stalls = s->core_stalls,
                           .items = s->items, .contexts_per_core = resident };
    ls_stack_build(&in, tr->units[best].name, &tr->stack);
    free(busy);
}

/* Area, leakage and power: the chip of the configuration, powered for the layer's time. */
static void cost_figures(timed_run *t)
{
    ls_timed_result *tr = t->tr;
    ls_area_of(t->ac, t->rp.layout, t->ep->n_k, &tr->area);
    double s = tr->time_us * 1e-6;
    tr->power.dynamic_w = s > 0 ? tr->energy_uj.total * 1e-6 / s : 0.0;
    tr->power.leakage_w = tr->area.leakage_w;
    tr->power.average_w = tr->power.dynamic_w + tr->power.leakage_w;
    tr->energy_leakage_uj = tr->area.leakage_w * tr->time_us;
    tr->energy_layer_uj = tr->energy_uj.total + tr->energy_leakage_uj;
    double tokens = (double)t->in->batch * ls_attn_inputs_seq_q(t->in);
    tr->energy_per_token_uj = tokens > 0 ? tr->energy_layer_uj / tokens : 0.0;
    tr->tflops_per_mm2 = tr->area.total_mm2 > 0 ? tr->tflops_effective / tr->area.total_mm2 : 0.0;
    tr->tflops_per_w = tr->power.average_w > 0 ? tr->tflops_effective / tr->power.average_w : 0.0;
}

/* Cycles, throughput, stalls, occupancy, memory and energy figures of the finished run. */
static void timed_figures(timed_run *t)
{
    ls_timed_result *tr = t->tr;
    const lsseq *s = &t->s;
    const ls_attn_inputs *in = t->in;
    const ls_config_accelerator *ac = t->ac;
    double ghz = t->hw.clock_ghz;
    tr->cycles = s->cycles;
    tr->clock_ghz = ghz;
    tr->split_kv = t->sh.split_kv;
    tr->split_tiles = t->sh.split_kv > 1 ? t->sh.split_tiles : 0;
    tr->combine_cycles = s->combine_cycles;
    tr->time_us = (double)s->cycles / (ghz * 1e3);
    int hq = ls_attn_inputs_heads(in), sq = ls_attn_inputs_seq_q(in);   /* the model's shape (not the packed one) */
    double f = 4.0 * in->batch * hq * (double)sq * (double)in->seq_k * in->dim;
    if (in->causal) f *= 0.5;
    if (in->causal && in->window > 0)   /* a window: the pairs it keeps (no published convention to follow) */
        f = 4.0 * ls_config_attention_work_window(in->batch, hq, sq, in->seq_k, in->dim, true, in->window);
    tr->flops = f;
    tr->tflops_effective = s->cycles ? f / ((double)s->cycles / (ghz * 1e9)) / 1e12 : 0.0;
    unit_statistics(t);
    int cu = s->cores_used > 0 ? s->cores_used : 1;
    double denom = (double)s->cycles * cu;
    for (int k = 0; k < LS_TIMED_NSTALLS; k++) tr->stalls[k] = s->stalls[k];
    tr->occupancy.limit = t->ra.limit;
    tr->occupancy.fit = t->ra.fit;
    tr->occupancy.buffer_fit = t->ra.buffer_fit;
    snprintf(tr->occupancy.limited_by, sizeof tr->occupancy.limited_by, "%s", lsregfile_bound_name(t->ra.limited_by));
    snprintf(tr->occupancy.dominated_by, sizeof tr->occupancy.dominated_by, "%s",
             t->ra.dominated_by >= 0 ? lsregfile_layout_name(t->ra.dominated_by) : "");
    tr->occupancy.buffer_kib_per_block = t->ra.buffer_per_block / 1024.0;
    tr->occupancy.regs_per_thread = t->ra.per_thread;
    tr->occupancy.max = s->max_resident;
    tr->occupancy.mean = denom > 0 ? (double)s->slot_busy_cycles / denom : 0.0;
    tr->occupancy.register_utilisation = tr->occupancy.mean * t->ra.per_context / (double)ac->regfile.registers;
    tr->occupancy.regs_per_warp = t->ra.per_warp;
    tr->occupancy.regs_per_context = t->ra.per_context;
    tr->occupancy.prefetch_depth = t->depth;
    tr->occupancy.cores = ac->cores;
    tr->occupancy.cores_used = s->cores_used;
    tr->slow_tiles = s->slow_tiles;
    tr->slow_cycles = s->slow_cycles;
    tr->kv_tile_loads = s->kv_loads;
    tr->kv_loads_shared = s->shared_loads;
    tr->instructions = s->instructions;
    tr->transactions = s->transactions;
    ls_timed_actions acts;
    ls_timed_count_actions(s, &t->mem, t->hw.operand_rows > 0, in->dim, t->sh.bc, t->rp.layout, &acts);
    ls_timed_energy_of(&ac->energy, &acts, &tr->energy_uj);
    cost_figures(t);
    cycle_stack(t);
}

/* The one cleanup path: everything timed_run owns, whatever stage the run reached. */
static void timed_free(timed_run *t)
{
    ls_timed_trace_free(&t->trace);
    lsseq_free(&t->s);
    lsmem_free(&t->mem);
    for (int u = 1; u < LSUCODE_NUNITS; u++) free(t->units[u].core);
    for (int c = 0; c < t->hw.cores && t->issue; c++) lsdp_issue_free(&t->issue[c]);
    free(t->issue);
    ls_engine_acc_ws_free(&t->acc);
    free(t->items); free(t->hist); free(t->recs); free(t->grecs);
    free(t->lc);
    lsucode_program_free(&t->prog);
    free(t);
}

/* The stages that need no data (ls_timed_check_layer runs them alone): program, shape, resident
 * plan, numerics configuration, hardware, feasibility. */
static int plan_stages(timed_run *t)
{
    const ls_engine_params *ep = t->ep;
    const ls_attn_inputs *in = t->in;
    const char *pname = ls_timed_program_for_mode(ep->mode);
    if (!pname)
        return run_fail(t, "the timed model supports algorithm.mode lamp, fa2_16bit and pure_8bit (got %s); "
                        "use --golden for the other modes", ls_engine_mode_name(ep->mode));
    _Static_assert(LSDP_MAX_WARPS == 64, "ls_engine_check_inputs bounds n_q by 64 warps");
    if (ls_engine_check_inputs(ep, in, t->err, t->errlen) != 0) return -1;
    if (assemble_program(t, pname) != 0 || plan_resident(t) != 0 || plan_numerics(t) != 0) return -1;
    build_shape(t);
    long long nitems_all = (long long)in->batch * in->heads_q * ((in->seq_q + ep->b_q * ep->n_q - 1) / (ep->b_q * ep->n_q));
    nitems_all *= t->sh.split_kv > 1 ? t->sh.split_kv : 1;
    hw_from_config(t->ac, t->cfg->algorithm.operand_format == LS_ENGINE_OPFMT_E4M3, nitems_all, &t->hw);
    /* the units' own numerics keep one softmax state per item: split-KV runs on the engine's numerics */
    if (t->sh.split_kv > 1 && !t->replay && t->synth == LSDP_SYNTH_OFF)
        return run_fail(t, "workload.split_kv > 1 runs on the golden engine's numerics replayed by the units; it is "
                           "refused with timed.unit_numerics: true and algorithm.above_one: raise");
    return check_feasible(t);
}

/* The stages in order; the first that fails stops the run. */
static int timed_stages(timed_run *t)
{
    if (plan_stages(t) != 0 || (t->golden && golden_numerics(t) != 0) || alloc_buffers(t) != 0 || build_units(t) != 0)
        return -1;
    if (run_sequencer(t) != 0) return -1;
    merge_numerics(t);
    timed_figures(t);
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
    int rc = plan_stages(t);
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

void ls_timed_report_fields(ls_fields *fs, const ls_timed_result *tr)
{
    char n[96];
    ls_fields_uint(fs, "cycles", tr->cycles);
    ls_fields_double(fs, "time_us", tr->time_us);
    ls_fields_double(fs, "tflops_effective", tr->tflops_effective);
    for (int u = 0; u < tr->nunits; u++) {
        const ls_timed_unit *tu = &tr->units[u];
        snprintf(n, sizeof n, "units.%s.busy_cycles", tu->name); ls_fields_uint(fs, n, tu->busy_cycles);
        snprintf(n, sizeof n, "units.%s.utilisation", tu->name); ls_fields_double(fs, n, tu->utilisation);
        snprintf(n, sizeof n, "units.%s.utilisation_chip", tu->name); ls_fields_double(fs, n, tu->utilisation_chip);
        snprintf(n, sizeof n, "units.%s.ops", tu->name); ls_fields_uint(fs, n, tu->ops);
        snprintf(n, sizeof n, "units.%s.work", tu->name); ls_fields_uint(fs, n, tu->work);
        snprintf(n, sizeof n, "units.%s.work_unit", tu->name); ls_fields_string(fs, n, tu->work_unit);
    }
    for (int k = 0; k < LS_TIMED_NSTALLS; k++) {
        snprintf(n, sizeof n, "stalls.%s", lsseq_stall_name(k));
        ls_fields_uint(fs, n, tr->stalls[k]);
    }
    ls_fields_int(fs, "occupancy.contexts_per_core.limit", tr->occupancy.limit);
    ls_fields_double(fs, "occupancy.contexts_per_core.mean", tr->occupancy.mean);
    ls_fields_int(fs, "occupancy.contexts_per_core.max", tr->occupancy.max);
    ls_fields_int(fs, "occupancy.contexts_per_core.register_fit", tr->occupancy.fit);
    ls_fields_int(fs, "occupancy.contexts_per_core.buffer_fit", tr->occupancy.buffer_fit);
    ls_fields_string(fs, "occupancy.limited_by", tr->occupancy.limited_by);
    ls_fields_double(fs, "occupancy.register_utilisation", tr->occupancy.register_utilisation);
    ls_fields_int(fs, "occupancy.regs_per_warp", tr->occupancy.regs_per_warp);
    ls_fields_int(fs, "occupancy.regs_per_context", tr->occupancy.regs_per_context);
    ls_fields_int(fs, "occupancy.regs_per_thread", tr->occupancy.regs_per_thread);
    ls_fields_double(fs, "occupancy.buffer_kib_per_block", tr->occupancy.buffer_kib_per_block);
    ls_fields_int(fs, "occupancy.prefetch_depth", tr->occupancy.prefetch_depth);
    ls_fields_int(fs, "occupancy.cores_used", tr->occupancy.cores_used);
    ls_fields_int(fs, "occupancy.cores", tr->occupancy.cores);
    ls_fields_string(fs, "occupancy.layout", tr->layout);
    ls_fields_string(fs, "occupancy.layout_dominated_by", tr->occupancy.dominated_by);
    ls_fields_string(fs, "occupancy.program", tr->program);
    ls_fields_uint(fs, "slow_path.tiles", tr->slow_tiles);
    ls_fields_uint(fs, "slow_path.cycles", tr->slow_cycles);
    ls_fields_double(fs, "energy.dynamic_uj", tr->energy_uj.total);
    ls_fields_double(fs, "energy.tensor_uj", tr->energy_uj.tensor);
    ls_fields_double(fs, "energy.lut_uj", tr->energy_uj.lut);
    ls_fields_double(fs, "energy.sfu_uj", tr->energy_uj.sfu);
    ls_fields_double(fs, "energy.vector_uj", tr->energy_uj.vector);
    ls_fields_double(fs, "energy.scheduler_uj", tr->energy_uj.scheduler);
    ls_fields_double(fs, "energy.regfile_uj", tr->energy_uj.regfile);
    ls_fields_double(fs, "energy.buffer_uj", tr->energy_uj.buffer);
    ls_fields_double(fs, "energy.l2_uj", tr->energy_uj.l2);
    ls_fields_double(fs, "energy.dram_uj", tr->energy_uj.dram);
    ls_fields_double(fs, "energy.leakage_uj", tr->energy_leakage_uj);
    ls_fields_double(fs, "energy.layer_uj", tr->energy_layer_uj);
    ls_fields_double(fs, "energy.per_token_uj", tr->energy_per_token_uj);
    ls_fields_uint(fs, "memory.kv_tile_loads", tr->kv_tile_loads);
    ls_fields_uint(fs, "memory.kv_loads_shared", tr->kv_loads_shared);
    if (tr->issue_modelled) ls_fields_uint(fs, "issue.bound_cycles", tr->issue_bound_cycles);
    ls_fields_string(fs, "area.node", "7 nm");
    ls_fields_double(fs, "area.total_mm2", tr->area.total_mm2);
    ls_fields_double(fs, "area.core_mm2", tr->area.core_mm2);
    for (int k = 0; k < LS_AREA_N; k++) {
        snprintf(n, sizeof n, "area.%s_mm2", tr->area.c[k].name);
        ls_fields_double(fs, n, tr->area.c[k].mm2);
    }
    for (int k = 0; k < LS_AREA_N; k++) {
        snprintf(n, sizeof n, "area.source.%s", tr->area.c[k].name);
        ls_fields_string(fs, n, ls_area_source_name(tr->area.c[k].source));
    }
    ls_fields_double(fs, "area.published_total_mm2", tr->area.published_total_mm2);
    for (int k = 0; k < LS_AREA_N; k++) {
        snprintf(n, sizeof n, "area.published.%s_mm2", tr->area.c[k].name);
        ls_fields_double(fs, n, tr->area.c[k].published_mm2);
    }
    ls_fields_double(fs, "power.average_w", tr->power.average_w);
    ls_fields_double(fs, "power.dynamic_w", tr->power.dynamic_w);
    ls_fields_double(fs, "power.leakage_w", tr->power.leakage_w);
    for (int k = 0; k < LS_AREA_N; k++) {
        snprintf(n, sizeof n, "power.leakage.%s_w", tr->area.c[k].name);
        ls_fields_double(fs, n, tr->area.c[k].leakage_w);
    }
    ls_fields_double(fs, "power.leakage_published_w", tr->area.published_leakage_w);
    ls_fields_double(fs, "efficiency.tflops_per_mm2", tr->tflops_per_mm2);
    ls_fields_double(fs, "efficiency.tflops_per_w", tr->tflops_per_w);
    ls_stack_report_fields(fs, &tr->stack);
}

void ls_timed_summary(FILE *out, const ls_timed_result *tr)
{
    fprintf(out, "timed model: program %s (%s), layout %s\n", tr->program, tr->program_file, tr->layout);
    fprintf(out, "  cycles %llu = %.3f us at %.3f GHz, %.1f TFLOP/s effective\n", (unsigned long long)tr->cycles,
            tr->time_us, tr->clock_ghz, tr->tflops_effective);
    /* one denominator: every unit over the layer's cycles; per core over the cores that got work
     * and over all cores of the chip (idle ones count), a chip-wide unit once */
    fprintf(out, "  units: utilisation over the layer's %llu cycles, per core (%d with work / all %d)\n",
            (unsigned long long)tr->cycles, tr->occupancy.cores_used, tr->occupancy.cores);
    fprintf(out, "    %-9s %12s  %10s  %9s  %s\n", "unit", "busy cycles", "cores used", "all cores", "work");
    for (int u = 0; u < tr->nunits; u++)
        fprintf(out, "    %-9s %12llu  %9.1f%%  %8.1f%%  %llu ops, %llu %s%s\n", tr->units[u].name,
                (unsigned long long)tr->units[u].busy_cycles, 100.0 * tr->units[u].utilisation,
                100.0 * tr->units[u].utilisation_chip, (unsigned long long)tr->units[u].ops,
                (unsigned long long)tr->units[u].work, tr->units[u].work_unit,
                tr->units[u].chip_wide ? " (one per chip)" : "");
    if (tr->split_kv > 1)
        fprintf(out, "  split-KV: %d splits of %d key tiles per query block, combine step %llu item-cycles\n", tr->split_kv,
                tr->split_tiles, (unsigned long long)tr->combine_cycles);
    fprintf(out, "  stalls (context-cycles):");
    for (int k = 0; k < LS_TIMED_NSTALLS; k++) fprintf(out, " %s %llu", lsseq_stall_name(k), (unsigned long long)tr->stalls[k]);
    fprintf(out, "\n  occupancy: %.2f mean / %d max / %d limit contexts per core (limited by %s; registers fit %d, "
            "buffer %d), register utilisation %.1f%%, %d regs/warp, prefetch depth %d\n",
            tr->occupancy.mean, tr->occupancy.max, tr->occupancy.limit, tr->occupancy.limited_by, tr->occupancy.fit,
            tr->occupancy.buffer_fit, 100.0 * tr->occupancy.register_utilisation, tr->occupancy.regs_per_warp,
            tr->occupancy.prefetch_depth);
    if (tr->occupancy.dominated_by[0])
        fprintf(out, "  warning: layout %s saves no registers at this tile (%d regs/thread) and still pays the slow "
                "path: %s dominates it\n", tr->layout, tr->occupancy.regs_per_thread, tr->occupancy.dominated_by);
    fprintf(out, "  slow path: %llu warp-tiles, %llu cycles\n", (unsigned long long)tr->slow_tiles,
            (unsigned long long)tr->slow_cycles);
    if (tr->issue_modelled)
        fprintf(out, "  issue: unit slices waited %llu cycles in all for issue slots\n",
                (unsigned long long)tr->issue_bound_cycles);
    fprintf(out, "  energy: %.3f uJ dynamic (tensor %.3f, lut %.4f, sfu %.3f, vector %.3f, regfile %.3f, buffer %.3f, l2 %.3f, dram %.3f)\n",
            tr->energy_uj.total, tr->energy_uj.tensor, tr->energy_uj.lut, tr->energy_uj.sfu, tr->energy_uj.vector,
            tr->energy_uj.regfile, tr->energy_uj.buffer, tr->energy_uj.l2, tr->energy_uj.dram);
    const ls_area *ar = &tr->area;
    fprintf(out, "  area at 7 nm: %.2f mm2 (%.4f per core x %d + L2 %.2f); per core: tensor %.4f, lut %.4f, sfu %.4f, "
            "vector %.4f, scheduler %.4f, regfile %.4f, pack %.4f, buffer %.4f\n", ar->total_mm2, ar->core_mm2,
            tr->occupancy.cores, ar->c[LS_AREA_L2].mm2, ar->c[LS_AREA_TENSOR].mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_LUT].mm2 / tr->occupancy.cores, ar->c[LS_AREA_SFU].mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_VECTOR].mm2 / tr->occupancy.cores, ar->c[LS_AREA_SCHEDULER].mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_REGFILE].mm2 / tr->occupancy.cores, ar->c[LS_AREA_PACK].mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_BUFFER].mm2 / tr->occupancy.cores);
    fprintf(out, "  area, published figures (cross-check; sfu, vector and l2 have no RTL and use them): %.2f mm2, leakage "
            "%.1f W; per core: tensor %.4f, lut %.4f, scheduler %.4f, regfile %.4f, pack %.4f, buffer %.4f\n",
            ar->published_total_mm2, ar->published_leakage_w, ar->c[LS_AREA_TENSOR].published_mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_LUT].published_mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_SCHEDULER].published_mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_REGFILE].published_mm2 / tr->occupancy.cores,
            ar->c[LS_AREA_PACK].published_mm2 / tr->occupancy.cores, ar->c[LS_AREA_BUFFER].published_mm2 / tr->occupancy.cores);
    fprintf(out, "  power: %.1f W average (dynamic %.1f, leakage %.1f); energy %.3f uJ with leakage, %.4f uJ per token; "
            "%.4f TFLOP/s per mm2, %.3f TFLOP/s per W\n", tr->power.average_w, tr->power.dynamic_w, tr->power.leakage_w,
            tr->energy_layer_uj, tr->energy_per_token_uj, tr->tflops_per_mm2, tr->tflops_per_w);
    const ls_stack *st = &tr->stack;
    for (int w = 0; w < 2; w++) {
        const uint64_t *v = w ? st->working : st->chip;
        fprintf(out, "  cycle stack, %s (cycles; sums to %llu):", w ? "cores with work" : "all cores",
                (unsigned long long)tr->cycles);
        for (int k = 0; k < LS_STACK_NCATS; k++)
            if (v[k])
                fprintf(out, " %s%s%s%s %llu", ls_stack_cat_name(k), k == LS_STACK_BUSY ? " (" : "",
                        k == LS_STACK_BUSY ? st->bottleneck : "", k == LS_STACK_BUSY ? ")" : "", (unsigned long long)v[k]);
        fputc('\n', out);
    }
    fprintf(out, "  balance: %lld items on %lld slots (%d cores x %lld contexts) = %.2f waves, wave efficiency %.1f%% "
            "(slots given an item), core ends %llu..%llu (tail %llu cycles waiting for the slowest core)\n", st->items, st->slots, st->cores, st->cores ? st->slots / st->cores : 0,
            st->waves, 100.0 * st->wave_efficiency, (unsigned long long)st->end_min, (unsigned long long)st->end_max,
            (unsigned long long)st->tail_cycles);
    fprintf(out, "  simulation: %.3g simulated cycles/s, %llu instructions, %llu transactions\n",
            tr->cycles_per_second, (unsigned long long)tr->instructions, (unsigned long long)tr->transactions);
}
