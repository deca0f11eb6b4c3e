/* lampsim validate FILE... [--set key=value]... [--build]
 * lampsim config --dump [FILE] [--set key=value]... [-o OUT]
 * lampsim config --explain KEY | --list | --docs [OUT]
 * lampsim config --estimates [FILE] | --sources [FILE] */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "config.h"
#include "run.h"
#include "workload.h"

static void print_warnings(const char *name, const ls_config_diag *d)
{
    for (int i = 0; i < d->n_warnings; ++i) fprintf(stderr, "%s: warning: %s\n", name, d->warnings[i]);
}

/* ls_config_load_all's problem callback: one line on stderr each, counted. */
static void print_problem(const char *message, void *ud)
{
    fprintf(stderr, "%s\n", message);
    ++*(int *)ud;
}

static void validate_usage(FILE *out)
{
    fputs("usage: lampsim validate FILE... [--set key.path=value]... [--build] [--quiet]\n"
          "  Loads each configuration (includes, workload files and overrides applied) and reports\n"
          "  every problem, one line each, as file:line:column: key: message (checks between keys\n"
          "  once every value is valid), then what a run would check before generating data\n"
          "  (microprogram, register fit). --build also generates or loads the workload (trace\n"
          "  files, QK-norm bound) and prints its summary.\n"
          "  Exit code 0 when every file is valid, 2 otherwise.\n",
          out);
}

/* Collects --set arguments; returns -1 on a usage error. */
static int take_set(int *i, int argc, char **argv, const char **sets, int *nsets, int maxsets)
{
    const char *a = argv[*i];
    const char *v = NULL;
    if (!strcmp(a, "--set")) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "lampsim: --set needs key.path=value\n");
            return -1;
        }
        v = argv[++*i];
    } else if (!strncmp(a, "--set=", 6)) {
        v = a + 6;
    } else {
        return 0;
    }
    if (*nsets >= maxsets) {
        fprintf(stderr, "lampsim: too many --set options\n");
        return -1;
    }
    sets[(*nsets)++] = v;
    return 1;
}

int ls_cli_validate(int argc, char **argv)
{
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int nsets = 0, nfiles = 0, build = 0, quiet = 0, rc = 0;
    if (!sets || !files) {
        free(sets);
        free(files);
        return 1;
    }
    for (int i = 1; i < argc; ++i) {
        int t = take_set(&i, argc, argv, sets, &nsets, argc);
        if (t < 0) {
            rc = 2;
            goto out;
        }
        if (t) continue;
        if (!strcmp(argv[i], "--build")) build = 1;
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) quiet = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            validate_usage(stdout);
            goto out;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            static const char *const known[] = {"--set", "--build", "--quiet", "--help", NULL};
            rc = ls_cli_unknown("lampsim validate", "option", argv[i], known);
            goto out;
        } else files[nfiles++] = argv[i];
    }
    if (!nfiles) {
        validate_usage(stderr);
        rc = 2;
        goto out;
    }
    for (int f = 0; f < nfiles; ++f) {
        char fpath[LS_CLI_PATH_MAX];
        const char *file = ls_cli_data_file(files[f], "configs", fpath, sizeof fpath);
        ls_config *cfg = malloc(sizeof *cfg);
        ls_config_diag *d = malloc(sizeof *d);
        if (!cfg || !d) {
            free(cfg);
            free(d);
            rc = 1;
            break;
        }
        int nproblems = 0;
        if (ls_config_load_all(cfg, file, sets, nsets, d, print_problem, &nproblems)) {
            if (!nproblems) fprintf(stderr, "%s\n", d->message); /* (out of memory) */
            ls_cli_data_hint("lampsim validate", file, "configs");
            if (nproblems > 1) fprintf(stderr, "%s: %d problems\n", file, nproblems);
            rc = 2;
        } else {
            print_warnings(file, d);
            int ok = 1;
            char cerr[2048];
            if (ls_run_check(cfg, cerr, sizeof cerr)) { /* what `run` would find before any data */
                fprintf(stderr, "%s: %s\n", file, cerr);
                rc = 2;
                ok = 0;
            }
            if (ok && build) {
                ls_attn_inputs in;
                ls_workload_info info;
                char err[2048];
                if (ls_workload_build(cfg, NULL, &in, &info, err, sizeof err)) {
                    fprintf(stderr, "%s: %s\n", file, err);
                    rc = 2;
                    ok = 0;
                } else {
                    if (!quiet) ls_workload_info_print(&info, stdout);
                    ls_attn_inputs_release(&in);
                }
            }
            if (ok && !quiet) printf("%s: ok\n", file);
        }
        ls_config_free(cfg);
        free(cfg);
        free(d);
    }
