#!/usr/bin/env python3
"""Perplexity of a PyTorch model with its attention computed by lampsim, across modes and tau.

For the tiny model (models/tiny_kjv.safetensors, default) or any checkpoint lampsim.checkpoints
reads (a Hugging Face Llama / Qwen2 / Qwen3 / Gemma 3 directory, sharded or not; a llama2.c .bin)
on held-out King James text (or --text FILE) in the checkpoint's tokenizer (byte-level for a
vocabulary of 256; tokenizer.bin beside a .bin; tokenizer.json with the `tokenizers` package;
--tokenizer to name one), or on given token ids (--ids, .npy int array [sequences, tokens + 1]). Modes: torch's own fp32 attention, lampsim fa2_fp32, fa2_16bit, pure_8bit,
LAMP at each tau, and random recompute at the sub-block rate LAMP reached at that tau. Per layer:
disruptive-tile rate and recompute (HP sub-block) rate; per head: disruptive-tile rate and HP
sub-blocks per executed key tile (from the per-tile records). Writes DIR/ppl.csv, DIR/ppl.json,
DIR/layers.csv and the plots DIR/ppl_vs_tau.png, DIR/ppl_vs_rate.png.

    /usr/bin/python3 scripts/eval_ppl.py -o out/ppl [--sequences 16] [--tokens 256] [--tau 1,0.5,0.25,0.125]
    /usr/bin/python3 scripts/eval_ppl.py -o out/ppl --dump-traces out/tiny_traces   # Q/K/V for `lampsim model`

With --dump-traces, the Q/K/V of every layer on the first held-out sequence are written as lampsim
trace workloads (scripts/dump_qkv.py format) with a model description DIR/model.yaml for
`lampsim model`.
"""
import argparse
import csv
import json
import math
import os
import sys
import time

import numpy as np
import torch

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(_ROOT, "python"))
sys.path.insert(0, os.path.join(_ROOT, "scripts"))
import lampsim  # noqa: E402
from lampsim import kjv  # noqa: E402
from lampsim.checkpoints import ByteTokenizer, load_tokenizer  # noqa: E402
from lampsim.model import load_pretrained  # noqa: E402

DEFAULT_CHECKPOINT = os.path.join(_ROOT, "models", "tiny_kjv.safetensors")


def heldout_ids(sequences, tokens, tokenizer=None, text=None):
    """[sequences, tokens + 1] token ids from the held-out King James text (or text), consecutive
    windows; byte ids unless a tokenizer is given."""
    if text is None:
        _, held = kjv.split(kjv.kjv_bytes())
    else:
        held = text.encode("utf-8")
    need = sequences * (tokens + 1)
    if tokenizer is not None:
        # encode a prefix long enough for the windows (a few bytes per token at most), not the whole text
        ids = np.asarray(tokenizer.encode(held[:need * 16].decode("utf-8", errors="ignore")), dtype=np.int64)
        if len(ids) < need and len(held) > need * 16:
            ids = np.asarray(tokenizer.encode(held.decode("utf-8", errors="ignore")), dtype=np.int64)
    else:
        ids = np.frombuffer(held, dtype=np.uint8).astype(np.int64)
    if need > len(ids):
        raise SystemExit("the text has %d tokens, %d asked (--sequences x (--tokens + 1))" % (len(ids), need))
    return torch.from_numpy(ids[:need].reshape(sequences, tokens + 1).copy())


def begin_with_bos(ids, model):
    """For a byte-level checkpoint trained with a BOS byte (train_tiny_lm.py --bos, the config's
    bos_token_id): each window's first byte gives way to it, as in training, so the predicted
    bytes are those of the same windows without it. Returns the id, or None (ids unchanged)."""
    bos = model.config.get("bos_token_id")
    if bos is None:
        return None
    ids[:, 0] = int(bos)
    return int(bos)


