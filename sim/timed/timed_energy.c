/* sim/timed/timed_energy.c — action counts of a run x per-action energies (see timed_energy.h). */
#include "timed_energy.h"

void ls_timed_count_actions(const lsseq *s, const lsmem_state *mem, bool operand_reads_timed, int dim, int bc,
                            int layout, ls_timed_actions *a)
{
    const uint64_t (*w)[3] = (const uint64_t (*)[3])s->op_work, (*wh)[3] = (const uint64_t (*)[3])s->op_work_hp;
    a->qk_lp_macs = (double)w[LSUCODE_OP_QK_LP][0];
    a->hp_fmas = (double)(w[LSUCODE_OP_QK_HP][0] + w[LSUCODE_OP_SEL1][1] + w[LSUCODE_OP_RECOMP][0] + w[LSUCODE_OP_FULLHP][0]);
    a->pv_hp_macs = (double)(wh[LSUCODE_OP_PV][0] + w[LSUCODE_OP_SLOWPV][0]);
    a->pv_lp_macs = (double)(w[LSUCODE_OP_PV][0] - wh[LSUCODE_OP_PV][0]);
    a->lut_lookups = (double)w[LSUCODE_OP_EXP][0];
    a->sfu_ops = (double)(w[LSUCODE_OP_EXP][1] + w[LSUCODE_OP_NORM][1] + w[LSUCODE_OP_RECOMP][1] + w[LSUCODE_OP_FULLHP][1]);
    a->vector_ops = (double)(w[LSUCODE_OP_INIT][0] + w[LSUCODE_OP_SMAX][0] + w[LSUCODE_OP_NORM][0] + w[LSUCODE_OP_RAISE][0] +
                             w[LSUCODE_OP_FIN][0]);
    a->sched_threats = (double)w[LSUCODE_OP_SORT][0];
    a->sched_margin_tests = (double)w[LSUCODE_OP_SEL1][0];
    a->sched_subset_terms = (double)w[LSUCODE_OP_SEL2][0];
    a->sched_subset_tests = (double)wh[LSUCODE_OP_SEL2][0];
    /* register file: the logits' writes, packed as the layout holds them (compact: four 8-bit logits per
     * 32-bit access, full two, fp32 one), one per exponential, operands of vector ops, O read+write per P.V */
    double lp_per_access = 32.0 / lsregfile_logit_bits(layout, false), hp_per_access = 32.0 / lsregfile_logit_bits(layout, true);
    a->regfile_accesses = a->qk_lp_macs / dim / lp_per_access + a->hp_fmas / dim / hp_per_access + a->lut_lookups + a->sfu_ops +
                          2.0 * a->vector_ops +
                          2.0 * (a->pv_lp_macs + a->pv_hp_macs) / (double)bc;
    /* every logit narrower than a register goes through a lane's pack network once */
    a->pack_writes = (lp_per_access > 1.0 ? a->qk_lp_macs / dim : 0.0) + (hp_per_access > 1.0 ? a->hp_fmas / dim : 0.0);
    /* fills are written once and read once; when operand reads are timed they are counted instead */
    double buf_reads = operand_reads_timed ? (double)mem->operand_bytes : (double)mem->buf_bytes;
    a->buffer_words64 = ((double)mem->buf_bytes + buf_reads) / 8.0;
    a->l2_words = (double)mem->model.l2_bytes / 4.0;
    a->dram_words64 = (double)mem->model.dram_bytes / 8.0;
}

/* pJ per multiply-add of a lane circuit: the energy key of its lane class (lp_step for the 8-bit circuits,
 * hp_step for the 16-bit ones) prices the preset's circuit; another circuit is its own measurement scaled by
 * the key's ratio to the preset's, so a range on the key moves every circuit of its class alike; a key
 * of 0 means the 45 nm table (fallback) */
static double lane_pj(const ls_config_energy *e, const ls_lane_cost *l, double fallback)
{
    bool wide = l->circuit == LSLANE_HP_STEP || l->circuit == LSLANE_TC_BF16_K4;
    double key = wide ? e->hp_step : e->lp_step;
    if (key <= 0) return fallback;
    ls_lane_cost ref = ls_lane_of(wide ? LSLANE_HP_STEP : LSLANE_LP_SEQ_FP32Q);
    return l->circuit == ref.circuit ? key : l->pj_per_mac * key / ref.pj_per_mac;
}

