/* hw/sched — recompute scheduler: threat sort, stage-1 safety-margin test (sequential over the
 * sorted sub-blocks, each failure triggering an HP recompute on the tensor unit) and the stage-2
 * block-LAMP subset selection; emits the recompute set. */
#ifndef LAMPSIM_HW_SCHED_H
#define LAMPSIM_HW_SCHED_H
#include "lsdp.h"
#ifdef __cplusplus
extern "C" {
#endif
void lssched_exec(lsdp_unit *u, lsdp_txn *t);
#ifdef __cplusplus
}
#endif
#endif
