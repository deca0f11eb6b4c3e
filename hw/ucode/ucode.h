/* hw/ucode — the LampAttention microprogram: instruction set, text assembler (.lasm) and the
 * shipped programs (embedded at build time). See docs/isa.md for every instruction. */
#ifndef LAMPSIM_HW_UCODE_H
#define LAMPSIM_HW_UCODE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Units an instruction can occupy (the sequencer is LSU_SEQ: zero-time control flow). */
typedef enum {
    LSU_SEQ = 0, LSU_MEM, LSU_TENSOR, LSU_LUT, LSU_SFU, LSU_VECTOR, LSU_SCHED, LSU_REGFILE, LSU_NUNITS
} lsu_unit_id;
const char *lsu_unit_name(int unit);

typedef enum {
    LSU_OP_LDQ, LSU_OP_INIT, LSU_OP_PREF, LSU_OP_LDKV, LSU_OP_QK_LP, LSU_OP_QK_HP, LSU_OP_SMAX,
    LSU_OP_SORT, LSU_OP_SEL1, LSU_OP_EXP, LSU_OP_NORM, LSU_OP_SEL2, LSU_OP_RECOMP, LSU_OP_FULLHP,
    LSU_OP_RAISE, LSU_OP_PV, LSU_OP_SLOWPV, LSU_OP_FIN, LSU_OP_STO,
    LSU_OP_JND, LSU_OP_JMP, LSU_OP_NEXT, LSU_OP_END,
    LSU_NOPS
} lsu_opcode;

/* Register-file / buffer regions named by operands (the scoreboard tracks one ready time each). */
typedef enum { LSU_R_Q, LSU_R_KV, LSU_R_Y, LSU_R_M, LSU_R_SEL, LSU_R_E, LSU_R_ST, LSU_R_O, LSU_NREGIONS } lsu_region;
const char *lsu_region_name(int r);

/* How the logit tile is held in registers (.ylayout directive). */
typedef enum { LSU_Y_CONFIG, LSU_Y_FULL, LSU_Y_COMPACT, LSU_Y_LP } lsu_ylayout;

#define LSU_MAX_OPS 6
typedef struct {
    int op;                 /* lsu_opcode */
    int ndst, nsrc;
    int dst[LSU_MAX_OPS], src[LSU_MAX_OPS];  /* lsu_region */
    int target;             /* branch target (instruction index) for JND/JMP/NEXT */
    int line;               /* source line */
} lsu_instr;

typedef struct {
    char name[64];          /* .program */
    char file[256];         /* source name used in messages */
    lsu_ylayout ylayout;
    lsu_instr *code;
    int n;
} lsu_program;

typedef struct {
    const char *mnemonic;
    int unit;               /* primary unit */
    int min_dst, max_dst;   /* operand counts (destinations first, then sources) */
    int min_src, max_src;
    int label;              /* 1: takes a label operand instead of regions */
    const char *summary;
} lsu_opinfo;
const lsu_opinfo *lsu_op_info(int op);

/* Assemble program text. name is used in messages ("name:line: ..."). Returns 0, or -1 with
 * "file:line: instruction 'X': what" in err. The program must be freed with lsu_program_free. */
int lsu_assemble(const char *text, const char *name, lsu_program *p, char *err, size_t errlen);
int lsu_assemble_file(const char *path, lsu_program *p, char *err, size_t errlen);
void lsu_program_free(lsu_program *p);

/* Shipped programs by name ("lampattention", "fa2_16bit", "pure_8bit"): the text and the
 * source file name (hw/ucode/<name>.lasm), or NULL. */
const char *lsu_shipped_text(const char *name, const char **file);
#ifdef __cplusplus
}
#endif
#endif
