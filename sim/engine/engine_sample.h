/* Sampled numerics (algorithm.sample_query_blocks): which query blocks the engine computes, the
 * records of the others copied from the nearest sampled block, and the sample's standard errors. */
#ifndef LAMPSIM_SIM_ENGINE_SAMPLE_H
#define LAMPSIM_SIM_ENGINE_SAMPLE_H
#include "engine.h"
#include "lslamp.h"

/* Mask phases of query blocks of br rows against key tiles of bc keys: bc / gcd(br, bc). */
int ls_engine_sample_phases(int br, int bc);
/* sampled[0..nqb) <- 1 for the s blocks computed (one per stratum of consecutive blocks, its middle,
 * moved within the stratum to rotate the phase); s <= 0 or >= nqb: all. Returns how many. */
int ls_engine_sample_pick(int nqb, int s, int phases, unsigned char *sampled);
/* records ([items][n_q][nkt], item = (b * heads_q + hq) * nqb + qb): each unsampled item's records
 * from the nearest sampled block of its head (same phase where one exists): geometry flags (absent,
 * masked) from the item's own geometry, selections mapped tile by tile (diagonal band and window
 * start by distance, the rest in proportion). Returns 0, or -1 if out of memory. */
int ls_engine_sample_fill(const ls_engine_params *p, const ls_attn_inputs *in, int nqb, int nkt,
                          const unsigned char *sampled, ls_engine_tile_record *records);
/* tiles.* (executed, masked, histogram, disruptive rate) counted over all n records */
void ls_engine_sample_tiles(const ls_engine_tile_record *records, size_t n, int hist_len, ls_engine_tile_stats *t);
/* standard errors of the sampled items' HP sub-block and disruptive rates */
int ls_engine_sample_errors(const lslamp_item_stats *items, const uint64_t *hist, int hist_len, int nitems,
                            int nqb, const unsigned char *sampled, ls_engine_sample_info *s);
#endif
