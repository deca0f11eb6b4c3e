/* hw/tensor/lanes.c — the MAC lane circuits and their synthesized units (see lslanes.h). */
#include "lslanes.h"

#include <stddef.h>

const lslane_info lslane_table[LSLANE_N] = {
    [LSLANE_LP_SEQ_FP32Q] = { "lamp_acc_step_lp", 1, "LP sequential, bf16 x fp32 -> e4m3" },
    [LSLANE_LP_SEQ_BF16Q] = { "lamp_acc_step_lp_bf16q", 1, "LP sequential, bf16 x bf16 -> e4m3" },
    [LSLANE_LP_FUSED4] = { "lamp_fused_step_lp", 4, "LP fused, 4 x bf16 x bf16 -> e4m3 once" },
    [LSLANE_HP_STEP] = { "lamp_acc_step_hp", 1, "HP, bf16 x fp32 -> e4m11" },
    [LSLANE_TC_BF16_K4] = { "lamp_tc_dot_bf16_k4", 4, "tensor core bf16 x bf16, fp32 accumulation, k = 4" },
    [LSLANE_TC_E4M3_K4] = { "lamp_tc_dot_e4m3_k4", 4, "FP8 e4m3 x e4m3, fp32 accumulation, k = 4" },
    [LSLANE_PV_LP] = { "lamp_pv_step_lp", 1, "P.V path, ue5m3 x bf16 + fp32" },
    [LSLANE_PV_HP] = { "lamp_pv_step_hp", 1, "P.V path, ue5m11 x bf16 + fp32" },
};

const char *const lslane16_names[] = { "lamp_hp", "tc_bf16", NULL };
