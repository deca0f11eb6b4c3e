// rtl/tb/tb_bufport.cpp — the buffer port (rtl/lamp_buf_port.sv) at the four widths the study searches (64,
// 128, 256, 512 B/clock) against the access it stands for: LANES consecutive 64-bit words from any word
// address of a word-interleaved, banked buffer. A reference memory here (word a in column a mod LANES, row
// a / LANES, bank row >> 10 of the column) gives, for each access, the row every column must be driven
// with, the word each read lane must receive (the bank outputs are random, so a lane given another
// column's or bank's word fails) and the word each column must be written with. Cases: every base
// offset within a row of columns and both row ends, then random bases over the whole address space.
#include "Vlamp_buf_port_b128.h"
#include "Vlamp_buf_port_b256.h"
#include "Vlamp_buf_port_b512.h"
#include "Vlamp_buf_port_b64.h"
#include "tb_common.h"
#include "verilated.h"

#include <vector>

// 64-bit word k of a Verilator wide signal (32-bit words, least significant first)
template <class W> static uint64_t get64(const W &w, int k) { return (uint64_t)w[2 * k] | (uint64_t)w[2 * k + 1] << 32; }
template <class W> static void set64(W &w, int k, uint64_t v)
{
    w[2 * k] = (uint32_t)v;
    w[2 * k + 1] = (uint32_t)(v >> 32);
}
template <class W> static uint32_t get_bits(const W &w, int lsb, int n)
{
    uint32_t v = 0;
    for (int b = 0; b < n; b++) v |= ((w[(lsb + b) / 32] >> ((lsb + b) % 32)) & 1u) << b;
    return v;
}

template <class M> struct port {
    M m;
    const int lanes, colbanks, rowbits, aw;
    tb::counter &k;
    const char *name;
    port(int l, int cb, tb::counter &kk, const char *n)
        : lanes(l), colbanks(cb), rowbits(10 + (cb == 4 ? 2 : cb == 2 ? 1 : 0)), aw(rowbits + __builtin_ctz(l)), k(kk), name(n) {}
    void run(tb::rng &r, uint32_t base, bool we)
    {
        m.base = base;
        m.we = we;
        std::vector<uint64_t> wd(lanes), bank((size_t)lanes * colbanks);
        for (int i = 0; i < lanes; i++) set64(m.wdata, i, wd[i] = r.next());
        for (int i = 0; i < lanes * colbanks; i++) set64(m.bank_rdata, i, bank[i] = r.next());
        m.eval();
        std::vector<int> served(lanes, -1);
        for (int i = 0; i < lanes; i++) {
            uint32_t a = (base + (uint32_t)i) & ((1u << aw) - 1u);   // the address space wraps
            int col = (int)(a % (uint32_t)lanes);
            uint32_t row = a / (uint32_t)lanes;
            int b = (int)(row >> 10);
            k.check(served[col] < 0, "%s base %x: column %d serves two lanes", name, base, col);
            served[col] = i;
            uint32_t got_row = get_bits(m.col_row, rowbits * col, rowbits);
            k.check(got_row == row, "%s base %x lane %d: column %d row %x, want %x", name, base, i, col, got_row, row);
            uint64_t got = get64(m.rdata, i), want = bank[(size_t)col * colbanks + b];
            k.check(got == want, "%s base %x lane %d: read %016llx, want column %d bank %d's %016llx", name, base, i,
                    (unsigned long long)got, col, b, (unsigned long long)want);
            uint64_t gw = get64(m.col_wdata, col);
            k.check(gw == wd[i], "%s base %x: column %d written %016llx, want lane %d's %016llx", name, base, col,
                    (unsigned long long)gw, i, (unsigned long long)wd[i]);
        }
        uint64_t all = lanes == 64 ? ~0ull : ((1ull << lanes) - 1ull);
        k.check((uint64_t)m.col_we == (we ? all : 0ull), "%s base %x: write enables %llx", name, base, (unsigned long long)m.col_we);
    }
    void sweep(tb::rng &r, int n_random)
    {
        uint32_t top = (1u << aw) - (uint32_t)lanes;
        for (uint32_t o = 0; o < (uint32_t)lanes; o++) {
            run(r, o, o & 1);                 // the first row of columns, every offset
            run(r, top + o, !(o & 1));        // the last, wrapping past the end
            run(r, (uint32_t)lanes * 1023u + o, true);   // across a bank boundary of the column
        }
        for (int i = 0; i < n_random; i++) run(r, (uint32_t)r.below(1u << aw), r.below(2));
    }
};

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    bool lng = tb::long_mode(argc, argv);
    tb::counter k("buffer port");
    tb::rng r(0x2545F4914F6CDD1Dull);
    int n = lng ? 200000 : 5000;
    port<Vlamp_buf_port_b64> p64(8, 4, k, "64 B/clk");
    port<Vlamp_buf_port_b128> p128(16, 2, k, "128 B/clk");
    port<Vlamp_buf_port_b256> p256(32, 1, k, "256 B/clk");
    port<Vlamp_buf_port_b512> p512(64, 1, k, "512 B/clk");
    p64.sweep(r, n);
    p128.sweep(r, n);
    p256.sweep(r, n);
    p512.sweep(r, n);
    return k.done(lng ? "long" : "quick");
}
