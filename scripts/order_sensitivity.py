#!/usr/bin/env python3
"""Perplexity of pure 8-bit and LAMP attention under permutations of the head-dim coordinates.

q.k does not depend on the order of the head's coordinates in exact arithmetic, but pure 8-bit
accumulates the products one by one in e4m3 (docs/numerics.md), so its rounding does. A checkpoint
stores one order (Hugging Face files: RoPE pairs (j, j + d/2); llama2.c: (2j, 2j + 1)); a loader that
permutes rows changes 8-bit results. This script applies the same permutation to q and k of every
head after RoPE and QK-norm, just before lampsim's core (the same scores as permuting the q/k
projection rows), and measures perplexity in each order on the held-out text as eval_ppl.py does.

    /usr/bin/python3 scripts/order_sensitivity.py -o out/order [--checkpoint PATH] [--random 4]

Orders: `checkpoint` (as stored), `interleaved` (the half-split pairs (j, j + d/2) to (2j, 2j + 1):
what a llama2.c export of a half-split model stores, and so what the llama2.c loader now keeps, where
it used to permute back to the stored order) and `random-N` (seeded). Writes
DIR/order.csv (order, mode, tau, ppl, vs torch fp32); fa2_fp32 in the first two orders is the control (fp32
sums: the order moves them by rounding only).
"""
import argparse
import contextlib
import csv
import os
import sys

import torch

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(_ROOT, "python"))
sys.path.insert(0, os.path.join(_ROOT, "scripts"))
import lampsim  # noqa: E402
from eval_ppl import DEFAULT_CHECKPOINT, begin_with_bos, heldout_ids, perplexity  # noqa: E402
from lampsim.model import load_pretrained  # noqa: E402


def orders(d, n_random):
    """(name, permutation of range(d)) pairs: position i of the permuted vector holds coordinate p[i]."""
    half = d // 2
    out = [("checkpoint", list(range(d))),
           ("interleaved", [j // 2 + (j % 2) * half for j in range(d)])]
    for s in range(n_random):
        g = torch.Generator().manual_seed(1000 + s)
        out.append(("random-%d" % s, torch.randperm(d, generator=g).tolist()))
    return out


@contextlib.contextmanager
def permuted_cores(model, perm):
    """Within the block, every CoreAttention's (current, e.g. lampsim-patched) forward gets q and k with
    their last dimension permuted by perm (v and the output as they are)."""
    p = torch.tensor(perm)
    cores = [(m, vars(m).get("forward")) for _, m in model.named_modules() if type(m).__name__ == "CoreAttention"]
    for m, _ in cores:
        f = m.forward
        m.forward = lambda q, k, v, causal=True, _f=f: _f(q[..., p], k[..., p], v, causal=causal)
    try:
        yield
    finally:
        for m, before in cores:   # exactly what was there (the patch's forward, or none)
            if before is None:
                vars(m).pop("forward", None)
            else:
                m.forward = before


def ppl_in_order(model, ids, perm, options, batch):
    """Perplexity with lampsim attention (options) on q and k permuted by perm."""
    with lampsim.patch_modules(model, **options), permuted_cores(model, perm):
        return perplexity(model, ids, batch)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT)
    ap.add_argument("--sequences", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--tau", default="0.5", help="LAMP's tau values, comma-separated")
    ap.add_argument("--random", type=int, default=2, help="seeded random orders")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    model = load_pretrained(args.checkpoint)
    if model.config.get("vocab_size") != 256:
        raise SystemExit("order_sensitivity: byte-level checkpoints only (the held-out text as bytes)")
    ids = heldout_ids(args.sequences, args.tokens)
    begin_with_bos(ids, model)
    modes = [("fa2_fp32", None), ("pure_8bit", None)] + [("lamp", float(t)) for t in args.tau.split(",")]
    fp32 = perplexity(model, ids, args.batch)
    rows = []
    for i, (name, perm) in enumerate(orders(model.config["head_dim"], args.random)):
        for mode, tau in modes[(0 if i < 2 else 1):]:
            opts = {"mode": mode, "threads": args.threads}
            if tau is not None:
                opts["tau"] = tau
            ppl = ppl_in_order(model, ids, perm, opts, args.batch)
            rows.append({"order": name, "mode": mode, "tau": "" if tau is None else tau, "ppl": "%.4f" % ppl,
                         "vs_fp32_pct": "%+.3f" % (100 * (ppl / fp32 - 1))})
            print("%-12s %-9s %-4s ppl %.4f (%+.2f %% vs fp32 %.4f)" % (name, mode, rows[-1]["tau"], ppl,
                                                                     100 * (ppl / fp32 - 1), fp32), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "order.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["order", "mode", "tau", "ppl", "vs_fp32_pct"])
        w.writeheader()
        w.writerows(rows)
    print("wrote %s/order.csv (fp32 %.4f)" % (args.out, fp32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
