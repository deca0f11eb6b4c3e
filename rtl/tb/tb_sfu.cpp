// rtl/tb/tb_sfu.cpp — the SFU's HP exponential lane (rtl/lamp_sfu_exp.sv, default parameters) against
// the engine: every one of the 2^16 HP shift codes, bit for bit, against the table the engine's HP
// step 5 reads (lslamp_cfg hp_exp[], lsfp_exp_neg of the decoded shift, encoded in the HP exponential
// format); NaN codes must raise nan. Exhaustive in any mode (seconds).
#include "Vlamp_sfu_exp.h"
#include "tb_common.h"
#include "verilated.h"

int main(int argc, char **argv)
{
    Verilated::commandArgs(argc, argv);
    const lslamp_cfg &c = tb::default_cfg();
    if (!c.use_hp_table || c.hp_s.nbits != 16 || c.hp_x.nbits != 16) {
        std::fprintf(stderr, "sfu: the default configuration has no 16-bit HP exponential table (shift %s, exp %s)\n",
                     c.hp_s.name, c.hp_x.name);
        return 1;
    }
    tb::counter k("sfu exp");
    Vlamp_sfu_exp m;
    uint64_t nans = 0, ones = 0, zeros = 0, subs = 0;
    const uint32_t one = tb::encode(&c.hp_x, 1.0), minnorm = tb::encode(&c.hp_x, c.hp_x.min_normal);
    for (uint32_t s = 0; s < (1u << 16); s++) {
        m.s_code = (uint16_t)s;
        m.eval();
        float e = c.hp_exp[s];
        if (std::isnan(e)) {
            ++nans;
            uint32_t want = lsfp_nan_code(&c.hp_x);
            k.check(m.nan && m.e_code == want, "shift 0x%04X (NaN): rtl e 0x%04X nan %d; want nan, code 0x%04X", s,
                    m.e_code, m.nan, want);
            continue;
        }
        uint32_t want = tb::encode(&c.hp_x, e);
        ones += want == one;
        zeros += want == 0;
        subs += want != 0 && want < minnorm;
        k.check(!m.nan && m.e_code == want, "shift 0x%04X (%.9g): rtl e 0x%04X nan %d; C e 0x%04X (%.9g)", s,
                (double)lsfp_decode(&c.hp_s, s), m.e_code, m.nan, want, (double)e);
    }
    std::printf("sfu exp: %s -> %s: %llu NaN codes, %llu results 1.0, %llu zero, %llu subnormal\n", c.hp_s.name,
                c.hp_x.name, (unsigned long long)nans, (unsigned long long)ones, (unsigned long long)zeros,
                (unsigned long long)subs);
    return k.done("every HP shift code against the engine's hp_exp table");
}
