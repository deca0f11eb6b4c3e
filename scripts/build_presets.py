#!/usr/bin/env python3
"""Rotary-pair `heads` presets from target attention statistics (issue 37 part 3).

Each head type of a preset is a row of target statistics (sink mass on key 0, local mass on the last
16 keys, the far logit spread) with its source, or marked as an estimate with a range (docs/workloads.md,
"Presets with sources"). A head's mean logit at distance t is R exp(-t / decay) (a local profile) drawn
as a weighted least-squares sum of rotary pairs on log-spaced frequencies (`heads.pairs`), flat beyond;
its sink is the bonus `heads.sink`. The profile height R and the sink bonus of every head are then
calibrated together until `lampsim workload stats` measures the target sink and local masses at the
calibration length (regula falsi in each knob, the other held), and the preset YAML is written.

    /usr/bin/python3 scripts/build_presets.py build/lampsim [--only qwen3|gemma3] [-o DIR]
"""
import argparse
import csv
import io
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
P = 24          # rotary pairs of the profile
FREQ = [math.pi * 2.0 ** (-0.5 * i) for i in range(P)]   # pi .. pi / 2896, half an octave apart

# Sources (the keys of docs/workloads.md, "Presets with sources").
#  [Q3]  Qwen3 technical report (arXiv 2505.09388) and Qwen3-8B's config.json: 36 layers, 32 Q / 8 KV heads,
#        head dim 128, QK-norm (RMSNorm on q and k per head) before RoPE, rope_theta 1e6.
#  [G3]  Gemma 3 technical report (arXiv 2503.19786) and Gemma-3-12B's config: 48 layers, 16 Q / 8 KV heads,
#        head dim 256, QK-norm replacing Gemma 2's soft-capping, 5 local : 1 global layers, local window
#        1024, RoPE base 10k local / 1M global.
#  [GA]  Qiu et al., Gated Attention for LLMs (arXiv 2505.06708, Qwen team; Qwen3-style 1.7B dense and
#        15B MoE models trained on 3.5T tokens): the ungated baseline puts 46.7 % of its attention on the
#        first token on average (gated: 4.8 %). Read from secondary summaries of its Figure 2, which disagree on
#        the model; not verified in the paper's own text (docs/workloads.md, "Presets with sources").
#  [SL]  Xiao et al., StreamingLLM (arXiv 2309.17453): beyond the bottom two layers most heads of Llama-2
#        put a large share of their attention on the first tokens; the first tokens plus a window of recent
#        tokens recover full-attention perplexity (sink + local carry most of the mass).
#  [DA]  Xiao et al., DuoAttention (arXiv 2410.10819): streaming heads (sinks + recent tokens) in place of
#        full attention at memory savings of up to 2.55x (MHA) and 1.67x (GQA, Llama-3-8B): about a quarter
#        (MHA) to a half (GQA) of the heads need the whole context.
#  [IH]  Identifying and Evaluating Inactive Heads in Pretrained LLMs (arXiv 2504.03889): more than 12 % of
#        attention heads are inactive on average (3 model families), many of them first-token sinks.
#  [AS]  Gu et al., When Attention Sink Emerges (arXiv 2410.10781): sinks in every auto-regressive LM studied
#        (LLaMA 2/3, Mistral, GPT-2, Pythia, OPT); with a sliding window the sink stays on the absolute first
#        token, and a small window keeps sinks from emerging.
#  none  no published measurement found: an estimate, with its range in docs/workloads.md.

# A pattern of 8 query heads (repeated over the layer's heads): 1 sink-only ("dormant") head, 12.5 % [IH];
# 3 streaming heads (sink + recent tokens), so that sink-only + streaming = 50 % of the heads [DA, GQA];
# 4 broad heads that read the whole context [DA]. Targets at the calibration length (4096 tokens): sink
# mass on key 0 and local mass on the last 16 keys per head type; the pattern's mean sink mass is
# [GA]'s 0.467 (the streaming heads' sink mass is what makes it so, given the others' estimates); far
# logit spread (heads.scale), sink spread over queries and the profile's decay length: estimates (none).
PATTERN = [
    {"name": "sink-only", "count": 1, "sink": 0.90, "local": 0.05, "scale": 1.5, "sink_spread": 0.5, "decay": 8},
    {"name": "streaming", "count": 3, "sink": 0.545, "local": 0.35, "scale": 1.5, "sink_spread": 0.5, "decay": 8},
    {"name": "broad", "count": 4, "sink": 0.30, "local": 0.10, "scale": 1.5, "sink_spread": 0.5, "decay": 64},
]
QWEN3 = {"name": "qwen3-8b-sourced", "file": "qwen3_8b_sourced.yaml", "heads_q": 32, "heads_kv": 8, "dim": 128,
         "seq": 4096, "rope_base": 1000000, "model": "Qwen3-8B", "types": PATTERN}
