#!/usr/bin/python3
"""sensitivity.html (self-contained: tables and embedded PNG figures) for a `lampsim sensitivity` directory.

    plot_sensitivity.py DIR [--top N]

Reads DIR/sensitivity.csv (one-at-a-time rows), DIR/morris.csv (when the analysis ran Morris) and
DIR/summary.txt (the answer as ranges), and writes DIR/sensitivity.html atomically. Per quantity
(a metric, or a ratio such as cycles full/compact):

  tornado   each parameter's one-at-a-time range: a bar from the base to the value at the low end
            of its range and one to the value at the high end, the largest swings on top; ratios
            draw the line at 1 that a flip crosses
  morris    mu* (mean |elementary effect|: influence) against sigma (spread: interactions and
            non-linearity), the most influential parameters labelled

`lampsim sensitivity` runs it (unless --no-html), and `lampsim report DIR` runs it again. Needs
Debian python3-matplotlib; uses the Agg backend. Exit status 0, or 2 for unreadable input.
"""
import argparse
import base64
import csv
import html
import io
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_sweep import atomic_write  # noqa: E402  (installed beside it: share/lampsim)


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def human(v):
    if not math.isfinite(v):
        return "-"
    a = abs(v)
    for lim, div, suf in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if a >= lim:
            return "%.4g%s" % (v / div, suf)
    return "%.4g" % v


class InputError(Exception):
    """A damaged or foreign sensitivity file: 'FILE: reason', one line on stderr, exit 2."""


