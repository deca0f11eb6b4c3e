/* Atomic output directories: a run's files are written into a fresh temporary directory next to
 * the destination, which is then swapped in by rename. A reader (or a crash, or a full disk)
 * therefore sees the old directory or the new one, never a mix, and a failed run leaves neither
 * its temporary nor an empty destination behind. Paths are heap strings of any length. */
#ifndef LAMPSIM_IO_ATOMIC_DIR_H
#define LAMPSIM_IO_ATOMIC_DIR_H
#include <stdbool.h>
#include <stddef.h>

#include "io.h"   /* paths: ls_io_path_join, ls_io_make_dirs, ... */

typedef struct {
    char *final_path;   /* the destination, as given */
    char *tmp_path;     /* where the files go until commit: DIR/../.NAME.run.XXXXXX */
    bool replace;       /* --force: a non-empty destination may be replaced (at open and at commit) */
    int lock_fd;        /* flock held on tmp_path until commit or abort: marks the temporary as live */
} ls_atomic_dir;

/* Checks the destination before anything is computed: refuses a non-directory, and a non-empty
 * directory unless replace; a symbolic link is followed (the run goes into the directory it names;
 * a dangling one is refused). Removes the temporaries of the same destination that a killed run
 * left (those whose owner no longer holds their lock: the lock dies with the process, kill -9
 * included), creates the missing parents and the temporary directory, and locks it. Returns 0,
 * or 2 (bad destination) / 1 (I/O) with a message naming the path. */
int ls_atomic_dir_open(ls_atomic_dir *ad, const char *path, bool replace, char *err, size_t errlen);
/* Swaps the temporary directory in (the old destination, if any, is removed). Without replace,
 * a destination that became non-empty meanwhile (another run, a file added) is refused here as at
 * open, and kept. 0 or -1 with err; on failure the temporary is removed and the destination kept. */
int ls_atomic_dir_commit(ls_atomic_dir *ad, char *err, size_t errlen);
/* Rewrites the temporary directory's path in a message (a failed write inside it) to the
 * destination's: the temporary is removed on failure, the destination is what the user named. */
void ls_atomic_dir_name_final(const ls_atomic_dir *ad, char *msg, size_t len);
/* Until commit or abort, SIGINT, SIGTERM and SIGHUP (unless ignored) remove the temporary directory
 * before the process dies of them, as it would have. For the one run of a process (lampsim run);
 * -1 if another directory is armed already or the temporary cannot be opened. */
int ls_atomic_dir_remove_on_signals(ls_atomic_dir *ad);
/* Removes the temporary directory and what was written into it. */
void ls_atomic_dir_abort(ls_atomic_dir *ad);
#endif
