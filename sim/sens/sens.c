/* sim/sens/sens.c — the analysis (sens.h): parameters and ratios from the options, the design
 * (one at a time, Morris trajectories), and one in-process run per sample and variant. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_dir.h"
#include "fields.h"
#include "run.h"
#include "run_progress.h"
#include "sens_internal.h"
#include "suggest.h"
#include "sweep.h"
#include "workload.h"

#define FAIL2(...) (snprintf(err, errlen, __VA_ARGS__), 2)

/* ---------------- options ---------------- */

static int check_metric(const char *m, char *err, size_t errlen)
{
    for (int i = 0; ls_sweep_best_metrics[i]; i++)
        if (!strcmp(m, ls_sweep_best_metrics[i])) return 0;
    const char *near = ls_suggest_nearest(m, ls_sweep_best_metrics);
    char list[1024] = "";
    size_t o = 0;
    for (int i = 0; ls_sweep_best_metrics[i] && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", ls_sweep_best_metrics[i]);
    if (near) return FAIL2("--metric: unknown metric '%s'; did you mean '%s'?", m, near);
    return FAIL2("--metric: unknown metric '%s' (the metrics of sweeps' best: %s)", m, list);
}

int ls_sens_ratio_key(const char *spec, const char **key, char *a, char *b, size_t len, char *err, size_t errlen)
{
    const char *slash = strchr(spec, '/');
    if (!slash || slash == spec || !slash[1] || strchr(slash + 1, '/') || (size_t)(slash - spec) >= len ||
        strlen(slash + 1) >= len)
        return FAIL2("--ratio: '%s' is not A/B (two values of one key, e.g. full/compact or lamp/fa2_16bit)", spec);
    snprintf(a, len, "%.*s", (int)(slash - spec), spec);
    snprintf(b, len, "%s", slash + 1);
    if (!strcmp(a, b)) return FAIL2("--ratio: '%s' compares a value with itself", spec);
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    const char *found = NULL, *second = NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i].type != LS_CONFIG_T_ENUM) continue;
        bool ha = false, hb = false;
        for (int k = 0; s[i].names[k]; k++) {
            ha |= !strcmp(s[i].names[k], a);
            hb |= !strcmp(s[i].names[k], b);
        }
        if (!ha || !hb) continue;
        if (found) second = s[i].path;
        else found = s[i].path;
    }
    if (!found)
        return FAIL2("--ratio: no configuration key takes both '%s' and '%s' (a ratio compares two values of one key: "
                     "full/compact of accelerator.regfile.layout, lamp/fa2_16bit of algorithm.mode)", a, b);
    if (second) return FAIL2("--ratio: '%s' is ambiguous: both %s and %s take these values", spec, found, second);
    *key = found;
    return 0;
}

