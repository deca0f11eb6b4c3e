#!/usr/bin/env python3
"""scripts/rtl_energy.py on a netlist small enough to price by hand (docs/rtl.md, "Energy from switching
activity", the hand check): a -> INVx1 -> n1 -> INVx1 -> n2 -> NAND2xp33.A, b -> NAND2xp33.B, y = output
(a flip-flop's D pin as its load). Stimulus (a, b): (0, 1) initial, then a rises, a falls, b falls. The
expected energy is computed here from the liberty's numbers, copied by hand (rows at input slew 10 ps,
VDD and VSS tables summed, linear in the load between the first two load indices), not from the script's
parser. Argument: a scratch directory."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
V2 = 0.5 * 0.7 * 0.7          # 0.5 V^2, fJ per fF

# pin capacitances (fF): rise, fall
INV_A = (0.619928, 0.619647)
NAND_A = (0.336683, 0.328332)
NAND_B = (0.346637, 0.346682)
DFF_D = (0.558822, 0.555706)


def lin(x0, y0, x1, y1, x):
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def inv_arc(load, rising):
    """INVx1 A->Y internal energy (fJ) at slew 10 ps: rise_power/fall_power rows 2, loads 0.72 and 1.44 fF."""
    if rising:
        e0, e1 = 0.116237 + -0.032784, 0.119238 + -0.0289761
    else:
        e0, e1 = -0.0264274 + 0.122343, -0.0232367 + 0.125537
    return lin(0.72, e0, 1.44, e1, load)


def nand_a_arc(load, rising):
    """NAND2xp33 A->Y internal energy (fJ) at slew 10 ps, loads 0.36 and 0.72 fF."""
    if rising:
        e0, e1 = 0.091287 + -0.0235305, 0.0920299 + -0.0224121
    else:
        e0, e1 = -0.00725347 + 0.10946, -0.00663149 + 0.110395
    return lin(0.36, e0, 0.72, e1, load)


NAND_B_FALL_IDLE = 0.0294518 + -0.0123466   # B falls while Y stays 1 (when "!A * Y"), slew 10 ps

NETLIST = """module hand(a, b, y);
  input a;
  input b;
  output y;
  wire n1;
  wire n2;
  INVx1_ASAP7_75t_R i1 (.A(a), .Y(n1));
  INVx1_ASAP7_75t_R i2 (.A(n1), .Y(n2));
  NAND2xp33_ASAP7_75t_R g (.A(n2), .B(b), .Y(y));
endmodule
"""


def expected():
    mean = lambda c: (c[0] + c[1]) / 2   # noqa: E731  the arc tables are read at the net's mean capacitance
    l1, l2, l3 = mean(INV_A), mean(NAND_A), mean(DFF_D)
    # a rises: a up, n1 down, n2 up, y down; a falls: the reverse; b falls: b down, y stays (n2 = 0)
    sw = V2 * (INV_A[0] + INV_A[1] + NAND_A[0] + DFF_D[1]) + V2 * (INV_A[1] + INV_A[0] + NAND_A[1] + DFF_D[0]) + \
        V2 * NAND_B[1]
    internal = (inv_arc(l1, False) + inv_arc(l2, True) + nand_a_arc(l3, False)) + \
        (inv_arc(l1, True) + inv_arc(l2, False) + nand_a_arc(l3, True)) + NAND_B_FALL_IDLE
    return sw, internal


def main():
    for tool in ("yosys", "verilator"):
        if not shutil.which(tool):
            print("skipped: %s not found" % tool)
            return 77
    pdk = os.environ.get("LAMPSIM_PDK") or os.path.join(ROOT, "..", "shared", "pdk", "asap7")
    if not os.path.isfile(os.path.join(pdk, "asap7_rvt_tt.lib.gz")):
        print("skipped: no ASAP7 library at %s (set LAMPSIM_PDK)" % pdk)
        return 77
    tmp = sys.argv[1] if len(sys.argv) > 1 else "hand_tmp"
    os.makedirs(tmp, exist_ok=True)
    net, stim = os.path.join(tmp, "hand.v"), os.path.join(tmp, "stim.txt")
    with open(net, "w") as f:
        f.write(NETLIST)
    with open(stim, "w") as f:
        f.write("0 0 1\n0 1 1\n0 0 1\n0 0 0\n")    # flag, a, b
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "rtl_energy.py"), "--netlist", net,
                        "--stimulus", stim, "--work", os.path.join(tmp, "work")], capture_output=True, text=True)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        print("FAIL: rtl_energy.py exited %d" % r.returncode)
        return 1
    got = dict(zip(r.stdout.split()[::2], (float(x) for x in r.stdout.split()[1::2])))
    sw, internal = expected()
    print("hand: switching %.6f fJ, internal %.6f fJ over 3 steps" % (sw, internal))
    fails = 0
    for key, want in (("steps", 3), ("switching_fj", sw), ("internal_fj", internal)):
        if abs(got.get(key, -1) - want) > 2e-6 * max(1.0, abs(want)):
            print("FAIL: %s %s, by hand %.6f" % (key, got.get(key), want))
            fails += 1
    print("%d passed, %d failed" % (3 - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
