/* hw/regfile/lsreglayout.h — the register layouts of the logit tile in one table (layout.c): their
 * names (accelerator.regfile.layout and the .ylayout directive read these), the registers a warp's
 * logit tile needs, and the slow-path rule (which warps take the sequential 16-bit branch and how
 * many sub-blocks one of its passes holds). Adding a layout is a row in layout.c plus its tests and
 * docs. No dependencies: the assembler and the configuration schema link it alone. */
#ifndef LAMPSIM_HW_REGLAYOUT_H
#define LAMPSIM_HW_REGLAYOUT_H
#include <stdbool.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The configurable layouts first, in the order of lsregfile_layout_names (their config values). */
typedef enum {
    LSREGFILE_COMPACT,   /* four 8-bit logits per register plus one 16-bit sub-block; more HP sub-blocks: slow path */
    LSREGFILE_FULL,      /* every sub-block in 16 bits (two per register) */
    LSREGFILE_FP32,      /* every logit in its own fp32 register (the paper's fp32 score-accumulator baseline) */
    LSREGFILE_LP,        /* four 8-bit logits per register, no HP space (pure_8bit's program only) */
    LSREGFILE_NLAYOUTS
} lsregfile_layout;

/* Names accelerator.regfile.layout accepts (NULL-terminated; index = lsregfile_layout). */
extern const char *const lsregfile_layout_names[];
/* Any layout's name ("?" if out of range); the layout of a name (configurable or not), or -1. */
const char *lsregfile_layout_name(int layout);
int lsregfile_layout_parse(const char *name);

/* Where an operand or accumulator of a context lives (accelerator.regfile.q_placement, o_placement). */
typedef enum { LSREGFILE_IN_REGISTERS, LSREGFILE_IN_BUFFER } lsregfile_place;
extern const char *const lsregfile_place_names[];   /* "registers", "buffer", NULL */

/* 32-bit registers of one warp's logit tile (b_q queries x n_k sub-blocks of b_k keys) with LP and HP
 * logits of lp_bits / hp_bits (floor(32 / bits) per register; 0: 8 / 16, the e4m3 / e4m11 design). */
int lsregfile_y_regs_bits(int layout, int b_q, int b_k, int n_k, int lp_bits, int hp_bits);
int lsregfile_y_regs(int layout, int b_q, int b_k, int n_k);   /* with 8 / 16-bit logits */
/* Whether the layout has a slow path: a warp with more HP sub-blocks than it holds 16-bit slots for
 * (lsregfile_hp_slots) updates O in sequential 16-bit passes. */
bool lsregfile_has_slow_path(int layout);
/* HP sub-blocks a warp's logit registers hold at once (n_k where every sub-block has its slot). */
int lsregfile_hp_slots(int layout, int n_k);
/* Sub-blocks per sequential 16-bit pass of the slow path: as many HP sub-blocks as the layout's
 * logit registers hold (compact with 8 / 16-bit logits: n_k / 2 + 1); 0 without a slow path. */
int lsregfile_slow_pass(int layout, int b_q, int b_k, int n_k, int lp_bits, int hp_bits);
/* Bits one low-precision (hp false) or high-precision logit is held in (8 / 16-bit design): the packing
 * the register-file port does (4, 2 or 1 logits per 32-bit register) and so the accesses and the
 * pack / unpack network a layout costs (sim/timed/timed_area.h). */
int lsregfile_logit_bits(int layout, bool hp);
#ifdef __cplusplus
}
#endif
#endif
