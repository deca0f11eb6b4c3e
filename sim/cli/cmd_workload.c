/* `lampsim workload stats|fit`: attention statistics of workloads and traces (sim/workload/workload_stats.h),
 * and the `heads` generator's knobs fitted to traces (sim/workload/workload_fit.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "cli.h"
#include "config.h"
#include "model.h"
#include "workload.h"
#include "workload_fit.h"
#include "workload_stats.h"

static void workload_usage(FILE *out)
{
    fputs("usage: lampsim workload stats [INPUT...] [--config CONFIG] [--set K=V]... [-o FILE.csv] [--sink S] [--local W]\n"
          "                              [--heads N] [--engine-rows R] [--row-budget MACS] [--no-lamp]\n"
          "       lampsim workload fit INPUT... -o FITTED.yaml [--config CONFIG] [--set K=V]... [--name NAME]\n"
          "                              [--no-check] [--strict] [--no-calibrate]\n"
          "  INPUT          a workload YAML (synthetic, or a trace as written by scripts/dump_qkv.py), a model\n"
          "                 description with per-layer traces (DIR/model.yaml of eval_ppl.py --dump-traces), or\n"
          "                 such a DIR; none: the configuration's own workload. Each trace is one layer.\n"
          "  --config C     accelerator and algorithm (tile b_q n_q b_k n_k, tau, delta; default: embedded)\n"
          "  --set K=V      override a configuration key (repeatable), e.g. algorithm.delta=0.0625\n"
          "  -o FILE        stats: the CSV (default stdout, summary on stderr); fit: the workload YAML\n"
          "  --sink S       sink = keys 0 .. S-1 (default 1);  --local W  local = last W keys (default 16)\n"
          "  --heads N      first N query heads only;  --engine-rows R  LAMP rates from the last R rows per head\n"
          "  --row-budget M float64 multiply-adds per head for the statistics (default 2^27; rows subsampled beyond)\n"
          "  --no-lamp      statistics only (no engine run)\n"
          "  fit: after writing, the statistics and LAMP rates of the fitted workload against the traces' (stderr);\n"
          "  --no-check     skip that;  --strict  exit 1 when a LAMP rate's mean error exceeds 0.05 (at the fitted\n"
          "                 seed or over the 5 seeds the check measures)\n"
          "  --no-calibrate the analytic fit only (no per-head calibration of local mass, entropy and sink mass,\n"
          "                 nor of a layer's far spread for its stage-1 share)\n",
          out);
}

typedef struct {
    char path[PATH_MAX];
    int layer;
} input;

static int is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Expands INPUT arguments into workload files, one per layer: model descriptions give their traces. */
static int expand_inputs(char **args, int n, input **out, int *nout)
{
    int cap = 16, k = 0;
    input *v = malloc(cap * sizeof *v);
    if (!v) return 1;
    for (int a = 0; a < n; ++a) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s%s", args[a], is_dir(args[a]) ? "/model.yaml" : "");
        ls_model *m = calloc(1, sizeof *m);
        char err[1024];
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        int is_model = m && (!strcmp(base, "model.yaml") || !ls_model_load(m, path, err, sizeof err));
        if (is_model && !strcmp(base, "model.yaml") && ls_model_load(m, path, err, sizeof err)) {
            fprintf(stderr, "lampsim workload: %s\n", err);
            ls_model_free(m);
            free(m), free(v);
            return 2;
        }
        int before = k;
        for (int l = 0; l < (is_model ? m->layers : 1); ++l) {
            const char *p = is_model ? m->traces[l] : path;
            if (is_model && !p) {
                fprintf(stderr, "lampsim workload: %s: layer %d has no trace; skipped\n", path, l);
                continue;
            }
            if (k == cap) {
                input *w = realloc(v, (cap *= 2) * sizeof *v);
                if (!w) {
                    if (m) ls_model_free(m);
                    free(m), free(v);
                    return 1;
                }
                v = w;
            }
            if (!realpath(p, v[k].path)) {
                fprintf(stderr, "lampsim workload: %s: cannot open\n", p);
                if (m) ls_model_free(m);
                free(m), free(v);
                return 2;
            }
            v[k].layer = is_model ? l : k;
            k++;
        }
        if (is_model && k == before) {   /* an empty CSV exiting 0 would look like a measurement */
            fprintf(stderr, "lampsim workload: %s: no layer of the model has a trace: nothing to measure (give the "
                    "layers' traces in the model description)\n", path);
            ls_model_free(m);
            free(m), free(v);
            return 2;
        }
        if (m) ls_model_free(m);   /* also what a failed parse left */
        free(m);
    }
    *out = v;
    *nout = k;
    return 0;
}

