#!/usr/bin/env python3
"""A `heads` workload cut to its first KV heads and their query heads: the slice a study times.

    /usr/bin/python3 scripts/workload_slice.py IN.yaml OUT.yaml [--kv-heads N] [--name NAME]

Per-query-head knobs (heads.scale, bias, sink, sink_spread, key_share, noise_flip: one value per query head; amp_cos, amp_sin,
noise_cos, noise_sin: `pairs` per query head) keep the first N x (heads_q / heads_kv) heads' values;
per-KV-head knobs (heads.freq: `pairs` per KV head) the first N heads'; a knob given once for all
heads stays. Query head h uses KV head h / (heads_q / heads_kv), so the slice's heads are the same
heads as in the full workload (`lampsim workload stats OUT` equals `lampsim workload stats IN --heads
N x heads_q / heads_kv`). Used by scripts/trace_checkpoint.py (one KV head) and for
workloads/qwen3_8b_sourced_slice.yaml (two KV heads: one whole head pattern, docs/workloads.md)."""
import argparse
import os
import sys

import yaml

PER_HEAD = ("scale", "bias", "sink", "sink_spread", "key_share", "noise_flip")
PER_HEAD_PAIRS = ("amp_cos", "amp_sin", "noise_cos", "noise_sin")


class SliceError(Exception):
    pass


def slice_workload(path, out, name, kv_heads=1, header=None):
    """Writes the workload at path cut to its first kv_heads KV heads and their query heads to out; returns
    the slice's query head count."""
    with open(path) as f:
        w = yaml.safe_load(f)
    if not isinstance(w, dict) or w.get("generator") != "heads" or not isinstance(w.get("heads"), dict):
        raise SliceError("%s: a `heads` generator workload expected" % path)
    hq, hk, pairs = int(w["heads_q"]), int(w["heads_kv"]), int(w["heads"].get("pairs", 0))
    if kv_heads < 1 or kv_heads > hk:
        raise SliceError("%s: --kv-heads %d: the workload has %d KV heads" % (path, kv_heads, hk))
    g = hq // hk
    heads = dict(w["heads"])

    def cut(key, per, count, keep):
        vals = str(heads[key]).split()
        if len(vals) > 1:
            if len(vals) != count * per:
                raise SliceError("%s: heads.%s has %d values, expected %d" % (path, key, len(vals), count * per))
            heads[key] = " ".join(vals[:keep * per])
    for k in PER_HEAD:
        if k in heads:
            cut(k, 1, hq, kv_heads * g)
    for k in PER_HEAD_PAIRS:
        if k in heads:
            cut(k, pairs, hq, kv_heads * g)
    if "freq" in heads:
        cut("freq", pairs, hk, kv_heads)
    w.update(heads_q=kv_heads * g, heads_kv=kv_heads, heads=heads, name=name)
    with open(out, "w") as f:
        f.write(header or "# The slice of %s: its first %d KV head(s) and their %d query heads, the same heads as there (the\n"
                "# knobs' sources are that file's). Written by: scripts/workload_slice.py %s %s --kv-heads %d\n"
                % (os.path.basename(path), kv_heads, kv_heads * g, os.path.relpath(path), os.path.relpath(out), kv_heads))
        yaml.safe_dump(w, f, sort_keys=False, default_flow_style=False, width=1 << 20)
    return kv_heads * g


def main(argv=None):
    ap = argparse.ArgumentParser(prog="workload_slice.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--kv-heads", type=int, default=1)
    ap.add_argument("--name")
    a = ap.parse_args(argv)
    try:
        slice_workload(a.input, a.output, a.name or os.path.splitext(os.path.basename(a.output))[0].replace("_", "-"),
                       a.kv_heads)
    except (OSError, yaml.YAMLError, KeyError, ValueError, SliceError) as e:
        print("workload_slice.py: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
