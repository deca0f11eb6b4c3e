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
 * The parent never starts engine threads, so forking it is safe.
 *
 * Several runners may share one sweep directory (shards, GNU parallel, cluster jobs on a shared
 * filesystem): a point is claimed by an flock on DIR/claims/ID before it is launched, held by
 * its worker until it exits (so a killed runner's claims vanish with it), and DONE is checked
 * again under the claim. Points claimed elsewhere are waited for, then counted as the other
 * runner left them; only the claim holder touches a point's files and temporaries. */
#define _GNU_SOURCE /* prctl, strdup */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "atomic_dir.h"
#include "atomic_file.h"
#include "run.h"
#include "sweep.h"
#include "sweep_progress.h"
#include "sweep_reuse.h"

static volatile sig_atomic_t g_stop;

static void on_signal(int sig) { g_stop = sig; }

static bool exists(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0;
}

/* Whether a point's directory (DIR/points/NAME) holds MARKER. */
static bool point_has(const char *pdir, const char *marker)
{
    char *p = ls_io_path_join(pdir, marker);
    bool r = exists(p);
    free(p);
    return r;
}

static bool point_done(const char *pdir) { return point_has(pdir, "DONE"); }

/* A failure of the filesystem itself (as opposed to one of the point): the runner stops
 * launching, since every further point would fail the same way. */
static bool filesystem_error(const char *msg)
{
    static const int codes[] = {ENOSPC, EDQUOT, EROFS, EIO, EFBIG};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (strstr(msg, strerror(codes[i]))) return true;
    return false;
}

/* ---------------- claims ---------------- */

/* Claims point id for this runner: an exclusive flock on DIR/claims/ID (the file records the
 * owner's pid and host for people; the lock itself is what counts, and the kernel drops it when
 * the last process holding it exits). Returns the descriptor holding it, -1 when another runner
 * holds it, -2 on an error (err set). */
static int claim(const char *out, const char *id, char *err, size_t errlen)
{
    char *p = ls_io_path_fmt("%s/claims/%s", out, id);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create the claim file: %s", p, strerror(errno));
        free(p);
        return -2;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK) {
            free(p);
            return -1;
        }
        snprintf(err, errlen, "%s: cannot lock: %s", p, strerror(e));
        free(p);
        return -2;
    }
    free(p);
    char host[256] = "", who[320];
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    int n = snprintf(who, sizeof who, "%ld %s\n", (long)getpid(), host);
    if (ftruncate(fd, 0) == 0 && write(fd, who, (size_t)n) != n) { /* informational only */ }
    return fd;
}

/* Removes what an earlier attempt at point id left: temporaries inside its directory (ls_atomic_*
 * names them .NAME.XXXXXX) and a stale FAILED marker. Called with the point claimed. */
