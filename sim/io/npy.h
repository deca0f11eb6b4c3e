/* NumPy .npy reader/writer. Reads versions 1.0, 2.0 and 3.0, little-endian, C order, dtype
 * float32 ('<f4'), float16 ('<f2') or bfloat16 stored as uint16 bit patterns ('<u2'); converts
 * to float32. Large float32 files are used in place: the data points into the file's private copy
 * (read, not mapped: see ls_io_map_file) instead of a second buffer.
 * Every malformed file is rejected with a precise message, never a crash. */
#ifndef LAMPSIM_IO_NPY_H
#define LAMPSIM_IO_NPY_H
#include <stddef.h>
#include <stdint.h>

#define LS_NPY_MAX_DIMS 8

typedef enum ls_npy_src_dtype { LS_NPY_SRC_F32 = 0, LS_NPY_SRC_F16 = 1, LS_NPY_SRC_BF16 = 2 } ls_npy_src_dtype;

typedef struct ls_npy_array {
    float *data;               /* count elements, C order, writable */
    int ndim;
    int64_t shape[LS_NPY_MAX_DIMS];
    size_t count;              /* product of shape (1 for a 0-d array) */
    ls_npy_src_dtype src_dtype;    /* dtype in the file */
    int mapped;                /* 1: data points into the file's private copy (map_base) */
    void *map_base;            /* private: the copy to release (mapped == 1) */
    size_t map_len;
} ls_npy_array;

/* Files at least this large (bytes of float32 data) are used in place rather than copied again. */
#define LS_NPY_MMAP_THRESHOLD ((size_t)1 << 20)

int ls_npy_load_f32(const char *path, ls_npy_array *out, char *err, size_t errlen);
/* Parses an in-memory .npy image (always copies the data). */
int ls_npy_load_mem(const void *buf, size_t len, ls_npy_array *out, char *err, size_t errlen);
void ls_npy_free(ls_npy_array *a);
/* Writes a float32 C-order .npy (version 1.0) atomically. ndim 0..8. */
int ls_npy_save_f32(const char *path, const float *data, int ndim, const int64_t *shape,
                    char *err, size_t errlen);
/* "(2, 3, 4)" for messages. */
void ls_npy_shape_str(const int64_t *shape, int ndim, char *buf, size_t len);
#endif
