/* The L2's least-recently-used tile set (hw/mem/lru.c) against an independent slow model: a plain
 * array ordered by last use, scanned and shifted on every access. Random streams with tiles of
 * mixed sizes, capacities from "nothing fits" to "everything fits", and the textbook cases
 * (cyclic access one tile larger than the capacity never hits; a reuse distance that fits
 * always hits). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lslru.h"

typedef struct { size_t key; uint64_t bytes; } slot;

/* the slow model: recency order in an array, most recent first */
static int slow_access(slot *s, int *n, uint64_t cap, size_t key, uint64_t bytes)
{
    int at = -1;
    for (int i = 0; i < *n; i++) if (s[i].key == key) { at = i; break; }
    if (at >= 0) {
        slot hit = s[at];
        memmove(s + 1, s, (size_t)at * sizeof *s);
        s[0] = hit;
        return 1;
    }
    if (bytes == 0 || bytes > cap) return 0;
    uint64_t used = bytes;
    for (int i = 0; i < *n; i++) used += s[i].bytes;
    while (used > cap && *n > 0) { used -= s[*n - 1].bytes; (*n)--; }
    memmove(s + 1, s, (size_t)*n * sizeof *s);
    s[0] = (slot){ key, bytes };
    (*n)++;
    return 0;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

int main(void)
{
    enum { NKEYS = 97, STEPS = 20000 };
    uint64_t size_of[NKEYS];
    for (int k = 0; k < NKEYS; k++) size_of[k] = 1024 * (1 + rnd() % 4);   /* ragged last tiles differ */
    const uint64_t caps[] = { 0, 1024, 4096, 10000, 65536, 200000, 1u << 30 };
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        lslru l;
        CHECK(lslru_init(&l, NKEYS, caps[c]) == 0);
        slot *s = calloc(NKEYS, sizeof *s);
        int n = 0, mismatches = 0, hits = 0;
        for (int i = 0; i < STEPS; i++) {
            /* mostly a sliding window (like query blocks walking the keys of a few heads), some random */
            size_t key = (rnd() % 4) ? (size_t)((i / 3 + rnd() % 12) % NKEYS) : (size_t)(rnd() % NKEYS);
            int a = lslru_access(&l, key, size_of[key]);
            int b = slow_access(s, &n, caps[c], key, size_of[key]);
            mismatches += a != b;
            hits += a;
        }
        CHECK_MSG(mismatches == 0, "capacity %llu: %d of %d accesses differ from the slow model",
                  (unsigned long long)caps[c], mismatches, STEPS);
        if (caps[c] == 0) CHECK(hits == 0);
        if (caps[c] == (1u << 30)) CHECK(hits == STEPS - NKEYS);   /* every key is seen; only first uses miss */
        printf("capacity %10llu: %5d hits of %d\n", (unsigned long long)caps[c], hits, STEPS);
        free(s);
        lslru_free(&l);
    }
    /* cyclic access over 5 equal tiles with room for 4: LRU never hits; with room for 5: always after the first pass */
    for (int room = 4; room <= 5; room++) {
        lslru l;
        CHECK(lslru_init(&l, 5, (uint64_t)room * 100) == 0);
        int hits = 0;
        for (int i = 0; i < 50; i++) hits += lslru_access(&l, (size_t)(i % 5), 100);
        CHECK_MSG(hits == (room == 4 ? 0 : 45), "cyclic, room for %d: %d hits", room, hits);
        lslru_free(&l);
    }
    CHECK_DONE();
}
