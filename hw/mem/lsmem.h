/* hw/mem — memory: Q/K/V tile loads and O stores between off-chip memory and each core's on-chip
 * buffer (its own fill port). The off-chip side of every transfer is one access at a byte address
 * of the address map below, sent through the memory port (the TLM-2.0 initiator socket of the
 * SystemC top) or, without one, straight to the built-in model: a DRAM channel and an L2
 * (bandwidth and latency shared by all cores) where a K/V tile already brought on chip by another
 * query block of the same head hits while it is among the most recently used tiles that fit.
 * Loads are issued asynchronously. See docs/systemc.md. */
#ifndef LAMPSIM_HW_MEM_H
#define LAMPSIM_HW_MEM_H
#include "lsdp.h"
#include "lslru.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Address map: base addresses of the three regions. Q and O are [batch][heads_q][seq_q][dim]
 * (Q/K/V elements of sh->elem_bytes, O elements of sh->out_bytes); the KV region holds, for each
 * (batch, KV head) in order, its key tiles of sh->bc keys in order, each tile's K rows followed by
 * its V rows, so a tile's K/V load is one contiguous transfer. */
typedef struct { uint64_t q, kv, o, part; } lsmem_map;   /* part: split-KV partial states */
typedef enum { LSMEM_Q, LSMEM_KV, LSMEM_O } lsmem_region;
uint64_t lsmem_region_bytes(const lsdp_shape *sh, lsmem_region r);
/* Q at 0, then KV, then O, then the split-KV partial states (fp32 O and LSE per row and split),
 * each region starting on a 4 KiB boundary. */
lsmem_map lsmem_map_default(const lsdp_shape *sh);

/* One off-chip transfer: the load of a Q block or a K/V tile, or the store of an O block. */
typedef struct {
    bool write;
    lsmem_region region;
    size_t elem, count;              /* first element and element count in the tensor (KV: of K, same for V) */
    uint64_t addr, bytes;            /* where and how much, by the address map */
    uint64_t req;                    /* cycle the transfer is requested */
    uint64_t dram_bytes;             /* set by the built-in model: bytes that came from (went to) DRAM */
} lsmem_access;
/* A memory port: performs the access, returns the cycle it completes (>= a->req). */
typedef uint64_t (*lsmem_port_fn)(void *user, lsmem_access *a);

/* The built-in off-chip memory: DRAM channel and L2 (K/V tiles found by their address). */
typedef struct {
    lsdp_unit_state dram, l2;           /* chip-wide channels */
    lslru l2_tiles;                  /* which K/V tiles ([batch * heads_kv * nkt]) the L2 holds */
    const lsdp_shape *sh;
    const lsdp_hw *hw;
    const lsmem_map *map;
    uint64_t dram_bytes, l2_bytes;
    /* optional timeline hook: every occupancy of a channel (0 DRAM, 1 L2), as it is served */
    void (*on_channel)(void *user, int channel, uint64_t start, uint64_t busy, uint64_t bytes);
    void *on_channel_user;
} lsmem_model;
/* Time an access given as a bus sees it (direction, address, bytes, request cycle); returns the
 * completion cycle and sets a->dram_bytes. */
uint64_t lsmem_model_access(lsmem_model *m, lsmem_access *a);

typedef struct {
    lsmem_model model;               /* used through the port, or directly when port is NULL */
    lsmem_map map;                   /* lsmem_map_default unless the port's owner sets another */
    lsmem_port_fn port; void *port_user;
    uint64_t buf_bytes, store_bytes;
    uint64_t operand_bytes;          /* read from the buffers into operand registers (timed when configured) */
    uint64_t *vt_free;               /* [cores] with hw->memory.v_transpose: when the core's producer finishes its last transpose */
} lsmem_state;
int lsmem_init(lsmem_state *m, const lsdp_shape *sh, const lsdp_hw *hw);
void lsmem_free(lsmem_state *m);
/* The data of an access in memory: elements of `fmt` (bf16, fp16 or fp32), little endian. Load:
 * decode `bytes` into the tensors (Q into q; KV into k then v); store: encode O from o. */
void lsmem_load_data(const lsmem_access *a, const lsfp_format *fmt, const unsigned char *bytes, float *q, float *k, float *v);
void lsmem_store_data(const lsmem_access *a, const lsfp_format *fmt, const float *o, unsigned char *bytes);
/* Bytes of one K/V tile / of a context's Q block / of its O block in memory. */
uint64_t lsmem_tile_bytes(const lsdp_shape *sh, int kt);
uint64_t lsmem_q_bytes(const lsdp_ctx *x);
uint64_t lsmem_o_bytes(const lsdp_ctx *x);
void lsmem_exec(lsdp_unit *u, lsdp_txn *t);   /* u->impl is the lsmem_state; u->core the buffer ports */
#ifdef __cplusplus
}
#endif
#endif
