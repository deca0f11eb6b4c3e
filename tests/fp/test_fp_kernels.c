/* fp_kernels — the vectorised kernels (AVX2 when present) and the scalar kernels must be
 * bit-identical, and the tile kernel must equal lsfp_dot element by element (lsfp.h: "each
 * accumulated as lsfp_dot would") and the independent reference ref_dot:
 *  - lsfp_round_array with lsfp_set_force_scalar(true/false): random arrays of awkward lengths and
 *    offsets, e4m3/e4m11/ue5m3-S/bf16/fp16, RNE and RTZ: same outputs, flags and event counts;
 *  - lsfp_logit_tile for e4m3 and e4m11 (and PS(3), PS(11), bf16 accumulators), PAPER and EXACT, RNE and RTZ, chunk_k 1 and 16, ascending
 *    and descending, shapes that are not multiples of 8 and leading dimensions larger than the
 *    widths: scalar == vector bitwise, == lsfp_dot per element, == ref_dot per element, padding
 *    of Y beyond nq left untouched, identical event counters (exact fix-ups included), with random
 *    and bf16-grid operands (the latter hit decision boundaries often: the vector fix-up path);
 *  - lsfp_logit_tile_fp32 equals a plain fp32 multiply-add loop;
 *  - the P.V update (lsfp_pv_update_f32/_f64) of every kernel family equals the plain loop;
 *  - the fp64 reference kernels (lsfp_dot_f64, _rows, lsfp_gemv_t_f64) equal their definitions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fp_test_util.h"

static void check_round_array(void)
{
    static const lsfp_named ids[] = {LSFP_E4M3, LSFP_E4M11, LSFP_UE5M3_S, LSFP_BF16, LSFP_FP16};
    static const size_t lens[] = {1, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1023, 4096 + 5};
    trng g;
    trng_seed(&g, 31);
    float *in = malloc(8192 * sizeof(float)), *o1 = malloc(8192 * sizeof(float)), *o2 = malloc(8192 * sizeof(float));
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        for (int rtz = 0; rtz < 2; rtz++) {
            lsfp_format f = *lsfp_named_format(ids[i]);
            f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
            ref_fmt r;
            ref_fmt_from(&r, &f);
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
                for (size_t off = 0; off < 3; off++) {
                    size_t n = lens[li];
                    for (size_t k = 0; k < n + off; k++) {
                        uint32_t kind = trng_u32(&g) % 4;
                        in[k] = kind == 0 ? bits_f(trng_u32(&g)) : rand_in_range(&g, &r);
                        if (!f.is_signed) in[k] = fabsf(in[k]);
                    }
                    lsfp_events e1 = {0};
                    lsfp_set_force_scalar(true);
                    unsigned f1 = lsfp_round_array(&f, in + off, o1, n, &e1);
                    for (int isa = LSFP_ISA_AVX2; isa <= (int)lsfp_isa_best(); isa++) {   /* every vector family */
                        lsfp_events e2 = {0};
                        lsfp_set_isa_limit((lsfp_isa)isa);
                        unsigned f2 = lsfp_round_array(&f, in + off, o2, n, &e2);
                        long bad = 0;
                        for (size_t k = 0; k < n; k++) bad += !same_float(o1[k], o2[k]);
                        CHECK_MSG(bad == 0 && f1 == f2, "%s rtz=%d n=%zu off=%zu %s: %ld differences, flags %#x vs %#x",
                                  f.name, rtz, n, off, lsfp_isa_name((lsfp_isa)isa), bad, f1, f2);
                        CHECK(e1.saturations == e2.saturations && e1.underflows == e2.underflows &&
                              e1.overflows == e2.overflows);
                    }
                    lsfp_set_force_scalar(false);
                }
        }
    free(in);
    free(o1);
    free(o2);
}

typedef struct { int nk, nq, d, ldk_pad, ldq_pad, ldy_pad; } shape;

static long g_tiles;

static long g_fixups;   /* exact slow-path steps seen (scalar path): the boundary cases were exercised */
static long g_fast_tiles, g_fast_sat_tiles;   /* AVX-512 fast form used; and with saturations (redone blocks) */

/* bf16_in: operands on the bf16 grid, as the workloads' default dtype: decision-boundary sums are
 * then common (the exact model's fix-up path). */
