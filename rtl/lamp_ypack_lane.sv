// rtl/lamp_ypack_lane.sv
// One packed register's lane: merge a code into its byte (LP) or half (HP), and extract one. The
// datapath of a packed register port (what rtl_synth.sh synthesizes; the storage is the
// register file's).
module lamp_ypack_lane (
    input  logic [31:0] word,
    input  logic [1:0]  lane,
    input  logic        hp,
    input  logic [15:0] wdata,
    output logic [31:0] merged,
    output logic [15:0] extracted
);
    always_comb begin
        merged = word;
        if (hp) merged[16 * lane[0] +: 16] = wdata;
        else merged[8 * lane +: 8] = wdata[7:0];
        extracted = hp ? word[16 * lane[0] +: 16] : {8'h00, word[8 * lane +: 8]};
    end
endmodule
