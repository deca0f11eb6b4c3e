/* hw/lamp/lamp_code.c — the LAMP reference code's selection rule (numerics.md B.2). */
#include "lslamp.h"

#include <stdlib.h>

static int cmp_zi(const void *a, const void *b)
{
    const lslamp_zi *x = a, *y = b;
    if (x->z > y->z) return -1;          /* descending probability */
    if (x->z < y->z) return 1;
    return (x->idx > y->idx) - (x->idx < y->idx);   /* then ascending index: a total order */
}

int lslamp_lampcode_mask(const double *z, int n, double tau_code, unsigned char *sel, lslamp_zi *tmp)
{
    if (n <= 0) return 0;
    for (int k = 0; k < n; k++) { tmp[k].z = z[k]; tmp[k].idx = k; }
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_zi);
    double zmin = tmp[n - 1].z, thr = 2.0 - tau_code, P = 0.0;
    int count = 0;
    for (int k = 0; k < n; k++) {
        int s = P + 2.0 * zmin < thr;
        sel[tmp[k].idx] = (unsigned char)s;
        count += s;
        P += tmp[k].z;
    }
    return count;
}
