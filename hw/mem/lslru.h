/* hw/mem/lslru.h — the L2 as a least-recently-used set of K/V tiles with a byte capacity: a tile
 * read again while it is still among the most recently used tiles that fit hits; otherwise it
 * comes from DRAM and evicts the least recently used ones. Keys are dense (0 .. n-1). */
#ifndef LAMPSIM_HW_MEM_LSLRU_H
#define LAMPSIM_HW_MEM_LSLRU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
typedef struct {
    int32_t *prev, *next;            /* doubly linked list, most recent first */
    uint64_t *bytes;                 /* size of each resident tile (0: absent) */
    int32_t head, tail;
    uint64_t used, capacity;
} lslru;

int lslru_init(lslru *l, size_t n, uint64_t capacity);   /* 0, or -1 out of memory */
void lslru_free(lslru *l);
/* Touch tile `key` of `bytes`: true if it was resident (a hit). Either way it is now the most
 * recently used; tiles larger than the capacity are never kept. */
bool lslru_access(lslru *l, size_t key, uint64_t bytes);
#ifdef __cplusplus
}
#endif
#endif
