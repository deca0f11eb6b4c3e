"""The run report's field table for `lampsim report RUN_DIR` (imported by plot_sweep.py): the fields
of one report.csv grouped (run, workload, numerics, accuracy, cycles, units, stalls, occupancy,
energy, memory, cycle stack, configuration), each with its unit; unit utilisation as one table with both
denominators (the cores that got work, and every core of the chip)."""
import html
import math

# (title, field prefixes, note) in report order; a field goes to the first group whose prefix matches
GROUPS = [
    ("Run", ("schema_version", "lampsim.", "seed", "mode", "model"), ""),
    ("Workload", ("workload.",), ""),
    ("Numerics", ("numerics.", "tiles.", "recompute.", "events."), ""),
    ("Accuracy", ("accuracy.",), "against the fp64 reference"),
    ("Cycles", ("cycles", "time_us", "tflops_effective"), ""),
    ("Units", ("units.",), ""),
    ("Stalls", ("stalls.",), "context-cycles a resident context waited, by cause"),
    ("Occupancy", ("occupancy.", "slow_path."), ""),
    ("Energy", ("energy.",), "estimate from operation counts at 7 nm (docs/reports.md)"),
    ("Area and power", ("area.", "power.", "efficiency."), "at 7 nm: area table x instances, leakage x time (docs/reports.md)"),
    ("Memory", ("memory.",), ""),
    ("Cycle stack", ("cycle_stack.", "balance."), "where the cycles go: each stack sums to the run's cycles (docs/reports.md)"),
    ("Configuration", ("config.",), "the resolved configuration"),
]

# unit of a field: exact names first, then suffixes
UNITS = {
    "cycles": "cycles", "time_us": "µs", "tflops_effective": "TFLOP/s", "slow_path.cycles": "cycles",
    "slow_path.tiles": "warp-tiles", "accuracy.kl_mean": "nats", "accuracy.kl_max": "nats",
    "occupancy.regs_per_warp": "registers", "occupancy.regs_per_context": "registers",
    "occupancy.regs_per_thread": "registers", "occupancy.buffer_kib_per_block": "KiB",
    "occupancy.prefetch_depth": "K/V tiles", "occupancy.cores_used": "cores", "occupancy.cores": "cores",
    "memory.kv_tile_loads": "loads", "memory.kv_loads_shared": "loads", "workload.max_abs_logit": "logit",
    "tiles.executed": "tiles", "tiles.masked_skipped": "tiles", "tiles.hp_subblocks_hist": "tiles",
    "recompute.stage1_subblocks": "sub-blocks", "recompute.stage2_subblocks": "sub-blocks",
    "recompute.subblocks_active": "sub-blocks", "accuracy.rows": "rows", "accuracy.kl_inf_count": "rows",
    "accuracy.argmax_flip_rate": "%", "events.o_nonfinite": "elements", "workload.seq_q": "tokens",
    "workload.seq_k": "tokens", "cycle_stack.bottleneck": "", "balance.items": "items", "balance.slots": "slots",
    "balance.waves": "waves", "balance.wave_efficiency": "%", "balance.imbalance": "", "area.node": "",
    "efficiency.tflops_per_mm2": "TFLOP/s/mm²", "efficiency.tflops_per_w": "TFLOP/s/W",
}
SUFFIX_UNITS = [("_rate", "%"), ("_rate_stage1", "%"), ("_rate_stage2", "%"), ("_uj", "µJ"),
                ("register_utilisation", "%"), ("contexts_per_core.mean", "contexts"),
                ("contexts_per_core.max", "contexts"), ("contexts_per_core.limit", "contexts"),
                ("contexts_per_core.register_fit", "contexts"), ("contexts_per_core.buffer_fit", "contexts")]
PERCENT = "%"


def unit_of(field):
    if field in UNITS:
        return UNITS[field]
    if field.startswith("stalls."):
        return "context-cycles"
    if field.startswith("area.") and field.endswith("_mm2"):
        return "mm²"
    if field.startswith("power.") and field.endswith("_w"):
        return "W"
    if field.startswith("cycle_stack.") or field.startswith("balance."):
        return "cycles"
    if field.startswith("events."):
        return "events"
    for suf, u in SUFFIX_UNITS:
        if field.endswith(suf):
            return u
    return ""


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _fmt(v, unit=""):
    x = _num(v)
    if not v or math.isnan(x) or v.strip().lower() in ("true", "false"):
        return v
    if unit == PERCENT:
        return "%.2f" % (100 * x)
    if float(x).is_integer() and abs(x) < 1e15:
        return "%d" % x
    return "%.4g" % x


