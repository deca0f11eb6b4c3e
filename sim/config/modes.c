/* Which configuration keys a mode reads: the algorithm knobs of one recompute policy mean nothing
 * to the others (tau to pure_8bit, random_rate to lamp). Labels, headlines and point directory
 * names leave such keys out (sim/sweep/sweep_names.c, `lampsim compare`, scripts/plot_sweep.py,
 * `lampsim config --explain`). The engine is the authority: sim/engine/engine.c maps tau, delta, the
 * stages and the knapsack onto the lamp policy only, random_rate onto the random policy, and
 * engine_item.c reads lamp_code_tau in mode lamp_code only. */
#include <string.h>

#include "config.h"

static const struct {
    const char *key, *modes; /* modes: space-separated */
} k_key_modes[] = {
    {"algorithm.tau", "lamp"},
    {"algorithm.delta", "lamp"},
    {"algorithm.stage1", "lamp"},
    {"algorithm.stage2", "lamp"},
    {"algorithm.knapsack_tiebreak", "lamp"},
    {"algorithm.lamp_code_tau", "lamp_code"},
    {"algorithm.random_rate", "random"},
};

const char *ls_config_key_modes(const char *key)
{
    if (!key) return NULL;
    if (!strncmp(key, "config.", 7)) key += 7;
    for (size_t i = 0; i < sizeof k_key_modes / sizeof k_key_modes[0]; i++)
        if (!strcmp(k_key_modes[i].key, key)) return k_key_modes[i].modes;
    return NULL;
}

bool ls_config_key_applies(const char *key, const char *mode)
{
    const char *m = ls_config_key_modes(key);
    if (!m || !mode || !*mode) return true;
    size_t n = strlen(mode);
    for (const char *s = m; (s = strstr(s, mode)); s += n)
        if ((s == m || s[-1] == ' ') && (s[n] == ' ' || !s[n])) return true;
    return false;
}
