// rtl/lamp_dot_lane.sv — the accumulating dot-product lane: one product per cycle into the
// accumulator register (lamp_acc_step), in the order the operands arrive (lsfp_dot: ascending k by
// default), and the count of steps that exceeded max finite (lsfp_events saturations / overflows).
// `clear` starts a dot product at +0; `en` takes the operands of one step.
module lamp_dot_lane #(
    parameter int AE = 8, parameter int AM = 7, parameter int ABIAS = 127,
    parameter int BE = 8, parameter int BM = 23, parameter int BBIAS = 127,
    parameter int CE = 4, parameter int CM = 3, parameter int CBIAS = 7,
    parameter int CSPECIAL = 0,
    parameter bit CSATURATE = 1,
    parameter bit CRTZ = 0,
    parameter int CNTW = 16,
    localparam int ANB = 1 + AE + AM,
    localparam int BNB = 1 + BE + BM,
    localparam int CNB = 1 + CE + CM
) (
    input  logic            clk,
    input  logic            clear,
    input  logic            en,
    input  logic [ANB-1:0]  a,
    input  logic [BNB-1:0]  b,
    output logic [CNB-1:0]  acc,
    output logic [CNTW-1:0] events
);
    logic [CNB-1:0] next;
    logic ovf;
    lamp_acc_step #(.AE(AE), .AM(AM), .ABIAS(ABIAS), .BE(BE), .BM(BM), .BBIAS(BBIAS), .CE(CE), .CM(CM), .CBIAS(CBIAS),
                    .CSPECIAL(CSPECIAL), .CSATURATE(CSATURATE), .CRTZ(CRTZ))
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
