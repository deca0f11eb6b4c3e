"""lampsim.run, Report, load_run / load_sweep / load_model (docs/python.md): a run from Python is
exactly `lampsim run -o DIR` (byte-identical report.json), its shortcuts agree with the report's
fields, the temporary run directory is removed, bad input is refused with lampsim's message; the
loaders give the report's columns as pandas DataFrames, an interrupted sweep warns, a model's decode
rows have no layer. Skipped (77) without pandas (Debian python3-pandas)."""
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, child_env, done  # noqa: E402

try:
    import pandas as pd
except ImportError:
    print("SKIP: pandas for /usr/bin/python3 needed (Debian python3-pandas)")
    sys.exit(77)
import lampsim  # noqa: E402

SMALL = {"workload.heads_q": 2, "workload.heads_kv": 1, "workload.seq_q": 128, "workload.seq_k": 128}


def main(binary, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = child_env()
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "lampsim-run-*")))
    r = lampsim.run(tau=0.25, settings=SMALL)
    check(not set(glob.glob(os.path.join(tempfile.gettempdir(), "lampsim-run-*"))) - before and r.dir is None,
          "lampsim.run without out: the temporary run directory is removed")
    r2 = lampsim.run(out=os.path.join(tmp, "py"), tau=0.25, settings=SMALL)
    sets = sum((["--set", "%s=%s" % (k, v)] for k, v in list(SMALL.items()) + [("algorithm.tau", 0.25)]), [])
    p = subprocess.run([binary, "run", "--quiet", "-o", os.path.join(tmp, "cli")] + sets, env=env,
                       capture_output=True, text=True)
    same = p.returncode == 0 and open(os.path.join(tmp, "py", "report.json")).read() == \
        open(os.path.join(tmp, "cli", "report.json")).read()
    check(same, "lampsim.run(out=...) writes the report.json `lampsim run` writes, byte for byte (%s)" % p.stderr[-200:])
    js = json.load(open(os.path.join(tmp, "cli", "report.json")))
    check(r.cycles == r2.cycles == js["cycles"] and r.time_us == js["time_us"] and r.mode == "lamp" and r.model == "timed",
          "cycles, time_us, mode, model as in report.json (%s)" % r)
    check(r.utilisation == {u: v["utilisation"] for u, v in js["units"].items()} and "tensor" in r.utilisation
          and r.utilisation_chip["tensor"] == js["units"]["tensor"]["utilisation_chip"],
          "utilisation / utilisation_chip: every unit's, both denominators")
    check(r.stalls == js["stalls"] and r.energy["dynamic"] == js["energy"]["dynamic_uj"] and r.energy["tensor"] == js["energy"]["tensor_uj"],
          "stalls and energy (µJ) as in the report")
    check(sum(r.cycle_stack.values()) == r.cycles and r["cycle_stack.bottleneck"] == js["cycle_stack"]["bottleneck"],
          "the cycle stack sums to cycles; report['field'] reads any field")
    g = lampsim.run(settings=dict(SMALL, **{"timed.enabled": False}))
    check(g.cycles is None and g.model == "golden" and g["tiles.disruptive_rate"] >= 0, "timed.enabled=False: golden, no cycles")
    full = lampsim.run(mode="fa2_16bit", settings=SMALL, **{"accelerator.regfile.layout": "compact"})
    check(full["occupancy.layout"] == "full" and full.mode == "fa2_16bit", "full keys through **{...}; the layout that ran")
    for call, want in ((lambda: lampsim.run(tauu=0.5), "did you mean"),
                       (lambda: lampsim.run(tau=2.0), "algorithm.tau"),
                       (lambda: lampsim.run(out=os.path.join(tmp, "py"), settings=SMALL), "py")):
        try:
            call()
            ok = False
        except lampsim.LampsimError as e:
            ok = want in str(e)
        check(ok, "refused with lampsim's message (%s)" % want)
    lampsim.run(out=os.path.join(tmp, "py"), force=True, settings=SMALL)
    check(lampsim.run(out=os.path.join(tmp, "py"), force=True, tau=0.25, settings=SMALL).cycles == r.cycles,
          "force=True replaces a run directory")
    # loaders
    df = lampsim.load_run(os.path.join(tmp, "cli"))
    check(isinstance(df, pd.DataFrame) and len(df) == 1 and df["cycles"].iloc[0] == r.cycles
          and "units.tensor.utilisation" in df.columns and df.index[0] == os.path.join(tmp, "cli"),
          "load_run: one row with the report's columns")
    sw = os.path.join(tmp, "sw.yaml")
    with open(sw, "w") as f:
        f.write("base: {workload: {heads_q: 2, heads_kv: 1, seq_q: 64, seq_k: 64}}\n"
                "axes: {algorithm.tau: [1, 0.5, 0.25], accelerator.regfile.layout: [compact, full]}\n")
    subprocess.run([binary, "sweep", "run", sw, "-j", "2", "-o", os.path.join(tmp, "sw"), "--quiet"], env=env, check=True)
    merged = subprocess.run([binary, "sweep", "merge", os.path.join(tmp, "sw")], env=env, capture_output=True, text=True).stdout
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = lampsim.load_sweep(os.path.join(tmp, "sw"))
    check(s.equals(pd.read_csv(io.StringIO(merged))) and len(s) == 6 and not w and s.attrs["points"] == 6,
          "load_sweep: `lampsim sweep merge`'s table, no warning when complete")
    os.remove(glob.glob(os.path.join(tmp, "sw", "points", "tau=0.5,layout=full", "DONE"))[0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = lampsim.load_sweep(os.path.join(tmp, "sw"))
    check(len(s) == 5 and s.attrs["missing"] == 1 and any("INCOMPLETE: 5 of 6 points" in str(x.message) for x in w),
          "load_sweep on an interrupted sweep: 5 rows and an INCOMPLETE warning")
    mf = os.path.join(tmp, "m.yaml")
    with open(mf, "w") as f:
        f.write("layers: 2\nheads_q: 2\nheads_kv: 1\ndim: 128\nprefill: 64\ndecode: 3\n")
    subprocess.run([binary, "model", mf, "-o", os.path.join(tmp, "m"), "--quiet"], env=env, check=True)
    m = lampsim.load_model(os.path.join(tmp, "m"))
    dec = m[m["phase"] == "decode"]
    check(len(m) == 2 + len(dec) and len(dec) >= 2 and dec["layer"].isna().all() and "units.tensor.utilisation" in m.columns
          and m.attrs["report"]["cycles"] > 0, "load_model: layers.csv with the report's names, decode rows without a layer")
    for f, d in ((lampsim.load_run, tmp), (lampsim.load_sweep, os.path.join(tmp, "cli")), (lampsim.load_model, tmp)):
        try:
            f(d)
            ok = False
        except lampsim.LampsimError as e:
            ok = "not a" in str(e)
        check(ok, "%s of the wrong kind of directory is refused" % f.__name__)
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
