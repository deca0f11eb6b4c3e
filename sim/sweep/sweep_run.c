/* The sweep runner: one forked worker process per point (at most `jobs` at a time) calling
 * ls_run in-process, a DONE marker per finished point, resume by skipping DONE points, clean
 * stop on SIGINT/SIGTERM, shards, progress, and reuse of numerics across points sharing a
 * cache key (one worker runs such a group: the timed model replays the numerics from its
 * in-process cache, and golden-only reports are copied with their config section replaced).
 *
 * Why fork + in-process ls_run rather than exec of the lampsim binary: the runner needs no path
 * to its own executable (works from tests linking lssweep and from any install layout), a point
 * runs exactly the configuration the parent expanded and checked (no re-parsing of a command
 * line), and each point still lives in its own process, so a crash, a leak or an abort in one
 * point cannot take the sweep down, and a worker can be killed without corrupting the others.
 * The parent never starts engine threads, so forking it is safe. */
#define _GNU_SOURCE /* prctl, strdup */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "atomic_file.h"
#include "fields.h"
#include "json.h"
#include "report.h"
#include "run.h"
#include "sweep.h"

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int mkdirs(const char *dir, char *err, size_t errlen)
{
    char path[LS_CFG_PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0777) && errno != EEXIST) goto fail;
        *p = '/';
    }
    if (mkdir(path, 0777) && errno != EEXIST) goto fail;
    return 0;
fail:
    snprintf(err, errlen, "%s: cannot create directory: %s", path, strerror(errno));
    return -1;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void point_dir(const char *out, const char *id, char *buf, size_t len)
{
    snprintf(buf, len, "%s/points/%s", out, id);
}

