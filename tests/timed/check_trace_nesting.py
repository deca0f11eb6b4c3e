#!/usr/bin/python3
"""Trace nesting check: every track of a Chrome / Perfetto trace.json must nest.

    check_trace_nesting.py TRACE.json [--min-slices N] [--min-tracks N]

Perfetto (and chrome://tracing) draw the complete ("X") slices of one track (pid, tid) as a stack:
two slices of a track either nest or are disjoint. A slice that starts inside another and ends after
it is dropped or mis-drawn. Timestamps are read as exact decimals (microseconds) and compared in
integer picoseconds, and again the way a float parser sees them (ts and ts + dur rounded to whole
nanoseconds), so neither the writer's nor the reader's rounding can hide an overlap.
Exit 0 when every track nests, 1 (listing the first overlaps) otherwise.
"""
import json
import sys
from collections import defaultdict
from decimal import Decimal


def overlaps(spans):
    """(start, end, what) per slice of one track -> the first pairs that overlap without nesting"""
    bad, stack = [], []
    for s, e, what in sorted(spans, key=lambda x: (x[0], -x[1])):
        while stack and stack[-1][1] <= s:
            stack.pop()
        if stack and e > stack[-1][1]:
            bad.append((stack[-1], (s, e, what)))
        stack.append((s, e, what))
    return bad


def main():
    args = sys.argv[1:]
    path = args[0]
    min_slices = int(args[args.index("--min-slices") + 1]) if "--min-slices" in args else 1
    min_tracks = int(args[args.index("--min-tracks") + 1]) if "--min-tracks" in args else 1
    with open(path) as f:
        doc = json.load(f, parse_float=Decimal)
    exact, as_float = defaultdict(list), defaultdict(list)
    nslices = 0
    for ev in doc["traceEvents"]:
        if ev.get("ph") != "X":
            continue
        ts, dur = Decimal(ev["ts"]), Decimal(ev["dur"])
        if dur < 0:
            print(f"{path}: negative duration: {ev}")
            return 1
        key = (ev["pid"], ev["tid"])
        what = f"{ev['name']} ts={ev['ts']} dur={ev['dur']}"
        exact[key].append((int(ts * 1000000), int((ts + dur) * 1000000), what))
        t, d = float(ts), float(dur)
        as_float[key].append((round(t * 1000), round((t + d) * 1000), what))
        nslices += 1
    failed = 0
    for name, tracks in (("exact", exact), ("float, ns", as_float)):
        for key in sorted(tracks):
            bad = overlaps(tracks[key])
            if bad:
                failed += 1
                print(f"{path}: track pid {key[0]} tid {key[1]} ({name}): {len(bad)} overlap(s) without nesting, e.g.")
                for a, b in bad[:3]:
                    print(f"    {a[2]}  and  {b[2]}")
    if nslices < min_slices or len(exact) < min_tracks:
        print(f"{path}: {nslices} slice(s) on {len(exact)} track(s), expected at least {min_slices} on {min_tracks}")
        return 1
    print(f"{path}: {nslices} slices on {len(exact)} tracks, {'all nest' if not failed else f'{failed} bad'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
