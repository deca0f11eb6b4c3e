/* Subcommands of the lampsim CLI. Each takes (argc, argv) with argv[0] the subcommand's name and
 * returns the process exit code: 0 success, 1 run failure, 2 bad usage or bad input. */
#ifndef LAMPSIM_CLI_COMMANDS_H
#define LAMPSIM_CLI_COMMANDS_H

int lscli_fp(int argc, char **argv);
int lscli_run(int argc, char **argv);
int lscli_validate(int argc, char **argv);
int lscli_config(int argc, char **argv);
int lscli_model(int argc, char **argv);

#endif
