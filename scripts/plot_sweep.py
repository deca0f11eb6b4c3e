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
  utilisation  small multiples: one panel per unit, the utilisation of every point
  occupancy    occupancy vs tile size (columns occupancy.*, tile size b_k * n_k)

One run's report.csv (--run) is handed to scripts/report/ (its page and figures: docs/reports.md).

A sweep's report.html opens with a headline (the fastest point, by how much, at what accuracy
cost), the sweep's base configuration and workload, the objective's winners when the sweep has
one (objective.tsv next to the CSV), the Pareto front, then the figures and every point.
A figure whose columns are absent (for instance cycles before the timed model exists) is skipped
with a note, printed and repeated in the HTML. Needs Debian python3-numpy and python3-matplotlib;
uses the Agg backend (no display). Exit status: 0, or 2 for unreadable input.
"""
import argparse
import base64
import csv
import html
import io
import math
import os
import re
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


def series(rows, keys):
    out = {}
    for r in rows:
        lab = ", ".join("%s=%s" % (k.split(".")[-1], r.get(k, "")) for k in keys if k in r)
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
    panels = [("tiles.disruptive_rate", "disruptive tiles (share of executed tiles)"), (RATE, "recompute rate (sub-blocks)")]
    if cyc:
        panels.insert(0, (cyc, "cycles"))
    else:
        F.note("tau_layout: no cycles column (the timed model adds it); plotting recompute figures only")
    skeys = series_key(axes_cols)
    if winners:  # one line per group of the objective but tau (best.group: key=value of the per axes)
        per = [t.partition("=")[0] for t in lamp[0].get("best.group", "").split(" ") if "=" in t] if lamp else []
        skeys = [c for c in ("config." + k for k in per) if c != TAU] or [LAYOUT]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.6), squeeze=False)
    notes = []
    for ax, (c, label) in zip(axes[0], panels):
        lines = []
        for k, (lab, rs) in enumerate(series(lamp, skeys)):
            x = col_values(rs, TAU)
            y = col_values(rs, c)
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
            x = col_values(by_mode[m], RATE)
            y = col_values(by_mode[m], c)
            o = np.argsort(x)
            ax.plot(x[o], y[o], marker="o" if m == "lamp" else "s", label={"lamp": "LampAttention", "random": "random recompute"}.get(m, m))
        for k, m in enumerate(fixed):
            y = np.nanmean(col_values(by_mode[m], c))
            if np.isfinite(y) and y > 0:
                ax.axhline(y, linestyle="--", color="C%d" % (k + 3), label=m)
        ax.set_xlabel("recompute rate (high-precision sub-blocks)")
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


def plot_utilisation(F, header, rows, axes_cols):
    uc = util_cols(header)
    if not uc:
        F.note("utilisation skipped: no units.<unit>.utilisation columns (the timed model adds them)")
        return
    units = [c.split(".")[1] for c in uc]
    ncol = min(4, len(units))
    nrow = (len(units) + ncol - 1) // ncol
    x = col_values(rows, "point.index") if "point.index" in header else np.arange(len(rows))
    win = np.array([r.get("best.winner") == "1" for r in rows])
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 2.3 * nrow), sharex=True, sharey=True, squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= len(units):
            ax.axis("off")
            continue
        y = col_values(rows, uc[k])
        if len(rows) <= 48:
            ax.bar(x, y, width=0.85, color=np.where(win, "C3", "C0"))
        else:  # bars this thin alias: dots
            ax.scatter(x[~win], y[~win], s=4, color="C0")
            ax.scatter(x[win], y[win], s=16, color="C3")
        ax.set_title(units[k], fontsize=9)
        ax.set_ylim(0, 1.0)
        ax.grid(True, axis="y", alpha=0.3)
        if k % ncol == 0:
            ax.set_ylabel("utilisation")
        if k >= len(units) - ncol:
            ax.set_xlabel("point (manifest index)")
    fig.suptitle("Unit utilisation of every point (%d points%s)" % (
        len(rows), "; red: the objective's winners" if win.any() else ""))
    F.save(fig, "utilisation", "Unit utilisation, one panel per unit, every point (x: point index, table below)")


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
    if "energy.total_uj" in header:
        costs.append(("energy.total_uj", "energy (µJ)"))
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
    for ax, (cc, cl, ac, al, front) in zip(axes.flat, sets):
        x, y = col_values(rows, cc), col_values(rows, ac)
        for k, c in enumerate(cats):
            m = np.array([category(r) == c for r in rows])
            ax.scatter(x[m], y[m], s=18, alpha=0.6, color="C%d" % k, marker="osD^v<>p"[k % 8], label=c)
        fx, fy = x[front], y[front]
        ax.step(fx, fy, where="post", color="k", linewidth=1, alpha=0.7)
        ax.scatter(fx, fy, s=70, facecolors="none", edgecolors="k", linewidths=1.5, label="Pareto front")
        for i in front:  # point numbers: the Pareto tables of the report give their configurations
            ax.annotate("#" + rows[i].get("point.index", str(i)), (x[i], y[i]), fontsize=7, xytext=(4, 3),
                        textcoords="offset points")
        ax.set_xlabel(cl)
        ax.set_ylabel(al)
        if np.nanmin(y) > 0:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(sets):]:
        ax.axis("off")
    fig.suptitle("Cost vs accuracy over all %d points; circled and numbered: the Pareto front (lower-left is better)"
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
    "tflops_effective": ("Effective TFLOP/s", ""), "energy.total_uj": ("Energy (µJ)", ""),
    "tiles.disruptive_rate": ("Disruptive tiles (%)", "pct"), "recompute.subblock_rate": ("Recompute, sub-blocks (%)", "pct"),
    "recompute.logit_rate": ("Recompute, logits (%)", "pct"), "accuracy.kl_mean": ("KL mean (nats)", "sci"),
    "accuracy.o_rel_fro_err": ("O rel. Frobenius error", "sci"), "accuracy.argmax_flip_rate": ("Argmax flips (%)", "pct"),
    "occupancy.contexts_per_core.mean": ("Contexts per core (mean)", ""),
    "algorithm.tau": ("tau", ""), "accelerator.regfile.layout": ("Register layout", ""),
    "algorithm.b_q": ("b_q (query rows / warp)", ""), "algorithm.n_q": ("N_q (warps)", ""),
    "algorithm.b_k": ("b_k (keys / sub-block)", ""), "algorithm.n_k": ("N_k (sub-blocks)", ""),
    "algorithm.mode": ("Mode", ""), "algorithm.random_rate": ("Random rate", ""), "point.index": ("Point", ""),
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


def table(header, rows, cols, marks=None):
    """Rows of cols with human headers; marks: {row index: text} in a first column."""
    heads = (["" ] if marks is not None else []) + [human(c)[0] for c in cols]
    out = ["<table><tr>" + "".join("<th>%s</th>" % html.escape(h) for h in heads) + "</tr>"]
    for i, r in enumerate(rows):
        cells = ([marks.get(i, "")] if marks is not None else []) + [fmt(r.get(c, ""), human(c)[1]) for c in cols]
        out.append("<tr>" + "".join("<td>%s</td>" % html.escape(c) for c in cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def config_text(r, axes_cols):
    """A point as its axis values with short names: tau=0.5, layout=compact, ..."""
    return ", ".join("%s=%s" % (a.split(".")[-1], r.get(a, "")) for a in axes_cols) or r.get(MODE, "run")


def ratio(a, b):
    return a / b if b else math.nan


def headline(header, rows, axes_cols):
    """Sentences (HTML) on the fastest point, by how much, at what accuracy cost."""
    cyc = first_col(header, CYCLE_NAMES)
    kl, oe = col_values(rows, "accuracy.kl_mean"), col_values(rows, "accuracy.o_rel_fro_err")
    out = []
    if cyc and np.isfinite(col_values(rows, cyc)).any():
        c = col_values(rows, cyc)
        f, sl = int(np.nanargmin(c)), int(np.nanargmax(c))
        med = float(np.nanmedian(c))
        t = "<b>Fastest: %s</b>, %s cycles" % (html.escape(config_text(rows[f], axes_cols)), fmt(rows[f][cyc], "int"))
        if "time_us" in header:
            t += " (%s µs)" % fmt(rows[f].get("time_us", ""))
        t += ": %.2f× faster than the median point and %.2f× faster than the slowest (%s)." % (
            ratio(med, c[f]), ratio(c[sl], c[f]), html.escape(config_text(rows[sl], axes_cols)))
        out.append(t)
        # the fastest point of every other layout / mode
        for key, name in ((LAYOUT, "register layout"), (MODE, "mode")):
            vals = sorted({r.get(key, "") for r in rows} - {""})
            if len(vals) < 2:
                continue
            other = []
            for v in vals:
                if v == rows[f].get(key):
                    continue
                idx = [i for i, r in enumerate(rows) if r.get(key) == v and np.isfinite(c[i])]
                if idx:
                    g = min(idx, key=lambda i: c[i])
                    other.append("%s %s: %.2f× the cycles (%s)" % (name, html.escape(v), ratio(c[g], c[f]),
                                                                   html.escape(config_text(rows[g], axes_cols))))
            if other:
                out.append("Fastest point of each other %s: %s." % (name, "; ".join(other)))
        if np.isfinite(kl).any():
            a = int(np.nanargmin(kl))
            out.append("Accuracy cost: the fastest point has KL mean %s and O error %s; the most accurate point (%s) "
                       "has KL mean %s (%.2f× lower) and O error %s, at %.2f× the cycles." % (
                           fmt(rows[f].get("accuracy.kl_mean", ""), "sci"), fmt(rows[f].get("accuracy.o_rel_fro_err", ""), "sci"),
                           html.escape(config_text(rows[a], axes_cols)), fmt(rows[a].get("accuracy.kl_mean", ""), "sci"),
                           ratio(kl[f], kl[a]), fmt(rows[a].get("accuracy.o_rel_fro_err", ""), "sci"), ratio(c[a], c[f])))
    elif np.isfinite(kl).any():
        a = int(np.nanargmin(kl))
        out.append("No cycles in these reports (golden engine). <b>Most accurate: %s</b>, KL mean %s, O error %s." % (
            html.escape(config_text(rows[a], axes_cols)), fmt(rows[a]["accuracy.kl_mean"], "sci"),
            fmt(rows[a].get("accuracy.o_rel_fro_err", ""), "sci")))
    return out


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


def setup_html(header, rows, csv_path):
    """The sweep's name, description, base configuration and workload."""
    parts = []
    d = os.path.dirname(os.path.abspath(csv_path))
    sy = os.path.join(d, "sweep.yaml")
    r0 = rows[0] if rows else {}
    if r0:
        w = "workload %s: %s query / %s KV heads, %s × %s tokens, d %s%s, %s data" % (
            r0.get("workload.name", "?"), r0.get("workload.heads_q", "?"), r0.get("workload.heads_kv", "?"),
            r0.get("workload.seq_q", "?"), r0.get("workload.seq_k", "?"), r0.get("workload.dim", "?"),
            ", causal" if r0.get("workload.causal") == "true" else "",
            "synthetic" if r0.get("workload.synthetic") == "true" else "trace")
        acc = r0.get("config.accelerator.name", "")
        parts.append("<p>%s%s; lampsim %s (git %s).</p>" % (
            html.escape(w), ("; accelerator preset " + html.escape(acc)) if acc else "",
            html.escape(r0.get("lampsim.version", "?")), html.escape(r0.get("lampsim.git", "?"))))
    if os.path.exists(sy):
        with open(sy) as f:
            text = f.read()
        said = [m.group(1).strip().strip('"') for m in (re.search(r"^%s:\s*(.+)$" % k, text, re.M)
                                                       for k in ("name", "description")) if m]
        if said:
            parts.insert(0, "<p>Sweep <b>%s</b></p>" % html.escape(": ".join(said)))
        parts.append("<details><summary>Sweep file (base configuration and axes)</summary><pre>%s</pre></details>"
                     % html.escape(text))
    return parts


