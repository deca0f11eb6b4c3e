/* `lampsim validate` and `lampsim config`: argv[0] is the subcommand name. Both return the
 * process exit code: 0 success, 2 configuration/usage error (nothing written), 1 I/O failure. */
#ifndef LAMPSIM_CLI_CMD_CONFIG_H
#define LAMPSIM_CLI_CMD_CONFIG_H
int lscli_validate(int argc, char **argv);
int lscli_config(int argc, char **argv);
#endif
