/* .npy and .safetensors loaders on valid and corrupted files, and atomic writes. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "check.h"
#include "npy.h"
#include "safetensors.h"

static char tmp[2048];
static char err[1024];

static const char *tp(const char *name)
{
    static char p[4][2200];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tmp, name);
    return p[k];
}

static void write_bytes(const char *name, const void *data, size_t n)
{
    FILE *f = fopen(tp(name), "wb");
    if (!f) exit(1);
    fwrite(data, 1, n, f);
    fclose(f);
}

/* A .npy image with the given header dict, version and payload. */
static size_t make_npy(unsigned char *buf, int major, const char *dict, const void *payload, size_t plen)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t dl = strlen(dict);
    size_t total = (pre + dl + 1 + 63) / 64 * 64;
    size_t hlen = total - pre;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    if (major == 1) {
        buf[8] = hlen & 0xff;
        buf[9] = (hlen >> 8) & 0xff;
    } else {
        for (int i = 0; i < 4; ++i) buf[8 + i] = (hlen >> (8 * i)) & 0xff;
    }
    memcpy(buf + pre, dict, dl);
    memset(buf + pre + dl, ' ', hlen - dl - 1);
    buf[total - 1] = '\n';
    memcpy(buf + total, payload, plen);
    return total + plen;
}

static unsigned char img[1 << 16];

#define NPY_ERR(major, dict, payload, plen, expected) do { \
    size_t n_ = make_npy(img, major, dict, payload, plen); ls_npy_array a_; \
    int rc_ = ls_npy_load_mem(img, n_, &a_, err, sizeof err); \
    CHECK_MSG(rc_ == -1 && !strcmp(err, expected), "\n  got:      %s\n  expected: %s", rc_ ? err : "(success)", expected); \
    if (!rc_) ls_npy_free(&a_); } while (0)

