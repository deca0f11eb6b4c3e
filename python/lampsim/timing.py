"""lampsim.run: a timed run (the SystemC model where the configuration asks for it) from Python,
exactly a `lampsim run -o DIR`, its report returned as an object (docs/python.md)."""
import json
import os
import shutil
import tempfile

from . import _lib
from .attention import _flatten, _override_strings


class Report:
    """One run's report: every field of report.json (docs/reports.md), with shortcuts.

    fields: the flat fields by their report names ("cycles", "units.tensor.utilisation", ...), as
    report.csv names them; report["name"] is fields["name"]; json: report.json as nested dicts; dir:
    the run directory when the run was kept (run(out=...), load), else None.
    cycles, time_us, mode, model ("timed" or "golden"): as in the report (None without timing).
    utilisation / utilisation_chip: {unit: fraction} over the cores with work / all cores.
    stalls: {cause: context-cycles}; energy: {part: µJ} ("dynamic", "tensor", ..., "leakage", "layer" = dynamic + leakage, "per_token");
    cycle_stack: {category: cycles} of the cores with work (sums to cycles).
    """

    def __init__(self, data, dir=None):
        self.json = data
        self.fields = _flatten(data)
        self.dir = dir

    def __getitem__(self, key):
        return self.fields[key]

    def get(self, key, default=None):
        return self.fields.get(key, default)

    def _group(self, prefix, suffix=""):
        out = {}
        for k, v in self.fields.items():
            if k.startswith(prefix) and k.endswith(suffix):
                out[k[len(prefix):len(k) - len(suffix)]] = v
        return out

    cycles = property(lambda self: self.fields.get("cycles"))
    time_us = property(lambda self: self.fields.get("time_us"))
    mode = property(lambda self: self.fields.get("mode"))
    model = property(lambda self: self.fields.get("model"))
    utilisation = property(lambda self: self._group("units.", ".utilisation"))
    utilisation_chip = property(lambda self: self._group("units.", ".utilisation_chip"))
    stalls = property(lambda self: self._group("stalls."))
    energy = property(lambda self: {k[:-3] if k.endswith("_uj") else k: v for k, v in self._group("energy.").items()
                                    if k.endswith("_uj")})
    cycle_stack = property(lambda self: self._group("cycle_stack.working_cores."))

    def to_series(self):
        """The fields as a pandas Series (pandas from Debian python3-pandas)."""
        import pandas as pd
        return pd.Series(self.fields, name=self.dir or "run")

    def __repr__(self):
        if self.cycles is None:
            return "<lampsim.Report mode=%s model=%s (no timing)>" % (self.mode, self.model)
        return "<lampsim.Report mode=%s %d cycles (%.3f us)%s>" % (self.mode, self.cycles, self.time_us,
                                                                 " in %s" % self.dir if self.dir else "")


def run(config=None, *, out=None, force=False, settings=None, **overrides):
    """Runs one configuration as `lampsim run` does and returns its Report.

    config: a YAML configuration path (default: the embedded default, the LampAttention preset).
    overrides: configuration keys, short for the algorithm section (mode="fa2_16bit", tau=0.25) or
    full keys, as keywords with dots through ** ({"accelerator.regfile.layout": "full"}) or in
    settings={...}; timed={"enabled": False} is not a key: use settings={"timed.enabled": False} for
    the golden engine only. out: keep the run directory there (refused when it exists and is not
    empty, unless force=True); by default the run is written to a temporary directory, read and
    removed. Bad configurations raise LampsimError with lampsim's file:line: key: reason message.
    """
    if config is not None:
        try:
            config = os.fspath(config)
        except TypeError:
            raise TypeError("config: expected a path to a YAML configuration, got %s" % type(config).__name__) from None
    ctx = _lib.Context(config, _override_strings(overrides, settings))
    tmp = None
    try:
        if out is None:
            tmp = tempfile.mkdtemp(prefix="lampsim-run-")
            target = os.path.join(tmp, "run")
        else:
            target = os.fspath(out)
        ctx.run_dir(target, force)
        with open(os.path.join(target, "report.json")) as f:
            data = json.load(f)
        return Report(data, None if tmp else target)
    finally:
        ctx.close()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
