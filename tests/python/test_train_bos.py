#!/usr/bin/env python3
"""train_tiny_lm.py --bos and eval_ppl.py's use of it: a checkpoint trained with a beginning-of-
sequence byte records it as bos_token_id, eval_ppl.py begins each held-out window with it (and
says so in ppl.json), a checkpoint without one is evaluated as before; a BOS byte that is not a
byte or occurs in the text is refused. usage: test_train_bos.py TMPDIR"""
import contextlib
import io
import json
import os
import shutil
import sys

try:
    import torch  # noqa: F401
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)
if shutil.which("bible") is None:
    print("skipped: no /usr/bin/bible (Debian packages bible-kjv, bible-kjv-text: scripts/install-deps.sh test)")
    sys.exit(77)

from checks import check, done  # noqa: E402
import eval_ppl  # noqa: E402
import train_tiny_lm  # noqa: E402
from lampsim.model import load_pretrained  # noqa: E402


def refused(argv):
    """(exit code, stderr) of train_tiny_lm.main(argv) when it stops, else (0, '')."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            train_tiny_lm.main(argv)
    except SystemExit as e:
        return e.code, err.getvalue()
    return 0, err.getvalue()


def bos_of(out):
    with open(os.path.join(out, "ppl.json")) as f:
        return json.load(f)["meta"]["bos_token_id"]


def main(tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    ck = os.path.join(tmp, "bos.safetensors")
    with contextlib.redirect_stdout(io.StringIO()):
        rc = train_tiny_lm.main(["--steps", "2", "--layers", "1", "--bos", "2", "--out", ck])
    config = load_pretrained(ck).config
    check(rc == 0 and config.get("bos_token_id") == 2 and config["num_hidden_layers"] == 1,
          "--bos 2 --layers 1: bos_token_id %s, %d layer(s) in the checkpoint's config"
          % (config.get("bos_token_id"), config["num_hidden_layers"]))
    code, err = refused(["--steps", "1", "--bos", "32", "--out", os.path.join(tmp, "x.safetensors")])
    check(code == 2 and "--bos 32 occurs in the training text" in err and not os.path.exists(os.path.join(tmp, "x.safetensors")),
          "a BOS byte found in the text (space) is refused, nothing written: %r" % err.strip().splitlines()[-1:])
    code, err = refused(["--steps", "1", "--bos", "256", "--out", os.path.join(tmp, "x.safetensors")])
    check(code == 2 and "0 .. 255" in err, "--bos 256 is refused: %r" % err.strip().splitlines()[-1:])
    ids = eval_ppl.heldout_ids(2, 8)
    text = ids.clone()
    check(eval_ppl.begin_with_bos(ids, load_pretrained(ck)) == 2 and (ids[:, 0] == 2).all() and
          (ids[:, 1:] == text[:, 1:]).all(), "begin_with_bos: the windows' first byte becomes 2, the rest stays text")
    args = ["--sequences", "1", "--tokens", "32", "--no-random", "--tau", "0.5", "--threads", "1"]
    with contextlib.redirect_stdout(io.StringIO()):
        eval_ppl.main(["-o", os.path.join(tmp, "ev_bos"), "--checkpoint", ck] + args)
        eval_ppl.main(["-o", os.path.join(tmp, "ev_plain")] + args)
    check(bos_of(os.path.join(tmp, "ev_bos")) == 2 and bos_of(os.path.join(tmp, "ev_plain")) is None,
          "eval_ppl.py begins the windows with the checkpoint's BOS (2) and the shipped model's with text (%s, %s)"
          % (bos_of(os.path.join(tmp, "ev_bos")), bos_of(os.path.join(tmp, "ev_plain"))))
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
