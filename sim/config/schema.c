/* The one schema table: every configuration key with its type, default, range and help text.
 * Parsing, validation, --set, `config --explain`, the resolved dump and docs/config.md are all
 * driven from it. Keep entries of one section contiguous (the YAML writer relies on it). */
#include <float.h>
#include <stddef.h>
#include <string.h>

#include "config.h"
#include "ls_asap7_energy.h"   /* generated from hw/cost/asap7_energy.csv */
#include "ls_asap7_depth.h"    /* generated from rtl/synth/asap7_units.csv */
#include "lslanes.h"
#include "lsreglayout.h"

#define F(field) offsetof(ls_config, field), sizeof(((ls_config *)0)->field)
#define BIG 1e300

static const char *const mode_names[] = {"lamp", "fa2_fp32", "fa2_16bit", "pure_8bit", "lamp_code", "random", "fa3_fp8", NULL};
static const char *const arith_names[] = {"hardware", "paper", NULL};
static const char *const accm_names[] = {"auto", "paper", "exact", NULL};
static const char *const round_names[] = {"rne", "rtz", "stochastic", NULL};
static const char *const ovf_names[] = {"saturate", "nan", NULL};
static const char *const mulp_names[] = {"trunc_e4m3", "rne_e4m3", "exact", NULL};
static const char *const hps_names[] = {"ue5m11", "exact", NULL};
static const char *const scale_names[] = {"pre_fp32", "pre_bf16", "post", NULL};
static const char *const order_names[] = {"ascending", "descending", NULL};
static const char *const tie_names[] = {"worst_query", "lexicographic", NULL};
static const char *const disr_names[] = {"flagged_only", "full_tile_hp", NULL};
static const char *const above_names[] = {"keep", "raise", NULL};
static const char *const state_names[] = {"fp32", "fp64", NULL};
static const char *const dtype_names[] = {"fp32", "bf16", "fp16", NULL};
static const char *const gen_names[] = {"gaussian", "qknorm", "trace", "heads", NULL};
static const char *const opfmt_names[] = {"input", "e4m3", NULL};
static const char *const lpdp_names[] = {"sequential", "fused", NULL};
/* hw/seq's lsseq_schedule, in value order */
static const char *const sched_names[] = {"index", "longest_first", "persistent", NULL};

#define FMT_NAMES "Names: e4m3, e4m11, ue5m3s, ue5m3x, ue5m11s, ue5m11x, bf16, fp16, fp32, ps<m> (m = 1..23: fp32 range, m " \
      "fraction bits), or [u]e<E>m<M>[_b<bias>][_ocp|_ieee|_finite][_nosub] (docs/numerics.md, formats as configuration)."

#define I(p, f, d, lo, hi, h) {p, LS_CONFIG_T_INT, F(f), d, lo, hi, NULL, h, 0}
#define I64(p, f, d, lo, hi, h) {p, LS_CONFIG_T_INT64, F(f), d, lo, hi, NULL, h, 0}
#define D(p, f, d, lo, hi, h) {p, LS_CONFIG_T_DOUBLE, F(f), d, lo, hi, NULL, h, 0}
#define B(p, f, d, h) {p, LS_CONFIG_T_BOOL, F(f), d, 0, 1, NULL, h, 0}
#define S(p, f, d, h) {p, LS_CONFIG_T_STRING, F(f), d, 0, 0, NULL, h, 0}
#define P(p, f, d, h) {p, LS_CONFIG_T_PATH, F(f), d, 0, 0, NULL, h, 0}
#define EN(p, f, d, n, h) {p, LS_CONFIG_T_ENUM, F(f), d, 0, 0, n, h, 0}
/* A unit's declaration (hw/<folder>/<section>.params) as schema rows. */
#define LSPARAM(sec, type, field, def, lo, hi, help, pkind, plo, phi, ptext) \
    LSPARAM_ROW_##type("accelerator." #sec "." #field, accelerator.sec.field, def, lo, hi, help),
#define LSPARAM_ROW_INT(p, f, d, lo, hi, h) I(p, f, d, lo, hi, h)
#define LSPARAM_ROW_DOUBLE(p, f, d, lo, hi, h) D(p, f, d, lo, hi, h)
#define LSPARAM_ROW_BOOL(p, f, d, lo, hi, h) B(p, f, d, h)
#define LSPARAM_ROW_ENUM(p, f, d, names, hi, h) EN(p, f, d, names, h)
#define LSCOST(...)
/* ... and the cost rows of all of them (hw/unit/all.params), one table at a time */
#define LSCOST_ROW(sec, type, field, def, lo, hi, help) \
    LSPARAM_ROW_##type("accelerator." #sec "." #field, accelerator.sec.field, def, lo, hi, help),

