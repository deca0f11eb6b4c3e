/* sim/timed/timed_regs.h — the register map of the accelerator's control port (docs/systemc.md):
 * 32-bit registers at these byte offsets, accessed one register per transaction. Plain C, so the
 * software that drives the accelerator can share it. */
#ifndef LAMPSIM_SIM_TIMED_REGS_H
#define LAMPSIM_SIM_TIMED_REGS_H

enum {
    LSTIMED_REG_ID = 0x00,         /* RO: LSTIMED_ID */
    LSTIMED_REG_CTRL = 0x04,       /* WO: LSTIMED_CTRL_START launches the layer */
    LSTIMED_REG_STATUS = 0x08,     /* RO, write 1 to DONE to clear DONE, ERROR and the interrupt */
    LSTIMED_REG_IRQ_ENABLE = 0x0C, /* bit 0: raise irq while STATUS.DONE is set */
    LSTIMED_REG_ERROR = 0x10,      /* RO: LSTIMED_ERR_* of the last layer */
    LSTIMED_REG_MODE = 0x14,       /* LSTIMED_MODE_* */
    LSTIMED_REG_TAU = 0x18,        /* float32 bit pattern */
    LSTIMED_REG_CAUSAL = 0x1C,     /* bit 0 */
    LSTIMED_REG_BATCH = 0x20,
    LSTIMED_REG_HEADS_Q = 0x24,
    LSTIMED_REG_HEADS_KV = 0x28,
    LSTIMED_REG_SEQ_Q = 0x2C,
    LSTIMED_REG_SEQ_K = 0x30,
    LSTIMED_REG_DIM = 0x34,
    LSTIMED_REG_Q_BASE_LO = 0x40,  /* byte addresses on the memory port, low and high words */
    LSTIMED_REG_Q_BASE_HI = 0x44,
    LSTIMED_REG_KV_BASE_LO = 0x48,
    LSTIMED_REG_KV_BASE_HI = 0x4C,
    LSTIMED_REG_O_BASE_LO = 0x50,
    LSTIMED_REG_O_BASE_HI = 0x54,
    LSTIMED_REG_CYCLES_LO = 0x60,  /* RO: accelerator cycles of the last layer */
    LSTIMED_REG_CYCLES_HI = 0x64,
    LSTIMED_REG_END = 0x68         /* one past the last register */
};

#define LSTIMED_ID 0x4C414D50u     /* "LAMP" */
#define LSTIMED_CTRL_START 0x1u
#define LSTIMED_STATUS_BUSY 0x1u
#define LSTIMED_STATUS_DONE 0x2u
#define LSTIMED_STATUS_ERROR 0x4u

enum { LSTIMED_MODE_LAMP = 0, LSTIMED_MODE_FA2_16BIT = 1, LSTIMED_MODE_PURE_8BIT = 2 };

enum {
    LSTIMED_ERR_NONE = 0,
    LSTIMED_ERR_CONFIG = 1,        /* registers refused (shape, mode, tau) or the layer does not fit */
    LSTIMED_ERR_MEMORY = 2,        /* the memory port answered a transfer with an error response */
    LSTIMED_ERR_INTERNAL = 3       /* out of host memory or a simulation error */
};

#endif
