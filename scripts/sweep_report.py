"""The sweep report of `lampsim report SWEEP_DIR` (scripts/plot_sweep.py hands a merged sweep here):
one self-contained HTML page rendered from templates/sweep_report.html.j2 with Jinja2. It opens with
what is missing (an interrupted sweep says INCOMPLETE and lists the points not finished), then the
answer to the sweep's axes (for each axis, whether one value wins at every setting of the others,
and by how much), the fastest point and its accuracy cost, the setup, the objective's winners, the
Pareto fronts, the figures and every point.

Labels follow one convention: a point is named by its axis values, numbers as the sweep file wrote
them (15 significant digits: 0.1, never 0.10000000000000001), keys the point's mode does not read
left out (tau for pure_8bit); rates are in % wherever a person reads them.
"""
import math
import os

import numpy as np

import plot_sweep as ps

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

bare, applies = ps.bare, ps.applies  # the key-mode table lives in plot_sweep.py


def value_text(v):
    """A value as a person writes it: numbers with at most 15 significant digits."""
    if v is None:
        return ""
    s = str(v)
    try:
        x = float(s)
    except ValueError:
        return s
    if not math.isfinite(x) or not any(c in s for c in ".eE"):
        return s
    if x.is_integer() and abs(x) < 1e15:
        return "%d" % x
    return "%.15g" % x


def short(key):
    return bare(key).split(".")[-1]


def row_mode(r):
    return r.get("mode") or r.get("algorithm.mode") or r.get("config.algorithm.mode", "")


def varying_axes(rows, axes_cols):
    """The axes with two or more values among the rows."""
    return [a for a in axes_cols if len({value_text(r.get(a, "")) for r in rows}) > 1]


def point_label(r, axes_cols, sep=", "):
    """tau=0.5, layout=compact: the point's axis values that its mode reads."""
    m = row_mode(r)
    parts = ["%s=%s" % (short(a), value_text(r.get(a, ""))) for a in axes_cols if applies(a, m)]
    return sep.join(parts) or m or "run"


def completeness(csv_path, rows, axes_cols):
    """(total, [label of each point not in the CSV]) from manifest.tsv beside the CSV, or None."""
    p = os.path.join(os.path.dirname(os.path.abspath(csv_path)), "manifest.tsv")
    if not os.path.exists(p):
        return None
    have = {r.get("point.index") for r in rows}
    total, missing = 0, []
    with open(p) as f:
        for line in f:
            t = line.rstrip("\n").split("\t")
            if len(t) < 2:
                continue
            total += 1
            if t[0] not in have:
                ov = dict(x.split("=", 1) for x in t[2:] if "=" in x)
                missing.append(point_label(ov, [bare(a) for a in axes_cols] if axes_cols else list(ov), sep=", ")
                               if ov else "point " + t[0])
    return total, missing


def times(x):
    """A ratio to three significant figures, grouped past a thousand (30,100, not 3.01e+04)."""
    r = float("%.3g" % x)
    return "{:,.0f}".format(r) if r >= 1000 else "%.3g" % r


def pct_range(lo, hi):
    return "%.0f %%" % lo if round(lo) == round(hi) else "%.0f-%.0f %%" % (lo, hi)


