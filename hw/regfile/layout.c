/* hw/regfile/layout.c — the logit-tile layouts: one row each (hardware.md section 4, numerics.md D.3). */
#include "lsreglayout.h"

#include <string.h>

enum { BITS_LP, BITS_HP, BITS_32 };
typedef struct {
    const char *name;
    int tile_bits;     /* BITS_*: the width every logit of the tile is held in */
    int hp_extra;      /* 16-bit sub-blocks held besides the tile (compact: 1) */
    bool slow_path;    /* more HP sub-blocks than slots take the sequential 16-bit branch */
} layout_row;

static const layout_row rows[LSREGFILE_NLAYOUTS] = {
    [LSREGFILE_COMPACT] = { "compact", BITS_LP, 1, true },
    [LSREGFILE_FULL] = { "full", BITS_HP, 0, false },
    [LSREGFILE_FP32] = { "fp32", BITS_32, 0, false },
    /* pure_8bit never selects an HP sub-block, so the missing HP space is never needed */
    [LSREGFILE_LP] = { "lp", BITS_LP, 0, false },
};

const char *const lsregfile_layout_names[] = { "compact", "full", "fp32", NULL };
const char *const lsregfile_place_names[] = { "registers", "buffer", NULL };

const char *lsregfile_layout_name(int layout)
{
    return layout >= 0 && layout < LSREGFILE_NLAYOUTS ? rows[layout].name : "?";
}

int lsregfile_layout_parse(const char *name)
{
    for (int l = 0; l < LSREGFILE_NLAYOUTS; l++)
        if (name && !strcmp(name, rows[l].name)) return l;
    return -1;
}

static int regs_for(int values, int bits)
{
    int per = 32 / (bits > 0 && bits <= 32 ? bits : 32);
    return (values + per - 1) / per;
}

int lsregfile_y_regs_bits(int layout, int b_q, int b_k, int n_k, int lp_bits, int hp_bits)
{
    if (layout < 0 || layout >= LSREGFILE_NLAYOUTS) return 0;
    const layout_row *r = &rows[layout];
    int lp = lp_bits > 0 ? lp_bits : 8, hp = hp_bits > 0 ? hp_bits : 16;
    int bits = r->tile_bits == BITS_LP ? lp : r->tile_bits == BITS_HP ? hp : 32;
    return regs_for(b_k * n_k * b_q, bits) + r->hp_extra * regs_for(b_k * b_q, hp);
}

int lsregfile_y_regs(int layout, int b_q, int b_k, int n_k) { return lsregfile_y_regs_bits(layout, b_q, b_k, n_k, 8, 16); }

bool lsregfile_has_slow_path(int layout) { return layout >= 0 && layout < LSREGFILE_NLAYOUTS && rows[layout].slow_path; }

int lsregfile_hp_slots(int layout, int n_k)
{
    if (layout < 0 || layout >= LSREGFILE_NLAYOUTS) return 0;
    return rows[layout].tile_bits == BITS_LP ? rows[layout].hp_extra : n_k;
}

int lsregfile_slow_pass(int layout, int b_q, int b_k, int n_k, int lp_bits, int hp_bits)
{
    if (!lsregfile_has_slow_path(layout)) return 0;
    int sub = regs_for(b_k * b_q, hp_bits > 0 ? hp_bits : 16);
    int pass = lsregfile_y_regs_bits(layout, b_q, b_k, n_k, lp_bits, hp_bits) / sub;
    return pass < 1 ? 1 : pass;
}

int lsregfile_logit_bits(int layout, bool hp)
{
    if (layout < 0 || layout >= LSREGFILE_NLAYOUTS) return 32;
    if (rows[layout].tile_bits == BITS_32) return 32;
    return hp || rows[layout].tile_bits == BITS_HP ? 16 : 8;
}
