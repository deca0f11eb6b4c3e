#!/usr/bin/python3
"""`lampsim study` (scripts/study.py): the search re-sizes every contender, keeps every winner within its
budget, and its numbers are those of fresh runs. Usage: test_study.py LAMPSIM SRC_DIR [--default]

Default (quick, the default suite): `lampsim study --quick` (a 256-token prefill, LampAttention compact
against FA2-16, three axes, one pass). --default (label long): the whole default study, also checking
its wall time against the issue's 10 minutes on the 2-core machine (stated, not failed: the machine is
shared)."""
import json
import os
import subprocess
import sys
import tempfile
import time

import yaml

lampsim, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
full = "--default" in sys.argv[3:]
fails = 0


def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL: " + msg)
    else:
        print("ok: " + msg)


def run(args, **kw):
    return subprocess.run([lampsim] + args, capture_output=True, text=True, **kw)


tmp = tempfile.mkdtemp(prefix="lampsim-study-")
out = os.path.join(tmp, "study")
spec_path = os.path.join(src, "configs", "studies", "verdict.yaml")
t0 = time.time()
p = run(["study", spec_path, "-o", out, "-j", "2"] + ([] if full else ["--quick"]))
wall = time.time() - t0
check(p.returncode == 0, "lampsim study ran (rc %d: %s)" % (p.returncode, p.stderr[-1500:]))
if p.returncode:
    sys.exit(1)
s = json.load(open(os.path.join(out, "summary.json")))
print("wall %.0f s, %d points" % (wall, s["points_run"]))
check(os.path.getsize(os.path.join(out, "verdict.html")) > 1000 and os.path.exists(os.path.join(out, "figures", "pareto.png")),
      "verdict.html and the Pareto figure written")
check(s["contenders"] and len({r["regime"] for r in s["rows"]}) >= 1, "rows for every regime")
# the fast-forward (timed.fast_forward in the spec's base): the winners' points it extrapolated were re-timed in
# full, within the limit (a study above it exits 1). The quick study's decode regime (batch 32) has them; the
# default study's batch-8 decode has too few entries, so its check has none
ffc = s.get("fast_forward_check") or {}
check(ffc.get("limit") == 0.01 and ffc["max_deviation"] <= ffc["limit"] and (full or ffc["points"] >= 1) and
      all(r["k2"] > r["k1"] > 0 and r["cycles_full"] > 0 for r in ffc["rows"]),
      "fast-forward: winners' points re-timed in full within 1 %% (%s)" % {k: v for k, v in ffc.items() if k != "rows"})
page = open(os.path.join(out, "verdict.html")).read()
check(("re-timed in full: largest deviation" if ffc.get("points") else "point had whole repetitions to skip") in page,
      "the page's method states the fast-forward check")

spec = yaml.safe_load(open(spec_path))
base = os.path.join(out, "base.yaml")
A = s["budgets"]["area_mm2"]
cores = 2


def start_value(key):
    v = yaml.safe_load(run(["config", "--dump", base]).stdout)
    for part in key.split("."):
        v = v[part]
    return v


