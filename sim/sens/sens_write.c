/* sim/sens/sens_write.c — the analysis's files (sens.h): the one-at-a-time table, Morris's
 * statistics, every sample, the answer as a range, and the host facts apart. */
#define _GNU_SOURCE /* open_memstream */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "io.h"
#include "json.h"
#include "run.h"
#include "sens_internal.h"
#include "sweep.h"

/* ---------------- statistics ---------------- */

static size_t np_of(const ls_sens *S) { return S->np > 0 ? (size_t)S->np : 1; }

typedef struct {
    double lo, base, hi, swing;   /* swing: max - min of the three (NAN when both ends are refused) */
    int rank;                     /* 1 = the largest swing */
    bool flip_lo, flip_hi;        /* ratios: the end reaches or crosses 1 from the base's side */
} oat_row;

typedef struct {
    int n;                        /* elementary effects (steps with both ends run) */
    double mu, mu_star, sigma;    /* per whole range: (y(after) - y(before)) / (dir x delta) */
    int rank;
} morris_row;

static int side_of_one(double r) { return r > 1 ? 1 : r < 1 ? -1 : 0; }

static bool flips(double base, double v) { return isfinite(v) && isfinite(base) && side_of_one(v) != side_of_one(base); }

/* Ranks by value, largest first; NAN last; ties in parameter order. */
static void rank_by(int n, const double *key, int *rank)
{
    for (int i = 0; i < n; i++) {
        int r = 1;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            bool ki = isfinite(key[i]), kj = isfinite(key[j]);
            if ((kj && !ki) || (kj && ki && (key[j] > key[i] || (key[j] == key[i] && j < i))) || (!kj && !ki && j < i)) r++;
        }
        rank[i] = r;
    }
}

static void oat_rows(const ls_sens *S, int qi, oat_row *rows)
{
    double *sw = malloc(np_of(S) * sizeof *sw);
    int *rk = malloc(np_of(S) * sizeof *rk);
    bool ratio = S->q[qi].ratio >= 0;
    for (int j = 0; j < S->np; j++) {
        oat_row *r = &rows[j];
        r->base = ls_sens_value(S, qi, 0);
        r->lo = ls_sens_value(S, qi, S->oat_lo[j]);
        r->hi = ls_sens_value(S, qi, S->oat_hi[j]);
        double mn = r->base, mx = r->base;
        int nf = 0;
        const double v3[2] = {r->lo, r->hi};
        for (int k = 0; k < 2; k++)
            if (isfinite(v3[k])) {
                nf++;
                mn = fmin(mn, v3[k]);
                mx = fmax(mx, v3[k]);
            }
        r->swing = nf ? mx - mn : NAN;
        r->flip_lo = ratio && flips(r->base, r->lo);
        r->flip_hi = ratio && flips(r->base, r->hi);
        if (sw) sw[j] = r->swing;
    }
    if (sw && rk) {
        rank_by(S->np, sw, rk);
        for (int j = 0; j < S->np; j++) rows[j].rank = rk[j];
    }
    free(sw);
    free(rk);
}

static void morris_rows(const ls_sens *S, int qi, morris_row *rows)
{
    for (int j = 0; j < S->np; j++) rows[j] = (morris_row){0, 0, 0, 0, 0};
    double *sum2 = calloc(np_of(S), sizeof *sum2);
    for (int k = 0; k < S->nstep; k++) {
        const ls_sens_step *st = &S->steps[k];
        double a = ls_sens_value(S, qi, st->from), b = ls_sens_value(S, qi, st->to);
        if (!isfinite(a) || !isfinite(b)) continue;
        double ee = (b - a) / ((double)st->dir * S->delta);
        morris_row *r = &rows[st->param];
        r->n++;
        r->mu += ee;
        r->mu_star += fabs(ee);
    }
    for (int j = 0; j < S->np; j++)
        if (rows[j].n) {
            rows[j].mu /= rows[j].n;
            rows[j].mu_star /= rows[j].n;
        } else rows[j].mu = rows[j].mu_star = NAN;
    for (int k = 0; sum2 && k < S->nstep; k++) { /* two passes: the spread about the mean, not E[x^2] - mu^2 */
        const ls_sens_step *st = &S->steps[k];
        double a = ls_sens_value(S, qi, st->from), b = ls_sens_value(S, qi, st->to);
        if (!isfinite(a) || !isfinite(b)) continue;
        double d = (b - a) / ((double)st->dir * S->delta) - rows[st->param].mu;
        sum2[st->param] += d * d;
    }
    for (int j = 0; j < S->np; j++)
        rows[j].sigma = rows[j].n > 1 && sum2 ? sqrt(sum2[j] / (rows[j].n - 1)) : NAN;
    double *key = calloc(np_of(S), sizeof *key);
    int *rk = malloc(np_of(S) * sizeof *rk);
    if (key && rk) {
        for (int j = 0; j < S->np; j++) key[j] = rows[j].mu_star;
        rank_by(S->np, key, rk);
        for (int j = 0; j < S->np; j++) rows[j].rank = rk[j];
    }
    free(key);
    free(rk);
    free(sum2);
}

