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
#include "fp.h"
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
        cached = avx2 && __builtin_cpu_supports("avx512f") ? LSFP_ISA_AVX512 : avx2 ? LSFP_ISA_AVX2 : LSFP_ISA_SCALAR;
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

#ifdef LSFP_X86
/* 8 lanes of round_scalar; sat gets the lanes above max finite, bnd the boundary lanes. */
/* wide/rtz are passed separately so callers can make them compile-time constants. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
round8_spec(const kparams *k, __m256 x, __m256i *sat, __m256 *bnd, const int wide, const int rtz)
{
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    __m256 a = _mm256_and_ps(x, absm);
    __m256i ab = _mm256_castps_si256(a);
    __m256i rb;
    if (!wide) {
        __m256i ef = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7F800000));
        ef = _mm256_max_epi32(ef, _mm256_set1_epi32((int)k->emin_bits));
        ef = _mm256_min_epi32(ef, _mm256_set1_epi32((int)k->emax_bits));
        __m256 c = _mm256_castsi256_ps(_mm256_add_epi32(ef, _mm256_set1_epi32((int)k->c_off)));
        __m256 r = _mm256_sub_ps(_mm256_add_ps(a, c), c);
        if (rtz) {
            __m256 q = _mm256_castsi256_ps(_mm256_sub_epi32(ef, _mm256_set1_epi32((int)k->q_off)));
            r = _mm256_sub_ps(r, _mm256_and_ps(q, _mm256_cmp_ps(r, a, _CMP_GT_OQ)));
            if (bnd) *bnd = _mm256_and_ps(_mm256_cmp_ps(r, a, _CMP_EQ_OQ),
                                          _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_NEQ_OQ));
        } else if (bnd) {
            __m256 half = _mm256_castsi256_ps(_mm256_sub_epi32(ef, _mm256_set1_epi32((int)k->half_off)));
            __m256 dev = _mm256_and_ps(_mm256_sub_ps(a, r), absm);
            *bnd = _mm256_cmp_ps(dev, half, _CMP_EQ_OQ);
        }
        rb = _mm256_castps_si256(r);
    } else {
        /* unsigned compares via the sign-flip trick are unnecessary: ab < 2^31 */
        __m256i special = _mm256_cmpgt_epi32(ab, _mm256_set1_epi32(0x7F7FFFFF));
        __m256i lowm = _mm256_set1_epi32((int)k->low_mask);
        __m256i low = _mm256_and_si256(ab, lowm);
        __m256i up = _mm256_setzero_si256();
        if (!rtz && k->low_mask) {
            __m256i odd = _mm256_and_si256(ab, _mm256_set1_epi32((int)(k->low_mask + 1u)));
            __m256i isodd = _mm256_xor_si256(_mm256_cmpeq_epi32(odd, _mm256_setzero_si256()),
                                             _mm256_set1_epi32(-1));
            up = _mm256_sub_epi32(_mm256_set1_epi32((int)(k->half_bit - 1u)), isodd);
        }
        __m256i rounded = _mm256_andnot_si256(lowm, _mm256_add_epi32(ab, up));
        rb = _mm256_blendv_epi8(rounded, ab, special);
        if (bnd) {
            __m256i b;
            if (rtz)
                b = _mm256_andnot_si256(_mm256_cmpeq_epi32(ab, _mm256_setzero_si256()),
                                        _mm256_cmpeq_epi32(low, _mm256_setzero_si256()));
            else
                b = k->low_mask ? _mm256_cmpeq_epi32(low, _mm256_set1_epi32((int)k->half_bit))
                                : _mm256_setzero_si256();
            *bnd = _mm256_castsi256_ps(_mm256_andnot_si256(special, b));
        }
    }
    __m256i quiet_in = _mm256_cmpgt_epi32(ab, _mm256_set1_epi32((int)k->quiet_above));
    if (k->flush)
        rb = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)f2u(k->min_normal)), rb), rb);
    __m256i gt = _mm256_andnot_si256(quiet_in, _mm256_cmpgt_epi32(rb, _mm256_set1_epi32((int)f2u(k->max_finite))));
    rb = _mm256_blendv_epi8(rb, _mm256_set1_epi32((int)(k->saturate ? f2u(k->max_finite) : k->ovf_bits)), gt);
    __m256i xb = _mm256_castps_si256(x);
    if (k->is_signed) {
        rb = _mm256_or_si256(rb, _mm256_and_si256(xb, _mm256_set1_epi32((int)0x80000000u)));
    } else {
        __m256i neg = _mm256_andnot_si256(_mm256_cmpeq_epi32(ab, _mm256_setzero_si256()),
                                          _mm256_cmpgt_epi32(_mm256_setzero_si256(), xb));
        rb = _mm256_blendv_epi8(rb, _mm256_set1_epi32(0x7FC00000), neg);
    }
    if (sat) *sat = gt;
    return _mm256_castsi256_ps(rb);
}

