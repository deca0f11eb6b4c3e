/* hw/mem — memory: Q/K/V tile loads and O stores between off-chip memory (DRAM channel and L2,
 * bandwidth and latency shared by all cores) and each core's on-chip buffer (its own fill port).
 * Loads are issued asynchronously; a K/V tile already brought on chip by another query block of
 * the same head is served by L2 while it is among the most recently used tiles that fit in it. */
#ifndef LAMPSIM_HW_MEM_H
#define LAMPSIM_HW_MEM_H
#include "lsdp.h"
#include "lslru.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef struct {
    lsunit_state dram, l2;           /* chip-wide channels */
    lslru l2_tiles;                  /* which K/V tiles ([batch * heads_kv * nkt]) the L2 holds */
    uint64_t dram_bytes, l2_bytes, buf_bytes, store_bytes;
    uint64_t operand_bytes;          /* read from the buffers into operand registers (timed when configured) */
} lsmem_state;
int lsmem_init(lsmem_state *m, const lsdp_shape *sh, const lsdp_hw *hw);
void lsmem_free(lsmem_state *m);
/* Bytes of one K/V tile / of a context's Q block / of its O block in memory. */
uint64_t lsmem_tile_bytes(const lsdp_shape *sh, int kt);
uint64_t lsmem_q_bytes(const lsdp_ctx *x);
uint64_t lsmem_o_bytes(const lsdp_ctx *x);
/* Prefetch depth: pipeline_stages bounded by what the buffer holds per resident context. */
int lsmem_prefetch_depth(const lsdp_shape *sh, double buffer_bytes, int contexts, int stages);
void lsmem_exec(lsunit *u, lsdp_txn *t);   /* u->impl is the lsmem_state; u->core the buffer ports */
#ifdef __cplusplus
}
#endif
#endif
