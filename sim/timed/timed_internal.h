/* Private interface between the C part of sim/timed and its SystemC top. */
#ifndef LAMPSIM_SIM_TIMED_INTERNAL_H
#define LAMPSIM_SIM_TIMED_INTERNAL_H
#include <stddef.h>

#include "lsseq.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Runs the sequencer through the TLM-2.0 top (timed_tlm.h): one target module per unit, the
 * sequencer as the initiator, the memory unit's transfers through the memory socket; units[]
 * indexed by lsunit_id (only the transaction targets of units.def). Called from ls_timed_run: lampsim's own Accelerator
 * bound to a BuiltinMemory, driven by sc_start (host NULL); called while an Accelerator's control
 * port runs a layer (host: its Accelerator::Impl, ls_timed_options.sc_host): in that accelerator's
 * thread, with its memory. Returns 0 or -1 with err. */
int ls_timed_sc_run(lsseq *s, lsdp_unit *units, double clock_ghz, void *host, char *err, size_t errlen);
#ifdef __cplusplus
}
#endif
#endif
