/* hw/fp/fp_kernels_simd.h — the vector kernels of fp_kernels.c, written once over a lane width and
 * included once per instruction set (LSK_AVX2: 8 lanes, LSK_AVX512: 16 lanes). Each is a
 * line-for-line transcription of the scalar code it replaces (round_scalar, acc_step, the tile
 * loop), so every instantiation gives the scalar bits. Lane masks (LSK_VM) are whole-lane integer
 * vectors on AVX2 and mask registers on AVX-512. Private to fp_kernels.c. */

/* The residual's exact sign in double (D: double vector type, P: its intrinsic prefix, CVT: float
 * half -> D), as a D of -1, 0, +1: a*b is exact in double, TwoSum gives s + err = c + a*b exactly,
 * s - x is exact (Sterbenz: s and x, the fp32 rounding of a*b + c, are both within 2^-24 of the exact
 * value), and a rounded sum has the sign of the exact one. */
#ifndef LSK_RESIDUAL_SIGN
#define LSK_RESIDUAL_SIGN(D, P, CVT, a, b, c, x, out)                                                     \
    do {                                                                                                  \
        D cd_ = CVT(c), p_ = P##_mul_pd(CVT(a), CVT(b)), s_ = P##_add_pd(cd_, p_), bv_ = P##_sub_pd(s_, cd_); \
        D err_ = P##_add_pd(P##_sub_pd(cd_, P##_sub_pd(s_, bv_)), P##_sub_pd(p_, bv_));                    \
        D res_ = P##_add_pd(P##_sub_pd(s_, CVT(x)), err_), one_ = P##_set1_pd(1.0);                        \
        out = P##_sub_pd(LSK_PD_WHERE(P, res_, _CMP_GT_OQ, one_), LSK_PD_WHERE(P, res_, _CMP_LT_OQ, one_));  \
    } while (0)
#endif

#if defined(LSK_AVX2)
#define LSK(name) name##_avx2
#define LSK_TGT __attribute__((target("avx2,fma"), always_inline)) static inline
#define LSK_FN __attribute__((target("avx2,fma"))) static
#define LSK_W 8
#define LSK_VF __m256
#define LSK_VI __m256i
#define F_LOAD(p) _mm256_loadu_ps(p)
#define F_STORE(p, v) _mm256_storeu_ps(p, v)
#define F_BCAST(p) _mm256_broadcast_ss(p)
#define F_ZERO() _mm256_setzero_ps()
#define F_ADD(a, b) _mm256_add_ps(a, b)
#define F_SUB(a, b) _mm256_sub_ps(a, b)
#define F_MUL(a, b) _mm256_mul_ps(a, b)
#define F_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define AS_I(f) _mm256_castps_si256(f)
#define AS_F(i) _mm256_castsi256_ps(i)
#define I_SET1(x) _mm256_set1_epi32(x)
#define I_ZERO() _mm256_setzero_si256()
#define I_STORE(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define I_ADD(a, b) _mm256_add_epi32(a, b)
#define I_SUB(a, b) _mm256_sub_epi32(a, b)
#define I_AND(a, b) _mm256_and_si256(a, b)
#define I_ANDNOT(a, b) _mm256_andnot_si256(a, b)
#define I_OR(a, b) _mm256_or_si256(a, b)
#define I_XOR(a, b) _mm256_xor_si256(a, b)
#define I_MAX(a, b) _mm256_max_epi32(a, b)
#define I_MIN(a, b) _mm256_min_epi32(a, b)
#define LSK_VM __m256i
#define F_CMPM(a, b, p) _mm256_castps_si256(_mm256_cmp_ps(a, b, p))
#define I_CMPGTM(a, b) _mm256_cmpgt_epi32(a, b)
#define I_CMPEQM(a, b) _mm256_cmpeq_epi32(a, b)
#define M_ZERO() _mm256_setzero_si256()
#define M_AND(a, b) _mm256_and_si256(a, b)
#define M_ANDNOT(a, b) _mm256_andnot_si256(a, b)
#define M_OR(a, b) _mm256_or_si256(a, b)
#define M_TOVEC(m) (m)
#define I_BLENDM(a, b, m) _mm256_blendv_epi8(a, b, m)
#define I_AND_M(v, m) _mm256_and_si256(v, m)
#define I_MASKINC(v, m) _mm256_sub_epi32(v, m)
#define I_MASKDEC(v, m) _mm256_add_epi32(v, m)
#define M_ANY(m) (!_mm256_testz_si256(m, m))
#define M_BITS(m) ((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m)))

