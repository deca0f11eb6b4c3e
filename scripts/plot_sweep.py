#!/usr/bin/python3
"""Figures (PNG and SVG) and a self-contained report.html from lampsim results.

    plot_sweep.py results.csv [--out DIR] [--html report.html] [--sweep | --run] [--title T]

results.csv is either a merged sweep (`lampsim sweep merge DIR`: axis columns, point.index,
point.id, then the report columns) or one run's report.csv. Figures, each written as DIR/NAME.png
and DIR/NAME.svg when its columns exist:

  tau_layout   disruptive-tile rate (and cycles, once the timed model reports them) vs tau, one
               line per register layout (lamp points)
  tradeoff     accuracy (KL mean, O relative error) vs recompute rate: LampAttention over tau,
               random recompute over its rate, and the fixed baselines (fa2_16bit, pure_8bit, ...)
  utilisation  per-unit utilisation bars (columns units.<unit>.utilisation)
  occupancy    occupancy vs tile size (columns occupancy.*, tile size b_k * n_k)
  hp_hist      (runs) tiles by number of high-precision sub-blocks

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


def plot_tau_layout(F, header, rows, axes_cols=()):
    lamp = [r for r in rows if r.get(MODE, "lamp") == "lamp"]
    taus = sorted({num(r.get(TAU)) for r in lamp} - {math.nan})
    if TAU not in header or len(taus) < 2:
        F.note("tau_layout skipped: needs lamp points at two or more values of algorithm.tau")
        return
    cyc = first_col(header, CYCLE_NAMES)
    panels = [("tiles.disruptive_rate", "disruptive-tile rate"), (RATE, "recompute rate (sub-blocks)")]
    if cyc:
        panels.insert(0, (cyc, "cycles"))
    else:
        F.note("tau_layout: no cycles column (the timed model adds it); plotting recompute figures only")
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.6), squeeze=False)
    for ax, (c, label) in zip(axes[0], panels):
        for lab, rs in series(lamp, series_key(axes_cols)):
            x = col_values(rs, TAU)
            y = col_values(rs, c)
            o = np.argsort(x)
            ax.plot(x[o], y[o], marker="o", label=lab or "lamp")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("tau")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("LampAttention vs tau, per register layout")
    F.save(fig, "tau_layout", "Cycles and disruptive-tile rate vs tau")


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
    fig.suptitle("Accuracy vs recompute rate")
    F.save(fig, "tradeoff", "Accuracy vs recompute rate (LampAttention, random recompute, baselines)")


def label_of(r, axes_cols):
    if axes_cols:
        return ", ".join("%s=%s" % (a.split(".")[-1], r.get(a, "")) for a in axes_cols)
    return r.get(MODE, "run")


def plot_utilisation(F, header, rows, axes_cols):
    uc = util_cols(header)
    if not uc:
        F.note("utilisation skipped: no units.<unit>.utilisation columns (the timed model adds them)")
        return
    rs = rows[:8]
    if len(rows) > 8:
        F.note("utilisation: showing the first 8 of %d points" % len(rows))
    units = [c.split(".")[1] for c in uc]
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(units)), 3.8))
    w = 0.8 / len(rs)
    for k, r in enumerate(rs):
        ax.bar(np.arange(len(units)) + k * w, [num(r.get(c)) for c in uc], w, label=label_of(r, axes_cols))
    ax.set_xticks(np.arange(len(units)) + 0.4 - w / 2)
    ax.set_xticklabels(units, rotation=30)
    ax.set_ylabel("utilisation")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7)
    ax.grid(True, axis="y", alpha=0.3)
    F.save(fig, "utilisation", "Per-unit utilisation")


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


def plot_hist(F, header, rows):
    if "tiles.hp_subblocks_hist" not in header or not rows:
        F.note("hp_hist skipped: no tiles.hp_subblocks_hist column")
        return
    h = [int(x) for x in rows[0]["tiles.hp_subblocks_hist"].split(";") if x]
    if not h:
        F.note("hp_hist skipped: empty histogram")
        return
    fig, ax = plt.subplots(figsize=(5, 3.4))
    tot = max(sum(h), 1)
    ax.bar(range(len(h)), [v / tot for v in h], color=["C0"] + ["C0"] + ["C3"] * (len(h) - 2))
    ax.set_xlabel("high-precision sub-blocks per tile (red: disruptive)")
    ax.set_ylabel("share of executed tiles")
    ax.grid(True, axis="y", alpha=0.3)
    F.save(fig, "hp_hist", "Tiles by number of high-precision sub-blocks")


KEY_COLS = ["mode", "tiles.disruptive_rate", "recompute.subblock_rate", "recompute.logit_rate", "accuracy.kl_mean",
            "accuracy.o_rel_fro_err", "accuracy.argmax_flip_rate"]


def fmt(v):
    x = num(v)
    if math.isnan(x) or v.strip().lower() in ("true", "false") or not v:
        return v
    if float(x).is_integer() and abs(x) < 1e15:
        return "%d" % x
    return "%.4g" % x


def table(header, rows, cols):
    out = ["<table><tr>" + "".join("<th>%s</th>" % html.escape(c) for c in cols) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join("<td>%s</td>" % html.escape(fmt(r.get(c, ""))) for c in cols) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def write_html(path, title, F, header, rows, sweep, axes_cols, csv_path):
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>" % html.escape(title),
             "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}"
             "img{max-width:100%;border:1px solid #ddd;margin:6px 0}.note{color:#8a5a00}</style></head><body>",
             "<h1>%s</h1>" % html.escape(title)]
    if rows:
        r0 = rows[0]
        parts.append("<p>lampsim %s (git %s), %d %s, source <code>%s</code></p>" % (
            html.escape(r0.get("lampsim.version", "?")), html.escape(r0.get("lampsim.git", "?")), len(rows),
            "points" if sweep else "run", html.escape(csv_path)))
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
        cols = axes_cols + [c for c in ([cyc] if cyc else []) + util_cols(header) + KEY_COLS if c in header and c not in axes_cols]
        parts.append("<h2>Points</h2>")
        parts.append(table(header, rows, cols))
    else:
        from run_report import run_report_html  # next to this script: the grouped run report
        parts.append(run_report_html(header, rows[0] if rows else {}))
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
    F = Figures(out)
    if not rows:
        F.note("no rows: nothing to plot")
    elif sweep:
        plot_tau_layout(F, header, rows, axes_cols)
        plot_tradeoff(F, header, rows)
        plot_utilisation(F, header, rows, axes_cols)
        plot_occupancy(F, header, rows)
    else:
        plot_hist(F, header, rows)
        plot_utilisation(F, header, rows, [])
    for name, _, _ in F.made:
        print(os.path.join(out, name + ".png"))
    if a.html:
        title = a.title or ("lampsim sweep report" if sweep else "lampsim run report")
        write_html(a.html, title, F, header, rows, sweep, axes_cols, a.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
