#!/usr/bin/env python3
"""`lampsim report` on a `lampsim model -o` directory writes its page (a Layers table beside the
model's fields), and on a damaged report.json, report.csv, sensitivity.csv or morris.csv prints one
line naming the file and exits 2, never a Python traceback (issue #39).
usage: test_report_inputs.py LAMPSIM_BINARY TMPDIR"""
import csv
import os
import shutil
import subprocess
import sys

try:
    import jinja2  # noqa: F401
    import matplotlib  # noqa: F401
except ImportError:
    print("skipped: no jinja2 or matplotlib")
    sys.exit(77)

from checks import ROOT, check, child_env, done  # noqa: E402

SMALL = ["--set", "workload.seq_q=128", "--set", "workload.seq_k=128", "--set", "workload.heads_q=1",
         "--set", "workload.heads_kv=1"]


def report(lampsim_bin, d):
    return subprocess.run([lampsim_bin, "report", d], env=child_env(), capture_output=True, text=True, timeout=300)


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def one_line_refusal(lampsim_bin, src, tmp, fname, data, what, drop=()):
    d = os.path.join(tmp, "bad")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(src, d)
    for n in drop:
        os.remove(os.path.join(d, n))
    path = os.path.join(d, fname)
    write(path, data)
    r = report(lampsim_bin, d)
    err = r.stderr.strip()
    check(r.returncode == 2 and len(err.splitlines()) == 1 and path in err and "Traceback" not in err,
          "lampsim report, %s: exit %d, %d line(s): %s" % (what, r.returncode, len(err.splitlines()),
                                                           err.replace(tmp, "TMP")[:240]))


def main(lampsim_bin, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    model_dir, run_dir, sens_dir = (os.path.join(tmp, n) for n in ("model", "run", "sens"))
    subprocess.run([lampsim_bin, "model", os.path.join(ROOT, "workloads", "models", "tiny_kjv.yaml"), "-o", model_dir],
                   check=True, env=child_env(), capture_output=True)
    subprocess.run([lampsim_bin, "run", "-o", run_dir] + SMALL, check=True, env=child_env(), capture_output=True)
    subprocess.run([lampsim_bin, "sensitivity", "--params", "accelerator.tensor.latency,accelerator.launch_cycles",
                    "--trajectories", "2", "--no-html", "--quiet", "-o", sens_dir] + SMALL,
                   check=True, env=child_env(), capture_output=True)

    # a model directory: its page, with the rows of layers.csv
    r = report(lampsim_bin, model_dir)
    html_path = os.path.join(model_dir, "report.html")
    page = open(html_path, encoding="utf-8").read() if os.path.exists(html_path) else ""
    with open(os.path.join(model_dir, "layers.csv")) as f:
        n_layers = len(list(csv.DictReader(f)))
    body = page.split('<h2 id="layers">Layers</h2>')[-1].split("</table>")[0] if 'id="layers"' in page else ""
    check(r.returncode == 0 and "Traceback" not in r.stderr and "lampsim model report" in page,
          "lampsim report MODEL_DIR: exit %d, %s (%s)" % (r.returncode, "a model page" if page else "no page",
                                                          r.stderr.strip().replace(tmp, "TMP")[-200:]))
    check(body.count("<tr>") == n_layers + 1, "... its Layers table has the %d rows of layers.csv (%d)"
          % (n_layers, body.count("<tr>") - 1))
    r = report(lampsim_bin, run_dir)
    check(r.returncode == 0, "lampsim report RUN_DIR still works: exit %d" % r.returncode)

    for d, fname, data, what, drop in (
            (run_dir, "report.json", '{"schema_version": 1, "mo', "run report.json truncated", ()),
            (run_dir, "report.json", "[1, 2, 3]", "run report.json a list", ()),
            (run_dir, "report.json", b'{"mode": "\xff"}', "run report.json not UTF-8", ()),
            (run_dir, "report.json", "[" * 100000 + "]" * 100000, "run report.json nested 100000 deep", ()),
            (run_dir, "report.csv", "schema_version,mode,cycles\n1,lamp\n", "report.csv a short row (no report.json)",
             ("report.json",)),
            (model_dir, "report.json", '{"report": "model", "layers": 3}', "model report.json layers not an array", ()),
            (sens_dir, "sensitivity.csv", b"\x00\xff\xfe binary", "sensitivity.csv binary", ()),
            (sens_dir, "sensitivity.csv", "metric,param\ncycles,x\n", "sensitivity.csv without its columns", ()),
            (sens_dir, "sensitivity.csv", "", "sensitivity.csv empty", ()),
            (sens_dir, "morris.csv", "metric,param,effects,mu,mu_star,sigma,rank\ncycles,a,2,1,1,0,first\n",
             "morris.csv a rank that is not a number", ())):
        one_line_refusal(lampsim_bin, d, tmp, fname, data, what, drop)
    with open(os.path.join(sens_dir, "sensitivity.csv")) as f:
        text = f.read()
    one_line_refusal(lampsim_bin, sens_dir, tmp, "sensitivity.csv", text[:len(text) * 2 // 3],
                     "sensitivity.csv truncated mid-row")
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