/* one where res compares true with zero, else zero */
#define LSK_PD_WHERE(P, res, cmp, one) _mm256_and_pd(_mm256_cmp_pd(res, _mm256_setzero_pd(), cmp), one)
LSK_TGT __m128 residual_sign4(__m128 a, __m128 b, __m128 c, __m128 x)
{
    __m256d sg;
    LSK_RESIDUAL_SIGN(__m256d, _mm256, _mm256_cvtps_pd, a, b, c, x, sg);
    return _mm256_cvtpd_ps(sg);
}
#undef LSK_PD_WHERE

LSK_TGT __m256 residual_sign_avx2(__m256 a, __m256 b, __m256 c, __m256 x)
{
    return _mm256_set_m128(residual_sign4(_mm256_extractf128_ps(a, 1), _mm256_extractf128_ps(b, 1),
                                          _mm256_extractf128_ps(c, 1), _mm256_extractf128_ps(x, 1)),
                           residual_sign4(_mm256_castps256_ps128(a), _mm256_castps256_ps128(b),
                                          _mm256_castps256_ps128(c), _mm256_castps256_ps128(x)));
}

#elif defined(LSK_AVX512)
#define LSK(name) name##_avx512
#define LSK_TGT __attribute__((target("avx512f,avx512dq,avx2,fma"), always_inline)) static inline
#define LSK_FN __attribute__((target("avx512f,avx512dq,avx2,fma"))) static
#define LSK_W 16
#define LSK_VF __m512
#define LSK_VI __m512i
#define F_LOAD(p) _mm512_loadu_ps(p)
#define F_STORE(p, v) _mm512_storeu_ps(p, v)
#define F_BCAST(p) _mm512_set1_ps(*(p))
#define F_ZERO() _mm512_setzero_ps()
#define F_ADD(a, b) _mm512_add_ps(a, b)
#define F_SUB(a, b) _mm512_sub_ps(a, b)
#define F_MUL(a, b) _mm512_mul_ps(a, b)
#define F_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define AS_I(f) _mm512_castps_si512(f)
#define AS_F(i) _mm512_castsi512_ps(i)
#define I_SET1(x) _mm512_set1_epi32(x)
#define I_ZERO() _mm512_setzero_si512()
#define I_STORE(p, v) _mm512_storeu_si512((void *)(p), v)
#define I_ADD(a, b) _mm512_add_epi32(a, b)
#define I_SUB(a, b) _mm512_sub_epi32(a, b)
#define I_AND(a, b) _mm512_and_si512(a, b)
#define I_ANDNOT(a, b) _mm512_andnot_si512(a, b)
#define I_OR(a, b) _mm512_or_si512(a, b)
#define I_XOR(a, b) _mm512_xor_si512(a, b)
#define I_MAX(a, b) _mm512_max_epi32(a, b)
#define I_MIN(a, b) _mm512_min_epi32(a, b)
#define LSK_VM __mmask16
#define F_CMPM(a, b, p) _mm512_cmp_ps_mask(a, b, p)
#define I_CMPGTM(a, b) _mm512_cmpgt_epi32_mask(a, b)
#define I_CMPEQM(a, b) _mm512_cmpeq_epi32_mask(a, b)
#define M_ZERO() ((__mmask16)0)
#define M_AND(a, b) ((__mmask16)((a) & (b)))
#define M_ANDNOT(a, b) ((__mmask16)(~(a) & (b)))
#define M_OR(a, b) ((__mmask16)((a) | (b)))
#define M_TOVEC(m) _mm512_movm_epi32(m)
#define I_BLENDM(a, b, m) _mm512_mask_blend_epi32(m, a, b)
#define I_AND_M(v, m) _mm512_maskz_mov_epi32(m, v)
#define I_MASKINC(v, m) _mm512_mask_sub_epi32(v, m, v, _mm512_set1_epi32(-1))
#define I_MASKDEC(v, m) _mm512_mask_add_epi32(v, m, v, _mm512_set1_epi32(-1))
#define M_ANY(m) ((m) != 0)
#define M_BITS(m) ((unsigned)(m))

