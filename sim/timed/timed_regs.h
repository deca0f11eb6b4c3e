/* sim/timed/timed_regs.h — the register map of the accelerator's control port (docs/systemc.md):
 * 32-bit registers at these byte offsets, accessed one register per transaction. Plain C, so the
 * software that drives the accelerator can share it. */
#ifndef LAMPSIM_SIM_TIMED_REGS_H
#define LAMPSIM_SIM_TIMED_REGS_H

enum {
    LS_TIMED_REG_ID = 0x00,         /* RO: LS_TIMED_ID */
    LS_TIMED_REG_CTRL = 0x04,       /* WO: LS_TIMED_CTRL_START launches the layer */
    LS_TIMED_REG_STATUS = 0x08,     /* RO, write 1 to DONE to clear DONE, ERROR and the interrupt */
    LS_TIMED_REG_IRQ_ENABLE = 0x0C, /* bit 0: raise irq while STATUS.DONE is set */
    LS_TIMED_REG_ERROR = 0x10,      /* RO: LSTIMED_ERR_* of the last layer */
    LS_TIMED_REG_MODE = 0x14,       /* LSTIMED_MODE_* */
    LS_TIMED_REG_TAU = 0x18,        /* float32 bit pattern */
    LS_TIMED_REG_CAUSAL = 0x1C,     /* bit 0 */
    LS_TIMED_REG_BATCH = 0x20,
    LS_TIMED_REG_HEADS_Q = 0x24,
    LS_TIMED_REG_HEADS_KV = 0x28,
    LS_TIMED_REG_SEQ_Q = 0x2C,
    LS_TIMED_REG_SEQ_K = 0x30,
    LS_TIMED_REG_DIM = 0x34,
    LS_TIMED_REG_Q_BASE_LO = 0x40,  /* byte addresses on the memory port, low and high words */
    LS_TIMED_REG_Q_BASE_HI = 0x44,
    LS_TIMED_REG_KV_BASE_LO = 0x48,
    LS_TIMED_REG_KV_BASE_HI = 0x4C,
    LS_TIMED_REG_O_BASE_LO = 0x50,
    LS_TIMED_REG_O_BASE_HI = 0x54,
    LS_TIMED_REG_CYCLES_LO = 0x60,  /* RO: accelerator cycles of the last layer */
    LS_TIMED_REG_CYCLES_HI = 0x64,
    LS_TIMED_REG_END = 0x68         /* one past the last register */
};

#define LS_TIMED_ID 0x4C414D50u     /* "LAMP" */
#define LS_TIMED_CTRL_START 0x1u
#define LS_TIMED_STATUS_BUSY 0x1u
#define LS_TIMED_STATUS_DONE 0x2u
#define LS_TIMED_STATUS_ERROR 0x4u

enum { LS_TIMED_MODE_LAMP = 0, LS_TIMED_MODE_FA2_16BIT = 1, LS_TIMED_MODE_PURE_8BIT = 2 };

enum {
    LS_TIMED_ERR_NONE = 0,
    LS_TIMED_ERR_CONFIG = 1,        /* registers refused (shape, mode, tau) or the layer does not fit */
    LS_TIMED_ERR_MEMORY = 2,        /* the memory port answered a transfer with an error response */
    LS_TIMED_ERR_INTERNAL = 3       /* out of host memory or a simulation error */
};

#endif
