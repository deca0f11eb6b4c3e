/* hw/tensor — matrix unit: logit tiles in 8-bit (e4m3) or 16-bit (e4m11) accumulate mode, HP
 * recomputes, and the P.V update (fp32 accumulation). Throughput in MACs per cycle per mode,
 * pipeline latency; the slow path runs in sequential 16-bit passes of the register plan's size
 * (sh->layout, hw/regfile). */
#ifndef LAMPSIM_HW_TENSOR_H
#define LAMPSIM_HW_TENSOR_H
#include "lsdp.h"
#ifdef __cplusplus
extern "C" {
#endif
void lstensor_exec(lsdp_unit *u, lsdp_txn *t);
/* Cycles to issue `macs8` 8-bit and `macs16` 16-bit MACs (chunks promoted every promote_interval
 * products along d cost one extra cycle per chunk in 8-bit mode). */
uint64_t lstensor_cycles(const lsdp_hw *hw, uint64_t macs8, uint64_t macs16, int d);
#ifdef __cplusplus
}
#endif
#endif