static void test_npy(void)
{
    float v[6] = {1, -2, 3.5f, 0.25f, -0.0f, 1e-3f};
    int64_t shape[2] = {2, 3};
    CHECK(ls_npy_save_f32(tp("a.npy"), v, 2, shape, err, sizeof err) == 0);
    ls_npy_array a;
    CHECK(ls_npy_load_f32(tp("a.npy"), &a, err, sizeof err) == 0);
    CHECK(a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3 && a.count == 6 && !a.mapped);
    for (int i = 0; i < 6; ++i) CHECK_FEQ(a.data[i], v[i]);
    ls_npy_free(&a);
    /* header is 64-byte aligned and ends with a newline, as numpy writes it */
    FILE *f = fopen(tp("a.npy"), "rb");
    unsigned char h[128];
    CHECK(f && fread(h, 1, 128, f) == 128);
    if (f) fclose(f);
    CHECK((h[8] + 10) % 64 == 0 && h[9] == 0 && h[h[8] + 9] == '\n');
    CHECK(!memcmp(h + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 59));
    /* 1-d and 0-d */
    int64_t s1[1] = {6};
    CHECK(ls_npy_save_f32(tp("b.npy"), v, 1, s1, err, sizeof err) == 0);
    CHECK(ls_npy_load_f32(tp("b.npy"), &a, err, sizeof err) == 0 && a.ndim == 1 && a.count == 6);
    ls_npy_free(&a);
    CHECK(ls_npy_save_f32(tp("c.npy"), v, 0, NULL, err, sizeof err) == 0);
    CHECK(ls_npy_load_f32(tp("c.npy"), &a, err, sizeof err) == 0 && a.ndim == 0 && a.count == 1 && a.data[0] == 1);
    ls_npy_free(&a);
    /* v2 and v3 headers, float16 and bfloat16-as-uint16 */
    uint16_t f16[4] = {0x3C00, 0xC000, 0x0001, 0x7BFF}; /* 1, -2, 2^-24, 65504 */
    size_t n = make_npy(img, 2, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", f16, 8);
    CHECK(ls_npy_load_mem(img, n, &a, err, sizeof err) == 0);
    CHECK(a.count == 4 && a.src_dtype == LS_NPY_SRC_F16);
    CHECK_FEQ(a.data[0], 1.0f);
    CHECK_FEQ(a.data[1], -2.0f);
    CHECK_FEQ(a.data[2], 5.9604644775390625e-08f);
    CHECK_FEQ(a.data[3], 65504.0f);
    ls_npy_free(&a);
    uint16_t bf[3] = {0x3F80, 0xC040, 0x3E80}; /* 1, -3, 0.25 */
    n = make_npy(img, 3, "{\"descr\": \"<u2\", \"fortran_order\": False, \"shape\": (1, 3)}", bf, 6);
    CHECK(ls_npy_load_mem(img, n, &a, err, sizeof err) == 0);
    CHECK(a.count == 3 && a.src_dtype == LS_NPY_SRC_BF16 && a.data[0] == 1 && a.data[1] == -3 && a.data[2] == 0.25f);
    ls_npy_free(&a);
    /* large float32 files are used in place in the file's private copy, writable, the file untouched */
    size_t big = 1 << 19;
    float *bv = malloc(big * sizeof(float));
    for (size_t i = 0; i < big; ++i) bv[i] = (float)i;
    int64_t bs[2] = {512, 1024};
    CHECK(ls_npy_save_f32(tp("big.npy"), bv, 2, bs, err, sizeof err) == 0);
    CHECK(ls_npy_load_f32(tp("big.npy"), &a, err, sizeof err) == 0);
    CHECK(a.mapped == 1 && a.count == big && a.data[12345] == 12345.0f);
    a.data[0] = 7;
    ls_npy_free(&a);
    CHECK(ls_npy_load_f32(tp("big.npy"), &a, err, sizeof err) == 0 && a.data[0] == 0); /* file untouched */
    ls_npy_free(&a);
    /* the copy is private: truncating the file after the load (as np.save does when it rewrites
     * one) cannot take the data away (a mapping would die with SIGBUS on the next access) */
    CHECK(ls_npy_load_f32(tp("big.npy"), &a, err, sizeof err) == 0);
    FILE *tf = fopen(tp("big.npy"), "wb");
    CHECK(tf != NULL);
    if (tf) fclose(tf);
    double sum = 0;
    for (size_t i = 0; i < a.count; ++i) sum += a.data[i];
    CHECK(sum == (double)big * (double)(big - 1) / 2);
    ls_npy_free(&a);
    free(bv);

    /* errors */
    float p6[6] = {0};
    NPY_ERR(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", p6, 24,
            "Fortran-order array is not supported; save a C-order array (numpy.ascontiguousarray)");
    NPY_ERR(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", p6, 24,
            "big-endian dtype '>f4' is not supported; save as little-endian ('<f4')");
    NPY_ERR(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", p6, 24,
            "unsupported dtype '<f8'; expected float32 '<f4', float16 '<f2' or bfloat16 bits as uint16 '<u2'");
    NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", p6, 20,
            "truncated data: header declares shape (2, 3) of <f4 = 24 bytes but only 20 bytes follow");
    NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", p6, 24,
            "header does not match the data: shape (2, 2) of <f4 = 16 bytes but 24 bytes follow");
    NPY_ERR(1, "{'descr': '<f4', 'shape': (2, 3), }", p6, 24, "header lacks 'fortran_order'");
    NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", p6, 24,
            "header 'shape' contains a non-integer or negative entry");
    NPY_ERR(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", p6, 8,
            "header 'descr' is not a simple dtype string (structured arrays are not supported)");
    NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", p6, 4,
            "header 'shape' has more than 8 dimensions");
    NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", p6, 24, "header has unexpected key 'extra'");
    NPY_ERR(1, "[1, 2]", p6, 24, "header is not a Python dict literal (expected '{')");
    NPY_ERR(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999,99999999999999), }", p6, 24,
            "header 'shape' entry too large");
    size_t m = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", p6, 8);
    img[0] = 'X';
    CHECK(ls_npy_load_mem(img, m, &a, err, sizeof err) == -1 && !strcmp(err, "not a .npy file (bad magic)"));
    img[0] = 0x93;
    img[6] = 4;
    CHECK(ls_npy_load_mem(img, m, &a, err, sizeof err) == -1 && !strcmp(err, "unsupported .npy format version 4.0"));
    img[6] = 1;
    img[8] = 0xff;
    img[9] = 0x7f;
    CHECK_MSG(ls_npy_load_mem(img, m, &a, err, sizeof err) == -1 && !strcmp(err, "header length 32767 exceeds the file size (136 bytes)"),
              "%s", err);
    CHECK(ls_npy_load_mem(img, 5, &a, err, sizeof err) == -1 && !strcmp(err, "not a .npy file (bad magic)"));
    /* file-level errors carry the path */
    write_bytes("empty.npy", "", 0);
    CHECK(ls_npy_load_f32(tp("empty.npy"), &a, err, sizeof err) == -1);
    char exp[2400];
    snprintf(exp, sizeof exp, "%s: file is empty", tp("empty.npy"));
    CHECK_MSG(!strcmp(err, exp), "%s", err);
    m = make_npy(img, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", p6, 24);
    write_bytes("trunc.npy", img, m);
    CHECK(ls_npy_load_f32(tp("trunc.npy"), &a, err, sizeof err) == -1);
    snprintf(exp, sizeof exp, "%s: truncated data: header declares shape (4, 4) of <f4 = 64 bytes but only 24 bytes follow",
             tp("trunc.npy"));
    CHECK_MSG(!strcmp(err, exp), "%s", err);
    CHECK(ls_npy_load_f32(tp("missing.npy"), &a, err, sizeof err) == -1);
    snprintf(exp, sizeof exp, "%s: cannot open: No such file or directory", tp("missing.npy"));
    CHECK_MSG(!strcmp(err, exp), "%s", err);
    CHECK(ls_npy_load_f32(tmp, &a, err, sizeof err) == -1 && strstr(err, "not a regular file"));
}

