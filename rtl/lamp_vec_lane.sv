// rtl/lamp_vec_lane.sv — one FP32 vector lane, the arithmetic the vector unit's steps run (hw/vector
// vector.c; hw/lamp lamp_steps.c): a + b and a - b (row sums, the normaliser), a * b (rescaling), and
// the running maximum as the C model writes it, b > a ? b : a (a NaN b is ignored; -0 and +0 compare
// equal, so a is kept). IEEE binary32 with one RNE rounding per operation, subnormals kept, overflow to
// Inf; NaN results are 0x7FC00000 (the host propagates a payload: the testbench compares NaN-ness).
// Not here: the final division O / omega (a reciprocal and a multiply on a real lane; the C model
// divides) and the fp64 state of `state_fp64`.
//
// Datapath: one exact 24 x 24-bit significand product; one two-term adder, the operand whose least
// significant bit is higher placed G = 3 bits up, the other aligned to it with the bits below jammed
// into a sticky bit; one rounder shared by both. Bits are jammed only when the exponent difference
// exceeds G, and then the higher operand is normal (its LSB lies above fp32's smallest quantum), so the
// sum's leading bit lies at least 22 places above that LSB and its quantum at least two places above
// the sticky bit: one RNE rounding gives the correctly rounded sum (rtl/tb/tb_vec.cpp).
module lamp_vec_lane (
    input  logic [1:0]  op,          // 0 a + b, 1 a - b, 2 a * b, 3 b > a ? b : a
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] res
);
    localparam int ELSB = -149;      // fp32's smallest quantum
    localparam int G = 3;            // adder window bits below the higher operand's LSB (header)
    localparam int SW = 24 + G + 1;  // adder window: 24-bit significand, G below, a carry above
    localparam int RW = 48;          // rounder input: the product's width (the adder's window fits)

    // operands
    logic sa, sb, anan, bnan, ainf, binf, azero, bzero;
    logic [23:0] ma, mb;
    int ea, eb;                      // exponents of the significands' LSBs
    always_comb begin
        sa = a[31];
        sb = b[31] ^ (op == 2'd1);   // subtract: add -b
        ma = {|a[30:23], a[22:0]};
        mb = {|b[30:23], b[22:0]};
        ea = (a[30:23] == '0 ? 1 : 32'(a[30:23])) - 150;
        eb = (b[30:23] == '0 ? 1 : 32'(b[30:23])) - 150;
        ainf = &a[30:23] && a[22:0] == '0; anan = &a[30:23] && a[22:0] != '0;
        binf = &b[30:23] && b[22:0] == '0; bnan = &b[30:23] && b[22:0] != '0;
        azero = a[30:0] == '0; bzero = b[30:0] == '0;
    end

    // operand isolation: the adder's and the multiplier's inputs held at zero when another operation runs,
    // so an idle path does not switch (its output is not selected)
    logic add_en, mul;
    logic [23:0] xa, xb, pa, pb;
    int xea, xeb;
    always_comb begin
        add_en = op[1] == 1'b0;
        mul = op == 2'd2;
        xa = add_en ? ma : '0; xb = add_en ? mb : '0;
        xea = add_en ? ea : 0; xeb = add_en ? eb : 0;
        pa = mul ? ma : '0; pb = mul ? mb : '0;
    end

    // the add: the operand with the higher LSB (hi) G bits up, the other (lo) aligned below it
    logic [SW-1:0] wh, wl, sum;
    logic [23:0] mh, ml;
    int eh, d;
    logic sh, sl, ssum, jam;
    always_comb begin
        if (xea >= xeb) begin mh = xa; eh = xea; sh = sa; ml = xb; sl = sb; d = xea - xeb; end
        else            begin mh = xb; eh = xeb; sh = sb; ml = xa; sl = sa; d = xeb - xea; end
        wh = SW'(mh) << G;
        jam = 1'b0;
        if (d <= G) wl = SW'(ml) << (G - d);
        else begin
            wl = (d - G >= 24) ? '0 : SW'(ml) >> (d - G);
            for (int i = 0; i < 24; i++) if (i < d - G) jam = jam | ml[i];
        end
        wl[0] = wl[0] | jam;
        if (sh == sl) begin sum = wh + wl; ssum = sh; end
        else if (wh >= wl) begin sum = wh - wl; ssum = sh; end
        else begin sum = wl - wh; ssum = sl; end
        if (sum == '0) ssum = sh & sl;   // x + (-x) = +0; -0 + -0 = -0
    end

    // the product, exact
    logic [RW-1:0] prod;
    always_comb prod = RW'(pa) * RW'(pb);

    // one RNE rounding to fp32 of the selected magnitude (LSB exponent lsb)
    logic [RW-1:0] mag, rem, half;
    logic [RW:0] n;
    int lsb, top, e, qe, r;
    logic [31:0] code;
    always_comb begin
        mag = mul ? prod : RW'(sum);
        lsb = mul ? ea + eb : eh - G;
        top = -1;
        for (int i = 0; i < RW; i++) if (mag[i]) top = i;
        e = lsb + top;                               // exponent of the leading bit
        qe = (e - 23 > ELSB) ? e - 23 : ELSB;        // the quantum's exponent (subnormals: 2^-149)
        r = qe - lsb;                                // bits below the quantum
        n = '0; rem = '0; half = '0;
        if (r <= 0) n = (RW + 1)'(mag) << (-r);      // (only the adder's cancellations: exact)
        else if (r <= RW) begin
            n = (RW + 1)'(mag) >> r;
            rem = mag & ((RW'(1) << r) - 1'b1);
            half = RW'(1) << (r - 1);
            if (rem > half || (rem == half && n[0])) n = n + 1'b1;
        end                                          // r > RW: below half the quantum, rounds to 0
        // code = ((binade - emin) << 23) + n, n with its hidden bit: a carry moves to the next binade by itself
        code = (top < 0 || (e - 23 > 127)) ? 32'h7F80_0000 : 32'((qe - ELSB) << 23) + 32'(n);
    end

    // results and the special cases
    logic gt;
    always_comb begin
        gt = !anan && !bnan && !(azero && bzero) &&
             ((!b[31] && a[31]) || (!b[31] && !a[31] && b[30:0] > a[30:0]) || (b[31] && a[31] && b[30:0] < a[30:0]));
        unique case (op)
            2'd3: res = gt ? b : a;
            2'd2: begin
                if (anan || bnan || (ainf && bzero) || (binf && azero)) res = 32'h7FC0_0000;
                else if (ainf || binf) res = {sa ^ b[31], 8'hFF, 23'd0};
                else if (prod == '0) res = {sa ^ b[31], 31'd0};
                else if (code >= 32'h7F80_0000) res = {sa ^ b[31], 8'hFF, 23'd0};
                else res = {sa ^ b[31], code[30:0]};
            end
            default: begin
                if (anan || bnan || (ainf && binf && sa != sb)) res = 32'h7FC0_0000;
                else if (ainf) res = {sa, 8'hFF, 23'd0};
                else if (binf) res = {sb, 8'hFF, 23'd0};
                else if (sum == '0) res = {ssum, 31'd0};
                else if (code >= 32'h7F80_0000) res = {ssum, 8'hFF, 23'd0};
                else res = {ssum, code[30:0]};
            end
        endcase
    end
endmodule
