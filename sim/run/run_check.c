/* The checks of a run that depend on the configuration alone, done before any data is generated
 * (by `lampsim validate`, `lampsim run` and the sweep runner): the timed model's microprogram
 * assembles and stores its output, and one context's registers fit the register file. The timed
 * model repeats them when it runs; here they cost milliseconds instead of a data generation. */
#include <stdio.h>
#include <string.h>

#include "engine_parts.h"
#include "lsregfile.h"
#include "run.h"
#include "timed.h"
#include "lsucode.h"

int ls_run_check(const ls_config *cfg, char *err, size_t errlen)
{
    ls_engine_params ep;
    ls_run_engine_params(cfg, &ep);
    const char *pname = ls_timed_program_for_mode(ep.mode);
    if (!cfg->timed.enabled || !pname) return 0; /* the golden engine: nothing of the machine to check */
    const ls_config_accelerator *ac = &cfg->accelerator;
    lsucode_program prog;
    char e[768];
    int rc;
    if (cfg->timed.program[0]) {
        rc = lsucode_assemble_file(cfg->timed.program, &prog, e, sizeof e);
    } else {
        const char *file = NULL, *text = lsucode_shipped_text(pname, &file);
        rc = lsucode_assemble(text, file, &prog, e, sizeof e);
    }
    if (rc) {
        snprintf(err, errlen, "timed.program: %s", e);
        return 2;
    }
    bool stores = false;
    for (int i = 0; i < prog.n; i++) stores |= prog.code[i].op == LSUCODE_OP_STO;
    int ylayout = prog.ylayout;
    lsucode_program_free(&prog);
    if (!stores) {
        snprintf(err, errlen, "timed.program: %s never stores O (no STO instruction): it would simulate no work",
                 cfg->timed.program[0] ? cfg->timed.program : pname);
        return 2;
    }
    if (ac->lut.lanes < 1 && ep.mode != LS_ENGINE_MODE_FA2_16BIT) {
        snprintf(err, errlen, "accelerator.lut.lanes: 0, but mode %s needs the LUT (only fa2_16bit runs without it)",
                 ls_engine_mode_name(ep.mode));
        return 2;
    }
    /* a trace's head dimension is known only from its file: checked when it is loaded */
    if (cfg->workload.generator == LS_CONFIG_GEN_TRACE) return 0;
    const ls_config_workload *w = &cfg->workload;
    long long items = (long long)w->batch * w->heads_q * ((w->seq_q + ep.b_q * ep.n_q - 1) / (ep.b_q * ep.n_q));
    lsregfile_params rp;
    lsregfile_tile rt;
    ls_timed_plan_inputs(cfg, &ep, ylayout, w->dim, w->seq_k, items, &rp, &rt);
    lsregfile_alloc ra;
    if (lsregfile_plan(&rp, &rt, &ra, e, sizeof e)) {
        snprintf(err, errlen, "accelerator.regfile: %s", e);
        return 2;
    }
    return 0;
}
