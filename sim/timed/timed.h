/* sim/timed — the timed LampAttention accelerator: a SystemC/TLM-2.0 top whose units (hw/tensor,
 * hw/lut, hw/sfu, hw/vector, hw/sched, hw/mem, hw/regfile over the contract hw/dp, sequencer hw/seq) run a microprogram
 * (hw/ucode), plus cycles, unit utilisation, stalls, occupancy, slow-path and energy figures. The
 * numerics (O and every statistic, bit for bit the golden engine's) come from the golden engine run
 * first, whose per-tile records the units replay; or, with unit_numerics (and where the data only
 * arrive during the run), the units compute them with the hw/lamp steps. See docs/architecture.md and docs/isa.md. Not reentrant (one SystemC kernel per
 * process): call from one thread at a time. */
#ifndef LAMPSIM_SIM_TIMED_H
#define LAMPSIM_SIM_TIMED_H
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "engine.h"
#include "fields.h"
#include "lsregfile.h"
#include "timed_area.h"
#include "timed_stack.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LS_TIMED_NUNITS 9
#define LS_TIMED_NSTALLS 5

typedef struct {
    const char *program_path;    /* user microprogram (.lasm) instead of the shipped one, or NULL */
    int use_systemc;             /* 1 (default via ls_timed_options_default): run through the TLM top;
                                    0: drive the same C units directly (test hook; same results) */
    const char *trace_path;      /* Perfetto / Chrome JSON timeline to write, or NULL */
    int trace_first_tile;        /* window: key-tile ordinals [first, first + trace_tiles) of every */
    int trace_tiles;             /* context (default 0 and 4) */
    long trace_max_events;       /* cap on unit-activity events (default 200000) */
    int reuse_numerics;          /* 1: keep this run's numerics (O, statistics, per-tile records) in a
                                    process-wide cache and, when a later run has the same numerics key
                                    (every engine parameter that affects numerics, the input hash and
                                    the program's instruction sequence), replay only the timing from the
                                    records. Results and cycles equal a full run. Default 0. */
    const char *numerics_dir;    /* with reuse_numerics: a directory (existing) where each computed numerics
                                    is also kept as a file named by its key and read back by a run of any
                                    process whose key matches (timed_numfile.h); NULL or "": in-process only */
    int timing_only;             /* 1 (timed.timing_only): modes fa2_16bit and pure_8bit only (fixed,
                                    data-independent selection): each tile's selection is synthesised
                                    from the geometry and no arithmetic is done. Cycles and every timed
                                    figure equal a full run's; res gets tiles and recompute (exact) and
                                    res->timing_only = true, but no O, accuracy or events. Refused for
                                    other modes, above_one = raise and keep_tile_records. Default 0. */
    int unit_numerics;           /* 1 (timed.unit_numerics): the units compute the numerics with the
                                    hw/lamp steps while the model runs (the model's self-check; always so
                                    for algorithm.above_one = raise, whose RAISE cost depends on the data,
                                    and for layers launched through the SystemC control port, whose Q/K/V
                                    arrive through the memory port). 0 (default): the golden engine
                                    computes them first (ep->threads) and the units replay its per-tile
                                    records: the same results and cycles with one engine pass's memory. */
    int fast_forward;            /* 1 (timed.fast_forward): where the batch entries repeat, time the first k1 and
                                    the first 2 k1 of them and extrapolate every count linearly to the batch
                                    (ls_timed_result.fast_forward says whether it applied). Default 0 */
    void (*progress)(void *user, long done, long total); /* after each work item, or NULL */
    void *progress_user;
    void *sc_host;               /* internal (timed_tlm.cpp): the SystemC Accelerator whose control port
                                    launched this layer, in whose thread the sequencer runs; NULL otherwise */
} ls_timed_options;
void ls_timed_options_default(ls_timed_options *o);

