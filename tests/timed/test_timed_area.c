/* Area and power per unit (timed_area.h, timed_energy.h), each against its closed form:
 *  1. the area table: every component = instances x area per instance, per core x cores, L2 once;
 *     components sum to the total; leakage = area x the rate of its kind;
 *  2. the layouts cost what they cost: the pack network compact 3x full, fp32 none; the logits'
 *     register accesses halve from fp32 to full and again to compact;
 *  3. register-file ports: the bit grows as (ports / 2)^2;
 *  4. the cost source: the units rtl/ implements from the ASAP7 table (timed_cost.h) x instances, the
 *     register file and buffer from its SRAM banks, the buffer port from its synthesized widths, the rest (l2) at
 *     the published figures,
 *     which stay beside every component as the cross-check; leakage from the cells where they give it;
 *  5. a run: power = dynamic + leakage, leakage energy = leakage x time, per token, TFLOP/s per mm2
 *     and per W; node_scale scales every on-chip energy and leaves DRAM alone; cycles do not move;
 *  6. each lane priced as the circuit the run computes (timed_lanes.h): the LP variant, FP8's e4m3 dot product
 *     (its 16-bit instructions and P.V on it too), tc_bf16 for the 16-bit lanes; a k-term unit per MAC a k-th. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "lsreglayout.h"
#include "timed_cost.h"
#include "timed_energy.h"
#include "timed_testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12)

/* area per core of a cost-table row, um2 -> mm2 */
static double row_mm2(int id, double n) { return n * ls_cost(id)->area_um2 * 1e-6; }

