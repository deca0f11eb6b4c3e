/* Where each value of the LampAttention preset comes from: one entry per key, a source or an
 * estimate with its range (config.h, "provenance").
 *
 * A table beside the schema rather than fields in it: the schema says what a key means and which
 * values are allowed for every preset, while this says why the LampAttention preset holds the
 * value it holds (configs/h100.yaml and the validation presets set other values, sourced in
 * docs/validation.md). tests/config binds the two tables both ways: every key here exists, and no
 * timing or energy key of the schema, nor any key configs/lampattention.yaml sets, lacks an entry.
 *
 * Rule: a figure of the H100 envelope the preset adopts by design (hardware.md 7.1/7.2) is a
 * source when a document states it; a property of the LampAttention design or of the kernel
 * running on it (latencies of units that do not exist yet, contexts, prefetch depth, sharing) is an
 * estimate. Energies are per action at 45 nm (Horowitz, ISSCC 2014) unless the node says otherwise; energy.node_scale
 * brings them to the 7 nm node at which the area table (accelerator.area.*) is stated.
 * Short citations: "hw N" = ../shared/spec/hardware.md section N, "num X" = numerics.md section X. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ls_asap7_energy.h"   /* generated from hw/cost/asap7_energy.csv */
#include "ls_asap7_depth.h"    /* generated from rtl/synth/asap7_units.csv */

#define SRC(k, t) {k, LS_CONFIG_PROV_SOURCE, 0, 0, NULL, t}
#define EST(k, lo, hi, t) {k, LS_CONFIG_PROV_ESTIMATE, lo, hi, NULL, t}
#define ESRC(k, node, t) {k, LS_CONFIG_PROV_SOURCE, 0, 0, node, t}
#define EEST(k, lo, hi, node, t) {k, LS_CONFIG_PROV_ESTIMATE, lo, hi, node, t}
#define SYN(k, lo, hi, t) {k, LS_CONFIG_PROV_SYNTHESIZED, lo, hi, NULL, t}
#define ESYN(k, lo, hi, node, t) {k, LS_CONFIG_PROV_SYNTHESIZED, lo, hi, node, t}

#define ASAP7_NODE "7 nm (ASAP7 RVT TT, 0.7 V)"
#define ASAP7_ENERGY "hw/cost/asap7_energy.csv (scripts/rtl_energy.py): the unit's Yosys netlist on the ASAP7 cells, " \
    "toggles of a Verilator simulation weighted by the liberty's internal-energy tables and pin capacitances"
#define HOROWITZ "Horowitz, Computing's energy problem, ISSCC 2014, 45 nm 0.9 V (as tabulated in stillwater-sc universal generic_45nm.hpp; hw 5)"

/* One provenance entry per kind (NONE: no entry); node: the process a figure is stated at (cost rows). */
#define LS_PROV_ENTRY(sec, field, pkind, plo, phi, node, ptext) LS_PROV_##pkind("accelerator." #sec "." #field, plo, phi, node, ptext)
#define LS_PROV_SOURCE(k, lo, hi, node, t) {k, LS_CONFIG_PROV_SOURCE, lo, hi, node, t},
#define LS_PROV_ESTIMATE(k, lo, hi, node, t) {k, LS_CONFIG_PROV_ESTIMATE, lo, hi, node, t},
#define LS_PROV_SYNTHESIZED(k, lo, hi, node, t) {k, LS_CONFIG_PROV_SYNTHESIZED, lo, hi, node, t},
#define LS_PROV_NONE(k, lo, hi, node, t)
/* A unit's declaration (hw/<folder>/<section>.params): its parameters here, its cost rows below
 * (hw/unit/all.params, one table at a time). */
#define LSPARAM(sec, type, field, def, lo, hi, help, pkind, plo, phi, ptext) \
    LS_PROV_ENTRY(sec, field, pkind, plo, phi, NULL, ptext)
#define LSCOST(...)

