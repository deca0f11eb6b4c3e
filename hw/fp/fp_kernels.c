/* hw/fp/fp_kernels.c — branch-free rounding and accumulation kernels.
 *
 * Two families of formats, two tricks (performance.md):
 *  - narrow formats (exponent range inside fp32's): r = (|x| + C) - C with C = 2^(e_q + 23), where
 *    e_q is the exponent of the target quantum, lets the FPU's own RNE drop exactly the right bits,
 *    subnormals included;
 *  - fp32-range formats (bf16, PS(mu), fp32): integer rounding of the fp32 bit pattern, as the LAMP
 *    reference code does.
 * Selects are bit masks, so gcc never needs a branch and the AVX2 versions are a line-for-line
 * transcription of the scalar ones. Both give the results of lsfp_round (fp.c), which defines them.
 *
 * Exact accumulation: fmaf(a, b, c) rounds once to fp32; a second rounding to the target can only
 * differ from the correct single rounding when the fp32 result lies exactly on a decision boundary
 * of the target (a midpoint for RNE, a grid point for RTZ), since fp32 rounding is monotone and
 * every boundary is an fp32 number. Such steps (rare) are redone exactly via round-to-odd.
 */
#include "lsfp.h"
#include "fp_internal.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LSFP_X86 1
#endif

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* Constants of one format for the kernels. */
typedef struct {
    int wide;            /* fp32-range format: bit-pattern rounding */
    int rtz;
    int is_signed;
    int saturate;        /* overflow clamps to max finite */
    int flush;           /* subnormal results flush to zero */
    uint32_t emin_bits;  /* (emin + 127) << 23 */
    uint32_t emax_bits;  /* (emax + 127) << 23 */
    uint32_t c_off;      /* (23 - m) << 23: exponent distance from the quantum's C */
    uint32_t half_off;   /* (m + 1) << 23: from |x|'s exponent to half a quantum */
    uint32_t q_off;      /* m << 23: from |x|'s exponent to one quantum */
    uint32_t low_mask;   /* wide: bits below the kept mantissa */
    uint32_t half_bit;   /* wide: 1 << (k - 1) */
    uint32_t ovf_bits;   /* value on overflow when not saturating (Inf or NaN) */
    uint32_t quiet_above;/* |x| bit patterns above this are passed through, not events: NaN, and Inf
                            in a non-saturating IEEE format */
    float max_finite;
    float min_normal;
    int fast;            /* the AVX-512 fast form applies (fp_kernels_simd.h fast_block) */
    float cmul;          /* fast form: 1.5 * 2^(23 - m), C = 2^e * cmul */
} kparams;

static void kparams_init(kparams *k, const lsfp_format *f)
{
    memset(k, 0, sizeof *k);
    k->wide = f->fp32_range;
    k->rtz = f->rounding == LSFP_RND_RTZ;
    k->is_signed = f->is_signed;
    k->saturate = f->overflow == LSFP_OVF_SATURATE || f->special == LSFP_SPECIAL_FINITE;
    k->flush = !f->subnormals;
    k->emin_bits = (uint32_t)(f->emin + 127) << 23;
    k->emax_bits = (uint32_t)(f->emax + 127) << 23;
    k->c_off = (uint32_t)(23 - f->mbits) << 23;
    k->half_off = (uint32_t)(f->mbits + 1) << 23;
    k->q_off = (uint32_t)f->mbits << 23;
    int kb = 23 - f->mbits;
    k->low_mask = kb > 0 ? (1u << kb) - 1u : 0u;
    k->half_bit = kb > 0 ? 1u << (kb - 1) : 0u;
    k->ovf_bits = f->special == LSFP_SPECIAL_IEEE ? 0x7F800000u : 0x7FC00000u;
    k->quiet_above = (!k->saturate && f->special == LSFP_SPECIAL_IEEE) ? 0x7F7FFFFFu : 0x7F800000u;
    k->max_finite = f->max_finite;
    k->min_normal = f->min_normal;
    /* fast form: signed, saturating RNE without flush, narrow, and 24 >= m + 3 bits so that a
     * round-to-odd fp32 sum rounds as the exact sum */
    k->fast = !k->wide && !k->rtz && k->is_signed && !k->flush && k->saturate && f->mbits <= 21;
    k->cmul = ldexpf(1.5f, 23 - f->mbits);
}

