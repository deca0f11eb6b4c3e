// rtl/lamp_ypack.sv — the packed logit registers of one warp (hardware.md 4, numerics.md D.3):
// LP logits four 8-bit codes per 32-bit register; the compact layout adds one 16-bit sub-block
// slot (two per register) after them; the full layout keeps every logit in 16 bits. Register
// counts are hw/regfile's (lsregfile_y_regs_bits): ceil(values / per-register) per region.
// Logit (key i, query j) is element n = i * B_Q + j of its region (key-major, as Y in hw/lamp);
// the compact slot holds sub-block `slot` (the last one written in HP), element
// (i mod B_K) * B_Q + j. Writes merge one lane into its register (byte or half enables).
module lamp_ypack #(
    parameter int B_Q = 32, parameter int B_K = 16, parameter int N_K = 4,
    parameter int LAYOUT = 1,                       // 0 LP only, 1 compact, 2 full (LSUCODE_Y_LP/COMPACT/FULL)
    localparam int BC = B_K * N_K,
    localparam int LPREGS = LAYOUT == 2 ? 0 : (BC * B_Q + 3) / 4,
    localparam int HPREGS = LAYOUT == 0 ? 0 : LAYOUT == 1 ? (B_K * B_Q + 1) / 2 : (BC * B_Q + 1) / 2,
    localparam int REGS = LPREGS + HPREGS,
    localparam int IW = $clog2(BC), localparam int JW = B_Q > 1 ? $clog2(B_Q) : 1,
    localparam int RW = $clog2(REGS), localparam int TW = N_K > 1 ? $clog2(N_K) : 1
) (
    input  logic          clk,
    input  logic          we,
    input  logic          whp,                      // write the 16-bit form (HP slot / full layout)
    input  logic [IW-1:0] wi,
    input  logic [JW-1:0] wj,
    input  logic [15:0]   wdata,                    // LP: the low 8 bits
    input  logic          rhp,
    input  logic [IW-1:0] ri,
    input  logic [JW-1:0] rj,
    output logic [15:0]   rdata,
    output logic          rvalid,                   // an HP read of a sub-block the slot does not hold: 0
    output logic [31:0]   nregs                     // REGS, for the testbench against hw/regfile
);
    logic [31:0] rf [REGS];
    logic [TW-1:0] slot;

    // address of (i, j) in its region: register and lane
    function automatic void addr(input logic hp, input logic [IW-1:0] i, input logic [JW-1:0] j,
                                 output logic [RW-1:0] r, output logic [1:0] lane);
        int n, k;
        if (!hp || LAYOUT == 0) begin
            n = 32'(i) * B_Q + 32'(j);
            r = RW'(n / 4); lane = 2'(n % 4);
        end else begin
            k = LAYOUT == 1 ? 32'(i) % B_K : 32'(i);
            n = k * B_Q + 32'(j);
            r = RW'(LPREGS + n / 2); lane = 2'(n % 2);
        end
    endfunction

    logic [RW-1:0] wr, rr;
    logic [1:0] wl, rl;
    logic [31:0] rword, wword;
    logic whp_eff, rhp_eff;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [15:0] unused_ext;                        // the write port only merges, the read port only extracts
    logic [31:0] unused_merge;
    /* verilator lint_on UNUSEDSIGNAL */
    lamp_ypack_lane wport (.word(rf[wr]), .lane(wl), .hp(whp_eff), .wdata(wdata), .merged(wword), .extracted(unused_ext));
    lamp_ypack_lane rport (.word(rword), .lane(rl), .hp(rhp_eff), .wdata(16'h0), .merged(unused_merge), .extracted(rdata));
    always_comb begin
        whp_eff = LAYOUT == 2 || (LAYOUT == 1 && whp);
        rhp_eff = LAYOUT == 2 || (LAYOUT == 1 && rhp);
        addr(whp_eff, wi, wj, wr, wl);
        addr(rhp_eff, ri, rj, rr, rl);
        rword = rf[rr];
        rvalid = !(LAYOUT == 1 && rhp) || slot == TW'(32'(ri) / B_K);
        nregs = REGS;
    end

    always_ff @(posedge clk) begin
        if (we) begin
            rf[wr] <= wword;
            if (LAYOUT == 1 && whp) slot <= TW'(32'(wi) / B_K);
        end
    end
endmodule

