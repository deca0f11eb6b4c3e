/* hw/unit/unit.c — the component table (units.def) as data. */
#include "lsunit.h"

#include <stddef.h>
#include <string.h>

static const lsunit_info units[LSUNIT_N] = {
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) \
    [LSUNIT_##ID] = { name, section, work, doc, target, core, report, area },
#include "units.def"
#undef LSUNIT
};

const lsunit_info *lsunit_info_of(int id) { return id >= 0 && id < LSUNIT_N ? &units[id] : NULL; }
const char *lsunit_name(int id) { return id >= 0 && id < LSUNIT_N ? units[id].name : "?"; }

int lsunit_by_name(const char *name)
{
    for (int u = 0; name && u < LSUNIT_N; u++)
        if (!strcmp(units[u].name, name)) return u;
    return -1;
}
