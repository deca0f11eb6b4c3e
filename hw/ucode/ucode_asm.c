/* hw/ucode/ucode_asm.c — instruction table and the two-pass text assembler. */
#define _POSIX_C_SOURCE 200809L
#include "lsucode.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const region_names[LSUCODE_NREGIONS] = { "Q", "KV", "Y", "M", "SEL", "E", "ST", "O" };
const char *lsucode_region_name(int r) { return r >= 0 && r < LSUCODE_NREGIONS ? region_names[r] : "?"; }

static const lsucode_opinfo ops[LSUCODE_NOPS] = {
    [LSUCODE_OP_LDQ] = { "LDQ", LSUNIT_BUFFER, 1, 1, 0, 0, 0, "load the query block, pre-scale and transpose it" },
    [LSUCODE_OP_INIT] = { "INIT", LSUNIT_VECTOR, 1, 2, 0, 0, 0, "reset row state (mu, omega) and the O accumulator" },
    [LSUCODE_OP_PREF] = { "PREF", LSUNIT_BUFFER, 1, 1, 0, 0, 0, "prefetch the first key/value tiles (prefetch depth)" },
    [LSUCODE_OP_LDKV] = { "LDKV", LSUNIT_BUFFER, 1, 1, 0, 0, 0, "prefetch the key/value tile prefetch-depth tiles ahead" },
    [LSUCODE_OP_QK_LP] = { "QK.LP", LSUNIT_TENSOR, 1, 1, 1, 3, 0, "logit tile in the 8-bit accumulator (e4m3)" },
    [LSUCODE_OP_QK_HP] = { "QK.HP", LSUNIT_TENSOR, 1, 1, 1, 3, 0, "logit tile in the 16-bit accumulator (e4m11)" },
    [LSUCODE_OP_SMAX] = { "SMAX", LSUNIT_VECTOR, 1, 1, 1, 2, 0, "sub-block maxima of the logits" },
    [LSUCODE_OP_SORT] = { "SORT", LSUNIT_SCHEDULER, 1, 1, 1, 3, 0, "threats against the running max, stable sort" },
    [LSUCODE_OP_SEL1] = { "SEL1", LSUNIT_SCHEDULER, 1, 3, 1, 6, 0, "pre-selection: stage-1 safety margin (HP recompute of failing sub-blocks)" },
    [LSUCODE_OP_EXP] = { "EXP", LSUNIT_LUT, 1, 1, 1, 4, 0, "exponentials: LP sub-blocks on the LUT, HP sub-blocks on the SFU" },
    [LSUCODE_OP_NORM] = { "NORM", LSUNIT_VECTOR, 1, 1, 1, 3, 0, "normaliser: lambda (SFU), alpha, omega_hat" },
    [LSUCODE_OP_SEL2] = { "SEL2", LSUNIT_SCHEDULER, 1, 1, 1, 4, 0, "stage 2: costs and block-LAMP subset selection (recompute set)" },
    [LSUCODE_OP_RECOMP] = { "RECOMP", LSUNIT_TENSOR, 1, 2, 1, 5, 0, "recompute set: HP logits (tensor) and HP exponentials (SFU)" },
    [LSUCODE_OP_FULLHP] = { "FULLHP", LSUNIT_TENSOR, 1, 2, 1, 5, 0, "disruptive_numerics=full_tile_hp: rest of a disruptive tile in HP" },
    [LSUCODE_OP_RAISE] = { "RAISE", LSUNIT_VECTOR, 1, 2, 1, 4, 0, "above_one=raise: raise mu_hat and redo the exponentials" },
    [LSUCODE_OP_PV] = { "PV", LSUNIT_TENSOR, 1, 1, 1, 4, 0, "update O = O*lambda + P.V for warps on the fast path" },
    [LSUCODE_OP_SLOWPV] = { "SLOWPV", LSUNIT_TENSOR, 1, 1, 1, 4, 0, "disruptive slow path: sequential fully 16-bit update of O" },
    [LSUCODE_OP_FIN] = { "FIN", LSUNIT_VECTOR, 1, 1, 1, 2, 0, "O / omega after the last key tile" },
    [LSUCODE_OP_STO] = { "STO", LSUNIT_BUFFER, 0, 0, 1, 1, 0, "store the output block" },
    [LSUCODE_OP_JND] = { "JND", LSUNIT_SEQUENCER, 0, 0, 0, 0, 1, "jump if no warp of the tile is disruptive (compact layout, >= 2 HP sub-blocks)" },
    [LSUCODE_OP_JMP] = { "JMP", LSUNIT_SEQUENCER, 0, 0, 0, 0, 1, "jump" },
    [LSUCODE_OP_NEXT] = { "NEXT", LSUNIT_SEQUENCER, 0, 0, 0, 0, 1, "advance to the next key tile with work; jump if there is one" },
    [LSUCODE_OP_END] = { "END", LSUNIT_SEQUENCER, 0, 0, 0, 0, 0, "end of the context's program" },
};