static const ls_config_provenance table[] = {
    /* ---------------- the core envelope (H100 SXM5, hw 1 and 7.1) ---------------- */
    SRC("accelerator.cores", "H100 SXM5: 132 SMs (NVIDIA H100 whitepaper; hw 1)."),
    SRC("accelerator.clock_ghz", "FlashAttention-3 paper (arXiv 2407.08608) App. C.1: H100 clock pinned at 1830 MHz for its figures (hw 1)."),
    SRC("accelerator.warp_size", "CUDA C++ Programming Guide: 32 threads per warp (hw 1)."),
    SRC("accelerator.max_warps", "H100 whitepaper Tables 3-4, as quoted in hw 1: 64 resident warps per SM."),
    SRC("accelerator.max_ctas", "H100 whitepaper Tables 3-4, as quoted in hw 1: 32 resident thread blocks per SM."),
    EST("accelerator.interleave_cycles", 0, 32,
        "0 serves whole tile instructions (FlashAttention-3's ping-pong, hw 2.5); 8 is one m16n8k16 mma.sync on a "
        "sub-partition (docs/validation.md); 32 is one m64n64k16 wgmma's issue time (hw 1)."),
    EST("accelerator.launch_cycles", 0, 9000,
        "A design-space study compares steady-state throughput (preset header); 9000 cycles (4.9 us) is the launch cost "
        "calibrated on the H100 validation points (docs/validation.md), not a measured figure."),
    EST("accelerator.item_setup_cycles", 0, 2000,
        "A hardware work queue can start an item at once; 2000 cycles is FA3's thread-block start-up calibrated on H100 "
        "(docs/validation.md), the upper end for a software-managed start."),

    /* ---------------- tensor unit ---------------- */
#include "tensor/tensor.params"

    /* ---------------- exponential units ---------------- */
#include "lut/lut.params"
#include "sfu/sfu.params"

    /* ---------------- vector unit and recompute scheduler ---------------- */
#include "vector/vector.params"
#include "sched/scheduler.params"

    /* ---------------- register file ---------------- */
#include "regfile/regfile.params"

    /* ---------------- memory ---------------- */
#include "mem/memory.params"

    /* ---------------- instruction issue (not modelled in the preset: issue.per_cycle 0) ---------------- */
#include "dp/issue.params"

    /* ---------------- energy per action, then area and leakage at 7 nm (docs/reports.md, "Area and power") ---------------- */
#undef LSPARAM
#undef LSCOST
#define LSPARAM(...)
#define LSCOST(sec, type, field, def, lo, hi, help, pkind, plo, phi, node, ptext) LSCOST_##sec(field, pkind, plo, phi, node, ptext)
#define LSCOST_energy(field, pkind, plo, phi, node, ptext) LS_PROV_ENTRY(energy, field, pkind, plo, phi, node, ptext)
#define LSCOST_area(...)
#include "unit/all.params"
#undef LSCOST_energy
#undef LSCOST_area
#define LSCOST_energy(...)
#define LSCOST_area(field, pkind, plo, phi, node, ptext) LS_PROV_ENTRY(area, field, pkind, plo, phi, node, ptext)
#include "unit/all.params"

    /* ---------------- algorithm settings the preset states (the paper's) ---------------- */
    SRC("algorithm.mode", "LampAttention paper (arXiv 2609.39361): look-ahead mixed precision with stages 1 and 2 (num D)."),
    SRC("algorithm.arithmetic", "The paper's hardware formats (e4m3 with 448 saturation, ue5m3 LUT; num A.2)."),
    SRC("algorithm.b_q",
        "b_q x N_q = 128 in the paper (num D.1); the split 32 x 4 is FA2's 4-warp forward configuration for d 128 (num D.1, "
        "hw 2.5)."),
    SRC("algorithm.n_q", "b_q x N_q = 128 in the paper (num D.1); 4 warps as FA2's forward kernel for d 128 (hw 2.5)."),
    SRC("algorithm.b_k", "Paper: b_k x N_k = 64 with N_k = 4, so b_k = 16 (num D.1)."),
    SRC("algorithm.n_k", "Paper: N_k = 4 sub-blocks per key tile (num D.1)."),
    SRC("algorithm.tau", "Paper: the tables are at tau = 0.5 (num D.1)."),
    SRC("algorithm.delta", "Paper: safety margin delta = 2^-8 (App. C also 2^-4; num D.1)."),
    SRC("algorithm.stage1", "Paper: stage 1 (safety-margin check) enabled in the main results (num D.2)."),
    SRC("algorithm.stage2", "Paper: stage 2 (block-LAMP knapsack) enabled in the main results (num D.2)."),
};

/* GPU presets whose envelope differs from the H100 (configs/gpu/ files, selected by accelerator.name):
 * their entries replace the LampAttention preset's for the keys they set (`lampsim config --sources`). */
#define HPCTECH "NVIDIA H100 datasheet table (H100 SXM / H100 PCIe columns) as reproduced by HPC Tech, " \
    "archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100"
