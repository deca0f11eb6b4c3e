/* sim/sens — how much a report metric depends on the values nobody measured: `lampsim sensitivity`
 * (docs/sensitivity.md). The parameters are estimates of the provenance table (config.h,
 * ls_config_estimates), each moved over its [low, high] range:
 *   - one at a time: the base, then each parameter at its low and at its high end, the others at base;
 *   - Morris elementary effects (Morris 1991, Technometrics 33(2); the sign-aware variant of
 *     Campolongo, Cariboni and Saltelli 2007): r trajectories on a p-level grid, each moving every
 *     parameter once by delta = p / (2 (p - 1)) of its range in a random order; per parameter mu,
 *     mu* (mean |effect|: the overall influence) and sigma (spread: interactions, non-linearity).
 * Every sample is a `lampsim run` of the base configuration with the parameters set (ls_run, in
 * process, fields only), so each metric means what it means in report.json. The timed model's
 * numerics cache (timed.reuse_numerics) computes the arithmetic once per variant and replays only
 * the timing for every other sample: estimates are timing, energy or area keys; a key that feeds the
 * numerics (ls_sweep_key_is_numeric) is simply computed again, and says so.
 * Ratios ("full/compact": two values of one enum key) evaluate both sides with the same parameter
 * values; their quantity is metric(A) / metric(B), and a value on the other side of 1 than the base's
 * flips the comparison. Deterministic: same configuration, options and seed give byte-identical
 * files (run_info.json, host facts, aside), on any thread count. Layering: cli -> sens -> sweep -> run. */
#ifndef LAMPSIM_SENS_SENS_H
#define LAMPSIM_SENS_SENS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LS_SENS_MAX_METRICS 8
#define LS_SENS_MAX_RATIOS 4
#define LS_SENS_DEFAULT_TRAJECTORIES 10
#define LS_SENS_DEFAULT_LEVELS 4

typedef enum { LS_SENS_OAT, LS_SENS_MORRIS } ls_sens_method; /* MORRIS: one at a time and Morris */

typedef struct {
    const char *config_path;            /* NULL: the embedded default */
    const char *const *sets;            /* base overrides "key=value" */
    int nsets;
    const char *metrics[LS_SENS_MAX_METRICS]; /* sweeps' best: metrics (ls_sweep_best_metrics); none: cycles */
    int nmetrics;
    const char *params;                 /* NULL or "estimates": every estimate; else "K1,K2,..." */
    const char *ratios[LS_SENS_MAX_RATIOS]; /* "A/B": two values of one enum key */
    int nratios;
    ls_sens_method method;
    int trajectories, levels;           /* Morris r (>= 1) and p (even, >= 2); 0: the defaults */
    bool seed_set;
    uint64_t seed;                      /* Morris's; default: the configuration's seed */
    const char *out_dir;
    bool force;                         /* replace a non-empty out_dir */
    bool quiet;                         /* no progress on stderr, no answer on out */
    /* called with the temporary directory once every file is in it, before it is swapped in (the
     * CLI writes sensitivity.html there); a non-zero return is reported but the analysis is kept */
    int (*before_commit)(const char *tmp_dir, void *user);
    void *before_commit_user;
} ls_sens_opts;

/* Runs the analysis into o->out_dir (atomically: config.resolved.yaml, sensitivity.csv, morris.csv,
 * samples.csv, summary.txt, run_info.json) and prints summary.txt on out. Returns 0; 2 for bad input
 * (unknown metric, key or option value, a parameter that is no estimate or has an empty range, a bad
 * ratio, a base configuration that is refused) with a message in err and nothing written; 1 when a
 * run or a write failed; 3 when before_commit failed (the directory is written). */
int ls_sens_run(const ls_sens_opts *o, FILE *out, char *err, size_t errlen);

/* The enum key whose values include both sides of "A/B" (ratio parsing); 0, or 2 with err. */
int ls_sens_ratio_key(const char *spec, const char **key, char *a, char *b, size_t len, char *err, size_t errlen);
#endif
