#!/usr/bin/python3
"""Calibration of the GPU presets' fixed costs on the calibration points only.

Runs the calibration series of configs/validation/points.yaml (role: calibration, head dim 128)
for each candidate value of the fixed-cost keys (accelerator.launch_cycles,
accelerator.item_setup_cycles) and tabulates mean |error|, worst error and the error slope per
doubling of seq. Validation points are never run here: choosing a value looks at this table only
(docs/validation.md, "Calibration").

    scripts/calibrate_timing.py -j 2                  # the default grid, quarter chip
    scripts/calibrate_timing.py --grid accelerator.item_setup_cycles=0,1000,2000

Writes docs/figures/timing_calibration.csv (or --out). Needs /usr/bin/python3 and a built lampsim.
"""
import argparse
import concurrent.futures as cf
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_timing as vt  # noqa: E402

DEFAULT_GRID = [
    (),
    ("accelerator.item_setup_cycles=1000",),
    ("accelerator.item_setup_cycles=2000",),
    ("accelerator.item_setup_cycles=4000",),
    ("accelerator.launch_cycles=4000",),
    ("accelerator.launch_cycles=9000",),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lampsim")
    ap.add_argument("--work", default=os.path.join(vt.ROOT, "out", "calibration_timing"))
    ap.add_argument("--out", default=os.path.join(vt.ROOT, "docs", "figures"))
    ap.add_argument("--grid", action="append", metavar="KEY=V1,V2,...",
                    help="candidate values of one key (repeatable: the grid is their product); default: a fixed list")
    ap.add_argument("--scale", type=int, default=4)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args()
    lampsim = vt.lampsim_path(a.lampsim)
    grid = DEFAULT_GRID
    if a.grid:
        grid = [()]
        for g in a.grid:
            key, _, vals = g.partition("=")
            grid = [c + (f"{key}={v}",) for c in grid for v in vals.split(",")]
    points = [p for p in vt.load_points() if p["role"] == "calibration"]
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    jobs = [(p, c) for c in grid for p in points]
    results = {}
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(vt.run_point, lampsim, a.work, p["impl"], p["gpu"], p["d"], p["causal"], p["seq"],
                          a.scale, None, False, c): (id(p), c) for p, c in jobs}
        for f in cf.as_completed(futs):
            results[futs[f]] = f.result()
    rows = []
    for c in grid:
        scored = []
        for p in points:
            r = results[(id(p), c)]
            scored.append({"seq": p["seq"], "rel_error": r["sim_tflops"] / p["published"] - 1})
        m = vt.summarise(scored)
        rows.append({"overrides": " ".join(c) or "(preset)", "points": m["n"], "within25": m["within25"],
                     "mean_abs_error_pct": m["mean_abs"], "min_error_pct": m["min"], "max_error_pct": m["max"],
                     "slope_pts_per_doubling": m["slope"]})
    vt.write_csv(os.path.join(a.out, "timing_calibration.csv"), rows)
    for r in rows:
        print(f"{r['overrides']:45s} {r['within25']:2d}/{r['points']} within 25 %, mean |error| {r['mean_abs_error_pct']:5.1f} %, "
              f"range {r['min_error_pct']:+6.1f} .. {r['max_error_pct']:+6.1f} %, slope {r['slope_pts_per_doubling']:+5.1f}")


if __name__ == "__main__":
    main()