def axis_findings(rows, axes_cols, metric, better="lower"):
    """One sentence per varying axis: does one of its values win at every setting of the others?
    Settings are the values of the other axes that every value of this axis reads (comparing modes,
    tau is not a setting: each mode's best over it counts); within a setting each value's best row
    counts. Returns [str]."""
    out = []
    vals = ps.col_values(rows, metric)
    if not np.isfinite(vals).any():
        return out
    axes = varying_axes(rows, axes_cols)
    for a in axes:
        cand = [i for i, r in enumerate(rows) if applies(a, row_mode(r)) and np.isfinite(vals[i])]
        values = sorted({value_text(rows[i].get(a, "")) for i in cand}, key=sort_key)
        if len(values) < 2:
            continue
        # the other axes every value of a reads: for the mode axis, the keys all compared modes read
        modes_of = {v: {row_mode(rows[i]) for i in cand if value_text(rows[i].get(a, "")) == v} for v in values}
        others = [b for b in axes if b != a and all(applies(b, m) for ms in modes_of.values() for m in ms)
                  and len({value_text(rows[i].get(b, "")) for i in cand}) > 1]
        over = [b for b in axes if b != a and b not in others and any(applies(b, row_mode(rows[i])) for i in cand)
                and len({value_text(rows[i].get(b, "")) for i in cand}) > 1]
        best = {}  # setting -> value -> best metric
        for i in cand:
            s = tuple(value_text(rows[i].get(b, "")) for b in others)
            v = value_text(rows[i].get(a, ""))
            x = vals[i]
            cur = best.setdefault(s, {}).get(v)
            if cur is None or (x < cur if better == "lower" else x > cur):
                best[s][v] = x
        full = {s: d for s, d in best.items() if len(d) == len(values)}
        if not full:
            continue
        winners, ties = {}, []  # a setting where every value is within 0.5 % is a tie, no winner
        for s, d in full.items():
            w = min(d, key=lambda v: d[v]) if better == "lower" else max(d, key=lambda v: d[v])
            if all(d[v] and abs(d[v] / d[w] - 1) < 0.005 for v in d):
                ties.append(s)
            else:
                winners.setdefault(w, []).append(s)
        def setting_text(ss):
            return "; ".join(", ".join("%s=%s" % (short(b), v) for b, v in zip(others, t)) for t in ss[:4]) + (
                " ..." if len(ss) > 4 else "")
        tie_note = ""
        if ties and winners:
            tie_note = "; no difference at %s" % setting_text(ties)
            full = {s: d for s, d in full.items() if s not in ties}
        name = short(a)
        where = ("at every %s%s" % (", ".join(short(b) for b in others),
                                    " where every %s ran" % name if len(full) < len(best) else "")
                 if others and len(full) > 1 else "")
        if ties and winners:
            where = "at " + setting_text([t for ss in winners.values() for t in ss])
        note = " (each at its best %s)" % ", ".join(short(b) for b in over) if over else ""
        settings = " (%d of %d settings)" % (len(full), len(best)) if (where and not ties) or len(full) < len(best) else ""
        if not winners:
            out.append("%s makes no difference to %s%s: within 0.5 %%%s." % (
                name, human_metric(metric), (" " + where) if where else "", note))
        elif len(winners) == 1:
            w = next(iter(winners))
            losers = [v for v in values if v != w]
            ratios = [d[v] / d[w] if better == "lower" else d[w] / d[v] for d in full.values() for v in losers
                      if d[w] and d[v]]
            if not ratios:
                continue
            lo, hi = min(ratios), max(ratios)
            vs = losers[0] if len(losers) == 1 else "the other %s values" % name
            at = (" " + where) if where else ""
            if hi < 1.005:
                out.append("%s makes no difference to %s%s: within 0.5 %%%s." % (name, human_metric(metric), at, note))
                continue
            note = tie_note + note
            if metric in ps.CYCLE_NAMES:
                gap = pct_range(100 * (lo - 1), 100 * (hi - 1))
                if lo < 1.005:  # a tie somewhere: never slower, sometimes faster
                    out.append("%s=%s is the fastest %s%s%s, up to %.0f %% faster than %s (tied at some)%s." % (
                        name, w, name, at, settings, 100 * (hi - 1), vs, note))
                else:
                    out.append("%s=%s is faster than %s%s by %s%s%s." % (name, w, vs, at, gap, settings, note))
            else:
                span = times(lo) + "×" if abs(hi - lo) < 0.005 else "%s-%s×" % (times(lo), times(hi))
                out.append("%s=%s has the lowest %s%s%s: %s lower than %s%s." % (
                    name, w, human_metric(metric), at, settings, span, vs, note))
        else:
            parts = []
            for w, ss in sorted(winners.items(), key=lambda t: -len(t[1])):
                parts.append("%s=%s at %s" % (name, w, setting_text(ss)))
            out.append("The %s %s depends on %s: %s%s." % (
                "fastest" if metric in ps.CYCLE_NAMES else "most accurate", name,
                ", ".join(short(b) for b in others), "; ".join(parts), note))
    return out


