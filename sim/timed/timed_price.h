/* sim/timed/timed_price.h — the cost of a configuration without running it: the area and leakage the
 * timed model would report (ls_area_of) for the register layout its microprogram
 * runs with. The design-space study (scripts/study.py through `lampsim study cost`) charges every
 * candidate design through it before spending a run on it. */
#ifndef LAMPSIM_SIM_TIMED_PRICE_H
#define LAMPSIM_SIM_TIMED_PRICE_H
#include <stddef.h>

#include "config.h"
#include "timed_area.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills a (the area from the cost source with the published cross-check, leakage) for cfg as a run of it would report them; *layout receives the
 * register layout (lsregfile_layout) the program runs with. Returns 0, or -1 with a message in err
 * (a mode the timed model does not run, a microprogram that does not assemble). */
int ls_timed_price_of(const ls_config *cfg, ls_area *a, int *layout, char *err, size_t errlen);
#ifdef __cplusplus
}
#endif
#endif
