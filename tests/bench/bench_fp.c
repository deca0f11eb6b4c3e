/* bench_fp — throughput of the emulated arithmetic, as ratios to native fp32 measured in the same
 * run (performance.md): array rounding, and a 64x64 logit tile over d = 128 accumulated in e4m3 and
 * e4m11 under the paper and exact models, vectorised and scalar. Not a test: run `make bench`. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lsfp.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median over 5 samples of the time per call, each sample running >= 50 ms. */
typedef void (*bench_fn)(void *ctx);
static double time_per_call(bench_fn fn, void *ctx)
{
    double samples[5];
    long reps = 1;
    for (;;) {   /* calibrate */
        double t0 = now();
        for (long r = 0; r < reps; r++) fn(ctx);
        if (now() - t0 > 0.05) break;
        reps *= 2;
    }
    for (int s = 0; s < 5; s++) {
        double t0 = now();
        for (long r = 0; r < reps; r++) fn(ctx);
        samples[s] = (now() - t0) / (double)reps;
    }
    qsort(samples, 5, sizeof samples[0], cmp_double);
    return samples[2];
}

static uint64_t g_state = 12345;
static double gauss(void)
{
    lsfp_rng r = {g_state};
    double u1 = ((double)(lsfp_rng_next(&r) >> 11) + 0.5) * 0x1p-53;
    double u2 = (double)(lsfp_rng_next(&r) >> 11) * 0x1p-53;
    g_state = r.state;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

enum { NK = 64, NQ = 64, D = 128, NARR = 1 << 16 };
typedef struct {
    float K[NK * D], Qt[D * NQ], Y[NK * NQ];
    float in[NARR], out[NARR];
    lsfp_accum spec;
    const lsfp_format *fmt;
} ctx_t;

static volatile float g_sink;

static void run_tile(void *p)
{
    ctx_t *c = p;
    lsfp_logit_tile(&c->spec, c->K, D, c->Qt, NQ, NK, NQ, D, c->Y, NQ, NULL);
    g_sink = c->Y[5];
}
static void run_tile_fp32(void *p)
{
    ctx_t *c = p;
    lsfp_logit_tile_fp32(c->K, D, c->Qt, NQ, NK, NQ, D, c->Y, NQ);
    g_sink = c->Y[5];
}
static void run_round(void *p)
{
    ctx_t *c = p;
    lsfp_round_array(c->fmt, c->in, c->out, NARR, NULL);
    g_sink = c->out[7];
}
/* Native reference for array rounding: a plain fp32 scale-and-store loop of the same size. */
static void run_scale_fp32(void *p)
{
    ctx_t *c = p;
    for (int i = 0; i < NARR; i++) c->out[i] = c->in[i] * 0.5f;
    g_sink = c->out[7];
}

int main(void)
{
    ctx_t *c = calloc(1, sizeof *c);
    if (!c) return 1;
    const float scale = 1.0f / sqrtf((float)D);
    for (int i = 0; i < NK * D; i++) c->K[i] = (float)gauss();
    for (int i = 0; i < D * NQ; i++) c->Qt[i] = (float)gauss() * scale;
    for (int i = 0; i < NARR; i++) c->in[i] = (float)(gauss() * 8.0);

    printf("lampsim bench_fp: one core, %s kernels available\n", lsfp_have_avx2() ? "AVX2+FMA" : "scalar only");
    const double macs = (double)NK * NQ * D;
    double t_native = time_per_call(run_tile_fp32, c);
    printf("native fp32 64x64x128 logit tile (plain C):  %7.2f G MAC/s\n", macs / t_native * 1e-9);

    const struct { lsfp_named fmt; lsfp_acc_model model; const char *name; } cases[] = {
        {LSFP_E4M3, LSFP_ACC_PAPER, "e4m3  paper (fp32 fma, then round)"},
        {LSFP_E4M3, LSFP_ACC_EXACT, "e4m3  exact (single rounding)     "},
        {LSFP_E4M11, LSFP_ACC_PAPER, "e4m11 paper (fp32 fma, then round)"},
        {LSFP_E4M11, LSFP_ACC_EXACT, "e4m11 exact (single rounding)     "},
    };
    for (int scalar = 0; scalar <= 1; scalar++) {
        lsfp_set_force_scalar(scalar);
        printf("%s kernels:\n", scalar ? "scalar" : "vectorised");
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            c->spec = (lsfp_accum){.fmt = lsfp_named_format(cases[k].fmt), .model = cases[k].model,
                                   .order = LSFP_ORDER_ASCENDING, .chunk_k = 1};
            double t = time_per_call(run_tile, c);
            printf("  %s  %7.2f G MAC/s  %6.2fx slower than native fp32\n", cases[k].name, macs / t * 1e-9, t / t_native);
        }
        c->fmt = lsfp_named_format(LSFP_E4M3);
        double t_arr = time_per_call(run_round, c), t_arr_native = time_per_call(run_scale_fp32, c);
        printf("  e4m3 array rounding               %7.2f G elem/s  %6.2fx the time of a native fp32 scale loop\n",
               NARR / t_arr * 1e-9, t_arr / t_arr_native);
    }
    lsfp_set_force_scalar(0);
    free(c);
    return 0;
}