GEMMA3 = {"name": "gemma3-sourced", "file": "gemma3_sourced.yaml", "heads_q": 16, "heads_kv": 8, "dim": 256,
          "seq": 4096, "rope_base": 1000000, "model": "Gemma-3-12B global-layer", "types": PATTERN}


def profile(decay, horizon=65536):
    """Unit-height amplitudes (cos, sin per pair) of exp(-t / decay) for t >= 0: weighted least squares on
    every distance below 8 decay lengths, then log-spaced to the horizon (target 0), with a small ridge."""
    near = np.arange(0, int(8 * decay) + 1, dtype=float)
    far = np.unique(np.round(np.geomspace(8 * decay + 1, horizon, 400)))
    t = np.concatenate([near, far])
    w = np.concatenate([np.full(len(near), 1.0), np.full(len(far), len(near) / len(far))])
    a = np.concatenate([np.cos(np.outer(t, FREQ)), np.sin(np.outer(t, FREQ))], axis=1)
    y = np.exp(-t / decay)
    sw = np.sqrt(w)[:, None]
    lhs = np.vstack([a * sw, 1e-3 * np.eye(2 * P)])
    rhs = np.concatenate([y * sw[:, 0], np.zeros(2 * P)])
    x = np.linalg.lstsq(lhs, rhs, rcond=None)[0]
    return x[:P], x[P:]


def heads_of(spec):
    """The query heads of one pattern, in order, as type dicts."""
    return [t for t in spec["types"] for _ in range(t["count"])]


def fmt(v):
    return " ".join("%.6g" % x for x in v)


def knobs(spec, group, height, sink):
    """heads.* values (strings) for spec's query heads: the pattern `group` repeated, with profile heights
    and sink bonuses per head of the pattern."""
    cos, sin, scale, spread = [], [], [], []
    repeats = spec["heads_q"] // len(group)
    for _ in range(repeats):
        for h, t in enumerate(group):
            c, s = profile(t["decay"])
            cos += list(height[h] * c)
            sin += list(height[h] * s)
            scale.append(t["scale"])
            spread.append(t["sink_spread"])
    return {"pairs": str(P), "freq": fmt(FREQ * spec["heads_kv"]), "amp_cos": fmt(cos), "amp_sin": fmt(sin),
            "scale": fmt(scale), "sink": fmt(list(sink) * repeats), "sink_spread": fmt(spread)}


def yaml_text(spec, kv, comment):
    lines = comment + ["name: %s" % spec["name"],
                       'description: "SYNTHETIC: %s-shaped layer, rotary-pair heads built to sourced attention '
                       'statistics (scripts/build_presets.py), generated data"' % spec["model"],
                       "batch: 1", "heads_q: %d" % spec["heads_q"], "heads_kv: %d" % spec["heads_kv"],
                       "seq_q: %d" % spec["seq"], "seq_k: %d" % spec["seq"], "dim: %d" % spec["dim"],
                       "causal: true", "dtype: bf16", "generator: heads", "sinks:", "  count: 1",
                       "rope:", "  enabled: true", "  base: %d" % spec["rope_base"], "heads:", "  qk_norm: true"]
    for k in ("scale", "sink", "sink_spread", "pairs", "freq", "amp_cos", "amp_sin"):
        lines.append('  %s: %s' % (k, kv[k] if k == "pairs" else '"%s"' % kv[k]))
    return "\n".join(lines) + "\n"


def measure(lampsim, path, extra=()):
    """Per-head rows of `lampsim workload stats` (statistics only) as dicts of floats."""
    out = subprocess.run([lampsim, "workload", "stats", path, "--no-lamp"] + list(extra), check=True,
                         capture_output=True, text=True).stdout
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(io.StringIO(out))]


