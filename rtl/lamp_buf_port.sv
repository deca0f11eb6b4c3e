// rtl/lamp_buf_port.sv — the on-chip buffer's port: LANES 64-bit words per clock (8 x LANES bytes per clock,
// accelerator.memory.buffer_bytes_per_cycle) between the buffer's SRAM banks and the lanes that read it
// (operand and register loads) or write it (fills), the logic the timed model's buffer port stands for.
//
// The banks are word-interleaved over LANES columns: word address a lies in column a mod LANES at row
// a / LANES; a column is COLBANKS banks of 2^BANKROWS 64-bit words (rtl/synth: the buffer's
// srambank_256x4x64, 1,024 words), the row's top bits picking the bank. One access moves the LANES
// consecutive words from any word address `base`, so every column takes part once: column c serves word
// base + ((c - base) mod LANES), at row base / LANES, plus one where c < base mod LANES. The read words are
// selected from each column's banks and rotated from columns to lanes, the write words rotated from
// lanes to columns: two barrel rotators of log2(LANES) levels, per column a row incrementer's select and
// a COLBANKS:1 word select. Combinational: the banks' registers bound the path.
module lamp_buf_port #(
    parameter int LANES = 16,                      // a power of two
    parameter int COLBANKS = 2,                    // banks per column (a power of two)
    parameter int BANKROWS = 10,                   // log2 of a bank's words
    localparam int LB = $clog2(LANES),
    localparam int KB = $clog2(COLBANKS),
    localparam int ROWBITS = BANKROWS + KB,        // a column's row address
    localparam int AW = ROWBITS + LB               // a word address
) (
    input  logic [AW-1:0]                     base,        // the first word's address
    input  logic                              we,
    input  logic [64*LANES-1:0]               wdata,       // lane i at [64 i]: word base + i
    input  logic [64*LANES*COLBANKS-1:0]      bank_rdata,  // column c, bank k at [64 (c COLBANKS + k)]
    output logic [64*LANES-1:0]               rdata,       // lane i: word base + i
    output logic [ROWBITS*LANES-1:0]          col_row,     // column c's row at [ROWBITS c]
    output logic [LANES-1:0]                  col_we,
    output logic [64*LANES-1:0]               col_wdata    // column c's word at [64 c]
);
    logic [LB-1:0] off;
    logic [ROWBITS-1:0] row0, row1;
    logic [64*LANES-1:0] colword, r, w;
    always_comb begin
        off = LB'(base);
        row0 = base[AW-1 -: ROWBITS];
        row1 = row0 + 1'b1;
        // per column: its row (the next one below the offset) and its word from the bank the row selects
        for (int c = 0; c < LANES; c++) begin
            logic [ROWBITS-1:0] row;
            row = (LB'(c) < off) ? row1 : row0;
            col_row[ROWBITS*c +: ROWBITS] = row;
            if (KB == 0) colword[64*c +: 64] = bank_rdata[64*c +: 64];
            else colword[64*c +: 64] = bank_rdata[64*(c*COLBANKS + 32'(row) / (1 << BANKROWS)) +: 64];
        end
        // read: lane i takes column (i + off) mod LANES, a rotation right by off words
        r = colword;
        for (int s = 0; s < LB; s++)
            if (off[s]) r = (r >> (64 * (1 << s))) | (r << (64 * (LANES - (1 << s))));
        rdata = r;
        // write: column c takes lane (c - off) mod LANES, a rotation left by off words
        w = wdata;
        for (int s = 0; s < LB; s++)
            if (off[s]) w = (w << (64 * (1 << s))) | (w >> (64 * (LANES - (1 << s))));
        col_wdata = w;
        col_we = {LANES{we}};
    end
endmodule

// The port widths the study's `port` axis takes, each holding the preset buffer's 228 KiB in 256 KiB of
// 8 KiB banks (32 banks: 4, 2, 1 per column; 512 B/clock needs 64 banks, 512 KiB, or half-size banks).
module lamp_buf_port_b64 (
    input  logic [14:0] base, input logic we, input logic [511:0] wdata, input logic [2047:0] bank_rdata,
    output logic [511:0] rdata, output logic [95:0] col_row, output logic [7:0] col_we, output logic [511:0] col_wdata
);
    lamp_buf_port #(.LANES(8), .COLBANKS(4)) u (.*);
endmodule

module lamp_buf_port_b128 (
    input  logic [14:0] base, input logic we, input logic [1023:0] wdata, input logic [2047:0] bank_rdata,
    output logic [1023:0] rdata, output logic [175:0] col_row, output logic [15:0] col_we, output logic [1023:0] col_wdata
);
    lamp_buf_port #(.LANES(16), .COLBANKS(2)) u (.*);
endmodule

module lamp_buf_port_b256 (
    input  logic [14:0] base, input logic we, input logic [2047:0] wdata, input logic [2047:0] bank_rdata,
    output logic [2047:0] rdata, output logic [319:0] col_row, output logic [31:0] col_we, output logic [2047:0] col_wdata
);
    lamp_buf_port #(.LANES(32), .COLBANKS(1)) u (.*);
endmodule

module lamp_buf_port_b512 (
    input  logic [15:0] base, input logic we, input logic [4095:0] wdata, input logic [4095:0] bank_rdata,
    output logic [4095:0] rdata, output logic [639:0] col_row, output logic [63:0] col_we, output logic [4095:0] col_wdata
);
    lamp_buf_port #(.LANES(64), .COLBANKS(1)) u (.*);
endmodule
