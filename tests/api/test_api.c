/* liblampsim.so's C interface (sim/api): bad input is refused with the CLI's message and position
 * for every binding, not only Python's; a finite input runs. */
#include <math.h>
#include <string.h>

#include "api.h"
#include "check.h"

enum { B = 1, H = 2, S = 64, D = 64, N = B * H * S * D };

static float q[N], k[N], v[N], o[N];

static void fill(void)
{
    unsigned s = 12345;
    for (int i = 0; i < N; ++i) {
        s = s * 1103515245u + 12345u;
        q[i] = (float)((s >> 8) % 2001) / 1000.0f - 1.0f;
        k[i] = q[(i * 7) % N];
        v[i] = q[(i * 13) % N];
    }
}

/* runs with reference statistics; returns rc, err and the stats JSON (or "") */
static int run(ls_api_ctx *c, char *err, size_t errlen, char *stats, size_t statslen)
{
    char *js = NULL;
    int rc = ls_api_attention(c, B, H, H, S, S, D, 1, q, k, v, o, LS_API_REFERENCE, &js, NULL, NULL, NULL, err, errlen);
    snprintf(stats, statslen, "%s", js ? js : "");
    ls_api_free(js);
    return rc;
}

int main(void)
{
    char err[1024], stats[8192];
    static const char *const modes[] = {"algorithm.mode=lamp", "algorithm.mode=fa2_fp32", "algorithm.mode=pure_8bit"};
    for (int m = 0; m < 3; ++m) {
        ls_api_ctx *c = ls_api_open(NULL, &modes[m], 1, err, sizeof err);
        CHECK_MSG(c != NULL, "%s", err);
        if (!c) continue;
        fill();
        CHECK_MSG(run(c, err, sizeof err, stats, sizeof stats) == 0, "%s: %s", modes[m], err);
        /* element [0, 1, 3, 5] of q, k, then v: NaN, +inf, -inf */
        const size_t at = ((size_t)(0 * H + 1) * S + 3) * D + 5;
        float *t[3] = {q, k, v};
        const float bad[3] = {NAN, INFINITY, -INFINITY};
        static const char *const want[3] = {"q: element [0, 1, 3, 5] is NaN; inputs must be finite",
                                            "k: element [0, 1, 3, 5] is infinite; inputs must be finite",
                                            "v: element [0, 1, 3, 5] is infinite; inputs must be finite"};
        for (int i = 0; i < 3; ++i) {
            fill();
            t[i][at] = bad[i];
            err[0] = '\0';
            int rc = run(c, err, sizeof err, stats, sizeof stats);
            CHECK_MSG(rc == 2 && strcmp(err, want[i]) == 0, "%s, tensor %d: rc %d, \"%s\", stats %.120s", modes[m], i, rc,
                      err, stats);
        }
        ls_api_close(c);
    }
    CHECK_DONE();
}
