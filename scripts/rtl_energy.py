#!/usr/bin/env python3
"""Dynamic energy per action of the RTL units from switching activity on the ASAP7 7 nm cells.

Method (docs/rtl.md, "Energy from switching activity"):

1. Yosys 0.23 maps a unit (rtl/*.sv and the generated wrappers, as scripts/rtl_synth.sh reads them)
   onto the ASAP7 RVT TT liberty (`abc -D 546 -liberty`) and writes a gate-level netlist.
2. A cell shim gives every cell the netlist uses a Verilog model written from the liberty's
   `function` attributes; Verilator simulates netlist + shim, driven by a generated C++ testbench
   with operand streams from a real workload (Q and K of the shipped tiny model,
   models/tiny_kjv.safetensors, captured as scripts/eval_ppl.py --dump-traces captures them), and
   dumps every net to a VCD.
3. Each net transition costs 0.5 C V^2 (C: the input-pin capacitances it drives, plus a flip-flop's D
   pin on an output port; no wires) and the driving cell's internal energy: the liberty's
   rise_power / fall_power of the arc from the input that switched (VDD and VSS tables summed; the
   mean over the arcs when several inputs switched together) at the stated input slew and the
   net's load, or, where an input switched and no output did, the input pin's own internal-power
   table (the `when` state that holds). Zero-delay simulation: glitches are not counted.
4. Energy per action = the stream's energy / its steps; the unit's output register (one DFFHQNx1
   per output bit, clocked every action) is given beside it.

    scripts/rtl_energy.py [--build build] [--out hw/cost/asap7_energy.csv]   # regenerate the CSV
    scripts/rtl_energy.py --check hw/cost/asap7_energy.csv                   # rerun, fail on drift
    scripts/rtl_energy.py --units U --update hw/cost/asap7_energy.csv        # rerun unit U, keep the other rows
    scripts/rtl_energy.py --netlist net.v --top T --stimulus s.txt            # one netlist (tests)
"""
import argparse
import csv
import functools
import gzip
import math
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# the ASAP7 library beside the checkout, or where LAMPSIM_PDK says (as scripts/rtl_synth.sh)
LIBERTY = os.path.join(os.environ.get("LAMPSIM_PDK") or os.path.join(ROOT, "..", "shared", "pdk", "asap7"),
                       "asap7_rvt_tt.lib.gz")
VDD = 0.7            # V (the liberty's nom_voltage)
SLEW_PS = 10.0       # input transition at which the internal-energy tables are read (their index_1)
CLOCK_PS = 546       # abc -D: one cycle at 1.83 GHz, as scripts/rtl_synth.sh's liberty mapping
REG_CELL = "DFFHQNx1_ASAP7_75t_R"
RTL_SOURCES = ["rtl/lamp_decode.sv", "rtl/lamp_round.sv", "rtl/lamp_lut_exp.sv", "rtl/lamp_acc_step.sv",
               "rtl/lamp_ypack_lane.sv", "rtl/lamp_sched.sv", "rtl/lamp_stage2.sv"]
GEN_SOURCES = ["lamp_lut_rom.sv", "lamp_cfg_units.sv"]
# Read after the generated files. Yosys numbers everything it reads and ABC's mapping follows that numbering, so
# any change to this list or to a source (even a file appended last) moves the figures: rerun every unit and
# commit the CSV (its --check drift test; docs/rtl.md). This order differs from scripts/rtl_synth.sh's
# (lamp_tc_dot.sv is read before the generated files there), so a unit's cells here need not equal its
# synthesis row's.
LATE_SOURCES = ["rtl/lamp_tc_dot.sv", "rtl/lamp_dot_fused.sv"]
# after those, in the same order as scripts/rtl_synth.sh: the SFU lane and its generated table
LATE_GEN_SOURCES = ["lamp_sfu_exp2_rom.sv"]
LAST_SOURCES = ["rtl/lamp_sfu_exp.sv"]
SLOW_UNITS = ("lamp_sfu_exp",)   # started first when units run at once (--jobs): the SFU lane's ABC alone takes most of an hour
STEPS_PER_UNIT = 4096   # MACs (lookups) simulated per unit: 32 dot products of d = 128
STAGE2_TOKENS = 512     # held-out tokens whose Q and K feed the stage-2 walks
WIDE_STEPS = 1024       # actions simulated of the wide units (scheduler warp-tiles and tests: all the tiny model has; port accesses)

# unit -> (action, description, MACs per action); the order of the CSV. A k-term unit runs
# STEPS_PER_UNIT / k actions, so every dot-product unit sees the same 4,096 products.
UNITS = {
    "lamp_acc_step_lp": ("MAC step", "LP dot-product step bf16 x fp32 -> e4m3", 1),
    "lamp_acc_step_lp_bf16q": ("MAC step", "LP dot-product step bf16 x bf16 -> e4m3", 1),
    "lamp_acc_step_hp": ("MAC step", "HP dot-product step bf16 x fp32 -> e4m11", 1),
    "lamp_lut_exp_lp": ("lookup", "LUT exponential lane: e4m3 shift + RNE to ue5m3-S + table", 1),
    "lamp_fused_step_lp": ("4-MAC group", "LP fused step: 4 bf16 x bf16 products (scale after) -> e4m3 once", 4),
    "lamp_tc_dot_bf16_k4": ("4-MAC group", "baseline: 4-term bf16 x bf16 dot product + fp32 accumulator", 4),
    "lamp_tc_dot_e4m3_k4": ("4-MAC group", "FP8 baseline: 4-term e4m3 x e4m3 dot product + fp32 accumulator", 4),
    "lamp_sfu_exp": ("exponential", "SFU HP exponential lane: ue5m11-S shift -> exp(-s) RNE to ue5m11-X", 1),
    "lamp_ypack_lane": ("packed write", "packed register lane: merge one logit into its byte (LP) or half (HP) and extract one", 1),
    "lamp_pv_step_lp": ("P.V step", "P.V step: ue5m3 exponential x bf16 V + fp32 output (RNE per multiply and add)", 1),
    "lamp_pv_step_hp": ("P.V step", "P.V step: ue5m11 exponential x bf16 V + fp32 output (RNE per multiply and add)", 1),
    "lamp_sched_sort_nk4_q4": ("threat sort", "threats + stable sort of 4 sub-blocks for 4 queries (one warp-tile's quarter)", 1),
    "lamp_stage1_test_lp": ("margin test", "stage-1 margin test of one sub-block for 32 queries", 1),
    "lamp_buf_port_b128": ("port access", "buffer port 128 B/clock: one access of 16 words (tile fills and operand reads of K and V)", 1),
    "lamp_vec_lane": ("vector op", "FP32 vector lane: a row's running maximum - row sum and output scaling (add - multiply - max)", 1),
    "lamp_stage2_lane_nk4": ("subset test", "stage-2 walk: one query lane's test of one subset (4 float64 cost adds + budget compare)", 1),
}
# Units added after the rows above were fixed read only their own sources (as scripts/rtl_synth.sh's own_units),
# so adding one moves no committed row.
OWN_SOURCES = {
    "lamp_pv_step_lp": ["rtl/lamp_pv_step.sv"],
    "lamp_pv_step_hp": ["rtl/lamp_pv_step.sv"],
    "lamp_vec_lane": ["rtl/lamp_vec_lane.sv"],
    "lamp_buf_port_b128": ["rtl/lamp_buf_port.sv"],
    "lamp_stage2_lane_nk4": ["rtl/lamp_stage2.sv", "rtl/lamp_stage2_lane.sv"],
}


def die(msg, code=1):
    sys.stderr.write("rtl_energy: %s\n" % msg)
    sys.exit(code)


# ---------------------------------------------------------------- liberty ----------------------------------------------------------------
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z0-9_.\-+!*\[\]$]+|[(){}:;,]')


class Group:
    """One liberty group: `kind (args) { attrs; subgroups }`."""
    def __init__(self, kind, args):
        self.kind, self.args, self.attrs, self.groups = kind, args, {}, []

    def sub(self, kind):
        return [g for g in self.groups if g.kind == kind]


