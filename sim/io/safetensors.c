#define _XOPEN_SOURCE 700
#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"

typedef struct {
    char *name;
    int dtype;        /* ls_npy_src_dtype, or -1 for an unsupported dtype */
    char dtype_str[16];
    int ndim;
    int64_t shape[LS_NPY_MAX_DIMS];
    uint64_t begin, end;
} st_tensor;

struct ls_safetensors_file {
    char *path;
    const unsigned char *buf;
    size_t len;
    int mapped;
    size_t data_start;
    st_tensor *t;
    int n, cap;
};

/* ---- a small strict JSON reader, enough for the header ---- */
typedef struct {
    const char *p, *end;
    int depth;
    char msg[200];
} jcur;

static void jws(jcur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int jfail(jcur *c, const char *what)
{
    if (!c->msg[0]) snprintf(c->msg, sizeof c->msg, "%s", what);
    return -1;
}

/* Reads a JSON string into a malloc'ed UTF-8 buffer. */
static int jstring(jcur *c, char **out)
{
    jws(c);
    if (c->p >= c->end || *c->p != '"') return jfail(c, "expected a string");
    c->p++;
    size_t cap = 32, n = 0;
    char *s = malloc(cap);
    if (!s) return jfail(c, "out of memory");
    while (c->p < c->end && *c->p != '"') {
        unsigned ch = (unsigned char)*c->p++;
        if (ch < 0x20) {
            free(s);
            return jfail(c, "control character in string");
        }
        if (ch == '\\') {
            if (c->p >= c->end) break;
            char e = *c->p++;
            switch (e) {
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case '/': ch = '/'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                if (c->end - c->p < 4) {
                    free(s);
                    return jfail(c, "bad \\u escape");
                }
                unsigned v = 0;
                for (int i = 0; i < 4; ++i) {
                    char h = *c->p++;
                    v <<= 4;
                    if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
                    else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
                    else {
                        free(s);
                        return jfail(c, "bad \\u escape");
                    }
                }
                ch = v;
                break;
            }
            default:
                free(s);
                return jfail(c, "bad escape in string");
            }
        }
        /* encode ch as UTF-8 (BMP only; surrogates kept as-is) */
        if (n + 4 >= cap) {
            cap *= 2;
            char *t = realloc(s, cap);
            if (!t) {
                free(s);
                return jfail(c, "out of memory");
            }
            s = t;
        }
        if (ch < 0x80) s[n++] = (char)ch;
        else if (ch < 0x800) {
            s[n++] = (char)(0xC0 | (ch >> 6));
            s[n++] = (char)(0x80 | (ch & 0x3F));
        } else {
            s[n++] = (char)(0xE0 | (ch >> 12));
            s[n++] = (char)(0x80 | ((ch >> 6) & 0x3F));
            s[n++] = (char)(0x80 | (ch & 0x3F));
        }
    }
    if (c->p >= c->end) {
        free(s);
        return jfail(c, "unterminated string");
    }
    c->p++;
    s[n] = '\0';
    *out = s;
    return 0;
}

static int juint(jcur *c, uint64_t *v)
{
    jws(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return jfail(c, "expected a non-negative integer");
    uint64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (x > (UINT64_MAX - 9) / 10) return jfail(c, "integer too large");
        x = x * 10 + (uint64_t)(*c->p++ - '0');
    }
    if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E')) return jfail(c, "expected an integer");
    *v = x;
    return 0;
}

static int jchar(jcur *c, char ch)
{
    jws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 0;
    }
    char m[40];
    snprintf(m, sizeof m, "expected '%c'", ch);
    return jfail(c, m);
}

static int jpeek(jcur *c, char ch)
{
    jws(c);
    return c->p < c->end && *c->p == ch;
}