/* ---- safetensors ---- */
static size_t make_st(unsigned char *buf, const char *json, const void *data, size_t dlen)
{
    uint64_t hl = strlen(json);
    for (int i = 0; i < 8; ++i) buf[i] = (hl >> (8 * i)) & 0xff;
    memcpy(buf + 8, json, hl);
    memcpy(buf + 8 + hl, data, dlen);
    return 8 + hl + dlen;
}

#define ST_ERR(json, data, dlen, expected) do { size_t n_ = make_st(img, json, data, dlen); ls_safetensors_file *f_; \
    int rc_ = ls_safetensors_open_mem(img, n_, &f_, err, sizeof err); \
    CHECK_MSG(rc_ == -1 && !strcmp(err, expected), "\n  got:      %s\n  expected: %s", rc_ ? err : "(success)", expected); \
    if (!rc_) ls_safetensors_close(f_); } while (0)

static void test_safetensors(void)
{
    unsigned char data[64];
    float f[4] = {1, 2, 3, 4};
    uint16_t bf[2] = {0x3F80, 0x4000};
    uint16_t h[2] = {0x3C00, 0x3800};
    memcpy(data, f, 16);
    memcpy(data + 16, bf, 4);
    memcpy(data + 20, h, 4);
    const char *json = "{\"__metadata__\":{\"format\":\"pt\",\"x\":[1,{\"y\":null}]},"
                       "\"q\":{\"dtype\":\"F32\",\"shape\":[1,2,2],\"data_offsets\":[0,16]},"
                       "\"k\\u0031\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[16,20]},"
                       "\"v\":{\"shape\":[1,2], \"dtype\":\"F16\",\"data_offsets\":[20,24]},"
                       "\"i\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[24,32]}}";
    size_t n = make_st(img, json, data, 32);
    write_bytes("ok.safetensors", img, n);
    ls_safetensors_file *st;
    CHECK(ls_safetensors_open(tp("ok.safetensors"), &st, err, sizeof err) == 0);
    if (st) {
        CHECK(ls_safetensors_count(st) == 4 && ls_safetensors_find(st, "k1") == 1);
        ls_npy_array a;
        CHECK(ls_safetensors_load_f32(st, "q", &a, err, sizeof err) == 0 && a.ndim == 3 && a.count == 4 && a.data[3] == 4);
        ls_npy_free(&a);
        CHECK(ls_safetensors_load_f32(st, "k1", &a, err, sizeof err) == 0 && a.count == 2 && a.data[0] == 1 && a.data[1] == 2);
        ls_npy_free(&a);
        CHECK(ls_safetensors_load_f32(st, "v", &a, err, sizeof err) == 0 && a.count == 2 && a.data[0] == 1 && a.data[1] == 0.5f);
        ls_npy_free(&a);
        char exp[2400];
        CHECK(ls_safetensors_load_f32(st, "i", &a, err, sizeof err) == -1);
        snprintf(exp, sizeof exp, "%s: tensor 'i' has unsupported dtype I64; expected F32, F16 or BF16", tp("ok.safetensors"));
        CHECK_MSG(!strcmp(err, exp), "%s", err);
        CHECK(ls_safetensors_load_f32(st, "o", &a, err, sizeof err) == -1);
        snprintf(exp, sizeof exp, "%s: tensor 'o' not found (available: 'q', 'k1', 'v', 'i')", tp("ok.safetensors"));
        CHECK_MSG(!strcmp(err, exp), "%s", err);
        ls_safetensors_close(st);
    }
    /* large aligned F32 tensors load (copied out of the file's private copy) */
    size_t big = 1 << 19;
    size_t hdr = 128;
    unsigned char *bb = calloc(8 + hdr + big * 4, 1);
    char js[200];
    snprintf(js, sizeof js, "{\"x\":{\"dtype\":\"F32\",\"shape\":[%zu],\"data_offsets\":[0,%zu]}}", big, big * 4);
    size_t jl = strlen(js);
    memcpy(bb + 8, js, jl);
    memset(bb + 8 + jl, ' ', hdr - jl);
    bb[0] = (unsigned char)hdr;
    float *fx = (float *)(void *)(bb + 8 + hdr);
    fx[100] = 42;
    write_bytes("big.safetensors", bb, 8 + hdr + big * 4);
    free(bb);
    CHECK(ls_safetensors_open(tp("big.safetensors"), &st, err, sizeof err) == 0);
    if (st) {
        ls_npy_array a;
        CHECK(ls_safetensors_load_f32(st, "x", &a, err, sizeof err) == 0 && !a.mapped && a.data[100] == 42 && a.count == big);
        ls_npy_free(&a);
        ls_safetensors_close(st);
    }
    /* corrupted */
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", data, 8,
           "tensor 'q': data_offsets [0, 16] outside the 8 data bytes (truncated file?)");
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,16]}}", data, 16,
           "tensor 'q': shape (2, 3) of F32 needs 24 bytes but data_offsets span 16");
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,4]}}", data, 16,
           "tensor 'q': data_offsets [8, 4] are reversed (begin after end)");
    /* the tensors must tile the data buffer: no overlap, no gap, nothing after the last one */
    ST_ERR("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
           "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", data, 12,
           "tensors 'a' [0, 8] and 'b' [4, 12] overlap in the data buffer");
    ST_ERR("{\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]},"
           "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", data, 12,
           "gap in the data buffer: bytes [4, 8) before tensor 'b' belong to no tensor");
    ST_ERR("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", data, 12,
           "gap in the data buffer: bytes [4, 12) after the last tensor belong to no tensor");
    ST_ERR("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
           "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", data, 8,
           "tensors 'a' [0, 8] and 'b' [0, 8] overlap in the data buffer");
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[4]}}", data, 16, "bad header: tensor 'q': missing \"data_offsets\"");
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[-4],\"data_offsets\":[0,16]}}", data, 16,
           "bad header: tensor 'q': expected a non-negative integer");
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},\"q\":{}}", data, 16,
           "duplicate tensor name 'q' in header");
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}", data, 16,
           "bad header: expected '}' at byte 54 of the JSON");
    ST_ERR("{\"q\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}} x", data, 16,
           "bad header: trailing characters after the JSON object");
    size_t m = make_st(img, "{}", data, 0);
    img[0] = 0xff;
    img[3] = 0x01;
    CHECK(ls_safetensors_open_mem(img, m, &st, err, sizeof err) == -1 && !strcmp(err, "header size 16777471 exceeds the file size (10 bytes)"));
    CHECK(ls_safetensors_open_mem(img, 5, &st, err, sizeof err) == -1 && !strcmp(err, "truncated: 5 bytes, no header size"));
}

