/* sim/timed/timed_numfile.h — the numerics cache on disk (timed.numerics_dir): one file per numerics
 * key holding what a replay needs (O, the statistics, the per-tile records), so runs in other
 * processes (a sweep's workers, a study's later generations) replay instead of recomputing.
 *
 * A cache, not an interchange format: native byte order and struct layout, stamped with the build's
 * version and the structs' sizes. A file that does not match the reader exactly (another build, another
 * key, other sizes, a short or long file) is a miss, never an error: the run computes afresh. */
#ifndef LAMPSIM_SIM_TIMED_NUMFILE_H
#define LAMPSIM_SIM_TIMED_NUMFILE_H
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "lslamp.h"

/* What a replay takes from the cache: the result's statistics (o, o_ref, tiles.hp_subblocks_hist
 * owned by the caller), the records, and their sizes. */
typedef struct {
    ls_engine_result r;          /* o [nout], o_ref [nout] or NULL, tiles.hp_subblocks_hist [tiles.hist_len] */
    lslamp_tile_record *recs;    /* [nrecs] */
    size_t nrecs, nout;
} ls_timed_numerics;

/* dir/<key>.lsnum written atomically (a concurrent writer of the same key leaves one whole file).
 * Returns 0, or -1 with err (the caller goes on: the run's results do not depend on the file). */
int ls_timed_numfile_write(const char *dir, uint64_t key, const ls_timed_numerics *n, char *err, size_t errlen);
/* Reads dir/<key>.lsnum into n (allocating o, o_ref, the histogram and recs) when it exists and matches
 * key, nout, nrecs, hist_len and whether O's reference is kept. Returns 1 read, 0 a miss (n untouched). */
int ls_timed_numfile_read(const char *dir, uint64_t key, size_t nout, size_t nrecs, int hist_len, int has_oref,
                          ls_timed_numerics *n);
#endif
