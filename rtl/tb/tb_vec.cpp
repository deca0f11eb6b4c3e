// rtl/tb/tb_vec.cpp — the FP32 vector lane (rtl/lamp_vec_lane.sv: a + b, a - b, a * b, b > a ? b : a)
// against the arithmetic the vector unit's C model runs, the host's binary32 (hw/lamp lamp_steps.c:
// row sums, the normaliser's products, the running maximum as written there), bit for bit; NaN results
// of the arithmetic by NaN-ness (the host keeps a payload, the RTL gives 0x7FC00000), the maximum's
// bit for bit (it passes an operand through). Cases:
//  - random codes of every class (specials, subnormals) for each operation;
//  - cancellation (b within a few ulps of +-a) and every exponent difference 0..40 with all-ones or random
//    significands (the adder's window edge, where its sticky bit decides the rounding);
//  - products around fp32's smallest subnormal (gradual underflow) and its largest finite (overflow);
//  - named corners (Inf - Inf, 0 x Inf, -0 + -0, x - x, NaN and signed zeros in the maximum).
// Where the exact result fits a double (products always; sums of nearby exponents), the host must equal
// the double rounded once to fp32 (an independent check of the oracle's rounding on this machine: no
// flush-to-zero, no extended precision).
#include "Vlamp_vec_lane.h"
#include "tb_common.h"
#include "verilated.h"

static float bits_f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

enum { OP_ADD, OP_SUB, OP_MUL, OP_MAX };
static const char *const op_name[] = { "add", "sub", "mul", "max" };

// the C model's operations (volatile: computed at run time in binary32, never folded or contracted)
static float c_model(int op, float a, float b)
{
    volatile float x = a, y = b, r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    default: r = y > x ? y : x; break;   /* lslamp_subblock_max: NaN ignored */
    }
    return r;
}

struct dut {
    Vlamp_vec_lane m;
    tb::counter &k;
    uint64_t exact = 0, per_op[4] = { 0, 0, 0, 0 };
    explicit dut(tb::counter &kk) : k(kk) {}
    void run(int op, uint32_t a, uint32_t b)
    {
        m.op = (uint8_t)op; m.a = a; m.b = b;
        m.eval();
        float want_f = c_model(op, bits_f(a), bits_f(b));
        uint32_t want = f_bits(want_f), got = m.res;
        bool ok = op != OP_MAX && std::isnan(want_f) ? got == 0x7FC00000u : got == want;
        per_op[op]++;
        k.check(ok, "%s a %08x b %08x: rtl %08x, C %08x", op_name[op], a, b, got, want);
        if (op == OP_MAX || std::isnan(want_f) || std::isinf(want_f)) return;
        // independent: the exact value in a double, rounded once
        double da = bits_f(a), db = bits_f(b), x;
        if (op == OP_MUL) x = da * db;   // 24 x 24 bits: exact in a double (binary64's range holds it)
        else {
            if (da == 0.0 || db == 0.0) return;
            int e1, e2;
            (void)std::frexp(da, &e1);
            (void)std::frexp(db, &e2);
            if (std::abs(e1 - e2) > 28) return;   // the exact sum needs more than 53 bits
            x = op == OP_ADD ? da + db : da - db;
        }
        if (x == 0.0) return;   // zero signs: IEEE's rule, checked by name
        exact++;
        k.check(f_bits((float)x) == want, "%s a %08x b %08x: C %08x, exact rounded %08x", op_name[op], a, b, want,
                f_bits((float)x));
    }
};

static uint32_t any_code(tb::rng &r)
{
    uint32_t u = (uint32_t)r.next();
    switch (r.below(8)) {
    case 0: return u & 0x807FFFFFu;                                  // subnormal or zero
    case 1: return (u & 0x80000000u) | 0x7F800000u | (r.below(4) ? 0 : (u & 0x7FFFFFu));   // Inf or NaN
    case 2: return (u & 0x80000000u) | (r.below(2) ? 0u : 0x7F7FFFFFu);                   // zero or max finite
    default: return u;
    }
}

static void random_codes(dut &d, tb::rng &r, int n)
{
    for (int i = 0; i < n; i++) d.run(i & 3, any_code(r), any_code(r));
}

// b within a few ulps of a, sign flipped half the time: the adder's cancellations
static void cancellation(dut &d, tb::rng &r, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t a = (uint32_t)r.next() & 0x7FFFFFFFu;
        if (r.below(4) == 0) a &= 0x00FFFFFFu;   // near and below the smallest normal
        if ((a >> 23) == 0xFF) a ^= 0x40000000u;
        uint32_t b = a + (uint32_t)r.below(9) - 4u;
        if ((b >> 23 & 0xFF) == 0xFF) b = a;
        a |= r.below(2) << 31;
        b |= r.below(2) << 31;
        d.run(r.below(2) ? OP_ADD : OP_SUB, a, b);
    }
}

