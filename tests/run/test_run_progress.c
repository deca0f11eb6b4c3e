/* The progress module: the status text (counts, rate, elapsed, ETA from the share of work done,
 * no ETA below 5%), the period, plain lines vs the live line, the --progress-every parser, and
 * the engine's work-item callback reaching it once per item with a constant total. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "check.h"
#include "run_progress.h"

static void format_cases(void)
{
    char b[256];
    ls_run_progress_format(b, sizeof b, 3, 12, "points", 0.1, 0.5, 30.0);
    CHECK_MSG(!strcmp(b, "3/12 points (25%), 0.1 points/s, elapsed 0:30, ETA 0:30"), "%s", b);
    /* the ETA follows the share of work, not the count: 3 of 12 points but a quarter of the work */
    ls_run_progress_format(b, sizeof b, 3, 12, "points", 0.1, 0.25, 30.0);
    CHECK_MSG(strstr(b, "ETA 1:30") != NULL, "%s", b);
    ls_run_progress_format(b, sizeof b, 1, 100, "query blocks", 1, 0.04, 5000.0);
    CHECK_MSG(strstr(b, "elapsed 1:23:20, ETA ?") != NULL, "below 5%% no ETA: %s", b);
    ls_run_progress_format(b, sizeof b, 12, 12, "points", 1, 1.0, 61.0);
    CHECK_MSG(strstr(b, "(100%)") && strstr(b, "elapsed 1:01, ETA 0:00"), "%s", b);
}

static void parse_cases(void)
{
    double p = -1;
    CHECK(ls_run_progress_parse_period("0.25", &p) == 0 && p == 0.25);
    CHECK(ls_run_progress_parse_period("86400", &p) == 0);
    const char *bad[] = {"0", "-1", "x", "", "1s", "nan", "inf", "86401"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK_MSG(ls_run_progress_parse_period(bad[i], &p) == -1, "%s", bad[i]);
}

static void print_cases(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    ls_run_progress p;
    ls_run_progress_init(&p, m, LS_RUN_PROGRESS_AUTO, 0); /* a memory stream is no terminal: plain lines */
    CHECK(p.style == LS_RUN_PROGRESS_LINES && p.period == LS_RUN_PROGRESS_PERIOD_DEFAULT);
    CHECK(!ls_run_progress_due(&p, p.t0 + 1) && ls_run_progress_due(&p, p.t0 + 10));
    ls_run_progress_print(&p, p.t0 + 10, "a");
    CHECK(!ls_run_progress_due(&p, p.t0 + 15) && ls_run_progress_due(&p, p.t0 + 20));
    ls_run_progress_init(&p, m, LS_RUN_PROGRESS_LIVE, 0);
    CHECK(p.period == LS_RUN_PROGRESS_LIVE_PERIOD);
    ls_run_progress_print(&p, p.t0 + 1, "b");
    ls_run_progress_clear(&p);
    ls_run_progress_clear(&p); /* nothing on screen: no-op */
    ls_run_progress_init(&p, m, LS_RUN_PROGRESS_OFF, 0);
    ls_run_progress_print(&p, p.t0 + 100, "c");
    fclose(m);
    CHECK_MSG(text && !strcmp(text, "a\n\r\033[Kb\r\033[K"), "%s", text ? text : "(null)");
    free(text);
}

/* The item callback prints "run: done/total query blocks ..." lines when due. */
static void items_cases(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    ls_run_progress p;
    ls_run_progress_init(&p, m, LS_RUN_PROGRESS_LINES, 1e-9);
    for (long d = 1; d <= 4; d++) ls_run_progress_items(&p, d, 4);
    fclose(m);
    /* every item but the last (the summary follows it) */
    CHECK_MSG(text && strstr(text, "run: 1/4 query blocks (25%)") && strstr(text, "run: 3/4 query blocks (75%)") &&
              !strstr(text, "4/4"), "%s", text ? text : "(null)");
    free(text);
}

int main(void)
{
    format_cases();
    parse_cases();
    print_cases();
    items_cases();
    CHECK_DONE();
}