def perplexity(model, ids, batch):
    """exp(mean next-token NLL) over all sequences, in float64."""
    nll, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, ids.shape[0], batch):
            x = ids[i:i + batch]
            logits = model(x[:, :-1]).double()
            nll += float(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1),
                                                           reduction="sum"))
            count += x[:, 1:].numel()
    return math.exp(nll / count)


def run_mode(model, ids, batch, label, options):
    """Perplexity with lampsim attention (options: mode, tau, random_rate, threads) and per-layer and
    per-head figures; options None: torch's own attention."""
    if options is None:
        return {"label": label, "mode": "torch_fp32", "ppl": perplexity(model, ids, batch)}, []
    with lampsim.patch_modules(model, records=True, **options) as calls:
        ppl = perplexity(model, ids, batch)
    layers = {}
    for name, st in calls:
        acc = layers.setdefault(name, {"executed": 0, "disruptive": 0, "hp": 0, "active": 0, "heads": None})
        hr = lampsim.head_rates(st["records"])
        acc["executed"] += st["tiles.executed"]
        acc["disruptive"] += sum(st["tiles.hp_subblocks_hist"][2:])
        acc["hp"] += st["recompute.stage1_subblocks"] + st["recompute.stage2_subblocks"]
        acc["active"] += st["recompute.subblocks_active"]
        acc["heads"] = hr if acc["heads"] is None else {k: acc["heads"][k] + hr[k]
                                                        for k in ("executed", "disruptive", "hp_subblocks")}
    rows, tot = [], {"executed": 0, "disruptive": 0, "hp": 0, "active": 0}
    for li, (name, acc) in enumerate(layers.items()):
        for k in tot:
            tot[k] += acc[k]
        heads = acc["heads"]
        rows.append({"label": label, "layer": li, "module": name,
                     "disruptive_rate": acc["disruptive"] / max(1, acc["executed"]),
                     "subblock_rate": acc["hp"] / max(1, acc["active"]),
                     "head_disruptive_rates": ";".join("%.4f" % (d / max(1, e)) for d, e in
                                                       zip(heads["disruptive"], heads["executed"])),
                     "head_hp_subblocks_per_tile": ";".join("%.3f" % (h / max(1, e)) for h, e in
                                                            zip(heads["hp_subblocks"], heads["executed"]))})
    res = {"label": label, "mode": options["mode"], "tau": options.get("tau"), "random_rate": options.get("random_rate"),
           "ppl": ppl, "disruptive_rate": tot["disruptive"] / max(1, tot["executed"]),
           "subblock_rate": tot["hp"] / max(1, tot["active"])}
    return res, rows


def evaluate(model, ids, taus, batch=8, threads=2, random_control=True, progress=print, settings=None):
    """The table: list of result dicts (label, mode, tau, random_rate, ppl, disruptive_rate,
    subblock_rate) and the per-layer rows. settings: configuration keys set in every lampsim mode
    ({"algorithm.lp_datapath": "fused"}), or None."""
    plan = [("torch fp32", None), ("fa2_fp32", {"mode": "fa2_fp32"}), ("fa2_16bit", {"mode": "fa2_16bit"}),
            ("pure_8bit", {"mode": "pure_8bit"})]
    plan += [("lamp tau=%g" % t, {"mode": "lamp", "tau": float(t)}) for t in taus]
    results, layer_rows = [], []
    for label, opts in plan:
        if opts is not None:
            opts = dict(opts, threads=threads)
            if settings:
                opts["settings"] = dict(settings)
        t0 = time.time()
        res, rows = run_mode(model, ids, batch, label, opts)
        results.append(res)
        layer_rows += rows
        progress("%-22s ppl %.4f  (%.0f s)" % (label, res["ppl"], time.time() - t0))
        if random_control and opts and opts["mode"] == "lamp":
            rate = min(1.0, res["subblock_rate"])
            rl = "random @ lamp tau=%g" % opts["tau"]
            ropts = {"mode": "random", "random_rate": rate, "threads": threads}
            if settings:
                ropts["settings"] = dict(settings)
            rres, rrows = run_mode(model, ids, batch, rl, ropts)
            rres["tau"] = opts["tau"]  # the tau whose rate it matches
            results.append(rres)
            layer_rows += rrows
            progress("%-22s ppl %.4f" % (rl, rres["ppl"]))
    return results, layer_rows


