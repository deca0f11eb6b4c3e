#ifndef LAMPSIM_SIM_TIMED_ACCURACY_H
#define LAMPSIM_SIM_TIMED_ACCURACY_H
#include "lsdp.h"
typedef struct { double *dref, *dtest, *dlog, *oref; } lstimed_acc_ws;
/* Accuracy metrics of a finished item into x->stats (and the reference O rows if kept). */
void lstimed_item_accuracy(const lsdp_ctx *x, const lstimed_acc_ws *w);
#endif
