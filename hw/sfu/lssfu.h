/* hw/sfu — special-function unit: 16-bit exponentials (the ue5m11 table of hw/lamp), `lanes` per
 * cycle, multi-cycle latency; HP sub-blocks, recomputes and the normaliser's lambda. */
#ifndef LAMPSIM_HW_SFU_H
#define LAMPSIM_HW_SFU_H
#include "lsdp.h"
#ifdef __cplusplus
extern "C" {
#endif
void lssfu_exec(lsdp_unit *u, lsdp_txn *t);
#ifdef __cplusplus
}
#endif
#endif
