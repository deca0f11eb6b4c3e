/* lampsim — command-line entry point: dispatches to one subcommand per file. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lampsim_version.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command k_commands[] = {
    {"run", ls_cli_run, "run a configuration (default: the embedded one) and report"},
    {"validate", ls_cli_validate, "check configuration files without running them"},
    {"config", ls_cli_config, "show the resolved configuration (--dump) or explain a key (--explain)"},
    {"sweep", ls_cli_sweep, "expand, run (parallel, resumable, sharded) and merge sweeps of configurations"},
    {"report", ls_cli_report, "write report.html (tables and figures) for a run or sweep directory"},
    {"compare", ls_cli_compare, "side-by-side table of runs: cycles, speedup, utilisation, recompute, accuracy"},
    {"sensitivity", ls_cli_sensitivity, "how much metrics and ratios depend on the estimates (one at a time, Morris)"},
    {"study", ls_cli_study, "the verdict at equal silicon: each contender sized within an area or power budget"},
    {"trace", ls_cli_trace, "from a checkpoint and a text: traces, statistics, fits, a model description, a study"},
    {"model", ls_cli_model, "model-level cycles: every layer of a model description through the timed model"},
    {"workload", ls_cli_workload, "attention statistics of workloads and traces (stats); fit the heads generator (fit)"},
    {"fp", ls_cli_fp, "explore the number formats: round, encode, decode, table, lut, dot"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: lampsim [--version] <command> [args]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        fprintf(out, "  %-10s %s\n", k_commands[i].name, k_commands[i].summary);
    fprintf(out, "\n'lampsim help <command>' (or 'lampsim <command> --help') describes a command.\n"
                 "Exit status: 0 success, 1 run-time failure, 2 usage or input error (nothing written),\n"
                 "130 interrupted sweep.\n");
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        if (!strcmp(name, k_commands[i].name)) return &k_commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[sizeof k_commands / sizeof k_commands[0] + 3];
    size_t n = 0;
    for (; n < sizeof k_commands / sizeof k_commands[0]; n++) names[n] = k_commands[n].name;
    names[n++] = "help";
    names[n++] = "version";
    names[n] = NULL;
    return ls_cli_unknown("lampsim", "command", name, names);
}

/* `lampsim help CMD [SUB]`: CMD's own --help (lampsim help sweep run: `sweep run --help`). */
static int help(int argc, char **argv)
{
    if (argc < 1) {
        usage(stdout);
        return 0;
    }
    const command *c = find_command(argv[0]);
    if (!c) return unknown_command(argv[0]);
    char *args[8];
    int n = 0;
    for (int i = 0; i < argc && n < 6; i++) args[n++] = argv[i];
    args[n++] = "--help";
    args[n] = NULL;
    return c->run(n, args);
}

int main(int argc, char **argv)
{
    if (argc < 2) { usage(stderr); return 2; }
    /* a file-size limit (ulimit -f, set by batch systems) makes a write fail with EFBIG, which is
     * reported and cleaned up like a full disk, instead of killing the process mid-write (SIGXFSZ
     * leaves a temporary behind and prints nothing) */
    signal(SIGXFSZ, SIG_IGN);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("lampsim %s (git %s)\n", LAMPSIM_VERSION, LAMPSIM_GIT_REV);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "help")) return help(argc - 2, argv + 2);
    const command *c = find_command(argv[1]);
    if (c) return c->run(argc - 1, argv + 1);
    if (argv[1][0] == '-') {
        static const char *const opts[] = {"--version", "--help", NULL};
        return ls_cli_unknown("lampsim", "option", argv[1], opts);
    }
    return unknown_command(argv[1]);
}
