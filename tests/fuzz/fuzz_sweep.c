/* Fuzz target: the sweep-file parser (YAML, value ranges, grid and zip expansion, per-point
 * configuration checks), point ids, cache keys and the manifest. Any crash or sanitizer report is
 * a finding, and so is an accepted sweep whose manifest does not list every point once, whose ids
 * repeat, or whose points do not reload to the configuration their id names. Relative `base:`
 * files resolve in a real directory (fuzz_basedir.c). */
#define _XOPEN_SOURCE 700
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_basedir.h"
#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef LAMPSIM_FUZZ_STANDALONE
const char ls_config_default_yaml[] = ""; /* built without the generated default */
#endif

static void check_sweep(const ls_sweep *sw)
{
    char *man = ls_sweep_manifest_text(sw);
    if (!man) return;
    int lines = 0;
    for (const char *c = man; *c; c++) lines += *c == '\n';
    free(man);
    if (lines != sw->npoints) abort();
    for (int p = 1; p < sw->npoints; p++)
        for (int q = 0; q < p && q < 64; q++)
            if (!strcmp(sw->points[p].id, sw->points[q].id)) abort();
    ls_config *cfg = malloc(sizeof *cfg);
    if (!cfg) return;
    char err[2048], id[LS_SWEEP_ID_LEN + 1], key[LS_SWEEP_ID_LEN + 1];
    for (int p = 0; p < sw->npoints && p < 4; p++) {
        if (ls_sweep_point_config(sw, &sw->points[p], cfg, err, sizeof err)) {
            fprintf(stderr, "point %d of an accepted sweep does not load: %s\n", p, err);
            abort();
        }
        ls_sweep_config_id(cfg, id);
        ls_sweep_cache_key(cfg, key);
        if (strcmp(id, sw->points[p].id) || strcmp(key, sw->points[p].cache_key)) abort();
    }
    free(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[512];
    if (!path[0]) snprintf(path, sizeof path, "%s/fuzz_sweep.yaml", fuzz_base_dir());
    ls_sweep sw;
    char err[2048] = "";
    if (ls_sweep_load_text(&sw, (const char *)data, size, path, err, sizeof err)) {
        if (!err[0]) abort();
        return 0;
    }
    check_sweep(&sw);
    ls_sweep_free(&sw);
    return 0;
}
