// The accelerator's control and memory ports on their bad paths: read-only and unknown registers,
// bursts, refused shapes and modes, a memory that answers with an error, START while busy, an
// instance without a configuration; and that a good layer still runs after each of them.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <time.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

extern "C" {
#include "config.h"
#include "run.h"
#include "timed_regs.h"
}
#include "timed_tlm.h"

static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); ++failures; } } while (0)

// 1 MiB of zeros with no delay: anything beyond it is an address error. fail_at >= 0 injects a
// fault: that transfer (counted from 0) gets TLM_GENERIC_ERROR_RESPONSE, and the transfers that
// still arrive after it are counted.
struct Zeros : sc_core::sc_module {
    tlm_utils::simple_target_socket<Zeros> socket;
    std::vector<unsigned char> bytes = std::vector<unsigned char>(1 << 20);
    long transfers = 0, fail_at = -1, after_fault = 0;
    explicit Zeros(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
        socket.register_b_transport(this, &Zeros::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &) {
        uint64_t a = p.get_address(), len = p.get_data_length();
        long k = transfers++;
        if (fail_at >= 0 && k > fail_at) after_fault++;
        if (k == fail_at) { p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE); return; }
        if (a > bytes.size() || len > bytes.size() - a) { p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE); return; }
        if (p.is_read()) std::memcpy(p.get_data_ptr(), &bytes[a], len);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Peak resident set of this process, in MiB.
static double peak_rss_mib()
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

static double wall_now()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct Host : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Host> to_acc, to_bare, to_acc2;
    tlm_utils::simple_initiator_socket<Host> *cur = &to_acc;   // the accelerator wr, rd and program address
    lampsim::Accelerator *acc = nullptr, *acc2 = nullptr;
    Zeros *zeros = nullptr;   // acc's memory
    bool finished = false;
    double period_ps = 0;   // the accelerator's clock period
    SC_HAS_PROCESS(Host);
    explicit Host(sc_core::sc_module_name n) : sc_module(n), to_acc("to_acc"), to_bare("to_bare"), to_acc2("to_acc2") { SC_THREAD(main); }

    tlm::tlm_response_status access(tlm_utils::simple_initiator_socket<Host> &s, tlm::tlm_command cmd, uint64_t a,
                                    uint32_t *v, unsigned len = 4) {
        unsigned char buf[8] = {};
        std::memcpy(buf, v, 4);
        tlm::tlm_generic_payload p;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        p.set_command(cmd);
        p.set_address(a);
        p.set_data_ptr(buf);
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        s->b_transport(p, d);
        std::memcpy(v, buf, 4);
        if (d != sc_core::SC_ZERO_TIME) wait(d);   // no delta wait: a STATUS read and the wait on done stay atomic
        return p.get_response_status();
    }
    tlm::tlm_response_status wr(uint64_t a, uint32_t v) { return access(*cur, tlm::TLM_WRITE_COMMAND, a, &v); }
    uint32_t rd(uint64_t a) {
        uint32_t v = 0;
        CHECK(access(*cur, tlm::TLM_READ_COMMAND, a, &v) == tlm::TLM_OK_RESPONSE);
        return v;
    }
    // A 1 x 1 head layer of 64 x 64, d 64, fa2_16bit, inside Zeros unless o_base says otherwise.
    void program(uint32_t heads_q, uint32_t heads_kv, uint32_t mode, uint64_t o_base) {
        const uint32_t regs[][2] = { { LS_TIMED_REG_MODE, mode }, { LS_TIMED_REG_TAU, 0 }, { LS_TIMED_REG_CAUSAL, 1 },
                                     { LS_TIMED_REG_BATCH, 1 }, { LS_TIMED_REG_HEADS_Q, heads_q },
                                     { LS_TIMED_REG_HEADS_KV, heads_kv }, { LS_TIMED_REG_SEQ_Q, 64 },
                                     { LS_TIMED_REG_SEQ_K, 64 }, { LS_TIMED_REG_DIM, 64 },
                                     { LS_TIMED_REG_Q_BASE_LO, 0 }, { LS_TIMED_REG_KV_BASE_LO, 0x10000 },
                                     { LS_TIMED_REG_O_BASE_LO, (uint32_t)o_base }, { LS_TIMED_REG_O_BASE_HI, (uint32_t)(o_base >> 32) } };
        for (const auto &r : regs) CHECK(wr(r[0], r[1]) == tlm::TLM_OK_RESPONSE);
    }
    // START, wait for completion; returns the ERROR register.
    uint32_t launch() {
        CHECK(wr(LS_TIMED_REG_CTRL, LS_TIMED_CTRL_START) == tlm::TLM_OK_RESPONSE);
        lampsim::Accelerator *a = cur == &to_acc2 ? acc2 : acc;
        while (rd(LS_TIMED_REG_STATUS) & LS_TIMED_STATUS_BUSY) wait(a->done);
        uint32_t st = rd(LS_TIMED_REG_STATUS), e = rd(LS_TIMED_REG_ERROR);
        CHECK((st & LS_TIMED_STATUS_DONE) && !(st & LS_TIMED_STATUS_BUSY));
        CHECK(!(st & LS_TIMED_STATUS_ERROR) == (e == LS_TIMED_ERR_NONE));
        CHECK(wr(LS_TIMED_REG_STATUS, LS_TIMED_STATUS_DONE) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(LS_TIMED_REG_STATUS) == 0);
        return e;
    }
    bool message_has(const char *what) { return acc->error_message().find(what) != std::string::npos; }

