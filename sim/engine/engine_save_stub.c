/* sim/engine/engine_save_stub.c — built only when the lsio library is absent. */
#include "engine.h"

#include <stdio.h>

int ls_engine_save_lamp_code_mask(const ls_engine_result *r, const char *path, char *err, size_t errlen)
{
    (void)r; (void)path;
    snprintf(err, errlen, "this build has no .npy writer (sim/io missing)");
    return -1;
}

int ls_engine_save_npy(const ls_engine_result *r, const char *path_o, const char *path_ref,
                       const char *path_records, char *err, size_t errlen)
{
    (void)r; (void)path_o; (void)path_ref; (void)path_records;
    snprintf(err, errlen, "this build has no .npy writer (sim/io missing)");
    return -1;
}