out:
    free(sets);
    free(files);
    return rc;
}

/* A number as the shortest text that reads back to it (integers without a fraction). */
static void num_text(double v, char *buf, size_t len)
{
    if (isnan(v)) {
        snprintf(buf, len, "%s", "");
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
}

/* The estimates of the preset valued in cfg, one tab-separated line each (stable columns). */
static int print_estimates(const ls_config *cfg)
{
    size_t n = ls_config_estimates(cfg, NULL, 0);
    ls_config_estimate *es = calloc(n ? n : 1, sizeof *es);
    if (!es) return 1;
    ls_config_estimates(cfg, es, n);
    printf("key\tvalue\tpreset\tlow\thigh\tnode\treasoning\n");
    for (size_t i = 0; i < n; ++i) {
        char v[40], pv[40], lo[40], hi[40];
        num_text(es[i].value, v, sizeof v);
        num_text(es[i].def, pv, sizeof pv);
        num_text(es[i].low, lo, sizeof lo);
        num_text(es[i].high, hi, sizeof hi);
        printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\n", es[i].key, v, pv, lo, hi, es[i].node ? es[i].node : "", es[i].reason);
    }
    free(es);
    return 0;
}

/* Every provenance entry with its value in cfg: enum, bool and number keys alike. */
static int print_sources(const ls_config *cfg)
{
    size_t n;
    const ls_config_provenance *p = ls_config_provenance_table(&n);
    printf("key\tkind\tvalue\tpreset\tlow\thigh\tnode\ttext\n");
    for (size_t i = 0; i < n; ++i) {
        const ls_config_schema_entry *e = ls_config_schema_find(p[i].key);
        const ls_config_provenance *q = ls_config_provenance_preset(cfg->accelerator.name, p[i].key);
        if (!q) q = &p[i];
        char v[64] = "", lo[40] = "", hi[40] = "";
        double x;
        if (ls_config_number(cfg, p[i].key, &x) == 0) num_text(x, v, sizeof v);
        else if (e && e->type == LS_CONFIG_T_BOOL) snprintf(v, sizeof v, "%s", *(const bool *)((const char *)cfg + e->offset) ? "true" : "false");
        else if (e && e->type == LS_CONFIG_T_ENUM) {
            int k;
            memcpy(&k, (const char *)cfg + e->offset, sizeof k);
            const char *nm = ls_config_enum_name(p[i].key, k);
            snprintf(v, sizeof v, "%s", nm ? nm : "?");
        }
        if (ls_config_prov_ranged(q->kind)) {
            num_text(q->low, lo, sizeof lo);
            num_text(q->high, hi, sizeof hi);
        }
        printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p[i].key, ls_config_prov_kind_name(q->kind), v, e ? e->def : "", lo, hi,
               q->node ? q->node : "", q->text);
    }
    return 0;
}

static void config_usage(FILE *out)
{
    fputs("usage: lampsim config --dump [FILE] [--set key.path=value]... [-o OUT]\n"
          "       lampsim config --explain KEY\n"
          "       lampsim config --list\n"
          "       lampsim config --docs [OUT]\n"
          "       lampsim config --estimates [FILE] [--set key.path=value]...\n"
          "       lampsim config --sources [FILE] [--set key.path=value]...\n"
          "  --dump     print the resolved configuration (the embedded default when FILE is omitted);\n"
          "             -o writes it atomically to OUT instead. Reloading it reproduces the run.\n"
          "  --explain  type, default, allowed values and meaning of a key, or the keys of a section\n"
          "  --list     every key with its type and default\n"
          "  --docs     the Markdown reference (docs/config.md is exactly this text)\n"
          "  --estimates  every estimate (and synthesized value) of the LampAttention preset, tab-separated with a header line:\n"
          "             key, value (in FILE, or the default), preset value, low, high, node, reasoning\n"
          "  --sources  every value's provenance, tab-separated: key, kind (source, estimate or synthesized), value,\n"
          "             preset value, low, high (empty for sources), node, source or reasoning\n",
          out);
}