/* residual_sign4 (AVX2) for 8 lanes at a time in double. */
#define LSK_PD_WHERE(P, res, cmp, one) _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(res, _mm512_setzero_pd(), cmp), one)
LSK_TGT __m256 residual_sign8(__m256 a, __m256 b, __m256 c, __m256 x)
{
    __m512d sg;
    LSK_RESIDUAL_SIGN(__m512d, _mm512, _mm512_cvtps_pd, a, b, c, x, sg);
    return _mm512_cvtpd_ps(sg);
}
#undef LSK_PD_WHERE

#define LSK_HI8(v) _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))
LSK_TGT __m512 residual_sign_avx512(__m512 a, __m512 b, __m512 c, __m512 x)
{
    __m512 lo = _mm512_castps256_ps512(residual_sign8(_mm512_castps512_ps256(a), _mm512_castps512_ps256(b),
                                                      _mm512_castps512_ps256(c), _mm512_castps512_ps256(x)));
    __m256 hi = residual_sign8(LSK_HI8(a), LSK_HI8(b), LSK_HI8(c), LSK_HI8(x));
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(lo), _mm256_castps_pd(hi), 1));
}
#undef LSK_HI8
#else
#error "define LSK_AVX2 or LSK_AVX512 before including fp_kernels_simd.h"
#endif

/* W lanes of round_scalar; sat gets the lanes above max finite, bnd the boundary lanes.
 * wide/rtz are passed separately so callers can make them compile-time constants. */
/* plain: a signed format without flush to zero (e4m3, e4m11: the hardware logits), so that those
 * two tests leave the hot loop. */
LSK_TGT LSK_VF LSK(round_spec)(const kparams *k, LSK_VF x, LSK_VM *sat, LSK_VM *bnd, const int wide, const int rtz,
                               const int plain)
{
    const LSK_VI absm = I_SET1(0x7FFFFFFF);
    LSK_VI xb = AS_I(x), ab = I_AND(xb, absm), rb;
    LSK_VF a = AS_F(ab);
    if (!wide) {
        LSK_VI ef = I_AND(xb, I_SET1(0x7F800000));
        ef = I_MAX(ef, I_SET1((int)k->emin_bits));
        ef = I_MIN(ef, I_SET1((int)k->emax_bits));
        LSK_VF c = AS_F(I_ADD(ef, I_SET1((int)k->c_off)));
        LSK_VF r = F_SUB(F_ADD(a, c), c);
        if (rtz) {
            LSK_VI q = I_SUB(ef, I_SET1((int)k->q_off));
            r = F_SUB(r, AS_F(I_AND_M(q, F_CMPM(r, a, _CMP_GT_OQ))));
            if (bnd) *bnd = M_AND(F_CMPM(r, a, _CMP_EQ_OQ), F_CMPM(a, F_ZERO(), _CMP_NEQ_OQ));
        } else if (bnd) {
            LSK_VF half = AS_F(I_SUB(ef, I_SET1((int)k->half_off)));
            LSK_VF dev = AS_F(I_AND(AS_I(F_SUB(a, r)), absm));
            *bnd = F_CMPM(dev, half, _CMP_EQ_OQ);
        }
        rb = AS_I(r);
    } else {
        /* unsigned compares via the sign-flip trick are unnecessary: ab < 2^31 */
        LSK_VM special = I_CMPGTM(ab, I_SET1(0x7F7FFFFF));
        LSK_VI lowm = I_SET1((int)k->low_mask);
        LSK_VI low = I_AND(ab, lowm);
        LSK_VI up = I_ZERO();
        if (!rtz && k->low_mask) {
            /* half a quantum minus one, plus one where the kept part is odd (ties to even) */
            LSK_VM odd = M_ANDNOT(I_CMPEQM(I_AND(ab, I_SET1((int)(k->low_mask + 1u))), I_ZERO()), (LSK_VM)~M_ZERO());
            up = I_SUB(I_SET1((int)(k->half_bit - 1u)), M_TOVEC(odd));
        }
        rb = I_BLENDM(I_ANDNOT(lowm, I_ADD(ab, up)), ab, special);
        if (bnd) {
            LSK_VM b;
            if (rtz) b = M_ANDNOT(I_CMPEQM(ab, I_ZERO()), I_CMPEQM(low, I_ZERO()));
            else b = k->low_mask ? I_CMPEQM(low, I_SET1((int)k->half_bit)) : M_ZERO();
            *bnd = M_ANDNOT(special, b);
        }
    }
    LSK_VM quiet_in = I_CMPGTM(ab, I_SET1((int)k->quiet_above));
    if (!plain && k->flush) rb = I_BLENDM(rb, I_ZERO(), I_CMPGTM(I_SET1((int)f2u(k->min_normal)), rb));
    LSK_VM gt = M_ANDNOT(quiet_in, I_CMPGTM(rb, I_SET1((int)f2u(k->max_finite))));
    rb = I_BLENDM(rb, I_SET1((int)(k->saturate ? f2u(k->max_finite) : k->ovf_bits)), gt);
    if (plain || k->is_signed) {
        rb = I_OR(rb, I_AND(xb, I_SET1((int)0x80000000u)));
    } else {
        LSK_VM neg = M_ANDNOT(I_CMPEQM(ab, I_ZERO()), I_CMPGTM(I_ZERO(), xb));
        rb = I_BLENDM(rb, I_SET1(0x7FC00000), neg);
    }
    if (sat) *sat = gt;
    return AS_F(rb);
}

