#include "workload.h"

#include <math.h>
#include <string.h>

#include "io_common.h"
#include "workload_internal.h"

double ls_qknorm_gain_bound(int dim) { return sqrt(LS_E4M3_MAX / sqrt((double)dim)); }

uint64_t ls_workload_hash(const ls_attn_inputs *in)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const uint64_t P = 0x100000001b3ull;
    int32_t dims[7] = {in->batch, in->heads_q, in->heads_kv, in->seq_q, in->seq_k, in->dim, in->causal};
    const unsigned char *b = (const unsigned char *)dims;
    for (size_t i = 0; i < sizeof dims; ++i) h = (h ^ b[i]) * P;
    size_t nq = (size_t)in->batch * in->heads_q * in->seq_q * in->dim;
    size_t nk = (size_t)in->batch * in->heads_kv * in->seq_k * in->dim;
    const float *t[3] = {in->q, in->k, in->v};
    size_t n[3] = {nq, nk, nk};
    for (int k = 0; k < 3; ++k)
        for (size_t i = 0; i < n[k]; ++i) {
            uint32_t u;
            memcpy(&u, &t[k][i], 4);
            for (int j = 0; j < 4; ++j) h = (h ^ ((u >> (8 * j)) & 0xff)) * P;
        }
    return h;
}

static float round_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) == 0x7f800000u) return x;
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    memcpy(&x, &u, 4);
    return x;
}

static double rne_int(double y) /* y >= 0, y < 2^52 */
{
    volatile double t = y + 4503599627370496.0;
    return t - 4503599627370496.0;
}

static float round_fp16(float x)
{
    if (!isfinite(x) || x == 0) return x;
    double a = fabs((double)x), r;
    if (a >= 65520.0) r = HUGE_VAL;
    else if (a < 6.103515625e-05) r = rne_int(a * 16777216.0) / 16777216.0; /* subnormal step 2^-24 */
    else {
        int e;
        (void)frexp(a, &e); /* a = m 2^e, m in [0.5, 1): quantum 2^(e - 11) */
        double qn = ldexp(1.0, e - 11);
        r = rne_int(a / qn) * qn;
    }
    return (float)(x < 0 ? -r : r);
}

long long ls_round_to_dtype(float *x, size_t n, ls_cfg_dtype dtype)
{
    if (dtype == LS_DTYPE_FP32) return -1;
    long long bad = -1;
    for (size_t i = 0; i < n; ++i) {
        float y = dtype == LS_DTYPE_BF16 ? round_bf16(x[i]) : round_fp16(x[i]);
        if (!isfinite(y) && isfinite(x[i]) && bad < 0) bad = (long long)i;
        x[i] = y;
    }
    return bad;
}

/* Largest |q.k|/sqrt(d) over visible pairs; rows are subsampled beyond 2^28 multiply-adds. */
static double max_logit(const ls_attn_inputs *in, bool *sampled)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k, group = in->heads_q / in->heads_kv;
    double work = (double)in->batch * in->heads_q * SQ * (double)SK * D;
    int stride = 1;
    const double budget = 268435456.0;
    if (work > budget) stride = (int)ceil(work / budget);
    if (stride > SQ) stride = SQ;
    *sampled = stride > 1 || work / stride > budget;
    double best = 0, inv = 1.0 / sqrt((double)D);
    for (int b = 0; b < in->batch; ++b)
        for (int h = 0; h < in->heads_q; ++h) {
            if (*sampled && work / stride > budget && h % 8) continue; /* still too big: every 8th head */
            const float *kb = in->k + ((size_t)b * in->heads_kv + h / group) * SK * D;
            for (int i = 0; i < SQ; i += stride) {
                const float *q = in->q + (((size_t)b * in->heads_q + h) * SQ + i) * D;
                int jmax = in->causal ? i + (SK - SQ) : SK - 1;
                if (jmax > SK - 1) jmax = SK - 1;
                for (int j = 0; j <= jmax; ++j) {
                    const float *k = kb + (size_t)j * D;
                    double s = 0;
                    for (int t = 0; t < D; ++t) s += (double)q[t] * k[t];
                    s = fabs(s) * inv;
                    if (s > best) best = s;
                }
            }
        }
    return best;
}

static double max_row_norm(const float *x, size_t rows, int d)
{
    double best = 0;
    for (size_t r = 0; r < rows; ++r) {
        double s = 0;
        for (int t = 0; t < d; ++t) s += (double)x[r * d + t] * x[r * d + t];
        if (s > best) best = s;
    }
    return sqrt(best);
}

