/* Fuzz target: the microprogram assembler (.lasm). Any crash or sanitizer report is a finding, and
 * so is an assembled program breaking what the sequencer relies on (a branch target outside the
 * program, operand counts or regions out of range, a last instruction that runs off the end), or
 * a refusal without a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsucode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_program(const lsucode_program *p)
{
    if (p->n < 1) abort();
    int last = p->code[p->n - 1].op;
    if (last != LSUCODE_OP_END && last != LSUCODE_OP_JMP) abort();
    for (int i = 0; i < p->n; i++) {
        const lsucode_instr *in = &p->code[i];
        if (in->op < 0 || in->op >= LSUCODE_NOPS) abort();
        const lsucode_opinfo *oi = lsucode_op_info(in->op);
        if (oi->label ? in->target < 0 || in->target >= p->n : in->target != -1) abort();
        if (!oi->label && (in->ndst < oi->min_dst || in->ndst > oi->max_dst || in->nsrc < oi->min_src ||
                           in->nsrc > oi->max_src))
            abort();
        for (int k = 0; k < in->ndst; k++)
            if (in->dst[k] < 0 || in->dst[k] >= LSUCODE_NREGIONS) abort();
        for (int k = 0; k < in->nsrc; k++)
            if (in->src[k] < 0 || in->src[k] >= LSUCODE_NREGIONS) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    lsucode_program p;
    char err[512] = "";
    if (lsucode_assemble(text, "fuzz.lasm", &p, err, sizeof err) == 0) {
        check_program(&p);
        lsucode_program_free(&p);
    } else if (!err[0]) {
        fprintf(stderr, "refused without a message\n");
        abort();
    }
    free(text);
    return 0;
}
