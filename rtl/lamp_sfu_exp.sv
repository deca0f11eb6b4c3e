// rtl/lamp_sfu_exp.sv — the SFU's HP exponential lane (numerics.md D.2 step 5, HP sub-block): the code
// s of the HP shift (ue5m11-S by default, lamp_shift_hp's index) to exp(-s) correctly rounded (RNE)
// into the HP exponential format (ue5m11-X: finite, saturating, subnormals), bit for bit the engine's
// table (hw/lamp lamp_cfg.c hp_exp[] = hw/fp lsfp_exp_neg). An arithmetic exp2, not the 64K table:
//   t = s * log2(e)   the shift's significand times a KL-bit constant, shifted by its exponent and
//                     truncated to F fraction bits: t = n + f, n integer, f in [0, 1);
//   2^-f              2^-fh from a 64-entry table (lamp_sfu_exp2_rom, generated from the C side)
//                     times 2^-fl = 1 - x (1 - x (1/2 - x/6)), x = fl ln2 < 2^-6.5 (Horner, each
//                     stage truncated to the bits its term still needs);
//   2^-n              the result's exponent: normalise the product (in (1/2, 1]) and round RNE
//                     onto the output grid, subnormals shifted further, underflow to 0.
// Shortcuts by comparison only: s < 2^-(XM+2) gives 1.0 (exp(-s) is within half an ulp below 1),
// s >= 2^(ZERO_E - SBIAS) gives 0 (below half the smallest subnormal). NaN codes raise `nan` (the
// code is then the format's top code, as lsfp_nan_code). The widths below are the defaults'
// (the rtl_sfu test checks every one of the 2^16 codes): the exact exp(-s) of every code lies at
// least 2^-27.1 (relative) from a rounding midpoint, and each width is >= 3 bits wider than the
// widest at which, narrowed alone, some code rounds wrongly (docs/rtl.md). Other formats need
// their widths re-checked.
// Combinational, like the other lanes.
module lamp_sfu_exp #(
    parameter int SE = 5, parameter int SM = 11, parameter int SBIAS = 22,   // shift format (unsigned)
    parameter int SSPECIAL = 0,                                             // 0 OCP, 1 IEEE, 2 finite
    parameter int XE = 5, parameter int XM = 11, parameter int XBIAS = 31,   // exponential (finite, saturating)
    parameter int KL = 32,         // fraction bits of log2(e)
    parameter int F = 29,          // fraction bits of t
    parameter int KLN = 28,        // fraction bits of ln(2)
    parameter int X = 29,          // fraction bits of x and of the polynomial
    parameter int V = 23,          // fraction bits of 1 - x (1/2 - x/6)
    parameter int U = 14,          // fraction bits of 1/2 - x/6
    parameter int WT = 29,         // fraction bits of the table entries and of the product
    localparam int SNB = SE + SM,
    localparam int XNB = XE + XM
) (
    input  logic [SNB-1:0] s_code,
    output logic [XNB-1:0] e_code,
    output logic           nan
);
    localparam int H = 6;                                   // table index bits (lamp_sfu_exp2_rom)
    localparam int XEMIN = 1 - XBIAS;
    localparam int ONE_E = SBIAS - XM - 2;                  // exponent fields below: exp(-s) rounds to 1
    // exp(-s) < 2^(XEMIN - XM - 1) once s > (XM + 1 - XEMIN) ln 2: the first binade of s past that bound
    localparam int ZLIM = (XM + 1 - XEMIN) * 6932;          // x 10^4, ln 2 rounded up
    localparam int ZERO_E = SBIAS + $clog2((ZLIM + 9999) / 10000);
    localparam int NW = ZERO_E - SBIAS + 1;                 // bits of n (t < 2^(ZERO_E - SBIAS) log2 e)
    localparam logic [63:0] LOG2E_Q62 = 64'h5C551D94AE0BF85E;   // log2(e) 2^62, rounded
    localparam logic [63:0] LN2_Q64 = 64'hB17217F7D1CF79AC;     // ln(2) 2^64, rounded
    localparam logic [KL:0] L = (KL+1)'((LOG2E_Q62 + (64'd1 << (61 - KL))) >> (62 - KL));
    localparam logic [KLN-1:0] LN2 = KLN'((LN2_Q64 + (64'd1 << (63 - KLN))) >> (64 - KLN));
    localparam int K6 = U + 3;
    localparam logic [K6-1:0] C6 = K6'(((64'd1 << K6) + 3) / 6);   // 1/6, rounded
    localparam int FL = F - H;
    localparam int RW = WT + 1;                              // the product's bits (value up to 1.0)
    localparam int SW = RW + XM + 2;                         // rounding shift range (beyond it: 0)

    logic [SE-1:0] ef;
    logic [SM-1:0] ff;
    logic [SM+KL+1:0] prod;                                  // significand x log2(e)
    logic [F+NW-1:0] t;
    logic [NW-1:0] n;
    logic [H-1:0] fh;
    logic [FL-1:0] fl;
    int ei;                                                  // the exponent field as an integer
    always_comb begin
        ef = s_code[SM +: SE];
        ei = 0;
        ei[SE-1:0] = ef;
        ff = s_code[SM-1:0];
        nan = (SSPECIAL == 0 && &ef && &ff) || (SSPECIAL == 1 && &ef && |ff);
        prod = (SM+KL+2)'({1'b1, ff}) * (SM+KL+2)'(L);
        // s = {1, ff} 2^(ef - SBIAS - SM): t's F-bit fixed point is prod >> (KL + SBIAS + SM - ef - F)
        t = (F+NW)'(prod >> (KL + SBIAS + SM - F - ei));
        n = t[F +: NW];
        fh = t[F-1 -: H];
        fl = t[FL-1:0];
    end

    logic [62:0] rom;
    lamp_sfu_exp2_rom tab (.idx(fh), .val(rom));

    logic [X-H-1:0] x;                                       // fl ln 2 (< 2^-(H + 0.5)), X fraction bits
    logic [U-1:0] u;
    logic [V:0] v;
    logic [X:0] p;
    logic [WT:0] tv;
    logic [RW-1:0] r;
    always_comb begin
        x = (X-H)'(((FL+KLN)'(fl) * (FL+KLN)'(LN2)) >> (F + KLN - X));
        u = U'((1 << (U - 1)) - (((U+K6)'(x[X-H-1:X-U]) * (U+K6)'(C6)) >> K6));
        v = (V+1)'((1 << V) - (((V+U)'(x[X-H-1:X-V]) * (V+U)'(u)) >> U));
        p = (X+1)'((1 << X) - (((X+V+1)'(x) * (X+V+1)'(v)) >> V));
        tv = (WT+1)'((rom + (63'd1 << (61 - WT))) >> (62 - WT));
        r = RW'(((2*WT+2)'(tv) * (2*WT+2)'(p)) >> X);
    end

    // exp(-s) ~ r 2^(-WT - n), r in (2^(WT-1), 2^WT]: binade -1 - n (or -n when r is 1.0); below
    // XEMIN the quantum stays 2^(XEMIN - XM) and d = n + XEMIN + 1 more bits fall under it.
    logic top, up;
    int d, ks, k, bin, ti;
    logic [SW-1:0] rr, rem, half;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [SW-1:0] sig;                                      // the rounded significand fits XM + 1 bits
    /* verilator lint_on UNUSEDSIGNAL */
    logic [XNB:0] code;
    always_comb begin
        top = r[WT];
        ti = 0;
        ti[0] = top;
        d = 0;
        d[NW-1:0] = n;
        d = d + XEMIN + 1;
        ks = d > ti ? d : ti;
        k = WT - XM - 1 + ks;
        bin = d < ti ? ti - d : 0;
        rr = SW'(r);
        sig = '0; rem = rr; half = '0; up = 1'b0;
        if (k < SW) begin
            sig = rr >> k;
            rem = rr & ((SW'(1) << k) - 1'b1);
            half = SW'(1) << (k - 1);
            up = rem > half || (rem == half && sig[0]);
        end
        code = (XNB+1)'(bin << XM) + (XNB+1)'(sig[XM:0]) + (XNB+1)'(up);
        if (code > (XNB+1)'({XNB{1'b1}})) code = (XNB+1)'({XNB{1'b1}});   // saturate (FINITE)
        if (nan) e_code = {XNB{1'b1}};
        else if (ei < ONE_E) e_code = XNB'(XBIAS << XM);             // 1.0
        else if (ei >= ZERO_E) e_code = '0;
        else e_code = code[XNB-1:0];
    end
endmodule
