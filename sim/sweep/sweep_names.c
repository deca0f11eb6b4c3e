/* Readable point directories: DIR/points/<name>, the name made of the point's axis values
 * ("tau=0.5,layout=compact"); the id stays in the manifest and the DONE marker as the point's
 * identity (claims, resume, reuse). A name is a pure function of the manifest's override lists,
 * so the runner (from the expanded sweep) and merge/compare (from manifest.tsv) derive the same. */
#define _GNU_SOURCE /* strdup */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_dir.h"
#include "sweep.h"

#define NAME_MAX_LEN 200 /* below NAME_MAX (255) with room for the ".NAME.run.XXXXXX" temporary */

/* The last k dot-separated components of key (the whole key when it has fewer). */
static const char *key_suffix(const char *key, int k)
{
    const char *s = key + strlen(key);
    while (s > key) {
        if (s[-1] == '.' && --k == 0) break;
        s--;
    }
    return s;
}

const char *ls_sweep_short_key(const char *key, const char *const *keys, int n)
{
    for (int k = 1;; k++) {
        const char *s = key_suffix(key, k);
        if (s == key) return key;
        int clash = 0;
        for (int j = 0; j < n && !clash; j++)
            clash = strcmp(keys[j], key) && !strcmp(key_suffix(keys[j], k), s);
        if (!clash) return s;
    }
}

/* Appends text to b (at *len, capacity NAME_MAX_LEN + 1), quotes stripped, characters outside
 * [A-Za-z0-9._+-] replaced by '_' (so the name is one safe path component, and the ',' and '='
 * the caller puts between keys and values are never part of one). */