/* The range of a quantity over every sample run (one at a time and Morris). */
static void range_of(const ls_sens *S, int qi, double *mn, double *mx, int *n)
{
    *mn = INFINITY;
    *mx = -INFINITY;
    *n = 0;
    for (int s = 0; s < S->ns; s++) {
        double v = ls_sens_value(S, qi, s);
        if (!isfinite(v)) continue;
        *mn = fmin(*mn, v);
        *mx = fmax(*mx, v);
        ++*n;
    }
}

/* ---------------- text ---------------- */

static void num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.10g", v);
}

/* 43250 -> "43.25k"; ratios and small values with four significant digits. */
static const char *human(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (!isfinite(v)) snprintf(buf, len, "-");
    else if (a >= 1e9) snprintf(buf, len, "%.4gG", v / 1e9);
    else if (a >= 1e6) snprintf(buf, len, "%.4gM", v / 1e6);
    else if (a >= 1e4) snprintf(buf, len, "%.4gk", v / 1e3);
    else snprintf(buf, len, "%.4g", v);
    return buf;
}

/* "cycles" or "cycles full/compact" */
static void quantity_label(const ls_sens *S, int qi, char *buf, size_t len)
{
    const ls_sens_quantity *q = &S->q[qi];
    if (q->ratio < 0) snprintf(buf, len, "%s", S->metrics[q->metric]);
    else snprintf(buf, len, "%s %s", S->metrics[q->metric], S->ratio_name[q->ratio]);
}

static int count_refused(const ls_sens *S, const char **first)
{
    int n = 0;
    *first = NULL;
    for (int s = 0; s < S->ns; s++) {
        bool any = false;
        for (int v = 0; v < S->nv; v++) {
            const char *w = S->why[(size_t)s * S->nv + v];
            if (w && !*first) *first = w;
            any |= w != NULL;
        }
        n += any;
    }
    return n;
}

