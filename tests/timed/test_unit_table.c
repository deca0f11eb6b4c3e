/* The component table (hw/unit/units.def) is the one list of the units (issue 35): every list the
 * report, the timeline, the area table, the microprogram and the configuration keep derives from it,
 * so a unit named in one place and not another fails here.
 *  1. names are unique and found back by name; every unit with a section has keys there;
 *  2. a timed run reports the core units then the chip's channels (and the issue ports between) in
 *     the table's order, with the table's work units;
 *  3. the area table has one row per area unit, named and per-core as in the table;
 *  4. every instruction's primary unit is the sequencer or a transaction target;
 *  5. the timeline has one core track per reported core unit, then requests and contexts, then the
 *     chip's channels. */
#include <string.h>

#include "check.h"
#include "lsucode.h"
#include "lsunit.h"
#include "timed_area.h"
#include "timed_testutil.h"
#include "timed_trace.h"

static void names(void)
{
    for (int u = 0; u < LSUNIT_N; u++) {
        const lsunit_info *i = lsunit_info_of(u);
        CHECK(i && i->name && *i->name);
        CHECK_MSG(lsunit_by_name(i->name) == u, "%s found as %d, not %d", i->name, lsunit_by_name(i->name), u);
        CHECK_MSG(!i->report || i->work, "%s is reported but its work has no name", i->name);
        if (i->section) {   /* accelerator.<section>.* has keys (the unit's declaration) */
            char prefix[64];
            snprintf(prefix, sizeof prefix, "accelerator.%s.", i->section);
            size_t n, keys = 0;
            const ls_config_schema_entry *s = ls_config_schema(&n);
            for (size_t k = 0; k < n; k++) keys += strncmp(s[k].path, prefix, strlen(prefix)) == 0;
            CHECK_MSG(keys > 0, "%s: no key under %s", i->name, prefix);
        }
    }
    CHECK(lsunit_by_name("memory") < 0 && lsunit_by_name("sched") < 0);   /* one name each: buffer, scheduler */
    CHECK(lsunit_info_of(LSUNIT_N) == NULL && strcmp(lsunit_name(-1), "?") == 0);
}

static void report_rows(void)
{
    const char *ov[] = { "accelerator.cores=2", "algorithm.mode=fa2_16bit", "timed.timing_only=true", "workload.seq_q=128",
                         "workload.seq_k=128", "accelerator.issue.per_cycle=4" };
    ls_engine_result r;
    ls_timed_result tr;
    CHECK(tt_run(ov, 6, 0, &r, &tr) == 0);
    int k = 0;
    for (int u = 0; u < LSUNIT_N; u++) {   /* the core units first */
        const lsunit_info *i = lsunit_info_of(u);
        if (!i->core || !i->report) continue;
        CHECK_MSG(k < tr.nunits && strcmp(tr.units[k].name, i->name) == 0, "report unit %d: %s, expected %s", k,
                  k < tr.nunits ? tr.units[k].name : "(none)", i->name);
        CHECK(k < tr.nunits && strcmp(tr.units[k].work_unit, i->work) == 0);
        k++;
    }
    CHECK(k < tr.nunits && strcmp(tr.units[k].name, "issue") == 0);   /* the issue ports: not a component */
    k++;
    for (int u = 0; u < LSUNIT_N; u++) {   /* then the chip's channels */
        const lsunit_info *i = lsunit_info_of(u);
        if (i->core || !i->report) continue;
        CHECK_MSG(k < tr.nunits && strcmp(tr.units[k].name, i->name) == 0 && tr.units[k].chip_wide, "chip unit %s", i->name);
        k++;
    }
    CHECK_MSG(k == tr.nunits, "%d report units, the table gives %d", tr.nunits, k);
    ls_engine_result_free(&r);
}

static void area_rows(void)
{
    ls_config cfg;
    ls_config_defaults(&cfg);
    ls_area a;
    ls_lanes lanes;
    ls_lanes_of(&cfg, &lanes);
    ls_area_of(&cfg.accelerator, cfg.accelerator.regfile.layout, cfg.algorithm.n_k, &lanes, &a);
    int k = 0;
    for (int u = 0; u < LSUNIT_N; u++) {
        const lsunit_info *i = lsunit_info_of(u);
        if (!i->area) continue;
        CHECK_MSG(k < LS_AREA_N && a.c[k].name && strcmp(a.c[k].name, i->name) == 0, "area row %d: %s, expected %s", k,
                  k < LS_AREA_N && a.c[k].name ? a.c[k].name : "(none)", i->name);
        CHECK(k < LS_AREA_N && a.c[k].per_core == (int)i->core && a.c[k].mm2 > 0);
        k++;
    }
    CHECK(k == LS_AREA_N);
    ls_config_free(&cfg);
}

static void microprogram(void)
{
    for (int op = 0; op < LSUCODE_NOPS; op++) {
        int u = lsucode_op_info(op)->unit;
        CHECK_MSG(u == LSUNIT_SEQUENCER || (lsunit_info_of(u) && lsunit_info_of(u)->target), "%s runs on %s",
                  lsucode_op_info(op)->mnemonic, lsunit_name(u));
    }
}

static void tracks(void)
{
    int core = 0, chip = 0;
    for (int u = 0; u < LSUNIT_N; u++) {
        const lsunit_info *i = lsunit_info_of(u);
        if (i->report && i->core) core++;
        if (i->report && !i->core) chip++;
    }
    CHECK(LS_TRACE_REQUESTS == core && LS_TRACE_CONTEXTS == core + 1 && LS_TRACE_NCORE_TRACKS == core + 2);
    CHECK(LS_TRACE_NTRACKS == LS_TRACE_NCORE_TRACKS + chip);
    CHECK(LS_TRACE_BUFFER < LS_TRACE_REQUESTS && LS_TRACE_DRAM >= LS_TRACE_NCORE_TRACKS && LS_TRACE_L2 >= LS_TRACE_NCORE_TRACKS);
}

int main(void)
{
    names();
    report_rows();
    area_rows();
    microprogram();
    tracks();
    CHECK_DONE();
}