typedef struct { const char *preset; ls_config_provenance p; } preset_provenance;
static const preset_provenance presets[] = {
    { "h200", SRC("accelerator.cores", "H200 SXM: the H100's GH100 die with 132 SMs, only its memory differs "
                  "(glennklockwood.com/garden/processors/h100; NVIDIA H200 datasheet: the H100 SXM's 989 TFLOP/s FP16).") },
    { "h200", EST("accelerator.clock_ghz", 1.635, 1.98,
                  "989.4 TFLOP/s dense FP16 (NVIDIA H200 datasheet, as for the H100 SXM) / (132 SMs x 4096 FLOP/clk) = "
                  "1.83 GHz, the rated clock; under the same 700 W the HBM3e draws more, and Ujeniya et al. (arXiv "
                  "2604.11391) find the H200 slightly below the H100 on compute-bound DGEMM at every power cap (no clock "
                  "stated); 1.635 GHz: an H200 NVL power-capped (reanimator/bee clock-calibration notes); 1.98: boost.") },
    { "h200", SRC("accelerator.memory.bandwidth_gbps", "H200 SXM: 141 GB HBM3e at 4.8 TB/s (NVIDIA H200 datasheet; "
                  "MLCommons inference v4.1 H200-SXM-141GB system description: 141 GB HBM3e, 700 W TGP).") },
    { "h100_pcie", SRC("accelerator.cores", "H100 PCIe: 114 SMs (" HPCTECH ").") },
    { "h100_pcie", SRC("accelerator.clock_ghz",
                       "The clock the datasheet's tensor peak implies: 1513 TFLOP/s FP16 with sparsity = 756.5 dense (" HPCTECH
                       ") / (114 SMs x 4096 FLOP/clk) = 1.620 GHz. The 1755 MHz boost is not held under the 350 W limit "
                       "(NVIDIA product brief PB-11133-001) with the tensor cores busy.") },
    { "h100_pcie", SRC("accelerator.memory.bandwidth_gbps", "H100 PCIe: 80 GB HBM2e at 2000 GB/s (" HPCTECH "; NVIDIA "
                       "H100 PCIe product brief PB-11133-001).") },
    { "h100_pcie", EST("accelerator.memory.l2_bandwidth_gbps", 9000, 12000,
                       "Not published for the PCIe board: the SXM5's ~12 TB/s at 1.83 GHz (FA3 paper Table 1) is ~6560 B "
                       "per clock; at 1.62 GHz that is 10.6 TB/s; 9 TB/s if fewer SMs also mean fewer L2 slices busy.") },
};

const ls_config_provenance *ls_config_provenance_preset(const char *preset, const char *key)
{
    if (!preset || !key) return NULL;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; ++i)
        if (!strcmp(presets[i].preset, preset) && !strcmp(presets[i].p.key, key)) return &presets[i].p;
    return NULL;
}

const ls_config_provenance *ls_config_provenance_table(size_t *count)
{
    if (count) *count = sizeof table / sizeof table[0];
    return table;
}

const ls_config_provenance *ls_config_provenance_find(const char *key)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (!strcmp(table[i].key, key)) return &table[i];
    return NULL;
}

const char *ls_config_prov_kind_name(ls_config_prov_kind k)
{
    return k == LS_CONFIG_PROV_ESTIMATE ? "estimate" : k == LS_CONFIG_PROV_SYNTHESIZED ? "synthesized" : "source";
}

int ls_config_prov_ranged(ls_config_prov_kind k) { return k == LS_CONFIG_PROV_ESTIMATE || k == LS_CONFIG_PROV_SYNTHESIZED; }

int ls_config_number(const ls_config *cfg, const char *key, double *value)
{
    const ls_config_schema_entry *e = ls_config_schema_find(key);
    if (!e) return -1;
    const char *f = (const char *)cfg + e->offset;
    switch (e->type) {
    case LS_CONFIG_T_INT: {
        int v;
        memcpy(&v, f, sizeof v);
        *value = v;
        return 0;
    }
    case LS_CONFIG_T_INT64: {
        int64_t v;
        memcpy(&v, f, sizeof v);
        *value = (double)v;
        return 0;
    }
    case LS_CONFIG_T_DOUBLE:
        memcpy(value, f, sizeof *value);
        return 0;
    default:
        return -1;
    }
}

size_t ls_config_estimates(const ls_config *cfg, ls_config_estimate *out, size_t cap)
{
    ls_config *defaults = malloc(sizeof *defaults);   /* the preset's values (= schema defaults), no YAML */
    if (defaults) ls_config_defaults(defaults);
    const ls_config *c = cfg ? cfg : defaults;
    size_t n = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const ls_config_provenance *p = &table[i];
        if (!ls_config_prov_ranged(p->kind)) continue;
        if (n < cap) {
            const ls_config_schema_entry *e = ls_config_schema_find(p->key);
            ls_config_estimate *o = &out[n];
            o->key = p->key;
            o->value = o->def = NAN;
            if (c) (void)ls_config_number(c, p->key, &o->value);
            if (defaults) (void)ls_config_number(defaults, p->key, &o->def);
            o->low = p->low;
            o->high = p->high;
            o->integer = e && e->type != LS_CONFIG_T_DOUBLE;
            o->node = p->node;
            o->reason = p->text;
            o->kind = p->kind;
        }
        n++;
    }
    free(defaults);
    return n;
}

int ls_config_override_text(const char *key, double value, char *buf, size_t len)
{
    const ls_config_schema_entry *e = ls_config_schema_find(key);
    if (!e || !isfinite(value)) return -1;
    int w;
    if (e->type == LS_CONFIG_T_INT || e->type == LS_CONFIG_T_INT64) {
        if (value != floor(value)) return -1;
        w = snprintf(buf, len, "%s=%.0f", key, value);
    } else if (e->type == LS_CONFIG_T_DOUBLE) {
        for (int prec = 1; prec <= 17; ++prec) {   /* the shortest text that reads back to value */
            w = snprintf(buf, len, "%s=%.*g", key, prec, value);
            if (w > 0 && (size_t)w < len && strtod(buf + strlen(key) + 1, NULL) == value) break;
        }
    } else {
        return -1;
    }
    return w < 0 || (size_t)w >= len ? -1 : 0;
}
