/* `lampsim fp`: a numerics explorer over hw/fp — round, encode, decode, table, lut, dot. */
#define _POSIX_C_SOURCE 200809L  /* strdup */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lsfp.h"
#include "npy.h"

static const char *k_fp_usage =
    "usage: lampsim fp <op> [options] ...\n"
    "  round  FORMAT VALUE...   rounded value (exact decimal), code, flags\n"
    "  encode FORMAT VALUE...   code of the rounded value\n"
    "  decode FORMAT CODE...    value of a code (hex 0x.. or decimal)\n"
    "  table  FORMAT            every code of a format of at most 16 bits with its value\n"
    "  lut [SHIFT EXP]          the exponential LUT, one entry per shift code (default ue5m3s -> ue5m3x:\n"
    "                           256 entries; at most 2^16)\n"
    "  dot    --a V,V,.. --b V,V,..   accumulate a dot product (or: dot A.npy B.npy, flattened)\n"
    "options: --rounding rne|rtz|stochastic  --overflow saturate|nan  --seed N  --json\n"
    "         dot: --acc FORMAT (default e4m3)  --chunk K (default 1)  --model paper|exact (default exact)\n"
    "              --order ascending|descending\n"
    "formats: %s\n";

typedef struct {
    const char *rounding, *overflow, *acc, *model, *order, *a, *b;
    unsigned long long seed;
    long chunk;
    int json;
    int npos;
    char **pos;
} fp_opts;

static int fail(const char *msg, const char *arg)
{
    fprintf(stderr, "lampsim fp: %s%s%s%s\n", msg, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    return 2;
}

/* Exact decimal of a float: every float is a dyadic rational with a finite expansion. */
static void print_exact(FILE *out, float v)
{
    if (isnan(v)) { fputs("nan", out); return; }
    if (isinf(v)) { fputs(v < 0 ? "-inf" : "inf", out); return; }
    fprintf(out, "%.120g", (double)v);
}

static void print_json_value(FILE *out, float v)
{
    if (isnan(v) || isinf(v)) { fputc('"', out); print_exact(out, v); fputc('"', out); }
    else print_exact(out, v);
}

static int parse_value(const char *s, float *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end != '\0') return -1;
    *out = (float)d;   /* the value the user names is the float nearest to the decimal */
    return 0;
}

static int parse_code(const char *s, const lsfp_format *f, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s || *end != '\0' || errno || s[0] == '-') return -1;
    if (v >> f->nbits) return -2;
    *out = (uint32_t)v;
    return 0;
}

static void print_flags(FILE *out, unsigned fl, int json)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {LSFP_FLAG_SATURATED, "saturated"}, {LSFP_FLAG_OVERFLOW, "overflow"},
        {LSFP_FLAG_SUBNORMAL, "subnormal"}, {LSFP_FLAG_UNDERFLOW, "underflow"},
        {LSFP_FLAG_NAN, "nan"}, {LSFP_FLAG_INEXACT, "inexact"}};
    int first = 1;
    if (json) fputc('[', out);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(fl & names[i].bit)) continue;
        if (json) fprintf(out, "%s\"%s\"", first ? "" : ",", names[i].name);
        else fprintf(out, "%s%s", first ? "" : ",", names[i].name);
        first = 0;
    }
    if (json) fputc(']', out);
    else if (first) fputc('-', out);
}

static int code_width_hex(const lsfp_format *f) { return (f->nbits + 3) / 4; }

static int apply_mode_options(lsfp_format *f, const fp_opts *o)
{
    if (o->rounding) {
        if (!strcmp(o->rounding, "rne")) f->rounding = LSFP_RND_RNE;
        else if (!strcmp(o->rounding, "rtz")) f->rounding = LSFP_RND_RTZ;
        else if (!strcmp(o->rounding, "stochastic")) f->rounding = LSFP_RND_STOCHASTIC;
        else return fail("--rounding takes rne, rtz or stochastic, not", o->rounding);
    }
    if (o->overflow) {
        if (!strcmp(o->overflow, "saturate")) f->overflow = LSFP_OVF_SATURATE;
        else if (!strcmp(o->overflow, "nan")) f->overflow = LSFP_OVF_NONSAT;
        else return fail("--overflow takes saturate or nan, not", o->overflow);
    }
    return 0;
}

static int lookup_format(const char *name, lsfp_format *f, const fp_opts *o)
{
    char err[512];
    if (lsfp_format_parse(name, f, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "lampsim fp: %s\n", err);
        return 2;
    }
    return apply_mode_options(f, o);
}