static void check_tile(const lsfp_accum *spec, const shape *sh, float scale, int bf16_in, trng *g, const char *label)
{
    int ldk = sh->d + sh->ldk_pad, ldq = sh->nq + sh->ldq_pad, ldy = sh->nq + sh->ldy_pad;
    float *K = malloc(sizeof(float) * (size_t)sh->nk * ldk), *Qt = malloc(sizeof(float) * (size_t)sh->d * ldq);
    float *Y1 = malloc(sizeof(float) * (size_t)sh->nk * ldy), *Y2 = malloc(sizeof(float) * (size_t)sh->nk * ldy);
    float *col = malloc(sizeof(float) * (size_t)sh->d);
    double qs = scale / sqrt((double)sh->d);
    for (int i = 0; i < sh->nk * ldk; i++) K[i] = (float)trng_gauss(g);
    for (int i = 0; i < sh->d * ldq; i++) Qt[i] = (float)(trng_gauss(g) * qs);
    if (bf16_in) {
        lsfp_round_array(lsfp_named_format(LSFP_BF16), K, K, (size_t)sh->nk * ldk, NULL);
        lsfp_round_array(lsfp_named_format(LSFP_BF16), Qt, Qt, (size_t)sh->d * ldq, NULL);
    }
    const float sentinel = -12345.0f;
    for (int i = 0; i < sh->nk * ldy; i++) Y1[i] = Y2[i] = sentinel;
    lsfp_events e1 = {0}, e2 = {0};
    lsfp_set_force_scalar(true);
    lsfp_logit_tile(spec, K, ldk, Qt, ldq, sh->nk, sh->nq, sh->d, Y1, ldy, &e1);
    /* every vector family the CPU has must give the scalar bits (AVX2 alone, then AVX-512 + AVX2 tails) */
    for (int isa = LSFP_ISA_AVX2; isa < (int)lsfp_isa_best(); isa++) {
        float *Y3 = malloc(sizeof(float) * (size_t)sh->nk * ldy);
        lsfp_events e3 = {0};
        for (int i = 0; i < sh->nk * ldy; i++) Y3[i] = sentinel;
        lsfp_set_isa_limit((lsfp_isa)isa);
        lsfp_logit_tile(spec, K, ldk, Qt, ldq, sh->nk, sh->nq, sh->d, Y3, ldy, &e3);
        long bad3 = 0;
        for (int i = 0; i < sh->nk * ldy; i++) bad3 += !same_float(Y1[i], Y3[i]);
        CHECK_MSG(bad3 == 0 && e3.saturations == e1.saturations &&
                  (e3.exact_fixups == e1.exact_fixups || lsfp_logit_tile_fast(spec)),
                  "%s (%s): %ld scalar/vector differences", label, lsfp_isa_name((lsfp_isa)isa), bad3);
        free(Y3);
    }
    lsfp_set_force_scalar(false);
    lsfp_logit_tile(spec, K, ldk, Qt, ldq, sh->nk, sh->nq, sh->d, Y2, ldy, &e2);
    int fast = lsfp_logit_tile_fast(spec);   /* the fast form takes no slow path: fix-ups not comparable */
    g_fast_tiles += fast && sh->nq >= 16;
    g_fast_sat_tiles += fast && sh->nq >= 16 && e2.saturations > 0;
    ref_fmt r;
    ref_fmt_from(&r, spec->fmt);
    long bad_sv = 0, bad_dot = 0, bad_ref = 0, bad_pad = 0;
    for (int i = 0; i < sh->nk; i++) {
        for (int j = sh->nq; j < ldy; j++) bad_pad += !same_float(Y1[i * ldy + j], sentinel) + !same_float(Y2[i * ldy + j], sentinel);
        for (int j = 0; j < sh->nq; j++) {
            float y1 = Y1[i * ldy + j], y2 = Y2[i * ldy + j];
            for (int k = 0; k < sh->d; k++) col[k] = Qt[k * ldq + j];
            float yd = lsfp_dot(spec, K + (size_t)i * ldk, col, sh->d, NULL);
            float yr = ref_dot(&r, ref_mode_of(spec->fmt->rounding), spec->model, spec->order, spec->chunk_k,
                               K + (size_t)i * ldk, col, sh->d);
            if (!same_float(y1, y2) && bad_sv++ < 3)
                fprintf(stderr, "%s [%d,%d]: scalar %a, vector %a\n", label, i, j, (double)y1, (double)y2);
            if (!same_float(y1, yd) && bad_dot++ < 3)
                fprintf(stderr, "%s [%d,%d]: tile %a, lsfp_dot %a\n", label, i, j, (double)y1, (double)yd);
            if (!same_float(yd, yr) && bad_ref++ < 3)
                fprintf(stderr, "%s [%d,%d]: lsfp_dot %a, reference %a\n", label, i, j, (double)yd, (double)yr);
        }
    }
    CHECK_MSG(bad_sv == 0, "%s: %ld scalar/vector differences", label, bad_sv);
    CHECK_MSG(bad_dot == 0, "%s: %ld tile/dot differences", label, bad_dot);
    CHECK_MSG(bad_ref == 0, "%s: %ld dot/reference differences", label, bad_ref);
    CHECK_MSG(bad_pad == 0, "%s: %ld writes beyond nq", label, bad_pad);
    CHECK_MSG(e1.saturations == e2.saturations && e1.underflows == e2.underflows && e1.overflows == e2.overflows &&
              (e1.exact_fixups == e2.exact_fixups || fast),
              "%s: events differ scalar/vector (sat %llu/%llu, unf %llu/%llu, fixups %llu/%llu)", label,
              (unsigned long long)e1.saturations, (unsigned long long)e2.saturations,
              (unsigned long long)e1.underflows, (unsigned long long)e2.underflows,
              (unsigned long long)e1.exact_fixups, (unsigned long long)e2.exact_fixups);
    g_fixups += (long)e1.exact_fixups;
    g_tiles++;
    free(K); free(Qt); free(Y1); free(Y2); free(col);
}

