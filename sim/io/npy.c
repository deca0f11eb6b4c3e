#define _XOPEN_SOURCE 700
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "io.h"

void ls_npy_shape_str(const int64_t *shape, int ndim, char *buf, size_t len)
{
    size_t pos = 0;
    if (!len) return;
    buf[0] = '\0';
    pos += (size_t)snprintf(buf + pos, len - pos, "(");
    for (int i = 0; i < ndim && pos < len; ++i)
        pos += (size_t)snprintf(buf + pos, len - pos, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (pos < len) snprintf(buf + pos, len - pos, ndim == 1 ? ",)" : ")");
}

/* ---- header dictionary parser (the Python literal numpy writes) ---- */
typedef struct {
    const char *p, *end;
} hcur;

static void hskip(hcur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int hstring(hcur *c, char *out, size_t outlen)
{
    hskip(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return -1;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= outlen) return -1;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) return -1;
    c->p++;
    out[n] = '\0';
    return 0;
}

static int hexpect(hcur *c, char ch)
{
    hskip(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 0;
    }
    return -1;
}

typedef struct {
    char descr[32];
    int fortran;
    int ndim;
    int64_t shape[LS_NPY_MAX_DIMS];
    int have_descr, have_fortran, have_shape;
} npy_header;

static int parse_header(const char *text, size_t len, npy_header *h, char *err, size_t errlen)
{
    hcur c = {text, text + len};
    memset(h, 0, sizeof *h);
    if (hexpect(&c, '{')) {
        ls_io_err(err, errlen, "header is not a Python dict literal (expected '{')");
        return -1;
    }
    for (;;) {
        hskip(&c);
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            break;
        }
        char key[32];
        if (hstring(&c, key, sizeof key) || hexpect(&c, ':')) {
            ls_io_err(err, errlen, "malformed header dict near offset %d", (int)(c.p - text));
            return -1;
        }
        hskip(&c);
        if (!strcmp(key, "descr")) {
            if (hstring(&c, h->descr, sizeof h->descr)) {
                ls_io_err(err, errlen, "header 'descr' is not a simple dtype string (structured arrays are not supported)");
                return -1;
            }
            h->have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if ((size_t)(c.end - c.p) >= 4 && !memcmp(c.p, "True", 4)) {
                h->fortran = 1;
                c.p += 4;
            } else if ((size_t)(c.end - c.p) >= 5 && !memcmp(c.p, "False", 5)) {
                h->fortran = 0;
                c.p += 5;
            } else {
                ls_io_err(err, errlen, "header 'fortran_order' is neither True nor False");
                return -1;
            }
            h->have_fortran = 1;
        } else if (!strcmp(key, "shape")) {
            if (hexpect(&c, '(')) {
                ls_io_err(err, errlen, "header 'shape' is not a tuple");
                return -1;
            }
            h->ndim = 0;
            for (;;) {
                hskip(&c);
                if (c.p < c.end && *c.p == ')') {
                    c.p++;
                    break;
                }
                if (c.p >= c.end || !isdigit((unsigned char)*c.p)) {
                    ls_io_err(err, errlen, "header 'shape' contains a non-integer or negative entry");
                    return -1;
                }
                int64_t v = 0;
                while (c.p < c.end && isdigit((unsigned char)*c.p)) {
                    if (v > ((int64_t)1 << 40)) {
                        ls_io_err(err, errlen, "header 'shape' entry too large");
                        return -1;
                    }
                    v = v * 10 + (*c.p++ - '0');
                }
                if (c.p < c.end && *c.p == 'L') c.p++; /* Python 2 long suffix */
                if (h->ndim >= LS_NPY_MAX_DIMS) {
                    ls_io_err(err, errlen, "header 'shape' has more than %d dimensions", LS_NPY_MAX_DIMS);
                    return -1;
                }
                h->shape[h->ndim++] = v;
                hskip(&c);
                if (c.p < c.end && *c.p == ',') c.p++;
                else if (c.p < c.end && *c.p == ')') {
                    c.p++;
                    break;
                } else {
                    ls_io_err(err, errlen, "header 'shape' tuple is malformed");
                    return -1;
                }
            }
            h->have_shape = 1;
        } else {
            ls_io_err(err, errlen, "header has unexpected key '%s'", key);
            return -1;
        }
        hskip(&c);
        if (c.p < c.end && *c.p == ',') {
            c.p++;
            continue;
        }
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            break;
        }
        ls_io_err(err, errlen, "malformed header dict near offset %d", (int)(c.p - text));
        return -1;
    }
    while (c.p < c.end) {
        if (*c.p != ' ' && *c.p != '\n' && *c.p != '\r' && *c.p != '\t' && *c.p != '\0') {
            ls_io_err(err, errlen, "garbage after the header dict");
            return -1;
        }
        c.p++;
    }
    if (!h->have_descr || !h->have_fortran || !h->have_shape) {
        ls_io_err(err, errlen, "header lacks '%s'", !h->have_descr ? "descr" : !h->have_fortran ? "fortran_order" : "shape");
        return -1;
    }
    return 0;
}

