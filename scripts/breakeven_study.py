#!/usr/bin/python3
"""The break-even study of docs/studies.md: LampAttention against 16-bit FlashAttention-2, and the
compact, full and fp32 register layouts, over the high-precision (HP) sub-block rate.

    breakeven_study.py run [-o OUT] [-j N] [--lampsim PATH]   # sweeps -> OUT/summary.json, OUT/figures/
    breakeven_study.py page SUMMARY.json [--write docs/studies.md]   # the page's generated blocks
    breakeven_study.py plot SUMMARY.json -o DIR                      # the figures from a summary

`run` runs three sweeps with `lampsim sweep run` (resumable: an OUT of an interrupted run is
continued):
  1. configs/studies/breakeven_qwen3.yaml: LampAttention at every (rate point, condition, layout,
     Q placement, tile); the objective picks each layout's best tile per rate point and condition.
  2. configs/studies/breakeven_qwen3_fa2.yaml: 16-bit FlashAttention-2 (timing only) at its best
     tile, on the LampAttention accelerator and on the H100-like preset.
  3. OUT/estimates_*.yaml (written here from 1 and 2): every winner of the preset condition re-timed
     at the low and at the high end of every timing estimate of `lampsim config --estimates`, one at a time
     (the winners stay those of the preset values; the numerics are replayed, only timing reruns).
Then it writes OUT/summary.json: the winners, the break-even rates, and their range over the
estimates. Every number the page states comes from that file (`page`), and the long test
`study_breakeven` reruns the study and compares its summary with docs/studies/breakeven_qwen3.json.

Break-even: the stage-2-only rate points form each configuration's curve, cycles of the best tile
against the winner's HP sub-block rate (recompute.subblock_rate); two curves are compared by linear
interpolation on their common rate range and the break-even rate is where the faster one at low
rates stops being faster (the first sign change of the cycle difference). FA2 has no rate: its
curve is flat. Exit status 0, 1 when a sweep fails, 2 for bad input.
"""
import argparse
import csv
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile

import numpy as np
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUDIES = os.path.join(REPO, "configs", "studies")
LAMP_SWEEP = os.path.join(STUDIES, "breakeven_qwen3.yaml")
FA2_SWEEP = os.path.join(STUDIES, "breakeven_qwen3_fa2.yaml")
LAYOUTS = ("compact", "full", "fp32")
TILE_KEYS = ("accelerator.regfile.q_placement", "algorithm.b_q", "algorithm.n_q", "algorithm.b_k", "algorithm.n_k")
COND_KEYS = ("accelerator.regfile.max_contexts", "accelerator.memory.latency")
RATE_KEYS = ("algorithm.stage1", "algorithm.tau")
PRESET_COND = "preset"
# Energies and areas are charged after the timing (action counts x energy, units x area): they move
# no cycle count and so no break-even rate, only energy and area (the sensitivity analysis's job).
NOT_TIMING = ("accelerator.energy.", "accelerator.area.")
# The row fields the summary keeps of a winner (report column -> summary name).
FIELDS = {
    "cycles": "cycles", "recompute.subblock_rate": "rate", "tiles.disruptive_rate": "disruptive",
    "area.total_mm2": "area_mm2", "energy.dynamic_uj": "energy_uj", "power.average_w": "power_w",
    "tflops_effective": "tflops", "efficiency.tflops_per_mm2": "tflops_per_mm2",
    "efficiency.tflops_per_w": "tflops_per_w", "area.regfile_mm2": "regfile_mm2",
    "area.regfile_pack_mm2": "pack_mm2", "occupancy.contexts_per_core.mean": "contexts_mean",
    "occupancy.contexts_per_core.limit": "contexts", "occupancy.contexts_per_core.register_fit": "register_fit",
    "occupancy.contexts_per_core.buffer_fit": "buffer_fit", "occupancy.limited_by": "limited_by",
    "occupancy.regs_per_thread": "regs_per_thread", "occupancy.prefetch_depth": "prefetch_depth",
    "cycle_stack.bottleneck": "bottleneck", "cycle_stack.chip.memory": "stack_memory",
    "cycle_stack.chip.slow_path": "stack_slow_path", "cycle_stack.chip.tail": "stack_tail",
    "cycle_stack.chip.busy": "stack_busy", "balance.items": "items", "balance.slots": "slots",
    "balance.waves": "waves", "occupancy.cores": "cores", "slow_path.cycles": "slow_path_cycles",
}


def sig(x, digits=6):
    """A float rounded to `digits` significant digits (the summary compares exactly)."""
    return float("%.*g" % (digits, x))


def value(s):
    """A CSV cell as a number where it is one."""
    try:
        v = float(s)
    except ValueError:
        return s
    return int(v) if v.is_integer() and "." not in s and "e" not in s.lower() else v


def condition_name(mc, lat):
    if (mc, lat) == (2, 479):
        return PRESET_COND
    return "contexts%d" % mc if lat == 479 else "contexts%d_latency%d" % (mc, lat)


def rate_name(stage1, tau):
    return ("paper" if stage1 else "stage2") + "_tau%g" % tau


def read_rows(csv_path):
    with open(csv_path, newline="") as f:
        return [{k: value(v) for k, v in r.items()} for r in csv.DictReader(f)]


