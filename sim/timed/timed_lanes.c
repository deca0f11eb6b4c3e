/* sim/timed/timed_lanes.c — the circuit of each MAC lane class for a run (see timed_lanes.h). */
#include "timed_lanes.h"

#include <string.h>

#include "ls_asap7_energy.h"   /* generated from hw/cost/asap7_energy.csv */
#include "timed_cost.h"

ls_lane_cost ls_lane_of(lslane_circuit c)
{
    static const ls_asap7_energy_row energy[LS_ASAP7_ENERGY_N] = LS_ASAP7_ENERGY_ROWS;
    const lslane_info *info = &lslane_table[c];
    ls_lane_cost l = { c, -1, (double)info->macs, 0.0 };
    for (int i = 0; i < LS_COST_N; i++)
        if (!strcmp(ls_cost_table[i].unit, info->unit)) l.cost_id = i;
    for (int i = 0; i < LS_ASAP7_ENERGY_N; i++)
        if (!strcmp(energy[i].unit, info->unit)) l.pj_per_mac = energy[i].pj_per_action / info->macs;
    return l;
}

void ls_lanes_of(const ls_config *cfg, ls_lanes *out)
{
    const ls_engine_params *a = &cfg->algorithm;
    bool flash = a->mode == LS_ENGINE_MODE_FA2_16BIT || a->mode == LS_ENGINE_MODE_FA2_FP32 || a->mode == LS_ENGINE_MODE_FA3_FP8;
    lslane_circuit lp;
    if (flash && a->operand_format == LS_ENGINE_OPFMT_E4M3)
        lp = LSLANE_TC_E4M3_K4;   /* FP8 operands, fp32 accumulation: the 16-bit instructions on the 8-bit lanes */
    else if (a->lp_datapath == LSLAMP_LP_FUSED)
        lp = LSLANE_LP_FUSED4;    /* synthesized at k = 4; other lp_fused_k priced per MAC alike */
    else
        lp = a->scale_point == LSLAMP_SCALE_PRE_FP32 ? LSLANE_LP_SEQ_FP32Q : LSLANE_LP_SEQ_BF16Q;
    out->lp = ls_lane_of(lp);
    bool tc16 = cfg->accelerator.tensor.lane_16bit == LSLANE16_TC_BF16;
    out->hp = ls_lane_of(tc16 ? LSLANE_TC_BF16_K4 : LSLANE_HP_STEP);
    if (lp == LSLANE_TC_E4M3_K4) {   /* the 16-bit instructions and the P.V run on the FP8 lanes */
        out->qk16 = out->pv = out->lp;
        out->pv_on_lanes = true;
    } else {
        out->qk16 = out->pv = out->hp;
        out->pv_on_lanes = tc16;
    }
    /* the lanes above accumulate into e4m3 / e4m11: LampAttention's P.V (fp32 output) needs its own paths,
     * at the rates the timed model runs it (LP P.V at pv_lp_rate x the 8-bit rate, HP at the 16-bit rate) */
    const lsunit_tensor_params *t = &cfg->accelerator.tensor;
    out->pv_paths_hp = out->pv_on_lanes ? 0.0 : (double)t->macs_per_cycle_16bit;
    double lp_rate = flash ? 0.0 : t->pv_lp_rate * (double)t->macs_per_cycle_8bit;
    out->pv_paths_lp = out->pv_on_lanes || lp_rate <= out->pv_paths_hp ? 0.0 : lp_rate - out->pv_paths_hp;
}
