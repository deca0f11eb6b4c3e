/* sim/io's common helpers: paths, error messages, file mapping and the conversion of stored
 * dtypes to float32 (shared by the loaders and the atomic writers). */
#ifndef LAMPSIM_IO_IO_H
#define LAMPSIM_IO_IO_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "lampsim's file loaders assume a little-endian host"
#endif

static inline void ls_io_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static inline float ls_io_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline float ls_io_f16_bits_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return ls_io_f32_from_bits(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return ls_io_f32_from_bits(sign);
        /* subnormal: m * 2^-24, exact in float32 */
        float v = (float)m * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return ls_io_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

static inline float ls_io_bf16_bits_to_f32(uint16_t b) { return ls_io_f32_from_bits((uint32_t)b << 16); }

/* "dir/name" (malloc'ed), or NULL when out of memory. */
char *ls_io_path_join(const char *dir, const char *name);
/* A path built by printf (malloc'ed), or NULL when out of memory. */
char *ls_io_path_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Creates path and its missing parents. 0, or -1 with a message naming the failing component. */
int ls_io_make_dirs(const char *path, char *err, size_t errlen);
/* Removes path and, for a directory, everything under it (symbolic links are not followed).
 * Returns 0, or -1 with errno set by the first failure. */
int ls_io_remove_tree(const char *path);
/* A whole regular file in private, writable memory: read, not mapped, so that rewriting the file
 * during a run cannot kill it (SIGBUS); a file that changes while it is read is refused ("trace
 * file changed while in use"). Returns 0 or -1 with err; release with ls_io_unmap. */
int ls_io_map_file(const char *path, void **base, size_t *len, char *err, size_t errlen);
void ls_io_unmap(void *base, size_t len);
/* Converts n elements of the given source dtype (little-endian bytes at src) to float32. */
void ls_io_convert(const unsigned char *src, int src_dtype, size_t n, float *dst);
#endif
