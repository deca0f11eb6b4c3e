/* bench_head — issue 13's yardstick: a bit-exact LampAttention head against an OpenBLAS fp32
 * attention head (two sgemm and a row softmax, one thread), CPU time, every ratio measured pair by
 * pair in the same run (A B A B ...) and reported as the median of the pairs:
 *  - the engine alone (C API, hardware mode, no fp64 reference), target <= 3.5x;
 *  - `lampsim run --golden` of the same head, whole process, reference off (<= 4x) and on (<= 8x);
 *  - engine cost per multiply-add at d = 64 and d = 256 over d = 128, bf16 inputs (<= 1.3x);
 *  - a 4096-token layer (the default workload, seq 4096): timed/golden peak RSS (<= 1.5x) and CPU
 *    time (<= 1.15x), whole processes;
 *  - how the engine and the OpenBLAS head scale with N (1024..4096) and d (64..256): exponents;
 *  - a timing-only validation point (configs/validation/fa2_h100_d128.yaml, seq 4096): the timed
 *    model's share of the process (wall clock: run_info.json has the timed model's wall time).
 * The head is the default workload (QK-norm, bf16) with 1 head, N = 2048, d = 128, non-causal,
 * tau 0.5. Usage: bench_head LAMPSIM CONFIG_DIR [pairs]. Not a ctest test: nothing is asserted. */
#define _GNU_SOURCE   /* wait4, setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>

#include "config.h"
#include "engine.h"
#include "run.h"
#include "workload.h"

void openblas_set_num_threads(int n);   /* OpenBLAS extensions (not in every cblas.h) */
char *openblas_get_corename(void);

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Least-squares slope of log2 t over three points a factor of two apart. */
static double slope3(const double t[3])
{
    return (log2(t[2]) - log2(t[0])) / 2.0;
}

/* fp32 attention of one head: S = Q K^T / sqrt(d), row softmax, O = P V. */
static void blas_head(const float *q, const float *k, const float *v, float *o, float *s, int n, int d)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, d, 1.0f / sqrtf((float)d), q, d, k, d, 0.0f, s, n);
    for (int i = 0; i < n; i++) {
        float *r = s + (size_t)i * n, mx = -INFINITY, sum = 0.0f;
        for (int j = 0; j < n; j++) mx = r[j] > mx ? r[j] : mx;
        for (int j = 0; j < n; j++) { r[j] = expf(r[j] - mx); sum += r[j]; }
        for (int j = 0; j < n; j++) r[j] /= sum;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, d, n, 1.0f, s, n, v, d, 0.0f, o, d);
}

typedef struct { ls_attn_inputs in; float *o, *s; } head;

static int head_build(head *h, int n, int d, const char *dtype)
{
    char sq[48], sk[48], sd[48], dt[48];
    snprintf(sq, sizeof sq, "workload.seq_q=%d", n);
    snprintf(sk, sizeof sk, "workload.seq_k=%d", n);
    snprintf(sd, sizeof sd, "workload.dim=%d", d);
    snprintf(dt, sizeof dt, "workload.dtype=%s", dtype);
    const char *ov[] = { sq, sk, sd, dt, "workload.heads_q=1", "workload.heads_kv=1", "workload.causal=false" };
    ls_config cfg;
    ls_config_diag dg;
    char err[512];
    memset(h, 0, sizeof *h);
    if (ls_config_load(&cfg, NULL, ov, 7, &dg) != 0) { fprintf(stderr, "config: %s\n", dg.message); return -1; }
    int rc = ls_workload_build(&cfg, NULL, &h->in, NULL, err, sizeof err);
    ls_config_free(&cfg);
    if (rc) { fprintf(stderr, "workload: %s\n", err); return -1; }
    h->o = malloc((size_t)n * d * sizeof(float));
    h->s = malloc((size_t)n * n * sizeof(float));
    return h->o && h->s ? 0 : -1;
}

static void head_free(head *h)
{
    ls_attn_inputs_release(&h->in);
    free(h->o);
    free(h->s);
}

static double time_blas(head *h)
{
    double t0 = cpu_now();
    blas_head(h->in.q, h->in.k, h->in.v, h->o, h->s, h->in.seq_q, h->in.dim);
    return cpu_now() - t0;
}

static double time_engine(const head *h)
{
    ls_engine_params p;
    ls_run_engine_defaults(&p);
    p.threads = 1;
    p.compute_reference = false;
    ls_engine_result r;
    char err[256];
    double t0 = cpu_now();
    if (ls_engine_run(&p, &h->in, &r, err, sizeof err) != 0) { fprintf(stderr, "engine: %s\n", err); exit(1); }
    double t = cpu_now() - t0;
    ls_engine_result_free(&r);
    return t;
}

/* Runs argv (NULL-terminated) as a child with its output discarded; CPU seconds (user + system)
 * and peak RSS in MiB of the child, from the kernel's accounting. */
