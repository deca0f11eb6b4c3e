// rtl/lamp_lut_exp.sv — the LP exponential of one logit (numerics.md D.2 step 5, hw/lut):
// shift s = mu_lp - y of two accumulator-format values (exact: both on the accumulator's grid),
// rounded to the shift format (the LUT's index format, ue5m3-S by default, RNE, saturating), then
// the table lookup (lamp_lut_rom, generated from hw/fp's table by rtl/gen at build time).
// The C model's contract (lslamp_exps, lsfp_exp_lut_apply): masked logit -> 0; NaN logit or
// running max -> `nan`; a negative shift (a logit above the narrowed running max, G-15) is not a
// table entry: `neg` tells the lane to take the off-LUT path, as lsfp_exp_lut_apply's caller does.
// Combinational; USE_ROM = 0 leaves the table out and gives only the index (the HP variant, whose
// 64K-entry table is the SFU's).
module lamp_lut_exp #(
    parameter int AE = 4, parameter int AM = 3, parameter int ABIAS = 7,      // accumulator (signed, OCP)
    parameter int SE = 5, parameter int SM = 3, parameter int SBIAS = 22,     // shift format (unsigned)
    parameter int SSPECIAL = 0,
    parameter int XNB = 8,                                                    // exponential code bits
    parameter bit USE_ROM = 1,
    localparam int ANB = 1 + AE + AM,
    localparam int SNB = SE + SM
) (
    input  logic [ANB-1:0] mu_code,     // narrowed running max mu_lp (trunc_e4m3(mu_hat))
    input  logic [ANB-1:0] y_code,      // LP logit
    input  logic           y_masked,    // the logit is -inf (causal or padding mask)
    output logic [SNB-1:0] idx,         // the shift's code: the table index
    output logic [XNB-1:0] e_code,      // exponential code (0 when masked)
    output logic           nan,
    output logic           neg
);
    localparam int MW = (1 << AE) - 1 + AM;
    localparam int AEMIN = 1 - ABIAS;
    logic smu, sy, nmu, ny;
    /* verilator lint_off UNUSEDSIGNAL */
    logic imu, iy;                      // an OCP accumulator has no infinity
    /* verilator lint_on UNUSEDSIGNAL */
    logic [MW-1:0] mmu, my;
    lamp_decode #(.E(AE), .M(AM), .SIGNED(1), .SPECIAL(0)) dmu (.code(mu_code), .sign(smu), .mag(mmu), .nan(nmu), .inf(imu));
    lamp_decode #(.E(AE), .M(AM), .SIGNED(1), .SPECIAL(0)) dy (.code(y_code), .sign(sy), .mag(my), .nan(ny), .inf(iy));

    logic signed [MW+1:0] vmu, vy, s;
    logic [MW:0] smag;
    always_comb begin
        vmu = smu ? -$signed({2'b0, mmu}) : $signed({2'b0, mmu});
        vy = sy ? -$signed({2'b0, my}) : $signed({2'b0, my});
        s = vmu - vy;
        smag = s[MW:0];
    end

    logic [SNB-1:0] code;
    logic ovf_unused;
    lamp_round #(.W(MW + 1), .LSB_E(AEMIN - AM), .E(SE), .M(SM), .BIAS(SBIAS), .SIGNED(0), .SPECIAL(SSPECIAL),
                 .SATURATE(1), .RTZ(0), .SUBNORM(1))
        rnd (.sign(1'b0), .mag(smag), .huge(1'b0), .inf(1'b0), .nan(1'b0), .code(code), .ovf(ovf_unused));

    logic [XNB-1:0] rom_code;
    generate
        if (USE_ROM) begin : g_rom
            lamp_lut_rom rom (.idx(code), .code(rom_code));
        end else begin : g_norom
            assign rom_code = '0;
        end
    endgenerate

    always_comb begin
        nan = !y_masked && (nmu || ny);
        neg = !y_masked && !nan && s < 0;
        idx = code;
        e_code = (y_masked || nan || neg) ? '0 : rom_code;
    end
endmodule
