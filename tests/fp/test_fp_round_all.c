/* fp_round_e4m3_all (label long) — every one of the 2^32 float32 bit patterns rounded to e4m3, RNE
 * and RTZ, through lsfp_round (value and flags) and lsfp_round_array (values), against the
 * independent integer reference. Two worker threads split the input space; each block of 64 Ki
 * patterns goes through the array kernel once and the scalar function element by element.
 * Runtime: about 1-2 minutes per mode on 2 cores in Release. Optional argument: "quick" checks
 * only every 4099th block (for smoke runs). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fp_test_util.h"

enum { BLOCK = 1 << 16, NBLOCKS = 1 << 16, NTHREADS = 2 };

typedef struct {
    const lsfp_format *f;
    const ref_fmt *r;
    int tid, stride;
    long bad_scalar, bad_flags, bad_array;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    float *in = malloc(BLOCK * sizeof(float)), *out = malloc(BLOCK * sizeof(float));
    ref_mode md = ref_mode_of(j->f->rounding);
    const unsigned mask_all = LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW | LSFP_FLAG_UNDERFLOW | LSFP_FLAG_SUBNORMAL |
                              LSFP_FLAG_NAN | LSFP_FLAG_INEXACT;
    for (uint32_t blk = (uint32_t)j->tid * (uint32_t)j->stride; blk < NBLOCKS; blk += (uint32_t)(NTHREADS * j->stride)) {
        for (uint32_t i = 0; i < BLOCK; i++) in[i] = bits_f((blk << 16) | i);
        lsfp_events ev = {0};
        lsfp_round_array(j->f, in, out, BLOCK, &ev);
        for (uint32_t i = 0; i < BLOCK; i++) {
            float x = in[i];
            unsigned fl = 0, rfl = 0;
            float want = ref_round_float(j->r, x, md, &rfl);
            float got = lsfp_round(j->f, x, NULL, &fl);
            if (!same_float(got, want)) {
                if (j->bad_scalar++ < 5)
                    fprintf(stderr, "%s rounding %d: lsfp_round(%a) = %a, reference %a\n", j->f->name, j->f->rounding,
                            (double)x, (double)got, (double)want);
            } else if (isfinite(x)) {
                unsigned mask = mask_all;
                if ((fl | rfl) & (LSFP_FLAG_SATURATED | LSFP_FLAG_OVERFLOW)) mask &= ~(unsigned)LSFP_FLAG_INEXACT;
                if ((fl & mask) != (rfl & mask) && j->bad_flags++ < 5)
                    fprintf(stderr, "%s rounding %d: lsfp_round(%a) flags %#x, reference %#x\n", j->f->name,
                            j->f->rounding, (double)x, fl & mask, rfl & mask);
            }
            if (!same_float(out[i], want) && j->bad_array++ < 5)
                fprintf(stderr, "%s rounding %d: lsfp_round_array(%a) = %a, reference %a\n", j->f->name,
                        j->f->rounding, (double)x, (double)out[i], (double)want);
        }
    }
    free(in);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    int stride = (argc > 1 && strcmp(argv[1], "quick") == 0) ? 4099 : 1;
    for (int rtz = 0; rtz < 2; rtz++) {
        double t0 = now_s();
        lsfp_format f = *lsfp_named_format(LSFP_E4M3);
        f.rounding = rtz ? LSFP_RND_RTZ : LSFP_RND_RNE;
        ref_fmt r;
        ref_fmt_from(&r, &f);
        job jobs[NTHREADS];
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            jobs[t] = (job){.f = &f, .r = &r, .tid = t, .stride = stride};
            if (pthread_create(&th[t], NULL, worker, &jobs[t]) != 0) worker(&jobs[t]), th[t] = 0;
        }
        long bs = 0, bf = 0, ba = 0;
        for (int t = 0; t < NTHREADS; t++) {
            if (th[t]) pthread_join(th[t], NULL);
            bs += jobs[t].bad_scalar;
            bf += jobs[t].bad_flags;
            ba += jobs[t].bad_array;
        }
        CHECK_MSG(bs == 0, "e4m3 %s: %ld lsfp_round mismatches over all float32 inputs", rtz ? "RTZ" : "RNE", bs);
        CHECK_MSG(bf == 0, "e4m3 %s: %ld lsfp_round flag mismatches", rtz ? "RTZ" : "RNE", bf);
        CHECK_MSG(ba == 0, "e4m3 %s: %ld lsfp_round_array mismatches", rtz ? "RTZ" : "RNE", ba);
        printf("e4m3 %s: all %s float32 inputs checked in %.1f s\n", rtz ? "RTZ" : "RNE",
               stride == 1 ? "2^32" : "sampled", now_s() - t0);
    }
    CHECK_DONE();
}
