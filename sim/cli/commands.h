/* Subcommands of the lampsim CLI. Each takes (argc, argv) with argv[0] the subcommand's name and
 * returns the process exit code: 0 success, 1 run failure, 2 bad usage or bad input. */
#ifndef LAMPSIM_CLI_COMMANDS_H
#define LAMPSIM_CLI_COMMANDS_H

int lscli_fp(int argc, char **argv);         /* cmd_fp.c */
int lscli_run(int argc, char **argv);        /* cmd_run.c */
int lscli_validate(int argc, char **argv);   /* cmd_config.c: nothing written on error (2) */
int lscli_config(int argc, char **argv);     /* cmd_config.c */
int lscli_model(int argc, char **argv);      /* cmd_model.c */
int lscli_sweep(int argc, char **argv);      /* cmd_sweep.c: expand | run | merge */
int lscli_report(int argc, char **argv);     /* cmd_report.c */
int lscli_compare(int argc, char **argv);    /* cmd_compare.c */

/* Shared by the commands: 1 if dir/name is a regular file. */
int lscli_is_file(const char *dir, const char *name);

#endif
