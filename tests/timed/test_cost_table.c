/* The ASAP7 cost table (timed_cost.h), generated at build time from rtl/synth/asap7_units.csv:
 *  1. the compiled table equals the CSV, row for row and number for number;
 *  2. a wrong table is detected: a changed number, a missing row, a renamed unit, a CSV with an edited
 *     figure or an extra row;
 *  3. the rows are consistent with the method the CSV's header states: placed area = cell area /
 *     utilisation, depth = ceil(delay / the cycle's logic budget), SRAM rows carry bits and energies;
 *  4. the latency keys set from the synthesis default to its depths: lut.latency, scheduler.sort_latency and
 *     subset_latency (a preset typed by hand, or a CSV regenerated without rebuilding, fails here).
 * (The long test rtl_synth_drift reruns the synthesis and compares the CSV it writes with this one.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "timed_cost.h"

static int write_edited(const char *src, const char *dst, const char *unit, int extra_row)
{
    FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
    if (!in || !out) return -1;
    char line[2048];
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, unit, strlen(unit)) == 0 && line[strlen(unit)] == ',' && !extra_row) {
            char *c = line;
            for (int k = 0; k < 5 && c; k++) c = strchr(c + 1, ',');   /* the 6th field: area_um2 */
            if (c) c[1] = c[1] == '9' ? '1' : '9';                       /* one digit changed */
        }
        fputs(line, out);
    }
    if (extra_row) fprintf(out, "%s,logic,1,1,0,1.429,1,1,1,0,0,0,0,an extra unit\n", unit);
    fclose(in);
    fclose(out);
    return 0;
}

int main(void)
{
    char err[512];
    const char *csv = LS_COST_CSV_PATH;
    /* 1 */
    CHECK_MSG(ls_cost_check_csv(ls_cost_table, LS_COST_N, csv, err, sizeof err) == 0, "%s", err);
    /* 2: wrong tables */
    static ls_cost_unit t[LS_COST_N];
    memcpy(t, ls_cost_table, sizeof t);
    t[LS_COST_LAMP_ACC_STEP_LP].area_um2 *= 1.001;
    CHECK(ls_cost_check_csv(t, LS_COST_N, csv, err, sizeof err) != 0 && strstr(err, "lamp_acc_step_lp"));
    printf("a changed area: %s\n", err);
    memcpy(t, ls_cost_table, sizeof t);
    t[LS_COST_SRAMBANK_64X4X32_6T122].read_pj = 0.0;
    CHECK(ls_cost_check_csv(t, LS_COST_N, csv, err, sizeof err) != 0);
    CHECK(ls_cost_check_csv(ls_cost_table, LS_COST_N - 1, csv, err, sizeof err) != 0);
    memcpy(t, ls_cost_table, sizeof t);
    t[0].unit = "lamp_not_a_unit";
    CHECK(ls_cost_check_csv(t, LS_COST_N, csv, err, sizeof err) != 0);
    const char *tmp = "test_cost_table_edited.csv";
    CHECK(write_edited(csv, tmp, "lamp_lut_exp_lp", 0) == 0);
    CHECK(ls_cost_check_csv(ls_cost_table, LS_COST_N, tmp, err, sizeof err) != 0 && strstr(err, "lamp_lut_exp_lp"));
    printf("an edited CSV: %s\n", err);
    CHECK(write_edited(csv, tmp, "lamp_extra", 1) == 0);
    CHECK(ls_cost_check_csv(ls_cost_table, LS_COST_N, tmp, err, sizeof err) != 0);
    remove(tmp);
    CHECK(ls_cost_check_csv(ls_cost_table, LS_COST_N, "no_such_file.csv", err, sizeof err) != 0);
    /* 3: the stated method */
    for (int i = 0; i < LS_COST_N; i++) {
        const ls_cost_unit *u = &ls_cost_table[i];
        if (strcmp(u->kind, "logic") == 0) {
            CHECK_MSG(fabs(u->area_um2 - u->cell_area_um2 / LS_COST_UTILISATION) <= 0.002, "%s: placed %g, cells %g", u->unit,
                      u->area_um2, u->cell_area_um2);
            CHECK_MSG(u->depth_cycles == fmax(1.0, ceil(u->delay_ps / LS_COST_LOGIC_BUDGET_PS)), "%s: depth %g, delay %g", u->unit,
                      u->depth_cycles, u->delay_ps);
            CHECK_MSG(u->leakage_nw > 0 && u->cells > 0, "%s", u->unit);
        } else {
            CHECK_MSG(strcmp(u->kind, "sram") == 0 && u->bits > 0 && u->read_pj > 0 && u->area_um2 == u->cell_area_um2, "%s", u->unit);
        }
    }
    /* 4 */
    static ls_config cfg;
    ls_config_defaults(&cfg);
    const ls_config_accelerator *ac = &cfg.accelerator;
    CHECK_MSG(ac->lut.latency == ls_cost(LS_COST_LAMP_LUT_EXP_LP)->depth_cycles, "lut.latency %d", ac->lut.latency);
    CHECK_MSG(ac->scheduler.sort_latency == ls_cost(LS_COST_LAMP_SCHED_SORT_NK4_Q4)->depth_cycles, "sort_latency %d",
              ac->scheduler.sort_latency);
    CHECK_MSG(ac->scheduler.subset_latency == ls_cost(LS_COST_LAMP_STAGE2_SELECT_NK4_Q1)->depth_cycles, "subset_latency %d",
              ac->scheduler.subset_latency);
    CHECK(fabs(LS_COST_REGISTER_OVERHEAD_PS + LS_COST_LOGIC_BUDGET_PS - LS_COST_CLOCK_PS) < 0.2);
    printf("%d rows; clock %g ps, register overhead %g ps, utilisation %g\n", LS_COST_N, (double)LS_COST_CLOCK_PS,
           (double)LS_COST_REGISTER_OVERHEAD_PS, (double)LS_COST_UTILISATION);
    CHECK_DONE();
}
