/* The report's field reference: for each field (or family of fields) of report.json / report.csv,
 * its unit and a one-line meaning. One table feeds docs/reports.md's schema table
 * (`lampsim report --fields --markdown`, checked by the docs_reports_fields test) and the run
 * report's field tables (`lampsim report` hands it to scripts/report/), so the meaning of a field
 * is written once. */
#ifndef LAMPSIM_REPORT_FIELD_DOCS_H
#define LAMPSIM_REPORT_FIELD_DOCS_H
#include <stddef.h>
#include <stdio.h>

typedef struct {
    /* the fields described: dotted names separated by ", "; a component written `<unit>` stands
     * for any one name component (units.<unit>.ops), a final `*` for any rest (config.*) */
    const char *names;
    const char *unit;      /* "fraction" for rates and shares in [0, 1]; "" when dimensionless or text */
    const char *meaning;   /* one line, Markdown code spans allowed */
} ls_field_doc;

/* The table, in report order. */
const ls_field_doc *ls_field_docs(size_t *n);
/* One line per entry: names TAB unit TAB meaning. */
void ls_field_docs_tsv(FILE *f);
/* The schema table of docs/reports.md: | field | unit | meaning |. */
void ls_field_docs_markdown(FILE *f);
#endif
