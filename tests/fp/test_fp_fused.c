/* fp_fused — the K-term fused dot product (lsfp_fused_step, lsfp_dot / lsfp_logit_tile with fused_k)
 * against the independent integer model (ref_fused.c):
 *  - hand-worked steps: one rounding per group (1 + 4 x 1/16 = 1.25, where four sequential e4m3
 *    steps stay at 1.0), the window's truncation (frac 2: 1 + 0.375 -> 1.25), +0 for a cancelling
 *    group, Inf / NaN operands;
 *  - exhaustive single-product steps: every e4m3 accumulator code x every bf16 operand a (NaN and
 *    Inf codes included) x two b (1.0 and a bf16 drawn per a near the e4m3 range), e4m3 saturating;
 *  - random groups of k = 2, 4, 8, 16 bf16 x bf16 and bf16 x fp32 products with exponent spreads
 *    and exact cancellations, windows of 1, 8, 16, 30 and 40 bits, into e4m3 (saturating and NaN
 *    overflow, RNE and RTZ), e5m2 and e4m11;
 *  - whole dot products and logit tiles (d = 128, k = 4, both orders, every kernel family) against
 *    ref_fused_dot, saturation events included. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fp_test_util.h"

static float bf16_of(float x) { return lsfp_round(lsfp_named_format(LSFP_BF16), x, NULL, NULL); }
static float bf16_code(uint32_t c) { return bits_f(c << 16); }

static int flag_ovf(unsigned f) { return (f & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) != 0; }

/* One step through both models; returns 1 when they agree (bits, or both NaN, and the event). */
static int agree(const lsfp_format *f, float c, const float *a, const float *b, int n, int frac)
{
    ref_fmt r;
    ref_fmt_from(&r, f);
    unsigned fl = 0, rf = 0;
    float got = lsfp_fused_step(f, c, a, 1, b, 1, n, frac, &fl);
    float want = ref_fused_step(&r, ref_mode_of(f->rounding), c, a, b, n, frac, &rf);
    return same_float(got, want) && flag_ovf(fl) == flag_ovf(rf);
}

static void hand(void)
{
    const lsfp_format *e4m3 = lsfp_named_format(LSFP_E4M3);
    float a[4] = {0.0625f, 0.0625f, 0.0625f, 0.0625f}, one[4] = {1, 1, 1, 1};
    CHECK_FEQ(lsfp_fused_step(e4m3, 1.0f, a, 1, one, 1, 4, 16, NULL), 1.25f);
    /* the sequential lane: 1 + 1/16 is a tie, back to 1.0 at every step */
    float x[5] = {1.0f, 0.0625f, 0.0625f, 0.0625f, 0.0625f}, y[5] = {1, 1, 1, 1, 1};
    lsfp_accum seq = {.fmt = e4m3, .model = LSFP_ACC_EXACT, .chunk_k = 1};
    CHECK_FEQ(lsfp_dot(&seq, x, y, 5, NULL), 1.0f);
    lsfp_accum fus = {.fmt = e4m3, .fused_k = 5, .fused_frac = 16};
    CHECK_FEQ(lsfp_dot(&fus, x, y, 5, NULL), 1.25f);
    /* truncation: frac 2 keeps quarters of 2^0; 0.375 -> 0.25 (exact: 1.375, an e4m3 value) */
    float t[2] = {1.0f, 0.375f};
    CHECK_FEQ(lsfp_fused_step(e4m3, 0.0f, t, 1, one, 1, 2, 2, NULL), 1.25f);
    CHECK_FEQ(lsfp_fused_step(e4m3, 0.0f, t, 1, one, 1, 2, 16, NULL), 1.375f);
    /* a cancelling group gives +0, even from -0 */
    float cc[2] = {3.0f, -3.0f};
    float z = lsfp_fused_step(e4m3, -0.0f, cc, 1, one, 1, 2, 16, NULL);
    CHECK(z == 0.0f && !signbit(z));
    /* specials: Inf saturates (an event), Inf - Inf and NaN give NaN */
    unsigned fl = 0;
    float inf[2] = {INFINITY, 1.0f}, ninf[2] = {INFINITY, -INFINITY}, nan2[2] = {NAN, 1.0f};
    CHECK_FEQ(lsfp_fused_step(e4m3, 0.0f, inf, 1, one, 1, 2, 16, &fl), 448.0f);
    CHECK(flag_ovf(fl));
    CHECK(isnan(lsfp_fused_step(e4m3, 0.0f, ninf, 1, one, 1, 2, 16, NULL)));
    CHECK(isnan(lsfp_fused_step(e4m3, 0.0f, nan2, 1, one, 1, 2, 16, NULL)));
    /* the same through the reference */
    CHECK(agree(e4m3, 1.0f, a, one, 4, 16) && agree(e4m3, 0.0f, t, one, 2, 2) && agree(e4m3, -0.0f, cc, one, 2, 16));
    CHECK(agree(e4m3, 0.0f, inf, one, 2, 16) && agree(e4m3, 0.0f, ninf, one, 2, 16) && agree(e4m3, 0.0f, nan2, one, 2, 16));
}

static void exhaustive_single(void)
{
    const lsfp_format *e4m3 = lsfp_named_format(LSFP_E4M3);
    trng g;
    trng_seed(&g, 77);
    long bad = 0, n = 0;
    for (uint32_t cc = 0; cc < 256; cc++) {
        float c = lsfp_decode(e4m3, cc);
        for (uint32_t ac = 0; ac < 65536; ac++) {
            float a = bf16_code(ac);
            /* b near 2^-10 .. 2^10 / |a|'s binade spread: products land around the accumulator */
            float b2 = bf16_code(((127 + (trng_u32(&g) % 21) - 10) << 7 | (trng_u32(&g) & 0x7F)) | (trng_u32(&g) & 0x8000));
            float bs[2] = {1.0f, b2};
            for (int k = 0; k < 2; k++) {
                n++;
                if (!agree(e4m3, c, &a, &bs[k], 1, LSFP_FUSED_FRAC) && bad++ < 5)
                    printf("  mismatch: c %a a %a b %a\n", (double)c, (double)a, (double)bs[k]);
            }
        }
    }
    CHECK_MSG(bad == 0, "exhaustive single steps: %ld of %ld differ", bad, n);
    printf("exhaustive single steps: %ld checked\n", n);
}

