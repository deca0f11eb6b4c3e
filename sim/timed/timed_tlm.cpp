// sim/timed/timed_tlm.cpp — the SystemC/TLM-2.0 layer of the timed model (timed_tlm.h). The
// Accelerator module is the sequencer: for every instruction part it sends one b_transport to the
// unit's target module, whose payload carries the transaction (core, context, operation) and whose
// annotated delay is the unit's service time. The memory unit sends the off-chip side of every
// load and store as a base-protocol generic payload through the `mem` socket. Loosely timed with
// temporal decoupling (tlm_quantumkeeper); no per-cycle waits, no thread per element. The units'
// behaviour and timing stay in C: these classes only carry transactions and convert times.
//
// The SystemC kernel elaborates once per process, so lampsim's own hierarchy (one Accelerator
// bound to one BuiltinMemory) is built on the first ls_timed_run and reused; every run starts at
// the current simulation time and is timed in integer cycles from that start: nothing a run
// computes depends on the SystemC time it starts at (what ran before it), and no run state is
// global, so several Accelerators in one platform run their layers independently.
#include "timed_tlm.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include <tlm_utils/tlm_quantumkeeper.h>

#include "engine_parts.h"
#include "lsmem.h"
#include "timed.h"
#include "timed_internal.h"
#include "timed_regs.h"

namespace lampsim {
namespace {

// Where a layer launched through the control port keeps its tensors (the memory port fills Q/K/V
// and drains O) and which address map it uses.
struct Layer {
    lsfp_format fmt;
    lsmem_map map;
    float *q = nullptr, *k = nullptr, *v = nullptr;
};

// One run of the sequencer (ls_timed_sc_run).
struct RunCtx {
    lsseq *seq = nullptr;
    lsdp_unit *units = nullptr;
    double period_ps = 1.0;
    sc_core::sc_time base;       // simulation time of cycle 0
    Layer *layer = nullptr;      // launched through ctrl; nullptr for ls_timed_run
    int rc = 0, code = LS_TIMED_ERR_NONE;
    std::string err;
    lsmem_state *memory() const { return static_cast<lsmem_state *>(units[LSUNIT_BUFFER].impl); }
    sc_core::sc_time at(uint64_t cycle) const { return base + sc_core::sc_time(period_ps * (double)cycle, sc_core::SC_PS); }
    // the first failure is the run's; the sequencer stops before its next instruction
    void fail(int c, const std::string &msg) {
        if (rc == 0) { rc = -1; code = c; err = msg; }
        if (seq) seq->stop = 1;
    }
};

// Syncs at whole quanta counted from the run's start rather than from time 0, so that where a
// run's syncs fall (and so what a custom memory target sees) does not depend on when it starts.
struct RunQuantumKeeper : tlm_utils::tlm_quantumkeeper {
    sc_core::sc_time base;
    sc_core::sc_time compute_local_quantum() override {
        sc_core::sc_time q = tlm::tlm_global_quantum::instance().get();
        sc_core::sc_time now = sc_core::sc_time_stamp();
        if (q == sc_core::SC_ZERO_TIME || now < base) return q;
        return q - (now - base) % q;
    }
};

// What a transfer on `mem` carries besides the generic payload: its request cycle and the run's
// DRAM + L2 model. A loosely timed initiator cannot annotate a time before its own, yet request
// times need not be monotonic (several cores merged); the built-in target times the transfer at
// this cycle and answers in cycles, so no time is rounded through picoseconds either.
struct MemCycles : tlm::tlm_extension<MemCycles> {
    lsmem_model *model = nullptr;
    double period_ps = 1.0;
    uint64_t req = 0, end = 0;
    bool served = false;
    tlm::tlm_extension_base *clone() const override { return new MemCycles(*this); }
    void copy_from(const tlm::tlm_extension_base &e) override { *this = static_cast<const MemCycles &>(e); }
};

// Thin wrapper: moves the payload to the unit's C exec and annotates its delay. `run` is the
// owning accelerator's run in progress (nullptr between runs).
struct UnitTLM : sc_core::sc_module {
    tlm_utils::simple_target_socket<UnitTLM> socket;
    int id;
    RunCtx *const *run;
    UnitTLM(sc_core::sc_module_name n, int unit_id, RunCtx *const *owner_run)
        : sc_module(n), socket("socket"), id(unit_id), run(owner_run) {
        socket.register_b_transport(this, &UnitTLM::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) {
        RunCtx *r = *run;
        if (!r || p.get_data_length() != sizeof(lsdp_txn)) {
            p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        lsdp_txn *t = reinterpret_cast<lsdp_txn *>(p.get_data_ptr());
        lsdp_unit_dispatch(&r->units[id], t);
        delay += sc_core::sc_time(r->period_ps * (double)(t->end - t->req), sc_core::SC_PS);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

std::string hex(uint64_t a)
{
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)a);
    return b;
}

uint64_t reg64(const uint32_t *r, int lo) { return (uint64_t)r[lo / 4] | (uint64_t)r[lo / 4 + 1] << 32; }

}  // namespace

struct Accelerator::Impl {
    std::unique_ptr<tlm_utils::simple_initiator_socket<Impl>> to[LSUNIT_N];
    std::unique_ptr<UnitTLM> units[LSUNIT_N];
    RunQuantumKeeper qk;
    tlm::tlm_generic_payload unit_p, mem_p;   // pooled: b_transport is blocking
    MemCycles *mem_ext;                       // owned by mem_p
    RunCtx *run = nullptr;                    // the run in progress in this instance
    std::vector<unsigned char> buf;           // data of the current memory transfer
    Accelerator *self;
    RunCtx *requested = nullptr;              // ls_timed_run's run, served by main()
    bool start = false;                       // CTRL.START written
    sc_core::sc_event go;
    // control port
    bool configured = false;
    ls_config cfg;
    ls_engine_params ep;
    uint32_t regs[LS_TIMED_REG_END / 4] = {};
    std::string error;
    bool irq_level = false;
    sc_core::sc_event irq_changed;
    Layer *launching_layer = nullptr;         // the layer inside ls_timed_run_opts, for ls_timed_sc_run
    int launch_code = LS_TIMED_ERR_NONE;       // its sequencer's LSTIMED_ERR_*
    uint64_t memory_bytes = 0;                 // size of the memory behind `mem` (0: unknown)