int ls_workload_build(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                      char *err, size_t errlen)
{
    ls_workload_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    memset(out, 0, sizeof *out);
    const ls_cfg_workload *w = &cfg->workload;
    snprintf(info->name, sizeof info->name, "%s", w->name);
    snprintf(info->generator, sizeof info->generator, "%s", ls_config_enum_name("workload.generator", (int)w->generator));
    snprintf(info->dtype, sizeof info->dtype, "%s", ls_config_enum_name("workload.dtype", (int)w->dtype));
    info->synthetic = w->generator != LS_GEN_TRACE;
    info->logit_limit = LS_E4M3_MAX;
    info->gain_bound = ls_qknorm_gain_bound(w->dim);
    int rc;
    if (w->generator == LS_GEN_TRACE) {
        rc = ls_trace_load(cfg, base_dir, out, info, err, errlen);
    } else {
        int64_t seed = w->seed >= 0 ? w->seed : cfg->seed;
        info->seed = seed;
        if (w->heads_q % w->heads_kv) {
            ls_io_err(err, errlen, "workload.heads_kv: %d does not divide heads_q = %d", w->heads_kv, w->heads_q);
            return -1;
        }
        rc = ls_gen_synthetic(w, seed, out, info, err, errlen);
    }
    if (rc) return -1;
    info->batch = out->batch;
    info->heads_q = out->heads_q;
    info->heads_kv = out->heads_kv;
    info->seq_q = out->seq_q;
    info->seq_k = out->seq_k;
    info->dim = out->dim;
    info->causal = out->causal;
    info->gain_bound = ls_qknorm_gain_bound(out->dim);
    size_t nq = (size_t)out->batch * out->heads_q * out->seq_q * out->dim;
    size_t nk = (size_t)out->batch * out->heads_kv * out->seq_k * out->dim;
    float *t[3] = {out->q, out->k, out->v};
    size_t n[3] = {nq, nk, nk};
    static const char *const nm[3] = {"Q", "K", "V"};
    for (int i = 0; i < 3; ++i) {
        long long bad = ls_round_to_dtype(t[i], n[i], w->dtype);
        if (bad >= 0) {
            ls_io_err(err, errlen, "workload.dtype: %s element %lld overflows %s", nm[i], bad, info->dtype);
            ls_attn_inputs_release(out);
            return -1;
        }
    }
    /* after every transformation (sharpness scaling, rounding to dtype): a finite trace can
     * still overflow, and the fp64 reference of an infinite input is NaN */
    for (int i = 0; i < 3; ++i)
        for (size_t e = 0; e < n[i]; ++e)
            if (!isfinite(t[i][e])) {
                ls_io_err(err, errlen, "workload.sharpness: %s element %zu is %s after scaling by workload.sharpness = %g "
                          "and rounding to %s; inputs must stay finite", nm[i], e, isnan(t[i][e]) ? "NaN" : "infinite",
                          w->sharpness, info->dtype);
                ls_attn_inputs_release(out);
                return -1;
            }
    if (!info->gain_applicable) {
        double mq = max_row_norm(out->q, nq / out->dim, out->dim), mk = max_row_norm(out->k, nk / out->dim, out->dim);
        info->logit_bound = mq * mk / sqrt((double)out->dim);
    }
    info->max_abs_logit = max_logit(out, &info->max_abs_logit_sampled);
    info->logits_within_limit = info->max_abs_logit <= LS_E4M3_MAX;
    if (info->gain_applicable && w->qknorm.enforce_bound && !info->gain_bound_respected) {
        ls_io_err(err, errlen,
                  "workload.qknorm.gain: effective gain %.4g (gain x sharpness) exceeds the D.5 bound sqrt(448/sqrt(%d)) = %.4g "
                  "and workload.qknorm.enforce_bound is true",
                  info->gain_used, out->dim, info->gain_bound);
        ls_attn_inputs_release(out);
        return -1;
    }
    info->hash = ls_workload_hash(out);
    return 0;
}

void ls_workload_info_print(const ls_workload_info *in, FILE *out)
{
    fprintf(out, "workload %s: %s%s, dtype %s, batch %d, heads %d/%d, seq %d x %d, d %d%s\n", in->name, in->generator,
            in->synthetic ? " (synthetic)" : " (trace)", in->dtype, in->batch, in->heads_q, in->heads_kv, in->seq_q,
            in->seq_k, in->dim, in->causal ? ", causal" : "");
    if (in->synthetic) fprintf(out, "  seed %lld\n", (long long)in->seed);
    if (in->source[0]) fprintf(out, "  source %s\n", in->source);
    if (in->gain_applicable)
        fprintf(out, "  QK-norm gain %.4g (Q %.4g, K %.4g) vs D.5 bound %.4g: %s; logit bound %.4g\n", in->gain_used,
                in->gain_q, in->gain_k, in->gain_bound, in->gain_bound_respected ? "respected" : "NOT respected",
                in->logit_bound);
    else
        fprintf(out, "  row-norm logit bound %.4g\n", in->logit_bound);
    fprintf(out, "  max |logit| %.4g%s vs e4m3 limit %.0f: %s\n", in->max_abs_logit,
            in->max_abs_logit_sampled ? " (sampled rows)" : "", in->logit_limit, in->logits_within_limit ? "within" : "EXCEEDS");
    if (in->sinks) fprintf(out, "  attention sinks: %d\n", in->sinks);
    fprintf(out, "  hash %016llx\n", (unsigned long long)in->hash);
}
