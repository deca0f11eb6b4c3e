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
DIMS = [64, 128, 256]

# hardware.md 2.2 (FA3 paper, H100 SXM5 at 1830 MHz, FP16 forward, TFLOP/s), seq 512 .. 16k
PUBLISHED = {
    ("fa2", 64, False): [282, 306, 318, 321, 322, 324],
    ("fa2", 64, True): [180, 229, 262, 284, 295, 299],
    ("fa2", 128, False): [309, 350, 362, 368, 370, 370],
    ("fa2", 128, True): [191, 260, 298, 319, 333, 335],
    ("fa2", 256, False): [275, 313, 321, 323, 324, 326],
    ("fa2", 256, True): [208, 251, 278, 293, 297, 298],
    ("fa3", 64, False): [333, 392, 460, 476, 496, 497],
    ("fa3", 64, True): [197, 265, 371, 420, 460, 473],
    ("fa3", 128, False): [467, 565, 625, 638, 646, 648],
    ("fa3", 128, True): [292, 423, 521, 579, 602, 616],
    ("fa3", 256, False): [482, 639, 707, 736, 746, 756],
    ("fa3", 256, True): [286, 427, 537, 612, 628, 642],
}
PEAK = {"h100": 989.4, "a100": 312.0}
# hardware.md 2.4: FA2 forward on A100 "up to 230 TFLOP/s" (73 % of 312); no per-seq values.
A100_HEADLINE = 230.0

L2_MIB = {"h100": 50.0, "a100": 40.0}   # datasheet capacities (hardware.md 1)
PRESETS = {
    ("fa2", "h100"): "configs/validation/fa2_h100_d{d}.yaml",
    ("fa3", "h100"): "configs/validation/fa3_h100_d{d}.yaml",
    ("fa2", "a100"): "configs/validation/fa2_a100_d{d}.yaml",
}


def lampsim_path(arg):
    for p in (arg, os.environ.get("LAMPSIM"), os.path.join(ROOT, "build", "lampsim")):
        if p and os.path.exists(p):
            return p
    sys.exit("lampsim not found: build it (make) or pass --lampsim")


def point_args(impl, gpu, d, causal, seq, scale, interleave=None, separate_sfu=False):
    heads = 2048 // d
    batch = 16384 // seq
    cfg = os.path.join(ROOT, PRESETS[(impl, gpu)].format(d=d))
    cores = {"h100": 132, "a100": 108}[gpu]
    bw = {"h100": 3350.0, "a100": 2039.0}[gpu]
    l2bw = {"h100": 12000.0, "a100": 7219.0}[gpu]
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
    }
    if interleave is not None:   # sensitivity study: override the preset's issue granularity
        sets["accelerator.interleave_cycles"] = interleave
    if separate_sfu:             # sensitivity study: exponentials may hide under matrix products
        sets["accelerator.sfu.shares_tensor_issue"] = "false"
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


def point_name(impl, gpu, d, causal, seq, scale, interleave=None, separate_sfu=False):
    name = f"{impl}_{gpu}_d{d}_{'c' if causal else 'nc'}_s{seq}_x{scale}"
    if interleave is not None:
        name += f"_il{interleave}"
    return name + ("_sepsfu" if separate_sfu else "")