/* Outcome of one rounding step. */
typedef struct {
    float r;         /* rounded value */
    int gt;          /* exceeded max finite: saturated, or NaN/Inf when not saturating */
    int boundary;    /* input sat exactly on a decision boundary of the target */
} step_out;

static inline uint32_t sel(uint32_t m, uint32_t a, uint32_t b) { return (a & m) | (b & ~m); }
static inline uint32_t mask_of(int c) { return (uint32_t)0 - (uint32_t)(c != 0); }

/* Scalar branch-free rounding: the exact transcription of the AVX2 code below. */
static inline step_out round_scalar(const kparams *k, float x)
{
    step_out o;
    uint32_t xb = f2u(x), ab = xb & 0x7FFFFFFFu, rb, bnd;
    float a = u2f(ab);
    if (!k->wide) {
        uint32_t ef = xb & 0x7F800000u;
        ef = ef > k->emin_bits ? ef : k->emin_bits;
        ef = ef < k->emax_bits ? ef : k->emax_bits;
        float c = u2f(ef + k->c_off);
        float r = (a + c) - c;
        float q = u2f(ef - k->q_off);
        float half = u2f(ef - k->half_off);
        float dev = fabsf(a - r);
        if (k->rtz) {
            r = r - u2f(f2u(q) & mask_of(r > a));   /* one quantum down where RNE went up */
            bnd = mask_of(r == a && ab != 0);
        } else {
            bnd = mask_of(dev == half);
        }
        rb = f2u(r);
    } else {
        uint32_t special = mask_of(ab >= 0x7F800000u);
        uint32_t up = (k->rtz || !k->low_mask) ? 0u : k->half_bit - 1u + ((ab & (k->low_mask + 1u)) ? 1u : 0u);
        uint32_t low = ab & k->low_mask;
        rb = sel(special, ab, (ab + up) & ~k->low_mask);
        bnd = ~special & (k->rtz ? mask_of(low == 0 && ab != 0) : mask_of(low == k->half_bit && k->low_mask));
    }
    /* subnormal flush, overflow, sign */
    /* inputs that are not overflow events: NaN, and Inf that a non-saturating IEEE format keeps */
    uint32_t quiet_in = mask_of(ab > k->quiet_above);
    if (k->flush) rb &= ~mask_of(rb < f2u(k->min_normal));
    uint32_t gt = mask_of(rb > f2u(k->max_finite)) & ~quiet_in;
    rb = sel(gt, k->saturate ? f2u(k->max_finite) : k->ovf_bits, rb);
    if (k->is_signed) rb |= xb & 0x80000000u;
    else rb = sel(mask_of((xb >> 31) && ab), 0x7FC00000u, rb);
    o.r = u2f(rb);
    o.gt = (int)(gt & 1u);
    o.boundary = (int)(bnd & 1u);
    return o;
}

/* Kernel family: the CPU's best, capped by the tests' limit. */
static lsfp_isa g_isa_limit = LSFP_ISA_AVX512;
void lsfp_set_isa_limit(lsfp_isa limit) { g_isa_limit = limit; }
void lsfp_set_force_scalar(bool on) { g_isa_limit = on ? LSFP_ISA_SCALAR : LSFP_ISA_AVX512; }

lsfp_isa lsfp_isa_best(void)
{
#ifdef LSFP_X86
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
        cached = avx2 && avx512 ? LSFP_ISA_AVX512 : avx2 ? LSFP_ISA_AVX2 : LSFP_ISA_SCALAR;
    }
    return (lsfp_isa)cached;
#else
    return LSFP_ISA_SCALAR;
#endif
}

lsfp_isa lsfp_isa_active(void)
{
    lsfp_isa b = lsfp_isa_best();
    return b < g_isa_limit ? b : g_isa_limit;
}

