#!/usr/bin/python3
"""Figures (PNG and SVG) and a self-contained report.html from lampsim results.

    plot_sweep.py results.csv [--out DIR] [--html report.html] [--sweep | --run] [--title T]

results.csv is either a merged sweep (`lampsim sweep merge DIR`: axis columns, point.index,
point.id, then the report columns) or one run's report.csv. Figures, each written as DIR/NAME.png
and DIR/NAME.svg when its columns exist:

  tau_layout   cycles, disruptive-tile rate and recompute rate vs tau, one line per register
               layout (lamp points; with an objective, its winners only)
  tradeoff     accuracy (KL mean, O relative error) vs recompute rate: LampAttention over tau,
               random recompute over its rate, and the fixed baselines (fa2_16bit, pure_8bit, ...)
  pareto       cycles (and energy) vs accuracy (KL mean, O relative error) over every point, the
               Pareto front (no other point is both faster and more accurate) marked
  utilisation  small multiples: one panel per unit, the utilisation (%) of every point, one bar per
               point named by its axis values
  cycle_stack  one bar per point: its cycles cut into the cycle stack of the cores with work
  occupancy    occupancy vs tile size (columns occupancy.*, tile size b_k * n_k)

One run's report.csv (--run) is handed to scripts/report/ (its page and figures: docs/reports.md).

A sweep's report.html (scripts/sweep_report.py, Jinja2 template scripts/templates/) opens with
INCOMPLETE and the missing points when manifest.tsv beside the CSV lists points the CSV lacks, then
the answer to the sweep's axes (does one value of each axis win at every setting of the others, by
how much), the fastest point and its accuracy cost, the sweep's base configuration and workload,
the objective's winners when the sweep has one (objective.tsv next to the CSV), the Pareto fronts,
then the figures and every point. Points are named by their axis values (numbers as the sweep
file writes them, keys the point's mode does not read left out); rates are in %.
A figure whose columns are absent (for instance cycles before the timed model exists) is skipped
with a note, printed and repeated in the HTML. Needs Debian python3-numpy, python3-matplotlib (and python3-jinja2 for a sweep's report);
uses the Agg backend (no display). Exit status: 0, or 2 for unreadable input.
"""
import argparse
import base64
import csv
import html
import io
import math
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

plt.rcParams["svg.hashsalt"] = "lampsim"  # deterministic SVG ids

TAU = "config.algorithm.tau"
LAYOUT = "config.accelerator.regfile.layout"
MODE = "mode"
RATE = "recompute.subblock_rate"
CYCLE_NAMES = ("cycles", "cycles.total", "timing.cycles")


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return math.nan
    return x


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    with open(path, newline="") as f:
        header = next(csv.reader(f), [])
    return header, rows


def col_values(rows, name):
    return np.array([num(r.get(name)) for r in rows], dtype=float)


def first_col(header, names):
    for n in names:
        if n in header:
            return n
    return None


def util_cols(header):
    return [h for h in header if h.startswith("units.") and (h.endswith(".utilisation") or h.endswith(".utilization"))]


