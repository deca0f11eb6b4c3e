#!/usr/bin/env python3
"""`lampsim trace` (scripts/trace_checkpoint.py) end to end (issue 37 part 4): the shipped tiny model, a random Qwen3 and a
random Gemma 3 checkpoint (Hugging Face directories, byte vocabulary) traced on held-out text; the
statistics cover every traced (layer, head); each traced layer's fit checks itself within 0.08 of the
traces' LAMP rates at the fitted seed and within 0.05 over the check's 5 seeds (mean over heads; docs/workloads.md),
Gemma 3 also at 512 tokens, and says when it searched a layer's far spread for its stage-1 share; the model description has
the checkpoint's layers, heads and sliding windows and runs through `lampsim model`; Gemma's sliding
layers longer than their window are left untraced and take the fitted window; the study's slice runs
under the study's base.
usage: test_trace_checkpoint.py LAMPSIM TMPDIR"""
import csv
import os
import re
import shutil
import subprocess
import sys

try:
    import torch  # noqa: F401
except ImportError:
    print("skipped: no torch")
    sys.exit(77)
import yaml

from checks import ROOT, check, done  # noqa: E402
from lampsim import checkpoints as C  # noqa: E402
from lampsim import kjv  # noqa: E402
from test_checkpoints import randomized  # noqa: E402
import study  # noqa: E402

BASE = {"vocab_size": 256, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4,
        "num_attention_heads": 8, "num_key_value_heads": 2, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "max_position_embeddings": 1024, "tie_word_embeddings": True, "head_dim": 64}

# what the fit says of a layer whose far spread it searched for its stage-1 share
SPREAD_NOTE = re.compile(r"fitted layer 0: stage 1 ([-+][.\d]+) off the traces' \(3 seeds\) at the analytic far spread; "
                         r"(?:kept|scale x([.\d]+) gives ([-+][.\d]+))")


def trace(lampsim, ckpt, text, out, *extra):
    # the user's path: `lampsim trace` (it runs scripts/trace_checkpoint.py with this binary)
    r = subprocess.run([lampsim, "trace", ckpt, "--text", text, "-o", out, "--run", "--python", sys.executable]
                       + list(extra), capture_output=True, text=True)
    check(r.returncode == 0, "lampsim trace %s %s: exit 0%s" % (os.path.basename(ckpt), " ".join(extra),
                                                                   "" if r.returncode == 0 else ": " + r.stderr[-800:]))
    return r.stdout


def fit_table(log, names):
    """Rows of a fit's self-check table: (traces, fitted, mean error at the fitted seed, mean error over it and the
    other seeds the check measures)."""
    out = {}
    for line in open(log):
        f = line.split()
        if f and f[0] in names:
            out[f[0]] = (float(f[1]), float(f[2]), float(f[3]), float(f[-1]))
    return out


def fit_errors(log):
    """Mean errors of the LAMP rates in a fit's self-check table: at the fitted seed, and over all seeds."""
    return {k: v[2:] for k, v in fit_table(log, ("stage1_rate", "subblock_rate", "disruptive_rate")).items()}