def read_csv(path, need):
    """path's rows as dicts; InputError naming the file unless it is text with the columns `need`, every
    row complete and its rank a whole number (a truncated or edited file is refused, not half drawn)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, ValueError, csv.Error) as e:   # UnicodeDecodeError is a ValueError
        raise InputError("%s: not a readable CSV (%s)" % (path, " ".join(str(e).split())[:160])) from None
    if not rows:
        raise InputError("%s: no rows" % path)
    lacking = sorted(need - set(rows[0]))
    if lacking:
        raise InputError("%s: lacks the column%s %s" % (path, "s" if len(lacking) > 1 else "", ", ".join(lacking)))
    for i, r in enumerate(rows):
        if None in r or None in r.values():
            raise InputError("%s: line %d: its fields do not match the header's columns" % (path, i + 2))
        try:
            int(r["rank"])
        except ValueError:
            raise InputError("%s: line %d: rank %r is not a whole number" % (path, i + 2, r["rank"][:40])) from None
    return rows


def by_metric(rows):
    out = {}
    for r in rows:
        out.setdefault(r["metric"], []).append(r)
    return out


def png_of(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def short(key):
    return key[len("accelerator."):] if key.startswith("accelerator.") else key


def tornado(metric, rows, top):
    moved = [r for r in rows if math.isfinite(num(r["swing"])) and num(r["swing"]) != 0]
    still = len(rows) - len(moved)
    rows = sorted(moved, key=lambda r: int(r["rank"]))[:top]
    if not rows:
        return None
    base = num(rows[0]["metric_base"])
    fig, ax = plt.subplots(figsize=(8.5, 0.42 * len(rows) + 1.4))
    ys = list(range(len(rows)))[::-1]
    labelled = set()
    for y, r in zip(ys, rows):
        for col, dy, colour, lab in (("metric_low", 0.19, "#2a6ebb", "estimate at low"),
                                     ("metric_high", -0.19, "#d9822b", "estimate at high")):
            v = num(r[col])
            if math.isfinite(v) and v != base:
                ax.barh(y + dy, v - base, left=base, height=0.38, color=colour,
                        label=None if lab in labelled else lab)
                labelled.add(lab)
    if labelled:
        ax.legend(loc="best", fontsize=8)
    ax.axvline(base, color="black", lw=1)
    ratio = ":" in metric
    if ratio:
        ax.axvline(1.0, color="#b22222", lw=1, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels(["%s [%s..%s]" % (short(r["param"]), r["low"], r["high"]) for r in rows], fontsize=8)
    name = metric.replace(":", " ")
    ax.set_xlabel("%s (base %s%s)" % (name, human(base), "; dashed: 1, where the comparison flips" if ratio else ""))
    ax.set_title("%s: one at a time, each estimate at the low and the high end of its range%s" % (
        name, "\n(%d estimates that leave it unchanged not drawn)" % still if still else ""), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return png_of(fig)


def morris_fig(metric, rows):
    rows = [r for r in rows if math.isfinite(num(r["mu_star"]))]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.6))
    xs = [num(r["mu_star"]) for r in rows]
    ys = [num(r["sigma"]) if math.isfinite(num(r["sigma"])) else 0.0 for r in rows]
    ax.scatter(xs, ys, s=18, color="#2a6ebb")
    xmax = max(xs) if xs else 0
    for r, x, y in zip(rows, xs, ys):
        if int(r["rank"]) <= 6 and x > 0.02 * xmax:
            ax.annotate(short(r["param"]), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    name = metric.replace(":", " ")
    ax.set_xlabel("mu* (mean |elementary effect| per whole range)")
    ax.set_ylabel("sigma (spread of the effects)")
    ax.set_title("%s: Morris screening" % name, fontsize=10)
    ax.grid(alpha=0.3)
    return png_of(fig)


def table(cols, rows, heads=None):
    out = ["<table><tr>" + "".join("<th>%s</th>" % html.escape(h) for h in (heads or cols)) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join("<td>%s</td>" % html.escape(str(r.get(c, ""))) for c in cols) + "</tr>")
    out.append("</table>")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--top", type=int, default=15, help="parameters per tornado (default 15)")
    a = ap.parse_args()
    need = {"metric", "param", "low", "base", "high", "metric_low", "metric_base", "metric_high", "swing", "rank"}
    mpath = os.path.join(a.dir, "morris.csv")
    spath = os.path.join(a.dir, "summary.txt")
    try:
        oat = read_csv(os.path.join(a.dir, "sensitivity.csv"), need)
        morris = read_csv(mpath, {"metric", "param", "effects", "mu", "mu_star", "sigma", "rank"}) \
            if os.path.exists(mpath) else []
        try:
            with open(spath, encoding="utf-8") as f:
                summary = f.read()
        except (OSError, ValueError) as e:
            raise InputError("%s: %s" % (spath, " ".join(str(e).split())[:160])) from None
    except InputError as e:   # one line, no traceback (`lampsim report` and `sensitivity` add nothing)
        print("lampsim report: %s" % e, file=sys.stderr)
        return 2
    lines = summary.splitlines()
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>lampsim sensitivity</title>",
             "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}"
             "img{max-width:100%;border:1px solid #ddd;margin:6px 0}"
             ".headline{background:#f4f7fb;border-left:4px solid #2a6ebb;padding:0.5em 1em}pre{white-space:pre-wrap;background:#f7f7f7;padding:0.5em}</style></head><body>",
             "<h1>Sensitivity over the estimates</h1>",
             "<p>%s</p>" % html.escape(lines[0] if lines else ""),
             "<div class='headline'>" + "".join(
                 "<p>%s</p>" % html.escape(t) for t in lines[1:] if t and not t.startswith("  ")) + "</div>",
             "<pre>%s</pre>" % html.escape(summary)]
    om = by_metric(oat)
    mm = by_metric(morris)
    for metric, rows in om.items():
        name = metric.replace(":", " ")
        parts.append("<h2>%s</h2>" % html.escape(name))
        t = tornado(metric, rows, a.top)
        if t:
            parts.append("<img alt='tornado %s' src='data:image/png;base64,%s'>" % (html.escape(name), t))
        if metric in mm:
            m = morris_fig(metric, mm[metric])
            if m:
                parts.append("<img alt='morris %s' src='data:image/png;base64,%s'>" % (html.escape(name), m))
        ranked = sorted(rows, key=lambda r: int(r["rank"]))
        for r in ranked:
            for c in ("metric_low", "metric_base", "metric_high", "swing"):
                r[c + "_h"] = human(num(r[c]))
        cols = ["rank", "param", "low", "base", "high", "metric_low_h", "metric_base_h", "metric_high_h", "swing_h"]
        heads = ["rank", "estimate", "low", "base", "high", "at low", "at base", "at high", "swing"]
        if ":" in metric:
            cols.append("flips")
            heads.append("flips (crosses 1)")
        cols.append("note")
        heads.append("note")
        parts.append("<h3>One at a time</h3>" + table(cols, ranked, heads))
        if metric in mm:
            mr = sorted(mm[metric], key=lambda r: int(r["rank"]))
            for r in mr:
                for c in ("mu", "mu_star", "sigma"):
                    r[c + "_h"] = human(num(r[c]))
            parts.append("<h3>Morris elementary effects</h3>" + table(
                ["rank", "param", "effects", "mu_star_h", "sigma_h", "mu_h"], mr,
                ["rank", "estimate", "effects", "mu*", "sigma", "mu"]))
    parts.append("<p>Files: sensitivity.csv, morris.csv, samples.csv (every sample), summary.txt, "
                 "config.resolved.yaml (the base). docs/sensitivity.md says how to read them.</p></body></html>")
    atomic_write(os.path.join(a.dir, "sensitivity.html"), "\n".join(parts) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