class Figures:
    def __init__(self, out):
        self.out = out
        self.made = []  # (name, title, png bytes)
        self.notes = []
        if out:
            os.makedirs(out, exist_ok=True)

    def note(self, msg):
        self.notes.append(msg)
        print("plot_sweep: " + msg, file=sys.stderr)

    def save(self, fig, name, title):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
        png = buf.getvalue()
        if self.out:
            atomic_write(os.path.join(self.out, name + ".png"), png)
            sbuf = io.BytesIO()
            fig.savefig(sbuf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
            atomic_write(os.path.join(self.out, name + ".svg"), sbuf.getvalue())
        plt.close(fig)
        self.made.append((name, title, png))


def atomic_write(path, data):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def groups(rows, key):
    out = {}
    for r in rows:
        out.setdefault(r.get(key, ""), []).append(r)
    return out


def series_key(axes_cols):
    """Columns that split lines: the register layout and every sweep axis but tau and the mode."""
    keys = [LAYOUT]
    for a in axes_cols:
        c = a if a.startswith("config.") else "config." + a
        if c not in (TAU, LAYOUT, "config.algorithm.mode") and c not in keys:
            keys.append(c)
    return keys


def value_text(v):
    """A configuration value as the sweep file writes it (0.1, not the report's 0.10000000000000001)."""
    import sweep_report  # next to this script
    return sweep_report.value_text(v)


def series(rows, keys):
    out = {}
    for r in rows:
        lab = ", ".join("%s=%s" % (k.split(".")[-1], value_text(r.get(k, ""))) for k in keys if k in r)
        out.setdefault(lab, []).append(r)
    return sorted(out.items())


def overlapping(lines):
    """Pairs of line labels whose points coincide (same x and y arrays): drawn on top of each other."""
    out = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            (la, xa, ya), (lb, xb, yb) = lines[i], lines[j]
            if len(xa) == len(xb) and np.allclose(xa, xb, equal_nan=True) and np.allclose(ya, yb, rtol=1e-12, equal_nan=True):
                out.append((la, lb))
    return out


# The modes that read a key; every other key is read by every mode. The same table as
# sim/config/modes.c (tests/sweep/test_sweep_report.sh checks them against `lampsim config --explain`).
KEY_MODES = {
    "algorithm.tau": ("lamp",), "algorithm.delta": ("lamp",), "algorithm.stage1": ("lamp",),
    "algorithm.stage2": ("lamp",), "algorithm.knapsack_tiebreak": ("lamp",),
    "algorithm.lamp_code_tau": ("lamp_code",), "algorithm.random_rate": ("random",),
}


def bare(key):
    return key[7:] if key.startswith("config.") else key


def applies(key, mode):
    m = KEY_MODES.get(bare(key))
    return m is None or not mode or mode in m


def lamp_series_key(axes_cols):
    """series_key for LampAttention lines: only the keys lamp reads (no random_rate in their legend)."""
    return [k for k in series_key(axes_cols) if applies(k, "lamp")]


def plot_tau_layout(F, header, rows, axes_cols=()):
    lamp = [r for r in rows if r.get(MODE, "lamp") == "lamp"]
    winners = "best.winner" in header
    if winners:
        lamp = [r for r in lamp if r.get("best.winner") == "1"]
    taus = sorted({num(r.get(TAU)) for r in lamp} - {math.nan})
    if TAU not in header or len(taus) < 2:
        F.note("tau_layout skipped: needs lamp points at two or more values of algorithm.tau")
        return
    cyc = first_col(header, CYCLE_NAMES)
    panels = [("tiles.disruptive_rate", "disruptive tiles (% of executed tiles)"), (RATE, "recompute rate (% of sub-blocks)")]
    if cyc:
        panels.insert(0, (cyc, "cycles"))
    else:
        F.note("tau_layout: no cycles column (the timed model adds it); plotting recompute figures only")
    skeys = lamp_series_key(axes_cols)
    if winners:  # one line per group of the objective but tau (best.group: key=value of the per axes)
        per = [t.partition("=")[0] for t in lamp[0].get("best.group", "").split(" ") if "=" in t] if lamp else []
        skeys = [c for c in ("config." + k for k in per) if c != TAU] or [LAYOUT]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.6), squeeze=False)
    notes = []
    for ax, (c, label) in zip(axes[0], panels):
        lines = []
        for k, (lab, rs) in enumerate(series(lamp, skeys)):
            x = col_values(rs, TAU)
            y = col_values(rs, c) * (1 if c == cyc else 100)  # rates in %
            o = np.argsort(x)
            lines.append((lab or "lamp", x[o], y[o]))
            # distinct markers and dashes so lines drawn on top of each other stay visible
            ax.plot(x[o], y[o], marker="os^vD<>p"[k % 8], linestyle=["-", "--", ":", "-."][k % 4],
                    markersize=7 - 2 * (k % 2), label=lab or "lamp")
        for a, b in overlapping(lines):
            notes.append("%s: %s and %s coincide" % (label, a, b))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("tau")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        if len(lines) <= 3:
            ax.legend(fontsize=7)
    if len(lines) > 3:  # many lines: one legend under the panels instead of one over each
        h, lab = axes[0][0].get_legend_handles_labels()
        fig.legend(h, lab, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, len(lab)), fontsize=8)
    what = "the objective's best tile per group" if winners else "every point"
    fig.suptitle("LampAttention vs tau, one line per %s (%s)" % (
        "register layout" if skeys == [LAYOUT] else ", ".join(k.split(".")[-1] for k in skeys), what))
    for n in notes:
        F.note("tau_layout: overlapping lines (drawn dashed on top of each other): " + n)
    F.save(fig, "tau_layout", "%sLampAttention vs tau per register layout (%s)" % ("Cycles and " if cyc else "", what))


