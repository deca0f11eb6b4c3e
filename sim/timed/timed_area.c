/* sim/timed/timed_area.c — the area table and leakage (see timed_area.h). */
#include "timed_area.h"

#include <string.h>

#include "lsreglayout.h"

static void put(ls_area *a, int k, const char *name, int per_core, int sram, double instances, const char *unit,
                double um2_per_instance)
{
    ls_area_component *c = &a->c[k];
    c->name = name;
    c->per_core = per_core;
    c->sram = sram;
    c->instances = instances;
    c->instance_unit = unit;
    c->mm2 = instances * um2_per_instance * 1e-6;   /* per core (or per chip) for now */
}

/* NAND2 equivalents per instance from scripts/rtl_synth.sh (Yosys, two-input mapping; docs/rtl.md, "Synthesis",
 * the table's NAND2-eq column): N_k = 4 and 8 where the unit's size follows N_k. */
enum {
    SYN_LUT_EXP_LANE = 1607,       /* lamp_lut_exp_lp: shift, RNE to ue5m3, the 256 x 8 table */
    SYN_ACC_STEP_LP = 6237,        /* lamp_acc_step_lp: bf16 x fp32 -> e4m3, one exact step */
    SYN_ACC_STEP_HP = 6024,        /* lamp_acc_step_hp: bf16 x fp32 -> e4m11 */
    SYN_YPACK_LANE = 416,          /* lamp_ypack_lane: merge and extract of one 32-bit register lane */
    SYN_STAGE1_TEST = 33960,       /* lamp_stage1_test_lp: one sub-block's margin test over b_q = 32 */
    SYN_SORT_NK4_Q4 = 16734,       /* lamp_sched_sort_nk4_q4: threats and sort, 4 queries */
    SYN_SORT_NK8_Q4 = 39406,
    SYN_STAGE2_NK4_Q1 = 14485,     /* lamp_stage2_select_nk4_q1: one query lane's subset step */
    SYN_STAGE2_NK8_Q1 = 32963,
};

/* N_k = 4 or 8 as synthesized; other N_k linearly from the nearer of the two (the threat, adder-chain and
 * sort parts all grow about linearly in N_k over this range). */
static double by_nk(int n_k, double at4, double at8)
{
    if (n_k <= 4) return at4 * (n_k > 0 ? n_k : 1) / 4.0;
    if (n_k >= 8) return at8 * n_k / 8.0;
    return at4 + (at8 - at4) * (n_k - 4) / 4.0;
}

int ls_area_is_synthesized(int k)
{
    return k == LS_AREA_TENSOR || k == LS_AREA_LUT || k == LS_AREA_SCHEDULER || k == LS_AREA_PACK;
}

void ls_area_synthesized(const ls_config_accelerator *ac, int layout, int n_k, ls_area *a)
{
    double um2 = ac->area.nand2_um2, q = ac->warp_size;
    double per_reg = 32.0 / lsregfile_logit_bits(layout, false);
    double eq[LS_AREA_N] = { 0 };
    eq[LS_AREA_TENSOR] = ac->tensor.macs_per_cycle_8bit * (double)SYN_ACC_STEP_LP +
                         ac->tensor.macs_per_cycle_16bit * (double)SYN_ACC_STEP_HP;
    eq[LS_AREA_LUT] = (double)ac->lut.lanes * SYN_LUT_EXP_LANE;
    /* one margin test per cycle; the sort of b_q queries as b_q / 4 copies of the 4-query unit; one
     * subset lane per query */
    eq[LS_AREA_SCHEDULER] = SYN_STAGE1_TEST + q / 4.0 * by_nk(n_k, SYN_SORT_NK4_Q4, SYN_SORT_NK8_Q4) +
                            q * by_nk(n_k, SYN_STAGE2_NK4_Q1, SYN_STAGE2_NK8_Q1);
    eq[LS_AREA_PACK] = (double)ac->warp_size * ac->regfile.subpartitions * SYN_YPACK_LANE * (per_reg - 1.0) / 3.0;
    a->synth_total_mm2 = a->total_mm2;
    for (int k = 0; k < LS_AREA_N; k++) {
        if (!ls_area_is_synthesized(k) || eq[k] <= 0) continue;   /* fp32's pack network: nothing to build */
        a->c[k].synth_mm2 = eq[k] * um2 * 1e-6 * ac->cores;
        a->synth_total_mm2 += a->c[k].synth_mm2 - a->c[k].mm2;
    }
}

void ls_area_of(const ls_config_accelerator *ac, int layout, ls_area *a)
{
    memset(a, 0, sizeof *a);
    const ls_config_area *x = &ac->area;
    double macs8 = ac->tensor.macs_per_cycle_8bit, macs16 = ac->tensor.macs_per_cycle_16bit;
    /* the two datapaths side by side, as configured: instances counts MAC lanes of both */
    put(a, LS_AREA_TENSOR, "tensor", 1, 0, macs8 + macs16, "mac_lanes",
        macs8 + macs16 > 0 ? (macs8 * x->mac_8bit_um2 + macs16 * x->mac_16bit_um2) / (macs8 + macs16) : 0.0);
    /* every lane its own table: entries x output bits */
    put(a, LS_AREA_LUT, "lut", 1, 0, (double)ac->lut.lanes * ac->lut.entries * x->lut_output_bits, "bits", x->lut_bit_um2);
    put(a, LS_AREA_SFU, "sfu", 1, 0, ac->sfu.lanes, "lanes", x->sfu_lane_um2);
    put(a, LS_AREA_VECTOR, "vector", 1, 0, ac->vector.lanes, "lanes", x->vector_lane_um2);
    put(a, LS_AREA_SCHEDULER, "scheduler", 1, 0, 1, "units", x->scheduler_um2);
    double port = x->regfile_ports / 2.0;
    put(a, LS_AREA_REGFILE, "regfile", 1, 1, (double)ac->regfile.registers * 32.0, "bits", x->regfile_bit_um2 * port * port);
    /* pack / unpack per 32-bit lane: byte lanes for 8-bit logits (3 extra positions), halves for
     * 16-bit (1 of 3), none for fp32 */
    double per_reg = 32.0 / lsregfile_logit_bits(layout, false);
    put(a, LS_AREA_PACK, "regfile_pack", 1, 0, (double)ac->warp_size * ac->regfile.subpartitions, "lanes",
        x->pack_lane_um2 * (per_reg - 1.0) / 3.0);
    put(a, LS_AREA_BUFFER, "buffer", 1, 1, ac->memory.buffer_kib * 1024.0 * 8.0, "bits", x->sram_bit_um2);
    put(a, LS_AREA_L2, "l2", 0, 1, ac->memory.l2_mib * 1048576.0 * 8.0, "bits", x->l2_bit_um2);
    for (int k = 0; k < LS_AREA_N; k++) {
        ls_area_component *c = &a->c[k];
        if (c->per_core) {
            a->core_mm2 += c->mm2;
            c->mm2 *= ac->cores;
        }
        c->leakage_w = c->mm2 * (c->sram ? x->leak_sram_mw_per_mm2 : x->leak_logic_mw_per_mm2) * 1e-3;
        a->total_mm2 += c->mm2;
        a->leakage_w += c->leakage_w;
    }
}
