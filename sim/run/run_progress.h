/* Progress of long work on stderr, shared by `lampsim run` (work items: query blocks) and the
 * sweep runner (points). On a terminal: one live line redrawn in place; otherwise a plain line
 * every period. Progress never touches stdout or any output file, so results do not depend on it.
 * The ETA is the remaining share of the work at the rate measured so far over the whole run
 * (elapsed x left / done), never extrapolated from the first item alone, and shown from 5% of the
 * work on (before that the rate is mostly start-up: building the workload, the first wave of work
 * items still in flight). */
#ifndef LAMPSIM_RUN_RUN_PROGRESS_H
#define LAMPSIM_RUN_RUN_PROGRESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What a caller asks for; AUTO picks LIVE when the stream is a terminal, else LINES. */
typedef enum { LS_RUN_PROGRESS_OFF, LS_RUN_PROGRESS_AUTO, LS_RUN_PROGRESS_LINES, LS_RUN_PROGRESS_LIVE } ls_run_progress_style;

#define LS_RUN_PROGRESS_PERIOD_DEFAULT 10.0 /* seconds between plain lines */
#define LS_RUN_PROGRESS_LIVE_PERIOD 0.5     /* seconds between redraws of the live line */
#define LS_RUN_PROGRESS_ETA_MIN 0.05        /* share of the work done before an ETA is shown ("?" until then) */

typedef struct {
    FILE *out;
    ls_run_progress_style style; /* OFF, LINES or LIVE (AUTO resolved) */
    double period;               /* seconds between lines */
    double t0, last;             /* start, last line (monotonic seconds) */
    bool shown;                  /* a live line is on screen */
    bool busy;                   /* one printer at a time (engine threads report concurrently; set and
                                  * cleared with the compiler's atomic builtins, so C++ can include this) */
} ls_run_progress;

/* Monotonic seconds. */
double ls_run_progress_now(void);
/* style AUTO resolves against out; period <= 0: the default for the style. */
void ls_run_progress_init(ls_run_progress *p, FILE *out, ls_run_progress_style style, double period);
/* True when a line is due (the period has elapsed since the last one) and p is not OFF. */
bool ls_run_progress_due(const ls_run_progress *p, double now);
/* Prints one status line (without newline) as a live redraw or a plain line; marks it printed. */
void ls_run_progress_print(ls_run_progress *p, double now, const char *text);
/* Erases the live line, so other messages start on a clean line (no-op otherwise). */
void ls_run_progress_clear(ls_run_progress *p);
/* "done/total UNIT (pct%), RATE UNIT/s, elapsed M:SS, ETA M:SS" into buf. share in [0, 1] is the
 * part of the work done, which the ETA is computed from (done/total are what is shown: for a sweep
 * reusing numerics, points are not equal work). */
void ls_run_progress_format(char *buf, size_t len, long done, long total, const char *unit, double rate,
                            double share, double elapsed);
/* Seconds as M:SS or H:MM:SS. */
void ls_run_progress_hms(double s, char *buf, size_t len);
/* A CLI value for --progress-every: seconds in (0, 86400]. Returns 0, or -1. */
int ls_run_progress_parse_period(const char *text, double *period);

/* Work-item progress of one run (ls_run's engine callback): prints "run: ..." lines when due.
 * Safe to call from several threads. user: an ls_run_progress. */
void ls_run_progress_items(void *user, long done, long total);
#endif
