/* sim/sweep/sweep_reuse.h — private to sim/sweep: a point's files, and reuse of a finished
 * point's numerics by a point with the same cache key (its report copied, the config section
 * replaced), as the runner's workers do it. */
#ifndef LAMPSIM_SIM_SWEEP_REUSE_H
#define LAMPSIM_SIM_SWEEP_REUSE_H
#include <stddef.h>

#include "config.h"

/* The text of dir/name (malloc'ed), or NULL. */
char *ls_sweep_read_in(const char *dir, const char *name);
/* Writes dir/name atomically. Returns 0 or -1 with err. */
int ls_sweep_write_in(const char *dir, const char *name, const char *text, char *err, size_t errlen);

/* Writes point dir (configuration cfg) from src_dir's numerics (point src_id). Returns 0, -1 when
 * the source's report is not eligible (a section other than the numerics'), 1 on I/O error. */
int ls_sweep_reuse_point(const ls_config *cfg, const char *dir, const char *src_dir, const char *src_id, char *err,
                         size_t errlen);
#endif
