/* hw/fp — bit-exact minifloat formats of the LampAttention datapath.
 *
 * One generic descriptor (lsfp_format) covers every format the accelerator and its baselines use:
 * e4m3, e4m11, ue5m3/ue5m11 in their shift and exponential roles, bf16, fp16, fp32 and the
 * paper-simulation family PS(mu). Values travel as float: every format here is a subset of fp32,
 * so a rounded value is exact in a float and decoding is lossless.
 *
 * Rounding follows numerics.md A.1: quantum q(x) = 2^(max(floor(log2|x|), emin) - m), RNE/RTZ/
 * stochastic to a multiple of q, then the overflow policy. The scalar functions are the
 * definition; the array and accumulation kernels (fp_kernels.c) are branch-free and give
 * bit-identical results.
 */
#ifndef LAMPSIM_HW_FP_H
#define LAMPSIM_HW_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which codes are special. */
typedef enum {
    LSFP_SPECIAL_OCP,    /* only the all-ones magnitude code is NaN, no Inf (OCP E4M3FN style) */
    LSFP_SPECIAL_IEEE,   /* top exponent reserved: Inf (mantissa 0) and NaN (otherwise) */
    LSFP_SPECIAL_FINITE  /* every code is a finite number (ue5m3 exponentials) */
} lsfp_special;

typedef enum {
    LSFP_OVF_SATURATE,   /* clamp to +-max finite and count the event */
    LSFP_OVF_NONSAT      /* NaN for OCP, Inf for IEEE; FINITE formats saturate regardless */
} lsfp_overflow;

typedef enum {
    LSFP_RND_RNE,        /* round to nearest, ties to even */
    LSFP_RND_RTZ,        /* toward zero (truncation) */
    LSFP_RND_STOCHASTIC  /* up with probability (|x| - down)/q, seeded generator (lsfp_rng) */
} lsfp_rounding;

typedef struct lsfp_format {
    char name[24];
    int ebits;            /* exponent field width */
    int mbits;            /* fraction field width */
    int bias;
    bool is_signed;
    lsfp_special special;
    bool subnormals;      /* false: magnitudes below min normal flush to zero (after rounding) */
    lsfp_overflow overflow;
    lsfp_rounding rounding;
    /* Derived by lsfp_format_init. */
    int emin;             /* 1 - bias: exponent of the smallest normal */
    int emax;             /* exponent of the largest finite value */
    int nbits;            /* code width = sign + ebits + mbits */
    float max_finite;
    float min_normal;
    float min_subnormal;
    bool fp32_range;      /* exponent range equals fp32's (bf16, PS(mu), fp32): bit-pattern rounding */
} lsfp_format;

/* Flags raised by one rounding; OR-ed together by array and accumulation kernels. */
enum {
    LSFP_FLAG_SATURATED = 1u << 0,  /* |x| exceeded max finite and was clamped */
    LSFP_FLAG_OVERFLOW  = 1u << 1,  /* |x| exceeded max finite and became NaN/Inf */
    LSFP_FLAG_SUBNORMAL = 1u << 2,  /* result is a nonzero subnormal */
    LSFP_FLAG_UNDERFLOW = 1u << 3,  /* nonzero input rounded to zero */
    LSFP_FLAG_NAN       = 1u << 4,  /* result is NaN */
    LSFP_FLAG_INEXACT   = 1u << 5
};

/* Event counters kept by the kernels (the engine reports them). */
typedef struct {
    uint64_t saturations;   /* roundings clamped to max finite */
    uint64_t overflows;     /* roundings that produced NaN/Inf */
    uint64_t underflows;    /* nonzero values rounded to zero: counted by lsfp_round_array only; the
                               accumulation kernels leave it alone (it would cost the hot loop a
                               compare per step and a vanishing addend is the accumulator's normal
                               swamping, not an event) */
    uint64_t exact_fixups;  /* accumulation steps that took the exact slow path: a diagnostic of the
                               kernel family (the AVX-512 fast form of lsfp_logit_tile takes none) */
} lsfp_events;