/* The exact-model step for W lanes whose fast result nw may sit on a decision boundary: such a
 * lane's fp32 sum x is a midpoint (RNE) or a grid point (RTZ), and the correct rounding of the
 * exact sum is the rounding of x moved one fp32 ulp toward the exact value (an exact tie keeps x).
 * Returns the settled lanes and moves their saturation counts from the fast to the exact result;
 * bit-identical to exact_step (tests/fp: fp_kernels, fp_accum). */
LSK_TGT LSK_VF LSK(fixup)(const acc_ctx *c, LSK_VF kb, LSK_VF q, LSK_VF acc, LSK_VF nw, LSK_VI *satc, uint64_t *fix,
                          const int wide, const int rtz, const int plain)
{
    LSK_VF x = F_FMA(kb, q, acc);
    LSK_VM bnd, sm_fast, sm_exact;
    (void)LSK(round_spec)(&c->k, x, &sm_fast, &bnd, wide, rtz, plain);
    unsigned lanes = M_BITS(bnd);
    if (!lanes) return nw;
    *fix += (uint64_t)__builtin_popcount(lanes);
    /* one ulp away from zero where the residual has x's sign, toward zero where it has the other */
    LSK_VF dir = F_MUL(x, LSK(residual_sign)(kb, q, acc, x));
    LSK_VM away = M_AND(F_CMPM(dir, F_ZERO(), _CMP_GT_OQ), bnd), toward = M_AND(F_CMPM(dir, F_ZERO(), _CMP_LT_OQ), bnd);
    LSK_VF xn = AS_F(I_MASKDEC(I_MASKINC(AS_I(x), away), toward));
    LSK_VF exact = LSK(round_spec)(&c->k, xn, &sm_exact, NULL, wide, rtz, plain);
    *satc = I_MASKINC(I_MASKDEC(*satc, M_AND(sm_fast, bnd)), M_AND(sm_exact, bnd));
    return AS_F(I_BLENDM(AS_I(nw), AS_I(exact), bnd));
}

/* R rows x V vectors of W queries, per-product rounding, one order. Inlined with constant R, V. */
LSK_TGT void LSK(tile_block)(const acc_ctx *c, const float *K, int ldk, const float *Qt, int ldq, int d, int desc,
                             float *Y, int ldy, const int R, const int V, const int wide, const int rtz,
                             const int exact, const int plain, uint64_t *sat, uint64_t *fix)
{
    LSK_VF acc[4][2];
    LSK_VI satc = I_ZERO();
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) acc[r][v] = F_ZERO();
    for (int s = 0; s < d; s++) {
        int t = desc ? d - 1 - s : s;
        LSK_VF q[2], nw[4][2];
        LSK_VM anyb = M_ZERO();
        for (int v = 0; v < V; v++) q[v] = F_LOAD(Qt + (long)t * ldq + LSK_W * v);
        for (int r = 0; r < R; r++) {
            LSK_VF kb = F_BCAST(K + (long)r * ldk + t);
            for (int v = 0; v < V; v++) {
                LSK_VM sm, bm;
                nw[r][v] = LSK(round_spec)(&c->k, F_FMA(kb, q[v], acc[r][v]), &sm, exact ? &bm : NULL, wide, rtz,
                                           plain);
                satc = I_MASKINC(satc, sm);
                if (exact) anyb = M_OR(anyb, bm);
            }
        }
        if (exact && M_ANY(anyb)) {
            /* rare: some lane's fp32 sum sat on a decision boundary; settle those lanes in vector */
            for (int r = 0; r < R; r++) {
                LSK_VF kb = F_BCAST(K + (long)r * ldk + t);
                for (int v = 0; v < V; v++)
                    nw[r][v] = LSK(fixup)(c, kb, q[v], acc[r][v], nw[r][v], &satc, fix, wide, rtz, plain);
            }
        }
        for (int r = 0; r < R; r++)
            for (int v = 0; v < V; v++) acc[r][v] = nw[r][v];
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) F_STORE(Y + (long)r * ldy + LSK_W * v, acc[r][v]);
    uint32_t sv[LSK_W];   /* per-lane counts: at most d each */
    I_STORE(sv, satc);
    for (int l = 0; l < LSK_W; l++) *sat += sv[l];
}

