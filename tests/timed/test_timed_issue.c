/* The issue model (accelerator.issue, issue 12 item 4), checked against closed forms:
 *  1. the port alone: paced instructions of one slice never wait; a second unit's slice in the
 *     same cycles waits exactly for the free slots; a unit whose work needs more instructions than
 *     the port issues in its cycles is stretched to the issue time;
 *  2. slices: the instructions of a transaction served in slices add up to those served whole;
 *  3. a timed run: units.issue.work is the sum over transactions of ceil(work / work-per-instruction),
 *     bounded by the units' work figures; a narrower port never makes a run faster; data and
 *     statistics do not change; the SystemC top gives the same cycles as the direct drive;
 *  4. per_cycle 0 leaves every figure of a run as it was (no issue unit in the report). */
#include <string.h>

#include "check.h"
#include "lsdp.h"
#include "timed_testutil.h"

static lsdp_txn txn(uint64_t req, uint64_t slice)
{
    lsdp_txn t;
    memset(&t, 0, sizeof t);
    t.req = req;
    t.slice = slice;
    return t;
}

/* An idle unit issuing through port p, per_instr work per instruction. */
static lsdp_unit_state unit_on(lsdp_issue_port *p, uint64_t per_instr)
{
    lsdp_unit_state u;
    memset(&u, 0, sizeof u);
    u.issue = p;
    u.per_instr = per_instr;
    return u;
}

static void port_alone(void)
{
    lsdp_issue_port p;
    CHECK(lsdp_issue_init(&p, 1) == 0);
    lsdp_unit_state a = unit_on(&p, 2048), b = unit_on(&p, 32), v = unit_on(&p, 32);
    /* a: 8 cycles of 8 x 2048 MACs, paced one per cycle on a 1-wide port: never waits */
    lsdp_txn ta = txn(100, 0);
    lsdp_unit_serve(&a, &ta, 8, 4, 8 * 2048);
    CHECK_MSG(ta.start == 100 && ta.busy == 8 && ta.end == 112, "a: start %llu busy %llu end %llu",
              (unsigned long long)ta.start, (unsigned long long)ta.busy, (unsigned long long)ta.end);
    CHECK(p.bound_cycles == 0 && p.instrs == 8);
    /* b: 4 instructions in cycles 100..103 want slots a holds: they take 108..111 */
    lsdp_txn tb = txn(100, 0);
    lsdp_unit_serve(&b, &tb, 4, 0, 4 * 32);
    CHECK_MSG(tb.start == 100 && tb.busy == 12 && tb.end == 112, "b: busy %llu end %llu",
              (unsigned long long)tb.busy, (unsigned long long)tb.end);
    CHECK(p.bound_cycles == 8 && p.instrs == 12);
    /* v: 2 cycles of work needing 8 instructions on an idle port: stretched to 8 cycles */
    lsdp_txn tv = txn(1000, 0);
    lsdp_unit_serve(&v, &tv, 2, 0, 256);
    CHECK_MSG(tv.busy == 8 && v.free_at == 1008 && v.busy == 2, "v: busy %llu free %llu unit busy %llu",
              (unsigned long long)tv.busy, (unsigned long long)v.free_at, (unsigned long long)v.busy);
    /* a 2-wide port issues v's 8 instructions in 4 cycles */
    lsdp_issue_port q;
    CHECK(lsdp_issue_init(&q, 2) == 0);
    lsdp_unit_state w = unit_on(&q, 32);
    lsdp_txn tw = txn(1000, 0);
    lsdp_unit_serve(&w, &tw, 2, 0, 256);
    CHECK_MSG(tw.busy == 4, "2-wide: busy %llu", (unsigned long long)tw.busy);
    /* a slot booked far ahead (beyond the window) forgets the oldest cycles instead of failing */
    lsdp_txn tf = txn(1000 + 3 * LSDP_ISSUE_WINDOW, 0);
    lsdp_unit_serve(&w, &tf, 1, 0, 32);
    CHECK(tf.busy == 1 && q.base > 1000);
    lsdp_issue_free(&p);
    lsdp_issue_free(&q);
}

static void slices_add_up(void)
{
    lsdp_issue_port p;
    CHECK(lsdp_issue_init(&p, 4) == 0);
    lsdp_unit_state u = unit_on(&p, 32);
    lsdp_txn t = txn(0, 8);
    lsdp_unit_serve(&u, &t, 50, 0, 50 * 97);   /* ceil(4850 / 32) = 152 instructions in 7 slices */
    uint64_t slices = 1;
    while (t.rest) {
        uint64_t owed = t.rest;
        t.req = t.start + t.busy;
        lsdp_unit_slice(&u, &t, owed);
        slices++;
    }
    CHECK_MSG(p.instrs == 152 && t.instrs == 0 && slices == 7, "slices: %llu instructions, %llu slices",
              (unsigned long long)p.instrs, (unsigned long long)slices);
    lsdp_issue_free(&p);
}

