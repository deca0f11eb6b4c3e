/* Fuzz target: the .npy and .safetensors parsers (header parsing, size checks, conversion). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "npy.h"
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    ls_npy_array a;
    if (ls_npy_load_mem(data, size, &a, err, sizeof err) == 0) {
        volatile float sink = 0;
        for (size_t i = 0; i < a.count; ++i) sink += a.data[i];
        (void)sink;
        ls_npy_free(&a);
    }
    ls_safetensors_file *f;
    if (ls_safetensors_open_mem(data, size, &f, err, sizeof err) == 0) {
        for (int i = 0; i < ls_safetensors_count(f); ++i)
            if (ls_safetensors_load_f32(f, ls_safetensors_name(f, i), &a, err, sizeof err) == 0) ls_npy_free(&a);
        (void)ls_safetensors_load_f32(f, "missing", &a, err, sizeof err);
        ls_safetensors_close(f);
    }
    return 0;
}