static void check_tiles(void)
{
    static const shape shapes[] = {
        {1, 1, 1, 0, 0, 0}, {3, 5, 7, 1, 3, 2}, {8, 8, 16, 0, 0, 0}, {9, 13, 33, 2, 5, 3},
        {16, 17, 64, 4, 1, 7}, {5, 24, 128, 0, 8, 0}, {11, 7, 130, 3, 2, 1}, {2, 40, 20, 1, 0, 9}};
    static const float scales[] = {1.0f, 6.0f, 40.0f, 400.0f};  /* 400: e4m3 saturates often */
    trng g;
    trng_seed(&g, 41);
    /* e4m3/e4m11 (native ranges) plus fp32-range accumulators: PS(3), PS(11) (paper_sim mode) and bf16. */
    lsfp_format fmts[5];
    fmts[0] = *lsfp_named_format(LSFP_E4M3);
    fmts[1] = *lsfp_named_format(LSFP_E4M11);
    lsfp_ps_format(&fmts[2], 3);
    lsfp_ps_format(&fmts[3], 11);
    fmts[4] = *lsfp_named_format(LSFP_BF16);
    for (int fi = 0; fi < 5; fi++)
        for (int rtz = 0; rtz < 2; rtz++)
            for (int model = 0; model < 2; model++)
                for (int chunk = 0; chunk < 2; chunk++)
                    for (int order = 0; order < 2; order++) {
                        lsfp_format f = fmts[fi];
                        f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
                        lsfp_accum spec = {.fmt = &f, .model = (lsfp_acc_model)model,
                                           .order = (lsfp_acc_order)order, .chunk_k = chunk ? 16 : 1};
                        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                            for (int bf = 0; bf < 2; bf++) {
                                if (fi >= 2 && s % 2) continue;  /* fewer shapes for the extra formats */
                                char label[160];
                                float sc = scales[(s + (size_t)model) % 4];
                                snprintf(label, sizeof label, "%s %s %s chunk%d %s %dx%dx%d scale %g%s", f.name,
                                         rtz ? "rtz" : "rne", model ? "exact" : "paper", spec.chunk_k,
                                         order ? "desc" : "asc", shapes[s].nk, shapes[s].nq, shapes[s].d, (double)sc,
                                         bf ? " bf16 inputs" : "");
                                check_tile(&spec, &shapes[s], sc, bf, &g, label);
                            }
                    }
}

