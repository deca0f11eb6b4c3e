/* sim/timed/timed_lanes.h — which circuit each class of MAC lane is for a run (hw/tensor/lslanes.h), with
 * its synthesized cost per lane: the area model (timed_area.c) and the energy model (timed_energy.c)
 * price the lanes from it, so that a contender is charged the datapath it computes, never the preset's. */
#ifndef LAMPSIM_SIM_TIMED_LANES_H
#define LAMPSIM_SIM_TIMED_LANES_H
#include <stdbool.h>

#include "config.h"
#include "lslanes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    lslane_circuit circuit;
    int cost_id;           /* its row of the ASAP7 table (timed_cost.h) */
    double macs;           /* multiply-adds per unit: area and leakage per lane = the row's / macs */
    double pj_per_mac;     /* measured energy per multiply-add (hw/cost/asap7_energy.csv) */
} ls_lane_cost;

typedef struct {
    ls_lane_cost lp;       /* area: the tensor.macs_per_cycle_8bit lanes; energy: the LP Q.K^T steps */
    ls_lane_cost hp;       /* area: the tensor.macs_per_cycle_16bit lanes */
    ls_lane_cost qk16;     /* energy: the 16-bit Q.K^T instructions (HP logits, recompute, full-HP work) */
    ls_lane_cost pv;       /* energy: the P.V products, where a tensor-core circuit computes them */
    bool pv_on_lanes;      /* false: the lanes accumulate no fp32 (LampAttention's steps): P.V on its own paths */
    /* area, when !pv_on_lanes: an fp32 P.V path (LSLANE_PV_HP: ue5m11 x bf16, it takes ue5m3 too) beside every
     * 16-bit lane and, where the LP P.V rate (tensor.pv_lp_rate x macs_per_cycle_8bit) exceeds the 16-bit lanes,
     * ue5m3 paths (LSLANE_PV_LP) for the rest; none for LP P.V in a FlashAttention mode (it has none) */
    double pv_paths_lp, pv_paths_hp;
} ls_lanes;

/* The lanes of a run of cfg: the 8-bit ones by the numerics (e4m3 operands in a FlashAttention mode: FP8
 * products with fp32 accumulation, which then run its 16-bit instructions and its P.V too; otherwise the
 * LP datapath variant: fused, or sequential with an fp32 or bf16 query), the 16-bit ones by
 * accelerator.tensor.lane_16bit (tc_bf16 runs the P.V as well). */
void ls_lanes_of(const ls_config *cfg, ls_lanes *out);
/* The lane of a circuit (its cost row and energy found by the unit's name; -1 cost_id if the tables lack it). */
ls_lane_cost ls_lane_of(lslane_circuit c);

#ifdef __cplusplus
}
#endif
#endif