def sort_key(v):
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)


def human_metric(metric):
    return {"accuracy.kl_mean": "KL mean"}.get(metric, "cycles" if metric in ps.CYCLE_NAMES else metric)


def headline(header, rows, axes_cols):
    """The answer: per-axis findings on cycles and accuracy, then the fastest point and its cost."""
    cyc = ps.first_col(header, ps.CYCLE_NAMES)
    lines = []
    if cyc:
        lines += axis_findings(rows, axes_cols, cyc)
    if "accuracy.kl_mean" in header:
        lines += [s for s in axis_findings(rows, axes_cols, "accuracy.kl_mean") if "no difference" not in s]
    kl, c = ps.col_values(rows, "accuracy.kl_mean"), ps.col_values(rows, cyc) if cyc else None
    facts = []
    label = lambda i: point_label(rows[i], varying_axes(rows, axes_cols) or axes_cols)  # noqa: E731
    if c is not None and np.isfinite(c).any():
        f, sl = int(np.nanargmin(c)), int(np.nanargmax(c))
        t = "Fastest: %s, %s cycles" % (label(f), ps.fmt(rows[f][cyc], "int"))
        if rows[f].get("time_us"):
            t += " (%s µs)" % ps.fmt(rows[f]["time_us"])
        t += ": %.2f× faster than the median point and %.2f× faster than the slowest (%s)." % (
            ps.ratio(float(np.nanmedian(c)), c[f]), ps.ratio(c[sl], c[f]), label(sl))
        facts.append(t)
        if np.isfinite(kl).any():
            a = int(np.nanargmin(kl))
            facts.append("Accuracy cost: the fastest point has KL mean %s; the most accurate (%s) has %s (%.2f× lower) "
                         "at %.2f× the cycles." % (ps.fmt(rows[f].get("accuracy.kl_mean", ""), "sci"), label(a),
                                                   ps.fmt(rows[a].get("accuracy.kl_mean", ""), "sci"),
                                                   ps.ratio(kl[f], kl[a]), ps.ratio(c[a], c[f])))
    elif np.isfinite(kl).any():
        a = int(np.nanargmin(kl))
        facts.append("No cycles in these reports (golden engine). Most accurate: %s, KL mean %s, O error %s." % (
            label(a), ps.fmt(rows[a]["accuracy.kl_mean"], "sci"), ps.fmt(rows[a].get("accuracy.o_rel_fro_err", ""), "sci")))
    return lines, facts


def table(header, rows, cols, marks=None):
    """{heads, rows} for the template: human headers with units, formatted cells; one Mode column;
    config values as the sweep wrote them, '-' where the row's mode does not read the key."""
    seen, keep = set(), []
    for c in cols:
        h = ps.human(c)[0]
        if c in header and h not in seen:
            seen.add(h)
            keep.append(c)
    heads = ([""] if marks is not None else []) + [ps.human(c)[0] for c in keep]
    body = []
    for i, r in enumerate(rows):
        cells = [marks.get(i, "")] if marks is not None else []
        for c in keep:
            v = r.get(c, "")
            if c.startswith(("algorithm.", "accelerator.", "workload.", "timed.", "config.")):
                cells.append(value_text(v) if applies(c, row_mode(r)) else "-")
            else:
                cells.append(ps.fmt(v, ps.human(c)[1]))
        body.append(cells)
    return {"heads": heads, "rows": body}