// every exponent difference 0..40, significands all ones or random, either sign and order
static void window(dut &d, tb::rng &r, int per_diff)
{
    for (int diff = 0; diff <= 40; diff++)
        for (int i = 0; i < per_diff; i++) {
            uint32_t ehi = 1u + diff + r.below(254u - diff);
            uint32_t mhi = r.below(3) ? (uint32_t)r.below(1u << 23) : 0x7FFFFFu;
            uint32_t mlo = r.below(2) ? (uint32_t)r.below(1u << 23) : r.below(2) ? 0x7FFFFFu : 1u;
            uint32_t elo = ehi - diff;
            if (elo == 1 && r.below(4) == 0) elo = 0;   // a subnormal below
            uint32_t hi = ehi << 23 | mhi, lo = elo << 23 | mlo;
            hi |= r.below(2) << 31;
            lo |= r.below(2) << 31;
            int op = r.below(2) ? OP_ADD : OP_SUB;
            if (r.below(2)) d.run(op, hi, lo); else d.run(op, lo, hi);
        }
}

// products whose exponent falls around fp32's smallest subnormal or above its largest finite
static void product_edges(dut &d, tb::rng &r, int n)
{
    for (int i = 0; i < n; i++) {
        // the product's biased exponent ea + eb - 127: -40..5 (gradual underflow) or 250..258 (overflow)
        int t = r.below(2) ? -40 + (int)r.below(46) : 250 + (int)r.below(9);
        uint32_t ea = r.below(255), a = (uint32_t)r.next() & 0x807FFFFFu;
        int eb = t + 127 - (int)ea;
        if (eb < 0) eb = 0;
        if (eb > 254) eb = 254;
        uint32_t b = (uint32_t)r.next() & 0x807FFFFFu;
        d.run(OP_MUL, a | ea << 23, b | (uint32_t)eb << 23);
    }
}

static void named(dut &d)
{
    const uint32_t one = 0x3F800000u, mone = 0xBF800000u, inf = 0x7F800000u, minf = 0xFF800000u, nan = 0x7FC00001u;
    d.run(OP_ADD, inf, minf);          // Inf - Inf = NaN
    d.run(OP_SUB, inf, inf);
    d.run(OP_ADD, inf, one);
    d.run(OP_SUB, one, minf);
    d.run(OP_MUL, inf, 0);             // Inf x 0 = NaN
    d.run(OP_MUL, 0x80000000u, inf);
    d.run(OP_MUL, minf, mone);         // +Inf
    d.run(OP_ADD, 0x80000000u, 0x80000000u);   // -0 + -0 = -0
    d.run(OP_SUB, 0x80000000u, 0);             // -0 - +0 = -0
    d.run(OP_ADD, one, mone);                  // x - x = +0
    d.run(OP_SUB, 0x00000001u, 0x00000001u);   // the smallest subnormals: +0
    d.run(OP_MUL, 0x80000001u, 0x00000001u);   // underflow to -0
    d.run(OP_MUL, 0x00000001u, 0x3F000000u);   // 2^-150: the tie rounds to even, +0
    d.run(OP_MUL, 0x00000001u, 0x3F000001u);   // just above the tie: 2^-149
    d.run(OP_MUL, 0x7F7FFFFFu, 0x40000000u);   // overflow to Inf
    d.run(OP_ADD, 0x7F7FFFFFu, 0x73800000u);   // max finite + half an ulp: a tie, to even (Inf)
    d.run(OP_ADD, 0x7F7FFFFFu, 0x737FFFFFu);   // just below the tie: max finite
    d.run(OP_ADD, nan, one);
    d.run(OP_MUL, one, nan);
    d.run(OP_MAX, one, nan);                   // a NaN b is ignored
    d.run(OP_MAX, nan, one);                   // a NaN a is kept
    d.run(OP_MAX, 0x80000000u, 0);             // +0 > -0 is false: -0 kept
    d.run(OP_MAX, 0, 0x80000000u);
    d.run(OP_MAX, minf, 0xFF7FFFFFu);          // -Inf then the lowest finite
    d.run(OP_MAX, mone, 0xBF800001u);          // -1 and a more negative value
    d.run(OP_MAX, 0xBF800001u, mone);
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    bool lng = tb::long_mode(argc, argv);
    tb::counter k("vector lane");
    tb::rng r(0xD1B54A32D192ED03ull);
    dut d(k);
    named(d);
    random_codes(d, r, lng ? 100000000 : 2000000);
    cancellation(d, r, lng ? 20000000 : 400000);
    window(d, r, lng ? 1000000 : 20000);
    product_edges(d, r, lng ? 20000000 : 400000);
    std::printf("vector lane: add %llu, sub %llu, mul %llu, max %llu cases; %llu checked against the exact value\n",
                (unsigned long long)d.per_op[OP_ADD], (unsigned long long)d.per_op[OP_SUB],
                (unsigned long long)d.per_op[OP_MUL], (unsigned long long)d.per_op[OP_MAX],
                (unsigned long long)d.exact);
    if (d.exact < 100000) {
        std::fprintf(stderr, "vector lane: too few exactly checkable cases (%llu)\n", (unsigned long long)d.exact);
        return 1;
    }
    return k.done(lng ? "long" : "quick");
}