#if defined(LSK_AVX512)
/* The hardware logits' fast form (narrow, signed, saturating, RNE, no flush: e4m3 and e4m11), R rows
 * x V vectors of 16 queries. Bit-identical to tile_block, with fewer operations per product:
 *  - exact model: the fp32 sum is taken round-to-odd (the round-down and round-up FMAs are adjacent
 *    fp32 numbers or equal; the odd one of them is the round-to-odd sum). With 24 >= m + 3 bits a
 *    round-to-odd sum rounds to the format exactly as the exact sum does (Boldo & Melquiond), so no
 *    boundary test and no fix-up are needed;
 *  - the rounding itself signed, r = (x + C) - C with C = 1.5 * 2^(e_q + 23) as two FMAs of the
 *    quantum's power of two, the sign of a zero put back from x;
 *  - no saturation in the loop: the largest |r| is tracked per lane, and a block where some step
 *    went above max finite (or produced NaN from an input that is not finite) is redone by
 *    tile_block, which saturates, counts and handles special values. Every other block never
 *    saturated, so its sums are the saturating sums.
 * Returns 0 when the block must be redone. */
LSK_TGT int LSK(fast_block)(const acc_ctx *c, const float *K, int ldk, const float *Qt, int ldq, int d, int desc,
                            float *Y, int ldy, const int R, const int V, const int exact)
{
    const __m512i expm = _mm512_set1_epi32(0x7F800000), emin = _mm512_set1_epi32((int)c->k.emin_bits);
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u), one = _mm512_set1_epi32(1);
    const __m512 kc = _mm512_set1_ps(c->k.cmul), maxf = _mm512_set1_ps(c->k.max_finite);
    __m512 acc[4][2], trk[4][2];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) acc[r][v] = trk[r][v] = _mm512_setzero_ps();
    for (int s = 0; s < d; s++) {
        int t = desc ? d - 1 - s : s;
        __m512 q[2];
        for (int v = 0; v < V; v++) q[v] = _mm512_loadu_ps(Qt + (long)t * ldq + 16 * v);
        for (int r = 0; r < R; r++) {
            __m512 kb = _mm512_set1_ps(K[(long)r * ldk + t]);
            for (int v = 0; v < V; v++) {
                __m512 x;
                if (exact) {
                    __m512 dn = _mm512_fmadd_round_ps(kb, q[v], acc[r][v], _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
                    __m512 up = _mm512_fmadd_round_ps(kb, q[v], acc[r][v], _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
                    x = _mm512_mask_mov_ps(up, _mm512_test_epi32_mask(_mm512_castps_si512(dn), one), dn);
                } else {
                    x = _mm512_fmadd_ps(kb, q[v], acc[r][v]);
                }
                __m512 e = _mm512_castsi512_ps(_mm512_max_epi32(_mm512_and_si512(_mm512_castps_si512(x), expm), emin));
                __m512 rr = _mm512_fnmadd_ps(e, kc, _mm512_fmadd_ps(e, kc, x));   /* (x + C) - C, C = e * cmul */
                rr = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(rr), _mm512_castps_si512(x),
                                                                   sign, 0xF8));   /* rr | (x & sign) */
                trk[r][v] = _mm512_range_ps(trk[r][v], rr, 0x0B);   /* max |.|, sign cleared */
                acc[r][v] = rr;
            }
        }
    }
    __mmask16 hot = 0;
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) hot |= _mm512_cmp_ps_mask(trk[r][v], maxf, _CMP_NLE_UQ);
    if (hot) return 0;
    for (int r = 0; r < R; r++)
        for (int v = 0; v < V; v++) _mm512_storeu_ps(Y + (long)r * ldy + 16 * v, acc[r][v]);
    return 1;
}
#endif

