/* `lampsim run [CONFIG] [--set key=value]... [-o DIR] [--force] [--save-o] [--quiet]` */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "run.h"

static void run_usage(FILE *out)
{
    fputs("usage: lampsim run [CONFIG] [--set key.path=value]... [-o DIR] [--force] [--save-o] [--save-records] [--golden] [--quiet]\n"
          "                   [--progress | --no-progress] [--progress-every SECONDS]\n"
          "  CONFIG         YAML configuration (default: the embedded configs/default.yaml)\n"
          "  --set K=V      override one key after the file (repeatable; `lampsim config --explain K`)\n"
          "  -o DIR         write config.resolved.yaml, report.json, report.csv, run_info.json to DIR\n"
          "  --force        allow DIR to be non-empty (files are replaced atomically)\n"
          "  --save-o       also write O.npy and the fp64 reference O_ref.npy\n"
          "  --save-records also write records.npy (per-tile records, float32 [n_records, 4]) and, in mode\n"
          "                 lamp_code, lamp_code_mask.npy (per-logit selection, [batch, heads_q, seq_q, seq_k])\n"
          "  --golden       run the golden engine only (same as --set timed.enabled=false)\n"
          "  --quiet        no summary on stdout, no progress on stderr\n"
          "  --progress     progress as one live line on stderr (default when stderr is a terminal)\n"
          "  --no-progress  progress as plain lines on stderr (default otherwise)\n"
          "  --progress-every S  seconds between progress updates (default 10 plain, 0.5 live)\n",
          out);
}

int ls_cli_run(int argc, char **argv)
{
    const char **sets = calloc((size_t)argc + 1, sizeof *sets);
    const char *config_path = NULL;
    ls_run_opts opts = {0};
    opts.progress = LS_RUN_PROGRESS_AUTO;
    int nsets = 0, rc = 0;
    ls_config *cfg = NULL;
    ls_config_diag *diag = NULL;
    if (!sets) return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--set") || !strcmp(a, "-o")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lampsim run: missing value after %s\n", a);
                rc = 2;
                goto out;
            }
            if (a[1] == 'o') opts.out_dir = argv[++i];
            else sets[nsets++] = argv[++i];
        } else if (!strncmp(a, "--set=", 6)) sets[nsets++] = a + 6;
        else if (!strcmp(a, "--force")) opts.force = true;
        else if (!strcmp(a, "--golden")) sets[nsets++] = "timed.enabled=false";
        else if (!strcmp(a, "--save-o")) opts.save_o = true;
        else if (!strcmp(a, "--save-records")) opts.save_records = true;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) opts.quiet = true;
        else if (!strcmp(a, "--progress")) opts.progress = LS_RUN_PROGRESS_LIVE;
        else if (!strcmp(a, "--no-progress")) opts.progress = LS_RUN_PROGRESS_LINES;
        else if (!strcmp(a, "--progress-every")) {
            if (i + 1 >= argc || ls_run_progress_parse_period(argv[i + 1], &opts.progress_period)) {
                fprintf(stderr, "lampsim run: --progress-every: expected seconds in (0, 86400], got '%s'\n",
                        i + 1 < argc ? argv[i + 1] : "");
                rc = 2;
                goto out;
            }
            i++;
        }
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            run_usage(stdout);
            goto out;
        } else if (a[0] == '-' && a[1]) {
            static const char *const known[] = {"--set", "-o", "--force", "--save-o", "--save-records", "--golden",
                                                "--quiet", "--progress", "--no-progress", "--progress-every",
                                                "--help", NULL};
            rc = ls_cli_unknown("lampsim run", "option", a, known);
            goto out;
        } else if (config_path) {
            fprintf(stderr, "lampsim run: one configuration file at most ('%s' and '%s')\n", config_path, a);
            rc = 2;
            goto out;
        } else config_path = a;
    }
    cfg = malloc(sizeof *cfg);
    diag = malloc(sizeof *diag);
    if (!cfg || !diag) { rc = 1; goto out; }
    char cpath[LS_CLI_PATH_MAX];
    config_path = ls_cli_data_file(config_path, "configs", cpath, sizeof cpath);   /* `lampsim run lampattention` */
    if (ls_config_load(cfg, config_path, sets, nsets, diag)) {
        fprintf(stderr, "%s\n", diag->message);
        ls_cli_data_hint("lampsim run", config_path, "configs");
        rc = 2;
        goto out;
    }
    for (int w = 0; w < diag->n_warnings && w < LS_CONFIG_DIAG_MAX_WARN; w++) fprintf(stderr, "warning: %s\n", diag->warnings[w]);
    char err[2048] = "";
    rc = ls_run(cfg, &opts, err, sizeof err);
    if (rc) fprintf(stderr, "lampsim run: %s\n", err);
    ls_config_free(cfg);
out:
    free(cfg);
    free(diag);
    free(sets);
    return rc;
}
