/* The DONE marker as a resume reads it (docs/sweeps.md: "<id>\n<how>\n" then one line per input
 * file, every line ending in a newline): a marker cut short (no final newline, or no second line)
 * does not vouch for its point (issue #39 D8: fuzz_sweepdir found "<id>\n-" accepted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sweep.h"

static char dir[1024];

/* ls_sweep_done_stale of a DONE holding text: NULL when it vouches (freed here). */
static int vouches(const char *text, const char *ident)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/DONE", dir);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, strlen(text), f) != strlen(text) || fclose(f)) return -1;
    char *why = ls_sweep_done_stale(dir, "08664f2c40029f5d", ident);
    int ok = !why;
    if (why && !why[0]) ok = -1;   /* a reason is never empty */
    free(why);
    return ok;
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    static const char ident[] = "input timed.program missing\n";
    CHECK(vouches("08664f2c40029f5d\n-\n", "") == 1);
    CHECK(vouches("08664f2c40029f5d\nreplay\n", "") == 1);
    CHECK(vouches("08664f2c40029f5d\n-\ninput timed.program missing\n", ident) == 1);
    /* the fuzzer's input: the second line without its newline */
    CHECK(vouches("08664f2c40029f5d\n-", "") == 0);
    CHECK(vouches("08664f2c40029f5d\n", "") == 0);
    CHECK(vouches("08664f2c40029f5d", "") == 0);
    CHECK(vouches("08664f2c40029f5d\n\n", "") == 0);   /* an empty how line */
    CHECK(vouches("08664f2c40029f5d\n-\ninput timed.program missing", ident) == 0);
    CHECK(vouches("0000000000000000\n-\n", "") == 0);
    CHECK_DONE();
}