static int op_round_encode(const fp_opts *o, int encode_only)
{
    lsfp_format f;
    if (o->npos < 2) return fail("round/encode need a FORMAT and at least one VALUE", NULL);
    int rc = lookup_format(o->pos[0], &f, o);
    if (rc) return rc;
    lsfp_rng rng;
    lsfp_rng_seed(&rng, o->seed);
    float *vals = malloc(sizeof(float) * (size_t)o->npos);
    if (!vals) return 1;
    for (int i = 1; i < o->npos; i++)
        if (parse_value(o->pos[i], &vals[i]) != 0) { free(vals); return fail("not a number:", o->pos[i]); }
    int w = code_width_hex(&f);
    if (o->json) printf("[");
    for (int i = 1; i < o->npos; i++) {
        unsigned fl = 0;
        float r = lsfp_round(&f, vals[i], &rng, &fl);
        uint32_t code = lsfp_encode(&f, r);
        if (o->json) {
            printf("%s{\"input\":\"%s\",\"value\":", i > 1 ? "," : "", o->pos[i]);
            print_json_value(stdout, r);
            printf(",\"code\":\"0x%0*X\",\"flags\":", w, code);
            print_flags(stdout, fl, 1);
            printf("}");
        } else if (encode_only) {
            printf("0x%0*X\n", w, code);
        } else {
            printf("%s\t", o->pos[i]);
            print_exact(stdout, r);
            printf("\t0x%0*X\t", w, code);
            print_flags(stdout, fl, 0);
            printf("\n");
        }
    }
    if (o->json) printf("]\n");
    free(vals);
    return 0;
}

static int op_decode(const fp_opts *o)
{
    lsfp_format f;
    if (o->npos < 2) return fail("decode needs a FORMAT and at least one CODE", NULL);
    int rc = lookup_format(o->pos[0], &f, o);
    if (rc) return rc;
    uint32_t *codes = malloc(sizeof(uint32_t) * (size_t)o->npos);
    if (!codes) return 1;
    for (int i = 1; i < o->npos; i++) {
        int pr = parse_code(o->pos[i], &f, &codes[i]);
        if (pr == -1) { free(codes); return fail("not a code:", o->pos[i]); }
        if (pr == -2) {
            fprintf(stderr, "lampsim fp: code %s out of range for %s (%d bits)\n", o->pos[i], f.name, f.nbits);
            free(codes);
            return 2;
        }
    }
    int w = code_width_hex(&f);
    if (o->json) printf("[");
    for (int i = 1; i < o->npos; i++) {
        float v = lsfp_decode(&f, codes[i]);
        if (o->json) {
            printf("%s{\"code\":\"0x%0*X\",\"value\":", i > 1 ? "," : "", w, codes[i]);
            print_json_value(stdout, v);
            printf("}");
        } else {
            printf("0x%0*X\t", w, codes[i]);
            print_exact(stdout, v);
            printf("\n");
        }
    }
    if (o->json) printf("]\n");
    free(codes);
    return 0;
}

static int op_table(const fp_opts *o)
{
    lsfp_format f;
    if (o->npos != 1) return fail("table needs exactly one FORMAT", NULL);
    int rc = lookup_format(o->pos[0], &f, o);
    if (rc) return rc;
    if (f.nbits > 16) {
        fprintf(stderr, "lampsim fp: table lists formats of at most 16 bits; %s has %d\n", f.name, f.nbits);
        return 2;
    }
    int w = code_width_hex(&f);
    uint32_t n = 1u << f.nbits;
    if (o->json) printf("{\"format\":\"%s\",\"codes\":[", f.name);
    for (uint32_t c = 0; c < n; c++) {
        float v = lsfp_decode(&f, c);
        if (o->json) {
            printf("%s{\"code\":\"0x%0*X\",\"value\":", c ? "," : "", w, c);
            print_json_value(stdout, v);
            printf("}");
        } else {
            printf("0x%0*X\t", w, c);
            print_exact(stdout, v);
            printf("\n");
        }
    }
    if (o->json) printf("]}\n");
    return 0;
}

