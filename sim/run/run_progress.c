#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "run_progress.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double ls_run_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ls_run_progress_init(ls_run_progress *p, FILE *out, ls_run_progress_style style, double period)
{
    p->out = out;
    if (style == LS_RUN_PROGRESS_AUTO) style = out && isatty(fileno(out)) ? LS_RUN_PROGRESS_LIVE : LS_RUN_PROGRESS_LINES;
    p->style = out ? style : LS_RUN_PROGRESS_OFF;
    p->period = period > 0 ? period : style == LS_RUN_PROGRESS_LIVE ? LS_RUN_PROGRESS_LIVE_PERIOD : LS_RUN_PROGRESS_PERIOD_DEFAULT;
    p->t0 = p->last = ls_run_progress_now();
    p->shown = false;
    __atomic_clear(&p->busy, __ATOMIC_RELEASE);
}

bool ls_run_progress_due(const ls_run_progress *p, double now)
{
    return p->style != LS_RUN_PROGRESS_OFF && now - p->last >= p->period;
}

void ls_run_progress_print(ls_run_progress *p, double now, const char *text)
{
    if (p->style == LS_RUN_PROGRESS_OFF) return;
    if (p->style == LS_RUN_PROGRESS_LIVE) {
        fprintf(p->out, "\r\033[K%s", text);
        p->shown = true;
    } else fprintf(p->out, "%s\n", text);
    fflush(p->out);
    p->last = now;
}

void ls_run_progress_clear(ls_run_progress *p)
{
    if (!p->shown) return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->shown = false;
}

void ls_run_progress_hms(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

void ls_run_progress_format(char *buf, size_t len, long done, long total, const char *unit, double rate,
                            double share, double elapsed)
{
    char el[32], eta[32] = "?";
    ls_run_progress_hms(elapsed, el, sizeof el);
    /* the remaining share of the work at the rate measured over everything done so far; below
     * LS_RUN_PROGRESS_ETA_MIN of the work that rate is mostly start-up, so no ETA yet */
    if (share >= 1.0) snprintf(eta, sizeof eta, "0:00");
    else if (share >= LS_RUN_PROGRESS_ETA_MIN && elapsed > 0)
        ls_run_progress_hms(elapsed * (1.0 - share) / share, eta, sizeof eta);
    snprintf(buf, len, "%ld/%ld %s (%.0f%%), %.3g %s/s, elapsed %s, ETA %s", done, total, unit,
             total > 0 ? 100.0 * (double)done / (double)total : 100.0, rate, unit, el, eta);
}

int ls_run_progress_parse_period(const char *text, double *period)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || v <= 0 || v > 86400) return -1;
    *period = v;
    return 0;
}

void ls_run_progress_items(void *user, long done, long total)
{
    ls_run_progress *p = user;
    double now = ls_run_progress_now();
    if (done >= total || __atomic_test_and_set(&p->busy, __ATOMIC_ACQUIRE)) return; /* busy: another thread prints */
    if (ls_run_progress_due(p, now)) {
        char line[256];
        double el = now - p->t0;
        ls_run_progress_format(line, sizeof line, done, total, "query blocks", el > 0 ? (double)done / el : 0,
                               total > 0 ? (double)done / (double)total : 0, el);
        char text[300];
        snprintf(text, sizeof text, "run: %s", line);
        ls_run_progress_print(p, now, text);
    }
    __atomic_clear(&p->busy, __ATOMIC_RELEASE);
}