def group_of(field):
    for title, prefixes, _ in GROUPS:
        for p in prefixes:
            if field == p or (p.endswith(".") and field.startswith(p)) or field.startswith(p + "."):
                return title
    return "Other"


def units_table(header, row):
    """units.<unit>.<stat> as one table: a row per unit, utilisation in % over both denominators."""
    names = []
    for h in header:
        if h.startswith("units."):
            u = h.split(".")[1]
            if u not in names:
                names.append(u)
    if not names:
        return ""
    cores, used = row.get("occupancy.cores", ""), row.get("occupancy.cores_used", "")
    cols = [("busy_cycles", "busy (cycles)"), ("utilisation", "utilisation, cores with work (%%)%s" % (
        " — %s" % used if used else "")), ("utilisation_chip", "utilisation, all cores (%%)%s" % (
            " — %s" % cores if cores else "")), ("ops", "transactions"), ("work", "work"), ("work_unit", "work unit")]
    cols = [(k, t) for k, t in cols if any("units.%s.%s" % (u, k) in row for u in names)]
    out = ["<p>Every unit over the same cycles, the layer's (<code>cycles</code>); per-core units over the "
           "cores that got work and over every core of the chip (idle cores count); dram and l2 are one "
           "unit for the chip, the same in both columns.</p>",
           "<table><tr><th>unit</th>" + "".join("<th>%s</th>" % html.escape(t) for _, t in cols) + "</tr>"]
    for u in names:
        cells = []
        for k, _ in cols:
            v = row.get("units.%s.%s" % (u, k), "")
            cells.append(html.escape(_fmt(v, PERCENT if k.startswith("utilisation") else "")))
        out.append("<tr><td style='text-align:left'>%s</td>%s</tr>" % (
            html.escape(u), "".join("<td>%s</td>" % c for c in cells)))
    out.append("</table>")
    return "\n".join(out)


STACK_CATS = ["launch", "busy", "dependency", "unit_busy", "memory", "scheduler", "slow_path", "other", "tail", "idle"]
STACK_COLOURS = ["#999999", "#1f77b4", "#ff7f0e", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
                 "#dddddd"]


def stack_bars(row):
    """The cycle stacks (all cores, cores with work) as stacked bars, each as wide as the run's cycles."""
    cyc = _num(row.get("cycles", ""))
    if not cyc or math.isnan(cyc) or "cycle_stack.chip.busy" not in row:
        return ""
    out = ["<p>Each bar is the run's %d cycles; busy = the bottleneck unit (%s) (docs/reports.md).</p>" % (
        cyc, html.escape(row.get("cycle_stack.bottleneck", "")))]
    for part, title in (("working_cores", "cores with work"), ("chip", "all cores")):
        segs = []
        for cat, col in zip(STACK_CATS, STACK_COLOURS):
            v = _num(row.get("cycle_stack.%s.%s" % (part, cat), ""))
            if v and not math.isnan(v) and v > 0:
                segs.append("<div title='%s: %d cycles (%.1f%%)' style='width:%.3f%%;background:%s;height:1.4em;"
                            "display:inline-block'></div>" % (cat, v, 100 * v / cyc, 100 * v / cyc, col))
        out.append("<div style='margin:0.3em 0'><span style='display:inline-block;width:9em'>%s</span>"
                   "<div style='display:inline-block;width:70%%;white-space:nowrap;border:1px solid #888'>%s</div></div>"
                   % (title, "".join(segs)))
    out.append("<p>" + " ".join("<span style='background:%s'>&nbsp;&nbsp;</span> %s" % (c, k)
                                for k, c in zip(STACK_CATS, STACK_COLOURS)) + "</p>")
    return "\n".join(out)


def run_report_html(header, row):
    """The grouped field tables of one run (HTML fragment)."""
    by = {}
    for h in header:
        by.setdefault(group_of(h), []).append(h)
    parts = []
    for title, _, note in GROUPS + [("Other", (), "")]:
        fields = by.get(title)
        if not fields:
            continue
        parts.append("<h2>%s</h2>" % html.escape(title))
        if note:
            parts.append("<p>%s</p>" % html.escape(note))
        if title == "Units":
            parts.append(units_table(header, row))
            continue
        if title == "Cycle stack":
            parts.append(stack_bars(row))
        parts.append("<table><tr><th>field</th><th>value</th><th>unit</th></tr>")
        for h in fields:
            u = unit_of(h)
            parts.append("<tr><td style='text-align:left'>%s</td><td>%s</td><td style='text-align:left'>%s</td></tr>" % (
                html.escape(h), html.escape(_fmt(row.get(h, ""), u)), html.escape(u)))
        parts.append("</table>")
    return "\n".join(parts)
