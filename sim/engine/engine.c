/* sim/engine/engine.c — parameters, validation, the thread pool over (batch, head, query block)
 * work items and the fixed-order merge of their statistics. The pieces other models of the same
 * numerics reuse (sim/timed) are exported through engine_parts.h. */
#define _POSIX_C_SOURCE 200809L
#include "engine_internal.h"
#include "engine_sample.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *ls_engine_mode_name(ls_engine_mode m)
{
    switch (m) {
    case LS_ENGINE_MODE_LAMP: return "lamp";
    case LS_ENGINE_MODE_FA2_FP32: return "fa2_fp32";
    case LS_ENGINE_MODE_FA2_16BIT: return "fa2_16bit";
    case LS_ENGINE_MODE_PURE_8BIT: return "pure_8bit";
    case LS_ENGINE_MODE_LAMP_CODE: return "lamp_code";
    case LS_ENGINE_MODE_RANDOM: return "random";
    case LS_ENGINE_MODE_FA3_FP8: return "fa3_fp8";
    }
    return "?";
}

static int fail(char *err, size_t errlen, const char *fmt, const char *a)
{
    if (err && errlen) snprintf(err, errlen, fmt, a);
    return -1;
}

int ls_engine_lamp_cfg(const ls_engine_params *p, int dim, bool tables, lslamp_cfg *c, char *err, size_t errlen)
{
    /* the knobs are the engine's parameters under their hw/lamp names (same enums) */
    memset(c, 0, sizeof *c);
    c->b_q = p->b_q; c->b_k = p->b_k; c->n_k = p->n_k; c->d = dim;
    c->delta = p->delta; c->tau = p->tau;
    c->stage1 = p->stage1; c->stage2 = p->stage2;
    c->arith = p->arithmetic;
    if (p->acc_model == LS_ENGINE_ACC_PAPER) c->acc_model = LSFP_ACC_PAPER;
    else if (p->acc_model == LS_ENGINE_ACC_EXACT) c->acc_model = LSFP_ACC_EXACT;
    else c->acc_model = p->arithmetic == LSLAMP_ARITH_PAPER ? LSFP_ACC_PAPER : LSFP_ACC_EXACT;
    c->rounding = p->rounding;
    c->overflow = p->overflow;
    c->mu_shift = p->mu_lp_shift;
    c->hp_shift = p->hp_shift;
    c->scale_point = p->scale_point;
    c->acc_order = p->acc_order;
    c->chunk_k = p->chunk_k;
    c->lp_datapath = p->lp_datapath;
    c->lp_fused_k = p->lp_fused_k;
    c->tiebreak = p->knapsack_tiebreak;
    c->disruptive = p->disruptive_numerics;
    c->above_one = p->above_one;
    c->state_fp64 = p->state_precision == LS_ENGINE_STATE_FP64;
    c->exp_mode = LSLAMP_EXP_FORMAT;
    c->random_rate = p->random_rate;
    memcpy(c->formats, p->formats, sizeof c->formats);
    /* fa2_fp32 emulates nothing; fa3_fp8 only rounds its operands to e4m3 */
    c->no_tables = !tables || p->mode == LS_ENGINE_MODE_FA2_FP32 || p->mode == LS_ENGINE_MODE_FA3_FP8;
    switch (p->mode) {
    case LS_ENGINE_MODE_FA2_16BIT: c->policy = &lslamp_policy_all; break;
    case LS_ENGINE_MODE_PURE_8BIT: c->policy = &lslamp_policy_none; break;
    case LS_ENGINE_MODE_RANDOM: c->policy = &lslamp_policy_random; break;
    default: c->policy = &lslamp_policy_lamp; break;
    }
    return lslamp_cfg_finalize(c, err, errlen);
}

int ls_engine_logit_bits(const ls_engine_params *p, int *lp_bits, int *hp_bits)
{
    *lp_bits = 8;
    *hp_bits = 16;
    if (p->arithmetic == LSLAMP_ARITH_PAPER) return 0;
    lsfp_format f[LSLAMP_FMT_COUNT];
    if (lslamp_formats_resolve(p->formats, LSLAMP_ARITH_HARDWARE, f, NULL, NULL, 0))
        return -1;
    *lp_bits = f[LSLAMP_FMT_LP].nbits;
    *hp_bits = f[LSLAMP_FMT_HP].nbits;
    return 0;
}

typedef struct {
    const eng_ctx *x;
    atomic_int *next;
    atomic_int *failed;
    atomic_int *done;
} pool_arg;

