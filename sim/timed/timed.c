/* sim/timed/timed.c — the C side of the timed model: configuration -> units and program, the
 * run (through the SystemC top or direct calls), the engine-compatible result, the report fields
 * and the summary. */
#define _POSIX_C_SOURCE 200809L
#include "timed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_parts.h"
#include "lamp.h"
#include "lslut.h"
#include "lsmem.h"
#include "lsregfile.h"
#include "lssched.h"
#include "lsseq.h"
#include "lssfu.h"
#include "lstensor.h"
#include "timed_internal.h"
#include "timed_trace.h"
#include "ucode.h"
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
    case LSE_MODE_LAMP: return "lampattention";
    case LSE_MODE_FA2_16BIT: return "fa2_16bit";
    case LSE_MODE_PURE_8BIT: return "pure_8bit";
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
static uint64_t numerics_key(const ls_engine_params *p, const ls_attn_inputs *in, const lsu_program *prog)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int iv[] = { (int)p->mode, (int)p->arithmetic, (int)p->acc_model, p->b_q, p->n_q, p->b_k, p->n_k, p->stage1,
                 p->stage2, (int)p->rounding, (int)p->overflow, (int)p->mu_lp_shift, (int)p->hp_shift,
                 (int)p->scale_point, (int)p->acc_order, p->chunk_k, (int)p->knapsack_tiebreak,
                 (int)p->disruptive_numerics, (int)p->above_one, (int)p->state_precision, p->compute_reference,
                 p->keep_reference };
    h = fnv(h, iv, sizeof iv);
    double dv[] = { p->tau, p->delta, p->lamp_code_tau, p->random_rate };
    h = fnv(h, dv, sizeof dv);
    h = fnv(h, p->formats, sizeof p->formats);   /* names, NUL-padded by snprintf into zeroed params */
    h = fnv(h, &p->seed, sizeof p->seed);
    uint64_t ih = ls_workload_hash(in);
    h = fnv(h, &ih, sizeof ih);
    int causal = in->causal;
    h = fnv(h, &causal, sizeof causal);
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
typedef struct {
    lsunit units[LSU_NUNITS];
    lsissue_port *issue;      /* [cores] when accelerator.issue.per_cycle > 0 */
    lsdp_hw hw;
    ls_engine_acc_ws acc;
    const ls_timed_options *opt; /* its progress callback */
    long items_done, items;
} run_state;

static void direct_port(void *user, lsdp_txn *t)
{
    run_state *rs = user;
    lsunit *u = &rs->units[t->unit];
    lsunit_dispatch(u, t);
}

static void item_done(void *user, lsdp_ctx *x)
{
    run_state *rs = user;
    const lsdp_shape *sh = x->sh;
    if (sh->accuracy)
        ls_engine_item_accuracy(&x->blk, &rs->acc, x->Ebuf, x->muh, x->mu, x->om32,
                                sh->cfg->state_fp64 ? x->om64 : NULL, x->stats);
    rs->items_done++;
    if (rs->opt->progress) rs->opt->progress(rs->opt->progress_user, rs->items_done, rs->items);
}

