/* sim/timed/timed_area.h — the area table of the accelerator and its leakage, at one process node
 * (7 nm; docs/reports.md, "Area and power"). With the energy table (timed_energy.h) it forms an
 * Accelergy-style cost model: components, each with its instances and its area per instance, an energy
 * per action for what it does, and a leakage for the time it is powered.
 *
 * One cost source: a component rtl/ implements is priced from its synthesis on ASAP7 (timed_cost.h:
 * cell area placed at the synthesis's utilisation, the cells' leakage); the register file and the
 * buffer from the ASAP7 SRAM banks (area; their leakage, which the library does not give, at
 * area.leak_sram_mw_per_mm2); the rest (vector, l2) from the published-figure table
 * (accelerator.area.*). The published figures of every component stay beside them as a cross-check. */
#ifndef LAMPSIM_SIM_TIMED_AREA_H
#define LAMPSIM_SIM_TIMED_AREA_H
#include "config.h"
#include "lsunit.h"
#include "timed_lanes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The components with an area row (units.def: area), in the table's order: LS_AREA_<unit ID>. */
enum {
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) LSUNIT_IF(area, LS_AREA_##ID,)
#include "units.def"
#undef LSUNIT
    LS_AREA_N };

/* Where a component's cost comes from. */
typedef enum { LS_AREA_SRC_CELLS, LS_AREA_SRC_SRAM, LS_AREA_SRC_PUBLISHED } ls_area_source;

typedef struct {
    const char *name;            /* report name: area.<name>_mm2 (a static string) */
    int per_core;                /* 1: one per core (x cores), 0: one per chip (L2) */
    int sram;                    /* an SRAM array (leaks at the SRAM rate where the library gives none) */
    ls_area_source source;
    double instances;            /* per core (or per chip): MAC lanes, bits, lanes, ... */
    const char *instance_unit;   /* what instances counts */
    double mm2;                  /* the whole chip's area of the component (the cost source) */
    double leakage_w;            /* the whole chip's leakage of the component (the cost source) */
    double published_mm2;        /* the published-figure area (accelerator.area.*): the cross-check */
    double published_leakage_w;  /* published_mm2 x the leakage rate of its kind */
} ls_area_component;

typedef struct {
    ls_area_component c[LS_AREA_N];
    double core_mm2;             /* one core's components */
    double total_mm2;            /* cores x core_mm2 + L2 */
    double leakage_w;            /* every component of the chip, powered all run */
    double published_total_mm2;  /* the same chip from the published figures alone */
    double published_leakage_w;
} ls_area;

/* The area and leakage of the accelerator ac running a program in `layout` (lsregfile_layout: the
 * register-file pack network it needs) with key tiles of n_k sub-blocks (the scheduler's size follows
 * it), its MAC lanes built as `lanes` (ls_lanes_of). Pure: the configuration's
 * numbers and the synthesized table only. */
void ls_area_of(const ls_config_accelerator *ac, int layout, int n_k, const ls_lanes *lanes, ls_area *a);
/* "asap7 cells", "asap7 sram" or "published" */
const char *ls_area_source_name(ls_area_source s);
#ifdef __cplusplus
}
#endif
#endif