    explicit Impl(Accelerator *a) : self(a) {
        for (int u = 0; u < LSUNIT_N; u++) {   // a module per target unit (units.def)
            if (!lsunit_info_of(u)->target) continue;
            std::string name = std::string("to_") + lsunit_name(u);
            to[u].reset(new tlm_utils::simple_initiator_socket<Impl>(name.c_str()));
            units[u].reset(new UnitTLM(lsunit_name(u), u, &run));
            (*to[u]).bind(units[u]->socket);
        }
        mem_ext = new MemCycles;
        mem_p.set_extension(mem_ext);
    }

    static void port(void *user, lsdp_txn *t) { static_cast<Impl *>(user)->transport(t); }
    static uint64_t mem_port(void *user, lsmem_access *a) { return static_cast<Impl *>(user)->mem_access(a); }

    void transport(lsdp_txn *t) {
        // local time of the initiator = the transaction's request cycle (relative to the run start)
        sc_core::sc_time req = run->at(t->req), now = sc_core::sc_time_stamp();
        qk.set(req > now ? req - now : sc_core::SC_ZERO_TIME);
        sc_core::sc_time delay = qk.get_local_time();
        unit_p.set_command(tlm::TLM_IGNORE_COMMAND);
        unit_p.set_address((sc_dt::uint64)t->core);
        unit_p.set_data_ptr(reinterpret_cast<unsigned char *>(t));
        unit_p.set_data_length(sizeof *t);
        unit_p.set_streaming_width(sizeof *t);
        unit_p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        (*to[t->unit])->b_transport(unit_p, delay);
        if (unit_p.get_response_status() != tlm::TLM_OK_RESPONSE)
            run->fail(LS_TIMED_ERR_INTERNAL, std::string("TLM error from unit ") + lsunit_name(t->unit));
        if (qk.need_sync()) qk.sync();
    }

