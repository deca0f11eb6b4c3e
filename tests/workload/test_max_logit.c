/* The workload's max-|logit| scan: the fp32-screened scan gives the full float64 scan's value bit for
 * bit (random, tied, all-equal, near-tied, overflowing and underflowing data; causal, sampled and
 * every-8th-head scans; odd d) on every kernel family, and the fp32 screen keeps its error bound. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lsfp.h"
#include "prng.h"
#include "workload_internal.h"

enum { RANDOM, INTS, ALL_EQUAL, NEAR_TIES, BF16, HUGE_, TINY, PLANTED, KINDS };
static const char *const kind_name[KINDS] = {"random", "ints", "all-equal", "near-ties", "bf16", "huge", "tiny", "planted"};

static float bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    memcpy(&x, &u, 4);
    return x;
}

static void fill(float *x, size_t rows, int d, int kind, ls_prng *r)
{
    for (size_t i = 0; i < rows; ++i)
        for (int t = 0; t < d; ++t) {
            float *v = &x[i * d + t];
            double g = ls_prng_normal(r);
            switch (kind) {
            case INTS: *v = (float)((int)(ls_prng_uniform(r) * 5) - 2); break;
            case ALL_EQUAL: *v = (float)(0.5 + 0.25 * (t % 3)); break;
            case NEAR_TIES: *v = nextafterf(0.75f + 0.125f * (t % 5), ls_prng_uniform(r) < 0.5 ? 0 : 2); break;
            case BF16: *v = bf16((float)g); break;
            case HUGE_: *v = (float)(g * 3e18); break;
            case TINY: *v = (float)(g * 1e-22); break;
            default: *v = (float)g; break;
            }
        }
}

static void check_case(int B, int HQ, int HK, int SQ, int SK, int D, bool causal, int kind)
{
    ls_attn_inputs in = {.batch = B, .heads_q = HQ, .heads_kv = HK, .seq_q = SQ, .seq_k = SK, .dim = D, .causal = causal};
    size_t nq = (size_t)B * HQ * SQ, nk = (size_t)B * HK * SK;
    in.q = malloc(nq * D * sizeof(float));
    in.k = malloc(nk * D * sizeof(float));
    ls_prng r;
    ls_prng_stream(&r, 7, (uint64_t)kind, (uint64_t)SQ, (uint64_t)D);
    fill(in.q, nq, D, kind, &r);
    fill(in.k, nk, D, kind, &r);
    if (kind == PLANTED) { /* one pair far above the rest, in the last visible key of a late row */
        size_t i = nq - 1, j = nk - 1;
        for (int t = 0; t < D; ++t) in.q[i * D + t] = in.k[j * D + t] = 3.0f;
    }
    bool s_full, s_screen;
    lsfp_set_isa_limit(LSFP_ISA_SCALAR);
    double full = ls_workload_max_logit(&in, false, &s_full);
    for (int isa = 0; isa <= (int)lsfp_isa_best(); ++isa) {
        lsfp_set_isa_limit((lsfp_isa)isa);
        double screened = ls_workload_max_logit(&in, true, &s_screen);
        CHECK_MSG(!memcmp(&full, &screened, sizeof full) && s_full == s_screen,
                  "%s, %s: b %d h %d/%d seq %d x %d d %d%s: screened %.17g (sampled %d), full %.17g (sampled %d)",
                  kind_name[kind], lsfp_isa_name((lsfp_isa)isa), B, HQ, HK, SQ, SK, D, causal ? " causal" : "", screened,
                  s_screen, full, s_full);
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
    CHECK(full > 0 || kind == TINY);
    free(in.q);
    free(in.k);
}

/* The screen's promise: every row maximum within gamma_d |q| |k| + d 2^-149 of the exact one. */
static void check_bound(int nq, int nk, int d, bool causal)
{
    float *q = malloc((size_t)nq * d * sizeof(float)), *k = malloc((size_t)nk * d * sizeof(float));
    float *packed = malloc(lsfp_absmax_pack_floats(nk, d) * sizeof(float)), *rowmax = malloc((size_t)nq * sizeof(float));
    int *cols = malloc((size_t)nq * sizeof(int));
    ls_prng r;
    ls_prng_stream(&r, 11, (uint64_t)nq, (uint64_t)nk, (uint64_t)d);
    fill(q, nq, d, RANDOM, &r);
    fill(k, nk, d, RANDOM, &r);
    for (int i = 0; i < nq; ++i) cols[i] = causal ? (i * 7 + 3) % (nk + 1) : nk;
    lsfp_absmax_pack(k, d, nk, d, packed);
    double g = d * 0x1p-24 / (1 - d * 0x1p-24);
    int worst_ok = 1;
    for (int isa = 0; isa <= (int)lsfp_isa_best(); ++isa) {
        lsfp_set_isa_limit((lsfp_isa)isa);
        lsfp_absmax_rows_f32(q, d, nq, cols, packed, d, rowmax);
        for (int i = 0; i < nq; ++i) {
            double exact = 0, slack = 0;
            for (int j = 0; j < cols[i]; ++j) {
                double s = 0, a = 0;
                for (int t = 0; t < d; ++t) {
                    s += (double)q[(size_t)i * d + t] * k[(size_t)j * d + t];
                    a += fabs((double)q[(size_t)i * d + t] * k[(size_t)j * d + t]);
                }
                exact = fabs(s) > exact ? fabs(s) : exact;
                slack = a > slack ? a : slack;
            }
            /* the float64 sums here err by far less than the 1e-9 relative added */
            worst_ok &= fabs(rowmax[i] - exact) <= g * slack * (1 + 1e-9) + d * 0x1p-149;
        }
        CHECK_MSG(worst_ok, "%s: fp32 screen outside its bound (nq %d nk %d d %d)", lsfp_isa_name((lsfp_isa)isa), nq, nk, d);
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
    free(q), free(k), free(packed), free(rowmax), free(cols);
}

int main(void)
{
    static const int shapes[][7] = {
        /* batch, heads_q, heads_kv, seq_q, seq_k, d, causal */
        {1, 1, 1, 64, 64, 128, 0}, {1, 2, 1, 37, 53, 13, 1}, {2, 4, 2, 100, 80, 40, 1}, {1, 1, 1, 70, 50, 20, 1},
        {1, 3, 3, 33, 130, 1, 0},  {1, 1, 1, 17, 300, 130, 0}, {1, 2, 2, 257, 255, 64, 1}, {1, 1, 1, 5, 3, 7, 0},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int kind = 0; kind < KINDS; ++kind) {
            const int *c = shapes[s];
            check_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], kind);
        }
    /* beyond 2^28 multiply-adds: every 8th row, then (seq_q 2) every 8th head */
    check_case(1, 16, 2, 1024, 1024, 136, false, RANDOM);
    check_case(1, 16, 2, 1024, 1024, 136, true, NEAR_TIES);
    check_case(1, 64, 1, 2, 65536, 80, false, RANDOM);
    check_bound(61, 77, 128, false);
    check_bound(13, 100, 9, true);
    check_bound(32, 33, 200, true);
    CHECK_DONE();
}
