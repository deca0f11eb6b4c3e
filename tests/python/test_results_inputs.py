#!/usr/bin/env python3
"""lampsim.load_run / load_sweep / load_model on damaged result directories (issue #39): each
refusal is a LampsimError (a ValueError) whose message names the damaged file, never pandas' or
json's own error; the intact directories still load.
usage: test_results_inputs.py LAMPSIM_BINARY TMPDIR"""
import os
import shutil
import subprocess
import sys
import warnings

try:
    import pandas  # noqa: F401
except ImportError:
    print("skipped: no pandas")
    sys.exit(77)

from checks import ROOT, check, child_env, done  # noqa: E402
import lampsim  # noqa: E402

SMALL = ["--set", "workload.seq_q=128", "--set", "workload.seq_k=128", "--set", "workload.heads_q=1",
         "--set", "workload.heads_kv=1"]


def refused(fn, path, what):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the type is what is checked)
        msg = str(e)
        check(isinstance(e, lampsim.LampsimError) and msg.startswith(path) and "\n" not in msg,
              "%s: %s: %s" % (what, type(e).__name__, msg[:200]))
        return
    check(False, "%s: not refused" % what)


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def damaged(src, tmp, name, fname, data):
    d = os.path.join(tmp, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(src, d)
    write(os.path.join(d, fname), data)
    return d, os.path.join(d, fname)


def main(lampsim_bin, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    run_dir, model_dir = os.path.join(tmp, "run"), os.path.join(tmp, "model")
    subprocess.run([lampsim_bin, "run", "-o", run_dir] + SMALL, check=True, env=child_env(), capture_output=True)
    subprocess.run([lampsim_bin, "model", os.path.join(ROOT, "workloads", "models", "tiny_kjv.yaml"), "-o", model_dir],
                   check=True, env=child_env(), capture_output=True)
    check(len(lampsim.load_run(run_dir)) == 1, "load_run: an intact run directory loads")
    check(len(lampsim.load_model(model_dir)) > 0, "load_model: an intact model directory loads")
    with open(os.path.join(run_dir, "report.csv")) as f:
        csv_text = f.read()
    header = csv_text.splitlines()[0]
    for what, data in (("empty", ""), ("binary", b"\xff\xfe\x00garbage\x00" * 20),
                       ("header only", header + "\n"), ("two rows", csv_text + csv_text.splitlines()[1] + "\n"),
                       ("a ragged row", header + "\n1,2\n3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20\n"),
                       ("another CSV", "a,b\n1,2\n")):
        d, p = damaged(run_dir, tmp, "run_bad", "report.csv", data)
        refused(lambda: lampsim.load_run(d), p, "load_run: report.csv " + what)
    for fname, what, data in (("layers.csv", "empty", ""), ("layers.csv", "binary", b"\x00\x01\xff" * 50),
                              ("layers.csv", "another CSV", "a,b\n1,2\n"),
                              ("layers.csv", "a ragged row", "phase,cycles\nprefill,1\nprefill,1,2,3\n"),
                              ("report.json", "truncated", '{"schema_version": 1, "lay'),
                              ("report.json", "not UTF-8", b'{"a": "\xff"}'),
                              ("report.json", "a list", "[1, 2]"),
                              ("report.json", "nested 100000 deep", "[" * 100000 + "]" * 100000)):
        d, p = damaged(model_dir, tmp, "model_bad", fname, data)
        refused(lambda: lampsim.load_model(d), p, "load_model: %s %s" % (fname, what))

    # a sweep: its points merged by the engine; a damaged point report is named
    sweep_yaml = os.path.join(tmp, "s.yaml")
    write(sweep_yaml, "name: s\nbase: {workload: {seq_q: 128, seq_k: 128, heads_q: 1, heads_kv: 1}}\n"
                      "axes:\n  algorithm.tau: [0.25, 0.5]\n")
    sweep_dir = os.path.join(tmp, "sweep")
    r = subprocess.run([lampsim_bin, "sweep", "run", sweep_yaml, "-o", sweep_dir], env=child_env(), capture_output=True,
                       text=True)
    check(r.returncode == 0, "sweep run: exit %d %s" % (r.returncode, r.stderr[-200:]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(len(lampsim.load_sweep(sweep_dir)) == 2, "load_sweep: an intact sweep loads")
    # a damaged point is counted as failed by the merge (an INCOMPLETE warning), not taken for data
    d = os.path.join(tmp, "sweep_bad")
    shutil.copytree(sweep_dir, d)
    point = sorted(os.listdir(os.path.join(d, "points")))[0]
    write(os.path.join(d, "points", point, "report.csv"), b"\x00\xff garbage\n")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df = lampsim.load_sweep(d)
    check(len(df) == 1 and df.attrs["failed"] == 1 and any("INCOMPLETE: 1 of 2" in str(x.message) for x in w),
          "load_sweep: a damaged point report is a failed point, with the INCOMPLETE warning")
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
