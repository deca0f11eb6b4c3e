#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ls_json_init(ls_json *j) { memset(j, 0, sizeof *j); }
void ls_json_free(ls_json *j) { free(j->buf); memset(j, 0, sizeof *j); }

static void put(ls_json *j, const char *s, size_t n)
{
    if (j->oom) return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 1024;
        while (cap < j->len + n + 1) cap *= 2;
        char *nb = realloc(j->buf, cap);
        if (!nb) { j->oom = true; return; }
        j->buf = nb;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(ls_json *j, const char *s) { put(j, s, strlen(s)); }

static void putf(ls_json *j, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put(j, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void indent(ls_json *j)
{
    put(j, "\n", 1);
    for (int i = 0; i < j->depth; i++) put(j, "  ", 2);
}

static void quoted(ls_json *j, const char *s)
{
    put(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': puts_(j, "\\\""); break;
        case '\\': puts_(j, "\\\\"); break;
        case '\n': puts_(j, "\\n"); break;
        case '\r': puts_(j, "\\r"); break;
        case '\t': puts_(j, "\\t"); break;
        default:
            if (*p < 0x20) putf(j, "\\u%04x", *p);
            else put(j, (const char *)p, 1);
        }
    }
    put(j, "\"", 1);
}

/* Separator, indentation and key before a value. */
static void begin_value(ls_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->need_comma[j->depth]) put(j, ",", 1);
        indent(j);
    }
    if (j->depth < 32) j->need_comma[j->depth] = true;
    if (key) {
        quoted(j, key);
        puts_(j, ": ");
    }
}

static void open_(ls_json *j, const char *key, const char *br)
{
    begin_value(j, key);
    puts_(j, br);
    if (j->depth < 31) j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_(ls_json *j, const char *br)
{
    bool had = j->need_comma[j->depth];
    if (j->depth > 0) j->depth--;
    if (had) indent(j);
    puts_(j, br);
    if (j->depth == 0) put(j, "\n", 1);
}

void ls_json_begin_object(ls_json *j, const char *key) { open_(j, key, "{"); }
void ls_json_end_object(ls_json *j) { close_(j, "}"); }
void ls_json_begin_array(ls_json *j, const char *key) { open_(j, key, "["); }
void ls_json_end_array(ls_json *j) { close_(j, "]"); }

void ls_json_string(ls_json *j, const char *key, const char *v)
{
    begin_value(j, key);
    quoted(j, v ? v : "");
}

void ls_json_double(ls_json *j, const char *key, double v)
{
    begin_value(j, key);
    if (!isfinite(v)) { puts_(j, "null"); return; }
    if (v == 0.0) { puts_(j, "0"); return; }   /* no "-0" */
    putf(j, "%.17g", v);                        /* round-trips every double */
}

void ls_json_int(ls_json *j, const char *key, int64_t v) { begin_value(j, key); putf(j, "%lld", (long long)v); }
void ls_json_uint(ls_json *j, const char *key, uint64_t v) { begin_value(j, key); putf(j, "%llu", (unsigned long long)v); }
void ls_json_bool(ls_json *j, const char *key, bool v) { begin_value(j, key); puts_(j, v ? "true" : "false"); }
void ls_json_null(ls_json *j, const char *key) { begin_value(j, key); puts_(j, "null"); }

const char *ls_json_text(ls_json *j) { return j->oom ? NULL : (j->buf ? j->buf : ""); }
