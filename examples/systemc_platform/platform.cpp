// examples/systemc_platform/platform.cpp — a user's own virtual platform around the lampsim
// accelerator (docs/systemc.md): a CPU model programs the accelerator's registers over TLM, the
// accelerator reads Q/K/V from a memory and writes O back over TLM, the CPU waits for the
// interrupt and reads the cycle counters. The program then checks O in memory against the golden
// engine bit for bit.
//
//   platform [--memory simple|builtin] [--repeat N] [--instances N] [--set key=value ...]
//
// --memory simple (default): a plain memory with a fixed latency and bandwidth, written here. The
//   CPU runs the layer twice, the second time with a slower memory: the memory's annotated delay
//   is part of lampsim's cycles, so the second run must take longer.
// --memory builtin: lampsim::BuiltinMemory (the DRAM + L2 model of lampsim's own runs) with a
//   backing store: the cycles must equal lampsim's own timed run of the same layer.
// --repeat N: the CPU runs the layer N times (later layers start at other simulation times: each
//   must take the same cycles). --instances N: N CPUs, accelerators and memories in one platform,
//   started together: each is independent of the others (same cycles, same finishing time).
// Exit status 0 when every check holds.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

extern "C" {   // lampsim's C headers (not all of them declare C linkage themselves)
#include "config.h"
#include "engine.h"
#include "lsfp.h"
#include "run.h"
#include "timed.h"
#include "timed_regs.h"
#include "workload.h"
}
#include "timed_tlm.h"

