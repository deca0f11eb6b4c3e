/* DIR/objective.tsv (written by the runner, read by the merger) and the choice of one winner per
 * group of merged points. Plain files and strings only: nothing here runs the simulator. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_dir.h"
#include "sweep.h"

static void keys_line(FILE *m, const char *what, const ls_sweep *sw, const int *idx, int n)
{
    fputs(what, m);
    for (int i = 0; i < n; i++) fprintf(m, "\t%s", sw->axes[idx[i]].key);
    fputc('\n', m);
}

char *ls_sweep_objective_text(const ls_sweep *sw)
{
    if (!sw->best.set) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return NULL;
    fprintf(m, "%s\t%s\n", sw->best.maximise ? "maximise" : "minimise", sw->best.metric);
    keys_line(m, "over", sw, sw->best.over, sw->best.nover);
    keys_line(m, "per", sw, sw->best.per, sw->best.nper);
    for (int i = 0; i < sw->ninfeasible; i++) {
        const ls_sweep_infeasible *f = &sw->infeasible[i];
        fputs("infeasible\t", m);
        for (const char *c = f->why; *c; c++) fputc(*c == '\t' || *c == '\n' ? ' ' : *c, m);
        for (int a = 0; a < sw->naxes; a++) fprintf(m, "\t%s", f->overrides[a]);
        fputc('\n', m);
    }
    if (fclose(m)) { free(text); return NULL; }
    return text;
}

void ls_sweep_objective_free(ls_sweep_objective *ob)
{
    for (int i = 0; i < ob->nper; i++) free(ob->per[i]);
    free(ob->per);
    memset(ob, 0, sizeof *ob);
}

int ls_sweep_objective_read(const char *dir, ls_sweep_objective *ob, char *err, size_t errlen)
{
    memset(ob, 0, sizeof *ob);
    char *path = ls_io_path_join(dir, "objective.tsv");
    char *text = path ? ls_sweep_read_file(path, NULL) : NULL;
    int rc = 0, line = 0;
    if (!text) goto out; /* no objective */
    for (char *s = text, *nl; *s && !rc; s = nl) {
        nl = strchr(s, '\n');
        if (nl) *nl++ = '\0';
        else nl = s + strlen(s);
        line++;
        char *save = NULL, *tok = strtok_r(s, "\t", &save);
        if (!tok) continue;
        if (!strcmp(tok, "minimise") || !strcmp(tok, "maximise")) {
            ob->maximise = tok[1] == 'a';
            tok = strtok_r(NULL, "\t", &save);
            bool known = false;
            for (int i = 0; tok && ls_sweep_best_metrics[i]; i++) known |= !strcmp(tok, ls_sweep_best_metrics[i]);
            if (ob->metric[0] || !known || strtok_r(NULL, "\t", &save)) rc = 2;   /* one known metric, once */
            else snprintf(ob->metric, sizeof ob->metric, "%s", tok);
        } else if (!strcmp(tok, "per")) {
            if (ob->nper) rc = 2;
            while ((tok = strtok_r(NULL, "\t", &save)) && !rc) {
                char **np = realloc(ob->per, (size_t)(ob->nper + 1) * sizeof *np);
                if (!np || !(np[ob->nper] = strdup(tok))) {
                    if (np) ob->per = np;
                    rc = 1;
                    break;
                }
                ob->per = np;
                ob->nper++;
            }
        } else if (!strcmp(tok, "infeasible")) ob->ninfeasible++;
        else if (strcmp(tok, "over")) rc = 2;
    }
    if (!rc && !ob->metric[0]) rc = 2;
    if (rc == 2)
        snprintf(err, errlen, "%s: line %d: malformed objective file (expected minimise|maximise METRIC with a known "
                 "metric, once, then over/per axis keys and infeasible lines; rerun `lampsim sweep run` to rewrite it)",
                 path, line);
    if (rc == 1) snprintf(err, errlen, "out of memory");
    if (rc) ls_sweep_objective_free(ob);
    else ob->set = true;
out:
    free(text);
    free(path);
    return rc;
}

static const char *const *g_group; /* qsort has no context argument in C11 */

static int by_group(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(g_group[x], g_group[y]);
    return c ? c : (x > y) - (x < y);
}

void ls_sweep_best_pick(int n, const char *const *group, const double *value, bool maximise, char *win)
{
    memset(win, 0, (size_t)n);
    int *ord = malloc((size_t)n * sizeof *ord);
    if (!ord) return;
    for (int i = 0; i < n; i++) ord[i] = i;
    g_group = group;
    qsort(ord, (size_t)n, sizeof *ord, by_group);
    /* within a group (rows in their order), the first row holding the best value wins */
    for (int k = 0; k < n;) {
        int e = k + 1, best = -1;
        while (e < n && !strcmp(group[ord[e]], group[ord[k]])) e++;
        for (int j = k; j < e; j++) {
            double v = value[ord[j]];
            if (!isnan(v) && (best < 0 || (maximise ? v > value[best] : v < value[best]))) best = ord[j];
        }
        if (best >= 0) win[best] = 1;
        k = e;
    }
    free(ord);
}
