/* The report's config section: every reported schema key and its value. Apart from report.c
 * because sweeps (cache keys) and the sweep-file fuzzer need it without the engine. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_config.h"

void ls_report_config_fields(ls_fields *fs, const ls_config *cfg)
{
    size_t n = 0;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    char name[320];
    for (size_t i = 0; i < n; i++) {
        const ls_config_schema_entry *e = &s[i];
        if (e->flags & (LS_CONFIG_SF_NODUMP | LS_CONFIG_SF_NOREPORT)) continue;
        const char *p = (const char *)cfg + e->offset;
        snprintf(name, sizeof name, "config.%s", e->path);
        switch (e->type) {
        case LS_CONFIG_T_INT: { int v; memcpy(&v, p, sizeof v); ls_fields_int(fs, name, v); break; }
        case LS_CONFIG_T_INT64: { int64_t v; memcpy(&v, p, sizeof v); ls_fields_int(fs, name, v); break; }
        case LS_CONFIG_T_DOUBLE: { double v; memcpy(&v, p, sizeof v); ls_fields_double(fs, name, v); break; }
        case LS_CONFIG_T_BOOL: { bool v; memcpy(&v, p, sizeof v); ls_fields_bool(fs, name, v); break; }
        case LS_CONFIG_T_STRING: case LS_CONFIG_T_PATH: ls_fields_string(fs, name, p); break;
        case LS_CONFIG_T_ENUM: {
            int v;
            memcpy(&v, p, sizeof v);
            const char *nm = ls_config_enum_name(e->path, v);
            ls_fields_string(fs, name, nm ? nm : "?");
            break;
        }
        }
    }
}
