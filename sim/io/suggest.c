/* Did-you-mean by edit distance (suggest.h). */
#include "suggest.h"

#include <string.h>

size_t ls_suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 200 || lb > 200) return 1000;
    size_t row[201];
    for (size_t j = 0; j <= lb; ++j) row[j] = j;
    for (size_t i = 1; i <= la; ++i) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; ++j) {
            size_t cur = row[j];
            size_t best = prev + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

const char *ls_suggest_nearest(const char *word, const char *const *names)
{
    size_t best = (size_t)-1, lim = strlen(word) / 3 > 2 ? strlen(word) / 3 : 2;
    const char *bn = NULL;
    for (int i = 0; names && names[i]; ++i) {
        size_t d = ls_suggest_distance(word, names[i]);
        if (d < best) {
            best = d;
            bn = names[i];
        }
    }
    return bn && best > 0 && best <= lim ? bn : NULL;
}
