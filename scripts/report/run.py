"""The run report page: report.json (or report.csv) of one run -> DIR/report.html and figures/."""
import base64
import csv
import html
import os
import sys

from . import charts
from .fields import FieldDocs, ReportInputError, code_spans, flatten, fmt, load_report, shown_unit

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

# Field tables: (title, prefixes, note), in page order; a field goes to the first group that matches.
GROUPS = [
    ("Run", ("schema_version", "lampsim.", "seed", "mode", "model"), ""),
    ("Workload", ("workload.",), ""),
    ("Numerics", ("numerics.", "tiles.", "recompute.", "events."), ""),
    ("Accuracy", ("accuracy.",), "against the fp64 reference"),
    ("Cycles", ("cycles", "time_us", "tflops_effective", "issue."), ""),
    ("Units", ("units.",), "busy cycles over the layer's cycles, per core over the cores with work and over all cores"),
    ("Stalls", ("stalls.",), "context-cycles a resident context waited, by cause"),
    ("Occupancy", ("occupancy.", "slow_path."), ""),
    ("Energy", ("energy.",), "estimate from operation counts at 7 nm"),
    ("Area and power", ("area.", "power.", "efficiency."), "at 7 nm: area table × instances, leakage × time"),
    ("Memory", ("memory.",), ""),
    ("Cycle stack", ("cycle_stack.", "balance."), "where the cycles go: each stack sums to the run's cycles"),
    ("Configuration", ("config.",), "the resolved configuration"),
]


def group_of(field):
    for title, prefixes, _ in GROUPS:
        for p in prefixes:
            if field == p or (p.endswith(".") and field.startswith(p)) or field.startswith(p + "."):
                return title
    return "Other"


def read_csv_row(path):
    """report.csv as {name: value}, numbers parsed (a run directory written before report.json existed)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, ValueError, csv.Error) as e:
        raise ReportInputError("%s: not a readable CSV (%s)" % (path, " ".join(str(e).split())[:160])) from None
    if len(rows) != 1 or None in rows[0] or None in rows[0].values():
        raise ReportInputError("%s: expected a header and one row of as many fields (damaged or truncated?)" % path)
    out = {}
    for k, v in (rows[0] if rows else {}).items():
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = {"true": True, "false": False}.get(v, v)
    return out


def kpi(r, docs, label, field, note=""):
    """One headline figure: the field's exact report value (data-value) and its shown form."""
    v = r.get(field)
    unit = docs.unit_of(field)
    return {"label": label, "field": field, "value": v, "shown": fmt(v, unit), "unit": shown_unit(unit), "note": note}


def headline(r, docs):
    """The figures an architect reads first, and a sentence each on where the cycles go and what limits occupancy."""
    timed = r.get("model") == "timed" and r.get("cycles") is not None
    cards = []
    if timed:
        cards += [kpi(r, docs, "Cycles", "cycles"), kpi(r, docs, "Time", "time_us"),
                  kpi(r, docs, "Throughput", "tflops_effective", "FlashAttention FLOPs")]
        b = r.get("cycle_stack.bottleneck")
        if b:
            c = kpi(r, docs, "Bottleneck unit", "cycle_stack.bottleneck")
            u = r.get("units.%s.utilisation" % b)
            c["note"] = "busy %s%% of the cycles of the cores with work" % fmt(u, "fraction") if u is not None else ""
            cards.append(c)
    cards += [kpi(r, docs, "Disruptive tiles", "tiles.disruptive_rate", "≥ 2 high-precision sub-blocks"),
              kpi(r, docs, "Recompute rate", "recompute.subblock_rate", "high-precision sub-blocks")]
    if r.get("accuracy.valid"):
        cards += [kpi(r, docs, "KL mean", "accuracy.kl_mean", "vs the fp64 reference"),
                  kpi(r, docs, "O error", "accuracy.o_rel_fro_err", "relative Frobenius")]
    if r.get("area.total_mm2") is not None:
        cards.append(kpi(r, docs, "Area", "area.total_mm2", "modelled components, %s" % r.get("area.node", "")))
    if r.get("power.average_w") is not None:
        cards.append(kpi(r, docs, "Power", "power.average_w", "%s W dynamic + %s W leakage" % (
            fmt(r.get("power.dynamic_w")), fmt(r.get("power.leakage_w")))))
    if r.get("energy.per_token_uj") is not None:
        cards.append(kpi(r, docs, "Energy per token", "energy.per_token_uj"))
    cards = [c for c in cards if c["value"] is not None]   # a model report has no tile rates or FLOPs
    lines = []
    cyc = r.get("cycles")
    if timed and "cycle_stack.working_cores.busy" in r and cyc:
        parts = sorted(((r.get("cycle_stack.working_cores.%s" % c) or 0, c) for c, _ in charts.STACK), reverse=True)
        lines.append("Where the cycles go (cores with work): " + ", ".join(
            "%s %.0f%%" % (c, 100 * v / cyc) for v, c in parts[:4] if v > 0) + ".")
    if r.get("occupancy.cores") is not None:
        lines.append("%s of %s cores got work; %s resident context%s per core (limited by %s)%s." % (
            fmt(r.get("occupancy.cores_used")), fmt(r.get("occupancy.cores")),
            fmt(r.get("occupancy.contexts_per_core.limit")), "" if r.get("occupancy.contexts_per_core.limit") == 1 else "s",
            r.get("occupancy.limited_by", "?"),
            "; its work items fill %s%% of the slots of their waves (counting items, not time: the stack's "
            "tail is time cores that finished wait for the slowest)" % fmt(r.get("balance.wave_efficiency"), "fraction")
            if r.get("balance.wave_efficiency") is not None else ""))
    if not timed:
        lines.append("Golden engine only (model: %s): no cycles, utilisation or energy." % r.get("model", "?"))
    return cards, lines