char *ls_sens_summary_text(const ls_sens *S)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    oat_row *rows = malloc(np_of(S) * sizeof *rows);
    morris_row *mrows = malloc(np_of(S) * sizeof *mrows);
    int *order = malloc(np_of(S) * sizeof *order);
    if (!rows || !mrows || !order) {
        fclose(f);
        free(text);
        free(rows);
        free(mrows);
        free(order);
        return NULL;
    }
    fprintf(f, "sensitivity of %s (workload %s) over %d estimate%s' ranges: one at a time (low, high)", S->base->source,
            S->base->workload.name, S->np, S->np == 1 ? "" : "s");
    if (S->o->method == LS_SENS_MORRIS)
        fprintf(f, " and Morris elementary effects (%d trajectories, %d levels, step %d/%d of a range, seed %llu)",
                S->trajectories, S->levels, S->levels / 2, S->levels - 1, (unsigned long long)S->seed);
    fprintf(f, "; %d samples\n", S->ns);
    char a[32], b[32], c[32], lab[160];
    for (int qi = 0; qi < S->nq; qi++) {
        const ls_sens_quantity *q = &S->q[qi];
        double mn, mx, base = ls_sens_value(S, qi, 0);
        int n;
        range_of(S, qi, &mn, &mx, &n);
        quantity_label(S, qi, lab, sizeof lab);
        fprintf(f, "%s %s, %s..%s over the estimates' ranges (%d samples)\n", lab, human(base, a, sizeof a),
                human(mn, b, sizeof b), human(mx, c, sizeof c), n);
        oat_rows(S, qi, rows);
        for (int j = 0; j < S->np; j++) order[rows[j].rank - 1] = j;
        fprintf(f, "  largest one-at-a-time swings:");
        for (int k = 0; k < S->np && k < 5; k++) {
            const oat_row *r = &rows[order[k]];
            fprintf(f, "%s %s %s..%s (swing %s)", k ? "," : "", S->p[order[k]].key, human(r->lo, a, sizeof a),
                    human(r->hi, b, sizeof b), human(r->swing, c, sizeof c));
        }
        fputc('\n', f);
        if (S->o->method == LS_SENS_MORRIS) {
            morris_rows(S, qi, mrows);
            for (int j = 0; j < S->np; j++) order[mrows[j].rank - 1] = j;
            fprintf(f, "  largest Morris mu* (sigma):");
            for (int k = 0; k < S->np && k < 5; k++)
                fprintf(f, "%s %s %s (%s)", k ? "," : "", S->p[order[k]].key, human(mrows[order[k]].mu_star, a, sizeof a),
                        human(mrows[order[k]].sigma, b, sizeof b));
            fputc('\n', f);
        }
        if (q->ratio < 0) continue;
        const char *rn = S->ratio_name[q->ratio];
        int nflip = 0;
        for (int j = 0; j < S->np; j++) nflip += rows[j].flip_lo || rows[j].flip_hi;
        if (!nflip) fprintf(f, "  no estimate at either end of its range flips %s (crosses 1) one at a time", rn);
        else {
            fprintf(f, "  flips %s (reaches or crosses 1) one at a time:", rn);
            int k = 0;
            for (int j = 0; j < S->np; j++) {
                if (rows[j].flip_lo) fprintf(f, "%s %s at low %s", k++ ? "," : "", S->p[j].key, human(rows[j].lo, a, sizeof a));
                if (rows[j].flip_hi) fprintf(f, "%s %s at high %s", k++ ? "," : "", S->p[j].key, human(rows[j].hi, a, sizeof a));
            }
        }
        if (S->o->method == LS_SENS_MORRIS) {
            int nm = 0, nx = 0, far = -1;
            for (int s = 0; s < S->ns; s++) {
                double v = ls_sens_value(S, qi, s);
                if (S->s[s].design != LS_SENS_MORRIS_POINT || !isfinite(v)) continue;
                nm++;
                if (!flips(base, v)) continue;
                nx++;
                if (far < 0 || fabs(v - 1) > fabs(ls_sens_value(S, qi, far) - 1)) far = s;
            }
            fprintf(f, "; Morris samples (several estimates moved together): %d of %d on the other side of 1", nx, nm);
            if (far >= 0) fprintf(f, " (the farthest: sample %d of samples.csv, %s)", far, human(ls_sens_value(S, qi, far), a, sizeof a));
        }
        fputc('\n', f);
    }
    const char *first;
    int nref = count_refused(S, &first);
    if (nref) fprintf(f, "refused: %d sample%s (left out; the first: %s)\n", nref, nref == 1 ? "" : "s", first);
    int nnum = 0;
    for (int j = 0; j < S->np; j++) nnum += S->p[j].numerics;
    if (!nnum)
        fprintf(f, "numerics: every parameter is a timing, energy or area key: the arithmetic is computed once per "
                   "configuration variant and replayed for the other samples\n");
    else {
        fprintf(f, "numerics: these parameters change the arithmetic, which is computed again for each of their samples:");
        for (int j = 0, k = 0; j < S->np; j++)
            if (S->p[j].numerics) fprintf(f, "%s %s", k++ ? "," : "", S->p[j].key);
        fputc('\n', f);
    }
    if (S->skipped_params) fprintf(f, "left out: %ld estimates with an empty range\n", S->skipped_params);
    fclose(f);
    free(rows);
    free(mrows);
    free(order);
    return text;
}

static char *sensitivity_csv(const ls_sens *S)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    oat_row *rows = malloc(np_of(S) * sizeof *rows);
    if (!f || !rows) {
        if (f) fclose(f);
        free(text);
        free(rows);
        return NULL;
    }
    fputs("metric,param,low,base,high,metric_low,metric_base,metric_high,swing,rank,flips,numerics,note\n", f);
    for (int qi = 0; qi < S->nq; qi++) {
        oat_rows(S, qi, rows);
        bool ratio = S->q[qi].ratio >= 0;
        for (int j = 0; j < S->np; j++) {
            const oat_row *r = &rows[j];
            const ls_sens_param *p = &S->p[j];
            fprintf(f, "%s,%s,", S->q[qi].name, p->key);
            num(f, p->low), fputc(',', f), num(f, p->base), fputc(',', f), num(f, p->high), fputc(',', f);
            num(f, r->lo), fputc(',', f), num(f, r->base), fputc(',', f), num(f, r->hi), fputc(',', f);
            num(f, r->swing);
            fprintf(f, ",%d,%s,%s,", r->rank,
                    !ratio ? "" : r->flip_lo && r->flip_hi ? "both" : r->flip_lo ? "low" : r->flip_hi ? "high" : "no",
                    p->numerics ? "computed" : "replayed");
            /* why an end is missing: its run was refused */
            char note[2300] = "";
            for (int end = 0; end < 2; end++) {
                int s = end ? S->oat_hi[j] : S->oat_lo[j];
                for (int v = 0; v < S->nv; v++) {
                    const char *w = S->why[(size_t)s * S->nv + v];
                    if (w && !note[0]) snprintf(note, sizeof note, "%s refused: %s", end ? "high" : "low", w);
                }
            }
            ls_sweep_csv_cell(f, note);
            fputc('\n', f);
        }
    }
    fclose(f);
    free(rows);
    return text;
}

