// SystemC/TLM-2.0 toolchain smoke test: an initiator sends a write and a read through simple
// sockets to a memory target with annotated delay; the test checks data, response and time.
#include <cstdio>
#include <cstring>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

struct Memory : sc_core::sc_module {
    tlm_utils::simple_target_socket<Memory> socket;
    unsigned char data[64] = {};
    explicit Memory(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
        socket.register_b_transport(this, &Memory::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay) {
        if (p.get_address() + p.get_data_length() > sizeof data) {
            p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (p.is_write()) std::memcpy(data + p.get_address(), p.get_data_ptr(), p.get_data_length());
        else std::memcpy(p.get_data_ptr(), data + p.get_address(), p.get_data_length());
        delay += sc_core::sc_time(10, sc_core::SC_NS);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> socket;
    int failures = 0;
    SC_HAS_PROCESS(Initiator);
    explicit Initiator(sc_core::sc_module_name n) : sc_module(n), socket("socket") { SC_THREAD(run); }
    void transfer(tlm::tlm_command cmd, uint64_t addr, unsigned char *buf, unsigned len) {
        tlm::tlm_generic_payload p;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        p.set_command(cmd);
        p.set_address(addr);
        p.set_data_ptr(buf);
        p.set_data_length(len);
        p.set_streaming_width(len);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(p, delay);
        if (p.get_response_status() != tlm::TLM_OK_RESPONSE) ++failures;
        wait(delay);
    }
    void run() {
        unsigned char out[4] = {0x38, 0x7E, 0xF8, 0x01}, in[4] = {0};
        transfer(tlm::TLM_WRITE_COMMAND, 8, out, 4);
        transfer(tlm::TLM_READ_COMMAND, 8, in, 4);
        if (std::memcmp(in, out, 4) != 0) ++failures;
    }
};

int sc_main(int, char *[]) {
    Initiator init("init");
    Memory mem("mem");
    init.socket.bind(mem.socket);
    sc_core::sc_start();
    bool time_ok = sc_core::sc_time_stamp() == sc_core::sc_time(20, sc_core::SC_NS);
    std::printf("failures=%d time=%s\n", init.failures, sc_core::sc_time_stamp().to_string().c_str());
    return (init.failures == 0 && time_ok) ? 0 : 1;
}
