// rtl/lamp_stage2.sv — stage 2 of the recompute scheduler: the exact block-LAMP subset selection
// (numerics.md D.2 step 7, hw/lamp lamp_knapsack.c lslamp_knapsack) for one warp and key tile.
//  lamp_f64_add_pos:  float64 a + b, RNE, for finite non-negative operands (the costs are
//                     sums of E (omega_hat - E) >= 0); the C model's double addition bit for bit.
//  lamp_subset_eval:  is subset `sub` feasible: for every query j with omega_hat_j > 0,
//                     sum_{theta in sub, ascending} xi[theta][j] <= lim_j, where lim_j = tau *
//                     omega_hat_j * omega_hat_j comes from the vector unit (one product per query
//                     and tile, not per subset). Absent members add 0, which is exact, so the
//                     chain over every theta gives the C model's ascending-theta sum.
//  lamp_stage2_select: walks the candidates' subsets one per cycle (sub <- (sub - 1) & cand, as
//                     the C model) and keeps the largest feasible one, ties to the
//                     lexicographically smallest theta list (tiebreak = lexicographic; the
//                     default worst_query rule's float64 division per query is not in this RTL).
module lamp_f64_add_pos (
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [63:0] a,                       // sign bits: 0 by contract, not read
    input  logic [63:0] b,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [63:0] s
);
    logic [62:0] larger, lesser;                 // non-negative: the sign bits are 0
    logic [10:0] eb, es;
    logic [52:0] mb, ms;
    logic [56:0] xb, xs, sum;
    logic [11:0] d, e;
    logic sticky, g, rs, up;
    logic [53:0] r;
    always_comb begin
        if (a[62:0] >= b[62:0]) begin larger = a[62:0]; lesser = b[62:0]; end else begin larger = b[62:0]; lesser = a[62:0]; end
        eb = larger[62:52] == '0 ? 11'd1 : larger[62:52];
        es = lesser[62:52] == '0 ? 11'd1 : lesser[62:52];
        mb = {larger[62:52] != '0, larger[51:0]};
        ms = {lesser[62:52] != '0, lesser[51:0]};
        d = {1'b0, eb} - {1'b0, es};
        xb = {1'b0, mb, 3'b000};
        sticky = 1'b0;
        if (d >= 12'd56) begin
            xs = 57'(ms != '0);
        end else begin
            xs = {1'b0, ms, 3'b000} >> d;
            sticky = (({1'b0, ms, 3'b000} & ((57'(1) << d) - 1'b1)) != '0);
            xs[0] = xs[0] | sticky;
        end
        sum = xb + xs;
        e = {1'b0, eb};
        if (sum[56]) begin                          // carry: one place right, the dropped bit sticky
            sum = {1'b0, sum[56:2], sum[1] | sum[0]};
            e = e + 1'b1;
        end
        g = sum[2]; rs = sum[1] | sum[0];
        up = g && (rs || sum[3]);
        r = {1'b0, sum[55:3]} + 54'(up);
        if (r[53]) begin r = r >> 1; e = e + 1'b1; end
        if (e >= 12'd2047) s = 64'h7FF0_0000_0000_0000;                  // overflow: +inf
        else if (!r[52]) s = {12'h000, r[51:0]};                             // subnormal (larger was too)
        else s = {1'b0, e[10:0], r[51:0]};
    end
endmodule

module lamp_subset_eval #(
    parameter int N_K = 4, parameter int B_Q = 32
) (
    input  logic [N_K-1:0]        sub,
    input  logic [N_K*B_Q*64-1:0] xi,        // xi[theta][j] at (theta * B_Q + j) * 64
    input  logic [B_Q*64-1:0]     lim,       // tau * omega_hat_j^2
    input  logic [B_Q-1:0]        act,       // omega_hat_j > 0
    output logic                  feasible
);
    logic [B_Q-1:0] ok;
    generate
        for (genvar j = 0; j < B_Q; j++) begin : g_q
            logic [63:0] chain [N_K+1] /* verilator split_var */;
            assign chain[0] = 64'h0;
            for (genvar th = 0; th < N_K; th++) begin : g_t
                lamp_f64_add_pos add (.a(chain[th]), .b(sub[th] ? xi[(th*B_Q+j)*64 +: 64] : 64'h0), .s(chain[th+1]));
            end
            assign ok[j] = !act[j] || chain[N_K] <= lim[j*64 +: 64];   // both non-negative: bit order is value order
        end
    endgenerate
    assign feasible = &ok;
endmodule

module lamp_stage2_select #(
    parameter int N_K = 4, parameter int B_Q = 32,
    localparam int CW = $clog2(N_K + 1)
) (
    input  logic                  clk,
    input  logic                  start,     // latch cand, begin the walk
    input  logic [N_K-1:0]        cand,      // candidates: active sub-blocks not made HP by stage 1
    input  logic [N_K*B_Q*64-1:0] xi,        // held for the walk
    input  logic [B_Q*64-1:0]     lim,
    input  logic [B_Q-1:0]        act,
    output logic                  busy,
    output logic [N_K-1:0]        keep,      // the chosen low-precision set G (valid when !busy)
    output logic [15:0]           cycles     // subsets evaluated in the last walk
);
    logic [N_K-1:0] c, sub, best;
    logic [CW-1:0] best_size, size;
    logic have, feasible, take, lexless;
    logic [N_K-1:0] diff, low;
    lamp_subset_eval #(.N_K(N_K), .B_Q(B_Q)) ev (.sub(sub), .xi(xi), .lim(lim), .act(act), .feasible(feasible));
    always_comb begin
        size = '0;
        for (int t = 0; t < N_K; t++) size = size + CW'(sub[t]);
        diff = sub ^ best;
        low = diff & (~diff + 1'b1);
        lexless = (sub & low) != '0;
        take = feasible && (!have || size > best_size || (size == best_size && lexless));
    end
    always_ff @(posedge clk) begin
        if (start) begin
            c <= cand; sub <= cand; busy <= 1'b1; have <= 1'b0; best <= '0; best_size <= '0; cycles <= '0;
        end else if (busy) begin
            cycles <= cycles + 1'b1;
            if (take) begin best <= sub; best_size <= size; have <= 1'b1; end
            if (sub == '0) busy <= 1'b0;
            sub <= (sub - 1'b1) & c;
        end
    end
    assign keep = best;
endmodule