    void main() {
        uint32_t v = 1;
        CHECK(rd(LS_TIMED_REG_ID) == LS_TIMED_ID);
        CHECK(wr(LS_TIMED_REG_ID, 1) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        CHECK(wr(LS_TIMED_REG_CYCLES_LO, 1) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        CHECK(wr(LS_TIMED_REG_MODE + 2, 1) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(wr(LS_TIMED_REG_END, 1) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(access(to_acc, tlm::TLM_WRITE_COMMAND, LS_TIMED_REG_MODE, &v, 8) == tlm::TLM_BURST_ERROR_RESPONSE);

        program(3, 2, LS_TIMED_MODE_FA2_16BIT, 0x20000);
        CHECK(launch() == LS_TIMED_ERR_CONFIG && message_has("heads_q must be a multiple of heads_kv"));
        CHECK(rd(LS_TIMED_REG_CYCLES_LO) == 0);
        program(1, 1, 7, 0x20000);
        CHECK(launch() == LS_TIMED_ERR_CONFIG && message_has("MODE register"));
        // a legal shape above workload.max_elements (2^30): refused at START, before 3 x 4 GiB of host
        // tensors are zero-filled (issue #25 D6)
        program(2, 2, LS_TIMED_MODE_FA2_16BIT, 0x20000);
        CHECK(wr(LS_TIMED_REG_SEQ_Q, (1u << 23) + 512) == tlm::TLM_OK_RESPONSE);
        CHECK(wr(LS_TIMED_REG_SEQ_K, (1u << 23) + 512) == tlm::TLM_OK_RESPONSE);
        CHECK(launch() == LS_TIMED_ERR_CONFIG && message_has("more than workload.max_elements = 1073741824"));
        program(1, 1, LS_TIMED_MODE_FA2_16BIT, 0x100000000ull);
        uint32_t e = launch();
        CHECK(e == LS_TIMED_ERR_MEMORY && message_has("TLM_ADDRESS_ERROR_RESPONSE for a write") && message_has("0x100000000"));

        // issue #25 D6: what needs no data is refused at START, before anything is allocated for the
        // layer. Registers that do not fit: Q of 2^26 elements (256 MiB of zero-filled host floats
        // before the fix), below workload.max_elements and max_work; refused at once, the process's
        // peak RSS unmoved, no transfer sent.
        long sent = zeros->transfers;
        double rss0 = peak_rss_mib(), w0 = wall_now();
        program(4, 4, LS_TIMED_MODE_FA2_16BIT, 0x20000);
        CHECK(wr(LS_TIMED_REG_SEQ_Q, 1u << 16) == tlm::TLM_OK_RESPONSE);
        CHECK(wr(LS_TIMED_REG_DIM, 256) == tlm::TLM_OK_RESPONSE);
        CHECK(launch() == LS_TIMED_ERR_CONFIG && message_has("register file: one warp needs"));
        double rss1 = peak_rss_mib(), w1 = wall_now();
        std::printf("register misfit refused in %.3f s, peak RSS %.0f -> %.0f MiB: %s\n", w1 - w0, rss0, rss1,
                    acc->error_message().c_str());
        CHECK(rss1 - rss0 < 64.0 && w1 - w0 < 2.0 && zeros->transfers == sent);
        // workload.max_work: 2^20 x 2^20 tokens (Q 2^26 elements) refused, not simulated for hours
        program(1, 1, LS_TIMED_MODE_FA2_16BIT, 0x20000);
        CHECK(wr(LS_TIMED_REG_SEQ_Q, 1u << 20) == tlm::TLM_OK_RESPONSE);
        CHECK(wr(LS_TIMED_REG_SEQ_K, 1u << 20) == tlm::TLM_OK_RESPONSE);
        CHECK(launch() == LS_TIMED_ERR_CONFIG && message_has("exceed workload.max_work"));
        CHECK(peak_rss_mib() - rss0 < 64.0 && zeros->transfers == sent);
        // regions outside the memory, once its size is known (O of 8 KiB at 1 MiB - 4 KiB), or wrapping
        // around the address space: refused at START, no transfer sent
        acc->set_memory_bytes(zeros->bytes.size());
        program(1, 1, LS_TIMED_MODE_FA2_16BIT, 0xFF000);
        CHECK(launch() == LS_TIMED_ERR_CONFIG && message_has("O_BASE = 0xff000: the O region [0xff000, 0x101000) (8192 bytes) "
                                                             "does not lie inside the memory's 1048576 bytes"));
        program(1, 1, LS_TIMED_MODE_FA2_16BIT, 0x20000);
        CHECK(wr(LS_TIMED_REG_KV_BASE_LO, 0xFFFFF000u) == tlm::TLM_OK_RESPONSE);
        CHECK(wr(LS_TIMED_REG_KV_BASE_HI, 0xFFFFFFFFu) == tlm::TLM_OK_RESPONSE);
        CHECK(launch() == LS_TIMED_ERR_CONFIG && message_has("KV_BASE = 0xfffffffffffff000: the K/V region (16384 bytes) wraps around"));
        CHECK(wr(LS_TIMED_REG_KV_BASE_HI, 0) == tlm::TLM_OK_RESPONSE);
        CHECK(zeros->transfers == sent);
        // an injected error response on the third transfer ends the layer there: no transfer after
        // it, and the layer takes a fraction of the simulated time of the same layer without the fault
        program(1, 1, LS_TIMED_MODE_FA2_16BIT, 0x40000);
        CHECK(wr(LS_TIMED_REG_SEQ_Q, 1024) == tlm::TLM_OK_RESPONSE);
        CHECK(wr(LS_TIMED_REG_SEQ_K, 1024) == tlm::TLM_OK_RESPONSE);
        sc_core::sc_time g0 = sc_core::sc_time_stamp();
        CHECK(launch() == LS_TIMED_ERR_NONE);
        sc_core::sc_time good = sc_core::sc_time_stamp() - g0;
        long good_transfers = zeros->transfers - sent;
        zeros->fail_at = zeros->transfers + 2;
        g0 = sc_core::sc_time_stamp();
        CHECK(launch() == LS_TIMED_ERR_MEMORY && message_has("TLM_GENERIC_ERROR_RESPONSE for a read"));
        sc_core::sc_time faulty = sc_core::sc_time_stamp() - g0;
        std::printf("injected fault: %ld transfers after it (the layer has %ld), %s of %s simulated\n", zeros->after_fault,
                    good_transfers, faulty.to_string().c_str(), good.to_string().c_str());
        CHECK(good_transfers > 20 && zeros->after_fault == 0 && faulty < good / 4.0);
        CHECK(rd(LS_TIMED_REG_CYCLES_LO) == 0);
        zeros->fail_at = -1;

        program(1, 1, LS_TIMED_MODE_FA2_16BIT, 0x20000);
        CHECK(wr(LS_TIMED_REG_CTRL, LS_TIMED_CTRL_START) == tlm::TLM_OK_RESPONSE);
        CHECK(wr(LS_TIMED_REG_CTRL, LS_TIMED_CTRL_START) == tlm::TLM_GENERIC_ERROR_RESPONSE);   // busy
        CHECK(wr(LS_TIMED_REG_SEQ_Q, 128) == tlm::TLM_GENERIC_ERROR_RESPONSE);                 // frozen while busy
        while (rd(LS_TIMED_REG_STATUS) & LS_TIMED_STATUS_BUSY) wait(acc->done);
        CHECK(rd(LS_TIMED_REG_ERROR) == LS_TIMED_ERR_NONE && rd(LS_TIMED_REG_CYCLES_LO) > 0);
        CHECK(wr(LS_TIMED_REG_STATUS, LS_TIMED_STATUS_DONE) == tlm::TLM_OK_RESPONSE);
        uint32_t cycles = rd(LS_TIMED_REG_CYCLES_LO);
        CHECK(launch() == LS_TIMED_ERR_NONE && rd(LS_TIMED_REG_CYCLES_LO) == cycles);   // same layer, same cycles

        uint32_t start = LS_TIMED_CTRL_START, err = 0;
        CHECK(access(to_bare, tlm::TLM_WRITE_COMMAND, LS_TIMED_REG_CTRL, &start) == tlm::TLM_OK_RESPONSE);
        wait(sc_core::sc_time(1, sc_core::SC_US));
        CHECK(access(to_bare, tlm::TLM_READ_COMMAND, LS_TIMED_REG_ERROR, &err) == tlm::TLM_OK_RESPONSE && err == LS_TIMED_ERR_CONFIG);

        // two instances started together: independent, both layers run at once with the same cycles
        sc_core::sc_time t0 = sc_core::sc_time_stamp();
        cur = &to_acc2;
        program(1, 1, LS_TIMED_MODE_FA2_16BIT, 0x20000);
        cur = &to_acc;
        CHECK(wr(LS_TIMED_REG_CTRL, LS_TIMED_CTRL_START) == tlm::TLM_OK_RESPONSE);
        cur = &to_acc2;
        CHECK(launch() == LS_TIMED_ERR_NONE && rd(LS_TIMED_REG_CYCLES_LO) == cycles);
        cur = &to_acc;   // whichever ran first, the other is done now or soon
        while (rd(LS_TIMED_REG_STATUS) & LS_TIMED_STATUS_BUSY) wait(acc->done);
        CHECK(rd(LS_TIMED_REG_STATUS) == LS_TIMED_STATUS_DONE && rd(LS_TIMED_REG_ERROR) == LS_TIMED_ERR_NONE);
        CHECK(rd(LS_TIMED_REG_CYCLES_LO) == cycles);
        CHECK(sc_core::sc_time_stamp() - t0 < sc_core::sc_time(1.5 * cycles * period_ps, sc_core::SC_PS));
        finished = true;
    }
};

int sc_main(int, char *[])
{
    ls_config cfg;
    ls_config_diag diag;
    if (ls_config_load(&cfg, nullptr, nullptr, 0, &diag) != 0) return 2;
    ls_engine_params ep;
    ls_run_engine_params(&cfg, &ep);
    Host host("host");
    lampsim::Accelerator acc("lampsim", &cfg, &ep), bare("bare"), acc2("lampsim2", &cfg, &ep);
    Zeros mem("zeros"), mem2("zeros2"), mem3("zeros3");
    host.acc = &acc;
    host.acc2 = &acc2;
    host.zeros = &mem;
    host.period_ps = 1000.0 / cfg.accelerator.clock_ghz;
    host.to_acc2.bind(acc2.ctrl);
    acc2.mem.bind(mem3.socket);
    host.to_acc.bind(acc.ctrl);
    host.to_bare.bind(bare.ctrl);
    acc.mem.bind(mem.socket);
    bare.mem.bind(mem2.socket);
    sc_core::sc_start();
    CHECK(host.finished);
    std::printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}
