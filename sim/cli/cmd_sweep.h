/* `lampsim sweep expand|run|merge`, `lampsim report DIR`, `lampsim compare DIR...` (docs/sweeps.md). */
#ifndef LAMPSIM_CLI_CMD_SWEEP_H
#define LAMPSIM_CLI_CMD_SWEEP_H

int lscli_sweep(int argc, char **argv);
int lscli_report(int argc, char **argv);
int lscli_compare(int argc, char **argv);

#endif
