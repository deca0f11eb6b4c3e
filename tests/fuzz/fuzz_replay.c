/* Runs a fuzz target without libFuzzer (any compiler, part of the default suite): every file of
 * the given corpus directories, then a fixed number of deterministic mutations of them
 * (byte flips, insertions, deletions, splices, interesting values). A crash or sanitizer report
 * fails the test. usage: fuzz_replay ITERATIONS DIR... */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    uint8_t *d;
    size_t n;
} blob;

static blob seeds[512];
static int nseeds;

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void add_file(const char *path)
{
    struct stat st;
    if (nseeds >= 512 || stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) return;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    blob b = {malloc((size_t)st.st_size + 1), 0};
    b.n = fread(b.d, 1, (size_t)st.st_size, f);
    fclose(f);
    seeds[nseeds++] = b;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_replay ITERATIONS DIR...\n");
        return 2;
    }
    long iters = atol(argv[1]);
    for (int i = 2; i < argc; ++i) {
        DIR *dir = opendir(argv[i]);
        if (!dir) {
            add_file(argv[i]);
            continue;
        }
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            add_file(p);
        }
        closedir(dir);
    }
    if (!nseeds) {
        fprintf(stderr, "no corpus files\n");
        return 2;
    }
    for (int i = 0; i < nseeds; ++i) LLVMFuzzerTestOneInput(seeds[i].d, seeds[i].n);
    static const uint8_t interesting[] = {0, 0xff, 0x7f, 0x80, '\n', ':', '-', '[', '{', '&', '*', '"', '\'', '#', '!', '9', '.'};
    uint8_t *buf = malloc(1 << 21);
    for (long it = 0; it < iters; ++it) {
        const blob *s = &seeds[next() % (uint64_t)nseeds];
        size_t n = s->n;
        memcpy(buf, s->d, n);
        int muts = 1 + (int)(next() % 8);
        for (int m = 0; m < muts; ++m) {
            uint64_t r = next();
            size_t pos = n ? (size_t)(next() % n) : 0;
            switch (r % 6) {
            case 0: if (n) buf[pos] ^= (uint8_t)(1u << (next() % 8)); break;
            case 1: if (n) buf[pos] = interesting[next() % sizeof interesting]; break;
            case 2: if (n < (1 << 20)) { memmove(buf + pos + 1, buf + pos, n - pos); buf[pos] = (uint8_t)next(); n++; } break;
            case 3: if (n) { size_t l = 1 + (size_t)(next() % 16); if (l > n - pos) l = n - pos; memmove(buf + pos, buf + pos + l, n - pos - l); n -= l; } break;
            case 4: { const blob *o = &seeds[next() % (uint64_t)nseeds]; if (o->n) { size_t from = (size_t)(next() % o->n);
                      size_t l = 1 + (size_t)(next() % 64); if (l > o->n - from) l = o->n - from;
                      if (n + l < (1 << 20)) { memmove(buf + pos + l, buf + pos, n - pos); memcpy(buf + pos, o->d + from, l); n += l; } } break; }
            default: if (n) { size_t l = (size_t)(next() % 4) + 1; for (size_t k = 0; k < l && pos + k < n; ++k) buf[pos + k] = (uint8_t)('0' + next() % 10); } break;
            }
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    free(buf);
    for (int i = 0; i < nseeds; ++i) free(seeds[i].d);
    printf("replayed %d corpus files and %ld mutations\n", nseeds, iters);
    return 0;
}