def keep(r):
    out = {FIELDS[k]: (sig(r[k]) if isinstance(r[k], float) else r[k]) for k in FIELDS if k in r}
    out["tile"] = "%s%s x %s, %s x %s keys" % ("Q in buffer, " if r["accelerator.regfile.q_placement"] == "buffer" else "",
                                               r["algorithm.b_q"], r["algorithm.n_q"], r["algorithm.b_k"], r["algorithm.n_k"])
    out["rows_per_item"] = r["algorithm.b_q"] * r["algorithm.n_q"]
    out["items_per_core"] = sig(r["balance.items"] / r["occupancy.cores"])
    out["items_per_slot"] = sig(r["balance.items"] / r["balance.slots"])
    return out


def truth(v):
    return v in (True, "true", "True", 1)


def lamp_winners(rows):
    """{cond: {layout: [winner rows in rate-axis order]}} and the rate axis [(stage1, tau)]."""
    axis, out = [], {}
    for r in rows:
        if r.get("best.winner") != 1:
            continue
        s1, tau = truth(r["algorithm.stage1"]), float(r["algorithm.tau"])
        if (s1, tau) not in axis:
            axis.append((s1, tau))
        cond = condition_name(int(r[COND_KEYS[0]]), int(r[COND_KEYS[1]]))
        w = keep(r)
        w.update(stage1=s1, tau=tau, point=rate_name(s1, tau), raw=r)
        out.setdefault(cond, {}).setdefault(r["accelerator.regfile.layout"], []).append(w)
    order = {p: i for i, p in enumerate(axis)}
    for cond in out.values():
        for lay in cond.values():
            lay.sort(key=lambda w: order[(w["stage1"], w["tau"])])
    return out, axis


def fa2_winners(rows):
    out = {}
    for r in rows:
        if r.get("best.winner") != 1:
            continue
        cond = condition_name(int(r[COND_KEYS[0]]), int(r[COND_KEYS[1]]))
        w = keep(r)
        w["raw"] = r
        out.setdefault(cond, {})[r["accelerator.name"]] = w
    return out


def series(ws):
    """The stage-2-only winners in rate-axis order (falling tau: rising rate)."""
    return [w for w in ws if not w["stage1"]]


def breakeven(a, b):
    """Where configuration a stops (or starts) being faster than b, comparing per rate point.

    a: winners of a configuration, b: the other's winners (the same rate points) or a number (FA2's
    cycles). The x coordinate is a's winner's HP sub-block rate; the ratio b / a (cycles) is
    interpolated linearly in it between neighbouring rate points, and the break-even is its first
    crossing of 1. Returns {"rate": r or None, "low_wins": "a" | "b" | "tie", "range": [x0, x1],
    "ratio_at_0": b / a at the first rate point}."""
    a = series(a)
    if isinstance(b, (int, float)):
        pts = [(w["rate"], b / w["cycles"]) for w in a]
    else:
        bb = {w["point"]: w for w in series(b)}
        pts = [(w["rate"], bb[w["point"]]["cycles"] / w["cycles"]) for w in a if w["point"] in bb]
    res = {"range": [sig(pts[0][0], 4), sig(pts[-1][0], 4)], "rate": None, "ratio_at_0": sig(pts[0][1], 4)}
    d = [r - 1 for _, r in pts]
    nz = [i for i, x in enumerate(d) if x != 0]
    if not nz:
        res["low_wins"] = "tie"
        return res
    first = np.sign(d[nz[0]])
    res["low_wins"] = "a" if first > 0 else "b"
    for i in range(nz[0], len(pts) - 1):
        if np.sign(d[i + 1]) != first:
            (x0, _), (x1, _) = pts[i], pts[i + 1]
            res["rate"] = sig(x0 + (x1 - x0) * d[i] / (d[i] - d[i + 1]), 3)
            break
    return res


def best_layout(lamp):
    """Per rate point the fastest layout's winner (the answer of a designer free to choose)."""
    out = []
    for w in lamp.get("compact", []):
        cands = [x for lay in LAYOUTS for x in lamp.get(lay, []) if x["point"] == w["point"]]
        out.append(min(cands, key=lambda x: x["cycles"]))
    return out


def answers(lamp, fa2):
    """The break-even rates of one set of winners (one condition)."""
    out = {}
    cfgs = [(lay, lamp[lay]) for lay in LAYOUTS if lay in lamp] + [("best", best_layout(lamp))]
    for chip, f in sorted(fa2.items()):
        for lay, ws in cfgs:
            out["lamp_%s_vs_fa2_%s" % (lay, chip)] = breakeven(ws, f["cycles"])
        # the paper's algorithm (stages 1 and 2): its own operating points, speedup over FA2-16
        out["paper_vs_fa2_%s" % chip] = {lay: {w["point"]: {"rate": w["rate"], "speedup": sig(f["cycles"] / w["cycles"], 4)}
                                               for w in ws if w["stage1"]} for lay, ws in cfgs}
    if "compact" in lamp and "full" in lamp:
        out["compact_vs_full"] = breakeven(lamp["compact"], lamp["full"])
    if "fp32" in lamp and "full" in lamp:
        out["fp32_vs_full"] = breakeven(lamp["fp32"], lamp["full"])
    return out


def lampsim_cmd(args, *rest):
    return [args.lampsim] + list(rest)