__attribute__((target("avx2,fma"), always_inline)) static inline __m256
round8(const kparams *k, __m256 x, __m256i *sat, __m256 *bnd)
{
    return round8_spec(k, x, sat, bnd, k->wide, k->rtz);
}

__attribute__((target("avx2,fma"))) static void round_array_avx2(const kparams *k, const float *in, float *out,
                                                                  size_t n, uint64_t *above, uint64_t *unf)
{
    __m256i satc = _mm256_setzero_si256(), unfc = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(in + i);
        __m256i s;
        __m256 r = round8(k, x, &s, NULL);
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
#endif

unsigned lsfp_round_array(const lsfp_format *f, const float *in, float *out, size_t n, lsfp_events *ev)
{
    kparams k;
    kparams_init(&k, f);
    if (f->rounding == LSFP_RND_STOCHASTIC) k.rtz = 0;   /* arrays: stochastic falls back to RNE */
    uint64_t above = 0, unf = 0;
#ifdef LSFP_X86
    if (use_avx2()) round_array_avx2(&k, in, out, n, &above, &unf);
    else
#endif
        round_array_scalar(&k, in, out, n, &above, &unf);
    if (ev) ev->underflows += unf;
    return count_above_max(&k, above, ev) | (unf ? LSFP_FLAG_UNDERFLOW : 0u);
}

/* ---- Accumulation ---- */

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
    float r = dot_strided(&c, spec, a, 1, b, 1, n, &sat, &fix);
    count_above_max(&c.k, sat, ev);
    if (ev) ev->exact_fixups += fix;
    return r;
}

#ifdef LSFP_X86
/* Sign (-1, 0, +1, as floats) of a*b + c - x, exactly, for 4 lanes: x is the fp32 rounding of the
 * exact a*b + c. In double a*b is exact, TwoSum gives s + err = c + a*b exactly, s - x is exact
 * (Sterbenz: s and x are both within 2^-24 of the exact value), and a rounded sum has the sign of
 * the exact one. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m128
residual_sign4(__m128 a, __m128 b, __m128 c, __m128 x)
{
    __m256d cd = _mm256_cvtps_pd(c);
    __m256d p = _mm256_mul_pd(_mm256_cvtps_pd(a), _mm256_cvtps_pd(b));
    __m256d s = _mm256_add_pd(cd, p);
    __m256d bv = _mm256_sub_pd(s, cd);
    __m256d err = _mm256_add_pd(_mm256_sub_pd(cd, _mm256_sub_pd(s, bv)), _mm256_sub_pd(p, bv));
    __m256d res = _mm256_add_pd(_mm256_sub_pd(s, _mm256_cvtps_pd(x)), err);
    __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
    __m256d sg = _mm256_sub_pd(_mm256_and_pd(_mm256_cmp_pd(res, zero, _CMP_GT_OQ), one),
                               _mm256_and_pd(_mm256_cmp_pd(res, zero, _CMP_LT_OQ), one));
    return _mm256_cvtpd_ps(sg);
}

/* The exact-model step for 8 lanes whose fast result nw may sit on a decision boundary: such a
 * lane's fp32 sum x is a midpoint (RNE) or a grid point (RTZ), and the correct rounding of the
 * exact sum is the rounding of x moved one fp32 ulp toward the exact value (an exact tie keeps x).
 * Returns the settled lanes and moves their saturation counts from the fast to the exact result;
 * bit-identical to exact_step (tests/fp: fp_kernels, fp_accum). */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
