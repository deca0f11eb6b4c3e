// rtl/tb/tb_ypack.cpp — the packed logit registers (rtl/lamp_ypack.sv) against hw/regfile and hw/fp:
// the register count of each layout is lsregfile_y_regs_bits's; every logit lands in its own lane
// (no two share one, none outside the count); a tile of engine logits (lsfp_logit_tile, e4m3 and
// e4m11 codes by lsfp_encode) written and read back decodes to the C values bit for bit; the
// compact slot holds exactly the sub-block last written in HP and leaves the LP codes alone.
#include "Vlamp_ypack_compact.h"
#include "Vlamp_ypack_compact_nk8.h"
#include "Vlamp_ypack_full.h"
#include "Vlamp_ypack_lp.h"
#include "tb_common.h"
#include "verilated.h"

extern "C" {
#include "lsregfile.h"
}

#include <set>
#include <vector>

template <class M> static void tick(M &m) { m.clk = 0; m.eval(); m.clk = 1; m.eval(); m.clk = 0; m.eval(); }

template <class M> static void put(M &m, bool hp, int i, int j, uint32_t v)
{
    m.we = 1; m.whp = hp; m.wi = i; m.wj = j; m.wdata = v;
    tick(m);
    m.we = 0;
}

template <class M> static uint32_t get(M &m, bool hp, int i, int j, bool *valid)
{
    m.rhp = hp; m.ri = i; m.rj = j;
    m.eval();
    if (valid) *valid = m.rvalid;
    return m.rdata;
}

template <class M> static void check_layout(tb::counter &k, const lslamp_cfg &c, int layout, int bq, int bk,
                                           int nk, uint64_t seed)
{
    M m;
    int bc = bk * nk;
    m.eval();
    int want = lsregfile_y_regs_bits(layout, bq, bk, nk, c.lp_fmt.nbits, c.hp_fmt.nbits);
    k.check((int)m.nregs == want, "layout %d b_q %d b_k %d n_k %d: rtl %u registers, hw/regfile %d", (int)layout, bq, bk, nk,
            (unsigned)m.nregs, want);
    // the engine's logits of a tile, LP and HP
    tb::rng r(seed);
    std::vector<float> K((size_t)bc * c.d), Qt((size_t)c.d * bq), Ylp((size_t)bc * bq), Yhp((size_t)bc * bq);
    for (auto &v : K) v = lsfp_round(&c.bf16, (float)((double)(r.next() >> 11) * 0x1p-53 * 8 - 4), NULL, NULL);
    for (auto &v : Qt) v = lsfp_round(&c.bf16, (float)((double)(r.next() >> 11) * 0x1p-53 * 8 - 4), NULL, NULL) * c.scale;
    lsfp_events ev;
    std::memset(&ev, 0, sizeof ev);
    lsfp_logit_tile(&c.lp_acc, K.data(), c.d, Qt.data(), bq, bc, bq, c.d, Ylp.data(), bq, &ev);
    lsfp_logit_tile(&c.hp_acc, K.data(), c.d, Qt.data(), bq, bc, bq, c.d, Yhp.data(), bq, &ev);
    bool full = layout == LSREGFILE_FULL;
    // write every logit (full: the HP codes; else the LP codes), read them all back
    for (int i = 0; i < bc; i++)
        for (int j = 0; j < bq; j++)
            put(m, full, i, j, full ? lsfp_encode(&c.hp_fmt, Yhp[(size_t)i * bq + j]) : lsfp_encode(&c.lp_fmt, Ylp[(size_t)i * bq + j]));
    for (int i = 0; i < bc; i++)
        for (int j = 0; j < bq; j++) {
            const lsfp_format *f = full ? &c.hp_fmt : &c.lp_fmt;
            float want_v = full ? Yhp[(size_t)i * bq + j] : Ylp[(size_t)i * bq + j];
            float got = lsfp_decode(f, get(m, full, i, j, NULL));
            k.check(std::memcmp(&got, &want_v, 4) == 0 || (std::isnan(got) && std::isnan(want_v)),
                    "layout %d key %d query %d: read %g, engine %g", (int)layout, i, j, got, want_v);
        }
    if (layout != LSREGFILE_COMPACT) return;
    // the compact slot: each sub-block in turn written in HP; its reads valid and exact, the others
    // flagged invalid, the LP codes untouched
    for (int th = 0; th < nk; th++) {
        for (int i = th * bk; i < (th + 1) * bk; i++)
            for (int j = 0; j < bq; j++) put(m, true, i, j, lsfp_encode(&c.hp_fmt, Yhp[(size_t)i * bq + j]));
        for (int i = 0; i < bc; i++)
            for (int j = 0; j < bq; j++) {
                bool valid;
                float got = lsfp_decode(&c.hp_fmt, get(m, true, i, j, &valid));
                bool in = i / bk == th;
                k.check(valid == in && (!in || got == Yhp[(size_t)i * bq + j]), "compact slot %d key %d query %d: valid %d read %g, engine %g",
                        th, i, j, (int)valid, got, Yhp[(size_t)i * bq + j]);
                uint32_t lp = get(m, false, i, j, NULL);
                k.check(lp == lsfp_encode(&c.lp_fmt, Ylp[(size_t)i * bq + j]), "compact LP key %d query %d overwritten", i, j);
            }
    }
}

// Distinct lanes: write a unique tag to every element, then read every one back (a clash would
// overwrite a tag). Element tags need 8 bits: check in groups of 256 elements.
template <class M> static void check_distinct(tb::counter &k, int layout, int bq, int bk, int nk)
{
    M m;
    int bc = bk * nk;
    bool hp = layout == LSREGFILE_FULL;
    int n = bc * bq;
    for (int g = 0; g < n; g += 256) {
        for (int e = 0; e < n; e++) put(m, hp, e / bq, e % bq, 0);
        for (int e = g; e < n && e < g + 256; e++) put(m, hp, e / bq, e % bq, (uint32_t)(e - g + 1) & 0xFF);
        for (int e = 0; e < n; e++) {
            uint32_t want = (e >= g && e < g + 256) ? (uint32_t)(e - g + 1) & 0xFF : 0;
            uint32_t got = get(m, hp, e / bq, e % bq, NULL);
            k.check(got == want, "layout %d element %d: read 0x%X, wrote 0x%X", (int)layout, e, got, want);
        }
    }
}

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = tb::default_cfg();
    tb::counter k("ypack");
    int bq = c.b_q, bk = c.b_k, nk = c.n_k;
    check_layout<Vlamp_ypack_lp>(k, c, LSREGFILE_LP, bq, bk, nk, 1);
    check_layout<Vlamp_ypack_compact>(k, c, LSREGFILE_COMPACT, bq, bk, nk, 2);
    check_layout<Vlamp_ypack_full>(k, c, LSREGFILE_FULL, bq, bk, nk, 3);
    check_layout<Vlamp_ypack_compact_nk8>(k, c, LSREGFILE_COMPACT, bq / 2, bk / 2, 2 * nk, 4);
    check_distinct<Vlamp_ypack_lp>(k, LSREGFILE_LP, bq, bk, nk);
    check_distinct<Vlamp_ypack_full>(k, LSREGFILE_FULL, bq, bk, nk);
    check_distinct<Vlamp_ypack_compact_nk8>(k, LSREGFILE_COMPACT, bq / 2, bk / 2, 2 * nk);
    return k.done("register counts, engine logits written and read back, the compact slot, distinct lanes");
}