def write_atomic(path, text):
    """path holds text or, if anything fails (a kill, a full disk, an exception while producing it),
    what it held before: written to a temporary beside it, flushed, then renamed over it."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)   # as open() would create it, not mkstemp's 0600
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json_atomic(path, obj):
    """obj as indented JSON into path, atomically (serialised whole before the file is touched)."""
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=True) + "\n")


_PR_SET_PDEATHSIG = 1   # <linux/prctl.h>


def _child_setup(parent):
    """In the child before exec: its own process group (so the driver can signal the sweep and its
    workers together) and SIGTERM when the driver dies, even by SIGKILL (Linux's PDEATHSIG)."""
    def setup():
        os.setpgid(0, 0)
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):   # not Linux: the signal forwarding below still holds
            pass
        if os.getppid() != parent:   # the driver died before prctl took effect
            os._exit(143)
    return setup


def run_child(cmd, **kw):
    """subprocess.call(cmd) that leaves no orphan: SIGINT, SIGTERM and SIGHUP to the driver are passed
    to the child's process group, waited for, and end the driver with 128 + the signal; a driver
    killed outright takes the child with it (PDEATHSIG: `lampsim sweep run` stops its workers on
    SIGTERM and keeps its finished points, so a rerun resumes)."""
    child = subprocess.Popen(cmd, preexec_fn=_child_setup(os.getpid()), **kw)
    got = []

    def forward(signum, frame):
        got.append(signum)
        try:
            os.killpg(child.pid, signum)
        except ProcessLookupError:
            pass

    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, forward) for s in sigs}
    try:
        rc = child.wait()
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if got:
        sys.exit(128 + got[0])
    return rc


def run_sweep(args, sweep, out):
    cmd = lampsim_cmd(args, "sweep", "run", sweep, "-j", str(args.jobs), "-o", out, "--quiet")
    rc = run_child(cmd)
    if rc != 0:
        sys.exit("breakeven_study: %s failed (exit %d); rerun to resume" % (" ".join(cmd), rc) if rc != 2 else 2)
    rc = run_child(lampsim_cmd(args, "sweep", "merge", out, "-o", os.path.join(out, "results.csv"), "--strict"),
                   stderr=subprocess.DEVNULL)
    if rc != 0:
        sys.exit("breakeven_study: merging %s failed (exit %d)" % (out, rc))
    return read_rows(os.path.join(out, "results.csv"))


def estimates(args):
    """[(key, low, high, preset)] of the timing estimates of `lampsim config --estimates`."""
    text = subprocess.check_output(lampsim_cmd(args, "config", "--estimates"), text=True)
    out = []
    for line in text.splitlines()[1:]:
        f = line.split("\t")
        if not f[0].startswith(NOT_TIMING):
            out.append((f[0], value(f[3]), value(f[4]), value(f[2])))
    return out


def absolute_base(sweep_file):
    """The sweep file's base with its include and workload file made absolute (for a generated sweep)."""
    with open(sweep_file) as f:
        base = yaml.safe_load(f)["base"]
    d = os.path.dirname(sweep_file)
    base["include"] = os.path.normpath(os.path.join(d, base["include"]))
    base["workload"]["file"] = os.path.normpath(os.path.join(d, base["workload"]["file"]))
    return base


def estimate_sweep(args, name, sweep_file, winners, point_keys, ests, path):
    """A sweep re-timing the winners at each estimate end; returns the end list ('preset' first)."""
    ends = [("preset", None, None)]
    for key, lo, hi, preset in ests:
        for side, v in (("low", lo), ("high", hi)):
            if v != preset:
                ends.append((side, key, v))
    # a key the points set themselves (FA2's chip sets lut.lanes) keeps the point's value
    zip_est = {key: [v if (k == key) else preset for (_, k, v) in ends if k not in point_keys]
               for key, lo, hi, preset in ests if key not in point_keys}
    zip_pt = {k: [{"true": True, "false": False}.get(w["raw"][k], w["raw"][k]) for w in winners] for k in point_keys}
    sweep = {"name": name, "description": "the winners of %s re-timed at each estimate's low and high end"
             % os.path.basename(sweep_file), "base": absolute_base(sweep_file),
             "axes": {"zip_point": zip_pt, "zip_estimate": zip_est}}
    write_atomic(path, yaml.safe_dump(sweep, sort_keys=False, default_flow_style=None, width=1000))
    return ends


