// rtl/lamp_stage2_lane.sv — one query lane of the stage-2 walk (rtl/lamp_stage2.sv, lamp_subset_eval with
// B_Q = 1): the subset's chain of N_K = 4 float64 cost adds in ascending theta and the budget compare,
// combinational, as scripts/rtl_energy.py drives one subset per action. The walk's 32 lanes are 32 copies;
// the walk's selection and registers (lamp_stage2_select) are one per walk, not per lane.
module lamp_stage2_lane_nk4 (
    input  logic [3:0]   sub,
    input  logic [255:0] xi,       // xi[theta] at theta * 64
    input  logic [63:0]  lim,      // tau * omega_hat^2
    input  logic         act,      // omega_hat > 0
    output logic         feasible
);
    lamp_subset_eval #(.N_K(4), .B_Q(1)) u (.*);
endmodule
