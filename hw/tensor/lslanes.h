/* hw/tensor/lslanes.h — the circuits a tensor MAC lane can be built as, each an rtl/ unit synthesized on
 * ASAP7 (docs/rtl.md, "The lane table"), so that a run's area, leakage and energy price the datapath it
 * runs: the LP lane by the LP datapath variant the engine computes, the 8-bit lanes of an FP8 baseline as
 * e4m3 products with fp32 accumulation, the 16-bit lanes as LampAttention's HP step or, for FlashAttention
 * baselines (accelerator.tensor.lane_16bit), a tensor core's bf16 dot product. No dependencies: the
 * config schema reads the names, the timed model the table. */
#ifndef LAMPSIM_HW_TENSOR_LSLANES_H
#define LAMPSIM_HW_TENSOR_LSLANES_H
#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    LSLANE_LP_SEQ_FP32Q,   /* LP sequential step, bf16 K x fp32 pre-scaled Q -> e4m3 (the preset) */
    LSLANE_LP_SEQ_BF16Q,   /* LP sequential step, bf16 x bf16 -> e4m3 (scale_point pre_bf16 or post) */
    LSLANE_LP_FUSED4,      /* LP fused step: 4 bf16 x bf16 products rounded into e4m3 once */
    LSLANE_HP_STEP,        /* HP step, bf16 x fp32 -> e4m11 (LampAttention's recompute; fa2_16bit) */
    LSLANE_TC_BF16_K4,     /* a tensor core's 4-term bf16 x bf16 dot product, fp32 accumulation */
    LSLANE_TC_E4M3_K4,     /* the same for e4m3 x e4m3 (FP8 baselines) */
    LSLANE_PV_LP,          /* LampAttention's P.V path: ue5m3 x bf16 V added into fp32 (per step, RNE) */
    LSLANE_PV_HP,          /* the same for ue5m11 (SFU) exponentials; it takes ue5m3 ones too */
    LSLANE_N
} lslane_circuit;

typedef struct {
    const char *unit;      /* the rtl/ top, a row of rtl/synth/asap7_units.csv and hw/cost/asap7_energy.csv */
    int macs;              /* multiply-adds per action: a k-term unit prices k lanes */
    const char *doc;
} lslane_info;

extern const lslane_info lslane_table[LSLANE_N];

/* accelerator.tensor.lane_16bit: what a 16-bit lane is built as (its position: the value) */
typedef enum { LSLANE16_LAMP_HP, LSLANE16_TC_BF16 } lslane16_choice;
extern const char *const lslane16_names[];   /* "lamp_hp", "tc_bf16", NULL */

#ifdef __cplusplus
}
#endif
#endif
