/* Private helpers shared by the files of sim/config. */
#ifndef LAMPSIM_CONFIG_INTERNAL_H
#define LAMPSIM_CONFIG_INTERNAL_H
#include <stddef.h>

#include "config.h"

/* "an integer in [1, 1024]", "one of a, b, c"... */
void ls_config_expected(const ls_config_schema_entry *e, char *buf, size_t len);
/* Lexical normalisation of a path in place (buffer of at least 2 * LS_CONFIG_PATH_MAX + 2). */
void ls_config_path_normalize(char *p);
/* 1 when s is valid UTF-8. */
int ls_config_utf8_valid(const char *s);
#endif
