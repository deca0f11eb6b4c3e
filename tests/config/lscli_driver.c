/* Test driver for the CLI functions of sim/cli/cmd_config.c: `lscli_driver validate ...` and
 * `lscli_driver config ...` behave like `lampsim validate ...` and `lampsim config ...`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: lscli_driver validate|config ...\n");
        return 2;
    }
    if (!strcmp(argv[1], "validate")) return ls_cli_validate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "config")) return ls_cli_config(argc - 1, argv + 1);
    fprintf(stderr, "lscli_driver: unknown command '%s'\n", argv[1]);
    return 2;
}
