/* hw/ucode — the LampAttention microprogram: instruction set, text assembler (.lasm) and the
 * shipped programs (embedded at build time). See docs/isa.md for every instruction. */
#ifndef LAMPSIM_HW_UCODE_H
#define LAMPSIM_HW_UCODE_H
#include <stddef.h>

#include "lsreglayout.h"
#include "lsunit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Units an instruction can occupy: the components of hw/unit (lsunit_id, units.def); the
 * sequencer (LSUNIT_SEQUENCER) is zero-time control flow. */
typedef lsunit_id lsucode_unit_id;

typedef enum {
    LSUCODE_OP_LDQ, LSUCODE_OP_INIT, LSUCODE_OP_PREF, LSUCODE_OP_LDKV, LSUCODE_OP_QK_LP, LSUCODE_OP_QK_HP, LSUCODE_OP_SMAX,
    LSUCODE_OP_SORT, LSUCODE_OP_SEL1, LSUCODE_OP_EXP, LSUCODE_OP_NORM, LSUCODE_OP_SEL2, LSUCODE_OP_RECOMP, LSUCODE_OP_FULLHP,
    LSUCODE_OP_RAISE, LSUCODE_OP_PV, LSUCODE_OP_SLOWPV, LSUCODE_OP_FIN, LSUCODE_OP_STO,
    LSUCODE_OP_JND, LSUCODE_OP_JMP, LSUCODE_OP_NEXT, LSUCODE_OP_END,
    LSUCODE_NOPS
} lsucode_opcode;

/* Register-file / buffer regions named by operands (the scoreboard tracks one ready time each). */
typedef enum { LSUCODE_R_Q, LSUCODE_R_KV, LSUCODE_R_Y, LSUCODE_R_M, LSUCODE_R_SEL, LSUCODE_R_E, LSUCODE_R_ST, LSUCODE_R_O, LSUCODE_NREGIONS } lsucode_region;
const char *lsucode_region_name(int r);

/* How the logit tile is held in registers (.ylayout directive): a layout of hw/regfile's table
 * (lsregfile_layout), or LSUCODE_Y_CONFIG: accelerator.regfile.layout. */
enum { LSUCODE_Y_CONFIG = -1 };
/* The layout a program runs with: its .ylayout, or the configured one for `.ylayout config`. */
static inline int lsucode_layout(int ylayout, int configured) { return ylayout == LSUCODE_Y_CONFIG ? configured : ylayout; }

#define LSUCODE_MAX_OPS 6
typedef struct {
    int op;                 /* lsucode_opcode */
    int ndst, nsrc;
    int dst[LSUCODE_MAX_OPS], src[LSUCODE_MAX_OPS];  /* lsucode_region */
    int target;             /* branch target (instruction index) for JND/JMP/NEXT */
    int line;               /* source line */
} lsucode_instr;

typedef struct {
    char name[64];          /* .program */
    char file[256];         /* source name used in messages */
    int ylayout;            /* lsregfile_layout or LSUCODE_Y_CONFIG */
    lsucode_instr *code;
    int n;
} lsucode_program;

typedef struct {
    const char *mnemonic;
    int unit;               /* primary unit */
    int min_dst, max_dst;   /* operand counts (destinations first, then sources) */
    int min_src, max_src;
    int label;              /* 1: takes a label operand instead of regions */
    const char *summary;
} lsucode_opinfo;
const lsucode_opinfo *lsucode_op_info(int op);

/* Assemble program text. name is used in messages ("name:line: ..."). Returns 0, or -1 with
 * "file:line: instruction 'X': what" in err. The program must be freed with lsucode_program_free. */
int lsucode_assemble(const char *text, const char *name, lsucode_program *p, char *err, size_t errlen);
int lsucode_assemble_file(const char *path, lsucode_program *p, char *err, size_t errlen);
void lsucode_program_free(lsucode_program *p);

/* Shipped programs by name ("lampattention", "fa2_16bit", "pure_8bit"): the text and the
 * source file name (hw/ucode/<name>.lasm), or NULL. */
const char *lsucode_shipped_text(const char *name, const char **file);
#ifdef __cplusplus
}
#endif
#endif