def plot_tradeoff(F, header, rows):
    if RATE not in header or "accuracy.kl_mean" not in header:
        F.note("tradeoff skipped: needs recompute and accuracy columns")
        return
    by_mode = groups(rows, MODE)
    curves = [m for m in ("lamp", "random", "lamp_code") if len(by_mode.get(m, [])) >= 1]
    fixed = [m for m in ("fa2_16bit", "pure_8bit", "fa2_fp32") if m in by_mode]
    if not curves:
        F.note("tradeoff skipped: no lamp or random points")
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, (c, label) in zip(axes, [("accuracy.kl_mean", "KL mean (nats)"), ("accuracy.o_rel_fro_err", "O rel. Frobenius error")]):
        for m in curves:
            x = 100 * col_values(by_mode[m], RATE)
            y = col_values(by_mode[m], c)
            o = np.argsort(x)
            ax.plot(x[o], y[o], marker="o" if m == "lamp" else "s", label={"lamp": "LampAttention", "random": "random recompute"}.get(m, m))
        for k, m in enumerate(fixed):
            y = np.nanmean(col_values(by_mode[m], c))
            if np.isfinite(y) and y > 0:
                ax.axhline(y, linestyle="--", color="C%d" % (k + 3), label=m)
        ax.set_xlabel("recompute rate (% of sub-blocks in high precision)")
        ax.set_ylabel(label)
        if np.nanmin(col_values(rows, c)) > 0:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    names = [{"lamp": "LampAttention", "random": "random recompute"}.get(m, m) for m in curves] + fixed
    what = ", ".join(names)
    fig.suptitle("Accuracy vs recompute rate: " + what)
    if not fixed:
        F.note("tradeoff: no baseline points (fa2_16bit, pure_8bit) in this sweep")
    F.save(fig, "tradeoff", "Accuracy vs recompute rate (%s)" % what)


def point_labels(rows, axes_cols):
    """Each point's axis values (the ones that vary, that its mode reads): "tau=0.5, layout=full";
    one run: its mode."""
    import sweep_report  # next to this script
    axes = sweep_report.varying_axes(rows, axes_cols) or axes_cols
    return [sweep_report.point_label(r, axes) for r in rows]