/* Deterministic generator for stochastic rounding (splitmix64; never rand()). */
typedef struct { uint64_t state; } lsfp_rng;
void lsfp_rng_seed(lsfp_rng *rng, uint64_t seed);
uint64_t lsfp_rng_next(lsfp_rng *rng);

/* Fill the derived fields; returns 0, or -1 (with a message in err) for an impossible format. */
int lsfp_format_init(lsfp_format *f, char *err, size_t errlen);

/* Named formats with the spec's defaults (numerics.md A.2, G-3..G-6). */
typedef enum {
    LSFP_E4M3,      /* LP logit accumulator: OCP, bias 7, max 448, saturating */
    LSFP_E4M11,     /* HP logit accumulator / running max: bias 7, max 511.75 */
    LSFP_UE5M3_S,   /* LP shifted logit magnitude: unsigned, bias 22, max 896, 0xFF NaN */
    LSFP_UE5M3_X,   /* LP exponential: unsigned, bias 31, all codes finite, 0xF8 = 1.0 */
    LSFP_UE5M11_S,  /* HP shifted logit: unsigned, bias 22, max 1023.5 */
    LSFP_UE5M11_X,  /* HP exponential: unsigned, bias 31, all finite, 0xF800 = 1.0 */
    LSFP_BF16,
    LSFP_FP16,
    LSFP_FP32,
    LSFP_NAMED_COUNT
} lsfp_named;

const lsfp_format *lsfp_named_format(lsfp_named id);
/* PS(mu): fp32 exponent range, mantissa rounded to mu bits (1..23), Inf/NaN passed through,
 * overflow to Inf (as the LAMP code's bit-pattern rounding). Writes into *out. */
void lsfp_ps_format(lsfp_format *out, int mu);
/* Look a format up by name (lsfp_format_parse without the role information); returns 0 or -1. */
int lsfp_format_by_name(const char *name, lsfp_format *out);
/* Which fields a parsed name fixed explicitly (the rest took the generic defaults). */
enum { LSFP_GIVEN_BIAS = 1u << 0, LSFP_GIVEN_SPECIAL = 1u << 1 };
/* Parse a format name, case-insensitive:
 *   a named format: e4m3, e4m11, ue5m3s, ue5m3x, ue5m11s, ue5m11x, bf16, fp16, fp32 (all fields given);
 *   ps<m>, m in 1..23: the papers' fp32-range family (all fields given);
 *   [u]e<E>m<M>[_b<bias>][_ocp|_ieee|_finite][_nosub]: E in 1..8 exponent bits, M in 0..23 fraction
 *   bits, `u` unsigned; bias default 2^(E-1) - 1, special rule default OCP (FINITE when M = 0),
 *   subnormals on unless _nosub; saturating overflow, RNE.
 * *given (may be NULL) gets LSFP_GIVEN_* for what the name fixed. Returns 0, or -1 with a message. */
int lsfp_format_parse(const char *name, lsfp_format *out, unsigned *given, char *err, size_t errlen);
/* The accepted names in one line, for error messages. */
const char *lsfp_format_names(void);

/* ---- Scalar operations: the definition every kernel must match. ---- */

/* Round a float to the format's value set with its rounding mode and overflow policy.
 * rng is used only for stochastic rounding (may be NULL otherwise); flags may be NULL. */
float lsfp_round(const lsfp_format *f, float x, lsfp_rng *rng, unsigned *flags);
/* Same for a double input (one rounding of the double's exact value; RNE/RTZ only). */
float lsfp_round_double(const lsfp_format *f, double x, unsigned *flags);
/* Code of a value (rounded first with the format's mode, stochastic as RNE). NaN -> lsfp_nan_code;
 * for unsigned formats negative values are invalid and encode like NaN. A format without a NaN
 * (ue5m3x, ue5m11x) has no right answer: it gets its top code, as the LUT maps its NaN input
 * (numerics.md F-23: 0xFF -> 0xFF). */
uint32_t lsfp_encode(const lsfp_format *f, float v);
/* Value of a code (codes above 2^nbits - 1 are invalid: returns NaN). */
float lsfp_decode(const lsfp_format *f, uint32_t code);
/* Does the format have a NaN code, and which (formats without one: the top code). */
bool lsfp_has_nan(const lsfp_format *f);
uint32_t lsfp_nan_code(const lsfp_format *f);