static void *worker(void *arg)
{
    pool_arg *a = arg;
    eng_ws w;
    if (eng_ws_init(&w, a->x) != 0) {
        atomic_store(a->failed, 1);
        return NULL;
    }
    for (;;) {
        int k = atomic_fetch_add(a->next, 1);
        if (k >= a->x->nrun || atomic_load(a->failed)) break;
        /* test hook: process query blocks in descending order (results must not change) */
        int j = a->x->p->query_block_order ? a->x->nrun - 1 - k : k;
        eng_run_item(a->x, &w, a->x->run ? a->x->run[j] : j);
        int d = atomic_fetch_add(a->done, 1) + 1;
        if (a->x->p->progress) a->x->p->progress(a->x->p->progress_user, d, a->x->nrun);
    }
    eng_ws_free(&w);
    return NULL;
}

static int ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void ls_engine_result_free(ls_engine_result *r)
{
    if (!r) return;
    free(r->o);
    free(r->o_ref);
    free(r->tiles.hp_subblocks_hist);
    free(r->records);
    free(r->lamp_code_mask);
    memset(r, 0, sizeof *r);
}

void ls_engine_merge_items(const lslamp_item_stats *items, int nitems, const uint64_t *hist, int hl,
                           bool accuracy, ls_engine_result *r)
{
    lslamp_item_stats t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < nitems; i++) {     /* fixed order: identical for any thread count */
        const lslamp_item_stats *s = &items[i];
        t.executed += s->executed; t.masked += s->masked; t.stage1 += s->stage1; t.stage2 += s->stage2;
        t.sub_active += s->sub_active; t.logits_unmasked += s->logits_unmasked;
        t.logits_hp1 += s->logits_hp1; t.logits_hp2 += s->logits_hp2;
        t.ev.lp_saturations += s->ev.lp_saturations; t.ev.hp_saturations += s->ev.hp_saturations;
        t.ev.overflows_nan += s->ev.overflows_nan; t.ev.exp_underflows += s->ev.exp_underflows;
        t.ev.exp_above_one += s->ev.exp_above_one; t.ev.exact_fixups += s->ev.exact_fixups;
        t.kl_sum += s->kl_sum; t.l1_sum += s->l1_sum; t.abs_sum += s->abs_sum; t.diff2 += s->diff2;
        t.ref2 += s->ref2; t.rrl2_sum += s->rrl2_sum;
        if (s->kl_max > t.kl_max) t.kl_max = s->kl_max;
        if (s->l1_max > t.l1_max) t.l1_max = s->l1_max;
        if (s->abs_max > t.abs_max) t.abs_max = s->abs_max;
        if (s->rrl2_max > t.rrl2_max) t.rrl2_max = s->rrl2_max;
        t.kl_inf += s->kl_inf; t.rows += s->rows; t.flips += s->flips; t.elems += s->elems;
        for (int h = 0; h < hl; h++) r->tiles.hp_subblocks_hist[h] += hist[(size_t)i * hl + h];
    }
    r->tiles.executed = t.executed;
    r->tiles.masked_skipped = t.masked;
    uint64_t dis = 0;
    for (int h = 2; h < hl; h++) dis += r->tiles.hp_subblocks_hist[h];
    r->tiles.disruptive_rate = t.executed ? (double)dis / (double)t.executed : 0.0;
    ls_engine_recompute_stats *rc = &r->recompute;
    rc->stage1_subblocks = t.stage1;
    rc->stage2_subblocks = t.stage2;
    rc->subblocks_active = t.sub_active;
    rc->logits_unmasked = t.logits_unmasked;
    rc->logits_hp = t.logits_hp1 + t.logits_hp2;
    double lu = (double)t.logits_unmasked;
    rc->logit_rate = lu > 0 ? (double)rc->logits_hp / lu : 0.0;
    rc->logit_rate_stage1 = lu > 0 ? (double)t.logits_hp1 / lu : 0.0;
    rc->logit_rate_stage2 = lu > 0 ? (double)t.logits_hp2 / lu : 0.0;
    rc->subblock_rate = t.sub_active ? (double)(t.stage1 + t.stage2) / (double)t.sub_active : 0.0;
    r->events.e4m3_saturations = t.ev.lp_saturations;
    r->events.hp_saturations = t.ev.hp_saturations;
    r->events.overflows_nan = t.ev.overflows_nan;
    r->events.exp_underflows = t.ev.exp_underflows;
    r->events.exp_above_one = t.ev.exp_above_one;
    r->events.exact_fixups = t.ev.exact_fixups;
    ls_engine_accuracy_stats *a = &r->accuracy;
    a->valid = accuracy;
    if (accuracy) {
        double rows = (double)t.rows;
        a->rows = t.rows;
        a->kl_mean = rows > 0 ? t.kl_sum / rows : 0.0;
        a->kl_max = t.kl_max;
        a->kl_inf_count = t.kl_inf;
        a->l1_mean = rows > 0 ? t.l1_sum / rows : 0.0;
        a->l1_max = t.l1_max;
        a->o_max_abs_err = t.abs_max;
        a->o_mean_abs_err = t.elems ? t.abs_sum / (double)t.elems : 0.0;
        /* NaN when either sum is not finite: a broken reference must not read as zero error */
        a->o_rel_fro_err = !isfinite(t.ref2) || !isfinite(t.diff2) ? NAN : t.ref2 > 0 ? sqrt(t.diff2 / t.ref2) : 0.0;
        a->row_rel_l2_mean = rows > 0 ? t.rrl2_sum / rows : 0.0;
        a->row_rel_l2_max = t.rrl2_max;
        a->argmax_flip_rate = rows > 0 ? (double)t.flips / rows : 0.0;
    }
}