def cmd_run(args):
    os.makedirs(args.out, exist_ok=True)
    lamp_rows = run_sweep(args, LAMP_SWEEP, os.path.join(args.out, "lamp"))
    fa2_rows = run_sweep(args, FA2_SWEEP, os.path.join(args.out, "fa2"))
    lamp, axis = lamp_winners(lamp_rows)
    fa2 = fa2_winners(fa2_rows)
    if PRESET_COND not in lamp or PRESET_COND not in fa2:
        sys.exit("breakeven_study: no winners at the preset condition")

    # 3. the preset condition's winners at every estimate end
    ests = estimates(args)
    lw = [w for lay in LAYOUTS for w in lamp[PRESET_COND].get(lay, [])]
    fw = [fa2[PRESET_COND][c] for c in sorted(fa2[PRESET_COND])]
    lamp_pts = ("accelerator.regfile.layout",) + TILE_KEYS + RATE_KEYS
    fa2_pts = ("accelerator.name", "accelerator.lut.lanes") + TILE_KEYS
    ends = estimate_sweep(args, "breakeven_qwen3_estimates", LAMP_SWEEP, lw, lamp_pts, ests,
                          os.path.join(args.out, "estimates_lamp.yaml"))
    estimate_sweep(args, "breakeven_qwen3_fa2_estimates", FA2_SWEEP, fw, fa2_pts, ests,
                   os.path.join(args.out, "estimates_fa2.yaml"))
    el = run_sweep(args, os.path.join(args.out, "estimates_lamp.yaml"), os.path.join(args.out, "estimates_lamp"))
    ef = run_sweep(args, os.path.join(args.out, "estimates_fa2.yaml"), os.path.join(args.out, "estimates_fa2"))

    def end_of(r, own=()):
        """The estimate end a row ran at; own: keys its points set themselves (not estimate ends)."""
        for side, key, v in ends[1:]:
            if key not in own and r[key] == v and all(r[k] == p for k, _, _, p in ests if k != key and k not in own):
                return (side, key)
        return ("preset", None)

    per_end = {}
    for r in el:
        w = keep(r)
        w.update(stage1=truth(r["algorithm.stage1"]), tau=float(r["algorithm.tau"]))
        w["point"] = rate_name(w["stage1"], w["tau"])
        per_end.setdefault(end_of(r), ({}, {}))[0].setdefault(r["accelerator.regfile.layout"], []).append(w)
    for r in ef:
        per_end.setdefault(end_of(r, fa2_pts), ({}, {}))[1][r["accelerator.name"]] = keep(r)
    # the preset end re-times the winners in another process: it must give their cycles exactly
    lam0, fa0 = per_end[("preset", None)]
    for lay, ws in lam0.items():
        for w in ws:
            ref = [x for x in lamp[PRESET_COND][lay] if x["point"] == w["point"]][0]
            if (w["cycles"], w["tile"]) != (ref["cycles"], ref["tile"]):
                sys.exit("breakeven_study: %s %s re-timed: %s cycles, the study's winner %s" % (lay, w["point"], w["cycles"], ref["cycles"]))
    for chip, w in fa0.items():
        if w["cycles"] != fa2[PRESET_COND][chip]["cycles"]:
            sys.exit("breakeven_study: FA2-16 on %s re-timed: %s cycles, the study's winner %s" % (chip, w["cycles"], fa2[PRESET_COND][chip]["cycles"]))
    ranges = []
    for side, key, v in ends:
        lam, fa = per_end[(side, key)]
        if not fa:   # FA2-16 does not use the LUT: at the LUT's ends it keeps the preset's cycles
            fa = fa0
        a = answers(lam, fa)
        ranges.append({"end": side, "key": key, "value": v, "breakeven": a, "cycles_preset_tile": {
            lay: [x["cycles"] for x in lam.get(lay, []) if x["point"] == rate_name(True, 0.5)] for lay in LAYOUTS}})

    summary = {
        "study": "breakeven_qwen3",
        "lampsim": lamp_rows[0]["lampsim.version"],
        "setup": setup(lamp_rows, fa2_rows, axis),
        "rate_axis": [rate_name(s, t) for s, t in axis],
        "lamp": {c: {lay: [{k: v for k, v in w.items() if k != "raw"} for w in ws] for lay, ws in d.items()}
                 for c, d in sorted(lamp.items())},
        "fa2": {c: {chip: {k: v for k, v in w.items() if k != "raw"} for chip, w in d.items()} for c, d in sorted(fa2.items())},
        "breakeven": {c: answers(lamp[c], fa2.get(c, {})) for c in sorted(lamp)},
        "estimates": ranges,
    }
    summary["range"] = range_of(summary)
    path = os.path.join(args.out, "summary.json")
    write_json_atomic(path, summary)
    plot(summary, os.path.join(args.out, "figures"))
    print("breakeven_study: %s, figures in %s" % (path, os.path.join(args.out, "figures")))


def setup(lamp_rows, fa2_rows, axis):
    r = lamp_rows[0]
    items = sorted({(x["algorithm.b_q"] * x["algorithm.n_q"], x["balance.items"]) for x in lamp_rows})
    return {
        "cores": r["occupancy.cores"], "workload": r["workload.name"], "heads_q": r["workload.heads_q"],
        "heads_kv": r["workload.heads_kv"], "seq": r["workload.seq_q"], "dim": r["workload.dim"],
        "points_lamp": len(lamp_rows), "points_fa2": len(fa2_rows),
        "items_by_rows": {str(k): v for k, v in items},
        "items_per_core_min": sig(min(v for _, v in items) / r["occupancy.cores"]),
        "items_per_core_max": sig(max(v for _, v in items) / r["occupancy.cores"]),
    }


def range_of(s):
    """Per break-even: the preset value and [min, max] over the estimate ends (None: no crossing);
    per paper operating point: the speedup over FA2-16 and its [min, max]."""
    out = {}
    base = s["estimates"][0]["breakeven"]
    for name, be in base.items():
        if name.startswith("paper_vs_fa2_"):
            for lay, pts in be.items():
                for pt, x in pts.items():
                    v = [(e["breakeven"][name][lay][pt]["speedup"], e) for e in s["estimates"]]
                    lo, hi = min(v, key=lambda t: t[0]), max(v, key=lambda t: t[0])
                    out["%s_%s_%s" % (name, lay, pt)] = {
                        "preset": x["speedup"], "rate": x["rate"], "min": lo[0], "max": hi[0],
                        "min_at": "%s=%s" % (lo[1]["key"], lo[1]["value"]), "max_at": "%s=%s" % (hi[1]["key"], hi[1]["value"])}
            continue
        vals = [(e["breakeven"][name]["rate"], e) for e in s["estimates"]]
        got = [(v, e) for v, e in vals if v is not None]
        out[name] = {"preset": be["rate"], "low_wins": be["low_wins"],
                     "min": min(got, key=lambda t: t[0])[0] if got else None,
                     "max": max(got, key=lambda t: t[0])[0] if got else None,
                     "min_at": "%s=%s" % (min(got, key=lambda t: t[0])[1]["key"], min(got, key=lambda t: t[0])[1]["value"]) if got else None,
                     "max_at": "%s=%s" % (max(got, key=lambda t: t[0])[1]["key"], max(got, key=lambda t: t[0])[1]["value"]) if got else None,
                     "no_crossing_at": ["%s=%s" % (e["key"], e["value"]) for v, e in vals if v is None and e["key"]],
                     "crossing_at": ["%s=%s" % (e["key"], e["value"]) for v, e in got if e["key"]],
                     "low_wins_flips_at": ["%s=%s" % (e["key"], e["value"]) for _, e in vals
                                           if e["key"] and e["breakeven"][name]["low_wins"] != be["low_wins"]]}
    return out