/* Skips any JSON value (for __metadata__ and unknown fields). */
static int jskip(jcur *c)
{
    if (++c->depth > 64) return jfail(c, "nesting too deep");
    jws(c);
    if (c->p >= c->end) return jfail(c, "unexpected end of header");
    int rc = 0;
    if (*c->p == '"') {
        char *s;
        rc = jstring(c, &s);
        if (!rc) free(s);
    } else if (*c->p == '{') {
        c->p++;
        if (jpeek(c, '}')) c->p++;
        else
            for (;;) {
                char *k;
                if (jstring(c, &k)) return -1;
                free(k);
                if (jchar(c, ':') || jskip(c)) return -1;
                if (jpeek(c, ',')) { c->p++; continue; }
                if (jchar(c, '}')) return -1;
                break;
            }
    } else if (*c->p == '[') {
        c->p++;
        if (jpeek(c, ']')) c->p++;
        else
            for (;;) {
                if (jskip(c)) return -1;
                if (jpeek(c, ',')) { c->p++; continue; }
                if (jchar(c, ']')) return -1;
                break;
            }
    } else if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')) {
        while (c->p < c->end && strchr("+-0123456789.eE", *c->p)) c->p++;
    } else if (c->end - c->p >= 4 && (!memcmp(c->p, "true", 4) || !memcmp(c->p, "null", 4))) {
        c->p += 4;
    } else if (c->end - c->p >= 5 && !memcmp(c->p, "false", 5)) {
        c->p += 5;
    } else {
        rc = jfail(c, "invalid JSON value");
    }
    c->depth--;
    return rc;
}

static int parse_tensor(jcur *c, st_tensor *t)
{
    int have_dtype = 0, have_shape = 0, have_off = 0;
    if (jchar(c, '{')) return -1;
    if (jpeek(c, '}')) return jfail(c, "empty tensor description");
    for (;;) {
        char *k;
        if (jstring(c, &k)) return -1;
        if (jchar(c, ':')) {
            free(k);
            return -1;
        }
        if (!strcmp(k, "dtype")) {
            char *d;
            free(k);
            if (jstring(c, &d)) return -1;
            snprintf(t->dtype_str, sizeof t->dtype_str, "%s", d);
            t->dtype = !strcmp(d, "F32") ? LS_NPY_SRC_F32 : !strcmp(d, "F16") ? LS_NPY_SRC_F16 : !strcmp(d, "BF16") ? LS_NPY_SRC_BF16 : -1;
            free(d);
            have_dtype = 1;
        } else if (!strcmp(k, "shape")) {
            free(k);
            if (jchar(c, '[')) return -1;
            t->ndim = 0;
            if (jpeek(c, ']')) c->p++;
            else
                for (;;) {
                    uint64_t v;
                    if (juint(c, &v)) return -1;
                    if (v > ((uint64_t)1 << 40)) return jfail(c, "shape entry too large");
                    if (t->ndim >= LS_NPY_MAX_DIMS) return jfail(c, "too many dimensions");
                    t->shape[t->ndim++] = (int64_t)v;
                    if (jpeek(c, ',')) { c->p++; continue; }
                    if (jchar(c, ']')) return -1;
                    break;
                }
            have_shape = 1;
        } else if (!strcmp(k, "data_offsets")) {
            free(k);
            if (jchar(c, '[') || juint(c, &t->begin) || jchar(c, ',') || juint(c, &t->end) || jchar(c, ']')) return -1;
            have_off = 1;
        } else {
            free(k);
            if (jskip(c)) return -1;
        }
        if (jpeek(c, ',')) { c->p++; continue; }
        if (jchar(c, '}')) return -1;
        break;
    }
    if (!have_dtype) return jfail(c, "missing \"dtype\"");
    if (!have_shape) return jfail(c, "missing \"shape\"");
    if (!have_off) return jfail(c, "missing \"data_offsets\"");
    return 0;
}

static void free_tensors(ls_safetensors_file *f)
{
    for (int i = 0; i < f->n; ++i) free(f->t[i].name);
    free(f->t);
    f->t = NULL;
    f->n = f->cap = 0;
}

static const st_tensor *g_sort_tensors; /* qsort has no context argument in C11 */