static void table(void)
{
    static ls_config cfg;
    ls_config_defaults(&cfg);
    const ls_config_accelerator *ac = &cfg.accelerator;
    const ls_config_area *x = &ac->area;
    ls_lanes lanes;   /* the preset's: the LP and HP steps */
    ls_lanes_of(&cfg, &lanes);
    ls_area a;
    ls_area_of(ac, LSREGFILE_COMPACT, 4, &lanes, &a);
    double cores = ac->cores, q = ac->warp_size;
    /* 1. the published figures (the cross-check column): instances x area per instance */
    double tensor = cores * (ac->tensor.macs_per_cycle_8bit * x->mac_8bit_um2 +
                             ac->tensor.macs_per_cycle_16bit * x->mac_16bit_um2) * 1e-6;
    CHECK_MSG(NEAR(a.c[LS_AREA_TENSOR].published_mm2, tensor), "tensor %g vs %g", a.c[LS_AREA_TENSOR].published_mm2, tensor);
    CHECK(NEAR(a.c[LS_AREA_LUT].published_mm2,
               cores * (double)ac->lut.lanes * ac->lut.entries * x->lut_output_bits * x->lut_bit_um2 * 1e-6));
    CHECK(NEAR(a.c[LS_AREA_REGFILE].published_mm2, cores * ac->regfile.registers * 32.0 * x->regfile_bit_um2 * 1e-6));
    CHECK(NEAR(a.c[LS_AREA_BUFFER].published_mm2, cores * ac->memory.buffer_kib * 8192.0 * x->sram_bit_um2 * 1e-6));
    /* 2. the cost source: synthesized rows of the ASAP7 table x instances, per core x cores */
    /* the lanes, and LampAttention's fp32 P.V paths: one (ue5m11) beside every 16-bit lane, ue5m3 ones for the
     * LP P.V rate beyond them (pv_lp_rate 1: 4,096 - 2,048) */
    double m8 = ac->tensor.macs_per_cycle_8bit, m16 = ac->tensor.macs_per_cycle_16bit;
    CHECK(ac->tensor.pv_lp_rate == 1.0 && m8 > m16);
    CHECK_MSG(NEAR(a.c[LS_AREA_TENSOR].mm2, cores * (row_mm2(LS_COST_LAMP_ACC_STEP_LP, m8) + row_mm2(LS_COST_LAMP_ACC_STEP_HP, m16) +
                                                     row_mm2(LS_COST_LAMP_PV_STEP_HP, m16) +
                                                     row_mm2(LS_COST_LAMP_PV_STEP_LP, m8 - m16))),
              "tensor %g mm2", a.c[LS_AREA_TENSOR].mm2);
    CHECK(NEAR(a.c[LS_AREA_LUT].mm2, cores * row_mm2(LS_COST_LAMP_LUT_EXP_LP, ac->lut.lanes)));
    CHECK(NEAR(a.c[LS_AREA_SCHEDULER].mm2,
               cores * (row_mm2(LS_COST_LAMP_STAGE1_TEST_LP, 1) + row_mm2(LS_COST_LAMP_SCHED_SORT_NK4_Q4, q / 4.0) +
                        row_mm2(LS_COST_LAMP_STAGE2_SELECT_NK4_Q1, q))));
    CHECK(NEAR(a.c[LS_AREA_REGFILE_PACK].mm2, cores * row_mm2(LS_COST_LAMP_YPACK_LANE, q * ac->regfile.subpartitions)));
    const ls_cost_unit *rb = ls_cost(LS_COST_SRAMBANK_64X4X32_6T122), *bb = ls_cost(LS_COST_SRAMBANK_256X4X64_6T122);
    CHECK(NEAR(a.c[LS_AREA_REGFILE].mm2, cores * ac->regfile.registers * 32.0 * rb->area_um2 / rb->bits * 1e-6));
    CHECK(NEAR(a.c[LS_AREA_BUFFER].mm2, cores * ac->memory.buffer_kib * 8192.0 * bb->area_um2 / bb->bits * 1e-6));
    CHECK(a.c[LS_AREA_SFU].source == LS_AREA_SRC_CELLS &&
          NEAR(a.c[LS_AREA_SFU].mm2, cores * row_mm2(LS_COST_LAMP_SFU_EXP, ac->sfu.lanes)) &&
          NEAR(a.c[LS_AREA_SFU].published_mm2, cores * ac->sfu.lanes * x->sfu_lane_um2 * 1e-6));
    CHECK(NEAR(a.c[LS_AREA_SFU].leakage_w, cores * ac->sfu.lanes * ls_cost(LS_COST_LAMP_SFU_EXP)->leakage_nw * 1e-9));
    CHECK(a.c[LS_AREA_VECTOR].source == LS_AREA_SRC_CELLS &&
          NEAR(a.c[LS_AREA_VECTOR].mm2, cores * row_mm2(LS_COST_LAMP_VEC_LANE, ac->vector.lanes)) &&
          NEAR(a.c[LS_AREA_VECTOR].published_mm2, cores * ac->vector.lanes * x->vector_lane_um2 * 1e-6));
    CHECK(NEAR(a.c[LS_AREA_VECTOR].leakage_w, cores * ac->vector.lanes * ls_cost(LS_COST_LAMP_VEC_LANE)->leakage_nw * 1e-9));
    /* the buffer port: the synthesized width the preset runs (128 B/clock), the estimate per byte beside it */
    CHECK(ac->memory.buffer_bytes_per_cycle == 128 && a.c[LS_AREA_BUFFER_PORT].source == LS_AREA_SRC_CELLS &&
          NEAR(a.c[LS_AREA_BUFFER_PORT].mm2, cores * row_mm2(LS_COST_LAMP_BUF_PORT_B128, 1)) &&
          NEAR(a.c[LS_AREA_BUFFER_PORT].published_mm2, cores * 128.0 * x->buffer_port_um2_per_byte * 1e-6));
    /* other widths: the synthesized rows, linear between them, per byte below, as B log2(B / 8) above */
    {
        static ls_config c2;
        ls_config_defaults(&c2);
        struct { int bytes; double um2; } want[] = {
            { 64, ls_cost(LS_COST_LAMP_BUF_PORT_B64)->area_um2 },
            { 32, ls_cost(LS_COST_LAMP_BUF_PORT_B64)->area_um2 / 2 },
            { 192, (ls_cost(LS_COST_LAMP_BUF_PORT_B128)->area_um2 + ls_cost(LS_COST_LAMP_BUF_PORT_B256)->area_um2) / 2 },
            { 512, ls_cost(LS_COST_LAMP_BUF_PORT_B512)->area_um2 },
            { 1024, ls_cost(LS_COST_LAMP_BUF_PORT_B512)->area_um2 * 2.0 * 7.0 / 6.0 } };
        for (int i = 0; i < N(want); i++) {
            c2.accelerator.memory.buffer_bytes_per_cycle = want[i].bytes;
            ls_area w;
            ls_area_of(&c2.accelerator, LSREGFILE_COMPACT, 4, &lanes, &w);
            CHECK_MSG(NEAR(w.c[LS_AREA_BUFFER_PORT].mm2, cores * want[i].um2 * 1e-6), "port at %d B/clock: %g mm2, want %g",
                      want[i].bytes, w.c[LS_AREA_BUFFER_PORT].mm2, cores * want[i].um2 * 1e-6);
        }
        CHECK(ls_cost(LS_COST_LAMP_BUF_PORT_B64)->area_um2 < ls_cost(LS_COST_LAMP_BUF_PORT_B128)->area_um2 &&
              ls_cost(LS_COST_LAMP_BUF_PORT_B128)->area_um2 < ls_cost(LS_COST_LAMP_BUF_PORT_B256)->area_um2 &&
              ls_cost(LS_COST_LAMP_BUF_PORT_B256)->area_um2 < ls_cost(LS_COST_LAMP_BUF_PORT_B512)->area_um2);
    }
    /* no RTL: the published figure is the cost */
    CHECK(a.c[LS_AREA_L2].source == LS_AREA_SRC_PUBLISHED &&
          NEAR(a.c[LS_AREA_L2].mm2, ac->memory.l2_mib * 8388608.0 * x->l2_bit_um2 * 1e-6));   /* once per chip */
    CHECK(a.c[LS_AREA_TENSOR].source == LS_AREA_SRC_CELLS && a.c[LS_AREA_BUFFER].source == LS_AREA_SRC_SRAM);
    /* leakage: the cells' own for synthesized logic, the rate of its kind for the rest */
    CHECK(NEAR(a.c[LS_AREA_LUT].leakage_w, cores * ac->lut.lanes * ls_cost(LS_COST_LAMP_LUT_EXP_LP)->leakage_nw * 1e-9));
    CHECK(NEAR(a.c[LS_AREA_REGFILE].leakage_w, a.c[LS_AREA_REGFILE].mm2 * x->leak_sram_mw_per_mm2 * 1e-3));
    CHECK(NEAR(a.c[LS_AREA_L2].leakage_w, a.c[LS_AREA_L2].mm2 * x->leak_sram_mw_per_mm2 * 1e-3));
    double sum = 0, leak = 0, psum = 0, pleak = 0;
    for (int k = 0; k < LS_AREA_N; k++) {
        sum += a.c[k].mm2;
        leak += a.c[k].leakage_w;
        psum += a.c[k].published_mm2;
        pleak += a.c[k].published_mm2 * (a.c[k].sram ? x->leak_sram_mw_per_mm2 : x->leak_logic_mw_per_mm2) * 1e-3;
        CHECK_MSG(a.c[k].mm2 > 0 && a.c[k].leakage_w > 0, "%s has no area or leakage", a.c[k].name);
    }
    CHECK(NEAR(sum, a.total_mm2) && NEAR(a.total_mm2, cores * a.core_mm2 + a.c[LS_AREA_L2].mm2));
    CHECK(NEAR(leak, a.leakage_w) && NEAR(psum, a.published_total_mm2) && NEAR(pleak, a.published_leakage_w));

    /* 3. layouts: the pack network compact 3x full, fp32 none; the scheduler grows with N_k */
    ls_area full, fp32, s8;
    ls_area_of(ac, LSREGFILE_FULL, 4, &lanes, &full);
    ls_area_of(ac, LSREGFILE_FP32, 4, &lanes, &fp32);
    ls_area_of(ac, LSREGFILE_COMPACT, 8, &lanes, &s8);
    CHECK(NEAR(a.c[LS_AREA_REGFILE_PACK].mm2, 3.0 * full.c[LS_AREA_REGFILE_PACK].mm2) && fp32.c[LS_AREA_REGFILE_PACK].mm2 == 0.0);
    CHECK(NEAR(a.c[LS_AREA_REGFILE_PACK].published_mm2, 3.0 * full.c[LS_AREA_REGFILE_PACK].published_mm2));
    CHECK(a.total_mm2 > full.total_mm2 && full.total_mm2 > fp32.total_mm2);
    CHECK(NEAR(a.c[LS_AREA_REGFILE].mm2, fp32.c[LS_AREA_REGFILE].mm2));   /* the same capacity */
    CHECK(s8.c[LS_AREA_SCHEDULER].mm2 > 1.5 * a.c[LS_AREA_SCHEDULER].mm2);
    CHECK(lsregfile_logit_bits(LSREGFILE_COMPACT, false) == 8 && lsregfile_logit_bits(LSREGFILE_COMPACT, true) == 16 &&
          lsregfile_logit_bits(LSREGFILE_FULL, false) == 16 && lsregfile_logit_bits(LSREGFILE_FP32, true) == 32);

    /* 4. ports (published column: the bit as (ports / 2)^2; banks: ports from banking) and cores */
    static ls_config c2;
    c2 = cfg;
    c2.accelerator.area.regfile_ports = 4;
    c2.accelerator.cores = 2 * ac->cores;
    ls_area b;
    ls_area_of(&c2.accelerator, LSREGFILE_COMPACT, 4, &lanes, &b);
    CHECK(NEAR(b.c[LS_AREA_REGFILE].published_mm2, 8.0 * a.c[LS_AREA_REGFILE].published_mm2));   /* 2x cores x (4/2)^2 */
    CHECK(NEAR(b.c[LS_AREA_REGFILE].mm2, 2.0 * a.c[LS_AREA_REGFILE].mm2));
    CHECK(NEAR(b.c[LS_AREA_TENSOR].mm2, 2.0 * a.c[LS_AREA_TENSOR].mm2) && NEAR(b.c[LS_AREA_L2].mm2, a.c[LS_AREA_L2].mm2));
    printf("preset at 7 nm: %.2f mm2 (published figures %.2f), %.4f mm2 per core, leakage %.2f W (published %.2f)\n",
           a.total_mm2, a.published_total_mm2, a.core_mm2, a.leakage_w, a.published_leakage_w);
    for (int k = 0; k < LS_AREA_N; k++)
        printf("  %-12s %-11s %9.4f mm2 per core (published %9.4f)\n", a.c[k].name, ls_area_source_name(a.c[k].source),
               a.c[k].mm2 / (a.c[k].per_core ? cores : 1), a.c[k].published_mm2 / (a.c[k].per_core ? cores : 1));
}