void ls_engine_count_nonfinite(ls_engine_result *r)
{
    size_t n = r->o ? (size_t)r->batch * r->heads_q * r->seq_q * r->dim : 0;
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !isfinite(r->o[i]);
    r->events.o_nonfinite = bad;
}

int ls_engine_check_inputs(const ls_engine_params *p, const ls_attn_inputs *in, char *err, size_t errlen)
{
    if (!p || !in) return fail(err, errlen, "%s", "null parameters or inputs");
    if (in->batch < 1 || in->heads_q < 1 || in->heads_kv < 1 || in->seq_q < 1 || in->seq_k < 1 || in->dim < 1)
        return fail(err, errlen, "%s", "inputs: batch, heads, sequence lengths and dim must be >= 1");
    if (in->heads_q % in->heads_kv != 0)
        return fail(err, errlen, "%s", "inputs: heads_q must be a multiple of heads_kv");
    if (!in->q || !in->k || !in->v) return fail(err, errlen, "%s", "inputs: missing Q, K or V");
    if (in->split_kv < 0) return fail(err, errlen, "%s", "inputs: split_kv must be >= 0");
    if (in->qpack > 1 && (in->heads_q != in->heads_kv || in->seq_q % in->qpack != 0))
        return fail(err, errlen, "%s", "inputs: packed GQA rows (qpack > 1) need heads_q = heads_kv and seq_q a multiple of qpack");
    if (p->b_q < 1 || p->n_q < 1 || p->b_k < 1 || p->n_k < 1)
        return fail(err, errlen, "%s", "b_q, n_q, b_k and n_k must be >= 1");
    if (p->n_k > LSLAMP_MAX_NK) return fail(err, errlen, "%s", "n_k must be <= 16");
    if (p->n_q > 64) return fail(err, errlen, "%s", "n_q must be <= 64");
    return 0;
}

int ls_engine_result_alloc(const ls_engine_params *p, const ls_attn_inputs *in, ls_engine_result *r)
{
    int br = p->b_q * p->n_q, bc = p->b_k * p->n_k;
    int nqb = (in->seq_q + br - 1) / br, nkt = (in->seq_k + bc - 1) / bc;
    size_t nout = (size_t)in->batch * in->heads_q * in->seq_q * in->dim;
    int hl = p->n_k + 1;
    r->batch = in->batch; r->heads_q = in->heads_q; r->seq_q = in->seq_q; r->dim = in->dim;
    r->n_qblocks = nqb; r->n_ktiles = nkt; r->n_q = p->n_q;
    r->tiles.hist_len = hl;
    r->o = calloc(nout, sizeof(float));
    r->tiles.hp_subblocks_hist = calloc((size_t)hl, sizeof(uint64_t));
    if (p->compute_reference && p->keep_reference) r->o_ref = calloc(nout, sizeof(float));
    if (p->keep_tile_records) {
        r->n_records = (size_t)(in->batch * in->heads_q * nqb) * p->n_q * nkt;
        r->records = calloc(r->n_records, sizeof *r->records);
    }
    bool lcm = p->keep_lamp_code_mask && p->mode == LS_ENGINE_MODE_LAMP_CODE;
    if (lcm) {
        r->lamp_code_mask_keys = in->seq_k;
        r->lamp_code_mask = calloc((size_t)in->batch * in->heads_q * in->seq_q * in->seq_k, 1);
    }
    if (!r->o || !r->tiles.hp_subblocks_hist || (p->compute_reference && p->keep_reference && !r->o_ref) ||
        (p->keep_tile_records && !r->records) || (lcm && !r->lamp_code_mask))
        return -1;
    return 0;
}