/* The configuration with the workload of one input (NULL: its own). */
static int load_for(ls_config *cfg, const char *config_path, const char **sets, int nsets, const char *workload)
{
    const char **all = calloc((size_t)nsets + 2, sizeof *all);
    char wset[PATH_MAX + 32];
    if (!all) return 1;
    int n = 0;
    if (workload) {
        snprintf(wset, sizeof wset, "workload.file=%s", workload);
        all[n++] = wset;
    }
    for (int i = 0; i < nsets; ++i) all[n++] = sets[i];
    ls_config_diag *diag = malloc(sizeof *diag);
    int rc = !diag ? 1 : ls_config_load(cfg, config_path, all, n, diag) ? 2 : 0;
    if (rc == 2) fprintf(stderr, "%s\n", diag->message);
    free(diag);
    free(all);
    return rc;
}

/* Other seeds the check also measures the fitted workload at. The calibration matched the fitted seed's very
 * numbers, so its errors alone cannot tell a fit that is off from a trace too short to pin a rate (a few dozen
 * tiles per head). */
#define FIT_CHECK_SEEDS 4

/* Measures the fitted workload, at seed_offset from its own seed (0: its own), into f[nt]. Returns 0 with cfg
 * loaded, or the exit code with msg set. */
static int fit_measure(ls_config *cfg, const char *config_path, const char **sets, int nsets, const char *fitted,
                       const ls_wstats_opts *opts, int64_t seed_offset, ls_wstats_head *f, int nt, char *msg, size_t msglen)
{
    int rc = load_for(cfg, config_path, sets, nsets, fitted);
    if (rc) return rc;
    if (seed_offset) {   /* the seed the build uses: the workload's own, else the top-level one */
        int64_t *ws = &cfg->workload.seed;
        *ws = (*ws >= 0 ? *ws : cfg->seed) + seed_offset;
    }
    ls_attn_inputs ai;
    ls_workload_info info;
    char err[2048] = "";
    if (ls_workload_build(cfg, NULL, &ai, &info, err, sizeof err)) {
        snprintf(msg, msglen, "%s: %s", fitted, err);
        ls_config_free(cfg);
        return 2;
    }
    ls_wstats_opts o = *opts;
    o.heads = 0;
    if (ai.heads_q != nt || ls_wstats_measure(&ai, 0, &cfg->algorithm, &o, f, err, sizeof err) != nt) {
        snprintf(msg, msglen, "check: %s", ai.heads_q != nt ? "head counts differ" : err);
        ls_config_free(cfg);
        rc = 1;
    }
    ls_attn_inputs_release(&ai);
    return rc;
}

/* One statistic of head h. */
static double stat_of(const ls_wstats_head *h, size_t off) { return *(const double *)((const char *)h + off); }

/* Heads whose fitted logit spread is off by more than a factor FIT_SPREAD_LIMIT from the traced head's (at the fitted
 * seed): a head the fit had to sharpen (or flatten) to match its local mass, whose rates then come from another
 * softmax. One warning lists them. */
#define FIT_SPREAD_LIMIT 2.0
static void spread_warning(const ls_wstats_head *t, const ls_wstats_head *f, int nt)
{
    char list[512] = "";
    size_t len = 0;
    int n = 0;
    for (int h = 0; h < nt; ++h) {
        double r = f[h].logit_std / t[h].logit_std;
        if (!(t[h].logit_std > 0) || (r <= FIT_SPREAD_LIMIT && r >= 1 / FIT_SPREAD_LIMIT)) continue;
        if (n++ < 6 && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s layer %d head %d %.2f against %.2f",
                                    n > 1 ? "," : "", t[h].layer, t[h].head, f[h].logit_std, t[h].logit_std);
    }
    if (n)
        fprintf(stderr, "lampsim workload fit: warning: %d head(s) have a logit spread (logit_std) more than %g times off "
                        "the traces':%s%s; their softmax is not the traced one (the usual cause: at small d too few "
                        "profile pairs for a sharp local head, whose amplitude the calibration raises to its local "
                        "mass)\n",
                n, FIT_SPREAD_LIMIT, list, n > 6 ? ", ..." : "");
}

