/* The config layer (sim/config/config.h) and the engine (sim/engine/engine.h) still spell mode,
 * acc_model, rounding, overflow, acc_order and state_precision as separate C enums (the numeric
 * choices of hw/lamp have one family, lslamp.h's); the report and the CLI convert by casting, so
 * the orders must agree. This test fails to compile if they drift. */
#include "check.h"
#include "config.h"
#include "engine.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " != " #b)
SAME(LS_MODE_LAMP, LSE_MODE_LAMP);
SAME(LS_MODE_FA2_FP32, LSE_MODE_FA2_FP32);
SAME(LS_MODE_FA2_16BIT, LSE_MODE_FA2_16BIT);
SAME(LS_MODE_PURE_8BIT, LSE_MODE_PURE_8BIT);
SAME(LS_MODE_LAMP_CODE, LSE_MODE_LAMP_CODE);
SAME(LS_MODE_RANDOM, LSE_MODE_RANDOM);
SAME(LS_ACC_AUTO, LSE_ACC_AUTO);
SAME(LS_ACC_PAPER, LSE_ACC_PAPER);
SAME(LS_ACC_EXACT, LSE_ACC_EXACT);
SAME(LS_ROUND_RNE, LSE_ROUND_RNE);
SAME(LS_ROUND_RTZ, LSE_ROUND_RTZ);
SAME(LS_ROUND_STOCHASTIC, LSE_ROUND_STOCHASTIC);
SAME(LS_OVF_SATURATE, LSE_OVERFLOW_SATURATE);
SAME(LS_OVF_NAN, LSE_OVERFLOW_NAN);
SAME(LS_ORDER_ASCENDING, LSE_ORDER_ASCENDING);
SAME(LS_ORDER_DESCENDING, LSE_ORDER_DESCENDING);
SAME(LS_STATE_FP32, LSE_STATE_FP32);
SAME(LS_STATE_FP64, LSE_STATE_FP64);

int main(void)
{
    CHECK(ls_engine_mode_name((ls_engine_mode)LS_MODE_LAMP_CODE)[0] == 'l');
    CHECK_DONE();
}
