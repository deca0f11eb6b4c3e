/* hw/lut — LUT exponential unit: the 256-entry table from hw/fp (cfg->lut), `lanes` lookups per
 * cycle, one-cycle latency; serves the LP sub-blocks' exponentials (step 5). */
#ifndef LAMPSIM_HW_LUT_H
#define LAMPSIM_HW_LUT_H
#include "lsdp.h"
#ifdef __cplusplus
extern "C" {
#endif
void lslut_exec(lsunit *u, lsdp_txn *t);
#ifdef __cplusplus
}
#endif
#endif
