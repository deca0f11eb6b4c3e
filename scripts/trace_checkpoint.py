#!/usr/bin/env python3
"""From a checkpoint to lampsim's model and study inputs, in one command (issue 37 part 4).

Loads a checkpoint lampsim.checkpoints reads (a Hugging Face Llama / Qwen2 / Qwen3 / Gemma 3 directory,
sharded or not; a llama2.c .bin; the tiny models' .safetensors), runs it on the first --tokens tokens
of a text file in its own tokenizer, and writes to OUT:

  traces/          Q/K/V of the traced layers (after QK-norm and RoPE, as lampsim sees them) as trace
                   workloads, and traces/model.yaml listing them (`lampsim workload stats OUT/traces`)
  stats.csv        `lampsim workload stats` of every traced (layer, head): entropy, sink and local mass,
                   logit spread, LAMP's stage-1 / HP sub-block / disruptive rates (docs/workloads.md)
  fit/layerL.yaml  `lampsim workload fit` of each traced layer (a synthetic `heads` workload with the
                   layer's heads), its self-check in fit/layerL.log
  model.yaml       a model description for `lampsim model` (docs/models.md): the checkpoint's layers,
                   heads, head dim and sliding windows, every traced layer its own fitted workload at
                   --prefill tokens, the untraced layers the fit of the middle traced layer
  slice.yaml       the middle traced layer's fit cut to one KV head and its query heads: the slice the
                   study times (configs/studies/verdict.yaml), and study.yaml, that study on this slice

    /usr/bin/python3 scripts/trace_checkpoint.py CHECKPOINT --text FILE -o OUT [--tokens 512]
        [--layers all|0,5,9] [--prefill N] [--decode N] [--lampsim build/lampsim] [--run]

--run also runs `lampsim model OUT/model.yaml -o OUT/model` and prints its table. A sliding-window layer
is traced only when --tokens fits in its window (a trace is causal attention over all its keys);
otherwise it is left untraced and said so. Then `lampsim model OUT/model.yaml` gives the cycles and
rates of the model at any prefill length, and `lampsim study OUT/study.yaml` the verdict on its slice.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import torch
import yaml

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(_ROOT, "python"))
sys.path.insert(0, os.path.join(_ROOT, "scripts"))
import workload_slice  # noqa: E402
from dump_qkv import capture_qkv, write_layer  # noqa: E402
from lampsim.checkpoints import ByteTokenizer, load_tokenizer  # noqa: E402
from lampsim.model import load_pretrained  # noqa: E402


def input_error(msg):
    """A usage or input error, found before anything is written: the message on stderr and exit 2, the CLI's
    convention (run-time failures exit 1)."""
    sys.stderr.write("lampsim trace: %s\n" % msg)
    raise SystemExit(2)


def token_ids(model, checkpoint, text_path, tokens, tokenizer=None):
    """[1, tokens] ids of the text's beginning in the checkpoint's tokenizer (a byte model trained with a BOS
    byte gets it first, as eval_ppl.py does)."""
    tok, why = load_tokenizer(checkpoint, model.config["vocab_size"], tokenizer)
    if tok is None:
        input_error("%s: give --tokenizer" % why)
    with open(text_path, encoding="utf-8") as f:
        text = f.read()
    if isinstance(tok, ByteTokenizer):
        ids = list(text.encode("utf-8"))
        if model.config.get("bos_token_id") is not None:
            ids = [int(model.config["bos_token_id"])] + ids
    else:
        ids = list(tok.encode(text[:tokens * 16]))
        if len(ids) < tokens:
            ids = list(tok.encode(text))
    if len(ids) < tokens:
        input_error("%s has %d tokens, --tokens %d asked" % (text_path, len(ids), tokens))
    return torch.tensor([ids[:tokens]], dtype=torch.long)


def layer_windows(cfg):
    """Per layer: its sliding window, or 0 for a global layer."""
    types = cfg.get("layer_types") or ["full_attention"] * cfg["num_hidden_layers"]
    return [int(cfg["sliding_window"]) if t == "sliding_attention" else 0 for t in types]


def parse_layers(spec, n):
    if spec == "all":
        return list(range(n))
    try:
        out = sorted({int(x) for x in spec.split(",")})
    except ValueError:
        input_error("--layers %r: expected 'all' or indices like 0,5,9" % spec)
    if not out or out[0] < 0 or out[-1] >= n:
        input_error("--layers %r: the model has layers 0..%d" % (spec, n - 1))
    return out


def lampsim_cmd(lampsim, args, log=None):
    r = subprocess.run([lampsim] + args, capture_output=True, text=True)
    if log:
        with open(log, "w") as f:
            f.write(r.stderr)
    if r.returncode != 0:
        raise SystemExit("lampsim trace: lampsim %s failed (exit %d):\n%s" % (" ".join(args), r.returncode,
                                                                               r.stderr.strip()))
    return r


def set_length(path, out, seq, window):
    """The fitted workload at path, written to out with seq_q = seq_k = seq and the layer's window."""
    w = yaml.safe_load(open(path))
    lines = [ln for ln in open(path).read().splitlines()
             if not ln.startswith(("seq_q:", "seq_k:", "window:"))]
    at = next(i for i, ln in enumerate(lines) if ln.startswith("dim:"))
    extra = ["seq_q: %d" % seq, "seq_k: %d" % seq] + (["window: %d" % window] if window else [])
    with open(out, "w") as f:
        f.write("\n".join(lines[:at] + extra + lines[at:]) + "\n")
    return w


