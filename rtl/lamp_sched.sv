// rtl/lamp_sched.sv — the recompute scheduler's decisions for one warp and key tile (hw/sched,
// numerics.md D.2 steps 2-4; hw/lamp lamp_steps.c):
//  lamp_sched_sort:   threats T[theta] = max_j (m[theta][j] - mu_j) over queries with a finite
//                     sub-block maximum (+inf where mu_j = -inf, -inf if none), then the
//                     sub-blocks sorted by T descending, stable on theta (lslamp_threats,
//                     lslamp_sort_threats). m is on the LP grid, mu on the HP grid: the difference
//                     is exact in fixed point (LSB = the HP format's smallest quantum), as it is in
//                     the C model's float64. The sort is an odd-even transposition network
//                     (N_K layers) on the key (T, -theta).
//  lamp_stage1_test:  the safety margin of one sub-block (lslamp_stage1_pass): for every query with
//                     a finite maximum, mu_hat_j > m_j + |mu_hat_j| * delta, strict, with
//                     delta = 2^-DELTA_SHIFT (exact in fixed point, as in float64).
// Masked (-inf) values travel as flags beside the codes. Combinational.
/* verilator lint_off UNUSEDSIGNAL */  // OCP formats: the decoders' infinity outputs stay unused
module lamp_sched_sort #(
    parameter int N_K = 4, parameter int B_Q = 32,
    parameter int LE = 4, parameter int LM = 3, parameter int LBIAS = 7,     // LP (sub-block maxima)
    parameter int HE = 4, parameter int HM = 11, parameter int HBIAS = 7,    // HP (running max)
    localparam int LNB = 1 + LE + LM, localparam int HNB = 1 + HE + HM,
    localparam int TW = N_K > 1 ? $clog2(N_K) : 1
) (
    input  logic [N_K*B_Q*LNB-1:0] m_code,     // m[theta][j] at (theta * B_Q + j) * LNB
    input  logic [N_K*B_Q-1:0]     m_ninf,     // m[theta][j] = -inf (every key masked)
    input  logic [B_Q*HNB-1:0]     mu_code,
    input  logic [B_Q-1:0]         mu_ninf,    // mu_j = -inf (the row's first tile)
    output logic [N_K*TW-1:0]      order       // order[k] = the k-th sub-block to test
);
    localparam int LMW = (1 << LE) - 1 + LM, HMW = (1 << HE) - 1 + HM;
    localparam int SH = (1 - HBIAS - HM) <= (1 - LBIAS - LM) ? (1 - LBIAS - LM) - (1 - HBIAS - HM) : 0;
    localparam int VW = (LMW + SH > HMW ? LMW + SH : HMW) + 2;             // signed difference bits
    localparam int KW = VW + 1;                                             // key: +-inf outside the values

    logic signed [KW-1:0] t [N_K];
    generate
        for (genvar th = 0; th < N_K; th++) begin : g_threat
            logic signed [KW-1:0] best;
            logic any, pinf;
            logic sm [B_Q], nm [B_Q], im [B_Q], sh_ [B_Q], nh [B_Q], ih [B_Q];
            logic [LMW-1:0] mm [B_Q];
            logic [HMW-1:0] mh [B_Q];
            for (genvar j = 0; j < B_Q; j++) begin : g_q
                lamp_decode #(.E(LE), .M(LM), .SIGNED(1), .SPECIAL(0)) dm (.code(m_code[(th*B_Q+j)*LNB +: LNB]), .sign(sm[j]), .mag(mm[j]), .nan(nm[j]), .inf(im[j]));
                lamp_decode #(.E(HE), .M(HM), .SIGNED(1), .SPECIAL(0)) dh (.code(mu_code[j*HNB +: HNB]), .sign(sh_[j]), .mag(mh[j]), .nan(nh[j]), .inf(ih[j]));
            end
            always_comb begin
                logic signed [VW-1:0] vm, vh, v;
                best = '0; any = 1'b0; pinf = 1'b0;
                for (int j = 0; j < B_Q; j++) begin
                    vm = VW'(mm[j]) << SH; if (sm[j]) vm = -vm;
                    vh = VW'(mh[j]); if (sh_[j]) vh = -vh;
                    v = vm - vh;
                    if (!m_ninf[th*B_Q+j] && !nm[j]) begin           // finite maximum (NaN never compares)
                        if (mu_ninf[j]) pinf = 1'b1;
                        else if (!nh[j] && (!any || KW'(v) > best)) begin best = KW'(v); any = 1'b1; end
                    end
                end
                t[th] = pinf ? {1'b0, {(KW-1){1'b1}}} : any ? best : {1'b1, {(KW-1){1'b0}}};
            end
        end
    endgenerate

    // odd-even transposition sort, descending on T, ties in theta order
    logic signed [KW-1:0] kt [N_K+1][N_K];
    logic [TW-1:0] ki [N_K+1][N_K];
    always_comb begin
        for (int i = 0; i < N_K; i++) begin kt[0][i] = t[i]; ki[0][i] = TW'(i); end
        for (int l = 0; l < N_K; l++) begin
            for (int i = 0; i < N_K; i++) begin kt[l+1][i] = kt[l][i]; ki[l+1][i] = ki[l][i]; end
            for (int i = l % 2; i + 1 < N_K; i += 2)
                if (kt[l][i+1] > kt[l][i] || (kt[l][i+1] == kt[l][i] && ki[l][i+1] < ki[l][i])) begin
                    kt[l+1][i] = kt[l][i+1]; ki[l+1][i] = ki[l][i+1];
                    kt[l+1][i+1] = kt[l][i]; ki[l+1][i+1] = ki[l][i];
                end
        end
        for (int i = 0; i < N_K; i++) order[i*TW +: TW] = ki[N_K][i];
    end
