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


def _why(e):
    """An exception's message on one line, short (pandas' parser errors span lines)."""
    msg = " ".join(str(e).split()) or type(e).__name__
    return msg if len(msg) <= 160 else msg[:157] + "..."


def _read_csv(pd, path, columns, rows=None):
    """path as a DataFrame with these columns (and `rows` rows when given); LampsimError naming the
    file for anything pandas cannot read (empty, not text, ragged rows) or a file of another kind."""
    try:
        df = pd.read_csv(path)
    except (OSError, ValueError) as e:   # pandas' EmptyDataError and ParserError, UnicodeDecodeError
        raise _lib.LampsimError("%s: not a readable CSV (%s)" % (path, _why(e))) from None
    lacking = [c for c in columns if c not in df.columns]
    if lacking:
        raise _lib.LampsimError("%s: no column %s: not written by lampsim, or damaged" % (path, ", ".join(lacking)))
    if rows is not None and len(df) != rows:
        raise _lib.LampsimError("%s: %d data rows, expected %d (damaged or truncated?)" % (path, len(df), rows))
    return df


def _read_json(path):
    """A JSON object from path; LampsimError naming the file when it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except (OSError, ValueError, RecursionError) as e:   # JSONDecodeError, UnicodeDecodeError, deep nesting
        raise _lib.LampsimError("%s: not readable JSON (%s)" % (path, _why(e))) from None
    if not isinstance(obj, dict):
        raise _lib.LampsimError("%s: expected a JSON object (a lampsim report)" % path)
    return obj


def load_run(run_dir):
    """A run directory (`lampsim run -o DIR`, `lampsim.run(out=DIR)`) as a one-row DataFrame: the
    columns of report.csv (schema_version, mode, cycles, units.tensor.utilisation, config.*, ...),
    the index the directory."""
    pd = _pandas()
    path = os.path.join(os.fspath(run_dir), "report.csv")
    _need(path, "not a run directory")
    df = _read_csv(pd, path, ("schema_version", "mode"), rows=1)
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
    try:
        df = pd.read_csv(io.StringIO(text))
    except ValueError as e:   # the merge's own table: only an empty one (no point finished) lacks a header
        if text.strip():
            raise _lib.LampsimError("%s: the merged table does not parse (%s)" % (d, _why(e))) from None
        df = pd.DataFrame()
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
    df = _read_csv(pd, path, ("phase", "cycles"))
    if any(c.startswith("util_") for c in df.columns):
        raise _lib.LampsimError("%s: written by an older lampsim (util_* columns): rerun `lampsim model -o`" % path)
    rp = os.path.join(d, "report.json")
    if os.path.isfile(rp):
        df.attrs["report"] = _read_json(rp)
    return df
