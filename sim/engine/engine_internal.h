/* Private structures of the engine (run context, per-thread workspaces); the exported pieces are in
 * engine_parts.h, per-item statistics and work items are hw/lamp's. */
#ifndef LAMPSIM_SIM_ENGINE_INTERNAL_H
#define LAMPSIM_SIM_ENGINE_INTERNAL_H
#include "engine_parts.h"

typedef struct {
    const ls_engine_params *p;
    const ls_attn_inputs *in;
    const lslamp_cfg *cfg;
    int br, bc, nqb, nkt;
    bool accuracy;
    float *o, *o_ref;
    lslamp_item_stats *items;  /* per item, merged by ls_engine_merge_items */
    uint64_t *hist;            /* items x (n_k + 1) */
    ls_engine_tile_record *records;   /* NULL unless kept */
    uint8_t *lcmask;           /* lamp_code selection mask, NULL unless kept */
    int nitems;
    const int *run;            /* sampled numerics: the items computed (nrun of them); NULL: all */
    int nrun;
} eng_ctx;

/* Per-thread buffers, allocated once. */
typedef struct {
    lslamp_block blk;   /* shape, Qt, Y and running state buffers; located per item */
    lslamp_ws ws;
    float *Ebuf;        /* (nkt*bc) x br final exponentials (accuracy) */
    float *muh;         /* nkt x br mu_hat per tile (accuracy) */
    float *Yall, *Yallhp; /* (nkt*bc) x br logits (lamp_code) */
    double *dz;         /* seq_k (lamp_code) */
    ls_engine_acc_ws acc; /* accuracy pass (dtest also for lamp_code) */
    unsigned char *sel; /* seq_k */
    lslamp_zi *zi;      /* seq_k */
    uint16_t *tmask;    /* n_q x nkt (lamp_code) */
    float *kvq;         /* 2 x seq_k x dim: the head's K and V rounded to e4m3 (fa3_fp8) */
    /* split-KV (nsplit > 1): each split's final state, [nsplit][br] and [nsplit][br][dim] */
    int nsplit, tps;    /* splits and key tiles per split (ls_engine_split_tiles) */
    float *pmu, *pom32, *pO32;
    double *pom64, *pO64;
} eng_ws;

int eng_ws_init(eng_ws *w, const eng_ctx *x);
void eng_ws_free(eng_ws *w);
void eng_run_item(const eng_ctx *x, eng_ws *w, int item);
/* Native fp32 FA2 over one query block and the key tiles [kt_lo, kt_hi): Qt (d x ldq, pre-scaled),
 * nqv valid rows starting at global row q0 (qpack > 1: packed GQA rows, row r is query r / qpack);
 * m, l: br; O: br x d (row stride d). S: bc x br scratch. Ebuf/muh optional (accuracy
 * reconstruction). Returns nothing; O is left unnormalised. */
void eng_fa2_fp32_block(const float *Qt, int ldq, int nqv, int64_t q0, const float *K, const float *V, int seq_k,
                        int d, int bc, bool causal, int window, int qpack, int64_t shift, int kt_lo, int kt_hi,
                        float *S, float *m, float *l, float *O, float *Ebuf, float *muh, bool p_e4m3);

/* Split-KV (engine_split.c). The running state of the block's br rows (g->mu, om32 / om64, O32 / O64)
 * is saved as split s's partial state, reset for the next split, and the partial states combined
 * back into it (the documented combine, engine.md "Split-KV"): */
void eng_split_reset(const lslamp_block *g, int d);
void eng_split_save(eng_ws *w, const lslamp_block *g, int d, int s);
/* state: the LAMP modes' rule (lambda = exp(mu_s - M) rounded to the state's precision, as
 * lslamp_normaliser; fp32 or float64 omega and O by fp64); fp32 FA2 (expf) with fp64 false and expf
 * true. Calls the split hook, if any, before combining. */
void eng_split_combine(const eng_ctx *x, eng_ws *w, const lslamp_block *g, int item, bool fp64, bool use_expf);
#endif
