/* Helpers for the timed-model tests: a configuration from the embedded default plus --set style
 * overrides, its engine parameters and its workload. */
#ifndef LAMPSIM_TESTS_TIMED_TESTUTIL_H
#define LAMPSIM_TESTS_TIMED_TESTUTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "run.h"
#include "timed.h"
#include "workload.h"

typedef struct {
    ls_config cfg;
    ls_engine_params ep;
    ls_attn_inputs in;
} tt_case;

/* Returns 0 or -1 (message printed). */
static int tt_setup(tt_case *c, const char *const *ov, int nov)
{
    memset(c, 0, sizeof *c);
    ls_config_diag d;
    if (ls_config_load(&c->cfg, NULL, ov, nov, &d) != 0) { fprintf(stderr, "config: %s\n", d.message); return -1; }
    ls_run_engine_params(&c->cfg, &c->ep);
    c->ep.threads = 1;
    ls_workload_info wi;
    char err[512];
    if (ls_workload_build(&c->cfg, NULL, &c->in, &wi, err, sizeof err) != 0) { fprintf(stderr, "workload: %s\n", err); return -1; }
    /* the decode regimes (workload.split_kv, pack_gqa) as `lampsim run` arranges the inputs */
    if (ls_workload_arrange(&c->cfg, &c->in, false, err, sizeof err) != 0) { fprintf(stderr, "arrange: %s\n", err); return -1; }
    return 0;
}

/* A unit's figures in a timed result, by report name (tensor, sfu, buffer, dram, l2, ...), or NULL. */
static inline const ls_timed_unit *tt_unit(const ls_timed_result *tr, const char *name)
{
    for (int i = 0; i < tr->nunits; i++)
        if (strcmp(tr->units[i].name, name) == 0) return &tr->units[i];
    return NULL;
}

/* A copy of a finished run's O (n elements), or NULL when out of memory. */
static inline float *tt_copy_o(const ls_engine_result *r, size_t *n)
{
    *n = (size_t)r->batch * r->heads_q * r->seq_q * r->dim;
    float *o = malloc(*n * sizeof(float));
    if (o) memcpy(o, r->o, *n * sizeof(float));
    return o;
}

static void tt_free(tt_case *c)
{
    ls_attn_inputs_release(&c->in);
    ls_config_free(&c->cfg);
}

/* Run the timed model on the embedded default plus overrides, fp64 reference off, timing only if
 * the configuration says so, directly (systemc 0) or through the SystemC top, with or without the
 * fast-forward. Returns 0 with r to release (ls_engine_result_free), or -1 (message printed, nothing
 * to release). */
static inline int tt_run_ff(const char *const *ov, int nov, int systemc, int fast_forward, ls_engine_result *r,
                            ls_timed_result *tr)
{
    tt_case c;
    if (tt_setup(&c, ov, nov) != 0) return -1;
    c.ep.compute_reference = false;
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.use_systemc = systemc;
    o.timing_only = c.cfg.timed.timing_only;
    o.fast_forward = fast_forward;
    char err[512];
    int rc = ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, r, tr, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "timed: %s\n", err);
        ls_engine_result_free(r);
    }
    tt_free(&c);
    return rc;
}

/* tt_run_ff without the fast-forward. */
static inline int tt_run(const char *const *ov, int nov, int systemc, ls_engine_result *r, ls_timed_result *tr)
{
    return tt_run_ff(ov, nov, systemc, 0, r, tr);
}
#endif
