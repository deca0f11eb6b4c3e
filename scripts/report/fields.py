"""Report fields: the flat dotted names of report.json, and their unit and meaning from the field
reference (`lampsim report --fields`: names TAB unit TAB meaning, the table of
sim/report/field_docs.c)."""
import json
import math
import re


def flatten(obj, prefix=""):
    """report.json's nested objects as an ordered {dotted name: value} (arrays kept as lists)."""
    out = {}
    for k, v in obj.items():
        name = prefix + k
        if isinstance(v, dict):
            out.update(flatten(v, name + "."))
        else:
            out[name] = v
    return out


class ReportInputError(Exception):
    """A report file that cannot be read (damaged, truncated, not lampsim's): 'FILE: reason', shown
    as one line by `lampsim report` (exit 2), never as a traceback."""


def load_report(json_path):
    """report.json flattened; ReportInputError naming the file when it is not a JSON object."""
    try:
        with open(json_path, encoding="utf-8") as f:
            obj = json.load(f)
    except (OSError, ValueError, RecursionError) as e:   # JSONDecodeError, UnicodeDecodeError, deep nesting
        raise ReportInputError("%s: not readable JSON (%s)" % (json_path, " ".join(str(e).split())[:160])) from None
    if not isinstance(obj, dict):
        raise ReportInputError("%s: expected a JSON object (a lampsim report)" % json_path)
    return flatten(obj)


def _pattern(name):
    """A reference name as a regex: `<x>` is one name component (or part of one), a final `*` any rest."""
    rx = ""
    for tok in re.split(r"(<[a-z_]+>|\*)", name):
        if tok == "*":
            rx += ".+"
        elif tok.startswith("<"):
            rx += "[^.]+"
        else:
            rx += re.escape(tok)
    return re.compile(rx + r"\Z")


class FieldDocs:
    """unit_of / meaning_of a dotted field name; exact names beat patterns, earlier entries beat later."""

    def __init__(self, path=None):
        self.exact, self.patterns = {}, []
        if not path:
            return
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 3:
                    continue
                names, unit, meaning = parts
                for n in names.split(", "):
                    if "<" in n or n.endswith("*"):
                        self.patterns.append((_pattern(n), unit, meaning))
                    else:
                        self.exact.setdefault(n, (unit, meaning))

    def __bool__(self):
        return bool(self.exact or self.patterns)

    def lookup(self, field):
        if field in self.exact:
            return self.exact[field]
        for rx, unit, meaning in self.patterns:
            if rx.match(field):
                return unit, meaning
        return None

    def unit_of(self, field):
        d = self.lookup(field)
        return d[0] if d else ""

    def meaning_of(self, field):
        d = self.lookup(field)
        return d[1] if d else ""


def shown_unit(unit):
    """How a value of this unit is shown: fractions as percentages."""
    return "%" if unit == "fraction" else unit


def fmt(v, unit=""):
    """A value as the page shows it: fractions in % (2 decimals), integers with thousands
    separators, other numbers to 4 significant digits, small errors in scientific notation."""
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "; ".join(fmt(x) for x in v)
    if isinstance(v, str):
        return v
    if isinstance(v, dict):   # an object inside an array (a model report's layers are their own table)
        return json.dumps(v, sort_keys=True)
    if not isinstance(v, (int, float)):
        return str(v)
    x = float(v)
    if math.isnan(x):
        return "n/a"
    if unit == "fraction":
        return "%.2f" % (100 * x)
    if isinstance(v, int) or (x.is_integer() and abs(x) < 1e15):
        return "{:,}".format(int(x))
    if x != 0 and abs(x) < 1e-3:
        return "%.3e" % x
    return "%.4g" % x


def code_spans(text):
    """Markdown `code` as (already escaped) HTML: the reference's meanings use code spans."""
    from markupsafe import escape
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text)))
