/* sim/engine/engine_split.c — split-KV (workload.split_kv): the key tiles of a query block cut into
 * contiguous ranges, each run from a fresh softmax state, and the combine of the partial states
 * (engine.md, "Split-KV"). The combine is a fixed-order sum in the mode's own state formats, so it
 * is bit-exact and the same on any thread count. */
#include "engine_internal.h"

#include <math.h>
#include <string.h>

int ls_engine_split_tiles(int nkt, int split_kv, int *tiles_per_split)
{
    if (nkt < 1) nkt = 1;
    int s = split_kv > 1 ? split_kv : 1;
    if (s > nkt) s = nkt;
    int tps = (nkt + s - 1) / s;
    if (tiles_per_split) *tiles_per_split = tps;
    return (nkt + tps - 1) / tps;
}

void eng_split_reset(const lslamp_block *g, int d)
{
    for (int j = 0; j < g->br; j++) { g->mu[j] = -INFINITY; g->om32[j] = 0.0f; g->om64[j] = 0.0; }
    memset(g->O32, 0, (size_t)g->br * d * sizeof(float));
    memset(g->O64, 0, (size_t)g->br * d * sizeof(double));
}

void eng_split_save(eng_ws *w, const lslamp_block *g, int d, int s)
{
    size_t br = (size_t)g->br, o = (size_t)s * br;
    memcpy(w->pmu + o, g->mu, br * sizeof(float));
    memcpy(w->pom32 + o, g->om32, br * sizeof(float));
    memcpy(w->pom64 + o, g->om64, br * sizeof(double));
    memcpy(w->pO32 + o * d, g->O32, br * d * sizeof(float));
    memcpy(w->pO64 + o * d, g->O64, br * d * sizeof(double));
}

void eng_split_combine(const eng_ctx *x, eng_ws *w, const lslamp_block *g, int item, bool fp64, bool use_expf)
{
    int br = g->br, d = x->in->dim, ns = w->nsplit;
    if (x->p->split_hook) {
        ls_engine_split_state st = { .item = item, .nsplit = ns, .rows = br, .nqv = g->nqv, .dim = d, .fp64 = fp64,
                                     .mu = w->pmu, .om32 = w->pom32, .O32 = w->pO32, .om64 = w->pom64, .O64 = w->pO64 };
        x->p->split_hook(x->p->split_user, &st);
    }
    for (int j = 0; j < br; j++) {
        float M = -INFINITY;
        for (int s = 0; s < ns; s++)
            if (w->pmu[(size_t)s * br + j] > M) M = w->pmu[(size_t)s * br + j];
        float *o32 = g->O32 + (size_t)j * d;
        double *o64 = g->O64 + (size_t)j * d;
        float om32 = 0.0f;
        double om64 = 0.0;
        for (int t = 0; t < d; t++) { o32[t] = 0.0f; o64[t] = 0.0; }
        g->mu[j] = M;
        /* ascending splits, each term rounded as the state's own rescale rounds it: the LAMP modes'
         * lambda (lslamp_normaliser), fp32 FA2's expf (eng_fa2_fp32_block) */
        for (int s = 0; s < ns && M != -INFINITY; s++) {
            size_t r = (size_t)s * br + j;
            float ms = w->pmu[r];
            if (ms == -INFINITY) continue;   /* the split saw no key of this row: omega = 0, O = 0 */
            const float *p32 = w->pO32 + r * d;
            const double *p64 = w->pO64 + r * d;
            if (fp64) {
                double lam = exp((double)ms - (double)M);
                om64 = om64 + lam * w->pom64[r];
                for (int t = 0; t < d; t++) o64[t] = o64[t] + lam * p64[t];
            } else {
                float lam = use_expf ? expf(ms - M) : (float)exp((double)ms - (double)M);
                om32 = om32 + lam * w->pom32[r];
                for (int t = 0; t < d; t++) o32[t] = o32[t] + lam * p32[t];
            }
        }
        g->om32[j] = om32;
        g->om64[j] = om64;
    }
}
