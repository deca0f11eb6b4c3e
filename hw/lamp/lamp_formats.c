/* hw/lamp/lamp_formats.c — the six number formats of the two paths from their names: defaults per
 * arithmetic, shift and exponential formats derived from the accumulators, role rules for the bias
 * and special codes a name leaves open (docs/numerics.md "Formats as configuration"). */
#include "lslamp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const lslamp_fmt_knob[LSLAMP_FMT_COUNT] = {
    "lp_format", "hp_format", "lp_shift_format", "lp_exp_format", "hp_shift_format", "hp_exp_format"};

static int bad(int role, int *which, char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (which) *which = role;
    if (err && errlen) snprintf(err, errlen, fmt, a, b);
    return -1;
}

static bool is_auto(const char *name) { return name[0] == '\0' || !strcmp(name, "auto"); }

/* Largest exponent field that holds finite values under the format's special rule. */
static int top_field(const lsfp_format *f) { return (1 << f->ebits) - 1 - (f->special == LSFP_SPECIAL_IEEE); }

/* The role rules for what a name left open. Shift: the largest exponent covers twice the
 * accumulator's range (a shift mu - y spans both signs: 896 = 2 x 448 -> bias 22 for ue5m3).
 * Exponential: all codes finite, largest exponent 0 (values below 2, 1.0 exact: bias 31 for ue5m3). */
static int apply_role(lsfp_format *f, unsigned given, bool shift, const lsfp_format *acc, char *why, size_t n)
{
    if (!shift && !(given & LSFP_GIVEN_SPECIAL)) f->special = LSFP_SPECIAL_FINITE;
    if (!(given & LSFP_GIVEN_BIAS)) {
        int target = 0;
        if (shift) {
            double span = 2.0 * (double)acc->max_finite;
            target = span >= 0x1p127 ? 127 : ilogb(span);
        }
        f->bias = top_field(f) - target;
        if (f->bias > 127) f->bias = 127;                      /* keep emin inside fp32's */
    }
    return lsfp_format_init(f, why, n);
}

int lslamp_formats_resolve(const char names[][LSLAMP_FMT_NAME_MAX], lslamp_arith arith,
                           lsfp_format out[LSLAMP_FMT_COUNT], int *which, char *err, size_t errlen)
{
    char why[300];
    for (int r = 0; r < 2; r++) {                              /* accumulators */
        if (is_auto(names[r])) {
            if (arith == LSLAMP_ARITH_PAPER) lsfp_ps_format(&out[r], r == LSLAMP_FMT_LP ? 3 : 11);
            else out[r] = *lsfp_named_format(r == LSLAMP_FMT_LP ? LSFP_E4M3 : LSFP_E4M11);
        } else if (lsfp_format_parse(names[r], &out[r], NULL, why, sizeof why) != 0) {
            return bad(r, which, err, errlen, "%s%s", why, "");
        }
        if (!out[r].is_signed)
            return bad(r, which, err, errlen, "%s is unsigned; an accumulator holds signed logits%s", names[r], "");
    }
    for (int r = LSLAMP_FMT_LP_SHIFT; r < LSLAMP_FMT_COUNT; r++) {
        int acc_role = r < LSLAMP_FMT_HP_SHIFT ? LSLAMP_FMT_LP : LSLAMP_FMT_HP;
        const lsfp_format *acc = &out[acc_role];
        bool shift = r == LSLAMP_FMT_LP_SHIFT || r == LSLAMP_FMT_HP_SHIFT;
        lsfp_format *f = &out[r];
        unsigned given = 0;
        if (is_auto(names[r]) && acc->fp32_range) {
            *f = *acc;                                         /* PS(m) / fp32 paths keep their format */
            continue;
        }
        if (is_auto(names[r])) {
            if (acc->ebits >= 8)
                return bad(acc_role, which, err, errlen, "no derived format for accumulator %s (the shift and "
                           "exponential formats take one more exponent bit): name algorithm.%s", acc->name,
                           lslamp_fmt_knob[r]);
            memset(f, 0, sizeof *f);
            snprintf(f->name, sizeof f->name, "ue%dm%d%s", acc->ebits + 1, acc->mbits, shift ? "s" : "x");
            f->ebits = acc->ebits + 1; f->mbits = acc->mbits;
            f->special = acc->mbits > 0 ? LSFP_SPECIAL_OCP : LSFP_SPECIAL_FINITE;
            f->subnormals = true; f->overflow = LSFP_OVF_SATURATE; f->rounding = LSFP_RND_RNE;
        } else if (lsfp_format_parse(names[r], f, &given, why, sizeof why) != 0) {
            return bad(r, which, err, errlen, "%s%s", why, "");
        }
        if (apply_role(f, given, shift, acc, why, sizeof why) != 0) {
            if (!is_auto(names[r])) return bad(r, which, err, errlen, "%s%s", why, "");
            /* a derived format: the accumulator asked for it */
            return bad(acc_role, which, err, errlen, "%s; name algorithm.%s explicitly", why, lslamp_fmt_knob[r]);
        }
        /* 1.0 itself, not only the range: a grid such as ue2m1_b-3 (0, 8, 16, ...) reaches past 1
         * but turns the row maximum's exponential into something else */
        float one = lsfp_decode(f, lsfp_encode(f, 1.0f));
        if (!shift && one != 1.0f) {
            char got[64];
            if (!(f->max_finite >= 1.0f)) snprintf(got, sizeof got, "largest value %s", f->max_finite > 0 ? "below 1" : "0");
            else snprintf(got, sizeof got, "1.0 rounds to %g", (double)one);
            return bad(r, which, err, errlen, "%s cannot hold 1.0, the exponential of the row maximum (%s)", f->name, got);
        }
    }
    /* Named formats keep their own names; derived ones equal to a named format take its name. */
    for (int r = LSLAMP_FMT_LP_SHIFT; r < LSLAMP_FMT_COUNT; r++)
        for (int k = 0; k < LSFP_NAMED_COUNT; k++) {
            const lsfp_format *nf = lsfp_named_format((lsfp_named)k);
            lsfp_format *f = &out[r];
            if (f->ebits == nf->ebits && f->mbits == nf->mbits && f->bias == nf->bias &&
                f->is_signed == nf->is_signed && f->special == nf->special && f->subnormals == nf->subnormals &&
                f->overflow == nf->overflow)
                snprintf(f->name, sizeof f->name, "%s", nf->name);
        }
    return 0;
}
