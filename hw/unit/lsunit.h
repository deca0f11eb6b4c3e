/* hw/unit/lsunit.h — the accelerator's components (units.def): one enum, one name per unit, and
 * the lists the report, the timeline and the area table take from it. */
#ifndef LAMPSIM_HW_UNIT_LSUNIT_H
#define LAMPSIM_HW_UNIT_LSUNIT_H
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
#define LSUNIT(ID, name, section, work, target, core, report, area, doc) LSUNIT_##ID,
#include "units.def"
#undef LSUNIT
    LSUNIT_N
} lsunit_id;

typedef struct {
    const char *name;        /* the unit's one name */
    const char *section;     /* accelerator.<section>.* holds its parameters, or NULL */
    const char *work;        /* what units.<name>.work counts, or NULL */
    const char *doc;
    bool target, core, report, area;
} lsunit_info;

/* The entry of unit id (NULL outside [0, LSUNIT_N)); its name ("?" outside). */
const lsunit_info *lsunit_info_of(int id);
const char *lsunit_name(int id);
/* The unit of that name, or -1. */
int lsunit_by_name(const char *name);

/* Selection on a 0/1 column: LSUNIT_IF(flag, x...) is x when flag is 1, nothing when 0;
 * LSUNIT_IF2(a, b, x...) when both are 1; LSUNIT_NOT(flag) is 1 - flag. */
#define LSUNIT_IF(flag, ...) LSUNIT_IF_(flag, __VA_ARGS__)
#define LSUNIT_IF_(flag, ...) LSUNIT_IF_##flag(__VA_ARGS__)
#define LSUNIT_IF_0(...)
#define LSUNIT_IF_1(...) __VA_ARGS__
#define LSUNIT_NOT(flag) LSUNIT_NOT_(flag)
#define LSUNIT_NOT_(flag) LSUNIT_NOT_##flag
#define LSUNIT_NOT_0 1
#define LSUNIT_NOT_1 0
#define LSUNIT_IF2(a, b, ...) LSUNIT_IF2_(a, b, __VA_ARGS__)
#define LSUNIT_IF2_(a, b, ...) LSUNIT_IF2_##a##b(__VA_ARGS__)
#define LSUNIT_IF2_00(...)
#define LSUNIT_IF2_01(...)
#define LSUNIT_IF2_10(...)
#define LSUNIT_IF2_11(...) __VA_ARGS__

#ifdef __cplusplus
}
#endif
#endif