fixup8(const acc_ctx *c, __m256 kb, __m256 q, __m256 acc, __m256 nw, __m256i *satc, uint64_t *fix,
       const int wide, const int rtz)
{
    __m256 x = _mm256_fmadd_ps(kb, q, acc), bnd;
    __m256i sm_fast, sm_exact;
    (void)round8_spec(&c->k, x, &sm_fast, &bnd, wide, rtz);
    int lanes = _mm256_movemask_ps(bnd);
    if (!lanes) return nw;
    *fix += (uint64_t)__builtin_popcount((unsigned)lanes);
    __m256 sg = _mm256_set_m128(residual_sign4(_mm256_extractf128_ps(kb, 1), _mm256_extractf128_ps(q, 1),
                                               _mm256_extractf128_ps(acc, 1), _mm256_extractf128_ps(x, 1)),
                                residual_sign4(_mm256_castps256_ps128(kb), _mm256_castps256_ps128(q),
                                               _mm256_castps256_ps128(acc), _mm256_castps256_ps128(x)));
    /* one ulp away from zero where the residual has x's sign, toward zero where it has the other */
    __m256 dir = _mm256_mul_ps(x, sg);
    __m256i away = _mm256_castps_si256(_mm256_cmp_ps(dir, _mm256_setzero_ps(), _CMP_GT_OQ));
    __m256i toward = _mm256_castps_si256(_mm256_cmp_ps(dir, _mm256_setzero_ps(), _CMP_LT_OQ));
    __m256i step = _mm256_and_si256(_mm256_sub_epi32(toward, away), _mm256_castps_si256(bnd));
    __m256 xn = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(x), step));
    __m256 exact = round8_spec(&c->k, xn, &sm_exact, NULL, wide, rtz);
    __m256i bi = _mm256_castps_si256(bnd);
    *satc = _mm256_sub_epi32(_mm256_add_epi32(*satc, _mm256_and_si256(sm_fast, bi)), _mm256_and_si256(sm_exact, bi));
    return _mm256_blendv_ps(nw, exact, bnd);
}

/* R rows x V vectors of 8 queries, per-product rounding, one order. Inlined with constant R, V. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
tile_block_avx2(const acc_ctx *c, const float *K, int ldk, const float *Qt, int ldq, int d, int desc,
                float *Y, int ldy, const int R, const int V, const int wide, const int rtz, const int exact,
                uint64_t *sat, uint64_t *fix)
{
    __m256 acc[4][2];
    __m256i satc = _mm256_setzero_si256();
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) acc[r][v] = _mm256_setzero_ps();
    for (int s = 0; s < d; s++) {
        int t = desc ? d - 1 - s : s;
        __m256 q[2];
        for (int v = 0; v < V; v++) q[v] = _mm256_loadu_ps(Qt + (long)t * ldq + 8 * v);
        __m256 nw[4][2], anyb = _mm256_setzero_ps();
        for (int r = 0; r < R; r++) {
            __m256 kb = _mm256_broadcast_ss(K + (long)r * ldk + t);
            for (int v = 0; v < V; v++) {
                __m256i sm;
                __m256 bm;
                nw[r][v] = round8_spec(&c->k, _mm256_fmadd_ps(kb, q[v], acc[r][v]), &sm, exact ? &bm : NULL,
                                       wide, rtz);
                satc = _mm256_sub_epi32(satc, sm);
                if (exact) anyb = _mm256_or_ps(anyb, bm);
            }
        }
        if (exact && !_mm256_testz_ps(anyb, anyb)) {
            /* rare: some lane's fp32 sum sat on a decision boundary; settle those lanes in vector */
            for (int r = 0; r < R; r++) {
                __m256 kb = _mm256_broadcast_ss(K + (long)r * ldk + t);
                for (int v = 0; v < V; v++)
                    nw[r][v] = fixup8(c, kb, q[v], acc[r][v], nw[r][v], &satc, fix, wide, rtz);
            }
        }
        for (int r = 0; r < R; r++)
            for (int v = 0; v < V; v++) acc[r][v] = nw[r][v];
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) _mm256_storeu_ps(Y + (long)r * ldy + 8 * v, acc[r][v]);
    uint32_t sv[8];
    _mm256_storeu_si256((__m256i *)sv, satc);
    for (int l = 0; l < 8; l++) *sat += sv[l];
}

