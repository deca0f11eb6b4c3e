#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lsfp.h"
#include "io.h"
#include "workload_internal.h"

double ls_workload_qknorm_gain_bound(int dim) { return sqrt(LS_WORKLOAD_E4M3_MAX / sqrt((double)dim)); }

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

/* bf16 by bits, branch-free so that loops over it vectorise: RNE on the upper half; inf and NaN stay */
static inline uint32_t bf16_bits(uint32_t u)
{
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    return (u & 0x7f800000u) == 0x7f800000u ? u : r;
}

static inline uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

/* 1 when a finite x rounds to an infinite bf16 */
static inline unsigned bf16_overflows(float x)
{
    uint32_t u = float_bits(x);
    return ((bf16_bits(u) & 0x7f800000u) == 0x7f800000u) & ((u & 0x7f800000u) != 0x7f800000u);
}

/* Rounds in blocks: a block is looked at for the first overflow (a vectorised test, then a search
 * only in the rare block that has one) before it is rounded in place. */
static long long round_bf16_array(float *x, size_t n)
{
    enum { BLOCK = 1024 };
    long long bad = -1;
    for (size_t i0 = 0; i0 < n; i0 += BLOCK) {
        float *b = x + i0;
        size_t m = n - i0 < BLOCK ? n - i0 : BLOCK;
        if (bad < 0) {
            unsigned over = 0;
            for (size_t j = 0; j < m; ++j) over |= bf16_overflows(b[j]);
            for (size_t j = 0; over && j < m; ++j)
                if (bf16_overflows(b[j])) {
                    bad = (long long)(i0 + j);
                    break;
                }
        }
        for (size_t j = 0; j < m; ++j) {
            uint32_t r = bf16_bits(float_bits(b[j]));
            memcpy(&b[j], &r, 4);
        }
    }
    return bad;
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

long long ls_workload_round_to_dtype(float *x, size_t n, ls_config_dtype dtype)
{
    if (dtype == LS_CONFIG_DTYPE_FP32) return -1;
    if (dtype == LS_CONFIG_DTYPE_BF16) return round_bf16_array(x, n);
    long long bad = -1;
    for (size_t i = 0; i < n; ++i) {
        float y = round_fp16(x[i]);
        if (!isfinite(y) && isfinite(x[i]) && bad < 0) bad = (long long)i;
        x[i] = y;
    }
    return bad;
}

/* Which rows the max-|logit| scan visits: every stride-th query row, and beyond 2^28 multiply-adds
 * even at one row per head only every 8th head. */
typedef struct {
    int stride, rows;   /* rows per head */
    bool sampled, every8;
} scan_plan;

static scan_plan plan_scan(const ls_attn_inputs *in)
{
    const int SQ = in->seq_q;
    double work = (double)in->batch * in->heads_q * SQ * (double)in->seq_k * in->dim;
    const double budget = 268435456.0;
    scan_plan p = {.stride = 1};
    if (work > budget) p.stride = (int)ceil(work / budget);
    if (p.stride > SQ) p.stride = SQ;
    p.every8 = work / p.stride > budget;
    p.sampled = p.stride > 1 || p.every8;
    p.rows = (SQ + p.stride - 1) / p.stride;
    return p;
}

int ls_workload_visible_keys(const ls_attn_inputs *in, int i)
{
    int jmax = in->causal ? i + (in->seq_k - in->seq_q) : in->seq_k - 1;
    if (jmax > in->seq_k - 1) jmax = in->seq_k - 1;
    return jmax < 0 ? 0 : jmax + 1;
}

int ls_workload_first_visible_key(const ls_attn_inputs *in, int i)
{
    if (!in->causal || in->window <= 0) return 0;
    int lo = i + (in->seq_k - in->seq_q) - in->window + 1;
    return lo < 0 ? 0 : lo;
}

/* The definition: every visited pair's float64 dot product (-1: out of memory). */
static double max_logit_full(const ls_attn_inputs *in, scan_plan pl)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k, group = in->heads_q / in->heads_kv, stride = pl.stride;
    double best = 0, inv = 1.0 / sqrt((double)D);
    enum { QB = 4 };   /* sampled rows scanned together: they share the loads of K */
    double *dots = malloc((size_t)QB * SK * sizeof *dots);
    if (!dots) return -1;
    for (int b = 0; b < in->batch; ++b)
        for (int h = 0; h < in->heads_q; ++h) {
            if (pl.every8 && h % 8) continue;
            const float *kb = in->k + ((size_t)b * in->heads_kv + h / group) * SK * D;
            for (int i0 = 0; i0 < SQ; i0 += QB * stride) {
                int nq = 0, jmax[QB], jtop = -1;
                for (int i = i0; i < SQ && nq < QB; i += stride, ++nq) {
                    jmax[nq] = ls_workload_visible_keys(in, i) - 1;
                    if (jmax[nq] > jtop) jtop = jmax[nq];
                }
                const float *q = in->q + (((size_t)b * in->heads_q + h) * SQ + i0) * D;
                lsfp_dot_block_f64(q, (long)stride * D, nq, kb, D, jtop + 1, D, dots, SK);
                for (int m = 0; m < nq; ++m)
                    for (int j = 0; j <= jmax[m]; ++j) {
                        double s = fabs(dots[(size_t)m * SK + j]) * inv;
                        if (s > best) best = s;
                    }
            }
        }
    free(dots);
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

/* The same maximum, found faster: an fp32 screen gives every visited row's largest |q.k| within
 * e = (gamma_d(fp32) + gamma_d(fp64)) |q| |k| + d 2^-149 of both the exact value and the float64 dot
 * product; a pair whose float64 value is the maximum has an fp32 value >= M32 - 2e (M32 the screen's
 * maximum), so only rows whose screened maximum reaches that are recomputed in float64, with the
 * definition's kernel (same bits). Falls back to the full scan when the fp32 sums could overflow
 * or too many rows remain. */
static double max_logit_screened(const ls_attn_inputs *in, scan_plan pl)
{
    const int D = in->dim, SQ = in->seq_q, SK = in->seq_k, HK = in->heads_kv, group = in->heads_q / HK;
    size_t nq_all = (size_t)in->batch * in->heads_q * SQ, nk_all = (size_t)in->batch * HK * SK;
    /* |q| |k| bounded from above: the float64 norms' own rounding is below (d + 8) 2^-52 */
    double norms = max_row_norm(in->q, nq_all, D) * max_row_norm(in->k, nk_all, D) * (1.0 + (D + 8) * 0x1p-52);
    double g32 = D * 0x1p-24 / (1.0 - D * 0x1p-24), g64 = D * 0x1p-53 / (1.0 - D * 0x1p-53);
    double e = (g32 + g64) * norms + D * 0x1p-149;
    if (!(D * 0x1p-24 < 0.5 && norms * (1.0 + g32) < 0x1p127)) return max_logit_full(in, pl);
    int heads = 0;
    for (int h = 0; h < in->heads_q; ++h) heads += !(pl.every8 && h % 8);
    size_t nrows = (size_t)in->batch * heads * pl.rows;
    float *rowmax = malloc(nrows * sizeof *rowmax), *packed = malloc(lsfp_absmax_pack_floats(SK, D) * sizeof *packed);
    int *cols = malloc((size_t)pl.rows * sizeof *cols);
    double *dots = malloc((size_t)SK * sizeof *dots);
    double best = -1;
    if (!rowmax || !packed || !cols || !dots) goto done;
    for (int m = 0; m < pl.rows; ++m) cols[m] = ls_workload_visible_keys(in, m * pl.stride);
    size_t r = 0;
    float top = 0;
    long packed_kv = -1;
    for (int b = 0; b < in->batch; ++b)
        for (int h = 0; h < in->heads_q; ++h) {
            if (pl.every8 && h % 8) continue;
            long kv = (long)b * HK + h / group;
            if (kv != packed_kv) lsfp_absmax_pack(in->k + (size_t)kv * SK * D, D, SK, D, packed);
            packed_kv = kv;
            const float *q = in->q + ((size_t)b * in->heads_q + h) * SQ * D;
            lsfp_absmax_rows_f32(q, (long)pl.stride * D, pl.rows, cols, packed, D, rowmax + r);
            for (int m = 0; m < pl.rows; ++m, ++r) top = rowmax[r] > top ? rowmax[r] : top;
        }
    /* the margin's own roundings (and those of top - margin) are far below 2^-20 of it */
    double cut = (double)top - 2.0 * e * (1.0 + 0x1p-20);
    size_t cand = 0;
    for (r = 0; r < nrows; ++r) cand += !(rowmax[r] < cut);
    if (cand > nrows / 4 + 4) {
        best = max_logit_full(in, pl);
        goto done;
    }
    best = 0;
    double inv = 1.0 / sqrt((double)D);
    r = 0;
    for (int b = 0; b < in->batch; ++b)
        for (int h = 0; h < in->heads_q; ++h) {
            if (pl.every8 && h % 8) continue;
            const float *kb = in->k + ((size_t)b * HK + h / group) * SK * D;
            for (int m = 0; m < pl.rows; ++m, ++r) {
                if (rowmax[r] < cut) continue;
                const float *q = in->q + (((size_t)b * in->heads_q + h) * SQ + (size_t)m * pl.stride) * D;
                lsfp_dot_rows_f64(q, kb, D, cols[m], D, dots);
                for (int j = 0; j < cols[m]; ++j) {
                    double s = fabs(dots[j]) * inv;
                    if (s > best) best = s;
                }
            }
        }
done:
    free(rowmax), free(packed), free(cols), free(dots);
    return best;
}

double ls_workload_max_logit(const ls_attn_inputs *in, bool screened, bool *sampled)
{
    scan_plan pl = plan_scan(in);
    *sampled = pl.sampled;
    return screened ? max_logit_screened(in, pl) : max_logit_full(in, pl);
}

/* The facts of the configuration alone, before any data exists. */
static void info_from_config(const ls_config_workload *w, ls_workload_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", w->name);
    snprintf(info->generator, sizeof info->generator, "%s", ls_config_enum_name("workload.generator", (int)w->generator));
    snprintf(info->dtype, sizeof info->dtype, "%s", ls_config_enum_name("workload.dtype", (int)w->dtype));
    info->synthetic = w->generator != LS_CONFIG_GEN_TRACE;
    info->logit_limit = LS_WORKLOAD_E4M3_MAX;
    info->gain_bound = ls_workload_qknorm_gain_bound(w->dim);
    info->data_generated = true;
}

static void release_zero_tensors(ls_attn_inputs *in)
{
    free(in->q);
    free(in->k);
    free(in->v);
    in->q = in->k = in->v = NULL;
    in->release = NULL;
}

int ls_workload_build_geometry(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                               char *err, size_t errlen)
{
    const ls_config_workload *w = &cfg->workload;
    if (w->generator == LS_CONFIG_GEN_TRACE) return ls_workload_build(cfg, base_dir, out, info, err, errlen);
    ls_workload_info local;
    if (!info) info = &local;
    info_from_config(w, info);
    memset(out, 0, sizeof *out);
    if (w->heads_q % w->heads_kv) {
        ls_io_err(err, errlen, "workload.heads_kv: %d does not divide heads_q = %d", w->heads_kv, w->heads_q);
        return -1;
    }
    *out = (ls_attn_inputs){ .batch = w->batch, .heads_q = w->heads_q, .heads_kv = w->heads_kv, .seq_q = w->seq_q,
                             .seq_k = w->seq_k, .dim = w->dim, .causal = w->causal, .window = w->window, .release = release_zero_tensors };
    size_t nq = (size_t)w->batch * w->heads_q * w->seq_q * w->dim, nk = (size_t)w->batch * w->heads_kv * w->seq_k * w->dim;
    /* calloc'ed: the zero pages are mapped lazily and never touched by a run that reads no data */
    out->q = calloc(nq, sizeof(float));
    out->k = calloc(nk, sizeof(float));
    out->v = calloc(nk, sizeof(float));
    if (!out->q || !out->k || !out->v) {
        ls_attn_inputs_release(out);
        ls_io_err(err, errlen, "out of memory for Q/K/V (%zu + 2 x %zu floats)", nq, nk);
        return -1;
    }
    info->data_generated = false;
    info->seed = w->seed >= 0 ? w->seed : cfg->seed;
    info->batch = w->batch;
    info->heads_q = w->heads_q;
    info->heads_kv = w->heads_kv;
    info->seq_q = w->seq_q;
    info->seq_k = w->seq_k;
    info->dim = w->dim;
    info->causal = w->causal;
    info->max_abs_logit = info->logit_bound = NAN;
    return 0;
}

int ls_workload_build(const ls_config *cfg, const char *base_dir, ls_attn_inputs *out, ls_workload_info *info,
                      char *err, size_t errlen)
{
    ls_workload_info local;
    if (!info) info = &local;
    memset(out, 0, sizeof *out);
    const ls_config_workload *w = &cfg->workload;
    info_from_config(w, info);
    int rc;
    if (w->generator == LS_CONFIG_GEN_TRACE) {
        rc = ls_workload_trace_load(cfg, base_dir, out, info, err, errlen);
    } else {
        int64_t seed = w->seed >= 0 ? w->seed : cfg->seed;
        info->seed = seed;
        if (w->heads_q % w->heads_kv) {
            ls_io_err(err, errlen, "workload.heads_kv: %d does not divide heads_q = %d", w->heads_kv, w->heads_q);
            return -1;
        }
        rc = w->generator == LS_CONFIG_GEN_HEADS ? ls_workload_heads(w, seed, out, err, errlen)
                                                 : ls_workload_synthetic(w, seed, out, info, err, errlen);
    }
    if (rc) return -1;
    info->batch = out->batch;
    info->heads_q = out->heads_q;
    info->heads_kv = out->heads_kv;
    info->seq_q = out->seq_q;
    info->seq_k = out->seq_k;
    info->dim = out->dim;
    info->causal = out->causal;
    info->gain_bound = ls_workload_qknorm_gain_bound(out->dim);
    size_t nq = (size_t)out->batch * out->heads_q * out->seq_q * out->dim;
    size_t nk = (size_t)out->batch * out->heads_kv * out->seq_k * out->dim;
    float *t[3] = {out->q, out->k, out->v};
    size_t n[3] = {nq, nk, nk};
    static const char *const nm[3] = {"Q", "K", "V"};
    for (int i = 0; i < 3; ++i) {
        long long bad = ls_workload_round_to_dtype(t[i], n[i], w->dtype);
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
    info->max_abs_logit = ls_workload_max_logit(out, true, &info->max_abs_logit_sampled);
    if (info->max_abs_logit < 0) {
        ls_io_err(err, errlen, "workload: out of memory while scanning the logits");
        ls_attn_inputs_release(out);
        return -1;
    }
    info->logits_within_limit = info->max_abs_logit <= LS_WORKLOAD_E4M3_MAX;
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
    if (!in->data_generated) {
        fprintf(out, "  data not generated (timed.timing_only reads only the geometry)\n");
        return;
    }
    fprintf(out, "  max |logit| %.4g%s vs e4m3 limit %.0f: %s\n", in->max_abs_logit,
            in->max_abs_logit_sampled ? " (sampled rows)" : "", in->logit_limit, in->logits_within_limit ? "within" : "EXCEEDS");
    if (in->sinks) fprintf(out, "  attention sinks: %d\n", in->sinks);
    fprintf(out, "  hash %016llx\n", (unsigned long long)in->hash);
}

int ls_workload_check_finite(const float *x, int ndim, const int64_t *shape, const char *what, char *err, size_t errlen)
{
    if (ndim < 0 || ndim > 8) {
        ls_io_err(err, errlen, "%s: %d dimensions (at most 8)", what, ndim);
        return -1;
    }
    size_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= (size_t)shape[d];
    for (size_t i = 0; i < n; ++i) {
        if (isfinite(x[i])) continue;
        /* multi-index of the offending element, C order */
        char idx[200];
        size_t rem = i, pos = 0, mult[8], m = 1;
        for (int d = ndim - 1; d >= 0; --d) {
            mult[d] = m;
            m *= (size_t)shape[d];
        }
        idx[0] = '\0';
        for (int d = 0; d < ndim && pos < sizeof idx; ++d) {
            pos += (size_t)snprintf(idx + pos, sizeof idx - pos, "%s%zu", d ? ", " : "", rem / mult[d]);
            rem %= mult[d];
        }
        ls_io_err(err, errlen, "%s: element [%s] is %s; inputs must be finite", what, idx, isnan(x[i]) ? "NaN" : "infinite");
        return -1;
    }
    return 0;
}
