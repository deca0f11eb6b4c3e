/* A small streaming JSON writer into a growable buffer: deterministic output (fixed number
 * formatting, keys in call order) so the same run gives byte-identical reports. */
#ifndef LAMPSIM_REPORT_JSON_H
#define LAMPSIM_REPORT_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ls_json {
    char *buf;
    size_t len, cap;
    int depth;
    bool need_comma[32];
    bool oom;
} ls_json;

void ls_json_init(ls_json *j);
void ls_json_free(ls_json *j);
/* Containers; key may be NULL inside arrays and at the top level. */
void ls_json_begin_object(ls_json *j, const char *key);
void ls_json_end_object(ls_json *j);
void ls_json_begin_array(ls_json *j, const char *key);
void ls_json_end_array(ls_json *j);
/* Values. Non-finite doubles are written as null (JSON has no NaN/Inf). */
void ls_json_string(ls_json *j, const char *key, const char *v);
void ls_json_double(ls_json *j, const char *key, double v);
void ls_json_int(ls_json *j, const char *key, int64_t v);
void ls_json_uint(ls_json *j, const char *key, uint64_t v);
void ls_json_bool(ls_json *j, const char *key, bool v);
void ls_json_null(ls_json *j, const char *key);
/* The text so far (NUL-terminated), or NULL after an allocation failure. */
const char *ls_json_text(ls_json *j);
#endif