static double time_child(char *const *argv, double *rss_mib)
{
    fflush(stdout);   /* the child must not inherit (and print) this process's buffered output */
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_head: %s failed (status %d)\n", argv[0], st);
        exit(1);
    }
    if (rss_mib) *rss_mib = (double)ru.ru_maxrss / 1024.0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

#define MAXP 64

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: bench_head LAMPSIM CONFIG_DIR [pairs]\n"); return 2; }
    char *lampsim = argv[1];
    const char *cfgdir = argv[2];
    int pairs = argc > 3 ? atoi(argv[3]) : 5;
    if (pairs < 1) pairs = 1;
    if (pairs > MAXP) pairs = MAXP;
    /* OpenBLAS picks its kernels from the CPU model; on a CPU it does not recognise (a virtual
     * machine's masked model) it falls back to Prescott (SSE3) kernels, about 4x slower: name the
     * family the CPU's features allow, before the library initialises (so: re-run ourselves). */
    if (!getenv("OPENBLAS_CORETYPE")) {
        __builtin_cpu_init();
        const char *core = __builtin_cpu_supports("avx512f") ? "SkylakeX" : __builtin_cpu_supports("avx2") ? "Haswell" : NULL;
        if (core) {
            setenv("OPENBLAS_CORETYPE", core, 1);
            execv("/proc/self/exe", argv);
            perror("bench_head: re-exec with OPENBLAS_CORETYPE");
        }
    }
    openblas_set_num_threads(1);
    const int n = 2048, d = 128;
    head h;
    if (head_build(&h, n, d, "bf16") != 0) return 1;
    char *cli_ref[] = { lampsim, "run", "--golden", "--quiet", "--set", "workload.heads_q=1", "--set",
                        "workload.heads_kv=1", "--set", "workload.seq_q=2048", "--set", "workload.seq_k=2048",
                        "--set", "workload.causal=false", "--set", "algorithm.threads=1", NULL, NULL, NULL };
    char *cli_noref[sizeof cli_ref / sizeof cli_ref[0]];
    memcpy(cli_noref, cli_ref, sizeof cli_ref);
    cli_noref[16] = "--set";
    cli_noref[17] = "algorithm.compute_reference=false";

    double tb[MAXP], te[MAXP], tn[MAXP], tr[MAXP], re[MAXP], rn[MAXP], rr[MAXP];
    (void)time_blas(&h);   /* warm-up */
    for (int i = 0; i < pairs; i++) {
        tb[i] = time_blas(&h);
        te[i] = time_engine(&h);
        re[i] = te[i] / time_blas(&h);
        tn[i] = time_child(cli_noref, NULL);
        rn[i] = tn[i] / time_blas(&h);
        tr[i] = time_child(cli_ref, NULL);
        rr[i] = tr[i] / time_blas(&h);
    }
    printf("bench_head: one head N=%d d=%d non-causal, tau 0.5, hardware mode, bf16 QK-norm inputs; one thread,\n"
           "CPU seconds, median of %d pairs, each ratio taken against an OpenBLAS run in the same pair\n", n, d, pairs);
    printf("  OpenBLAS fp32 head (2 sgemm + softmax)       %8.1f ms   1x  (OpenBLAS kernels: %s)\n",
           1e3 * median(tb, pairs), openblas_get_corename());
    printf("  engine only (C API, no reference)            %8.1f ms   %5.2fx  (target <= 3.5x)\n", 1e3 * median(te, pairs),
           median(re, pairs));
    printf("  lampsim run --golden, compute_reference off  %8.1f ms   %5.2fx  (target <= 4x, whole process)\n",
           1e3 * median(tn, pairs), median(rn, pairs));
    printf("  lampsim run --golden, compute_reference on   %8.1f ms   %5.2fx  (target <= 8x, whole process)\n",
           1e3 * median(tr, pairs), median(rr, pairs));
    head_free(&h);

    /* per multiply-add cost over the head dimension, bf16 inputs, engine only */
    head hd[3];
    const int dims[3] = { 64, 128, 256 };
    for (int j = 0; j < 3; j++)
        if (head_build(&hd[j], n, dims[j], "bf16") != 0) return 1;
    double r64[MAXP], r256[MAXP], t64[MAXP], t128[MAXP], t256[MAXP], bd[3][MAXP];
    for (int i = 0; i < pairs; i++) {
        t64[i] = time_engine(&hd[0]);
        t128[i] = time_engine(&hd[1]);
        t256[i] = time_engine(&hd[2]);
        r64[i] = (t64[i] / 64) / (t128[i] / 128);
        r256[i] = (t256[i] / 256) / (t128[i] / 128);
        for (int j = 0; j < 3; j++) bd[j][i] = time_blas(&hd[j]);
    }
    double ed[3] = { median(t64, pairs), median(t128, pairs), median(t256, pairs) };
    printf("  engine per MAC, bf16 inputs: d=64 %.1f ms (%.2fx d=128 per MAC), d=128 %.1f ms, d=256 %.1f ms (%.2fx)"
           "  (target <= 1.3x)\n", 1e3 * ed[0], median(r64, pairs), 1e3 * ed[1], 1e3 * ed[2], median(r256, pairs));
    double bdm[3] = { median(bd[0], pairs), median(bd[1], pairs), median(bd[2], pairs) };
    for (int j = 0; j < 3; j++) head_free(&hd[j]);

    /* scaling: time ~ N^a (d = 128) and ~ d^b (N = 2048), least-squares slopes over three doublings' points */
    const int ns[3] = { 1024, 2048, 4096 };
    double en[3], bn[3];
    for (int j = 0; j < 3; j++) {
        head hn;
        double te1[MAXP], tb1[MAXP];
        if (head_build(&hn, ns[j], 128, "bf16") != 0) return 1;
        for (int i = 0; i < pairs; i++) { te1[i] = time_engine(&hn); tb1[i] = time_blas(&hn); }
        en[j] = median(te1, pairs);
        bn[j] = median(tb1, pairs);
        head_free(&hn);
    }
    printf("  scaling, engine only: N=1024/2048/4096 %.1f/%.1f/%.1f ms, exponent in N %.2f; d=64/128/256 exponent %.2f\n",
           1e3 * en[0], 1e3 * en[1], 1e3 * en[2], slope3(en), slope3(ed));
    printf("  scaling, OpenBLAS head: N=1024/2048/4096 %.1f/%.1f/%.1f ms, exponent in N %.2f; d=64/128/256 %.1f/%.1f/%.1f"
           " ms, exponent %.2f\n", 1e3 * bn[0], 1e3 * bn[1], 1e3 * bn[2], slope3(bn), 1e3 * bdm[0], 1e3 * bdm[1],
           1e3 * bdm[2], slope3(bdm));

    /* a 4096-token layer of the default workload: timed model (default: golden engine first, the
     * units replay its records) vs golden engine, whole processes, fp64 reference on and off */
    for (int ref = 1; ref >= 0; ref--) {
        char *refset = ref ? "algorithm.compute_reference=true" : "algorithm.compute_reference=false";
        char *layer_t[] = { lampsim, "run", "--quiet", "--set", "workload.seq_q=4096", "--set", "workload.seq_k=4096",
                            "--set", "algorithm.threads=1", "--set", refset, NULL, NULL };
        char *layer_g[] = { lampsim, "run", "--quiet", "--set", "workload.seq_q=4096", "--set", "workload.seq_k=4096",
                            "--set", "algorithm.threads=1", "--set", refset, "--golden", NULL };
        int lp = pairs < 3 ? pairs : 3;
        double lt[MAXP], lrss[MAXP], ltr[MAXP], mt = 0, mg = 0;
        for (int i = 0; i < lp; i++) {
            double rt, rg;
            double tt = time_child(layer_t, &rt), tg = time_child(layer_g, &rg);
            lt[i] = tt / tg;
            lrss[i] = rt / rg;
            ltr[i] = tt;
            mt = rt; mg = rg;
        }
        printf("  4096-token layer (default workload, reference %s): timed/golden CPU %.2fx (target <= 1.15x), peak RSS"
               " %.0f/%.0f MiB = %.2fx (target <= 1.5x); timed run %.2f s\n", ref ? "on" : "off", median(lt, lp), mt,
               mg, median(lrss, lp), median(ltr, lp));
    }

    /* a timing-only validation point: the whole process vs the timed model inside it (run_info) */
    char cfg[1024], out[] = "/tmp/lampsim_bench_head_XXXXXX";
    snprintf(cfg, sizeof cfg, "%s/validation/fa2_h100_d128.yaml", cfgdir);
    if (!mkdtemp(out)) { perror("mkdtemp"); return 1; }
    char *vp[] = { lampsim, "run", cfg, "--quiet", "--force", "-o", out, "--set", "workload.seq_q=4096", "--set",
                   "workload.seq_k=4096", NULL };
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    double tv = time_child(vp, NULL), tm = -1;
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    char info[1200];
    snprintf(info, sizeof info, "%s/run_info.json", out);
    FILE *f = fopen(info, "r");
    for (char line[256]; f && fgets(line, sizeof line, f);)
        if (strstr(line, "\"wall_seconds\"")) tm = atof(strchr(line, ':') + 1);
    if (f) fclose(f);
    printf("  timing-only validation point (fa2_h100_d128, seq 4096): process %.2f s CPU, %.2f s wall, of which the"
           " timed model %.2f s wall (%.0f%%)\n", tv, wall, tm, 100.0 * tm / wall);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    if (system(cmd) != 0) fprintf(stderr, "bench_head: could not remove %s\n", out);
    return 0;
}
