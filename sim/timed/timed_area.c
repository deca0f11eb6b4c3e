/* sim/timed/timed_area.c — the area table and leakage (see timed_area.h). */
#include "timed_area.h"

#include <math.h>
#include <string.h>

#include "lsreglayout.h"
#include "timed_cost.h"
#include "timed_lanes.h"

/* N_k = 4 or 8 as synthesized; other N_k linearly from the nearer of the two (the threat, adder-chain and
 * sort parts all grow about linearly in N_k over this range). */
static double by_nk(int n_k, double at4, double at8)
{
    if (n_k <= 4) return at4 * (n_k > 0 ? n_k : 1) / 4.0;
    if (n_k >= 8) return at8 * n_k / 8.0;
    return at4 + (at8 - at4) * (n_k - 4) / 4.0;
}

/* Synthesized cost per core (per chip for L2): um2 and nW, as weights x rows of the ASAP7 table. */
typedef struct { double um2, nw; } cost;
static void add(cost *c, double w, int id)
{
    c->um2 += w * ls_cost(id)->area_um2;
    c->nw += w * ls_cost(id)->leakage_nw;
}
static double sram_um2_per_bit(int id) { return ls_cost(id)->area_um2 / ls_cost(id)->bits; }

/* The buffer port of `bytes` per clock: the synthesized widths (64 to 512 B/clock), linear between them, a
 * narrower port at the 64 B/clock port's cost per byte, a wider one growing as B log2(B / 8) from the widest
 * (its two rotators have log2 of the 64-bit word columns levels). */
static cost port_cost(double bytes)
{
    static const struct { double bytes; int id; } w[] = {
        { 64, LS_COST_LAMP_BUF_PORT_B64 }, { 128, LS_COST_LAMP_BUF_PORT_B128 },
        { 256, LS_COST_LAMP_BUF_PORT_B256 }, { 512, LS_COST_LAMP_BUF_PORT_B512 } };
    const int n = (int)(sizeof w / sizeof w[0]);
    cost c = { 0, 0 };
    if (bytes <= 0) return c;
    if (bytes <= w[0].bytes) {
        add(&c, bytes / w[0].bytes, w[0].id);
    } else if (bytes >= w[n - 1].bytes) {
        add(&c, bytes * log2(bytes / 8.0) / (w[n - 1].bytes * log2(w[n - 1].bytes / 8.0)), w[n - 1].id);
    } else {
        for (int i = 0; i + 1 < n; i++)
            if (bytes <= w[i + 1].bytes) {
                double f = (bytes - w[i].bytes) / (w[i + 1].bytes - w[i].bytes);
                add(&c, 1.0 - f, w[i].id);
                add(&c, f, w[i + 1].id);
                break;
            }
    }
    return c;
}

static void put(ls_area *a, int k, int id, int sram, double instances, const char *unit,
                double published_um2_per_instance, ls_area_source src, cost syn)
{
    ls_area_component *c = &a->c[k];
    c->name = lsunit_name(id);   /* units.def: its name and whether one per core or per chip */
    c->per_core = lsunit_info_of(id)->core;
    c->sram = sram;
    c->instances = instances;
    c->instance_unit = unit;
    c->published_mm2 = instances * published_um2_per_instance * 1e-6;   /* per core (or per chip) for now */
    c->source = src;
    c->mm2 = src == LS_AREA_SRC_PUBLISHED ? c->published_mm2 : syn.um2 * 1e-6;
    c->leakage_w = syn.nw * 1e-9;   /* cells only; the others below from their rates */
}

const char *ls_area_source_name(ls_area_source s)
{
    return s == LS_AREA_SRC_CELLS ? "asap7 cells" : s == LS_AREA_SRC_SRAM ? "asap7 sram" : "published";
}

