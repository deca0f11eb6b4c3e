/* Resolved YAML writer, equality, --explain and the Markdown reference, all from the schema. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "config.h"
#include "config_internal.h"

static const void *cfield(const ls_config *cfg, const ls_config_schema_entry *e) { return (const char *)cfg + e->offset; }

/* Shortest decimal that reads back to the same double. */
static void fmt_double(double v, char *buf, size_t len)
{
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* keep it a YAML float for other readers: 1e+06 -> 1.0e+06, 3 -> 3.0 */
    if (!strpbrk(buf, ".ein")) {
        size_t l = strlen(buf);
        if (l + 2 < len) strcat(buf, ".0");
    } else if (!strchr(buf, '.') && strchr(buf, 'e')) {
        char tmp[64];
        char *e = strchr(buf, 'e');
        snprintf(tmp, sizeof tmp, "%.*s.0%s", (int)(e - buf), buf, e);
        snprintf(buf, len, "%s", tmp);
    }
}

/* Decodes one UTF-8 sequence; returns its length (0 when invalid). */
static int utf8_decode(const unsigned char *p, unsigned *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    int n = (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!n) return 0;
    unsigned v = p[0] & (0x7F >> n);
    for (int i = 1; i < n; ++i) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if ((n == 2 && v < 0x80) || (n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
        (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

int ls_config_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        int n = utf8_decode(p, &cp);
        if (!n) return 0;
        p += n;
    }
    return 1;
}

/* YAML double-quoted scalar; anything outside YAML's printable set is escaped. */
void ls_config_write_yaml_string(FILE *out, const char *s)
{
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        int n = utf8_decode(p, &cp);
        if (!n) { /* cannot happen for loaded configs (validated); keep the output valid YAML */
            fputs("\\ufffd", out);
            p++;
            continue;
        }
        if (cp == '"') fputs("\\\"", out);
        else if (cp == '\\') fputs("\\\\", out);
        else if (cp == '\n') fputs("\\n", out);
        else if (cp == '\t') fputs("\\t", out);
        else if (cp < 0x20 || cp == 0x7F) fprintf(out, "\\x%02x", cp);
        /* U+0085, U+2028 and U+2029 are line breaks to a YAML reader (folded to a space inside
         * a quoted scalar): they are escaped like the other non-printables */
        else if ((cp >= 0x80 && cp < 0xA0) || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF || cp == 0xFEFF ||
                 cp == 0x2028 || cp == 0x2029)
            fprintf(out, "\\u%04x", cp);
        else fwrite(p, 1, (size_t)n, out);
        p += n;
    }
    fputc('"', out);
}

/* Value of entry e as YAML text (strings quoted). */
static void value_text(const ls_config *cfg, const ls_config_schema_entry *e, char *buf, size_t len, int quote_strings)
{
    const void *f = cfield(cfg, e);
    switch (e->type) {
    case LS_CONFIG_T_INT: snprintf(buf, len, "%d", *(const int *)f); break;
    case LS_CONFIG_T_INT64: snprintf(buf, len, "%lld", (long long)*(const int64_t *)f); break;
    case LS_CONFIG_T_DOUBLE: fmt_double(*(const double *)f, buf, len); break;
    case LS_CONFIG_T_BOOL: snprintf(buf, len, "%s", *(const bool *)f ? "true" : "false"); break;
    case LS_CONFIG_T_ENUM: {
        int v;
        memcpy(&v, f, sizeof v);
        const char *n = NULL;
        for (int i = 0; e->names[i]; ++i)
            if (i == v) n = e->names[i];
        snprintf(buf, len, "%s", n ? n : "?");
        break;
    }
    case LS_CONFIG_T_STRING:
    case LS_CONFIG_T_PATH:
        if (quote_strings) snprintf(buf, len, "\"%s\"", (const char *)f);
        else snprintf(buf, len, "%s", (const char *)f);
        break;
    }
}

int ls_config_write_resolved(const ls_config *cfg, FILE *out)
{
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    fprintf(out, "# lampsim resolved configuration (presets, includes and overrides applied).\n");
    fprintf(out, "# Loading this file again reproduces the run exactly.\n");
    if (cfg->source[0]) fprintf(out, "# source: %s\n", cfg->source);
    if (cfg->workload_source[0]) fprintf(out, "# workload from: %s\n", cfg->workload_source);
    char prev[8][64];
    int nprev = 0;
    for (size_t i = 0; i < n; ++i) {
        const ls_config_schema_entry *e = &s[i];
        if (e->flags & LS_CONFIG_SF_NODUMP) continue;
        if ((e->flags & LS_CONFIG_SF_DUMP_IF_SET) && e->type == LS_CONFIG_T_INT64 &&
            *(const int64_t *)cfield(cfg, e) == atoll(e->def))
            continue;
        if ((e->flags & LS_CONFIG_SF_DUMP_IF_SET) && e->type == LS_CONFIG_T_PATH && !strcmp((const char *)cfield(cfg, e), e->def))
            continue;
        const char *dot = strrchr(e->path, '.');
        /* section components of this key */
        char comp[8][64];
        int nc = 0;
        const char *p = e->path;
        while (dot && p < dot && nc < 8) {
            const char *q = strchr(p, '.');
            snprintf(comp[nc++], sizeof comp[0], "%.*s", (int)(q - p), p);
            p = q + 1;
        }
        int common = 0;
        while (common < nc && common < nprev && !strcmp(comp[common], prev[common])) common++;
        for (int j = common; j < nc; ++j) {
            if (j == 0) fputc('\n', out);
            fprintf(out, "%*s%s:\n", 2 * j, "", comp[j]);
        }
        if (nc == 0 && nprev > 0) fputc('\n', out);
        for (int j = 0; j < nc; ++j) snprintf(prev[j], sizeof prev[0], "%s", comp[j]);
        nprev = nc;
        int depth = 0;
        for (const char *p = e->path; *p; ++p)
            if (*p == '.') depth++;
        const char *key = dot ? dot + 1 : e->path;
        fprintf(out, "%*s%s: ", 2 * depth, "", key);
        if (e->type == LS_CONFIG_T_STRING || e->type == LS_CONFIG_T_PATH) {
            ls_config_write_yaml_string(out, (const char *)cfield(cfg, e));
        } else {
            char buf[64];
            value_text(cfg, e, buf, sizeof buf, 0);
            fputs(buf, out);
        }
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

int ls_config_write_resolved_file(const ls_config *cfg, const char *path, char *err, size_t errlen)
{
    ls_atomic_file af;
    if (ls_atomic_file_open(&af, path, err, errlen)) return -1;
    if (ls_config_write_resolved(cfg, af.fp)) {
        snprintf(err, errlen, "%s: write failed", path);
        ls_atomic_file_abort(&af);
        return -1;
    }
    return ls_atomic_file_commit(&af, err, errlen);
}

int ls_config_equal(const ls_config *a, const ls_config *b, char *diff, size_t difflen)
{
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    for (size_t i = 0; i < n; ++i) {
        const ls_config_schema_entry *e = &s[i];
        const void *fa = cfield(a, e), *fb = cfield(b, e);
        int eq;
        switch (e->type) {
        case LS_CONFIG_T_STRING:
        case LS_CONFIG_T_PATH: eq = !strcmp(fa, fb); break;
        case LS_CONFIG_T_DOUBLE: eq = !memcmp(fa, fb, sizeof(double)); break;
        case LS_CONFIG_T_BOOL: eq = *(const bool *)fa == *(const bool *)fb; break;
        default: eq = !memcmp(fa, fb, e->size); break;
        }
        if (!eq) {
            if (diff) {
                char va[128], vb[128];
                value_text(a, e, va, sizeof va, 1);
                value_text(b, e, vb, sizeof vb, 1);
                snprintf(diff, difflen, "%s: %s vs %s", e->path, va, vb);
            }
            return 0;
        }
    }
    return 1;
}

static const char *type_name(const ls_config_schema_entry *e)
{
    switch (e->type) {
    case LS_CONFIG_T_INT:
    case LS_CONFIG_T_INT64: return "integer";
    case LS_CONFIG_T_DOUBLE: return "number (finite)";
    case LS_CONFIG_T_BOOL: return "boolean";
    case LS_CONFIG_T_STRING: return "string";
    case LS_CONFIG_T_PATH: return "path";
    case LS_CONFIG_T_ENUM: return "enum";
    }
    return "?";
}

static void allowed_text(const ls_config_schema_entry *e, char *buf, size_t len)
{
    switch (e->type) {
    case LS_CONFIG_T_INT:
    case LS_CONFIG_T_INT64: snprintf(buf, len, "%.17g .. %.17g", e->min, e->max); break;
    case LS_CONFIG_T_DOUBLE:
        if (e->max >= 1e300) snprintf(buf, len, ">= %.17g", e->min);
        else snprintf(buf, len, "%.17g .. %.17g", e->min, e->max);
        break;
    case LS_CONFIG_T_BOOL: snprintf(buf, len, "true, false"); break;
    case LS_CONFIG_T_STRING: snprintf(buf, len, "any text"); break;
    case LS_CONFIG_T_PATH: snprintf(buf, len, "file path, relative to the naming file"); break;
    case LS_CONFIG_T_ENUM: {
        size_t pos = 0;
        buf[0] = '\0';
        for (int i = 0; e->names[i] && pos < len; ++i)
            pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", i ? ", " : "", e->names[i]);
        break;
    }
    }
}

int ls_config_explain(const char *key, FILE *out, FILE *errs)
{
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    const ls_config_schema_entry *e = ls_config_schema_find(key);
    char allowed[300];
    if (e) {
        allowed_text(e, allowed, sizeof allowed);
        fprintf(out, "%s\n  type:    %s\n  default: %s\n  allowed: %s\n  %s\n", e->path, type_name(e),
                e->def[0] ? e->def : "\"\" (empty)", allowed, e->help);
        const ls_config_provenance *p = ls_config_provenance_find(key);
        if (p && ls_config_prov_ranged(p->kind))
            fprintf(out, "  %s: %g in [%g, %g] (LampAttention preset): %s\n", ls_config_prov_kind_name(p->kind),
                    strtod(e->def, NULL), p->low, p->high, p->text);
        else if (p)
            fprintf(out, "  source:  %s (LampAttention preset: %s)\n", p->text, e->def);
        if (p && p->node) fprintf(out, "  node:    %s\n", p->node);
        if (ls_config_key_modes(key)) fprintf(out, "  modes:   read in mode %s only\n", ls_config_key_modes(key));
        return 0;
    }
    size_t l = strlen(key);
    int found = 0;
    for (size_t i = 0; i < n; ++i)
        if (!strncmp(s[i].path, key, l) && (l == 0 || s[i].path[l] == '.')) {
            if (!found) fprintf(out, "%s: section with the keys\n", l ? key : "(all)");
            found = 1;
            const ls_config_provenance *p = ls_config_provenance_find(s[i].path);
            char prov[80] = "";
            if (p && ls_config_prov_ranged(p->kind))
                snprintf(prov, sizeof prov, "  (%s %g .. %g)", ls_config_prov_kind_name(p->kind), p->low, p->high);
            else if (p) snprintf(prov, sizeof prov, "  (source)");
            fprintf(out, "  %-44s %-16s default %s%s\n", s[i].path, type_name(&s[i]), s[i].def[0] ? s[i].def : "\"\"", prov);
        }
    if (found) return 0;
    char sug[256];
    if (ls_config_suggest(key, sug, sizeof sug)) fprintf(errs, "%s: unknown key; did you mean '%s'?\n", key, sug);
    else fprintf(errs, "%s: unknown key\n", key);
    return -1;
}

/* ---- Markdown ---- */
typedef struct {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s)
{
    size_t l = strlen(s);
    if (!b->p && b->cap == (size_t)-1) return;
    if (b->n + l + 1 > b->cap) {
        size_t nc = (b->cap ? b->cap * 2 : 4096);
        while (nc < b->n + l + 1) nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np) {
            free(b->p);
            b->p = NULL;
            b->cap = (size_t)-1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, l + 1);
    b->n += l;
}

static void sb_cell(sbuf *b, const char *s)
{
    /* escape the table separator */
    char tmp[2];
    tmp[1] = '\0';
    for (; *s; ++s) {
        if (*s == '|') sb_put(b, "\\|");
        else {
            tmp[0] = *s;
            sb_put(b, tmp);
        }
    }
}

static const char DOC_HEAD[] =
    "# lampsim configuration reference\n"
    "\n"
    "<!-- Generated from the schema table in sim/config/schema.c (a unit's keys: its declaration,\n"
    "     hw/<folder>/<section>.params) by `lampsim config --docs`.\n"
    "     Do not edit by hand: tests/config checks that this file equals the generated text. -->\n"
    "\n"
    "A configuration is a YAML mapping with three sections, `accelerator` (timing and energy model),\n"
    "`algorithm` (engine mode, tiling and every numerics knob) and `workload` (the attention problem),\n"
    "plus `seed`, `version` and `description`. Values are applied in layers, later layers winning:\n"
    "\n"
    "1. the defaults below (identical to `configs/default.yaml`, which is compiled into the binary and\n"
    "   used when no file is given);\n"
    "2. `include:` files (a file name or a list, relative to the including file, applied in order and\n"
    "   recursively; missing files and include cycles are errors);\n"
    "3. the file's own keys;\n"
    "4. `--set key.path=value` overrides (repeatable), validated exactly like file values.\n"
    "\n"
    "`workload.file` names a workload YAML (see docs/workloads.md): it resets the workload section to its\n"
    "defaults and applies the file; other `workload` keys next to it apply on top. Relative paths resolve\n"
    "against the file that names them. A sweep point is therefore \"preset + few keys\":\n"
    "\n"
    "```yaml\n"
    "include: ../configs/lampattention.yaml\n"
    "algorithm:\n"
    "  tau: 0.25\n"
    "workload:\n"
    "  file: ../workloads/qwen3_8b_like.yaml\n"
    "  seq_q: 1024\n"
    "  seq_k: 1024\n"
    "```\n"
    "\n"
    "`lampsim validate FILE...` checks files, `lampsim config --dump FILE` prints the resolved\n"
    "configuration (what a run writes to `config.resolved.yaml`; reloading it reproduces the run), and\n"
    "`lampsim config --explain KEY` prints one entry of this reference.\n"
    "\n"
    "Errors name the file, line and column, the key path and what was expected, and exit with code 2:\n"
    "unknown keys (with a did-you-mean suggestion), wrong types (quoted numbers included), values out of\n"
    "range, NaN or infinity where a finite number is needed, tile products above the limits, `chunk_k`\n"
    "not dividing the head dimension, `heads_kv` not dividing `heads_q`, duplicate keys, YAML syntax\n"
    "errors, more than one document, documents above 10000 nodes after alias expansion or deeper than 32\n"
    "levels, missing or unreadable includes and include cycles. Booleans are `true`/`false` only.\n"
    "Integers may carry a decimal exponent when the value is whole (`max_work: 2e12`, `1.5e3`; read from\n"
    "the digits, not through a double); `2.5e0` or `32.0` is refused. A sweep\n"
    "file or a workload file given where a configuration is expected is named as such, with the command\n"
    "to use instead; an empty configuration file is valid (everything at its default) with a warning.\n"
    "\n"
    "`validate` (and `run`, before generating any data) also makes the checks that need the\n"
    "configuration only: the timed model's microprogram exists, assembles and stores its output\n"
    "(`STO`), the LUT is there for modes that use it, and one context fits the register file and one block\n"
    "the on-chip buffer (hw/regfile's resident plan; for a trace, whose head dimension comes from its file,\n"
    "this last check waits for the file). Registers per thread and contexts per core of every layout and\n"
    "Q placement at the preset and the study's tiles, with the limit that binds: docs/architecture.md,\n"
    "\"The register and buffer plan\".\n";

static const char DOC_PROV_HEAD[] =
    "\n## Sources and estimates of the LampAttention preset\n"
    "\n"
    "Where each timing and energy value of `configs/lampattention.yaml` (the accelerator defaults above) and\n"
    "each key the preset sets comes from: a *source* (paper and section, datasheet, microbenchmark, public\n"
    "simulator configuration) or an *estimate* with a plausible range and one line of reasoning. A figure of\n"
    "the H100 envelope the preset adopts is a source where a document states it; a property of the\n"
    "LampAttention design or of the kernel running on it (latencies of units not built yet, contexts,\n"
    "prefetch depth, K/V sharing) is an estimate. A *synthesized* value comes from this project's own\n"
    "synthesis of the unit (rtl/, docs/rtl.md), with the error bars of its gate-to-silicon model as its range.\n"
    "Energies are picojoules per action at the node named.\n"
    "\"hw N\" is section N of the project's hardware figures (spec/hardware.md), \"num X\" section X of its\n"
    "numerics specification. One table drives this list, `lampsim config --explain KEY` and\n"
    "`lampsim config --estimates [FILE]` (tab-separated: key, value in FILE, preset value, low, high, node,\n"
    "reasoning), the input of a one-at-a-time sensitivity analysis (sim/config/provenance.c; a unit's keys:\n"
    "its declaration, hw/<folder>/<section>.params):\n"
    "\n"
    "```sh\n"
    "lampsim config --explain accelerator.tensor.latency\n"
    "lampsim config --estimates configs/lampattention.yaml --set accelerator.tensor.latency=64\n"
    "```\n"
    "\n"
    "| key | preset value | kind | range | node | source or reasoning |\n|---|---|---|---|---|---|\n";

char *ls_config_docs_markdown(void)
{
    size_t n;
    const ls_config_schema_entry *s = ls_config_schema(&n);
    sbuf b = {0};
    sb_put(&b, DOC_HEAD);
    const char *sections[] = {"", "accelerator", "algorithm", "timed", "workload"};
    const char *titles[] = {"Top level", "accelerator", "algorithm", "timed", "workload"};
    for (int si = 0; si < 5; ++si) {
        sb_put(&b, "\n## ");
        sb_put(&b, titles[si]);
        sb_put(&b, "\n\n| key | type | default | allowed | description |\n|---|---|---|---|---|\n");
        size_t sl = strlen(sections[si]);
        for (size_t i = 0; i < n; ++i) {
            const ls_config_schema_entry *e = &s[i];
            int in = sl ? (!strncmp(e->path, sections[si], sl) && e->path[sl] == '.') : strchr(e->path, '.') == NULL;
            if (!in) continue;
            char allowed[300];
            allowed_text(e, allowed, sizeof allowed);
            sb_put(&b, "| `");
            sb_put(&b, e->path);
            sb_put(&b, "` | ");
            sb_put(&b, type_name(e));
            sb_put(&b, " | ");
            if (e->def[0]) {
                sb_put(&b, "`");
                sb_cell(&b, e->def);
                sb_put(&b, "`");
            } else {
                sb_put(&b, "\"\"");
            }
            sb_put(&b, " | ");
            sb_cell(&b, allowed);
            sb_put(&b, " | ");
            sb_cell(&b, e->help);
            sb_put(&b, " |\n");
        }
    }
    sb_put(&b, DOC_PROV_HEAD);
    size_t np;
    const ls_config_provenance *p = ls_config_provenance_table(&np);
    for (size_t i = 0; i < np; ++i) {
        const ls_config_schema_entry *e = ls_config_schema_find(p[i].key);
        char range[96] = "";
        if (ls_config_prov_ranged(p[i].kind)) snprintf(range, sizeof range, "%g .. %g", p[i].low, p[i].high);
        sb_put(&b, "| `");
        sb_put(&b, p[i].key);
        sb_put(&b, "` | `");
        sb_cell(&b, e ? e->def : "?");
        sb_put(&b, "` | ");
        sb_put(&b, ls_config_prov_kind_name(p[i].kind));
        sb_put(&b, " | ");
        sb_put(&b, range);
        sb_put(&b, " | ");
        sb_cell(&b, p[i].node ? p[i].node : "");
        sb_put(&b, " | ");
        sb_cell(&b, p[i].text);
        sb_put(&b, " |\n");
    }
    return b.p;
}
