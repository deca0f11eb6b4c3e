#!/usr/bin/env python3
"""Train the tiny Qwen3-style byte-level LM that lampsim evaluates (models/tiny_kjv.safetensors).

Architecture (python/lampsim/model.py): 4 layers, hidden 128, 4 query heads sharing 2 KV heads,
head dim 128, headwise QK-norm with learned gains, RoPE (theta 10000), SwiGLU 384, tied byte
embeddings (vocabulary 256). Data: the King James Bible from the Debian packages bible-kjv-text
and bible-kjv (public domain), last 300 kB held out (python/lampsim/kjv.py). Fixed seed, fixed
step count, one torch thread: 849 s on a 2-core machine shared with three other jobs. The
checkpoint is stored in float16 with the model config and the training settings (and the
seconds it took, the only field that differs between two runs) in the safetensors metadata.

    /usr/bin/python3 scripts/train_tiny_lm.py [--out models/tiny_kjv.safetensors] [--steps N] [--seq N] [--layers N] [--bos BYTE]

With the defaults it reproduces models/tiny_kjv.safetensors; --seq above 256 raises the config's
max_position_embeddings to match, --layers changes only the layer count, --bos BYTE puts a
beginning-of-sequence byte first in every window (the config's bos_token_id; eval_ppl.py does the same).
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from lampsim import kjv  # noqa: E402
from lampsim.model import CausalLM  # noqa: E402
from lampsim.safetensors_io import write_safetensors  # noqa: E402

CONFIG = {
    "model_type": "lampsim-tiny", "vocab_size": 256, "hidden_size": 128, "intermediate_size": 384,
    "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 128,
    "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "tie_word_embeddings": True, "max_position_embeddings": 256,
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models",
                                                  "tiny_kjv.safetensors"))
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--layers", type=int, default=CONFIG["num_hidden_layers"],
                    help="number of layers (default 4, the shipped model)")
    ap.add_argument("--bos", type=int, default=None, metavar="BYTE",
                    help="begin every training window with this byte (one the text never contains, e.g. 2), "
                         "recorded as the config's bos_token_id; eval_ppl.py then begins its sequences with it")
    args = ap.parse_args(argv)
    if args.steps < 1 or args.batch < 1 or args.seq < 2 or args.layers < 1:
        ap.error("--steps, --batch, --layers must be >= 1 and --seq >= 2")
    config = dict(CONFIG, num_hidden_layers=args.layers,
                  max_position_embeddings=max(CONFIG["max_position_embeddings"], args.seq))
    train, held = kjv.split(kjv.kjv_bytes())
    if args.bos is not None:
        if not 0 <= args.bos < CONFIG["vocab_size"]:
            ap.error("--bos must be a byte value, 0 .. 255 (got %d)" % args.bos)
        if bytes([args.bos]) in train:
            ap.error("--bos %d occurs in the training text: a beginning-of-sequence byte must not" % args.bos)
        config["bos_token_id"] = args.bos
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    data = torch.from_numpy(np.frombuffer(train, dtype=np.uint8).astype(np.int64))
    rng = np.random.default_rng(args.seed)
    model = CausalLM(config)
    for name, p in model.named_parameters():
        if p.dim() == 2:  # Qwen3's initializer_range; norm gains stay at one
            torch.nn.init.normal_(p, std=0.02)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    warm = max(1, args.steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(1.0, s / args.steps))))
    t0, log = time.time(), []
    for step in range(args.steps):
        starts = torch.from_numpy(rng.integers(0, len(data) - args.seq - 1, size=args.batch))
        idx = starts[:, None] + torch.arange(args.seq + 1)[None, :]
        batch = data[idx]
        if args.bos is not None:  # the window's first byte gives way to BOS; the rest is text
            batch[:, 0] = args.bos
        logits = model(batch[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 256), batch[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 25 == 0 or step == args.steps - 1:
            log.append((step, float(loss)))
            print("step %5d  loss %.4f  %.0f s" % (step, float(loss), time.time() - t0), flush=True)
    state = {k: v.detach().to(torch.float16).numpy() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    meta = {"config": json.dumps(config, sort_keys=True),
            "training": json.dumps({"data": "King James Bible, Debian bible-kjv-text (held-out last %d bytes)"
                                    % kjv.HELDOUT_BYTES, "steps": args.steps, "batch": args.batch, "seq": args.seq,
                                    "lr": args.lr, "seed": args.seed, "threads": args.threads,
                                    "final_loss": log[-1][1], "seconds": round(time.time() - t0)})}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    write_safetensors(args.out, state, meta)
    print("wrote %s (%.1f MB)" % (args.out, os.path.getsize(args.out) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