/* With more than one fitted layer (a new one wherever the traced head index starts again at 0), the LAMP rates'
 * mean errors per layer, at the fitted seed and over the ns seeds: the table's means over every head can hide a
 * layer that is off one way behind another off the other way. */
static void layer_rates(const ls_wstats_head *t, const ls_wstats_head *f, int nt, int ns)
{
    static const struct { const char *name; size_t off; } rates[] = {
        {"stage1_rate", offsetof(ls_wstats_head, stage1_rate)},
        {"subblock_rate", offsetof(ls_wstats_head, subblock_rate)},
        {"disruptive_rate", offsetof(ls_wstats_head, disruptive_rate)},
    };
    enum { NR = sizeof rates / sizeof *rates };
    int layers = 0;
    for (int h = 0; h < nt; ++h) layers += !h || t[h].head == 0;
    if (layers < 2) return;
    fprintf(stderr, "  per fitted layer, the rates' mean error at the fitted seed / over all %d seeds:\n  %-5s %5s", ns,
            "layer", "heads");
    for (size_t c = 0; c < NR; ++c) fprintf(stderr, "  %-*s", c + 1 < NR ? 17 : 0, rates[c].name);
    fputc('\n', stderr);
    for (int h0 = 0, layer = 0; h0 < nt; ++layer) {
        int h1 = h0 + 1;
        while (h1 < nt && t[h1].head != 0) ++h1;
        fprintf(stderr, "  %5d %5d", layer, h1 - h0);
        for (size_t c = 0; c < NR; ++c) {
            double e0 = 0, all = 0;
            int n = 0;
            for (int h = h0; h < h1; ++h) {
                bool nan = isnan(stat_of(&t[h], rates[c].off));
                for (int s = 0; s < ns; ++s) nan |= isnan(stat_of(&f[(size_t)s * nt + h], rates[c].off));
                if (nan) continue;
                ++n;
                e0 += stat_of(&f[h], rates[c].off) - stat_of(&t[h], rates[c].off);
                for (int s = 0; s < ns; ++s) all += (stat_of(&f[(size_t)s * nt + h], rates[c].off) - stat_of(&t[h], rates[c].off)) / ns;
            }
            char cell[40] = "-";
            if (n) snprintf(cell, sizeof cell, "%+.3f / %+.3f", e0 / n, all / n);
            fprintf(stderr, "  %-*s", c + 1 < NR ? 17 : 0, cell);
        }
        fputc('\n', stderr);
        h0 = h1;
    }
}

/* The fitted workload measured as the traces were: per statistic the means over heads, the mean error, the
 * worst head's and the range of the means at FIT_CHECK_SEEDS other seeds; a warning for each LAMP rate whose mean
 * error exceeds 0.05 at the fitted seed or over all seeds (strict: exit 1), saying whether the other seeds put it
 * within 0.05 on average (the trace too short to pin the rate), whether stage 1 on exact logits is within it (e4m3's
 * rounding of q.k), or neither (the fit cannot reproduce it). */