endmodule

module lamp_stage1_test #(
    parameter int B_Q = 32, parameter int DELTA_SHIFT = 8,
    parameter int LE = 4, parameter int LM = 3, parameter int LBIAS = 7,
    parameter int HE = 4, parameter int HM = 11, parameter int HBIAS = 7,
    localparam int LNB = 1 + LE + LM, localparam int HNB = 1 + HE + HM
) (
    input  logic [B_Q*LNB-1:0] m_code,        // the sub-block's maxima m[theta][j]
    input  logic [B_Q-1:0]     m_ninf,
    input  logic [B_Q*HNB-1:0] muh_code,      // mu_hat_j
    input  logic [B_Q-1:0]     muh_ninf,
    output logic               pass           // the sub-block stays LP
);
    localparam int LMW = (1 << LE) - 1 + LM, HMW = (1 << HE) - 1 + HM;
    localparam int SH = (1 - LBIAS - LM) - (1 - HBIAS - HM);               // LP quantum over HP quantum (>= 0)
    localparam int VW = (LMW + SH > HMW ? LMW + SH : HMW) + DELTA_SHIFT + 3;
    logic sm [B_Q], nm [B_Q], im [B_Q], sh_ [B_Q], nh [B_Q], ih [B_Q];
    logic [LMW-1:0] mm [B_Q];
    logic [HMW-1:0] mh [B_Q];
    generate
        for (genvar j = 0; j < B_Q; j++) begin : g_q
            lamp_decode #(.E(LE), .M(LM), .SIGNED(1), .SPECIAL(0)) dm (.code(m_code[j*LNB +: LNB]), .sign(sm[j]), .mag(mm[j]), .nan(nm[j]), .inf(im[j]));
            lamp_decode #(.E(HE), .M(HM), .SIGNED(1), .SPECIAL(0)) dh (.code(muh_code[j*HNB +: HNB]), .sign(sh_[j]), .mag(mh[j]), .nan(nh[j]), .inf(ih[j]));
        end
    endgenerate
    always_comb begin
        logic signed [VW-1:0] vm, vh, margin;
        pass = 1'b1;
        for (int j = 0; j < B_Q; j++) begin
            // units of 2^(HP quantum exponent - DELTA_SHIFT): mu_hat - m > |mu_hat| * 2^-DELTA_SHIFT
            vm = VW'(mm[j]) << (SH + DELTA_SHIFT); if (sm[j]) vm = -vm;
            vh = VW'(mh[j]) << DELTA_SHIFT; if (sh_[j]) vh = -vh;
            margin = VW'(mh[j]);
            if (!m_ninf[j] && !nm[j])
                if (muh_ninf[j] || nh[j] || !(vh - vm > margin)) pass = 1'b0;
        end
    end
endmodule