def write_outputs(out, results, layer_rows, meta):
    os.makedirs(out, exist_ok=True)
    cols = ["label", "mode", "tau", "random_rate", "ppl", "disruptive_rate", "subblock_rate"]
    with open(os.path.join(out, "ppl.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in results:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    with open(os.path.join(out, "layers.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["label", "layer", "module", "disruptive_rate", "subblock_rate",
                                          "head_disruptive_rates", "head_hp_subblocks_per_tile"])
        w.writeheader()
        w.writerows(layer_rows)
    with open(os.path.join(out, "ppl.json"), "w") as f:
        json.dump({"meta": meta, "results": results, "layers": layer_rows}, f, indent=1, sort_keys=True)
    plot(out, results)


def plot(out, results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    by = {r["label"]: r for r in results}
    lamp = [r for r in results if r["mode"] == "lamp"]
    rand = [r for r in results if r["mode"] == "random"]
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.plot([r["tau"] for r in lamp], [r["ppl"] for r in lamp], "o-", label="LAMP")
    if rand:
        ax.plot([r["tau"] for r in lamp], [r["ppl"] for r in rand], "s--", label="random at LAMP's rate")
    for key, style in (("torch fp32", "k-"), ("fa2_16bit", "g:"), ("pure_8bit", "r-.")):
        if key in by:
            ax.axhline(by[key]["ppl"], color=style[0], linestyle=style[1:], label=key)
    ax.set_xscale("log", base=2)
    _finish(fig, ax, "tau", os.path.join(out, "ppl_vs_tau.png"))
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.plot([100 * r["subblock_rate"] for r in lamp], [r["ppl"] for r in lamp], "o-", label="LAMP (tau varies)")
    ax.plot([100 * r["subblock_rate"] for r in rand], [r["ppl"] for r in rand], "s--", label="random")
    if "pure_8bit" in by:
        ax.plot([0], [by["pure_8bit"]["ppl"]], "r^", label="pure 8-bit")
    if "fa2_16bit" in by:
        ax.plot([100], [by["fa2_16bit"]["ppl"]], "gv", label="16-bit")
    _finish(fig, ax, "recomputed sub-blocks (%)", os.path.join(out, "ppl_vs_rate.png"))


def _finish(fig, ax, xlabel, path):
    import matplotlib.pyplot as plt
    ax.set_xlabel(xlabel)
    ax.set_ylabel("perplexity (held-out)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def dump_traces(model, ids, out):
    """Q/K/V of every layer on ids [1, T] as lampsim traces, plus DIR/model.yaml for `lampsim model`."""
    from dump_qkv import capture_qkv, write_layer
    layers = capture_qkv(model, lambda: model(ids), mode="hook", module=r".*\.core")
    cfg = model.config
    lines = ["# Real activations of %s (scripts/eval_ppl.py --dump-traces), one trace per layer." % cfg.get(
                 "model_type", "model"),
             "name: traced-%s" % cfg.get("model_type", "model"), "layers: %d" % len(layers),
             "heads_q: %d" % cfg["num_attention_heads"], "heads_kv: %d" % cfg["num_key_value_heads"],
             "dim: %d" % cfg["head_dim"], "prefill: %d" % ids.shape[1], "traces:"]
    for i, layer in enumerate(layers):
        write_layer(layer, out, i, dtype="fp32")
        lines.append("  %d: layer%d.yaml" % (i, i))
    with open(os.path.join(out, "model.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return os.path.join(out, "model.yaml")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", required=True, help="output directory")
    ap.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT,
                    help="tiny-model .safetensors, a Hugging Face directory (config.json + *.safetensors) or a "
                         "llama2.c .bin")
    ap.add_argument("--tokenizer", help="tokenizer.bin (llama2.c) or tokenizer.json (needs `tokenizers`); default: "
                                        "the checkpoint's own, byte-level for a vocabulary of 256")
    ap.add_argument("--text", help="UTF-8 text file to evaluate on (default: the held-out King James text)")
    ap.add_argument("--ids", help=".npy int array [sequences, tokens+1] of token ids (instead of text)")
    ap.add_argument("--sequences", type=int, default=16)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--tau", default="1,0.5,0.25,0.125,0.0625")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-random", action="store_true", help="skip the random-recompute control")
    ap.add_argument("--dump-traces", metavar="DIR", help="also write per-layer Q/K/V traces and DIR/model.yaml")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="configuration key for every lampsim mode (repeatable), e.g. algorithm.lp_datapath=fused")
    args = ap.parse_args(argv)
    settings = {}
    for kv in args.set:
        key, eq, value = kv.partition("=")
        if not eq or not key:
            raise SystemExit("eval_ppl: --set %r: expected KEY=VALUE" % kv)
        settings[key] = value
    torch.set_num_threads(1)
    try:
        model = load_pretrained(args.checkpoint)
    except (ValueError, OSError) as e:
        raise SystemExit("eval_ppl: %s" % e)
    vocab = model.config["vocab_size"]
    bos = None  # the id put first in every sequence (byte-level checkpoints trained with a BOS byte)
    if args.ids:
        ids = torch.from_numpy(np.load(args.ids).astype(np.int64))
        if ids.dim() != 2 or int(ids.min()) < 0 or int(ids.max()) >= vocab:
            raise SystemExit("eval_ppl: %s: expected int ids [sequences, tokens + 1] in [0, %d)" % (args.ids, vocab))
    else:
        try:
            tok, why = load_tokenizer(args.checkpoint, vocab, args.tokenizer)
        except (ValueError, OSError) as e:
            raise SystemExit("eval_ppl: %s" % e)
        if tok is None:
            raise SystemExit("eval_ppl: %s: give --tokenizer or token ids with --ids" % why)
        text = None
        if args.text:
            with open(args.text, encoding="utf-8") as f:
                text = f.read()
        ids = heldout_ids(args.sequences, args.tokens, None if isinstance(tok, ByteTokenizer) else tok, text)
        if isinstance(tok, ByteTokenizer):
            bos = begin_with_bos(ids, model)
        if int(ids.max()) >= vocab:
            raise SystemExit("eval_ppl: the tokenizer gives id %d, the model has %d tokens" % (int(ids.max()), vocab))
    taus = [float(t) for t in args.tau.split(",")]
    try:   # e.g. a sliding-window layer longer than its window: refused by name, nothing written
        results, rows = evaluate(model, ids, taus, args.batch, args.threads, not args.no_random, settings=settings)
    except (NotImplementedError, lampsim.LampsimError) as e:
        raise SystemExit("eval_ppl: %s" % e)
    meta = {"checkpoint": os.path.relpath(args.checkpoint, _ROOT) if args.checkpoint.startswith(_ROOT)
            else args.checkpoint, "sequences": int(ids.shape[0]), "tokens": int(ids.shape[1] - 1),
            "lampsim": lampsim.version(), "model_type": model.config["model_type"],
            "bos_token_id": bos, "settings": settings}
    write_outputs(args.out, results, rows, meta)
    if args.dump_traces:
        try:
            print("wrote", dump_traces(model, ids[:1, :-1], args.dump_traces))
        except ValueError as e:
            raise SystemExit("eval_ppl: --dump-traces: %s" % e)
    print("wrote %s/ppl.csv, ppl.json, layers.csv, ppl_vs_tau.png, ppl_vs_rate.png" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
