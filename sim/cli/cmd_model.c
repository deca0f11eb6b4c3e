/* `lampsim model MODEL.yaml [--set key=value]... [-o DIR] [--force] [--quiet]`: model-level cycles. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "model.h"

static void model_usage(FILE *out)
{
    fputs("usage: lampsim model MODEL.yaml [--set key.path=value]... [-o DIR] [--force] [--quiet]\n"
          "  MODEL.yaml     model description: layers, heads, head dim, prefill/decode lengths, traces\n"
          "                 (docs/models.md)\n"
          "  --set K=V      configuration override for every layer (after the model file's `set`)\n"
          "  -o DIR         write report.json, report.csv and layers.csv to DIR (the run report's schema:\n"
          "                 lampsim compare and lampsim report read it)\n"
          "  --force        replace an existing DIR/report.json\n"
          "  --quiet        no table on stdout\n",
          out);
}

static int write_outputs(const char *dir, int force, const ls_model *m, const ls_model_result *r)
{
    char path[4096], err[1024] = "";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "lampsim model: %s: cannot create directory: %s\n", dir, strerror(errno));
        return 2;
    }
    snprintf(path, sizeof path, "%s/report.json", dir);
    if (!force && access(path, F_OK) == 0) {
        fprintf(stderr, "lampsim model: %s exists (use --force to replace it)\n", path);
        return 2;
    }
    char *json = ls_model_report_json(m, r), *csv = ls_model_layers_csv(r), *rcsv = ls_model_report_csv(m, r);
    int rc = 1;
    if (json && csv && rcsv) {
        snprintf(path, sizeof path, "%s/layers.csv", dir);
        if (!ls_atomic_file_write(path, csv, strlen(csv), err, sizeof err)) {
            snprintf(path, sizeof path, "%s/report.csv", dir);
            if (!ls_atomic_file_write(path, rcsv, strlen(rcsv), err, sizeof err)) {
                /* report.json last: its presence marks a complete result */
                snprintf(path, sizeof path, "%s/report.json", dir);
                if (!ls_atomic_file_write(path, json, strlen(json), err, sizeof err)) rc = 0;
            }
        }
    } else snprintf(err, sizeof err, "out of memory");
    if (rc) fprintf(stderr, "lampsim model: %s\n", err);
    free(json);
    free(csv);
    free(rcsv);
    return rc;
}

int ls_cli_model(int argc, char **argv)
{
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    const char *file = NULL, *out_dir = NULL;
    int nsets = 0, force = 0, quiet = 0, rc = 0;
    if (!sets) return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--set") || !strcmp(a, "-o")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lampsim model: missing value after %s\n", a);
                free(sets);
                return 2;
            }
            if (a[1] == 'o') out_dir = argv[++i];
            else sets[nsets++] = argv[++i];
        } else if (!strcmp(a, "--force")) force = 1;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) quiet = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            model_usage(stdout);
            free(sets);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            static const char *const known[] = {"--set", "-o", "--force", "--quiet", "--help", NULL};
            free(sets);
            return ls_cli_unknown("lampsim model", "option", a, known);
        } else if (file) {
            fprintf(stderr, "lampsim model: one model file at most ('%s' and '%s')\n", file, a);
            free(sets);
            return 2;
        } else file = a;
    }
    if (!file) {
        model_usage(stderr);
        free(sets);
        return 2;
    }
    ls_model *m = calloc(1, sizeof *m);
    ls_model_result r;
    memset(&r, 0, sizeof r);
    char err[2048] = "", fpath[LS_CLI_PATH_MAX];
    file = ls_cli_data_file(file, "workloads/models", fpath, sizeof fpath);   /* a shipped model by name */
    if (!m) rc = 1;
    else if ((rc = ls_model_load(m, file, err, sizeof err))) {
        fprintf(stderr, "lampsim model: %s\n", err);
        ls_cli_data_hint("lampsim model", file, "workloads/models");
    }
    else if ((rc = ls_model_run(m, sets, nsets, quiet ? NULL : stderr, &r, err, sizeof err)))
        fprintf(stderr, "lampsim model: %s\n", err);
    else {
        if (!quiet) {
            ls_model_summary(stdout, m, &r);
            printf("wall      %.3f s\n", r.wall_seconds);
        }
        if (out_dir) rc = write_outputs(out_dir, force, m, &r);
    }
    ls_model_result_free(&r);
    if (m) ls_model_free(m);
    free(m);
    free(sets);
    return rc;
}