def winners_html(header, rows, axes_cols, ob):
    m = ob["metric"]
    parts = ["<h2>Best configuration per group</h2>",
             "<p>Objective: %s <code>%s</code> over %s, per %s. %d point%s infeasible (skipped: the configuration "
             "refused it or its registers do not fit), %d run.</p>" % (
                 ob["sense"], html.escape(m), html.escape(", ".join(ob["over"]) or "-"),
                 html.escape(", ".join(ob["per"]) or "(one group)"), len(ob["infeasible"]),
                 "" if len(ob["infeasible"]) == 1 else "s", len(rows))]
    win = [r for r in rows if r.get("best.winner") == "1"]
    cols = [c for c in ob["per"] + ob["over"] if c in header]
    extra = [c for c in [m, first_col(header, CYCLE_NAMES), "tiles.disruptive_rate", "accuracy.kl_mean",
                         "accuracy.o_rel_fro_err"] if c and c in header and c not in cols]
    seen = []
    for c in extra:
        if c not in seen:
            seen.append(c)
    parts.append(table(header, win, cols + seen))
    if ob["infeasible"]:
        items = "".join("<li><code>%s</code>: %s</li>" % (html.escape(" ".join(o)), html.escape(w))
                        for w, o in ob["infeasible"][:50])
        more = len(ob["infeasible"]) - 50
        parts.append("<details><summary>Infeasible points</summary><ul>%s</ul>%s</details>" % (
            items, "<p>... and %d more (objective.tsv)</p>" % more if more > 0 else ""))
    return parts