const lsucode_opinfo *lsucode_op_info(int op) { return op >= 0 && op < LSUCODE_NOPS ? &ops[op] : NULL; }

void lsucode_program_free(lsucode_program *p)
{
    if (!p) return;
    free(p->code);
    memset(p, 0, sizeof *p);
}

static int errf(char *err, size_t errlen, const char *file, int line, const char *instr, const char *fmt, ...)
{
    if (err && errlen) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (instr && *instr) snprintf(err, errlen, "%s:%d: instruction '%s': %s", file, line, instr, msg);
        else snprintf(err, errlen, "%s:%d: %s", file, line, msg);
    }
    return -1;
}

static char *trim(char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

static int valid_ident(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_' || *s == '.')) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.')) return 0;
    return 1;
}

typedef struct { char name[64]; int index; int line; } label_t;
typedef struct { int instr; char name[64]; } fixup_t;

static int find_op(const char *m)
{
    for (int i = 0; i < LSUCODE_NOPS; i++) {
        const char *a = ops[i].mnemonic, *b = m;
        while (*a && *b && toupper((unsigned char)*a) == toupper((unsigned char)*b)) { a++; b++; }
        if (!*a && !*b) return i;
    }
    return -1;
}

static int find_region(const char *s)
{
    for (int r = 0; r < LSUCODE_NREGIONS; r++) {
        const char *a = region_names[r], *b = s;
        while (*a && *b && toupper((unsigned char)*a) == toupper((unsigned char)*b)) { a++; b++; }
        if (!*a && !*b) return r;
    }
    return -1;
}

/* Split "A, B" into region list. Returns count or -1 (bad name in *bad). */
static int parse_regions(char *s, int *out, int max, char *bad, size_t badlen)
{
    int n = 0;
    s = trim(s);
    if (!*s) return 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *t = trim(tok);
        int r = find_region(t);
        if (r < 0 || n >= max) {
            snprintf(bad, badlen, "%s", r < 0 ? t : "too many operands");
            return -1;
        }
        out[n++] = r;
    }
    return n;
}

