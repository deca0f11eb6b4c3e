/* Did-you-mean: the nearest of a list of names to a misspelt one (configuration keys, commands,
 * options). */
#ifndef LAMPSIM_IO_SUGGEST_H
#define LAMPSIM_IO_SUGGEST_H

#include <stddef.h>

/* Levenshtein distance (insertions, deletions, substitutions); 1000 for words over 200 bytes. */
size_t ls_suggest_distance(const char *a, const char *b);
/* Of the NULL-terminated names, the nearest to word when it is within max(2, strlen(word) / 3)
 * edits (and not word itself), else NULL. */
const char *ls_suggest_nearest(const char *word, const char *const *names);

#endif
