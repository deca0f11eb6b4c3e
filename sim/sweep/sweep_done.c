/* sim/sweep/sweep_done.c — what a point's DONE marker vouches for: the configuration's id and
 * the identity of the input files the configuration only names (sweep.h). No simulator behind it,
 * so the fuzz target of damaged sweep directories reads DONE markers through it as well. */
#define _GNU_SOURCE /* open_memstream */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io.h"
#include "sweep.h"

static const char *const input_keys[] = { "workload.trace.q", "workload.trace.k", "workload.trace.v",
                                          "workload.trace.safetensors", "timed.program" };
enum { N_INPUT_KEYS = sizeof input_keys / sizeof *input_keys };

char *ls_sweep_input_identity(const ls_config *cfg)
{
    const ls_config_workload *w = &cfg->workload;
    const bool trace = w->generator == LS_CONFIG_GEN_TRACE;
    const char *const path[N_INPUT_KEYS] = { trace ? w->trace.q : "", trace ? w->trace.k : "", trace ? w->trace.v : "",
                                             trace ? w->trace.safetensors : "", cfg->timed.enabled ? cfg->timed.program : "" };
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return NULL;
    for (int i = 0; i < N_INPUT_KEYS; i++) {
        if (!path[i][0]) continue;
        struct stat st;
        if (stat(path[i], &st) != 0) fprintf(m, "input %s missing\n", input_keys[i]);
        else
            fprintf(m, "input %s %lld %lld.%09ld\n", input_keys[i], (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                    (long)st.st_mtim.tv_nsec);
    }
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* What identity text records for KEY ("SIZE MTIME", "missing"; "not used" without its line). */
static void input_value(const char *text, const char *key, char *out, size_t outlen)
{
    size_t kl = strlen(key);
    snprintf(out, outlen, "not used");
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        if (n > 7 + kl && !strncmp(l, "input ", 6) && !strncmp(l + 6, key, kl) && l[6 + kl] == ' ') {
            snprintf(out, outlen, "%.*s", (int)(n - 7 - kl), l + 7 + kl);
            return;
        }
        l = nl ? nl + 1 : NULL;
    }
}

char *ls_sweep_done_stale(const char *pdir, const char *id, const char *ident)
{
    char *p = ls_io_path_join(pdir, "DONE");
    char *t = p ? ls_sweep_read_file(p, NULL) : NULL;
    free(p);
    if (!t) return NULL;   /* gone meanwhile: no longer DONE, which the caller sees */
    char *why = NULL;
    const char *l2 = strchr(t, '\n'), *rest = l2 ? strchr(l2 + 1, '\n') : NULL;
    rest = rest ? rest + 1 : "";
    size_t idl = l2 ? (size_t)(l2 - t) : strlen(t);
    if (!l2 || !strchr(l2 + 1, '\n') || l2[1] == '\n') {   /* "<id>\n<how>\n" at least, every line complete */
        why = ls_io_path_fmt("its DONE marker is incomplete (a point's marker is its id and how it was computed, "
                             "each on a line ending in a newline)");
    } else if (idl != strlen(id) || strncmp(t, id, idl)) {
        why = ls_io_path_fmt("its DONE marker is of configuration %.*s, not %s (the sweep's base or an include changed)",
                             (int)(idl < 40 ? idl : 40), t, id);
    } else if (strcmp(rest, ident)) {
        char then[96], now[96];
        for (int i = 0; i < N_INPUT_KEYS && !why; i++) {
            input_value(rest, input_keys[i], then, sizeof then);
            input_value(ident, input_keys[i], now, sizeof now);
            if (strcmp(then, now))
                why = ls_io_path_fmt("%s changed since the point was computed (size and mtime then: %s; now: %s)",
                                     input_keys[i], then, now);
        }
        if (!why) why = ls_io_path_fmt("its DONE marker records other input files");
    }
    free(t);
    return why;
}

