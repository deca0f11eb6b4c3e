/* hw/vector — vector unit: row/sub-block maxima, subtractions, sums, rescaling, the normaliser
 * and the final division; `lanes` element operations per cycle, pipeline latency. */
#ifndef LAMPSIM_HW_VECTOR_H
#define LAMPSIM_HW_VECTOR_H
#include "lsdp.h"
#ifdef __cplusplus
extern "C" {
#endif
void lsvector_exec(lsdp_unit *u, lsdp_txn *t);
#ifdef __cplusplus
}
#endif
#endif