int ls_cli_config(int argc, char **argv)
{
    enum { NONE, DUMP, EXPLAIN, LIST, DOCS, ESTIMATES, SOURCES } action = NONE;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    int nsets = 0, rc = 0;
    const char *file = NULL, *key = NULL, *outpath = NULL;
    if (!sets) return 1;
    for (int i = 1; i < argc; ++i) {
        int t = take_set(&i, argc, argv, sets, &nsets, argc);
        if (t < 0) {
            rc = 2;
            goto out;
        }
        if (t) continue;
        const char *a = argv[i];
        if (!strcmp(a, "--dump")) action = DUMP;
        else if (!strcmp(a, "--list")) action = LIST;
        else if (!strcmp(a, "--docs")) action = DOCS;
        else if (!strcmp(a, "--estimates")) action = ESTIMATES;
        else if (!strcmp(a, "--sources")) action = SOURCES;
        else if (!strcmp(a, "--explain")) {
            action = EXPLAIN;
            if (i + 1 >= argc) {
                fprintf(stderr, "lampsim config: --explain needs a key\n");
                rc = 2;
                goto out;
            }
            key = argv[++i];
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lampsim config: %s needs a file name\n", a);
                rc = 2;
                goto out;
            }
            outpath = argv[++i];
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            config_usage(stdout);
            goto out;
        } else if (a[0] == '-' && a[1]) {
            static const char *const known[] = {"--dump", "--explain", "--list", "--docs", "--set", "-o", "--output",
                                                "--help", NULL};
            rc = ls_cli_unknown("lampsim config", "option", a, known);
            goto out;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "lampsim config: unexpected argument '%s'\n", a);
            rc = 2;
            goto out;
        }
    }
    char fpath[LS_CLI_PATH_MAX];   /* a shipped configuration by name (lampsim config --dump h100) */
    if (action == DUMP || action == ESTIMATES || action == SOURCES) file = ls_cli_data_file(file, "configs", fpath, sizeof fpath);
    switch (action) {
    case NONE:
        config_usage(stderr);
        rc = 2;
        break;
    case EXPLAIN:
        rc = ls_config_explain(key, stdout, stderr) ? 2 : 0;
        break;
    case LIST:
        (void)ls_config_explain("", stdout, stderr);
        break;
    case DOCS: {
        char *md = ls_config_docs_markdown();
        if (!md) {
            rc = 1;
            break;
        }
        const char *dst = outpath ? outpath : file;
        if (dst) {
            char err[512];
            if (ls_atomic_file_write(dst, md, strlen(md), err, sizeof err)) {
                fprintf(stderr, "lampsim config: %s\n", err);
                rc = 1;
            }
        } else {
            fputs(md, stdout);
        }
        free(md);
        break;
    }
    case ESTIMATES:
    case SOURCES: {
        ls_config *cfg = malloc(sizeof *cfg);
        ls_config_diag *d = malloc(sizeof *d);
        if (!cfg || !d) {
            rc = 1;
        } else if (ls_config_load(cfg, file, sets, nsets, d)) {
            fprintf(stderr, "%s\n", d->message);
            ls_cli_data_hint("lampsim config", file, "configs");
            rc = 2;
        } else {
            print_warnings(file ? file : "<embedded default>", d);
            rc = action == ESTIMATES ? print_estimates(cfg) : print_sources(cfg);
        }
        free(cfg);
        free(d);
        break;
    }
    case DUMP: {
        ls_config *cfg = malloc(sizeof *cfg);
        ls_config_diag *d = malloc(sizeof *d);
        if (!cfg || !d) {
            free(cfg);
            free(d);
            rc = 1;
            break;
        }
        if (ls_config_load(cfg, file, sets, nsets, d)) {
            fprintf(stderr, "%s\n", d->message);
            ls_cli_data_hint("lampsim config", file, "configs");
            rc = 2;
        } else {
            print_warnings(file ? file : "<embedded default>", d);
            if (outpath) {
                char err[512];
                if (ls_config_write_resolved_file(cfg, outpath, err, sizeof err)) {
                    fprintf(stderr, "lampsim config: %s\n", err);
                    rc = 1;
                }
            } else if (ls_config_write_resolved(cfg, stdout)) {
                rc = 1;
            }
        }
        ls_config_free(cfg);
        free(cfg);
        free(d);
        break;
    }
    }
out:
    free(sets);
    return rc;
}
