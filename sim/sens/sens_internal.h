/* sim/sens private: the analysis's state, shared by the design and runs (sens.c) and the files
 * written from it (sens_write.c). */
#ifndef LAMPSIM_SENS_SENS_INTERNAL_H
#define LAMPSIM_SENS_SENS_INTERNAL_H
#include "config.h"
#include "sens.h"

#define LS_SENS_MAX_VARIANTS (1 + 2 * LS_SENS_MAX_RATIOS)

typedef struct {
    const char *key;
    double low, base, high;
    bool integer;
    bool numerics;           /* a numerics key (ls_sweep_key_is_numeric): computed, never replayed */
} ls_sens_param;

typedef struct {
    char over[160];          /* "key=value", or "" for the base configuration as given */
} ls_sens_variant;

typedef struct {
    char name[128];          /* "cycles", or "cycles:full/compact" */
    int metric;              /* index into metrics */
    int ratio;               /* -1: the metric itself; else metric(side a) / metric(side b) */
} ls_sens_quantity;

enum { LS_SENS_BASE, LS_SENS_ONE_AT_A_TIME, LS_SENS_MORRIS_POINT };

typedef struct {
    double *x;               /* [np] parameter values */
    int design;              /* LS_SENS_BASE, ... */
    int traj;                /* Morris trajectory, or -1 */
    int same_as;             /* an earlier sample with the same values, or -1 */
} ls_sens_sample;

typedef struct {             /* one move of a Morris trajectory */
    int param, from, to;     /* samples before and after */
    int dir;                 /* +1 or -1 */
} ls_sens_step;

typedef struct {
    const ls_sens_opts *o;
    ls_config *base;         /* the base configuration */
    const char *metrics[LS_SENS_MAX_METRICS];
    int nm;
    int np;
    ls_sens_param *p;
    int nv;
    ls_sens_variant v[LS_SENS_MAX_VARIANTS];
    int nr;
    char ratio_name[LS_SENS_MAX_RATIOS][136]; /* "full/compact" */
    const char *ratio_key[LS_SENS_MAX_RATIOS];
    int ratio_a[LS_SENS_MAX_RATIOS], ratio_b[LS_SENS_MAX_RATIOS]; /* variant indices */
    int nq;
    ls_sens_quantity q[LS_SENS_MAX_METRICS * (1 + LS_SENS_MAX_RATIOS)];
    int ns, scap;
    ls_sens_sample *s;
    int *oat_lo, *oat_hi;    /* [np] samples of each parameter's low and high ends */
    int nstep, stepcap;
    ls_sens_step *steps;
    int levels, trajectories;
    double delta;            /* Morris step, in shares of a range */
    uint64_t seed;
    double *val;             /* [ns][nv][nm]; NAN where refused or absent */
    char **why;              /* [ns][nv] the refusal, or NULL */
    long runs, computed, replayed, skipped_params;
} ls_sens;

/* The value of quantity qi at sample s (NAN when either side is refused). */
double ls_sens_value(const ls_sens *S, int qi, int s);
/* Writes every output file into dir; 0, or 1 with err. */
int ls_sens_write(const ls_sens *S, const char *dir, double wall_seconds, char *err, size_t errlen);
/* summary.txt's text (malloc'ed). */
char *ls_sens_summary_text(const ls_sens *S);
#endif
