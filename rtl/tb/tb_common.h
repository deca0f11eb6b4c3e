// rtl/tb/tb_common.h — shared helpers of the Verilator testbenches: the engine's default
// configuration (the same lslamp_cfg the simulator runs), a seeded generator, counted checks.
#ifndef LAMPSIM_RTL_TB_COMMON_H
#define LAMPSIM_RTL_TB_COMMON_H
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" {
#include "engine_parts.h"
#include "lslamp.h"
#include "run.h"
}

namespace tb {

// Finalizes into c the engine's configuration at the schema defaults, changed by adjust (may be null).
inline void build_cfg(lslamp_cfg *c, void (*adjust)(ls_engine_params *))
{
    ls_engine_params p;
    char err[512];
    ls_run_engine_defaults(&p);
    if (adjust) adjust(&p);
    if (ls_engine_lamp_cfg(&p, 128, true, c, err, sizeof err) != 0) {
        std::fprintf(stderr, "engine configuration: %s\n", err);
        std::exit(1);
    }
}

// The engine's finalized configuration at the schema defaults (static: it holds the tables).
inline const lslamp_cfg &default_cfg()
{
    static lslamp_cfg c;
    static bool done = false;
    if (!done) {
        build_cfg(&c, nullptr);
        done = true;
    }
    return c;
}

struct rng {
    uint64_t s;
    explicit rng(uint64_t seed) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
};

// Counted comparisons: the first few mismatches are printed, every one is counted.
struct counter {
    const char *unit;
    uint64_t cases = 0, fails = 0;
    explicit counter(const char *u) : unit(u) {}
    template <class... A> bool check(bool ok, const char *fmt, A... a)
    {
        ++cases;
        if (ok) return true;
        if (++fails <= 10) {
            std::fprintf(stderr, "%s: mismatch: ", unit);
            std::fprintf(stderr, fmt, a...);
            std::fputc('\n', stderr);
        }
        return false;
    }
    int done(const char *what)
    {
        std::printf("%s: %s: %llu cases, %llu mismatches\n", unit, what, (unsigned long long)cases,
                    (unsigned long long)fails);
        return fails ? 1 : 0;
    }
};

// Command line: "quick" (default suite) or "long" (exhaustive / big random runs).
inline bool long_mode(int argc, char **argv) { return argc > 1 && std::string(argv[1]) == "long"; }

inline uint32_t encode(const lsfp_format *f, double v) { return lsfp_encode(f, (float)v); }

}  // namespace tb
#endif
