/* hw/unit/lsunit_params.h — every unit's parameters as one C struct per configuration section,
 * generated from the unit's declaration (hw/<folder>/<section>.params): the configuration holds
 * them (ls_config_accelerator.<section>) and the units read the same struct (lsdp_hw.<section>).
 * sim/config's schema.c and provenance.c generate the key's schema row and provenance entry from
 * the same rows, so a unit parameter is declared once. */
#ifndef LAMPSIM_HW_UNIT_LSUNIT_PARAMS_H
#define LAMPSIM_HW_UNIT_LSUNIT_PARAMS_H
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the C type of a parameter's type */
#define LSUNIT_CTYPE_INT int
#define LSUNIT_CTYPE_DOUBLE double
#define LSUNIT_CTYPE_BOOL bool
#define LSUNIT_CTYPE_ENUM int   /* the value's position in the names list */

#define LSPARAM(sec, type, field, def, lo, hi, help, pkind, plo, phi, ptext) LSUNIT_CTYPE_##type field;
#define LSCOST(...)
typedef struct {
#include "tensor/tensor.params"
} lsunit_tensor_params;
typedef struct {
#include "lut/lut.params"
} lsunit_lut_params;
typedef struct {
#include "sfu/sfu.params"
} lsunit_sfu_params;
typedef struct {
#include "dp/issue.params"
} lsunit_issue_params;
typedef struct {
#include "vector/vector.params"
} lsunit_vector_params;
typedef struct {
#include "sched/scheduler.params"
} lsunit_scheduler_params;
typedef struct {
#include "regfile/regfile.params"
} lsunit_regfile_params;
typedef struct {
#include "mem/memory.params"
} lsunit_memory_params;
#undef LSPARAM
#undef LSCOST

/* The cost tables (accelerator.energy.*, accelerator.area.*): every unit's LSCOST rows and the
 * technology's (cost/tech.params), one struct per table. */
#define LSPARAM(...)
#define LSCOST(sec, ...) LSCOST_FIELD_##sec(__VA_ARGS__)
#define LSCOST_FIELD_energy(type, field, ...) LSUNIT_CTYPE_##type field;
#define LSCOST_FIELD_area(type, field, ...)
typedef struct {
#include "unit/all.params"
} lsunit_energy_params;
#undef LSCOST_FIELD_energy
#undef LSCOST_FIELD_area
#define LSCOST_FIELD_energy(type, field, ...)
#define LSCOST_FIELD_area(type, field, ...) LSUNIT_CTYPE_##type field;
typedef struct {
#include "unit/all.params"
} lsunit_area_params;
#undef LSCOST_FIELD_energy
#undef LSCOST_FIELD_area
#undef LSCOST
#undef LSPARAM

#ifdef __cplusplus
}
#endif
#endif
