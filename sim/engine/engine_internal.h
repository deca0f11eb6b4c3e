/* Private structures of the engine (work items, per-thread workspaces, per-item statistics). */
#ifndef LAMPSIM_SIM_ENGINE_INTERNAL_H
#define LAMPSIM_SIM_ENGINE_INTERNAL_H
#include "engine.h"
#include "lamp.h"

/* Statistics of one work item (batch, head, query block); merged in item order. */
typedef struct {
    uint64_t executed, masked, stage1, stage2, sub_active, logits_unmasked, logits_hp1, logits_hp2;
    lslamp_events ev;
    double kl_sum, kl_max, l1_sum, l1_max, abs_sum, abs_max, diff2, ref2, rrl2_sum, rrl2_max;
    uint64_t kl_inf, rows, flips, elems;
} eng_item_stats;

typedef struct {
    const ls_engine_params *p;
    const ls_attn_inputs *in;
    const lslamp_cfg *cfg;
    int br, bc, nqb, nkt, group;
    bool accuracy;
    float *o, *o_ref;
    eng_item_stats *items;
    uint64_t *hist;            /* items x (n_k + 1) */
    ls_tile_record *records;   /* NULL unless kept */
    int nitems;
} eng_ctx;

/* Per-thread buffers, allocated once. */
typedef struct {
    float *Qt;          /* d x br */
    float *Y;           /* bc x br */
    float *mu;          /* br */
    float *om32, *O32;  /* br, br x d */
    double *om64, *O64;
    lslamp_ws ws;
    float *Ebuf;        /* (nkt*bc) x br final exponentials (accuracy) */
    float *muh;         /* nkt x br mu_hat per tile (accuracy) */
    float *Yall, *Yallhp; /* (nkt*bc) x br logits (lamp_code) */
    double *dz, *dref, *dtest, *dlog; /* seq_k */
    double *oref;       /* d */
    unsigned char *sel; /* seq_k */
    lslamp_zi *zi;      /* seq_k */
    uint16_t *tmask;    /* n_q x nkt (lamp_code) */
} eng_ws;

int eng_ws_init(eng_ws *w, const eng_ctx *x);
void eng_ws_free(eng_ws *w);
void eng_run_item(const eng_ctx *x, eng_ws *w, int item);
/* Native fp32 FA2 over one query block: Qt (d x ldq, pre-scaled), nqv valid queries starting at
 * global query q0; m, l: br; O: br x d (row stride d). S: bc x br scratch. Ebuf/muh optional
 * (accuracy reconstruction). Returns nothing; O is left unnormalised. */
void eng_fa2_fp32_block(const float *Qt, int ldq, int nqv, int64_t q0, const float *K, const float *V, int seq_k,
                        int d, int bc, bool causal, int64_t shift, float *S, float *m, float *l, float *O,
                        float *Ebuf, float *muh);
#endif