# ---- figures ---------------------------------------------------------------------------------

COLORS = {"compact": "tab:blue", "full": "tab:orange", "fp32": "tab:green"}
COND_LABEL = {"preset": "preset (max_contexts 2)", "contexts8": "max_contexts 8",
              "contexts8_latency4790": "max_contexts 8, DRAM latency x10"}


def plot(s, d):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(d, exist_ok=True)
    conds = [c for c in COND_LABEL if c in s["lamp"]]

    # 1. speedup over FA2-16 against the HP sub-block rate
    fig, axs = plt.subplots(1, len(conds), figsize=(5 * len(conds), 4), sharey=True, squeeze=False)
    for ax, c in zip(axs[0], conds):
        f = s["fa2"][c]["lampattention"]["cycles"]
        for lay in LAYOUTS:
            ws = [w for w in s["lamp"][c].get(lay, []) if not w["stage1"]]
            ws.sort(key=lambda w: w["rate"])
            ax.plot([100 * w["rate"] for w in ws], [f / w["cycles"] for w in ws], "o-", color=COLORS[lay],
                    label="LampAttention, %s" % lay)
            pp = [w for w in s["lamp"][c].get(lay, []) if w["stage1"]]
            ax.plot([100 * w["rate"] for w in pp], [f / w["cycles"] for w in pp], "s", mfc="none",
                    color=COLORS[lay], label="paper's algorithm (tau 1, 0.5), %s" % lay if c == conds[0] else None)
        ax.axhline(1.0, color="k", lw=1, label="FA2 16-bit, same accelerator / H100-like preset")
        be = s["range"].get("lamp_compact_vs_fa2_lampattention", {}) if c == PRESET_COND else {}
        if be.get("min") is not None:   # the compact break-even's range over the estimates
            ax.axvspan(100 * be["min"], 100 * be["max"], color="tab:blue", alpha=0.12,
                       label="compact break-even over the estimates")
        ax.set_title(COND_LABEL[c])
        ax.set_xlabel("HP sub-block rate of the winner (%)")
        ax.grid(alpha=0.3)
    axs[0][0].set_ylabel("speedup over FA2 16-bit (cycles ratio)")
    axs[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "breakeven_speedup.png"), dpi=110)
    plt.close(fig)

    # 2. the layouts: cycles, area, energy, TFLOP/s per mm2 and per W at the preset condition
    metrics = [("cycles", "cycles"), ("area_mm2", "area (mm2, 2-core slice)"), ("energy_uj", "energy (uJ)"),
               ("tflops_per_mm2", "TFLOP/s per mm2"), ("tflops_per_w", "TFLOP/s per W")]
    fig, axs = plt.subplots(len(conds), len(metrics), figsize=(4 * len(metrics), 3.2 * len(conds)), squeeze=False)
    for i, c in enumerate(conds):
        for j, (m, lab) in enumerate(metrics):
            ax = axs[i][j]
            for lay in LAYOUTS:
                ws = sorted([w for w in s["lamp"][c].get(lay, []) if not w["stage1"]], key=lambda w: w["rate"])
                ax.plot([100 * w["rate"] for w in ws], [w[m] for w in ws], "o-", ms=3, color=COLORS[lay], label=lay)
            if m in ("cycles", "tflops_per_mm2", "tflops_per_w", "area_mm2", "energy_uj"):
                for chip, ls in (("lampattention", "--"), ("h100", ":")):
                    ax.axhline(s["fa2"][c][chip][m], color="k", ls=ls, lw=1,
                               label="FA2 16-bit, %s" % ("same accelerator" if chip == "lampattention" else "H100-like"))
            ax.set_title("%s: %s" % (COND_LABEL[c], lab), fontsize=9)
            ax.grid(alpha=0.3)
            if i == len(conds) - 1:
                ax.set_xlabel("HP sub-block rate (%)")
    axs[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "breakeven_layouts.png"), dpi=100)
    plt.close(fig)

    # 3. the mechanism: contexts per core and the memory share of the cycle stack, per layout
    fig, axs = plt.subplots(1, 2, figsize=(11, 4))
    for c, mk in zip(conds, ("o", "s", "^")):
        for lay in LAYOUTS:
            ws = sorted([w for w in s["lamp"][c].get(lay, []) if not w["stage1"]], key=lambda w: w["rate"])
            x = [100 * w["rate"] for w in ws]
            axs[0].plot(x, [w["contexts_mean"] for w in ws], mk + "-", ms=4, color=COLORS[lay],
                        label="%s, %s" % (lay, COND_LABEL[c]))
            axs[1].plot(x, [100 * w["stack_memory"] / w["cycles"] for w in ws], mk + "-", ms=4, color=COLORS[lay])
    axs[0].set_ylabel("resident contexts per core (mean)")
    axs[1].set_ylabel("memory stalls, % of cycles (cycle stack)")
    for ax in axs:
        ax.set_xlabel("HP sub-block rate (%)")
        ax.grid(alpha=0.3)
    axs[0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "breakeven_mechanism.png"), dpi=110)
    plt.close(fig)


