/* sim/timed/timed_cost.c — the generated cost table checked against its CSV (see timed_cost.h). */
#include "timed_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the next comma-separated field of *p (NUL-terminated in place), NULL at the end */
static char *next_field(char **p)
{
    if (!*p) return NULL;
    char *f = *p, *c = strchr(f, ',');
    if (c) {
        *c = '\0';
        *p = c + 1;
    } else {
        *p = NULL;
    }
    return f;
}

int ls_cost_check_csv(const ls_cost_unit *t, int n, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    char line[2048];
    int row = 0, lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || strncmp(line, "unit,", 5) == 0 || line[0] == '\n') continue;
        if (row >= n) {
            snprintf(err, errlen, "%s:%d: a row the table lacks", path, lineno);
            rc = -1;
            break;
        }
        const ls_cost_unit *u = &t[row];
        const double num[11] = { u->cells, u->cell_area_um2, u->flops, u->area_um2, u->delay_ps, u->depth_cycles,
                                 u->leakage_nw, u->bits, u->word_bits, u->read_pj, u->write_pj };   /* CSV order */
        char *p = line, *field = next_field(&p);
        if (!field || strcmp(field, u->unit) != 0 || !(field = next_field(&p)) || strcmp(field, u->kind) != 0) {
            snprintf(err, errlen, "%s:%d: unit/kind differ from the table's row %d (%s, %s)", path, lineno, row, u->unit,
                     u->kind);
            rc = -1;
            break;
        }
        for (int k = 0; k < 11; k++) {
            field = next_field(&p);
            char *end;
            double v = field ? strtod(field, &end) : 0.0;
            if (!field || end == field || v != num[k]) {
                snprintf(err, errlen, "%s:%d: %s: field %d is %s, the table has %g", path, lineno, u->unit, k + 3,
                         field ? field : "(missing)", num[k]);
                rc = -1;
                break;
            }
        }
        row++;
    }
    fclose(f);
    if (rc == 0 && row != n) {
        snprintf(err, errlen, "%s: %d rows, the table has %d", path, row, n);
        rc = -1;
    }
    return rc;
}
