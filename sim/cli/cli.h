/* Subcommands of the lampsim CLI. Each takes (argc, argv) with argv[0] the subcommand's name and
 * returns the process exit code (docs/quickstart.md, "Exit status"):
 *   0    success
 *   1    run-time failure: the input was valid but the work failed (a write, a sweep point,
 *        the plotting script, out of memory)
 *   2    usage or input error, found before any work: unknown command or option, missing or
 *        extra argument, a bad configuration, sweep or model file (file:line:col), an output
 *        directory refused; nothing is written
 *   130  sweep run interrupted (SIGINT, SIGTERM; re-running resumes) */
#ifndef LAMPSIM_CLI_CLI_H
#define LAMPSIM_CLI_CLI_H
#include <stddef.h>

int ls_cli_fp(int argc, char **argv);         /* cmd_fp.c */
int ls_cli_run(int argc, char **argv);        /* cmd_run.c */
int ls_cli_validate(int argc, char **argv);   /* cmd_config.c: nothing written on error (2) */
int ls_cli_config(int argc, char **argv);     /* cmd_config.c */
int ls_cli_model(int argc, char **argv);      /* cmd_model.c */
int ls_cli_sweep(int argc, char **argv);      /* cmd_sweep.c: expand | run | merge */
int ls_cli_report(int argc, char **argv);     /* cmd_report.c */
int ls_cli_compare(int argc, char **argv);    /* cmd_compare.c */
int ls_cli_workload(int argc, char **argv);   /* cmd_workload.c: stats | fit */
int ls_cli_sensitivity(int argc, char **argv); /* cmd_sensitivity.c */
int ls_cli_study(int argc, char **argv);       /* cmd_study.c: the search is scripts/study.py */
int ls_cli_trace(int argc, char **argv);       /* cmd_trace.c: scripts/trace_checkpoint.py */

/* Shared by the commands: 1 if dir/name is a regular file. */
int ls_cli_is_file(const char *dir, const char *name);
/* cli_util.c: "CMD: unknown WHAT 'ARG'; did you mean 'X'?" on stderr, X the nearest of the
 * NULL-terminated known (only ARG's part before '=' is compared); returns 2. */
int ls_cli_unknown(const char *cmd, const char *what, const char *arg, const char *const *known);
/* cli_util.c: a configuration, sweep or model file named on the command line. arg itself when it
 * exists (or is absolute); else a shipped file from the installed data (PREFIX/share/lampsim), the
 * tree above a build-directory binary or the source tree: a bare NAME as SUB/NAME.yaml (SUB
 * "configs", "configs/sweeps", "workloads/models"), a path under configs/ or workloads/ as that
 * path. Returns arg (not found: the loader names it) or out. */
#define LS_CLI_PATH_MAX 4096
const char *ls_cli_data_file(const char *arg, const char *sub, char *out, size_t len);
/* After a load error: when arg is no file, a hint on stderr where shipped files are found. */
void ls_cli_data_hint(const char *cmd, const char *arg, const char *sub);
/* cmd_report.c: scripts/NAME ($ENV_VAR when set, next to the binary, or the source tree); 0 or -1. */
int ls_cli_find_script(const char *name, const char *env_var, char *out, size_t len);
/* cmd_report.c: runs args[0] with args (NULL-terminated) and waits; its exit status, or -1. */
int ls_cli_run_python(char *const *args);
/* cmd_report.c: `lampsim CMD ...` as `PY scripts/NAME [VERB] --lampsim THIS_BINARY ARGS...` (PY: --python,
 * $LAMPSIM_PYTHON or /usr/bin/python3; the script found by ls_cli_find_script with ENV_VAR; PACKAGES
 * named when PY is missing); the script's exit status. */
int ls_cli_run_script(const char *cmd, const char *name, const char *env_var, const char *verb, const char *packages,
                      int argc, char **argv);
/* cmd_sensitivity.c: DIR/sensitivity.html from DIR's CSVs (scripts/plot_sensitivity.py run by py); 0, -2 for a
 * damaged input (the script named the file) or -1
 * with a message on stderr. */
int ls_cli_sensitivity_html(const char *dir, const char *py);

#endif