def _parse_groups(text):
    toks = _TOKEN.findall(text.replace("\\\n", " "))
    root = Group("root", [])
    stack, i, n = [root], 0, len(toks)
    while i < n:
        t = toks[i]
        if t == "}":
            stack.pop()
            i += 1
            continue
        if i + 1 < n and toks[i + 1] == ":":           # name : value ;
            stack[-1].attrs[t] = toks[i + 2].strip('"')
            i += 4 if i + 3 < n and toks[i + 3] == ";" else 3
            continue
        if i + 1 < n and toks[i + 1] == "(":           # name ( args ) { ... }  or  name ( args ) ;
            j, args = i + 2, []
            while toks[j] != ")":
                if toks[j] != ",":
                    args.append(toks[j].strip('"'))
                j += 1
            if j + 1 < n and toks[j + 1] == "{":
                g = Group(t, args)
                stack[-1].groups.append(g)
                stack.append(g)
                i = j + 2
            else:
                stack[-1].attrs[t] = args
                i = j + 2 if j + 1 < n and toks[j + 1] == ";" else j + 1
            continue
        i += 1
    return root


class Table:
    """A power table: 1-D (slew) or 2-D (slew x load), read by bilinear interpolation (linear extrapolation
    outside the index range, as static timing tools read them: a small load lies below the first index)."""
    def __init__(self, g):
        vals = [[float(x) for x in row.split(",")] for row in g.attrs.get("values", ["0"])]
        self.i1 = [float(x) for x in g.attrs["index_1"][0].split(",")] if "index_1" in g.attrs else None
        self.i2 = [float(x) for x in g.attrs["index_2"][0].split(",")] if "index_2" in g.attrs else None
        self.v = vals

    @staticmethod
    def _seg(ix, x):
        if len(ix) == 1:
            return 0, 0, 0.0
        k = 0
        while k < len(ix) - 2 and x > ix[k + 1]:
            k += 1
        return k, k + 1, (x - ix[k]) / (ix[k + 1] - ix[k])

    def at(self, slew, load):
        if self.i1 is None:
            return self.v[0][0]
        a, b, f = self._seg(self.i1, slew)
        if self.i2 is None:
            row = self.v[0] if len(self.v) == 1 else [r[0] for r in self.v]
            return row[a] + (row[b] - row[a]) * f
        c, d, h = self._seg(self.i2, load)
        lo = self.v[a][c] + (self.v[a][d] - self.v[a][c]) * h
        hi = self.v[b][c] + (self.v[b][d] - self.v[b][c]) * h
        return lo + (hi - lo) * f


@functools.lru_cache(maxsize=None)
def _func_py(expr):
    """A liberty Boolean function as a Python expression over a dict `p` of 0/1 pin values."""
    e = re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*)\b", r"p['\1']", expr)
    e = e.replace("!", " not ").replace("*", " and ").replace("&", " and ").replace("+", " or ").replace("|", " or ")
    return compile("int(%s)" % e, expr, "eval")


def _func_v(expr):
    return expr.replace("!", "~").replace("*", "&").replace("+", "|")


class Cell:
    def __init__(self, g):
        self.name, self.area = g.args[0], float(g.attrs.get("area", 0))
        self.inputs, self.outputs, self.cap, self.func, self.func_src = [], [], {}, {}, {}
        self.arcs = {}      # (in, out) -> [(when or None, rise Table list, fall Table list)] summed over pg pins
        self.inpow = {}     # in -> [(when, rise tables, fall tables)]
        for p in g.sub("pin"):
            name = p.args[0]
            if p.attrs.get("direction") == "input":
                self.inputs.append(name)
                self.cap[name] = (float(p.attrs.get("rise_capacitance", p.attrs.get("capacitance", 0))),
                                  float(p.attrs.get("fall_capacitance", p.attrs.get("capacitance", 0))))
                for ip in p.sub("internal_power"):
                    self._add(self.inpow.setdefault(name, []), ip)
            elif p.attrs.get("direction") == "output":
                self.outputs.append(name)
                if "function" in p.attrs:
                    self.func_src[name] = p.attrs["function"]
                    self.func[name] = _func_py(p.attrs["function"])
                for ip in p.sub("internal_power"):
                    rel = ip.attrs.get("related_pin", "")
                    self._add(self.arcs.setdefault((rel, name), []), ip)

    @staticmethod
    def _add(lst, ip):
        """Groups of one (pin, when) over the pg pins are summed: VDD's and VSS's tables of one event."""
        when = ip.attrs.get("when")
        rise = [Table(t) for t in ip.sub("rise_power")]
        fall = [Table(t) for t in ip.sub("fall_power")]
        for entry in lst:
            if entry[0] == when:
                entry[1].extend(rise)
                entry[2].extend(fall)
                return
        lst.append((when, rise, fall))

    def _pick(self, entries, state, rising, slew, load):
        """The event's energy: the `when` variant that holds in state (the unconditional one, or their mean, else)."""
        chosen = [e for e in entries if e[0] is not None and eval(_func_py(e[0]), {}, {"p": state})]
        if not chosen:
            chosen = [e for e in entries if e[0] is None] or entries
        vals = [sum(t.at(slew, load) for t in (e[1] if rising else e[2])) for e in chosen]
        return sum(vals) / len(vals) if vals else 0.0

    def arc_energy(self, inp, out, state, rising, slew, load):
        entries = self.arcs.get((inp, out))
        if not entries:     # no table for this related pin: the mean of the output's arcs
            entries = [e for (i, o), es in self.arcs.items() if o == out for e in es]
        return self._pick(entries, state, rising, slew, load) if entries else 0.0

    def input_energy(self, inp, state, rising, slew):
        entries = self.inpow.get(inp)
        return self._pick(entries, state, rising, slew, 0.0) if entries else 0.0


class Liberty:
    """Cells parsed on demand from the one liberty file (only those a netlist uses)."""
    def __init__(self, path):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            self.text = f.read()
        self.path = path
        self.plain = None       # an unpacked copy for ABC, which reads no gzip
        self.starts = {m.group(1): m.start() for m in re.finditer(r"^  cell \((\w+)\) \{", self.text, re.M)}
        self.order = sorted(self.starts.values())
        self.cells = {}

    def unpacked(self, work):
        if self.plain is None:
            self.plain = os.path.join(work, "asap7.lib")
            with open(self.plain, "w") as f:
                f.write(self.text)
        return self.plain

    def cell(self, name):
        if name not in self.cells:
            if name not in self.starts:
                die("cell %s is not in %s" % (name, self.path))
            a = self.starts[name]
            k = self.order.index(a)
            b = self.order[k + 1] if k + 1 < len(self.order) else len(self.text)
            self.cells[name] = Cell(_parse_groups(self.text[a:b]).groups[0])
        return self.cells[name]


# ---------------------------------------------------------------- netlist ----------------------------------------------------------------
class Netlist:
    """A flat gate-level netlist as Yosys's write_verilog -noattr -noexpr writes it (or by hand, in that form)."""
    def __init__(self, path):
        text = open(path).read()
        m = re.search(r"module\s+(\w+)\s*\(", text)
        if not m:
            die("%s: no module" % path, 2)
        self.top = m.group(1)
        self.ports = {}                       # name -> (direction, width, lsb)
        for d, rng, names in re.findall(r"^\s*(input|output)\s+(\[\d+:\d+\])?\s*([^;]+);", text, re.M):
            hi, lo = (int(x) for x in re.findall(r"\d+", rng)) if rng else (0, 0)
            for nm in names.split(","):
                self.ports[nm.strip()] = (d, hi - lo + 1, lo)
        self.alias = {}
        for lhs, rhs in re.findall(r"^\s*assign\s+(\S+)\s*=\s*([^;]+);", text, re.M):
            self.alias[lhs.strip()] = rhs.strip()
        self.insts = []                       # (cell type, instance, {pin: net})
        for ctype, inst, body in re.findall(r"^\s*(\w+_ASAP7_75t_R)\s+(\S+)\s*\((.*?)\);", text, re.M | re.S):
            pins = {p: self.canon(n.strip()) for p, n in re.findall(r"\.(\w+)\(([^()]*)\)", body)}
            self.insts.append((ctype, inst, pins))

    def canon(self, net):
        """Nets are named by bit: `n12`, `a[3]`, constants `0`/`1`."""
        seen = 0
        while net in self.alias and seen < 100:
            net, seen = self.alias[net], seen + 1
        c = re.fullmatch(r"\d+'[hb]([01])", net)
        if c:
            return c.group(1)
        if net in self.ports and self.ports[net][1] == 1 and not re.search(r"\[", net):
            return net
        return net.replace(" ", "")