/* lsfp_logit_tile_fp32: plain fp32 multiply and add, ascending k (compiled with -ffp-contract=off). */
static void check_tile_fp32(void)
{
    enum { NK = 13, NQ = 19, D = 37, LDK = 40, LDQ = 21, LDY = 23 };
    float K[NK * LDK], Qt[D * LDQ], Y[NK * LDY];
    trng g;
    trng_seed(&g, 43);
    for (int i = 0; i < NK * LDK; i++) K[i] = (float)trng_gauss(&g);
    for (int i = 0; i < D * LDQ; i++) Qt[i] = (float)trng_gauss(&g);
    for (int i = 0; i < NK * LDY; i++) Y[i] = -1.0f;
    lsfp_logit_tile_fp32(K, LDK, Qt, LDQ, NK, NQ, D, Y, LDY);
    long bad = 0;
    for (int i = 0; i < NK; i++) {
        for (int j = 0; j < NQ; j++) {
            float s = 0.0f;
            for (int k = 0; k < D; k++) {
                volatile float p = K[i * LDK + k] * Qt[k * LDQ + j];
                s = s + p;
            }
            bad += !same_float(Y[i * LDY + j], s);
        }
        for (int j = NQ; j < LDY; j++) bad += Y[i * LDY + j] != -1.0f;
    }
    CHECK_MSG(bad == 0, "lsfp_logit_tile_fp32: %ld entries differ from the plain fp32 loop", bad);
}

/* The exact model's boundary cases with a residual: a two-step dot product [x0, a] . [1, b] whose
 * fp32 sum fmaf(a, b, x0) lands exactly on a decision boundary m of the format (a midpoint for RNE,
 * a grid point for RTZ) while the exact x0 + a*b does not, so that the correct rounding differs
 * from rounding the fp32 sum. Vector == scalar == lsfp_dot == ref_dot on every lane. */
static void check_fixup_residuals(void)
{
    enum { NK = 8, NQ = 16, D = 2 };
    static const lsfp_named ids[] = {LSFP_E4M3, LSFP_E4M11, LSFP_BF16};
    trng g;
    trng_seed(&g, 53);
    long residual_cases = 0;
    for (size_t fi = 0; fi < sizeof ids / sizeof ids[0]; fi++)
        for (int rtz = 0; rtz < 2; rtz++) {
            lsfp_format f = *lsfp_named_format(ids[fi]);
            f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
            ref_fmt rf;
            ref_fmt_from(&rf, &f);
            lsfp_accum spec = {.fmt = &f, .model = LSFP_ACC_EXACT, .order = LSFP_ORDER_ASCENDING, .chunk_k = 1};
            for (int rep = 0; rep < 40; rep++) {
                float K[NK * D], Qt[D * NQ], Y1[NK * NQ], Y2[NK * NQ];
                for (int j = 0; j < NQ; j++) Qt[j] = 1.0f;
                for (int i = 0; i < NK; i++) {
                    /* boundary m above a grid point gv; x0 on the grid below m; a*b ~ m - x0, inexact */
                    float gv = lsfp_round(&f, (float)(ldexp(1.0 + trng_unit(&g), (int)(trng_next(&g) % 6))), NULL, NULL);
                    float m = rtz ? gv : (float)(0.5 * ((double)gv + (double)lsfp_decode(&f, lsfp_encode(&f, gv) + 1)));
                    float x0 = lsfp_round(&f, (float)(m * (0.25 + 0.5 * trng_unit(&g))), NULL, NULL);
                    double h = (double)m - (double)x0, u = ldexp(1.0, -(int)(1 + trng_next(&g) % 22));
                    float sg = (trng_next(&g) & 1) ? -1.0f : 1.0f;
                    K[i * D] = sg * x0;
                    K[i * D + 1] = sg * (float)(h * (1.0 + u));
                    for (int j = 0; j < NQ; j++) Qt[NQ + j] = i == 0 ? (float)(1.0 / (1.0 + u * (1 + j % 3))) : Qt[NQ + j];
                }
                lsfp_events e1 = {0}, e2 = {0};
                lsfp_set_force_scalar(true);
                lsfp_logit_tile(&spec, K, D, Qt, NQ, NK, NQ, D, Y1, NQ, &e1);
                lsfp_set_isa_limit((lsfp_isa)(rep % ((int)lsfp_isa_best() + 1)));   /* every family in turn */
                lsfp_logit_tile(&spec, K, D, Qt, NQ, NK, NQ, D, Y2, NQ, &e2);
                lsfp_set_force_scalar(false);
                long bad = 0;
                for (int i = 0; i < NK; i++)
                    for (int j = 0; j < NQ; j++) {
                        float a = K[i * D + 1], b = Qt[NQ + j], x0 = K[i * D];
                        float fast = fmaf(a, b, x0);
                        double ex = (double)x0 + (double)a * (double)b;
                        float col[D] = {1.0f, b};
                        float yr = ref_dot(&rf, ref_mode_of(f.rounding), LSFP_ACC_EXACT, LSFP_ORDER_ASCENDING, 1,
                                           K + i * D, col, D);
                        if ((double)fast != ex && lsfp_round_double(&f, ex, NULL) != lsfp_round(&f, fast, NULL, NULL))
                            residual_cases++;
                        bad += !same_float(Y1[i * NQ + j], Y2[i * NQ + j]) || !same_float(Y2[i * NQ + j], yr);
                    }
                CHECK_MSG(bad == 0 && e1.saturations == e2.saturations &&
                              (e1.exact_fixups == e2.exact_fixups || lsfp_logit_tile_fast(&spec)),
                          "%s %s: %ld lanes differ (vector/scalar/reference), fixups %llu/%llu", f.name,
                          rtz ? "rtz" : "rne", bad, (unsigned long long)e1.exact_fixups,
                          (unsigned long long)e2.exact_fixups);
            }
        }
    printf("boundary sums whose exact rounding differs from the fp32 sum's: %ld\n", residual_cases);
    CHECK_MSG(residual_cases > 200, "only %ld residual boundary cases: the fix-up was not exercised", residual_cases);
}