# 1. Budgets: every winner within its budget, its area charged afresh through `lampsim study cost`.
for r in s["rows"]:
    if not r["feasible"]:
        continue
    d = r["design"]
    c = run(["study", "cost", base] + sum((["--set", "%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v)]
                                          for k, v in d.items()), []))
    check(c.returncode == 0, "cost of %s/%s/%s" % (r["contender"], r["budget"], r["regime"]))
    cost = json.loads(c.stdout)
    area = cost["area_mm2"]
    check(abs(area - r["area_mm2"]) <= 1e-9 * area, "%s/%s: the summary's area is the cost model's (%.6f, %.6f)"
          % (r["contender"], r["budget"], area, r["area_mm2"]))
    # power: the run's dynamic energy over its (unthrottled) time plus the chip's leakage, as power.average_w
    p = r["energy_uj"] / (r["time_us"] / r.get("throttle", 1.0)) + cost["leakage_w"]
    check(abs(p - r["power_unthrottled_w"]) <= 1e-6 * p, "%s/%s/%s: power %.6f W = energy / time + leakage %.6f W"
          % (r["contender"], r["budget"], r["regime"], r["power_unthrottled_w"], p))
    if r["budget"] == "area":
        check(area <= A * (1 + 1e-9), "%s at equal mm2 within the area budget (%.5f <= %.5f mm2)" % (r["contender"], area, A))
        # re-sized: the filler spends the budget the other axes leave (within one lane's area)
        check(area >= A * 0.995, "%s at equal mm2 spends the budget (%.5f of %.5f mm2)" % (r["contender"], area, A))
    else:
        W = s["budgets"]["power_w"][r["regime"]]
        check(r["power_w"] <= W * (1 + 1e-9), "%s at equal W within the power budget (%.4f <= %.4f W)"
              % (r["contender"], r["power_w"], W))
        # a design drawing more runs throttled to the budget, its time stretched by the same factor
        th = max(1.0, r["power_unthrottled_w"] / W)
        check(abs(r["throttle"] - th) <= 1e-9 * th, "%s/%s: throttle %.4f = max(1, %.4f W / %.4f W)"
              % (r["contender"], r["regime"], r["throttle"], r["power_unthrottled_w"], W))

# 1b. Throttling at equal W (scripts/study.py throttle()): over the budget, the same energy spread over more time;
#     within it, unchanged. A search that rejected such a design would lose a 2x-faster design 3 % over the budget.
sys.path.insert(0, os.path.join(src, "scripts"))
import study as study_py
ev = {"time_us": 10.0, "cycles": 100.0, "power_w": 1.03, "energy_uj": 10.3}
te = study_py.throttle(ev, 1.0)
check(abs(te["time_us"] - 10.3) < 1e-12 and te["power_w"] == 1.0 and abs(te["throttle"] - 1.03) < 1e-12
      and abs(te["time_us"] * te["power_w"] - ev["energy_uj"]) < 1e-9 and te["power_unthrottled_w"] == 1.03,
      "throttle: over the budget, time x P / budget at the budget's power (%s)" % te)
check(study_py.throttle(dict(ev, power_w=0.9), 1.0)["time_us"] == 10.0 and study_py.throttle(None, 1.0) is None,
      "throttle: within the budget, unchanged")
# a workload sampling LampAttention's numerics (the 32k regime): the key stays on computing contenders'
# points and is dropped from timing-only ones, which the config would refuse with it
rs = {"regimes": {"r": {"workloads": [{"weight": 1, "set": {"workload.seq_q": 32768, study_py.SAMPLE_KEY: 8}}]}}}
lp = study_py.regime_points(rs, "r", {"algorithm.mode": "lamp"})[0]
fp = study_py.regime_points(rs, "r", {"algorithm.mode": "fa2_16bit", "timed.timing_only": True})[0]
check(lp.get(study_py.SAMPLE_KEY) == 8 and study_py.SAMPLE_KEY not in fp and fp["workload.seq_q"] == 32768,
      "regime_points: sampled numerics for LampAttention, none for a timing-only contender (%s, %s)" % (lp, fp))

# 2. Re-sized: each contender's equal-mm2 winners differ from its starting design in the axes it searches and its
#    filler, and the search moved at least once (a search that keeps the preset fails here).
for r in s["rows"]:
    if not r["feasible"] or r["budget"] != "area":
        continue
    con = spec["contenders"][r["contender"]]
    fk = spec["axes"][con["filler"]]["key"]
    start = con["set"].get(fk, start_value(fk))
    check(r["design"][fk] != start, "%s/%s/%s: its %s re-sized (%s, start %s)"
          % (r["contender"], r["budget"], r["regime"], fk, r["design"][fk], start))
    check(r["moves"] >= 1, "%s/%s/%s: the search moved an axis (%d moves)" % (r["contender"], r["budget"], r["regime"], r["moves"]))

# 3. A winner's cycles are a fresh `lampsim run` of its configuration (the sweep rows were matched right).
r = next(x for x in s["rows"] if x["feasible"] and x["budget"] == "area")
wl = s["regimes"][r["regime"]]["workloads"]
if len(wl) == 1:
    sets = dict(r["design"], **wl[0]["set"])
    rr = run(["run", base, "-o", os.path.join(tmp, "fresh"), "--quiet"] +
             sum((["--set", "%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v)] for k, v in sets.items()), []))
    check(rr.returncode == 0, "fresh run of the winner (%s)" % rr.stderr[-500:])
    if rr.returncode == 0:
        rep = json.load(open(os.path.join(tmp, "fresh", "report.json")))
        check(rep["cycles"] == round(r["cycles"]), "the winner's cycles equal a fresh run's (%s, %s)" % (rep["cycles"], r["cycles"]))

# 4. Same spec and seed: the same winners (the rerun resumes the finished sweeps, then must agree).
p2 = run(["study", spec_path, "-o", out, "-j", "1"] + ([] if full else ["--quick"]))
s2 = json.load(open(os.path.join(out, "summary.json")))
check(p2.returncode == 0 and [x.get("design") for x in s2["rows"]] == [x.get("design") for x in s["rows"]],
      "a rerun (resumed, -j 1) gives the same winners")

# 5. Bad input: exit 2 with the file and key named, nothing run.
bad = os.path.join(tmp, "bad.yaml")
with open(bad, "w") as f:
    f.write("extends: %s\ndefault_contenders: [lamp_compact, nosuch]\n" % spec_path)
pb = run(["study", bad, "-o", os.path.join(tmp, "bad")])
check(pb.returncode == 2 and "nosuch" in pb.stderr and "bad.yaml" in pb.stderr, "an unknown contender: exit 2 naming it (%d: %s)"
      % (pb.returncode, pb.stderr.strip()))
pc = run(["study", "cost", base, "--set", "accelerator.sfu.lanes=-3"])
check(pc.returncode == 2 and "accelerator.sfu.lanes" in pc.stderr, "study cost of a bad value: exit 2 naming the key")
# 6. The FP8 contender's numerics (algorithm.mode fa3_fp8, golden engine): e4m3 operands cost accuracy
#    against fa2_fp32 on the same inputs, far less than pure 8-bit's.
kl = {}
for m in ("fa2_fp32", "fa3_fp8", "pure_8bit"):
    pr = run(["run", "--golden", "-o", os.path.join(tmp, m), "--quiet", "--set", "algorithm.mode=" + m,
              "--set", "workload.seq_q=128", "--set", "workload.seq_k=128"])
    check(pr.returncode == 0, "golden run of mode %s (%s)" % (m, pr.stderr[-300:]))
    if pr.returncode == 0:
        kl[m] = json.load(open(os.path.join(tmp, m, "report.json")))["accuracy"]["kl_mean"]
if len(kl) == 3:
    check(abs(kl["fa2_fp32"]) * 100 < kl["fa3_fp8"] < kl["pure_8bit"] / 5,
          "fa3_fp8's KL between fa2_fp32's and pure 8-bit's (%.3g, %.3g, %.3g)" % (kl["fa2_fp32"], kl["fa3_fp8"], kl["pure_8bit"]))
# 7. Numerics once per (workload, tile, numerics parameters) over the whole study: every LampAttention point
#    after the first of its key, in any step's sweep and any worker, replays the file in OUT/numerics.
import glob
paths = [json.load(open(f)).get("numerics_path") for f in glob.glob(os.path.join(out, "sweeps", "**", "run_info.json"), recursive=True)]
keys = glob.glob(os.path.join(out, "numerics", "*.lsnum"))
engine = paths.count("engine")
check(keys and engine <= len(keys) and paths.count("file") >= 1,
      "the numerics computed once per key over the study (%d engine runs, %d keys, %d replays from a file, %d in-process)"
      % (engine, len(keys), paths.count("file"), paths.count("cache")))
# 8. The shipped quick sweeps say in their headline which regime they measure and point to the study.
for f in sorted(glob.glob(os.path.join(src, "configs", "sweeps", "*.yaml"))):
    head = open(f).read(1200)
    check(head.startswith("# REGIME:") and "lampsim study" in head, "%s: a REGIME headline pointing to `lampsim study`"
          % os.path.basename(f))
# 9. The docs section: `--page` rewrites only the block named after the study (a page may hold several
#    studies' blocks) and refuses a page without it.
page = os.path.join(tmp, "page.md")
other = "<!-- study: verdict_other -->\nkept\n<!-- /study -->\n"
with open(page, "w") as f:
    f.write("# page\n\n<!-- study: %s -->\nold\n<!-- /study -->\n\n%s" % (s["name"], other))
sys.path.insert(0, os.path.join(src, "scripts"))
import study  # noqa: E402
study.write_docs(s, page)
text = open(page).read()
check("\nold\n" not in text and "What decides it" in text and text.endswith(other),
      "write_docs rewrites the study's own block, not another study's")
with open(page, "w") as f:
    f.write(other)
try:
    study.write_docs(s, page)
    check(False, "write_docs refuses a page without the study's block")
except study.InputError as e:
    check(s["name"] in str(e), "write_docs refuses a page without the study's block (%s)" % e)
# 10. The glance table across studies (`lampsim study glance`): a row per contender, a column per (study,
#     regime), each cell the summary's relative throughput with its range, the column's fastest in bold;
#     a malformed argument is refused (exit 2).
summ = os.path.join(out, "summary.json")
regimes = study.regime_order(s)
g = run(["study", "glance", "q=" + summ, "r=" + summ])
lines = g.stdout.splitlines()
ok, bad = g.returncode == 0, []
for k, reg in enumerate(regimes):   # the equal-mm2 table's columns: (q, regime)..., then (r, regime)...
    rows = {r["contender"]: r for r in s["rows"] if r["budget"] == "area" and r["regime"] == reg}
    best = max(r["relative"] for r in rows.values())
    for c, r in rows.items():
        cell = ("**%.2f**" if r["relative"] == best else "%.2f") % r["relative"] + " (%.2f..%.2f)" % (r["relative_lo"], r["relative_hi"])
        line = next((l for l in lines if l.startswith("| %s |" % r["label"])), "")
        cells = [x.strip() for x in line.strip("|").split("|")]
        if not (len(cells) == 1 + 2 * len(regimes) and cells[1 + k] == cell and cells[1 + len(regimes) + k] == cell):
            bad.append("%s %s: want %s, got %s" % (c, reg, cell, cells))
header = lines[2] if len(lines) > 2 else ""
ok = ok and header.count("(q)") == len(regimes) and header.count("(r)") == len(regimes)
check(ok and not bad, "glance: each contender's relative throughput and range in each study's column (exit %d; header %r%s)"
      % (g.returncode, header, "".join("; " + b for b in bad[:3])))
bad = run(["study", "glance", "nosummary"])
check(bad.returncode == 2 and "NAME=SUMMARY" in bad.stderr, "glance refuses an argument without NAME= (exit %d)" % bad.returncode)
with open(page, "w") as f:
    f.write("a\n<!-- study-glance -->\nold\n<!-- /study-glance -->\nb\n")
study.write_glance([s], ["q"], page)
text = open(page).read()
check(text.startswith("a\n<!-- study-glance -->\n**At equal mm2**") and text.endswith("<!-- /study-glance -->\nb\n")
      and "\nold\n" not in text, "write_glance rewrites the page's glance block")
if full:
    print("default study: %.0f s wall with -j 2 (target 600 s on the 2-core machine)" % wall)
print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