static int by_begin(const void *a, const void *b)
{
    const st_tensor *x = &g_sort_tensors[*(const int *)a], *y = &g_sort_tensors[*(const int *)b];
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* The format requires the tensors to tile the data buffer exactly: no overlap, no gap, nothing
 * after the last one. A file breaking this is corrupt or crafted, so it is refused. */
static int check_coverage(const ls_safetensors_file *f, size_t data_len, char *err, size_t errlen)
{
    int *order = malloc((f->n > 0 ? (size_t)f->n : 1) * sizeof *order);
    if (!order) {
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < f->n; ++i) order[i] = i;
    g_sort_tensors = f->t;
    qsort(order, (size_t)f->n, sizeof *order, by_begin);
    uint64_t at = 0;
    int rc = 0;
    for (int k = 0; k < f->n && !rc; ++k) {
        const st_tensor *t = &f->t[order[k]];
        if (t->begin < at) {
            const st_tensor *p = &f->t[order[k - 1]];
            ls_io_err(err, errlen, "tensors '%s' [%llu, %llu] and '%s' [%llu, %llu] overlap in the data buffer", p->name,
                      (unsigned long long)p->begin, (unsigned long long)p->end, t->name,
                      (unsigned long long)t->begin, (unsigned long long)t->end);
            rc = -1;
        } else if (t->begin > at) {
            ls_io_err(err, errlen, "gap in the data buffer: bytes [%llu, %llu) before tensor '%s' belong to no tensor",
                      (unsigned long long)at, (unsigned long long)t->begin, t->name);
            rc = -1;
        }
        at = t->end;
    }
    if (!rc && at != data_len) {
        ls_io_err(err, errlen, "gap in the data buffer: bytes [%llu, %zu) after the last tensor belong to no tensor",
                  (unsigned long long)at, data_len);
        rc = -1;
    }
    free(order);
    return rc;
}

static int parse_file(ls_safetensors_file *f, char *err, size_t errlen)
{
    const unsigned char *b = f->buf;
    if (f->len < 8) {
        ls_io_err(err, errlen, "truncated: %zu bytes, no header size", f->len);
        return -1;
    }
    uint64_t hsize = 0;
    for (int i = 7; i >= 0; --i) hsize = (hsize << 8) | b[i];
    if (hsize > f->len - 8) {
        ls_io_err(err, errlen, "header size %llu exceeds the file size (%zu bytes)", (unsigned long long)hsize, f->len);
        return -1;
    }
    if (hsize > LS_SAFETENSORS_MAX_HEADER) {
        ls_io_err(err, errlen, "header size %llu exceeds the limit of %zu bytes", (unsigned long long)hsize, LS_SAFETENSORS_MAX_HEADER);
        return -1;
    }
    f->data_start = 8 + (size_t)hsize;
    size_t data_len = f->len - f->data_start;
    jcur c = {(const char *)b + 8, (const char *)b + 8 + hsize, 0, {0}};
    int rc = -1;
    if (jchar(&c, '{')) goto bad;
    if (jpeek(&c, '}')) c.p++;
    else
        for (;;) {
            char *name;
            if (jstring(&c, &name)) goto bad;
            if (jchar(&c, ':')) {
                free(name);
                goto bad;
            }
            if (!strcmp(name, "__metadata__")) {
                free(name);
                if (jskip(&c)) goto bad;
            } else {
                for (int i = 0; i < f->n; ++i)
                    if (!strcmp(f->t[i].name, name)) {
                        ls_io_err(err, errlen, "duplicate tensor name '%s' in header", name);
                        free(name);
                        return -1;
                    }
                if (f->n == f->cap) {
                    int nc = f->cap ? 2 * f->cap : 8;
                    st_tensor *nt = realloc(f->t, (size_t)nc * sizeof *nt);
                    if (!nt) {
                        free(name);
                        ls_io_err(err, errlen, "out of memory");
                        return -1;
                    }
                    f->t = nt;
                    f->cap = nc;
                }
                st_tensor *t = &f->t[f->n++];
                memset(t, 0, sizeof *t);
                t->name = name;
                if (parse_tensor(&c, t)) {
                    char m[260];
                    snprintf(m, sizeof m, "tensor '%s': %s", name, c.msg);
                    ls_io_err(err, errlen, "bad header: %s", m);
                    return -1;
                }
            }
            if (jpeek(&c, ',')) { c.p++; continue; }
            if (jchar(&c, '}')) goto bad;
            break;
        }
    jws(&c);
    if (c.p != c.end) {
        ls_io_err(err, errlen, "bad header: trailing characters after the JSON object");
        return -1;
    }
    for (int i = 0; i < f->n; ++i) {
        st_tensor *t = &f->t[i];
        if (t->begin > t->end) {
            ls_io_err(err, errlen, "tensor '%s': data_offsets [%llu, %llu] are reversed (begin after end)", t->name,
                      (unsigned long long)t->begin, (unsigned long long)t->end);
            return -1;
        }
        if (t->end > data_len) {
            ls_io_err(err, errlen, "tensor '%s': data_offsets [%llu, %llu] outside the %zu data bytes (truncated file?)",
                      t->name, (unsigned long long)t->begin, (unsigned long long)t->end, data_len);
            return -1;
        }
        if (t->dtype < 0) continue; /* reported only if this tensor is requested */
        uint64_t count = 1;
        for (int d = 0; d < t->ndim; ++d) {
            if (t->shape[d] && count > (UINT64_MAX / 8) / (uint64_t)t->shape[d]) {
                ls_io_err(err, errlen, "tensor '%s': shape too large", t->name);
                return -1;
            }
            count *= (uint64_t)t->shape[d];
        }
        uint64_t esize = t->dtype == LS_NPY_SRC_F32 ? 4 : 2;
        if (count * esize != t->end - t->begin) {
            char sh[160];
            ls_npy_shape_str(t->shape, t->ndim, sh, sizeof sh);
            ls_io_err(err, errlen, "tensor '%s': shape %s of %s needs %llu bytes but data_offsets span %llu", t->name, sh,
                      t->dtype_str, (unsigned long long)(count * esize), (unsigned long long)(t->end - t->begin));
            return -1;
        }
    }
    return check_coverage(f, data_len, err, errlen);
bad:
    ls_io_err(err, errlen, "bad header: %s at byte %d of the JSON", c.msg, (int)(c.p - (const char *)b - 8));
    return rc;
}

int ls_safetensors_open_mem(const void *buf, size_t len, ls_safetensors_file **out, char *err, size_t errlen)
{
    *out = NULL;
    ls_safetensors_file *f = calloc(1, sizeof *f);
    if (!f) {
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    f->buf = buf;
    f->len = len;
    if (parse_file(f, err, errlen)) {
        ls_safetensors_close(f);
        return -1;
    }
    *out = f;
    return 0;
}

int ls_safetensors_open(const char *path, ls_safetensors_file **out, char *err, size_t errlen)
{
    void *base;
    size_t len;
    *out = NULL;
    if (ls_io_map_file(path, &base, &len, err, errlen)) return -1;
    ls_safetensors_file *f = calloc(1, sizeof *f);
    char *p = malloc(strlen(path) + 1);
    if (!f || !p) {
        free(f);
        free(p);
        ls_io_unmap(base, len);
        ls_io_err(err, errlen, "out of memory");
        return -1;
    }
    strcpy(p, path);
    f->path = p;
    f->buf = base;
    f->len = len;
    f->mapped = 1;
    char msg[384];
    if (parse_file(f, msg, sizeof msg)) {
        ls_io_err(err, errlen, "%s: %s", path, msg);
        ls_safetensors_close(f);
        return -1;
    }
    *out = f;
    return 0;
}

void ls_safetensors_close(ls_safetensors_file *f)
{
    if (!f) return;
    free_tensors(f);
    if (f->mapped) ls_io_unmap((void *)f->buf, f->len);
    free(f->path);
    free(f);
}

int ls_safetensors_count(const ls_safetensors_file *f) { return f ? f->n : 0; }

const char *ls_safetensors_name(const ls_safetensors_file *f, int i) { return f && i >= 0 && i < f->n ? f->t[i].name : NULL; }

int ls_safetensors_find(const ls_safetensors_file *f, const char *name)
{
    for (int i = 0; f && i < f->n; ++i)
        if (!strcmp(f->t[i].name, name)) return i;
    return -1;
}

int ls_safetensors_load_f32(const ls_safetensors_file *f, const char *name, ls_npy_array *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *fname = f->path ? f->path : "<memory>";
    int i = ls_safetensors_find(f, name);
    if (i < 0) {
        char avail[256] = "";
        size_t pos = 0;
        for (int j = 0; j < f->n && pos + 4 < sizeof avail; ++j)
            pos += (size_t)snprintf(avail + pos, sizeof avail - pos, "%s'%s'", j ? ", " : "", f->t[j].name);
        ls_io_err(err, errlen, "%s: tensor '%s' not found (available: %s)", fname, name, f->n ? avail : "none");
        return -1;
    }
    const st_tensor *t = &f->t[i];
    if (t->dtype < 0) {
        ls_io_err(err, errlen, "%s: tensor '%s' has unsupported dtype %s; expected F32, F16 or BF16", fname, name, t->dtype_str);
        return -1;
    }
    out->ndim = t->ndim;
    memcpy(out->shape, t->shape, sizeof t->shape);
    out->count = 1;
    for (int d = 0; d < t->ndim; ++d) out->count *= (size_t)t->shape[d];
    out->src_dtype = (ls_npy_src_dtype)t->dtype;
    size_t abs_off = f->data_start + (size_t)t->begin;
    out->data = malloc(out->count ? out->count * sizeof(float) : 1);
    if (!out->data) {
        ls_io_err(err, errlen, "%s: out of memory for tensor '%s'", fname, name);
        return -1;
    }
    ls_io_convert(f->buf + abs_off, t->dtype, out->count, out->data);
    return 0;
}