static void lanes(void)
{
    /* every circuit has its synthesized row and its measured energy */
    for (int c = 0; c < LSLANE_N; c++) {
        ls_lane_cost l = ls_lane_of((lslane_circuit)c);
        CHECK_MSG(l.cost_id >= 0 && l.pj_per_mac > 0 && l.macs == lslane_table[c].macs, "%s: row %d, %g pJ", lslane_table[c].unit,
                  l.cost_id, l.pj_per_mac);
    }
    static ls_config cfg;
    ls_config_defaults(&cfg);
    ls_lanes L, P;
    ls_lanes_of(&cfg, &P);   /* the preset's */
    L = P;
    CHECK(P.lp.circuit == LSLANE_LP_SEQ_FP32Q && P.hp.circuit == LSLANE_HP_STEP && P.qk16.circuit == LSLANE_HP_STEP &&
          !P.pv_on_lanes);
    /* the P.V paths follow the rates: at pv_lp_rate 0.5 the LP P.V fits the 16-bit lanes' paths */
    CHECK(P.pv_paths_hp == cfg.accelerator.tensor.macs_per_cycle_16bit &&
          P.pv_paths_lp == cfg.accelerator.tensor.macs_per_cycle_8bit - cfg.accelerator.tensor.macs_per_cycle_16bit);
    cfg.accelerator.tensor.pv_lp_rate = 0.5;
    ls_lanes_of(&cfg, &L);
    CHECK(L.pv_paths_lp == 0 && L.pv_paths_hp == P.pv_paths_hp);
    cfg.accelerator.tensor.pv_lp_rate = 1.0;
    cfg.algorithm.mode = LS_ENGINE_MODE_FA2_16BIT;   /* no LP P.V in a FlashAttention mode */
    ls_lanes_of(&cfg, &L);
    CHECK(L.pv_paths_lp == 0 && L.pv_paths_hp == P.pv_paths_hp);
    cfg.algorithm.mode = LS_ENGINE_MODE_LAMP;
    cfg.algorithm.scale_point = LSLAMP_SCALE_POST;
    ls_lanes_of(&cfg, &L);
    CHECK(L.lp.circuit == LSLANE_LP_SEQ_BF16Q);
    cfg.algorithm.lp_datapath = LSLAMP_LP_FUSED;
    ls_lanes_of(&cfg, &L);
    CHECK(L.lp.circuit == LSLANE_LP_FUSED4 && L.lp.macs == 4);
    /* FP8: e4m3 operands in a FlashAttention mode run everything on the e4m3 dot product */
    ls_config_defaults(&cfg);
    cfg.algorithm.mode = LS_ENGINE_MODE_FA2_16BIT;
    cfg.algorithm.operand_format = LS_ENGINE_OPFMT_E4M3;
    ls_lanes_of(&cfg, &L);
    CHECK(L.lp.circuit == LSLANE_TC_E4M3_K4 && L.qk16.circuit == LSLANE_TC_E4M3_K4 && L.pv.circuit == LSLANE_TC_E4M3_K4 &&
          L.pv_on_lanes && L.hp.circuit == LSLANE_HP_STEP);
    const ls_config_accelerator *ac = &cfg.accelerator;
    ls_area a, a0;
    ls_area_of(ac, LSREGFILE_FP32, 4, &L, &a);
    ls_area_of(ac, LSREGFILE_FP32, 4, &P, &a0);
    double cores = ac->cores;
    CHECK_MSG(NEAR(a.c[LS_AREA_TENSOR].mm2, cores * (row_mm2(LS_COST_LAMP_TC_DOT_E4M3_K4, ac->tensor.macs_per_cycle_8bit / 4.0) +
                                                     row_mm2(LS_COST_LAMP_ACC_STEP_HP, ac->tensor.macs_per_cycle_16bit))),
              "FP8 lanes: %g mm2", a.c[LS_AREA_TENSOR].mm2);
    CHECK(a.c[LS_AREA_TENSOR].mm2 < a0.c[LS_AREA_TENSOR].mm2);   /* the e4m3 dot product is cheaper per MAC */
    ls_timed_action_pj pj, pj0;
    ls_timed_per_action(&ac->energy, &L, &pj);
    ls_timed_per_action(&ac->energy, &P, &pj0);
    CHECK_MSG(NEAR(pj.qk_lp_mac, L.lp.pj_per_mac) && NEAR(pj.hp_fma, L.lp.pj_per_mac) && NEAR(pj.pv_hp_mac, L.lp.pj_per_mac),
              "FP8 pJ: %g %g %g vs %g", pj.qk_lp_mac, pj.hp_fma, pj.pv_hp_mac, L.lp.pj_per_mac);
    CHECK(NEAR(pj0.qk_lp_mac, ac->energy.lp_step) && NEAR(pj0.hp_fma, ac->energy.hp_step) && pj0.pv_hp_mac != pj0.hp_fma);
    /* a key moves every circuit of its class alike: lp_step x 2 doubles the FP8 lane's energy */
    ls_config_energy e2 = ac->energy;
    e2.lp_step *= 2;
    ls_timed_per_action(&e2, &L, &pj0);
    CHECK(NEAR(pj0.qk_lp_mac, 2 * pj.qk_lp_mac) && NEAR(pj0.pv_lp_mac, 2 * pj.pv_lp_mac));
    /* tc_bf16: the 16-bit lanes as a tensor core's bf16 dot product, the P.V on it */
    ls_config_defaults(&cfg);
    cfg.accelerator.tensor.lane_16bit = LSLANE16_TC_BF16;
    ls_lanes_of(&cfg, &L);
    CHECK(L.hp.circuit == LSLANE_TC_BF16_K4 && L.qk16.circuit == LSLANE_TC_BF16_K4 && L.pv_on_lanes &&
          L.pv_paths_lp == 0 && L.pv_paths_hp == 0);   /* the P.V on the fp32-accumulating lanes: no paths */
    ls_area_of(&cfg.accelerator, LSREGFILE_FP32, 4, &L, &a);
    CHECK(NEAR(a.c[LS_AREA_TENSOR].mm2, cores * (row_mm2(LS_COST_LAMP_ACC_STEP_LP, ac->tensor.macs_per_cycle_8bit) +
                                                 row_mm2(LS_COST_LAMP_TC_DOT_BF16_K4, ac->tensor.macs_per_cycle_16bit / 4.0))));
    ls_timed_per_action(&cfg.accelerator.energy, &L, &pj);
    CHECK(NEAR(pj.hp_fma, L.hp.pj_per_mac) && L.hp.pj_per_mac < P.hp.pj_per_mac);
}

