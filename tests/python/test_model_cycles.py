#!/usr/bin/env python3
"""`lampsim model`: roll-up = sum of the rows, identical synthetic layers simulated once, decode
interpolation, a traced layer simulated on its own with the bridge's recompute figures, byte-identical
reports, file:line errors. Asserts structure, not absolute cycle counts (the timing model evolves).
usage: test_model_cycles.py LAMPSIM_BINARY TMPDIR"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from checks import check, child_env, done  # noqa: E402
import lampsim  # noqa: E402



def run(binary, model, out, *extra):
    p = subprocess.run([binary, "model", model, "-o", out, "--force", "--quiet"] + list(extra),
                       capture_output=True, text=True, env=child_env())
    rep = json.load(open(os.path.join(out, "report.json"))) if p.returncode == 0 else None
    return p, rep


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def interp_coeffs(T, S):
    """The weight of each decode sample in the sum over steps 1..T (piecewise linear)."""
    steps = [1 + round(j * (T - 1) / (S - 1)) for j in range(S)]
    c = [0.0] * S
    for t in range(1, T + 1):
        j = max(i for i in range(S) if steps[i] <= t)
        if steps[j] == t or j + 1 == S:
            c[j] += 1
        else:
            a = (t - steps[j]) / (steps[j + 1] - steps[j])
            c[j] += 1 - a
            c[j + 1] += a
    return steps, c


def main(binary, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    base = "layers: 3\nheads_q: 2\nheads_kv: 1\ndim: 128\nprefill: 128\n"
    m1 = write(os.path.join(tmp, "m1.yaml"), "name: t\n" + base + "decode: 5\ndecode_samples: 8\n")
    p, rep = run(binary, m1, os.path.join(tmp, "o1"))
    check(p.returncode == 0, "synthetic model runs (%s)" % p.stderr.strip()[-200:])
    if rep is None:
        return 1
    pre = [r for r in rep["layers"] if r["phase"] == "prefill"]
    dec = [r for r in rep["layers"] if r["phase"] == "decode"]
    check(len(pre) == 3 and rep["prefill_cycles"] == sum(r["cycles"] for r in pre), "prefill roll-up = sum of the layers")
    check([r["reused_from_row"] for r in pre] == [None, 0, 0] and len({r["cycles"] for r in pre}) == 1
          and rep["layers_reused"] == 2, "layers 1 and 2 reuse layer 0's simulation")
    check(len(dec) == 5 and [r["seq_k"] for r in dec] == [129, 130, 131, 132, 133] and all(r["seq_q"] == 1 for r in dec),
          "decode: every step simulated when samples >= steps (contexts 129..133)")
    check(rep["decode_cycles"] == 3 * sum(r["cycles"] for r in dec), "decode roll-up = layers x sum of the steps")
    check(rep["simulations"] == 1 + 5 and rep["cycles"] == rep["prefill_cycles"] + rep["decode_cycles"],
          "6 simulations; total = prefill + decode")
    w = sum(r["cycles"] for r in pre) + 3 * sum(r["cycles"] for r in dec)
    tens = (sum(r["cycles"] * r["units"]["tensor"]["utilisation"] for r in pre)
            + 3 * sum(r["cycles"] * r["units"]["tensor"]["utilisation"] for r in dec)) / w
    check(abs(rep["units"]["tensor"]["utilisation"] - tens) < 1e-12, "utilisation = cycle-weighted mean of the rows")
    # one schema family with the run report: the same top-level names, report.csv beside it, and
    # layers.csv with the report's column names (a decode row's layer empty, not -1)
    check(rep["schema_version"] == 2 and rep["report"] == "model" and rep["lampsim"]["version"] == lampsim.__version__
          and rep["mode"] == "lamp" and rep["workload"]["heads_q"] == 2 and "lampsim_version" not in rep
          and all(r["layer"] is None for r in dec) and [r["layer"] for r in pre] == [0, 1, 2],
          "report.json: schema_version, lampsim.version, mode, workload.*, units.<unit>.utilisation; decode layer null")
    import csv
    lay = list(csv.DictReader(open(os.path.join(tmp, "o1", "layers.csv"))))
    rcsv = list(csv.DictReader(open(os.path.join(tmp, "o1", "report.csv"))))
    check(len(lay) == 8 and all(r["layer"] == "" for r in lay if r["phase"] == "decode") and "units.tensor.utilisation" in lay[0]
          and "tiles.disruptive_rate" in lay[0] and not any(k.startswith("util_") for k in lay[0]),
          "layers.csv: the report's column names, a decode row's layer empty")
    check(len(rcsv) == 1 and rcsv[0]["schema_version"] == "2" and int(rcsv[0]["cycles"]) == rep["cycles"]
          and float(rcsv[0]["units.tensor.utilisation"]) == rep["units"]["tensor"]["utilisation"],
          "report.csv: one row of the report's top-level fields")
    cmp = subprocess.run([binary, "compare", os.path.join(tmp, "o1"), "--json"], capture_output=True, text=True)
    cj = json.loads(cmp.stdout) if cmp.returncode == 0 else {}
    check(cmp.returncode == 0 and cj["rows"][0]["cycles"] == rep["cycles"] and cj["rows"][0]["mode"] == "lamp",
          "lampsim compare reads a model directory (%s)" % cmp.stderr.strip()[-200:])
    # sampled decode: interpolation between the samples, exactly as documented
    m2 = write(os.path.join(tmp, "m2.yaml"), base + "decode: 40\ndecode_samples: 3\n")
    p, rep2 = run(binary, m2, os.path.join(tmp, "o2"))
    dec2 = [r for r in rep2["layers"] if r["phase"] == "decode"]
    steps, coeff = interp_coeffs(40, 3)
    want = 3 * sum(c * r["cycles"] for c, r in zip(coeff, dec2))   # rounded to the nearest cycle (a tie either way)
    check([r["seq_k"] - 128 for r in dec2] == steps and abs(rep2["decode_cycles"] - want) <= 0.5 + 1e-6,
          "decode of 40 tokens from 3 samples (steps %s): %.2f cycles, reported %d" % (steps, want, rep2["decode_cycles"]))
    # byte-identical report on a second run
    p, _ = run(binary, m1, os.path.join(tmp, "o1b"))
    check(open(os.path.join(tmp, "o1", "report.json")).read() == open(os.path.join(tmp, "o1b", "report.json")).read(),
          "same model, same report.json bytes")
    # a traced layer: simulated on its own; its recompute figures equal the bridge's on the same Q/K/V
    rng = np.random.default_rng(5)
    q = rng.standard_normal((1, 2, 128, 128)).astype(np.float32) * 2
    k = rng.standard_normal((1, 1, 128, 128)).astype(np.float32) * 2
    v = rng.standard_normal((1, 1, 128, 128)).astype(np.float32)
    for n, a in (("q", q), ("k", k), ("v", v)):
        np.save(os.path.join(tmp, "l1_%s.npy" % n), a)
    write(os.path.join(tmp, "l1.yaml"), "generator: trace\ncausal: true\ndtype: fp32\n"
          "trace: {q: l1_q.npy, k: l1_k.npy, v: l1_v.npy}\n")
    m3 = write(os.path.join(tmp, "m3.yaml"), base + "traces:\n  1: l1.yaml\n")
    p, rep3 = run(binary, m3, os.path.join(tmp, "o3"))
    rows = rep3["layers"] if rep3 else []
    check([r["source"] for r in rows] == ["synthetic", "trace", "synthetic"] and rep3["simulations"] == 2
          and rows[2]["reused_from_row"] == 0, "traced layer 1 simulated, layer 2 reuses layer 0")
    _, st = lampsim.attention(q, k, v, causal=True)
    check(rows and abs(rows[1]["tiles"]["disruptive_rate"] - st["tiles.disruptive_rate"]) < 1e-12
          and abs(rows[1]["recompute"]["subblock_rate"] - st["recompute.subblock_rate"]) < 1e-12,
          "traced layer: disruptive %.4f and recompute %.4f rates equal the bridge's" %
          (st["tiles.disruptive_rate"], st["recompute.subblock_rate"]))
    # --set reaches every layer
    p, rep4 = run(binary, m1, os.path.join(tmp, "o4"), "--set", "algorithm.mode=pure_8bit")
    check(rep4 and all(r["tiles"]["disruptive_rate"] == 0 for r in rep4["layers"]) and rep4["cycles"] != rep["cycles"],
          "--set algorithm.mode=pure_8bit applies to every layer")
    # per-layer sliding windows (issue 38): layer l runs window_pattern[l % n]; one simulation per
    # distinct window, decode samples per window weighted by its layers
    m6 = write(os.path.join(tmp, "m6.yaml"), "layers: 5\nheads_q: 2\nheads_kv: 1\ndim: 128\nprefill: 256\n"
               "decode: 3\ndecode_samples: 3\nwindow_pattern: [64, 64, 0]\n")
    p, rep6 = run(binary, m6, os.path.join(tmp, "o6"))
    check(p.returncode == 0, "windowed model runs (%s)" % p.stderr.strip()[-200:])
    if rep6:
        pre6 = [r for r in rep6["layers"] if r["phase"] == "prefill"]
        dec6 = [r for r in rep6["layers"] if r["phase"] == "decode"]
        check([r["window"] for r in pre6] == [64, 64, 0, 64, 64] and [r["reused_from_row"] for r in pre6] == [None, 0, None, 0, 0]
              and rep6["simulations"] == 2 + 2 * 3, "windows 64, 64, 0, 64, 64: two prefill simulations, 3 decode samples each")
        check(pre6[0]["cycles"] < pre6[2]["cycles"], "a 64-key window layer (%d cycles) is cheaper than a global one (%d)"
              % (pre6[0]["cycles"], pre6[2]["cycles"]))
        w64 = [r for r in dec6 if r["window"] == 64]
        w0 = [r for r in dec6 if r["window"] == 0]
        check(len(w64) == 3 and len(w0) == 3 and all(r["decode_layers"] == 4 for r in w64)
              and all(r["decode_layers"] == 1 for r in w0)
              and rep6["decode_cycles"] == 4 * sum(r["cycles"] for r in w64) + sum(r["cycles"] for r in w0),
              "decode roll-up = 4 local layers x their samples + 1 global layer x its samples")
        check(all(a["cycles"] < b["cycles"] for a, b in zip(w64, w0)), "a windowed decode step is cheaper (%s vs %s)"
              % ([r["cycles"] for r in w64], [r["cycles"] for r in w0]))
    # bad input: clear errors, exit 2, no report
    bad = [("bad1.yaml", base + "layer_count: 3\n", "bad1.yaml:6:1: layer_count: unknown key"),
           ("bad2.yaml", "layers: 2\nheads_q: 3\nheads_kv: 2\ndim: 128\nprefill: 64\n", "heads_kv"),
           ("bad3.yaml", base + "traces:\n  7: l1.yaml\n", "bad3.yaml:7:3: traces: 7 is out of range"),
           ("bad4.yaml", base.replace("heads_q: 2", "heads_q: 4") + "traces:\n  0: l1.yaml\n", "has heads 2/1"),
           ("bad5.yaml", base.replace("prefill: 128", "prefill: 12x"), "bad5.yaml:5:10: prefill"),
           ("bad6.yaml", base + "window_pattern: [64, -1]\n", "bad6.yaml:6:22: window_pattern: -1 is out of range"),
           ("bad7.yaml", base + "window_pattern: 64\n", "bad7.yaml:6:17: window_pattern: expected a list")]
    for name, text, needle in bad:
        path = write(os.path.join(tmp, name), text)
        out = os.path.join(tmp, "bad_out_" + name)
        p, _ = run(binary, path, out)
        check(p.returncode == 2 and needle in p.stderr and not os.path.exists(os.path.join(out, "report.json")),
              "%s refused: %s" % (name, p.stderr.strip()[:120]))
    p, _ = run(binary, m1, os.path.join(tmp, "o5"), "--set", "algorithm.mode=fa2_fp32")
    check(p.returncode == 2 and "timed model" in p.stderr, "mode fa2_fp32 refused (%s)" % p.stderr.strip()[:100])
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