/* P.V update: every kernel family the CPU has gives the plain loop's bits (fp32 and float64 state),
 * widths that are not multiples of the vector length, keys with zero weight skipped. */
static void check_pv_update(void)
{
    enum { MAXD = 160, NK = 13, LDV = 163 };
    static const int dims[] = {1, 7, 16, 37, 64, 100, 128, 130, 160};
    float V[NK * LDV], o32[MAXD], w32[MAXD];
    double E[NK * 3], o64[MAXD], w64[MAXD];
    trng g;
    trng_seed(&g, 59);
    long bad = 0;
    for (int i = 0; i < NK * LDV; i++) V[i] = (float)trng_gauss(&g);
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
        int d = dims[di];
        for (int i = 0; i < NK * 3; i++) E[i] = i % 5 == 2 ? 0.0 : trng_unit(&g);
        float lam = (float)trng_unit(&g);
        for (int t = 0; t < d; t++) { w32[t] = (float)trng_gauss(&g); w64[t] = trng_gauss(&g); }
        for (int isa = 0; isa <= (int)lsfp_isa_best(); isa++) {
            lsfp_set_isa_limit((lsfp_isa)isa);
            memcpy(o32, w32, sizeof o32);
            memcpy(o64, w64, sizeof o64);
            lsfp_pv_update_f32(o32, d, lam, E + 1, 3, NK, V, LDV);
            lsfp_pv_update_f64(o64, d, (double)lam, E + 1, 3, NK, V, LDV);
            for (int t = 0; t < d; t++) {
                float r32 = w32[t] * lam;
                double r64 = w64[t] * (double)lam;
                for (int i = 0; i < NK; i++) {
                    double e = E[i * 3 + 1];
                    if (e == 0.0) continue;
                    r32 = r32 + (float)e * V[i * LDV + t];
                    r64 = r64 + e * (double)V[i * LDV + t];
                }
                bad += !same_float(o32[t], r32) || o64[t] != r64;
            }
        }
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
    CHECK_MSG(bad == 0, "P.V update: %ld elements differ from the plain loop", bad);
}

/* fp64 reference kernels: lsfp_dot_f64 is eight partial sums t mod 8 (one fma per product) folded pairwise (written out
 * here independently), lsfp_dot_rows_f64 and lsfp_dot_block_f64 equal it element by element, lsfp_gemv_t_f64 the plain fma loop
 * and lsfp_gemv_t_block_f64 lsfp_gemv_t_f64 row by row,
 * for every kernel family the CPU has. */
