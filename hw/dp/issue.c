/* hw/dp/issue.c — a core's instruction issue slots (lsdp_issue_port in lsdp.h). */
#include "lsdp.h"

#include <stdlib.h>
#include <string.h>

int lsdp_issue_init(lsdp_issue_port *p, int per_cycle)
{
    memset(p, 0, sizeof *p);
    p->per_cycle = (uint64_t)per_cycle;
    p->used = calloc(LSDP_ISSUE_WINDOW, 1);
    return p->used ? 0 : -1;
}

void lsdp_issue_free(lsdp_issue_port *p)
{
    free(p->used);
    p->used = NULL;
}

/* Make cycle c remembered, forgetting the oldest cycles if the window must move. */
static void reach(lsdp_issue_port *p, uint64_t c)
{
    if (c < p->base + LSDP_ISSUE_WINDOW) return;
    uint64_t nb = c - LSDP_ISSUE_WINDOW + 1;
    if (nb - p->base >= LSDP_ISSUE_WINDOW) memset(p->used, 0, LSDP_ISSUE_WINDOW);
    else
        for (uint64_t k = p->base; k < nb; k++) p->used[k % LSDP_ISSUE_WINDOW] = 0;
    p->base = nb;
}

uint64_t lsdp_issue_slice(lsdp_issue_port *p, lsdp_txn *t, uint64_t s, uint64_t now, uint64_t owed)
{
    uint64_t n = now >= owed ? t->instrs : t->instrs / owed * now + t->instrs % owed * now / owed;
    if (n == 0) return s;
    uint64_t c = s;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t earliest = s + i * now / n;   /* paced at the unit's own rate */
        if (c < earliest) c = earliest;
        for (;;) {
            if (c < p->base) break;                              /* forgotten cycle: free */
            reach(p, c);
            uint8_t *u = &p->used[c % LSDP_ISSUE_WINDOW];
            if (*u < p->per_cycle) { (*u)++; break; }
            c++;
        }
    }
    p->instrs += n;
    t->instrs -= n;
    return c + 1;
}