// A memory: bytes, a fixed latency per transfer and a bandwidth.
struct SimpleMemory : sc_core::sc_module {
    tlm_utils::simple_target_socket<SimpleMemory> socket;
    std::vector<unsigned char> bytes;
    sc_core::sc_time latency = sc_core::sc_time(100, sc_core::SC_NS);
    double bytes_per_ns = 64.0;
    SimpleMemory(sc_core::sc_module_name n, size_t size) : sc_module(n), socket("socket"), bytes(size) {
        socket.register_b_transport(this, &SimpleMemory::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) {
        uint64_t a = p.get_address(), len = p.get_data_length();
        if (a > bytes.size() || len > bytes.size() - a) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (p.is_write()) std::memcpy(&bytes[a], p.get_data_ptr(), len);
        else std::memcpy(p.get_data_ptr(), &bytes[a], len);
        delay += latency + sc_core::sc_time((double)len / bytes_per_ns, sc_core::SC_NS);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Where the software puts the tensors, and the layer it asks for.
struct Layer {
    ls_attn_inputs in;
    int bc;                      // keys per K/V tile (algorithm.b_k x n_k): the KV region's layout
    uint64_t q_base, kv_base, o_base;
    float tau;
    uint32_t mode;
};

// The CPU: programs the registers, starts the layer, sleeps until the interrupt.
struct Cpu : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Cpu> socket;
    sc_core::sc_in<bool> irq;
    const Layer *layer = nullptr;
    SimpleMemory *slow_down = nullptr;   // if set: run a second time with this memory 20x slower
    int repeat = 1;                      // runs of the layer (before the slow-down one)
    std::vector<uint64_t> cycles;
    sc_core::sc_time finished;           // when the last layer's interrupt arrived
    int failures = 0;
    SC_HAS_PROCESS(Cpu);
    explicit Cpu(sc_core::sc_module_name n) : sc_module(n), socket("socket"), irq("irq") { SC_THREAD(main); }

    uint32_t access(tlm::tlm_command cmd, uint64_t reg, uint32_t v) {
        tlm::tlm_generic_payload p;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        p.set_command(cmd);
        p.set_address(reg);
        p.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
        p.set_data_length(4);
        p.set_streaming_width(4);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(p, delay);
        if (p.is_response_error()) {
            std::printf("cpu: register 0x%02llx: %s\n", (unsigned long long)reg, p.get_response_string().c_str());
            ++failures;
        }
        wait(delay);
        return v;
    }
    void write(uint64_t reg, uint32_t v) { access(tlm::TLM_WRITE_COMMAND, reg, v); }
    uint32_t read(uint64_t reg) { return access(tlm::TLM_READ_COMMAND, reg, 0); }

    void run_layer() {
        const ls_attn_inputs &in = layer->in;
        uint32_t tau_bits;
        std::memcpy(&tau_bits, &layer->tau, 4);
        write(LS_TIMED_REG_MODE, layer->mode);
        write(LS_TIMED_REG_TAU, tau_bits);
        write(LS_TIMED_REG_CAUSAL, in.causal);
        write(LS_TIMED_REG_BATCH, in.batch);
        write(LS_TIMED_REG_HEADS_Q, in.heads_q);
        write(LS_TIMED_REG_HEADS_KV, in.heads_kv);
        write(LS_TIMED_REG_SEQ_Q, in.seq_q);
        write(LS_TIMED_REG_SEQ_K, in.seq_k);
        write(LS_TIMED_REG_DIM, in.dim);
        write(LS_TIMED_REG_Q_BASE_LO, (uint32_t)layer->q_base);
        write(LS_TIMED_REG_Q_BASE_HI, (uint32_t)(layer->q_base >> 32));
        write(LS_TIMED_REG_KV_BASE_LO, (uint32_t)layer->kv_base);
        write(LS_TIMED_REG_KV_BASE_HI, (uint32_t)(layer->kv_base >> 32));
        write(LS_TIMED_REG_O_BASE_LO, (uint32_t)layer->o_base);
        write(LS_TIMED_REG_O_BASE_HI, (uint32_t)(layer->o_base >> 32));
        write(LS_TIMED_REG_IRQ_ENABLE, 1);
        sc_core::sc_time t0 = sc_core::sc_time_stamp();
        write(LS_TIMED_REG_CTRL, LS_TIMED_CTRL_START);
        wait(irq.posedge_event());
        uint32_t status = read(LS_TIMED_REG_STATUS), error = read(LS_TIMED_REG_ERROR);
        uint64_t c = read(LS_TIMED_REG_CYCLES_LO) | (uint64_t)read(LS_TIMED_REG_CYCLES_HI) << 32;
        std::printf("cpu: layer done after %s: status 0x%x, error %u, %llu accelerator cycles\n",
                    (sc_core::sc_time_stamp() - t0).to_string().c_str(), status, error, (unsigned long long)c);
        if (status != LS_TIMED_STATUS_DONE || error != LS_TIMED_ERR_NONE) ++failures;
        write(LS_TIMED_REG_STATUS, LS_TIMED_STATUS_DONE);   // acknowledge: clears DONE and the interrupt
        cycles.push_back(c);
    }
    void main() {
        if (read(LS_TIMED_REG_ID) != LS_TIMED_ID) ++failures;
        for (int i = 0; i < repeat; i++) run_layer();
        finished = sc_core::sc_time_stamp();
        if (!slow_down) return;
        slow_down->latency *= 20;
        slow_down->bytes_per_ns /= 20;
        run_layer();
    }
};

// The software's side of the address map: Q and O row-major [batch][heads][seq][dim]; K/V per key
// tile of bc keys, each tile's K rows then its V rows; elements in workload.dtype, little endian.
static void put(std::vector<unsigned char> &mem, uint64_t at, const lsfp_format *f, const float *x, size_t n)
{
    int eb = f->nbits / 8;
    for (size_t i = 0; i < n; i++) {
        uint32_t code;   // fp32: the float's own bits; bf16, fp16: the format's code
        if (eb == 4) std::memcpy(&code, &x[i], 4);
        else code = lsfp_encode(f, x[i]);
        for (int b = 0; b < eb; b++) mem[at + i * eb + b] = (unsigned char)(code >> 8 * b);
    }
}

static void load_tensors(std::vector<unsigned char> &mem, const Layer &l, const lsfp_format *f)
{
    const ls_attn_inputs &in = l.in;
    size_t eb = (size_t)f->nbits / 8, row = (size_t)in.dim;
    put(mem, l.q_base, f, in.q, (size_t)in.batch * in.heads_q * in.seq_q * row);
    uint64_t at = l.kv_base;
    for (int h = 0; h < in.batch * in.heads_kv; h++)
        for (int k0 = 0; k0 < in.seq_k; k0 += l.bc) {
            size_t n = (size_t)(in.seq_k - k0 < l.bc ? in.seq_k - k0 : l.bc) * row;
            size_t off = ((size_t)h * in.seq_k + k0) * row;
            put(mem, at, f, in.k + off, n);
            put(mem, at + n * eb, f, in.v + off, n);
            at += 2 * n * eb;
        }
}

int sc_main(int argc, char *argv[])
{
    bool builtin = false;
    int repeat = 1, instances = 1;
    std::vector<const char *> sets;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--memory" && i + 1 < argc) builtin = std::string(argv[++i]) == "builtin";
        else if (a == "--set" && i + 1 < argc) sets.push_back(argv[++i]);
        else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
        else if (a == "--instances" && i + 1 < argc) instances = std::atoi(argv[++i]);
        else repeat = 0;
        if (repeat < 1 || repeat > 16 || instances < 1 || instances > 16) {
            std::fprintf(stderr, "usage: %s [--memory simple|builtin] [--repeat 1..16] [--instances 1..16] [--set key=value ...]\n", argv[0]);
            return 2;
        }
    }
    // the software's layer: lampsim's default workload and algorithm (or the --set overrides)
    ls_config cfg;
    ls_config_diag diag;
    if (ls_config_load(&cfg, nullptr, sets.data(), (int)sets.size(), &diag) != 0) {
        std::fprintf(stderr, "platform: %s\n", diag.message);
        return 2;
    }
    ls_engine_params ep;
    ls_run_engine_params(&cfg, &ep);
    Layer l;
    ls_workload_info wl;
    char err[512];
    if (ls_workload_build(&cfg, nullptr, &l.in, &wl, err, sizeof err) != 0) {
        std::fprintf(stderr, "platform: %s\n", err);
        return 2;
    }
    const ls_attn_inputs &in = l.in;
    l.mode = ep.mode == LS_ENGINE_MODE_FA2_16BIT ? LS_TIMED_MODE_FA2_16BIT
             : ep.mode == LS_ENGINE_MODE_PURE_8BIT ? LS_TIMED_MODE_PURE_8BIT : LS_TIMED_MODE_LAMP;
    l.tau = (float)ep.tau;
    l.bc = ep.b_k * ep.n_k;
    lsfp_format f;
    static const char *const fmts[] = { "fp32", "bf16", "fp16" };
    lsfp_format_by_name(fmts[cfg.workload.dtype], &f);
    size_t eb = (size_t)f.nbits / 8, nq = (size_t)in.batch * in.heads_q * in.seq_q * in.dim;
    size_t nkv = 2 * (size_t)in.batch * in.heads_kv * in.seq_k * in.dim;
    l.q_base = 0x10000;
    l.kv_base = l.q_base + nq * eb + 0x1000;
    l.o_base = l.kv_base + nkv * eb + 0x1000;
    size_t size = l.o_base + nq * eb;

    // what the platform's result must equal: the golden engine's O, lampsim's own timed run's cycles
    ls_engine_result gold;
    ls_timed_result tr;
    ls_engine_result tres;
    ls_timed_options o;
    ls_timed_options_default(&o);
    o.use_systemc = 0;   // the same C units called directly: no second SystemC hierarchy in this process
    if (ls_engine_run(&ep, &in, &gold, err, sizeof err) != 0 ||
        ls_timed_run_opts(&cfg, &ep, &in, &o, &tres, &tr, err, sizeof err) != 0) {
        std::fprintf(stderr, "platform: %s\n", err);
        return 2;
    }
    ls_engine_result_free(&tres);

    // the platform: `instances` CPUs, each with its accelerator and memory
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(1, sc_core::SC_US));
    struct Node {
        std::unique_ptr<Cpu> cpu;
        std::unique_ptr<lampsim::Accelerator> acc;
        std::unique_ptr<SimpleMemory> simple;
        std::unique_ptr<lampsim::BuiltinMemory> dram;
        std::unique_ptr<sc_core::sc_signal<bool>> irq;
        std::vector<unsigned char> *mem = nullptr;
    };
    std::vector<Node> nodes((size_t)instances);
    for (int i = 0; i < instances; i++) {
        Node &n = nodes[(size_t)i];
        std::string sfx = instances > 1 ? std::to_string(i) : std::string();
        n.cpu.reset(new Cpu(("cpu" + sfx).c_str()));
        n.acc.reset(new lampsim::Accelerator(("lampsim" + sfx).c_str(), &cfg, &ep));
        if (builtin) {
            n.dram.reset(new lampsim::BuiltinMemory(("dram" + sfx).c_str(), size));
            n.acc->mem.bind(n.dram->socket);
            n.mem = &n.dram->bytes;
        } else {
            n.simple.reset(new SimpleMemory(("memory" + sfx).c_str(), size));
            n.acc->mem.bind(n.simple->socket);
            n.mem = &n.simple->bytes;
        }
        n.acc->set_memory_bytes(n.mem->size());   // START then refuses a layer that does not lie inside it
        n.irq.reset(new sc_core::sc_signal<bool>(("irq_line" + sfx).c_str()));
        n.cpu->socket.bind(n.acc->ctrl);
        n.acc->irq.bind(*n.irq);
        n.cpu->irq.bind(*n.irq);
        n.cpu->layer = &l;
        n.cpu->repeat = repeat;
        n.cpu->slow_down = n.simple.get();
        load_tensors(*n.mem, l, &f);
    }
    sc_core::sc_start();

