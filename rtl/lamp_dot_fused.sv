// rtl/lamp_dot_fused.sv — the K-term fused LP dot product (algorithm.lp_datapath: fused; hw/fp
// fp_fused.c lsfp_fused_step, its definition in lsfp.h): K bf16 x bf16 products and the accumulator
// aligned once to the largest term, summed exactly in a window of F fraction bits below it (bits
// shifted out are dropped), rounded once into the accumulator format. A tensor core's dot-product
// shape with a narrow accumulator.
//
// lamp_fused_step is the combinational step; lamp_dot_fused the lane (one group per cycle into the
// accumulator register, events counted as lamp_dot_lane does).
//
// Datapath: K 8 x 8-bit significand products; exponent compare tree for M (zero terms excluded);
// K + 1 right shifters (truncating) onto the F + 2-bit window; a K + 1-input signed adder; the sum
// moved into lamp_round's fixed frame (least significant bit a quarter of the smallest quantum,
// bits below jammed into a sticky bit: S is one exact value, so the jam rounds as it would);
// one rounding. Non-finite operands follow IEEE addition (NaN, or Inf to the overflow rule).
module lamp_fused_step #(
    parameter int K = 4,                       // products per rounding (algorithm.lp_fused_k)
    parameter int F = 16,                      // window fraction bits below 2^M (LSFP_FUSED_FRAC)
    parameter int CE = 4, parameter int CM = 3, parameter int CBIAS = 7,   // accumulator (e4m3)
    parameter int CSPECIAL = 0,
    parameter bit CSATURATE = 1,
    parameter bit CRTZ = 0,
    localparam int CNB = 1 + CE + CM
) (
    input  logic [CNB-1:0]  acc,
    input  logic [16*K-1:0] a,                 // K bf16 operands, operand i in bits 16i .. 16i+15
    input  logic [16*K-1:0] b,
    output logic [CNB-1:0]  res,
    output logic            ovf                // the rounding exceeded max finite
);
    localparam int CEMIN = 1 - CBIAS;
    localparam int CEMAX = ((1 << CE) - 1 - (CSPECIAL == 1 ? 1 : 0)) - CBIAS;
    localparam int WL = CEMIN - CM - 2;        // lamp_round frame: LSB a quarter of the smallest quantum
    localparam int WW = CEMAX + 2 - WL;        // values below 2^(emax + 2)
    localparam int XW = 16 + F;                // a significand moved up by F before the alignment shift
    localparam int TW = F + 2;                 // aligned term magnitude: below 2^(F + 2)
    localparam int SW = TW + $clog2(K + 1) + 1;// signed window sum

    // products
    logic [15:0] psig [K];
    logic        psgn [K], pnz [K], pnan [K], pinf [K];
    int          pe [K];
    for (genvar i = 0; i < K; i++) begin : g_prod
        logic [7:0] ae, be;
        logic [6:0] af, bf;
        logic ai, bi, an, bn, az, bz;
        assign ae = a[16*i+7 +: 8];
        assign be = b[16*i+7 +: 8];
        assign af = a[16*i +: 7];
        assign bf = b[16*i +: 7];
        assign ai = &ae && af == 7'd0;
        assign bi = &be && bf == 7'd0;
        assign an = &ae && af != 7'd0;
        assign bn = &be && bf != 7'd0;
        assign az = ae == 8'd0 && af == 7'd0;
        assign bz = be == 8'd0 && bf == 7'd0;
        assign psig[i] = 16'({|ae, af}) * 16'({|be, bf});
        assign pe[i] = (ae == 8'd0 ? 1 : 32'(ae)) + (be == 8'd0 ? 1 : 32'(be)) - 254;
        assign psgn[i] = a[16*i+15] ^ b[16*i+15];
        assign pnan[i] = an || bn || (ai && bz) || (bi && az);
        assign pinf[i] = !pnan[i] && (ai || bi);
        assign pnz[i] = !(ai || bi || an || bn) && psig[i] != 16'd0;
    end

    // accumulator fields
    logic [CE-1:0] cef;
    logic [CM:0]   csig;
    logic          csgn, cnan, cinf, cnz;
    int            ec;
    always_comb begin
        cef = acc[CM +: CE];
        csig = {|cef, acc[CM-1:0]};
        csgn = acc[CNB-1];
        cnan = (CSPECIAL == 0 && &cef && &acc[CM-1:0]) || (CSPECIAL == 1 && &cef && |acc[CM-1:0]);
        cinf = CSPECIAL == 1 && &cef && !(|acc[CM-1:0]);
        cnz = !cnan && !cinf && csig != '0;
        ec = (cef == '0 ? 1 : 32'(cef)) - CBIAS;
    end

    // the largest alignment exponent, the aligned terms and their exact sum
    int m, sh;
    logic have;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [XW-1:0] x;                          // shifts are >= 14 (products) and >= CM (accumulator):
    /* verilator lint_on UNUSEDSIGNAL */      // the aligned term is x[TW-1:0]
    logic signed [SW-1:0] s;
    always_comb begin
        have = cnz;
        m = ec;
        for (int i = 0; i < K; i++)
            if (pnz[i] && (!have || pe[i] > m)) begin
                m = pe[i];
                have = 1'b1;
            end
        s = '0;
        for (int i = 0; i < K; i++) begin
            sh = m - pe[i] + 14;               // product significands carry 14 fraction bits
            x = {psig[i], F'(0)};
            x = sh >= XW ? '0 : x >> sh;
            if (pnz[i]) s = psgn[i] ? s - SW'(x[TW-1:0]) : s + SW'(x[TW-1:0]);
        end
        sh = m - ec + CM;
        x = XW'({csig, F'(0)});
        x = sh >= XW ? '0 : x >> sh;
        if (cnz) s = csgn ? s - SW'(x[TW-1:0]) : s + SW'(x[TW-1:0]);
    end

    // the sum S * 2^(m - F) in lamp_round's frame
    logic ss, huge, sticky;
    logic [SW-1:0] smag;
    logic [WW:0] rmag;
    int lead, shf;
    always_comb begin
        ss = s[SW-1];
        smag = ss ? SW'(-s) : SW'(s);
        lead = -1;
        for (int j = 0; j < SW; j++) if (smag[j]) lead = j;
        shf = m - F - WL;
        rmag = '0; huge = 1'b0; sticky = 1'b0;
        if (smag != '0) begin
            if (lead + shf >= WW) begin
                huge = 1'b1;
            end else if (shf >= 0) begin
                rmag = (WW + 1)'(smag) << shf;
            end else if (-shf >= SW) begin
                sticky = 1'b1;
            end else begin
                rmag = (WW + 1)'(smag >> (-shf));
                sticky = (smag & ((SW'(1) << (-shf)) - 1'b1)) != '0;
            end
        end
        rmag[0] = rmag[0] | sticky;
    end

    // specials (IEEE addition of the terms) and the rounding
    logic rnan, rinf, rs, anyp, anyn;
    always_comb begin
        rnan = cnan;
        anyp = cinf && !csgn;
        anyn = cinf && csgn;
        for (int i = 0; i < K; i++) begin
            rnan = rnan || pnan[i];
            anyp = anyp || (pinf[i] && !psgn[i]);
            anyn = anyn || (pinf[i] && psgn[i]);
        end
        rnan = rnan || (anyp && anyn);
        rinf = !rnan && (anyp || anyn);
        rs = rinf ? anyn : ss;
    end
    lamp_round #(.W(WW + 1), .LSB_E(WL), .E(CE), .M(CM), .BIAS(CBIAS), .SIGNED(1), .SPECIAL(CSPECIAL),
                 .SATURATE(CSATURATE), .RTZ(CRTZ), .SUBNORM(1))
        rnd (.sign(rs), .mag(rmag), .huge(huge && !rinf && !rnan), .inf(rinf), .nan(rnan), .code(res), .ovf(ovf));
endmodule

// The lane: one group of K products per cycle; `clear` starts a dot product at +0.
module lamp_dot_fused #(
    parameter int K = 4, parameter int F = 16,
    parameter int CE = 4, parameter int CM = 3, parameter int CBIAS = 7,
    parameter int CSPECIAL = 0,
    parameter bit CSATURATE = 1,
    parameter bit CRTZ = 0,
    parameter int CNTW = 16,
    localparam int CNB = 1 + CE + CM
) (
    input  logic            clk,
    input  logic            clear,
    input  logic            en,
    input  logic [16*K-1:0] a,
    input  logic [16*K-1:0] b,
    output logic [CNB-1:0]  acc,
    output logic [CNTW-1:0] events
);
    logic [CNB-1:0] next;
    logic ovf;
    lamp_fused_step #(.K(K), .F(F), .CE(CE), .CM(CM), .CBIAS(CBIAS), .CSPECIAL(CSPECIAL), .CSATURATE(CSATURATE),
                      .CRTZ(CRTZ))
        step (.acc(acc), .a(a), .b(b), .res(next), .ovf(ovf));
    always_ff @(posedge clk) begin
        if (clear) begin
            acc <= '0;
            events <= '0;
        end else if (en) begin
            acc <= next;
            events <= events + CNTW'(ovf);
        end
    end
endmodule
