#!/usr/bin/python3
"""Timing validation: the timed model against published FlashAttention throughput.

Runs `lampsim run` on the FlashAttention benchmark shapes (hardware.md 2.1: batch x seq = 16k
tokens, hidden 2048, so 32 / 16 / 8 heads for d = 64 / 128 / 256, seq 512 .. 16k, causal and not)
with the presets of configs/validation/, compares simulated TFLOP/s with the published numbers of
hardware.md 2.2 / 2.4, and writes a CSV and a figure (docs/validation.md).

    scripts/validate_timing.py                       # every point, quarter chip (see --scale)
    scripts/validate_timing.py --seq 512,1024 --d 128 -j 2
    scripts/validate_timing.py --scale 1             # the full 132-core chip (4x the CPU time)
    scripts/validate_timing.py --ratio               # only the exp-to-matmul ratio table

--scale K (default 4) runs 1/K of the chip: cores / K, heads / K, DRAM and L2 bandwidth / K and
L2 capacity / K. Work items per core, bytes per core and per cycle, and the L2 fit decision are
unchanged, so cycles are (nearly) those of the full chip; TFLOP/s are multiplied back by K. At
seq 512, d 128 the quarter chip gives 372,446 cycles against 372,536 for the full chip (0.02 %).
Finished points are kept in --work (default out/validation_timing) and not run again.

Needs /usr/bin/python3 with numpy and matplotlib (figures), and a built lampsim
(--lampsim, $LAMPSIM, else build/lampsim).
"""
import argparse
import concurrent.futures as cf
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEQS = [512, 1024, 2048, 4096, 8192, 16384]
FP8_SEQS = [512, 1024, 2048, 4224, 8448, 16896]   # FA3 paper App. C: >= 4k divisible by 132 (hardware.md 2.1)
DIMS = [64, 128, 256]

POINTS_FILE = os.path.join(ROOT, "configs", "validation", "points.yaml")


def load_points(path=POINTS_FILE):
    """Every published point of points.yaml as a dict (impl, gpu, d, causal, seq, published, role,
    source). The role (calibration / validation / replication) is the file's, never chosen here."""
    import yaml
    doc = yaml.safe_load(open(path))
    pts = []
    for s in doc["series"]:
        seqs = s.get("seq", doc["seqs"])
        if len(seqs) != len(s["tflops"]) or s["role"] not in ("calibration", "validation", "replication"):
            sys.exit(f"{path}: series {s} is malformed (seq / tflops lengths, role)")
        for seq, tf in zip(seqs, s["tflops"]):
            pts.append({"impl": s["impl"], "gpu": s["gpu"], "d": s["d"], "causal": bool(s["causal"]), "seq": seq,
                        "published": float(tf), "role": s["role"], "source": s["source"]})
    return pts


def error_slope(rows):
    """Least-squares slope of the relative error against log2(seq): percentage points per doubling."""
    xs = [__import__("math").log2(r["seq"]) for r in rows]
    ys = [100 * r["rel_error"] for r in rows]
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def summarise(rows):
    """N, within 25 %, mean |error|, range and slope per doubling of a set of scored points."""
    errs = [r["rel_error"] for r in rows]
    return {"n": len(errs), "within25": sum(abs(e) <= 0.25 for e in errs),
            "mean_abs": 100 * sum(map(abs, errs)) / len(errs), "min": 100 * min(errs), "max": 100 * max(errs),
            "slope": error_slope(rows)}


PEAK = {"h100": 989.4, "a100": 312.0, "h200": 989.4, "h100_pcie": 756.5}   # FP16 dense; FP8 points are reported against it too