/* The tile's first nq / W * W columns for one (wide, rtz, exact) combination: R x V blocks. */
LSK_TGT void LSK(logit_tile_spec)(const acc_ctx *c, const float *K, int ldk, const float *Qt, int ldq, int nk, int nq,
                                  int d, int desc, float *Y, int ldy, const int wide, const int rtz, const int exact,
                                  const int plain, uint64_t *sat, uint64_t *fix)
{
    int nq2 = nq / (2 * LSK_W) * (2 * LSK_W), nq1 = nq / LSK_W * LSK_W;
    int i = 0;
#if defined(LSK_AVX512)
    const int fast = c->k.fast;
#define LSK_FAST(R, V, J) (fast && LSK(fast_block)(c, K + (long)i * ldk, ldk, Qt + (J), ldq, d, desc, \
        Y + (long)i * ldy + (J), ldy, R, V, exact))
#else
#define LSK_FAST(R, V, J) 0
#endif
#define LSK_BLOCK(R, V, J) if (!LSK_FAST(R, V, J)) LSK(tile_block)(c, K + (long)i * ldk, ldk, Qt + (J), ldq, d, desc, \
        Y + (long)i * ldy + (J), ldy, R, V, wide, rtz, exact, plain, sat, fix)
    for (; i + 4 <= nk; i += 4) {
        for (int j = 0; j < nq2; j += 2 * LSK_W) LSK_BLOCK(4, 2, j);
        if (nq1 > nq2) LSK_BLOCK(4, 1, nq2);
    }
    for (; i < nk; i++) {
        for (int j = 0; j < nq2; j += 2 * LSK_W) LSK_BLOCK(1, 2, j);
        if (nq1 > nq2) LSK_BLOCK(1, 1, nq2);
    }
#undef LSK_BLOCK
#undef LSK_FAST
}

/* Returns the columns done (nq / W * W); the caller finishes the rest. */
LSK_FN int LSK(logit_tile)(const acc_ctx *c, const float *K, int ldk, const float *Qt, int ldq, int nk, int nq, int d,
                           int desc, float *Y, int ldy, uint64_t *sat, uint64_t *fix)
{
    /* a private copy: the stores to Y and the counters cannot alias it, so its fields stay in registers */
    const acc_ctx cl = *c;
    int wide = cl.k.wide, rtz = cl.k.rtz, exact = cl.exact, plain = cl.k.is_signed && !cl.k.flush;
#define LSK_SPEC(W, T, E, P) if (wide == W && rtz == T && exact == E && (!P || plain)) { \
        LSK(logit_tile_spec)(&cl, K, ldk, Qt, ldq, nk, nq, d, desc, Y, ldy, W, T, E, P, sat, fix); \
        return nq / LSK_W * LSK_W; }
    LSK_SPEC(0, 0, 1, 1) LSK_SPEC(0, 0, 0, 1)   /* the hardware logits: e4m3 / e4m11, RNE */
    LSK_SPEC(0, 0, 1, 0) LSK_SPEC(0, 0, 0, 0) LSK_SPEC(0, 1, 1, 0) LSK_SPEC(0, 1, 0, 0)
    LSK_SPEC(1, 0, 1, 0) LSK_SPEC(1, 0, 0, 0) LSK_SPEC(1, 1, 1, 0) LSK_SPEC(1, 1, 0, 0)
#undef LSK_SPEC
    return nq / LSK_W * LSK_W;
}

#undef LSK
#undef LSK_TGT
#undef LSK_FN
#undef LSK_W
#undef LSK_VF
#undef LSK_VI
#undef F_LOAD
#undef F_STORE
#undef F_BCAST
#undef F_ZERO
#undef F_ADD
#undef F_SUB
#undef F_MUL
#undef F_FMA
#undef AS_I
#undef AS_F
#undef I_SET1
#undef I_ZERO
#undef I_STORE
#undef I_ADD
#undef I_SUB
#undef I_AND
#undef I_ANDNOT
#undef I_OR
#undef I_XOR
#undef I_MAX
#undef I_MIN
#undef M_ANY
#undef LSK_VM
#undef F_CMPM
#undef I_CMPGTM
#undef I_CMPEQM
#undef M_ZERO
#undef M_AND
#undef M_ANDNOT
#undef M_OR
#undef M_TOVEC
#undef I_BLENDM
#undef I_AND_M
#undef I_MASKINC
#undef I_MASKDEC
#undef M_BITS
