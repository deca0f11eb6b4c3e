#!/usr/bin/env python3
"""The presets with sources (issue 37 part 3; docs/workloads.md, "Presets with sources"): each shipped
file holds the pattern scripts/build_presets.py describes and measures the target statistics it was
calibrated to at 4096 tokens (per head type within 0.03, the mean sink mass within 0.01 of the cited
0.467), the profile the script draws is the file's, and the HP sub-block rates at 4096 tokens are the
documented ones (within 0.005); a Gemma local layer loses its sink past the window; the Qwen3 study slice
(workloads/qwen3_8b_sourced_slice.yaml) is scripts/workload_slice.py's cut of the preset and has its heads.
usage: test_presets_sourced.py LAMPSIM"""
import csv
import io
import os
import subprocess
import sys

from checks import ROOT, check, done  # noqa: E402
import build_presets as B  # noqa: E402

GEMMA_TILE = ["--set", "algorithm.b_q=16", "--set", "algorithm.n_q=4", "--set", "algorithm.b_k=16",
              "--set", "algorithm.n_k=4"]
# docs/workloads.md's table at 4k: HP sub-blocks of the first pattern
DOC_4K = {"qwen3_8b_sourced.yaml": 0.054, "gemma3_sourced.yaml": 0.032}


def stats(lampsim, path, extra):
    out = subprocess.run([lampsim, "workload", "stats", path, "--heads", "8"] + extra, check=True,
                         capture_output=True, text=True).stdout
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(io.StringIO(out))]


def knob(path, key):
    for line in open(path):
        if line.strip().startswith(key + ":"):
            return [float(x) for x in line.split(":", 1)[1].strip().strip('"').split()]
    raise KeyError(key)


def main(lampsim):
    for spec in (B.QWEN3, B.GEMMA3):
        path = os.path.join(ROOT, "workloads", spec["file"])
        pattern = B.heads_of(spec)
        tile = GEMMA_TILE if spec is B.GEMMA3 else []
        rows = stats(lampsim, path, tile)
        worst = max(max(abs(r["sink_mass"] - t["sink"]), abs(r["local_mass"] - t["local"])) for r, t in zip(rows, pattern))
        check(worst < 0.03, "%s: every head's sink and local mass within 0.03 of its type's target (worst %.3f)"
              % (spec["file"], worst))
        mean_sink = sum(r["sink_mass"] for r in rows) / len(rows)
        check(abs(mean_sink - 0.467) < 0.01, "%s: mean sink mass %.3f, the cited 0.467 within 0.01" % (spec["file"], mean_sink))
        rate = sum(r["subblock_rate"] for r in rows) / len(rows)
        check(abs(rate - DOC_4K[spec["file"]]) < 0.005, "%s: HP sub-blocks at 4k %.4f, as documented (%.3f)"
              % (spec["file"], rate, DOC_4K[spec["file"]]))
        # the shipped amplitudes are the script's profile times a per-head height (the pattern repeated)
        cos = knob(path, "amp_cos")
        ok = True
        for h, t in enumerate(pattern * (spec["heads_q"] // len(pattern))):
            c = B.profile(t["decay"])[0]
            seg = cos[h * B.P:(h + 1) * B.P]
            height = seg[0] / c[0]
            ok &= all(abs(a - height * b) <= 1e-4 * (abs(height * b) + 1e-3) for a, b in zip(seg, c))
        check(ok and len(cos) == spec["heads_q"] * B.P, "%s: amp_cos is build_presets.profile times each head's height"
              % spec["file"])
        check(knob(path, "scale") == [t["scale"] for t in pattern] * (spec["heads_q"] // len(pattern)),
              "%s: heads.scale as the pattern says" % spec["file"])
    # Gemma's local layer: rows past the 1024-token window no longer see the sink key
    path = os.path.join(ROOT, "workloads", "gemma3_sourced.yaml")
    glob = stats(lampsim, path, GEMMA_TILE + ["--set", "workload.seq_q=2048", "--set", "workload.seq_k=2048", "--no-lamp"])
    loc = stats(lampsim, path, GEMMA_TILE + ["--set", "workload.seq_q=2048", "--set", "workload.seq_k=2048",
                                             "--set", "workload.window=1024", "--no-lamp"])
    gs, ls = (sum(r["sink_mass"] for r in x) / len(x) for x in (glob, loc))
    check(ls < 0.6 * gs, "gemma3_sourced at 2048 tokens: a 1024-token window halves the sink mass (%.3f vs %.3f global)"
          % (ls, gs))
    # the study slice (configs/studies/verdict_sourced.yaml): scripts/workload_slice.py's output from the preset,
    # byte for byte, and the preset's first 8 heads statistic for statistic
    import tempfile
    import workload_slice
    full, shipped = (os.path.join(ROOT, "workloads", f) for f in ("qwen3_8b_sourced.yaml", "qwen3_8b_sourced_slice.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        again = os.path.join(tmp, "slice.yaml")
        workload_slice.slice_workload(full, again, "qwen3-8b-sourced-slice", 2)
        body = lambda p: [l for l in open(p).read().splitlines() if not l.startswith("#")]   # the header names paths
        check(body(again) == body(shipped), "qwen3_8b_sourced_slice.yaml is workload_slice.py's slice of the preset")
    short = ["--set", "workload.seq_q=512", "--set", "workload.seq_k=512"]
    a, b = stats(lampsim, shipped, short), stats(lampsim, full, short)
    check(len(a) == 8 and a == b, "the slice's 8 heads have the preset's first 8 heads' statistics and LAMP rates")
    try:
        workload_slice.slice_workload(full, os.devnull, "x", 9)
        check(False, "a slice of 9 KV heads of an 8-KV-head preset is refused")
    except workload_slice.SliceError as e:
        check("9" in str(e), "a slice of 9 KV heads of an 8-KV-head preset is refused (%s)" % e)
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