def run_point(lampsim, work, impl, gpu, d, causal, seq, scale, interleave=None, separate_sfu=False):
    name = point_name(impl, gpu, d, causal, seq, scale, interleave, separate_sfu)
    out = os.path.join(work, name)
    rep = os.path.join(out, "report.json")
    if not os.path.exists(rep):
        cmd = [lampsim, "run"] + point_args(impl, gpu, d, causal, seq, scale, interleave, separate_sfu) + ["-o", out, "--force", "--quiet"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{name}: {' '.join(cmd)}\n{r.stderr}")
    r = json.load(open(rep))
    ri = json.load(open(os.path.join(out, "run_info.json")))
    u = r["units"]
    return {
        "impl": impl, "gpu": gpu, "d": d, "causal": int(causal), "seq": seq, "batch": 16384 // seq,
        "heads": 2048 // d, "scale": scale, "cycles": r["cycles"],
        "interleave": resolved_value(out, "interleave_cycles"),
        "sfu_shares_tensor_issue": resolved_value(out, "shares_tensor_issue"),
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
            for impl, color in (("fa2", "tab:blue"), ("fa3", "tab:red")):
                pub = PUBLISHED[(impl, d, causal)]
                ax.plot(range(len(SEQS)), pub, "o--", color=color, alpha=0.6, label=f"{impl.upper()} published")
                sim = {r["seq"]: r["sim_tflops"] for r in rows
                       if r["impl"] == impl and r["gpu"] == "h100" and r["d"] == d and r["causal"] == int(causal)}
                xs = [k for k, s in enumerate(SEQS) if s in sim]
                if xs:
                    ax.plot(xs, [sim[SEQS[k]] for k in xs], "s-", color=color, label=f"{impl.upper()} lampsim")
            ax.set_title(f"d = {d}, {'causal' if causal else 'non-causal'}")
            ax.set_xticks(range(len(SEQS)))
            ax.set_xticklabels(["512", "1k", "2k", "4k", "8k", "16k"])
            ax.grid(alpha=0.3)
            if j == 0:
                ax.set_ylabel("TFLOP/s (forward, FP16)")
            if i == 1:
                ax.set_xlabel("sequence length (batch x seq = 16k)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("lampsim timed model vs published FlashAttention throughput, H100 SXM5")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    fig.savefig(path[:-4] + ".svg")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lampsim")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "validation_timing"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "figures"))
    ap.add_argument("--seq", default=",".join(map(str, SEQS)))
    ap.add_argument("--d", default=",".join(map(str, DIMS)))
    ap.add_argument("--impl", default="fa2", help="fa2, fa3 or fa2,fa3")
    ap.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--a100", action="store_true", help="also the A100 FA2 point (d 128, seq 4k)")
    ap.add_argument("--scale", type=int, default=4)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--ratio", action="store_true", help="only the exp-to-matmul ratio table")
    ap.add_argument("--interleave", type=int,
                    help="override accelerator.interleave_cycles (sensitivity study; CSV name gets a suffix)")
    ap.add_argument("--separate-sfu", action="store_true",
                    help="override accelerator.sfu.shares_tensor_issue to false (sensitivity study; CSV suffix _separate_sfu)")
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

    seqs = [int(s) for s in a.seq.split(",")]
    dims = [int(s) for s in a.d.split(",")]
    causals = {"both": [False, True], "yes": [True], "no": [False]}[a.causal]
    jobs = []
    for impl in a.impl.split(","):
        for d in dims:
            for c in causals:
                for s in seqs:
                    jobs.append((impl, "h100", d, c, s, a.scale, a.interleave, a.separate_sfu))
    if a.a100:
        jobs.append(("fa2", "a100", 128, False, 4096, a.scale, a.interleave, a.separate_sfu))
    # longest first so the pool drains evenly
    jobs.sort(key=lambda j: -j[4] * (0.5 if j[3] else 1.0))
    if a.collect:
        jobs = [j for j in jobs if os.path.exists(os.path.join(a.work, point_name(*j), "report.json"))]
    rows = []
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(run_point, lampsim, a.work, *j): j for j in jobs}
        for f in cf.as_completed(futs):
            rows.append(f.result())
    rows.sort(key=lambda r: (r["gpu"], r["impl"], r["d"], r["causal"], r["seq"]))
    for r in rows:
        if r["gpu"] == "a100":
            r["published_tflops"] = A100_HEADLINE
        else:
            r["published_tflops"] = PUBLISHED[(r["impl"], r["d"], bool(r["causal"]))][SEQS.index(r["seq"])]
        r["rel_error"] = r["sim_tflops"] / r["published_tflops"] - 1.0
        r["sim_util"] = r["sim_tflops"] / PEAK[r["gpu"]]
        r["published_util"] = r["published_tflops"] / PEAK[r["gpu"]]
    impls = a.impl.split(",")
    stem = "timing_published_vs_sim" if impls == ["fa2"] else "timing_" + "_".join(impls) + ("_a100" if a.a100 else "")
    stem += (f"_il{a.interleave}" if a.interleave is not None else "") + ("_separate_sfu" if a.separate_sfu else "")
    write_csv(os.path.join(a.out, stem + ".csv"), rows)
    print(f"\n{'impl':4s} {'gpu':4s} {'d':>4s} {'mask':6s} {'seq':>6s} {'published':>9s} {'lampsim':>8s} {'error':>7s}")
    for r in rows:
        print(f"{r['impl']:4s} {r['gpu']:4s} {r['d']:4d} {'causal' if r['causal'] else 'full':6s} {r['seq']:6d} "
              f"{r['published_tflops']:9.0f} {r['sim_tflops']:8.1f} {100 * r['rel_error']:+6.1f}%")
    for key in sorted({(r["impl"], r["gpu"]) for r in rows}):
        errs = [r["rel_error"] for r in rows if (r["impl"], r["gpu"]) == key]
        within = sum(abs(e) <= 0.25 for e in errs)
        print(f"{key[0]} on {key[1]}: {within} of {len(errs)} within 25 %, mean |error| "
              f"{100 * sum(map(abs, errs)) / len(errs):.1f} %, range {100 * min(errs):+.1f} % .. {100 * max(errs):+.1f} %")
    if a.interleave is not None or a.separate_sfu:
        return   # sensitivity runs: the CSV only (docs/validation.md tabulates them)
    try:
        plot(rows, os.path.join(a.out, stem + ".png"))
    except ImportError:
        print("matplotlib missing: no figure", file=sys.stderr)


if __name__ == "__main__":
    main()
