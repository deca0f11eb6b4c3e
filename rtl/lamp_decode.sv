// rtl/lamp_decode.sv — a minifloat code as sign and fixed-point magnitude (lsfp_decode, hw/fp/fp.c).
// The magnitude's least significant bit is the smallest quantum 2^(emin - M), so every finite
// value is an integer: (E == 0 ? F : (2^M + F) << (E - 1)).
module lamp_decode #(
    parameter int E = 4,
    parameter int M = 3,
    parameter bit SIGNED = 1,
    parameter int SPECIAL = 0,     // 0 OCP, 1 IEEE, 2 FINITE (as lamp_round)
    localparam int NB = (SIGNED ? 1 : 0) + E + M,
    localparam int MW = (1 << E) - 1 + M               // magnitude bits (top exponent code included)
) (
    input  logic [NB-1:0] code,
    output logic          sign,
    output logic [MW-1:0] mag,
    output logic          nan,
    output logic          inf
);
    logic [E-1:0] ef;
    logic [M-1:0] ff;
    always_comb begin
        ef = code[M +: E];
        ff = code[M-1:0];
        sign = SIGNED ? code[NB-1] : 1'b0;
        nan = (SPECIAL == 0 && &ef && &ff) || (SPECIAL == 1 && &ef && |ff);
        inf = SPECIAL == 1 && &ef && !(|ff);
        if (ef == '0) mag = MW'(ff);
        else mag = MW'({1'b1, ff}) << (ef - 1'b1);
    end
endmodule