/* Truncate a value toward zero onto another format's grid (e4m11 running max -> e4m3 shift base,
 * numerics.md A.3); no saturation counting (the running max is always in range). A format without
 * subnormals (_nosub) flushes what falls below its smallest normal to zero, as lsfp_round does. */
float lsfp_truncate_to(const lsfp_format *f, float x);

/* ---- Array rounding (branch-free, AVX2 when the CPU has it; identical results). ---- */
/* RNE/RTZ only (stochastic arrays go through lsfp_round). Returns the OR of flags; ev counts. */
unsigned lsfp_round_array(const lsfp_format *f, const float *in, float *out, size_t n, lsfp_events *ev);

/* ---- Accumulation. ---- */
typedef enum {
    LSFP_ACC_PAPER,  /* c <- round(fmaf(a, b, c)): fp32 FMA then round (the paper's Triton sim) */
    LSFP_ACC_EXACT   /* c <- round(c + a*b) with a single correct rounding of the exact value */
} lsfp_acc_model;

typedef enum {
    LSFP_ORDER_ASCENDING,   /* k = 0 .. d-1 (default) */
    LSFP_ORDER_DESCENDING   /* k = d-1 .. 0 */
} lsfp_acc_order;

typedef struct {
    const lsfp_format *fmt;  /* accumulator format (RNE or RTZ) */
    lsfp_acc_model model;
    lsfp_acc_order order;
    int chunk_k;             /* 1: round after every product; K > 1: products of a chunk summed
                                in fp32 (fmaf, in the chunk's order), then acc <- round(acc + chunk) */
    lsfp_rng *rng;           /* generator for stochastic rounding (fmt->rounding); NULL = RNE */
    int fused_k;             /* 0: the sequential forms above. K >= 1: the K-term fused form (model,
                                chunk_k and rng unused): lsfp_fused_step per K products in the order */
    int fused_frac;          /* fused form: window fraction bits below the largest term (LSFP_FUSED_FRAC) */
} lsfp_accum;

/* The K-term fused dot product (fp_fused.c, docs/numerics.md "The LP datapath"): one alignment and
 * one rounding per K products, a tensor core's dot-product shape with a narrow accumulator.
 *   c <- round(c + a[0]b[0] + ... + a[n-1]b[n-1]) as follows. Every product is exact. Each nonzero
 *   term t (the n products and c) has an alignment exponent E(t): for a product ea + eb, where an
 *   operand's e is its fp32/bf16 exponent (floor(log2|x|), -126 for subnormals); for c
 *   max(floor(log2|c|), emin of the format). M = the largest E. Each term's magnitude is truncated
 *   onto the window of `frac` fraction bits below 2^M, T = trunc(|t| 2^(frac - M)) (bits shifted out
 *   are dropped, as a tensor core's aligner does), the signed integers are summed exactly, and
 *   S 2^(M - frac) is rounded once into the format (RNE or RTZ, then its overflow rule; +0 for S = 0).
 *   A non-finite operand or c: the IEEE sum of c and the products, rounded (NaN, or Inf's overflow rule).
 * With bf16 operands (16-bit product significands) a window of frac >= 14 keeps every product of the
 * largest exponent exact. flags as lsfp_round. n <= LSFP_FUSED_MAX_K, 1 <= frac <= 40. */
#define LSFP_FUSED_MAX_K 64
#define LSFP_FUSED_FRAC 16
float lsfp_fused_step(const lsfp_format *f, float c, const float *a, long sa, const float *b, long sb, int n,
                      int frac, unsigned *flags);

/* One dot product sum_k a[k]*b[k] accumulated in spec's format, starting from 0. */
float lsfp_dot(const lsfp_accum *spec, const float *a, const float *b, int n, lsfp_events *ev);

/* A logit tile: Y[i*ldy + j] = dot(K row i, Q row j) for i < nk, j < nq, each accumulated as
 * lsfp_dot would (same order and rounding). K is nk x d row-major (stride ldk); Qt is the query
 * block transposed, d x nq (stride ldq), already pre-scaled by 1/sqrt(d). Vectorised over j. */