def cell_shim(lib, types, path):
    """Verilog models of the used cells from their liberty functions (no tracing inside them)."""
    out = ["// generated by scripts/rtl_energy.py from the liberty's function attributes", "/*verilator tracing_off*/"]
    for t in sorted(types):
        c = lib.cell(t)
        if not c.func:
            die("cell %s has no function (sequential or special): not simulated" % t)
        out.append("module %s(%s);" % (t, ", ".join(c.inputs + c.outputs)))
        out += ["  input %s;" % p for p in c.inputs] + ["  output %s;" % p for p in c.outputs]
        out += ["  assign %s = %s;" % (o, _func_v(c.func_src[o])) for o in c.outputs]
        out.append("endmodule")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- simulation ----------------------------------------------------------------
TB = r"""// generated by scripts/rtl_energy.py: drives %(top)s from a stimulus file and dumps every net
#include <cstdio>
#include <cstdlib>
#include <memory>
#include "V%(top)s.h"
#include "verilated.h"
#include "verilated_vcd_c.h"
int main(int argc, char **argv) {
    if (argc != 4) { std::fprintf(stderr, "usage: tb STIMULUS VCD OUTPUTS\n"); return 2; }
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->traceEverOn(true);
    auto top = std::make_unique<V%(top)s>(ctx.get());
    auto vcd = std::make_unique<VerilatedVcdC>();
    top->trace(vcd.get(), 0);
    vcd->open(argv[2]);
    FILE *in = std::fopen(argv[1], "r"), *out = std::fopen(argv[3], "w");
    if (!in || !out) { std::perror("tb"); return 1; }
    unsigned long long v[%(nin)d + 1];
    unsigned long long fb = 0;
    uint64_t step = 0;
    for (;;) {
        for (int i = 0; i <= %(nin)d; i++)
            if (std::fscanf(in, "%%llx", &v[i]) != 1) goto done;
%(assign)s
        top->eval();
        vcd->dump(step++);
%(record)s
    }
done:
    vcd->close();
    std::fclose(in);
    std::fclose(out);
    return 0;
}
"""