def setup_line(r):
    w = "%s: %s query / %s KV heads, %s × %s tokens, head dim %s%s, %s data" % (
        r.get("workload.name", "?"), r.get("workload.heads_q", "?"), r.get("workload.heads_kv", "?"),
        r.get("workload.seq_q", "?"), r.get("workload.seq_k", "?"), r.get("workload.dim", "?"),
        ", causal" if r.get("workload.causal") else "", "synthetic" if r.get("workload.synthetic") else "traced")
    acc = r.get("config.accelerator.name", "")
    return {"mode": r.get("mode", "?"), "layout": r.get("occupancy.layout") or r.get("config.accelerator.regfile.layout", ""),
            "accelerator": acc, "workload": w, "version": r.get("lampsim.version", "?"), "git": r.get("lampsim.git", "?"),
            "tau": r.get("config.algorithm.tau")}


def tables(r, docs):
    by = {}
    for k in r:
        by.setdefault(group_of(k), []).append(k)
    out = []
    for title, _, note in GROUPS + [("Other", (), "")]:
        names = by.get(title)
        if not names:
            continue
        rows, last = [], None
        for k in names:
            unit = docs.unit_of(k)
            meaning = "" if title == "Configuration" else docs.meaning_of(k)   # the group's note says it once
            # a family (workload.batch, .heads_q, ...) shares one meaning: written on its first row
            rows.append({"name": k, "value": fmt(r[k], unit), "unit": shown_unit(unit), "meaning": code_spans(meaning),
                         "ditto": bool(meaning) and meaning == last})
            last = meaning
        out.append({"title": title, "note": note, "rows": rows, "id": title.lower().replace(" ", "-")})
    return out


def trace_info(run_dir):
    """The trace next to the report, if any: its window and what it left out (otherData)."""
    p = os.path.join(run_dir, "trace.json")
    if not os.path.exists(p):
        return None
    import json
    import re
    try:   # otherData leads the file (sim/timed/timed_trace.c): no need to parse a trace of 100 MB
        with open(p, encoding="utf-8", errors="replace") as f:
            m = re.search(r'"otherData":(\{[^{}]*\})', f.read(4096))
        od = json.loads(m.group(1)) if m else None
    except (OSError, ValueError):
        od = None
    return {"path": "trace.json", "error": "" if od is not None else "unreadable", "first": (od or {}).get("window_first_tile", 0),
            "tiles": (od or {}).get("window_tiles", 0), "dropped": (od or {}).get("dropped_events", 0),
            "max_tiles": (od or {}).get("max_key_tiles")}


def layers_table(layers, path):
    """A model report's layers[] (`lampsim model -o`) as {"columns", "rows"} of shown values, the
    columns of layers.csv; ReportInputError when it is not a list of objects."""
    if not isinstance(layers, list) or not all(isinstance(x, dict) for x in layers):
        raise ReportInputError("%s: layers: expected an array of objects (a `lampsim model` report)" % path)
    flat = [flatten(x) for x in layers]
    cols = []
    for row in flat:
        cols += [c for c in row if c not in cols]
    return {"columns": cols, "rows": [[fmt(row.get(c), "fraction" if c.endswith(("_rate", ".utilisation")) else "")
                                       for c in cols] for row in flat]}


def write(csv_path, html_path, out_dir, atomic_write, fields_path=None, title=None):
    """Writes the figures into out_dir and the page into html_path (each through atomic_write(path,
    data)); returns the PNG paths."""
    try:
        import jinja2
    except ImportError:
        print("lampsim report: the run report needs Jinja2 for /usr/bin/python3 (Debian python3-jinja2)", file=sys.stderr)
        raise SystemExit(2)
    run_dir = os.path.dirname(os.path.abspath(csv_path))
    jp = os.path.join(run_dir, "report.json")
    r = load_report(jp) if os.path.exists(jp) else read_csv_row(csv_path)
    model = r.get("report") == "model"   # `lampsim model -o DIR`: its rows are a table of their own
    layers = layers_table(r.pop("layers", []), jp) if model else None
    docs = FieldDocs(fields_path)
    if not docs:
        print("plot_sweep: no field reference (--fields, from `lampsim report`): the tables have no meanings",
              file=sys.stderr)
    figs, paths = [], []
    os.makedirs(out_dir, exist_ok=True)
    for name, ftitle, caption, fn in charts.FIGURES:
        got = fn(r)
        if not got:
            continue
        svg, png = got
        for ext, data in (("svg", svg), ("png", png)):
            atomic_write(os.path.join(out_dir, "%s.%s" % (name, ext)), data)
        paths.append(os.path.join(out_dir, name + ".png"))
        figs.append({"name": name, "title": ftitle, "caption": caption,
                     "src": "data:image/svg+xml;base64," + base64.b64encode(svg).decode()})
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=jinja2.select_autoescape(["j2", "html"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    cards, lines = headline(r, docs)
    page = env.get_template("run.html.j2").render(
        title=title or "lampsim %s report: %s" % ("model" if model else "run", os.path.basename(run_dir)), run_dir=run_dir,
        setup=setup_line(r), layers=layers,
        cards=cards, lines=lines, figures=figs, tables=tables(r, docs), trace=trace_info(run_dir),
        source=html.escape(os.path.basename(jp) if os.path.exists(jp) else os.path.basename(csv_path)),
        have_docs=bool(docs))
    if html_path:
        atomic_write(html_path, page)
    return paths