def slice_workload(path, out, name):
    """The fitted workload at path cut to KV head 0 and its query heads (heads_q / heads_kv of them)."""
    try:
        return workload_slice.slice_workload(path, out, name, 1, "# The slice of %s the study times: KV head 0 and its "
                                             "query heads (scripts/trace_checkpoint.py).\n" % os.path.basename(path))
    except workload_slice.SliceError as e:
        raise SystemExit("lampsim trace: %s" % e)


def study_spec(out_dir, slice_path, g):
    """configs/studies/verdict.yaml with the slice as its workload (paths made absolute)."""
    src = os.path.join(_ROOT, "configs", "studies", "verdict.yaml")
    text = open(src).read()
    here = os.path.dirname(os.path.abspath(src))
    text = text.replace("include: ../lampattention.yaml", "include: %s" % os.path.join(os.path.dirname(here),
                                                                                      "lampattention.yaml"), 1)
    text = text.replace("file: ../../workloads/qwen3_8b_like.yaml", "file: %s" % os.path.abspath(slice_path), 1)
    text = text.replace("    heads_q: 4\n    heads_kv: 1\n", "    heads_q: %d\n    heads_kv: 1\n" % g, 1)
    # the 32k regime's single query head would not match the slice's per-head knobs: it runs them all
    label = 'label: "prefill 32k (1 Q head, numerics sampled)"'
    labelled = label in text
    text = text.replace(label, 'label: "prefill 32k (the slice\'s %d Q heads, numerics sampled)"' % g, 1)
    text = text.replace("set: {workload.heads_q: 1, workload.seq_q: 32768", "set: {workload.seq_q: 32768", 1)
    if os.path.abspath(slice_path) not in text or "workload.heads_q: 1," in text or not labelled:
        raise SystemExit("lampsim trace: %s changed shape: cannot point it at the slice" % src)
    path = os.path.join(out_dir, "study.yaml")
    with open(path, "w") as f:
        f.write("# configs/studies/verdict.yaml on the slice of a traced checkpoint (scripts/trace_checkpoint.py).\n"
                + text)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(prog="lampsim trace", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--text", required=True, help="UTF-8 text the model reads (its first --tokens tokens)")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--tokens", type=int, default=512, help="tokens traced (default 512)")
    ap.add_argument("--layers", default="all", help="layers to trace: all (default) or indices 0,5,9")
    ap.add_argument("--prefill", type=int, help="prompt length of the model description (default --tokens)")
    ap.add_argument("--decode", type=int, default=0, help="generated tokens of the model description (default 0)")
    ap.add_argument("--tokenizer", help="tokenizer.bin or tokenizer.json, if not the checkpoint's own")
    ap.add_argument("--lampsim", default=os.path.join(_ROOT, "build", "lampsim"))
    ap.add_argument("--run", action="store_true", help="also run lampsim model OUT/model.yaml -o OUT/model")
    args = ap.parse_args(argv)
    if args.tokens < 16:
        input_error("--tokens %d: at least 16" % args.tokens)
    prefill = args.prefill or args.tokens
    torch.set_num_threads(1)
    try:
        model = load_pretrained(args.checkpoint)
    except (ValueError, OSError) as e:
        input_error(str(e))
    cfg = model.config
    n_layers, hq, hk, d = cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    windows = layer_windows(cfg)
    asked = parse_layers(args.layers, n_layers)
    traced = [l for l in asked if not windows[l] or windows[l] >= args.tokens]
    for l in sorted(set(asked) - set(traced)):
        print("layer %d: sliding window %d < %d tokens: not traced (a trace is causal attention over all its keys)"
              % (l, windows[l], args.tokens))
    if not traced:
        input_error("no layer to trace (give --tokens at most the sliding window, or global layers)")
    ids = token_ids(model, args.checkpoint, args.text, args.tokens, args.tokenizer)
    out = os.path.abspath(args.out)
    tdir, fdir = os.path.join(out, "traces"), os.path.join(out, "fit")
    os.makedirs(tdir, exist_ok=True)
    os.makedirs(fdir, exist_ok=True)
    pattern = r"model\.layers\.(%s)\.self_attn\.core" % "|".join(str(l) for l in traced)
    captured = capture_qkv(model, lambda: model(ids), mode="hook", module=pattern)
    if len(captured) != len(traced):
        raise SystemExit("lampsim trace: captured %d layers, %d asked" % (len(captured), len(traced)))
    name = os.path.basename(os.path.normpath(args.checkpoint)).replace(".", "-") or "model"
    tlines = ["# Q/K/V of %s on the first %d tokens of %s (scripts/trace_checkpoint.py)." % (
                  name, args.tokens, os.path.basename(args.text)),
              "name: %s" % json.dumps(name + "-traced"), "layers: %d" % n_layers, "heads_q: %d" % hq, "heads_kv: %d" % hk,
              "dim: %d" % d, "prefill: %d" % args.tokens, "traces:"]
    for l, layer in zip(traced, captured):
        write_layer(layer, tdir, l, dtype="fp32", name="%s-layer%d" % (name, l))
        tlines.append("  %d: layer%d.yaml" % (l, l))
    with open(os.path.join(tdir, "model.yaml"), "w") as f:
        f.write("\n".join(tlines) + "\n")
    print("traced layers %s: %s" % (",".join(map(str, traced)), tdir))
    lampsim_cmd(args.lampsim, ["workload", "stats", tdir, "-o", os.path.join(out, "stats.csv")],
                os.path.join(out, "stats.log"))
    print("statistics: %s (summary per layer: %s)" % (os.path.join(out, "stats.csv"), os.path.join(out, "stats.log")))
    worst = []
    for l in traced:
        fitted = os.path.join(fdir, "layer%d.yaml" % l)
        r = lampsim_cmd(args.lampsim, ["workload", "fit", os.path.join(tdir, "layer%d.yaml" % l), "-o", fitted,
                                       "--name", "%s-layer%d-fitted" % (name, l)], os.path.join(fdir, "layer%d.log" % l))
        warn = [ln for ln in r.stderr.splitlines() if "warning" in ln.lower()]
        worst += ["layer %d: %s" % (l, w.strip()) for w in warn]
        set_length(fitted, os.path.join(fdir, "layer%d_prefill.yaml" % l), prefill, windows[l])
    print("fits: %s (self-checks in fit/layerL.log)" % fdir)
    for w in worst:
        print("  " + w)
    mid = traced[len(traced) // 2]
    lines = ["# %s: its attention shape with each traced layer's fitted workload (scripts/trace_checkpoint.py" % name,
             "# on the first %d tokens of %s); untraced layers take layer %d's fit." % (
                 args.tokens, os.path.basename(args.text), mid),
             "name: %s" % json.dumps(name), "config: %s" % os.path.join(os.path.abspath(_ROOT), "configs", "lampattention.yaml"),
             "workload: fit/layer%d.yaml" % mid, "layers: %d" % n_layers, "heads_q: %d" % hq, "heads_kv: %d" % hk,
             "dim: %d" % d, "batch: 1", "prefill: %d" % prefill, "decode: %d" % args.decode]
    if args.decode:
        lines.append("decode_samples: 4")
    if any(windows):
        lines.append("window_pattern: [%s]" % ", ".join(str(w) for w in windows))
    lines.append("traces:")
    lines += ["  %d: fit/layer%d_prefill.yaml" % (l, l) for l in traced]
    mpath = os.path.join(out, "model.yaml")
    with open(mpath, "w") as f:
        f.write("\n".join(lines) + "\n")
    g = slice_workload(os.path.join(fdir, "layer%d.yaml" % mid), os.path.join(out, "slice.yaml"),
                       "%s-layer%d-slice" % (name, mid))
    spath = study_spec(out, os.path.join(out, "slice.yaml"), g)
    print("model description: %s\nstudy: %s (slice: layer %d, %d query heads on 1 KV head)" % (mpath, spath, mid, g))
    if args.run:
        r = lampsim_cmd(args.lampsim, ["model", mpath, "-o", os.path.join(out, "model"), "--force"])
        print(r.stdout, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