typedef struct {
    ls_timed_result tr;
    float *o;
    size_t no;
    uint64_t executed, hp;
} outcome;

static int run(const char *const *ov, int nov, int systemc, outcome *out)
{
    memset(out, 0, sizeof *out);
    ls_engine_result r;
    if (tt_run(ov, nov, systemc, &r, &out->tr) != 0) return -1;
    out->o = tt_copy_o(&r, &out->no);
    out->executed = r.tiles.executed;
    out->hp = r.recompute.stage1_subblocks + r.recompute.stage2_subblocks;
    ls_engine_result_free(&r);
    return 0;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* LampAttention on two cores, the default workload cut down; slices of 8 cycles */
#define SMALL "accelerator.cores=2", "workload.seq_q=512", "workload.seq_k=512", "accelerator.interleave_cycles=8"

static uint64_t work_of(const ls_timed_result *tr, const char *unit) { return tt_unit(tr, unit)->work; }
static uint64_t ops_of(const ls_timed_result *tr, const char *unit) { return tt_unit(tr, unit)->ops; }

static void timed_runs(void)
{
    outcome off, w4, w1, w1sc;
    const char *o0[] = { SMALL };
    const char *o4[] = { SMALL, "accelerator.issue.per_cycle=4" };
    const char *o1[] = { SMALL, "accelerator.issue.per_cycle=1" };
    CHECK(run(o0, N(o0), 0, &off) == 0 && run(o4, N(o4), 0, &w4) == 0 && run(o1, N(o1), 0, &w1) == 0);
    CHECK(run(o1, N(o1), 1, &w1sc) == 0);
    CHECK(tt_unit(&off.tr, "issue") == NULL && !off.tr.issue_modelled);
    const ls_timed_unit *i4 = tt_unit(&w4.tr, "issue"), *i1 = tt_unit(&w1.tr, "issue");
    CHECK(i4 && i1);
    if (!i4 || !i1) return;
    /* instructions: per transaction ceil(work / per instruction), so between the sums of the
     * floors and of the floors + 1 (buffer bytes include the fills, which issue nothing) */
    static const struct { const char *unit; uint64_t per; } cls[] = {
        { "tensor", 2048 }, { "lut", 32 }, { "sfu", 32 }, { "vector", 32 } };
    uint64_t lo = 0, hi = 0;
    for (int k = 0; k < 4; k++) {
        lo += work_of(&w4.tr, cls[k].unit) / cls[k].per;
        hi += work_of(&w4.tr, cls[k].unit) / cls[k].per + ops_of(&w4.tr, cls[k].unit);
    }
    hi += work_of(&w4.tr, "buffer") / 512 + ops_of(&w4.tr, "buffer");
    printf("issue: %llu instructions (units alone %llu..%llu); cycles off %llu, 4-wide %llu, 1-wide %llu; "
           "waits %llu / %llu cycles\n", (unsigned long long)i4->work, (unsigned long long)lo, (unsigned long long)hi,
           (unsigned long long)off.tr.cycles, (unsigned long long)w4.tr.cycles, (unsigned long long)w1.tr.cycles,
           (unsigned long long)w4.tr.issue_bound_cycles, (unsigned long long)w1.tr.issue_bound_cycles);
    CHECK(i4->work >= lo && i4->work <= hi && i1->work == i4->work);
    /* a narrower port never helps; a 1-wide port binds this machine (128 LUT lanes = 4 instructions per cycle) */
    CHECK(w4.tr.cycles >= off.tr.cycles && w1.tr.cycles > w4.tr.cycles);
    CHECK(w1.tr.issue_bound_cycles > w4.tr.issue_bound_cycles);
    CHECK(w1.tr.cycles * (uint64_t)w1.tr.occupancy.cores_used >= i1->work);   /* one instruction per cycle per core at most */
    CHECK(i1->utilisation > 0.0 && i1->utilisation <= 1.0);
    /* the busy figures of the units are their work, not the stretched slices */
    CHECK(tt_unit(&w1.tr, "tensor")->busy_cycles == tt_unit(&off.tr, "tensor")->busy_cycles);
    /* numerics unchanged */
    CHECK(off.no == w1.no && off.o && w1.o && memcmp(off.o, w1.o, off.no * sizeof(float)) == 0);
    CHECK(off.executed == w1.executed && off.hp == w1.hp);
    /* SystemC top == direct drive */
    CHECK_MSG(w1sc.tr.cycles == w1.tr.cycles && w1sc.tr.issue_bound_cycles == w1.tr.issue_bound_cycles,
              "systemc %llu vs direct %llu", (unsigned long long)w1sc.tr.cycles, (unsigned long long)w1.tr.cycles);
    free(off.o); free(w4.o); free(w1.o); free(w1sc.o);
}

int main(void)
{
    port_alone();
    slices_add_up();
    timed_runs();
    CHECK_DONE();
}
