// rtl/lamp_round.sv — round a fixed-point magnitude onto a minifloat grid (numerics.md A.1).
//
// The hardware form of lsfp_round / lsfp_encode (hw/fp/fp.c) for one format: quantum
// q = 2^(max(floor(log2 x), emin) - M), RNE or RTZ to a multiple of q, then the overflow rule.
// The input is an exact magnitude, or one whose bits below the rounding point carry a jammed
// sticky bit at least two places below the smallest quantum (the callers guarantee it), which
// rounds exactly as the exact value. Codes are monotone in the magnitude, so the code is
// ((max(e, emin) - emin) << M) + n, n the rounded significand (hidden bit included): a carry out
// of n moves to the next binade by itself (hw/lamp lamp_steps.c hp_code uses the same identity).
module lamp_round #(
    parameter int W = 24,          // input magnitude bits
    parameter int LSB_E = -11,     // exponent of the input's least significant bit
    parameter int E = 4,           // target exponent bits
    parameter int M = 3,           // target fraction bits
    parameter int BIAS = 7,
    parameter bit SIGNED = 1,
    parameter int SPECIAL = 0,     // 0 OCP (all-ones magnitude NaN), 1 IEEE (top exponent Inf/NaN), 2 FINITE
    parameter bit SATURATE = 1,    // overflow clamps to max finite (FINITE formats always do)
    parameter bit RTZ = 0,         // 0 round to nearest even, 1 toward zero
    parameter bit SUBNORM = 1,     // 0: results below min normal flush to zero
    localparam int NB = (SIGNED ? 1 : 0) + E + M
) (
    input  logic          sign,
    input  logic [W-1:0]  mag,
    input  logic          huge,    // finite, far above max finite: overflows whatever the rest
    input  logic          inf,     // exactly infinite
    input  logic          nan,
    output logic [NB-1:0] code,
    output logic          ovf      // exceeded max finite (the C models' saturation / overflow event)
);
    localparam int EMIN = 1 - BIAS;
    localparam int FB = E + M;                          // magnitude field bits
    localparam logic [FB-1:0] ALLONES = {FB{1'b1}};
    localparam logic [FB-1:0] MAXMAG = SPECIAL == 0 ? ALLONES - 1'b1
                                     : SPECIAL == 1 ? {{(E-1){1'b1}}, 1'b0, {M{1'b1}}} : ALLONES;
    localparam logic [FB-1:0] INFMAG = {{E{1'b1}}, {M{1'b0}}};
    localparam int CW = 40;                             // code arithmetic width (no overflow of the sum)
    localparam bit SAT = SATURATE || SPECIAL == 2;

    // leading one
    int p;
    always_comb begin
        p = -1;
        for (int i = 0; i < W; i++) if (mag[i]) p = i;
    end

    logic [CW-1:0] cmag;                                // rounded magnitude code, unbounded
    logic [W-1:0] n, rem, half;
    int eq, k, bin;
    logic up;
    always_comb begin
        eq = (p + LSB_E > EMIN) ? p + LSB_E : EMIN;     // exponent of the binade (emin for subnormals)
        k = eq - M - LSB_E;                             // input bits below the quantum
        n = '0; rem = '0; half = '0; up = 1'b0;
        if (k <= 0) begin
            n = mag << (-k);                            // exact: the input is on the grid
        end else begin
            n = mag >> k;
            rem = mag & ((W'(1) << k) - 1'b1);
            half = W'(1) << (k - 1);
            up = !RTZ && (rem > half || (rem == half && n[0]));
        end
        bin = eq - EMIN;
        cmag = (CW'(bin) << M) + CW'(n) + CW'(up);
        if (mag == '0) cmag = '0;
        if (!SUBNORM && cmag < (CW'(1) << M)) cmag = '0;
    end

    logic neg_bad;                                      // negative value in an unsigned format
    logic [FB-1:0] nanmag;
    always_comb begin
        nanmag = ALLONES;
        neg_bad = !SIGNED && sign && (mag != '0 || huge || inf);
        ovf = 1'b0;
        code = '0;
        if (nan || neg_bad) begin
            code = NB'(nanmag);
        end else if (inf && SPECIAL == 1 && !SATURATE) begin
            code = NB'({sign & SIGNED, INFMAG});
        end else if (huge || inf || cmag > CW'(MAXMAG)) begin
            ovf = 1'b1;
            if (SAT) code = NB'({sign & SIGNED, MAXMAG});
            else if (SPECIAL == 1) code = NB'({sign & SIGNED, INFMAG});
            else code = NB'(nanmag);
        end else begin
            code = NB'({sign & SIGNED, cmag[FB-1:0]});
        end
    end
endmodule