static float rand_operand(trng *g, int fp32, int spread)
{
    float v = (float)trng_gauss(g) * ldexpf(1.0f, (int)(trng_next(g) % (uint64_t)(2 * spread + 1)) - spread);
    return fp32 ? v : bf16_of(v);
}

static void random_groups(void)
{
    lsfp_format fmts[6];
    fmts[0] = *lsfp_named_format(LSFP_E4M3);
    fmts[1] = fmts[0]; fmts[1].rounding = LSFP_RND_RTZ;
    fmts[2] = fmts[0]; fmts[2].overflow = LSFP_OVF_NONSAT;
    lsfp_format_parse("e5m2", &fmts[3], NULL, NULL, 0);
    fmts[4] = *lsfp_named_format(LSFP_E4M11);
    lsfp_format_parse("ps3", &fmts[5], NULL, NULL, 0);
    static const int ks[] = {2, 4, 8, 16}, fracs[] = {1, 8, 16, 30, 40};
    trng g;
    trng_seed(&g, 78);
    long bad = 0, n = 0;
    for (int fi = 0; fi < 6; fi++) {
        ref_fmt r;
        ref_fmt_from(&r, &fmts[fi]);
        for (int it = 0; it < 60000; it++) {
            int k = ks[it % 4], frac = fracs[(it / 4) % 5], fp32 = (it / 20) % 2, spread = 1 + (int)(trng_next(&g) % 12);
            float a[16], b[16];
            for (int i = 0; i < k; i++) {
                a[i] = rand_operand(&g, 0, spread);
                b[i] = rand_operand(&g, fp32, spread);
                if (i > 0 && trng_next(&g) % 5 == 0) { a[i] = -a[i - 1]; b[i] = b[i - 1]; }   /* exact cancellation */
            }
            float c = ref_round_float(&r, (float)trng_gauss(&g) * ldexpf(1.0f, (int)(trng_next(&g) % 12) - 4), REF_RNE, NULL);
            n++;
            if (!agree(&fmts[fi], c, a, b, k, frac) && bad++ < 5)
                printf("  mismatch: %s k %d frac %d c %a\n", fmts[fi].name, k, frac, (double)c);
        }
    }
    CHECK_MSG(bad == 0, "random groups: %ld of %ld differ", bad, n);
    printf("random groups: %ld checked\n", n);
}

static void dots_and_tiles(void)
{
    enum { D = 128, NK = 16, NQ = 37 };
    const lsfp_format *e4m3 = lsfp_named_format(LSFP_E4M3);
    ref_fmt r;
    ref_fmt_from(&r, e4m3);
    trng g;
    trng_seed(&g, 79);
    static float K[NK * D], Qt[D * NQ], Y[NK * NQ], col[D];
    long bad = 0, n = 0;
    for (int rep = 0; rep < 12; rep++) {
        double qscale = rep % 3 == 2 ? 8.0 : 1.0;   /* every third tile saturates now and then */
        int fp32 = rep % 2;
        for (int i = 0; i < NK * D; i++) K[i] = bf16_of((float)trng_gauss(&g));
        for (int i = 0; i < D * NQ; i++) {
            float v = (float)(trng_gauss(&g) * qscale / sqrt((double)D) * 4.0);
            Qt[i] = fp32 ? v : bf16_of(v);
        }
        lsfp_acc_order order = rep % 4 < 2 ? LSFP_ORDER_ASCENDING : LSFP_ORDER_DESCENDING;
        lsfp_accum spec = {.fmt = e4m3, .order = order, .fused_k = 4, .fused_frac = LSFP_FUSED_FRAC};
        for (int isa = LSFP_ISA_SCALAR; isa <= LSFP_ISA_AVX512; isa++) {
            lsfp_set_isa_limit((lsfp_isa)isa);
            lsfp_events ev = {0};
            lsfp_logit_tile(&spec, K, D, Qt, NQ, NK, NQ, D, Y, NQ, &ev);
            uint64_t above = 0;
            for (int i = 0; i < NK; i++)
                for (int j = 0; j < NQ; j++) {
                    for (int t = 0; t < D; t++) col[t] = Qt[t * NQ + j];
                    float want = ref_fused_dot(&r, REF_RNE, order, 4, LSFP_FUSED_FRAC, K + i * D, col, D, &above);
                    n++;
                    if (!same_float(Y[i * NQ + j], want)) bad++;
                    if (isa == LSFP_ISA_SCALAR && i == 0 && j < 3)
                        CHECK(same_float(lsfp_dot(&spec, K, col, D, NULL), want));
                }
            CHECK_MSG(ev.saturations == above, "tile saturations %llu, reference %llu",
                      (unsigned long long)ev.saturations, (unsigned long long)above);
        }
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
    CHECK_MSG(bad == 0, "fused tiles: %ld of %ld logits differ", bad, n);
    printf("fused tile logits: %ld checked\n", n);
}

int main(void)
{
    double t0 = now_s();
    hand();
    exhaustive_single();
    random_groups();
    dots_and_tiles();
    printf("fp_fused: %.2f s\n", now_s() - t0);
    CHECK_DONE();
}
