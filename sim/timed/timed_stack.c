/* sim/timed/timed_stack.c — the cycle stack and load balance of a run (see timed_stack.h). */
#include "timed_stack.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *ls_stack_cat_name(int k)
{
    static const char *const fixed[] = { "launch", "busy" };
    static const char *const tail[] = { "other", "tail", "idle" };
    if (k < LS_STACK_STALL0) return fixed[k];
    if (k < LS_STACK_OTHER) return lsseq_stall_name(k - LS_STACK_STALL0);
    return tail[k - LS_STACK_OTHER];
}

uint64_t ls_stack_apportion(uint64_t total, const uint64_t *w, int n, uint64_t *out)
{
    if (n > LS_STACK_NCATS) return total;   /* never: the stack's own categories at most */
    uint64_t sum = 0;
    int shift = 0;
    for (int k = 0; k < n; k++) sum += w[k];
    /* total x w must fit 64 bits: drop low bits of the weights (the shares barely move) */
    while (sum >> shift && total && (sum >> shift) > UINT64_MAX / total) shift++;
    uint64_t ws = 0;
    for (int k = 0; k < n; k++) ws += w[k] >> shift;
    for (int k = 0; k < n; k++) out[k] = 0;
    if (ws == 0) return total;
    uint64_t given = 0, rem[LS_STACK_NCATS];
    for (int k = 0; k < n; k++) {
        uint64_t p = total * (w[k] >> shift);
        out[k] = p / ws;
        rem[k] = p % ws;
        given += out[k];
    }
    /* the cycles rounding left over (fewer than n) go to the largest remainders, one each */
    for (uint64_t left = total - given; left > 0; left--) {
        int best = -1;
        for (int k = 0; k < n; k++)
            if ((w[k] >> shift) && (best < 0 || rem[k] > rem[best])) best = k;
        out[best]++;
        rem[best] = 0;
    }
    return 0;
}

void ls_stack_core(const ls_stack_inputs *in, int c, uint64_t *cat)
{
    uint64_t T = in->cycles, e = in->core_end[c] < T ? in->core_end[c] : T;
    memset(cat, 0, LS_STACK_NCATS * sizeof *cat);
    if (e == 0) {
        cat[LS_STACK_IDLE] = T;
        return;
    }
    cat[LS_STACK_LAUNCH] = in->launch_cycles < e ? in->launch_cycles : e;
    uint64_t active = e - cat[LS_STACK_LAUNCH];
    cat[LS_STACK_BUSY] = in->core_busy[c] < active ? in->core_busy[c] : active;
    cat[LS_STACK_OTHER] = ls_stack_apportion(active - cat[LS_STACK_BUSY], &in->core_stalls[(size_t)c * LSSEQ_NSTALLS],
                                             LSSEQ_NSTALLS, &cat[LS_STACK_STALL0]);
    cat[LS_STACK_TAIL] = T - e;
}

void ls_stack_build(const ls_stack_inputs *in, const char *bottleneck, ls_stack *st)
{
    memset(st, 0, sizeof *st);
    snprintf(st->bottleneck, sizeof st->bottleneck, "%s", bottleneck ? bottleneck : "");
    st->cores = in->cores_configured > in->cores ? in->cores_configured : in->cores;
    uint64_t T = in->cycles, core_cycles[LS_STACK_NCATS] = { 0 };
    double end_sum = 0;
    for (int c = 0; c < in->cores; c++) {
        uint64_t cat[LS_STACK_NCATS];
        ls_stack_core(in, c, cat);
        for (int k = 0; k < LS_STACK_NCATS; k++) core_cycles[k] += cat[k];
        if (cat[LS_STACK_IDLE] == T && T) continue;
        uint64_t e = T - cat[LS_STACK_TAIL];
        for (int k = 0; k < LS_STACK_NCATS; k++) {
            if (!st->cores_used || cat[k] < st->core_min[k]) st->core_min[k] = cat[k];
            if (cat[k] > st->core_max[k]) st->core_max[k] = cat[k];
        }
        if (!st->cores_used || e < st->end_min) st->end_min = e;
        if (e > st->end_max) st->end_max = e;
        end_sum += (double)e;
        st->cores_used++;
    }
    uint64_t working[LS_STACK_NCATS];
    memcpy(working, core_cycles, sizeof working);
    working[LS_STACK_IDLE] = 0;
    (void)ls_stack_apportion(T, working, LS_STACK_NCATS, st->working);
    core_cycles[LS_STACK_IDLE] += (uint64_t)(st->cores - in->cores) * T;
    (void)ls_stack_apportion(T, core_cycles, LS_STACK_NCATS, st->chip);
    st->items = in->items;
    st->slots = (long long)st->cores * (in->contexts_per_core > 0 ? in->contexts_per_core : 1);
    st->waves = st->slots ? (double)st->items / (double)st->slots : 0.0;
    double full = st->slots ? ceil(st->waves) * (double)st->slots : 0.0;
    st->wave_efficiency = full > 0 ? (double)st->items / full : 0.0;
    st->end_mean = st->cores_used ? end_sum / st->cores_used : 0.0;
    st->tail_cycles = st->cores_used ? T - st->end_min : 0;
    st->imbalance = st->end_mean > 0 ? (double)st->end_max / st->end_mean : 0.0;
}

void ls_stack_report_fields(ls_fields *fs, const ls_stack *st)
{
    char n[96];
    ls_fields_string(fs, "cycle_stack.bottleneck", st->bottleneck);
    for (int k = 0; k < LS_STACK_NCATS; k++) {
        snprintf(n, sizeof n, "cycle_stack.chip.%s", ls_stack_cat_name(k));
        ls_fields_uint(fs, n, st->chip[k]);
    }
    for (int k = 0; k < LS_STACK_NCATS; k++) {
        snprintf(n, sizeof n, "cycle_stack.working_cores.%s", ls_stack_cat_name(k));
        ls_fields_uint(fs, n, st->working[k]);
    }
    for (int k = 0; k < LS_STACK_NCATS; k++) {
        snprintf(n, sizeof n, "cycle_stack.core_min.%s", ls_stack_cat_name(k));
        ls_fields_uint(fs, n, st->core_min[k]);
    }
    for (int k = 0; k < LS_STACK_NCATS; k++) {
        snprintf(n, sizeof n, "cycle_stack.core_max.%s", ls_stack_cat_name(k));
        ls_fields_uint(fs, n, st->core_max[k]);
    }
    ls_fields_int(fs, "balance.items", st->items);
    ls_fields_int(fs, "balance.slots", st->slots);
    ls_fields_double(fs, "balance.waves", st->waves);
    ls_fields_double(fs, "balance.wave_efficiency", st->wave_efficiency);
    ls_fields_uint(fs, "balance.core_end_min", st->end_min);
    ls_fields_uint(fs, "balance.core_end_max", st->end_max);
    ls_fields_double(fs, "balance.core_end_mean", st->end_mean);
    ls_fields_uint(fs, "balance.tail_cycles", st->tail_cycles);
    ls_fields_double(fs, "balance.imbalance", st->imbalance);
}
