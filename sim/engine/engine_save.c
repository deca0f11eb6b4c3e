/* sim/engine/engine_save.c — write O, the reference O and the per-tile records as .npy (lsio). */
#include "engine.h"
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>

int ls_engine_save_lamp_code_mask(const ls_engine_result *r, const char *path, char *err, size_t errlen)
{
    if (!r->lamp_code_mask) { snprintf(err, errlen, "the lamp_code selection mask was not kept (mode lamp_code only)"); return -1; }
    size_t n = (size_t)r->batch * r->heads_q * r->seq_q * r->lamp_code_mask_keys;
    float *buf = malloc(n * sizeof(float) + 1);
    if (!buf) { snprintf(err, errlen, "out of memory"); return -1; }
    for (size_t i = 0; i < n; i++) buf[i] = (float)r->lamp_code_mask[i];
    int64_t shape[4] = { r->batch, r->heads_q, r->seq_q, r->lamp_code_mask_keys };
    int rc = ls_npy_save_f32(path, buf, 4, shape, err, errlen);
    free(buf);
    return rc != 0 ? -1 : 0;
}

int ls_engine_save_npy(const ls_engine_result *r, const char *path_o, const char *path_ref,
                       const char *path_records, char *err, size_t errlen)
{
    int64_t shape[4] = { r->batch, r->heads_q, r->seq_q, r->dim };
    if (path_o) {
        if (!r->o) { snprintf(err, errlen, "no output tensor to save"); return -1; }
        if (ls_npy_save_f32(path_o, r->o, 4, shape, err, errlen) != 0) return -1;
    }
    if (path_ref) {
        if (!r->o_ref) { snprintf(err, errlen, "reference O was not kept (keep_reference)"); return -1; }
        if (ls_npy_save_f32(path_ref, r->o_ref, 4, shape, err, errlen) != 0) return -1;
    }
    if (path_records) {
        if (!r->records) { snprintf(err, errlen, "tile records were not kept (keep_tile_records)"); return -1; }
        /* float32 [n_records, 4]: stage1_mask, stage2_mask, n_hp, flags (small integers, exact) */
        float *buf = malloc(r->n_records * 4 * sizeof(float) + 1);
        if (!buf) { snprintf(err, errlen, "out of memory"); return -1; }
        for (size_t i = 0; i < r->n_records; i++) {
            buf[4 * i + 0] = (float)r->records[i].stage1_mask;
            buf[4 * i + 1] = (float)r->records[i].stage2_mask;
            buf[4 * i + 2] = (float)r->records[i].n_hp;
            buf[4 * i + 3] = (float)r->records[i].flags;
        }
        int64_t rs[2] = { (int64_t)r->n_records, 4 };
        int rc = ls_npy_save_f32(path_records, buf, 2, rs, err, errlen);
        free(buf);
        if (rc != 0) return -1;
    }
    return 0;
}
