#!/usr/bin/python3
"""What a trace.json says is what the run did (docs/architecture.md, "Timeline"):

    check_trace_structure.py TRACE.json [REPORT.json] [--two-contexts] [--whole]

- tracks carry the report's unit names (tensor, lut, sfu, vector, scheduler, buffer), `memory
  requests`, `contexts` (extra lanes `NAME #2`, ...) and, in the chip process, `dram` and `l2`; every
  named track holds an event and every event's track is named (no empty tracks);
- slices carry their track as category (`cat`), their context (`item`, `context`) and their work (macs and precision on tensor,
  lookups, exps, elem_ops, tests, bytes);
- flows (bind_id, flow_in / flow_out) are chains: one start (out only), one end (in only), steps
  (both) between, in time order, never two links on one slice;
- every context cut by the window has a `trace window ends` instant at the end of its slice, on its track;
- --two-contexts: some core has two contexts resident at once (a `contexts #2` lane);
- --whole (a trace of every tile, nothing dropped) with REPORT.json: each unit's slices add up to
  its units.<unit>.busy_cycles, the chip's dram / l2 tracks to units.dram / units.l2.
Exit 0 when all hold, 1 listing what does not."""
import json
import re
import sys
from collections import Counter, defaultdict

UNITS = ["tensor", "lut", "sfu", "vector", "scheduler", "buffer"]
CORE_TRACKS = UNITS + ["memory requests", "contexts"]
CHIP_TRACKS = ["dram", "l2"]
WORK = {"tensor": ("macs", "macs_16bit", "precision"), "lut": ("lookups",), "sfu": ("exps",), "vector": ("elem_ops",),
        "scheduler": ("tests",), "buffer": ("bytes",), "memory requests": ("bytes", "bytes_from_dram"),
        "dram": ("bytes", "core"), "l2": ("bytes", "core")}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    doc = json.load(open(args[0]))
    rep = json.load(open(args[1])) if len(args) > 1 else None
    ev = doc["traceEvents"]
    bad = []
    procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    used = Counter((e["pid"], e["tid"]) for e in ev if e["ph"] in ("X", "i"))
    for key, n in names.items():
        base = re.sub(r" #\d+$", "", n)
        chip = procs.get(key[0], "").startswith("chip")
        if base not in (CHIP_TRACKS if chip else CORE_TRACKS):
            bad.append("track %s of %s: not a report unit or a known track" % (n, procs.get(key[0])))
        if not used[key]:
            bad.append("empty track %s of %s" % (n, procs.get(key[0])))
    for key in used:
        if key not in names:
            bad.append("events on an unnamed track %s" % (key,))
    slices = [e for e in ev if e["ph"] == "X"]
    for e in slices:
        base = re.sub(r" #\d+$", "", names.get((e["pid"], e["tid"]), "?"))
        a = e.get("args", {})
        need = ("item", "context") + (() if a.get("continues") else WORK.get(base, ()))
        miss = [k for k in need if k not in a]
        if miss:
            bad.append("slice %s on %s lacks %s" % (e["name"], base, miss))
            break
        if e.get("cat") != base:  # the viewers' category filter and flow names
            bad.append("slice %s on %s has category %r" % (e["name"], base, e.get("cat")))
            break
    # flows: chains
    links = defaultdict(list)
    for e in slices:
        if "bind_id" in e:
            links[e["bind_id"]].append(e)
    for fid, ls in links.items():
        ls.sort(key=lambda e: float(e["ts"]))
        kinds = [(bool(e.get("flow_in")), bool(e.get("flow_out"))) for e in ls]
        ok = len(ls) >= 2 and kinds[0] == (False, True) and kinds[-1] == (True, False) and all(
            k == (True, True) for k in kinds[1:-1])
        if not ok:
            bad.append("flow %s is not a chain: %s" % (fid, [(e["name"], k) for e, k in zip(ls, kinds)]))
            break
    # window ends
    inst = {(e["pid"], e["tid"], e["ts"]) for e in ev if e["ph"] == "i" and e["name"] == "trace window ends"}
    ctx = [e for e in slices if re.sub(r" #\d+$", "", names.get((e["pid"], e["tid"]), "")) == "contexts"]
    cut = [e for e in ctx if e["args"].get("window_cut")]
    end = lambda e: "%.3f" % (round(float(e["ts"]) * 1000) / 1000 + round(float(e["dur"]) * 1000) / 1000)
    marked = {(p, t, "%.3f" % float(ts)) for p, t, ts in inst}
    unmarked = [e["name"] for e in cut if (e["pid"], e["tid"], end(e)) not in marked]
    if unmarked or len(inst) != len(cut):
        bad.append("%d contexts cut by the window, %d marks; unmarked: %s" % (len(cut), len(inst), unmarked[:3]))
    if "--two-contexts" in flags and not any(n == "contexts #2" for n in names.values()):
        bad.append("no core has two contexts resident at once")
    if "--whole" in flags and rep:
        if doc["otherData"]["dropped_events"] or any(e["args"].get("window_cut") for e in ctx):
            bad.append("--whole: the trace dropped slices or cut contexts")
        per = Counter()
        for e in slices:
            base = re.sub(r" #\d+$", "", names.get((e["pid"], e["tid"]), ""))
            per[base] += e["args"]["cycles"]
        for u in UNITS + CHIP_TRACKS:
            if per[u] != rep["units"][u]["busy_cycles"]:
                bad.append("%s: slices add up to %d cycles, the report says %d busy" % (u, per[u], rep["units"][u]["busy_cycles"]))
    print("%s: %d slices, %d tracks, %d flows, %d window ends%s" % (
        args[0], len(slices), len(names), len(links), len(inst), "" if not bad else "; " + "; ".join(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