def main(lampsim, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    _, held = kjv.split(kjv.kjv_bytes())
    text = os.path.join(tmp, "held.txt")
    with open(text, "wb") as f:
        f.write(held[:20000])
    qdir, gdir = os.path.join(tmp, "qwen3"), os.path.join(tmp, "gemma3")
    C.export_hf(randomized(dict(BASE, model_type="qwen3"), 5), qdir)
    C.export_hf(randomized(dict(BASE, model_type="gemma3_text", query_pre_attn_scalar=64, sliding_window=128,
                                sliding_window_pattern=2, rope_local_base_freq=10000.0), 6), gdir)
    cases = [("tiny", os.path.join(ROOT, "models", "tiny_kjv.safetensors"), ["--tokens", "256"], 4, 4, 2, [0, 0, 0, 0]),
             ("qwen3", qdir, ["--tokens", "256", "--prefill", "512", "--decode", "16"], 4, 8, 2, [0, 0, 0, 0]),
             ("gemma3", gdir, ["--tokens", "128"], 4, 8, 2, [128, 0, 128, 0]),
             ("gemma3_long", gdir, ["--tokens", "256"], 4, 8, 2, [128, 0, 128, 0]),
             # 512 tokens: its layer 1 was -0.075 over 5 seeds before the calibration chose the amplitude for local
             # mass and entropy together (near-uniform heads had been scaled up 3-8x)
             ("gemma3_512", gdir, ["--tokens", "512"], 4, 8, 2, [128, 0, 128, 0])]
    # bad input: a usage error, a missing checkpoint and a bad --layers each exit non-zero, naming the problem
    r = subprocess.run([lampsim, "trace"], capture_output=True, text=True)
    check(r.returncode == 2 and "usage: lampsim trace" in r.stderr, "lampsim trace with no checkpoint: usage, exit 2")
    r = subprocess.run([lampsim, "trace", os.path.join(tmp, "missing"), "--text", text, "-o", os.path.join(tmp, "x"),
                        "--python", sys.executable], capture_output=True, text=True)
    check(r.returncode == 2 and "missing" in r.stderr, "lampsim trace on a missing checkpoint names it, exit 2 (%d)"
          % r.returncode)
    r = subprocess.run([lampsim, "trace", qdir, "--text", text, "-o", os.path.join(tmp, "x"), "--layers", "9",
                        "--python", sys.executable], capture_output=True, text=True)
    check(r.returncode == 2 and "--layers" in r.stderr and not os.path.exists(os.path.join(tmp, "x")),
          "lampsim trace --layers 9 on a 4-layer model: refused, exit 2, nothing written (%d)" % r.returncode)
    for label, ckpt, extra, layers, hq, hk, windows in cases:
        out = os.path.join(tmp, "out_" + label)
        stdout = trace(lampsim, ckpt, text, out, *extra)
        tokens = int(extra[extra.index("--tokens") + 1])
        traced = [l for l in range(layers) if not windows[l] or windows[l] >= tokens]
        rows = list(csv.DictReader(open(os.path.join(out, "stats.csv"))))
        check(sorted({int(r["layer"]) for r in rows}) == traced and len(rows) == len(traced) * hq,
              "%s: stats.csv has the %d traced layers x %d heads" % (label, len(traced), hq))
        worst = worst_seeds = 0.0
        spread = {}
        for l in traced:
            log = os.path.join(out, "fit", "layer%d.log" % l)
            errs = fit_errors(log)
            check(len(errs) == 3, "%s layer %d: the fit's self-check reports the three rates" % (label, l))
            said = open(log).read()
            geo = fit_table(log, ("stage1_exact", "top_cos"))
            check(set(geo) == {"stage1_exact", "top_cos"} and 0 < geo["top_cos"][0] <= 1 and 0 < geo["top_cos"][1] <= 1,
                  "%s layer %d: the self-check gives stage 1 on exact logits and the top keys' cosines (%s)" % (label, l, geo))
            if label == "tiny":   # QK-norm: a query's top key at cosine 0.58-0.65 (docs/workloads.md)
                check(0.5 < geo["top_cos"][0] < 0.75, "tiny layer %d: the traces' top_cos %.3f" % (l, geo["top_cos"][0]))
            for name, (e, e5) in errs.items():   # each miss warned (at the fitted seed or over 5), and said to be
                # sampling, e4m3's or the fit's; a rate within 0.05 both ways is not warned
                check((abs(e) > 0.05 or abs(e5) > 0.05) == (("warning: %s" % name) in said),
                      "%s layer %d: %s %+.3f / %+.3f over 5 seeds: warned exactly when past 0.05" % (label, l, name, e, e5))
                if abs(e) > 0.05 or abs(e5) > 0.05:
                    why = ("too few tiles to pin it" if abs(e5) <= 0.05 else
                           "e4m3's sequential rounding of q.k" if name != "disruptive_rate" and
                           abs(geo["stage1_exact"][3]) <= 0.05 else "the fit cannot reproduce it")
                    check(("warning: %s" % name) in said and why in said.split("warning: %s" % name)[1].split("\n")[0],
                          "%s layer %d: %s %+.3f off (%+.3f over 5 seeds) warned: '%s'" % (label, l, name, e, e5, why))
            # a layer's far spread is searched only when stage 1 is more than 0.02 off (3 seeds) at the analytic one,
            # and a factor is taken only when it brings stage 1 nearer
            notes = SPREAD_NOTE.findall(said)
            check(len(notes) <= 1 and all(abs(float(b)) > 0.02 and (not f or abs(float(a)) < abs(float(b)))
                                          for b, f, a in notes),
                  "%s layer %d: the far spread's search said, and brought stage 1 nearer (%s)" % (label, l, notes))
            spread[l] = float(notes[0][1]) if notes and notes[0][1] else 1.0
            worst = max([worst] + [abs(e) for e, _ in errs.values()])
            worst_seeds = max([worst_seeds] + [abs(a) for _, a in errs.values()])
        if label == "tiny":   # layer 0: e4m3 takes stage 1 down (less spread); layer 3: the logits' bias (more)
            check(spread.get(0, 1) < 1 < spread.get(3, 1), "tiny: the far spread's factor below 1 on layer 0, above on "
                  "layer 3 (%s)" % spread)
        check(worst <= 0.08, "%s: every traced layer's fitted rates within 0.08 of its traces' (worst mean error "
              "%.3f; target 0.05)" % (label, worst))
        # the tiny model's layers 0 and 3 were +0.054 and -0.061 over 5 seeds before the layer's far spread was
        # searched for its stage-1 share (docs/workloads.md)
        check(worst_seeds <= 0.05, "%s: averaged over the check's seeds, every traced layer's fitted rates within 0.05 "
              "of its traces' (worst %.3f)" % (label, worst_seeds))
        m = yaml.safe_load(open(os.path.join(out, "model.yaml")))
        check(m["layers"] == layers and m["heads_q"] == hq and m["heads_kv"] == hk and
              sorted(m["traces"]) == traced and m.get("window_pattern", [0] * layers) == windows,
              "%s: model.yaml has the checkpoint's layers, heads, windows and one fitted workload per traced layer"
              % label)
        prefill = int(extra[extra.index("--prefill") + 1]) if "--prefill" in extra else tokens
        lrows = list(csv.DictReader(open(os.path.join(out, "model", "layers.csv"))))
        pre = [r for r in lrows if r["phase"] == "prefill"]
        check(len(pre) == layers and all(int(r["seq_q"]) == prefill for r in pre) and
              [int(r["window"]) for r in pre] == windows,
              "%s: lampsim model runs every layer at prefill %d with its window" % (label, prefill))
        if label == "gemma3_long":
            check("layer 0: sliding window 128 < 256 tokens: not traced" in stdout,
                  "gemma3 at 256 tokens: the sliding layers are left untraced, and said so")
        sl = yaml.safe_load(open(os.path.join(out, "slice.yaml")))
        pairs = int(sl["heads"]["pairs"])
        check(sl["heads_q"] == hq // hk and sl["heads_kv"] == 1 and
              len(str(sl["heads"]["amp_cos"]).split()) == pairs * hq // hk,
              "%s: slice.yaml is one KV head and its %d query heads" % (label, hq // hk))
        spec = study.load_spec(os.path.join(out, "study.yaml"), False)
        bdir = os.path.join(out, "study_base")
        os.makedirs(bdir, exist_ok=True)
        base = study.write_base(spec, bdir)
        r = subprocess.run([lampsim, "run", base, "--set", "workload.seq_q=256", "--set", "workload.seq_k=256",
                            "--quiet"], capture_output=True, text=True)
        check(r.returncode == 0, "%s: the study's base runs on the slice%s" % (label, "" if r.returncode == 0
                                                                               else ": " + r.stderr[-400:]))
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
