#!/usr/bin/python3
"""Timing validation on small shapes (docs/validation.md), each check able to fail:

1. exp-to-matmul ratio: on one core, the SFU busy time of fa2_16bit over its tensor busy time is
   64/d on the H100 envelope (4096 FP16 FLOP/clk, 16 exp/clk; hardware.md 2.6) and 128/d at the
   FP8 rate, within 5 % (the lambda exponentials add 1/Bc); the LampAttention accelerator's LUT
   takes the 8-bit exponentials at 16/d of the tensor time and the SFU keeps only its HP share.
2. quarter-chip scaling (what scripts/validate_timing.py uses): 1/4 of the cores, heads and
   bandwidths gives the full chip's cycles within 2 % at the benchmark shape d 128, seq 512,
   batch 32 (2048 work items on 132 cores; measured -0.55 %; a smaller batch drifts further,
   -1.7 % at batch 8, -2.1 % at batch 4, because fewer items per core leave the start-up and
   the tail a larger share).
3. published points (quarter chip, timing only, as the reproduction script), from
   configs/validation/points.yaml: every validation series at seq 2048 and the single-point
   series (A100, the FP8 headline) agree
   with the published value within the 25 % target (points never used to choose a parameter);
   six calibration points (d 128) stay in the error band documented in docs/validation.md.
4. one issue slot for the tensor core and the MUFU (sfu.shares_tensor_issue, G7): the FA2 preset
   with separate units is > 10 % faster (the exponentials hide under the other block's MMAs);
   with the shared slot the slice size hardly matters (whole instructions within 5 % of 8-cycle
   slices), and with one resident context the slices cost nothing.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

lampsim, work = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("vt", os.path.join(ROOT, "scripts", "validate_timing.py"))
vt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vt)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
fails = []


def check(ok, text):
    print(f"[{'PASS' if ok else 'FAIL'}] {text}")
    if not ok:
        fails.append(text)


def run(name, cfg, sets):
    out = os.path.join(work, name)
    if os.path.exists(os.path.join(out, "report.json")):   # the same point asked twice
        return json.load(open(os.path.join(out, "report.json")))
    cmd = [lampsim, "run", os.path.join(ROOT, cfg)]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd + ["-o", out, "--quiet"], check=True)
    return json.load(open(os.path.join(out, "report.json")))


# 1. exp-to-matmul ratio
ratio = vt.exp_ratio(lampsim, work)
for r in ratio:
    d = r["d"]
    if r["case"] == "h100 fa2_16bit":
        check(abs(r["sfu_over_tensor"] / (64 / d) - 1) <= 0.05,
              f"H100 FP16 d {d}: SFU/tensor busy {r['sfu_over_tensor']:.4f} vs 64/d = {64 / d:.4f} (within 5%)")
    elif r["case"] == "h100 fa2_16bit at FP8 rate":
        check(abs(r["sfu_over_tensor"] / (128 / d) - 1) <= 0.05,
              f"H100 FP8 rate d {d}: SFU/tensor busy {r['sfu_over_tensor']:.4f} vs 128/d = {128 / d:.4f} (within 5%)")
    elif r["case"] == "lampattention pure_8bit":
        check(abs(r["lut_over_tensor"] / (16 / d) - 1) <= 0.05 and r["sfu_over_tensor"] <= 0.05 * 64 / d,
              f"LampAttention 8-bit d {d}: LUT/tensor {r['lut_over_tensor']:.4f} vs 16/d = {16 / d:.4f}, "
              f"SFU/tensor {r['sfu_over_tensor']:.4f} (lambda only, must be <= {0.05 * 64 / d:.4f})")
    elif r["case"] == "lampattention lamp tau 0.5":
        hp = r["hp_subblock_rate"]
        # SFU time = HP exps / 16 against tensor time (8-bit QK + P.V + 16-bit recompute):
        # bounded by the HP share of the 16-bit ratio 64/d x 2 (8-bit MACs are twice as fast)
        check(r["sfu_over_tensor"] <= 2 * 64 / d * hp * 1.1 + 0.05,
              f"LampAttention tau 0.5 d {d}: SFU/tensor {r['sfu_over_tensor']:.4f} with HP sub-block rate {hp:.3f} "
              f"(bound {2 * 64 / d * hp * 1.1 + 0.05:.4f})")

# 2. quarter-chip scaling at the benchmark shape: 2048 work items on 132 cores vs 512 on 33
base = ["workload.seq_q=512", "workload.seq_k=512", "workload.batch=32", "workload.causal=false"]
full = run("scale1", "configs/validation/fa2_h100_d128.yaml", base)
quarter = run("scale4", "configs/validation/fa2_h100_d128.yaml", base + [
    "workload.heads_q=4", "workload.heads_kv=4", "accelerator.cores=33",
    "accelerator.memory.bandwidth_gbps=837.5", "accelerator.memory.l2_bandwidth_gbps=3000",
    "accelerator.memory.l2_mib=12.5"])
dc = quarter["cycles"] / full["cycles"] - 1
check(abs(dc) <= 0.02, f"quarter chip: {quarter['cycles']} cycles vs full chip {full['cycles']} ({100 * dc:+.3f}%, within 2%)")

# 3. published points (quarter chip, timing only, as the reproduction script), two kinds:
#  a) agreement on validation points (configs/validation/points.yaml, role validation): every
#     validation series at seq 2048, plus the single-point series (the A100 point, the FP8
#     headline), must be within the 25 % target. The
#     points are chosen by that rule, not by their error; none of them chose a parameter.
#  b) regression bands on calibration points (d 128): the error documented in docs/validation.md
#     +- 8 points, so a model change that moves them either way is noticed.
def point(d, causal, seq, interleave=None, extra=(), impl="fa2", gpu="h100"):
    args = vt.point_args(impl, gpu, d, causal, seq, 4, interleave)
    sets = [args[i + 1] for i in range(1, len(args), 2)] + list(extra)
    tag = f"{impl}_{gpu}_d{d}_{'c' if causal else 'nc'}_{seq}" + ("" if interleave is None else f"_il{interleave}")
    tag += "".join("_" + e.replace("=", "").split(".")[-1] for e in extra)
    return run(tag, os.path.relpath(args[0], ROOT), sets)


def scored(p):
    r = point(p["d"], p["causal"], p["seq"], impl=p["impl"], gpu=p["gpu"])
    check(r["numerics"]["computed"] is False, f"{p['impl']} {p['gpu']} d {p['d']} seq {p['seq']}: the preset runs timing only")
    sim = 4 * r["tflops_effective"]
    name = f"{p['impl'].upper()} {p['gpu'].upper()} d {p['d']} seq {p['seq']} {'causal' if p['causal'] else 'non-causal'}"
    return name, sim, sim / p["published"] - 1


published = vt.load_points()
for p in published:
    single = sum(q["impl"] == p["impl"] and q["gpu"] == p["gpu"] and q["d"] == p["d"] for q in published) == 1
    if p["role"] == "validation" and (p["seq"] == 2048 or single):
        name, sim, err = scored(p)
        check(abs(err) <= 0.25, f"validation {name}: simulated {sim:.1f} TFLOP/s vs published {p['published']:.0f}: "
              f"{100 * err:+.1f}% (target within 25 %)")

BANDS = {  # calibration points (impl, d, causal, seq): documented error +- 8 points (docs/validation.md)
    ("fa2", 128, False, 512): (0.00, 0.16), ("fa2", 128, False, 2048): (-0.06, 0.10),
    ("fa2", 128, True, 512): (0.27, 0.43), ("fa2", 128, True, 2048): (-0.01, 0.15),
    ("fa3", 128, False, 512): (-0.10, 0.06), ("fa3", 128, True, 2048): (-0.16, 0.00),
}
for p in published:
    key = (p["impl"], p["d"], p["causal"], p["seq"])
    if p["role"] == "calibration" and key in BANDS:
        lo, hi = BANDS[key]
        name, sim, err = scored(p)
        check(lo <= err <= hi, f"calibration {name}: simulated {sim:.1f} vs published {p['published']:.0f}: "
              f"{100 * err:+.1f}% (documented band {100 * lo:+.0f}% .. {100 * hi:+.0f}%)")

# 4. one issue slot for the tensor core and the MUFU; slice size
# the mechanism alone, without the fixed costs (a set-up latency is hidden by the other block when
# the units take turns anyway, but not when they overlap: it would blur what is compared here)
nofix = ["accelerator.launch_cycles=0", "accelerator.item_setup_cycles=0"]
sep = ["accelerator.sfu.shares_tensor_issue=false"]
shared, separate = point(64, False, 2048, extra=nofix), point(64, False, 2048, extra=nofix + sep)
check(separate["cycles"] < 0.9 * shared["cycles"], f"FA2 d 64 seq 2048, no fixed costs: separate tensor and SFU "
      f"{separate['cycles']} cycles vs one issue slot {shared['cycles']} (overlapping exponentials must be > 10 % faster)")
shared = point(64, False, 2048)
il0 = point(64, False, 2048, interleave=0)
check(abs(il0["cycles"] / shared["cycles"] - 1) <= 0.05,
      f"one issue slot: whole instructions {il0['cycles']} vs 8-cycle slices {shared['cycles']} cycles (within 5 %)")
# two K/V stages: with FA2's single stage (configs/validation/fa2_h100.yaml) one context loads its
# next tile only when the last is consumed, and that fill then meets the sliced operand reads on
# the buffer port; this check isolates the issue slices themselves
one = ["accelerator.regfile.max_contexts=1", "accelerator.memory.pipeline_stages=2"]
o8, o0 = point(64, False, 512, extra=one), point(64, False, 512, interleave=0, extra=one)
check(abs(o8["cycles"] / o0["cycles"] - 1) <= 0.01,
      f"one resident context: slices {o8['cycles']} vs whole {o0['cycles']} cycles (within 1 %)")

if fails:
    print(f"{len(fails)} check(s) failed")
    sys.exit(1)
print("all timing validation checks passed")
