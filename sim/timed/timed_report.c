/* sim/timed/timed_report.c — the figures of a finished run (units, cycle stack, occupancy, energy,
 * area and power), the report fields and the summary (timed_run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timed_energy.h"
#include "timed_internal.h"
#include "timed_run.h"

/* The per-core units the report lists (units.def: core and report), in the table's order. */
static const int unit_order[] = {
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) LSUNIT_IF2(core, report, LSUNIT_##ID,)
#include "units.def"
#undef LSUNIT
};
#define N_UNIT_ORDER (sizeof unit_order / sizeof unit_order[0])

/* Busy cycles, operations, work and utilisation of every unit, the issue ports and the memory channels. */
static void unit_statistics(timed_run *t)
{
    ls_timed_result *tr = t->tr;
    const lsseq *s = &t->s;
    const lsdp_hw *hw = &t->hw;
    int all_cores = t->ac->cores > 0 ? t->ac->cores : 1;
    int cu = s->cores_used > 0 ? s->cores_used : 1;
    double denom = (double)s->cycles * cu;
    tr->nunits = 0;
    for (size_t k = 0; k < N_UNIT_ORDER; k++) {
        ls_timed_unit *tu = &tr->units[tr->nunits++];
        snprintf(tu->name, sizeof tu->name, "%s", lsunit_name(unit_order[k]));
        snprintf(tu->work_unit, sizeof tu->work_unit, "%s", lsunit_info_of(unit_order[k])->work);
        for (int c = 0; c < hw->cores; c++) {
            const lsdp_unit_state *us = &t->units[unit_order[k]].core[c];
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
        tu->utilisation = denom > 0 ? (double)tu->work / (denom * hw->issue.per_cycle) : 0.0;
        double chip = (double)s->cycles * all_cores * hw->issue.per_cycle;
        tu->utilisation_chip = chip > 0 ? (double)tu->work / chip : 0.0;
        tr->issue_modelled = true;
    }
    /* the chip's channels the report lists (units.def: report, not core) */
    static const int chip_units[] = {
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) LSUNIT_IF2(report, LSUNIT_NOT(core), LSUNIT_##ID,)
#include "units.def"
#undef LSUNIT
    };
    for (size_t k = 0; k < sizeof chip_units / sizeof chip_units[0]; k++) {
        const lsdp_unit_state *chan = chip_units[k] == LSUNIT_DRAM ? &t->mem.model.dram : &t->mem.model.l2;
        ls_timed_unit *tu = &tr->units[tr->nunits++];
        snprintf(tu->name, sizeof tu->name, "%s", lsunit_name(chip_units[k]));
        snprintf(tu->work_unit, sizeof tu->work_unit, "%s", lsunit_info_of(chip_units[k])->work);
        tu->busy_cycles = chan->busy; tu->ops = chan->ops; tu->work = chan->work;
        tu->utilisation = s->cycles ? (double)tu->busy_cycles / (double)s->cycles : 0.0;
        tu->utilisation_chip = tu->utilisation;
        tu->chip_wide = 1;
    }
}

/* The cycle stack (timed_stack.h): the bottleneck is the per-core unit with the most busy cycles
 * chip-wide (the first in report order on a tie). */
static void cycle_stack(timed_run *t)
{
    const int *ids = unit_order;
    ls_timed_result *tr = t->tr;
    const lsseq *s = &t->s;
    int cores = t->hw.cores, best = 0;
    for (int k = 1; k < (int)N_UNIT_ORDER; k++)   /* units[0..N_UNIT_ORDER) are these, in this order */
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
static void cost_figures(timed_run *t, const ls_lanes *lanes)
{
    ls_timed_result *tr = t->tr;
    ls_area_of(t->ac, t->rp.layout, t->ep->n_k, lanes, &tr->area);
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
void ls_timed_figures(timed_run *t)
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
    ls_timed_count_actions(s, &t->mem, t->hw.memory.operand_read_rows > 0, in->dim, t->sh.bc, t->rp.layout, &acts);
    ls_lanes lanes;
    ls_lanes_of(t->cfg, &lanes);
    ls_timed_energy_of(&ac->energy, &lanes, &acts, &tr->energy_uj);
    cost_figures(t, &lanes);
    cycle_stack(t);
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
    ls_fields_bool(fs, "fast_forward.applied", tr->fast_forward.applied);
    ls_fields_int(fs, "fast_forward.k1", tr->fast_forward.k1);
    ls_fields_int(fs, "fast_forward.k2", tr->fast_forward.k2);
    ls_fields_int(fs, "fast_forward.timed_entries", tr->fast_forward.timed_entries);
    ls_fields_double(fs, "fast_forward.step_difference", tr->fast_forward.step_diff);
    ls_fields_string(fs, "fast_forward.not_applied", tr->fast_forward.why_not);
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
    fprintf(out, "  energy: %.3f uJ dynamic (tensor %.3f, lut %.4f, sfu %.3f, vector %.3f, scheduler %.4f, regfile %.3f, "
                 "buffer %.3f, l2 %.3f, dram %.3f)\n",
            tr->energy_uj.total, tr->energy_uj.tensor, tr->energy_uj.lut, tr->energy_uj.sfu, tr->energy_uj.vector,
            tr->energy_uj.scheduler, tr->energy_uj.regfile, tr->energy_uj.buffer, tr->energy_uj.l2, tr->energy_uj.dram);
    const ls_area *ar = &tr->area;
    /* per core, every per-core component of the area table by its unit name (units.def) */
    char used[512] = "", published[512] = "";
    for (int k = 0; k < LS_AREA_N; k++) {
        if (!ar->c[k].per_core) continue;
        size_t lu = strlen(used), lp = strlen(published);
        snprintf(used + lu, sizeof used - lu, "%s%s %.4f", lu ? ", " : "", ar->c[k].name, ar->c[k].mm2 / tr->occupancy.cores);
        snprintf(published + lp, sizeof published - lp, "%s%s %.4f", lp ? ", " : "", ar->c[k].name,
                 ar->c[k].published_mm2 / tr->occupancy.cores);
    }
    fprintf(out, "  area at 7 nm: %.2f mm2 (%.4f per core x %d + L2 %.2f); per core: %s\n", ar->total_mm2, ar->core_mm2,
            tr->occupancy.cores, ar->c[LS_AREA_L2].mm2, used);
    /* the components without RTL, which keep the published figure as their cost (area.source.<unit>) */
    char no_rtl[128] = "";
    int n_no_rtl = 0;
    for (int k = 0; k < LS_AREA_N; k++)
        if (ar->c[k].source == LS_AREA_SRC_PUBLISHED) n_no_rtl++;
    for (int k = 0, i = 0; k < LS_AREA_N; k++) {
        if (ar->c[k].source != LS_AREA_SRC_PUBLISHED) continue;
        size_t len = strlen(no_rtl);
        snprintf(no_rtl + len, sizeof no_rtl - len, "%s%s", i == 0 ? "" : i == n_no_rtl - 1 ? " and " : ", ", ar->c[k].name);
        i++;
    }
    fprintf(out, "  area, published figures (cross-check; %s %s no RTL and %s them): %.2f mm2, leakage %.1f W; per core: %s\n",
            no_rtl, n_no_rtl == 1 ? "has" : "have", n_no_rtl == 1 ? "uses" : "use", ar->published_total_mm2,
            ar->published_leakage_w, published);
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
