/* bench_engine — wall time of the golden engine on one head, N = 2048, d = 128, non-causal,
 * tau = 0.5, LampAttention hardware mode, against a native fp32 FlashAttention-2 in plain C
 * (same tiling, same binary); 1 vs 2 threads; pure 8-bit and 16-bit baselines.
 * Usage: bench_engine [N] [reps]. Not a ctest test. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "../engine/eng_testutil.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double run_mode(const ls_attn_inputs *in, ls_engine_mode mode, int threads, int reps, ls_engine_result *keep)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.mode = mode;
    p.threads = threads;
    p.compute_reference = false;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        ls_engine_result res;
        char err[256];
        double t0 = now();
        if (ls_engine_run(&p, in, &res, err, sizeof err) != 0) {
            fprintf(stderr, "engine: %s\n", err);
            exit(1);
        }
        double t = now() - t0;
        if (t < best) best = t;
        if (keep && r == reps - 1) *keep = res;
        else ls_engine_result_free(&res);
    }
    return best;
}

static double native_time(const ls_attn_inputs *in, int reps)
{
    int n = in->seq_q, d = in->dim;
    float *o = malloc((size_t)n * d * sizeof(float));
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        ls_engine_fa2_native_head(in->q, in->k, in->v, o, n, in->seq_k, d, false, 128, 64);
        double t = now() - t0;
        if (t < best) best = t;
    }
    free(o);
    return best;
}

static void bench(const char *name, const ls_attn_inputs *in, int reps)
{
    double tnat = native_time(in, reps);
    ls_engine_result lr;
    double t1 = run_mode(in, LS_ENGINE_MODE_LAMP, 1, reps, &lr);
    double t2 = run_mode(in, LS_ENGINE_MODE_LAMP, 2, reps, NULL);
    double t8 = run_mode(in, LS_ENGINE_MODE_PURE_8BIT, 1, reps, NULL);
    double t16 = run_mode(in, LS_ENGINE_MODE_FA2_16BIT, 1, reps, NULL);
    double t32 = run_mode(in, LS_ENGINE_MODE_FA2_FP32, 1, reps, NULL);
    printf("workload %s: one head, N=%d, d=%d, non-causal, tau=0.5, hardware mode, best of %d\n", name, in->seq_q,
           in->dim, reps);
    printf("  native fp32 FA2 (plain C)       %8.1f ms\n", 1e3 * tnat);
    printf("  engine fa2_fp32 mode            %8.1f ms  (%.2fx native)\n", 1e3 * t32, t32 / tnat);
    printf("  LampAttention, 1 thread         %8.1f ms  (%.2fx native)\n", 1e3 * t1, t1 / tnat);
    printf("  LampAttention, 2 threads        %8.1f ms  (speed-up %.2fx)\n", 1e3 * t2, t1 / t2);
    printf("  pure 8-bit, 1 thread            %8.1f ms  (%.2fx native)\n", 1e3 * t8, t8 / tnat);
    printf("  16-bit (e4m11/ue5m11), 1 thread %8.1f ms  (%.2fx native)\n", 1e3 * t16, t16 / tnat);
    printf("  LAMP: disruptive %.3f, sub-block rate %.3f, logit rate %.3f, hist [",
           lr.tiles.disruptive_rate, lr.recompute.subblock_rate, lr.recompute.logit_rate);
    for (int i = 0; i < lr.tiles.hist_len; i++) printf("%s%llu", i ? " " : "", (unsigned long long)lr.tiles.hp_subblocks_hist[i]);
    printf("], exact fixups %llu\n", (unsigned long long)lr.events.exact_fixups);
    ls_engine_result_free(&lr);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2048, reps = argc > 2 ? atoi(argv[2]) : 3, d = 128;
    ls_attn_inputs in;
    /* (a) Gaussian rows (std 1) with an attention sink (+4 on key 0): paper-like recompute rates */
    if (tu_inputs_gauss(&in, 12345, 1, 1, 1, n, n, d, 0, 1.0) != 0) return 1;
    tu_add_sink(&in, 7, 4.0);
    bench("gauss+sink", &in, reps);
    ls_attn_inputs_release(&in);
    /* (b) QK-norm rows, gains in [1, 3], no structure: stage 1 fails often (worst case) */
    if (tu_inputs_qknorm(&in, 12345, 1, 1, 1, n, n, d, 0, 1.0, 3.0) != 0) return 1;
    bench("qknorm-random", &in, reps);
    ls_attn_inputs_release(&in);
    return 0;
}
