/* sim/timed/timed_price.c — a configuration's area and leakage before any run (see timed_price.h). */
#include "timed_price.h"

#include <stdio.h>

#include "lsucode.h"
#include "timed.h"
#include "timed_lanes.h"

int ls_timed_price_of(const ls_config *cfg, ls_area *a, int *layout, char *err, size_t errlen)
{
    const char *pname = ls_timed_program_for_mode(cfg->algorithm.mode);
    if (!pname) {
        snprintf(err, errlen, "algorithm.mode %s: the timed model (and so its cost) covers lamp, fa2_16bit and pure_8bit",
                 ls_engine_mode_name(cfg->algorithm.mode));
        return -1;
    }
    lsucode_program prog;
    int rc;
    if (cfg->timed.program[0]) {
        rc = lsucode_assemble_file(cfg->timed.program, &prog, err, errlen);
    } else {
        const char *file = NULL, *text = lsucode_shipped_text(pname, &file);
        rc = lsucode_assemble(text, file, &prog, err, errlen);
    }
    if (rc != 0) return -1;
    /* the layout the run's register plan and area use (timed_build.c, ls_timed_plan_inputs) */
    int lay = lsucode_layout(prog.ylayout, cfg->accelerator.regfile.layout);
    lsucode_program_free(&prog);
    ls_lanes lanes;
    ls_lanes_of(cfg, &lanes);
    ls_area_of(&cfg->accelerator, lay, cfg->algorithm.n_k, &lanes, a);
    if (layout) *layout = lay;
    return 0;
}