static int fit_check(ls_config *cfg, const char *config_path, const char **sets, int nsets, const char *fitted,
                     const ls_wstats_opts *opts, const ls_wstats_head *t, int nt, bool strict)
{
    enum { NS = 1 + FIT_CHECK_SEEDS };
    char msg[2300] = "";
    ls_wstats_head *f = calloc((size_t)nt * NS, sizeof *f);
    if (!f) return 1;
    int rc = 0;
    for (int s = NS - 1; s >= 0 && !rc; --s) {   /* the fitted seed last: its configuration stays loaded */
        rc = fit_measure(cfg, config_path, sets, nsets, fitted, opts, s, f + (size_t)s * nt, nt, msg, sizeof msg);
        if (s && !rc) ls_config_free(cfg);
    }
    if (rc) {
        fprintf(stderr, "lampsim workload fit: %s\n", msg);
        free(f);
        return rc;
    }
    const ls_engine_params *p = &cfg->algorithm;
    static const struct { const char *name; size_t off; bool rate; } cols[] = {
#define COL(x, r) {#x, offsetof(ls_wstats_head, x), r}
        COL(entropy, false), COL(top1, false), COL(sink_mass, false), COL(local_mass, false),
        COL(logit_span, false), COL(logit_std, false), COL(max_abs_logit, false), COL(top_cos, false),
        COL(raise_sub, false), COL(stage1_exact, false), COL(stage1_rate, true), COL(subblock_rate, true),
        COL(disruptive_rate, true),
#undef COL
    };
    fprintf(stderr, "fit check: %d heads, traces vs fitted workload (tile %d x %d queries, %d x %d keys, tau %g, delta %g)\n"
                    "  %-16s %9s %9s %11s %11s  %-13s mean error, all %d seeds\n", nt, p->b_q, p->n_q, p->b_k, p->n_k, p->tau,
            p->delta, "statistic", "traces", "fitted", "mean error", "worst head", "other seeds", NS);
    /* for the warnings: stage 1 on exact logits (its mean error over every seed) and the top keys' cosines */
    double exact_all = NAN, cos_t = NAN, cos_f = NAN;
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; ++c) {
        double st = 0, sf[NS] = {0}, worst = 0;
        int n = 0;
        for (int h = 0; h < nt; ++h) {
            bool nan = isnan(stat_of(&t[h], cols[c].off));
            for (int s = 0; s < NS; ++s) nan |= isnan(stat_of(&f[(size_t)s * nt + h], cols[c].off));
            if (nan) continue;
            st += stat_of(&t[h], cols[c].off), ++n;
            for (int s = 0; s < NS; ++s) sf[s] += stat_of(&f[(size_t)s * nt + h], cols[c].off);
            worst = fmax(worst, fabs(stat_of(&f[h], cols[c].off) - stat_of(&t[h], cols[c].off)));
        }
        if (!n) continue;
        double lo = INFINITY, hi = -INFINITY, all = 0;   /* the other seeds' means; all: the mean error over every seed */
        for (int s = 0; s < NS; ++s) {
            all += (sf[s] - st) / n / NS;
            if (s) lo = fmin(lo, sf[s] / n), hi = fmax(hi, sf[s] / n);
        }
        double e = (sf[0] - st) / n;
        fprintf(stderr, "  %-16s %9.3f %9.3f %+11.3f %11.3f  %.3f..%.3f  %+.3f\n", cols[c].name, st / n, sf[0] / n, e, worst, lo,
                hi, all);
        if (!strcmp(cols[c].name, "stage1_exact")) exact_all = all;
        if (!strcmp(cols[c].name, "top_cos")) cos_t = st / n, cos_f = sf[0] / n;
        if (!cols[c].rate || (fabs(e) <= 0.05 && fabs(all) <= 0.05)) continue;
        if (fabs(e) > 0.05 && fabs(all) <= 0.05)
            fprintf(stderr, "lampsim workload fit: warning: %s of the fitted workload is %+.3f off the traces' (limit 0.05); "
                            "at %d other seeds it is %.3f..%.3f, %+.3f off on average over all %d: the traces hold too few "
                            "tiles to pin it (trace more tokens or heads)\n", cols[c].name, e, FIT_CHECK_SEEDS, lo, hi, all, NS);
        else {   /* off over the 5 seeds: e4m3's where the logits are right without it (stage 1 exact), else the fit's */
            char why[400] = "the fit cannot reproduce it";
            if (strcmp(cols[c].name, "disruptive_rate") && fabs(exact_all) <= 0.05)
                snprintf(why, sizeof why, "stage 1 on exact logits is %+.3f off (stage1_exact): the rest is e4m3's "
                         "sequential rounding of q.k, which depends on how Q and K write each logit (the query's cosine "
                         "with its top key, top_cos: traces %.2f, fitted %.2f), and a fit of the logits does not carry "
                         "that", exact_all, cos_t, cos_f);
            fprintf(stderr, "lampsim workload fit: warning: %s of the fitted workload is %+.3f off the traces' at the "
                            "fitted seed and %+.3f on average over %d seeds (limit 0.05); %s\n", cols[c].name, e, all, NS,
                    why);
        }
        if (strict) rc = 1;
    }
    layer_rates(t, f, nt, NS);
    spread_warning(t, f, nt);
    free(f);
    ls_config_free(cfg);
    return rc;
}