    // The off-chip side of a load or store (called by the memory unit): one generic payload on
    // `mem`, with the request cycle in its MemCycles extension. The built-in target answers in
    // cycles; any other target's annotated time (plus any time it waited) is rounded up to a whole
    // cycle, an exact cycle multiple staying exact.
    uint64_t mem_access(lsmem_access *a) {
        RunCtx *r = run;
        sc_core::sc_time req = r->at(a->req), before = sc_core::sc_time_stamp();
        sc_core::sc_time delay = req > before ? req - before : sc_core::SC_ZERO_TIME;
        sc_core::sc_time issued = before + delay;
        if (buf.size() < a->bytes) buf.resize(a->bytes);
        if (a->write && r->layer) lsmem_store_data(a, &r->layer->fmt, r->memory()->model.sh->o, buf.data());
        mem_p.set_command(a->write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        mem_p.set_address(a->addr);
        mem_p.set_data_ptr(buf.data());
        mem_p.set_data_length((unsigned)a->bytes);
        mem_p.set_streaming_width((unsigned)a->bytes);
        mem_p.set_byte_enable_ptr(nullptr);
        mem_p.set_byte_enable_length(0);
        mem_p.set_dmi_allowed(false);
        mem_p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        *mem_ext = MemCycles();
        mem_ext->model = &r->memory()->model;
        mem_ext->period_ps = r->period_ps;
        mem_ext->req = a->req;
        self->mem->b_transport(mem_p, delay);
        if (mem_p.is_response_error()) {
            r->fail(LS_TIMED_ERR_MEMORY, std::string("memory port: ") + mem_p.get_response_string() + " for a " +
                                            (a->write ? "write" : "read") + " of " + std::to_string(a->bytes) +
                                            " bytes at " + hex(a->addr));
            return a->req;
        }
        if (!a->write && r->layer) lsmem_load_data(a, &r->layer->fmt, buf.data(), r->layer->q, r->layer->k, r->layer->v);
        if (mem_ext->served) return mem_ext->end;
        sc_core::sc_time end = sc_core::sc_time_stamp() + delay;
        double ps = end > issued ? (end - issued).to_seconds() * 1e12 : 0.0;
        return a->req + (uint64_t)std::ceil((ps - 0.5) / r->period_ps);
    }

    // Runs the sequencer in the calling SystemC thread.
    void run_sequencer(RunCtx *r) {
        r->base = sc_core::sc_time_stamp();
        run = r;
        qk.base = r->base;
        qk.reset();
        r->seq->port = &Impl::port;
        r->seq->port_user = this;
        lsmem_state *m = r->memory();
        m->port = &Impl::mem_port;
        m->port_user = this;
        if (r->layer) m->map = r->layer->map;
        if (lsseq_run(r->seq) != 0) r->fail(LS_TIMED_ERR_INTERNAL, r->seq->err);
        qk.sync();
        m->port = nullptr;
        run = nullptr;
    }

    void set_irq(bool level) {
        irq_level = level;
        irq_changed.notify(sc_core::SC_ZERO_TIME);
    }

    // A layer launched by CTRL.START: registers -> shape and parameters, a timed run whose data
    // move through `mem`, then status, cycles and completion.
    void launch() {
        uint32_t *rg = regs;
        rg[LS_TIMED_REG_STATUS / 4] = LS_TIMED_STATUS_BUSY;
        sc_core::sc_time t0 = sc_core::sc_time_stamp();
        uint64_t cycles = 0;
        int code = LS_TIMED_ERR_CONFIG;
        error = "this Accelerator was built without a configuration: it only serves ls_timed_run";
        if (configured) {
            error.clear();
            code = run_layer(&cycles);
            // the layer ends `cycles` after the start, whatever the sequencer's last sync reached
            sc_core::sc_time end = t0 + sc_core::sc_time(1000.0 / cfg.accelerator.clock_ghz * (double)cycles, sc_core::SC_PS);
            if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());
        }
        rg[LS_TIMED_REG_CYCLES_LO / 4] = (uint32_t)cycles;
        rg[LS_TIMED_REG_CYCLES_HI / 4] = (uint32_t)(cycles >> 32);
        rg[LS_TIMED_REG_ERROR / 4] = (uint32_t)code;
        rg[LS_TIMED_REG_STATUS / 4] = LS_TIMED_STATUS_DONE | (code ? LS_TIMED_STATUS_ERROR : 0u);
        if (rg[LS_TIMED_REG_IRQ_ENABLE / 4] & 1u) set_irq(true);
        self->done.notify(sc_core::SC_ZERO_TIME);
    }

