#!/usr/bin/python3
"""The compact vs full answer from the merged results of a study sweep (docs/studies.md).

    compact_vs_full.py DIR_OR_RESULTS_CSV [...]

Each input is a sweep directory (its results.csv, written by `lampsim report DIR`) or a merged CSV
of a sweep with `best: {..., per: [accelerator.regfile.layout, ...]}`. A condition is a group of
the objective without the layout (for example max_contexts=2 stage1=true tau=0.5); a family, the
conditions that differ only in tau and stage1 (how much is recomputed). For every condition it
takes each layout's winner (best.winner); per family it prints a Markdown table, by rising
disruptive-tile rate of the compact winner: the condition, the winners' tiles, cycles and
disruptive-tile rates, and full / compact cycles (above 1 compact is faster). Then the
disruptive-tile rate at which compact stops paying: where the ratio falls through 1, interpolated
linearly in the disruptive rate between the neighbouring conditions, or that it does not cross
within the measured range. Exit status 0, or 2 for an unusable input.
"""
import csv
import os
import sys

TAU, LAYOUT = "algorithm.tau", "accelerator.regfile.layout"
TILE = ("algorithm.b_q", "algorithm.n_q", "algorithm.b_k", "algorithm.n_k")


def condition(r):
    """The objective's group without the layout (short key names), else tau."""
    g = r.get("best.group")
    if g is None:
        return "tau=" + r[TAU]
    keep = [t for t in g.split(" ") if not t.startswith(LAYOUT + "=")]
    return " ".join(t.partition("=")[0].split(".")[-1] + "=" + t.partition("=")[2] for t in keep) or "all"


def winners(path):
    """(workload name, {condition: {layout: row}}) of the winners, or raises ValueError."""
    if os.path.isdir(path):
        path = os.path.join(path, "results.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "best.winner" not in rows[0] or TAU not in rows[0] or LAYOUT not in rows[0]:
        raise ValueError("%s: needs the columns %s, %s and best.winner (a sweep with best: per layout and tau)"
                         % (path, TAU, LAYOUT))
    out = {}
    for r in rows:
        if r["best.winner"] == "1":
            out.setdefault(condition(r), {})[r[LAYOUT]] = r
    return rows[0].get("workload.name", path), out


def tile(r):
    return "b_q %s, N_q %s, %s x %s keys" % tuple(r.get(k) or r.get("config." + k, "?") for k in TILE)


def crossing(points):
    """points: [(disruptive rate, full/compact ratio)] by rising rate. A sentence: the rate where
    the ratio falls through 1 (compact stops paying), or why there is none."""
    span = "full / compact %.3f to %.3f from %.1f%% to %.1f%% disruptive tiles" % (
        min(q for _, q in points), max(q for _, q in points), 100 * points[0][0], 100 * points[-1][0])
    if all(q > 1 for _, q in points):
        return "compact pays at every measured rate (%s)" % span
    if all(q <= 1 for _, q in points):
        ties = [d for d, q in points if q == 1]
        return "compact does not pay at any measured rate (%s%s)" % (
            span, "; a tie at %s" % ", ".join("%.1f%%" % (100 * d) for d in ties) if ties else "")
    for (d0, q0), (d1, q1) in zip(points, points[1:]):
        if q0 > 1 >= q1:
            d = d0 + (d1 - d0) * (q0 - 1) / (q0 - q1) if q0 != q1 else d0
            return "compact stops paying at a disruptive-tile rate of about %.1f%% (between %.1f%% and %.1f%%; %s)" % (
                100 * d, 100 * d0, 100 * d1, span)
    return "the ratio is not monotonic in the disruptive rate (%s): read the table" % span


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for p in sys.argv[1:]:
        try:
            name, w = winners(p)
        except (OSError, ValueError, KeyError) as e:
            print("compact_vs_full: %s" % e, file=sys.stderr)
            return 2
        fams = {}
        for cond, lw in w.items():
            fam = " ".join(t for t in cond.split(" ") if not t.startswith(("tau=", "stage1=")))
            fams.setdefault(fam, {})[cond] = lw
        for fam in sorted(fams, key=lambda f: [(len(t), t) for t in f.split(" ")]):
            print("### %s%s\n" % (name, ", " + fam if fam else ""))
            print("| condition | compact: best tile | cycles | disruptive | full: best tile | cycles | disruptive | full / compact |")
            print("|---|---|---|---|---|---|---|---|")
            pts, lines = [], []
            for cond, lw in fams[fam].items():
                c, f = lw.get("compact"), lw.get("full")
                if not c or not f:
                    continue
                q = float(f["cycles"]) / float(c["cycles"])
                dc = float(c["tiles.disruptive_rate"])
                pts.append((dc, q))
                lines.append((dc, cond, "| %s | %s | %s | %.1f%% | %s | %s | %.1f%% | %.3f |" % (
                    cond, tile(c), c["cycles"], 100 * dc, tile(f), f["cycles"], 100 * float(f["tiles.disruptive_rate"]), q)))
            for line in sorted(lines):
                print(line[2])
            if not pts:
                print("compact_vs_full: %s: no condition with a winner for both layouts" % p, file=sys.stderr)
                return 2
            print("\n%s.\n" % crossing(sorted(pts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