# ---- the page --------------------------------------------------------------------------------

def pct(x):
    return "%.0f%%" % (100 * x) if x is not None else "-"


def pct1(x):
    return "%.1f%%" % (100 * x)


def be_text(be, first, second):
    """'A is faster below 23%, B above' from one breakeven() answer, in words."""
    lo, hi = pct(be["range"][0]), pct(be["range"][1])
    if be["low_wins"] == "tie":
        return "%s and %s tie at every measured rate (%s to %s)" % (first, second, lo, hi)
    a, b = (first, second) if be["low_wins"] == "a" else (second, first)
    tie0 = "they tie at %s and " % lo if be["ratio_at_0"] == 1 else ""
    if be["rate"] is None:
        return "%s%s is faster at every %smeasured rate (up to %s)" % (tie0, a, "higher " if tie0 else "", hi)
    return "%s%s is faster below %s, %s above" % (tie0, a, pct(be["rate"]), b)


def range_text(s, name, first, second):
    """' (x..y over the estimates' ranges; ...)' for one break-even's range."""
    rg, parts = s["range"][name], []
    side = {"a": first, "b": second}
    if rg["preset"] is None:
        other = {"a": second, "b": first}
        cross = ["%s=%s (%s faster below %s, %s above)" % (e["key"], e["value"], side[e["breakeven"][name]["low_wins"]],
                                                           pct(e["breakeven"][name]["rate"]), other[e["breakeven"][name]["low_wins"]])
                 for e in s["estimates"] if e["key"] and e["breakeven"][name]["rate"] is not None]
        if cross:
            parts.append("a break-even within the measured rates only at %s" % ", ".join(cross))
    else:
        parts.append("%s..%s over the estimates' ranges, lowest at %s, highest at %s" % (
            pct(rg["min"]), pct(rg["max"]), rg["min_at"], rg["max_at"]))
        if rg["no_crossing_at"]:
            parts.append("no crossing within the measured rates at %s" % ", ".join(rg["no_crossing_at"]))
        if rg["low_wins_flips_at"]:
            parts.append("the other side is faster at the lowest rates at %s" % ", ".join(rg["low_wins_flips_at"]))
    return " (%s)" % "; ".join(parts) if parts else " (so at every estimate's low and high end too)"


def limits(s, cond):
    """'compact: registers (9), max_contexts (1)' over a condition's winners."""
    out = []
    for lay in LAYOUTS:
        c = {}
        for w in s["lamp"][cond].get(lay, []):
            c[w["limited_by"]] = c.get(w["limited_by"], 0) + 1
        out.append("%s %s" % (lay, ", ".join("%s (%d of %d)" % (k, v, sum(c.values())) for k, v in sorted(c.items()))))
    return "; ".join(out)


