#define _XOPEN_SOURCE 700
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int ls_io_map_file(const char *path, void **base, size_t *len, char *err, size_t errlen)
{
    *base = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        ls_io_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        ls_io_err(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        ls_io_err(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    if (st.st_size <= 0) {
        ls_io_err(err, errlen, "%s: file is empty", path);
        close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
        ls_io_err(err, errlen, "%s: file too large", path);
        close(fd);
        return -1;
    }
    /* read, not mapped: a mapping dies with SIGBUS when the file is truncated or rewritten in place
     * during the run (numpy's np.save does that); a private copy cannot change under the engine */
    size_t n = (size_t)st.st_size, got = 0;
    unsigned char *p = malloc(n);
    if (!p) {
        ls_io_err(err, errlen, "%s: out of memory for %zu bytes", path, n);
        close(fd);
        return -1;
    }
    while (got < n) {
        ssize_t r = pread(fd, p + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    int read_errno = errno;
    struct stat after;
    int changed = got != n || fstat(fd, &after) != 0 || after.st_size != st.st_size ||
                  after.st_mtim.tv_sec != st.st_mtim.tv_sec || after.st_mtim.tv_nsec != st.st_mtim.tv_nsec;
    close(fd);
    if (changed) {
        if (got < n && read_errno && read_errno != EINTR && got == 0)
            ls_io_err(err, errlen, "%s: read failed: %s", path, strerror(read_errno));
        else
            ls_io_err(err, errlen, "%s: trace file changed while in use (size or modification time changed while it "
                      "was read; rerun once it is written)", path);
        free(p);
        return -1;
    }
    *base = p;
    *len = n;
    return 0;
}

void ls_io_unmap(void *base, size_t len)
{
    (void)len;
    free(base);
}

void ls_io_convert(const unsigned char *src, int src_dtype, size_t n, float *dst)
{
    if (src_dtype == 0) {
        memcpy(dst, src, n * 4);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        uint16_t h = (uint16_t)(src[2 * i] | (src[2 * i + 1] << 8));
        dst[i] = src_dtype == 1 ? ls_io_f16_bits_to_f32(h) : ls_io_bf16_bits_to_f32(h);
    }
}

char *ls_io_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

char *ls_io_path_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!p) return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int ls_io_remove_tree(const char *path)
{
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int ls_io_make_dirs(const char *path, char *err, size_t errlen)
{
    char *p = strdup(path);
    if (!p) {
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s && *s != '/') continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            ls_io_err(err, errlen, "%s: cannot create directory: %s", p, strerror(errno));
            rc = -1;
            break;
        }
        *s = c;
        if (!c) break;
    }
    free(p);
    return rc;
}