def pareto_html(header, rows, axes_cols):
    parts = []
    for k, (cc, cl, ac, al, front) in enumerate(pareto_sets(header, rows)):
        what = "Pareto front: %s vs %s (%d of %d points)" % (html.escape(cl), html.escape(al), len(front), len(rows))
        modes = [MODE] if len({r.get(MODE) for r in rows}) > 1 else []
        cols = ["point.index"] + axes_cols + [c for c in modes + [cc, ac] if c in header and c not in axes_cols]
        t = table(header, [rows[i] for i in front], cols)
        # the first (cycles vs KL) open, the others folded
        parts.append("<h3>%s</h3>%s" % (what, t) if k == 0 else "<details><summary>%s</summary>%s</details>" % (what, t))
    return parts


def write_html(path, title, F, header, rows, sweep, axes_cols, csv_path):
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>" % html.escape(title),
             "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td{white-space:nowrap}th{background:#eee}"
             "img{max-width:100%;border:1px solid #ddd;margin:6px 0}.note{color:#8a5a00}"
             ".headline{background:#f4f7fb;border-left:4px solid #2a6ebb;padding:0.5em 1em}pre{background:#f7f7f7;padding:0.5em}"
             "</style></head><body>",
             "<h1>%s</h1>" % html.escape(title)]
    if sweep:
        ob = read_objective(csv_path)
        lines = headline(header, rows, axes_cols) if rows else []
        if lines:
            parts.append("<div class='headline'>" + "".join("<p>%s</p>" % t for t in lines) + "</div>")
        parts += setup_html(header, rows, csv_path)
        parts.append("<p>%d points, source <code>%s</code>.</p>" % (len(rows), html.escape(csv_path)))
        if ob and rows:
            parts += winners_html(header, rows, axes_cols, ob)
        pp = pareto_html(header, rows, axes_cols) if rows else []
        if pp:
            parts.append("<h2>Pareto fronts</h2><p>Points no other point beats on both cost and accuracy.</p>")
            parts += pp
    elif rows:
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
    if sweep:
        cyc = first_col(header, CYCLE_NAMES)
        cols = axes_cols + [c for c in ([cyc] if cyc else []) + ["time_us", "energy.total_uj"] + KEY_COLS + util_cols(header)
                            if c in header and c not in axes_cols]
        sets = pareto_sets(header, rows)
        front = set(sets[0][4]) if sets else set()
        marks = {i: ", ".join(m for m, on in (("best", r.get("best.winner") == "1"), ("Pareto", i in front)) if on)
                 for i, r in enumerate(rows)}
        parts.append("<h2>Points</h2><p>In manifest order (the x axis of the utilisation panels); first column: "
                     "the objective's winners (best) and the points on the cycles–KL Pareto front.</p>")
        parts.append(table(header, rows, ["point.index"] + cols, marks))
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
        print("plot_sweep: %s: %s" % (a.csv, e), file=sys.stderr)
        return 2
    if not header:
        print("plot_sweep: %s: empty CSV" % a.csv, file=sys.stderr)
        return 2
    sweep = a.sweep or (not a.run and "point.index" in header)
    axes_cols = header[:header.index("point.index")] if "point.index" in header else []
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.csv)), "figures")
    if not sweep and rows:  # one run: its own page (scripts/report/, next to this script)
        from report import run as run_page
        for p in run_page.write(a.csv, a.html, out, atomic_write, a.fields, a.title):
            print(p)
        return 0
    F = Figures(out)
    if not rows:
        F.note("no rows: nothing to plot")
    else:
        plot_tau_layout(F, header, rows, axes_cols)
        plot_tradeoff(F, header, rows)
        plot_pareto(F, header, rows, axes_cols)
        plot_utilisation(F, header, rows, axes_cols)
        plot_occupancy(F, header, rows)
    for name, _, _ in F.made:
        print(os.path.join(out, name + ".png"))
    if a.html:
        title = a.title or ("lampsim sweep report" if sweep else "lampsim run report")
        write_html(a.html, title, F, header, rows, sweep, axes_cols, a.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