const char *lsfp_isa_name(lsfp_isa isa)
{
    return isa == LSFP_ISA_AVX512 ? "AVX-512" : isa == LSFP_ISA_AVX2 ? "AVX2" : "scalar";
}

bool lsfp_have_avx2(void) { return lsfp_isa_best() >= LSFP_ISA_AVX2; }

static int use_avx2(void) { return lsfp_isa_active() >= LSFP_ISA_AVX2; }

/* Values above max finite either saturated or overflowed, by the format's policy. */
static unsigned count_above_max(const kparams *k, uint64_t n, lsfp_events *ev)
{
    if (!n) return 0u;
    if (k->saturate) {
        if (ev) ev->saturations += n;
        return LSFP_FLAG_SATURATED;
    }
    if (ev) ev->overflows += n;
    return LSFP_FLAG_OVERFLOW | (k->ovf_bits == 0x7F800000u ? 0u : LSFP_FLAG_NAN);
}

/* ---- Array rounding ---- */

/* Rounds n values; adds the lanes above max finite to *above and underflows to *unf. */
static void round_array_scalar(const kparams *k, const float *in, float *out, size_t n, uint64_t *above, uint64_t *unf)
{
    for (size_t i = 0; i < n; i++) {
        step_out o = round_scalar(k, in[i]);
        float r = o.r;
        if (r != r) r = u2f(0x7FC00000u);   /* canonical NaN, as lsfp_round */
        *above += (uint64_t)o.gt;
        *unf += (uint64_t)(r == 0.0f && in[i] != 0.0f);
        out[i] = r;
    }
}

/* The acc_ctx of the accumulation kernels is needed by the vector kernels below. */
typedef struct {
    kparams k;
    const lsfp_format *fmt;
    int exact;
    int stochastic;
    lsfp_rng *rng;
} acc_ctx;

static void acc_ctx_init(acc_ctx *c, const lsfp_accum *spec)
{
    kparams_init(&c->k, spec->fmt);
    c->fmt = spec->fmt;
    c->exact = spec->model == LSFP_ACC_EXACT;
    c->stochastic = spec->fmt->rounding == LSFP_RND_STOCHASTIC && spec->rng != NULL;
    if (spec->fmt->rounding == LSFP_RND_STOCHASTIC) c->k.rtz = 0;
    c->rng = spec->rng;
}

#ifdef LSFP_X86
/* The vector kernels, once per instruction set from one transcription of the scalar code. */
#define LSK_AVX2 1
#include "fp_kernels_simd.h"
#undef LSK_AVX2
#define LSK_AVX512 1
#include "fp_kernels_simd.h"
#undef LSK_AVX512

__attribute__((target("avx2,fma"))) static void round_array_avx2(const kparams *k, const float *in, float *out,
                                                                  size_t n, uint64_t *above, uint64_t *unf)
{
    __m256i satc = _mm256_setzero_si256(), unfc = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(in + i);
        __m256i s;
        __m256 r = round_spec_avx2(k, x, &s, NULL, k->wide, k->rtz, 0);
        __m256 isnan_r = _mm256_cmp_ps(r, r, _CMP_UNORD_Q);
        r = _mm256_blendv_ps(r, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), isnan_r);
        __m256 unf8 = _mm256_and_ps(_mm256_cmp_ps(r, _mm256_setzero_ps(), _CMP_EQ_OQ),
                                    _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NEQ_UQ));
        satc = _mm256_sub_epi32(satc, s);
        unfc = _mm256_sub_epi32(unfc, _mm256_castps_si256(unf8));
        _mm256_storeu_ps(out + i, r);
    }
    uint32_t sv[8], uv[8];   /* per-lane counts: at most n/8 each, no overflow for n < 2^35 */
    _mm256_storeu_si256((__m256i *)sv, satc);
    _mm256_storeu_si256((__m256i *)uv, unfc);
    for (int l = 0; l < 8; l++) { *above += sv[l]; *unf += uv[l]; }
    round_array_scalar(k, in + i, out + i, n - i, above, unf);
}