void lsfp_logit_tile(const lsfp_accum *spec, const float *K, int ldk, const float *Qt, int ldq,
                     int nk, int nq, int d, float *Y, int ldy, lsfp_events *ev);

/* Whether lsfp_logit_tile runs spec's leading columns in the AVX-512 fast form on the active family
 * (round-to-odd sums, no boundary test: exact_fixups stays 0 there). */
bool lsfp_logit_tile_fast(const lsfp_accum *spec);

/* Native fp32 reference tile (plain C, fmaf-free sum), for benchmarks and comparisons. */
void lsfp_logit_tile_fp32(const float *K, int ldk, const float *Qt, int ldq,
                          int nk, int nq, int d, float *Y, int ldy);

/* sum a[t]*b[t] in float64 (every product exact), as eight interleaved partial sums t mod 8 added
 * pairwise at the end: the fp64 references' dot product, identical on every CPU. */
double lsfp_dot_f64(const float *a, const float *b, int n);
/* out[r] = lsfp_dot_f64(q, B + r * ldb, n) for r < rows (bit-identical, faster). */
void lsfp_dot_rows_f64(const float *q, const float *B, long ldb, int rows, int n, double *out);
/* out[i * ldo + r] = lsfp_dot_f64(Q + i * ldq, B + r * ldb, n) for i < nq, r < rows (bit-identical; four
 * queries share each row's loads). */
void lsfp_dot_block_f64(const float *Q, long ldq, int nq, const float *B, long ldb, int rows, int n, double *out,
                        long ldo);
/* y[t] += a[k] * X[k * ldx + t] in float64 for k = 0 .. rows-1 in that order, t < n (one rounding per
 * multiply and per add, as the plain double loop). */
void lsfp_gemv_t_f64(double *y, const double *a, const float *X, long ldx, int rows, int n);
/* lsfp_gemv_t_f64(Y + m * ldy, A + m * lda, X, ldx, rows[m], n) for m < ny (bit-identical; four y rows
 * share each X row's loads). */
void lsfp_gemv_t_block_f64(double *Y, long ldy, const double *A, long lda, int ny, const int *rows, const float *X,
                           long ldx, int n);

/* fp32 screen for the largest |dot product| (fp_absmax32.c). K (nk rows of n, stride ldk) is packed
 * once into panels of LSFP_ABSMAX_PANEL keys (lsfp_absmax_pack_floats(nk, n) floats); then
 * rowmax[i] = max over j < cols[i] (<= nk) of |s_ij| (0 when cols[i] <= 0), s_ij = sum_t Q[i * ldq + t]
 * * K[j * ldk + t] summed in fp32 in an order, and with FMAs, that depend on the kernel family. The
 * values are not bit-reproducible across families; what holds for every family, as long as no sum
 * overflows, is |s_ij - exact| <= gamma_n * sum_t |q_t k_t| + n * 2^-149, gamma_n = n 2^-24 / (1 - n 2^-24). */
#define LSFP_ABSMAX_PANEL 32
size_t lsfp_absmax_pack_floats(int nk, int n);
void lsfp_absmax_pack(const float *K, long ldk, int nk, int n, float *packed);
void lsfp_absmax_rows_f32(const float *Q, long ldq, int nq, const int *cols, const float *packed, int n, float *rowmax);

/* y[i] = exp(x[i]) and y[i] = log(x[i]) (x[i] > 0 and normal) for i < n, within 1 and 2 ulp, the same bits
 * on every kernel family (fp_math64.c): the fp64 reference's per-key exponentials and logs. */
void lsfp_exp_f64_array(const double *x, double *y, int n);
void lsfp_log_f64_array(const double *x, double *y, int n);

/* P.V update of one output row (the running state): o[t] <- o[t] * lam for t < d, then for each key
 * i < nkeys in order with e = E[i * lde] (as float for the fp32 version) nonzero,
 * o[t] <- o[t] + e * V[i * ldv + t]; one rounding per multiply and per add (no FMA). */
void lsfp_pv_update_f32(float *o, int d, float lam, const double *E, long lde, int nkeys, const float *V, long ldv);
void lsfp_pv_update_f64(double *o, int d, double lam, const double *E, long lde, int nkeys, const float *V, long ldv);