void ls_area_of(const ls_config_accelerator *ac, int layout, int n_k, const ls_lanes *lanes, ls_area *a)
{
    memset(a, 0, sizeof *a);
    const ls_config_area *x = &ac->area;
    const cost none = { 0, 0 };
    double macs8 = ac->tensor.macs_per_cycle_8bit, macs16 = ac->tensor.macs_per_cycle_16bit, q = ac->warp_size;
    double per_reg = 32.0 / lsregfile_logit_bits(layout, false), pack = (per_reg - 1.0) / 3.0;
    double rf_bits = (double)ac->regfile.registers * 32.0, buf_bits = ac->memory.buffer_kib * 1024.0 * 8.0;

    /* the two datapaths side by side, each lane the circuit the run computes (timed_lanes.h): by default the
     * LP step (bf16 x fp32 -> e4m3) and the HP step (-> e4m11); a k-term unit prices k lanes */
    cost t = none;
    add(&t, macs8 / lanes->lp.macs, lanes->lp.cost_id);
    add(&t, macs16 / lanes->hp.macs, lanes->hp.cost_id);
    add(&t, lanes->pv_paths_hp, ls_lane_of(LSLANE_PV_HP).cost_id);   /* LampAttention's fp32 P.V paths (timed_lanes.h) */
    add(&t, lanes->pv_paths_lp, ls_lane_of(LSLANE_PV_LP).cost_id);
    put(a, LS_AREA_TENSOR, LSUNIT_TENSOR, 0, macs8 + macs16, "mac_lanes",
        macs8 + macs16 > 0 ? (macs8 * x->mac_8bit_um2 + macs16 * x->mac_16bit_um2) / (macs8 + macs16) : 0.0,
        LS_AREA_SRC_CELLS, t);
    cost l = none;
    add(&l, ac->lut.lanes, LS_COST_LAMP_LUT_EXP_LP);   /* shift, rounding and the table, per lane */
    put(a, LS_AREA_LUT, LSUNIT_LUT, 0, (double)ac->lut.lanes * ac->lut.entries * x->lut_output_bits, "bits", x->lut_bit_um2,
        LS_AREA_SRC_CELLS, l);
    cost f = none;
    add(&f, ac->sfu.lanes, LS_COST_LAMP_SFU_EXP);   /* exp2 lane: range shift, 64-entry table, cubic, rounding */
    put(a, LS_AREA_SFU, LSUNIT_SFU, 0, ac->sfu.lanes, "lanes", x->sfu_lane_um2, LS_AREA_SRC_CELLS, f);
    cost v = none;
    add(&v, ac->vector.lanes, LS_COST_LAMP_VEC_LANE);   /* fp32 add, multiply and maximum, one rounder */
    put(a, LS_AREA_VECTOR, LSUNIT_VECTOR, 0, ac->vector.lanes, "lanes", x->vector_lane_um2, LS_AREA_SRC_CELLS, v);
    /* one margin test per cycle; the sort of b_q queries as b_q / 4 copies of the 4-query unit (the
     * 32-query sort is not synthesized); one subset lane per query */
    cost s = none;
    add(&s, 1.0, LS_COST_LAMP_STAGE1_TEST_LP);
    add(&s, q / 4.0 * by_nk(n_k, 1.0, 0.0), LS_COST_LAMP_SCHED_SORT_NK4_Q4);
    add(&s, q / 4.0 * by_nk(n_k, 0.0, 1.0), LS_COST_LAMP_SCHED_SORT_NK8_Q4);
    add(&s, q * by_nk(n_k, 1.0, 0.0), LS_COST_LAMP_STAGE2_SELECT_NK4_Q1);
    add(&s, q * by_nk(n_k, 0.0, 1.0), LS_COST_LAMP_STAGE2_SELECT_NK8_Q1);
    put(a, LS_AREA_SCHEDULER, LSUNIT_SCHEDULER, 0, 1, "units", x->scheduler_um2, LS_AREA_SRC_CELLS, s);
    /* 1RW banks behind operand collectors: the ports come from banking, not from the bit cell */
    double port = x->regfile_ports / 2.0;
    cost rf = { rf_bits * sram_um2_per_bit(LS_COST_SRAMBANK_64X4X32_6T122), 0 };
    put(a, LS_AREA_REGFILE, LSUNIT_REGFILE, 1, rf_bits, "bits", x->regfile_bit_um2 * port * port, LS_AREA_SRC_SRAM, rf);
    /* pack / unpack per 32-bit lane: byte lanes for 8-bit logits (3 extra positions), halves for 16-bit
     * (1 of 3), none for fp32 */
    cost p = none;
    add(&p, q * ac->regfile.subpartitions * pack, LS_COST_LAMP_YPACK_LANE);
    put(a, LS_AREA_REGFILE_PACK, LSUNIT_REGFILE_PACK, 0, q * ac->regfile.subpartitions, "lanes", x->pack_lane_um2 * pack,
        LS_AREA_SRC_CELLS, p);
    cost b = { buf_bits * sram_um2_per_bit(LS_COST_SRAMBANK_256X4X64_6T122), 0 };
    put(a, LS_AREA_BUFFER, LSUNIT_BUFFER, 1, buf_bits, "bits", x->sram_bit_um2, LS_AREA_SRC_SRAM, b);
    double port_bytes = ac->memory.buffer_bytes_per_cycle;
    put(a, LS_AREA_BUFFER_PORT, LSUNIT_BUFFER_PORT, 0, port_bytes, "bytes_per_cycle", x->buffer_port_um2_per_byte,
        LS_AREA_SRC_CELLS, port_cost(port_bytes));
    put(a, LS_AREA_L2, LSUNIT_L2, 1, ac->memory.l2_mib * 1048576.0 * 8.0, "bits", x->l2_bit_um2, LS_AREA_SRC_PUBLISHED, none);
    for (int k = 0; k < LS_AREA_N; k++) {
        ls_area_component *c = &a->c[k];
        double cores = c->per_core ? ac->cores : 1;
        if (c->per_core) a->core_mm2 += c->mm2;
        c->mm2 *= cores;
        c->published_mm2 *= cores;
        c->leakage_w *= cores;
        double rate = (c->sram ? x->leak_sram_mw_per_mm2 : x->leak_logic_mw_per_mm2) * 1e-3;
        if (c->source != LS_AREA_SRC_CELLS) c->leakage_w = c->mm2 * rate;
        c->published_leakage_w = c->published_mm2 * rate;
        a->total_mm2 += c->mm2;
        a->leakage_w += c->leakage_w;
        a->published_total_mm2 += c->published_mm2;
        a->published_leakage_w += c->published_leakage_w;
    }
}