def render(path, title, F, header, rows, axes_cols, csv_path):
    try:
        import jinja2
    except ImportError:
        raise SystemExit("plot_sweep: the sweep report needs Jinja2 for /usr/bin/python3 (Debian python3-jinja2)")
    import base64

    comp = completeness(csv_path, rows, axes_cols)
    incomplete = None
    if comp and comp[1]:
        incomplete = {"done": len(rows), "total": comp[0], "missing": comp[1][:50], "more": max(0, len(comp[1]) - 50)}
    findings, facts = headline(header, rows, axes_cols) if rows else ([], [])
    ob = ps.read_objective(csv_path)
    cyc = ps.first_col(header, ps.CYCLE_NAMES)
    lay_ran = ["occupancy.layout"] if "occupancy.layout" in header else []
    winners = None
    if ob and rows:
        win = [r for r in rows if r.get("best.winner") == "1"]
        cols = [c for c in ob["per"] + ob["over"] if c in header]
        extra = [c for c in [ob["metric"], cyc, "tiles.disruptive_rate", "accuracy.kl_mean", "accuracy.o_rel_fro_err"]
                 if c and c in header and c not in cols]
        winners = {"ob": ob, "n": len(rows), "table": table(header, win, cols + list(dict.fromkeys(extra))),
                   "infeasible": [(" ".join(o), w) for w, o in ob["infeasible"][:50]],
                   "more": max(0, len(ob["infeasible"]) - 50)}
    paretos = []
    for cc, cl, ac, al, front in (ps.pareto_sets(header, rows) if rows else []):
        cols = ["point.index"] + axes_cols + [c for c in ["mode"] + lay_ran + [cc, ac] if c not in axes_cols]
        paretos.append({"what": "Pareto front: %s vs %s (%d of %d points)" % (cl, al, len(front), len(rows)),
                        "table": table(header, [rows[i] for i in front], cols)})
    sets = ps.pareto_sets(header, rows) if rows else []
    front = set(sets[0][4]) if sets else set()
    marks = {i: ", ".join(m for m, on in (("best", r.get("best.winner") == "1"), ("Pareto", i in front)) if on)
             for i, r in enumerate(rows)}
    pcols = ["point.index"] + axes_cols + [c for c in lay_ran + ([cyc] if cyc else []) + ["time_us", "energy.dynamic_uj"]
                                           + ps.KEY_COLS + ps.util_cols(header) if c not in axes_cols]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=jinja2.select_autoescape(["j2", "html"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    html_text = env.get_template("sweep_report.html.j2").render(
        title=title, incomplete=incomplete, findings=findings, facts=facts,
        setup=setup(rows, csv_path), n=len(rows), csv_path=csv_path, winners=winners, paretos=paretos,
        figures=[(t, name, base64.b64encode(png).decode()) for name, t, png in F.made], notes=F.notes,
        points=table(header, rows, pcols, marks) if rows else None)
    ps.atomic_write(path, html_text)


def setup(rows, csv_path):
    """The sweep's name and description, workload, version, and the sweep file's text."""
    import re
    d = os.path.dirname(os.path.abspath(csv_path))
    sy = os.path.join(d, "sweep.yaml")
    out = {"name": "", "workload": "", "text": ""}
    r0 = rows[0] if rows else {}
    if r0:
        out["workload"] = "workload %s: %s query / %s KV heads, %s × %s tokens, d %s%s, %s data%s; lampsim %s (git %s)" % (
            r0.get("workload.name", "?"), r0.get("workload.heads_q", "?"), r0.get("workload.heads_kv", "?"),
            r0.get("workload.seq_q", "?"), r0.get("workload.seq_k", "?"), r0.get("workload.dim", "?"),
            ", causal" if r0.get("workload.causal") == "true" else "",
            "synthetic" if r0.get("workload.synthetic") == "true" else "trace",
            ("; accelerator preset " + r0["config.accelerator.name"]) if r0.get("config.accelerator.name") else "",
            r0.get("lampsim.version", "?"), r0.get("lampsim.git", "?"))
    if os.path.exists(sy):
        with open(sy) as f:
            out["text"] = f.read()
        said = [m.group(1).strip().strip('"') for m in (re.search(r"^%s:\s*(.+)$" % k, out["text"], re.M)
                                                       for k in ("name", "description")) if m]
        out["name"] = ": ".join(said)
    return out