typedef struct {
    char name[16];
    uint64_t busy_cycles;        /* summed over the cores that did work (chip-wide for memory/l2) */
    double utilisation;          /* busy / (cycles x cores that did work), chip-wide units: busy / cycles */
    double utilisation_chip;     /* busy / (cycles x all configured cores): idle cores count; chip-wide units
                                    as utilisation. Both over the same cycles, the layer's. */
    int chip_wide;               /* one instance for the chip (dram, l2), not one per core */
    uint64_t ops;                /* transactions served */
    uint64_t work;               /* work items: MACs, lookups, exponentials, element ops, tests, bytes */
    char work_unit[16];
} ls_timed_unit;

/* microjoules per component (timed_energy.h: action counts x accelerator.energy) */
typedef struct { double tensor, lut, sfu, vector, scheduler, regfile, buffer, l2, dram, total; } ls_timed_energy;

typedef struct ls_timed_result {
    char program[64], program_file[256], layout[16];
    uint64_t cycles;
    double clock_ghz, time_us, flops, tflops_effective;
    ls_timed_unit units[LS_TIMED_NUNITS];
    int nunits;
    uint64_t stalls[LS_TIMED_NSTALLS];          /* context-cycles, by cause */
    struct {
        int limit;                              /* resident contexts per core: min(fit, buffer_fit, max_contexts, work) */
        int fit;                                /* contexts the register file alone would hold */
        int buffer_fit;                         /* contexts the on-chip buffer alone would hold */
        char limited_by[16];                    /* registers, buffer, max_contexts or work (hw/regfile) */
        char dominated_by[16];                  /* a layout that needs no more registers and has no slow path, or "" */
        double buffer_kib_per_block;            /* Q / O placed in the buffer and the K/V stages of one block */
        double mean;                            /* time-weighted resident contexts per used core */
        int max;
        double register_utilisation;            /* allocated / total registers, time-weighted */
        int regs_per_warp, regs_per_context, regs_per_thread, prefetch_depth, cores, cores_used;
    } occupancy;
    uint64_t slow_tiles, slow_cycles;
    uint64_t kv_tile_loads;                     /* K/V tile loads sent to memory */
    int split_kv, split_tiles;                  /* split-KV: splits (0: none) and key tiles per split */
    uint64_t combine_cycles;                    /* split-KV: the combine step's items, summed over them */
    uint64_t kv_loads_shared;                   /* ... and served by a sibling's load (kv_shared_contexts) */
    bool issue_modelled;                        /* accelerator.issue.per_cycle > 0: units.issue.* and issue.* */
    uint64_t issue_bound_cycles;                /* cycles unit slices were lengthened waiting for issue slots */
    ls_timed_energy energy_uj;
    ls_stack stack;                             /* where the cycles go (timed_stack.h) */
    ls_area area;                               /* area and leakage at 7 nm (timed_area.h) */
    struct {
        double dynamic_w, leakage_w, average_w; /* energy_uj.total / time; area.leakage_w; their sum */
    } power;
    double energy_leakage_uj;                   /* leakage x time */
    double energy_layer_uj;                     /* dynamic + leakage: the layer's energy */
    double energy_per_token_uj;                 /* ... per query token (batch x seq_q) */
    double tflops_per_mm2, tflops_per_w;        /* tflops_effective / area.total_mm2, / power.average_w */
    uint64_t instructions, transactions;
    struct {                     /* timed.fast_forward (sim/timed/timed_ff.c) */
        bool applied;            /* the counts are extrapolated from the first k1 and k2 batch entries */
        int k1, k2;              /* the two timings extrapolated from (k2 - k1 entries a step; 0 when not applied) */
        int timed_entries;       /* batch entries timed in all, every attempt's three timings */
        double step_diff;        /* relative cycle difference of the last two steps (steady: <= 0.5 %) */
        char why_not[160];       /* asked for and not applied: why ("" otherwise) */
    } fast_forward;
    /* host-dependent (run_info.json, summary): never in the deterministic report */
    double wall_seconds, cycles_per_second;
    int numerics_reused;         /* 1 if the arithmetic was replayed from the numerics cache */
    const char *numerics_path;   /* where the numerics came from: "engine" (golden engine first, units
                                    replayed its records), "units", "cache" (numerics_reused) or "none"
                                    (timing_only); a static string */
    int timing_only;             /* 1 if the run was timing-only (no numerics computed) */
    uint64_t numerics_key;       /* the key (0 unless reuse_numerics) */
    struct {                     /* the timeline written (trace_path): for the run's warnings, not the report */
        int written;
        size_t slices, dropped, max_events;   /* slices kept; dropped at the cap max_events */
        int first_tile, tiles, key_tiles;     /* window: tile ordinals [first_tile, first_tile + tiles) of the layer's key_tiles */
    } trace;
} ls_timed_result;

