#!/usr/bin/env python3
"""Overhead of the Python bridge (python/lampsim) over the C engine on one attention head.

Times lampsim.attention() around the engine and prints the engine's own wall time (measured in C
inside ls_engine_run) next to it: the difference is the bridge (conversion, ctypes call, statistics
JSON). --write-trace DIR also writes the same Q/K/V as a trace workload, so `lampsim run --golden
--set workload.file=DIR/trace.yaml` computes the identical problem for an end-to-end comparison.

    /usr/bin/python3 scripts/bench_bridge.py --seq 2048 --repeat 3
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import lampsim  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--mode", default="lamp")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--reference", action="store_true", help="also compute the fp64 reference (as lampsim run does)")
    ap.add_argument("--write-trace", metavar="DIR")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(1)
    shape = (1, 1, args.seq, args.dim)
    q, k, v = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
    if args.write_trace:
        os.makedirs(args.write_trace, exist_ok=True)
        for n, a in (("q", q), ("k", k), ("v", v)):
            np.save(os.path.join(args.write_trace, n + ".npy"), a)
        with open(os.path.join(args.write_trace, "trace.yaml"), "w") as f:
            f.write("name: bench-bridge\ngenerator: trace\ncausal: true\ndtype: fp32\n"
                    "trace: {q: q.npy, k: k.npy, v: v.npy}\n")
    for i in range(args.repeat):
        t0 = time.perf_counter()
        _, st = lampsim.attention(q, k, v, causal=True, mode=args.mode, reference=args.reference, threads=1)
        total = time.perf_counter() - t0
        eng = st["bridge.wall_seconds"]
        print("call %d: bridge %.4f s, engine %.4f s, overhead %.4f s (%.2f %%)"
              % (i, total, eng, total - eng, 100.0 * (total - eng) / eng))
    return 0


if __name__ == "__main__":
    sys.exit(main())
