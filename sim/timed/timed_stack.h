/* sim/timed/timed_stack.h — where the cycles go: a cycle stack per core and for the chip, and the
 * load balance across cores (docs/reports.md, "Cycle stack").
 *
 * Every category is in cycles and the categories of one core sum to the run's cycles exactly:
 *   launch     the launch overhead before any work starts (min(launch_cycles, the core's end))
 *   busy       the bottleneck unit's busy cycles on the core (the chip's busiest per-core unit)
 *   dependency, unit_busy, memory, scheduler, slow_path
 *              the core's remaining active cycles (its end - launch - busy: the bottleneck unit
 *              idle while the core had work) split in proportion to the core's stall
 *              context-cycles by cause, with the largest-remainder rule so that the integer
 *              parts sum exactly
 *   other      those active cycles when the core counted no stall at all
 *   tail       the run's cycles - the core's end: done, waiting for the slowest core
 *   idle       every cycle of a core that got no work item (cores beyond the work items too)
 * The chip's stack sums the cores' stacks (core-cycles: cycles x cores exactly) and apportions the
 * run's cycles over the categories by the same largest-remainder rule, so it too sums to cycles;
 * the working cores' stack does so over the cores that got work only. */
#ifndef LAMPSIM_SIM_TIMED_STACK_H
#define LAMPSIM_SIM_TIMED_STACK_H
#include <stddef.h>
#include <stdint.h>

#include "fields.h"
#include "lsseq.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { LS_STACK_LAUNCH, LS_STACK_BUSY, LS_STACK_STALL0 /* + lsseq_stall */,
       LS_STACK_OTHER = LS_STACK_STALL0 + LSSEQ_NSTALLS, LS_STACK_TAIL, LS_STACK_IDLE, LS_STACK_NCATS };
const char *ls_stack_cat_name(int k);

typedef struct {
    uint64_t cycles;             /* the run's */
    int cores;                   /* cores the sequencer ran (at most one per work item) */
    int cores_configured;        /* the chip's (>= cores): the rest are idle all run */
    uint64_t launch_cycles;
    const uint64_t *core_end;    /* [cores]: when each core finished its last item (0: no work) */
    const uint64_t *core_busy;   /* [cores]: the bottleneck unit's busy cycles per core */
    const uint64_t *core_stalls; /* [cores][LSSEQ_NSTALLS]: stall context-cycles per core */
    long long items;             /* work items of the layer */
    int contexts_per_core;       /* resident contexts a core could hold with work enough:
                                    min(registers, buffer, max_contexts), not the work bound */
} ls_stack_inputs;

typedef struct {
    char bottleneck[16];         /* the unit whose busy cycles form `busy` */
    uint64_t chip[LS_STACK_NCATS];       /* over all the chip's cores, in cycles; sum = cycles */
    uint64_t working[LS_STACK_NCATS];    /* the same over the cores that got work (no idle); sum = cycles */
    /* per core: each category's least and most over the cores that got work (each core's own
     * stack sums to cycles; these bound how far the cores differ) */
    uint64_t core_min[LS_STACK_NCATS], core_max[LS_STACK_NCATS];
    int cores, cores_used;
    /* load balance */
    long long items, slots;      /* work items; cores x resident contexts */
    double waves;                /* items / slots */
    double wave_efficiency;      /* items / (ceil(waves) x slots): the last wave's empty slots cost this */
    uint64_t end_min, end_max;   /* earliest and latest end of a core that got work */
    double end_mean;
    uint64_t tail_cycles;        /* cycles - end_min: the span some core waits for the slowest */
    double imbalance;            /* end_max / end_mean (1 = balanced) */
} ls_stack;

/* Splits total over n (<= LS_STACK_NCATS) weights by the largest-remainder rule (ties to the lower index): out sums
 * to total exactly; all weights 0 gives out all 0 and returns total (nothing was split). */
uint64_t ls_stack_apportion(uint64_t total, const uint64_t *w, int n, uint64_t *out);
/* Builds the stack; bottleneck names the busy unit. Fixed size: nothing to free. */
void ls_stack_build(const ls_stack_inputs *in, const char *bottleneck, ls_stack *st);
/* One core's stack (cat[LS_STACK_NCATS], summing to in->cycles). */
void ls_stack_core(const ls_stack_inputs *in, int core, uint64_t *cat);
/* cycle_stack.* (bottleneck, chip-wide categories, per-core least and most) and balance.* */
void ls_stack_report_fields(ls_fields *fs, const ls_stack *st);
#ifdef __cplusplus
}
#endif
#endif
