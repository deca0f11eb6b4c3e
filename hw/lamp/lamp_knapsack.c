/* hw/lamp/lamp_knapsack.c — stage 2: the exact block-LAMP problem (numerics.md D.2 step 7, G-14). */
#include "lslamp.h"

static int popcount32(uint32_t x)
{
    int n = 0;
    while (x) { x &= x - 1; n++; }
    return n;
}

/* Is a lexicographically smaller than b (same size)? Compare the sorted theta lists: the set
 * holding the smallest element of the symmetric difference comes first. */
static int lex_less(uint32_t a, uint32_t b)
{
    uint32_t diff = a ^ b;
    if (!diff) return 0;
    uint32_t low = diff & (~diff + 1u);
    return (a & low) != 0;
}

uint32_t lslamp_knapsack(int n_k, uint32_t cand, const double *xi, const double *omega_hat, int nq,
                         double tau, lslamp_tiebreak tiebreak)
{
    (void)n_k;
    uint32_t best = 0;
    int best_size = -1;
    double best_worst = 0.0;
    /* Enumerate every subset of the candidates (N_k is small), including the empty one. */
    uint32_t sub = cand;
    for (;;) {
        int size = popcount32(sub);
        if (size >= best_size) {
            int feasible = 1;
            double worst = 0.0;
            for (int j = 0; j < nq && feasible; j++) {
                double oh = omega_hat[j];
                if (!(oh > 0.0)) continue;                    /* omega_hat = 0: no constraint */
                double s = 0.0;
                for (uint32_t r = sub; r; r &= r - 1) {       /* ascending theta */
                    int th = __builtin_ctz(r);
                    s += xi[(long)th * nq + j];
                }
                double lim = tau * oh * oh;
                if (!(s <= lim)) { feasible = 0; break; }
                double w = s / (oh * oh);
                if (w > worst) worst = w;
            }
            if (feasible) {
                int take;
                if (size > best_size) take = 1;
                else if (tiebreak == LSLAMP_TIE_WORST_QUERY && worst != best_worst) take = worst < best_worst;
                else take = lex_less(sub, best);
                if (take) { best = sub; best_size = size; best_worst = worst; }
            }
        }
        if (sub == 0) break;
        sub = (sub - 1) & cand;
    }
    return best;
}