int ls_engine_run(const ls_engine_params *p, const ls_attn_inputs *in, ls_engine_result *r,
                  char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (ls_engine_check_inputs(p, in, err, errlen) != 0) return -1;
    if (p->threads < 0) return fail(err, errlen, "%s", "threads must be >= 0");
    if (p->mode == LS_ENGINE_MODE_LAMP_CODE && p->rounding == LSFP_RND_STOCHASTIC)
        return fail(err, errlen, "%s", "lamp_code mode does not support stochastic rounding");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    lslamp_cfg *cfg = malloc(sizeof *cfg);
    if (!cfg) return fail(err, errlen, "%s", "out of memory");
    if (ls_engine_lamp_cfg(p, in->dim, true, cfg, err, errlen) != 0) { free(cfg); return -1; }

    eng_ctx x;
    memset(&x, 0, sizeof x);
    x.p = p; x.in = in; x.cfg = cfg;
    x.br = p->b_q * p->n_q;
    x.bc = p->b_k * p->n_k;
    x.nqb = (in->seq_q + x.br - 1) / x.br;
    x.nkt = (in->seq_k + x.bc - 1) / x.bc;
    x.accuracy = p->compute_reference;
    x.nitems = in->batch * in->heads_q * x.nqb;
    x.nrun = x.nitems;
    int hl = p->n_k + 1;
    /* sampled numerics: the items of the sampled query blocks only */
    unsigned char *sampled = NULL;
    int *run = NULL;
    bool sampling = p->sample_query_blocks > 0 && p->sample_query_blocks < x.nqb;
    if (sampling) {
        sampled = malloc((size_t)x.nqb);
        run = malloc((size_t)x.nitems * sizeof *run);
        if (!sampled || !run) { free(sampled); free(run); free(cfg); return fail(err, errlen, "%s", "out of memory"); }
        ls_engine_sample_pick(x.nqb, p->sample_query_blocks, ls_engine_sample_phases(x.br, x.bc), sampled);
        x.nrun = 0;
        for (int i = 0; i < x.nitems; i++)
            if (sampled[i % x.nqb]) run[x.nrun++] = i;
        x.run = run;
    }
    int ralloc = ls_engine_result_alloc(p, in, r);
    x.items = calloc((size_t)x.nitems, sizeof *x.items);
    x.hist = calloc((size_t)x.nitems * hl, sizeof(uint64_t));
    x.o = r->o; x.o_ref = r->o_ref; x.records = r->records; x.lcmask = r->lamp_code_mask;
    int rc = 0;
    if (ralloc != 0 || !x.items || !x.hist) {
        rc = fail(err, errlen, "%s", "out of memory");
    } else {
        int nt = p->threads == 0 ? ncores() : p->threads;
        if (nt > x.nrun) nt = x.nrun;
        if (nt < 1) nt = 1;
        atomic_int next, failed, done;
        atomic_init(&next, 0);
        atomic_init(&failed, 0);
        atomic_init(&done, 0);
        pool_arg arg = { &x, &next, &failed, &done };
        pthread_t *th = calloc((size_t)nt, sizeof *th);
        int started = 0;
        if (th) {
            for (int i = 1; i < nt; i++) {
                if (pthread_create(&th[i], NULL, worker, &arg) != 0) break;
                started++;
            }
            worker(&arg);
            for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
            free(th);
        } else {
            atomic_store(&failed, 1);
        }
        if (atomic_load(&failed)) rc = fail(err, errlen, "%s", "out of memory (engine workspace)");
        else {
            ls_engine_merge_items(x.items, x.nitems, x.hist, hl, x.accuracy, r);
            ls_engine_count_nonfinite(r);
            if (sampling) {
                r->sample.query_blocks = p->sample_query_blocks;
                if (ls_engine_sample_errors(x.items, x.hist, hl, x.nitems, x.nqb, sampled, &r->sample) != 0 ||
                    (r->records && ls_engine_sample_fill(p, in, x.nqb, x.nkt, sampled, r->records) != 0))
                    rc = fail(err, errlen, "%s", "out of memory");
                else if (r->records)
                    ls_engine_sample_tiles(r->records, r->n_records, hl, &r->tiles);
            }
        }
    }
    free(sampled);
    free(run);
    free(x.items);
    free(x.hist);
    free(cfg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc;
}