def logit(p):
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def calibrate(lampsim, spec, tmp, rounds=8):
    """Profile heights and sink bonuses of one pattern's heads so that each head's local and sink mass
    are the targets at spec["seq"] tokens: both masses are near-logistic in their knob (the sink's bonus
    adds to its logit; the profile adds about its peak times the height to the near logits), so each round
    moves every knob by the error in log-odds (a Newton step), all heads at once. Returns (height, sink,
    the rows measured with them)."""
    group = heads_of(spec)
    # the first pattern of the preset, exactly (same head and KV indices, so the same random streams)
    one = dict(spec, heads_q=len(group), heads_kv=len(group) * spec["heads_kv"] // spec["heads_q"])
    n = len(group)
    peak = [float(np.sum(profile(t["decay"])[0])) for t in group]   # the profile's height at t = 0
    height = np.array([1.0] * n)
    sink = np.array([8.0] * n)
    path = os.path.join(tmp, "calib.yaml")

    def run():
        with open(path, "w") as f:
            f.write(yaml_text(one, knobs(one, group, height, sink), []))
        return measure(lampsim, path)
    rows = run()
    for _ in range(rounds):
        for h, t in enumerate(group):
            sink[h] += logit(t["sink"]) - logit(rows[h]["sink_mass"])
            height[h] = max(0.0, height[h] + 0.8 * (logit(t["local"]) - logit(rows[h]["local_mass"])) / peak[h])
        rows = run()
    return height, sink, rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lampsim")
    ap.add_argument("--only", choices=["qwen3", "gemma3"])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("-o", "--out", default=os.path.join(_ROOT, "workloads"))
    ap.add_argument("--tmp", help="scratch directory for the calibration workload (default: a new temporary one)")
    ap.add_argument("--vary", action="append", default=[], metavar="TYPE.FIELD=VALUE",
                    help="change one target of a head type (TYPE a type name or 'all'; e.g. broad.sink=0.5, "
                         "all.sink_spread=1): the ends of an estimate's range")
    args = ap.parse_args(argv)
    for v in args.vary:
        key, eq, value = v.partition("=")
        kind, dot, field = key.partition(".")
        if not eq or not dot or field not in PATTERN[0] or field in ("name", "count"):
            raise SystemExit("build_presets: --vary %r: expected TYPE.FIELD=VALUE, FIELD one of sink, local, scale, "
                             "sink_spread, decay" % v)
        hit = [t for t in PATTERN if kind in ("all", t["name"])]
        if not hit:
            raise SystemExit("build_presets: --vary %r: no head type %r" % (v, kind))
        for t in hit:
            t[field] = float(value)
    for key, spec in (("qwen3", QWEN3), ("gemma3", GEMMA3)):
        if args.only and args.only != key:
            continue
        height, sink, rows = calibrate(args.lampsim, spec, args.tmp or tempfile.mkdtemp(prefix="build_presets"),
                                       args.rounds)
        group = heads_of(spec)
        for h, t in enumerate(group):
            print("%s %-10s height %6.3f sink %6.3f | sink mass %.3f (target %.2f) local %.3f (target %.2f) "
                  "entropy %.3f" % (key, t["name"], height[h], sink[h], rows[h]["sink_mass"], t["sink"],
                                    rows[h]["local_mass"], t["local"], rows[h]["entropy"]))
        comment = ["# SYNTHETIC %s-shaped layer [%s] written by scripts/build_presets.py; each statistic's source, or" % (
                       spec["model"], "Q3" if key == "qwen3" else "G3"),
                   "# its range as an estimate: docs/workloads.md, \"Presets with sources\". Query heads repeat a pattern of",
                   "# %d: %s." % (len(group), "; ".join(
                       "%d %s (sink mass %.3g, local mass %.3g at %d tokens)" % (t["count"], t["name"], t["sink"],
                                                                                 t["local"], spec["seq"])
                       for t in spec["types"])),
                   "# A head's mean logit at distance t is a local profile R exp(-t / decay) drawn with heads.pairs rotary",
                   "# pairs (amp_cos/amp_sin), plus the sink bonus heads.sink on key 0; R and the bonus are calibrated to",
                   "# the masses with `lampsim workload stats`. Measured: sink mass %s, local mass %s per head." % (
                       " ".join("%.3f" % r["sink_mass"] for r in rows), " ".join("%.3f" % r["local_mass"] for r in rows))]
        kv = knobs(spec, group, height, sink)
        path = os.path.join(args.out, spec["file"])
        with open(path, "w") as f:
            f.write(yaml_text(spec, kv, comment))
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