/* Run the timed model. res is filled exactly like ls_engine_run fills it (O, tiles, recompute,
 * accuracy, events, records as ep asks), except with opt->timing_only (tiles and recompute only;
 * res->timing_only set). The program is chosen by cfg->algorithm.mode: lamp ->
 * lampattention (layout accelerator.regfile.layout), fa2_16bit, pure_8bit. Returns 0 or -1 with err.
 * res must be released with ls_engine_result_free, tr with ls_timed_result_free (also on failure). */
int ls_timed_run(const ls_config *cfg, const ls_engine_params *ep, const ls_attn_inputs *in,
                 ls_engine_result *res, ls_timed_result *tr, char *err, size_t errlen);
int ls_timed_run_opts(const ls_config *cfg, const ls_engine_params *ep, const ls_attn_inputs *in,
                      const ls_timed_options *opt, ls_engine_result *res, ls_timed_result *tr,
                      char *err, size_t errlen);
void ls_timed_result_free(ls_timed_result *tr);
/* Where a layer's tensors lie on the memory port (byte addresses of the Q, K/V and O regions,
 * hw/mem's address map) and the size of the memory behind it (0: unknown). */
typedef struct { uint64_t q_base, kv_base, o_base, bytes; } ls_timed_memory;
/* What ls_timed_run_opts would refuse before it touches the data, without allocating for it (a
 * layer launched through the SystemC control port runs this at START, before its host copies of
 * Q/K/V exist): workload.max_elements and workload.max_work, the mode's program, the shape
 * (in->q/k/v need only be non-NULL), the resident plan (registers that do not fit), the numerics
 * configuration and the accuracy pass's memory; with mem, that Q, K/V and O lie inside the memory
 * (or at least do not wrap around). Returns 0 or -1 with err. */
int ls_timed_check_layer(const ls_config *cfg, const ls_engine_params *ep, const ls_attn_inputs *in,
                         const ls_timed_options *opt, const ls_timed_memory *mem, char *err, size_t errlen);
/* The resident plan's inputs (hw/regfile) from the configuration: the layout a program with
 * `ylayout` runs with (lsucode_layout), Q / O placement, the register file, the buffer and the run's
 * `items` query blocks (0: no work bound). The timed model and ls_run_check plan from these alone. */
void ls_timed_plan_inputs(const ls_config *cfg, const ls_engine_params *ep, int ylayout, int dim, int seq_k,
                          long long items, lsregfile_params *rp, lsregfile_tile *rt);
/* cycles, time_us, tflops_effective, units.<name>.*, stalls.<cause>, occupancy.*, slow_path.*,
 * energy.*, memory.*, issue.*, then area.*, power.*, efficiency.*, cycle_stack.* and balance.*
 * (deterministic; no wall time). */
void ls_timed_report_fields(ls_fields *fs, const ls_timed_result *tr);
void ls_timed_summary(FILE *out, const ls_timed_result *tr);

/* Drop the numerics cache (reuse_numerics). */
void ls_timed_cache_clear(void);
/* Name of the shipped program for a mode, or NULL if the timed model does not support it. */
const char *ls_timed_program_for_mode(ls_engine_mode m);
#ifdef __cplusplus
}
#endif
#endif