/* round_array_avx2 for 16 lanes at a time; the rest by round_array_avx2. */
__attribute__((target("avx512f,avx512dq,avx2,fma"))) static void round_array_avx512(const kparams *k, const float *in,
                                                                                     float *out, size_t n,
                                                                                     uint64_t *above, uint64_t *unf)
{
    __m512i satc = _mm512_setzero_si512(), unfc = _mm512_setzero_si512();
    const __m512i minus1 = _mm512_set1_epi32(-1);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 x = _mm512_loadu_ps(in + i);
        __mmask16 s;
        __m512 r = round_spec_avx512(k, x, &s, NULL, k->wide, k->rtz, 0);
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
        __mmask16 u = _mm512_cmp_ps_mask(r, _mm512_setzero_ps(), _CMP_EQ_OQ) &
                      _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NEQ_UQ);
        satc = _mm512_mask_sub_epi32(satc, s, satc, minus1);
        unfc = _mm512_mask_sub_epi32(unfc, u, unfc, minus1);
        _mm512_storeu_ps(out + i, r);
    }
    uint32_t sv[16], uv[16];   /* per-lane counts: at most n/16 each */
    _mm512_storeu_si512((void *)sv, satc);
    _mm512_storeu_si512((void *)uv, unfc);
    for (int l = 0; l < 16; l++) { *above += sv[l]; *unf += uv[l]; }
    round_array_avx2(k, in + i, out + i, n - i, above, unf);
}
#endif

unsigned lsfp_round_array(const lsfp_format *f, const float *in, float *out, size_t n, lsfp_events *ev)
{
    kparams k;
    kparams_init(&k, f);
    if (f->rounding == LSFP_RND_STOCHASTIC) k.rtz = 0;   /* arrays: stochastic falls back to RNE */
    uint64_t above = 0, unf = 0;
#ifdef LSFP_X86
    if (lsfp_isa_active() == LSFP_ISA_AVX512) round_array_avx512(&k, in, out, n, &above, &unf);
    else if (use_avx2()) round_array_avx2(&k, in, out, n, &above, &unf);
    else
#endif
        round_array_scalar(&k, in, out, n, &above, &unf);
    if (ev) ev->underflows += unf;
    return count_above_max(&k, above, ev) | (unf ? LSFP_FLAG_UNDERFLOW : 0u);
}

/* ---- Accumulation ---- */


/* Exact single rounding of a*b + c, and whether it saturated. */
static float exact_step(const acc_ctx *c, float a, float b, float acc, int *sat)
{
    unsigned fl = 0;
    float r = lsfp_round_double(c->fmt, lsfp_fma_round_odd(a, b, acc), &fl);
    *sat = (fl & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) != 0;
    return r;
}

/* acc <- round(acc + a*b) under the context's model; counts saturations. */
static inline float acc_step(const acc_ctx *c, float acc, float a, float b, uint64_t *sat, uint64_t *fix)
{
    if (c->stochastic) {
        unsigned fl = 0;
        double x = c->exact ? lsfp_fma_round_odd(a, b, acc) : (double)fmaf(a, b, acc);
        float r = lsfp_round_mode(c->fmt, x, LSFP_RND_STOCHASTIC, c->rng, &fl);
        *sat += (fl & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) != 0;
        return r;
    }
    step_out o = round_scalar(&c->k, fmaf(a, b, acc));
    if (c->exact && o.boundary) {
        int s;
        ++*fix;
        o.r = exact_step(c, a, b, acc, &s);
        o.gt = s;
    }
    *sat += (uint64_t)o.gt;
    return o.r;
}