L2_MIB = {"h100": 50.0, "a100": 40.0, "h200": 50.0, "h100_pcie": 50.0}   # datasheet capacities (hardware.md 1)
# The chip-wide envelope the quarter chip divides: the values of the GPU's preset (configs/h100.yaml,
# configs/gpu/*.yaml, the A100 preset); kept here so that a point's --set list is known without a run.
CORES = {"h100": 132, "a100": 108, "h200": 132, "h100_pcie": 114}
BANDWIDTH = {"h100": 3350.0, "a100": 2039.0, "h200": 4800.0, "h100_pcie": 2000.0}
L2_BANDWIDTH = {"h100": 12000.0, "a100": 7219.0, "h200": 12000.0, "h100_pcie": 10623.0}
PRESETS = {
    ("fa2", "h100"): "configs/validation/fa2_h100_d{d}.yaml",
    ("fa3", "h100"): "configs/validation/fa3_h100_d{d}.yaml",
    ("fa3fp8", "h100"): "configs/validation/fa3fp8_h100_d{d}.yaml",
    ("fa2", "a100"): "configs/validation/fa2_a100_d{d}.yaml",
    ("fa3", "h200"): "configs/validation/fa3_h200_d{d}.yaml",
    ("fa3", "h100_pcie"): "configs/validation/fa3_h100pcie_d{d}.yaml",
}


# The tile scheduler each measured kernel ran (accelerator.scheduling, docs/architecture.md "Work
# ordering"), from the released code of the version the sources measured: FlashAttention-2 v2.5.8
# launches a grid with blockIdx.x = query block (csrc/flash_attn/src/flash_fwd_kernel.h,
# compute_attn), handed out by the hardware in index order; FlashAttention-3 as released in July 2024
# (hopper/flash_fwd_launch_template.h at 74b0761f) runs non-causal layers on the
# StaticPersistentTileScheduler and causal ones on the DynamicPersistentTileScheduler, which then
# took tiles in index order (its longest-first order came with 7a802796, January 2025).
SCHEDULING = {("fa2", False): "index", ("fa2", True): "index",
              ("fa3", False): "persistent", ("fa3", True): "index",
              ("fa3fp8", False): "persistent", ("fa3fp8", True): "index"}


def effective_scale(gpu, d, scale):
    """The largest fraction 1/s of the chip, s <= scale, that divides both its cores and the heads
    (the H100 PCIe's 114 SMs take 1/2 where the others take 1/4)."""
    heads = 2048 // d
    while scale > 1 and (CORES[gpu] % scale or heads % scale):
        scale -= 1
    return scale


def lampsim_path(arg):
    for p in (arg, os.environ.get("LAMPSIM"), os.path.join(ROOT, "build", "lampsim")):
        if p and os.path.exists(p):
            return p
    sys.exit("lampsim not found: build it (make) or pass --lampsim")


def batch_for(seq):
    """Batch of the benchmark shape: batch x seq = 16k tokens (hardware.md 2.1); for the FP8 lengths
    4224, 8448 and 16896 (made divisible by 132) the FA3 paper keeps 16896 tokens, which rounding gives."""
    return max(1, round(16384 / seq))


def point_args(impl, gpu, d, causal, seq, scale, interleave=None, separate_sfu=False, extra=()):
    heads = 2048 // d
    batch = batch_for(seq)
    cfg = os.path.join(ROOT, PRESETS[(impl, gpu)].format(d=d))
    cores, bw, l2bw = CORES[gpu], BANDWIDTH[gpu], L2_BANDWIDTH[gpu]
    # the datasheet L2 capacity (the model's L2 keeps the most recently used K/V tiles)
    l2 = L2_MIB[gpu]
    if heads % scale or cores % scale:
        raise ValueError(f"scale {scale} must divide heads {heads} and cores {cores}")
    sets = {
        "workload.seq_q": seq, "workload.seq_k": seq, "workload.batch": batch,
        "workload.dim": d, "workload.heads_q": heads // scale, "workload.heads_kv": heads // scale,
        "workload.causal": "true" if causal else "false",
        "accelerator.cores": cores // scale,
        "accelerator.memory.bandwidth_gbps": bw / scale,
        "accelerator.memory.l2_bandwidth_gbps": l2bw / scale,
        "accelerator.memory.l2_mib": l2 / scale,
        "accelerator.scheduling": SCHEDULING[(impl, causal)],
    }
    if interleave is not None:   # sensitivity study: override the preset's issue granularity
        sets["accelerator.interleave_cycles"] = interleave
    if separate_sfu:             # sensitivity study: exponentials may hide under matrix products
        sets["accelerator.sfu.shares_tensor_issue"] = "false"
    for kv in extra:             # calibration studies: further KEY=VALUE overrides
        k, _, v = kv.partition("=")
        sets[k] = v
    args = [cfg]
    for k, v in sets.items():
        args += ["--set", f"{k}={v}"]
    return args


