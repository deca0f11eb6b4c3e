/* sim/timed/timed_numfile.c — the numerics cache on disk (see timed_numfile.h). */
#define _GNU_SOURCE /* open_memstream */
#include "timed_numfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "io.h"
#include "lampsim_version.h"

#define MAGIC "LSNUMv2"

/* Everything a reader must agree on before trusting the payload's layout. */
typedef struct {
    char magic[8];
    char build[64];              /* LAMPSIM_VERSION "+" LAMPSIM_GIT_REV: another build may compute otherwise */
    uint64_t key, nout, nrecs, hist_len, has_oref;
    uint64_t sz_recompute, sz_accuracy, sz_events, sz_rec, sz_sample;
} header;

static void make_header(header *h, uint64_t key, size_t nout, size_t nrecs, int hist_len, int has_oref)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, MAGIC, sizeof MAGIC);
    snprintf(h->build, sizeof h->build, "%s+%s", LAMPSIM_VERSION, LAMPSIM_GIT_REV);
    h->key = key;
    h->nout = nout;
    h->nrecs = nrecs;
    h->hist_len = (uint64_t)hist_len;
    h->has_oref = has_oref ? 1 : 0;
    h->sz_recompute = sizeof(ls_engine_recompute_stats);
    h->sz_accuracy = sizeof(ls_engine_accuracy_stats);
    h->sz_events = sizeof(ls_engine_event_stats);
    h->sz_rec = sizeof(lslamp_tile_record);
    h->sz_sample = sizeof(ls_engine_sample_info);
}

static char *file_path(const char *dir, uint64_t key)
{
    char name[32];
    snprintf(name, sizeof name, "%016" PRIx64 ".lsnum", key);
    return ls_io_path_join(dir, name);
}

int ls_timed_numfile_write(const char *dir, uint64_t key, const ls_timed_numerics *n, char *err, size_t errlen)
{
    const ls_engine_result *r = &n->r;
    header h;
    make_header(&h, key, n->nout, n->nrecs, r->tiles.hist_len, r->o_ref != NULL);
    char *path = file_path(dir, key);
    if (!path) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ls_atomic_file af;
    if (ls_atomic_file_open(&af, path, err, errlen) != 0) {
        free(path);
        return -1;
    }
    free(path);
    FILE *f = af.fp;
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(&r->tiles.executed, sizeof r->tiles.executed, 1, f) == 1 &&
             fwrite(&r->tiles.masked_skipped, sizeof r->tiles.masked_skipped, 1, f) == 1 &&
             fwrite(&r->tiles.disruptive_rate, sizeof r->tiles.disruptive_rate, 1, f) == 1 &&
             fwrite(&r->recompute, sizeof r->recompute, 1, f) == 1 && fwrite(&r->accuracy, sizeof r->accuracy, 1, f) == 1 &&
             fwrite(&r->events, sizeof r->events, 1, f) == 1 && fwrite(&r->sample, sizeof r->sample, 1, f) == 1 &&
             fwrite(r->tiles.hp_subblocks_hist, sizeof(uint64_t), (size_t)r->tiles.hist_len, f) == (size_t)r->tiles.hist_len &&
             fwrite(r->o, sizeof(float), n->nout, f) == n->nout &&
             (!r->o_ref || fwrite(r->o_ref, sizeof(float), n->nout, f) == n->nout) &&
             fwrite(n->recs, sizeof *n->recs, n->nrecs, f) == n->nrecs;
    if (!ok) {
        ls_atomic_file_abort(&af);
        snprintf(err, errlen, "numerics cache: short write");
        return -1;
    }
    return ls_atomic_file_commit(&af, err, errlen);
}

int ls_timed_numfile_read(const char *dir, uint64_t key, size_t nout, size_t nrecs, int hist_len, int has_oref,
                          ls_timed_numerics *n)
{
    char *path = file_path(dir, key);
    FILE *f = path ? fopen(path, "rb") : NULL;
    free(path);
    if (!f) return 0;
    header want, got;
    make_header(&want, key, nout, nrecs, hist_len, has_oref);
    ls_timed_numerics x;
    memset(&x, 0, sizeof x);
    x.nout = nout;
    x.nrecs = nrecs;
    x.r.tiles.hist_len = hist_len;
    int ok = fread(&got, sizeof got, 1, f) == 1 && !memcmp(&got, &want, sizeof got);
    if (ok) {
        x.r.o = malloc((nout ? nout : 1) * sizeof(float));
        x.r.o_ref = has_oref ? malloc((nout ? nout : 1) * sizeof(float)) : NULL;
        x.r.tiles.hp_subblocks_hist = malloc((size_t)(hist_len > 0 ? hist_len : 1) * sizeof(uint64_t));
        x.recs = malloc((nrecs ? nrecs : 1) * sizeof *x.recs);
        ok = x.r.o && (!has_oref || x.r.o_ref) && x.r.tiles.hp_subblocks_hist && x.recs;
    }
    ok = ok && fread(&x.r.tiles.executed, sizeof x.r.tiles.executed, 1, f) == 1 &&
         fread(&x.r.tiles.masked_skipped, sizeof x.r.tiles.masked_skipped, 1, f) == 1 &&
         fread(&x.r.tiles.disruptive_rate, sizeof x.r.tiles.disruptive_rate, 1, f) == 1 &&
         fread(&x.r.recompute, sizeof x.r.recompute, 1, f) == 1 && fread(&x.r.accuracy, sizeof x.r.accuracy, 1, f) == 1 &&
         fread(&x.r.events, sizeof x.r.events, 1, f) == 1 && fread(&x.r.sample, sizeof x.r.sample, 1, f) == 1 &&
         fread(x.r.tiles.hp_subblocks_hist, sizeof(uint64_t), (size_t)hist_len, f) == (size_t)hist_len &&
         fread(x.r.o, sizeof(float), nout, f) == nout && (!has_oref || fread(x.r.o_ref, sizeof(float), nout, f) == nout) &&
         fread(x.recs, sizeof *x.recs, nrecs, f) == nrecs && fgetc(f) == EOF;   /* nothing after the records */
    fclose(f);
    if (!ok) {
        free(x.r.o); free(x.r.o_ref); free(x.r.tiles.hp_subblocks_hist); free(x.recs);
        return 0;
    }
    *n = x;
    return 1;
}