static void check_f64_kernels(void)
{
    enum { MAXN = 137, ROWS = 11 };   /* the rows' stride MAXN is odd: unaligned loads */
    static const int lens[] = {1, 7, 8, 9, 16, 40, 64, 128, 130, 137};
    float A[ROWS * MAXN], q[MAXN];
    double a[ROWS], out[ROWS], y1[MAXN], y2[MAXN];
    trng g;
    trng_seed(&g, 47);
    long bad = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int n = lens[li];
        for (int i = 0; i < ROWS * MAXN; i++) A[i] = (float)trng_gauss(&g);
        for (int i = 0; i < MAXN; i++) q[i] = (float)trng_gauss(&g);
        for (int r = 0; r < ROWS; r++) a[r] = trng_gauss(&g);
        for (int r = 0; r < ROWS; r++) {
            const float *b = A + r * MAXN;
            double ps[8] = {0};
            int full = n / 8 * 8;
            for (int t = 0; t < full; t++) ps[t % 8] = fma((double)q[t], (double)b[t], ps[t % 8]);
            double want = ((ps[0] + ps[4]) + (ps[1] + ps[5])) + ((ps[2] + ps[6]) + (ps[3] + ps[7]));
            for (int t = full; t < n; t++) want = fma((double)q[t], (double)b[t], want);
            bad += lsfp_dot_f64(q, b, n) != want;
        }
        for (int isa = 0; isa <= (int)lsfp_isa_best(); isa++)
            for (int rows = 1; rows <= ROWS; rows += 3) {
                lsfp_set_isa_limit((lsfp_isa)isa);
                lsfp_dot_rows_f64(q, A, MAXN, rows, n, out);
                for (int r = 0; r < rows; r++) bad += out[r] != lsfp_dot_f64(q, A + r * MAXN, n);
                for (int nq = 1; nq <= 6; nq += 5) {   /* a lone query and four + two: the block and its tail */
                    double ob[6 * ROWS];
                    lsfp_dot_block_f64(A + (ROWS - nq) * MAXN, MAXN, nq, A, MAXN, rows, n, ob, ROWS);
                    for (int i = 0; i < nq; i++)
                        for (int r = 0; r < rows; r++)
                            bad += ob[i * ROWS + r] != lsfp_dot_f64(A + (ROWS - nq + i) * MAXN, A + r * MAXN, n);
                }
                for (int t = 0; t < n; t++) y1[t] = y2[t] = (double)q[t];
                lsfp_gemv_t_f64(y1, a, A, MAXN, rows, n);
                for (int r = 0; r < rows; r++)
                    for (int t = 0; t < n; t++) y2[t] = fma(a[r], (double)A[r * MAXN + t], y2[t]);
                for (int t = 0; t < n; t++) bad += y1[t] != y2[t];
                /* six y rows (a block of four and two more) over different row counts */
                double Yb[6 * MAXN], Yr[6 * MAXN], Ab[6 * ROWS];
                int cnt[6];
                for (int m = 0; m < 6; m++) {
                    cnt[m] = (rows + 3 * m) % (ROWS + 1);
                    for (int k = 0; k < ROWS; k++) Ab[m * ROWS + k] = a[(k + m) % ROWS];
                    for (int t = 0; t < n; t++) Yb[m * MAXN + t] = Yr[m * MAXN + t] = (double)q[(t + m) % n];
                }
                lsfp_gemv_t_block_f64(Yb, MAXN, Ab, ROWS, 6, cnt, A, MAXN, n);
                for (int m = 0; m < 6; m++) {
                    lsfp_gemv_t_f64(Yr + m * MAXN, Ab + m * ROWS, A, MAXN, cnt[m], n);
                    for (int t = 0; t < n; t++) bad += Yb[m * MAXN + t] != Yr[m * MAXN + t];
                }
            }
        lsfp_set_isa_limit(LSFP_ISA_AVX512);
    }
    CHECK_MSG(bad == 0, "fp64 reference kernels: %ld results differ from their definition", bad);
}

int main(void)
{
    double t0 = now_s();
    printf("kernel families: best %s\n", lsfp_isa_name(lsfp_isa_best()));
    check_round_array();
    check_tiles();
    CHECK_MSG(g_fixups > 1000, "only %ld exact fix-ups: the boundary cases were not exercised", g_fixups);
    printf("exact fix-ups exercised: %ld\n", g_fixups);
    if (lsfp_isa_best() == LSFP_ISA_AVX512) {
        /* the fast form ran, and blocks with saturations were redone by the counting kernel */
        CHECK_MSG(g_fast_tiles >= 40 && g_fast_sat_tiles >= 4, "AVX-512 fast form: %ld tiles, %ld with saturations",
                  g_fast_tiles, g_fast_sat_tiles);
        printf("AVX-512 fast-form tiles: %ld, with saturations: %ld\n", g_fast_tiles, g_fast_sat_tiles);
    }
    check_tile_fp32();
    check_f64_kernels();
    check_pv_update();
    check_fixup_residuals();
    lsfp_set_force_scalar(false);
    printf("fp_kernels: %ld tiles, %.2f s\n", g_tiles, now_s() - t0);
    CHECK_DONE();
}
