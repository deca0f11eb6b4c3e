/* Sampled numerics for long layers (algorithm.sample_query_blocks): the engine computes S query
 * blocks of each (batch, head), one per stratum of nqb/S consecutive blocks, and every other block's
 * per-tile records are copied from the nearest sampled block of the same head, tile by tile, so the
 * timed model replays the whole geometry. Why a copy and not a rate: the timed model's cost of a
 * tile depends on which sub-blocks are HP (the compact layout's disruptive path), so it needs
 * selections with the real spatial pattern (sinks at the first tiles, the diagonal band), not an
 * average. docs/engine.md "Sampled numerics" states the mapping and the error estimate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "engine_sample.h"

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

int ls_engine_sample_phases(int br, int bc)
{
    /* blocks whose first query sits at the same offset inside a key tile have the same mask pattern */
    int a = br, b = bc;
    while (b) { int t = a % b; a = b; b = t; }
    return bc / a;
}

int ls_engine_sample_pick(int nqb, int s, int phases, unsigned char *sampled)
{
    memset(sampled, 0, (size_t)nqb);
    if (s <= 0 || s >= nqb) {
        memset(sampled, 1, (size_t)nqb);
        return nqb;
    }
    int n = 0;
    for (int i = 0; i < s; i++) {
        int lo = (int)((int64_t)i * nqb / s), hi = (int)((int64_t)(i + 1) * nqb / s);   /* stratum [lo, hi) */
        int qb = lo + (hi - lo) / 2;
        /* rotate the mask phase across strata so every phase has a sampled block */
        if (phases > 1) {
            int want = i % phases, off = ((want - qb % phases) + phases) % phases;
            if (qb + off < hi) qb += off;
        }
        if (!sampled[qb]) { sampled[qb] = 1; n++; }
    }
    return n;
}

/* geometry of one warp of a located block: flags per tile (ABSENT / MASKED / 0) and the executed
 * range [*first, *last] (first > last: none) */
static void warp_geometry(const lslamp_block *g, int wi, int nkt, uint8_t *fl, int *first, int *last)
{
    *first = nkt; *last = -1;
    for (int kt = 0; kt < nkt; kt++) {
        lslamp_tile_io io;
        if (lslamp_warp_io(g, wi, kt, &io) == 0) fl[kt] = LSLAMP_REC_ABSENT;
        else if (lslamp_tile_fully_masked(NULL, &io)) fl[kt] = LSLAMP_REC_MASKED;
        else {
            fl[kt] = 0;
            *first = imin(*first, kt);
            *last = imax(*last, kt);
        }
    }
}

/* the executed range of a sampled block's warp, from its records */
static void record_range(const ls_engine_tile_record *rec, int nkt, int *first, int *last)
{
    *first = nkt; *last = -1;
    for (int kt = 0; kt < nkt; kt++)
        if (!(rec[kt].flags & (LSLAMP_REC_MASKED | LSLAMP_REC_ABSENT))) {
            *first = imin(*first, kt);
            *last = imax(*last, kt);
        }
}

/* the source tile for target tile kt: the band of tiles next to the diagonal (and to the window's
 * start, the sinks) by their distance from it, the rest in proportion */
static int map_tile(int kt, int tf, int tl, int sf, int sl, int band)
{
    int d = tl - kt, e = kt - tf;
    if (d < band && sl - d >= sf) return sl - d;
    if (e < band && sf + e <= sl) return sf + e;
    if (tl == tf) return sl;
    double x = (double)e / (double)(tl - tf);
    int k = sf + (int)lround(x * (double)(sl - sf));
    return imax(sf, imin(sl, k));
}

