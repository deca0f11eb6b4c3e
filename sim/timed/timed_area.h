/* sim/timed/timed_area.h — the area table of the accelerator and its leakage, at one process node
 * (7 nm; docs/reports.md, "Area and power"). With the energy table (timed_energy.h) it forms an
 * Accelergy-style cost model: components, each with its instances and its area per instance
 * (accelerator.area.*), an energy per action for what it does, and a leakage per square millimetre
 * for the time it is powered. */
#ifndef LAMPSIM_SIM_TIMED_AREA_H
#define LAMPSIM_SIM_TIMED_AREA_H
#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { LS_AREA_TENSOR, LS_AREA_LUT, LS_AREA_SFU, LS_AREA_VECTOR, LS_AREA_SCHEDULER, LS_AREA_REGFILE, LS_AREA_PACK,
       LS_AREA_BUFFER, LS_AREA_L2, LS_AREA_N };

typedef struct {
    const char *name;            /* report name: area.<name>_mm2 (a static string) */
    int per_core;                /* 1: one per core (x cores), 0: one per chip (L2) */
    int sram;                    /* leaks at the SRAM rate, else at the logic rate */
    double instances;            /* per core (or per chip): MAC lanes, bits, lanes, ... */
    const char *instance_unit;   /* what instances counts */
    double mm2;                  /* the whole chip's area of the component */
    double leakage_w;            /* the whole chip's leakage of the component */
    double synth_mm2;            /* the whole chip's area from this project's synthesis of the unit (rtl/,
                                    docs/rtl.md); 0 where none was synthesized (ls_area_synthesized) */
} ls_area_component;

typedef struct {
    ls_area_component c[LS_AREA_N];
    double core_mm2;             /* one core's components */
    double total_mm2;            /* cores x core_mm2 + L2 */
    double leakage_w;            /* every component of the chip, powered all run */
    double synth_total_mm2;      /* total_mm2 with the synthesized area in place of the published-figure one
                                    where a unit has both (ls_area_synthesized) */
} ls_area;

/* The area and leakage of the accelerator ac running a program in `layout` (lsregfile_layout: the
 * register-file pack network it needs). Pure: the configuration's numbers only. */
void ls_area_of(const ls_config_accelerator *ac, int layout, ls_area *a);
/* Beside ls_area_of's published-figure areas: the synthesized area of the units rtl/ implements (the
 * LUT exponential lanes, the recompute scheduler, the register pack lanes, the tensor unit's
 * accumulating MAC lanes), from the synthesis's NAND2-equivalent counts x area.nand2_um2, for a
 * key tile of n_k sub-blocks (the scheduler's size follows it). Fills synth_mm2 and synth_total_mm2 of
 * an a that ls_area_of filled for the same layout. */
void ls_area_synthesized(const ls_config_accelerator *ac, int layout, int n_k, ls_area *a);
/* 1 for the components rtl/ synthesizes (tensor, lut, scheduler, regfile_pack): the ones with an
 * area.synthesized.<name>_mm2 field, whatever the layout. */
int ls_area_is_synthesized(int k);
#ifdef __cplusplus
}
#endif
#endif
