// rtl/lamp_acc_step.sv — one step of the accumulating dot product: acc <- round(acc + a*b) with a
// single correct rounding of the exact value (lsfp_accum LSFP_ACC_EXACT, the hardware arithmetic;
// hw/fp fp_kernels.c acc_step). Operands a, b are IEEE-style formats (bf16 keys, fp32 or bf16
// pre-scaled queries), the accumulator a minifloat (e4m3 LP, e4m11 HP).
//
// Datapath: exact product of the significands; alignment into a fixed-point window whose least
// significant bit is a quarter of the accumulator's smallest quantum, bits below it jammed into a
// sticky bit (they cannot change an RNE or RTZ decision, lamp_round); a signed add with the
// accumulator; one rounding. Products at or above 2^(emax+2) overflow whatever the accumulator
// holds and are only flagged. Signs of zero follow IEEE addition (x + -x = +0; -0 + -0 = -0).
module lamp_acc_step #(
    parameter int AE = 8, parameter int AM = 7, parameter int ABIAS = 127,     // operand a (IEEE)
    parameter int BE = 8, parameter int BM = 23, parameter int BBIAS = 127,    // operand b (IEEE)
    parameter int CE = 4, parameter int CM = 3, parameter int CBIAS = 7,       // accumulator
    parameter int CSPECIAL = 0,
    parameter bit CSATURATE = 1,
    parameter bit CRTZ = 0,
    localparam int ANB = 1 + AE + AM,
    localparam int BNB = 1 + BE + BM,
    localparam int CNB = 1 + CE + CM
) (
    input  logic [CNB-1:0] acc,
    input  logic [ANB-1:0] a,
    input  logic [BNB-1:0] b,
    output logic [CNB-1:0] res,
    output logic           ovf      // the step exceeded max finite (saturation or overflow event)
);
    localparam int CEMIN = 1 - CBIAS;
    localparam int CEMAX = ((1 << CE) - 1 - (CSPECIAL == 1 ? 1 : 0)) - CBIAS;
    localparam int WL = CEMIN - CM - 2;                 // window LSB: a quarter of the smallest quantum
    localparam int WW = CEMAX + 2 - WL;                 // window magnitude bits: values below 2^(emax+2)
    localparam int CMW = (1 << CE) - 1 + CM;            // accumulator magnitude bits (lamp_decode)
    localparam int PW = AM + BM + 2;                    // significand product bits

    // operands
    logic sa, sb, za, zb, ia, ib, na, nb;
    logic [AM:0] ma;
    logic [BM:0] mb;
    int ea, eb;                                         // exponents of the significands' LSBs
    always_comb begin
        sa = a[ANB-1]; sb = b[BNB-1];
        ma = {|a[AM +: AE], a[AM-1:0]};
        mb = {|b[BM +: BE], b[BM-1:0]};
        ea = (a[AM +: AE] == '0 ? 1 : 32'(a[AM +: AE])) - ABIAS - AM;
        eb = (b[BM +: BE] == '0 ? 1 : 32'(b[BM +: BE])) - BBIAS - BM;
        za = ma == '0; zb = mb == '0;
        ia = &a[AM +: AE] && a[AM-1:0] == '0; na = &a[AM +: AE] && a[AM-1:0] != '0;
        ib = &b[BM +: BE] && b[BM-1:0] == '0; nb = &b[BM +: BE] && b[BM-1:0] != '0;
    end

    // accumulator
    logic sc, nc, ic;
    logic [CMW-1:0] mc;
    lamp_decode #(.E(CE), .M(CM), .SIGNED(1), .SPECIAL(CSPECIAL)) dc (.code(acc), .sign(sc), .mag(mc), .nan(nc), .inf(ic));

    // product, aligned into the window
    logic [PW-1:0] p;
    logic sp;
    int sh, lead;
    logic [WW-1:0] pw;
    logic phuge, sticky;
    always_comb begin
        p = PW'(ma) * PW'(mb);
        sp = sa ^ sb;
        sh = ea + eb - WL;                              // window position of the product's LSB
        lead = -1;
        for (int i = 0; i < PW; i++) if (p[i]) lead = i;
        pw = '0; sticky = 1'b0; phuge = 1'b0;
        if (p != '0) begin
            if (lead + sh >= WW) begin
                phuge = 1'b1;
            end else if (sh >= 0) begin
                pw = WW'(p) << sh;
            end else if (-sh >= PW) begin
                sticky = 1'b1;
            end else begin
                pw = WW'(p >> (-sh));
                sticky = (p & ((PW'(1) << (-sh)) - 1'b1)) != '0;
            end
        end
        pw[0] = pw[0] | sticky;
    end

    // signed sum
    logic [WW:0] cw, sum;
    logic ss;
    always_comb begin
        cw = (WW + 1)'(mc) << 2;
        if (sc == sp) begin
            sum = cw + (WW + 1)'(pw); ss = sc;
        end else if (cw >= (WW + 1)'(pw)) begin
            sum = cw - (WW + 1)'(pw); ss = sc;
        end else begin
            sum = (WW + 1)'(pw) - cw; ss = sp;
        end
        if (sum == '0) ss = sc & sp;
    end

    // specials and the rounding
    logic rnan, rinf, rs;
    always_comb begin
        rnan = na || nb || nc || (ia && zb) || (ib && za) || (ic && (ia || ib) && sc != sp);
        rinf = !rnan && (ia || ib || ic);
        rs = rinf ? (ic ? sc : sp) : (phuge ? sp : ss);
    end
    lamp_round #(.W(WW + 1), .LSB_E(WL), .E(CE), .M(CM), .BIAS(CBIAS), .SIGNED(1), .SPECIAL(CSPECIAL),
                 .SATURATE(CSATURATE), .RTZ(CRTZ), .SUBNORM(1))
        rnd (.sign(rs), .mag(sum), .huge(phuge && !rinf && !rnan), .inf(rinf), .nan(rnan), .code(res), .ovf(ovf));
endmodule
