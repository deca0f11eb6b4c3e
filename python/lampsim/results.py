"""lampsim.load_run / load_sweep / load_model: result directories as pandas DataFrames, with the
report's column names (docs/reports.md; pandas from Debian python3-pandas)."""
import io
import json
import os
import warnings

from . import _lib


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("lampsim.load_*: pandas is needed (Debian python3-pandas)") from None
    return pd


def _need(path, what):
    if not os.path.isfile(path):
        raise _lib.LampsimError("%s: no %s (%s)" % (os.path.dirname(path) or ".", os.path.basename(path), what))


def load_run(run_dir):
    """A run directory (`lampsim run -o DIR`, `lampsim.run(out=DIR)`) as a one-row DataFrame: the
    columns of report.csv (schema_version, mode, cycles, units.tensor.utilisation, config.*, ...),
    the index the directory."""
    pd = _pandas()
    path = os.path.join(os.fspath(run_dir), "report.csv")
    _need(path, "not a run directory")
    df = pd.read_csv(path)
    df.index = [os.fspath(run_dir)]
    return df


def load_sweep(sweep_dir):
    """A sweep directory as a DataFrame of its finished points: `lampsim sweep merge`'s columns
    (axes, point.index, point.id, then the report's). df.attrs["points"], ["merged"], ["failed"],
    ["missing"] count the manifest's points; an interrupted sweep warns ("INCOMPLETE: 8 of 12
    points") so that a half-finished sweep is never taken for the whole."""
    pd = _pandas()
    d = os.fspath(sweep_dir)
    _need(os.path.join(d, "manifest.tsv"), "not a sweep directory")
    text, (total, merged, failed, missing) = _lib.sweep_merge(d)
    df = pd.read_csv(io.StringIO(text))
    df.attrs.update(points=total, merged=merged, failed=failed, missing=missing)
    if merged < total:
        warnings.warn("%s: INCOMPLETE: %d of %d points (%d failed, %d not run or not finished)"
                      % (d, merged, total, failed, missing), stacklevel=2)
    return df


def load_model(model_dir):
    """A `lampsim model -o DIR` directory as a DataFrame of layers.csv (phase, layer — NaN for a
    decode row, which stands for every layer —, seq_q, seq_k, source, reused_from_row, cycles,
    time_us, tiles.disruptive_rate, recompute.subblock_rate, units.<unit>.utilisation); the model's
    totals (report.json) in df.attrs["report"]."""
    pd = _pandas()
    d = os.fspath(model_dir)
    path = os.path.join(d, "layers.csv")
    _need(path, "not a `lampsim model -o` directory")
    df = pd.read_csv(path)
    if any(c.startswith("util_") for c in df.columns):
        raise _lib.LampsimError("%s: written by an older lampsim (util_* columns): rerun `lampsim model -o`" % path)
    rp = os.path.join(d, "report.json")
    if os.path.isfile(rp):
        with open(rp) as f:
            df.attrs["report"] = json.load(f)
    return df
