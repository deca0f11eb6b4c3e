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
