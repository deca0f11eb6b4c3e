/* .safetensors reader: an 8-byte little-endian header size, a JSON header naming each tensor's
 * dtype, shape and byte range, then the raw data. Tensors of dtype F32, F16 or BF16 load as
 * float32 into an ls_npy_array (copied). The file is read into private memory (not mapped: a
 * file rewritten during a run cannot kill it), the header validated in full (sizes, offsets, overlaps with the end of the
 * file, shapes that disagree with the byte ranges) before anything is returned. */
#ifndef LAMPSIM_IO_SAFETENSORS_H
#define LAMPSIM_IO_SAFETENSORS_H
#include <stddef.h>
#include <stdint.h>

#include "npy.h"

typedef struct ls_safetensors_file ls_safetensors_file;

/* Largest accepted JSON header. */
#define LS_SAFETENSORS_MAX_HEADER ((size_t)64 << 20)

int ls_safetensors_open(const char *path, ls_safetensors_file **out, char *err, size_t errlen);
/* Parses an in-memory image (the buffer must outlive the handle; tensors are always copied). */
int ls_safetensors_open_mem(const void *buf, size_t len, ls_safetensors_file **out, char *err, size_t errlen);
void ls_safetensors_close(ls_safetensors_file *f);
int ls_safetensors_count(const ls_safetensors_file *f);
const char *ls_safetensors_name(const ls_safetensors_file *f, int i);
/* Finds a tensor by name; -1 when absent. */
int ls_safetensors_find(const ls_safetensors_file *f, const char *name);
/* Loads the named tensor as float32. Errors name the file and tensor. */
int ls_safetensors_load_f32(const ls_safetensors_file *f, const char *name, ls_npy_array *out, char *err, size_t errlen);
#endif
