#!/usr/bin/env python3
"""`lampsim model` refuses bad model descriptions at their file:line:col (issue #25): duplicate keys
and trace layers (D1), a trace whose length is not prefill (D10), errors of set:, config:, workload:,
traces: and dim placed in the model file rather than blamed on a --set nobody typed (D12). Every case
fails before a timed run starts. usage: test_model_inputs.py LAMPSIM_BINARY TMPDIR"""
import os
import shutil
import subprocess
import sys

import numpy as np

from checks import check, child_env, done  # noqa: E402


def main(binary, tmp):
    binary = os.path.abspath(binary)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    rng = np.random.default_rng(1)
    for n, h in (("q", 2), ("k", 1), ("v", 1)):
        np.save(os.path.join(tmp, "t64_%s.npy" % n), rng.standard_normal((1, h, 64, 64)).astype(np.float32))
    with open(os.path.join(tmp, "t64.yaml"), "w") as f:
        f.write("generator: trace\ncausal: true\ndtype: fp32\ntrace: {q: t64_q.npy, k: t64_k.npy, v: t64_v.npy}\n")
    base = "layers: 2\nheads_q: 2\nheads_kv: 1\ndim: 64\nprefill: 128\n"
    cases = [
        ("dup_layers", "layers: 2\n" + base, "dup_layers.yaml:2:1: layers: duplicate key (first defined at line 1, column 1)"),
        ("dup_name", "name: a\nname: b\n" + base, "dup_name.yaml:2:1: name: duplicate key (first defined at line 1, column 1)"),
        ("dup_trace", base + "traces:\n  1: t64.yaml\n  01: t64.yaml\n",
         "dup_trace.yaml:8:3: traces: layer 1: duplicate key (first defined at line 7, column 3)"),
        ("seq", base + "traces:\n  0: t64.yaml\n",
         "seq.yaml:7:6: traces: trace ./t64.yaml has seq_q 64 and seq_k 64, the model's prefill is 128"),
        ("set", base + "set:\n  - algorithm.tau=0.5\n  - algorithm.tau=7\n",
         "set.yaml:8:5: set: algorithm.tau: expected a finite number in [0, 1], got 7"),
        ("mode", base + "set: [algorithm.mode=fa2_fp32]\n", "mode.yaml:6:7: set: algorithm.mode: fa2_fp32 does not run"),
        ("config", "config: missing.yaml\n" + base, "config.yaml:1:9: config: "),
        ("workload", "workload: missing.yaml\n" + base, "workload.yaml:1:11: workload: workload.file: cannot read"),
        ("trace", base + "traces:\n  0: missing.yaml\n", "trace.yaml:7:6: traces: workload.file: cannot read"),
        ("dim", base.replace("dim: 64", "dim: 63"), "dim.yaml:4:6: dim: workload.dim: "),
        # checks between keys point at the key they name
        ("gqa", base.replace("heads_q: 2", "heads_q: 3").replace("heads_kv: 1", "heads_kv: 2"),
         "gqa.yaml:3:11: heads_kv: heads_q 3 is not a multiple of heads_kv 2"),
        ("empty", base.replace("prefill: 128", "prefill: 0"), "empty.yaml:5:10: prefill: prefill and decode are both 0"),
    ]
    for name, text, needle in cases:
        path = os.path.join(tmp, name + ".yaml")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(tmp, "out_" + name)
        p = subprocess.run([binary, "model", name + ".yaml", "-o", out, "--quiet"], capture_output=True, text=True,
                           env=child_env(), cwd=tmp, timeout=120)
        check(p.returncode == 2 and needle in p.stderr and "--set" not in p.stderr
              and not os.path.exists(os.path.join(out, "report.json")),
              "%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()[:200]))
    # a command-line --set is still reported as one
    with open(os.path.join(tmp, "ok.yaml"), "w") as f:
        f.write(base)
    p = subprocess.run([binary, "model", "ok.yaml", "-o", os.path.join(tmp, "o"), "--quiet", "--set", "algorithm.tau=9"],
                       capture_output=True, text=True, env=child_env(), cwd=tmp, timeout=120)
    check(p.returncode == 2 and "--set algorithm.tau=9: algorithm.tau:" in p.stderr,
          "--set from the command line: %s" % p.stderr.strip()[:120])
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
