/* Area and power per unit (timed_area.h, timed_energy.h), each against its closed form:
 *  1. the area table: every component = instances x area per instance, per core x cores, L2 once;
 *     components sum to the total; leakage = area x the rate of its kind;
 *  2. the layouts cost what they cost: the pack network compact 3x full, fp32 none; the logits'
 *     register accesses halve from fp32 to full and again to compact;
 *  3. register-file ports: the bit grows as (ports / 2)^2;
 *  4. the synthesized areas (rtl/): NAND2 equivalents x area.nand2_um2 per core x cores, the pack lanes by
 *     layout as the published ones, the scheduler growing with N_k, the total with them substituted;
 *  5. a run: power = dynamic + leakage, leakage energy = leakage x time, per token, TFLOP/s per mm2
 *     and per W; node_scale scales every on-chip energy and leaves DRAM alone; cycles do not move. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "lsreglayout.h"
#include "timed_energy.h"
#include "timed_testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12)

static void table(void)
{
    static ls_config cfg;
    ls_config_defaults(&cfg);
    const ls_config_accelerator *ac = &cfg.accelerator;
    const ls_config_area *x = &ac->area;
    ls_area a;
    ls_area_of(ac, LSREGFILE_COMPACT, &a);
    double tensor = ac->cores * (ac->tensor.macs_per_cycle_8bit * x->mac_8bit_um2 +
                                 ac->tensor.macs_per_cycle_16bit * x->mac_16bit_um2) * 1e-6;
    CHECK_MSG(NEAR(a.c[LS_AREA_TENSOR].mm2, tensor), "tensor %g vs %g", a.c[LS_AREA_TENSOR].mm2, tensor);
    double lut = ac->cores * (double)ac->lut.lanes * ac->lut.entries * x->lut_output_bits * x->lut_bit_um2 * 1e-6;
    CHECK(NEAR(a.c[LS_AREA_LUT].mm2, lut));
    CHECK(NEAR(a.c[LS_AREA_REGFILE].mm2, ac->cores * ac->regfile.registers * 32.0 * x->regfile_bit_um2 * 1e-6));
    CHECK(NEAR(a.c[LS_AREA_BUFFER].mm2, ac->cores * ac->memory.buffer_kib * 8192.0 * x->sram_bit_um2 * 1e-6));
    CHECK(NEAR(a.c[LS_AREA_L2].mm2, ac->memory.l2_mib * 8388608.0 * x->l2_bit_um2 * 1e-6));   /* once per chip */
    double sum = 0, leak = 0;
    for (int k = 0; k < LS_AREA_N; k++) {
        sum += a.c[k].mm2;
        leak += a.c[k].mm2 * (a.c[k].sram ? x->leak_sram_mw_per_mm2 : x->leak_logic_mw_per_mm2) * 1e-3;
        CHECK_MSG(a.c[k].mm2 > 0, "%s has no area", a.c[k].name);
    }
    CHECK(NEAR(sum, a.total_mm2) && NEAR(a.total_mm2, ac->cores * a.core_mm2 + a.c[LS_AREA_L2].mm2));
    CHECK(NEAR(leak, a.leakage_w) && a.c[LS_AREA_REGFILE].sram && !a.c[LS_AREA_TENSOR].sram);

    /* layouts: the pack network */
    ls_area full, fp32;
    ls_area_of(ac, LSREGFILE_FULL, &full);
    ls_area_of(ac, LSREGFILE_FP32, &fp32);
    CHECK(NEAR(a.c[LS_AREA_PACK].mm2, 3.0 * full.c[LS_AREA_PACK].mm2) && fp32.c[LS_AREA_PACK].mm2 == 0.0);
    CHECK(a.total_mm2 > full.total_mm2 && full.total_mm2 > fp32.total_mm2);
    CHECK(NEAR(a.c[LS_AREA_REGFILE].mm2, fp32.c[LS_AREA_REGFILE].mm2));   /* the same capacity */
    CHECK(lsregfile_logit_bits(LSREGFILE_COMPACT, false) == 8 && lsregfile_logit_bits(LSREGFILE_COMPACT, true) == 16 &&
          lsregfile_logit_bits(LSREGFILE_FULL, false) == 16 && lsregfile_logit_bits(LSREGFILE_FP32, true) == 32);

    /* ports and cores */
    static ls_config c2;
    c2 = cfg;
    c2.accelerator.area.regfile_ports = 4;
    c2.accelerator.cores = 2 * ac->cores;
    ls_area b;
    ls_area_of(&c2.accelerator, LSREGFILE_COMPACT, &b);
    CHECK(NEAR(b.c[LS_AREA_REGFILE].mm2, 8.0 * a.c[LS_AREA_REGFILE].mm2));   /* 2x cores x (4/2)^2 */
    CHECK(NEAR(b.c[LS_AREA_TENSOR].mm2, 2.0 * a.c[LS_AREA_TENSOR].mm2) && NEAR(b.c[LS_AREA_L2].mm2, a.c[LS_AREA_L2].mm2));
    /* synthesized: the LUT lanes and the pack lanes by their gate counts; the scheduler with N_k */
    ls_area s4, s8, sf, sp;
    s4 = a, sf = full, sp = fp32;
    ls_area_synthesized(ac, LSREGFILE_COMPACT, 4, &s4);
    ls_area_synthesized(ac, LSREGFILE_FULL, 4, &sf);
    ls_area_synthesized(ac, LSREGFILE_FP32, 4, &sp);
    s8 = a;
    ls_area_synthesized(ac, LSREGFILE_COMPACT, 8, &s8);
    CHECK(NEAR(s4.c[LS_AREA_LUT].synth_mm2, ac->cores * ac->lut.lanes * 1607.0 * x->nand2_um2 * 1e-6));
    CHECK(NEAR(s4.c[LS_AREA_PACK].synth_mm2, ac->cores * ac->warp_size * ac->regfile.subpartitions * 416.0 * x->nand2_um2 * 1e-6));
    CHECK(NEAR(s4.c[LS_AREA_PACK].synth_mm2, 3.0 * sf.c[LS_AREA_PACK].synth_mm2) && sp.c[LS_AREA_PACK].synth_mm2 == 0.0);
    CHECK(NEAR(s4.c[LS_AREA_SCHEDULER].synth_mm2,
               ac->cores * (33960.0 + ac->warp_size / 4.0 * 16734.0 + ac->warp_size * 14485.0) * x->nand2_um2 * 1e-6));
    CHECK(s8.c[LS_AREA_SCHEDULER].synth_mm2 > 2.0 * s4.c[LS_AREA_SCHEDULER].synth_mm2);
    CHECK(s4.c[LS_AREA_SFU].synth_mm2 == 0.0 && s4.c[LS_AREA_REGFILE].synth_mm2 == 0.0);   /* not synthesized */
    double subst = a.total_mm2;
    for (int k = 0; k < LS_AREA_N; k++)
        if (s4.c[k].synth_mm2 > 0) subst += s4.c[k].synth_mm2 - a.c[k].mm2;
    CHECK(NEAR(s4.synth_total_mm2, subst) && s4.total_mm2 == a.total_mm2);
    printf("synthesized per core: tensor %.4f lut %.4f scheduler %.4f (N_k 8: %.4f) pack %.4f mm2; total with them %.2f mm2\n",
           s4.c[LS_AREA_TENSOR].synth_mm2 / ac->cores, s4.c[LS_AREA_LUT].synth_mm2 / ac->cores,
           s4.c[LS_AREA_SCHEDULER].synth_mm2 / ac->cores, s8.c[LS_AREA_SCHEDULER].synth_mm2 / ac->cores,
           s4.c[LS_AREA_PACK].synth_mm2 / ac->cores, s4.synth_total_mm2);
    printf("preset at 7 nm: %.2f mm2, %.4f mm2 per core, leakage %.2f W\n", a.total_mm2, a.core_mm2, a.leakage_w);
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
    ls_timed_result a, b, f, p;
    const char *base[] = { "timed.timing_only=false" };
    const char *scale1[] = { "accelerator.energy.node_scale=1" };
    /* the same work in full and fp32 (no slow path in either): fp32 moves each logit in its own access */
    const char *full[] = { "accelerator.regfile.layout=full", "accelerator.regfile.q_placement=buffer" };
    const char *fp32[] = { "accelerator.regfile.layout=fp32", "accelerator.regfile.q_placement=buffer" };
    if (run(base, N(base), &a) || run(scale1, N(scale1), &b) || run(full, N(full), &f) || run(fp32, N(fp32), &p)) {
        CHECK_MSG(0, "a run failed");
        return;
    }
    CHECK_MSG(a.cycles == 15746, "the default run's cycles moved: %llu", (unsigned long long)a.cycles);
    CHECK(NEAR(a.power.average_w, a.power.dynamic_w + a.power.leakage_w));
    CHECK(NEAR(a.power.dynamic_w, a.energy_uj.total / a.time_us) && NEAR(a.power.leakage_w, a.area.leakage_w));
    CHECK(NEAR(a.energy_leakage_uj, a.area.leakage_w * a.time_us));
    CHECK(NEAR(a.energy_layer_uj, a.energy_uj.total + a.energy_leakage_uj));
    CHECK(NEAR(a.energy_per_token_uj, a.energy_layer_uj / 512.0));   /* the default workload: batch 1 x seq_q 512 */
    CHECK(NEAR(a.tflops_per_mm2, a.tflops_effective / a.area.total_mm2) && NEAR(a.tflops_per_w, a.tflops_effective / a.power.average_w));
    /* node_scale 0.2 -> 1: the 45 nm table's on-chip energies x 5, DRAM unchanged, cycles unchanged (the
     * measured 7 nm tensor and LUT energies do not scale: test_timed_energy.c) */
    CHECK(b.cycles == a.cycles && NEAR(b.energy_uj.sfu, 5.0 * a.energy_uj.sfu) &&
          NEAR(b.energy_uj.regfile, 5.0 * a.energy_uj.regfile) && NEAR(b.energy_uj.l2, 5.0 * a.energy_uj.l2) &&
          NEAR(b.energy_uj.dram, a.energy_uj.dram));
    /* layouts: regfile energy, pack area */
    CHECK_MSG(p.energy_uj.regfile > f.energy_uj.regfile, "fp32 %g vs full %g uJ", p.energy_uj.regfile, f.energy_uj.regfile);
    CHECK(a.area.c[LS_AREA_PACK].mm2 > f.area.c[LS_AREA_PACK].mm2 && p.area.c[LS_AREA_PACK].mm2 == 0.0);
    printf("compact: %.2f W (dynamic %.2f, leakage %.2f), %.4f uJ/token, %.4f TFLOP/s/mm2, %.3f TFLOP/s/W, regfile %.4f uJ\n",
           a.power.average_w, a.power.dynamic_w, a.power.leakage_w, a.energy_per_token_uj, a.tflops_per_mm2, a.tflops_per_w,
           a.energy_uj.regfile);
    printf("full:    %.2f W, regfile %.4f uJ; fp32: %.2f W, regfile %.4f uJ\n", f.power.average_w, f.energy_uj.regfile,
           p.power.average_w, p.energy_uj.regfile);
}

int main(void)
{
    table();
    runs();
    CHECK_DONE();
}