def build_sim(net_path, shim_path, top, inputs, outputs, feedback, work):
    """Verilator model of the netlist with a testbench: stimulus columns = a flag, then the inputs;
    feedback (in, out): the input takes the previous output unless the flag is 1 (then the column). An input
    wider than 64 bits takes one column per 32-bit word, least significant first (wide_columns)."""
    assign = []
    col = 1
    for name, w in inputs:
        if w > 64:
            for k in range((w + 31) // 32):
                assign.append("        top->%s[%d] = (uint32_t)v[%d];" % (name, k, col))
                col += 1
            continue
        if feedback and name == feedback[0]:
            assign.append("        top->%s = v[0] ? v[%d] : fb;" % (name, col))
        else:
            assign.append("        top->%s = v[%d];" % (name, col))
        col += 1
    record = []
    if feedback:
        record.append("        fb = top->%s;" % feedback[1])
    # an output wider than 64 bits is written as its 32-bit words (the output register's toggles count per column)
    fields = []
    for o, w in outputs:
        fields += ["top->%s[%d]" % (o, k) for k in range((w + 31) // 32)] if w > 64 else ["top->%s" % o]
    record.append('        std::fprintf(out, "%s\\n", %s);' % (
        " ".join("%llx" for _ in fields), ", ".join("(unsigned long long)%s" % f for f in fields)))
    tb = os.path.join(work, "tb.cpp")
    with open(tb, "w") as f:
        f.write(TB % {"top": top, "nin": col - 1, "assign": "\n".join(assign), "record": "\n".join(record)})
    mdir = os.path.join(work, "obj")
    cmd = ["verilator", "--cc", "--exe", "--build", "--trace", "-O1", "-Wno-fatal", "-Wno-lint", "-Wno-style",
           "-Wno-UNOPTFLAT", "--top-module", top, "--prefix", "V" + top, "--Mdir", mdir, "-j", "1",
           "-MAKEFLAGS", "OPT_FAST=-O1 OPT_SLOW=-O0", "-o", "tb", shim_path, net_path, tb]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        die("verilator failed on %s:\n%s" % (top, (r.stdout + r.stderr)[-3000:]))
    return os.path.join(mdir, "tb")


def read_vcd(path, top):
    """Per step (after the first), the bits that changed: list of {net_bit: new value}; plus the initial values."""
    codes = {}          # code -> [(net base, width, lsb)]
    scope = []
    steps, cur, init, header = [], None, {}, True
    with open(path) as f:
        for line in f:
            line = line.strip()
            if header:
                if line.startswith("$scope"):
                    scope.append(line.split()[2])
                elif line.startswith("$upscope"):
                    scope.pop()
                elif line.startswith("$var"):
                    parts = line.split()
                    width, code, name = int(parts[2]), parts[3], parts[4]
                    lsb = 0
                    if len(parts) > 6 and parts[5].startswith("["):
                        lsb = int(re.findall(r"\d+", parts[5])[-1])
                    if scope and scope[-1] == top:
                        codes.setdefault(code, []).append((name, width, lsb))
                elif line.startswith("$enddefinitions"):
                    header = False
                continue
            if not line:
                continue
            if line[0] == "#":
                if cur is not None:
                    steps.append(cur)
                cur = {}
                continue
            if line[0] == "b":
                val, code = line[1:].split()
            elif line[0] in "01xz":
                val, code = line[0], line[1:]
            else:
                continue
            for name, width, lsb in codes.get(code, ()):
                bits = val.replace("x", "0").replace("z", "0").rjust(width, "0")
                for k in range(width):
                    key = name if width == 1 else "%s[%d]" % (name, lsb + k)
                    cur[key] = int(bits[width - 1 - k])
    if cur is not None:
        steps.append(cur)
    if not steps:
        die("%s: no value changes" % path)
    return steps


def energy_of(netlist, lib, steps, slew=SLEW_PS, out_load_cell=REG_CELL):
    """Energy in fJ over the steps after the first (the first sets the initial state): (switching,
    internal, per-cell-type internal dict), from per-step value changes."""
    vals = dict(steps[0])
    vals["0"], vals["1"] = 0, 1
    fanout = {}         # net -> [(inst index, pin)]
    driver = {}
    for k, (t, _i, pins) in enumerate(netlist.insts):
        c = lib.cell(t)
        for p, n in pins.items():
            if p in c.inputs:
                fanout.setdefault(n, []).append((k, p))
            else:
                driver[n] = (k, p)
    reg = lib.cell(out_load_cell)
    d_cap = reg.cap["D"]
    out_bits = set()
    for name, (d, w, lsb) in netlist.ports.items():
        if d == "output":
            out_bits |= {name} if w == 1 else {"%s[%d]" % (name, lsb + k) for k in range(w)}
    cap = {}
    for n in set(fanout) | set(driver) | out_bits:
        cr = sum(lib.cell(netlist.insts[k][0]).cap[p][0] for k, p in fanout.get(n, ()))
        cf = sum(lib.cell(netlist.insts[k][0]).cap[p][1] for k, p in fanout.get(n, ()))
        if n in out_bits:
            cr, cf = cr + d_cap[0], cf + d_cap[1]
        cap[n] = (cr, cf)
    e_sw = e_int = 0.0
    per_type = {}
    memo = {}           # (instance, pin state, switched inputs, switched outputs) -> fJ
    v2 = VDD * VDD
    for ch in steps[1:]:
        changed = {n: v for n, v in ch.items() if vals.get(n) != v}
        vals.update(changed)
        touched = set()
        for n in changed:
            c = cap.get(n)
            if c:
                e_sw += 0.5 * (c[0] if changed[n] else c[1]) * v2
            for k, _p in fanout.get(n, ()):
                touched.add(k)
            if n in driver:
                touched.add(driver[n][0])
        for k in touched:
            t, _i, pins = netlist.insts[k]
            c = lib.cell(t)
            state = {p: vals.get(n, 0) for p, n in pins.items()}
            ins = [p for p in c.inputs if pins.get(p) in changed]
            outs = [p for p in c.outputs if pins.get(p) in changed]
            key = (k, tuple(sorted(state.items())), tuple(ins), tuple(outs))
            e = memo.get(key)
            if e is None:
                e = 0.0
                for o in outs:
                    if not ins:
                        continue
                    rising = state[o] == 1
                    load = sum(cap.get(pins[o], (0, 0))) / 2
                    e += sum(c.arc_energy(p, o, state, rising, slew, load) for p in ins) / len(ins)
                if not outs:
                    for p in ins:
                        e += c.input_energy(p, state, state[p] == 1, slew)
                memo[key] = e
            e_int += e
            per_type[t] = per_type.get(t, 0.0) + e
    return e_sw, e_int, per_type


def register_energy(lib, n_bits, toggles, n_steps, slew=SLEW_PS):
    """fJ of n_bits DFFHQNx1 clocked n_steps times whose data toggled `toggles` times in all: the clock pin's
    internal energy each cycle (rise + fall, mean of its `when` variants) and the QN arc's per data toggle."""
    reg = lib.cell(REG_CELL)
    clk = reg.inpow.get("CLK", [])
    e_clk = sum(sum(t.at(slew, 0) for t in e[1]) + sum(t.at(slew, 0) for t in e[2]) for e in clk) / max(len(clk), 1)
    load = 1.0   # fF: one fan-out
    arc = reg.arcs.get(("CLK", "QN"), [])
    e_q = sum((sum(t.at(slew, load) for t in e[1]) + sum(t.at(slew, load) for t in e[2])) / 2 for e in arc) / max(len(arc), 1)
    return n_bits * n_steps * e_clk + toggles * (e_q + 0.5 * load * VDD * VDD)


# ---------------------------------------------------------------- operand streams ----------------------------------------------------------------
def _bf16_bits(x):
    """fp32 values -> bf16 bit patterns, round to nearest even."""
    import numpy as np
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return r.astype(np.uint32)


def _round_minifloat(x, e_bits, m_bits, bias, maxv):
    """RNE, saturating, to a signed minifloat grid (value, as float); the accumulator model of the stream."""
    if x == 0 or math.isnan(x):
        return 0.0
    s = -1.0 if x < 0 else 1.0
    a = abs(x)
    e = max(math.floor(math.log2(a)), 1 - bias)
    q = 2.0 ** (e - m_bits)
    r = round(a / q) * q       # Python round: half to even
    return s * min(r, maxv)


def _minifloat_code(v, e_bits, m_bits, bias):
    s = 1 if v < 0 else 0
    a = abs(v)
    if a == 0:
        return s << (e_bits + m_bits)
    e = math.floor(math.log2(a))
    if e < 1 - bias:                       # subnormal
        return (s << (e_bits + m_bits)) | int(round(a / 2.0 ** (1 - bias - m_bits)))
    frac = int(round((a / 2.0 ** e - 1) * (1 << m_bits)))
    return (s << (e_bits + m_bits)) | ((e + bias) << m_bits) | frac


def workload_qk(build, checkpoint, tokens=128):
    """Q (pre-scaled by 1/sqrt(d) in fp32) and K of every layer of the tiny model on held-out text, Q unscaled
    and V: [(q [H, T, D], k [Hkv, T, D], q unscaled [H, T, D], v [Hkv, T, D]), float32]."""
    os.environ.setdefault("LAMPSIM_LIB", os.path.join(build, "liblampsim.so"))
    sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "scripts")]
    import numpy as np
    import torch
    torch.set_num_threads(1)      # the same activations, bit for bit, on any machine's thread count
    import eval_ppl
    from dump_qkv import capture_qkv
    from lampsim.model import load_pretrained
    model = load_pretrained(checkpoint)
    ids = eval_ppl.heldout_ids(1, tokens)
    layers = capture_qkv(model, lambda: model(ids[:, :-1]), mode="hook", module=r".*\.core")
    out = []
    for layer in layers:
        q = layer.q[0].float().numpy()
        k = layer.k[0].float().numpy()
        s = np.float32(1.0 / math.sqrt(q.shape[-1]))
        v = layer.v[0].float().numpy()
        out.append(((q * s).astype(np.float32), k.astype(np.float32), q.astype(np.float32), v.astype(np.float32)))
    return out


def _pairs(layers, n_dots, seed=1):
    """n_dots (layer, head, query, key) causal pairs, drawn with a fixed seed across layers and heads."""
    import numpy as np
    rng = np.random.default_rng(seed)
    out = []
    for j in range(n_dots):
        li = j % len(layers)
        q, k = layers[li][:2]
        h = int(rng.integers(q.shape[0]))
        t = int(rng.integers(1, q.shape[1]))
        s = int(rng.integers(0, t + 1))
        out.append((li, h, h * k.shape[0] // q.shape[0], t, s))
    return out


def stream_step(layers, kind, steps):
    """Stimulus of a dot-product step unit: flag (1 = first step of a dot product: acc = +0), acc, a (bf16 K),
    b (fp32 or bf16 pre-scaled Q), one line per step, each dot product over d in order."""
    import numpy as np
    d = layers[0][0].shape[-1]
    lines = []
    for li, h, hk, t, s in _pairs(layers, (steps + d - 1) // d):
        q, k = layers[li][:2]
        a = _bf16_bits(k[hk, s])
        b = _bf16_bits(q[h, t]) if kind == "bf16q" else np.asarray(q[h, t], dtype=np.float32).view(np.uint32)
        for x in range(d):
            lines.append("%x 0 %x %x" % (1 if x == 0 else 0, a[x], b[x]))
    return lines[:steps]


def _e4m3_bits(x):
    """float values (|x| <= 448 after scaling) -> OCP e4m3 codes, RNE, saturating."""
    out = []
    for v in x:
        r = _round_minifloat(float(v), 4, 3, 7, 448.0)
        out.append(_minifloat_code(r, 4, 3, 7) | (0x80 if r == 0 and v < 0 else 0))
    return out


def stream_group(layers, kind, actions, k=4):
    """Stimulus of a k-term unit, one group of k products per line: flag (1 = first group of a dot product:
    the accumulator input +0), then the accumulator, a (k keys), b (k queries), operand i in bits 16i (8i for
    e4m3) up. kind "fused": bf16 K x bf16 Q, the scale applied after (`scale_point: post`, the fused4_bf16_bf16
    variant); "bf16": a tensor core's bf16 K x bf16 Q (FlashAttention-2 scales the fp32 logits after);
    "e4m3": FP8 as the engine's fa3_fp8 quantizes: K and the pre-scaled Q each scaled by amax / 448 (per layer
    and head) and rounded to e4m3."""
    import numpy as np
    d = layers[0][0].shape[-1]
    width = 8 if kind == "e4m3" else 16
    amax = {}
    lines = []
    for li, h, hk, t, s in _pairs(layers, (actions * k + d - 1) // d):
        qs, kk, qr = layers[li][:3]
        if kind == "e4m3":
            if (li, h) not in amax:
                amax[(li, h)] = (float(np.abs(kk[hk]).max()) / 448.0, float(np.abs(qs[h]).max()) / 448.0)
            ka, qa = amax[(li, h)]
            a = _e4m3_bits(kk[hk, s] / ka)
            b = _e4m3_bits(qs[h, t] / qa)
        else:
            a = list(_bf16_bits(kk[hk, s]))
            b = list(_bf16_bits(qr[h, t]))
        for x in range(0, d, k):
            pa = sum(int(a[x + i]) << (width * i) for i in range(k))
            pb = sum(int(b[x + i]) << (width * i) for i in range(k))
            lines.append("%x 0 %x %x" % (1 if x == 0 else 0, pa, pb))
    return lines[:actions]


def logit_row_list(layers, n_rows, seed, man, maxval):
    """Logits of n_rows query rows (a random head and a query in the second half of a random layer): the
    sequential accumulation of bf16 K x fp32 Q rounded at each step to e4 with `man` mantissa bits
    (largest finite `maxval`), keys 0..t, with the running maximum per 64-key tile:
    [(layer, KV head, query, [(mu, y)] in key order)]."""
    import numpy as np
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_rows):
        li = r % len(layers)
        q, k = layers[li][:2]
        h = int(rng.integers(q.shape[0]))
        hk = h * k.shape[0] // q.shape[0]
        t = int(rng.integers(q.shape[1] // 2, q.shape[1]))
        kb = _bf16_bits(k[hk, :t + 1]).astype(np.uint32) << 16
        kf = kb.view(np.float32).astype(np.float64)
        qf = q[h, t].astype(np.float64)
        ys = []
        for s in range(t + 1):
            acc = 0.0
            for x in range(q.shape[-1]):
                acc = _round_minifloat(acc + kf[s, x] * qf[x], 4, man, 7, maxval)
            ys.append(acc)
        mu, row = -math.inf, []
        for s in range(t + 1):
            if s % 64 == 0:
                mu = max(mu, max(ys[s:s + 64]))
            row.append((mu, ys[s]))
        rows.append((li, hk, t, row))
    return rows


def logit_rows(layers, n_rows, seed, man, maxval):
    """logit_row_list's (mu, y) pairs, every row's in key order, rows in order."""
    return [p for _li, _hk, _t, row in logit_row_list(layers, n_rows, seed, man, maxval) for p in row]


def lp_logits(layers, n_rows):
    """LP logits (e4m3 codes, the sequential e4m3 accumulation of bf16 K x fp32 Q) of n_rows query rows with
    their running maxima per 64-key tile: [(mu code, y code)] in key order."""
    return [(_minifloat_code(mu, 4, 3, 7), _minifloat_code(y, 4, 3, 7))
            for mu, y in logit_rows(layers, n_rows, 2, 3, 448.0)]


def first_lines(steps, lines_of_rows):
    """The first `steps` stimulus lines of lines_of_rows(n) (n query rows' lines), n doubled until enough."""
    rows, lines = 1, []
    while len(lines) < steps:
        lines = lines_of_rows(rows)
        rows *= 2
    return lines[:steps]


def stream_lut(layers, steps):
    """Stimulus of the LUT exponential lane: flag 0, mu_code, y_code, y_masked = 0 (masked keys are skipped)."""
    return first_lines(steps, lambda rows: ["0 %x %x 0" % p for p in lp_logits(layers, rows)])


def hp_shifts(layers, n_rows):
    """HP shift codes (ue5m11-S) of n_rows query rows: the HP logits (the sequential e4m11 accumulation of
    bf16 K x fp32 Q), their running maximum per 64-key tile, the shift mu - y (exact: both on the e4m11
    grid) rounded to ue5m11-S, in key order."""
    return [_minifloat_code(_round_minifloat(mu - y, 5, 11, 22, 1023.5), 5, 11, 22)
            for mu, y in logit_rows(layers, n_rows, 3, 11, 511.75)]


def stream_sfu(layers, steps):
    """Stimulus of the SFU exponential lane: flag 0, s_code."""
    return first_lines(steps, lambda rows: ["0 %x" % c for c in hp_shifts(layers, rows)])


def pv_lines(layers, n_rows, kind):
    """Stimulus of a P.V step lane (one output column of one query row per row, keys in order): flag (1 = the
    row's first step: o = +0), o, p, v. The exponentials as the engine forms them: the LP (kind "lp") or HP
    logits of logit_row_list, the shift mu - y rounded to ue5m3-S / ue5m11-S, exp(-shift) rounded to ue5m3 /
    ue5m11 (bias 31); keys whose exponential is 0 are skipped (the lane takes no step, as the C model). v: the
    bf16 V of the row's KV head at that key and column (column = row index mod d)."""
    man, maxval, smax = (3, 448.0, 896.0) if kind == "lp" else (11, 511.75, 1023.5)
    xmax = 2.0 - 2.0 ** -man
    lines = []
    for r, (li, hk, _t, row) in enumerate(logit_row_list(layers, n_rows, 4 if kind == "lp" else 5, man, maxval)):
        v = layers[li][3]
        col = r % v.shape[-1]
        first = True
        for s, (mu, y) in enumerate(row):
            sh = _round_minifloat(mu - y, 5, man, 22, smax)
            e = _round_minifloat(math.exp(-sh), 5, man, 31, xmax)
            if e == 0:
                continue
            vb = int(_bf16_bits(v[hk, s:s + 1, col])[0])
            lines.append("%x 0 %x %x" % (1 if first else 0, _minifloat_code(e, 5, man, 31), vb))
            first = False
    return lines


def _f32_hex(x):
    import numpy as np
    return "%x" % int(np.asarray(x, dtype=np.float32).reshape(1).view(np.uint32)[0])


def vec_lines(layers, n_rows):
    """Stimulus of the FP32 vector lane, one query row after another in the order the vector unit's steps meet
    it: flag 0, op, a, b. The row's running maximum over its LP logits (op 3: a the maximum so far, b the
    logit; the SMAX step), the row sum of its LUT exponentials in fp32 (op 0: a the sum so far, b the
    exponential; NORM), and the final scaling of its output (op 2: a each of the d columns of the
    unnormalised output, the fp32 sum of exponential x bf16 V, b the reciprocal of the row sum; FIN). The
    logits and exponentials as pv_lines forms them; per row about as many max as add operations and d
    multiplies, the default run's mix of the three steps."""
    import numpy as np
    f32 = np.float32
    xmax = 2.0 - 2.0 ** -3
    lines = []
    for li, hk, _t, row in logit_row_list(layers, n_rows, 6, 3, 448.0):
        v = layers[li][3][hk]
        vb = (_bf16_bits(v.reshape(-1)).astype(np.uint32) << 16).view(np.float32).reshape(v.shape)
        m = f32(-np.inf)
        for _mu, y in row:
            lines.append("0 3 %s %s" % (_f32_hex(m), _f32_hex(y)))
            m = max(m, f32(y))
        total, out = f32(0.0), np.zeros(v.shape[-1], dtype=np.float32)
        for s, (mu, y) in enumerate(row):
            e = f32(_round_minifloat(math.exp(-_round_minifloat(mu - y, 5, 3, 22, 896.0)), 5, 3, 31, xmax))
            if e == 0:
                continue
            lines.append("0 0 %s %s" % (_f32_hex(total), _f32_hex(e)))
            total = f32(total + e)
            out = (out + e * vb[s]).astype(np.float32)
        inv = f32(f32(1.0) / total)
        for c in range(out.shape[0]):
            lines.append("0 2 %s %s" % (_f32_hex(out[c]), _f32_hex(inv)))
    return lines


def _round_minifloat_np(x, m_bits, bias, maxv):
    """_round_minifloat on an array (RNE, saturating; exponents from frexp, exact)."""
    import numpy as np
    a = np.abs(x)
    _m, ex = np.frexp(a)
    e = np.maximum(ex - 1, 1 - bias)
    q = np.ldexp(1.0, e - m_bits)
    return np.sign(x) * np.minimum(np.round(a / q) * q, maxv)


def head_logits(layers, li, h, man, maxval):
    """Every (query, key) logit of one layer and head, the sequential accumulation of bf16 K x fp32 Q rounded at
    each step to e4 with `man` mantissa bits (as logit_row_list, on the whole matrix at once): [T, T] float64,
    -inf above the diagonal (causal)."""
    import numpy as np
    q, k = layers[li][:2]
    hk = h * k.shape[0] // q.shape[0]
    kf = (_bf16_bits(k[hk]).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    qf = q[h].astype(np.float64)
    acc = np.zeros((qf.shape[0], kf.shape[0]))
    for x in range(qf.shape[-1]):
        acc = _round_minifloat_np(acc + np.outer(qf[:, x], kf[:, x]), man, 7, maxval)
    return np.where(np.tril(np.ones_like(acc, dtype=bool)), acc, -np.inf)


def _warp_tiles(layers, n_q, n_k=4, b_k=16):
    """Per warp of n_q consecutive queries of a layer and head, per 64-key tile the warp sees: (m, mh_sub, mu) with
    m[theta][j] the LP maximum of sub-block theta for query j, mh_sub the HP one, mu[j] the HP running maximum
    of the earlier tiles (-inf on the first); layers and heads in turn."""
    import numpy as np
    for li in range(len(layers)):
        for h in range(layers[li][0].shape[0]):
            lp = head_logits(layers, li, h, 3, 448.0)
            hp = head_logits(layers, li, h, 11, 511.75)
            t_n, bc = lp.shape[0], n_k * b_k
            for t0 in range(0, t_n - n_q + 1, n_q):
                rows = slice(t0, t0 + n_q)
                for k0 in range(0, t0 + n_q, bc):
                    m = np.stack([lp[rows, k0 + th * b_k:k0 + (th + 1) * b_k].max(axis=1) for th in range(n_k)])
                    mh = np.stack([hp[rows, k0 + th * b_k:k0 + (th + 1) * b_k].max(axis=1) for th in range(n_k)])
                    mu = hp[rows, :k0].max(axis=1) if k0 else np.full(n_q, -np.inf)
                    yield m, mh, mu


def _pack(codes, width):
    return "%x" % sum(int(c) << (width * i) for i, c in enumerate(codes))


def _codes(v, m_bits):
    """e4m3 (m_bits 3) or e4m11 codes of finite values, 0 for -inf, and the -inf flags."""
    import numpy as np
    flat = np.asarray(v).reshape(-1)
    return ([_minifloat_code(float(x), 4, m_bits, 7) if np.isfinite(x) else 0 for x in flat],
            [0 if np.isfinite(x) else 1 for x in flat])


def sort_lines(layers, steps, n_k=4, n_q=4):
    """Stimulus of the threat sort (n_k sub-blocks, n_q queries): flag 0, m_code, m_ninf, mu_code, mu_ninf; one
    warp-tile per line: the LP sub-block maxima and the HP running maxima of the tiny model's causal tiles."""
    lines = []
    for m, _mh, mu in _warp_tiles(layers, n_q, n_k):
        mc, mn = _codes(m, 3)
        uc, un = _codes(mu, 11)
        lines.append("0 %s %s %s %s" % (_pack(mc, 8), _pack(mn, 1), _pack(uc, 16), _pack(un, 1)))
        if len(lines) >= steps:
            break
    return lines


def stage1_lines(layers, steps, n_k=4, n_q=32, delta=2.0 ** -8):
    """Stimulus of the stage-1 margin test (one sub-block, n_q queries): flag 0, m_code, m_ninf, muh_code,
    muh_ninf. Per warp-tile the sub-blocks in descending threat order (max_j m - mu), each tested against the
    current mu_hat (the HP running maximum), which a failing sub-block raises to its HP maxima (lslamp_stage1)."""
    import numpy as np
    lines = []
    for m, mh, mu in _warp_tiles(layers, n_q, n_k):
        muh = mu.copy()
        with np.errstate(invalid="ignore"):
            threat = np.where(np.isfinite(m), m - np.where(np.isfinite(mu), mu, -1e30), -np.inf).max(axis=1)
        for th in np.argsort(-threat, kind="stable"):
            mc, mn = _codes(m[th], 3)
            hc, hn = _codes(muh, 11)
            lines.append("0 %s %s %s %s" % (_pack(mc, 8), _pack(mn, 1), _pack(hc, 16), _pack(hn, 1)))
            live = np.isfinite(m[th])
            ok = np.all(~live | (np.isfinite(muh) & (muh > m[th] + np.abs(muh) * delta)))
            if not ok:
                muh = np.maximum(muh, mh[th])
            if len(lines) >= steps:
                return lines
    return lines


def _stage2_walks(layers, tau, n_k=4, b_k=16, n_q=32, delta=2.0 ** -8):
    """The stage-2 walks of the tiny model's causal warp-tiles, as the engine's steps form their inputs: per
    warp of n_q queries and 64-key tile, stage 1 as stage1_lines (sub-blocks in threat order against the HP
    running maximum, a failing one raising mu_hat to its HP maxima and going HP), the exponentials E of the
    LP logits (shift mu_hat - y rounded to ue5m3-S, exp(-shift) to ue5m3), lambda, omega_hat = lambda omega +
    sum E in fp32 (lslamp_normaliser), the costs xi[theta][j] = sum E (omega_hat - E) in float64
    (lslamp_stage2_costs); yields (cand, xi [n_k, n_q], omega_hat [n_q]) where the candidates (active
    sub-blocks stage 1 left LP) are not empty, as lssched walks them."""
    import numpy as np
    f32 = np.float32
    for li in range(len(layers)):
        for h in range(layers[li][0].shape[0]):
            lp = head_logits(layers, li, h, 3, 448.0)
            hp = head_logits(layers, li, h, 11, 511.75)
            bc = n_k * b_k
            for t0 in range(0, lp.shape[0] - n_q + 1, n_q):
                rows = slice(t0, t0 + n_q)
                mu = np.full(n_q, -np.inf)
                omega = np.zeros(n_q, dtype=f32)
                for k0 in range(0, t0 + n_q, bc):
                    y = lp[rows, k0:k0 + bc]
                    m = np.stack([y[:, th * b_k:(th + 1) * b_k].max(axis=1) for th in range(n_k)])
                    mh = np.stack([hp[rows, k0 + th * b_k:k0 + (th + 1) * b_k].max(axis=1) for th in range(n_k)])
                    muh = mu.copy()
                    with np.errstate(invalid="ignore"):
                        threat = np.where(np.isfinite(m), m - np.where(np.isfinite(mu), mu, -1e30), -np.inf).max(axis=1)
                    active = pre = 0
                    for th in np.argsort(-threat, kind="stable"):
                        live = np.isfinite(m[th])
                        if not live.any():
                            continue
                        active |= 1 << int(th)
                        if not np.all(~live | (np.isfinite(muh) & (muh > m[th] + np.abs(muh) * delta))):
                            muh = np.maximum(muh, mh[th])
                            pre |= 1 << int(th)
                    with np.errstate(invalid="ignore"):
                        sh = _round_minifloat_np(np.maximum(muh[:, None] - y, 0.0), 3, 22, 896.0)
                        e = np.where(np.isfinite(y), _round_minifloat_np(np.exp(-sh), 3, 31, 2.0 - 2.0 ** -3), 0.0)
                        lam = np.where(np.isfinite(mu), np.exp(mu - muh), 0.0).astype(f32)
                    oh = lam * omega
                    for i in range(bc):
                        oh = (oh + e[:, i].astype(f32)).astype(f32)
                    ohd = oh.astype(np.float64)
                    xi = np.stack([(e[:, th * b_k:(th + 1) * b_k] * (ohd[:, None] - e[:, th * b_k:(th + 1) * b_k]))
                                   .sum(axis=1) for th in range(n_k)])
                    cand = active & ~pre
                    if cand:
                        yield cand, xi, ohd
                    mu, omega = muh, oh


def stage2_lines(layers, steps, tau=0.5, n_q=32):
    """Stimulus of one stage-2 query lane (lamp_stage2_lane_nk4): flag 0, sub, xi (4 x float64), lim = tau
    omega_hat^2, act = omega_hat > 0; per walk every subset of the candidates in the walk's order (sub <- (sub -
    1) & cand down to 0, as lamp_stage2_select). Lane j's walks in order, then lane j + 1's: each lane holds its
    query's costs through a walk, and meets the next walk's as the hardware lane does. tau: the default
    configuration's."""
    import numpy as np
    walks, n_lines = [], 0
    for w in _stage2_walks(layers, tau, n_q=n_q):
        walks.append(w)
        n_lines += n_q << bin(w[0]).count("1")
        if n_lines >= steps:
            break
    lines = []
    for j in range(n_q):
        for cand, xi, oh in walks:
            xj = "%x" % sum(int(np.float64(xi[th, j]).view(np.uint64)) << (64 * th) for th in range(xi.shape[0]))
            lim = "%x" % int(np.float64(tau * oh[j] * oh[j]).view(np.uint64))
            sub = cand
            while True:
                lines.append("0 %x %s %s %d" % (sub, xj, lim, 1 if oh[j] > 0 else 0))
                if sub == 0:
                    break
                sub = (sub - 1) & cand
    return lines[:steps]


def port_lines(layers, accesses, lanes=16, colbanks=2):
    """Stimulus of the buffer port (lamp_buf_port_b128): flag 0, base, we, wdata, bank_rdata. The tiny model's K
    and V (bf16, four to a 64-bit word, layer after layer) as the timed model moves them: a tile's fill (4 writes of
    16 consecutive words) then its operand reads (the same 4 accesses read back), the next tile at the next
    64 words; the bank the row selects holds the words read, the other bank of each column the previous tile's."""
    import numpy as np
    words = []
    for _q, k, _qr, v in layers:
        b = np.concatenate([_bf16_bits(k.reshape(-1)), _bf16_bits(v.reshape(-1))]).astype(np.uint64)
        b = b[:len(b) // 4 * 4].reshape(-1, 4)
        words.extend(int(x[0]) | int(x[1]) << 16 | int(x[2]) << 32 | int(x[3]) << 48 for x in b)
    pack = lambda ws: "%x" % sum(w << (64 * i) for i, w in enumerate(ws))
    aw = 11 + 4
    lines, t = [], 0
    prev = [0] * lanes
    while len(lines) < accesses:
        tile = [words[(t * 64 + i) % len(words)] for i in range(64)]
        for a in range(4):                      # the fill
            base = (t * 64 + a * 16) % (1 << aw)
            lines.append("0 %x 1 %s %s" % (base, pack(tile[16 * a:16 * a + 16]), pack(prev * colbanks)))
        for a in range(4):                      # the operand reads
            base = (t * 64 + a * 16) % (1 << aw)
            got = tile[16 * a:16 * a + 16]
            bank = (base // lanes) >> 10
            cols = []
            for c in range(lanes):
                for kb in range(colbanks):
                    cols.append(got[c] if kb == bank else prev[c])
            lines.append("0 %x 0 %s %s" % (base, pack(got), pack(cols)))
            prev = got
        t += 1
    return lines[:accesses]


def ypack_lines(layers, n_rows):
    """Stimulus of the packed register lane (compact layout): flag (1 = a fresh register: word = 0), word, lane,
    hp, wdata; the word fed back from `merged`. A row's LP logits (e4m3 codes of lp_logits, key order) fill
    registers four to one, lanes 0-3; every fourth register is instead a recomputed sub-block's slot, its HP
    logits (e4m11 codes of the same keys, the sequential e4m11 accumulation) two to one, halves 0-1."""
    lp = [y for _mu, y in lp_logits(layers, n_rows)]
    hp = [_minifloat_code(y, 4, 11, 7) for _mu, y in logit_rows(layers, n_rows, 2, 11, 511.75)]
    lines, i, reg = [], 0, 0
    while i + 4 <= min(len(lp), len(hp)):
        if reg % 4 == 3:
            for j in range(2):
                lines.append("%x 0 %x 1 %x" % (1 if j == 0 else 0, j, hp[i + j]))
            i += 2
        else:
            for j in range(4):
                lines.append("%x 0 %x 0 %x" % (1 if j == 0 else 0, j, lp[i + j]))
            i += 4
        reg += 1
    return lines


# ---------------------------------------------------------------- driver ----------------------------------------------------------------
def synth(top, build, lib_path, work):
    gen = os.path.join(build, "rtl", "gen")
    if top in OWN_SOURCES:
        src = [os.path.join(ROOT, s) for s in OWN_SOURCES[top]]
    else:
        src = ([os.path.join(ROOT, s) for s in RTL_SOURCES] + [os.path.join(gen, s) for s in GEN_SOURCES] +
               [os.path.join(ROOT, s) for s in LATE_SOURCES] + [os.path.join(gen, s) for s in LATE_GEN_SOURCES] +
               [os.path.join(ROOT, s) for s in LAST_SOURCES])
    for s in src:
        if not os.path.exists(s):
            die("%s missing (cmake --build %s --target lamp_rtl_generated)" % (s, build))
    net = os.path.join(work, top + "_net.v")
    script = ("read_verilog -sv %s; synth -flatten -noshare -top %s; abc -D %d -liberty %s; opt_clean -purge; "
              "rename -enumerate -pattern n%%; tee -q -o %s stat -liberty %s; write_verilog -noattr -noexpr %s"
              % (" ".join(src), top, CLOCK_PS, lib_path, os.path.join(work, top + ".stat"), lib_path, net))
    r = subprocess.run(["yosys", "-q", "-p", script], capture_output=True, text=True)
    if r.returncode != 0:
        die("yosys failed on %s:\n%s" % (top, (r.stdout + r.stderr)[-3000:]))
    area = re.search(r"Chip area for module .*: ([\d.]+)", open(os.path.join(work, top + ".stat")).read())
    return net, float(area.group(1)) if area else float("nan")


def wide_columns(line, inputs):
    """A stimulus line with each input wider than 64 bits split into its 32-bit words, least significant first
    (build_sim's columns)."""
    f = line.split()
    out = [f[0]]
    for (_n, w), tok in zip(inputs, f[1:]):
        if w > 64:
            x = int(tok, 16)
            out.extend("%x" % (x >> (32 * k) & 0xFFFFFFFF) for k in range((w + 31) // 32))
        else:
            out.append(tok)
    return " ".join(out)


def run_netlist(net_path, lib, stimulus_lines, work, feedback=None, slew=SLEW_PS, columns=None):
    """Simulate a netlist on stimulus lines (a flag, then the inputs named by columns, default: the
    netlist's input ports in declaration order); returns a dict of the energy figures (fJ totals, steps)."""
    nl = Netlist(net_path)
    shim = os.path.join(work, "cells.v")
    cell_shim(lib, {t for t, _i, _p in nl.insts}, shim)
    ins = [(n, w) for n, (d, w, _l) in nl.ports.items() if d == "input"]
    if columns:
        if sorted(columns) != sorted(n for n, _w in ins):
            die("%s: stimulus columns %s are not the inputs %s" % (net_path, columns, [n for n, _w in ins]))
        ins = [(n, nl.ports[n][1]) for n in columns]
    outs = [(n, w) for n, (d, w, _l) in nl.ports.items() if d == "output"]
    tb = build_sim(net_path, shim, nl.top, ins, outs, feedback, work)
    if any(w > 64 for _n, w in ins):
        stimulus_lines = [wide_columns(line, ins) for line in stimulus_lines]
    stim = os.path.join(work, "stimulus.txt")
    with open(stim, "w") as f:
        f.write("\n".join(stimulus_lines) + "\n")
    vcd, outv = os.path.join(work, "dump.vcd"), os.path.join(work, "outputs.txt")
    r = subprocess.run([tb, stim, vcd, outv], capture_output=True, text=True)
    if r.returncode != 0:
        die("testbench failed (exit %d): %s" % (r.returncode, r.stderr + r.stdout))
    steps = read_vcd(vcd, nl.top)
    e_sw, e_int, per_type = energy_of(nl, lib, steps, slew)
    out_bits = sum(w for _n, w in outs)
    out_rows = [line.split() for line in open(outv)]
    toggles = 0
    for prev, cur in zip(out_rows, out_rows[1:]):
        toggles += sum(bin(int(a, 16) ^ int(b, 16)).count("1") for a, b in zip(prev, cur))
    n = len(steps) - 1
    e_reg = register_energy(lib, out_bits, toggles, n, slew)
    return {"steps": n, "switching_fj": e_sw, "internal_fj": e_int, "register_fj": e_reg, "per_type": per_type,
            "cells": len(nl.insts), "outputs": out_rows}


def measure_unit(top, build, lib, work, layers, steps, slew=SLEW_PS):
    os.makedirs(work, exist_ok=True)
    net, area = synth(top, build, lib.unpacked(os.path.dirname(work)), work)
    macs = UNITS[top][2]
    if top.startswith("lamp_acc_step"):
        lines = stream_step(layers, "bf16q" if top.endswith("bf16q") else "fp32", steps + 1)
        fb, cols = ("acc", "res"), ["acc", "a", "b"]
    elif top == "lamp_fused_step_lp":
        lines = stream_group(layers, "fused", steps // macs + 1, macs)
        fb, cols = ("acc", "res"), ["acc", "a", "b"]
    elif top.startswith("lamp_tc_dot"):
        lines = stream_group(layers, "e4m3" if "e4m3" in top else "bf16", steps // macs + 1, macs)
        fb, cols = ("c", "res"), ["c", "a", "b"]
    elif top == "lamp_ypack_lane":
        lines = first_lines(steps + 1, lambda rows: ypack_lines(layers, rows))
        fb, cols = ("word", "merged"), ["word", "lane", "hp", "wdata"]
    elif top.startswith("lamp_pv_step"):
        lines = first_lines(steps + 1, lambda rows: pv_lines(layers, rows, top[-2:]))
        fb, cols = ("o", "res"), ["o", "p", "v"]
    elif top == "lamp_sched_sort_nk4_q4":
        lines = sort_lines(layers, min(steps, WIDE_STEPS) + 1)
        fb, cols = None, ["m_code", "m_ninf", "mu_code", "mu_ninf"]
    elif top == "lamp_stage1_test_lp":
        lines = stage1_lines(layers, min(steps, WIDE_STEPS) + 1)
        fb, cols = None, ["m_code", "m_ninf", "muh_code", "muh_ninf"]
    elif top == "lamp_stage2_lane_nk4":
        lines = stage2_lines(layers, steps + 1)
        fb, cols = None, ["sub", "xi", "lim", "act"]
    elif top == "lamp_buf_port_b128":
        lines = port_lines(layers, min(steps, WIDE_STEPS) + 1)
        fb, cols = None, ["base", "we", "wdata", "bank_rdata"]
    elif top == "lamp_vec_lane":
        lines = first_lines(steps + 1, lambda rows: vec_lines(layers, rows))
        fb, cols = None, ["op", "a", "b"]
    elif top == "lamp_sfu_exp":
        lines = stream_sfu(layers, steps + 1)
        fb, cols = None, ["s_code"]
    else:
        lines = stream_lut(layers, steps + 1)
        fb, cols = None, ["mu_code", "y_code", "y_masked"]
    r = run_netlist(net, lib, lines, work, fb, slew, cols)
    if top == "lamp_stage2_lane_nk4":
        check_stage2_outputs(lines, r["outputs"])
    r["area_um2"] = area
    return r


def check_stage2_outputs(lines, outputs):
    """The netlist's feasible bits against the constraint evaluated in Python's float64 (ascending theta, as
    lslamp_knapsack): the stimulus is what the lane computes, not only what it toggles on."""
    import struct
    bad = 0
    for line, out in zip(lines, outputs):
        _f, sub, xi, lim, act = line.split()
        sub, xi = int(sub, 16), int(xi, 16)
        total = 0.0
        for th in range(4):
            if sub >> th & 1:
                total += struct.unpack("<d", struct.pack("<Q", xi >> (64 * th) & (2 ** 64 - 1)))[0]
        want = act == "0" or total <= struct.unpack("<d", struct.pack("<Q", int(lim, 16)))[0]
        bad += int(out[-1], 16) != int(want)
    if bad or len(outputs) != len(lines):
        die("lamp_stage2_lane_nk4: %d of %d feasible bits differ from the float64 constraint (%d outputs)" % (
            bad, len(lines), len(outputs)))


FIELDS = ["unit", "action", "pj_per_action", "logic_pj", "switching_pj", "internal_pj", "register_pj", "cells",
          "area_um2", "steps", "description"]


def row_of(top, r):
    n = r["steps"]
    logic = (r["switching_fj"] + r["internal_fj"]) / n / 1000
    reg = r["register_fj"] / n / 1000
    return {"unit": top, "action": UNITS[top][0], "pj_per_action": "%.5f" % (logic + reg),
            "logic_pj": "%.5f" % logic, "switching_pj": "%.5f" % (r["switching_fj"] / n / 1000),
            "internal_pj": "%.5f" % (r["internal_fj"] / n / 1000), "register_pj": "%.5f" % reg,
            "cells": r["cells"], "area_um2": "%.2f" % r["area_um2"], "steps": n, "description": UNITS[top][1]}


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        f.write("# Dynamic energy per action of the RTL units on ASAP7 RVT TT, 0.7 V, 25 C (scripts/rtl_energy.py;\n"
                "# method: docs/rtl.md, \"Energy from switching activity\"). pJ; input slew %g ps; zero-delay\n"
                "# simulation (no glitches); register_pj: one DFFHQNx1 per output bit clocked every action.\n" % SLEW_PS)
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


_JOB = {}   # what main() hands every unit's measurement (set before the workers fork)


def _measure_job(u):
    j = _JOB
    return measure_unit(u, j["build"], j["lib"], os.path.join(j["work"], u), j["layers"][u], j["steps"], j["slew"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="configured build (generated RTL, liblampsim.so)")
    ap.add_argument("--liberty", default=LIBERTY)
    ap.add_argument("--units", help="comma-separated units (default: all of the CSV)")
    ap.add_argument("--steps", type=int, default=STEPS_PER_UNIT, help="actions simulated per unit")
    ap.add_argument("--slew", type=float, default=SLEW_PS, help="input slew in ps for the internal-energy tables")
    ap.add_argument("--checkpoint", default=os.path.join(ROOT, "models", "tiny_kjv.safetensors"))
    ap.add_argument("--out", help="write the CSV here (hw/cost/asap7_energy.csv)")
    ap.add_argument("--update", metavar="CSV", help="rerun --units and replace (or add) their rows in CSV, the others kept")
    ap.add_argument("--check", metavar="CSV", help="rerun and fail (exit 1) if a unit's energy drifts from CSV")
    ap.add_argument("--tolerance", type=float, default=1e-3, help="relative drift --check accepts")
    ap.add_argument("--work", default=None, help="scratch directory (default BUILD/rtl/energy)")
    ap.add_argument("--netlist", help="simulate this gate-level netlist instead (with --top, --stimulus)")
    ap.add_argument("--stimulus", help="stimulus lines: flag then one hex value per input port, port order")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="units measured at once (default: the CPUs); the rows and their order do not depend on it")
    args = ap.parse_args(argv)
    for tool in ("yosys", "verilator"):
        if not shutil.which(tool):
            die("%s not found (scripts/install-deps.sh rtl)" % tool)
    if not os.path.exists(args.liberty):
        die("liberty %s not found" % args.liberty, 2)
    lib = Liberty(args.liberty)
    work = os.path.abspath(args.work or os.path.join(args.build, "rtl", "energy"))   # Verilator's make runs elsewhere
    os.makedirs(work, exist_ok=True)
    if args.netlist:
        if not args.stimulus:
            die("--netlist needs --stimulus", 2)
        r = run_netlist(args.netlist, lib, [l.strip() for l in open(args.stimulus) if l.strip()], work, None, args.slew)
        print("steps %d switching_fj %.6f internal_fj %.6f register_fj %.6f" % (
            r["steps"], r["switching_fj"], r["internal_fj"], r["register_fj"]))
        return 0
    units = args.units.split(",") if args.units else list(UNITS)
    for u in units:
        if u not in UNITS:
            die("unknown unit %s (known: %s)" % (u, ", ".join(UNITS)), 2)
    layers = workload_qk(args.build, args.checkpoint)
    long_layers = {}

    def layers_of(u):
        """The stimulus activations: STAGE2_TOKENS of them for the stage-2 lane (a 128-token window has too few
        tiles past the first, which stage 1 sends wholly to HP), the 128-token window for every other unit."""
        if u != "lamp_stage2_lane_nk4":
            return layers
        if not long_layers:
            long_layers["v"] = workload_qk(args.build, args.checkpoint, tokens=STAGE2_TOKENS)
        return long_layers["v"]
    if args.jobs < 1:
        die("--jobs %d: give 1 or more" % args.jobs, 2)
    lib.unpacked(work)                    # once, before any worker: every unit's Yosys run reads it
    _JOB.update(build=args.build, lib=lib, work=work, steps=args.steps, slew=args.slew,
                layers={u: layers_of(u) for u in units})
    pool = None
    if args.jobs == 1 or len(units) == 1:
        results = map(_measure_job, units)
    else:                                 # forked workers inherit the parsed liberty and the activations
        import concurrent.futures
        import multiprocessing
        pool = concurrent.futures.ProcessPoolExecutor(min(args.jobs, len(units)),
                                                      mp_context=multiprocessing.get_context("fork"))
        # the slow units first (the SFU lane's ABC takes most of an hour), the others beside them; results in list order
        futures = {u: pool.submit(_measure_job, u) for u in sorted(units, key=lambda u: u not in SLOW_UNITS)}
        results = (futures[u].result() for u in units)
    rows = []
    try:
        for u, r in zip(units, results):
            rows.append(row_of(u, r))
            print("%-24s %8s pJ/%s (logic %s: switching %s + internal %s; register %s), %d cells, %s um2" % (
                u, rows[-1]["pj_per_action"], rows[-1]["action"], rows[-1]["logic_pj"], rows[-1]["switching_pj"],
                rows[-1]["internal_pj"], rows[-1]["register_pj"], r["cells"], rows[-1]["area_um2"]), flush=True)
    except Exception as e:                # a worker that exited (die) breaks the pool: its message is above
        die("a unit's measurement failed: %s" % (e or type(e).__name__))
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    if args.out:
        write_csv(args.out, rows)
        print("rtl_energy: wrote", args.out)
    if args.update:
        new = {r["unit"]: r for r in rows}
        old = {r["unit"]: r for r in read_csv(args.update)}
        old.update(new)
        write_csv(args.update, [old[u] for u in UNITS if u in old])
        print("rtl_energy: updated %s (%s)" % (args.update, ", ".join(new)))
    if args.check:
        ref = {r["unit"]: r for r in read_csv(args.check)}
        bad = 0
        for r in rows:
            old = ref.get(r["unit"])
            if old is None:
                print("rtl_energy: %s missing from %s" % (r["unit"], args.check))
                bad += 1
                continue
            for key in ("pj_per_action", "logic_pj", "register_pj"):
                a, b = float(old[key]), float(r[key])
                if abs(a - b) > args.tolerance * max(abs(a), 1e-12):
                    print("rtl_energy: drift %s %s: CSV %s, rerun %s" % (r["unit"], key, old[key], r[key]))
                    bad += 1
        if bad:
            return 1
        print("rtl_energy: %d units match %s" % (len(rows), args.check))
    return 0


if __name__ == "__main__":
    sys.exit(main())
