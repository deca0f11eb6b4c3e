/* Minimal test helpers: every CHECK failure prints file:line and the condition, and the test
 * exits non-zero at the end (CHECK_DONE). No framework, so tests stay plain C11. */
#ifndef LAMPSIM_TESTS_CHECK_H
#define LAMPSIM_TESTS_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int check_failures_ = 0;
static long check_count_ = 0;

#define CHECK(cond) do { ++check_count_; if (!(cond)) { ++check_failures_; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_MSG(cond, ...) do { ++check_count_; if (!(cond)) { ++check_failures_; \
    fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
/* Bitwise float equality (distinguishes -0 from +0; any NaN equals any NaN). */
#define CHECK_FEQ(a, b) do { float a_ = (a), b_ = (b); ++check_count_; \
    if (!((a_ != a_ && b_ != b_) || (a_ == b_ && (!signbit(a_) == !signbit(b_))))) { ++check_failures_; \
    fprintf(stderr, "%s:%d: %s = %.9g, expected %s = %.9g\n", __FILE__, __LINE__, #a, (double)a_, #b, (double)b_); } } while (0)
#define CHECK_DONE() do { if (check_failures_) { \
    fprintf(stderr, "%d of %ld checks failed\n", check_failures_, check_count_); return 1; } \
    printf("all %ld checks passed\n", check_count_); return 0; } while (0)
#endif
