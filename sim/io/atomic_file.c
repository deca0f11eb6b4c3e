#define _XOPEN_SOURCE 700
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Directory part of path ("." when there is none). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return dup_str(".");
    if (slash == path) return dup_str("/");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

/* Opens an existing special file (device, FIFO) for writing in place, as `sort -o` does: renaming
 * over it would replace, say, /dev/null by a regular file. */
static int open_direct(ls_atomic_file *af, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!fp) {
        set_err(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    af->fp = fp;
    af->final_path = dup_str(path);
    if (!af->final_path) {
        set_err(err, errlen, "out of memory");
        ls_atomic_file_abort(af);
        return -1;
    }
    return 0;
}

int ls_atomic_file_open(ls_atomic_file *af, const char *path, char *err, size_t errlen)
{
    memset(af, 0, sizeof *af);
    if (!path || !*path) {
        set_err(err, errlen, "empty output path");
        return -1;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!*base) {
        set_err(err, errlen, "%s: output path names a directory", path);
        return -1;
    }
    /* What is there decides how it is written: nothing or a regular file is replaced atomically;
     * a device or FIFO is written in place; a symlink is followed (its target is what gets
     * replaced, the link stays); a dangling symlink, a directory or a socket is refused. */
    struct stat lst, st;
    char *target = NULL;
    if (lstat(path, &lst) == 0) {
        if (stat(path, &st) != 0) {
            set_err(err, errlen, "%s: symbolic link to a missing file (give the target's path)", path);
            return -1;
        }
        if (S_ISDIR(st.st_mode)) {
            set_err(err, errlen, "%s: output path names a directory", path);
            return -1;
        }
        if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) return open_direct(af, path, err, errlen);
        if (!S_ISREG(st.st_mode)) {
            set_err(err, errlen, "%s: exists and is neither a regular file nor a device or FIFO", path);
            return -1;
        }
        if (S_ISLNK(lst.st_mode)) {
            target = realpath(path, NULL);
            if (!target) {
                set_err(err, errlen, "%s: cannot resolve the symbolic link: %s", path, strerror(errno));
                return -1;
            }
            path = target;
            base = strrchr(path, '/') + 1;   /* realpath gives an absolute path */
        }
    }
    char *dir = dir_of(path);
    if (!dir) {
        free(target);
        set_err(err, errlen, "out of memory");
        return -1;
    }
    size_t n = strlen(dir) + strlen(base) + 16;
    char *tmp = malloc(n);
    if (!tmp) {
        free(dir);
        free(target);
        set_err(err, errlen, "out of memory");
        return -1;
    }
    snprintf(tmp, n, "%s/.%s.XXXXXX", dir, base);
    free(dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot create temporary file: %s", path, strerror(errno));
        free(tmp);
        free(target);
        return -1;
    }
    (void)fchmod(fd, 0644);
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        set_err(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        free(target);
        return -1;
    }
    af->fp = fp;
    af->tmp_path = tmp;
    af->final_path = target ? target : dup_str(path);
    if (!af->final_path) {
        set_err(err, errlen, "out of memory");
        ls_atomic_file_abort(af);
        return -1;
    }
    return 0;
}

void ls_atomic_file_abort(ls_atomic_file *af)
{
    if (!af) return;
    if (af->fp) fclose(af->fp);
    if (af->tmp_path) unlink(af->tmp_path);
    free(af->tmp_path);
    free(af->final_path);
    memset(af, 0, sizeof *af);
}

int ls_atomic_file_commit(ls_atomic_file *af, char *err, size_t errlen)
{
    if (!af || !af->fp) {
        set_err(err, errlen, "atomic file not open");
        return -1;
    }
    const char *path = af->final_path;
    if (fflush(af->fp) != 0 || ferror(af->fp)) {
        set_err(err, errlen, "%s: write failed: %s", path, strerror(errno));
        ls_atomic_file_abort(af);
        return -1;
    }
    int fs = fsync(fileno(af->fp));
    if (fs != 0 && !(!af->tmp_path && (errno == EINVAL || errno == EROFS))) {   /* a FIFO or /dev/null: nothing to sync */
        set_err(err, errlen, "%s: fsync failed: %s", path, strerror(errno));
        ls_atomic_file_abort(af);
        return -1;
    }
    int rc = fclose(af->fp);
    af->fp = NULL;
    if (rc != 0) {
        set_err(err, errlen, "%s: close failed: %s", path, strerror(errno));
        ls_atomic_file_abort(af);
        return -1;
    }
    if (!af->tmp_path) {   /* written in place */
        free(af->final_path);
        memset(af, 0, sizeof *af);
        return 0;
    }
    if (rename(af->tmp_path, path) != 0) {
        set_err(err, errlen, "%s: rename failed: %s", path, strerror(errno));
        ls_atomic_file_abort(af);
        return -1;
    }
    /* Make the rename itself durable. */
    char *dir = dir_of(path);
    if (dir) {
        int dfd = open(dir, O_RDONLY);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    free(af->tmp_path);
    free(af->final_path);
    memset(af, 0, sizeof *af);
    return 0;
}

int ls_atomic_file_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    ls_atomic_file af;
    if (ls_atomic_file_open(&af, path, err, errlen) != 0) return -1;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        set_err(err, errlen, "%s: write failed: %s", path, strerror(errno));
        ls_atomic_file_abort(&af);
        return -1;
    }
    return ls_atomic_file_commit(&af, err, errlen);
}