static int op_lut(const fp_opts *o)
{
    static lsfp_exp_lut lut;   /* up to 2^16 entries: not on the stack */
    lsfp_format in = *lsfp_named_format(LSFP_UE5M3_S), out = *lsfp_named_format(LSFP_UE5M3_X);
    char err[512];
    if (o->npos != 0 && o->npos != 2) return fail("lut takes no arguments or a SHIFT and an EXP format", NULL);
    if (o->npos == 2 && (lookup_format(o->pos[0], &in, o) || lookup_format(o->pos[1], &out, o))) return 2;
    if (lsfp_exp_lut_build(&lut, &in, &out, err, sizeof err) != 0) return fail(err, NULL);
    int wi = (in.nbits + 3) / 4 < 2 ? 2 : (in.nbits + 3) / 4, wo = (out.nbits + 3) / 4 < 2 ? 2 : (out.nbits + 3) / 4;
    if (o->json) printf("{\"input_format\":\"%s\",\"output_format\":\"%s\",\"entries\":[", lut.in.name, lut.out.name);
    else printf("# in_code\tin_value(shift)\tout_code\tout_value(exp(-shift))\n");
    for (int c = 0; c < (int)lut.n; c++) {
        float s = lsfp_decode(&lut.in, (uint32_t)c);
        if (o->json) {
            printf("%s{\"in_code\":\"0x%0*X\",\"in_value\":", c ? "," : "", wi, c);
            print_json_value(stdout, s);
            printf(",\"out_code\":\"0x%0*X\",\"out_value\":", wo, lut.code[c]);
            print_json_value(stdout, lut.value[c]);
            printf("}");
        } else {
            printf("0x%0*X\t", wi, c);
            print_exact(stdout, s);
            printf("\t0x%0*X\t", wo, lut.code[c]);
            print_exact(stdout, lut.value[c]);
            printf("\n");
        }
    }
    if (o->json) printf("]}\n");
    return 0;
}

/* Parse "v,v,v" into a new array. */
static float *parse_list(const char *s, int *n)
{
    int cap = 1;
    for (const char *p = s; *p; p++) cap += *p == ',';
    float *v = malloc(sizeof(float) * (size_t)cap);
    char *copy = strdup(s);
    if (!v || !copy) { free(v); free(copy); return NULL; }
    int k = 0;
    for (char *tok = copy, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = '\0';
        if (parse_value(tok, &v[k]) != 0) { free(v); free(copy); return NULL; }
        k++;
    }
    free(copy);
    *n = k;
    return v;
}

/* The two operand vectors of `fp dot`: inline lists, or two .npy files (any shape, flattened). */
static int dot_operands(const fp_opts *o, float **a, float **b, int *n, ls_npy_array *na, ls_npy_array *nb)
{
    if (o->npos == 2 && !o->a && !o->b) {
        char err[512];
        if (ls_npy_load_f32(o->pos[0], na, err, sizeof err) || ls_npy_load_f32(o->pos[1], nb, err, sizeof err)) {
            fprintf(stderr, "lampsim fp: %s\n", err);
            return 2;
        }
        if (na->count != nb->count || na->count > 0x7fffffff) {
            fprintf(stderr, "lampsim fp: %s and %s hold %zu and %zu elements; dot needs equal counts\n",
                    o->pos[0], o->pos[1], na->count, nb->count);
            return 2;
        }
        *a = na->data;
        *b = nb->data;
        *n = (int)na->count;
        return 0;
    }
    if (!o->a || !o->b || o->npos) return fail("dot takes A.npy B.npy, or --a V,V,.. and --b V,V,.. of equal length", NULL);
    int la = 0, lb = 0;
    *a = parse_list(o->a, &la);
    *b = parse_list(o->b, &lb);
    if (!*a || !*b || la != lb) return fail("--a and --b must be comma-separated numbers of equal length", NULL);
    *n = la;
    return 0;
}

