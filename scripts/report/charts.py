"""The run report's figures, static matplotlib (Agg) drawn to SVG: the page embeds them as data
URIs (self-contained, sharp at any zoom) and figures/ keeps each as NAME.svg and NAME.png.

Why static and not an interactive library: the page has four small charts whose every value is
also in the field tables below them; Bokeh is not in Debian 12, and Debian's python3-plotly
(5.4.1+dfsg) ships without plotly.js, so a self-contained page would have to carry a plotly.js of
its own (about 3.5 MB) from outside Debian."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "lampsim"  # deterministic SVG ids
plt.rcParams["font.size"] = 9
plt.rcParams["svg.fonttype"] = "none"  # text as text: selectable and searchable in the page, a smaller file

STACK = [("launch", "#9e9e9e"), ("busy", "#1f77b4"), ("dependency", "#ff7f0e"), ("unit_busy", "#d62728"),
         ("memory", "#2ca02c"), ("scheduler", "#9467bd"), ("slow_path", "#8c564b"), ("other", "#e377c2"),
         ("tail", "#bcbd22"), ("idle", "#e0e0e0")]
STALLS = ["dependency", "unit_busy", "memory", "scheduler", "slow_path"]
ENERGY = ["tensor", "lut", "sfu", "vector", "scheduler", "regfile", "buffer", "l2", "dram", "leakage"]


def _svg_png(fig):
    s, p = io.BytesIO(), io.BytesIO()
    fig.savefig(s, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    fig.savefig(p, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return s.getvalue(), p.getvalue()


def cycle_stack(r):
    """Two stacked bars, cores with work and all cores, each as long as the run's cycles."""
    cyc = r.get("cycles")
    if not cyc or "cycle_stack.chip.busy" not in r:
        return None
    bars = [("cores with work (%d)" % r.get("occupancy.cores_used", 0), "working_cores"),
            ("all cores (%d)" % r.get("occupancy.cores", 0), "chip")]
    fig, ax = plt.subplots(figsize=(7.2, 1.9))
    for y, (label, part) in enumerate(bars):
        left = 0
        for cat, col in STACK:
            v = r.get("cycle_stack.%s.%s" % (part, cat)) or 0
            if v <= 0:
                continue
            ax.barh(y, v, left=left, color=col, edgecolor="white", linewidth=0.5,
                    label=cat if y == 0 or part == "chip" and cat == "idle" else None)
            share = v / cyc   # a label only where it fits: name and share, or the share alone
            text = "%s %.0f%%" % (cat, 100 * share) if share >= 0.01 * (4 + 1.6 * len(cat)) else (
                "%.0f%%" % (100 * share) if share >= 0.04 else "")
            if text:
                ax.text(left + v / 2, y, text, ha="center", va="center", fontsize=7.5,
                        color="black" if cat in ("idle", "tail", "launch") else "white")
            left += v
    ax.set_yticks(range(len(bars)))
    ax.set_yticklabels([b[0] for b in bars])
    ax.invert_yaxis()
    ax.set_xlim(0, cyc)
    ax.set_xlabel("cycles (the run's %s; busy = the bottleneck unit, %s)" % ("{:,}".format(cyc),
                                                                           r.get("cycle_stack.bottleneck", "?")))
    ax.legend(ncol=5, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.45), frameon=False)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    return _svg_png(fig)


def _units(r):
    out = []
    for k in r:
        if k.startswith("units.") and k.endswith(".utilisation"):
            out.append(k.split(".")[1])
    return out


def utilisation(r):
    """One chart, a pair of bars per unit: over the cores with work and over every core of the chip."""
    units = _units(r)
    if not units:
        return None
    used, cores = r.get("occupancy.cores_used", 0), r.get("occupancy.cores", 0)
    fig, ax = plt.subplots(figsize=(6.0, 0.42 * len(units) + 1.0))
    h = 0.38
    for i, u in enumerate(units):
        a = 100 * (r.get("units.%s.utilisation" % u) or 0)
        b = 100 * (r.get("units.%s.utilisation_chip" % u) or 0)
        ax.barh(i - h / 2, a, height=h, color="#1f77b4", label="per core used (over the %d cores with work)" % used if i == 0 else None)
        ax.barh(i + h / 2, b, height=h, color="#aec7e8", label="per chip (over all %d cores)" % cores if i == 0 else None)
        ax.text(a + 1, i - h / 2, "%.1f%%" % a, va="center", fontsize=7)
        ax.text(b + 1, i + h / 2, "%.1f%%" % b, va="center", fontsize=7)
    ax.set_yticks(range(len(units)))
    ax.set_yticklabels(["%s (chip-wide)" % u if u in ("dram", "l2") else u for u in units])
    ax.invert_yaxis()
    ax.set_xlim(0, 110)
    ax.set_xlabel("utilisation, % of the run's cycles")
    ax.legend(fontsize=7, loc="lower right", frameon=False)
    ax.grid(True, axis="x", alpha=0.3)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    return _svg_png(fig)