def resolved_value(run_dir, key):
    """A scalar of the run's config.resolved.yaml (unique key name), as text."""
    for line in open(os.path.join(run_dir, "config.resolved.yaml")):
        k, _, v = line.strip().partition(":")
        if k == key:
            return v.split("#")[0].strip()
    return ""


def point_name(impl, gpu, d, causal, seq, scale, interleave=None, separate_sfu=False, extra=()):
    name = f"{impl}_{gpu}_d{d}_{'c' if causal else 'nc'}_s{seq}_x{scale}"
    if interleave is not None:
        name += f"_il{interleave}"
    for kv in extra:
        name += "_" + kv.split(".")[-1].replace("=", "")
    return name + ("_sepsfu" if separate_sfu else "")


def run_point(lampsim, work, impl, gpu, d, causal, seq, scale, interleave=None, separate_sfu=False, extra=()):
    scale = effective_scale(gpu, d, scale)
    name = point_name(impl, gpu, d, causal, seq, scale, interleave, separate_sfu, extra)
    out = os.path.join(work, name)
    rep = os.path.join(out, "report.json")
    if not os.path.exists(rep):
        cmd = [lampsim, "run"] + point_args(impl, gpu, d, causal, seq, scale, interleave, separate_sfu, extra) + ["-o", out, "--force", "--quiet"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{name}: {' '.join(cmd)}\n{r.stderr}")
    r = json.load(open(rep))
    ri = json.load(open(os.path.join(out, "run_info.json")))
    u = r["units"]
    return {
        "impl": impl, "gpu": gpu, "d": d, "causal": int(causal), "seq": seq, "batch": batch_for(seq),
        "heads": 2048 // d, "scale": scale, "cycles": r["cycles"],
        "interleave": resolved_value(out, "interleave_cycles"),
        "sfu_shares_tensor_issue": resolved_value(out, "shares_tensor_issue"),
        "scheduling": resolved_value(out, "scheduling"),
        "tail_cycles": r["balance"]["tail_cycles"],
        "sim_tflops": r["tflops_effective"] * scale,
        "tensor_util": u["tensor"]["utilisation"], "sfu_util": u["sfu"]["utilisation"],
        "vector_util": u["vector"]["utilisation"], "buffer_util": u["buffer"]["utilisation"],
        "dram_util": u["dram"]["utilisation"],
        "contexts_mean": r["occupancy"]["contexts_per_core"]["mean"],
        "stall_memory": r["stalls"]["memory"], "stall_unit_busy": r["stalls"]["unit_busy"],
        "stall_dependency": r["stalls"]["dependency"],
        "wall_s": ri.get("wall_seconds", float("nan")),
    }


def exp_ratio(lampsim, work):
    """SFU (and LUT) busy cycles over tensor busy cycles on one core, fa2_16bit on the H100
    datasheet envelope (configs/h100.yaml, 4096 FLOP/clk) and LampAttention (lampattention.yaml)
    with stage 1 and 2 switched off (pure LUT path) and at its defaults."""
    rows = []
    cases = [("h100 fa2_16bit", "configs/h100.yaml", []),
             ("lampattention pure_8bit", "configs/lampattention.yaml", ["algorithm.mode=pure_8bit"]),
             ("lampattention lamp tau 0.5", "configs/lampattention.yaml", []),
             ("h100 fa2_16bit at FP8 rate", "configs/h100.yaml",
              ["accelerator.tensor.macs_per_cycle_16bit=4096"])]
    for d in DIMS:
        for label, cfg, extra in cases:
            name = f"ratio_{label.replace(' ', '_').replace(',', '')}_d{d}"
            out = os.path.join(work, name)
            sets = ["accelerator.cores=1", "workload.batch=1", "workload.heads_q=1", "workload.heads_kv=1",
                    "workload.seq_q=512", "workload.seq_k=512", "workload.causal=false", f"workload.dim={d}",
                    "workload.qknorm.gain=1.5"] + extra
            if d == 256:   # 32 queries per warp need 424 registers per thread at d = 256
                sets.append("algorithm.b_q=16")
            if not os.path.exists(os.path.join(out, "report.json")):
                cmd = [lampsim, "run", os.path.join(ROOT, cfg)]
                for s in sets:
                    cmd += ["--set", s]
                subprocess.run(cmd + ["-o", out, "--force", "--quiet"], check=True, capture_output=True)
            r = json.load(open(os.path.join(out, "report.json")))
            u = r["units"]
            t = u["tensor"]["busy_cycles"]
            rows.append({"case": label, "d": d, "tensor_busy": t, "sfu_busy": u["sfu"]["busy_cycles"],
                         "lut_busy": u["lut"]["busy_cycles"], "vector_busy": u["vector"]["busy_cycles"],
                         "sfu_over_tensor": u["sfu"]["busy_cycles"] / t,
                         "lut_over_tensor": u["lut"]["busy_cycles"] / t,
                         "exp_path_over_tensor": max(u["sfu"]["busy_cycles"], u["lut"]["busy_cycles"]) / t,
                         "analytic_64_over_d": 64.0 / d,
                         "hp_subblock_rate": r["recompute"]["subblock_rate"],
                         "cycles": r["cycles"]})
    return rows


def write_csv(path, rows):
    if not rows:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharey=True)
    for i, causal in enumerate((False, True)):
        for j, d in enumerate(DIMS):
            ax = axes[i][j]
            roles = set()
            for impl, color in (("fa2", "tab:blue"), ("fa3", "tab:red")):
                sel = sorted((r for r in rows if r["impl"] == impl and r["gpu"] == "h100" and r["d"] == d
                              and r["causal"] == int(causal) and r["role"] != "replication"), key=lambda r: r["seq"])
                if not sel:
                    continue
                roles |= {r["role"] for r in sel}
                xs = [SEQS.index(r["seq"]) for r in sel]
                ax.plot(xs, [r["published_tflops"] for r in sel], "o--", color=color, alpha=0.6,
                        label=f"{impl.upper()} published")
                ax.plot(xs, [r["sim_tflops"] for r in sel], "s-", color=color, label=f"{impl.upper()} lampsim")
            ax.set_title(f"d = {d}, {'causal' if causal else 'non-causal'}" + (f" ({'/'.join(sorted(roles))})" if roles else ""))
            ax.set_xticks(range(len(SEQS)))
            ax.set_xticklabels(["512", "1k", "2k", "4k", "8k", "16k"])
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_ylabel("TFLOP/s (forward, FP16)")
            if i == 1:
                ax.set_xlabel("sequence length (batch x seq = 16k)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("lampsim timed model vs published FlashAttention throughput, H100 SXM5 (d 128: calibration)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    fig.savefig(path[:-4] + ".svg")


def score(rows):
    """Print the per-point table and the summaries, calibration and validation apart."""
    print(f"\n{'role':11s} {'impl':4s} {'gpu':4s} {'d':>4s} {'mask':6s} {'seq':>6s} {'published':>9s} {'lampsim':>8s} {'error':>7s}")
    for r in rows:
        print(f"{r['role']:11s} {r['impl']:4s} {r['gpu']:4s} {r['d']:4d} {'causal' if r['causal'] else 'full':6s} "
              f"{r['seq']:6d} {r['published_tflops']:9.0f} {r['sim_tflops']:8.1f} {100 * r['rel_error']:+6.1f}%")
    lines = []
    for role in ("calibration", "validation", "replication"):
        rr = [r for r in rows if r["role"] == role]
        if not rr:
            continue
        groups = [("all", rr)] + [(f"{i} on {g}", [r for r in rr if (r["impl"], r["gpu"]) == (i, g)])
                                  for i, g in sorted({(r["impl"], r["gpu"]) for r in rr})]
        for label, sel in groups:
            m = summarise(sel)
            lines.append(f"{role} {label}: {m['within25']} of {m['n']} within 25 %, mean |error| {m['mean_abs']:.1f} %, "
                         f"range {m['min']:+.1f} % .. {m['max']:+.1f} %, error slope {m['slope']:+.1f} points per doubling of seq")
    print()
    print("\n".join(lines))
    return lines


def markdown(rows, lines, path):
    """The per-point tables (calibration, validation, replication) and the summaries as Markdown."""
    with open(path, "w") as f:
        f.write("# Timing points: published vs simulated\n\nGenerated by `scripts/validate_timing.py` from "
                "`configs/validation/points.yaml` (quarter chip, timing only). TFLOP/s, relative error = "
                "simulated / published - 1.\n\n")
        f.write("\n".join(f"* {ln}" for ln in lines) + "\n")
        for role in ("calibration", "validation", "replication"):
            rr = [r for r in rows if r["role"] == role]
            if not rr:
                continue
            f.write(f"\n## {role}\n\n| kernel | GPU | d | mask | seq | published | simulated | error | tensor busy | SFU busy | "
                    f"buffer port busy | DRAM busy |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for r in rr:
                f.write(f"| {r['impl'].upper()} | {r['gpu'].upper()} | {r['d']} | {'causal' if r['causal'] else 'non-causal'} "
                        f"| {r['seq']} | {r['published_tflops']:.0f} | {r['sim_tflops']:.1f} | {100 * r['rel_error']:+.1f} % "
                        f"| {100 * r['tensor_util']:.1f} % | {100 * r['sfu_util']:.1f} % | {100 * r['buffer_util']:.1f} % "
                        f"| {100 * r['dram_util']:.1f} % |\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lampsim")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "validation_timing"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "figures"))
    ap.add_argument("--points", default=POINTS_FILE, help="published points with their roles (points.yaml)")
    ap.add_argument("--role", default="calibration,validation,replication",
                    help="which roles of points.yaml to run (calibration, validation, replication)")
    ap.add_argument("--seq", help="only these sequence lengths (comma list)")
    ap.add_argument("--d", help="only these head dimensions (comma list)")
    ap.add_argument("--impl", help="only these kernels (fa2, fa3)")
    ap.add_argument("--gpu", help="only these GPUs (h100, a100, h200, h100_pcie)")
    ap.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--scale", type=int, default=4)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--ratio", action="store_true", help="only the exp-to-matmul ratio table")
    ap.add_argument("--interleave", type=int,
                    help="override accelerator.interleave_cycles (sensitivity study; CSV name gets a suffix)")
    ap.add_argument("--separate-sfu", action="store_true",
                    help="override accelerator.sfu.shares_tensor_issue to false (sensitivity study; CSV suffix _separate_sfu)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="extra override for every point (calibration studies; CSV name gets a suffix)")
    ap.add_argument("--predict", metavar="IMPL[:GPU]",
                    help="run a preset (e.g. fa3fp8, fa2:a100) at every benchmark shape without published values and "
                         "write timing_predictions_IMPL_GPU.csv: predictions recorded before they are compared with anything")
    ap.add_argument("--collect", action="store_true",
                    help="run nothing: tabulate the selected points already finished in --work")
    a = ap.parse_args()
    lampsim = lampsim_path(a.lampsim)
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)

    ratio = exp_ratio(lampsim, a.work)
    write_csv(os.path.join(a.out, "exp_matmul_ratio.csv"), ratio)
    print(f"{'case':36s} {'d':>4s} {'SFU/TC':>8s} {'LUT/TC':>8s} {'64/d':>6s}")
    for r in ratio:
        print(f"{r['case']:36s} {r['d']:4d} {r['sfu_over_tensor']:8.3f} {r['lut_over_tensor']:8.3f} "
              f"{r['analytic_64_over_d']:6.3f}")
    if a.ratio:
        return

    if a.predict:
        impl, _, gpu = a.predict.partition(":")
        gpu = gpu or "h100"
        if (impl, gpu) not in PRESETS:
            sys.exit(f"--predict {a.predict}: no preset for {impl} on {gpu} (known: "
                     f"{', '.join(i + ':' + g for i, g in PRESETS)})")
        seqs = FP8_SEQS if impl.endswith("fp8") else SEQS
        jobs = [(impl, gpu, d, c, q, a.scale, None, False, tuple(a.set)) for d in DIMS for c in (False, True)
                for q in seqs]
        with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            rows = list(ex.map(lambda j: run_point(lampsim, a.work, *j), jobs))
        write_csv(os.path.join(a.out, f"timing_predictions_{impl}_{gpu}.csv"), rows)
        for r in rows:
            print(f"{impl} on {gpu} d {r['d']:3d} {'causal' if r['causal'] else 'full':6s} seq {r['seq']:6d}: "
                  f"{r['sim_tflops']:7.1f} TFLOP/s (tensor {100 * r['tensor_util']:.0f} %, SFU {100 * r['sfu_util']:.0f} %)")
        return

    def keep(p):
        return (p["role"] in a.role.split(",")
                and (not a.seq or p["seq"] in {int(x) for x in a.seq.split(",")})
                and (not a.d or p["d"] in {int(x) for x in a.d.split(",")})
                and (not a.impl or p["impl"] in a.impl.split(","))
                and (not a.gpu or p["gpu"] in a.gpu.split(","))
                and (a.causal == "both" or p["causal"] == (a.causal == "yes")))
    points = [p for p in load_points(a.points) if keep(p)]
    extra = tuple(a.set)
    jobs = sorted({(p["impl"], p["gpu"], p["d"], p["causal"], p["seq"], a.scale, a.interleave, a.separate_sfu, extra)
                   for p in points}, key=lambda j: -j[4] * (0.5 if j[3] else 1.0))   # longest first
    if a.collect:
        jobs = [j for j in jobs if os.path.exists(os.path.join(a.work, point_name(*j), "report.json"))]
    sims = {}
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(run_point, lampsim, a.work, *j): j for j in jobs}
        for f in cf.as_completed(futs):
            sims[futs[f][:5]] = f.result()
    rows = []
    for p in points:
        key = (p["impl"], p["gpu"], p["d"], p["causal"], p["seq"])
        if key not in sims:
            continue
        r = dict(sims[key])
        r.update(role=p["role"], source=p["source"], published_tflops=p["published"])
        r["rel_error"] = r["sim_tflops"] / r["published_tflops"] - 1.0
        r["sim_util"] = r["sim_tflops"] / PEAK[r["gpu"]]
        r["published_util"] = r["published_tflops"] / PEAK[r["gpu"]]
        rows.append(r)
    rows.sort(key=lambda r: (r["role"], r["gpu"], r["impl"], r["d"], r["causal"], r["seq"]))
    stem = "timing_points" + (f"_il{a.interleave}" if a.interleave is not None else "") + \
        ("_separate_sfu" if a.separate_sfu else "") + "".join("_" + kv.split(".")[-1].replace("=", "") for kv in extra)
    write_csv(os.path.join(a.out, stem + ".csv"), rows)
    lines = score(rows)
    with open(os.path.join(a.out, stem + "_summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    markdown(rows, lines, os.path.join(a.out, stem + ".md"))
    if a.interleave is not None or a.separate_sfu or extra:
        return   # sensitivity runs: the CSV only (docs/validation.md tabulates them)
    try:
        plot(rows, os.path.join(a.out, stem + ".png"))
    except ImportError:
        print("matplotlib missing: no figure", file=sys.stderr)


if __name__ == "__main__":
    main()