/* pJ of one action: the unit's measurement per action (7 nm, unscaled; `per` actions in one of the unit's), or
 * where the key is 0 the 45 nm table's pJ x node_scale */
static double measured_or_table(const ls_config_energy *e, double key, double per, double table_pj)
{
    return key > 0 ? key / per : table_pj * e->node_scale;
}

void ls_timed_per_action(const ls_config_energy *e, const ls_lanes *lanes, ls_timed_action_pj *pj)
{
    /* the lanes' circuits as measured at 7 nm (0: the 45 nm table, scaled like it) */
    pj->qk_lp_mac = lane_pj(e, &lanes->lp, (e->fp8_mul + e->fp8_add) * e->node_scale);
    pj->hp_fma = lane_pj(e, &lanes->qk16, e->fma_16 * e->node_scale);
    pj->lut_lookup = measured_or_table(e, e->lut_exp, 1, e->lut_lookup);
    pj->sfu_exp = measured_or_table(e, e->sfu_lane, 1, e->sfu_exp);
    pj->vector_op = measured_or_table(e, e->vector_op, 1, e->fp_add_32);
    /* the scheduler's units act on 4 sub-blocks x 4 queries (sort) and 32 queries (stage 1) at once */
    pj->sched_threat = measured_or_table(e, e->threat_sort, 16, e->fp_add_16);
    pj->sched_margin_test = measured_or_table(e, e->margin_test, 32, e->fp_add_16);
    /* a lane's subset test: n_k = 4 float64 cost adds and the budget compare (table: float64 charged as fp32) */
    pj->sched_subset_test = measured_or_table(e, e->subset_test, 1, 4.0 * e->fp_add_32);
    /* P.V: on a tensor-core circuit where one computes it (FP8, tc_bf16); else LampAttention's P.V steps,
     * ue5m3 or ue5m11 x bf16 into fp32, as measured (lamp_pv_step_lp / _hp; 0: the 45 nm table) */
    double pv_lp = measured_or_table(e, e->pv_lp_step, 1, e->fp8_mul + e->fp_add_32);
    double pv_hp = measured_or_table(e, e->pv_hp_step, 1, e->fp_mul_16 + e->fp_add_32);
    pj->pv_lp_mac = lanes->pv_on_lanes ? lane_pj(e, &lanes->pv, pv_lp) : pv_lp;
    pj->pv_hp_mac = lanes->pv_on_lanes ? lane_pj(e, &lanes->pv, pv_hp) : pv_hp;
}

void ls_timed_energy_of(const ls_config_energy *e, const ls_lanes *lanes, const ls_timed_actions *a, ls_timed_energy *out)
{
    ls_timed_action_pj pj;
    ls_timed_per_action(e, lanes, &pj);
    out->tensor = (a->qk_lp_macs * pj.qk_lp_mac + a->hp_fmas * pj.hp_fma + a->pv_lp_macs * pj.pv_lp_mac +
                   a->pv_hp_macs * pj.pv_hp_mac) * 1e-6;
    double k = e->node_scale * 1e-6;   /* pJ at 45 nm -> uJ at the area model's node */
    out->lut = a->lut_lookups * pj.lut_lookup * 1e-6;
    out->sfu = a->sfu_ops * pj.sfu_exp * 1e-6;
    out->vector = a->vector_ops * pj.vector_op * 1e-6;
    /* stage 2's cost reduction, xi += E (omega_hat - E) per candidate key and query, runs on the vector lanes:
     * a subtract, a multiply and an add at the lane's measured mean (fp32 lanes; the C model's float64 is
     * its numerics reference, charged as fp32 as the register file charges it) */
    out->scheduler = (a->sched_threats * pj.sched_threat + a->sched_margin_tests * pj.sched_margin_test +
                      a->sched_subset_tests * pj.sched_subset_test + a->sched_subset_terms * 3.0 * pj.vector_op) * 1e-6;
    out->regfile = a->regfile_accesses * e->regfile_access * k + a->pack_writes * e->pack_write * 1e-6;
    out->buffer = a->buffer_words64 * e->sram_read_64b * k;
    out->l2 = a->l2_words * e->l2_word * k;
    out->dram = a->dram_words64 * e->dram_read_64b * 1e-6;
    out->total = out->tensor + out->lut + out->sfu + out->vector + out->scheduler + out->regfile + out->buffer +
                 out->l2 + out->dram;
}