def stalls(r):
    """Context-cycles waited by cause over cycles x cores with work: the mean number of a core's
    resident contexts waiting for that cause (up to the contexts per core)."""
    cyc, used = r.get("cycles"), r.get("occupancy.cores_used")
    if not cyc or not used or "stalls.memory" not in r:
        return None
    vals = [(r.get("stalls." + s) or 0) / (cyc * used) for s in STALLS]
    fig, ax = plt.subplots(figsize=(6.0, 2.4))
    ax.barh(range(len(STALLS)), vals, color=[dict(STACK)[s] for s in STALLS])
    for i, v in enumerate(vals):
        ax.text(v, i, " %.3f" % v, va="center", fontsize=7)
    ax.set_yticks(range(len(STALLS)))
    ax.set_yticklabels(STALLS)
    ax.invert_yaxis()
    ax.set_xlim(0, max(vals + [0.01]) * 1.2)
    ax.set_xlabel("contexts waiting per core-cycle: context-cycles / (cycles × %d cores)" % used)
    ax.grid(True, axis="x", alpha=0.3)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    return _svg_png(fig)


def energy(r):
    """The layer's energy by unit, dynamic per unit and leakage, µJ."""
    rows = [(u, r.get("energy.%s_uj" % u)) for u in ENERGY if r.get("energy.%s_uj" % u) is not None]
    total = r.get("energy.layer_uj") or sum(v for _, v in rows)
    if not rows or not total:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 0.3 * len(rows) + 1.0))
    ax.barh(range(len(rows)), [v for _, v in rows], color=["#7f7f7f" if u == "leakage" else "#2ca02c" for u, _ in rows])
    for i, (_, v) in enumerate(rows):
        ax.text(v, i, " %s µJ (%.0f%%)" % ("{:,.0f}".format(v) if v >= 100 else "%.3g" % v, 100 * v / total),
                va="center", fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([u for u, _ in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, max(v for _, v in rows) * 1.35)
    ax.set_xlabel("µJ of the layer's %s µJ (dynamic by unit; leakage of every core)" % (
        "{:,.0f}".format(total) if total >= 100 else "%.3g" % total))
    ax.grid(True, axis="x", alpha=0.3)
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    return _svg_png(fig)


def hp_hist(r):
    """Executed tiles by their number of high-precision sub-blocks."""
    h = r.get("tiles.hp_subblocks_hist")
    if not isinstance(h, list) or not h:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 2.2))
    ax.bar(range(len(h)), h, color="#1f77b4")
    ax.set_xticks(range(len(h)))
    ax.set_xlabel("high-precision sub-blocks in the tile (of %d); 2 or more: disruptive" % (len(h) - 1))
    ax.set_ylabel("executed tiles")
    for s in ("top", "right"):
        ax.spines[s].set_visible(False)
    return _svg_png(fig)


# (name, title, caption, function), in page order
FIGURES = [
    ("cycle_stack", "Where the cycles go", "Each bar is the run's cycles, cut into categories (docs/reports.md, "
     "\"Cycle stack\"): busy = the bottleneck unit working; dependency … slow_path = exposed waits by cause; "
     "tail = done, waiting for the slowest core; idle = a core that got no work.", cycle_stack),
    ("utilisation", "Unit utilisation", "Busy cycles over the run's cycles: dark over the cores that got work, "
     "light over every core of the chip (idle cores count). dram and l2 are one channel for the chip.", utilisation),
    ("stalls", "Stalls, normalised to cycles", "Context-cycles a resident context waited, by cause, divided by "
     "cycles × cores with work: 0.5 = on average half a context per core waiting for that cause.", stalls),
    ("energy", "Energy by unit", "Dynamic energy per unit (action counts × pJ per action at 7 nm) and "
     "leakage (area × leakage per mm² × time).", energy),
    ("hp_hist", "Tiles by high-precision sub-blocks", "Executed (warp, key tile) pairs by how many of their "
     "sub-blocks were recomputed in 16-bit.", hp_hist),
]