static char *morris_csv(const ls_sens *S)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    morris_row *rows = malloc(np_of(S) * sizeof *rows);
    if (!f || !rows) {
        if (f) fclose(f);
        free(text);
        free(rows);
        return NULL;
    }
    fputs("metric,param,effects,mu,mu_star,sigma,rank\n", f);
    for (int qi = 0; qi < S->nq; qi++) {
        morris_rows(S, qi, rows);
        for (int j = 0; j < S->np; j++) {
            fprintf(f, "%s,%s,%d,", S->q[qi].name, S->p[j].key, rows[j].n);
            num(f, rows[j].mu), fputc(',', f), num(f, rows[j].mu_star), fputc(',', f), num(f, rows[j].sigma);
            fprintf(f, ",%d\n", rows[j].rank);
        }
    }
    fclose(f);
    free(rows);
    return text;
}

static char *samples_csv(const ls_sens *S)
{
    static const char *const design_name[] = {"base", "one_at_a_time", "morris"};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fputs("sample,design,trajectory", f);
    for (int j = 0; j < S->np; j++) fprintf(f, ",%s", S->p[j].key);
    for (int v = 0; v < S->nv; v++)
        for (int m = 0; m < S->nm; m++) {
            char col[256];
            snprintf(col, sizeof col, "%s%s%s", S->metrics[m], S->v[v].over[0] ? "@" : "", S->v[v].over);
            fputc(',', f);
            ls_sweep_csv_cell(f, col);
        }
    fputs(",refused\n", f);
    for (int s = 0; s < S->ns; s++) {
        fprintf(f, "%d,%s,", s, design_name[S->s[s].design]);
        if (S->s[s].traj >= 0) fprintf(f, "%d", S->s[s].traj);
        for (int j = 0; j < S->np; j++) fputc(',', f), num(f, S->s[s].x[j]);
        const char *why = NULL;
        for (int v = 0; v < S->nv; v++) {
            for (int m = 0; m < S->nm; m++) fputc(',', f), num(f, S->val[((size_t)s * S->nv + v) * S->nm + m]);
            if (!why) why = S->why[(size_t)s * S->nv + v];
        }
        fputc(',', f);
        ls_sweep_csv_cell(f, why ? why : "");
        fputc('\n', f);
    }
    fclose(f);
    return text;
}

/* Host facts (not deterministic): apart from the results, as a run's run_info.json. */
static char *run_info(const ls_sens *S, double wall)
{
    ls_json j;
    ls_json_init(&j);
    ls_run_info_begin(&j, S->base, S->base->algorithm.threads);
    ls_json_double(&j, "wall_seconds", wall);
    ls_json_int(&j, "runs", S->runs);
    ls_json_int(&j, "numerics_computed", S->computed);
    ls_json_int(&j, "numerics_replayed", S->replayed);
    ls_json_end_object(&j);
    const char *t = ls_json_text(&j);
    char *out = t ? strdup(t) : NULL;
    ls_json_free(&j);
    return out;
}

static int put(const char *dir, const char *name, char *text, char *err, size_t errlen)
{
    if (!text) {
        snprintf(err, errlen, "out of memory while writing %s", name);
        return 1;
    }
    char *p = ls_io_path_join(dir, name);
    int rc = p ? (ls_atomic_file_write(p, text, strlen(text), err, errlen) ? 1 : 0) : 1;
    if (!p) snprintf(err, errlen, "out of memory");
    free(p);
    free(text);
    return rc;
}

int ls_sens_write(const ls_sens *S, const char *dir, double wall_seconds, char *err, size_t errlen)
{
    char *cfgp = ls_io_path_join(dir, "config.resolved.yaml");
    int rc = cfgp ? ls_config_write_resolved_file(S->base, cfgp, err, errlen) : 1;
    if (!cfgp) snprintf(err, errlen, "out of memory");
    free(cfgp);
    if (!rc) rc = put(dir, "sensitivity.csv", sensitivity_csv(S), err, errlen);
    if (!rc && S->o->method == LS_SENS_MORRIS) rc = put(dir, "morris.csv", morris_csv(S), err, errlen);
    if (!rc) rc = put(dir, "samples.csv", samples_csv(S), err, errlen);
    if (!rc) rc = put(dir, "run_info.json", run_info(S, wall_seconds), err, errlen);
    if (!rc) rc = put(dir, "summary.txt", ls_sens_summary_text(S), err, errlen);
    return rc;
}
