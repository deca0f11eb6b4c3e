/* fp_events — the event counters and flags the engine reports:
 *  - lsfp_round_array on e4m3: saturations count exactly the inputs clamped to +-448 (500, -1000,
 *    470 saturate; 448 and the tie 464 do not), underflows count nonzero inputs rounded to zero
 *    (zero itself is not an underflow), the returned flags are the OR; non-saturating e4m3 counts
 *    overflows (NaN results) instead of saturations;
 *  - accumulation (lsfp_dot and lsfp_logit_tile, both models, scalar and vector paths): e4m3
 *    accumulators driven past 448 count one saturation per clamped step, compared with counts
 *    obtained step by step from the reference's flags; they do not count underflows (lsfp.h);
 *  - counters accumulate across calls (they are never reset by the kernels). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fp_test_util.h"

/* Expected (saturations, underflows) of one dot product, step by step with the reference. */
static void ref_events(const ref_fmt *r, lsfp_acc_model model, const float *a, const float *b, int n,
                       uint64_t *sat, uint64_t *unf)
{
    float c = 0.0f;
    for (int k = 0; k < n; k++) {
        unsigned fl = 0;
        c = model == LSFP_ACC_EXACT ? ref_acc_exact(r, REF_RNE, c, a[k], b[k], &fl)
                                    : ref_acc_paper(r, REF_RNE, c, a[k], b[k], &fl);
        *sat += (fl & LSFP_FLAG_SATURATED) != 0;
        *unf += (fl & LSFP_FLAG_UNDERFLOW) != 0;
    }
}

int main(void)
{
    const lsfp_format *e4m3 = lsfp_named_format(LSFP_E4M3);
    ref_fmt r;
    ref_fmt_from(&r, e4m3);
    /* Array rounding. */
    const float in[] = {500.f, -1000.f, 448.f, 464.f, 470.f, 1e-4f, 0.0f, -0.0f, 0.0009765625f, 0.001f, -1e-30f, 3.0f};
    const int n = (int)(sizeof in / sizeof in[0]);
    float out[sizeof in / sizeof in[0]];
    for (int fs = 0; fs < 2; fs++) {
        lsfp_set_force_scalar(fs != 0);
        lsfp_events ev = {0};
        unsigned fl = lsfp_round_array(e4m3, in, out, (size_t)n, &ev);
        CHECK_MSG(ev.saturations == 3, "force_scalar=%d: saturations %llu, expected 3", fs, (unsigned long long)ev.saturations);
        CHECK_MSG(ev.underflows == 3, "force_scalar=%d: underflows %llu, expected 3", fs, (unsigned long long)ev.underflows);
        CHECK(ev.overflows == 0);
        CHECK((fl & LSFP_FLAG_SATURATED) && (fl & LSFP_FLAG_UNDERFLOW) && !(fl & LSFP_FLAG_NAN));
        CHECK_SAME(out[0], 448.f);
        CHECK_SAME(out[1], -448.f);
        CHECK_SAME(out[5], 0.0f);
        CHECK_SAME(out[10], -0.0f);
        /* accumulate across calls */
        lsfp_round_array(e4m3, in, out, (size_t)n, &ev);
        CHECK(ev.saturations == 6 && ev.underflows == 6);
        /* no events for in-range exact values */
        lsfp_events ev2 = {0};
        float ok[4] = {1.0f, -2.75f, 448.f, 0x1p-9f}, o2[4];
        CHECK((lsfp_round_array(e4m3, ok, o2, 4, &ev2) & (LSFP_FLAG_SATURATED | LSFP_FLAG_UNDERFLOW)) == 0);
        CHECK(ev2.saturations == 0 && ev2.underflows == 0);
        /* non-saturating: NaN results counted as overflows */
        lsfp_format ns = *e4m3;
        ns.overflow = LSFP_OVF_NONSAT;
        lsfp_events ev3 = {0};
        fl = lsfp_round_array(&ns, in, out, (size_t)n, &ev3);
        CHECK(isnan(out[0]) && isnan(out[1]) && isnan(out[4]) && out[3] == 448.f);
        CHECK_MSG(ev3.overflows == 3 && ev3.saturations == 0, "force_scalar=%d nonsat: overflows %llu saturations %llu",
                  fs, (unsigned long long)ev3.overflows, (unsigned long long)ev3.saturations);
        CHECK_MSG((fl & LSFP_FLAG_OVERFLOW) != 0, "force_scalar=%d nonsat: flags %#x lack OVERFLOW", fs, fl);
    }
    /* Accumulation: products of 20 push the e4m3 accumulator past 448 (448 + 20 -> 480 -> clamp);
     * products of 1e-4 always round to zero. Mixed rows. */
    enum { NK = 5, NQ = 11, D = 40 };
    float K[NK * D], Qt[D * NQ], col[D];
    trng g;
    trng_seed(&g, 71);
    for (int i = 0; i < NK; i++)
        for (int k = 0; k < D; k++) K[i * D + k] = i == 0 ? 1.0f : i == 1 ? -1.0f : (float)trng_gauss(&g) * (float)(i * 3);
    for (int k = 0; k < D; k++)
        for (int j = 0; j < NQ; j++) Qt[k * NQ + j] = j == 0 ? 20.0f : j == 1 ? 1e-4f : (float)trng_gauss(&g) * (float)j;
    for (int model = 0; model < 2; model++) {
        uint64_t sat = 0, unf = 0;
        for (int i = 0; i < NK; i++)
            for (int j = 0; j < NQ; j++) {
                for (int k = 0; k < D; k++) col[k] = Qt[k * NQ + j];
                ref_events(&r, (lsfp_acc_model)model, K + i * D, col, D, &sat, &unf);
            }
        CHECK(sat >= 2 * (D - 23) && unf >= 2 * D);  /* the construction does what it says */
        lsfp_accum spec = {.fmt = e4m3, .model = (lsfp_acc_model)model, .order = LSFP_ORDER_ASCENDING, .chunk_k = 1};
        for (int fs = 0; fs < 2; fs++) {
            lsfp_set_force_scalar(fs != 0);
            lsfp_events ev = {0};
            float Y[NK * NQ];
            lsfp_logit_tile(&spec, K, D, Qt, NQ, NK, NQ, D, Y, NQ, &ev);
            /* lsfp.h: accumulation kernels count saturations, not underflows */
            CHECK_MSG(ev.saturations == sat && ev.underflows == 0,
                      "tile %s force_scalar=%d: saturations %llu underflows %llu, reference %llu %llu",
                      model ? "exact" : "paper", fs, (unsigned long long)ev.saturations,
                      (unsigned long long)ev.underflows, (unsigned long long)sat, (unsigned long long)unf);
            CHECK_SAME(Y[0], 448.f);
            CHECK_SAME(Y[NQ], -448.f);
            CHECK_SAME(Y[1], 0.0f);
            lsfp_events evd = {0};
            for (int i = 0; i < NK; i++)
                for (int j = 0; j < NQ; j++) {
                    for (int k = 0; k < D; k++) col[k] = Qt[k * NQ + j];
                    lsfp_dot(&spec, K + i * D, col, D, &evd);
                }
            CHECK_MSG(evd.saturations == sat && evd.underflows == 0,
                      "dot %s: saturations %llu underflows %llu, reference %llu %llu", model ? "exact" : "paper",
                      (unsigned long long)evd.saturations, (unsigned long long)evd.underflows,
                      (unsigned long long)sat, (unsigned long long)unf);
        }
    }
    lsfp_set_force_scalar(false);
    CHECK_DONE();
}