static bool point_done(const char *out, const char *id)
{
    char p[LS_CFG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/points/%s/DONE", out, id);
    return exists(p);
}

static int write_file(const char *dir, const char *name, const char *text, char *err, size_t errlen)
{
    char p[LS_CFG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return ls_atomic_write_file(p, text, strlen(text), err, errlen);
}

/* ---------------- reuse ---------------- */

/* Top-level sections that depend only on the numerics-relevant keys (ls_sweep_cache_key). Any
 * other section in a report (for instance timing figures from the timed model) makes the report
 * ineligible for reuse, and the point is run in full. */
static const char *const k_reusable[] = {"schema_version", "lampsim", "seed", "mode", "model", "workload",
                                         "numerics", "tiles", "recompute", "accuracy", "events", "config", NULL};

static bool reusable_name(const char *name, size_t len)
{
    for (int i = 0; k_reusable[i]; i++)
        if (strlen(k_reusable[i]) == len && !strncmp(k_reusable[i], name, len)) return true;
    return false;
}

static bool reusable_column(const char *col)
{
    const char *dot = strchr(col, '.');
    return reusable_name(col, dot ? (size_t)(dot - col) : strlen(col));
}

/* Skips one JSON value starting at t[i] (after whitespace); returns the index after it, or 0. */
static size_t json_skip_ws(const char *t, size_t i)
{
    while (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t') i++;
    return i;
}

static size_t json_skip_value(const char *t, size_t i)
{
    i = json_skip_ws(t, i);
    int depth = 0;
    do {
        char c = t[i];
        if (!c) return 0;
        if (c == '"') {
            for (i++; t[i] && t[i] != '"'; i++)
                if (t[i] == '\\' && t[i + 1]) i++;
            if (!t[i]) return 0;
            i++;
        } else if (c == '{' || c == '[') { depth++; i++; }
        else if (c == '}' || c == ']') { depth--; i++; }
        else if (depth == 0) {
            while (t[i] && !strchr(",}] \n\r\t", t[i])) i++;
        } else i++;
    } while (depth > 0);
    return i;
}

/* Walks the top-level object: checks every key is reusable and finds the span of "config"'s
 * value. Returns 0 when eligible. */
static int json_config_span(const char *t, size_t *s, size_t *e)
{
    size_t i = json_skip_ws(t, 0);
    if (t[i] != '{') return -1;
    i++;
    *s = *e = 0;
    for (;;) {
        i = json_skip_ws(t, i);
        if (t[i] == '}') break;
        if (t[i] != '"') return -1;
        size_t k0 = i + 1;
        size_t k1 = json_skip_value(t, i);
        if (!k1) return -1;
        size_t klen = k1 - 1 - k0;
        if (!reusable_name(t + k0, klen)) return -1;
        i = json_skip_ws(t, k1);
        if (t[i] != ':') return -1;
        size_t v0 = json_skip_ws(t, i + 1), v1 = json_skip_value(t, v0);
        if (!v1) return -1;
        if (klen == 6 && !strncmp(t + k0, "config", 6)) { *s = v0; *e = v1; }
        i = json_skip_ws(t, v1);
        if (t[i] == ',') i++;
    }
    return *e ? 0 : -1;
}

static void csv_cell(FILE *m, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) { fputs(s, m); return; }
    fputc('"', m);
    for (; *s; s++) {
        if (*s == '"') fputc('"', m);
        fputc(*s, m);
    }
    fputc('"', m);
}

/* Builds the report of cfg from a finished point's report with the same cache key: every
 * section but config is taken as is, config is cfg's own. Returns 0, or -1 when not eligible. */
static int reuse_report(const ls_config *cfg, const char *src_dir, char **json_out, char **csv_out)
{
    char p[LS_CFG_PATH_MAX + 64];
    char *sj = NULL, *sc = NULL, *tj = NULL, *nj = NULL, *nc = NULL;
    char **sh = NULL, **sr = NULL, **th = NULL, **tr = NULL;
    int nsh = 0, nsr = 0, nth = 0, ntr = 0, rc = -1;
    ls_fields cf;
    ls_json j;
    ls_fields_init(&cf);
    ls_json_init(&j);
    snprintf(p, sizeof p, "%s/report.json", src_dir);
    sj = ls_sweep_read_file(p, NULL);
    snprintf(p, sizeof p, "%s/report.csv", src_dir);
    sc = ls_sweep_read_file(p, NULL);
    if (!sj || !sc) goto out;
    ls_report_config_fields(&cf, cfg);
    ls_fields_to_json(&cf, &j);
    char *tcsv = ls_fields_to_csv(&cf);
    const char *tjt = ls_json_text(&j);
    if (!tcsv || !tjt) { free(tcsv); goto out; }
    tj = strdup(tjt);
    size_t pos = 0;
    nth = ls_csv_record(tcsv, &pos, &th);
    ntr = ls_csv_record(tcsv, &pos, &tr);
    free(tcsv);
    pos = 0;
    nsh = ls_csv_record(sc, &pos, &sh);
    nsr = ls_csv_record(sc, &pos, &sr);
    if (!tj || nth <= 0 || nth != ntr || nsh <= 0 || nsh != nsr) goto out;
    /* JSON: splice the config object */
    size_t s0, s1, t0, t1;
    if (json_config_span(sj, &s0, &s1) || json_config_span(tj, &t0, &t1)) goto out;
    size_t ls = strlen(sj), lt = t1 - t0;
    nj = malloc(ls - (s1 - s0) + lt + 1);
    if (!nj) goto out;
    memcpy(nj, sj, s0);
    memcpy(nj + s0, tj + t0, lt);
    memcpy(nj + s0 + lt, sj + s1, ls - s1 + 1);
    /* CSV: same columns; config.* values replaced by cfg's, every other column reusable */
    int nconf = 0;
    for (int c = 0; c < nsh; c++) {
        if (!reusable_column(sh[c])) goto out;
        if (!strncmp(sh[c], "config.", 7)) {
            int k = 0;
            while (k < nth && strcmp(th[k], sh[c])) k++;
            if (k == nth) goto out;
            free(sr[c]);
            sr[c] = strdup(tr[k]);
            if (!sr[c]) goto out;
            nconf++;
        }
    }
    if (nconf != nth) goto out;
    size_t clen = 0;
    FILE *m = open_memstream(&nc, &clen);
    if (!m) goto out;
    for (int c = 0; c < nsh; c++) { if (c) fputc(',', m); csv_cell(m, sh[c]); }
    fputc('\n', m);
    for (int c = 0; c < nsr; c++) { if (c) fputc(',', m); csv_cell(m, sr[c]); }
    fputc('\n', m);
    if (fclose(m)) goto out;
    *json_out = nj;
    *csv_out = nc;
    nj = nc = NULL;
    rc = 0;
out:
    free(sj); free(sc); free(tj); free(nj); free(nc);
    ls_csv_free(sh, nsh > 0 ? nsh : 0);
    ls_csv_free(sr, nsr > 0 ? nsr : 0);
    ls_csv_free(th, nth > 0 ? nth : 0);
    ls_csv_free(tr, ntr > 0 ? ntr : 0);
    ls_fields_free(&cf);
    ls_json_free(&j);
    return rc;
}

static char *run_info(const ls_config *cfg, const char *reused_from, double wall)
{
    ls_json j;
    ls_json_init(&j);
    ls_run_info_begin(&j, cfg, cfg->algorithm.threads);
    ls_json_double(&j, "wall_seconds", wall);
    ls_json_string(&j, "reused_from", reused_from);
    ls_json_end_object(&j);
    const char *t = ls_json_text(&j);
    char *out = t ? strdup(t) : NULL;
    ls_json_free(&j);
    return out;
}

/* Writes point dir from src_dir's numerics. Returns 0, -1 when not eligible, 1 on I/O error. */
static int reuse_point(const ls_config *cfg, const char *dir, const char *src_dir, const char *src_id, char *err,
                       size_t errlen)
{
    char *json = NULL, *csv = NULL, *info = NULL;
    double t0 = now_s();
    if (reuse_report(cfg, src_dir, &json, &csv)) return -1;
    int rc = 1;
    char p[LS_CFG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/config.resolved.yaml", dir);
    if (ls_config_write_resolved_file(cfg, p, err, errlen)) goto out;
    info = run_info(cfg, src_id, now_s() - t0);
    if (!info) goto out;
    if (write_file(dir, "report.csv", csv, err, errlen) || write_file(dir, "run_info.json", info, err, errlen) ||
        write_file(dir, "report.json", json, err, errlen))
        goto out;
    rc = 0;
out:
    free(json);
    free(csv);
    free(info);
    return rc;
}

/* ---------------- workers ---------------- */

/* How a point's numerics were obtained (second line of its DONE marker). */
#define DONE_COMPUTED "-"
#define DONE_REPLAYED "replay" /* the timed model replayed them from its in-process cache */

/* Runs (or reuses) one point in the worker and marks it DONE or FAILED. src_id: a finished point
 * with the same cache key, or NULL. Returns 0 when done (*how: 0 computed, 1 report reused,
 * 2 replayed by the timed model). */
static int run_point(const ls_sweep *sw, const ls_sweep_point *pt, const char *out, const char *src_id, int *how)
{
    char dir[LS_CFG_PATH_MAX], err[2048] = "";
    int rc = 0;
    *how = 0;
    point_dir(out, pt->id, dir, sizeof dir);
    ls_config *cfg = malloc(sizeof *cfg);
    if (!cfg) return 1;
    if (mkdirs(dir, err, sizeof err)) rc = 1;
    else rc = ls_sweep_point_config(sw, pt, cfg, err, sizeof err);
    /* temporaries of an attempt killed mid-write (ls_atomic_* names them .NAME.XXXXXX) */
    DIR *dd = rc ? NULL : opendir(dir);
    if (dd) {
        for (struct dirent *e; (e = readdir(dd));) {
            if (e->d_name[0] != '.' || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char tp[LS_CFG_PATH_MAX + 300];
            snprintf(tp, sizeof tp, "%s/%s", dir, e->d_name);
            unlink(tp);
        }
        closedir(dd);
    }
    /* a stale FAILED marker from an earlier attempt goes first */
    char fp[LS_CFG_PATH_MAX + 64];
    snprintf(fp, sizeof fp, "%s/FAILED", dir);
    unlink(fp);
    if (!rc && src_id) {
        char sdir[LS_CFG_PATH_MAX];
        point_dir(out, src_id, sdir, sizeof sdir);
        int r = reuse_point(cfg, dir, sdir, src_id, err, sizeof err);
        if (r == 0) *how = 1;
        else if (r > 0) rc = 1;
    }
    if (!rc && !*how) {
        ls_run_opts ro = {0};
        ro.out_dir = dir;
        ro.force = true;
        ro.quiet = true;
        rc = ls_run(cfg, &ro, err, sizeof err);
        if (!rc) {
            snprintf(fp, sizeof fp, "%s/run_info.json", dir);
            char *info = ls_sweep_read_file(fp, NULL);
            if (info && strstr(info, "\"numerics_reused\": true")) *how = 2;
            free(info);
        }
    }
    if (!rc) {
        char done[128];
        snprintf(done, sizeof done, "%s\n%s\n", pt->id, *how == 1 ? src_id : *how == 2 ? DONE_REPLAYED : DONE_COMPUTED);
        if (write_file(dir, "DONE", done, err, sizeof err)) rc = 1;
    }
    if (rc) {
        char msg[2200];
        snprintf(msg, sizeof msg, "%s\n", err[0] ? err : "run failed");
        write_file(dir, "FAILED", msg, err, sizeof err);
    }
    free(cfg);
    return rc;
}

/* The child: runs the points of one job in order (points sharing a cache key, so the later ones
 * reuse the first one's numerics: its report, or the timed model's in-process cache). */
static void worker(const ls_sweep *sw, const int *job, int njob, const char *out, const char *src_id)
{
    const char *src = src_id;
    for (int k = 0; k < njob; k++) {
        int how;
        const ls_sweep_point *pt = &sw->points[job[k]];
        if (!run_point(sw, pt, out, src, &how) && !src) src = pt->id;
    }
    /* _exit: the worker still holds the parent's allocations (the sweep, the slots), which
     * LeakSanitizer would report; ls_run itself is leak-checked by the `lampsim run` tests */
    fflush(NULL);
    _exit(0);
}

typedef struct {
    pid_t pid;
    int *pts;   /* the job's points */
    int npts;
    double start;
} slot;

/* wall_seconds of a point's run_info.json, or -1 */
static double point_wall(const char *out, const char *id)
{
    char p[LS_CFG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/points/%s/run_info.json", out, id);
    char *t = ls_sweep_read_file(p, NULL);
    double w = -1;
    const char *k = t ? strstr(t, "\"wall_seconds\":") : NULL;
    if (k) w = strtod(k + 15, NULL);
    free(t);
    return w;
}

/* How a finished point got its numerics: 0 computed, 1 report reused, 2 replayed. */
static int point_how(const char *out, const char *id)
{
    char p[LS_CFG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/points/%s/DONE", out, id);
    char *t = ls_sweep_read_file(p, NULL);
    int how = 0;
    const char *l2 = t ? strchr(t, '\n') : NULL;
    if (l2) {
        l2++;
        if (!strncmp(l2, DONE_REPLAYED, strlen(DONE_REPLAYED))) how = 2;
        else if (strncmp(l2, DONE_COMPUTED "\n", 2)) how = 1;
    }
    free(t);
    return how;
}

static const ls_sweep *g_sort_sweep; /* qsort has no context argument in C11 */

static int by_cache_key(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(g_sort_sweep->points[x].cache_key, g_sort_sweep->points[y].cache_key);
    return c ? c : (x > y) - (x < y);
}

static void fmt_hms(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

int ls_sweep_run(const ls_sweep *sw, const ls_sweep_run_opts *o, char *err, size_t errlen)
{
    const char *out = o->out_dir;
    int jobs = o->jobs > 0 ? o->jobs : 1;
    char path[LS_CFG_PATH_MAX + 64];
    /* selection */
    int n = sw->npoints;
    char *sel = calloc((size_t)n, 1);       /* 1 pending, 2 finished before, 3 running, 4 finished now, 5 failed */
    if (!sel) return 1;
    for (int p = 0; p < n; p++) sel[p] = o->shard_n <= 0 || p % o->shard_n == o->shard_i;
    if (o->nonly > 0) {
        char *want = calloc((size_t)n, 1);
        if (!want) { free(sel); return 1; }
        for (int k = 0; k < o->nonly; k++) {
            const char *q = o->only[k];
            int found = -1;
            char *end;
            long idx = strtol(q, &end, 10);
            for (int p = 0; p < n && found < 0; p++)
                if (!strcmp(sw->points[p].id, q)) found = p;
            if (found < 0 && *q && !*end && idx >= 0 && idx < n && strlen(q) < 10) found = (int)idx;
            if (found < 0) {
                snprintf(err, errlen, "--point %s: no such point id or index in %s (%d points)", q, sw->file, n);
                free(want);
                free(sel);
                return 2;
            }
            want[found] = 1;
        }
        for (int p = 0; p < n; p++) sel[p] = sel[p] && want[p];
        free(want);
    }
    if (mkdirs(out, err, errlen)) { free(sel); return 2; }
    snprintf(path, sizeof path, "%s/points", out);
    if (mkdirs(path, err, errlen)) { free(sel); return 2; }
    /* the manifest and a copy of the sweep file, for merge and report */
    char *man = ls_sweep_manifest_text(sw);
    if (!man) { snprintf(err, errlen, "out of memory"); free(sel); return 1; }
    snprintf(path, sizeof path, "%s/manifest.tsv", out);
    char *old = ls_sweep_read_file(path, NULL);
    int wrc = 0;
    if (!old || strcmp(old, man)) wrc = ls_atomic_write_file(path, man, strlen(man), err, errlen);
    free(old);
    free(man);
    if (wrc) { free(sel); return 1; }
    char *stext = ls_sweep_read_file(sw->file, NULL);
    if (stext) {
        snprintf(path, sizeof path, "%s/sweep.yaml", out);
        old = ls_sweep_read_file(path, NULL);
        if (!old || strcmp(old, stext)) wrc = ls_atomic_write_file(path, stext, strlen(stext), err, errlen);
        free(old);
        free(stext);
        if (wrc) { free(sel); return 1; }
    }

    int total = 0, before = 0;
    for (int p = 0; p < n; p++) {
        if (!sel[p]) continue;
        total++;
        if (point_done(out, sw->points[p].id)) { sel[p] = 2; before++; }
    }

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_stop = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    /* points grouped by cache key: order[] sorted by key, [grp_lo[p], grp_hi[p]) p's group in it */
    int *order = malloc((size_t)n * sizeof *order), *grp_lo = malloc((size_t)n * sizeof *grp_lo),
        *grp_hi = malloc((size_t)n * sizeof *grp_hi);
    if (!order || !grp_lo || !grp_hi) {
        free(order); free(grp_lo); free(grp_hi); free(sel);
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    for (int p = 0; p < n; p++) order[p] = p;
    g_sort_sweep = sw;
    qsort(order, (size_t)n, sizeof *order, by_cache_key);
    for (int k = 0; k < n;) {
        int e = k + 1;
        while (e < n && !strcmp(sw->points[order[e]].cache_key, sw->points[order[k]].cache_key)) e++;
        for (int j = k; j < e; j++) { grp_lo[order[j]] = k; grp_hi[order[j]] = e; }
        k = e;
    }

    int progress = o->quiet ? -2 : o->progress >= 0 ? o->progress : isatty(2) ? 1 : 0;
    slot *slots = calloc((size_t)jobs, sizeof *slots);
    int *jobbuf = malloc((size_t)n * sizeof *jobbuf);
    if (!slots || !jobbuf) { free(slots); free(jobbuf); free(sel); free(order); free(grp_lo); free(grp_hi); return 1; }
    int running = 0, done_now = 0, failed = 0, reused = 0, next = 0, killed = 0;
    double t_start = now_s();
    if (progress >= 0)
        fprintf(stderr, "sweep %s: %d points%s, %d already done, %d to run, %d worker%s, results in %s\n", sw->name,
                total, o->shard_n > 0 ? " in this shard" : "", before, total - before, jobs, jobs > 1 ? "s" : "", out);
    for (;;) {
        /* launch: a job is a pending point plus (with reuse) its pending siblings of the same cache
         * key, run in order by one worker: the first computes the numerics, the others reuse them
         * (cheap: a report copy, or a timing-only replay in the timed model) */
        while (!g_stop && running < jobs) {
            int pick = -1;
            for (int p = next; p < n && pick < 0; p++)
                if (sel[p] == 1) pick = p;
            if (pick < 0) break;
            const char *src = NULL;
            int nj = 0;
            jobbuf[nj++] = pick;
            if (o->reuse)
                for (int k = grp_lo[pick]; k < grp_hi[pick]; k++) {
                    int q = order[k];
                    if (q == pick) continue;
                    if (!src && (sel[q] == 2 || sel[q] == 4 || (sel[q] == 0 && point_done(out, sw->points[q].id))))
                        src = sw->points[q].id;
                    else if (sel[q] == 1)
                        jobbuf[nj++] = q;
                }
            fflush(NULL);
            pid_t pid = fork();
            if (pid < 0) {
                snprintf(err, errlen, "fork: %s", strerror(errno));
                g_stop = -1;
                break;
            }
            if (pid == 0) {
                signal(SIGINT, SIG_DFL);
                signal(SIGTERM, SIG_DFL);
#ifdef __linux__
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() == 1) _exit(1);
#endif
                worker(sw, jobbuf, nj, out, src);
            }
            int s = 0;
            while (s < jobs && slots[s].pid) s++;
            slots[s].pid = pid;
            slots[s].pts = malloc((size_t)nj * sizeof *slots[s].pts);
            if (slots[s].pts) memcpy(slots[s].pts, jobbuf, (size_t)nj * sizeof *jobbuf);
            slots[s].npts = slots[s].pts ? nj : 0;
            slots[s].start = now_s();
            for (int k = 0; k < nj; k++) sel[jobbuf[k]] = 3;
            running++;
            while (next < n && sel[next] != 1) next++;
        }
        if (!running) break;
        if (g_stop > 0 && !killed) { /* stop requested outside waitpid */
            for (int s = 0; s < jobs; s++)
                if (slots[s].pid) kill(slots[s].pid, SIGTERM);
            killed = 1;
        }
        /* reap */
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) {
                if (g_stop > 0 && !killed) {
                    for (int s = 0; s < jobs; s++)
                        if (slots[s].pid) kill(slots[s].pid, SIGTERM);
                    killed = 1;
                }
                continue;
            }
            break;
        }
        int s = 0;
        while (s < jobs && slots[s].pid != pid) s++;
        if (s == jobs) continue;
        slots[s].pid = 0;
        running--;
        for (int k = 0; k < slots[s].npts; k++) {
            int p = slots[s].pts[k];
            const ls_sweep_point *pt = &sw->points[p];
            char dir[LS_CFG_PATH_MAX], fp[LS_CFG_PATH_MAX + 64], e2[256];
            point_dir(out, pt->id, dir, sizeof dir);
            int how = -1;
            if (point_done(out, pt->id)) {
                sel[p] = 4;
                done_now++;
                how = point_how(out, pt->id);
                if (how) reused++;
            } else {
                snprintf(fp, sizeof fp, "%s/FAILED", dir);
                char *why = ls_sweep_read_file(fp, NULL);
                if (!why && g_stop && (!WIFEXITED(status) || WEXITSTATUS(status))) {
                    sel[p] = 1; /* stopped before finishing: a later run redoes it */
                    if (next > p) next = p;
                    continue;
                }
                sel[p] = 5;
                failed++;
                if (!why) {
                    char msg[128];
                    if (WIFSIGNALED(status)) snprintf(msg, sizeof msg, "worker killed by signal %d\n", WTERMSIG(status));
                    else snprintf(msg, sizeof msg, "worker exited (status %d) before finishing the point\n",
                                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
                    write_file(dir, "FAILED", msg, e2, sizeof e2);
                    why = strdup(msg);
                }
                if (why) {
                    size_t l = strlen(why);
                    if (l && why[l - 1] == '\n') why[l - 1] = '\0';
                }
                if (progress == 1) fputs("\r\033[K", stderr);
                if (progress >= 0) fprintf(stderr, "point %d %s FAILED: %s\n", p, pt->id, why ? why : "?");
                free(why);
            }
            if (progress >= 0) {
                int fin = before + done_now + failed;
                double el = now_s() - t_start;
                int left = total - fin;
                char e1[32], e3[32] = "?";
                fmt_hms(el, e1, sizeof e1);
                if (done_now + failed > 0) fmt_hms(el / (done_now + failed) * left, e3, sizeof e3);
                if (progress == 1) {
                    fprintf(stderr, "\r\033[K[%d/%d] %3.0f%%  %d running  %d failed  elapsed %s  ETA %s", fin, total,
                            total ? 100.0 * fin / total : 100.0, running, failed, e1, left ? e3 : "0:00");
                } else if (how >= 0) {
                    static const char *const hows[] = {"done", "reused", "replayed"};
                    fprintf(stderr, "[%d/%d] point %d %s %s in %.2f s:", fin, total, p, pt->id, hows[how],
                            point_wall(out, pt->id));
                    for (int a = 0; a < sw->naxes; a++) fprintf(stderr, " %s", pt->overrides[a]);
                    fputc('\n', stderr);
                }
                fflush(stderr);
            }
        }
        free(slots[s].pts);
        slots[s].pts = NULL;
        slots[s].npts = 0;
    }
    if (progress == 1) fputc('\n', stderr);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    int remaining = 0;
    for (int p = 0; p < n; p++)
        if (sel[p] == 1) remaining++;
    double wall = now_s() - t_start;
    if (progress >= -1)
        fprintf(stderr, "sweep %s: %d/%d points done (%d now: %d computed, %d reused; %d before), %d failed, %d not run, %.1f s\n",
                sw->name, before + done_now, total, done_now, done_now - reused, reused, before, failed, remaining, wall);
    int rc = 0;
    if (g_stop > 0) {
        if (progress >= -1) fprintf(stderr, "sweep interrupted: finished points are kept; run the same command again to resume\n");
        rc = 130;
    } else if (g_stop < 0) rc = 1;
    else if (failed || remaining) rc = 1;
    for (int s = 0; s < jobs; s++) free(slots[s].pts);
    free(slots);
    free(jobbuf);
    free(sel);
    free(order);
    free(grp_lo);
    free(grp_hi);
    return rc;
}
