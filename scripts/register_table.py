#!/usr/bin/env python3
"""The register and buffer plan (hw/regfile) as a Markdown table: registers per thread and resident
contexts per core for each layout x Q placement at the preset tile and at the tiles that won the
compact-vs-full study (docs/studies.md), with the limit that binds. Each cell is a `lampsim run`
of one core (the plan is what the report's occupancy.* says; a refused cell shows the reason).

  scripts/register_table.py [build/lampsim]      # -> Markdown on stdout (docs/architecture.md)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

LAMPSIM = sys.argv[1] if len(sys.argv) > 1 else "build/lampsim"
# (d, b_q, n_q, b_k, n_k, where the tile comes from)
TILES = [
    (128, 32, 4, 16, 4, "preset (D.3)"),
    (128, 32, 4, 32, 2, "Qwen3 study"),
    (128, 32, 2, 16, 4, "Qwen3 study"),
    (128, 32, 2, 32, 4, "Qwen3 study"),
    (128, 32, 2, 16, 8, "Qwen3 study"),
    (256, 16, 4, 16, 4, "Gemma-3 study"),
    (256, 16, 4, 32, 2, "Gemma-3 study"),
    (256, 16, 4, 64, 2, "Gemma-3 study"),
    (256, 16, 4, 16, 8, "Gemma-3 study"),
]
LAYOUTS = ["compact", "full", "fp32"]
PLACES = ["registers", "buffer"]
CAPS = [2, 8]   # the preset's regfile.max_contexts and the study's second cap


def cell(d, bq, nq, bk, nk, layout, qp, cap):
    with tempfile.TemporaryDirectory() as out:
        sets = {"accelerator.cores": 1, "workload.heads_q": 1, "workload.heads_kv": 1, "workload.seq_q": 1024,
                "workload.seq_k": 1024, "workload.dim": d, "algorithm.b_q": bq, "algorithm.n_q": nq,
                "algorithm.b_k": bk, "algorithm.n_k": nk, "algorithm.compute_reference": "false",
                "accelerator.regfile.layout": layout, "accelerator.regfile.q_placement": qp,
                "accelerator.regfile.max_contexts": cap}
        cmd = [LAMPSIM, "run", "--quiet", "--force", "-o", out]
        for k, v in sets.items():
            cmd += ["--set", "%s=%s" % (k, v)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
            return None, msg
        with open(os.path.join(out, "report.json")) as f:
            return json.load(f)["occupancy"], None


def main():
    print("| tile (d, b_q x N_q, b_k x N_k) | layout | Q in | regs/thread | register fit | buffer fit (KiB/block) "
          "| contexts, max_contexts 2 | contexts, max_contexts 8 | dominated by |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d, bq, nq, bk, nk, src in TILES:
        for layout in LAYOUTS:
            for qp in PLACES:
                occ = [cell(d, bq, nq, bk, nk, layout, qp, c) for c in CAPS]
                tile = "d %d, %d x %d, %d x %d (%s)" % (d, bq, nq, bk, nk, src)
                o, err = occ[0]
                if o is None:
                    m = re.search(r"needs (\d+) registers per thread", err)
                    why = "%s > 255" % m.group(1) if m else err.replace("|", "/")
                    print("| %s | %s | %s | refused: %s | | | | | |" % (tile, layout, qp, why))
                    continue
                caps = ["%d (%s)" % (x["contexts_per_core"]["limit"], x["limited_by"]) for x, _ in occ]
                print("| %s | %s | %s | %d | %d | %d (%.0f) | %s | %s | %s |" % (
                    tile, layout, qp, o["regs_per_thread"], o["contexts_per_core"]["register_fit"],
                    o["contexts_per_core"]["buffer_fit"], o["buffer_kib_per_block"], caps[0], caps[1],
                    o["layout_dominated_by"] or "-"))


if __name__ == "__main__":
    main()
