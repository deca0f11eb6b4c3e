/* The measured energies per action (hw/cost/asap7_energy.csv, scripts/rtl_energy.py) in the energy model:
 *  1. the table generated at build time equals the committed CSV, row for row;
 *  2. the schema's defaults of accelerator.energy.lp_step, hp_step, pv_lp_step, pv_hp_step, lut_exp and
 *     sfu_lane are the CSV's units;
 *  3. the energy model prices the LP and HP dot-product steps, the P.V steps, the LUT lookups and the SFU
 *     exponentials at them, unscaled by node_scale, and falls back to the 45 nm table x node_scale when a
 *     measured key is 0.
 * Argument: the source root (for the CSV). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ls_asap7_energy.h"
#include "timed_cost.h"
#include "timed_energy.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-12 * (fabs(a) + fabs(b)) + 1e-15)

static const ls_asap7_energy_row rows[] = LS_ASAP7_ENERGY_ROWS;

static double csv_pj(const char *root, const char *unit, int *found_rows)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/hw/cost/asap7_energy.csv", root);
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    if (!f)
        return NAN;
    double out = NAN;
    int n = 0, header = 1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (header) {
            header = 0;
            continue;
        }
        char *field[8] = {0};   /* the first 7 comma-separated fields */
        int nf = 0;
        for (char *c = line; nf < 7 && c; nf++) {
            field[nf] = c;
            c = strchr(c, ',');
            if (c)
                *c++ = '\0';
        }
        char *name = field[0], *action = field[1], *pj = field[2], *logic = field[3], *reg = field[6];
        if (!name || !action || !pj || !logic || !reg) {
            CHECK_MSG(0, "%s: short row", path);
            continue;
        }
        /* 1. the generated row of this unit, in the same place, with the same numbers */
        CHECK_MSG(n < LS_ASAP7_ENERGY_N, "%s has more rows than the generated table (%d)", path, LS_ASAP7_ENERGY_N);
        if (n < LS_ASAP7_ENERGY_N) {
            const ls_asap7_energy_row *r = &rows[n];
            CHECK_MSG(!strcmp(r->unit, name) && !strcmp(r->action, action), "row %d: generated %s, CSV %s", n, r->unit, name);
            CHECK_MSG(r->pj_per_action == strtod(pj, NULL) && r->logic_pj == strtod(logic, NULL) &&
                      r->register_pj == strtod(reg, NULL), "%s: generated %g pJ, CSV %s", name, r->pj_per_action, pj);
            CHECK(NEAR(r->pj_per_action, r->logic_pj + r->register_pj) || fabs(r->pj_per_action - r->logic_pj - r->register_pj) < 2e-5);
            CHECK_MSG(r->pj_per_action > 0, "%s: no energy", name);
        }
        if (!strcmp(name, unit))
            out = strtod(pj, NULL);
        n++;
    }
    fclose(f);
    *found_rows = n;
    return out;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s SOURCE_ROOT\n", argv[0]);
        return 2;
    }
    int n = 0;
    double lp = csv_pj(argv[1], "lamp_acc_step_lp", &n), hp = csv_pj(argv[1], "lamp_acc_step_hp", &n),
           lut = csv_pj(argv[1], "lamp_lut_exp_lp", &n), sfu = csv_pj(argv[1], "lamp_sfu_exp", &n),
           pvl = csv_pj(argv[1], "lamp_pv_step_lp", &n), pvh = csv_pj(argv[1], "lamp_pv_step_hp", &n),
           pack = csv_pj(argv[1], "lamp_ypack_lane", &n), vec = csv_pj(argv[1], "lamp_vec_lane", &n),
           sort = csv_pj(argv[1], "lamp_sched_sort_nk4_q4", &n), margin = csv_pj(argv[1], "lamp_stage1_test_lp", &n),
           port = csv_pj(argv[1], "lamp_buf_port_b128", &n), subset = csv_pj(argv[1], "lamp_stage2_lane_nk4", &n);
    CHECK_MSG(n == LS_ASAP7_ENERGY_N, "CSV %d rows, generated table %d (a stale build?)", n, LS_ASAP7_ENERGY_N);

    /* 2. schema defaults */
    static ls_config cfg;
    ls_config_defaults(&cfg);
    ls_config_energy e = cfg.accelerator.energy;
    ls_lanes lanes;   /* the preset's: the LP and HP steps */
    ls_lanes_of(&cfg, &lanes);
    CHECK_MSG(e.lp_step == lp && e.hp_step == hp && e.lut_exp == lut && e.sfu_lane == sfu, "defaults %g %g %g %g, CSV %g %g %g %g",
              e.lp_step, e.hp_step, e.lut_exp, e.sfu_lane, lp, hp, lut, sfu);
    CHECK_MSG(pvl > 0 && pvh > 0 && e.pv_lp_step == pvl && e.pv_hp_step == pvh, "P.V defaults %g %g, CSV %g %g",
              e.pv_lp_step, e.pv_hp_step, pvl, pvh);
    CHECK_MSG(pack > 0 && e.pack_write == pack, "pack_write default %g, CSV %g", e.pack_write, pack);
    CHECK_MSG(vec > 0 && e.vector_op == vec, "vector_op default %g, CSV %g", e.vector_op, vec);
    CHECK_MSG(sort > 0 && margin > 0 && e.threat_sort == sort && e.margin_test == margin, "scheduler defaults %g %g, CSV %g %g",
              e.threat_sort, e.margin_test, sort, margin);
    CHECK_MSG(subset > 0 && e.subset_test == subset, "subset_test default %g, CSV %g", e.subset_test, subset);
    /* the buffer port is not priced apart: its measured energy per 64-bit word (a 128 B access moves 16) plus
     * the ASAP7 bank's read stays inside the range of the buffer's per-word estimate at 7 nm (docs/rtl.md) */
    {
        const ls_config_provenance *pv = ls_config_provenance_find("accelerator.energy.sram_read_64b");
        double word = port / 16.0 + ls_cost(LS_COST_SRAMBANK_256X4X64_6T122)->read_pj;
        CHECK_MSG(pv && port > 0 && word >= pv->low * e.node_scale && word <= pv->high * e.node_scale,
                  "port %g pJ per word + bank read: %g pJ, outside the estimate's %g..%g", port / 16.0, word,
                  pv ? pv->low * e.node_scale : 0, pv ? pv->high * e.node_scale : 0);
    }

    /* 3. the model: one action of each kind */
    ls_timed_actions a;
    memset(&a, 0, sizeof a);
    a.qk_lp_macs = 1000;
    a.hp_fmas = 100;
    a.pv_lp_macs = 300;
    a.pv_hp_macs = 30;
    a.lut_lookups = 50;
    a.sfu_ops = 20;
    a.vector_ops = 60;
    ls_timed_energy out;
    ls_timed_energy_of(&e, &lanes, &a, &out);
    double tensor = (1000 * lp + 100 * hp + 300 * pvl + 30 * pvh) * 1e-6;
    CHECK_MSG(NEAR(out.tensor, tensor), "tensor %.12g uJ, expected %.12g", out.tensor, tensor);
    CHECK_MSG(NEAR(out.lut, 50 * lut * 1e-6), "lut %.12g uJ", out.lut);
    CHECK_MSG(NEAR(out.sfu, 20 * sfu * 1e-6), "sfu %.12g uJ", out.sfu);
    CHECK_MSG(NEAR(out.vector, 60 * vec * 1e-6), "vector %.12g uJ", out.vector);
    /* the scheduler: a threat at a sixteenth of a 4 x 4 sort, a query's margin test at a 32nd of the unit's test,
     * a lane's subset test in the stage-2 walk at the lane's measurement, stage 2's cost terms (a subtract, a
     * multiply and an add on the vector lanes) at three vector operations */
    a.sched_threats = 160;
    a.sched_margin_tests = 64;
    a.sched_subset_tests = 96;
    a.sched_subset_terms = 500;
    ls_timed_energy_of(&e, &lanes, &a, &out);
    CHECK_MSG(NEAR(out.scheduler, (10 * sort + 2 * margin + 96 * subset + 500 * 3 * vec) * 1e-6), "scheduler %.12g uJ",
              out.scheduler);
    /* the register file: its accesses on the 45 nm table, each packed logit at the pack lane's measurement */
    a.regfile_accesses = 40;
    a.pack_writes = 7;
    ls_timed_energy_of(&e, &lanes, &a, &out);
    CHECK_MSG(NEAR(out.regfile, (40 * e.regfile_access * e.node_scale + 7 * pack) * 1e-6), "regfile %.12g uJ", out.regfile);

    ls_config_energy e2 = e;      /* node_scale moves only the 45 nm part */
    e2.node_scale = 2 * e.node_scale;
    ls_timed_energy o2;
    ls_timed_energy_of(&e2, &lanes, &a, &o2);
    CHECK(NEAR(o2.lut, out.lut) && NEAR(o2.sfu, out.sfu) && NEAR(o2.tensor, out.tensor) && NEAR(o2.vector, out.vector));
    CHECK(NEAR(o2.scheduler, out.scheduler));   /* every scheduler action is measured */

    ls_config_energy e0 = e;      /* 0: the 45 nm table, as before the measurement */
    e0.lp_step = e0.hp_step = e0.lut_exp = e0.sfu_lane = e0.pv_lp_step = e0.pv_hp_step = e0.vector_op = 0;
    e0.threat_sort = e0.margin_test = e0.subset_test = 0;
    ls_timed_action_pj pj;
    ls_timed_per_action(&e0, &lanes, &pj);
    CHECK(NEAR(pj.qk_lp_mac, (e.fp8_mul + e.fp8_add) * e.node_scale) && NEAR(pj.hp_fma, e.fma_16 * e.node_scale) &&
          NEAR(pj.lut_lookup, e.lut_lookup * e.node_scale) && NEAR(pj.sfu_exp, e.sfu_exp * e.node_scale) &&
          NEAR(pj.pv_lp_mac, (e.fp8_mul + e.fp_add_32) * e.node_scale) &&
          NEAR(pj.pv_hp_mac, (e.fp_mul_16 + e.fp_add_32) * e.node_scale) && NEAR(pj.vector_op, e.fp_add_32 * e.node_scale) &&
          NEAR(pj.sched_threat, e.fp_add_16 * e.node_scale) && NEAR(pj.sched_margin_test, e.fp_add_16 * e.node_scale) &&
          NEAR(pj.sched_subset_test, 4 * e.fp_add_32 * e.node_scale));
    printf("measured pJ (7 nm): LP step %g, HP step %g, LUT exp %g; 45 nm table x %g: %g, %g, %g\n", lp, hp, lut,
           e.node_scale, pj.qk_lp_mac, pj.hp_fma, pj.lut_lookup);
    CHECK_DONE();
}
