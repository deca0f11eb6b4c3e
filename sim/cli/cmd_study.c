/* `lampsim study`: the verdict at equal silicon (docs/studies.md, "The verdict"). The search and the
 * page are scripts/study.py (as `lampsim report` runs plot_sweep.py); every point it times is a sweep
 * point of `lampsim sweep run`, and every candidate design is charged here first:
 * `lampsim study cost CONFIG [--set K=V]... [--each FILE|-]` prints the area and leakage a run of the
 * configuration would report (sim/timed/timed_price.h), one JSON object per candidate. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "lsreglayout.h"
#include "timed_price.h"

static void study_usage(FILE *out)
{
    fputs("usage: lampsim study [SPEC.yaml] [-o DIR] [-j N] [--shard i/N] [--quick] [--page FILE] [--python PY]\n"
          "       lampsim study cost CONFIG [--set K=V]... [--each FILE|-]\n"
          "       lampsim study page DIR/summary.json [--write FILE]\n"
          "       lampsim study glance NAME=DIR/summary.json... [--write FILE]\n"
          "  For each contender of SPEC (default configs/studies/verdict.yaml: LampAttention compact/full/fp32,\n"
          "  FA2-16 with fp32 S, FP8 with fp32 accumulation, pure 8-bit), sizes the design axes (lanes, LUT,\n"
          "  SFU, buffer port, register file, buffer, contexts, stages, operand rows, tile) within each budget\n"
          "  (area mm2, power W) by a seeded coordinate descent, every candidate charged its cost, every point\n"
          "  run by `lampsim sweep run`; writes DIR/summary.json, DIR/verdict.html, DIR/figures/\n"
          "  (default DIR out/<study name>; re-running resumes).\n"
          "  -j N           worker processes of each sweep (default: all cores)\n"
          "  --shard i/N    run only shard i of every sweep, then stop (another runner finishes the rest;\n"
          "                 rerun without --shard to continue the search)\n"
          "  --quick        the spec's quick settings (a smaller search: tests)\n"
          "  --page FILE    rewrite the generated section of FILE (docs/studies.md) from the study\n"
          "  cost           the area (ASAP7 cost source and the published cross-check) and leakage of a configuration as a run would report them;\n"
          "                 --each: one candidate per line of K=V overrides (after the --set ones)\n"
          "  page           DIR/verdict.html and figures again from a finished study (--write: and FILE's block)\n"
          "  glance         one table per budget across finished studies, a column per (study NAME, regime);\n"
          "                 --write: FILE's <!-- study-glance --> block (docs/studies.md), else stdout\n"
          "See docs/studies.md.\n",
          out);
}

static int print_cost(const char *path, const char **sets, int nsets, FILE *out, char *msg, size_t msglen)
{
    ls_config *cfg = malloc(sizeof *cfg);
    ls_config_diag *diag = malloc(sizeof *diag);
    int rc = 0;
    if (!cfg || !diag) {
        snprintf(msg, msglen, "out of memory");
        rc = 1;
        goto out;
    }
    if (ls_config_load(cfg, path, sets, nsets, diag)) {
        snprintf(msg, msglen, "%s", diag->message);
        rc = 2;
        goto out;
    }
    ls_area a;
    int layout = 0;
    if (ls_timed_price_of(cfg, &a, &layout, msg, msglen)) rc = 2;
    else
        fprintf(out, "{\"area_mm2\": %.17g, \"published_area_mm2\": %.17g, \"leakage_w\": %.17g, \"core_mm2\": %.17g, "
                     "\"layout\": \"%s\"}\n",
                a.total_mm2, a.published_total_mm2, a.leakage_w, a.core_mm2, lsregfile_layout_name(layout));
    ls_config_free(cfg);
out:
    free(cfg);
    free(diag);
    return rc;
}

/* A JSON string of s (quotes, backslashes and control characters escaped). */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(out, "\\u%04x", (unsigned char)*s);
        else fputc(*s, out);
    }
    fputc('"', out);
}

static int study_cost(int argc, char **argv)
{
    const char *path = NULL, *each = NULL;
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    int nsets = 0, rc = 0;
    if (!sets) return 1;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "--set") || !strcmp(argv[i], "--each")) && i + 1 >= argc) {
            fprintf(stderr, "lampsim study cost: missing value after %s\n", argv[i]);
            rc = 2;
            goto out;
        }
        if (!strcmp(argv[i], "--set")) sets[nsets++] = argv[++i];
        else if (!strcmp(argv[i], "--each")) each = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            study_usage(stdout);
            goto out;
        } else if (argv[i][0] == '-') {
            static const char *const known[] = {"--set", "--each", "--help", NULL};
            rc = ls_cli_unknown("lampsim study cost", "option", argv[i], known);
            goto out;
        } else if (path) {
            fprintf(stderr, "lampsim study cost: one configuration file at most ('%s' and '%s')\n", path, argv[i]);
            rc = 2;
            goto out;
        } else path = argv[i];
    }
    char msg[2048] = "";
    if (!each) {
        rc = print_cost(path, sets, nsets, stdout, msg, sizeof msg);
        if (rc) fprintf(stderr, "lampsim study cost: %s\n", msg);
        goto out;
    }
    FILE *in = strcmp(each, "-") ? fopen(each, "r") : stdin;
    if (!in) {
        fprintf(stderr, "lampsim study cost: %s: cannot open\n", each);
        rc = 2;
        goto out;
    }
    /* one candidate per line: its overrides after the common ones; a refused candidate is an error
     * line (the search skips it), not the end of the batch */
    char *line = NULL;
    size_t cap = 0;
    const char **all = NULL;
    while (getline(&line, &cap, in) >= 0) {
        int n = nsets, max = nsets + (int)strlen(line) / 2 + 2;
        const char **grown = realloc(all, (size_t)max * sizeof *all);
        if (!grown) { rc = 1; break; }
        all = grown;
        memcpy(all, sets, (size_t)nsets * sizeof *all);
        for (char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save))
            all[n++] = tok;
        int r = print_cost(path, all, n, stdout, msg, sizeof msg);
        if (r == 1) { rc = 1; break; }
        if (r) {
            fputs("{\"error\": ", stdout);
            json_string(stdout, msg);
            fputs("}\n", stdout);
        }
    }
    free(all);
    free(line);
    if (in != stdin) fclose(in);
    if (fflush(stdout)) rc = 1;
out:
    free(sets);
    return rc;
}

int ls_cli_study(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "cost")) return study_cost(argc - 1, argv + 1);
    if (argc > 1 && (!strcmp(argv[1], "page") || !strcmp(argv[1], "glance")))   /* from finished studies' summaries */
        return ls_cli_run_script("study", "study.py", "LAMPSIM_STUDY_SCRIPT", argv[1], "python3-numpy, python3-yaml, python3-matplotlib",
                                 argc - 1, argv + 1);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            study_usage(stdout);
            return 0;
        }
    return ls_cli_run_script("study", "study.py", "LAMPSIM_STUDY_SCRIPT", "run", "python3-numpy, python3-yaml, python3-matplotlib",
                             argc, argv);
}