    int run_layer(uint64_t *cycles) {
        const uint32_t *rg = regs;
        ls_engine_params p = ep;
        static const ls_engine_mode modes[] = { LS_ENGINE_MODE_LAMP, LS_ENGINE_MODE_FA2_16BIT, LS_ENGINE_MODE_PURE_8BIT };
        uint32_t mode = rg[LS_TIMED_REG_MODE / 4];
        if (mode >= sizeof modes / sizeof modes[0]) {
            error = "MODE register: " + std::to_string(mode) + " is not 0 (lamp), 1 (fa2_16bit) or 2 (pure_8bit)";
            return LS_TIMED_ERR_CONFIG;
        }
        p.mode = modes[mode];
        float tau;
        std::memcpy(&tau, &rg[LS_TIMED_REG_TAU / 4], sizeof tau);
        if (!(tau >= 0.0f && tau <= 1.0f)) {
            error = "TAU register: " + std::to_string(tau) + " is outside [0, 1]";
            return LS_TIMED_ERR_CONFIG;
        }
        p.tau = tau;
        if (cfg.algorithm.operand_format == LS_ENGINE_OPFMT_E4M3) {
            error = "algorithm.operand_format e4m3: Q/K/V reach the control port's layers in workload.dtype only";
            return LS_TIMED_ERR_CONFIG;
        }
        Layer layer;
        static const char *const fmts[] = { "fp32", "bf16", "fp16" };
        lsfp_format_by_name(fmts[cfg.workload.dtype], &layer.fmt);
        layer.map.q = reg64(rg, LS_TIMED_REG_Q_BASE_LO);
        layer.map.kv = reg64(rg, LS_TIMED_REG_KV_BASE_LO);
        layer.map.o = reg64(rg, LS_TIMED_REG_O_BASE_LO);
        ls_attn_inputs in;
        std::memset(&in, 0, sizeof in);
        in.batch = (int)rg[LS_TIMED_REG_BATCH / 4];
        in.heads_q = (int)rg[LS_TIMED_REG_HEADS_Q / 4];
        in.heads_kv = (int)rg[LS_TIMED_REG_HEADS_KV / 4];
        in.seq_q = (int)rg[LS_TIMED_REG_SEQ_Q / 4];
        in.seq_k = (int)rg[LS_TIMED_REG_SEQ_K / 4];
        in.dim = (int)rg[LS_TIMED_REG_DIM / 4];
        in.causal = rg[LS_TIMED_REG_CAUSAL / 4] & 1u;
        char err[512] = "";
        float placeholder = 0.0f;   // the shape is checked before anything is allocated for it
        in.q = in.k = in.v = &placeholder;
        if (ls_engine_check_inputs(&p, &in, err, sizeof err) != 0) {
            error = std::string("shape registers: ") + err;
            return LS_TIMED_ERR_CONFIG;
        }
        size_t nq = (size_t)in.batch * in.heads_q * in.seq_q * in.dim, nk = (size_t)in.batch * in.heads_kv * in.seq_k * in.dim;
        if (nq > (size_t)1 << 31 || nk > (size_t)1 << 31) {
            error = "shape registers: a tensor of more than 2^31 elements";
            return LS_TIMED_ERR_CONFIG;
        }
        ls_timed_options opt;
        ls_timed_options_default(&opt);
        opt.unit_numerics = 1;   // Q/K/V arrive through the memory port during the run
        opt.sc_host = this;      // the sequencer runs in this thread, its data through this port
        // everything the run would refuse without its data (the configuration's size guards, registers
        // that do not fit, regions outside the memory), before the zero-filled host copies of Q, K and
        // V (3 x up to 8 GiB) are allocated
        ls_timed_memory where = { layer.map.q, layer.map.kv, layer.map.o, memory_bytes };
        if (ls_timed_check_layer(&cfg, &p, &in, &opt, &where, err, sizeof err) != 0) {
            error = std::string("START: ") + err;
            return LS_TIMED_ERR_CONFIG;
        }
        std::vector<float> q, k, v;
        try {
            q.assign(nq, 0.0f); k.assign(nk, 0.0f); v.assign(nk, 0.0f);
        } catch (const std::bad_alloc &) {
            error = "out of memory for the layer's tensors";
            return LS_TIMED_ERR_INTERNAL;
        }
        in.q = layer.q = q.data();
        in.k = layer.k = k.data();
        in.v = layer.v = v.data();
        ls_engine_result res;
        ls_timed_result tr;
        launching_layer = &layer;
        launch_code = LS_TIMED_ERR_NONE;
        int rc = ls_timed_run_opts(&cfg, &p, &in, &opt, &res, &tr, err, sizeof err);
        launching_layer = nullptr;
        ls_engine_result_free(&res);
        *cycles = tr.cycles;
        ls_timed_result_free(&tr);
        if (rc == 0) return LS_TIMED_ERR_NONE;
        error = err;
        // a refusal before the sequencer ran is the registers' (or the configuration's) doing
        return launch_code != LS_TIMED_ERR_NONE ? launch_code : LS_TIMED_ERR_CONFIG;
    }
};

Accelerator::Accelerator(sc_core::sc_module_name name, const ls_config *cfg, const ls_engine_params *ep)
    : sc_module(name), mem("mem"), ctrl("ctrl"), irq("irq"), impl_(new Impl(this))
{
    if (cfg && ep) {
        impl_->configured = true;
        impl_->cfg = *cfg;
        impl_->ep = *ep;
    }
    impl_->regs[LS_TIMED_REG_ID / 4] = LS_TIMED_ID;
    ctrl.register_b_transport(this, &Accelerator::ctrl_b_transport);
    SC_THREAD(main);
    SC_METHOD(drive_irq);
    sensitive << impl_->irq_changed;
    dont_initialize();
}

void Accelerator::drive_irq()
{
    if (irq.size()) irq->write(impl_->irq_level);
}

Accelerator::~Accelerator() = default;

const std::string &Accelerator::error_message() const { return impl_->error; }

void Accelerator::set_memory_bytes(uint64_t bytes) { impl_->memory_bytes = bytes; }

void Accelerator::main()
{
    for (;;) {
        if (impl_->requested) {
            RunCtx *r = impl_->requested;
            impl_->requested = nullptr;
            impl_->run_sequencer(r);
        }
        if (impl_->start) {
            impl_->start = false;
            impl_->launch();
        }
        if (!impl_->requested && !impl_->start) sc_core::wait(impl_->go);
    }
}

void Accelerator::ctrl_b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    uint64_t a = p.get_address();
    if (p.get_data_length() != 4 || p.get_streaming_width() < 4 || p.get_byte_enable_ptr()) {
        p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    if (a % 4 || a >= LS_TIMED_REG_END) {
        p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    uint32_t *r = &impl_->regs[a / 4], v;
    if (p.is_read()) {
        std::memcpy(p.get_data_ptr(), r, 4);
    } else if (p.is_write()) {
        std::memcpy(&v, p.get_data_ptr(), 4);
        bool busy = impl_->regs[LS_TIMED_REG_STATUS / 4] & LS_TIMED_STATUS_BUSY;
        switch (a) {
        case LS_TIMED_REG_ID: case LS_TIMED_REG_ERROR: case LS_TIMED_REG_CYCLES_LO: case LS_TIMED_REG_CYCLES_HI:
            p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);   // read-only
            return;
        case LS_TIMED_REG_STATUS:
            if (v & LS_TIMED_STATUS_DONE) {
                *r &= ~(LS_TIMED_STATUS_DONE | LS_TIMED_STATUS_ERROR);
                impl_->set_irq(false);
            }
            break;
        case LS_TIMED_REG_CTRL:
            if (!(v & LS_TIMED_CTRL_START)) break;
            if (busy || impl_->start) {   // one layer at a time
                p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
                return;
            }
            impl_->regs[LS_TIMED_REG_STATUS / 4] = LS_TIMED_STATUS_BUSY;
            impl_->set_irq(false);
            impl_->start = true;
            impl_->go.notify(delay);
            break;
        default:
            if (busy) {   // the running layer's registers are frozen
                p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
                return;
            }
            *r = v;
        }
    } else {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

BuiltinMemory::BuiltinMemory(sc_core::sc_module_name name, size_t size) : sc_module(name), socket("socket"), bytes(size)
{
    socket.register_b_transport(this, &BuiltinMemory::b_transport);
}

// Times the transfer with the initiating run's DRAM + L2 model (lsmem_model_access, in C) at its
// request cycle (the MemCycles extension a lampsim Accelerator attaches) and annotates the
// latency; moves the data when `bytes` backs it. A payload without the extension is refused.
void BuiltinMemory::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    MemCycles *x = p.get_extension<MemCycles>();
    uint64_t addr = p.get_address(), len = p.get_data_length();
    if (!x || !x->model || (!p.is_read() && !p.is_write())) {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (p.get_byte_enable_ptr() || p.get_streaming_width() < len) {
        p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if (!bytes.empty() && (addr > bytes.size() || len > bytes.size() - addr)) {
        p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    lsmem_access a;
    std::memset(&a, 0, sizeof a);
    a.write = p.is_write();
    a.addr = addr;
    a.bytes = len;
    a.req = x->req;
    x->end = lsmem_model_access(x->model, &a);
    x->served = true;
    delay += sc_core::sc_time(x->period_ps * (double)(x->end - a.req), sc_core::SC_PS);
    if (!bytes.empty()) {
        if (a.write) std::memcpy(&bytes[addr], p.get_data_ptr(), len);
        else std::memcpy(p.get_data_ptr(), &bytes[addr], len);
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

// What ls_timed_sc_run needs of an Accelerator's inside.
struct AcceleratorAccess {
    static Accelerator::Impl &impl(Accelerator &a) { return *a.impl_; }
};

}  // namespace lampsim

namespace {
// lampsim's own hierarchy for ls_timed_run: an Accelerator bound to a BuiltinMemory (the control
// port is bound to an idle host: runs are requested directly).
struct Top : sc_core::sc_module {
    lampsim::Accelerator acc;
    lampsim::BuiltinMemory memory;
    tlm_utils::simple_initiator_socket<Top> host;
    explicit Top(sc_core::sc_module_name n) : sc_module(n), acc("lampsim"), memory("memory"), host("host") {
        acc.mem.bind(memory.socket);
        host.bind(acc.ctrl);
        tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(1, sc_core::SC_US));
    }
};
Top *top = nullptr;
bool started = false;
}  // namespace

extern "C" int ls_timed_sc_run(lsseq *s, lsdp_unit *units, double clock_ghz, void *host, char *err, size_t errlen)
{
    using lampsim::RunCtx;
    RunCtx run;
    run.seq = s;
    run.units = units;
    run.period_ps = 1000.0 / clock_ghz;
    try {
        if (host) {
            // a layer launched through a control port: run in its thread, data through its port
            lampsim::Accelerator::Impl *im = static_cast<lampsim::Accelerator::Impl *>(host);
            run.layer = im->launching_layer;
            im->run_sequencer(&run);
            im->launch_code = run.code;
        } else {
            if (!top) {
                setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
                sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
                top = new Top("lampsim_top");
            }
            lampsim::Accelerator::Impl &im = lampsim::AcceleratorAccess::impl(top->acc);
            im.requested = &run;
            if (started) im.go.notify(sc_core::SC_ZERO_TIME);
            started = true;
            sc_core::sc_start();
        }
    } catch (const std::exception &e) {
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
// ls_timed_sc_run, so this weak definition only satisfies the linker (a program that defines its
// own sc_main keeps it).
__attribute__((weak)) int sc_main(int, char *[])
{
    std::fprintf(stderr, "lampsim: sc_main is not used; call ls_timed_run\n");
    return 1;
}