static int op_dot(const fp_opts *o)
{
    lsfp_format f;
    int rc = lookup_format(o->acc ? o->acc : "e4m3", &f, o);
    if (rc) return rc;
    /* as the engine (algorithm.lp_format / hp_format): a dot product of signed operands is signed */
    if (!f.is_signed) return fail("--acc: an accumulator holds signed sums; this format is unsigned:", f.name);
    lsfp_accum spec = {.fmt = &f, .model = LSFP_ACC_EXACT, .order = LSFP_ORDER_ASCENDING, .chunk_k = (int)o->chunk};
    if (o->model && !strcmp(o->model, "paper")) spec.model = LSFP_ACC_PAPER;
    else if (o->model && strcmp(o->model, "exact")) return fail("--model takes paper or exact, not", o->model);
    if (o->order && !strcmp(o->order, "descending")) spec.order = LSFP_ORDER_DESCENDING;
    else if (o->order && strcmp(o->order, "ascending")) return fail("--order takes ascending or descending, not", o->order);
    float *a = NULL, *b = NULL;
    int n = 0;
    ls_npy_array na = {0}, nb = {0};
    rc = dot_operands(o, &a, &b, &n, &na, &nb);
    if (rc == 0) {
        lsfp_rng rng;
        lsfp_rng_seed(&rng, o->seed);
        spec.rng = &rng;
        lsfp_events ev = {0};
        float r = lsfp_dot(&spec, a, b, n, &ev);
        double exact = 0.0;
        for (int i = 0; i < n; i++) exact += (double)a[i] * (double)b[i];
        if (o->json) {
            printf("{\"format\":\"%s\",\"model\":\"%s\",\"chunk_k\":%d,\"n\":%d,\"result\":", f.name,
                   spec.model == LSFP_ACC_PAPER ? "paper" : "exact", spec.chunk_k, n);
            print_json_value(stdout, r);
            printf(",\"float64_sum\":%.17g,\"saturations\":%llu}\n", exact, (unsigned long long)ev.saturations);
        } else {
            printf("result\t");
            print_exact(stdout, r);
            printf("\nfloat64 sum\t%.17g\nsaturations\t%llu\n", exact, (unsigned long long)ev.saturations);
        }
    }
    if (na.data || nb.data) {
        ls_npy_free(&na);
        ls_npy_free(&nb);
    } else {
        free(a);
        free(b);
    }
    return rc;
}

static int parse_opts(int argc, char **argv, fp_opts *o)
{
    memset(o, 0, sizeof *o);
    o->chunk = 1;
    o->pos = calloc((size_t)argc + 1, sizeof(char *));
    if (!o->pos) return 1;
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        const char **slot = NULL;
        if (!strcmp(s, "--json")) { o->json = 1; continue; }
        if (!strcmp(s, "--rounding")) slot = &o->rounding;
        else if (!strcmp(s, "--overflow")) slot = &o->overflow;
        else if (!strcmp(s, "--acc")) slot = &o->acc;
        else if (!strcmp(s, "--model")) slot = &o->model;
        else if (!strcmp(s, "--order")) slot = &o->order;
        else if (!strcmp(s, "--a")) slot = &o->a;
        else if (!strcmp(s, "--b")) slot = &o->b;
        else if (!strcmp(s, "--seed") || !strcmp(s, "--chunk")) {
            if (i + 1 >= argc) return fail("missing value after", s);
            char *end;
            errno = 0;
            unsigned long long v = strtoull(argv[i + 1], &end, 0);
            if (*end || end == argv[i + 1] || errno || argv[i + 1][0] == '-') return fail("not a non-negative integer:", argv[i + 1]);
            if (s[2] == 's') o->seed = v;
            else if (v < 1 || v > 1000000) return fail("--chunk takes 1..1000000, not", argv[i + 1]);
            else o->chunk = (long)v;
            i++;
            continue;
        } else if (s[0] == '-' && s[1] == '-') {
            static const char *const known[] = {"--json", "--rounding", "--overflow", "--acc", "--model", "--order",
                                                "--a", "--b", "--seed", "--chunk", "--help", NULL};
            return ls_cli_unknown("lampsim fp", "option", s, known);
        }
        if (slot) {
            if (i + 1 >= argc) return fail("missing value after", s);
            *slot = argv[++i];
            continue;
        }
        o->pos[o->npos++] = argv[i];
    }
    return 0;
}

int ls_cli_fp(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fprintf(argc < 2 ? stderr : stdout, k_fp_usage, lsfp_format_names());
        return argc < 2 ? 2 : 0;
    }
    const char *op = argv[1];
    fp_opts o;
    int rc = parse_opts(argc - 2, argv + 2, &o);
    if (rc == 0) {
        if (!strcmp(op, "round")) rc = op_round_encode(&o, 0);
        else if (!strcmp(op, "encode")) rc = op_round_encode(&o, 1);
        else if (!strcmp(op, "decode")) rc = op_decode(&o);
        else if (!strcmp(op, "table")) rc = op_table(&o);
        else if (!strcmp(op, "lut")) rc = op_lut(&o);
        else if (!strcmp(op, "dot")) rc = op_dot(&o);
        else {
            static const char *const ops[] = {"round", "encode", "decode", "table", "lut", "dot", NULL};
            rc = ls_cli_unknown("lampsim fp", "operation", op, ops);
        }
    }
    free(o.pos);
    return rc;
}
