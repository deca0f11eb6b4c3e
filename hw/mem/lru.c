/* hw/mem/lru.c — least-recently-used L2 over K/V tiles (see lslru.h). */
#include "lslru.h"

#include <stdlib.h>
#include <string.h>

int lslru_init(lslru *l, size_t n, uint64_t capacity)
{
    memset(l, 0, sizeof *l);
    l->head = l->tail = -1;
    if (n > INT32_MAX) return -1;   /* keys are list links of 32 bits */
    size_t m = n ? n : 1;
    l->prev = malloc(m * sizeof *l->prev);
    l->next = malloc(m * sizeof *l->next);
    l->bytes = calloc(m, sizeof *l->bytes);
    l->capacity = capacity;
    if (!l->prev || !l->next || !l->bytes) { lslru_free(l); return -1; }
    return 0;
}

void lslru_free(lslru *l)
{
    free(l->prev); free(l->next); free(l->bytes);
    memset(l, 0, sizeof *l);
    l->head = l->tail = -1;
}

static void unlink_key(lslru *l, int32_t k)
{
    if (l->prev[k] >= 0) l->next[l->prev[k]] = l->next[k]; else l->head = l->next[k];
    if (l->next[k] >= 0) l->prev[l->next[k]] = l->prev[k]; else l->tail = l->prev[k];
}

static void push_front(lslru *l, int32_t k)
{
    l->prev[k] = -1;
    l->next[k] = l->head;
    if (l->head >= 0) l->prev[l->head] = k; else l->tail = k;
    l->head = k;
}

bool lslru_access(lslru *l, size_t key, uint64_t bytes)
{
    int32_t k = (int32_t)key;
    if (l->bytes[k]) {               /* hit: move to the front */
        unlink_key(l, k);
        push_front(l, k);
        return true;
    }
    if (bytes == 0 || bytes > l->capacity) return false;
    while (l->used + bytes > l->capacity && l->tail >= 0) {   /* evict the least recently used */
        int32_t v = l->tail;
        unlink_key(l, v);
        l->used -= l->bytes[v];
        l->bytes[v] = 0;
    }
    l->bytes[k] = bytes;
    l->used += bytes;
    push_front(l, k);
    return false;
}
