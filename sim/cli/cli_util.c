/* Helpers shared by the subcommands (cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "suggest.h"

int ls_cli_unknown(const char *cmd, const char *what, const char *arg, const char *const *known)
{
    char word[128];
    const char *eq = arg[0] == '-' ? strchr(arg, '=') : NULL; /* --sett=x: match --sett */
    snprintf(word, sizeof word, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
    const char *near = ls_suggest_nearest(word, known);
    if (near) fprintf(stderr, "%s: unknown %s '%s'; did you mean '%s'?\n", cmd, what, arg, near);
    else fprintf(stderr, "%s: unknown %s '%s' (%s --help lists them)\n", cmd, what, arg, cmd);
    return 2;
}