def page_blocks(s):
    b = {}
    be, rg = s["breakeven"][PRESET_COND], s["range"]
    lines = []
    k = "lamp_compact_vs_fa2_lampattention"

    def paper(chip, lay):
        p = rg["paper_vs_fa2_%s_%s_paper_tau0.5" % (chip, lay)]
        return "at the paper's operating point (stages 1 and 2, tau 0.5: %s HP sub-blocks) it is %.3fx as fast " \
               "(%.3f..%.3f over the estimates' ranges)" % (pct1(p["rate"]), p["preset"], p["min"], p["max"])
    lines.append("* **LampAttention vs 16-bit FlashAttention-2 on the same accelerator:** %s%s; at 0%% HP sub-blocks "
                 "LampAttention (compact, the preset layout) is %.3fx as fast as FA2-16, and %s." % (
                     be_text(be[k], "LampAttention (compact)", "FA2-16"), range_text(s, k, "LampAttention", "FA2-16"), be[k]["ratio_at_0"],
                     paper("lampattention", "compact")))
    k2 = "lamp_best_vs_fa2_lampattention"
    lines.append("* **The same with each rate's fastest layout:** %s%s; %s." % (
        be_text(be[k2], "LampAttention", "FA2-16"), range_text(s, k2, "LampAttention", "FA2-16"), paper("lampattention", "best")))
    k3 = "lamp_compact_vs_fa2_h100"
    f = s["fa2"][PRESET_COND]
    lines.append("* **Against the H100-like preset** (`configs/h100.yaml`: the same core without the LUT): "
                 "%s%s; FA2-16 takes the same cycles on both chips (%d and %d), so the break-even is the same, "
                 "and the H100-like chip is %.1f%% smaller." % (
                     be_text(be[k3], "LampAttention (compact)", "FA2-16 on the H100-like preset"),
                     range_text(s, k3, "LampAttention", "FA2-16"), f["lampattention"]["cycles"], f["h100"]["cycles"],
                     100 * (1 - f["h100"]["area_mm2"] / f["lampattention"]["area_mm2"])))
    lines.append("* **compact vs full:** %s%s." % (be_text(be["compact_vs_full"], "compact", "full"),
                                                  range_text(s, "compact_vs_full", "compact", "full")))
    lines.append("* **fp32 vs full:** %s%s." % (be_text(be["fp32_vs_full"], "fp32", "full"),
                                               range_text(s, "fp32_vs_full", "fp32", "full")))
    def eff(lay, ref):
        """'x..y' of a layout's TFLOP/s per mm2 and per W over ref's, over the stage-2-only rate points."""
        out = []
        for m in ("tflops_per_mm2", "tflops_per_w"):
            rr = {w["point"]: w[m] for w in series(s["lamp"][PRESET_COND][ref])}
            v = [w[m] / rr[w["point"]] for w in series(s["lamp"][PRESET_COND][lay]) if w["point"] in rr]
            out.append("%.3f..%.3f" % (min(v), max(v)))
        return out
    ce, fe = eff("compact", "full"), eff("fp32", "full")
    lines.append("* **Per mm2 and per W** (preset condition, over the stage-2-only rate points): compact delivers "
                 "%s of full's TFLOP/s per mm2 and %s of its TFLOP/s per W; "
                 "fp32 %s and %s." % (ce[0], ce[1], fe[0], fe[1]))
    for c in s["breakeven"]:
        if c == PRESET_COND:
            continue
        bc = s["breakeven"][c]
        lines.append("* **%s:** compact vs full: %s; fp32 vs full: %s; LampAttention (compact) vs FA2-16: %s." % (
            COND_LABEL[c], be_text(bc["compact_vs_full"], "compact", "full"), be_text(bc["fp32_vs_full"], "fp32", "full"),
            be_text(bc[k], "LampAttention", "FA2-16")))
    lines.append("* **The binding limit** (`occupancy.limited_by` of the winners): %s." % "; ".join(
        "%s: %s" % (COND_LABEL[c], limits(s, c)) for c in COND_LABEL if c in s["lamp"]))
    b["answers"] = "\n".join(lines) + "\n"

    st = s["setup"]
    b["setup"] = ("%s (synthetic), %d query heads / %d KV head(s), d %d, %d-token causal prefill on a %d-core slice: "
                  "%s work items per core (%s), %d LampAttention points and %d FA2-16 points, plus %d estimate ends "
                  "(`lampsim config --estimates`) re-timing the preset condition's winners.\n" % (
                      st["workload"], st["heads_q"], st["heads_kv"], st["dim"], st["seq"], st["cores"],
                      "%g to %g" % (st["items_per_core_min"], st["items_per_core_max"]),
                      ", ".join("%s items of %s rows" % (v, k) for k, v in sorted(st["items_by_rows"].items(), key=lambda x: -int(x[0]))),
                      st["points_lamp"], st["points_fa2"], len(s["estimates"]) - 1))

    # the binding limits: per condition and layout, over its winners
    t = ["| condition | layout | limited by (winners) | regs/thread | register fit | buffer fit | contexts | "
         "contexts mean | memory stalls | slow path | bottleneck unit (winners) |", "|---|---|---|---|---|---|---|---|---|---|---|"]

    def span(vals, fmt):
        lo, hi = min(vals), max(vals)
        return fmt(lo) if lo == hi else "%s..%s" % (fmt(lo), fmt(hi))
    for c in COND_LABEL:
        for lay in LAYOUTS:
            ws = s["lamp"].get(c, {}).get(lay, [])
            if not ws:
                continue
            cnt, bot = {}, {}
            for w in ws:
                cnt[w["limited_by"]] = cnt.get(w["limited_by"], 0) + 1
                bot[w["bottleneck"]] = bot.get(w["bottleneck"], 0) + 1
            t.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                COND_LABEL[c], lay, ", ".join("%s %d" % kv for kv in sorted(cnt.items())),
                span([w["regs_per_thread"] for w in ws], str), span([w["register_fit"] for w in ws], str),
                span([w["buffer_fit"] for w in ws], str), span([w["contexts"] for w in ws], str),
                span([w["contexts_mean"] for w in ws], lambda x: "%.2f" % x),
                span([w["stack_memory"] / w["cycles"] for w in ws], pct1),
                span([w["stack_slow_path"] / w["cycles"] for w in ws], pct1),
                ", ".join("%s %d" % kv for kv in sorted(bot.items()))))
    fa = s["fa2"][PRESET_COND]["lampattention"]
    t.append("| %s | FA2-16 | %s | %s | %s | %s | %s | %.2f | %s | - | %s |" % (
        COND_LABEL[PRESET_COND], fa["limited_by"], fa["regs_per_thread"], fa["register_fit"], fa["buffer_fit"],
        fa["contexts"], fa["contexts_mean"], pct1(fa["stack_memory"] / fa["cycles"]), fa["bottleneck"]))
    b["limits"] = "\n".join(t) + "\n"

    # winners per condition
    t = []
    for c in COND_LABEL:
        if c not in s["lamp"]:
            continue
        fa = s["fa2"][c]["lampattention"]
        t.append("### %s\n" % COND_LABEL[c])
        t.append("FA2-16 best tile: %s, %d cycles, %s contexts per core (limited by %s, %s items per core, tail %s of "
                 "the cycles).\n" % (fa["tile"], fa["cycles"], fa["contexts"], fa["limited_by"], fa["items_per_core"],
                                     pct1(fa["stack_tail"] / fa["cycles"])))
        t.append("| rate point | layout | best tile | HP sub-blocks | cycles | speedup over FA2-16 | contexts (limit, by) | "
                 "contexts mean | memory stalls | slow path | tail |")
        t.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for i, pt in enumerate(s["rate_axis"]):
            for lay in LAYOUTS:
                ws = [w for w in s["lamp"][c].get(lay, []) if w["point"] == pt]
                if not ws:
                    continue
                w = ws[0]
                t.append("| %s | %s | %s | %s | %d | %.3f | %s (%s) | %.2f | %s | %s | %s |" % (
                    pt.replace("_tau", ", tau ").replace("stage2", "stage 2 only").replace("paper", "paper"),
                    lay, w["tile"], pct1(w["rate"]), w["cycles"], fa["cycles"] / w["cycles"], w["contexts"],
                    w["limited_by"], w["contexts_mean"], pct1(w["stack_memory"] / w["cycles"]),
                    pct1(w["stack_slow_path"] / w["cycles"]), pct1(w["stack_tail"] / w["cycles"])))
        t.append("")
    b["winners"] = "\n".join(t)

    # cost and efficiency at the preset condition
    t = ["| rate point | layout | area mm2 (register file, packing) | energy uJ | power W | TFLOP/s per mm2 | TFLOP/s per W |",
         "|---|---|---|---|---|---|---|"]
    for chip in ("lampattention", "h100"):
        w = s["fa2"][PRESET_COND][chip]
        t.append("| FA2-16 | %s | %.3f (%.3f, %.3f) | %.1f | %.2f | %.3f | %.3f |" % (
            "LampAttention chip" if chip == "lampattention" else "H100-like preset", w["area_mm2"], w["regfile_mm2"],
            w["pack_mm2"], w["energy_uj"], w["power_w"], w["tflops_per_mm2"], w["tflops_per_w"]))
    for pt in s["rate_axis"]:
        for lay in LAYOUTS:
            ws = [w for w in s["lamp"][PRESET_COND].get(lay, []) if w["point"] == pt]
            if ws:
                w = ws[0]
                t.append("| %s | %s | %.3f (%.3f, %.3f) | %.1f | %.2f | %.3f | %.3f |" % (
                    pt.replace("_tau", ", tau ").replace("stage2", "stage 2 only"), lay, w["area_mm2"],
                    w["regfile_mm2"], w["pack_mm2"], w["energy_uj"], w["power_w"], w["tflops_per_mm2"], w["tflops_per_w"]))
    b["efficiency"] = "\n".join(t) + "\n"

    # the estimates
    names = [("lamp_compact_vs_fa2_lampattention", "compact vs FA2-16", "LampAttention", "FA2-16"),
             ("lamp_best_vs_fa2_lampattention", "best layout vs FA2-16", "LampAttention", "FA2-16"),
             ("compact_vs_full", "compact vs full", "compact", "full"), ("fp32_vs_full", "fp32 vs full", "fp32", "full")]
    t = ["| estimate | end | value | " + " | ".join(n[1] for n in names) + " |", "|---|---|---|" + "---|" * len(names)]

    def cell(x, first, second):
        if x is None:
            return "-"
        low = {"a": first, "b": second, "tie": "tie"}[x["low_wins"]]
        if x["rate"] is None:
            return "none: %s faster" % low if low != "tie" else "tie"
        return "%s (%s faster below)" % (pct(x["rate"]), low)
    base = s["estimates"][0]["breakeven"]
    for e in s["estimates"]:
        a = e["breakeven"]
        if e["key"] is not None and all(cell(a.get(n[0]), *n[2:]) == cell(base.get(n[0]), *n[2:]) for n in names):
            continue
        t.append("| %s | %s | %s | %s |" % (e["key"] or "(preset values)", e["end"], "" if e["value"] is None else e["value"],
                                           " | ".join(cell(a.get(n[0]), *n[2:]) for n in names)))
    same = sum(1 for e in s["estimates"][1:] if all(cell(e["breakeven"].get(n[0]), *n[2:]) == cell(base.get(n[0]), *n[2:])
                                                    for n in names))
    t.append("")
    t.append("The other %d estimate ends leave every break-even rate where the preset values put it." % same)
    b["estimates"] = "\n".join(t) + "\n"
    return b