def plot_utilisation(F, header, rows, axes_cols):
    uc = util_cols(header)
    if not uc:
        F.note("utilisation skipped: no units.<unit>.utilisation columns (the timed model adds them)")
        return
    units = [c.split(".")[1] for c in uc]
    ncol = min(4, len(units))
    nrow = (len(units) + ncol - 1) // ncol
    labels = point_labels(rows, axes_cols)
    x = np.arange(len(rows))
    win = np.array([r.get("best.winner") == "1" for r in rows])
    named = len(rows) <= 48  # one bar per point, named by its axis values
    tall = max((len(t) for t in labels), default=0) * 0.055 if named else 0
    fig, axes = plt.subplots(nrow, ncol, figsize=(max(3.2, 0.22 * len(rows) + 1) * ncol, 2.3 * nrow + tall),
                             sharex=True, sharey=True, squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= len(units):
            ax.axis("off")
            continue
        y = 100 * col_values(rows, uc[k])
        if named:
            ax.bar(x, y, width=0.85, color=np.where(win, "C3", "C0"))
        else:  # bars this thin alias: dots
            ax.scatter(x[~win], y[~win], s=4, color="C0")
            ax.scatter(x[win], y[win], s=16, color="C3")
        ax.set_title(units[k], fontsize=9)
        ax.set_ylim(0, 100)
        ax.grid(True, axis="y", alpha=0.3)
        if k % ncol == 0:
            ax.set_ylabel("utilisation (%)")
        if named:
            ax.set_xticks(x)
            ax.set_xticklabels(labels, rotation=90, fontsize=6)
            ax.tick_params(axis="x", labelbottom=k >= len(units) - ncol)  # names under the bottom row
        elif k >= len(units) - ncol:
            ax.set_xlabel("point (manifest index; the Points table names them)")
    fig.suptitle("Unit utilisation (%% of the cores with work) of every point (%d points%s)" % (
        len(rows), "; red: the objective's winners" if win.any() else ""))
    F.save(fig, "utilisation", "Unit utilisation (%), one panel per unit, one bar per point named by its axis values")


STACK = ("launch", "busy", "dependency", "unit_busy", "memory", "scheduler", "slow_path", "other", "tail")


def plot_stack(F, header, rows, axes_cols):
    """One horizontal bar per point: its cycles cut into the cycle stack of the cores with work
    (docs/reports.md, "Cycle stack"), so the bars' lengths are the points' cycles."""
    cols = ["cycle_stack.working_cores." + c for c in STACK if "cycle_stack.working_cores." + c in header]
    if not cols:
        F.note("cycle_stack skipped: no cycle_stack.working_cores.* columns (the timed model adds them)")
        return
    if len(rows) > 80:
        F.note("cycle_stack skipped: %d points (at most 80 bars; `lampsim compare --columns` lists them)" % len(rows))
        return
    labels = point_labels(rows, axes_cols)
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.28 * len(rows)))
    y = np.arange(len(rows))[::-1]
    left = np.zeros(len(rows))
    colours = plt.get_cmap("tab10")
    for k, c in enumerate(cols):
        w = np.nan_to_num(col_values(rows, c))
        if not w.any():
            continue
        ax.barh(y, w, left=left, height=0.75, color=colours(k % 10), label=c.split(".")[-1])
        left += w
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("cycles (the bar's length is the point's cycles)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), title="cause", title_fontsize=7)
    bott = {r.get("cycle_stack.bottleneck", "") for r in rows} - {""}
    fig.suptitle("Cycle stack per point, cores with work (busy = the bottleneck unit%s)" % (
        ": " + ", ".join(sorted(bott)) if bott else ""))
    F.save(fig, "cycle_stack", "Where each point's cycles go: the cycle stack of the cores with work")


def pareto_front(xs, ys):
    """Indices of the points no other point dominates, both coordinates minimised: point i is off
    the front when some j has x_j <= x_i and y_j <= y_i with one of the two strictly smaller.
    Duplicates of a front point are all on it; NaN coordinates are never on it. Sorted by x."""
    pts = sorted((x, y, i) for i, (x, y) in enumerate(zip(xs, ys)) if not (math.isnan(x) or math.isnan(y)))
    front, best_y, k = [], math.inf, 0
    while k < len(pts):
        e = k
        while e < len(pts) and pts[e][0] == pts[k][0]:
            e += 1
        y0 = pts[k][1]  # the lowest y at this x (sorted)
        if y0 < best_y:
            front += [i for x, y, i in pts[k:e] if y == y0]
            best_y = y0
        k = e
    return front


ACC = (("accuracy.kl_mean", "KL mean (nats)"), ("accuracy.o_rel_fro_err", "O rel. Frobenius error"))


def category(r):
    """Legend group of a point: the mode, and the register layout for LampAttention."""
    m = r.get(MODE, "lamp")
    lay = r.get(LAYOUT, "")
    return "LampAttention, %s" % lay if m == "lamp" and lay else {"lamp": "LampAttention"}.get(m, m)


def pareto_sets(header, rows):
    """[(cost column, cost label, accuracy column, accuracy label, front indices)] for cycles and
    energy against KL mean and O error."""
    out = []
    costs = [(c, "cycles") for c in [first_col(header, CYCLE_NAMES)] if c]
    if "energy.dynamic_uj" in header:
        costs.append(("energy.dynamic_uj", "energy (µJ)"))
    for cc, cl in costs:
        for ac, al in ACC:
            if ac in header:
                out.append((cc, cl, ac, al, pareto_front(col_values(rows, cc), col_values(rows, ac))))
    return out


def plot_pareto(F, header, rows, axes_cols):
    sets = pareto_sets(header, rows)
    if not sets:
        F.note("pareto skipped: needs cycles (the timed model) and accuracy columns")
        return
    ncol = 2
    nrow = (len(sets) + 1) // 2
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.0 * ncol, 4.2 * nrow), squeeze=False)
    cats = sorted({category(r) for r in rows})
    labels = point_labels(rows, axes_cols)
    for ax, (cc, cl, ac, al, front) in zip(axes.flat, sets):
        x, y = col_values(rows, cc), col_values(rows, ac)
        for k, c in enumerate(cats):
            m = np.array([category(r) == c for r in rows])
            ax.scatter(x[m], y[m], s=18, alpha=0.6, color="C%d" % k, marker="osD^v<>p"[k % 8], label=c)
        fx, fy = x[front], y[front]
        ax.step(fx, fy, where="post", color="k", linewidth=1, alpha=0.7)
        ax.scatter(fx, fy, s=70, facecolors="none", edgecolors="k", linewidths=1.5, label="Pareto front")
        for i in front:  # named by their axis values
            ax.annotate(labels[i], (x[i], y[i]), fontsize=6, xytext=(4, 3), textcoords="offset points")
        ax.set_xlabel(cl)
        ax.set_ylabel(al)
        if np.nanmin(y) > 0:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(sets):]:
        ax.axis("off")
    fig.suptitle("Cost vs accuracy over all %d points; circled and named: the Pareto front (lower-left is better)"
                 % len(rows))
    F.save(fig, "pareto", "Pareto fronts: %s vs %s" % (" and ".join(sorted({s[1] for s in sets})),
                                                       " and ".join(a for _, a in ACC if any(s[3] == a for s in sets))))


