/* Fuzz target: the YAML configuration loader (libyaml, schema, includes, workload files,
 * overrides, cross-key checks) and the resolved-YAML round trip. Any crash, sanitizer report or
 * round-trip mismatch is a finding. Relative paths resolve in a real directory holding files to
 * include and workload files (fuzz_basedir.c). */
#define _XOPEN_SOURCE 700
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz_basedir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef LAMPSIM_FUZZ_STANDALONE
/* built from the sources without the generated default; the fuzzer never loads it */
const char ls_config_default_yaml[] = "";
#endif

/* ls_config_load_string_all's problem callback: counts, and keeps the first message. */
typedef struct {
    int n;
    char first[sizeof ((ls_config_diag *)0)->message];
} problems;

static void note_problem(const char *message, void *ud)
{
    problems *p = ud;
    if (!p->n++) snprintf(p->first, sizeof p->first, "%s", message);
}

/* Reporting every problem agrees with stopping at the first: the same verdict, the same first
 * message, at least one problem exactly when loading fails. */
static void check_load_all(const uint8_t *data, size_t size, const char *base, const char *const *ovs, int novs)
{
    static ls_config cfg;
    static ls_config_diag first, all;
    static problems p;
    memset(&p, 0, sizeof p);
    int rc1 = ls_config_load_string(&cfg, (const char *)data, size, "fuzz.yaml", base, ovs, novs, &first);
    int rc2 = ls_config_load_string_all(&cfg, (const char *)data, size, "fuzz.yaml", base, ovs, novs, &all, note_problem, &p);
    if (rc1 != rc2 || (rc1 != 0) != (p.n > 0) || (rc1 && (strcmp(first.message, all.message) ||
                                                          strcmp(first.message, p.first)))) {
        fprintf(stderr, "load_all disagrees with load: rc %d vs %d, %d problems\nfirst: %s\nall:   %s\ncb:    %s\n",
                rc1, rc2, p.n, first.message, all.message, p.first);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ls_config cfg, cfg2;
    static ls_config_diag diag;
    /* the first line may also serve as a --set override */
    char ov[128];
    size_t n = 0;
    while (n < size && n < sizeof ov - 1 && data[n] != '\n' && data[n] != '\0') {
        ov[n] = (char)data[n];
        n++;
    }
    ov[n] = '\0';
    const char *ovs[1] = {ov};
    const char *base = fuzz_base_dir();
    check_load_all(data, size, base, ovs, 1);
    if (ls_config_load_string(&cfg, (const char *)data, size, "fuzz.yaml", base, NULL, 0, &diag) != 0) return 0;
    /* valid: the resolved dump must reload to the same configuration */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return 0;
    ls_config_write_resolved(&cfg, f);
    fclose(f);
    if (ls_config_load_string(&cfg2, buf, len, "resolved.yaml", "/", NULL, 0, &diag) != 0) {
        fprintf(stderr, "resolved config does not reload: %s\n%s\n", diag.message, buf);
        abort();
    }
    char diff[512];
    if (!ls_config_equal(&cfg, &cfg2, diff, sizeof diff)) {
        fprintf(stderr, "resolved config reloads differently: %s\n", diff);
        abort();
    }
    free(buf);
    return 0;
}
