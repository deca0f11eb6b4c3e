// sim/timed/timed_tlm.cpp — the SystemC/TLM-2.0 top of the timed model. One target module per
// unit (tensor, LUT, SFU, vector, scheduler, memory, register file) wraps the unit's C behaviour
// and timing; the sequencer module is the initiator: for every instruction part it sends one
// b_transport whose payload carries the transaction (core, context, operation), and the target
// annotates the unit's service time. Loosely timed with temporal decoupling (tlm_quantumkeeper);
// no per-cycle waits, no thread per element. The SystemC kernel can elaborate only once per
// process, so the hierarchy is built on first use and reused; every run starts at the current
// simulation time and all cycle counts are relative to it.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "timed_internal.h"

namespace {

struct RunCtx {
    lsseq *seq = nullptr;
    lsunit *units = nullptr;
    double period_ps = 1.0;
    int rc = 0;
    std::string err;
};

// Thin wrapper: moves the payload to the unit's C exec and annotates its delay.
struct UnitTLM : sc_core::sc_module {
    tlm_utils::simple_target_socket<UnitTLM> socket;
    RunCtx *run = nullptr;
    int id;
    UnitTLM(sc_core::sc_module_name n, int unit_id) : sc_module(n), socket("socket"), id(unit_id) {
        socket.register_b_transport(this, &UnitTLM::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) {
        if (!run || p.get_data_length() != sizeof(lsdp_txn)) {
            p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        lsdp_txn *t = reinterpret_cast<lsdp_txn *>(p.get_data_ptr());
        lsunit *u = &run->units[id];
        lsunit_dispatch(u, t);
        delay += sc_core::sc_time(run->period_ps * (double)(t->end - t->req), sc_core::SC_PS);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct SeqTLM : sc_core::sc_module {
    std::unique_ptr<tlm_utils::simple_initiator_socket<SeqTLM>> socket[LSU_NUNITS];
    tlm_utils::tlm_quantumkeeper qk;
    tlm::tlm_generic_payload payload;   // one pooled payload: b_transport is blocking
    sc_core::sc_event go;
    RunCtx *run = nullptr;
    sc_core::sc_time base;
    SC_HAS_PROCESS(SeqTLM);
    explicit SeqTLM(sc_core::sc_module_name n) : sc_module(n) {
        for (int u = 1; u < LSU_NUNITS; u++) {
            std::string name = std::string("to_") + lsu_unit_name(u);
            socket[u].reset(new tlm_utils::simple_initiator_socket<SeqTLM>(name.c_str()));
        }
        SC_THREAD(main);
    }
    static void port(void *user, lsdp_txn *t) { static_cast<SeqTLM *>(user)->transport(t); }
    void transport(lsdp_txn *t) {
        // local time of the initiator = the transaction's request cycle (relative to the run start)
        sc_core::sc_time req(run->period_ps * (double)t->req, sc_core::SC_PS);
        sc_core::sc_time elapsed = sc_core::sc_time_stamp() - base;
        qk.set(req > elapsed ? req - elapsed : sc_core::SC_ZERO_TIME);
        sc_core::sc_time delay = qk.get_local_time();
        payload.set_command(tlm::TLM_IGNORE_COMMAND);
        payload.set_address((sc_dt::uint64)t->core);
        payload.set_data_ptr(reinterpret_cast<unsigned char *>(t));
        payload.set_data_length(sizeof *t);
        payload.set_streaming_width(sizeof *t);
        payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        (*socket[t->unit])->b_transport(payload, delay);
        if (payload.get_response_status() != tlm::TLM_OK_RESPONSE) {
            run->rc = -1;
            run->err = std::string("TLM error from unit ") + lsu_unit_name(t->unit);
        }
        if (qk.need_sync()) qk.sync();
    }
    void main() {
        for (;;) {
            if (run && run->seq) {
                base = sc_core::sc_time_stamp();
                qk.reset();
                run->seq->port = &SeqTLM::port;
                run->seq->port_user = this;
                if (lsseq_run(run->seq) != 0) { run->rc = -1; run->err = run->seq->err; }
                qk.sync();
                run->seq = nullptr;
            }
            wait(go);
        }
    }
};

struct Top {
    SeqTLM seq;
    std::unique_ptr<UnitTLM> units[LSU_NUNITS];
    Top() : seq("sequencer") {
        for (int u = 1; u < LSU_NUNITS; u++) {
            units[u].reset(new UnitTLM(lsu_unit_name(u), u));
            seq.socket[u]->bind(units[u]->socket);
        }
        tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(1, sc_core::SC_US));
    }
    void attach(RunCtx *r) {
        seq.run = r;
        for (int u = 1; u < LSU_NUNITS; u++) units[u]->run = r;
    }
};

Top *top = nullptr;
bool started = false;

}  // namespace

extern "C" int lstimed_sc_run(lsseq *s, lsunit *units, double clock_ghz, char *err, size_t errlen)
{
    RunCtx run;
    run.seq = s;
    run.units = units;
    run.period_ps = 1000.0 / clock_ghz;
    try {
        if (!top) {
            setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
            sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
            top = new Top();
        }
        top->attach(&run);
        if (started) top->seq.go.notify(sc_core::SC_ZERO_TIME);
        started = true;
        sc_core::sc_start();
        top->attach(nullptr);
    } catch (const std::exception &e) {
        if (top) top->attach(nullptr);
        if (err && errlen) std::snprintf(err, errlen, "SystemC: %s", e.what());
        return -1;
    }
    if (run.rc != 0) {
        if (err && errlen) std::snprintf(err, errlen, "%s", run.err.c_str());
        return -1;
    }
    return 0;
}

// libsystemc's own main() refers to sc_main; lampsim has its own main and drives the kernel through
// lstimed_sc_run, so this weak definition only satisfies the linker (a program that defines its
// own sc_main keeps it).
__attribute__((weak)) int sc_main(int, char *[])
{
    std::fprintf(stderr, "lampsim: sc_main is not used; call ls_timed_run\n");
    return 1;
}
