// rtl/lamp_pv_step.sv — one step of LampAttention's P.V update of the running output:
// o <- fp32(o + fp32(p * v)), p an exponential (ue5m3 from the LUT, ue5m11 from the SFU: unsigned, every
// code finite, bias 31), v a bf16 value, o the fp32 output element (hw/fp fp_pv.c, lsfp_pv_update_f32:
// one rounding per multiply and per add, RNE, subnormals kept, overflow to Inf). A step with p = 0 is
// not taken (the C model skips such keys), so o passes through unchanged.
//
// Datapath: the significand product (at most 12 x 8 bits) is exact in fp32 unless it falls below fp32's
// smallest subnormal, where it is rounded first (the C model's product rounding); then a two-term add:
// the operand whose least significant bit is higher is placed G bits up in a (25 + G)-bit window, the
// other aligned to it, its bits below the window jammed into a sticky bit. When any bit is jammed, the
// other operand's leading bit lies at least 7 places above its own LSB (a product's significand is at
// least 1 x 2^7: a product with a subnormal bf16 v is too small to jam anything; a normal o's is at
// least 2^23), so with G = 19 the sum's quantum lies at least two places above the sticky bit and one
// RNE rounding of the window gives the correctly rounded sum (rtl/tb/tb_pv.cpp fails at G = 18).
// NaN results are 0x7FC00000 (the C model propagates a payload: the testbench compares NaN-ness).
module lamp_pv_step #(
    parameter int PM = 3,                          // exponential fraction bits: 3 (ue5m3), 11 (ue5m11)
    localparam int PNB = 5 + PM
) (
    input  logic [31:0]    o,
    input  logic [PNB-1:0] p,
    input  logic [15:0]    v,
    output logic [31:0]    res
);
    localparam int PBIAS = 31;
    localparam int QW = PM + 9;                    // product significand bits
    localparam int G = 19;                         // window bits below the higher operand's LSB (header)
    localparam int SW = 24 + G + 1;                // window: 24-bit significand, G below, a carry above
    localparam int ELSB = -149;                    // fp32's smallest quantum

    // operands
    logic [PM:0] mp;
    logic [7:0] mv;
    logic [23:0] mo;
    int ep, ev, eo;                                // exponents of the significands' LSBs
    logic sv, so, vnan, vinf, onan, oinf, pzero;
    always_comb begin
        mp = {|p[PM +: 5], p[PM-1:0]};
        ep = (p[PM +: 5] == '0 ? 1 : 32'(p[PM +: 5])) - PBIAS - PM;
        sv = v[15];
        mv = {|v[14:7], v[6:0]};
        ev = (v[14:7] == '0 ? 1 : 32'(v[14:7])) - 127 - 7;
        vinf = &v[14:7] && v[6:0] == '0; vnan = &v[14:7] && v[6:0] != '0;
        so = o[31];
        mo = {|o[30:23], o[22:0]};
        eo = (o[30:23] == '0 ? 1 : 32'(o[30:23])) - 150;
        oinf = &o[30:23] && o[22:0] == '0; onan = &o[30:23] && o[22:0] != '0;
        pzero = mp == '0;
    end

    // the product, rounded into fp32 where it falls below the smallest subnormal
    logic [QW-1:0] q0;
    logic [QW:0] q;                                // after rounding (a carry may reach one bit more)
    int eq, k, lead;
    logic qhuge, rb, st;
    always_comb begin
        q0 = QW'(mp) * QW'(mv);
        eq = ep + ev;
        q = {1'b0, q0};
        rb = 1'b0; st = 1'b0;
        if (eq < ELSB) begin
            k = ELSB - eq;                         // bits below fp32's quantum
            q = (k > QW) ? '0 : (QW + 1)'(q0) >> k;
            rb = (k >= 1 && k <= QW) ? q0[k - 1] : 1'b0;
            for (int i = 0; i < QW; i++) if (i < k - 1) st = st | q0[i];
            if (rb && (st || q[0])) q = q + 1'b1;
            eq = ELSB;
        end else k = 0;
        lead = -1;
        for (int i = 0; i <= QW; i++) if (q[i]) lead = i;
        qhuge = lead >= 0 && eq + lead >= 128;     // at or above 2^128: Inf after RNE
        if (q == '0) eq = ELSB;                    // a zero sits at the bottom: it never pushes the other out
    end

    // the add: the operand with the higher LSB (hi) G bits up, the other (lo) aligned below it
    logic [SW-1:0] wh, wl, sum;
    logic [23:0] mh, ml;
    int eh, d;
    logic sh, sl, sg, jam;
    logic [QW:0] qq;
    always_comb begin
        qq = q;
        if (eo >= eq) begin
            mh = mo; eh = eo; sh = so; ml = 24'(qq); sl = sv; d = eo - eq;
        end else begin
            mh = 24'(qq); eh = eq; sh = sv; ml = mo; sl = so; d = eq - eo;
        end
        wh = SW'(mh) << G;
        jam = 1'b0;
        if (d <= G) wl = SW'(ml) << (G - d);
        else begin
            wl = (d - G >= 24) ? '0 : SW'(ml) >> (d - G);
            for (int i = 0; i < 24; i++) if (i < d - G) jam = jam | ml[i];
        end
        wl[0] = wl[0] | jam;
        if (sh == sl) begin sum = wh + wl; sg = sh; end
        else if (wh >= wl) begin sum = wh - wl; sg = sh; end
        else begin sum = wl - wh; sg = sl; end
        if (sum == '0) sg = sh & sl;               // x + (-x) = +0; -0 + -0 = -0
    end

    // one RNE rounding of the window (LSB exponent eh - G) to fp32
    int top, e, r, qe;
    logic [SW-1:0] n, rem, half;
    logic [31:0] code;
    always_comb begin
        top = -1;
        for (int i = 0; i < SW; i++) if (sum[i]) top = i;
        e = eh - G + top;                          // exponent of the leading bit
        qe = (e - 23 > ELSB) ? e - 23 : ELSB;      // the quantum's exponent (subnormals: 2^-149)
        r = qe - (eh - G);                         // window bits below the quantum
        n = '0; rem = '0; half = '0;
        if (r <= 0) n = sum << (-r);
        else begin
            n = sum >> r;
            rem = sum & ((SW'(1) << r) - 1'b1);
            half = SW'(1) << (r - 1);
            if (rem > half || (rem == half && n[0])) n = n + 1'b1;
        end
        // code = ((binade - emin) << 23) + n = ((qe + 149) << 23) + n, n with its hidden bit: a carry moves to the
        // next binade by itself
        code = 32'((qe - ELSB) << 23) + 32'(n);
        if (pzero) res = o;
        else if (vnan || onan || (oinf && (vinf || qhuge) && so != sv)) res = 32'h7FC0_0000;
        else if (oinf) res = o;
        else if (vinf || qhuge) res = {sv, 8'hFF, 23'd0};
        else if (sum == '0) res = {sg, 31'd0};
        else if (code >= 32'h7F80_0000) res = {sg, 8'hFF, 23'd0};
        else res = {sg, code[30:0]};
    end
endmodule

// The two lanes LampAttention's P.V runs on: LUT exponentials (ue5m3) and SFU exponentials (ue5m11).
module lamp_pv_step_lp (
    input  logic [31:0] o,
    input  logic [7:0]  p,
    input  logic [15:0] v,
    output logic [31:0] res
);
    lamp_pv_step #(.PM(3)) u (.*);
endmodule

module lamp_pv_step_hp (
    input  logic [31:0] o,
    input  logic [15:0] p,
    input  logic [15:0] v,
    output logic [31:0] res
);
    lamp_pv_step #(.PM(11)) u (.*);
endmodule