/* Kernel families, chosen at run time: the best the CPU has, capped by lsfp_set_isa_limit. Every
 * family gives the scalar kernels' bits (tests force each one). */
typedef enum { LSFP_ISA_SCALAR, LSFP_ISA_AVX2, LSFP_ISA_AVX512 } lsfp_isa;
lsfp_isa lsfp_isa_best(void);      /* AVX2 needs AVX2 + FMA; AVX-512 needs AVX512F and AVX512DQ as well */
lsfp_isa lsfp_isa_active(void);    /* min(best, limit) */
void lsfp_set_isa_limit(lsfp_isa limit);
const char *lsfp_isa_name(lsfp_isa isa);
/* Force the scalar kernels even on AVX2 machines (lsfp_set_isa_limit(SCALAR) / no limit). */
void lsfp_set_force_scalar(bool on);
bool lsfp_have_avx2(void);

/* ---- Exponential tables (built from the formats, never typed in). ---- */
/* LP: LUT from the code of the shift s = mu - y >= 0 (ue5m3-S by default: 256 entries) to the code of
 * the correctly rounded exp(-s) in the exponential format (ue5m3-X). NaN input codes map to the
 * output format's NaN code (its top code when it has none: 0xFF -> 0xFF). One entry per input code,
 * n = 2^(input bits); at most LSFP_LUT_MAX entries (input formats of up to 16 bits). */
#define LSFP_LUT_MAX_BITS 16
#define LSFP_LUT_MAX (1u << LSFP_LUT_MAX_BITS)
typedef struct {
    lsfp_format in;   /* shift format */
    lsfp_format out;  /* exponential format */
    uint32_t n;       /* entries: 2^in.nbits (entries n .. 255 of a narrower input are NaN codes) */
    uint16_t code[LSFP_LUT_MAX];
    float value[LSFP_LUT_MAX]; /* decoded output, for the engine's hot path */
} lsfp_exp_lut;
/* 0 if the formats can make a LUT: in an unsigned format inside fp32's exponent range of at most
 * LSFP_LUT_MAX_BITS bits, out of at most 16 bits; else -1 and a message. */
int lsfp_exp_lut_check(const lsfp_format *in, const lsfp_format *out, char *err, size_t errlen);
/* Builds the table; -1 (and lsfp_exp_lut_check's message) when the formats cannot make one. */
int lsfp_exp_lut_build(lsfp_exp_lut *lut, const lsfp_format *in, const lsfp_format *out, char *err, size_t errlen);
/* e[j] = the table's exponential of shift s[j] (on the shift format's grid) for j < n; 0 where the
 * logit y[j] is -inf (masked), NaN where s[j] is NaN or negative (the caller handles those).
 * AVX-512 where the CPU has it (a masked gather), the same values as the plain loop. */
void lsfp_exp_lut_apply(const lsfp_exp_lut *lut, const float *s, const float *y, double *e, int n);
/* Correctly rounded exp(-s) in format out, for any s >= 0 (the 16-bit SFU path: multi-cycle in
 * hardware, a function here). */
float lsfp_exp_neg(const lsfp_format *out, float s);

/* The baseline tensor-core dot product (rtl/lamp_tc_dot.sv): fp32 bits of c + sum_{i<k} a[i] b[i] for
 * operand codes in format f (bf16, e4m3, ...), k <= LSFP_TC_DOT_MAX_K: every product exact, one
 * alignment of the k products and c to the largest term's leading bit with `window` bits below it
 * (bits below dropped: each magnitude truncated), an exact signed sum, one RNE rounding to fp32
 * (subnormals kept, overflow to Inf). NaN (0x7FC00000) for a NaN, Inf x 0 or Infs of both signs;
 * -0 only when every term is a zero of negative sign. Not correctly rounded when cancellation exposes
 * the dropped bits, as the units measured on GPUs. */
#define LSFP_TC_DOT_MAX_K 32
uint32_t lsfp_tc_dot(const lsfp_format *f, int k, int window, const uint32_t *a, const uint32_t *b, uint32_t c);

#ifdef __cplusplus
}
#endif
#endif