    // checks
    int failures = 0;
    std::vector<unsigned char> want(nq * eb);
    put(want, 0, &f, gold.o, nq);
    for (int i = 0; i < instances; i++) {
        Node &n = nodes[(size_t)i];
        Cpu &cpu = *n.cpu;
        std::vector<unsigned char> &mem = *n.mem;
        const char *who = instances > 1 ? n.acc->name() : "";
        failures += cpu.failures;
        size_t mismatches = 0;
        for (size_t b = 0; b < want.size(); b++) mismatches += want[b] != mem[l.o_base + b];
        std::printf("%s%sO in memory vs golden engine: %zu of %zu bytes differ\n", who, *who ? ": " : "", mismatches,
                    want.size());
        if (mismatches || cpu.cycles.empty()) ++failures;
        if (!n.acc->error_message().empty()) std::printf("accelerator: %s\n", n.acc->error_message().c_str());
        if (builtin) {
            std::printf("%s%scycles: platform", who, *who ? ": " : "");
            for (uint64_t c : cpu.cycles) std::printf(" %llu", (unsigned long long)c);
            std::printf(", lampsim's own timed run %llu\n", (unsigned long long)tr.cycles);
            if ((int)cpu.cycles.size() != repeat) ++failures;
            for (uint64_t c : cpu.cycles) failures += c != tr.cycles;
        } else if ((int)cpu.cycles.size() == repeat + 1) {
            std::printf("cycles: memory 100 ns + 64 B/ns %llu, 20x slower memory %llu\n",
                        (unsigned long long)cpu.cycles[0], (unsigned long long)cpu.cycles[(size_t)repeat]);
            if (cpu.cycles[(size_t)repeat] <= cpu.cycles[0]) ++failures;
            for (int r = 1; r < repeat; r++) failures += cpu.cycles[(size_t)r] != cpu.cycles[0];
        }
        // independent instances: nobody waits for another's layer
        if (i > 0 && cpu.finished != nodes[0].cpu->finished) {
            std::printf("%s finished at %s, %s at %s: the instances are not independent\n", who,
                        cpu.finished.to_string().c_str(), nodes[0].acc->name(), nodes[0].cpu->finished.to_string().c_str());
            ++failures;
        }
    }
    ls_engine_result_free(&gold);
    ls_timed_result_free(&tr);
    ls_attn_inputs_release(&l.in);
    std::printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
