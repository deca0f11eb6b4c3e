/* sim/timed/timed_cost.h — the synthesized cost of the rtl/ units and the SRAM banks on ASAP7 (7 nm
 * predictive cells, docs/rtl.md "Synthesis"): one row per unit of rtl/synth/asap7_units.csv, which
 * scripts/rtl_synth.sh writes and the build turns into this table (cost_table.cmake). The area model
 * (timed_area.c) prices the units rtl/ implements from it. */
#ifndef LAMPSIM_SIM_TIMED_COST_H
#define LAMPSIM_SIM_TIMED_COST_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *unit;          /* the RTL top or the SRAM bank */
    const char *kind;          /* "logic" or "sram" */
    double cells;              /* mapped cells, flip-flops included */
    double cell_area_um2;      /* cells' area (flip-flops at DFFHQNx1); sram: the bank's */
    double flops;
    double area_um2;           /* placed: cell area / the script's utilisation; sram: the bank's */
    double delay_ps;           /* logic: critical path (ABC stime); sram: clk -> dataout */
    double depth_cycles;       /* ceil(delay / the cycle's logic budget) */
    double leakage_nw;         /* logic: the cells' leakage; sram: 0 (the library gives none) */
    double bits, word_bits;    /* sram: capacity and word */
    double read_pj, write_pj;  /* sram: energy per access (internal-power tables) */
    const char *description;
} ls_cost_unit;

#include "cost_table_generated.h"

/* Row id (LS_COST_<UNIT>). */
static inline const ls_cost_unit *ls_cost(int id) { return &ls_cost_table[id]; }
/* 0 if the n rows of t equal the rows of the CSV at path (names, kinds, every number); else -1 and
 * the first difference in err. */
int ls_cost_check_csv(const ls_cost_unit *t, int n, const char *path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