static void append_safe(char *b, size_t *len, const char *text, size_t tlen)
{
    if (tlen >= 2 && ((text[0] == '"' && text[tlen - 1] == '"') || (text[0] == '\'' && text[tlen - 1] == '\''))) {
        text++;
        tlen -= 2;
    }
    for (size_t i = 0; i < tlen && *len < NAME_MAX_LEN; i++) {
        char c = text[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._+-", c);
        b[(*len)++] = ok ? c : '_';
    }
    b[*len] = '\0';
}

static const char *const *g_sort_names; /* qsort has no context argument in C11 */

static int by_name(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(g_sort_names[x], g_sort_names[y]);
    return c ? c : (x > y) - (x < y);
}

char **ls_sweep_dir_names(int npoints, int naxes, char *const *const *overrides, const char *const *ids)
{
    char **names = calloc((size_t)(npoints > 0 ? npoints : 1), sizeof *names);
    const char **keys = calloc((size_t)(naxes > 0 ? naxes : 1), sizeof *keys);
    char *keybuf = NULL;
    int *shown = calloc((size_t)(naxes > 0 ? naxes : 1), sizeof *shown), *order = NULL;
    if (!names || !keys || !shown) goto fail;
    /* the axes whose value varies between points (a one-value axis says nothing about a point);
     * a single point shows all of its axes */
    int nshown = 0;
    for (int a = 0; a < naxes; a++) {
        for (int p = 1; p < npoints && !shown[a]; p++) shown[a] = strcmp(overrides[p][a], overrides[0][a]) != 0;
        nshown += shown[a];
    }
    if (!nshown)
        for (int a = 0; a < naxes; a++) shown[a] = 1, nshown++;
    /* short keys: the last component, more when two shown keys end alike */
    keybuf = malloc((size_t)naxes * (LS_CONFIG_PATH_MAX + 1) + 1);
    const char **full = calloc((size_t)(naxes > 0 ? naxes : 1), sizeof *full);
    if (!keybuf || !full) { free(full); goto fail; }
    int nk = 0;
    for (int a = 0; a < naxes; a++) {
        const char *ov = npoints > 0 ? overrides[0][a] : "";
        const char *eq = strchr(ov, '=');
        size_t kl = eq ? (size_t)(eq - ov) : strlen(ov);
        if (kl > LS_CONFIG_PATH_MAX) kl = LS_CONFIG_PATH_MAX;
        char *k = keybuf + (size_t)a * (LS_CONFIG_PATH_MAX + 1);
        memcpy(k, ov, kl);
        k[kl] = '\0';
        keys[a] = k;
        if (shown[a]) full[nk++] = k;
    }
    for (int a = 0; a < naxes; a++)
        if (shown[a]) keys[a] = ls_sweep_short_key(keys[a], full, nk);
    free(full);
    /* a key the point's mode does not read (tau for pure_8bit) says nothing about it: left out
     * when the mode is an axis (points equal without it get the id below) */
    int mode_axis = -1;
    for (int a = 0; a < naxes && mode_axis < 0; a++)
        if (!strcmp(keybuf + (size_t)a * (LS_CONFIG_PATH_MAX + 1), "algorithm.mode")) mode_axis = a;
    for (int p = 0; p < npoints; p++) {
        char b[NAME_MAX_LEN + 1] = "", mode[NAME_MAX_LEN + 1] = "";
        size_t len = 0;
        if (mode_axis >= 0) {
            const char *eq = strchr(overrides[p][mode_axis], '=');
            size_t ml = 0;
            append_safe(mode, &ml, eq ? eq + 1 : "", eq ? strlen(eq + 1) : 0);
        }
        for (int a = 0; a < naxes; a++) {
            if (!shown[a] || !ls_config_key_applies(keybuf + (size_t)a * (LS_CONFIG_PATH_MAX + 1), mode)) continue;
            const char *eq = strchr(overrides[p][a], '=');
            const char *v = eq ? eq + 1 : "";
            if (len && len < NAME_MAX_LEN) b[len++] = ',';
            append_safe(b, &len, keys[a], strlen(keys[a]));
            if (len < NAME_MAX_LEN) b[len++] = '=';
            append_safe(b, &len, v, strlen(v));
        }
        if (!len) snprintf(b, sizeof b, "%s", ids[p]); /* no axes */
        else if (len >= NAME_MAX_LEN) /* cut: the id keeps it unique */
            snprintf(b + NAME_MAX_LEN - LS_SWEEP_ID_LEN - 1, LS_SWEEP_ID_LEN + 2, "~%s", ids[p]);
        names[p] = strdup(b);
        if (!names[p]) goto fail;
    }
    /* names equal after the replacements above get the id appended (no plain name holds '~') */
    order = malloc((size_t)(npoints > 0 ? npoints : 1) * sizeof *order);
    if (!order) goto fail;
    for (int p = 0; p < npoints; p++) order[p] = p;
    g_sort_names = (const char *const *)names;
    qsort(order, (size_t)npoints, sizeof *order, by_name);
    char *dup = calloc((size_t)(npoints > 0 ? npoints : 1), 1);
    if (!dup) goto fail;
    for (int k = 1; k < npoints; k++)
        if (!strcmp(names[order[k]], names[order[k - 1]])) dup[order[k]] = dup[order[k - 1]] = 1;
    for (int p = 0; p < npoints; p++) {
        if (!dup[p]) continue;
        char *nn = ls_io_path_fmt("%.*s~%s", NAME_MAX_LEN - LS_SWEEP_ID_LEN - 1, names[p], ids[p]);
        if (!nn) { free(dup); goto fail; }
        free(names[p]);
        names[p] = nn;
    }
    free(dup);
    free(order);
    free(keys);
    free(keybuf);
    free(shown);
    return names;
fail:
    ls_sweep_names_free(names, npoints);
    free(order);
    free(keys);
    free(keybuf);
    free(shown);
    return NULL;
}

void ls_sweep_names_free(char **names, int n)
{
    if (!names) return;
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

char **ls_sweep_point_names(const ls_sweep *sw)
{
    char ***ov = malloc((size_t)(sw->npoints > 0 ? sw->npoints : 1) * sizeof *ov);
    const char **ids = malloc((size_t)(sw->npoints > 0 ? sw->npoints : 1) * sizeof *ids);
    char **names = NULL;
    if (ov && ids) {
        for (int p = 0; p < sw->npoints; p++) {
            ov[p] = sw->points[p].overrides;
            ids[p] = sw->points[p].id;
        }
        names = ls_sweep_dir_names(sw->npoints, sw->naxes, (char *const *const *)ov, ids);
    }
    free(ov);
    free(ids);
    return names;
}

static int is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *ls_sweep_point_path(const char *dir, const char *name, const char *id)
{
    char *p = ls_io_path_fmt("%s/points/%s", dir, name);
    if (!p || is_dir(p)) return p;
    char *old = ls_io_path_fmt("%s/points/%s", dir, id);
    if (is_dir(old)) {
        free(p);
        return old;
    }
    free(old);
    return p;
}

int ls_sweep_check_manifest(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
    if (len == 0) {
        snprintf(err, errlen, "%s: empty (a sweep's manifest lists at least one point; a damaged or foreign file)", path);
        return -1;
    }
    int line = 1, naxes = -1;
    for (size_t i = 0; i < len; line++) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        const char *l = text + i, *why = NULL;
        size_t n = e - i;
        if (memchr(l, '\0', n)) why = "a NUL byte (a binary or damaged file)";
        else if (memchr(l, '\r', n)) why = "a carriage return (the manifest is written with \\n line ends)";
        else if (n == 0) why = "an empty line";
        else if (*l == '#') why = "a comment line (sweep run writes none)";
        if (why) {
            snprintf(err, errlen, "%s: line %d: %s; not a manifest as sweep run writes it", path, line, why);
            return -1;
        }
        /* index */
        size_t k = 0;
        long idx = 0;
        while (k < n && isdigit((unsigned char)l[k]) && idx <= 1000000000L) idx = idx * 10 + (l[k++] - '0');
        if (k == 0 || k >= n || l[k] != '\t') why = "expected '<index> TAB <id> ...'";
        else if (idx != line - 1) why = "the index is not the line's (points are numbered 0, 1, ... in order)";
        else {
            size_t h = ++k;
            while (k < n && isxdigit((unsigned char)l[k]) && !isupper((unsigned char)l[k])) k++;
            if (k - h != LS_SWEEP_ID_LEN || (k < n && l[k] != '\t')) why = "the point id is not 16 lowercase hex digits";
            int axes = 0;
            while (!why && k < n) {   /* TAB key=value */
                size_t f = ++k;
                while (k < n && l[k] != '\t') k++;
                const char *eq = memchr(l + f, '=', k - f);
                if (!eq || eq == l + f) why = "an override is not key=value";
                axes++;
            }
            if (!why && naxes >= 0 && axes != naxes) why = "a different number of axes from line 1";
            naxes = axes;
        }
        if (why) {
            snprintf(err, errlen, "%s: line %d: %s", path, line, why);
            return -1;
        }
        i = e + 1;
    }
    return 0;
}

int ls_sweep_read_manifest(const char *dir, ls_sweep_manifest *m)
{
    memset(m, 0, sizeof *m);
    char *path = ls_io_path_join(dir, "manifest.tsv");
    size_t len = 0;
    m->text = path ? ls_sweep_read_file(path, &len) : NULL;
    char why[64];
    int bad = m->text && ls_sweep_check_manifest(m->text, len, "", why, sizeof why);
    free(path);
    if (!m->text || bad) {
        free(m->text);
        m->text = NULL;
        return -1;
    }
    int cap = 0;
    for (char *line = m->text, *nl; *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl) *nl++ = '\0';
        else nl = line + strlen(line);
        if (!*line || *line == '#') continue;
        if (m->n == cap) {
            cap = cap ? 2 * cap : 64;
            char **ni = realloc(m->ids, (size_t)cap * sizeof *ni);
            if (ni) m->ids = ni;
            char ***no = realloc(m->overrides, (size_t)cap * sizeof *no);
            if (no) m->overrides = no;
            if (!ni || !no) goto fail;
        }
        /* index TAB id TAB key=value ...: split in place */
        int nf = 1;
        for (char *c = line; *c; c++) nf += *c == '\t';
        char **ov = calloc((size_t)nf, sizeof *ov);
        if (!ov) goto fail;
        char *save = NULL, *tok = strtok_r(line, "\t", &save);
        char *id = tok ? strtok_r(NULL, "\t", &save) : NULL;
        int no = 0;
        while (id && (tok = strtok_r(NULL, "\t", &save))) ov[no++] = tok;
        if (!id || (m->n && no != m->naxes)) { free(ov); goto fail; }
        m->naxes = no;
        m->ids[m->n] = id;
        m->overrides[m->n++] = ov;
    }
    m->names = ls_sweep_dir_names(m->n, m->naxes, (char *const *const *)m->overrides, (const char *const *)m->ids);
    if (!m->names) goto fail;
    m->paths = calloc((size_t)(m->n > 0 ? m->n : 1), sizeof *m->paths);
    if (!m->paths) goto fail;
    for (int p = 0; p < m->n; p++)
        if (!(m->paths[p] = ls_sweep_point_path(dir, m->names[p], m->ids[p]))) goto fail;
    return 0;
fail:
    ls_sweep_manifest_free(m);
    return -1;
}

void ls_sweep_manifest_free(ls_sweep_manifest *m)
{
    for (int p = 0; p < m->n; p++) {
        free(m->overrides[p]);
        if (m->paths) free(m->paths[p]);
    }
    ls_sweep_names_free(m->names, m->n);
    free(m->paths);
    free(m->overrides);
    free(m->ids);
    free(m->text);
    memset(m, 0, sizeof *m);
}
