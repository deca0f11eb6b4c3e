/* sim/timed/timed_build.c — configuration -> the run's program, resident plan, shape, hardware
 * parameters and units (timed_run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lslut.h"
#include "lssched.h"
#include "lssfu.h"
#include "lstensor.h"
#include "lsvector.h"
#include "timed_run.h"

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
    if (lsregfile_plan(&t->rp, &t->rt, &t->ra, rerr, sizeof rerr) != 0) return ls_timed_run_fail(t, "register file: %s", rerr);
    t->kvg = t->ac->memory.kv_shared_contexts;
    t->depth = t->ra.depth;
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
    sh->replay = t->cached ? ls_timed_cache_records() : NULL;   /* golden first: set when the engine has run */
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
    /* the units' sections whole: a parameter a unit declares reaches it with no copy of its own */
    hw->tensor = ac->tensor;
    hw->lut = ac->lut;
    hw->sfu = ac->sfu;
    hw->vector = ac->vector;
    hw->scheduler = ac->scheduler;
    hw->memory = ac->memory;
    hw->issue = ac->issue;
    /* 8-bit operands: the wide-accumulation (16-bit) instructions run at the FP8 rate */
    int fp8_wide = ac->tensor.macs_per_cycle_fp8_wide > 0 ? ac->tensor.macs_per_cycle_fp8_wide : ac->tensor.macs_per_cycle_8bit;
    hw->tensor_macs16 = fp8_operands ? fp8_wide : ac->tensor.macs_per_cycle_16bit;
    hw->dram_bpc = ac->memory.bandwidth_gbps / ac->clock_ghz;
    hw->l2_bpc = ac->memory.l2_bandwidth_gbps > 0 ? ac->memory.l2_bandwidth_gbps / ac->clock_ghz : hw->dram_bpc;
    hw->l2_bytes = ac->memory.l2_mib * 1048576.0;
    hw->interleave = ac->interleave_cycles;
    hw->whole_tiles = !ac->skip_masked;
    hw->q_in_buffer = ac->regfile.q_placement == LSREGFILE_IN_BUFFER;
    hw->o_in_buffer = ac->regfile.o_placement == LSREGFILE_IN_BUFFER;
    hw->o_write_bpc = ac->memory.o_write_bytes_per_cycle < ac->memory.buffer_bytes_per_cycle ? ac->memory.o_write_bytes_per_cycle
                                                                                           : ac->memory.buffer_bytes_per_cycle;
    hw->launch_cycles = (uint64_t)ac->launch_cycles;
    hw->item_setup = (uint64_t)ac->item_setup_cycles;
}

/* Refuse what this hardware cannot run, or what would not fit in the host's memory. */
static int check_feasible(timed_run *t)
{
    const ls_config_accelerator *ac = t->ac;
    if (t->hw.lut.lanes < 1 && t->ep->mode != LS_ENGINE_MODE_FA2_16BIT)
        return ls_timed_run_fail(t, "accelerator.lut.lanes = 0: this program needs the LUT (only fa2_16bit runs without it)");
    /* the accuracy pass keeps every tile's exponentials of each resident item (as the engine does
     * per thread): refuse sizes that would not fit rather than thrash */
    if (t->sh.accuracy) {
        double slots = (double)ac->cores * t->ra.limit, items_d = (double)t->in->batch * t->in->heads_q * t->sh.nqb;
        if (items_d < slots) slots = items_d;
        double need = slots * (double)t->sh.nkt * t->sh.bc * t->sh.br * 4.0;
        if (need > 8.0 * 1073741824.0)
            return ls_timed_run_fail(t, "timed model: the accuracy pass would hold %.1f GiB of exponentials (%.0f resident "
                            "contexts x seq_k %d); lower accelerator.cores or turn the fp64 reference off",
                            need / 1073741824.0, slots, t->in->seq_k);
    }
    return 0;
}

/* The engine-compatible result and the per-item buffers the sequencer fills. */
int ls_timed_alloc_buffers(timed_run *t)
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
        return ls_timed_run_fail(t, "out of memory");
    return 0;
}

