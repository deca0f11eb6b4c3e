#!/usr/bin/env python3
"""scripts/asap7_cost.py — read cost figures from ASAP7 liberty files for scripts/rtl_synth.sh.

  asap7_cost.py regs LIB CLOCK_PS
      the register overhead (DFFHQNx1 clock-to-QN + setup, ps) and the cycle's logic budget
  asap7_cost.py unit LIB STAT ABCLOG CLOCK_PS UTIL
      one mapped unit: cells, cell area, flip-flops (counted at DFFHQNx1), placed area (/ UTIL),
      critical-path delay (ABC's `stime -p` on the mapped, buffered and sized netlist), pipeline
      depth at the clock, leakage (the cells' state leakage, averaged over their states)
  asap7_cost.py sram TARBALL BANK
      one SRAM bank: area (the bank's, from its layout), bits, read and write energy per access
      (the clk pin's internal-power tables), access time (clk -> dataout)

Method (docs/rtl.md, "Synthesis"): the library's own numbers, looked up at a nominal point of its
tables: input slew 20 ps, output load 2.88 fF for the cells (the tables' third entries); 20 ps and
5.76 fF for the SRAM's output. No wires. Prints CSV fields on stdout.
"""
import gzip
import math
import re
import sys
import tarfile

SLEW_I, LOAD_I = 2, 2          # nominal table entries: 20 ps input slew, 2.88 fF load (cells)
DFF = "DFFHQNx1_ASAP7_75t_R"


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def groups(text, head):
    """(start, end) spans of every `head (...) {` group, brace-matched."""
    out = []
    for m in re.finditer(head, text):
        depth, i = 0, text.index("{", m.end())
        j = i
        while True:
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        out.append((m.group(1) if m.groups() else None, text[m.start():j + 1]))
    return out


def table(body, name):
    """The values of the first `name (...) { values (...) }` table in body, as rows of floats."""
    m = re.search(name + r"\s*\([^)]*\)\s*\{(.*?)\}", body, re.S)
    if not m:
        return None
    v = re.search(r"values\s*\((.*?)\);", m.group(1), re.S).group(1)
    return [[float(x) for x in row.split(",")] for row in re.findall(r'"([^"]*)"', v)]


def cells(text):
    """{cell: (area um2, mean leakage pW over its states)}."""
    out = {}
    for name, body in groups(text, r"\n  cell \(([^)]+)\)"):
        area = float(re.search(r"area\s*:\s*([0-9.eE+-]+)", body).group(1))
        states = {}
        for _, g in groups(body, r"leakage_power \(\)"):
            val = float(re.search(r"value\s*:\s*([0-9.eE+-]+)", g).group(1))
            w = re.search(r'when : "([^"]*)"', g)
            key = w.group(1) if w else ""
            states[key] = states.get(key, 0.0) + val
        m = re.search(r"cell_leakage_power : ([0-9.eE+-]+);", body)
        leak = sum(states.values()) / len(states) if states else (float(m.group(1)) if m else 0.0)
        out[name] = (area, leak)
    return out


def dff_overhead(text):
    """DFFHQNx1: clock-to-QN (worse of rise and fall) + setup (worse of rise and fall), ps."""
    body = dict(groups(text, r"\n  cell \((" + DFF + r")\)"))[DFF]
    qn = [g for _, g in groups(body, r"pin \((QN)\)")][0]
    clk_q = max(table(qn, "cell_rise")[SLEW_I][LOAD_I], table(qn, "cell_fall")[SLEW_I][LOAD_I])
    d = [g for _, g in groups(body, r"pin \((D)\)")][0]
    setup = [g for _, g in groups(d, r"timing \(\)") if "setup_rising" in g][0]
    su = max(table(setup, "rise_constraint")[SLEW_I][SLEW_I], table(setup, "fall_constraint")[SLEW_I][SLEW_I])
    return clk_q, su


def cmd_regs(lib, clock_ps):
    text = read_text(lib)
    clk_q, su = dff_overhead(text)
    print(f"{clk_q + su:.1f},{clock_ps - clk_q - su:.1f}")


def cmd_unit(lib, stat, abclog, clock_ps, util):
    text = read_text(lib)
    lib_cells = cells(text)
    clk_q, su = dff_overhead(text)
    budget = clock_ps - clk_q - su
    ncells = flops = 0
    area = leak = 0.0
    for line in open(stat):
        m = re.match(r"\s+(\S+)\s+(\d+)\s*$", line)
        if not m:
            continue
        name, n = m.group(1), int(m.group(2))
        if name in lib_cells:
            ncells += n
            area += n * lib_cells[name][0]
            leak += n * lib_cells[name][1]
        elif re.match(r"\$_(S?DFFE?|DFFSRE?|ALDFFE?|SDFFCE)_", name) or name.startswith("$_DFF"):
            flops += n
        elif name.startswith("$_"):
            sys.exit(f"asap7_cost: {stat}: unmapped cell {name} x {n}")
    flop_area, flop_leak = lib_cells[DFF]
    delays = [float(x) for x in re.findall(r"Delay =\s*([0-9.]+) ps", open(abclog).read())]
    delay = delays[-1] if delays else 0.0     # the last stime -p: after buffering and sizing
    cell_area = area + flops * flop_area
    depth = max(1, math.ceil(delay / budget)) if delay > 0 else 0
    leak_nw = (leak + flops * flop_leak) * 1e-3
    print(f"{ncells + flops},{cell_area:.3f},{flops},{cell_area / util:.3f},{delay:.1f},{depth},{leak_nw:.3f}")


def cmd_sram(tarball, bank):
    with tarfile.open(tarball) as t:
        member = [m for m in t.getmembers() if m.name.endswith(bank + ".lib")][0]
        text = t.extractfile(member).read().decode()
    rows, mux, width = (int(x) for x in re.search(r"(\d+)x(\d+)x(\d+)", bank).groups())
    cell = groups(text, r"\n  cell \(([^)]+)\)")[0][1]
    area = float(re.search(r"area : ([0-9.]+);", cell).group(1))
    clk = [g for _, g in groups(cell, r"pin \((clk)\)")][0]
    energy = {}
    for _, g in groups(clk, r"internal_power \(\)"):
        if "related_pg_pin : VDD" not in g:
            continue   # VSS tables: the same charge returning; counted once, from VDD
        w = re.search(r'when : "([^"]*)"', g).group(1)
        e = table(g, "rise_power")[0][SLEW_I] + table(g, "fall_power")[0][SLEW_I]   # pF x V^2 = pJ
        energy[w] = energy.get(w, 0.0) + e
    dout = [g for _, g in groups(cell, r"bus \((dataout)\)")][0]
    acc = max(table(dout, "cell_rise")[SLEW_I][0], table(dout, "cell_fall")[SLEW_I][0]) * 1000.0   # ns -> ps
    bits = rows * mux * width
    print(f"{area:.3f},{bits},{width},{energy['!write']:.4f},{energy['write']:.4f},{acc:.1f}")


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["regs"] and len(a) == 3:
        cmd_regs(a[1], float(a[2]))
    elif a[:1] == ["unit"] and len(a) == 6:
        cmd_unit(a[1], a[2], a[3], float(a[4]), float(a[5]))
    elif a[:1] == ["sram"] and len(a) == 3:
        cmd_sram(a[1], a[2])
    else:
        sys.exit(__doc__)
