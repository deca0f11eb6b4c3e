/* End-to-end golden hashes: inputs generated from a seed, run through the engine, the output bits
 * and the integer statistics hashed (FNV-1a 64). Any change of rounding anywhere in the datapath
 * changes a hash.
 *
 * To regenerate deliberately (after an intended numerics change, and only then): run
 *   LAMPSIM_GOLDEN_PRINT=1 ./engine_golden
 * and paste the printed values into golden[] below, saying in the commit why they changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine.h"
#include "eng_testutil.h"
#include "lsfp.h"

typedef struct {
    const char *name;
    uint64_t o_hash, stats_hash;
} golden_entry;

static const golden_entry golden[] = {
    { "lamp_hw_causal", 0x8d491413dbfd1159ull, 0x7888b3973c386ee3ull },
    { "lamp_paper", 0xc9aeb21b31d4c8c6ull, 0x18634d1ac8554413ull },
    { "pure8_hw", 0x596aba4786e8cb77ull, 0x5bc0f75ae4856cf1ull },
    { "fa2_16bit_hw", 0x5597649141cd4db4ull, 0x67069c58827946a9ull },
    { "lamp_hw_tau0125_fp64", 0xbd26ae128f20a1b6ull, 0x30fc17433eebe53dull },
};

static uint64_t hash_stats(const ls_engine_result *r)
{
    uint64_t h = TU_FNV_INIT;
    h = tu_fnv(h, &r->tiles.executed, 8);
    h = tu_fnv(h, &r->tiles.masked_skipped, 8);
    h = tu_fnv(h, r->tiles.hp_subblocks_hist, 8 * (size_t)r->tiles.hist_len);
    h = tu_fnv(h, &r->recompute.stage1_subblocks, 8);
    h = tu_fnv(h, &r->recompute.stage2_subblocks, 8);
    h = tu_fnv(h, &r->recompute.logits_unmasked, 8);
    h = tu_fnv(h, &r->recompute.logits_hp, 8);
    h = tu_fnv(h, &r->events.e4m3_saturations, 8);
    h = tu_fnv(h, &r->events.exp_underflows, 8);
    h = tu_fnv(h, &r->events.exp_above_one, 8);
    for (size_t i = 0; i < r->n_records; i++) {
        const ls_engine_tile_record *t = &r->records[i];
        unsigned char b[6] = { (unsigned char)t->stage1_mask, (unsigned char)(t->stage1_mask >> 8),
                               (unsigned char)t->stage2_mask, (unsigned char)(t->stage2_mask >> 8), t->n_hp, t->flags };
        h = tu_fnv(h, b, 6);
    }
    return h;
}

static uint64_t hash_o(const ls_engine_result *r)
{
    size_t n = (size_t)r->batch * r->heads_q * r->seq_q * r->dim;
    uint64_t h = TU_FNV_INIT;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &r->o[i], 4);
        unsigned char b[4] = { (unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24) };
        h = tu_fnv(h, b, 4);
    }
    return h;
}

int main(void)
{
    int print = getenv("LAMPSIM_GOLDEN_PRINT") != NULL;
    ls_attn_inputs in;
    /* QK-norm rows, gains in [1, 3.5], 2 query heads sharing one KV head, ragged lengths, causal */
    if (tu_inputs_qknorm(&in, 20261129, 1, 2, 1, 200, 232, 64, 1, 1.0, 3.5) != 0) return 1;
    int n = (int)(sizeof golden / sizeof golden[0]);
    /* one pass per kernel family the CPU has (AVX-512, AVX2, scalar): all must give the same bits */
    int passes = (int)lsfp_isa_best() + 1;
    for (int i = 0; i < passes * n; i++) {
        lsfp_isa isa = (lsfp_isa)(passes - 1 - i / n);
        lsfp_set_isa_limit(isa);
        const golden_entry *ge = &golden[i % n];
        ls_engine_params p;
        ls_run_engine_defaults(&p);
        p.compute_reference = false;
        p.keep_tile_records = true;
        in.causal = i % n != 1;
        switch (i % n) {
        case 1: p.arithmetic = LSLAMP_ARITH_PAPER; break;
        case 2: p.mode = LS_ENGINE_MODE_PURE_8BIT; break;
        case 3: p.mode = LS_ENGINE_MODE_FA2_16BIT; break;
        case 4: p.tau = 0.125; p.state_precision = LS_ENGINE_STATE_FP64; break;
        }
        ls_engine_result r;
        char err[256];
        if (ls_engine_run(&p, &in, &r, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", ge->name, err);
            CHECK(0);
            continue;
        }
        uint64_t ho = hash_o(&r), hs = hash_stats(&r);
        if (print && i < n) printf("    { \"%s\", 0x%016llxull, 0x%016llxull },\n", ge->name, (unsigned long long)ho,
                          (unsigned long long)hs);
        CHECK_MSG(ho == ge->o_hash, "%s (%s): O hash %016llx, golden %016llx", ge->name, lsfp_isa_name(isa),
                  (unsigned long long)ho, (unsigned long long)ge->o_hash);
        CHECK_MSG(hs == ge->stats_hash, "%s (%s): stats hash %016llx, golden %016llx", ge->name, lsfp_isa_name(isa),
                  (unsigned long long)hs, (unsigned long long)ge->stats_hash);
        ls_engine_result_free(&r);
    }
    lsfp_set_isa_limit(LSFP_ISA_AVX512);
    printf("engine_golden: %d kernel families checked (best %s)\n", passes, lsfp_isa_name(lsfp_isa_best()));
    ls_attn_inputs_release(&in);
    CHECK_DONE();
}
