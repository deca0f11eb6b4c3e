// sim/timed/timed_tlm.h — the LampAttention accelerator as a SystemC/TLM-2.0 IP block
// (docs/systemc.md). Two standard ports:
//   mem   initiator socket, the DRAM side: base-protocol READ/WRITE generic payloads of whole
//         Q blocks, K/V tiles and O blocks at byte addresses of the address map (hw/mem/lsmem.h),
//         blocking transport; the target's annotated delay is the transfer's latency and becomes
//         accelerator cycles. Bind lampsim::BuiltinMemory (today's DRAM + L2 timing) or any
//         base-protocol target.
//   ctrl  target socket: the register map of timed_regs.h; writing CTRL.START runs one attention
//         layer whose Q/K/V arrive and whose O leaves through `mem`. Completion sets STATUS.DONE,
//         notifies `done` and, when IRQ_ENABLE is set, drives `irq` (optional port) high. START
//         checks everything that needs no data first (ls_timed_check_layer: size guards, register
//         fit, regions inside the memory when set_memory_bytes told its size) and allocates nothing
//         for a refused layer; the first error response on `mem` ends the layer (DONE + ERROR,
//         LS_TIMED_ERR_MEMORY) without simulating the rest.
// lampsim's own runs (ls_timed_run) bind one Accelerator to a BuiltinMemory internally.
#ifndef LAMPSIM_SIM_TIMED_TLM_H
#define LAMPSIM_SIM_TIMED_TLM_H
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "engine.h"

namespace lampsim {

class Accelerator : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<Accelerator> mem;
    tlm_utils::simple_target_socket<Accelerator> ctrl;
    sc_core::sc_port<sc_core::sc_signal_inout_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> irq;
    sc_core::sc_event done;

    // cfg and ep: the accelerator and the algorithm of the layers launched through ctrl (the
    // registers set mode, tau, causal and the shape on top of them); both are copied. Q/K/V/O in
    // memory are elements of cfg->workload.dtype. Without them (nullptr) START reports
    // LS_TIMED_ERR_CONFIG: the instance only serves ls_timed_run.
    Accelerator(sc_core::sc_module_name name, const ls_config *cfg = nullptr, const ls_engine_params *ep = nullptr);
    ~Accelerator() override;
    // The message behind the last LSTIMED_ERR_* ("" when none).
    const std::string &error_message() const;
    // The size of the memory bound to `mem`, when known (0, the default: unknown). START then
    // refuses (LS_TIMED_ERR_CONFIG) a layer whose Q, K/V or O region does not lie inside it.
    void set_memory_bytes(uint64_t bytes);

    struct Impl;

private:
    SC_HAS_PROCESS(Accelerator);
    friend struct AcceleratorAccess;   // ls_timed_sc_run (timed_tlm.cpp)
    std::unique_ptr<Impl> impl_;
    void main();
    void drive_irq();   // the one driver of irq (a signal takes one writer process)
    void ctrl_b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
};

// The built-in off-chip memory as a TLM target: the DRAM channel and L2 of accelerator.memory.*
// time every transfer of the accelerator's current layer (so its cycles equal lampsim's own runs);
// `bytes` optionally backs the data (empty: reads return the buffer unchanged, writes are dropped).
class BuiltinMemory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<BuiltinMemory> socket;
    std::vector<unsigned char> bytes;
    BuiltinMemory(sc_core::sc_module_name name, size_t size = 0);

private:
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
};

}  // namespace lampsim
#endif