static int dtype_of(const char *descr, int *dt, size_t *esize, char *err, size_t errlen)
{
    if (!strcmp(descr, "<f4")) { *dt = LS_NPY_SRC_F32; *esize = 4; return 0; }
    if (!strcmp(descr, "<f2")) { *dt = LS_NPY_SRC_F16; *esize = 2; return 0; }
    if (!strcmp(descr, "<u2")) { *dt = LS_NPY_SRC_BF16; *esize = 2; return 0; }
    if (descr[0] == '>' && (!strcmp(descr + 1, "f4") || !strcmp(descr + 1, "f2") || !strcmp(descr + 1, "u2"))) {
        ls_io_err(err, errlen, "big-endian dtype '%s' is not supported; save as little-endian ('<%s')", descr, descr + 1);
        return -1;
    }
    ls_io_err(err, errlen, "unsupported dtype '%s'; expected float32 '<f4', float16 '<f2' or bfloat16 bits as uint16 '<u2'", descr);
    return -1;
}

/* Parses the image; on success fills out's shape/dtype and returns the data offset. */
static int parse_image(const unsigned char *buf, size_t len, ls_npy_array *out, size_t *data_off,
                       char *err, size_t errlen)
{
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        ls_io_err(err, errlen, "not a .npy file (bad magic)");
        return -1;
    }
    unsigned major = buf[6], minor = buf[7];
    size_t hstart, hlen;
    if (major == 1) {
        hstart = 10;
        hlen = (size_t)buf[8] | ((size_t)buf[9] << 8);
    } else if (major == 2 || major == 3) {
        if (len < 12) {
            ls_io_err(err, errlen, "truncated header");
            return -1;
        }
        hstart = 12;
        hlen = (size_t)buf[8] | ((size_t)buf[9] << 8) | ((size_t)buf[10] << 16) | ((size_t)buf[11] << 24);
    } else {
        ls_io_err(err, errlen, "unsupported .npy format version %u.%u", major, minor);
        return -1;
    }
    if (minor != 0) {
        ls_io_err(err, errlen, "unsupported .npy format version %u.%u", major, minor);
        return -1;
    }
    if (hlen > len - hstart) {
        ls_io_err(err, errlen, "header length %zu exceeds the file size (%zu bytes)", hlen, len);
        return -1;
    }
    npy_header h;
    if (parse_header((const char *)buf + hstart, hlen, &h, err, errlen)) return -1;
    if (h.fortran) {
        ls_io_err(err, errlen, "Fortran-order array is not supported; save a C-order array (numpy.ascontiguousarray)");
        return -1;
    }
    int dt;
    size_t esize;
    if (dtype_of(h.descr, &dt, &esize, err, errlen)) return -1;
    size_t count = 1;
    for (int i = 0; i < h.ndim; ++i) {
        if (h.shape[i] != 0 && count > (SIZE_MAX / 8) / (size_t)h.shape[i]) {
            ls_io_err(err, errlen, "header shape is too large");
            return -1;
        }
        count *= (size_t)h.shape[i];
    }
    size_t off = hstart + hlen;
    size_t need = count * esize, have = len - off;
    char sh[160];
    ls_npy_shape_str(h.shape, h.ndim, sh, sizeof sh);
    if (have < need) {
        ls_io_err(err, errlen, "truncated data: header declares shape %s of %s = %zu bytes but only %zu bytes follow",
                  sh, h.descr, need, have);
        return -1;
    }
    if (have > need) {
        ls_io_err(err, errlen, "header does not match the data: shape %s of %s = %zu bytes but %zu bytes follow",
                  sh, h.descr, need, have);
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->ndim = h.ndim;
    memcpy(out->shape, h.shape, sizeof h.shape);
    out->count = count;
    out->src_dtype = (ls_npy_src_dtype)dt;
    *data_off = off;
    return 0;
}