static void test_atomic(void)
{
    CHECK(ls_atomic_file_write(tp("at.txt"), "hello", 5, err, sizeof err) == 0);
    CHECK(ls_atomic_file_write(tp("at.txt"), "bye", 3, err, sizeof err) == 0);
    FILE *f = fopen(tp("at.txt"), "rb");
    char b[16] = {0};
    CHECK(f && fread(b, 1, 16, f) == 3 && !strcmp(b, "bye"));
    if (f) fclose(f);
    CHECK(ls_atomic_file_write(tp("no/such/dir/x"), "a", 1, err, sizeof err) == -1);
    CHECK(strstr(err, "cannot create temporary file") != NULL);
    ls_atomic_file af;
    CHECK(ls_atomic_file_open(&af, tp("ab.txt"), err, sizeof err) == 0);
    fputs("partial", af.fp);
    ls_atomic_file_abort(&af);
    CHECK(access(tp("ab.txt"), F_OK) != 0);
    /* no temporaries left */
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '^\\.a[bt]'", tmp);
    CHECK(system(cmd) != 0);
}

int main(int argc, char **argv)
{
    snprintf(tmp, sizeof tmp, "%s/io_tmp", argc > 1 ? argv[1] : ".");
    mkdir(tmp, 0755);
    test_npy();
    test_safetensors();
    test_atomic();
    CHECK_DONE();
}
