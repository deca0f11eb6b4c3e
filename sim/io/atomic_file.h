/* Atomic file writes: the data goes to a temporary file in the destination's directory, is
 * flushed and fsync'ed, then renamed over the destination (and the directory fsync'ed), so a
 * reader sees either the old file or the complete new one, never a partial write. On any
 * failure the temporary file is removed and the destination is left untouched.
 * Only regular files (or a missing destination) are replaced so. An existing device or FIFO is
 * written in place, as `sort -o` does (no temporary: a failure may leave part of the data in it);
 * a symbolic link is followed, and its target replaced atomically (the link stays a link); a
 * dangling link, a directory or a socket is refused. */
#ifndef LAMPSIM_IO_ATOMIC_FILE_H
#define LAMPSIM_IO_ATOMIC_FILE_H
#include <stddef.h>
#include <stdio.h>

typedef struct ls_atomic_file {
    FILE *fp;          /* write through this stream between open and commit/abort */
    char *final_path;  /* destination */
    char *tmp_path;    /* temporary file (same directory); NULL when writing a device or FIFO in place */
} ls_atomic_file;

/* Creates the temporary file. Returns 0, or -1 with a message in err. */
int ls_atomic_file_open(ls_atomic_file *af, const char *path, char *err, size_t errlen);
/* Flushes, fsyncs, closes and renames onto the destination. Returns 0, or -1 with a message
 * (the temporary is removed). Always releases af. */
int ls_atomic_file_commit(ls_atomic_file *af, char *err, size_t errlen);
/* Discards the temporary file and releases af (safe on a zeroed or already released af). */
void ls_atomic_file_abort(ls_atomic_file *af);
/* One-shot: writes len bytes of data to path atomically. */
int ls_atomic_file_write(const char *path, const void *data, size_t len, char *err, size_t errlen);
#endif
