/* sim/engine/engine_fa2.c — vanilla FlashAttention-2 forward in plain fp32 C (no emulation): the
 * fa2_fp32 baseline and the benchmark's native yardstick. Same tiling as the LampAttention path:
 * per key tile S = K_tile . Qt (ascending d, fp32 multiply then add), online softmax with expf,
 * O <- c*O + P.V (ascending keys). */
#include "engine_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void eng_fa2_fp32_block(const float *Qt, int ldq, int nqv, int64_t q0, const float *K, const float *V, int seq_k,
                        int d, int bc, bool causal, int window, int qpack, int64_t shift, int kt_lo, int kt_hi,
                        float *S, float *m, float *l, float *O, float *Ebuf, float *muh, bool p_e4m3)
{
    const lsfp_format *e4m3 = lsfp_named_format(LSFP_E4M3);
    int nkt = (seq_k + bc - 1) / bc;
    if (kt_hi > nkt) kt_hi = nkt;
    int64_t qfirst = lslamp_row_query(q0, qpack), qlast = lslamp_row_query(q0 + nqv - 1, qpack);
    for (int kt = kt_lo; kt < kt_hi; kt++) {
        int key0 = kt * bc, nkeys = seq_k - key0 < bc ? seq_k - key0 : bc;
        if (causal && key0 > qlast + shift) break;          /* fully masked from here on */
        if (causal && window > 0 && key0 + nkeys - 1 <= qfirst + shift - window) continue;   /* before every window */
        for (int i = 0; i < nkeys; i++) {
            float *y = S + (long)i * ldq;
            const float *k = K + (long)(key0 + i) * d;
            for (int j = 0; j < nqv; j++) y[j] = 0.0f;
            for (int t = 0; t < d; t++) {
                float kv = k[t];
                const float *q = Qt + (long)t * ldq;
                for (int j = 0; j < nqv; j++) y[j] = y[j] + kv * q[j];
            }
            int jlo, jhi;
            lslamp_key_queries_packed(causal, shift, window, qpack, key0 + i, q0, nqv, &jlo, &jhi);
            for (int j = 0; j < jlo; j++) y[j] = -INFINITY;
            for (int j = jhi > jlo ? jhi : jlo; j < nqv; j++) y[j] = -INFINITY;
        }
        for (int j = 0; j < nqv; j++) {
            float mx = m[j];
            for (int i = 0; i < nkeys; i++) {
                float s = S[(long)i * ldq + j];
                mx = s > mx ? s : mx;
            }
            if (mx == -INFINITY) continue;
            float c = m[j] == -INFINITY ? 0.0f : expf(m[j] - mx);
            float rs = 0.0f;
            for (int i = 0; i < nkeys; i++) {
                float *s = S + (long)i * ldq + j;
                float p = *s == -INFINITY ? 0.0f : expf(*s - mx);
                *s = p;
                rs = rs + p;
            }
            l[j] = c * l[j] + rs;
            float *o = O + (long)j * d;
            for (int t = 0; t < d; t++) o[t] = o[t] * c;
            for (int i = 0; i < nkeys; i++) {
                float p = S[(long)i * ldq + j];
                if (p_e4m3) {   /* the P.V operand in e4m3 (P <= 1 needs no scale); l summed the fp32 P above */
                    unsigned fl = 0;
                    p = lsfp_round(e4m3, p, NULL, &fl);
                }
                if (p == 0.0f) continue;
                const float *v = V + (long)(key0 + i) * d;
                for (int t = 0; t < d; t++) o[t] = o[t] + p * v[t];
            }
            m[j] = mx;
            if (Ebuf) {
                for (int i = 0; i < nkeys; i++) Ebuf[(long)(key0 + i) * ldq + j] = S[(long)i * ldq + j];
                muh[(long)kt * ldq + j] = mx;
            }
        }
    }
}

void ls_engine_fa2_native_head(const float *q, const float *k, const float *v, float *o, int seq_q, int seq_k,
                        int dim, bool causal, int br, int bc)
{
    float *Qt = malloc((size_t)dim * br * sizeof(float));
    float *S = malloc((size_t)bc * br * sizeof(float));
    float *m = malloc((size_t)br * sizeof(float));
    float *l = malloc((size_t)br * sizeof(float));
    float *O = malloc((size_t)br * dim * sizeof(float));
    if (!Qt || !S || !m || !l || !O) goto out;
    float scale = (float)(1.0 / sqrt((double)dim));
    int64_t shift = (int64_t)seq_k - seq_q;
    for (int q0 = 0; q0 < seq_q; q0 += br) {
        int nqv = seq_q - q0 < br ? seq_q - q0 : br;
        for (int t = 0; t < dim; t++)
            for (int j = 0; j < br; j++) Qt[(long)t * br + j] = j < nqv ? q[(long)(q0 + j) * dim + t] * scale : 0.0f;
        for (int j = 0; j < br; j++) { m[j] = -INFINITY; l[j] = 0.0f; }
        memset(O, 0, (size_t)br * dim * sizeof(float));
        eng_fa2_fp32_block(Qt, br, nqv, q0, k, v, seq_k, dim, bc, causal, 0, 1, shift, 0, (seq_k + bc - 1) / bc, S, m, l,
                           O, NULL, NULL, false);
        for (int j = 0; j < nqv; j++)
            for (int t = 0; t < dim; t++)
                o[(long)(q0 + j) * dim + t] = l[j] == 0.0f ? 0.0f : O[(long)j * dim + t] / l[j];
    }
out:
    free(Qt); free(S); free(m); free(l); free(O);
}