static int run(const char *const *ov, int nov, ls_timed_result *tr)
{
    ls_engine_result r;
    if (tt_run(ov, nov, 0, &r, tr) != 0) return -1;
    ls_engine_result_free(&r);
    return 0;
}

static void runs(void)
{
    ls_timed_result a, a0, b, f, p, f0, p0;
    const char *base[] = { "timed.timing_only=false" };
    /* the pack lane's measured energy (7 nm, unscaled) off where the 45 nm table's scaling is checked */
    const char *base0[] = { "accelerator.energy.pack_write=0" };
    const char *scale1[] = { "accelerator.energy.node_scale=1", "accelerator.energy.pack_write=0" };
    /* the same work in full and fp32 (no slow path in either): fp32 moves each logit in its own access */
    const char *full[] = { "accelerator.regfile.layout=full", "accelerator.regfile.q_placement=buffer" };
    const char *fp32[] = { "accelerator.regfile.layout=fp32", "accelerator.regfile.q_placement=buffer" };
    const char *full0[] = { "accelerator.regfile.layout=full", "accelerator.regfile.q_placement=buffer",
                            "accelerator.energy.pack_write=0" };
    const char *fp320[] = { "accelerator.regfile.layout=fp32", "accelerator.regfile.q_placement=buffer",
                            "accelerator.energy.pack_write=0" };
    if (run(base, N(base), &a) || run(base0, N(base0), &a0) || run(scale1, N(scale1), &b) || run(full, N(full), &f) ||
        run(fp32, N(fp32), &p) || run(full0, N(full0), &f0) || run(fp320, N(fp320), &p0)) {
        CHECK_MSG(0, "a run failed");
        return;
    }
    CHECK_MSG(a.cycles == 16316, "the default run's cycles moved: %llu", (unsigned long long)a.cycles);
    CHECK(NEAR(a.power.average_w, a.power.dynamic_w + a.power.leakage_w));
    CHECK(NEAR(a.power.dynamic_w, a.energy_uj.total / a.time_us) && NEAR(a.power.leakage_w, a.area.leakage_w));
    CHECK(NEAR(a.energy_leakage_uj, a.area.leakage_w * a.time_us));
    CHECK(NEAR(a.energy_layer_uj, a.energy_uj.total + a.energy_leakage_uj));
    CHECK(NEAR(a.energy_per_token_uj, a.energy_layer_uj / 512.0));   /* the default workload: batch 1 x seq_q 512 */
    CHECK(NEAR(a.tflops_per_mm2, a.tflops_effective / a.area.total_mm2) && NEAR(a.tflops_per_w, a.tflops_effective / a.power.average_w));
    /* node_scale 0.2 -> 1: the 45 nm table's on-chip energies x 5, DRAM unchanged, cycles unchanged (the
     * measured 7 nm tensor, LUT, SFU and vector energies do not scale: test_timed_energy.c) */
    CHECK(b.cycles == a.cycles && NEAR(b.energy_uj.sfu, a.energy_uj.sfu) && NEAR(b.energy_uj.vector, a.energy_uj.vector) &&
          NEAR(b.energy_uj.regfile, 5.0 * a0.energy_uj.regfile) && NEAR(b.energy_uj.l2, 5.0 * a.energy_uj.l2) &&
          NEAR(b.energy_uj.dram, a.energy_uj.dram));
    /* layouts: register accesses (fp32 moves each logit in its own), the pack lane's writes (none in fp32), pack area */
    CHECK_MSG(p0.energy_uj.regfile > f0.energy_uj.regfile, "fp32 %g vs full %g uJ", p0.energy_uj.regfile, f0.energy_uj.regfile);
    CHECK(NEAR(p.energy_uj.regfile, p0.energy_uj.regfile) && f.energy_uj.regfile > f0.energy_uj.regfile &&
          a.energy_uj.regfile > a0.energy_uj.regfile);
    CHECK(a.area.c[LS_AREA_REGFILE_PACK].mm2 > f.area.c[LS_AREA_REGFILE_PACK].mm2 && p.area.c[LS_AREA_REGFILE_PACK].mm2 == 0.0);
    printf("compact: %.2f W (dynamic %.2f, leakage %.2f), %.4f uJ/token, %.4f TFLOP/s/mm2, %.3f TFLOP/s/W, regfile %.4f uJ\n",
           a.power.average_w, a.power.dynamic_w, a.power.leakage_w, a.energy_per_token_uj, a.tflops_per_mm2, a.tflops_per_w,
           a.energy_uj.regfile);
    printf("full:    %.2f W, regfile %.4f uJ; fp32: %.2f W, regfile %.4f uJ\n", f.power.average_w, f.energy_uj.regfile,
           p.power.average_w, p.energy_uj.regfile);
}

int main(void)
{
    table();
    lanes();
    runs();
    CHECK_DONE();
}
