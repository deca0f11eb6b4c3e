#define _XOPEN_SOURCE 700
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/mman.h>
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
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        ls_io_err(err, errlen, "%s: cannot map: %s", path, strerror(errno));
        return -1;
    }
    *base = p;
    *len = (size_t)st.st_size;
    return 0;
}

void ls_io_unmap(void *base, size_t len)
{
    if (base && len) munmap(base, len);
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
