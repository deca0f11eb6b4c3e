/* An ordered list of report fields with dotted names ("tiles.disruptive_rate"). One list feeds
 * report.json (nested by the dots), report.csv (one flat row) and the sweep merger, so every
 * output names a quantity the same way. */
#ifndef LAMPSIM_REPORT_FIELDS_H
#define LAMPSIM_REPORT_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

typedef enum { LS_FIELDS_DOUBLE, LS_FIELDS_INT, LS_FIELDS_UINT, LS_FIELDS_BOOL, LS_FIELDS_STRING, LS_FIELDS_UINT_ARRAY } ls_fields_type;

typedef struct {
    char *name;
    ls_fields_type type;
    double d;
    int64_t i;
    uint64_t u;
    bool b;
    char *s;
    uint64_t *arr;
    size_t n;
} ls_fields_item;

typedef struct {
    ls_fields_item *f;
    size_t n, cap;
    bool oom;
} ls_fields;

void ls_fields_init(ls_fields *fs);
void ls_fields_free(ls_fields *fs);
void ls_fields_double(ls_fields *fs, const char *name, double v);
void ls_fields_int(ls_fields *fs, const char *name, int64_t v);
void ls_fields_uint(ls_fields *fs, const char *name, uint64_t v);
void ls_fields_bool(ls_fields *fs, const char *name, bool v);
void ls_fields_string(ls_fields *fs, const char *name, const char *v);
void ls_fields_uint_array(ls_fields *fs, const char *name, const uint64_t *v, size_t n);

/* Nested JSON object of all fields (consecutive fields sharing a prefix share an object). */
void ls_fields_to_json(const ls_fields *fs, ls_json *j);
/* The same members into an object the caller opened (and closes, after adding its own). */
void ls_fields_to_json_members(const ls_fields *fs, ls_json *j);
/* CSV header line and value line (RFC 4180 quoting; arrays joined with ';'), each ending "\n".
 * Returns a malloc'ed string, or NULL on allocation failure. */
char *ls_fields_to_csv(const ls_fields *fs);
#endif
