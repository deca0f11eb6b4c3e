/* sim/report/field_docs.c — the report's field reference (see field_docs.h). */
#include "field_docs.h"

#include <string.h>

static const ls_field_doc docs[] = {
    {"schema_version", "",
     "2; incremented when a field changes meaning or disappears (2: `energy.total_uj` became `energy.dynamic_uj`)"},
    {"lampsim.version, lampsim.git", "",
     "version and git revision of the binary that produced the report"},
    {"seed", "",
     "the run seed (`seed` in the configuration)"},
    {"mode", "",
     "`algorithm.mode`: lamp, fa2_fp32, fa2_16bit, pure_8bit, lamp_code or random"},
    {"model", "",
     "`timed` (the SystemC model ran: the timing fields below are present) or `golden` (engine only: "
     "`timed.enabled: false`, `--golden`, or a mode the timed model does not run)"},
    {"workload.name, workload.generator, workload.synthetic, workload.dtype", "",
     "what the inputs are (synthetic data is always labelled so)"},
    {"workload.batch, workload.heads_q, workload.heads_kv, workload.seq_q, workload.seq_k, workload.dim, "
     "workload.causal, workload.seed", "",
     "the attention problem's shape and generator seed"},
    {"workload.max_abs_logit", "logit",
     "largest |q·k|/√d over visible pairs (sampled rows on large problems), the float64 dot products' "
     "value (found through an fp32 screen: docs/performance.md)"},
    {"workload.logits_within_limit", "",
     "`max_abs_logit` ≤ 448, the e4m3 limit"},
    {"workload.gain_used, workload.gain_bound, workload.gain_bound_respected", "",
     "QK-norm gain of the generator vs the bound √(448/√d) of spec D.5 (`null` gain for other generators)"},
    {"workload.hash", "",
     "FNV-1a 64 of the shape and the bits of Q, K, V (hex); empty when the data was not generated"},
    {"workload.data_generated", "",
     "false for a timing-only run (`timed.timing_only`) of a synthetic workload: only the shape is built, "
     "no tensor data is generated, so `max_abs_logit` is null, `hash` empty and `logits_within_limit` "
     "false (not measured)"},
    {"numerics.computed", "",
     "`true` when the arithmetic was done; `false` for a `timed.timing_only` run (modes fa2_16bit and "
     "pure_8bit): `tiles.*` and `recompute.*` are then counted from the mask geometry and equal a full "
     "run's, the timed fields equal a full run's, and the `accuracy.*` and `events.*` fields are left out "
     "(there is no O to measure)"},
    {"numerics.sample.query_blocks", "blocks",
     "only with `algorithm.sample_query_blocks` > 0 (and fewer than the layer's query blocks): query blocks per head "
     "whose numerics were computed; the others replay the nearest sampled block's selections"},
    {"numerics.sample.share", "",
     "sampled work items / all work items (batch x heads x query blocks)"},
    {"numerics.sample.subblock_rate_se", "",
     "standard error of `recompute.subblock_rate` over the sampled work items (ratio estimator, finite-population "
     "corrected; NaN with fewer than two)"},
    {"numerics.sample.disruptive_rate_se", "",
     "standard error of the sampled work items' disruptive-tile share, the estimate behind `tiles.disruptive_rate`"},
    {"tiles.executed", "warp-tiles",
     "(warp, key tile) pairs executed"},
    {"tiles.masked_skipped", "warp-tiles",
     "(warp, key tile) pairs skipped because every pair is masked (causal)"},
    {"tiles.hp_subblocks_hist", "tiles",
     "array of `n_k + 1` counts: executed tiles with 0, 1, …, `n_k` high-precision sub-blocks"},
    {"tiles.disruptive_rate", "fraction",
     "share of executed tiles with ≥ 2 high-precision sub-blocks"},
    {"recompute.logit_rate", "fraction",
     "high-precision unmasked logits / unmasked logits, both stages"},
    {"recompute.logit_rate_stage1, recompute.logit_rate_stage2", "fraction",
     "the same per stage"},
    {"recompute.subblock_rate", "fraction",
     "high-precision sub-blocks / active sub-blocks of executed tiles"},
    {"recompute.stage1_subblocks, recompute.stage2_subblocks", "sub-blocks",
     "sub-blocks made high precision by stage 1 / stage 2"},
    {"recompute.subblocks_active", "sub-blocks",
     "sub-blocks with at least one unmasked logit, over executed tiles"},
    {"accuracy.valid", "",
     "accuracy was measured (fp64 reference on)"},
    {"accuracy.kl_mean, accuracy.kl_max", "nats",
     "KL(p_ref ‖ p_test) per attention row, natural log, mean and max"},
    {"accuracy.kl_inf_count", "rows",
     "rows where p_test = 0 but p_ref > 0 (clamped at 1e-45 for the mean)"},
    {"accuracy.l1_mean, accuracy.l1_max", "",
     "‖p_test − p_ref‖₁ per row (2 × total variation)"},
    {"accuracy.o_max_abs_err, accuracy.o_mean_abs_err", "",
     "max and mean |O_test − O_ref| over all elements"},
    {"accuracy.o_rel_fro_err", "",
     "‖O_test − O_ref‖_F / ‖O_ref‖_F"},
    {"accuracy.row_rel_l2_mean, accuracy.row_rel_l2_max", "",
     "per-row relative ℓ2 error of O, mean and max"},
    {"accuracy.argmax_flip_rate", "fraction",
     "share of rows whose argmax key differs from the reference's (ties → lowest index)"},
    {"accuracy.rows", "rows",
     "rows measured (rows with at least one visible key)"},
    {"events.e4m3_saturations", "events",
     "low-precision accumulator roundings clamped to ±448"},
    {"events.hp_saturations", "events",
     "high-precision (e4m11) accumulator roundings clamped to ±511.75"},
    {"events.overflows_nan", "events",
     "accumulator overflows to NaN (with `algorithm.overflow: nan`)"},
    {"events.exp_underflows", "logits",
     "unmasked logits whose exponential rounded to zero"},
    {"events.exp_above_one", "exponentials",
     "exponentials above one (a recomputed logit above the running max, spec G-15)"},
    {"events.o_nonfinite", "elements",
     "output elements of O that are NaN or infinite (e.g. `paper` arithmetic with `above_one: keep` far "
     "above the logit bound, where exponentials overflow fp32); `lampsim run` then prints a warning on "
     "stderr"},
    {"cycles", "cycles",
     "simulated cycles of the layer (timed model)"},
    {"time_us", "µs",
     "`cycles` at `accelerator.clock_ghz`, in microseconds"},
    {"tflops_effective", "TFLOP/s",
     "FlashAttention-convention FLOPs (4·B·H·N_q·N_k·d, halved when causal) per simulated second, in "
     "TFLOP/s"},
    {"units.<unit>.busy_cycles", "cycles",
     "cycles the unit was busy, summed over the cores that received work (chip-wide for `dram`, `l2`); "
     "units: `tensor`, `lut`, `sfu`, `vector`, `scheduler`, `buffer`, `issue` (only when "
     "`accelerator.issue.per_cycle` > 0: cycles of instructions / per_cycle), `dram`, `l2`"},
    {"units.<unit>.utilisation", "fraction",
     "core level: busy cycles / (cycles × cores that received work); chip-wide units (`dram`, `l2`): busy "
     "/ cycles"},
    {"units.<unit>.utilisation_chip", "fraction",
     "chip level: busy cycles / (cycles × `occupancy.cores`), idle cores included; chip-wide units: as "
     "`utilisation`. Both levels use the same cycles (the layer's `cycles`) for every unit"},
    {"units.<unit>.ops", "transactions",
     "transactions the unit served"},
    {"units.<unit>.work", "work_unit",
     "work items served, counted in `work_unit`"},
    {"units.<unit>.work_unit", "",
     "what `work` counts: macs, lookups, exps, elem_ops, tests, bytes, instructions"},
    {"stalls.dependency, stalls.unit_busy, stalls.memory, stalls.scheduler, stalls.slow_path", "context-cycles",
     "context-cycles a resident context waited, by cause"},
    {"occupancy.contexts_per_core.limit", "contexts",
     "resident contexts a core may hold: min(register fit, buffer fit, `regfile.max_contexts`, work), in "
     "whole K/V-sharing blocks (hw/regfile's plan, docs/architecture.md)"},
    {"occupancy.limited_by", "",
     "which of them binds: `registers`, `buffer`, `max_contexts` (also the warp and thread-block limits "
     "`max_warps` / n_q, `max_ctas`) or `work` (ceil(query blocks / cores): the run has too few blocks to "
     "fill the slots); ties name the first in this order"},
    {"occupancy.contexts_per_core.mean, occupancy.contexts_per_core.max", "contexts",
     "time-weighted mean and maximum resident contexts per used core"},
    {"occupancy.contexts_per_core.register_fit", "contexts",
     "contexts the register file alone would hold in this layout"},
    {"occupancy.contexts_per_core.buffer_fit", "contexts",
     "contexts the on-chip buffer alone would hold: whole blocks of `buffer_kib_per_block`"},
    {"occupancy.buffer_kib_per_block", "KiB",
     "on-chip buffer one block keeps: its K/V pipeline stages (`prefetch_depth` tiles) and its contexts' Q"
     " blocks / O accumulators where `regfile.q_placement` / `o_placement` put them in the buffer"},
    {"occupancy.register_utilisation", "fraction",
     "allocated / total registers, time-weighted"},
    {"occupancy.regs_per_warp, occupancy.regs_per_context, occupancy.regs_per_thread", "registers",
     "registers one warp / one context (query block) / one thread allocates in this layout and placement"},
    {"occupancy.prefetch_depth", "K/V tiles",
     "K/V tiles in flight per block: `memory.pipeline_stages`, fewer only when one block cannot hold them "
     "in the buffer"},
    {"occupancy.cores_used", "cores",
     "cores that received work"},
    {"occupancy.cores", "cores",
     "cores of the chip (`accelerator.cores`), the chip-level utilisation's denominator"},
    {"occupancy.layout, occupancy.program", "",
     "register layout (compact, full, fp32, lp) and microprogram that ran"},
    {"occupancy.layout_dominated_by", "",
     "a layout without a slow path whose warps need no more registers at this tile (`full` for compact at "
     "n_k <= 2), or empty: a non-empty value means the layout saves nothing here and still pays its slow "
     "path (the text output adds a warning line)"},
    {"slow_path.tiles", "warp-tiles",
     "disruptive warp-tiles that took the compact layout's sequential 16-bit path"},
    {"slow_path.cycles", "cycles",
     "cycles spent on that path"},
    {"energy.dynamic_uj", "µJ",
     "dynamic energy estimate, µJ, without leakage: action counts × the picojoule table `accelerator.energy.*` "
     "(45 nm) × `energy.node_scale` (to 7 nm) for every on-chip action, DRAM unscaled (section \"Area and "
     "power\"); the layer's total is `energy.layer_uj` (named `energy.total_uj` before schema 2)"},
    {"energy.tensor_uj, energy.lut_uj, energy.sfu_uj, energy.vector_uj, energy.scheduler_uj, "
     "energy.regfile_uj, energy.buffer_uj, energy.l2_uj, energy.dram_uj", "µJ",
     "the estimate per unit, µJ"},
    {"energy.leakage_uj", "µJ",
     "leakage × time: `power.leakage_w` × `time_us`"},
    {"energy.layer_uj", "µJ",
     "the layer's total energy, µJ: `energy.dynamic_uj` + `energy.leakage_uj` (what the run page's energy "
     "chart sums)"},
    {"energy.per_token_uj", "µJ",
     "`energy.layer_uj` / (batch × seq_q): per query token of the layer, µJ"},
    {"area.node", "",
     "the process node of the area table and of the scaled energies: `7 nm`"},
    {"area.total_mm2", "mm²",
     "the modelled components' area, mm²: `occupancy.cores` × `area.core_mm2` + L2 (not a die size: no "
     "L1/texture, FP64, control, I/O); the one cost source: units rtl/ implements from their ASAP7 synthesis, "
     "register file and buffer from ASAP7 SRAM banks, l2 from the published figures (section "
     "\"Area and power\")"},
    {"area.core_mm2", "mm²",
     "one core's components, mm²"},
    {"area.tensor_mm2, area.lut_mm2, area.sfu_mm2, area.vector_mm2, area.scheduler_mm2, area.regfile_mm2, "
     "area.regfile_pack_mm2, area.buffer_mm2, area.buffer_port_mm2, area.l2_mm2", "mm²",
     "each component over the whole chip, mm² (per core × cores; L2 once), from its `area.source.<unit>`"},
    {"area.source.<unit>", "",
     "where the component's area and leakage come from: `asap7 cells` (rtl/synth/asap7_units.csv, placed at "
     "its utilisation), `asap7 sram` (the SRAM bank's area per bit) or `published` (`accelerator.area.*`)"},
    {"area.published_total_mm2", "mm²",
     "the same chip from the published-figure table `accelerator.area.*` alone: the cross-check"},
    {"area.published.<unit>_mm2", "mm²",
     "each component from the published figures, over the whole chip, mm² (docs/rtl.md reconciles the two)"},
    {"power.average_w", "W",
     "average power over the layer, W: `power.dynamic_w` + `power.leakage_w`"},
    {"power.dynamic_w", "W",
     "`energy.dynamic_uj` / `time_us`"},
    {"power.leakage_w", "W",
     "every component's leakage, all cores powered, idle or not: the cells' own (ASAP7, state-averaged) for "
     "the synthesized units, area × `area.leak_sram_mw_per_mm2` for the SRAM banks (the library gives none), "
     "area × `area.leak_logic_mw_per_mm2` / `leak_sram_mw_per_mm2` for the published-figure units"},
    {"power.leakage_published_w", "W",
     "the leakage of the published-figure areas at the two rates: the cross-check"},
    {"power.leakage.<unit>_w", "W",
     "the same per component (units as `area.*`)"},
    {"efficiency.tflops_per_mm2", "TFLOP/s/mm²",
     "`tflops_effective` / `area.total_mm2`"},
    {"efficiency.tflops_per_w", "TFLOP/s/W",
     "`tflops_effective` / `power.average_w`"},
    {"memory.kv_tile_loads", "loads",
     "K/V tile loads sent to the memory system (L2 or DRAM)"},
    {"issue.bound_cycles", "cycles",
     "only when `accelerator.issue.per_cycle` > 0: cycles by which unit slices were lengthened waiting for"
     " issue slots, summed over the cores (`units.issue.work` counts the warp instructions, "
     "`units.issue.utilisation` = instructions / (per_cycle x cycles x cores used))"},
    {"memory.kv_loads_shared", "loads",
     "K/V tile loads a context took from a sibling's load of the same block "
     "(`accelerator.memory.kv_shared_contexts`); 0 when contexts do not share"},
    {"fast_forward.applied", "",
     "true when the counts are extrapolated from the first `fast_forward.k1` and `k2` batch entries "
     "(`timed.fast_forward`, docs/architecture.md \"Fast-forward\"); false for a run timed in full"},
    {"fast_forward.k1, fast_forward.k2", "entries",
     "the two timings the counts are extrapolated from (the first 2k and 3k batch entries; a step of k entries); 0 "
     "when not applied"},
    {"fast_forward.timed_entries", "entries",
     "batch entries timed in all: the three timings (k, 2k, 3k) of every attempt; more than the batch only where "
     "the run was then timed in full"},
    {"fast_forward.step_difference", "",
     "the relative difference between the cycles of the last two steps of k entries: steady at 0.005 or less"},
    {"fast_forward.not_applied", "",
     "with `timed.fast_forward` on and the run timed in full: why (too few repetitions, steps not steady, a trace, "
     "split-KV, the units' own numerics, an order that is not batch-major); empty otherwise"},
    {"cycle_stack.bottleneck", "",
     "the per-core unit with the most busy cycles chip-wide (`tensor`, `lut`, `sfu`, `vector`, `scheduler`"
     " or `buffer`; the first in this order on a tie): its busy cycles are the stack's `busy`"},
    {"cycle_stack.chip.<unit>", "cycles",
     "the cycle stack over all the chip's cores, in cycles, summing to `cycles` exactly; categories "
     "`launch`, `busy`, `dependency`, `unit_busy`, `memory`, `scheduler`, `slow_path`, `other`, `tail`, "
     "`idle` (section \"Cycle stack\" below)"},
    {"cycle_stack.working_cores.<unit>", "cycles",
     "the same over the cores that got work only (no `idle`), summing to `cycles` exactly"},
    {"cycle_stack.core_min.<unit>, cycle_stack.core_max.<unit>", "cycles",
     "each category's least and most over the cores that got work, in cycles (every core's own stack sums "
     "to `cycles`)"},
    {"balance.items", "items",
     "work items of the layer (batch × heads × query blocks)"},
    {"balance.slots", "slots",
     "`occupancy.cores` × the resident contexts a core could hold with work enough: min(register fit, "
     "buffer fit, `max_contexts`), the work bound left out"},
    {"balance.waves", "waves",
     "items / slots"},
    {"balance.wave_efficiency", "fraction",
     "items / (ceil(waves) × slots): the share of the slots of all waves, the last partly empty one "
     "included, that get an item (wave quantisation; 1 = every wave full). It counts items, not time: "
     "full waves can still end at different times (see `balance.tail_cycles` and the stack's `tail`)"},
    {"balance.core_end_min, balance.core_end_max, balance.core_end_mean", "cycles",
     "when the cores that got work finished their last item, cycles (the latest is `cycles`)"},
    {"balance.tail_cycles", "cycles",
     "`cycles` − `core_end_min`: how long the first core to finish waits for the slowest (time, not slots: "
     "items of unequal length, e.g. under a causal mask, give a tail with every wave full)"},
    {"balance.imbalance", "ratio",
     "`core_end_max` / `core_end_mean` (1 = balanced)"},
    {"config.*", "",
     "the resolved configuration, one field per key of `docs/config.md`"},
};

const ls_field_doc *ls_field_docs(size_t *n)
{
    *n = sizeof docs / sizeof docs[0];
    return docs;
}

void ls_field_docs_tsv(FILE *f)
{
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        fprintf(f, "%s\t%s\t%s\n", docs[i].names, docs[i].unit, docs[i].meaning);
}

/* Markdown cell text: a '|' would end the cell. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputc('\\', f);
        fputc(*s, f);
    }
}

void ls_field_docs_markdown(FILE *f)
{
    fputs("| field | unit | meaning |\n|---|---|---|\n", f);
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        fputs("| ", f);
        const char *s = docs[i].names;
        for (;;) {   /* each name as code */
            const char *e = strstr(s, ", ");
            size_t len = e ? (size_t)(e - s) : strlen(s);
            fprintf(f, "`%.*s`", (int)len, s);
            if (!e) break;
            fputs(", ", f);
            s = e + 2;
        }
        fputs(" | ", f);
        md_cell(f, docs[i].unit);
        fputs(" | ", f);
        md_cell(f, docs[i].meaning);
        fputs(" |\n", f);
    }
}