OCC_PREFERRED = ("occupancy.contexts_per_core.mean", "occupancy.register_utilisation", "occupancy.regs_per_context")


def plot_occupancy(F, header, rows):
    numeric = [h for h in header if h.startswith("occupancy.") and np.isfinite(col_values(rows, h)).any()]
    oc = [h for h in OCC_PREFERRED if h in numeric] or numeric[:3]
    if not oc:
        F.note("occupancy skipped: no occupancy.* columns (the timed model adds them)")
        return
    bk, nk = col_values(rows, "config.algorithm.b_k"), col_values(rows, "config.algorithm.n_k")
    tile = bk * nk
    if len(set(tile[np.isfinite(tile)])) < 2:
        F.note("occupancy skipped: the tile size (b_k x n_k) does not vary")
        return
    fig, axes = plt.subplots(1, len(oc), figsize=(4.6 * len(oc), 3.6), squeeze=False)
    for ax, c in zip(axes[0], oc):
        for lay, rs in sorted(groups(rows, LAYOUT).items()):
            t = col_values(rs, "config.algorithm.b_k") * col_values(rs, "config.algorithm.n_k")
            y = col_values(rs, c)
            o = np.argsort(t)
            ax.plot(t[o], y[o], marker="o", linestyle="", label=lay or "layout")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("key tile b_k x n_k")
        ax.set_ylabel(c)
        ax.grid(True, alpha=0.3)
        ax.legend(title="layout", fontsize=8)
    F.save(fig, "occupancy", "Occupancy vs tile size")