static void clean_point(const char *dir)
{
    DIR *dd = opendir(dir);
    if (dd) {
        for (struct dirent *e; (e = readdir(dd));) {
            if (e->d_name[0] != '.' || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char *tp = ls_io_path_join(dir, e->d_name);
            if (tp) (void)ls_io_remove_tree(tp);
            free(tp);
        }
        closedir(dd);
    }
    char *fp = ls_io_path_join(dir, "FAILED");
    if (fp) unlink(fp);
    free(fp);
}

/* The point whose directory is called name (length len), or -1. */
static int point_named(const ls_sweep *sw, char *const *names, const char *name, size_t len)
{
    for (int p = 0; p < sw->npoints; p++)
        if (strlen(names[p]) == len && !strncmp(names[p], name, len)) return p;
    return -1;
}

/* Run directories a killed worker left in DIR/points (ls_atomic_dir names them .NAME.run.XXXXXX):
 * removed once at start, each only when its point's claim is free (no runner is writing it). */
static void clean_stale_runs(const char *out, const ls_sweep *sw, char *const *names)
{
    char *pd = ls_io_path_join(out, "points");
    DIR *dd = pd ? opendir(pd) : NULL;
    if (dd) {
        for (struct dirent *e; (e = readdir(dd));) {
            size_t l = strlen(e->d_name);
            const char *tail = l > 12 ? e->d_name + l - 11 : NULL; /* ".run.XXXXXX" */
            if (e->d_name[0] != '.' || !tail || strncmp(tail, ".run.", 5)) continue;
            int p = point_named(sw, names, e->d_name + 1, (size_t)(tail - e->d_name - 1));
            if (p < 0) continue;
            char err[64];
            int fd = claim(out, sw->points[p].id, err, sizeof err);
            if (fd < 0) continue;
            char *tp = ls_io_path_join(pd, e->d_name);
            if (tp) (void)ls_io_remove_tree(tp);
            free(tp);
            close(fd);
        }
        closedir(dd);
    }
    free(pd);
}

/* ---------------- workers ---------------- */

/* How a point's numerics were obtained (second line of its DONE marker). */
#define DONE_COMPUTED "-"
#define DONE_REPLAYED "replay" /* the timed model replayed them from its in-process cache */


/* Outcome of one point in a worker. */
enum { PT_DONE, PT_FAILED, PT_FS_ERROR };

/* Runs (or reuses) one point in the worker, in its directory dir, and marks it DONE or FAILED.
 * src_id, src_dir: a finished point with the same cache key, or NULL. Returns PT_DONE (*how: 0 computed, 1 report reused,
 * 2 replayed by the timed model), PT_FAILED (FAILED written), or PT_FS_ERROR: the filesystem
 * failed (full, read-only, ...), why in msg, whether or not FAILED could be written. */
static int run_point(const ls_sweep *sw, const ls_sweep_point *pt, const char *pdir, const char *src_id,
                     const char *src_dir, ls_sweep_items *pi, int *how, char *msg, size_t msglen)
{
    char err[2048] = "";
    int rc = 0;
    *how = 0;
    char *dir = strdup(pdir);
    ls_config *cfg = malloc(sizeof *cfg);
    if (!cfg || !dir) {
        free(cfg);
        free(dir);
        snprintf(msg, msglen, "out of memory");
        return PT_FS_ERROR;
    }
    if (ls_io_make_dirs(dir, err, sizeof err)) rc = 1;
    else rc = ls_sweep_point_config(sw, pt, cfg, err, sizeof err);
    if (!rc) clean_point(dir);
    /* the inputs' identity before they are read: a file rewritten after this is seen by the next resume */
    char *ident = rc ? NULL : ls_sweep_input_identity(cfg);
    if (!rc && !ident) {
        snprintf(err, sizeof err, "out of memory");
        rc = 1;
    }
    if (!rc && src_id) {
        int r = ls_sweep_reuse_point(cfg, dir, src_dir, src_id, err, sizeof err);
        if (r == 0) *how = 1;
        else if (r > 0) rc = 1;
    }
    if (!rc && !*how) {
        ls_run_opts ro = {0};
        ro.out_dir = dir;
        ro.force = true;
        ro.quiet = true;
        ro.on_items = pi ? ls_sweep_items_update : NULL;
        ro.on_items_user = pi;
        rc = ls_run(cfg, &ro, err, sizeof err);
        if (!rc) {
            char *info = ls_sweep_read_in(dir, "run_info.json");
            if (info && strstr(info, "\"numerics_reused\": true")) *how = 2;
            free(info);
        }
    }
    if (!rc) {
        char *done = ls_io_path_fmt("%s\n%s\n%s", pt->id, *how == 1 ? src_id : *how == 2 ? DONE_REPLAYED : DONE_COMPUTED,
                                    ident);
        if (!done) snprintf(err, sizeof err, "out of memory");
        if (!done || ls_sweep_write_in(dir, "DONE", done, err, sizeof err)) rc = 1;
        free(done);
    }
    free(ident);
    int outcome = rc ? PT_FAILED : PT_DONE;
    if (rc) {
        char text[2200], e2[1024] = "";
        snprintf(text, sizeof text, "%s\n", err[0] ? err : "run failed");
        snprintf(msg, msglen, "%s", err[0] ? err : "run failed");
        if (ls_sweep_write_in(dir, "FAILED", text, e2, sizeof e2)) {
            snprintf(msg, msglen, "%s; the FAILED marker cannot be written either: %s", err[0] ? err : "run failed", e2);
            outcome = PT_FS_ERROR;
        } else if (filesystem_error(err)) {
            outcome = PT_FS_ERROR;
        }
    }
    free(cfg);
    free(dir);
    return outcome;
}

/* The child: runs the points of one job in order (points sharing a cache key, so the later ones
 * reuse the first one's numerics: its report, or the timed model's in-process cache). A
 * filesystem error ends the job: its message goes to the parent through report_fd as
 * "INDEX TAB MESSAGE NEWLINE", and the worker exits with status 3. */
static void worker(const ls_sweep *sw, const int *job, int njob, char *const *pdir, int src, int report_fd,
                   ls_sweep_items *items)
{
    int status = 0;
    for (int k = 0; k < njob; k++) {
        int how;
        char msg[3300] = "";
        const ls_sweep_point *pt = &sw->points[job[k]];
        int r = run_point(sw, pt, pdir[job[k]], src >= 0 ? sw->points[src].id : NULL, src >= 0 ? pdir[src] : NULL,
                          items ? &items[job[k]] : NULL, &how, msg, sizeof msg);
        if (r == PT_DONE && src < 0) src = job[k];
        if (r == PT_FS_ERROR) {
            for (char *c = msg; *c; c++)
                if (*c == '\n' || *c == '\t') *c = ' ';
            dprintf(report_fd, "%d\t%s\n", job[k], msg);
            status = 3;
            break;
        }
    }
    /* _exit: the worker still holds the parent's allocations (the sweep, the slots), which
     * LeakSanitizer would report; ls_run itself is leak-checked by the `lampsim run` tests */
    fflush(NULL);
    _exit(status);
}

typedef struct {
    pid_t pid;
    int *pts;   /* the job's points */
    int npts;
    double start;
    int report_fd; /* read end of the worker's report pipe */
} slot;

/* wall_seconds of a point's run_info.json, or -1 */
static double point_wall(const char *pdir)
{
    char *p = ls_io_path_join(pdir, "run_info.json");
    char *t = p ? ls_sweep_read_file(p, NULL) : NULL;
    double w = -1;
    const char *k = t ? strstr(t, "\"wall_seconds\":") : NULL;
    if (k) w = strtod(k + 15, NULL);
    free(t);
    free(p);
    return w;
}

/* How a finished point got its numerics (the order of the progress lines' words). */
typedef enum { HOW_COMPUTED, HOW_REUSED, HOW_REPLAYED } point_how_t;

/* How a finished point got its numerics, from the second line of its DONE marker. */
static point_how_t point_how(const char *pdir)
{
    char *p = ls_io_path_join(pdir, "DONE");
    char *t = p ? ls_sweep_read_file(p, NULL) : NULL;
    point_how_t how = HOW_COMPUTED;
    const char *l2 = t ? strchr(t, '\n') : NULL;
    if (l2) {
        l2++;
        if (!strncmp(l2, DONE_REPLAYED, strlen(DONE_REPLAYED))) how = HOW_REPLAYED;
        else if (strncmp(l2, DONE_COMPUTED "\n", 2)) how = HOW_REUSED;
    }
    free(t);
    free(p);
    return how;
}

/* The message a worker reported for point p on its pipe (malloc'ed), or NULL. */
static char *reported(const char *text, int p)
{
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char *end;
        long idx = strtol(l, &end, 10);
        if (end != l && *end == '\t' && idx == p) return strndup(end + 1, len - (size_t)(end + 1 - l));
        l = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* Everything a finished worker wrote to its pipe (malloc'ed), closing it. */
static char *drain(int fd)
{
    size_t n = 0, cap = 256;
    char *b = malloc(cap);
    for (ssize_t r; b;) {
        if (n + 1 >= cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) { free(b); b = NULL; break; }
            b = nb;
        }
        r = read(fd, b + n, cap - n - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
    }
    if (b) b[n] = '\0';
    close(fd);
    return b;
}

static const ls_sweep *g_sort_sweep; /* qsort has no context argument in C11 */

static int by_cache_key(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(g_sort_sweep->points[x].cache_key, g_sort_sweep->points[y].cache_key);
    return c ? c : (x > y) - (x < y);
}

/* Writes text to DIR/name unless it already holds exactly that (several runners start alike). */
static int write_if_changed(const char *out, const char *name, const char *text, char *err, size_t errlen)
{
    char *old = ls_sweep_read_in(out, name);
    int rc = !old || strcmp(old, text) ? ls_sweep_write_in(out, name, text, err, errlen) : 0;
    free(old);
    return rc;
}

/* States of a point in the runner (one char per point in runner.sel; S_OFF = not selected). */
typedef enum point_state {
    S_OFF,              /* not in this run's selection (shard, --point) */
    S_PENDING,          /* to run */
    S_DONE_BEFORE,      /* DONE when the run started */
    S_RUNNING,          /* in a worker's job */
    S_DONE_NOW,         /* finished by this run */
    S_FAILED,           /* failed in this run */
    S_ELSEWHERE,        /* claimed by another runner: waited for */
    S_DONE_ELSEWHERE,   /* ... which finished it */
    S_FAILED_ELSEWHERE  /* ... which failed it */
} point_state;

/* Points another runner held: once its claim is free, count them as it left them, or (its runner
 * died or stopped first) make them pending again. Returns how many are still held. */
static int poll_elsewhere(const ls_sweep *sw, const char *out, char *const *names, char *const *pdir, char *sel,
                          int *next)
{
    int held = 0, reclaimed = 0;
    for (int p = 0; p < sw->npoints; p++) {
        if (sel[p] != S_ELSEWHERE) continue;
        char err[64];
        int fd = claim(out, sw->points[p].id, err, sizeof err);
        if (fd == -1) { held++; continue; }
        if (point_done(pdir[p])) sel[p] = S_DONE_ELSEWHERE;
        else if (point_has(pdir[p], "FAILED")) sel[p] = S_FAILED_ELSEWHERE;
        else {
            sel[p] = S_PENDING;
            if (*next > p) *next = p;
            reclaimed = 1;
        }
        if (fd >= 0) close(fd);
    }
    if (reclaimed) clean_stale_runs(out, sw, names); /* the other runner died: what its workers were writing */
    return held;
}

/* ls_run_check of every selected point. Returns 0, or -1 with the first failure in err. */
static int check_points(const ls_sweep *sw, const char *sel, char *err, size_t errlen)
{
    ls_config *cfg = malloc(sizeof *cfg);
    if (!cfg) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    char e[2048];
    for (int p = 0; p < sw->npoints && !rc; p++) {
        const ls_sweep_point *pt = &sw->points[p];
        if (!sel[p] || (!ls_sweep_point_config(sw, pt, cfg, e, sizeof e) && !ls_run_check(cfg, e, sizeof e))) continue;
        size_t o = (size_t)snprintf(err, errlen, "%s: point %d (", sw->file, p);
        for (int a = 0; a < sw->naxes && o < errlen; a++)
            o += (size_t)snprintf(err + o, errlen - o, "%s%s", a ? ", " : "", pt->overrides[a]);
        if (o < errlen) snprintf(err + o, errlen - o, "): %s", e);
        rc = -1;
    }
    free(cfg);
    return rc;
}

/* The share of this run's work done: a point computing its numerics weighs 1 (a running one by
 * its work items done), a point reusing another's weighs nothing (a replay or a report copy takes
 * about 1% of a computed point), so the ETA does not assume every point costs the same. */
static double work_share(const ls_sweep *sw, const char *sel, const char *computes, const ls_sweep_items *items,
                         int work_total)
{
    if (work_total <= 0) return 1.0;
    double w = 0;
    for (int p = 0; p < sw->npoints; p++) {
        if (!computes[p]) continue;
        if (sel[p] == S_DONE_NOW || sel[p] == S_FAILED) w += 1;
        else if (sel[p] == S_RUNNING && items) w += ls_sweep_items_fraction(&items[p]);
    }
    return w / work_total;
}


/* Point directories named by point id (before points had names) renamed to their names, each
 * under its claim, so such a sweep directory resumes. */
static void adopt_id_dirs(const ls_sweep *sw, const char *out, char *const *names, char *const *pdir, const char *sel)
{
    for (int p = 0; p < sw->npoints; p++) {
        if (!sel[p] || !strcmp(names[p], sw->points[p].id)) continue;
        char *old = ls_io_path_fmt("%s/points/%s", out, sw->points[p].id);
        struct stat st;
        if (old && stat(old, &st) == 0 && S_ISDIR(st.st_mode) && !exists(pdir[p])) {
            char err[64];
            int fd = claim(out, sw->points[p].id, err, sizeof err);
            if (fd >= 0) {
                if (!exists(pdir[p])) (void)rename(old, pdir[p]);
                close(fd);
            }
        }
        free(old);
    }
}

/* Everything one run of the runner owns; released in one place (runner_free). */
typedef struct {
    const ls_sweep *sw;
    const ls_sweep_run_opts *o;
    char *const *names, *const *pdir;
    char *err;
    size_t errlen;
    const char *out;
    int n, jobs;
    char *sel;                     /* point_state per point */
    char **ident;                  /* ls_sweep_input_identity of each point's configuration */
    int *order, *grp_lo, *grp_hi;  /* points sorted by cache key; [grp_lo[p], grp_hi[p]) p's group in order[] */
    char *computes;                /* 1: the point is expected to compute its numerics */
    int work_total;                /* how many do */
    slot *slots;                   /* [jobs] */
    int *jobbuf, *fdbuf;           /* the job being launched: its points and their claims */
    ls_sweep_items *items;         /* shared with the workers (sweep_progress.h), or NULL */
    int progress;                  /* 1 live, 0 lines, -1 none, -2 quiet */
    ls_run_progress pg;
    int total, before, running, done_now, failed, reused, next, killed, elsewhere;
    char fs_error[3400];           /* the first filesystem error: no more launches */
    double t_start;
    bool signals_set;
    struct sigaction old_int, old_term;
} runner;

/* Whether point p is DONE and its marker still vouches for it (ls_sweep_done_stale). */
static bool point_current(runner *r, int p)
{
    if (!point_done(r->pdir[p])) return false;
    char *why = ls_sweep_done_stale(r->pdir[p], r->sw->points[p].id, r->ident[p]);
    free(why);
    return !why;
}

/* Each point's input identity (ls_sweep_input_identity). Returns 0, 1 (out of memory) or 2 (err: a point's configuration). */
static int identify_inputs(runner *r)
{
    r->ident = calloc((size_t)(r->n > 0 ? r->n : 1), sizeof *r->ident);
    ls_config *cfg = malloc(sizeof *cfg);
    int rc = r->ident && cfg ? 0 : 1;
    for (int p = 0; p < r->n && !rc; p++) {
        if (ls_sweep_point_config(r->sw, &r->sw->points[p], cfg, r->err, r->errlen)) rc = 2;
        else if (!(r->ident[p] = ls_sweep_input_identity(cfg))) rc = 1;
    }
    free(cfg);
    return rc;
}

/* The points this run covers: the shard, then --point. Returns 0, 1 (out of memory) or 2 (err). */
static int select_points(runner *r)
{
    const ls_sweep_run_opts *o = r->o;
    int n = r->n;
    for (int p = 0; p < n; p++) r->sel[p] = o->shard_n <= 0 || p % o->shard_n == o->shard_i ? S_PENDING : S_OFF;
    if (o->nonly > 0) {
        char *want = calloc((size_t)n, 1);
        if (!want) return 1;
        for (int k = 0; k < o->nonly; k++) {
            const char *q = o->only[k];
            int found = -1;
            char *end;
            long idx = strtol(q, &end, 10);
            for (int p = 0; p < n && found < 0; p++)
                if (!strcmp(r->sw->points[p].id, q)) found = p;
            if (found < 0 && *q && !*end && idx >= 0 && idx < n && strlen(q) < 10) found = (int)idx;
            if (found < 0) {
                snprintf(r->err, r->errlen, "--point %s: no such point id or index in %s (%d points)", q, r->sw->file, n);
                free(want);
                return 2;
            }
            want[found] = 1;
        }
        for (int p = 0; p < n; p++) r->sel[p] = want[p] ? r->sel[p] : S_OFF;
        free(want);
    }
    /* what each point's run would refuse before generating data is refused now, writing nothing */
    return check_points(r->sw, r->sel, r->err, r->errlen) ? 2 : 0;
}

/* The directories, the manifest, the objective and a copy of the sweep file (for merge and
 * report). Returns 0, 1 or 2 with err. */
static int write_sweep_files(runner *r)
{
    const char *out = r->out;
    char *err = r->err;
    size_t errlen = r->errlen;
    char *pts_dir = ls_io_path_join(out, "points"), *cdir = ls_io_path_join(out, "claims");
    int rc = 0;
    if (!pts_dir || !cdir || ls_io_make_dirs(pts_dir, err, errlen) || ls_io_make_dirs(cdir, err, errlen)) {
        if (!pts_dir || !cdir) snprintf(err, errlen, "out of memory");
        rc = 2;
    }
    free(pts_dir);
    free(cdir);
    if (rc) return rc;
    char *man = ls_sweep_manifest_text(r->sw);
    if (!man) { snprintf(err, errlen, "out of memory"); return 1; }
    int wrc = write_if_changed(out, "manifest.tsv", man, err, errlen);
    free(man);
    if (wrc) return 1;
    /* the objective (best:) for merge; a sweep without one leaves no stale file behind */
    char *obj = ls_sweep_objective_text(r->sw), *objp = ls_io_path_join(out, "objective.tsv");
    if (obj) wrc = write_if_changed(out, "objective.tsv", obj, err, errlen);
    else if (objp && unlink(objp) && errno != ENOENT) wrc = snprintf(err, errlen, "%s: %s", objp, strerror(errno));
    free(obj);
    free(objp);
    if (wrc) return 1;
    char *stext = ls_sweep_read_file(r->sw->file, NULL);
    if (stext) {
        wrc = write_if_changed(out, "sweep.yaml", stext, err, errlen);
        free(stext);
        if (wrc) return 1;
    }
    return 0;
}

/* order[] sorted by cache key, and each point's group in it. */
static void group_by_cache_key(runner *r)
{
    int n = r->n;
    for (int p = 0; p < n; p++) r->order[p] = p;
    g_sort_sweep = r->sw;
    qsort(r->order, (size_t)n, sizeof *r->order, by_cache_key);
    for (int k = 0; k < n;) {
        int e = k + 1;
        while (e < n && !strcmp(r->sw->points[r->order[e]].cache_key, r->sw->points[r->order[k]].cache_key)) e++;
        for (int j = k; j < e; j++) { r->grp_lo[r->order[j]] = k; r->grp_hi[r->order[j]] = e; }
        k = e;
    }
}

/* The points expected to compute their numerics: with reuse, the first pending point of each
 * cache key that has no finished point yet (corrected at launch, when it is known). */
static void expect_work(runner *r)
{
    for (int p = 0; p < r->n; p++) {
        if (r->sel[p] != S_PENDING) continue;
        int first = 1;
        for (int k = r->grp_lo[p]; r->o->reuse && k < r->grp_hi[p] && first; k++) {
            int q = r->order[k];
            if (r->sel[q] == S_DONE_BEFORE || (r->sel[q] == S_PENDING && q < p)) first = 0;
        }
        r->computes[p] = (char)first;
        r->work_total += first;
    }
}

static void stop_workers(runner *r)
{
    for (int s = 0; s < r->jobs; s++)
        if (r->slots[s].pid) kill(r->slots[s].pid, SIGTERM);
    r->killed = 1;
}

/* Claims pick and (with reuse) its pending siblings of the same cache key into jobbuf/fdbuf.
 * One claimed elsewhere is left to that runner, one found DONE is skipped. Returns how many. */
static int claim_job(runner *r, int pick, int lo, int hi)
{
    int nj = 0;
    for (int k = -1; k < hi - lo && !r->fs_error[0]; k++) {
        int q = k < 0 ? pick : r->order[lo + k];
        if ((k >= 0 && q == pick) || r->sel[q] != S_PENDING) continue;
        char cerr[1200];
        int fd = claim(r->out, r->sw->points[q].id, cerr, sizeof cerr);
        if (fd == -2) {
            snprintf(r->fs_error, sizeof r->fs_error, "%s", cerr);
            break;
        }
        if (fd == -1) {
            r->sel[q] = S_ELSEWHERE;
            r->elsewhere++;
        } else if (point_current(r, q)) { /* finished by another runner meanwhile */
            r->sel[q] = S_DONE_ELSEWHERE;
            close(fd);
        } else {
            /* a DONE marker that no longer vouches for it goes first (under the claim), so that a run
             * stopped from here on leaves the point to be redone */
            char *dp = point_done(r->pdir[q]) ? ls_io_path_join(r->pdir[q], "DONE") : NULL;
            if (dp) (void)unlink(dp);
            free(dp);
            r->jobbuf[nj] = q;
            r->fdbuf[nj++] = fd;
        }
    }
    return nj;
}

/* Forks the worker of the claimed job (nj points, src the finished point they may reuse, or -1)
 * into a free slot. Returns 0, or -1 (err set, the run stops). */
static int fork_worker(runner *r, int nj, int src)
{
    int pfd[2];
    if (pipe(pfd) != 0) {
        snprintf(r->err, r->errlen, "pipe: %s", strerror(errno));
        for (int k = 0; k < nj; k++) close(r->fdbuf[k]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->err, r->errlen, "fork: %s", strerror(errno));
        for (int k = 0; k < nj; k++) close(r->fdbuf[k]);
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1) _exit(1);
#endif
        close(pfd[0]);
        worker(r->sw, r->jobbuf, nj, r->pdir, src, pfd[1], r->items);
    }
    /* the claims now live in the worker (same open file descriptions) */
    for (int k = 0; k < nj; k++) close(r->fdbuf[k]);
    close(pfd[1]);
    int s = 0;
    while (s < r->jobs && r->slots[s].pid) s++;
    slot *sl = &r->slots[s];
    sl->pid = pid;
    sl->report_fd = pfd[0];
    sl->pts = malloc((size_t)nj * sizeof *sl->pts);
    if (sl->pts) memcpy(sl->pts, r->jobbuf, (size_t)nj * sizeof *r->jobbuf);
    sl->npts = sl->pts ? nj : 0;
    sl->start = ls_run_progress_now();
    for (int k = 0; k < nj; k++) r->sel[r->jobbuf[k]] = S_RUNNING;
    r->running++;
    return 0;
}

/* Launch: a job is a pending point plus (with reuse) its pending siblings of the same cache key,
 * run in order by one worker: the first computes the numerics, the others reuse them (cheap: a
 * report copy, or a timing-only replay in the timed model). Each is claimed first. */
static void launch_jobs(runner *r)
{
    const ls_sweep_run_opts *o = r->o;
    while (!g_stop && !r->fs_error[0] && r->running < r->jobs) {
        int pick = -1;
        for (int p = r->next; p < r->n && pick < 0; p++)
            if (r->sel[p] == S_PENDING) pick = p;
        if (pick < 0) break;
        int lo = o->reuse ? r->grp_lo[pick] : 0, hi = o->reuse ? r->grp_hi[pick] : 0;
        int nj = claim_job(r, pick, lo, hi);
        while (r->next < r->n && r->sel[r->next] != S_PENDING) r->next++;
        if (r->fs_error[0]) {
            for (int k = 0; k < nj; k++) close(r->fdbuf[k]);
            break;
        }
        if (!nj) continue;
        int src = -1;
        for (int k = lo; k < hi && src < 0; k++) {
            int q = r->order[k];
            if (r->sel[q] == S_DONE_BEFORE || r->sel[q] == S_DONE_NOW || r->sel[q] == S_DONE_ELSEWHERE ||
                (r->sel[q] == S_OFF && point_current(r, q)))
                src = q;
        }
        for (int k = 0; k < nj; k++) { /* now known: the job's first point computes unless src */
            char c = (char)(!o->reuse || (k == 0 && src < 0));
            r->work_total += c - r->computes[r->jobbuf[k]];
            r->computes[r->jobbuf[k]] = c;
        }
        if (fork_worker(r, nj, src) != 0) {
            g_stop = -1;
            break;
        }
    }
}

/* A point of a finished worker that is not DONE: failed (returns 1, *why malloc'ed or NULL,
 * FAILED written if the worker could not), or pending again (returns 0) when its job was stopped
 * before it finished. fs: what the worker reported on its pipe (a filesystem error), taken over. */
static int failure_of(runner *r, int p, int status, char **fs, char **why_out)
{
    char *dir = strdup(r->pdir[p]);
    char *why = dir ? ls_sweep_read_in(dir, "FAILED") : NULL;
    if (!why && !*fs && ((g_stop && (!WIFEXITED(status) || WEXITSTATUS(status))) ||
                         (WIFEXITED(status) && WEXITSTATUS(status) == 3))) {
        /* stopped before finishing, or not started (its job stopped at a filesystem error): a later run redoes it */
        r->sel[p] = S_PENDING;
        if (r->next > p) r->next = p;
        free(dir);
        return 0;
    }
    r->sel[p] = S_FAILED;
    r->failed++;
    if (*fs) {
        if (!r->fs_error[0]) snprintf(r->fs_error, sizeof r->fs_error, "%s", *fs);
        free(why);
        why = *fs;
        *fs = NULL;
    } else if (!why) {
        char msg[128], e2[1200];
        if (WIFSIGNALED(status)) {
            const char *ab = sigabbrev_np(WTERMSIG(status)), *d = strsignal(WTERMSIG(status));
            snprintf(msg, sizeof msg, "worker killed by signal %d (SIG%s: %s)\n", WTERMSIG(status), ab ? ab : "?",
                     d ? d : "unknown");
        }
        else snprintf(msg, sizeof msg, "worker exited (status %d) before finishing the point\n",
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (dir && ls_sweep_write_in(dir, "FAILED", msg, e2, sizeof e2) && !r->fs_error[0])
            snprintf(r->fs_error, sizeof r->fs_error, "%s", e2);
        why = strdup(msg);
    }
    free(dir);
    if (why) {
        size_t l = strlen(why);
        if (l && why[l - 1] == '\n') why[l - 1] = '\0';
    }
    *why_out = why;
    return 1;
}

/* The points of the worker in slot s, which exited with status: done, failed or pending again. */
static void settle_job(runner *r, int s, int status)
{
    const ls_sweep *sw = r->sw;
    slot *sl = &r->slots[s];
    sl->pid = 0;
    r->running--;
    char *reports = drain(sl->report_fd);
    for (int k = 0; k < sl->npts; k++) {
        int p = sl->pts[k];
        const ls_sweep_point *pt = &sw->points[p];
        int how = -1;
        char *fs = reports ? reported(reports, p) : NULL;
        if (point_done(r->pdir[p])) {
            r->sel[p] = S_DONE_NOW;
            r->done_now++;
            how = point_how(r->pdir[p]);
            if (how != HOW_COMPUTED) r->reused++;
        } else {
            char *why = NULL;
            if (!failure_of(r, p, status, &fs, &why)) continue;
            ls_run_progress_clear(&r->pg);
            if (r->progress >= -1) fprintf(stderr, "point %d %s FAILED: %s\n", p, pt->id, why ? why : "?");
            free(why);
        }
        free(fs);
        if (r->progress == 1) r->pg.last = -1e300; /* redraw once the freed worker is relaunched */
        else if (r->progress == 0) {
            int fin = r->before + r->done_now + r->failed;
            if (how >= 0) {
                static const char *const hows[] = {"done", "reused", "replayed"};
                fprintf(stderr, "[%d/%d] point %d %s %s in %.2f s:", fin, r->total, p, pt->id, hows[how],
                        point_wall(r->pdir[p]));
                for (int a = 0; a < sw->naxes; a++) fprintf(stderr, " %s", pt->overrides[a]);
                fputc('\n', stderr);
            }
            fflush(stderr);
        }
    }
    free(reports);
    free(sl->pts);
    sl->pts = NULL;
    sl->npts = 0;
}

/* Launch, show progress, wait for the other runners' points, reap; until nothing is left or the run stops. */
static void run_loop(runner *r)
{
    for (;;) {
        launch_jobs(r);
        if (g_stop > 0 && !r->killed) stop_workers(r); /* stop requested outside waitpid */
        bool waiting = r->elsewhere && !g_stop && !r->fs_error[0];
        double now = ls_run_progress_now();
        if (r->running && ls_run_progress_due(&r->pg, now)) /* after the launches: never between a reap and its relaunch */
            ls_sweep_show_status(&r->pg, r->sw, r->before + r->done_now + r->failed, r->total, r->done_now + r->failed,
                                 r->running, r->failed, work_share(r->sw, r->sel, r->computes, r->items, r->work_total),
                                 now);
        if (!r->running) {
            if (!waiting) break;
            /* nothing of ours left: wait for the points other runners hold */
            r->elsewhere = poll_elsewhere(r->sw, r->out, r->names, r->pdir, r->sel, &r->next);
            if (r->elsewhere) nanosleep(&(struct timespec){0, 200000000}, NULL);
            continue;
        }
        /* reap (polling the other runners' points meanwhile) */
        int status;
        pid_t pid = waitpid(-1, &status, waiting || r->pg.style != LS_RUN_PROGRESS_OFF ? WNOHANG : 0);
        if (pid == 0) {
            if (waiting) r->elsewhere = poll_elsewhere(r->sw, r->out, r->names, r->pdir, r->sel, &r->next);
            nanosleep(&(struct timespec){0, 100000000}, NULL);
            continue;
        }
        if (pid < 0) {
            if (errno == EINTR) {
                if (g_stop > 0 && !r->killed) stop_workers(r);
                continue;
            }
            break;
        }
        int s = 0;
        while (s < r->jobs && r->slots[s].pid != pid) s++;
        if (s < r->jobs) settle_job(r, s, status);
    }
}

/* The tally, read back from the markers as `sweep merge` reads them so both agree; the summary
 * line; the exit status (0, 1 failures or errors, 128 + the signal when stopped by SIGINT or SIGTERM). */
static int finish(runner *r)
{
    int done_all = 0, failed_all = 0, by_others = 0, missing = 0;
    for (int p = 0; p < r->n; p++) {
        if (!r->sel[p]) continue;
        if (point_done(r->pdir[p])) done_all++;
        else if (point_has(r->pdir[p], "FAILED")) failed_all++;
        else missing++;
        if (r->sel[p] == S_DONE_ELSEWHERE) by_others++;
    }
    double wall = ls_run_progress_now() - r->t_start;
    const char *name = r->sw->name;
    if (r->fs_error[0] && r->progress >= -1)
        fprintf(stderr, "sweep %s: filesystem error, no further points launched: %s\n", name, r->fs_error);
    if (r->progress >= -1)
        fprintf(stderr, "sweep %s: %d/%d points done (%d now: %d computed, %d reused; %d before; %d by other runners), "
                "%d failed, %d not run, %.1f s\n", name, done_all, r->total, r->done_now, r->done_now - r->reused,
                r->reused, r->before, by_others, failed_all, missing, wall);
    if (g_stop > 0) {
        if (r->progress >= -1)
            fprintf(stderr, "sweep interrupted: finished points are kept; run the same command again to resume\n");
        return 128 + g_stop;   /* 130 for SIGINT, 143 for SIGTERM: the shell's and batch systems' convention */
    }
    if (g_stop < 0) return 1;
    return failed_all || missing || r->fs_error[0] ? 1 : 0;
}

/* The one cleanup path. */
static void runner_free(runner *r)
{
    ls_sweep_items_unmap(r->items, r->n);
    if (r->signals_set) {
        sigaction(SIGINT, &r->old_int, NULL);
        sigaction(SIGTERM, &r->old_term, NULL);
    }
    for (int s = 0; r->slots && s < r->jobs; s++) free(r->slots[s].pts);
    free(r->slots);
    free(r->jobbuf);
    free(r->fdbuf);
    free(r->computes);
    free(r->sel);
    for (int p = 0; r->ident && p < r->n; p++) free(r->ident[p]);
    free(r->ident);
    free(r->order);
    free(r->grp_lo);
    free(r->grp_hi);
}

/* The run's stages; returns the exit status. */
/* What a sweep directory may hold: the runner's files, `lampsim report`'s, and the temporaries of
 * their atomic writes (.NAME.XXXXXX). Anything else means DIR is someone else's directory, whose
 * files (a sweep.yaml of their own, say) the runner would overwrite: refused (exit 2). */
static int check_out_dir(const char *out, char *err, size_t errlen)
{
    static const char *const own[] = {"manifest.tsv", "sweep.yaml", "objective.tsv", "points", "claims",
                                      "results.csv", "report.html", "figures", "parallel.joblog", NULL};
    DIR *d = opendir(out);
    if (!d) return 0;   /* missing (made later) or not a directory (refused when made) */
    bool has_manifest = false, has_copy = false;
    char *stray = NULL;
    for (struct dirent *e; !stray && (e = readdir(d));) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..")) continue;
        bool ok = false;
        for (int i = 0; own[i] && !ok; i++) {
            size_t l = strlen(own[i]);
            ok = !strcmp(n, own[i]) || (n[0] == '.' && !strncmp(n + 1, own[i], l) && n[1 + l] == '.');
        }
        has_manifest |= !strcmp(n, "manifest.tsv");
        has_copy |= !strcmp(n, "sweep.yaml");
        if (!ok) stray = strdup(n);
    }
    closedir(d);
    if (!stray && has_copy && !has_manifest) stray = strdup("sweep.yaml");   /* written after the manifest */
    if (!stray) return 0;
    snprintf(err, errlen, "%s: not a sweep directory: it holds '%s' (a sweep writes only manifest.tsv, sweep.yaml, "
             "objective.tsv, points/, claims/, parallel.joblog (scripts/parallel_sweep.sh) and, by lampsim report, results.csv, report.html, figures/): choose "
             "a new or empty directory with -o", out, stray);
    free(stray);
    return 2;
}

static int run_stages(runner *r)
{
    int crc = check_out_dir(r->out, r->err, r->errlen);
    if (crc) return crc;
    const ls_sweep_run_opts *o = r->o;
    int n = r->n;
    r->sel = calloc((size_t)n, 1);
    if (!r->sel) return 1;
    int rc = select_points(r);
    if (rc == 0) rc = identify_inputs(r);
    if (rc == 0) rc = write_sweep_files(r);
    if (rc) return rc;
    clean_stale_runs(r->out, r->sw, r->names);
    adopt_id_dirs(r->sw, r->out, r->names, r->pdir, r->sel);
    for (int p = 0; p < n; p++) {
        if (!r->sel[p]) continue;
        r->total++;
        if (!point_done(r->pdir[p])) continue;
        char *why = ls_sweep_done_stale(r->pdir[p], r->sw->points[p].id, r->ident[p]);
        if (!why) {
            r->sel[p] = S_DONE_BEFORE;
            r->before++;
        } else {   /* pending: recomputed from the inputs as they are now */
            if (!o->quiet) fprintf(stderr, "sweep %s: point %d (%s): %s; recomputing it\n", r->sw->name, p, r->names[p], why);
            free(why);
        }
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_stop = 0;
    sigaction(SIGINT, &sa, &r->old_int);
    sigaction(SIGTERM, &sa, &r->old_term);
    r->signals_set = true;

    r->order = malloc((size_t)n * sizeof *r->order);
    r->grp_lo = malloc((size_t)n * sizeof *r->grp_lo);
    r->grp_hi = malloc((size_t)n * sizeof *r->grp_hi);
    if (!r->order || !r->grp_lo || !r->grp_hi) {
        snprintf(r->err, r->errlen, "out of memory");
        return 1;
    }
    group_by_cache_key(r);

    r->progress = o->quiet ? -2 : o->progress >= 0 ? o->progress : isatty(2) ? 1 : 0;
    ls_run_progress_init(&r->pg, stderr, r->progress == 1 ? LS_RUN_PROGRESS_LIVE : r->progress == 0 ? LS_RUN_PROGRESS_LINES
                                                                                                : LS_RUN_PROGRESS_OFF,
                         o->progress_period);
    r->slots = calloc((size_t)r->jobs, sizeof *r->slots);
    r->jobbuf = malloc((size_t)n * sizeof *r->jobbuf);
    r->fdbuf = malloc((size_t)n * sizeof *r->fdbuf);
    r->computes = calloc((size_t)n, 1);
    if (!r->slots || !r->jobbuf || !r->fdbuf || !r->computes) return 1;
    expect_work(r);
    /* workers report their work items here; without it (mmap failed) progress counts points only */
    if (r->pg.style != LS_RUN_PROGRESS_OFF) {
        r->items = ls_sweep_items_map(n);
    }
    r->t_start = ls_run_progress_now();
    if (r->progress >= 0)
        fprintf(stderr, "sweep %s: %d points%s, %d already done, %d to run, %d worker%s, results in %s\n", r->sw->name,
                r->total, o->shard_n > 0 ? " in this shard" : "", r->before, r->total - r->before, r->jobs,
                r->jobs > 1 ? "s" : "", r->out);
    run_loop(r);
    ls_run_progress_clear(&r->pg);
    if (!g_stop) clean_stale_runs(r->out, r->sw, r->names); /* what runners that died while this one ran left behind */
    return finish(r);
}

static int run_sweep(const ls_sweep *sw, const ls_sweep_run_opts *o, char *const *names, char *const *pdir, char *err,
                     size_t errlen)
{
    runner *r = calloc(1, sizeof *r);
    if (!r) return 1;
    r->sw = sw; r->o = o; r->names = names; r->pdir = pdir; r->err = err; r->errlen = errlen;
    r->out = o->out_dir;
    r->n = sw->npoints;
    r->jobs = o->jobs > 0 ? o->jobs : 1;
    int rc = run_stages(r);
    runner_free(r);
    free(r);
    return rc;
}

int ls_sweep_run(const ls_sweep *sw, const ls_sweep_run_opts *o, char *err, size_t errlen)
{
    char **names = ls_sweep_point_names(sw);
    char **pdir = calloc((size_t)(sw->npoints > 0 ? sw->npoints : 1), sizeof *pdir);
    int ok = names && pdir, rc = 1;
    for (int p = 0; ok && p < sw->npoints; p++) ok = (pdir[p] = ls_io_path_fmt("%s/points/%s", o->out_dir, names[p])) != NULL;
    if (ok) rc = run_sweep(sw, o, names, pdir, err, errlen);
    else snprintf(err, errlen, "out of memory");
    ls_sweep_names_free(pdir, sw->npoints);
    ls_sweep_names_free(names, sw->npoints);
    return rc;
}