int ls_engine_sample_fill(const ls_engine_params *p, const ls_attn_inputs *in, int nqb, int nkt,
                          const unsigned char *sampled, ls_engine_tile_record *records)
{
    int br = p->b_q * p->n_q, bc = p->b_k * p->n_k, nq = p->n_q;
    int band = (br + bc - 1) / bc + 1;   /* tiles a query block's diagonal spans, and one */
    static float dummy[1024];            /* Qt / Y of the geometry-only block (never read) */
    uint8_t *fl = malloc((size_t)nkt);
    int *src = malloc((size_t)nqb * sizeof *src);
    if (!fl || !src) { free(fl); free(src); return -1; }
    /* the nearest sampled block of the same phase (any phase if none) */
    for (int qb = 0; qb < nqb; qb++) {
        int best = -1, bestd = 0;
        for (int pass = 0; pass < 2 && best < 0; pass++)
            for (int c = 0; c < nqb; c++) {
                if (!sampled[c]) continue;
                if (pass == 0 && ((int64_t)c * br) % bc != ((int64_t)qb * br) % bc) continue;
                int dd = abs(c - qb);
                if (best < 0 || dd < bestd) { best = c; bestd = dd; }
            }
        src[qb] = best;
    }
    lslamp_block g = { .seq_k = in->seq_k, .dim = in->dim, .b_q = p->b_q, .br = br, .bc = bc, .causal = in->causal,
                       .window = in->causal ? in->window : 0, .qpack = in->qpack, .Qt = dummy, .Y = dummy };
    size_t per_item = (size_t)nq * nkt;
    int heads = in->batch * in->heads_q;
    for (int bh = 0; bh < heads; bh++)
        for (int qb = 0; qb < nqb; qb++) {
            if (sampled[qb]) continue;
            int item = bh * nqb + qb;
            lslamp_block_locate(&g, item, nqb, in->heads_q, in->heads_kv, in->seq_q, in->q, in->k, in->v, NULL, NULL);
            const ls_engine_tile_record *srec = records + (size_t)(bh * nqb + src[qb]) * per_item;
            ls_engine_tile_record *trec = records + (size_t)item * per_item;
            for (int wi = 0; wi < nq; wi++) {
                int tf, tl, sf = nkt, sl = -1, sw = wi;
                warp_geometry(&g, wi, nkt, fl, &tf, &tl);
                /* the source warp: the same one, or the nearest lower one that ran (ragged blocks) */
                for (; sw >= 0; sw--) {
                    record_range(srec + (size_t)sw * nkt, nkt, &sf, &sl);
                    if (sl >= sf) break;
                }
                for (int kt = 0; kt < nkt; kt++) {
                    ls_engine_tile_record *t = &trec[(size_t)wi * nkt + kt];
                    memset(t, 0, sizeof *t);
                    if (fl[kt]) { t->flags = fl[kt]; continue; }
                    if (sw < 0) continue;   /* no executed source tile: LP throughout */
                    *t = srec[(size_t)sw * nkt + map_tile(kt, tf, tl, sf, sl, band)];
                    t->flags &= (uint8_t)~(LSLAMP_REC_MASKED | LSLAMP_REC_ABSENT);
                }
            }
        }
    free(fl);
    free(src);
    return 0;
}

void ls_engine_sample_tiles(const ls_engine_tile_record *records, size_t n, int hist_len, ls_engine_tile_stats *t)
{
    t->executed = t->masked_skipped = 0;
    memset(t->hp_subblocks_hist, 0, (size_t)hist_len * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) {
        if (records[i].flags & LSLAMP_REC_ABSENT) continue;
        if (records[i].flags & LSLAMP_REC_MASKED) { t->masked_skipped++; continue; }
        t->executed++;
        t->hp_subblocks_hist[imin(records[i].n_hp, hist_len - 1)]++;
    }
    uint64_t dis = 0;
    for (int h = 2; h < hist_len; h++) dis += t->hp_subblocks_hist[h];
    t->disruptive_rate = t->executed ? (double)dis / (double)t->executed : 0.0;
}

/* Ratio estimator's standard error over the sampled items (linearised, finite-population corrected,
 * items treated as a simple random sample: conservative for the stratified draw). */
static double ratio_se(const double *y, const double *x, int n, double f)
{
    double sy = 0, sx = 0;
    for (int i = 0; i < n; i++) { sy += y[i]; sx += x[i]; }
    if (n < 2 || sx <= 0) return NAN;
    double r = sy / sx, ss = 0;
    for (int i = 0; i < n; i++) ss += (y[i] - r * x[i]) * (y[i] - r * x[i]);
    return sqrt((1.0 - f) * (double)n / (double)(n - 1) * ss) / sx;
}

int ls_engine_sample_errors(const lslamp_item_stats *items, const uint64_t *hist, int hist_len, int nitems,
                            int nqb, const unsigned char *sampled, ls_engine_sample_info *s)
{
    int n = 0;
    for (int i = 0; i < nitems; i++) n += sampled[i % nqb];
    double *a = malloc((size_t)(n ? n : 1) * 4 * sizeof *a);
    if (!a) return -1;
    double *hp = a, *act = a + n, *dis = a + 2 * n, *ex = a + 3 * n;
    int k = 0;
    for (int i = 0; i < nitems; i++) {
        if (!sampled[i % nqb]) continue;
        hp[k] = (double)(items[i].stage1 + items[i].stage2);
        act[k] = (double)items[i].sub_active;
        double d = 0;
        for (int h = 2; h < hist_len; h++) d += (double)hist[(size_t)i * hist_len + h];
        dis[k] = d;
        ex[k] = (double)items[i].executed;
        k++;
    }
    double f = nitems ? (double)n / (double)nitems : 1.0;
    s->items_sampled = n;
    s->items_total = nitems;
    s->subblock_rate_se = ratio_se(hp, act, n, f);
    s->disruptive_rate_se = ratio_se(dis, ex, n, f);
    free(a);
    return 0;
}
