/* The report's config section (apart from report.h, which needs the engine's types). */
#ifndef LAMPSIM_REPORT_REPORT_CONFIG_H
#define LAMPSIM_REPORT_REPORT_CONFIG_H
#include "config.h"
#include "fields.h"

/* Only the configuration as config.<key> fields, by the schema table (keys flagged
 * LS_CONFIG_SF_NODUMP or LS_CONFIG_SF_NOREPORT left out). */
void ls_report_config_fields(ls_fields *fs, const ls_config *cfg);
#endif