/* The parameters: every estimate (spec NULL or "estimates") or the listed keys. */
static int pick_params(ls_sens *S, const char *spec, char *err, size_t errlen)
{
    size_t ne = ls_config_estimates(S->base, NULL, 0);
    ls_config_estimate *est = calloc(ne ? ne : 1, sizeof *est);
    const char **names = calloc(ne + 1, sizeof *names);
    S->p = calloc(ne ? ne : 1, sizeof *S->p);
    if (!est || !names || !S->p) {
        free(est);
        free(names);
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    ls_config_estimates(S->base, est, ne);
    for (size_t i = 0; i < ne; i++) names[i] = est[i].key;
    int rc = 0;
    bool all = !spec || !strcmp(spec, "estimates");
    char *list = all ? NULL : strdup(spec);
    if (!all && !list) rc = 1;
    char *save = NULL;
    for (size_t i = 0; all && i < ne; i++) {
        if (!(est[i].low < est[i].high)) { S->skipped_params++; continue; }
        S->p[S->np++] = (ls_sens_param){est[i].key, est[i].low, est[i].value, est[i].high, est[i].integer, false};
    }
    for (char *tok = list ? strtok_r(list, ",", &save) : NULL; !rc && tok; tok = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < ne && strcmp(est[i].key, tok)) i++;
        if (i == ne) {
            char sug[256];
            const char *near = ls_suggest_nearest(tok, names);
            const ls_config_provenance *pv = ls_config_provenance_find(tok);
            if (pv)
                rc = FAIL2("--params: '%s' is a source, not an estimate: it has no range to vary (lampsim config "
                           "--estimates lists the estimates)", tok);
            else if (ls_config_schema_find(tok))
                rc = FAIL2("--params: '%s' is no estimate of the provenance table (no range to vary)%s%s%s", tok,
                           near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
            else if (near)
                rc = FAIL2("--params: unknown key '%s'; did you mean '%s'?", tok, near);
            else if (ls_config_suggest(tok, sug, sizeof sug))
                rc = FAIL2("--params: unknown key '%s'; did you mean '%s'? (not an estimate)", tok, sug);
            else rc = FAIL2("--params: unknown key '%s' (lampsim config --estimates lists the estimates)", tok);
            break;
        }
        if (!(est[i].low < est[i].high)) {
            rc = FAIL2("--params: '%s' has an empty range [%g, %g]: nothing to vary", tok, est[i].low, est[i].high);
            break;
        }
        for (int j = 0; j < S->np; j++)
            if (!strcmp(S->p[j].key, tok)) rc = FAIL2("--params: '%s' is listed twice", tok);
        if (!rc) S->p[S->np++] = (ls_sens_param){est[i].key, est[i].low, est[i].value, est[i].high, est[i].integer, false};
    }
    if (!rc && !all && S->np == 0) rc = FAIL2("--params: no key in '%s'", spec);
    if (!rc && S->np == 0) rc = FAIL2("--params: this configuration has no estimate with a range");
    for (int j = 0; !rc && j < S->np; j++) {
        const ls_sens_param *q = &S->p[j];
        S->p[j].numerics = ls_sweep_key_is_numeric(q->key);
        if (!isfinite(q->base)) rc = FAIL2("--params: '%s' has no numeric value in the configuration", q->key);
        else if (q->base < q->low || q->base > q->high) {
            /* the analysis varies the estimate over its range: a base outside it describes a design
             * none of the runs is near; a listed key is refused, one of all the estimates flagged */
            if (!all)
                rc = FAIL2("--params: '%s' is %.17g in the configuration, outside its estimate's range [%.17g, %.17g]: "
                           "the analysis would vary it over values that exclude the design (set it inside the range; "
                           "lampsim config --explain %s)", q->key, q->base, q->low, q->high, q->key);
            else
                fprintf(stderr, "lampsim sensitivity: WARNING: %s is %.17g in the configuration, outside its estimate's "
                        "range [%.17g, %.17g]: its swing is over the range, not around this value\n", q->key, q->base,
                        q->low, q->high);
        }
    }
    if (rc == 1) snprintf(err, errlen, "out of memory");
    free(list);
    free(names);
    free(est);
    return rc;
}

/* The variant of one side of a ratio: the base itself when the side is the base's value. */
static int add_variant(ls_sens *S, const char *key, const char *value, int *index, char *err, size_t errlen)
{
    char over[160];
    snprintf(over, sizeof over, "%s=%s", key, value);
    const char **ov = calloc((size_t)S->o->nsets + 1, sizeof *ov);
    ls_config *c = malloc(sizeof *c);
    ls_config_diag *d = malloc(sizeof *d);
    int rc = 0;
    if (!ov || !c || !d) rc = 1;
    for (int i = 0; !rc && i < S->o->nsets; i++) ov[i] = S->o->sets[i];
    if (!rc) ov[S->o->nsets] = over;
    if (!rc && ls_config_load(c, S->o->config_path, ov, S->o->nsets + 1, d))
        rc = FAIL2("--ratio: %s refused: %s", over, d->message);
    if (!rc) {
        int same = ls_config_equal(c, S->base, NULL, 0);
        ls_config_free(c);
        *index = -1;
        if (same) *index = 0;
        for (int v = 1; *index < 0 && v < S->nv; v++)
            if (!strcmp(S->v[v].over, over)) *index = v;
        if (*index < 0) {
            *index = S->nv++;
            snprintf(S->v[*index].over, sizeof S->v[*index].over, "%s", over);
        }
    }
    if (rc == 1) snprintf(err, errlen, "out of memory");
    free(ov);
    free(c);
    free(d);
    return rc;
}

static int setup_quantities(ls_sens *S, char *err, size_t errlen)
{
    for (int m = 0; m < S->nm; m++) {
        ls_sens_quantity *q = &S->q[S->nq++];
        snprintf(q->name, sizeof q->name, "%s", S->metrics[m]);
        q->metric = m;
        q->ratio = -1;
    }
    for (int r = 0; r < S->nr; r++) {
        char a[64], b[64];
        int rc = ls_sens_ratio_key(S->o->ratios[r], &S->ratio_key[r], a, b, sizeof a, err, errlen);
        if (!rc) rc = add_variant(S, S->ratio_key[r], a, &S->ratio_a[r], err, errlen);
        if (!rc) rc = add_variant(S, S->ratio_key[r], b, &S->ratio_b[r], err, errlen);
        if (rc) return rc;
        snprintf(S->ratio_name[r], sizeof S->ratio_name[r], "%s/%s", a, b);
        for (int m = 0; m < S->nm; m++) {
            ls_sens_quantity *q = &S->q[S->nq++];
            char name[sizeof q->name];   /* via a buffer of its own: GCC cannot tell q->name from S's strings */
            snprintf(name, sizeof name, "%s:%s", S->metrics[m], S->ratio_name[r]);
            memcpy(q->name, name, sizeof name);
            q->metric = m;
            q->ratio = r;
        }
    }
    return 0;
}

/* ---------------- the design ---------------- */

static int new_sample(ls_sens *S, int design, int traj)
{
    if (S->ns == S->scap) {
        int cap = S->scap ? 2 * S->scap : 64;
        ls_sens_sample *n = realloc(S->s, (size_t)cap * sizeof *n);
        if (!n) return -1;
        S->s = n;
        S->scap = cap;
    }
    ls_sens_sample *s = &S->s[S->ns];
    s->x = malloc((size_t)S->np * sizeof *s->x);
    if (!s->x) return -1;
    for (int j = 0; j < S->np; j++) s->x[j] = S->p[j].base;
    s->design = design;
    s->traj = traj;
    s->same_as = -1;
    return S->ns++;
}

/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a stated, seedable generator, so a seed names
 * one design on every platform. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t random_below(uint64_t *state, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* no modulo bias */
    uint64_t v;
    do v = next_random(state); while (v >= limit);
    return v % n;
}

/* The value at grid level l of p for parameter j: integers rounded to the nearest whole number. */
static double level_value(const ls_sens_param *p, int l, int levels)
{
    double v = p->low + (p->high - p->low) * (double)l / (double)(levels - 1);
    if (l == levels - 1) v = p->high;
    return p->integer ? floor(v + 0.5) : v;
}

static int design(ls_sens *S)
{
    int b = new_sample(S, LS_SENS_BASE, -1);
    if (b < 0) return -1;
    S->oat_lo = calloc((size_t)S->np, sizeof *S->oat_lo);
    S->oat_hi = calloc((size_t)S->np, sizeof *S->oat_hi);
    if (!S->oat_lo || !S->oat_hi) return -1;
    for (int j = 0; j < S->np; j++) {
        for (int end = 0; end < 2; end++) {
            double x = end ? S->p[j].high : S->p[j].low;
            int s = 0;
            if (x != S->p[j].base) {
                if ((s = new_sample(S, LS_SENS_ONE_AT_A_TIME, -1)) < 0) return -1;
                S->s[s].x[j] = x;
            }
            if (end) S->oat_hi[j] = s;
            else S->oat_lo[j] = s;
        }
    }
    if (S->o->method == LS_SENS_MORRIS) {
        int p = S->levels, half = p / 2;
        S->delta = (double)half / (double)(p - 1);
        uint64_t st = S->seed;
        int *lvl = malloc((size_t)S->np * sizeof *lvl), *dir = malloc((size_t)S->np * sizeof *dir),
            *perm = malloc((size_t)S->np * sizeof *perm);
        S->stepcap = S->trajectories * S->np;
        S->steps = malloc((size_t)S->stepcap * sizeof *S->steps);
        int rc = lvl && dir && perm && S->steps ? 0 : -1;
        for (int t = 0; !rc && t < S->trajectories; t++) {
            /* a start on the grid; each parameter moves half the levels up from the lower half, down from the upper */
            for (int j = 0; j < S->np; j++) {
                lvl[j] = (int)random_below(&st, (uint64_t)p);
                dir[j] = lvl[j] < half ? 1 : -1;
                perm[j] = j;
            }
            for (int j = S->np - 1; j > 0; j--) { /* Fisher-Yates */
                int k = (int)random_below(&st, (uint64_t)j + 1), tmp = perm[j];
                perm[j] = perm[k];
                perm[k] = tmp;
            }
            int prev = new_sample(S, LS_SENS_MORRIS_POINT, t);
            if (prev < 0) { rc = -1; break; }
            for (int j = 0; j < S->np; j++) S->s[prev].x[j] = level_value(&S->p[j], lvl[j], p);
            for (int k = 0; k < S->np; k++) {
                int j = perm[k];
                int s = new_sample(S, LS_SENS_MORRIS_POINT, t);
                if (s < 0) { rc = -1; break; }
                memcpy(S->s[s].x, S->s[prev].x, (size_t)S->np * sizeof *S->s[s].x);
                lvl[j] += dir[j] * half;
                S->s[s].x[j] = level_value(&S->p[j], lvl[j], p);
                S->steps[S->nstep++] = (ls_sens_step){j, prev, s, dir[j]};
                prev = s;
            }
        }
        free(lvl);
        free(dir);
        free(perm);
        if (rc) return -1;
    }
    /* samples with the same values run once (a Morris point on the base, integers rounded alike) */
    for (int s = 1; s < S->ns; s++)
        for (int e = 0; e < s && S->s[s].same_as < 0; e++)
            if (S->s[e].same_as < 0 && !memcmp(S->s[e].x, S->s[s].x, (size_t)S->np * sizeof(double)))
                S->s[s].same_as = e;
    return 0;
}

/* ---------------- runs ---------------- */

static const ls_fields_item *field(const ls_fields *fs, const char *name)
{
    for (size_t i = 0; i < fs->n; i++)
        if (!strcmp(fs->f[i].name, name)) return &fs->f[i];
    return NULL;
}

static double field_number(const ls_fields_item *f)
{
    if (!f) return NAN;
    switch (f->type) {
    case LS_FIELDS_DOUBLE: return f->d;
    case LS_FIELDS_INT: return (double)f->i;
    case LS_FIELDS_UINT: return (double)f->u;
    case LS_FIELDS_BOOL: return f->b ? 1 : 0;
    default: return NAN;
    }
}

double ls_sens_value(const ls_sens *S, int qi, int s)
{
    const ls_sens_quantity *q = &S->q[qi];
    const double *row = &S->val[(size_t)s * S->nv * S->nm];
    if (q->ratio < 0) return row[q->metric];
    double a = row[(size_t)S->ratio_a[q->ratio] * S->nm + q->metric];
    double b = row[(size_t)S->ratio_b[q->ratio] * S->nm + q->metric];
    return b != 0 && isfinite(a) && isfinite(b) ? a / b : NAN;
}

/* The inputs every sample can share: none of the keys that vary is a workload key or the seed. */
static bool inputs_shared(const ls_sens *S)
{
    for (int j = 0; j < S->np; j++)
        if (!strncmp(S->p[j].key, "workload.", 9) || !strcmp(S->p[j].key, "seed")) return false;
    for (int r = 0; r < S->nr; r++)
        if (!strncmp(S->ratio_key[r], "workload.", 9)) return false;
    return true;
}

/* Runs sample s of variant v: 0 (done, or refused: why set), 1 (a run failed), 2 (the base refused). */
static int run_one(ls_sens *S, int s, int v, ls_config *cfg, ls_config_diag *diag, const char **ov, char (*txt)[256],
                   const ls_attn_inputs *in, const ls_workload_info *wl, char *err, size_t errlen)
{
    const ls_sens_opts *o = S->o;
    int n = 0;
    for (int i = 0; i < o->nsets; i++) ov[n++] = o->sets[i];
    if (S->v[v].over[0]) ov[n++] = S->v[v].over;
    for (int j = 0; j < S->np; j++) {
        if (S->s[s].x[j] == S->p[j].base) continue;
        if (ls_config_override_text(S->p[j].key, S->s[s].x[j], txt[j], sizeof txt[j])) {
            snprintf(err, errlen, "%s: value %g cannot be written as an override", S->p[j].key, S->s[s].x[j]);
            return 1;
        }
        ov[n++] = txt[j];
    }
    ov[n++] = "timed.reuse_numerics=true"; /* one computation of the numerics per variant, replayed after */
    double *row = &S->val[((size_t)s * S->nv + (size_t)v) * S->nm];
    char **why = &S->why[(size_t)s * S->nv + (size_t)v];
    char rerr[2048] = "";
    int rc;
    if (ls_config_load(cfg, o->config_path, ov, n, diag)) {
        snprintf(rerr, sizeof rerr, "%s", diag->message);
        rc = 2;
    } else {
        ls_fields fs;
        ls_fields_init(&fs);
        bool reused = false;
        ls_run_opts ro = {0};
        ro.quiet = true;
        ro.fields_out = &fs;
        ro.numerics_reused_out = &reused;
        ro.inputs = in;
        ro.inputs_info = wl;
        rc = ls_run(cfg, &ro, rerr, sizeof rerr);
        ls_config_free(cfg);
        S->runs++;
        if (!rc) {
            if (reused) S->replayed++;
            else S->computed++;
            for (int m = 0; m < S->nm; m++) row[m] = field_number(field(&fs, S->metrics[m]));
        }
        ls_fields_free(&fs);
    }
    const char *side = S->v[v].over[0] ? S->v[v].over : "the base configuration";
    if (rc == 1) {
        snprintf(err, errlen, "sample %d (%s): %s", s, side, rerr);
        return 1;
    }
    if (rc == 2 && s == 0) {
        snprintf(err, errlen, "%s is refused: %s", side, rerr);
        return 2;
    }
    if (rc == 2) {
        for (char *c = rerr; *c; c++)
            if (*c == '\n') *c = ' ';
        *why = strdup(rerr);
        return *why ? 0 : 1;
    }
    for (int m = 0; s == 0 && m < S->nm; m++)
        if (!isfinite(row[m])) {
            snprintf(err, errlen, "--metric: %s is not in the report of %s (a timed metric needs timed.enabled "
                     "true and a mode the timed model runs: lamp, fa2_16bit, pure_8bit)", S->metrics[m], side);
            return 2;
        }
    return 0;
}

static int run_all(ls_sens *S, char *err, size_t errlen)
{
    size_t cells = (size_t)S->ns * S->nv;
    S->val = malloc(cells * S->nm * sizeof *S->val);
    S->why = calloc(cells, sizeof *S->why);
    const char **ov = calloc((size_t)S->o->nsets + (size_t)S->np + 2, sizeof *ov);
    char (*txt)[256] = calloc((size_t)S->np, sizeof *txt);
    ls_config *cfg = malloc(sizeof *cfg);
    ls_config_diag *diag = malloc(sizeof *diag);
    int rc = S->val && S->why && ov && txt && cfg && diag ? 0 : 1;
    if (rc) snprintf(err, errlen, "out of memory");
    for (size_t i = 0; !rc && i < cells * S->nm; i++) S->val[i] = NAN;
    long total = 0, done = 0;
    for (int s = 0; s < S->ns; s++) total += S->s[s].same_as < 0;
    total *= S->nv;
    /* the data are generated once when no sample changes them (every estimate is an accelerator key) */
    ls_attn_inputs in;
    ls_workload_info wl;
    memset(&in, 0, sizeof in);
    bool shared = !rc && inputs_shared(S);
    if (shared && ls_workload_build(S->base, NULL, &in, &wl, err, errlen)) rc = 2;
    ls_run_progress prog;
    ls_run_progress_init(&prog, stderr, S->o->quiet ? LS_RUN_PROGRESS_OFF : LS_RUN_PROGRESS_AUTO, 0);
    /* variant by variant: the numerics cache holds one computation, which every sample of a variant shares */
    for (int v = 0; !rc && v < S->nv; v++) {
        for (int s = 0; !rc && s < S->ns; s++) {
            int e = S->s[s].same_as;
            if (e >= 0) {
                memcpy(&S->val[((size_t)s * S->nv + v) * S->nm], &S->val[((size_t)e * S->nv + v) * S->nm],
                       (size_t)S->nm * sizeof *S->val);
                const char *w = S->why[(size_t)e * S->nv + v];
                if (w && !(S->why[(size_t)s * S->nv + v] = strdup(w))) rc = 1;
                continue;
            }
            rc = run_one(S, s, v, cfg, diag, ov, txt, shared ? &in : NULL, shared ? &wl : NULL, err, errlen);
            done++;
            double now = ls_run_progress_now();
            if (!rc && ls_run_progress_due(&prog, now)) {
                char line[128];
                snprintf(line, sizeof line, "sensitivity: %ld/%ld runs", done, total);
                ls_run_progress_print(&prog, now, line);
            }
        }
    }
    ls_run_progress_clear(&prog);
    if (shared) ls_attn_inputs_release(&in);
    free(ov);
    free(txt);
    free(cfg);
    free(diag);
    return rc;
}

/* ---------------- the whole ---------------- */

static void sens_free(ls_sens *S)
{
    for (int s = 0; s < S->ns; s++) free(S->s[s].x);
    if (S->why)
        for (size_t i = 0; i < (size_t)S->ns * S->nv; i++) free(S->why[i]);
    free(S->why);
    free(S->val);
    free(S->s);
    free(S->steps);
    free(S->oat_lo);
    free(S->oat_hi);
    free(S->p);
    if (S->base) ls_config_free(S->base);
    free(S->base);
}

/* Everything the options and the base configuration can refuse, before anything is run or written. */
static int prepare(ls_sens *S, const ls_sens_opts *o, char *err, size_t errlen)
{
    S->o = o;
    S->nv = 1;
    S->v[0].over[0] = '\0';
    if (o->nmetrics > LS_SENS_MAX_METRICS) return FAIL2("--metric: at most %d metrics", LS_SENS_MAX_METRICS);
    if (o->nratios > LS_SENS_MAX_RATIOS) return FAIL2("--ratio: at most %d ratios", LS_SENS_MAX_RATIOS);
    S->nm = o->nmetrics ? o->nmetrics : 1;
    for (int m = 0; m < S->nm; m++) {
        S->metrics[m] = o->nmetrics ? o->metrics[m] : "cycles";
        int rc = check_metric(S->metrics[m], err, errlen);
        if (rc) return rc;
        for (int k = 0; k < m; k++)
            if (!strcmp(S->metrics[k], S->metrics[m])) return FAIL2("--metric: '%s' is given twice", S->metrics[m]);
    }
    for (int r = 0; r < o->nratios; r++) {
        const char *key;
        char a[64], b[64];
        int rc = ls_sens_ratio_key(o->ratios[r], &key, a, b, sizeof a, err, errlen);
        if (rc) return rc;
    }
    S->nr = o->nratios;
    S->trajectories = o->trajectories ? o->trajectories : LS_SENS_DEFAULT_TRAJECTORIES;
    S->levels = o->levels ? o->levels : LS_SENS_DEFAULT_LEVELS;
    if (S->trajectories < 1 || S->trajectories > 1000)
        return FAIL2("--trajectories: %d is outside 1..1000", S->trajectories);
    if (S->levels < 2 || S->levels > 64 || S->levels % 2)
        return FAIL2("--levels: %d is not an even number of grid levels in 2..64 (Morris's step of p/2 levels "
                     "needs an even p)", S->levels);
    if (!o->out_dir) return FAIL2("-o DIR is required (where sensitivity.csv and the others are written)");
    S->base = malloc(sizeof *S->base);
    ls_config_diag *d = malloc(sizeof *d);
    if (!S->base || !d) {
        free(d);
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    int rc = 0;
    if (ls_config_load(S->base, o->config_path, o->sets, o->nsets, d)) {
        snprintf(err, errlen, "%s", d->message);
        free(S->base);
        S->base = NULL;
        rc = 2;
    }
    free(d);
    if (rc) return rc;
    S->seed = o->seed_set ? o->seed : (uint64_t)S->base->seed;
    if ((rc = pick_params(S, o->params, err, errlen))) return rc;
    if ((rc = setup_quantities(S, err, errlen))) return rc;
    return 0;
}

int ls_sens_run(const ls_sens_opts *o, FILE *out, char *err, size_t errlen)
{
    ls_sens S;
    memset(&S, 0, sizeof S);
    double t0 = ls_run_progress_now();
    int rc = prepare(&S, o, err, errlen);
    if (!rc && design(&S)) {
        snprintf(err, errlen, "out of memory");
        rc = 1;
    }
    ls_atomic_dir od = {0};
    if (!rc) {
        rc = ls_atomic_dir_open(&od, o->out_dir, o->force, err, errlen);
        if (!rc) (void)ls_atomic_dir_remove_on_signals(&od);
    }
    if (!rc) rc = run_all(&S, err, errlen);
    if (!rc && ls_sens_write(&S, od.tmp_path, ls_run_progress_now() - t0, err, errlen)) {
        ls_atomic_dir_name_final(&od, err, errlen);
        rc = 1;
    }
    int hook = 0;
    if (!rc && o->before_commit) hook = o->before_commit(od.tmp_path, o->before_commit_user);
    if (!rc && ls_atomic_dir_commit(&od, err, errlen)) rc = 1;
    ls_atomic_dir_abort(&od);
    if (!rc && !o->quiet && out) {
        char *sum = ls_sens_summary_text(&S);
        if (sum) fputs(sum, out);
        fprintf(out, "runs      %ld (numerics computed %ld, replayed %ld), %.1f s; results in %s\n", S.runs, S.computed,
                S.replayed, ls_run_progress_now() - t0, o->out_dir);
        free(sum);
    }
    sens_free(&S);
    if (!rc && hook) {
        snprintf(err, errlen, "the analysis is in %s, but sensitivity.html was not written", o->out_dir);
        rc = 3;
    }
    return rc;
}
