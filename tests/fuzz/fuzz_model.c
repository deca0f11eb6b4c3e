/* Fuzz target: the model-description loader of `lampsim model` (sim/model/model_load.c: YAML,
 * keys, ranges, set: and traces: entries, duplicate keys and layers). Any crash or sanitizer report
 * is a finding, and so is an error that does not name the file, or an accepted description that
 * breaks the loader's own promises (layers in range, heads_q a multiple of heads_kv, traces only
 * for existing layers, every trace and set entry placed at a line of the file). Relative paths
 * resolve in a real directory (fuzz_basedir.c). */
#define _XOPEN_SOURCE 700
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_basedir.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef LAMPSIM_FUZZ_STANDALONE
const char ls_config_default_yaml[] = ""; /* built without the generated default */
#endif

static void check_model(const ls_model *m)
{
    if (m->layers < 1 || m->layers > LS_MODEL_MAX_LAYERS || m->heads_q < 1 || m->heads_kv < 1 || m->dim < 1) abort();
    if (m->heads_q % m->heads_kv) abort();
    if (!m->prefill && !m->decode) abort();
    if (m->nsets < 0 || m->nsets > LS_MODEL_MAX_SETS) abort();
    for (int i = 0; i < m->nsets; i++)
        if (!m->sets[i] || !strchr(m->sets[i], '=') || m->set_pos[i].line < 1) abort();
    for (int l = 0; l < LS_MODEL_MAX_LAYERS; l++) {
        if (m->traces[l] && (l >= m->layers || m->trace_pos[l].line < 1)) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[512];
    if (!path[0]) snprintf(path, sizeof path, "%s/fuzz_model.yaml", fuzz_base_dir());
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f)) abort();
    ls_model m;
    char err[2048] = "";
    if (ls_model_load(&m, path, err, sizeof err)) {
        if (strncmp(err, path, strlen(path))) {   /* every error names the file */
            fprintf(stderr, "error without the file name: %s\n", err);
            abort();
        }
        return 0;
    }
    check_model(&m);
    ls_model_free(&m);
    return 0;
}
