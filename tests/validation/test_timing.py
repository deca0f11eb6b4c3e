#!/usr/bin/python3
"""Timing validation on small shapes (docs/validation.md), each check able to fail:

1. exp-to-matmul ratio: on one core, the SFU busy time of fa2_16bit over its tensor busy time is
   64/d on the H100 envelope (4096 FP16 FLOP/clk, 16 exp/clk; hardware.md 2.6) and 128/d at the
   FP8 rate, within 5 % (the lambda exponentials add 1/Bc); the LampAttention accelerator's LUT
   takes the 8-bit exponentials at 16/d of the tensor time and the SFU keeps only its HP share.
2. quarter-chip scaling (what scripts/validate_timing.py uses): 1/4 of the cores, heads and
   bandwidths gives the full chip's cycles within 2 % (measured -0.94 % at this small shape).
3. two published points: FlashAttention-2, H100, d 128, seq 512, batch 32, non-causal (309
   TFLOP/s published, hardware.md 2.2) and causal (191): the error stays in the band documented in
   docs/validation.md (the model over-predicts these points by +50 % and +103 %).
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

# 2. quarter-chip scaling at a small shape: 256 work items on 132 cores vs 64 on 33
base = ["workload.seq_q=512", "workload.seq_k=512", "workload.batch=4", "workload.causal=false"]
full = run("scale1", "configs/validation/fa2_h100_d128.yaml", base)
quarter = run("scale4", "configs/validation/fa2_h100_d128.yaml", base + [
    "workload.heads_q=4", "workload.heads_kv=4", "accelerator.cores=33",
    "accelerator.memory.bandwidth_gbps=837.5", "accelerator.memory.l2_bandwidth_gbps=3000",
    "accelerator.memory.l2_mib=64"])
dc = quarter["cycles"] / full["cycles"] - 1
check(abs(dc) <= 0.02, f"quarter chip: {quarter['cycles']} cycles vs full chip {full['cycles']} ({100 * dc:+.3f}%, within 2%)")

# 3. published points (quarter chip, as the reproduction script). The model over-predicts
# FlashAttention-2 (docs/validation.md, gaps G2-G5): the 25 % target is not met at these points.
# The checks hold the documented error inside a band, so a model change that moves it (either
# way) fails here and must be explained in docs/validation.md.
for causal, pub, lo, hi in ((False, 309.0, 0.30, 0.70), (True, 191.0, 0.75, 1.30)):
    args = vt.point_args("fa2", "h100", 128, causal, 512, 4)
    r = run(f"fa2_d128_{'c' if causal else 'nc'}_512", os.path.relpath(args[0], ROOT),
            [args[i + 1] for i in range(1, len(args), 2)])
    sim = 4 * r["tflops_effective"]
    err = sim / pub - 1
    check(lo <= err <= hi, f"FA2 H100 d 128 seq 512 {'causal' if causal else 'non-causal'}: simulated {sim:.1f} "
          f"TFLOP/s vs published {pub:.0f}: {100 * err:+.1f}% (documented band {100 * lo:+.0f}% .. {100 * hi:+.0f}%; "
          f"target 25% not met)")

if fails:
    print(f"{len(fails)} check(s) failed")
    sys.exit(1)
print("all timing validation checks passed")