KEY_COLS = ["mode", "tiles.disruptive_rate", "recompute.subblock_rate", "recompute.logit_rate", "accuracy.kl_mean",
            "accuracy.o_rel_fro_err", "accuracy.argmax_flip_rate"]

# Human headers of report columns: (header with unit, kind): kind "pct" prints a share as %, "sci"
# in scientific notation, "int" as an integer, "" as given.
HUMAN = {
    "mode": ("Mode", ""), "cycles": ("Cycles", "int"), "time_us": ("Time (µs)", ""),
    "tflops_effective": ("Effective TFLOP/s", ""), "energy.dynamic_uj": ("Energy (µJ)", ""),
    "tiles.disruptive_rate": ("Disruptive tiles (%)", "pct"), "recompute.subblock_rate": ("Recompute, sub-blocks (%)", "pct"),
    "recompute.logit_rate": ("Recompute, logits (%)", "pct"), "accuracy.kl_mean": ("KL mean (nats)", "sci"),
    "accuracy.o_rel_fro_err": ("O rel. Frobenius error", "sci"), "accuracy.argmax_flip_rate": ("Argmax flips (%)", "pct"),
    "occupancy.contexts_per_core.mean": ("Contexts per core (mean)", ""),
    "algorithm.tau": ("tau", ""), "accelerator.regfile.layout": ("Register layout", ""),
    "algorithm.b_q": ("b_q (query rows / warp)", ""), "algorithm.n_q": ("N_q (warps)", ""),
    "algorithm.b_k": ("b_k (keys / sub-block)", ""), "algorithm.n_k": ("N_k (sub-blocks)", ""),
    "algorithm.mode": ("Mode", ""), "occupancy.layout": ("Layout (ran)", ""), "algorithm.random_rate": ("Random rate", ""), "point.index": ("Point", ""),
    "algorithm.stage1": ("Stage 1", ""), "accelerator.regfile.max_contexts": ("Max contexts / core", ""),
}


def human(c):
    if c in HUMAN:
        return HUMAN[c]
    if c.startswith("units.") and c.count(".") == 2:
        return ("%s utilisation (%%)" % c.split(".")[1], "pct")
    if c.startswith(("algorithm.", "accelerator.", "workload.", "timed.")):  # other axis keys: the last part
        return (c.split(".")[-1], "")
    return (c, "")


def fmt(v, kind=""):
    x = num(v)
    if math.isnan(x) or v.strip().lower() in ("true", "false") or not v:
        return v
    if kind == "pct":
        return "%.2f" % (100 * x)
    if kind == "sci":
        return "%.3e" % x
    if float(x).is_integer() and abs(x) < 1e15:
        return "%d" % x
    return "%.0f" % x if abs(x) >= 1e4 else "%.4g" % x


def ratio(a, b):
    return a / b if b else math.nan


def read_objective(csv_path):
    """objective.tsv next to the CSV: (sense, metric, over, per, [(why, overrides)]) or None."""
    p = os.path.join(os.path.dirname(os.path.abspath(csv_path)), "objective.tsv")
    if not os.path.exists(p):
        return None
    ob = {"sense": "minimise", "metric": "", "over": [], "per": [], "infeasible": []}
    with open(p) as f:
        for line in f:
            t = line.rstrip("\n").split("\t")
            if t[0] in ("minimise", "maximise"):
                ob["sense"], ob["metric"] = t[0], t[1] if len(t) > 1 else ""
            elif t[0] in ("over", "per"):
                ob[t[0]] = t[1:]
            elif t[0] == "infeasible":
                ob["infeasible"].append((t[1] if len(t) > 1 else "", t[2:]))
    return ob