static int copy_out(const unsigned char *buf, size_t off, ls_npy_array *out, char *err, size_t errlen)
{
    out->data = malloc(out->count ? out->count * sizeof(float) : 1);
    if (!out->data) {
        ls_io_err(err, errlen, "out of memory for %zu elements", out->count);
        return -1;
    }
    ls_io_convert(buf + off, (int)out->src_dtype, out->count, out->data);
    return 0;
}

int ls_npy_load_mem(const void *buf, size_t len, ls_npy_array *out, char *err, size_t errlen)
{
    size_t off;
    memset(out, 0, sizeof *out);
    if (parse_image(buf, len, out, &off, err, errlen)) return -1;
    return copy_out(buf, off, out, err, errlen);
}

int ls_npy_load_f32(const char *path, ls_npy_array *out, char *err, size_t errlen)
{
    void *base;
    size_t len, off;
    memset(out, 0, sizeof *out);
    if (ls_io_map_file(path, &base, &len, err, errlen)) return -1;
    char msg[384];
    if (parse_image(base, len, out, &off, msg, sizeof msg)) {
        ls_io_err(err, errlen, "%s: %s", path, msg);
        ls_io_unmap(base, len);
        return -1;
    }
    if (out->src_dtype == LS_NPY_SRC_F32 && off % 4 == 0 && out->count * 4 >= LS_NPY_MMAP_THRESHOLD) {
        out->data = (float *)(void *)((unsigned char *)base + off);
        out->mapped = 1;
        out->map_base = base;
        out->map_len = len;
        return 0;
    }
    int rc = copy_out(base, off, out, err, errlen);
    ls_io_unmap(base, len);
    return rc;
}

void ls_npy_free(ls_npy_array *a)
{
    if (!a) return;
    if (a->mapped) ls_io_unmap(a->map_base, a->map_len);
    else free(a->data);
    memset(a, 0, sizeof *a);
}

int ls_npy_save_f32(const char *path, const float *data, int ndim, const int64_t *shape,
                    char *err, size_t errlen)
{
    if (ndim < 0 || ndim > LS_NPY_MAX_DIMS) {
        ls_io_err(err, errlen, "%s: ndim %d out of range 0..%d", path, ndim, LS_NPY_MAX_DIMS);
        return -1;
    }
    size_t count = 1;
    for (int i = 0; i < ndim; ++i) {
        if (shape[i] < 0) {
            ls_io_err(err, errlen, "%s: negative dimension", path);
            return -1;
        }
        count *= (size_t)shape[i];
    }
    char sh[200], hdr[256];
    ls_npy_shape_str(shape, ndim, sh, sizeof sh);
    int n = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", sh);
    size_t total = 10 + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64;
    size_t hlen = padded - 10;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
    ls_atomic_file af;
    if (ls_atomic_file_open(&af, path, err, errlen)) return -1;
    int ok = fwrite(pre, 1, 10, af.fp) == 10 && fwrite(hdr, 1, (size_t)n, af.fp) == (size_t)n;
    for (size_t i = (size_t)n; ok && i + 1 < hlen; ++i) ok = fputc(' ', af.fp) != EOF;
    ok = ok && fputc('\n', af.fp) != EOF;
    ok = ok && (count == 0 || fwrite(data, sizeof(float), count, af.fp) == count);
    if (!ok) {
        ls_io_err(err, errlen, "%s: write failed: %s", path, strerror(errno));
        ls_atomic_file_abort(&af);
        return -1;
    }
    return ls_atomic_file_commit(&af, err, errlen);
}
