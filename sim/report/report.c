#include "report.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lampsim_version.h"

static void workload_fields(ls_fields *fs, const ls_workload_info *w)
{
    ls_fields_string(fs, "workload.name", w->name);
    ls_fields_string(fs, "workload.generator", w->generator);
    ls_fields_bool(fs, "workload.synthetic", w->synthetic);
    ls_fields_string(fs, "workload.dtype", w->dtype);
    ls_fields_int(fs, "workload.batch", w->batch);
    ls_fields_int(fs, "workload.heads_q", w->heads_q);
    ls_fields_int(fs, "workload.heads_kv", w->heads_kv);
    ls_fields_int(fs, "workload.seq_q", w->seq_q);
    ls_fields_int(fs, "workload.seq_k", w->seq_k);
    ls_fields_int(fs, "workload.dim", w->dim);
    ls_fields_bool(fs, "workload.causal", w->causal);
    ls_fields_int(fs, "workload.seed", w->seed);
    ls_fields_double(fs, "workload.max_abs_logit", w->max_abs_logit);
    ls_fields_bool(fs, "workload.logits_within_limit", w->logits_within_limit);
    ls_fields_double(fs, "workload.gain_used", w->gain_applicable ? w->gain_used : NAN);
    ls_fields_double(fs, "workload.gain_bound", w->gain_bound);
    ls_fields_bool(fs, "workload.gain_bound_respected", w->gain_applicable ? w->gain_bound_respected : true);
    char hash[24] = "";
    if (w->data_generated) snprintf(hash, sizeof hash, "%016llx", (unsigned long long)w->hash);
    ls_fields_string(fs, "workload.hash", hash);
    ls_fields_bool(fs, "workload.data_generated", w->data_generated);
}

void ls_report_fields(ls_fields *fs, const ls_config *cfg, const char *model, const ls_workload_info *wl,
                      const ls_engine_result *r)
{
    ls_fields_int(fs, "schema_version", LS_REPORT_SCHEMA_VERSION);
    ls_fields_string(fs, "lampsim.version", LAMPSIM_VERSION);
    ls_fields_string(fs, "lampsim.git", LAMPSIM_GIT_REV);
    ls_fields_int(fs, "seed", cfg->seed);
    ls_fields_string(fs, "mode", ls_engine_mode_name(cfg->algorithm.mode));
    ls_fields_string(fs, "model", model);
    workload_fields(fs, wl);
    /* timing-only runs (timed.timing_only) do no arithmetic: their tiles and recompute figures
     * are exact (geometry), but accuracy and events would be made up, so they are left out */
    ls_fields_bool(fs, "numerics.computed", !r->timing_only);

    ls_fields_uint(fs, "tiles.executed", r->tiles.executed);
    ls_fields_uint(fs, "tiles.masked_skipped", r->tiles.masked_skipped);
    ls_fields_uint_array(fs, "tiles.hp_subblocks_hist", r->tiles.hp_subblocks_hist, (size_t)r->tiles.hist_len);
    ls_fields_double(fs, "tiles.disruptive_rate", r->tiles.disruptive_rate);

    ls_fields_double(fs, "recompute.logit_rate", r->recompute.logit_rate);
    ls_fields_double(fs, "recompute.logit_rate_stage1", r->recompute.logit_rate_stage1);
    ls_fields_double(fs, "recompute.logit_rate_stage2", r->recompute.logit_rate_stage2);
    ls_fields_double(fs, "recompute.subblock_rate", r->recompute.subblock_rate);
    ls_fields_uint(fs, "recompute.stage1_subblocks", r->recompute.stage1_subblocks);
    ls_fields_uint(fs, "recompute.stage2_subblocks", r->recompute.stage2_subblocks);
    ls_fields_uint(fs, "recompute.subblocks_active", r->recompute.subblocks_active);
    if (r->timing_only) return;
    if (r->sample.query_blocks > 0) {   /* sampled numerics only: the default report keeps its fields */
        ls_fields_int(fs, "numerics.sample.query_blocks", r->sample.query_blocks);
        ls_fields_double(fs, "numerics.sample.share",
                         r->sample.items_total ? (double)r->sample.items_sampled / r->sample.items_total : 1.0);
        ls_fields_double(fs, "numerics.sample.subblock_rate_se", r->sample.subblock_rate_se);
        ls_fields_double(fs, "numerics.sample.disruptive_rate_se", r->sample.disruptive_rate_se);
    }

    const ls_engine_accuracy_stats *a = &r->accuracy;
    ls_fields_bool(fs, "accuracy.valid", a->valid);
    ls_fields_double(fs, "accuracy.kl_mean", a->valid ? a->kl_mean : NAN);
    ls_fields_double(fs, "accuracy.kl_max", a->valid ? a->kl_max : NAN);
    ls_fields_uint(fs, "accuracy.kl_inf_count", a->kl_inf_count);
    ls_fields_double(fs, "accuracy.l1_mean", a->valid ? a->l1_mean : NAN);
    ls_fields_double(fs, "accuracy.l1_max", a->valid ? a->l1_max : NAN);
    ls_fields_double(fs, "accuracy.o_max_abs_err", a->valid ? a->o_max_abs_err : NAN);
    ls_fields_double(fs, "accuracy.o_mean_abs_err", a->valid ? a->o_mean_abs_err : NAN);
    ls_fields_double(fs, "accuracy.o_rel_fro_err", a->valid ? a->o_rel_fro_err : NAN);
    ls_fields_double(fs, "accuracy.row_rel_l2_mean", a->valid ? a->row_rel_l2_mean : NAN);
    ls_fields_double(fs, "accuracy.row_rel_l2_max", a->valid ? a->row_rel_l2_max : NAN);
    ls_fields_double(fs, "accuracy.argmax_flip_rate", a->valid ? a->argmax_flip_rate : NAN);
    ls_fields_uint(fs, "accuracy.rows", a->rows);

    const ls_engine_event_stats *e = &r->events;
    ls_fields_uint(fs, "events.e4m3_saturations", e->e4m3_saturations);
    ls_fields_uint(fs, "events.hp_saturations", e->hp_saturations);
    ls_fields_uint(fs, "events.overflows_nan", e->overflows_nan);
    ls_fields_uint(fs, "events.exp_underflows", e->exp_underflows);
    ls_fields_uint(fs, "events.exp_above_one", e->exp_above_one);
    ls_fields_uint(fs, "events.o_nonfinite", e->o_nonfinite);
}

