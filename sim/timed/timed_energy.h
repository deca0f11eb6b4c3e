/* sim/timed/timed_energy.h — the energy model, structured as Accelergy structures it: the run
 * counts actions (a MAC of each precision, a LUT lookup, a 64-bit SRAM read ...), the
 * configuration prices one action of each kind (accelerator.energy, picojoules; hardware.md
 * section 5), and energy = per-action energy x action count, per component. */
#ifndef LAMPSIM_SIM_TIMED_ENERGY_H
#define LAMPSIM_SIM_TIMED_ENERGY_H
#include "config.h"
#include "lsmem.h"
#include "lsreglayout.h"
#include "lsseq.h"
#include "timed.h"
#include "timed_lanes.h"

/* What the run did, counted in the actions the energy table prices. */
typedef struct {
    double qk_lp_macs;        /* 8-bit Q.K^T MACs: fp8 multiply + fp8 add */
    double hp_fmas;           /* 16-bit logits (high precision, first selection, recompute, full HP): fma_16 */
    double pv_lp_macs;        /* P.V MACs on LUT exponentials: energy.pv_lp_step (or the lanes' circuit) */
    double pv_hp_macs;        /* P.V MACs on SFU exponentials (high-precision rows, slow path): pv_hp_step */
    double lut_lookups;
    double sfu_ops;           /* exponentials, normalisation, recompute and full-HP SFU work */
    double vector_ops;        /* element operations (fp32 add, multiply, maximum): energy.vector_op */
    double sched_threats;     /* threats sorted (one per sub-block and query): energy.threat_sort / 16 each */
    double sched_margin_tests;/* stage-1 tests (one per sub-block and query): energy.margin_test / 32 each */
    double sched_subset_terms;/* stage-2 cost terms reduced (candidate key x query): 3 vector ops each */
    double sched_subset_tests;/* stage-2 walk: subsets tested x query lanes: energy.subset_test each */
    double regfile_accesses;
    double pack_writes;       /* logits of 8 or 16 bits merged into a 32-bit register (the pack lane) */
    double buffer_words64;    /* 64-bit buffer (SRAM) accesses */
    double l2_words;          /* 32-bit L2 words */
    double dram_words64;      /* 64-bit DRAM reads */
} ls_timed_actions;

/* The action counts of a finished run: the sequencer's per-operation work, the memory unit's
 * byte counts; dim and bc (key columns per tile) size the register-file traffic, and the layout
 * (lsregfile_layout) how many logits one 32-bit register access moves. */
void ls_timed_count_actions(const lsseq *s, const lsmem_state *mem, bool operand_reads_timed, int dim, int bc,
                            int layout, ls_timed_actions *a);

/* The picojoules of one tensor, LUT, SFU, vector or scheduler action at the area model's node: measured on the RTL
 * (ASAP7 7 nm, e->lp_step, hp_step, pv_lp_step, pv_hp_step, lut_exp, sfu_lane, vector_op, threat_sort, margin_test,
 * subset_test, unscaled) where the unit exists and the key
 * is not 0, else the 45 nm table x e->node_scale; the tensor actions on the circuits `lanes` builds the lanes
 * as (ls_lanes_of). */
typedef struct {
    double qk_lp_mac, hp_fma, pv_lp_mac, pv_hp_mac, lut_lookup, sfu_exp, vector_op;
    double sched_threat, sched_margin_test;   /* per threat, per query's test (the units' energy / 16, / 32) */
    double sched_subset_test;                 /* per query lane's test of one subset in the stage-2 walk */
} ls_timed_action_pj;
void ls_timed_per_action(const ls_config_energy *e, const ls_lanes *lanes, ls_timed_action_pj *pj);

/* Per-action energies x action counts, in microjoules per component and in total; every on-chip
 * energy of the 45 nm table is scaled by e->node_scale (45 nm -> the area model's 7 nm), DRAM and the
 * measured 7 nm energies (ls_timed_per_action) are not. */
void ls_timed_energy_of(const ls_config_energy *e, const ls_lanes *lanes, const ls_timed_actions *a, ls_timed_energy *out);
#endif