/* One dot product with strides (a[i*sa], b[i*sb]). */
static float dot_strided(const acc_ctx *c, const lsfp_accum *spec, const float *a, int sa, const float *b, int sb,
                         int n, uint64_t *sat, uint64_t *fix)
{
    float acc = 0.0f;
    int chunk = spec->chunk_k > 1 ? spec->chunk_k : 1;
    int desc = spec->order == LSFP_ORDER_DESCENDING;
    for (int s = 0; s < n; s += chunk) {
        int len = n - s < chunk ? n - s : chunk;
        if (chunk == 1) {
            int i = desc ? n - 1 - s : s;
            acc = acc_step(c, acc, a[(long)i * sa], b[(long)i * sb], sat, fix);
        } else {
            float cs = 0.0f;   /* the chunk's plain fp32 sum, in the chunk's order */
            for (int t = 0; t < len; t++) {
                int i = desc ? n - 1 - (s + t) : s + t;
                cs = fmaf(a[(long)i * sa], b[(long)i * sb], cs);
            }
            acc = acc_step(c, acc, cs, 1.0f, sat, fix);
        }
    }
    return acc;
}

float lsfp_dot(const lsfp_accum *spec, const float *a, const float *b, int n, lsfp_events *ev)
{
    acc_ctx c;
    acc_ctx_init(&c, spec);
    uint64_t sat = 0, fix = 0;
    float r = spec->fused_k > 0 ? lsfp_fused_dot(spec, a, 1, b, 1, n, &sat) : dot_strided(&c, spec, a, 1, b, 1, n, &sat, &fix);
    count_above_max(&c.k, sat, ev);
    if (ev) ev->exact_fixups += fix;
    return r;
}


void lsfp_logit_tile(const lsfp_accum *spec, const float *K, int ldk, const float *Qt, int ldq,
                     int nk, int nq, int d, float *Y, int ldy, lsfp_events *ev)
{
    acc_ctx c;
    acc_ctx_init(&c, spec);
    uint64_t sat = 0, fix = 0;
    int j0 = 0;
    if (spec->fused_k > 0) {   /* the fused form: scalar kernel (fp_fused.c) */
        for (int i = 0; i < nk; i++)
            for (int j = 0; j < nq; j++)
                Y[(long)i * ldy + j] = lsfp_fused_dot(spec, K + (long)i * ldk, 1, Qt + j, ldq, d, &sat);
        count_above_max(&c.k, sat, ev);
        return;
    }
#ifdef LSFP_X86
    if (spec->chunk_k <= 1 && !c.stochastic) {
        /* AVX-512 takes whole groups of 16 queries, AVX2 a group of 8 left over, the scalar code the rest */
        int desc = spec->order == LSFP_ORDER_DESCENDING;
        lsfp_isa isa = lsfp_isa_active();
        if (isa == LSFP_ISA_AVX512) j0 = logit_tile_avx512(&c, K, ldk, Qt, ldq, nk, nq, d, desc, Y, ldy, &sat, &fix);
        if (isa >= LSFP_ISA_AVX2)
            j0 += logit_tile_avx2(&c, K, ldk, Qt + j0, ldq, nk, nq - j0, d, desc, Y + j0, ldy, &sat, &fix);
    }
#endif
    for (int i = 0; i < nk; i++)
        for (int j = j0; j < nq; j++)
            Y[(long)i * ldy + j] = dot_strided(&c, spec, K + (long)i * ldk, 1, Qt + j, ldq, d, &sat, &fix);
    count_above_max(&c.k, sat, ev);
    if (ev) ev->exact_fixups += fix;
}

bool lsfp_logit_tile_fast(const lsfp_accum *spec)
{
    acc_ctx c;
    acc_ctx_init(&c, spec);
    return spec->fused_k <= 0 && spec->chunk_k <= 1 && !c.stochastic && c.k.fast && lsfp_isa_active() == LSFP_ISA_AVX512;
}

void lsfp_logit_tile_fp32(const float *K, int ldk, const float *Qt, int ldq, int nk, int nq, int d, float *Y, int ldy)
{
    for (int i = 0; i < nk; i++) {
        float *y = Y + (long)i * ldy;
        for (int j = 0; j < nq; j++) y[j] = 0.0f;
        for (int t = 0; t < d; t++) {
            float kv = K[(long)i * ldk + t];
            const float *q = Qt + (long)t * ldq;
            for (int j = 0; j < nq; j++) y[j] += kv * q[j];   /* vectorises over j */
        }
    }
}