void ls_report_summary(FILE *out, const ls_config *cfg, const ls_workload_info *wl, const ls_engine_result *r)
{
    const ls_engine_params *al = &cfg->algorithm;
    fprintf(out, "lampsim %s (git %s)  mode %s, %s arithmetic, seed %lld\n", LAMPSIM_VERSION, LAMPSIM_GIT_REV,
            ls_engine_mode_name(al->mode), ls_config_enum_name("algorithm.arithmetic", al->arithmetic),
            (long long)cfg->seed);
    fprintf(out, "workload  %s (%s%s): batch %d, heads %d/%d, seq %d x %d, d %d, %s\n", wl->name, wl->generator,
            wl->synthetic ? ", synthetic" : "", wl->batch, wl->heads_q, wl->heads_kv, wl->seq_q, wl->seq_k, wl->dim,
            wl->causal ? "causal" : "full");
    fprintf(out, "tiling    b_q %d x n_q %d, b_k %d x n_k %d, tau %g, delta %g\n", al->b_q, al->n_q, al->b_k, al->n_k,
            al->tau, al->delta);
    fprintf(out, "tiles     %llu executed, %llu fully masked skipped; HP sub-blocks per tile:",
            (unsigned long long)r->tiles.executed, (unsigned long long)r->tiles.masked_skipped);
    for (int i = 0; i < r->tiles.hist_len; i++) {
        double share = r->tiles.executed ? (double)r->tiles.hp_subblocks_hist[i] / (double)r->tiles.executed : 0.0;
        fprintf(out, " %d:%.1f%%", i, 100.0 * share);
    }
    fprintf(out, "\n          disruptive (>= 2 HP sub-blocks) %.2f%%\n", 100.0 * r->tiles.disruptive_rate);
    fprintf(out, "recompute logits %.2f%% (stage 1 %.2f%%, stage 2 %.2f%%), sub-blocks %.2f%%\n",
            100.0 * r->recompute.logit_rate, 100.0 * r->recompute.logit_rate_stage1,
            100.0 * r->recompute.logit_rate_stage2, 100.0 * r->recompute.subblock_rate);
    if (r->timing_only) {
        fprintf(out, "numerics  not computed (timed.timing_only): no O, accuracy or events\n");
        return;
    }
    if (r->sample.query_blocks > 0)
        fprintf(out, "sampled   numerics of %d query blocks per head (%d of %d blocks, %.1f%%): sub-block rate +-%.2f "
                "points, disruptive +-%.2f (1 s.e.); tiles count every replayed tile\n", r->sample.query_blocks,
                r->sample.items_sampled, r->sample.items_total,
                r->sample.items_total ? 100.0 * r->sample.items_sampled / r->sample.items_total : 100.0,
                100.0 * r->sample.subblock_rate_se, 100.0 * r->sample.disruptive_rate_se);
    if (r->accuracy.valid)
        fprintf(out, "accuracy  vs fp64: KL mean %.3e max %.3e, O rel. Frobenius %.3e, max |dO| %.3e, argmax flips %.3f%%\n",
                r->accuracy.kl_mean, r->accuracy.kl_max, r->accuracy.o_rel_fro_err, r->accuracy.o_max_abs_err,
                100.0 * r->accuracy.argmax_flip_rate);
    else
        fprintf(out, "accuracy  not computed (algorithm.compute_reference: false)\n");
    fprintf(out, "events    e4m3 saturations %llu, exp underflows %llu, exps above one %llu\n",
            (unsigned long long)r->events.e4m3_saturations, (unsigned long long)r->events.exp_underflows,
            (unsigned long long)r->events.exp_above_one);
}
