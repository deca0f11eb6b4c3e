/* The config layer (sim/config/config.h) and the engine (sim/engine/engine.h) still spell mode,
 * acc_model, rounding, overflow, acc_order and state_precision as separate C enums (the numeric
 * choices of hw/lamp have one family, lslamp.h's); the report and the CLI convert by casting, so
 * the orders must agree. This test fails to compile if they drift. */
#include "check.h"
#include "config.h"
#include "engine.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " != " #b)
SAME(LS_ENGINE_MODE_LAMP, LS_ENGINE_MODE_LAMP);
SAME(LS_ENGINE_MODE_FA2_FP32, LS_ENGINE_MODE_FA2_FP32);
SAME(LS_ENGINE_MODE_FA2_16BIT, LS_ENGINE_MODE_FA2_16BIT);
SAME(LS_ENGINE_MODE_PURE_8BIT, LS_ENGINE_MODE_PURE_8BIT);
SAME(LS_ENGINE_MODE_LAMP_CODE, LS_ENGINE_MODE_LAMP_CODE);
SAME(LS_ENGINE_MODE_RANDOM, LS_ENGINE_MODE_RANDOM);
SAME(LS_ENGINE_ACC_AUTO, LS_ENGINE_ACC_AUTO);
SAME(LS_ENGINE_ACC_PAPER, LS_ENGINE_ACC_PAPER);
SAME(LS_ENGINE_ACC_EXACT, LS_ENGINE_ACC_EXACT);
SAME(LSFP_RND_RNE, LSFP_RND_RNE);
SAME(LSFP_RND_RTZ, LSFP_RND_RTZ);
SAME(LSFP_RND_STOCHASTIC, LSFP_RND_STOCHASTIC);
SAME(LSFP_OVF_SATURATE, LSFP_OVF_SATURATE);
SAME(LSFP_OVF_NONSAT, LSFP_OVF_NONSAT);
SAME(LSFP_ORDER_ASCENDING, LSFP_ORDER_ASCENDING);
SAME(LSFP_ORDER_DESCENDING, LSFP_ORDER_DESCENDING);
SAME(LS_ENGINE_STATE_FP32, LS_ENGINE_STATE_FP32);
SAME(LS_ENGINE_STATE_FP64, LS_ENGINE_STATE_FP64);

int main(void)
{
    CHECK(ls_engine_mode_name((ls_engine_mode)LS_ENGINE_MODE_LAMP_CODE)[0] == 'l');
    CHECK_DONE();
}