static const char *layout_name(lsu_ylayout y)
{
    switch (y) {
    case LSU_Y_FULL: return "full";
    case LSU_Y_COMPACT: return "compact";
    case LSU_Y_LP: return "lp";
    default: return "config";
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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
    const char *pname = ls_timed_program_for_mode(ep->mode);
    if (!pname) {
        if (err && errlen)
            snprintf(err, errlen, "the timed model supports algorithm.mode lamp, fa2_16bit and pure_8bit (got %s); "
                     "use --golden for the other modes", ls_engine_mode_name(ep->mode));
        return -1;
    }
    _Static_assert(LSDP_MAX_WARPS == 64, "ls_engine_check_inputs bounds n_q by 64 warps");
    if (ls_engine_check_inputs(ep, in, err, errlen) != 0) return -1;
    const ls_cfg_accelerator *ac = &cfg->accelerator;

    /* program */
    lsu_program prog;
    int rc;
    if (opt->program_path && *opt->program_path) {
        rc = lsu_assemble_file(opt->program_path, &prog, err, errlen);
    } else {
        const char *file = NULL, *text = lsu_shipped_text(pname, &file);
        rc = lsu_assemble(text, file, &prog, err, errlen);
    }
    if (rc != 0) return -1;
    lsu_ylayout yl = prog.ylayout;
    if (yl == LSU_Y_CONFIG) yl = ac->regfile.layout == LS_LAYOUT_FULL ? LSU_Y_FULL : LSU_Y_COMPACT;
    snprintf(tr->program, sizeof tr->program, "%s", prog.name);
    snprintf(tr->program_file, sizeof tr->program_file, "%s", prog.file);
    snprintf(tr->layout, sizeof tr->layout, "%s", layout_name(yl));

    /* register file plan */
    lsregfile_params rp = { ac->regfile.registers, ac->regfile.subpartitions, ac->regfile.max_regs_per_thread,
                            ac->regfile.alloc_granularity, ac->warp_size, ac->max_warps, ac->max_ctas,
                            ac->regfile.max_contexts, 0, 0 };
    ls_engine_logit_bits(ep, &rp.lp_bits, &rp.hp_bits);   /* the formats' widths (bad names fail below) */
    lsregfile_alloc ra;
    char rerr[256];
    if (lsregfile_plan(&rp, yl, ep->b_q, ep->n_q, ep->b_k, ep->n_k, in->dim, &ra, rerr, sizeof rerr) != 0) {
        lsu_program_free(&prog);
        if (err && errlen) snprintf(err, errlen, "register file: %s", rerr);
        return -1;
    }
    /* contexts that share K/V loads are resident as whole blocks */
    int kvg = ac->memory.kv_shared_contexts;
    if (ra.limit < kvg) {
        lsu_program_free(&prog);
        if (err && errlen)
            snprintf(err, errlen, "register file: a block of accelerator.memory.kv_shared_contexts = %d contexts does not fit "
                     "(at most %d resident)", kvg, ra.limit);
        return -1;
    }
    ra.limit -= ra.limit % kvg;

    lslamp_cfg *lc = malloc(sizeof *lc);
    run_state *rs = calloc(1, sizeof *rs);
    if (!lc || !rs) { free(lc); free(rs); lsu_program_free(&prog); return fail(err, errlen, "out of memory"); }
    if (ls_engine_lamp_cfg(ep, in->dim, lc, err, errlen) != 0) { free(lc); free(rs); lsu_program_free(&prog); return -1; }

    /* timing only: the fixed policies select from the geometry alone; anything whose timing or
     * output depends on the data is refused rather than approximated */
    int synth = LSDP_SYNTH_OFF;
    if (opt->timing_only) {
        const char *why = NULL;
        if (lc->policy == &lslamp_policy_all) synth = LSDP_SYNTH_ALL;
        else if (lc->policy == &lslamp_policy_none) synth = LSDP_SYNTH_NONE;
        else why = "its sub-block selection depends on the data; only fa2_16bit and pure_8bit have a fixed selection";
        if (!why && ep->above_one == LSE_ABOVE_RAISE)
            why = "with algorithm.above_one = raise the RAISE cost depends on the data";
        if (!why && ep->keep_tile_records) why = "per-tile records hold data-dependent flags";
        if (why) {
            if (err && errlen)
                snprintf(err, errlen, "timed.timing_only with algorithm.mode %s: %s", ls_engine_mode_name(ep->mode), why);
            free(lc); free(rs); lsu_program_free(&prog);
            return -1;
        }
    }
    /* the numerics cache holds computed numerics: a timing-only run neither reads nor fills it */
    bool reuse = opt->reuse_numerics && synth == LSDP_SYNTH_OFF;
    uint64_t key = reuse ? numerics_key(ep, in, &prog) : 0;
    bool replay = reuse && g_cache.valid && g_cache.key == key && ep->above_one != LSE_ABOVE_RAISE;
    tr->numerics_key = key;
    tr->numerics_reused = replay;
    tr->timing_only = synth != LSDP_SYNTH_OFF;
    lsdp_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.cfg = lc;
    sh.q = in->q; sh.k = in->k; sh.v = in->v;
    sh.batch = in->batch; sh.heads_q = in->heads_q; sh.heads_kv = in->heads_kv;
    sh.seq_q = in->seq_q; sh.seq_k = in->seq_k; sh.dim = in->dim; sh.causal = in->causal;
    sh.group = in->heads_q / in->heads_kv;
    sh.b_q = ep->b_q; sh.n_q = ep->n_q; sh.b_k = ep->b_k; sh.n_k = ep->n_k;
    sh.br = ep->b_q * ep->n_q; sh.bc = ep->b_k * ep->n_k;
    sh.nqb = (in->seq_q + sh.br - 1) / sh.br;
    sh.nkt = (in->seq_k + sh.bc - 1) / sh.bc;
    sh.seed = ep->seed;
    sh.accuracy = ep->compute_reference && !replay && synth == LSDP_SYNTH_OFF;
    sh.replay = replay ? g_cache.recs : NULL;
    sh.synth = synth;
    sh.slow_enabled = yl == LSU_Y_COMPACT;
    sh.out_bytes = cfg->workload.dtype == LS_DTYPE_FP32 ? 4 : 2;
    bool fp8_operands = cfg->algorithm.operand_format == LS_OPFMT_E4M3;
    sh.elem_bytes = fp8_operands ? 1 : sh.out_bytes;

    lsdp_hw *hw = &rs->hw;
    /* cores beyond the number of work items never receive one: leave them out of the simulation
     * (the memory channels are chip-wide, so this changes nothing but the memory footprint) */
    long long nitems_all = (long long)in->batch * in->heads_q * ((in->seq_q + ep->b_q * ep->n_q - 1) / (ep->b_q * ep->n_q));
    hw->cores = (long long)ac->cores < nitems_all ? ac->cores : (int)nitems_all;
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
    hw->q_operand_reads = ac->memory.q_operand_reads;
    hw->kv_group = ac->memory.kv_shared_contexts;
    hw->v_transpose = ac->memory.v_transpose;
    hw->launch_cycles = (uint64_t)ac->launch_cycles;
    hw->item_setup = (uint64_t)ac->item_setup_cycles;
    hw->issue_per_cycle = ac->issue.per_cycle;
    hw->issue_tensor = ac->issue.tensor_macs_per_instr;
    hw->issue_sfu = ac->issue.sfu_ops_per_instr;
    hw->issue_lut = ac->issue.lut_ops_per_instr;
    hw->issue_vector = ac->issue.vector_ops_per_instr;
    hw->issue_operand = ac->issue.operand_bytes_per_instr;
    if (hw->lut_lanes < 1 && ep->mode != LSE_MODE_FA2_16BIT) {
        free(lc); free(rs); lsu_program_free(&prog);
        return fail(err, errlen, "accelerator.lut.lanes = 0: this program needs the LUT (only fa2_16bit runs without it)");
    }

    /* the accuracy pass keeps every tile's exponentials of each resident item (as the engine does
     * per thread): refuse sizes that would not fit rather than thrash */
    if (sh.accuracy) {
        double slots = (double)ac->cores * ra.limit, items_d = (double)in->batch * in->heads_q * sh.nqb;
        if (items_d < slots) slots = items_d;
        double need = slots * (double)sh.nkt * sh.bc * sh.br * 4.0;
        if (need > 8.0 * 1073741824.0) {
            free(lc); free(rs); lsu_program_free(&prog);
            if (err && errlen)
                snprintf(err, errlen, "timed model: the accuracy pass would hold %.1f GiB of exponentials (%.0f resident "
                         "contexts x seq_k %d); lower accelerator.cores or turn the fp64 reference off", need / 1073741824.0,
                         slots, in->seq_k);
            return -1;
        }
    }

    /* engine-compatible result */
    int nitems = in->batch * in->heads_q * sh.nqb, hl = ep->n_k + 1;
    size_t nout = (size_t)in->batch * in->heads_q * in->seq_q * in->dim;
    int ralloc = ls_engine_result_alloc(ep, in, r);
    lslamp_tile_record *recs = NULL;
    size_t nrecs = (size_t)nitems * ep->n_q * sh.nkt;
    if (ep->keep_tile_records || (reuse && !replay)) recs = calloc(nrecs, sizeof *recs);
    lsdp_item_stats *items = calloc((size_t)nitems, sizeof *items);
    uint64_t *hist = calloc((size_t)nitems * hl, sizeof(uint64_t));
    int acc_bad = sh.accuracy && ls_engine_acc_ws_init(&rs->acc, in->seq_k, in->dim) != 0;
    lsmem_state mem;
    memset(&mem, 0, sizeof mem);
    sh.o = r->o; sh.o_ref = r->o_ref;
    lsseq s;
    memset(&s, 0, sizeof s);
    lstrace trace;
    memset(&trace, 0, sizeof trace);
    rc = 0;
    if (ralloc != 0 || ((ep->keep_tile_records || (reuse && !replay)) && !recs) ||
        !items || !hist ||
        acc_bad ||
        lsmem_init(&mem, &sh, hw) != 0) {
        rc = fail(err, errlen, "out of memory");
    }
    static void (*const execs[LSU_NUNITS])(lsunit *, lsdp_txn *) = {
        [LSU_MEM] = lsmem_exec, [LSU_TENSOR] = lstensor_exec, [LSU_LUT] = lslut_exec, [LSU_SFU] = lssfu_exec,
        [LSU_VECTOR] = lsvector_exec, [LSU_SCHED] = lssched_exec, [LSU_REGFILE] = lsregfile_exec };
    for (int u = 1; u < LSU_NUNITS && rc == 0; u++) {
        rs->units[u].id = u;
        rs->units[u].hw = hw;
        rs->units[u].exec = execs[u];
        rs->units[u].core = calloc((size_t)hw->cores, sizeof(lsunit_state));
        if (!rs->units[u].core) rc = fail(err, errlen, "out of memory");
    }
    rs->units[LSU_MEM].impl = &mem;
    if (rc == 0 && ac->sfu_shares_tensor_issue)   /* one issue slot: either unit's slice holds off the other */
        for (int c = 0; c < hw->cores; c++) {
            rs->units[LSU_TENSOR].core[c].shares_issue = &rs->units[LSU_SFU].core[c];
            rs->units[LSU_SFU].core[c].shares_issue = &rs->units[LSU_TENSOR].core[c];
        }
    if (rc == 0 && hw->issue_per_cycle > 0) {   /* one issue port per core, shared by the units that issue */
        rs->issue = calloc((size_t)hw->cores, sizeof *rs->issue);
        if (!rs->issue) rc = fail(err, errlen, "out of memory");
        static const int issuing[] = { LSU_TENSOR, LSU_LUT, LSU_SFU, LSU_VECTOR, LSU_MEM };
        const int per[] = { hw->issue_tensor, hw->issue_lut, hw->issue_sfu, hw->issue_vector, hw->issue_operand };
        for (int c = 0; c < hw->cores && rs->issue && rc == 0; c++) {
            if (lsissue_init(&rs->issue[c], hw->issue_per_cycle) != 0) { rc = fail(err, errlen, "out of memory"); break; }
            for (size_t k = 0; k < sizeof issuing / sizeof issuing[0]; k++) {
                lsunit_state *us = &rs->units[issuing[k]].core[c];
                us->per_instr = (uint64_t)per[k];
                us->issue = per[k] > 0 ? &rs->issue[c] : NULL;
            }
        }
    }
    /* a block's contexts share its K/V stages in the buffer */
    int depth = lsmem_prefetch_depth(&sh, ac->memory.buffer_kib * 1024.0, ra.limit / kvg, ac->memory.pipeline_stages);
    if (rc == 0) {
        s.prog = &prog; s.sh = &sh; s.hw = hw;
        s.contexts_per_core = ra.limit;
        s.prefetch_depth = depth;
        s.port = direct_port; s.port_user = rs;
        s.item_done = item_done; s.item_user = rs;
        rs->opt = opt; rs->items = nitems;
        s.item_stats = items; s.hist = hist; s.records = replay ? NULL : recs; s.items = nitems;
        if (opt->trace_path && *opt->trace_path) {
            lstrace_init(&trace, opt->trace_first_tile, opt->trace_tiles,
                         (size_t)(opt->trace_max_events > 0 ? opt->trace_max_events : 200000));
            trace.regs_per_context = ra.per_context;
            trace.registers = ac->regfile.registers;
            s.trace_txn = lstrace_txn;
            s.trace_resident = lstrace_resident;
            s.trace_user = &trace;
        }
        if (opt->use_systemc) rc = lstimed_sc_run(&s, rs->units, hw->clock_ghz, err, errlen);
        else if (lsseq_run(&s) != 0) rc = fail(err, errlen, s.err);
    }
    if (rc == 0 && s.trace_user) rc = lstrace_write(&trace, opt->trace_path, hw->clock_ghz, hw->cores, err, errlen);
    lstrace_free(&trace);
    if (rc == 0 && replay) {
        /* numerics from the cache (same key): O, statistics, records */
        memcpy(r->o, g_cache.r.o, nout * sizeof(float));
        if (r->o_ref && g_cache.r.o_ref) memcpy(r->o_ref, g_cache.r.o_ref, nout * sizeof(float));
        memcpy(r->tiles.hp_subblocks_hist, g_cache.r.tiles.hp_subblocks_hist, (size_t)hl * sizeof(uint64_t));
        r->tiles.executed = g_cache.r.tiles.executed;
        r->tiles.masked_skipped = g_cache.r.tiles.masked_skipped;
        r->tiles.disruptive_rate = g_cache.r.tiles.disruptive_rate;
        r->recompute = g_cache.r.recompute;
        r->accuracy = g_cache.r.accuracy;
        r->events = g_cache.r.events;
        if (recs) memcpy(recs, g_cache.recs, nrecs * sizeof *recs);
    } else if (rc == 0) {
        /* timing only: the geometric statistics (tiles, recompute) are exact; no accuracy, no events */
        ls_engine_merge_items(items, nitems, hist, hl, sh.accuracy, r);
        r->timing_only = synth != LSDP_SYNTH_OFF;
        if (!r->timing_only) ls_engine_count_nonfinite(r);   /* timing only: O was never computed */
        if (reuse && recs && cache_store(key, r, recs, nrecs, nout) != 0) ls_timed_cache_clear();
    }
    if (rc == 0) {
        if (recs && r->records)
            for (size_t i = 0; i < r->n_records; i++) {
                r->records[i].stage1_mask = recs[i].stage1_mask;
                r->records[i].stage2_mask = recs[i].stage2_mask;
                r->records[i].n_hp = recs[i].n_hp;
                r->records[i].flags = recs[i].flags;
            }
        /* ---- timed figures ---- */
        tr->cycles = s.cycles;
        tr->clock_ghz = hw->clock_ghz;
        tr->time_us = (double)s.cycles / (hw->clock_ghz * 1e3);
        double f = 4.0 * in->batch * in->heads_q * (double)in->seq_q * (double)in->seq_k * in->dim;
        if (in->causal) f *= 0.5;
        tr->flops = f;
        tr->tflops_effective = s.cycles ? f / ((double)s.cycles / (hw->clock_ghz * 1e9)) / 1e12 : 0.0;
        int cu = s.cores_used > 0 ? s.cores_used : 1;
        double denom = (double)s.cycles * cu;
        static const struct { int id; const char *name, *work; } order[] = {
            { LSU_TENSOR, "tensor", "macs" }, { LSU_LUT, "lut", "lookups" }, { LSU_SFU, "sfu", "exps" },
            { LSU_VECTOR, "vector", "elem_ops" }, { LSU_SCHED, "scheduler", "tests" }, { LSU_MEM, "buffer", "bytes" } };
        tr->nunits = 0;
        for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
            ls_timed_unit *tu = &tr->units[tr->nunits++];
            snprintf(tu->name, sizeof tu->name, "%s", order[k].name);
            snprintf(tu->work_unit, sizeof tu->work_unit, "%s", order[k].work);
            for (int c = 0; c < hw->cores; c++) {
                const lsunit_state *us = &rs->units[order[k].id].core[c];
                tu->busy_cycles += us->busy; tu->ops += us->ops; tu->work += us->work;
            }
            tu->utilisation = denom > 0 ? (double)tu->busy_cycles / denom : 0.0;
            double chip = (double)s.cycles * (ac->cores > 0 ? ac->cores : 1);
            tu->utilisation_chip = chip > 0 ? (double)tu->busy_cycles / chip : 0.0;
        }
        if (rs->issue) {   /* the issue ports, as a unit: instructions issued over cycles x per-cycle slots */
            ls_timed_unit *tu = &tr->units[tr->nunits++];
            snprintf(tu->name, sizeof tu->name, "issue");
            snprintf(tu->work_unit, sizeof tu->work_unit, "instructions");
            for (int c = 0; c < hw->cores; c++) {
                tu->work += rs->issue[c].instrs;
                tu->busy_cycles += lsdp_ceil_div(rs->issue[c].instrs, rs->issue[c].per_cycle);
                tr->issue_bound_cycles += rs->issue[c].bound_cycles;
            }
            tu->utilisation = denom > 0 ? (double)tu->work / (denom * hw->issue_per_cycle) : 0.0;
            double chip = (double)s.cycles * (ac->cores > 0 ? ac->cores : 1) * hw->issue_per_cycle;
            tu->utilisation_chip = chip > 0 ? (double)tu->work / chip : 0.0;
            tr->issue_modelled = true;
        }
        const lsunit_state *chans[2] = { &mem.model.dram, &mem.model.l2 };
        const char *cn[2] = { "dram", "l2" };
        for (int k = 0; k < 2; k++) {
            ls_timed_unit *tu = &tr->units[tr->nunits++];
            snprintf(tu->name, sizeof tu->name, "%s", cn[k]);
            snprintf(tu->work_unit, sizeof tu->work_unit, "bytes");
            tu->busy_cycles = chans[k]->busy; tu->ops = chans[k]->ops; tu->work = chans[k]->work;
            tu->utilisation = s.cycles ? (double)tu->busy_cycles / (double)s.cycles : 0.0;
            tu->utilisation_chip = tu->utilisation;
            tu->chip_wide = 1;
        }
        for (int k = 0; k < LS_TIMED_NSTALLS; k++) tr->stalls[k] = s.stalls[k];
        tr->occupancy.limit = ra.limit;
        tr->occupancy.fit = ra.fit;
        tr->occupancy.max = s.max_resident;
        tr->occupancy.mean = denom > 0 ? (double)s.slot_busy_cycles / denom : 0.0;
        tr->occupancy.register_utilisation = tr->occupancy.mean * ra.per_context / (double)ac->regfile.registers;
        tr->occupancy.regs_per_warp = ra.per_warp;
        tr->occupancy.regs_per_context = ra.per_context;
        tr->occupancy.prefetch_depth = depth;
        tr->occupancy.cores = ac->cores;
        tr->occupancy.cores_used = s.cores_used;
        tr->slow_tiles = s.slow_tiles;
        tr->slow_cycles = s.slow_cycles;
        tr->kv_tile_loads = s.kv_loads;
        tr->kv_loads_shared = s.shared_loads;
        tr->instructions = s.instructions;
        tr->transactions = s.transactions;
        /* ---- energy: operation counts x the picojoule table (hardware.md section 5) ---- */
#define e (&ac->energy)
        uint64_t (*w)[3] = s.op_work, (*wh)[3] = s.op_work_hp;
        double qk8 = (double)w[LSU_OP_QK_LP][0];
        double hp16 = (double)(w[LSU_OP_QK_HP][0] + w[LSU_OP_SEL1][1] + w[LSU_OP_RECOMP][0] + w[LSU_OP_FULLHP][0]);
        double pv16 = (double)(wh[LSU_OP_PV][0] + w[LSU_OP_SLOWPV][0]);
        double pv8 = (double)(w[LSU_OP_PV][0] - wh[LSU_OP_PV][0]);
        double pj_tensor = qk8 * (e->fp8_mul + e->fp8_add) + hp16 * e->fma_16 + pv8 * (e->fp8_mul + e->fp_add_32) +
                           pv16 * (e->fp_mul_16 + e->fp_add_32);
        double lut = (double)w[LSU_OP_EXP][0];
        double sfu = (double)(w[LSU_OP_EXP][1] + w[LSU_OP_NORM][1] + w[LSU_OP_RECOMP][1] + w[LSU_OP_FULLHP][1]);
        double vec = (double)(w[LSU_OP_INIT][0] + w[LSU_OP_SMAX][0] + w[LSU_OP_NORM][0] + w[LSU_OP_RAISE][0] + w[LSU_OP_FIN][0]);
        double sch = (double)(w[LSU_OP_SORT][0] + w[LSU_OP_SEL1][0] + w[LSU_OP_SEL2][0]);
        /* register file: one write per logit and exponential, operands of vector ops, O read+write per P.V */
        double rf = (qk8 + hp16) / in->dim + lut + sfu + 2.0 * vec + 2.0 * (pv8 + pv16) / (double)sh.bc;
        tr->energy_uj.tensor = pj_tensor * 1e-6;
        tr->energy_uj.lut = lut * e->lut_lookup * 1e-6;
        tr->energy_uj.sfu = sfu * e->sfu_exp * 1e-6;
        tr->energy_uj.vector = vec * e->fp_add_32 * 1e-6;
        tr->energy_uj.scheduler = sch * e->fp_add_16 * 1e-6;
        tr->energy_uj.regfile = rf * e->regfile_access * 1e-6;
        /* fills are written once and read once; when operand reads are timed they are counted instead */
        double buf_reads = hw->operand_rows > 0 ? (double)mem.operand_bytes : (double)mem.buf_bytes;
        tr->energy_uj.buffer = ((double)mem.buf_bytes + buf_reads) / 8.0 * e->sram_read_64b * 1e-6;
        tr->energy_uj.l2 = (double)mem.model.l2_bytes / 4.0 * e->l2_word * 1e-6;
        tr->energy_uj.dram = (double)mem.model.dram_bytes / 8.0 * e->dram_read_64b * 1e-6;
        tr->energy_uj.total = tr->energy_uj.tensor + tr->energy_uj.lut + tr->energy_uj.sfu + tr->energy_uj.vector +
                              tr->energy_uj.scheduler + tr->energy_uj.regfile + tr->energy_uj.buffer +
                              tr->energy_uj.l2 + tr->energy_uj.dram;
#undef e
    }
    lsseq_free(&s);
    lsmem_free(&mem);
    for (int u = 1; u < LSU_NUNITS; u++) free(rs->units[u].core);
    for (int c = 0; c < hw->cores && rs->issue; c++) lsissue_free(&rs->issue[c]);
    free(rs->issue);
    ls_engine_acc_ws_free(&rs->acc);
    free(items); free(hist); free(recs);
    free(rs);
    free(lc);
    lsu_program_free(&prog);
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
    ls_fields_double(fs, "occupancy.register_utilisation", tr->occupancy.register_utilisation);
    ls_fields_int(fs, "occupancy.regs_per_warp", tr->occupancy.regs_per_warp);
    ls_fields_int(fs, "occupancy.regs_per_context", tr->occupancy.regs_per_context);
    ls_fields_int(fs, "occupancy.prefetch_depth", tr->occupancy.prefetch_depth);
    ls_fields_int(fs, "occupancy.cores_used", tr->occupancy.cores_used);
    ls_fields_int(fs, "occupancy.cores", tr->occupancy.cores);
    ls_fields_string(fs, "occupancy.layout", tr->layout);
    ls_fields_string(fs, "occupancy.program", tr->program);
    ls_fields_uint(fs, "slow_path.tiles", tr->slow_tiles);
    ls_fields_uint(fs, "slow_path.cycles", tr->slow_cycles);
    ls_fields_double(fs, "energy.total_uj", tr->energy_uj.total);
    ls_fields_double(fs, "energy.tensor_uj", tr->energy_uj.tensor);
    ls_fields_double(fs, "energy.lut_uj", tr->energy_uj.lut);
    ls_fields_double(fs, "energy.sfu_uj", tr->energy_uj.sfu);
    ls_fields_double(fs, "energy.vector_uj", tr->energy_uj.vector);
    ls_fields_double(fs, "energy.scheduler_uj", tr->energy_uj.scheduler);
    ls_fields_double(fs, "energy.regfile_uj", tr->energy_uj.regfile);
    ls_fields_double(fs, "energy.buffer_uj", tr->energy_uj.buffer);
    ls_fields_double(fs, "energy.l2_uj", tr->energy_uj.l2);
    ls_fields_double(fs, "energy.dram_uj", tr->energy_uj.dram);
    ls_fields_uint(fs, "memory.kv_tile_loads", tr->kv_tile_loads);
    ls_fields_uint(fs, "memory.kv_loads_shared", tr->kv_loads_shared);
    if (tr->issue_modelled) ls_fields_uint(fs, "issue.bound_cycles", tr->issue_bound_cycles);
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
    fprintf(out, "  stalls (context-cycles):");
    for (int k = 0; k < LS_TIMED_NSTALLS; k++) fprintf(out, " %s %llu", lsseq_stall_name(k), (unsigned long long)tr->stalls[k]);
    fprintf(out, "\n  occupancy: %.2f mean / %d max / %d limit contexts per core (registers fit %d), "
            "register utilisation %.1f%%, %d regs/warp, prefetch depth %d\n",
            tr->occupancy.mean, tr->occupancy.max, tr->occupancy.limit, tr->occupancy.fit,
            100.0 * tr->occupancy.register_utilisation, tr->occupancy.regs_per_warp, tr->occupancy.prefetch_depth);
    fprintf(out, "  slow path: %llu warp-tiles, %llu cycles\n", (unsigned long long)tr->slow_tiles,
            (unsigned long long)tr->slow_cycles);
    if (tr->issue_modelled)
        fprintf(out, "  issue: unit slices waited %llu cycles in all for issue slots\n",
                (unsigned long long)tr->issue_bound_cycles);
    fprintf(out, "  energy: %.3f uJ (tensor %.3f, lut %.4f, sfu %.3f, vector %.3f, regfile %.3f, buffer %.3f, l2 %.3f, dram %.3f)\n",
            tr->energy_uj.total, tr->energy_uj.tensor, tr->energy_uj.lut, tr->energy_uj.sfu, tr->energy_uj.vector,
            tr->energy_uj.regfile, tr->energy_uj.buffer, tr->energy_uj.l2, tr->energy_uj.dram);
    fprintf(out, "  simulation: %.3g simulated cycles/s, %llu instructions, %llu transactions\n",
            tr->cycles_per_second, (unsigned long long)tr->instructions, (unsigned long long)tr->transactions);
}