/* The whole tile for one (wide, rtz, exact) combination; R x V blocks plus row tails. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
logit_tile_avx2_spec(const acc_ctx *c, const float *K, int ldk, const float *Qt, int ldq, int nk, int nq, int d,
                     int desc, float *Y, int ldy, const int wide, const int rtz, const int exact,
                     uint64_t *sat, uint64_t *fix)
{
    int nq16 = nq / 16 * 16, nq8 = nq / 8 * 8;
    int i = 0;
#define LSFP_BLOCK(R, V, J) tile_block_avx2(c, K + (long)i * ldk, ldk, Qt + (J), ldq, d, desc, \
        Y + (long)i * ldy + (J), ldy, R, V, wide, rtz, exact, sat, fix)
    for (; i + 4 <= nk; i += 4) {
        for (int j = 0; j < nq16; j += 16) LSFP_BLOCK(4, 2, j);
        if (nq8 > nq16) LSFP_BLOCK(4, 1, nq16);
    }
    for (; i < nk; i++) {
        for (int j = 0; j < nq16; j += 16) LSFP_BLOCK(1, 2, j);
        if (nq8 > nq16) LSFP_BLOCK(1, 1, nq16);
    }
#undef LSFP_BLOCK
}

__attribute__((target("avx2,fma"))) static void
logit_tile_avx2(const acc_ctx *c, const float *K, int ldk, const float *Qt, int ldq, int nk, int nq, int d,
                int desc, float *Y, int ldy, uint64_t *sat, uint64_t *fix)
{
    int wide = c->k.wide, rtz = c->k.rtz, exact = c->exact;
#define LSFP_SPEC(W, T, E) if (wide == W && rtz == T && exact == E) { \
        logit_tile_avx2_spec(c, K, ldk, Qt, ldq, nk, nq, d, desc, Y, ldy, W, T, E, sat, fix); return; }
    LSFP_SPEC(0, 0, 1) LSFP_SPEC(0, 0, 0) LSFP_SPEC(0, 1, 1) LSFP_SPEC(0, 1, 0)
    LSFP_SPEC(1, 0, 1) LSFP_SPEC(1, 0, 0) LSFP_SPEC(1, 1, 1) LSFP_SPEC(1, 1, 0)
#undef LSFP_SPEC
}
#endif

void lsfp_logit_tile(const lsfp_accum *spec, const float *K, int ldk, const float *Qt, int ldq,
                     int nk, int nq, int d, float *Y, int ldy, lsfp_events *ev)
{
    acc_ctx c;
    acc_ctx_init(&c, spec);
    uint64_t sat = 0, fix = 0;
    int j0 = 0;
#ifdef LSFP_X86
    if (use_avx2() && spec->chunk_k <= 1 && !c.stochastic) {
        logit_tile_avx2(&c, K, ldk, Qt, ldq, nk, nq, d, spec->order == LSFP_ORDER_DESCENDING, Y, ldy, &sat, &fix);
        j0 = nq / 8 * 8;
    }
#endif
    for (int i = 0; i < nk; i++)
        for (int j = j0; j < nq; j++)
            Y[(long)i * ldy + j] = dot_strided(&c, spec, K + (long)i * ldk, 1, Qt + j, ldq, d, &sat, &fix);
    count_above_max(&c.k, sat, ev);
    if (ev) ev->exact_fixups += fix;
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
