/* Private interface between the C part of sim/timed and its SystemC top. */
#ifndef LAMPSIM_SIM_TIMED_INTERNAL_H
#define LAMPSIM_SIM_TIMED_INTERNAL_H
#include <stddef.h>

#include "lsseq.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Runs the sequencer through the TLM-2.0 top: one target module per unit, the sequencer as the
 * initiator; units[] indexed by lsu_unit_id (LSU_SEQ unused). Returns 0 or -1 with err. */
int lstimed_sc_run(lsseq *s, lsunit *units, double clock_ghz, char *err, size_t errlen);
#ifdef __cplusplus
}
#endif
#endif