int lsucode_assemble(const char *text, const char *name, lsucode_program *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "%s", name ? name : "<program>");
    snprintf(p->name, sizeof p->name, "unnamed");
    p->ylayout = LSUCODE_Y_CONFIG;   /* no .ylayout: the configured layout */
    const char *file = p->file;
    int cap = 64, nl = 0, nf = 0, lcap = 16, fcap = 16;
    p->code = calloc((size_t)cap, sizeof *p->code);
    label_t *labels = calloc((size_t)lcap, sizeof *labels);
    fixup_t *fix = calloc((size_t)fcap, sizeof *fix);
    char *buf = strdup(text ? text : "");
    int rc = 0;
    if (!p->code || !labels || !fix || !buf) { rc = errf(err, errlen, file, 0, NULL, "out of memory"); goto done; }
    int line = 0;
    char *cur = buf;
    while (cur && *cur) {
        char *nlp = strchr(cur, '\n');
        if (nlp) *nlp = 0;
        line++;
        char *s = cur;
        cur = nlp ? nlp + 1 : NULL;
        char *c = strpbrk(s, ";#");
        if (c) *c = 0;
        s = trim(s);
        if (!*s) continue;
        /* labels (possibly several) */
        for (;;) {
            char *colon = strchr(s, ':');
            if (!colon) break;
            char *sp = s;
            while (sp < colon && !isspace((unsigned char)*sp)) sp++;
            if (sp != colon) break;               /* "MNEMONIC x: ..." is not a label */
            *colon = 0;
            char *lab = trim(s);
            if (!valid_ident(lab)) { rc = errf(err, errlen, file, line, NULL, "bad label '%s'", lab); goto done; }
            for (int i = 0; i < nl; i++)
                if (!strcmp(labels[i].name, lab)) {
                    rc = errf(err, errlen, file, line, NULL, "label '%s' already defined at line %d", lab, labels[i].line);
                    goto done;
                }
            if (nl == lcap) {
                lcap *= 2;
                label_t *t = realloc(labels, (size_t)lcap * sizeof *labels);
                if (!t) { rc = errf(err, errlen, file, line, NULL, "out of memory"); goto done; }
                labels = t;
            }
            snprintf(labels[nl].name, sizeof labels[nl].name, "%s", lab);
            labels[nl].index = p->n;
            labels[nl].line = line;
            nl++;
            s = trim(colon + 1);
        }
        if (!*s) continue;
        char mn[64];
        size_t k = 0;
        while (s[k] && !isspace((unsigned char)s[k]) && k + 1 < sizeof mn) { mn[k] = s[k]; k++; }
        mn[k] = 0;
        char *rest = trim(s + k);
        if (mn[0] == '.') {
            if (!strcmp(mn, ".program")) {
                if (!valid_ident(rest)) { rc = errf(err, errlen, file, line, NULL, ".program needs a name"); goto done; }
                snprintf(p->name, sizeof p->name, "%s", rest);
            } else if (!strcmp(mn, ".ylayout")) {
                int l = strcmp(rest, "config") ? lsregfile_layout_parse(rest) : LSUCODE_Y_CONFIG;
                if (l == -1 && strcmp(rest, "config")) {
                    char names[128] = "config";
                    for (int k = 0; k < LSREGFILE_NLAYOUTS; k++)
                        snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", lsregfile_layout_name(k));
                    rc = errf(err, errlen, file, line, NULL, ".ylayout must be one of %s (got '%s')", names, rest);
                    goto done;
                }
                p->ylayout = l;
            } else {
                rc = errf(err, errlen, file, line, NULL, "unknown directive '%s' (expected .program or .ylayout)", mn);
                goto done;
            }
            continue;
        }
        int op = find_op(mn);
        if (op < 0) { rc = errf(err, errlen, file, line, mn, "unknown instruction (see docs/isa.md)"); goto done; }
        const lsucode_opinfo *oi = &ops[op];
        if (p->n == cap) {
            cap *= 2;
            lsucode_instr *t = realloc(p->code, (size_t)cap * sizeof *t);
            if (!t) { rc = errf(err, errlen, file, line, NULL, "out of memory"); goto done; }
            p->code = t;
        }
        lsucode_instr *in = &p->code[p->n];
        memset(in, 0, sizeof *in);
        in->op = op;
        in->line = line;
        in->target = -1;
        if (oi->label) {
            if (!valid_ident(rest)) { rc = errf(err, errlen, file, line, oi->mnemonic, "expects a label operand"); goto done; }
            if (nf == fcap) {
                fcap *= 2;
                fixup_t *t = realloc(fix, (size_t)fcap * sizeof *fix);
                if (!t) { rc = errf(err, errlen, file, line, NULL, "out of memory"); goto done; }
                fix = t;
            }
            fix[nf].instr = p->n;
            snprintf(fix[nf].name, sizeof fix[nf].name, "%s", rest);
            nf++;
        } else {
            char *arrow = strstr(rest, "<-");
            char dpart[256] = "", spart[256] = "", bad[64];
            if (arrow) {
                *arrow = 0;
                snprintf(dpart, sizeof dpart, "%s", rest);
                snprintf(spart, sizeof spart, "%s", arrow + 2);
            } else if (oi->max_src == 0) {
                snprintf(dpart, sizeof dpart, "%s", rest);
            } else if (oi->max_dst == 0) {
                snprintf(spart, sizeof spart, "%s", rest);
            } else {
                rc = errf(err, errlen, file, line, oi->mnemonic, "expects 'destinations <- sources'");
                goto done;
            }
            int nd = parse_regions(dpart, in->dst, LSUCODE_MAX_OPS, bad, sizeof bad);
            if (nd < 0) { rc = errf(err, errlen, file, line, oi->mnemonic, "unknown region '%s' (regions: Q KV Y M SEL E ST O)", bad); goto done; }
            int ns = parse_regions(spart, in->src, LSUCODE_MAX_OPS, bad, sizeof bad);
            if (ns < 0) { rc = errf(err, errlen, file, line, oi->mnemonic, "unknown region '%s' (regions: Q KV Y M SEL E ST O)", bad); goto done; }
            if (nd < oi->min_dst || nd > oi->max_dst)
                { rc = errf(err, errlen, file, line, oi->mnemonic, "takes %d..%d destination regions, got %d", oi->min_dst, oi->max_dst, nd); goto done; }
            if (ns < oi->min_src || ns > oi->max_src)
                { rc = errf(err, errlen, file, line, oi->mnemonic, "takes %d..%d source regions, got %d", oi->min_src, oi->max_src, ns); goto done; }
            in->ndst = nd;
            in->nsrc = ns;
        }
        p->n++;
    }
    for (int i = 0; i < nf; i++) {
        int t = -1;
        for (int l = 0; l < nl; l++)
            if (!strcmp(labels[l].name, fix[i].name)) t = labels[l].index;
        lsucode_instr *in = &p->code[fix[i].instr];
        if (t < 0) { rc = errf(err, errlen, file, in->line, ops[in->op].mnemonic, "undefined label '%s'", fix[i].name); goto done; }
        if (t >= p->n) { rc = errf(err, errlen, file, in->line, ops[in->op].mnemonic, "label '%s' is past the last instruction", fix[i].name); goto done; }
        in->target = t;
    }
    if (p->n == 0) { rc = errf(err, errlen, file, line, NULL, "empty program"); goto done; }
    int has_end = 0;
    for (int i = 0; i < p->n; i++) has_end |= p->code[i].op == LSUCODE_OP_END;
    if (!has_end) { rc = errf(err, errlen, file, p->code[p->n - 1].line, NULL, "program has no END"); goto done; }
    if (p->code[p->n - 1].op != LSUCODE_OP_END && p->code[p->n - 1].op != LSUCODE_OP_JMP)
        { rc = errf(err, errlen, file, p->code[p->n - 1].line, ops[p->code[p->n - 1].op].mnemonic, "the last instruction must be END or JMP (execution would run off the end)"); goto done; }
done:
    free(labels);
    free(fix);
    free(buf);
    if (rc != 0) { free(p->code); p->code = NULL; p->n = 0; }
    return rc;
}

int lsucode_assemble_file(const char *path, lsucode_program *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errlen) snprintf(err, errlen, "%s: cannot open microprogram: %s", path, strerror(errno));
        return -1;
    }
    /* a directory opens for reading on Linux and reads as nothing ("empty program" would mislead) */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        if (err && errlen) snprintf(err, errlen, "%s: is a directory, not a microprogram file", path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *t = malloc(cap);
    while (t) {
        if (n + 1024 > cap) {
            cap *= 2;
            char *nt = realloc(t, cap);
            if (!nt) { free(t); t = NULL; break; }
            t = nt;
        }
        size_t r = fread(t + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    fclose(f);
    if (!t) { if (err && errlen) snprintf(err, errlen, "%s: out of memory", path); return -1; }
    t[n] = 0;
    if (strlen(t) != n) { free(t); if (err && errlen) snprintf(err, errlen, "%s: binary file (NUL byte)", path); return -1; }
    int rc = lsucode_assemble(t, path, p, err, errlen);
    free(t);
    return rc;
}