static const ls_config_schema_entry schema[] = {
    S("version", version, "", "lampsim version that resolved this configuration. Written to config.resolved.yaml; "
      "when it differs from the running binary a warning is issued (the value is informational)."),
    S("description", description, "", "Free text describing the run or sweep point."),
    I64("seed", seed, "1", 0, 9007199254740991.0, "Run seed: stochastic rounding and the `random` mode draw from it; "
        "also the workload generator seed when workload.seed is -1."),

    /* ---------------- accelerator ---------------- */
    S("accelerator.name", accelerator.name, "lampattention", "Preset name, reported in results."),
    I("accelerator.cores", accelerator.cores, "132", 1, 1e6, "Number of cores (SM-like units) working in parallel."),
    D("accelerator.clock_ghz", accelerator.clock_ghz, "1.83", 1e-3, 1e3, "Core clock in GHz (H100 figures use 1.83 GHz)."),
    I("accelerator.warp_size", accelerator.warp_size, "32", 1, 1024, "Threads (lanes) per warp."),
    I("accelerator.max_warps", accelerator.max_warps, "64", 1, 65536, "Maximum resident warps per core."),
    I("accelerator.max_ctas", accelerator.max_ctas, "32", 1, 65536, "Maximum resident thread blocks per core."),
    B("accelerator.skip_masked", accelerator.skip_masked, "true",
      "Warps and sub-blocks of a key tile that the causal mask removes entirely are skipped (no matrix, exponential "
      "or vector work). false: every computed tile costs its whole Br x Bc, as a GPU kernel's MMAs cover the whole "
      "tile and only mask the scores (FlashAttention-2). Timing only: the numerics are the same."),
    I("accelerator.interleave_cycles", accelerator.interleave_cycles, "0", 0, 1e6,
      "Granularity at which resident contexts share a unit: an instruction that keeps the tensor unit, LUT, SFU, "
      "vector unit or buffer port busy longer is served in slices of this many cycles and waiting contexts take "
      "turns between slices, as a GPU's warp schedulers interleave the warps' small MMA and MUFU instructions "
      "(8 = one m16n8k16 mma.sync per sub-partition on an H100). 0 serves each tile instruction whole; contexts then "
      "fall into a ping-pong, the explicit schedule of FlashAttention-3 (docs/architecture.md)."),
    EN("accelerator.scheduling", accelerator.scheduling, "index", sched_names,
       "Order in which work items (batch x heads x query blocks) go to the cores' slots, each a GPU kernel's tile "
       "scheduler (docs/architecture.md, \"Work ordering\"): `index` hands items out in index order (query block "
       "fastest) to whichever slot frees first (FlashAttention-2's grid, FlashAttention-3's causal scheduler as "
       "released in 2024); `longest_first` takes the query blocks last to first within L2-sized sections of heads "
       "(FlashAttention-3's causal scheduler since 2025: a causal mask's longest blocks first, so short ones fill "
       "the tail); `persistent` fixes item i to slot i mod slots (FlashAttention-3's static persistent scheduler, "
       "non-causal)."),
    I("accelerator.launch_cycles", accelerator.launch_cycles, "0", 0, 1e9,
      "Fixed cycles of one launch before the first work item starts (kernel launch and grid start-up; a GPU's "
      "back-to-back launch overhead, docs/validation.md). Added once per run."),
    I("accelerator.item_setup_cycles", accelerator.item_setup_cycles, "0", 0, 1e9,
      "Fixed latency between a slot (or block of slots, memory.kv_shared_contexts) receiving a work item and the "
      "item's first instruction: thread-block dispatch, barrier and state initialisation. Other resident contexts "
      "keep the units busy meanwhile."),
#include "tensor/tensor.params"
#include "lut/lut.params"
#include "sfu/sfu.params"
#include "dp/issue.params"
#include "vector/vector.params"
#include "sched/scheduler.params"
#include "regfile/regfile.params"
#include "mem/memory.params"
#undef LSPARAM
#undef LSCOST
#define LSPARAM(...)
#define LSCOST(sec, type, field, def, lo, hi, help, ...) LSCOST_##sec(type, field, def, lo, hi, help)
#define LSCOST_energy(type, field, def, lo, hi, help) LSCOST_ROW(energy, type, field, def, lo, hi, help)
#define LSCOST_area(...)
#include "unit/all.params"
#undef LSCOST_energy
#undef LSCOST_area
#define LSCOST_energy(...)
#define LSCOST_area(type, field, def, lo, hi, help) LSCOST_ROW(area, type, field, def, lo, hi, help)
#include "unit/all.params"

    /* ---------------- algorithm ---------------- */
    EN("algorithm.mode", algorithm.mode, "lamp", mode_names,
       "Engine mode: `lamp` (look-ahead mixed precision, stages 1 and 2), `fa2_fp32` (FlashAttention-2 in fp32), "
       "`fa2_16bit` (16-bit logits and exponentials), `pure_8bit` (8-bit everything, no recompute), `lamp_code` "
       "(the LAMP reference code's selection rule, threshold lamp_code_tau), `random` (recompute a random "
       "random_rate share of sub-blocks), `fa3_fp8` (FP8 FlashAttention as FlashAttention-3's FP8 path: Q, K and V "
       "rounded to e4m3 with one scale per head (Q per query block), fp32 S and softmax, P rounded to e4m3 for P.V, "
       "fp32 O; golden engine only)."),
    EN("algorithm.arithmetic", algorithm.arithmetic, "hardware", arith_names,
       "`hardware`: native formats (448 saturation, subnormals, LUT underflow); `paper`: the paper's simulation "
       "(fp32 exponent range, mantissa rounding only)."),
    EN("algorithm.acc_model", algorithm.acc_model, "auto", accm_names,
       "Accumulation model of the logit dot products, both the low-precision (lp_format) and the high-precision "
       "(hp_format) accumulator, in either arithmetic: `paper` (round after every product, fmaf then round), "
       "`exact` (single rounding), `auto` (paper with arithmetic: paper, exact otherwise)."),
    EN("algorithm.operand_format", algorithm.operand_format, "input", opfmt_names,
       "Format of Q, K and V in memory and in the tensor unit's operands: `input` (the workload dtype: fp32 4 bytes, "
       "bf16/fp16 2 bytes) or `e4m3` (1 byte, FP8 kernels; the 16-bit instructions then run at "
       "accelerator.tensor.macs_per_cycle_fp8_wide). Sets the bytes of every load, L2/DRAM transfer, buffer fill and "
       "operand read; O is stored in the input dtype. e4m3 is timing only (timed.timing_only: true): the numerics "
       "model 16-bit or fp32 inputs."),
    I("algorithm.b_q", algorithm.b_q, "32", 1, 1024, "Queries per warp (b_q)."),
    I("algorithm.n_q", algorithm.n_q, "4", 1, 1024, "Warps per query thread block (N_q); b_q * N_q <= 1024."),
    I("algorithm.b_k", algorithm.b_k, "16", 1, 1024, "Keys per sub-block (b_k)."),
    I("algorithm.n_k", algorithm.n_k, "4", 1, 16,
      "Sub-blocks per key tile (N_k); b_k * N_k <= 1024; at most 16 because stage 2 enumerates subsets."),
    D("algorithm.tau", algorithm.tau, "0.5", 0, 1, "Stage 2 threshold tau (1 disables stage 2 recomputation)."),
    D("algorithm.delta", algorithm.delta, "0.00390625", 0, DBL_MAX, "Stage 1 safety margin delta (paper: 2^-8, also 2^-4)."),
    B("algorithm.stage1", algorithm.stage1, "true", "Enable stage 1 (safety-margin check against the running max)."),
    B("algorithm.stage2", algorithm.stage2, "true", "Enable stage 2 (block-LAMP knapsack on the exponentials)."),
    EN("algorithm.rounding", algorithm.rounding, "rne", round_names,
       "Rounding of low-precision results: round to nearest even, toward zero, or stochastic (seeded per tile)."),
    EN("algorithm.overflow", algorithm.overflow, "saturate", ovf_names, "e4m3 overflow: saturate to +-448 (counted) or produce NaN."),
    EN("algorithm.mu_lp_shift", algorithm.mu_lp_shift, "trunc_e4m3", mulp_names,
       "How the running max is narrowed for low-precision exponent shifts: truncate to e4m3 (paper), RNE to e4m3, or exact."),
    EN("algorithm.hp_shift", algorithm.hp_shift, "ue5m11", hps_names,
       "High-precision shift path: round (mu - y) to ue5m11 then exp, or exp of the exact fp32 difference."),
    EN("algorithm.scale_point", algorithm.scale_point, "pre_fp32", scale_names,
       "Where 1/sqrt(d) is applied: Q pre-scaled in fp32, pre-scaled in bf16, or after the dot product (LAMP code style)."),
    EN("algorithm.acc_order", algorithm.acc_order, "ascending", order_names, "Order of accumulation over the head dimension."),
    I("algorithm.chunk_k", algorithm.chunk_k, "1", 1, 4096,
      "Products accumulated exactly before each low-precision rounding (LAMP code block_size_k); must divide workload.dim."),
    EN("algorithm.lp_datapath", algorithm.lp_datapath, "sequential", lpdp_names,
       "How the low-precision (lp_format) dot product is built: `sequential` rounds into lp_format after every "
       "product (acc_model, chunk_k: the accelerator's e4m3 lane); `fused` sums lp_fused_k exact products and the "
       "accumulator in one window aligned to the largest term (16 fraction bits below it, lower bits truncated) and "
       "rounds once per group (a tensor core's dot-product shape, rtl/lamp_dot_fused.sv). The operands are "
       "scale_point's (pre_fp32: bf16 x fp32; post: bf16 x bf16, scaled after); the high-precision path stays "
       "sequential. docs/numerics.md, the LP datapath."),
    I("algorithm.lp_fused_k", algorithm.lp_fused_k, "4", 1, 64,
      "Products per rounding of lp_datapath fused (the dot-product unit's width k). Estimate: 4 (a tensor core's "
      "k-term adder tree; range 2-16)."),
    EN("algorithm.knapsack_tiebreak", algorithm.knapsack_tiebreak, "worst_query", tie_names,
       "Stage 2 tie-break among feasible subsets of equal size: minimal worst-query cost then lexicographic, or lexicographic only."),
    EN("algorithm.disruptive_numerics", algorithm.disruptive_numerics, "flagged_only", disr_names,
       "Numerics of disruptive tiles (2+ sub-blocks in 16-bit): recompute only the flagged sub-blocks, or the whole tile."),
    EN("algorithm.above_one", algorithm.above_one, "keep", above_names,
       "A recomputed logit above the running max: keep the max (exp may exceed 1, counted) or raise it and rescale."),
    EN("algorithm.state_precision", algorithm.state_precision, "fp32", state_names,
       "Precision of the running state (max, normaliser, output accumulator)."),
    D("algorithm.lamp_code_tau", algorithm.lamp_code_tau, "1.5", 0, 2, "Threshold of the LAMP code rule (mode lamp_code), on its [1, 2] scale."),
    D("algorithm.random_rate", algorithm.random_rate, "0.1", 0, 1, "Share of sub-blocks recomputed in mode random."),
    S("algorithm.lp_format", algorithm.formats[LSLAMP_FMT_LP], "auto",
      "Low-precision logit accumulator (signed). auto: e4m3 (arithmetic hardware) or ps3 (paper). " FMT_NAMES),
    S("algorithm.hp_format", algorithm.formats[LSLAMP_FMT_HP], "auto",
      "High-precision logit accumulator and running maximum (signed); also lamp_code's recompute (fp32 = the LAMP "
      "code's full-precision recompute). auto: e4m11 (hardware) or ps11 (paper). " FMT_NAMES),
    S("algorithm.lp_shift_format", algorithm.formats[LSLAMP_FMT_LP_SHIFT], "auto",
      "Low-precision shift mu - y, the LUT's index: hardware arithmetic needs an unsigned format of at most 16 bits "
      "(2^16 LUT entries). auto: ue(E+1)mM for lp_format eEmM (ue5m3s), lp_format itself for ps<m>/fp32. Bias left "
      "open: largest exponent floor(log2(2 x lp_format max)). " FMT_NAMES),
    S("algorithm.lp_exp_format", algorithm.formats[LSLAMP_FMT_LP_EXP], "auto",
      "Low-precision exponential, the LUT's output (at most 16 bits in hardware arithmetic; must hold 1.0). auto: "
      "ue(E+1)mM for lp_format eEmM (ue5m3x), lp_format itself for ps<m>/fp32. Bias and specials left open: every "
      "code finite, largest exponent 0. " FMT_NAMES),
    S("algorithm.hp_shift_format", algorithm.formats[LSLAMP_FMT_HP_SHIFT], "auto",
      "High-precision shift (the SFU's input; algorithm.hp_shift: ue5m11 rounds to this format). auto and open "
      "fields as lp_shift_format, from hp_format (ue5m11s). " FMT_NAMES),
    S("algorithm.hp_exp_format", algorithm.formats[LSLAMP_FMT_HP_EXP], "auto",
      "High-precision exponential (the SFU's output; must hold 1.0). auto and open fields as lp_exp_format, from "
      "hp_format (ue5m11x). " FMT_NAMES),
    B("algorithm.compute_reference", algorithm.compute_reference, "true",
      "Compute the fp64 reference attention and the accuracy statistics against it (about a third of a golden "
      "run's time); false: the report says accuracy was not computed (accuracy.valid false, metrics null)."),
    {"algorithm.threads", LS_CONFIG_T_INT, F(algorithm.threads), "1", 0, 4096, NULL,
     "Worker threads of the golden engine (0 = all cores); results do not depend on it, so it is recorded in "
     "run_info.json, not in the report.", LS_CONFIG_SF_NOREPORT},

    I("algorithm.sample_query_blocks", algorithm.sample_query_blocks, "0", 0, 1e9,
      "Long layers: compute the numerics of this many query blocks of each head (one per stratum of consecutive "
      "blocks) and give every other block the per-tile selections of the nearest sampled one (same mask phase), "
      "so the timed model replays the full geometry; 0 (or >= the blocks): all. recompute.*, accuracy.* and "
      "events.* are then the sampled blocks', tiles.* count every replayed tile, and the report states the sample "
      "and its standard errors (numerics.sample.*). O is not complete, so --save-o is refused. Not with "
      "timed.timing_only or timed.unit_numerics."),

    /* ---------------- timed model ---------------- */
    B("timed.enabled", timed.enabled, "true",
      "Run the timed SystemC/TLM model (cycles, utilisation, occupancy, energy) for modes lamp, fa2_16bit and "
      "pure_8bit; other modes, or false, run the golden engine only (numerics and accuracy, no timing)."),
    P("timed.program", timed.program, "",
      "User microprogram (.lasm, docs/isa.md) instead of the shipped one for algorithm.mode and the layout."),
    B("timed.trace", timed.trace, "false",
      "Write trace.json (Perfetto / Chrome JSON timeline of unit activity and occupancy) into the run directory."),
    I("timed.trace_first_tile", timed.trace_first_tile, "0", 0, 1e9, "First key-tile ordinal of every context in the trace window."),
    I("timed.trace_tiles", timed.trace_tiles, "4", 1, 1e6, "Key tiles per context in the trace window."),
    I64("timed.trace_max_events", timed.trace_max_events, "200000", 1, 1e9, "Cap on unit-activity events in the trace."),
    B("timed.reuse_numerics", timed.reuse_numerics, "false",
      "Keep a run's numerics in an in-process cache and replay only the timing for later runs of the same process "
      "whose numerics parameters, inputs and program are identical (results equal a full run)."),
    {"timed.numerics_dir", LS_CONFIG_T_PATH, F(timed.numerics_dir), "", 0, 0, NULL,
     "With timed.reuse_numerics: an existing directory where each computed numerics (O, statistics, per-tile "
     "records) is also kept as a file named by its numerics key, so a run in any process with the same key (a "
     "sweep's other workers, a study's later steps) replays the timing instead of recomputing (results equal a "
     "full run). A file from another lampsim build or of other sizes is ignored. \"\": in-process only. Recorded "
     "in config.resolved.yaml when set; not in the report.", LS_CONFIG_SF_NOREPORT | LS_CONFIG_SF_DUMP_IF_SET},
    {"timed.unit_numerics", LS_CONFIG_T_BOOL, F(timed.unit_numerics), "false", 0, 1, NULL,
     "The units compute the numerics (logits, selection, exponentials, P.V, the accuracy pass) while the model "
     "runs, as the timed model's self-check against the golden engine. false: the golden engine computes them "
     "first (algorithm.threads) and the units replay its per-tile records: the same report, with one engine "
     "pass's memory. algorithm.above_one = raise always runs the units' numerics. Which path a run took is "
     "run_info.json's numerics_path, not in the report.", LS_CONFIG_SF_NOREPORT},
    B("timed.timing_only", timed.timing_only, "false",
      "Timing without the arithmetic, for the data-independent modes fa2_16bit and pure_8bit: each tile's selection "
      "follows from the geometry, so cycles, units, stalls, occupancy and energy equal a full run's in a fraction of "
      "its time. No tensor data is generated for a synthetic workload (workload.data_generated false). The report "
      "then has numerics.computed false and no accuracy or events. Refused with mode lamp "
      "(or any mode not on the timed model), algorithm.above_one = raise, --golden and --save-o."),
    B("timed.fast_forward", timed.fast_forward, "false",
      "Steady-state fast-forward over whole repetitions: where the layer's batch entries repeat (each its own K/V, "
      "items batch-major in the schedule's order), time the first k, 2k and 3k entries and, when the last two steps "
      "of k entries cost the same cycles (within 0.5 %), extrapolate every count of the run linearly to the batch "
      "(the numerics stay the whole batch's); else k doubles while the timings fit in the batch. Too few entries, "
      "steps that do not settle, a trace, split-KV or the units' own numerics: the run is timed in full. The "
      "report's fast_forward.* fields say which; test timed_fast_forward and every study's re-timing of its "
      "winners in full check it (docs/architecture.md, \"Fast-forward\")."),

    /* ---------------- workload ---------------- */
    {"workload.file", LS_CONFIG_T_PATH, F(workload.file), "", 0, 0, NULL,
     "Workload YAML file (relative to the file that names it). Replaces the workload section by defaults + the "
     "file's keys; other workload keys of the same mapping then apply on top. Consumed while loading.", LS_CONFIG_SF_NODUMP},
    S("workload.name", workload.name, "default-qknorm", "Workload name, reported in results."),
    S("workload.description", workload.description, "SYNTHETIC: QK-norm style random Q/K/V, not model activations",
      "Free text; presets state whether the data is synthetic."),
    I("workload.batch", workload.batch, "1", 1, 65536, "Batch size."),
    I("workload.heads_q", workload.heads_q, "2", 1, 65536, "Query heads."),
    I("workload.heads_kv", workload.heads_kv, "1", 1, 65536, "Key/value heads (grouped-query attention); must divide heads_q."),
    I("workload.seq_q", workload.seq_q, "512", 1, 16777216, "Query sequence length (small for a decode-like case)."),
    I("workload.seq_k", workload.seq_k, "512", 1, 16777216, "Key/value sequence length."),
    I("workload.dim", workload.dim, "128", 1, 4096, "Head dimension d."),
    B("workload.causal", workload.causal, "true", "Causal mask, bottom-right aligned: query i sees key j iff j <= i + seq_k - seq_q."),
    I("workload.window", workload.window, "0", 0, 16777216,
      "Sliding-window attention (causal only): query i sees the `window` keys ending at its own, j in "
      "(i + seq_k - seq_q - window, i + seq_k - seq_q] (Gemma 3's local layers: 1024). 0 = no window. Key tiles "
      "wholly before a query block's windows are skipped as fully masked, like the tiles after the diagonal."),
    I("workload.split_kv", workload.split_kv, "1", 0, 1024,
      "Split-KV (FlashDecoding): each query block's key tiles are cut into this many contiguous ranges, run as "
      "separate work items from a fresh softmax state and combined by a timed combine step (engine.md, "
      "\"Split-KV\"). 1 = no split; 0 = auto (FlashAttention-2's heuristic on 2 x accelerator.cores workers). "
      "More splits than key tiles give one tile each."),
    B("workload.pack_gqa", workload.pack_gqa, "false",
      "GQA packing (FlashAttention-3's PackGQA): the query heads that share a KV head run as the rows of one "
      "query block, query-major (row r = query r / group of head r % group), so a decode step fills the block "
      "instead of padding it. Changes which rows share a warp, and so the LAMP selection."),
    EN("workload.dtype", workload.dtype, "bf16", dtype_names, "Operand dtype: Q, K, V are rounded (RNE) to it before the run."),
    EN("workload.generator", workload.generator, "qknorm", gen_names,
       "`gaussian` (i.i.d. normal), `qknorm` (RMS-normalised rows x per-channel gains, RoPE, sinks), `trace` (files), "
       "`heads` (per-head logit scale, bias, sink, recency; `lampsim workload fit` fits it to traces)."),
    I64("workload.seed", workload.seed, "-1", -1, 9007199254740991.0, "Generator seed; -1 = the top-level seed."),
    D("workload.std", workload.std, "1", 0, 1e6, "Standard deviation of Q and K (gaussian) or of the pre-norm rows (qknorm)."),
    D("workload.v_std", workload.v_std, "1", 0, 1e6, "Standard deviation of V (synthetic generators)."),
    D("workload.sharpness", workload.sharpness, "1", 0, 1e6,
      "Multiplies Q (inverse temperature of the softmax); for traces it corrects a model scale other than 1/sqrt(d)."),
    D("workload.head_variety", workload.head_variety, "0.5", 0, 1,
      "Per-head variation (0 = identical statistics in every head) of locality, sink strength and gains."),
    D("workload.locality", workload.locality, "0.5", 0, 100,
      "qknorm: weight of a component shared by the queries and keys of a head, so that with RoPE nearby tokens correlate."),
    D("workload.qknorm.gain", workload.qknorm.gain, "2.5", 0, 1e6,
      "qknorm: largest per-channel gain g; D.5 bound g <= sqrt(448/sqrt(d)) (6.29 at d = 128) keeps logits in e4m3 range."),
    D("workload.qknorm.gain_spread", workload.qknorm.gain_spread, "0.5", 0, 1,
      "qknorm: channel gains are g * (1 - spread * u), u uniform in [0, 1)."),
    B("workload.qknorm.enforce_bound", workload.qknorm.enforce_bound, "false",
      "qknorm: make a gain above the D.5 bound (including sharpness) an error instead of a reported fact."),
    B("workload.rope.enabled", workload.rope.enabled, "true", "qknorm: apply rotary position embeddings (half-split pairs) after the norm."),
    D("workload.rope.base", workload.rope.base, "1000000", 1, 1e12, "RoPE base theta (Qwen3: 1e6; Gemma 3 local layers: 1e4)."),
    I("workload.sinks.count", workload.sinks.count, "1", 0, 16777216, "qknorm: number of attention-sink keys (the first keys)."),
    D("workload.sinks.strength", workload.sinks.strength, "0.5", 0, 1e6,
      "qknorm: weight of the sink direction in every query (the sink keys are that direction plus a little noise); "
      "0.5 gives the sink about a quarter of the attention mass at the default gain."),
    S("workload.heads.scale", workload.heads.scale, "1",
      "heads: per-query-head standard deviation of the random part of the logits (list, one number per head or one for all)."),
    S("workload.heads.bias", workload.heads.bias, "0", "heads: per-head mean logit (shifts every logit of the head; softmax-invariant)."),
    S("workload.heads.sink", workload.heads.sink, "0", "heads: per-head logit bonus of the sink keys (keys 0 .. sinks.count - 1)."),
    S("workload.heads.recency", workload.heads.recency, "0",
      "heads: per-head logit bonus of a key at distance 0 from the query, decaying with the distance (heads.decay)."),
    S("workload.heads.decay", workload.heads.decay, "16", "heads: per-head decay length of the recency bonus, in tokens (> 0)."),
    S("workload.heads.jitter", workload.heads.jitter, "0",
      "heads: per-head relative spread of the recency bonus from query to query (standard deviation, >= 0)."),
    I("workload.heads.pairs", workload.heads.pairs, "0", 0, 64,
      "heads: 0: the recency bonus is built from key identities (heads.recency, heads.decay); > 0: the mean logit "
      "at distance t is bias + sum over the pairs of amp_cos cos(freq t) + amp_sin sin(freq t), in as many rotary "
      "channel pairs (no cross terms; what `lampsim workload fit` writes)."),
    S("workload.heads.sink_spread", workload.heads.sink_spread, "0",
      "heads with pairs > 0: per-head standard deviation of the sink bonus from query to query (a sink that some "
      "queries ignore lets later tiles raise their running maximum)."),
    S("workload.heads.freq", workload.heads.freq, "0.5",
      "heads with pairs > 0: frequencies in radians per token, in (0, pi], pairs per KV head (KV head-major), or one for all."),
    S("workload.heads.amp_cos", workload.heads.amp_cos, "0",
      "heads with pairs > 0: cosine amplitudes of the distance profile, pairs per query head (head-major), or one for all."),
    S("workload.heads.amp_sin", workload.heads.amp_sin, "0",
      "heads with pairs > 0: sine amplitudes of the distance profile, pairs per query head (head-major), or one for all."),
    S("workload.heads.noise_cos", workload.heads.noise_cos, "0",
      "heads with pairs > 0: cosine amplitudes of the noise kernel (the standard deviation at distance t of a term "
      "independent from key to key: the near keys' extra spread), pairs per query head, or one for all; "
      "not 0: as many pairs again."),
    S("workload.heads.noise_sin", workload.heads.noise_sin, "0",
      "heads with pairs > 0: sine amplitudes of the noise kernel, pairs per query head, or one for all."),
    S("workload.heads.key_share", workload.heads.key_share, "0",
      "heads with pairs > 0: per-head share (in [0, 0.99]) of the random part's variance that every query of the head "
      "sees alike, a salience per key: each row's logits keep their distribution, but the rows of a warp raise "
      "their maxima on the same keys (two rows' random parts correlate as key_share)."),
    S("workload.heads.noise_flip", workload.heads.noise_flip, "0",
      "heads with pairs > 0: per-head share of queries (in [0, 0.5]) whose noise term (heads.noise_cos / noise_sin) is "
      "negated, drawn per query: each row's logits keep their distribution, but the rows of a warp stop raising the "
      "same near keys together (two rows' noise terms correlate as (1 - 2 noise_flip)^2)."),
    B("workload.heads.qk_norm", workload.heads.qk_norm, "false",
      "heads: give every query and key the same norm in the random part (QK-norm: bounded logits) instead of Gaussian norms."),
    I64("workload.max_elements", workload.max_elements, "1073741824", 1, 1099511627776.0,
        "Largest accepted Q, K or V tensor in elements (guards against accidental huge runs). Raised above this "
        "default, a run first prints the workload size and an estimated run time."),
    {"workload.max_work", LS_CONFIG_T_INT64, F(workload.max_work), "274877906944", 1, 1e18, NULL,
     "Largest accepted arithmetic in multiply-adds of Q.K^T, batch x heads_q x visible query-key pairs x dim (2^38 by "
     "default: far above the shipped workloads, below runs of hours; guards against accidental huge runs). A "
     "timing-only run (timed.timing_only) computes no numerics and is bounded by workload.max_steps alone. Raised "
     "above this default, a run first prints the workload size and an estimated run time. Recorded in "
     "config.resolved.yaml when raised; not in the report.", LS_CONFIG_SF_NOREPORT | LS_CONFIG_SF_DUMP_IF_SET},
    {"workload.max_steps", LS_CONFIG_T_INT64, F(workload.max_steps), "67108864", 1, 1e15, NULL,
     "Largest accepted work of the timed model in tile steps, batch x heads_q x (query block, key tile) pairs with a "
     "visible key (2^26 by default: about half an hour of simulation; the FlashAttention-3 H100 benchmark shape, "
     "batch 16, 16 heads, 8192 tokens, is 1.5e6). Guards against accidental huge runs, timing-only ones included. "
     "Raised above this default, a run first prints the workload size and an estimated run time. Recorded in "
     "config.resolved.yaml when raised; not in the report.", LS_CONFIG_SF_NOREPORT | LS_CONFIG_SF_DUMP_IF_SET},
    P("workload.trace.q", workload.trace.q, "", "trace: Q as .npy, shape [batch, heads_q, seq_q, dim] or [heads_q, seq_q, dim]."),
    P("workload.trace.k", workload.trace.k, "", "trace: K as .npy, shape [batch, heads_kv, seq_k, dim] or [heads_kv, seq_k, dim]."),
    P("workload.trace.v", workload.trace.v, "", "trace: V as .npy, same shape as K."),
    P("workload.trace.safetensors", workload.trace.safetensors, "", "trace: one .safetensors file holding Q, K and V (instead of .npy files)."),
    S("workload.trace.q_name", workload.trace.q_name, "q", "trace: tensor name of Q in the .safetensors file."),
    S("workload.trace.k_name", workload.trace.k_name, "k", "trace: tensor name of K in the .safetensors file."),
    S("workload.trace.v_name", workload.trace.v_name, "v", "trace: tensor name of V in the .safetensors file."),
};

const ls_config_schema_entry *ls_config_schema(size_t *count)
{
    if (count) *count = sizeof schema / sizeof schema[0];
    return schema;
}

const ls_config_schema_entry *ls_config_schema_find(const char *path)
{
    for (size_t i = 0; i < sizeof schema / sizeof schema[0]; ++i)
        if (!strcmp(schema[i].path, path)) return &schema[i];
    return NULL;
}

const char *ls_config_enum_name(const char *key, int v)
{
    const ls_config_schema_entry *e = ls_config_schema_find(key);
    if (!e || e->type != LS_CONFIG_T_ENUM || v < 0) return NULL;
    for (int i = 0; e->names[i]; ++i)
        if (i == v) return e->names[i];
    return NULL;
}