int ls_cli_workload(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        workload_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    bool fit = !strcmp(sub, "fit");
    if (!fit && strcmp(sub, "stats")) {
        fprintf(stderr, "lampsim workload: unknown subcommand '%s' (stats, fit)\n", sub);
        return 2;
    }
    ls_wstats_opts opts = ls_wstats_default_opts();
    const char *config_path = NULL, *out_path = NULL, *name = NULL;
    const char **sets = calloc((size_t)argc, sizeof *sets);
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    int nsets = 0, ninputs = 0, rc = 0;
    bool check = true, strict = false, calibrate = true;
    if (!sets || !inputs) return 1;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        char *end = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            workload_usage(stdout);
            goto out;
        } else if (!strcmp(a, "--no-lamp")) opts.lamp = false;
        else if (fit && !strcmp(a, "--no-check")) check = false;
        else if (fit && !strcmp(a, "--strict")) strict = true;
        else if (fit && !strcmp(a, "--no-calibrate")) calibrate = false;
        else if (a[0] == '-' && a[1] && !has) {
            fprintf(stderr, "lampsim workload %s: unknown option or missing value: '%s'\n", sub, a);
            rc = 2;
            goto out;
        } else if (!strcmp(a, "--config")) config_path = argv[++i];
        else if (!strcmp(a, "--set")) sets[nsets++] = argv[++i];
        else if (!strcmp(a, "-o")) out_path = argv[++i];
        else if (!strcmp(a, "--name")) name = argv[++i];
        else if (!strcmp(a, "--sink") || !strcmp(a, "--local") || !strcmp(a, "--heads") || !strcmp(a, "--engine-rows") ||
                 !strcmp(a, "--row-budget")) {
            double x = strtod(argv[++i], &end);
            double lo = 1;   /* 0 heads, rows or multiply-adds would measure nothing */
            if (!*argv[i] || *end || x < lo || x > 1e15 || (strcmp(a, "--row-budget") && (x > INT_MAX || x != floor(x)))) {
                fprintf(stderr, "lampsim workload %s: %s: expected a%s number >= %g, got '%s'\n", sub, a,
                        strcmp(a, "--row-budget") ? "n integer" : "", lo, argv[i]);
                rc = 2;
                goto out;
            }
            if (!strcmp(a, "--sink")) opts.sink_keys = (int)x;
            else if (!strcmp(a, "--local")) opts.local_keys = (int)x;
            else if (!strcmp(a, "--heads")) opts.heads = (int)x;
            else if (!strcmp(a, "--engine-rows")) opts.engine_rows = (int)x;
            else opts.row_budget = x;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "lampsim workload %s: unknown option '%s'\n", sub, a);
            rc = 2;
            goto out;
        } else inputs[ninputs++] = argv[i];
    }
    if (fit && (!ninputs || !out_path)) {
        fprintf(stderr, "lampsim workload fit: give one or more traces and -o FITTED.yaml\n");
        rc = 2;
        goto out;
    }
    input *in = NULL;
    int nin = 0, ntraced = 0;
    ls_wstats_head *traced = NULL;   /* fit: the traces' statistics, every head of every layer, for the check */
    if ((rc = expand_inputs(inputs, ninputs, &in, &nin))) goto out;
    int nrun = ninputs ? nin : 1;
    ls_config *cfg = malloc(sizeof *cfg);
    ls_wfit_sums *fs = fit ? ls_wfit_sums_new() : NULL;
    FILE *csv = stdout;
    ls_atomic_file af = {0};   /* -o: written whole or not at all (a device or FIFO in place) */
    if (!cfg || (fit && !fs)) { rc = 1; goto done; }
    if (!fit && out_path) {
        char err[2048] = "";
        if (ls_atomic_file_open(&af, out_path, err, sizeof err)) {
            fprintf(stderr, "lampsim workload stats: %s\n", err);
            csv = NULL;
            rc = 2;
            goto done;
        }
        csv = af.fp;
    }
    ls_config first;
    if (fit) ls_wfit_set_calibrate(fs, calibrate);
    for (int r = 0; r < nrun && !rc; ++r) {
        if ((rc = load_for(cfg, config_path, sets, nsets, ninputs ? in[r].path : NULL))) break;
        ls_attn_inputs ai;
        ls_workload_info info;
        char err[2048] = "";
        if (ls_workload_build(cfg, NULL, &ai, &info, err, sizeof err)) {
            fprintf(stderr, "lampsim workload %s: %s\n", sub, err);
            ls_config_free(cfg);
            rc = 2;
            break;
        }
        int layer = ninputs ? in[r].layer : 0;
        if (fit) {
            if (!r) first = *cfg, ls_wfit_set_seed(fs, cfg->seed);
            if (ls_wfit_accumulate(fs, &ai, layer, &cfg->algorithm, err, sizeof err)) {
                fprintf(stderr, "lampsim workload fit: %s: %s\n", ninputs ? in[r].path : "workload", err);
                rc = 2;
            } else if (check) {
                ls_wstats_head *t = realloc(traced, (size_t)(ntraced + ai.heads_q) * sizeof *t);
                if (!t || ls_wstats_measure(&ai, layer, &cfg->algorithm, &opts, t + ntraced, err, sizeof err) < 0) {
                    fprintf(stderr, "lampsim workload fit: %s\n", t ? err : "out of memory");
                    rc = 1;
                }
                if (t) traced = t, ntraced += ai.heads_q;
            }
        } else {
            int nh = opts.heads > 0 && opts.heads < ai.heads_q ? opts.heads : ai.heads_q;
            ls_wstats_head *h = calloc((size_t)nh, sizeof *h);
            int n = h ? ls_wstats_measure(&ai, layer, &cfg->algorithm, &opts, h, err, sizeof err) : -1;
            if (n < 0) {
                fprintf(stderr, "lampsim workload stats: %s\n", h ? err : "out of memory");
                rc = 1;
            } else {
                ls_wstats_csv(csv, h, n, r == 0);
                char label[LS_CONFIG_NAME_MAX + 32];
                snprintf(label, sizeof label, "%s (layer %d)", info.name, layer);
                ls_wstats_summary(stderr, label, h, n);
            }
            free(h);
        }
        ls_attn_inputs_release(&ai);
        if (!fit || r) ls_config_free(cfg);
    }
    if (fit && !rc && check) {
        /* the check reads the fitted file back: a FIFO or a device (-o written in place) cannot be */
        struct stat st;
        if (stat(out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
            if (strict) {
                fprintf(stderr, "lampsim workload fit: %s: --strict checks the fitted file by reading it back; "
                                "-o must name a regular file (or drop --strict)\n", out_path);
                rc = 2;
            } else {
                fprintf(stderr, "lampsim workload fit: %s is not a regular file: the fit check is skipped "
                                "(write to a file to have it)\n", out_path);
                check = false;
            }
        }
    }
    if (fit && !rc) {
        char err[2048] = "";
        if (ls_wfit_write(fs, &first.workload, name, out_path, err, sizeof err)) {
            fprintf(stderr, "lampsim workload fit: %s\n", err);
            rc = 2;
        } else {
            ls_wfit_layout_notes(fs, stderr);
            ls_wfit_print_spread_notes(fs, stderr);
            fprintf(stderr, "wrote %s\n", out_path);
            if (check) rc = fit_check(cfg, config_path, sets, nsets, out_path, &opts, traced, ntraced, strict);
        }
    }
    if (fit && nrun > 0 && !rc) ls_config_free(&first);
done:
    if (csv && csv != stdout) {
        char err[2048] = "";
        if (rc) ls_atomic_file_abort(&af);
        else if (ls_atomic_file_commit(&af, err, sizeof err)) {
            fprintf(stderr, "lampsim workload stats: %s\n", err);
            rc = 2;
        }
    }
    ls_wfit_sums_free(fs);
    free(traced);
    free(cfg);
    free(in);
out:
    free(sets);
    free(inputs);
    return rc;
}
