// rtl/lamp_tc_dot.sv — the baseline an architect compares the LP lane with: a tensor core's K-term dot
// product with fp32 accumulation, res = round_fp32(c + sum_i a_i * b_i), for bf16 or e4m3 (OCP) operands
// (lsfp_tc_dot, hw/fp/fp_tc_dot.c, states the same arithmetic).
//
// One alignment for all K products and the accumulator: every term's exact significand is shifted to
// the window whose most significant bit is the largest term's leading bit and which holds F bits
// below it; bits below the window are dropped (truncation of each magnitude, no sticky bit); the
// signed sum of the K + 1 terms is exact; one RNE rounding to fp32 (subnormals kept, overflow to Inf).
// This is not a correctly rounded sum (cancellation can expose the dropped bits): it is the shape of
// the units measured on GPUs (one alignment to the maximum exponent, truncation, a few bits beyond
// fp32's). NaN: any NaN operand, Inf x 0, or Infs of both signs; result NaN is 0x7FC00000.
// Zero: -0 only if every term is a zero of negative sign; a nonzero sum that cancels is +0.
module lamp_tc_dot #(
    parameter int K = 4,
    parameter int AE = 8, parameter int AM = 7, parameter int ABIAS = 127,
    parameter int ASPECIAL = 1,                     // 0 OCP (e4m3: S.1111.111 NaN, no Inf), 1 IEEE
    parameter int F = 26,                           // window bits below the largest term's leading bit
    localparam int ANB = 1 + AE + AM
) (
    input  logic [K*ANB-1:0] a,
    input  logic [K*ANB-1:0] b,
    input  logic [31:0]      c,
    output logic [31:0]      res
);
    localparam int PW = 2 * (AM + 1);               // product significand bits
    localparam int MW = PW > 24 ? PW : 24;          // term significand bits
    localparam int TW = F + 1;                      // aligned term bits
    localparam int SW = TW + $clog2(K + 2) + 1;     // sum magnitude bits (K + 1 terms)
    localparam int XW = 12;                         // exponent arithmetic, signed
    localparam logic signed [XW-1:0] NMW = XW'(-MW), SWX = XW'(SW);

    // terms 0..K-1: products; term K: the accumulator
    logic [(K+1)*MW-1:0] m;                         // term i at [i*MW +: MW]
    logic [(K+1)*XW-1:0] e;                         // exponent of the term's LSB (signed)
    logic [(K+1)*XW-1:0] t;                         // exponent of its leading bit (signed)
    logic [K:0] s, nz, tnan, tpinf, tninf;
    for (genvar i = 0; i <= K; i++) begin : g_term
        logic [MW-1:0] mi;
        logic signed [XW-1:0] ei, ti;
        logic si, ni, ii;
        if (i < K) begin : g_prod
            logic [ANB-1:0] x, y;
            logic [AE-1:0] xe, ye;
            logic [AM:0] xm, ym;
            logic xn, yn, xi, yi;
            always_comb begin
                x = a[i*ANB +: ANB]; y = b[i*ANB +: ANB];
                xe = x[AM +: AE]; ye = y[AM +: AE];
                xm = {|xe, x[AM-1:0]}; ym = {|ye, y[AM-1:0]};
                xn = ASPECIAL == 0 ? (&xe && &x[AM-1:0]) : (&xe && |x[AM-1:0]);
                yn = ASPECIAL == 0 ? (&ye && &y[AM-1:0]) : (&ye && |y[AM-1:0]);
                xi = ASPECIAL == 1 && &xe && !(|x[AM-1:0]);
                yi = ASPECIAL == 1 && &ye && !(|y[AM-1:0]);
                si = x[ANB-1] ^ y[ANB-1];
                ni = xn || yn || (xi && ym == '0) || (yi && xm == '0);
                ii = (xi || yi) && !ni;
                mi = (xi || yi || xn || yn) ? '0 : MW'(PW'(xm) * PW'(ym));
                ei = XW'((xe == '0 ? 1 : 32'(xe)) - ABIAS - AM) + XW'((ye == '0 ? 1 : 32'(ye)) - ABIAS - AM);
            end
        end else begin : g_acc
            always_comb begin
                si = c[31];
                ni = &c[30:23] && |c[22:0];
                ii = &c[30:23] && !(|c[22:0]);
                mi = &c[30:23] ? '0 : MW'({|c[30:23], c[22:0]});
                ei = XW'((c[30:23] == '0 ? 1 : 32'(c[30:23])) - 127 - 23);
            end
        end
        always_comb begin
            ti = ei;
            for (int j = 0; j < MW; j++) if (mi[j]) ti = ei + XW'(j);
        end
        assign m[i*MW +: MW] = mi;
        assign e[i*XW +: XW] = ei;
        assign t[i*XW +: XW] = ti;
        assign s[i] = si;
        assign nz[i] = mi != '0;
        assign tnan[i] = ni;
        assign tpinf[i] = ii && !si;
        assign tninf[i] = ii && si;
    end
    logic any_nan, pinf, ninf, any_nz, all_neg;
    assign any_nan = |tnan;
    assign pinf = |tpinf;
    assign ninf = |tninf;

    // the window: LSB at emax - F
    logic signed [XW-1:0] emax, lsb;
    always_comb begin
        emax = {1'b1, {(XW-1){1'b0}}};              // most negative
        any_nz = 1'b0; all_neg = 1'b1;
        for (int i = 0; i <= K; i++) begin
            if (nz[i] && $signed(t[i*XW +: XW]) > emax) emax = $signed(t[i*XW +: XW]);
            any_nz = any_nz | nz[i];
            all_neg = all_neg & s[i];
        end
        lsb = emax - XW'(F);
    end

    // align (truncate) and add
    logic signed [SW:0] acc;
    always_comb begin
        acc = '0;
        for (int i = 0; i <= K; i++) begin
            logic signed [XW-1:0] sh;
            logic [TW-1:0] al;
            sh = $signed(e[i*XW +: XW]) - lsb;                         // <= F - (t - e) : the term fits TW bits
            if (!nz[i]) al = '0;
            else if (sh >= 0) al = TW'(m[i*MW +: MW]) << sh;
            else if (sh <= NMW) al = '0;
            else al = TW'(m[i*MW +: MW]) >> (-sh);
            if (s[i]) acc = acc - (SW + 1)'(al);
            else acc = acc + (SW + 1)'(al);
        end
    end

    // round |acc| x 2^lsb to fp32, RNE
    logic rs;
    logic [SW-1:0] mag, n, rem, half;
    logic signed [XW-1:0] xr, eq, k;
    logic [40:0] code;
    logic up;
    always_comb begin
        rs = acc[SW];
        mag = rs ? SW'(-acc) : SW'(acc);
        xr = lsb;
        for (int j = 0; j < SW; j++) if (mag[j]) xr = lsb + XW'(j);
        eq = xr > -126 ? xr : XW'(-126);              // binade (emin for subnormals)
        k = eq - 23 - lsb;                          // bits below the quantum
        n = '0; rem = '0; half = '0; up = 1'b0;
        if (k <= 0) begin
            n = mag << (-k);
        end else if (k > SWX) begin
            n = '0;                                 // far below the smallest subnormal: rounds to zero
        end else begin
            n = mag >> k;
            rem = mag & ((SW'(1) << k) - 1'b1);
            half = SW'(1) << (k - 1);
            up = rem > half || (rem == half && n[0]);
        end
        code = ((41'(eq) + 41'd126) << 23) + 41'(n) + 41'(up);
        if (mag == '0) code = '0;
        if (any_nan || (pinf && ninf)) res = 32'h7FC00000;
        else if (pinf || ninf) res = {ninf, 8'hFF, 23'd0};
        else if (!any_nz) res = {all_neg, 31'd0};
        else if (code >= 41'h7F800000) res = {rs, 8'hFF, 23'd0};
        else res = {rs, code[30:0]};
    end
endmodule

// The two baselines at K = 4 (a Volta/Ampere-class tensor core's dot-product depth).
module lamp_tc_dot_bf16_k4 (
    input  logic [63:0] a,
    input  logic [63:0] b,
    input  logic [31:0] c,
    output logic [31:0] res
);
    lamp_tc_dot #(.K(4), .AE(8), .AM(7), .ABIAS(127), .ASPECIAL(1)) u (.*);
endmodule

module lamp_tc_dot_e4m3_k4 (
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] c,
    output logic [31:0] res
);
    lamp_tc_dot #(.K(4), .AE(4), .AM(3), .ABIAS(7), .ASPECIAL(0)) u (.*);
endmodule
