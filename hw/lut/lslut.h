/* hw/lut — LUT exponential unit: the table hw/fp builds from the LP shift and exponential formats
 * (cfg->lut: one entry per shift code, 256 for ue5m3s), `lanes` lookups per cycle, one-cycle
 * latency; serves the LP sub-blocks' exponentials (step 5). */
#ifndef LAMPSIM_HW_LUT_H
#define LAMPSIM_HW_LUT_H
#include "lsdp.h"
#ifdef __cplusplus
extern "C" {
#endif
void lslut_exec(lsdp_unit *u, lsdp_txn *t);
#ifdef __cplusplus
}
#endif
#endif