def write_page(path, blocks):
    """Replaces each <!-- breakeven: NAME --> ... <!-- /breakeven --> block of the page."""
    with open(path) as f:
        text = f.read()
    for name, body in blocks.items():
        start, end = "<!-- breakeven: %s -->\n" % name, "<!-- /breakeven -->"
        i = text.find(start)
        j = text.find(end, i)
        if i < 0 or j < 0:
            sys.exit("breakeven_study: %s has no %s ... %s block" % (path, start.strip(), end))
        text = text[:i + len(start)] + body + text[j:]
    write_atomic(path, text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("-o", "--out", default="out/breakeven")
    r.add_argument("-j", "--jobs", type=int, default=2)
    r.add_argument("--lampsim", default=os.path.join(REPO, "build", "lampsim"))
    p = sub.add_parser("page")
    p.add_argument("summary")
    p.add_argument("--write")
    q = sub.add_parser("plot")
    q.add_argument("summary")
    q.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    if args.cmd == "run":
        cmd_run(args)
    elif args.cmd == "plot":
        with open(args.summary) as f:
            plot(json.load(f), args.out)
    else:
        with open(args.summary) as f:
            blocks = page_blocks(json.load(f))
        if args.write:
            write_page(args.write, blocks)
        else:
            for name, text in blocks.items():
                print("<!-- breakeven: %s -->\n%s<!-- /breakeven -->\n" % (name, text))


if __name__ == "__main__":
    main()
