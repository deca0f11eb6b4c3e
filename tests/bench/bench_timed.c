/* bench_timed — the timed model's cost over the golden engine: one head, N = 2048, d = 128
 * (default configuration otherwise: causal, QK-norm inputs, lamp), single-threaded golden vs the
 * SystemC timed run, by default (golden engine first, the units replay its records) and with the
 * units computing the numerics (unit_numerics), best of `reps`; prints the ratios (target <= 1.3). Then the
 * cycles of the three shipped microprograms on the embedded default workload.
 * Usage: bench_timed [N] [reps] [causal|noncausal]. Not a ctest test. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../timed/timed_testutil.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2048, reps = argc > 2 ? atoi(argv[2]) : 3;
    char sq[64], sk[64];
    snprintf(sq, sizeof sq, "workload.seq_q=%d", n);
    snprintf(sk, sizeof sk, "workload.seq_k=%d", n);
    int causal = !(argc > 3 && !strcmp(argv[3], "noncausal"));
    const char *ov[] = { sq, sk, "workload.heads_q=1", "workload.heads_kv=1", "workload.dim=128",
                         causal ? "workload.causal=true" : "workload.causal=false" };
    tt_case c;
    if (tt_setup(&c, ov, 6) != 0) return 1;
    char err[512];
    double tg = 1e30, tt = 1e30, tu = 1e30;
    ls_timed_result keep;
    memset(&keep, 0, sizeof keep);
    ls_timed_options uo;
    ls_timed_options_default(&uo);
    uo.unit_numerics = 1;
    for (int r = 0; r < reps; r++) {
        ls_engine_result g, t, u;
        ls_timed_result tr, tru;
        double t0 = now();
        if (ls_engine_run(&c.ep, &c.in, &g, err, sizeof err) != 0) { fprintf(stderr, "golden: %s\n", err); return 1; }
        double t1 = now();
        if (ls_timed_run(&c.cfg, &c.ep, &c.in, &t, &tr, err, sizeof err) != 0) { fprintf(stderr, "timed: %s\n", err); return 1; }
        double t2 = now();
        if (ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &uo, &u, &tru, err, sizeof err) != 0) {
            fprintf(stderr, "timed (units' numerics): %s\n", err);
            return 1;
        }
        double t3 = now();
        if (t1 - t0 < tg) tg = t1 - t0;
        if (t2 - t1 < tt) tt = t2 - t1;
        if (t3 - t2 < tu) tu = t3 - t2;
        keep = tr;
        ls_engine_result_free(&g);
        ls_engine_result_free(&t);
        ls_engine_result_free(&u);
    }
    printf("one head N=%d d=128 %s lamp: golden %.3f s, timed %.3f s (golden first), %.3f s (units' numerics), "
           "ratios timed/golden %.3f and %.3f (target <= 1.3)\n",
           n, causal ? "causal" : "non-causal", tg, tt, tu, tt / tg, tu / tg);
    ls_timed_summary(stdout, &keep);
    /* timing-only change replayed from the numerics cache */
    {
        ls_timed_options o;
        ls_timed_options_default(&o);
        o.reuse_numerics = 1;
        ls_engine_result t;
        ls_timed_result tr;
        if (ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &t, &tr, err, sizeof err) != 0) { fprintf(stderr, "%s\n", err); return 1; }
        ls_engine_result_free(&t);
        c.cfg.accelerator.regfile.layout = LSREGFILE_FULL;
        double t0 = now();
        if (ls_timed_run_opts(&c.cfg, &c.ep, &c.in, &o, &t, &tr, err, sizeof err) != 0) { fprintf(stderr, "%s\n", err); return 1; }
        double t1 = now();
        printf("replay of the same numerics with layout full: %.3f s (reused %d, %.3f x golden), %llu cycles\n", t1 - t0,
               tr.numerics_reused, (t1 - t0) / tg, (unsigned long long)tr.cycles);
        ls_engine_result_free(&t);
        ls_timed_cache_clear();
    }
    tt_free(&c);
    const char *modes[] = { "lamp", "fa2_16bit", "pure_8bit" };
    printf("\nshipped programs on the embedded default (configs/default.yaml):\n");
    for (int m = 0; m < 3; m++) {
        char mo[64];
        snprintf(mo, sizeof mo, "algorithm.mode=%s", modes[m]);
        const char *o1[] = { mo };
        if (tt_setup(&c, o1, 1) != 0) return 1;
        ls_engine_result t;
        ls_timed_result tr;
        if (ls_timed_run(&c.cfg, &c.ep, &c.in, &t, &tr, err, sizeof err) != 0) { fprintf(stderr, "timed: %s\n", err); return 1; }
        printf("  %-14s %-13s cycles %9llu  %.2f us  %.1f TFLOP/s  slow-path tiles %llu  wall %.3f s\n", tr.program,
               tr.layout, (unsigned long long)tr.cycles, tr.time_us, tr.tflops_effective,
               (unsigned long long)tr.slow_tiles, tr.wall_seconds);
        ls_engine_result_free(&t);
        tt_free(&c);
    }
    return 0;
}