def write_html(path, title, F, header, rows, sweep, axes_cols, csv_path):
    if sweep:  # the sweep report: scripts/sweep_report.py and its template
        import sweep_report
        return sweep_report.render(path, title, F, header, rows, axes_cols, csv_path)
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>" % html.escape(title),
             "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td{white-space:nowrap}th{background:#eee}"
             "img{max-width:100%;border:1px solid #ddd;margin:6px 0}.note{color:#8a5a00}"
             ".headline{background:#f4f7fb;border-left:4px solid #2a6ebb;padding:0.5em 1em}pre{background:#f7f7f7;padding:0.5em}"
             "</style></head><body>",
             "<h1>%s</h1>" % html.escape(title)]
    if rows:
        r0 = rows[0]
        parts.append("<p>lampsim %s (git %s), source <code>%s</code></p>" % (
            html.escape(r0.get("lampsim.version", "?")), html.escape(r0.get("lampsim.git", "?")), html.escape(csv_path)))
    parts.append("<h2>Figures</h2>")
    for name, t, png in F.made:
        parts.append("<h3>%s</h3><img alt='%s' src='data:image/png;base64,%s'>" % (
            html.escape(t), html.escape(name), base64.b64encode(png).decode()))
    if not F.made:
        parts.append("<p>No figure applies to these results.</p>")
    if F.notes:
        parts.append("<ul>" + "".join("<li class='note'>%s</li>" % html.escape(n) for n in F.notes) + "</ul>")
    parts.append("</body></html>\n")
    atomic_write(path, "\n".join(parts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--out", help="directory for the PNG and SVG figures (default: next to the CSV, figures/)")
    ap.add_argument("--html", help="also write this self-contained HTML report")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--sweep", action="store_true", help="the CSV is a merged sweep (default: guessed)")
    g.add_argument("--run", action="store_true", help="the CSV is one run's report.csv")
    ap.add_argument("--title")
    ap.add_argument("--fields", help="the report's field reference (`lampsim report --fields`), for a run's tables")
    a = ap.parse_args()
    try:
        header, rows = read_csv(a.csv)
    except (OSError, csv.Error, UnicodeDecodeError) as e:
        print("lampsim report: %s: %s" % (a.csv, e), file=sys.stderr)
        return 2
    if not header:
        print("lampsim report: %s: empty CSV" % a.csv, file=sys.stderr)
        return 2
    sweep = a.sweep or (not a.run and "point.index" in header)
    axes_cols = header[:header.index("point.index")] if "point.index" in header else []
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.csv)), "figures")
    if not sweep and rows:  # one run: its own page (scripts/report/, next to this script)
        from report import run as run_page
        from report.fields import ReportInputError
        try:
            for p in run_page.write(a.csv, a.html, out, atomic_write, a.fields, a.title):
                print(p)
        except ReportInputError as e:   # exit 2: `lampsim report` adds nothing to this one line
            print("lampsim report: %s" % e, file=sys.stderr)
            return 2
        return 0
    F = Figures(out)
    if not rows:
        F.note("no rows: nothing to plot")
    else:
        plot_tau_layout(F, header, rows, axes_cols)
        plot_tradeoff(F, header, rows)
        plot_pareto(F, header, rows, axes_cols)
        plot_utilisation(F, header, rows, axes_cols)
        plot_stack(F, header, rows, axes_cols)
        plot_occupancy(F, header, rows)
    for name, _, _ in F.made:
        print(os.path.join(out, name + ".png"))
    if a.html:
        title = a.title or ("lampsim sweep report" if sweep else "lampsim run report")
        write_html(a.html, title, F, header, rows, sweep, axes_cols, a.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
