/* Helpers shared by the subcommands (cli.h). */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The directories that may hold the shipped configs/ and workloads/, in order: the installed data
 * beside the binary (PREFIX/bin/../share/lampsim), the tree above a build-directory binary, the
 * source tree the binary was built from. Writes the i-th that exists to out; 0, or -1 past the end. */
static int data_dir(int i, char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *cand[3] = {NULL, NULL, NULL};
    char a[PATH_MAX + 32] = "", b[PATH_MAX + 32] = "";
    if (n > 0) {
        exe[n] = '\0';
        char *s = strrchr(exe, '/');
        if (s) *s = '\0';
        snprintf(a, sizeof a, "%s/../share/lampsim", exe);
        snprintf(b, sizeof b, "%s/..", exe);
        cand[0] = a;
        cand[1] = b;
    }
#ifdef LAMPSIM_SOURCE_DIR
    cand[2] = LAMPSIM_SOURCE_DIR;
#endif
    for (int k = 0, found = 0; k < 3; k++) {
        char probe[PATH_MAX + 64];
        struct stat sb;
        if (!cand[k]) continue;
        snprintf(probe, sizeof probe, "%s/configs/default.yaml", cand[k]);
        if (stat(probe, &sb) || !S_ISREG(sb.st_mode)) continue;
        if (found++ == i) {
            char *r = realpath(cand[k], NULL);
            snprintf(out, len, "%s", r ? r : cand[k]);
            free(r);
            return 0;
        }
    }
    return -1;
}

const char *ls_cli_data_file(const char *arg, const char *sub, char *out, size_t len)
{
    struct stat sb;
    if (!arg || !*arg || !stat(arg, &sb) || arg[0] == '/') return arg;
    bool bare = !strchr(arg, '/');
    bool shipped = !strncmp(arg, "configs/", 8) || !strncmp(arg, "workloads/", 10);
    if (!bare && !shipped) return arg;
    size_t al = strlen(arg);
    bool yaml = al > 5 && !strcmp(arg + al - 5, ".yaml");
    char dir[PATH_MAX];
    for (int i = 0; !data_dir(i, dir, sizeof dir); i++) {
        if (bare) snprintf(out, len, "%s/%s/%s%s", dir, sub, arg, yaml ? "" : ".yaml");
        else snprintf(out, len, "%s/%s", dir, arg);
        if (!stat(out, &sb) && S_ISREG(sb.st_mode)) return out;
    }
    return arg;
}

void ls_cli_data_hint(const char *cmd, const char *arg, const char *sub)
{
    struct stat sb;
    if (!arg || !stat(arg, &sb)) return;   /* it exists: its error is about its content */
    char dir[PATH_MAX];
    if (data_dir(0, dir, sizeof dir))
        fprintf(stderr, "%s: hint: '%s' is not a file here, and no shipped data was found beside the binary "
                "(BIN/../share/lampsim/configs; run `make install`, or give the file's path)\n", cmd, arg);
    else
        fprintf(stderr, "%s: hint: '%s' is not a file here, nor a shipped one: shipped files are found by name "
                "(%s/NAME.yaml: `lampsim run lampattention`) or by their path in the source tree (configs/h100.yaml, "
                "workloads/...) from any directory, in %s\n", cmd, arg, sub, dir);
}