/* One unit per kind with a state per core; the shared issue slots and ports. */
int ls_timed_build_units(timed_run *t)
{
    lsdp_hw *hw = &t->hw;
    static void (*const execs[LSUNIT_N])(lsdp_unit *, lsdp_txn *) = {
        [LSUNIT_BUFFER] = lsmem_exec, [LSUNIT_TENSOR] = lstensor_exec, [LSUNIT_LUT] = lslut_exec, [LSUNIT_SFU] = lssfu_exec,
        [LSUNIT_VECTOR] = lsvector_exec, [LSUNIT_SCHEDULER] = lssched_exec, [LSUNIT_REGFILE] = lsregfile_exec };
    for (int u = 0; u < LSUNIT_N; u++) {
        if (!lsunit_info_of(u)->target) continue;
        t->units[u].id = u;
        t->units[u].hw = hw;
        t->units[u].exec = execs[u];
        t->units[u].core = calloc((size_t)hw->cores, sizeof(lsdp_unit_state));
        if (!t->units[u].core) return ls_timed_run_fail(t, "out of memory");
    }
    t->units[LSUNIT_BUFFER].impl = &t->mem;
    if (t->ac->sfu.shares_tensor_issue)   /* one issue slot: either unit's slice holds off the other */
        for (int c = 0; c < hw->cores; c++) {
            t->units[LSUNIT_TENSOR].core[c].shares_issue = &t->units[LSUNIT_SFU].core[c];
            t->units[LSUNIT_SFU].core[c].shares_issue = &t->units[LSUNIT_TENSOR].core[c];
        }
    if (hw->issue.per_cycle > 0) {   /* one issue port per core, shared by the units that issue */
        t->issue = calloc((size_t)hw->cores, sizeof *t->issue);
        if (!t->issue) return ls_timed_run_fail(t, "out of memory");
        static const int issuing[] = { LSUNIT_TENSOR, LSUNIT_LUT, LSUNIT_SFU, LSUNIT_VECTOR, LSUNIT_BUFFER };
        const int per[] = { hw->issue.tensor_macs_per_instr, hw->issue.lut_ops_per_instr, hw->issue.sfu_ops_per_instr, hw->issue.vector_ops_per_instr, hw->issue.operand_bytes_per_instr };
        for (int c = 0; c < hw->cores; c++) {
            if (lsdp_issue_init(&t->issue[c], hw->issue.per_cycle) != 0) return ls_timed_run_fail(t, "out of memory");
            for (size_t k = 0; k < sizeof issuing / sizeof issuing[0]; k++) {
                lsdp_unit_state *us = &t->units[issuing[k]].core[c];
                us->per_instr = (uint64_t)per[k];
                us->issue = per[k] > 0 ? &t->issue[c] : NULL;
            }
        }
    }
    return 0;
}

/* The stages that need no data (ls_timed_check_layer runs them alone): program, shape, resident
 * plan, numerics configuration, hardware, feasibility. */
int ls_timed_plan_stages(timed_run *t)
{
    const ls_engine_params *ep = t->ep;
    const ls_attn_inputs *in = t->in;
    const char *pname = ls_timed_program_for_mode(ep->mode);
    if (!pname)
        return ls_timed_run_fail(t, "the timed model supports algorithm.mode lamp, fa2_16bit and pure_8bit (got %s); "
                        "use --golden for the other modes", ls_engine_mode_name(ep->mode));
    _Static_assert(LSDP_MAX_WARPS == 64, "ls_engine_check_inputs bounds n_q by 64 warps");
    if (ls_engine_check_inputs(ep, in, t->err, t->errlen) != 0) return -1;
    if (assemble_program(t, pname) != 0 || plan_resident(t) != 0 || ls_timed_plan_numerics(t) != 0) return -1;
    build_shape(t);
    long long nitems_all = (long long)in->batch * in->heads_q * ((in->seq_q + ep->b_q * ep->n_q - 1) / (ep->b_q * ep->n_q));
    nitems_all *= t->sh.split_kv > 1 ? t->sh.split_kv : 1;
    hw_from_config(t->ac, t->cfg->algorithm.operand_format == LS_ENGINE_OPFMT_E4M3, nitems_all, &t->hw);
    /* the units' own numerics keep one softmax state per item: split-KV runs on the engine's numerics */
    if (t->sh.split_kv > 1 && !t->replay && t->synth == LSDP_SYNTH_OFF)
        return ls_timed_run_fail(t, "workload.split_kv > 1 runs on the golden engine's numerics replayed by the units; it is "
                           "refused with timed.unit_numerics: true and algorithm.above_one: raise");
    return check_feasible(t);
}
