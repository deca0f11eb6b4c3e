#!/usr/bin/python3
"""`lampsim study`: the verdict at equal silicon (docs/studies.md, "The verdict").

    study.py run [SPEC.yaml] --lampsim PATH [-o DIR] [-j N] [--shard i/N] [--quick] [--page FILE]

For every (contender, budget, regime) of SPEC (default configs/studies/verdict.yaml) a seeded
coordinate descent sizes the contender's design axes within the budget:

* state: the contender's starting design (the spec's base configuration with the contender's keys);
* one pass = the union of the contenders' axes in an order drawn from the spec's seed (the same order
  for every task, so LampAttention's layouts and budgets share each tile's numerics in a generation);
  each step moves one axis to every other value of its ladder; the best feasible design (fewest
  weighted cycles of the regime's workloads) becomes the state, the current one kept on a tie;
* the contender's `filler` axis (its main MAC lanes) is never a step of its own: under the area budget
  it is solved, for every candidate, to spend the area the other axes leave (the cost is linear in
  lanes: `lampsim study cost` at two values); under the power budget each move is tried with the
  filler at its value and one step (x 1.25) either way, and a design drawing more than the budget runs
  throttled to it (throttle(): time x its power / the budget; its area is capped at power_area_cap);
* one generation = every task's step, run as one `lampsim sweep run` (so -j and shards serve it, and
  LampAttention's numerics are computed once per (tile, workload) in it and replayed).

Then the winners are re-timed at both ends of every true unknown (spec `unknowns`), at the
stage-2-only tau ladder (the break-even HP rate), and their accuracy is measured once per (mode, tile,
workload) with the golden engine. Writes DIR/summary.json, DIR/verdict.html, DIR/figures/pareto.png
and, with --page, the generated section of docs/studies.md. Exit 0; 1 when a sweep fails; 2 for bad
input; 3 when --shard left points to other runners (rerun after they finish).
"""
import argparse
import csv
import html
import io
import json
import math
import os
import random
import subprocess
import sys
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the source tree's configs, or the installed copy beside this script (PREFIX/share/lampsim/configs)
DEFAULT_SPEC = next((p for p in (os.path.join(REPO, "configs", "studies", "verdict.yaml"),
                                 os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs", "studies", "verdict.yaml"))
                     if os.path.exists(p)), os.path.join(REPO, "configs", "studies", "verdict.yaml"))
PORT_KEY = "accelerator.memory.buffer_bytes_per_cycle"
FIELDS = ("cycles", "time_us", "energy.dynamic_uj", "power.average_w", "area.total_mm2", "area.published_total_mm2",
          "occupancy.limited_by", "cycle_stack.bottleneck", "recompute.subblock_rate", "tflops_effective",
          "occupancy.contexts_per_core.mean", "accuracy.kl_mean", "accuracy.o_rel_fro_err")


class InputError(Exception):
    pass


def fmt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def norm(v):
    """A value as the merged CSV prints it, for matching rows to points."""
    s = fmt_value(v)
    try:
        f = float(s)
        return ("n", float("%.12g" % f))
    except ValueError:
        return ("s", s.lower())


# ---------------------------------------------------------------- the spec

def merge(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = merge(a.get(k), v) if k in a else v
        return out
    return b


def load_spec(path, quick):
    try:
        with open(path) as f:
            spec = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise InputError("%s: %s" % (path, e))
    if not isinstance(spec, dict):
        raise InputError("%s: expected a mapping" % path)
    if "extends" in spec:   # another spec, this one's keys merged over it (mappings merged, the rest replaced;
        # a mapping named in `replace` replaced whole)
        parent = os.path.join(os.path.dirname(os.path.abspath(path)), spec.pop("extends"))
        replace = spec.pop("replace", [])
        if not isinstance(replace, list) or any(k not in spec for k in replace):
            raise InputError("%s: replace: expected a list of this spec's top-level keys, got %r" % (path, replace))
        try:
            with open(parent) as f:
                merged = merge(yaml.safe_load(f), spec)
        except (OSError, yaml.YAMLError) as e:
            raise InputError("%s: extends: %s" % (path, e))
        for k in replace:
            merged[k] = spec[k]
        spec = merged
    for k in ("base", "axes", "contenders", "regimes", "reference", "baseline"):
        if k not in spec:
            raise InputError("%s: missing key '%s'" % (path, k))
    spec["_dir"] = os.path.dirname(os.path.abspath(path))
    spec["_path"] = os.path.abspath(path)
    spec.setdefault("budgets", ["area", "power"])
    spec.setdefault("area_column", "area.total_mm2")
    if spec["area_column"] not in ("area.total_mm2", "area.published_total_mm2"):
        raise InputError("%s: area_column: expected area.total_mm2 or area.published_total_mm2, got %r"
                         % (path, spec["area_column"]))
    for b in spec["budgets"]:
        if b not in ("area", "power"):
            raise InputError("%s: budgets: expected area and/or power, got %r" % (path, b))
    spec.setdefault("search", {})
    spec.setdefault("unknowns", {})
    spec.setdefault("breakeven_taus", [])
    if "costs" in spec:   # the buffer port's estimate of earlier specs: the area model prices the port now
        raise InputError("%s: costs: no longer read; the area model prices the buffer port from its synthesis "
                         "(area.buffer_port_mm2, docs/studies.md)" % path)
    spec.setdefault("power_area_cap", 2.0)
    regimes = list(spec.get("default_regimes") or spec["regimes"])
    contenders = list(spec.get("default_contenders") or spec["contenders"])
    axes_limit = None
    if quick:
        q = spec.get("quick") or {}
        spec["regimes"].update(q.get("regimes", {}))
        regimes = list(q.get("default_regimes", regimes))
        contenders = list(q.get("contenders", contenders))
        axes_limit = q.get("axes")
        if "passes" in q:
            spec["search"]["passes"] = q["passes"]
        if "unknowns" in q:
            spec["unknowns"] = {k: spec["unknowns"][k] for k in q["unknowns"]}
        if "breakeven_taus" in q:
            spec["breakeven_taus"] = q["breakeven_taus"]
    for r in regimes:
        if r not in spec["regimes"]:
            raise InputError("%s: default_regimes: unknown regime %r (known: %s)" % (path, r, ", ".join(spec["regimes"])))
    for c in contenders + [spec["reference"], spec["baseline"]]:
        if c not in spec["contenders"]:
            raise InputError("%s: unknown contender %r (known: %s)" % (path, c, ", ".join(spec["contenders"])))
    for c in (spec["reference"], spec["baseline"]):
        if c not in contenders:
            contenders.append(c)
    for name, c in spec["contenders"].items():
        for a in list(c.get("axes", [])) + [c.get("filler")]:
            if a not in spec["axes"]:
                raise InputError("%s: contenders.%s: unknown axis %r (known: %s)" % (path, name, a, ", ".join(spec["axes"])))
        if axes_limit is not None:
            c["axes"] = [x for x in c.get("axes", []) if x in axes_limit]
        if "timed.program" in c.get("set", {}):
            c["set"]["timed.program"] = os.path.join(spec["_dir"], c["set"]["timed.program"])
    spec["_regimes"], spec["_contenders"] = regimes, contenders
    return spec


def axis_keys(spec, a):
    ax = spec["axes"][a]
    return list(ax["keys"]) if "keys" in ax else [ax["key"]]


def axis_values(spec, a):
    ax = spec["axes"][a]
    return [tuple(v) for v in ax["values"]] if "keys" in ax else [(v,) for v in ax["values"]]


def write_base(spec, out):
    """OUT/base.yaml: the spec's base with its paths absolute (the sweep files live in OUT)."""
    base = json.loads(json.dumps(spec["base"]))
    if "include" in base:
        base["include"] = os.path.join(spec["_dir"], base["include"])
    if isinstance(base.get("workload"), dict) and "file" in base["workload"]:
        base["workload"]["file"] = os.path.join(spec["_dir"], base["workload"]["file"])
    # the numerics once per (workload, tile, numerics parameters) for the whole study: every later step's
    # sweep, every worker replays the file (timed.numerics_dir; results equal a full run)
    if isinstance(base.get("timed"), dict) and base["timed"].get("reuse_numerics"):
        base["timed"].setdefault("numerics_dir", os.path.join(out, "numerics"))
        os.makedirs(base["timed"]["numerics_dir"], exist_ok=True)
    path = os.path.join(out, "base.yaml")
    write_text(path, yaml.safe_dump(base, sort_keys=False))
    return path


def write_text(path, text):
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# ---------------------------------------------------------------- lampsim

class Lampsim:
    def __init__(self, exe, base, jobs, shard):
        self.exe, self.base, self.jobs, self.shard = exe, base, jobs, shard
        self.base_values = {}
        self.sweep_wall = 0.0
        self.points_resumed = 0   # points an earlier invocation in the same DIR had finished

    def config_value(self, key):
        """A key's value in the resolved base configuration (`lampsim config --dump`)."""
        if not self.base_values:
            p = subprocess.run([self.exe, "config", "--dump", self.base], capture_output=True, text=True)
            if p.returncode:
                raise InputError("lampsim config --dump %s: %s" % (self.base, p.stderr.strip()))
            self.base_values = yaml.safe_load(p.stdout)
        v = self.base_values
        for part in key.split("."):
            if not isinstance(v, dict) or part not in v:
                raise InputError("%s: no key %s in the resolved base configuration" % (self.base, key))
            v = v[part]
        return v

    def costs(self, designs):
        """[{area_mm2, published_area_mm2, leakage_w} or {error}] for each design (a dict of keys)."""
        if not designs:
            return []
        text = "".join(" ".join("%s=%s" % (k, fmt_value(v)) for k, v in d.items()) + "\n" for d in designs)
        p = subprocess.run([self.exe, "study", "cost", self.base, "--each", "-"], input=text, capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError("lampsim study cost: %s" % p.stderr.strip())
        out = [json.loads(l) for l in p.stdout.splitlines()]
        if len(out) != len(designs):
            raise RuntimeError("lampsim study cost: %d answers for %d designs" % (len(out), len(designs)))
        return out

    def sweep_chunks(self, name, points, out, metric="cycles"):
        """sweep() in chunks small enough for one sweep file (the loader's 10000-node cap), in numerics order."""
        keys = {k for p in points for k in p}
        per = max(1, 9000 // (len(keys) + 1))
        pts = sorted(points, key=numerics_order)
        found, failed = {}, False
        for i in range(0, len(pts), per):
            f, fl = self.sweep("%s_%d" % (name, i // per), pts[i:i + per], out if len(pts) <= per else
                               os.path.join(out, "part%d" % (i // per)), metric)
            found.update(f)
            failed = failed or fl
        return found, failed

    def sweep(self, name, points, out, metric="cycles"):
        """Runs the points (dicts of keys) as one sweep in out; {point tuple: row} for the finished ones."""
        keys = sorted({k for p in points for k in p})
        for p in points:
            missing = [k for k in keys if k not in p]
            if missing:
                raise RuntimeError("point without %s" % missing)
        doc = {"name": name, "base": self.base,
               "axes": {"zip": {k: [p[k] for p in points] for k in keys}},
               "best": {"minimise": metric, "over": keys}}
        os.makedirs(out, exist_ok=True)
        sweep_file = os.path.join(out, "sweep.yaml")
        text = yaml.safe_dump(doc, sort_keys=False, width=1 << 20)
        if not os.path.exists(sweep_file) or open(sweep_file).read() != text:
            write_text(sweep_file, text)
        if os.path.isdir(os.path.join(out, "run")):   # resumed: the points an earlier invocation finished
            m0 = subprocess.run([self.exe, "sweep", "merge", os.path.join(out, "run")], capture_output=True, text=True)
            if m0.returncode == 0:
                self.points_resumed += sum(1 for _ in csv.DictReader(io.StringIO(m0.stdout)))
        cmd = [self.exe, "sweep", "run", sweep_file, "-o", os.path.join(out, "run"), "-j", str(self.jobs), "--quiet"]
        if self.shard:
            cmd += ["--shard", self.shard]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        self.sweep_wall += time.time() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-2000:]))
        if self.shard:   # every point of the manifest finished (by any runner), or wait for the others
            st = subprocess.run([self.exe, "sweep", "merge", os.path.join(out, "run"), "--strict"], capture_output=True, text=True)
            if st.returncode:
                raise ShardPause("%s: %s" % (out, st.stderr.strip().splitlines()[-1] if st.stderr.strip() else "points missing"))
        m = subprocess.run([self.exe, "sweep", "merge", os.path.join(out, "run")], capture_output=True, text=True)
        if m.returncode:
            raise RuntimeError("lampsim sweep merge: %s" % m.stderr.strip())
        rows = {}
        for r in csv.DictReader(io.StringIO(m.stdout)):
            rows[tuple(norm(r[k]) for k in keys)] = r
        found = {}
        for pt in points:
            t = tuple(norm(pt[k]) for k in keys)
            if t in rows:
                found[point_id(pt)] = rows[t]
        failed = p.returncode == 1
        return found, failed


def numerics_order(pt):
    """Points sharing numerics (workload, tile, algorithm) side by side, so a chunk keeps them together."""
    return tuple(sorted((k, str(v)) for k, v in pt.items() if k.startswith(("workload.", "algorithm."))))


def point_id(pt):
    return tuple(sorted((k, norm(v)) for k, v in pt.items()))


# ---------------------------------------------------------------- the search

class Task:
    def __init__(self, contender, budget, regime):
        self.contender, self.budget, self.regime = contender, budget, regime
        self.state = None        # the current design (dict)
        self.score = None        # its evaluation
        self.history = []        # (generation, axis, moved)
        self.evaluated = 0


SAMPLE_KEY = "algorithm.sample_query_blocks"


def regime_points(spec, regime, design):
    """The design's points on the regime's workloads. A workload may sample LampAttention's numerics
    (algorithm.sample_query_blocks, long prefill); a timing-only contender computes none, so the key is
    dropped from its points (the config refuses the two together)."""
    out = []
    for w in spec["regimes"][regime]["workloads"]:
        pt = dict(design, **w["set"])
        if str(pt.get("timed.timing_only")).lower() == "true":
            pt.pop(SAMPLE_KEY, None)
        out.append(pt)
    return out


def evaluate(spec, regime, design, results, cost):
    """The regime's weighted time, energy, power, area and the binding limits of a design, or None when a
    workload's point was infeasible (not in results). Power is a run's average: its dynamic energy over its
    time plus the chip's leakage (the cost model's, buffer port included), as `power.average_w` reports it."""
    t = e = 0.0
    rows = []
    for w, pt in zip(spec["regimes"][regime]["workloads"], regime_points(spec, regime, design)):
        r = results.get(point_id(pt))
        if r is None:
            return None
        rows.append(r)
        t += w["weight"] * float(r["time_us"])
        e += w["weight"] * float(r["energy.dynamic_uj"])
    area = cost[spec["area_column"] == "area.total_mm2" and "area_mm2" or "published_area_mm2"]
    power = e / t + float(cost["leakage_w"])   # W: uJ / us, plus leakage
    cyc = sum(w["weight"] * float(r["cycles"]) for w, r in zip(spec["regimes"][regime]["workloads"], rows))
    return {"time_us": t, "energy_uj": e, "power_w": power, "area_mm2": area, "cycles": cyc,
            "limited_by": [r["occupancy.limited_by"] for r in rows], "bottleneck": [r["cycle_stack.bottleneck"] for r in rows],
            "rate": [float(r.get("recompute.subblock_rate") or 0) for r in rows],
            "contexts_mean": [float(r["occupancy.contexts_per_core.mean"]) for r in rows]}


def throttle(ev, budget_w):
    """A design drawing more than the power budget runs throttled to it: the same energy per job spread over
    time x its power / the budget (duty-cycled at the clock it was timed at; voltage scaling would do better).
    Returns the evaluation at the budget (power_w the budget, the factor in `throttle`)."""
    if ev is None or budget_w is None:
        return ev
    if ev["power_w"] <= budget_w:
        return dict(ev, throttle=1.0)
    k = ev["power_w"] / budget_w
    return dict(ev, time_us=ev["time_us"] * k, cycles=ev["cycles"] * k, power_w=budget_w,
                power_unthrottled_w=ev["power_w"], throttle=k)


def line_root(x0, a0, x1, a1, room, flat):
    """The largest integer x where the line through (x0, a0), (x1, a1) stays within room (flat if it never rises)."""
    slope = (a1 - a0) / (x1 - x0)
    return int(math.floor(x0 + (room - a0) / slope * (1 - 1e-12))) if slope > 0 else flat


class Search:
    def __init__(self, spec, ls, out, log):
        self.spec, self.ls, self.out, self.log = spec, ls, out, log
        self.results = {}     # point id -> merged row
        self.costs = {}       # design id -> cost
        self.gen = 0
        self.points_run = 0

    def start_design(self, c):
        con = self.spec["contenders"][c]
        d = {}
        for a in list(con["axes"]) + [con["filler"]]:
            for k in axis_keys(self.spec, a):
                d[k] = self.ls.config_value(k)
        for k, v in con.get("set", {}).items():
            d[k] = v
        return d

    def cost_of(self, designs):
        todo = [d for d in designs if point_id(d) not in self.costs]
        uniq = {point_id(d): d for d in todo}
        for d, c in zip(uniq.values(), self.ls.costs(list(uniq.values()))):
            self.costs[point_id(d)] = c
        return [self.costs[point_id(d)] for d in designs]

    def area_col(self, c):
        return c["area_mm2"] if self.spec["area_column"] == "area.total_mm2" else c["published_area_mm2"]

    def fill_area(self, task, designs, budget):
        """Each design with its filler solved to spend the area budget, or None where even the least fails.
        The area is piecewise linear in the filler (LampAttention's fp32 P.V paths start beside the 8-bit lanes
        once their P.V rate passes the 16-bit lanes', timed_lanes.h): the two end pieces' lines (probes at 1, 2
        and 2^16 - 1, 2^16) and the chord each give a candidate; the largest one whose own cost fits wins,
        which is exact for one kink either way (convex: the smaller line's root; concave: the larger)."""
        con = self.spec["contenders"][task.contender]
        fk = axis_keys(self.spec, con["filler"])[0]
        lo, hi = 1, 1 << 16
        xs = (lo, lo + 1, hi - 1, hi)
        probes = [dict(d, **{fk: x}) for d in designs for x in xs]
        cs = self.cost_of(probes)
        min_f = min(v[0] for v in axis_values(self.spec, con["filler"])) // 4
        cands = []   # per design, the candidate fillers (none where a probe failed)
        for k in range(len(designs)):
            c = cs[4 * k:4 * k + 4]
            if any("error" in x for x in c):
                cands.append([])
                continue
            a = [self.area_col(x) for x in c]
            fs = {line_root(xs[p], a[p], xs[q], a[q], budget, hi) for p, q in ((0, 3), (0, 1), (2, 3))}
            cands.append(sorted(f for f in fs if max(1, min_f) <= f <= hi))
        checks = [dict(d, **{fk: f}) for d, fs in zip(designs, cands) for f in fs]
        cc = iter(self.cost_of(checks))
        out = []
        for d, fs in zip(designs, cands):
            best = None
            for f in fs:
                x = next(cc)
                if "error" not in x and self.area_col(x) <= budget * (1 + 1e-12):
                    best = f
            out.append(dict(d, **{fk: best}) if best is not None else None)
        return out

    def variants(self, task, d, move=True):
        """The designs a move tries: area budget: the filler solved; power budget: a move with the filler
        kept or one step (1/1.25) down, the filler alone (move False) one step either way."""
        if task.budget == "area":
            return [x for x in self.fill_area(task, [d], self.budgets["area"]) if x]
        con = self.spec["contenders"][task.contender]
        fk = axis_keys(self.spec, con["filler"])[0]
        f = int(d[fk])
        return [dict(d, **{fk: max(1, int(round(f * s)))}) for s in ((1 / 1.25, 1.0) if move else (1 / 1.25, 1.25))]

    def feasible(self, task, ev):
        if ev is None:
            return False
        if task.budget == "area":
            return ev["area_mm2"] <= self.budgets["area"] * (1 + 1e-9)
        # over the power budget it runs throttled (throttle()); the area stays capped
        return ev["area_mm2"] <= self.budgets["area"] * self.spec["power_area_cap"]

    def run_generation(self, designs_by_task, label):
        """Evaluates every task's designs in one sweep; returns {task index: [(design, evaluation)]}."""
        points = {}
        for ti, (task, designs) in designs_by_task.items():
            for d in designs:
                for pt in regime_points(self.spec, task.regime, d):
                    pid = point_id(pt)
                    if pid not in self.results:
                        points[pid] = pt
        if points:
            keys = sorted({k for p in points.values() for k in p})
            # every point names every key: the base's value where a contender does not set it
            filled = [{k: p.get(k, self.ls.config_value(k)) for k in keys} for p in points.values()]
            # a point that names a key at the base's value is the same configuration as one that does not
            uniq = {}
            for orig, f in zip(points.values(), filled):
                uniq.setdefault(point_id(f), (orig, f))
            found, failed = self.ls.sweep_chunks("g%03d" % self.gen, [f for _, f in uniq.values()],
                                                 os.path.join(self.out, "sweeps", "g%03d_%s" % (self.gen, label)))
            for orig, f in zip(points.values(), filled):
                r = found.get(point_id(f))
                if r is not None:
                    self.results[point_id(orig)] = r
            self.points_run += len(uniq)
            if failed:
                self.log("study: some points of generation %d failed (listed by `lampsim sweep merge %s`); they count as "
                         "infeasible" % (self.gen, os.path.join(self.out, "sweeps")))
        self.gen += 1
        out = {}
        for ti, (task, designs) in designs_by_task.items():
            evs = []
            cs = self.cost_of(designs) if designs else []
            for d, c in zip(designs, cs):
                ev = None if "error" in c else evaluate(self.spec, task.regime, d, self.results, c)
                if task.budget == "power":   # at equal W every design runs at the budget (throttled when over it)
                    ev = throttle(ev, self.budgets["power"].get(task.regime))
                task.evaluated += 1
                evs.append((d, ev))
            out[ti] = evs
        return out

    def run(self, tasks):
        spec = self.spec
        self.budgets = {"area": None, "power": {}}
        ref = spec["reference"]
        # generation 0: the starting designs; the reference's sets the budgets
        starts = {}
        for ti, t in enumerate(tasks):
            starts[ti] = (t, [self.start_design(t.contender)])
        ref_cost = self.cost_of([self.start_design(ref)])[0]
        if "error" in ref_cost:
            raise InputError("reference %s: %s" % (ref, ref_cost["error"]))
        self.budgets["area"] = self.area_col(ref_cost)
        res = self.run_generation(starts, "start")
        for ti, t in enumerate(tasks):
            if t.contender == ref:
                ev = res[ti][0][1]
                if ev is None:
                    raise InputError("reference %s is infeasible on regime %s" % (ref, t.regime))
                self.budgets["power"][t.regime] = ev["power_w"]
        # the starting designs, repaired to the budget where they are over it
        first = {ti: (t, self.variants(t, res[ti][0][0]) + [res[ti][0][0]]) for ti, t in enumerate(tasks)}
        res = self.run_generation(first, "fill")
        for ti, t in enumerate(tasks):
            self.take(t, res[ti], None)
        # a starting tile may not fit a contender's registers (FA2's fp32 S at 32 x 4): then every tile
        retry = {}
        for ti, t in enumerate(tasks):
            if t.state is None and "tile" in spec["contenders"][t.contender]["axes"]:
                d = res[ti][-1][0]
                tiles = [dict(d, **dict(zip(axis_keys(spec, "tile"), v))) for v in axis_values(spec, "tile")]
                retry[ti] = (t, [v for x in tiles for v in self.variants(t, x)])
        if retry:
            res = self.run_generation(retry, "fill_tiles")
            for ti in retry:
                self.take(tasks[ti], res[ti], None)
        rng = random.Random(spec["search"].get("seed", 1))
        all_axes = []
        for c in spec["_contenders"]:
            for a in spec["contenders"][c]["axes"]:
                if a not in all_axes:
                    all_axes.append(a)
        for pas in range(int(spec["search"].get("passes", 1))):
            order = list(all_axes)
            rng.shuffle(order)
            self.log("study: pass %d, axis order %s" % (pas + 1, ", ".join(order)))
            for a in order:
                step = {}
                for ti, t in enumerate(tasks):
                    if a not in spec["contenders"][t.contender]["axes"] or t.state is None:
                        continue
                    keys = axis_keys(spec, a)
                    cur = tuple(t.state[k] for k in keys)
                    designs = []
                    for v in self.moves(a, cur):
                        designs += self.variants(t, dict(t.state, **dict(zip(keys, v))))
                    if t.budget == "power":   # the filler alone, too
                        designs += self.variants(t, t.state, move=False)
                    step[ti] = (t, designs)
                res = self.run_generation(step, a)
                for ti in step:
                    self.take(tasks[ti], res[ti], a)
        return self.budgets

    def moves(self, a, cur):
        """The values a step tries: every other value of an unordered axis (the tile); on a ladder, the
        neighbours of the current value (search.moves: neighbours, the default) or every other value (all)."""
        vals = axis_values(self.spec, a)
        ncur = tuple(norm(x) for x in cur)
        others = [v for v in vals if tuple(norm(x) for x in v) != ncur]
        if len(cur) > 1 or self.spec["search"].get("moves", "neighbours") == "all":
            return others
        x = float(cur[0])
        below = [v for v in others if float(v[0]) < x]
        above = [v for v in others if float(v[0]) > x]
        return ([max(below, key=lambda v: float(v[0]))] if below else []) + \
               ([min(above, key=lambda v: float(v[0]))] if above else [])

    def take(self, t, evs, axis):
        best = (t.state, t.score)
        for d, ev in evs:
            if not self.feasible(t, ev):
                continue
            if best[1] is None or ev["time_us"] < best[1]["time_us"] * (1 - 1e-9):
                best = (d, ev)
        moved = best[0] is not t.state and t.state is not None
        t.state, t.score = best
        t.history.append((self.gen, axis, moved))


class ShardPause(Exception):
    pass


# ---------------------------------------------------------------- after the search

def retime(search, tasks, label, extra_by_task):
    """Re-times each task's winner with extra key sets: {task index: [(name, {key: value})]} ->
    {task index: {name: evaluation}}."""
    step = {}
    names = {}
    for ti, sets in extra_by_task.items():
        t = tasks[ti]
        step[ti] = (t, [dict(t.state, **s) for _, s in sets])
        names[ti] = [n for n, _ in sets]
    res = search.run_generation(step, label)
    return {ti: {n: ev for n, (_, ev) in zip(names[ti], res[ti])} for ti in res}


def fixed_designs(search, spec, tasks):
    """The spec's `fixed` designs (a contender's keys with some axes set by hand), each at its best tile on
    each regime, beside the search's winner of the same contender and budget."""
    out = []
    fixed = spec.get("fixed") or []
    if not fixed:
        return out
    step, meta = {}, {}
    for fi, f in enumerate(fixed):
        if f.get("contender") not in spec["contenders"]:
            raise InputError("%s: fixed[%d].contender: unknown contender %r" % (spec["_path"], fi, f.get("contender")))
        for reg in spec["_regimes"]:
            t = Task(f["contender"], "area", reg)
            d = dict(search.start_design(f["contender"]), **f.get("set", {}))
            tiles = [dict(d, **dict(zip(axis_keys(spec, "tile"), v))) for v in axis_values(spec, "tile")]
            key = len(step)
            step[key] = (t, tiles)
            meta[key] = (fi, f, reg)
    res = search.run_generation(step, "fixed")
    by = {(t.contender, t.budget, t.regime): t for t in tasks}
    for key, evs in res.items():
        fi, f, reg = meta[key]
        ok = [(d, ev) for d, ev in evs if ev is not None]
        if not ok:
            out.append({"name": f.get("name", "fixed %d" % fi), "regime": reg, "feasible": False})
            continue
        d, ev = min(ok, key=lambda x: x[1]["time_us"])
        w = by.get((f["contender"], "area", reg))
        out.append({"name": f.get("name", "fixed %d" % fi), "contender": f["contender"], "regime": reg, "feasible": True,
                    "cycles": ev["cycles"], "time_us": ev["time_us"], "area_mm2": ev["area_mm2"],
                    "area_vs_budget": ev["area_mm2"] / search.budgets["area"], "tile": design_text(d).split(", tile ")[1],
                    "limited_by": ev["limited_by"], "bottleneck": ev["bottleneck"],
                    "expect_cycles": f.get("expect_cycles"),
                    "search_cycles": w.score["cycles"] if w and w.score else None,
                    "search_speedup": (ev["time_us"] / w.score["time_us"]) if w and w.score else None,
                    "search_design": design_text(w.state) if w and w.score else None})
    return out


def fixed_text(s):
    out = []
    for f in s.get("fixed", []):
        if not f["feasible"]:
            out.append("* %s, %s: infeasible at every tile." % (f["name"], s["regimes"][f["regime"]]["label"]))
            continue
        line = "* %s, %s: %d cycles at its best tile (%s), %.4f mm2 (%.2f%% of the budget)" % (
            f["name"], s["regimes"][f["regime"]]["label"], round(f["cycles"]), f["tile"], f["area_mm2"],
            100 * f["area_vs_budget"])
        if f.get("expect_cycles"):
            line += "; by hand %d: %+.2f%%" % (f["expect_cycles"], 100 * (f["cycles"] / f["expect_cycles"] - 1))
        if f.get("search_cycles"):
            line += "; the search's %s at equal mm2: %d cycles (%s), %.3fx the hand design's speed" % (
                f["contender"], round(f["search_cycles"]), f["search_design"], f["search_speedup"])
        out.append(line + ".")
    return "\n".join(out)


def accuracy(search, spec, tasks):
    """KL and O error of each winner's numerics: the golden engine once per (mode, tile, workload)."""
    ls = search.ls
    tile_keys = axis_keys(spec, "tile")
    pts, of_task = {}, {}
    for ti, t in enumerate(tasks):
        acc = spec["contenders"][t.contender].get("accuracy")
        if not acc or t.state is None:
            continue
        wl = spec["regimes"][t.regime]["workloads"]
        keys = []
        for w in wl:
            pt = {k: t.state[k] for k in tile_keys if k in t.state and k.startswith("algorithm.")}
            pt.update(w["set"])
            pt.update(acc)
            for k in ("algorithm.tau", "algorithm.stage1"):
                pt.setdefault(k, t.state.get(k, ls.config_value(k)))
            pt.update({"timed.enabled": False, "algorithm.compute_reference": True, "timed.timing_only": False})
            pts[point_id(pt)] = pt
            keys.append(point_id(pt))
        of_task[ti] = keys
    if not pts:
        return {}
    allk = sorted({k for p in pts.values() for k in p})
    filled = {pid: {k: p.get(k, ls.config_value(k)) for k in allk} for pid, p in pts.items()}
    found, _ = ls.sweep_chunks("accuracy", list(filled.values()), os.path.join(search.out, "sweeps", "accuracy"), "accuracy.kl_mean")
    out = {}
    for ti, keys in of_task.items():
        rows = [found.get(point_id(filled[k])) for k in keys]
        if any(r is None for r in rows):
            continue
        w = [x["weight"] for x in spec["regimes"][tasks[ti].regime]["workloads"]]
        rows_n = [float(r["accuracy.rows"]) if r.get("accuracy.rows") else 1.0 for r in rows]
        tw = sum(a * b for a, b in zip(w, rows_n))
        out[ti] = {m: sum(a * b * float(r["accuracy." + m]) for a, b, r in zip(w, rows_n, rows)) / tw
                   for m in ("kl_mean", "o_rel_fro_err")}
    return out


FF_KEY = "timed.fast_forward"
FF_LIMIT = 0.01   # the largest relative deviation from a full timing the study accepts (issue 36)


def fast_forward_check(search, spec, tasks):
    """Every winner whose points the fast-forward extrapolated (timed.fast_forward in the base: the batch's
    repetitions), re-timed in full; per such point the relative deviation of cycles and dynamic energy. The
    study fails when one exceeds FF_LIMIT (main), so no verdict stands on an extrapolation that was not checked."""
    def applied(r):
        return r is not None and str(r.get("fast_forward.applied")).lower() == "true"
    sets = {}
    for ti, t in enumerate(tasks):
        if t.state is not None and any(applied(search.results.get(point_id(pt)))
                                       for pt in regime_points(spec, t.regime, t.state)):
            sets[ti] = [("full", {FF_KEY: False})]
    rows = []
    if sets:
        retime(search, tasks, "fastforward", sets)
    for ti in sets:
        t = tasks[ti]
        for pt in regime_points(spec, t.regime, t.state):
            a = search.results.get(point_id(pt))
            b = search.results.get(point_id(dict(pt, **{FF_KEY: False})))
            if not applied(a) or b is None:
                continue
            rows.append({"contender": t.contender, "budget": t.budget, "regime": t.regime,
                         "workload": {k: v for k, v in sorted(pt.items()) if k.startswith("workload.")},
                         "k1": int(a["fast_forward.k1"]), "k2": int(a["fast_forward.k2"]),
                         "cycles": float(a["cycles"]), "cycles_full": float(b["cycles"]),
                         "energy_uj": float(a["energy.dynamic_uj"]), "energy_full_uj": float(b["energy.dynamic_uj"])})
    for r in rows:
        r["deviation"] = max(abs(r["cycles"] / r["cycles_full"] - 1), abs(r["energy_uj"] / r["energy_full_uj"] - 1))
    return {"limit": FF_LIMIT, "points": len(rows), "rows": rows,
            "max_deviation": max((r["deviation"] for r in rows), default=0.0)}


def fast_forward_text(s):
    c = s.get("fast_forward_check")
    if not c:
        return "Fast-forward: off (timed.fast_forward false in the base)."
    if not c["points"]:
        return "Fast-forward: on; no winner's point had whole repetitions to skip (every point timed in full)."
    worst = max(c["rows"], key=lambda r: r["deviation"])
    return ("Fast-forward: the winners' %d points with batch repetitions were timed on their first k, 2k and 3k "
            "entries and extrapolated once two steps of k entries cost the same cycles (timed.fast_forward), then "
            "re-timed in full: largest deviation %.3f %% of cycles or dynamic energy (%s, %s, %s), limit %g %%."
            % (c["points"], 100 * c["max_deviation"], worst["contender"], worst["budget"], worst["regime"],
               100 * c["limit"]))


def breakeven(points, base_time):
    """The HP sub-block rate where a LampAttention design's time (points: [(rate, time)]) crosses
    base_time, linear between points; ('below', r) when faster below r, 'always' / 'never' otherwise."""
    pts = sorted(points)
    if not pts:
        return None
    if all(tm < base_time for _, tm in pts):
        return {"kind": "always", "rate": pts[-1][0]}
    if all(tm >= base_time for _, tm in pts):
        return {"kind": "never", "rate": pts[0][0]}
    for (r0, t0), (r1, t1) in zip(pts, pts[1:]):
        if (t0 < base_time) != (t1 < base_time):
            x = r0 + (base_time - t0) * (r1 - r0) / (t1 - t0) if t1 != t0 else r0
            return {"kind": "below" if t0 < base_time else "above", "rate": x}
    return None


def summarise(spec, search, tasks, budgets, unk, acc, be, wall):
    base = spec["baseline"]
    by = {(t.contender, t.budget, t.regime): (ti, t) for ti, t in enumerate(tasks)}
    rows = []
    for ti, t in enumerate(tasks):
        if t.score is None:
            rows.append({"contender": t.contender, "budget": t.budget, "regime": t.regime, "feasible": False})
            continue
        bti, bt = by[(base, t.budget, t.regime)]
        rel = bt.score["time_us"] / t.score["time_us"] if bt.score else None
        lo = hi = rel
        ends = []
        for name, ev in unk.get(ti, {}).items():
            bev = unk.get(bti, {}).get(name)
            if ev is None or bev is None:
                continue
            te, tb = ev["time_us"], bev["time_us"]
            r = tb / te
            ends.append((name, r))
            lo, hi = min(lo, r), max(hi, r)
        widest = None
        if ends and rel:
            widest = max(ends, key=lambda x: abs(x[1] - rel))[0]
        design = {k: t.state[k] for k in sorted(t.state)}
        rows.append({
            "contender": t.contender, "label": spec["contenders"][t.contender]["label"], "budget": t.budget,
            "regime": t.regime, "feasible": True, "design": design, "time_us": t.score["time_us"],
            "cycles": t.score["cycles"], "area_mm2": t.score["area_mm2"], "power_w": t.score["power_w"],
            "energy_uj": t.score["energy_uj"], "limited_by": t.score["limited_by"], "bottleneck": t.score["bottleneck"],
            "hp_rate": t.score["rate"], "contexts_mean": t.score["contexts_mean"],
            "throttle": t.score.get("throttle", 1.0), "power_unthrottled_w": t.score.get("power_unthrottled_w", t.score["power_w"]),
            "relative": rel, "relative_lo": lo, "relative_hi": hi, "widest_unknown": widest,
            "kl_mean": acc.get(ti, {}).get("kl_mean"), "o_rel_fro_err": acc.get(ti, {}).get("o_rel_fro_err"),
            "breakeven": be.get(ti), "moves": sum(1 for h in t.history if h[2]), "evaluated": t.evaluated})
    return {"name": spec.get("name"), "description": spec.get("description"), "spec": os.path.relpath(spec["_path"], REPO),
            "budgets": {"area_mm2": budgets["area"], "power_w": budgets["power"], "area_column": spec["area_column"],
                        "reference": spec["reference"], "power_area_cap": spec["power_area_cap"]},
            "baseline": base, "regimes": {r: spec["regimes"][r] for r in spec["_regimes"]},
            "contenders": spec["_contenders"], "seed": spec["search"].get("seed", 1),
            "passes": spec["search"].get("passes", 1), "points_run": search.points_run, "points_resumed": search.ls.points_resumed, "generations": search.gen,
            "wall_s": round(wall, 1), "rows": rows}


# ---------------------------------------------------------------- the page

def regime_order(s):
    """The regimes in the study's order (the rows keep it; summary.json sorts its mappings' keys)."""
    out = []
    for r in s["rows"]:
        if r["regime"] not in out:
            out.append(r["regime"])
    return out


def pct(x):
    return "%.1f%%" % (100 * x)


def verdict_markdown(s):
    """The verdict table (markdown), one row per (regime, contender), a column per budget."""
    rows = [r for r in s["rows"]]
    budgets = [b for b in ("area", "power") if any(r["budget"] == b for r in rows)]
    head = "| regime | contender | " + " | ".join(
        "at equal %s: x %s (range) | design | bound by" % ("mm2" if b == "area" else "W", s["baseline"]) for b in budgets
    ) + " | KL (nats) | O error |"
    out = [head, "|" + "---|" * (4 + 3 * len(budgets))]
    by = {(r["regime"], r["contender"], r["budget"]): r for r in rows}
    for reg in regime_order(s):
        for c in s["contenders"]:
            cells = []
            first = None
            for b in budgets:
                r = by.get((reg, c, b))
                if not r or not r["feasible"]:
                    cells += ["no feasible design", "", ""]
                    continue
                first = first or r
                cells.append("**%.3f** (%.3f..%.3f)" % (r["relative"], r["relative_lo"], r["relative_hi"]))
                th = r.get("throttle", 1.0)
                cells.append(design_text(r["design"]) + (", throttled x%.3f" % th if th > 1.0 else ""))
                cells.append("%s / %s" % ("+".join(sorted(set(r["limited_by"]))), "+".join(sorted(set(r["bottleneck"])))))
            acc = first or {}
            kl = "%.2g" % abs(acc["kl_mean"]) if acc.get("kl_mean") is not None else "not modelled"   # |KL|: fp32's is -1e-8
            oe = "%.2g" % acc["o_rel_fro_err"] if acc.get("o_rel_fro_err") is not None else "-"
            label = (first or by.get((reg, c, budgets[0])) or {}).get("label", c)
            out.append("| %s | %s | %s | %s | %s |" % (s["regimes"][reg]["label"], label, " | ".join(cells), kl, oe))
    return "\n".join(out)


SHORT = {"accelerator.tensor.macs_per_cycle_16bit": "m16", "accelerator.tensor.macs_per_cycle_8bit": "m8",
         "accelerator.tensor.pv_lp_rate": "pv rate", "accelerator.lut.lanes": "lut", "accelerator.sfu.lanes": "sfu", PORT_KEY: "port",
         "accelerator.regfile.registers": "regs", "accelerator.memory.buffer_kib": "buf KiB",
         "accelerator.regfile.max_contexts": "ctx", "accelerator.memory.pipeline_stages": "stages",
         "accelerator.memory.operand_read_rows": "rows"}


def design_text(d):
    parts = ["%s %s" % (SHORT[k], fmt_value(d[k])) for k in SHORT if k in d]
    tile = "%sx%s, %sx%s" % (d.get("algorithm.b_q"), d.get("algorithm.n_q"), d.get("algorithm.b_k"), d.get("algorithm.n_k"))
    if d.get("accelerator.regfile.q_placement") == "buffer":
        tile += " Q buf"
    return ", ".join(parts) + ", tile " + tile


def breakeven_text(s):
    out = []
    for r in s["rows"]:
        b = r.get("breakeven") if r.get("feasible") else None
        if not b:
            continue
        what = {"below": "faster than %s below %s HP sub-blocks" % (s["baseline"], pct(b["rate"])),
                "above": "faster above %s" % pct(b["rate"]),
                "always": "faster at every measured rate (up to %s)" % pct(b["rate"]),
                "never": "slower at every measured rate (from %s)" % pct(b["rate"])}[b["kind"]]
        out.append("* %s, %s, at equal %s: %s." % (r["label"], s["regimes"][r["regime"]]["label"],
                                                  "mm2" if r["budget"] == "area" else "W", what))
    return "\n".join(out)


def deciding_text(s):
    """What decides each regime's verdict: the winner, its margin and limits, the unknown that moves it most."""
    out = []
    for reg in regime_order(s):
        for b in ("area", "power"):
            rs = [r for r in s["rows"] if r["regime"] == reg and r["budget"] == b and r.get("feasible")]
            if not rs:
                continue
            rs.sort(key=lambda r: -r["relative"])
            w, second = rs[0], rs[1] if len(rs) > 1 else None
            line = "* **%s, equal %s:** %s leads (%.3fx %s, %.3f..%.3f over the unknowns; bound by %s, busiest unit %s)" % (
                s["regimes"][reg]["label"], "mm2" if b == "area" else "W", w["label"], w["relative"], s["baseline"],
                w["relative_lo"], w["relative_hi"], "+".join(sorted(set(w["limited_by"]))),
                "+".join(sorted(set(w["bottleneck"]))))
            if second:
                line += ", then %s (%.3fx)" % (second["label"], second["relative"])
            if w.get("widest_unknown"):
                line += "; the unknown that moves it most: `%s`" % w["widest_unknown"]
            out.append(line + ".")
    return "\n".join(out)


def pareto_figure(s, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    regs = regime_order(s)
    # wide enough for the legend's columns whatever the regime count (one regime: two columns)
    width = max(4.2 * len(regs), 8.4)
    fig, axs = plt.subplots(1, len(regs), figsize=(width, 3.8), squeeze=False)
    markers = {"area": "o", "power": "s"}
    colours = {}
    for i, c in enumerate(s["contenders"]):
        colours[c] = "C%d" % i
    for ax, reg in zip(axs[0], regs):
        for r in s["rows"]:
            if r["regime"] != reg or not r.get("feasible"):
                continue
            kl = r.get("kl_mean")
            y = kl if kl is not None else float("nan")
            ax.errorbar([r["relative"]], [y if kl is not None else 0], xerr=[[r["relative"] - r["relative_lo"]],
                        [r["relative_hi"] - r["relative"]]], fmt=markers[r["budget"]], color=colours[r["contender"]],
                        mfc="none" if kl is None else colours[r["contender"]], capsize=3,
                        label="%s, equal %s" % (r["label"], "mm2" if r["budget"] == "area" else "W"))
        ax.set_title(s["regimes"][reg]["label"], fontsize=9)
        ax.set_xlabel("throughput relative to %s" % s["baseline"])
        ax.set_ylabel("KL mean, nats (open: not modelled)")
        ax.set_yscale("symlog", linthresh=1e-4)
        ax.grid(alpha=0.3)
    h, l = axs[0][0].get_legend_handles_labels()
    fig.legend(h, l, loc="lower center", ncol=3 if width >= 12 else 2, fontsize=7)
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def code_html(text):
    """Markdown's `code` spans as <code> (the text already escaped)."""
    parts = text.split("`")
    return "".join(("<code>%s</code>" if i % 2 else "%s") % x for i, x in enumerate(parts)) if len(parts) % 2 else text


def md_table_html(md):
    lines = [l for l in md.splitlines() if l.startswith("|")]
    out = ["<table>"]
    for i, l in enumerate(lines):
        if i == 1:
            continue
        cells = [c.strip() for c in l.strip("|").split("|")]
        tag = "th" if i == 0 else "td"
        out.append("<tr>" + "".join("<%s>%s</%s>" % (tag, html.escape(c).replace("**", ""), tag) for c in cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def method_text(s):
    b = s["budgets"]
    return (
        "Each contender's design axes (MAC lanes of each width, LampAttention's P.V rate (its fp32 P.V paths), LUT and "
        "SFU lanes, buffer port width, register file and buffer size, resident contexts, K/V pipeline stages, operand "
        "read rows, tile) are sized per regime "
        "within each budget by a seeded coordinate descent (seed %d, %d pass(es); the axis order drawn from the seed, "
        "each step moves one axis to the neighbouring values of its ladder, the tile to every tile). The contender's main MAC lanes are solved to spend the "
        "area left (equal mm2: %.4f mm2, %s of the reference %s's starting design, its buffer port included) or "
        "searched a step either way (equal W: the reference's average power, leakage included, on each regime; area at most "
        "%gx). Every candidate is charged through the timed model's cost functions (`lampsim study cost`) before it "
        "runs; every point is a `lampsim sweep run` point (%d points in %d generations). Ranges: each winner and the "
        "baseline's winner re-timed at both ends of every true unknown (latencies and energies synthesis cannot give, "
        "DRAM), one at a time, never the design axes. At equal W every design, searched or re-timed, runs at the "
        "budget: one that draws more is throttled to it (time x its power / the budget, the same energy per job "
        "duty-cycled; voltage scaling would do better), marked `throttled xK` in its design. Accuracy: the golden engine once per winner's (mode, tile, workload). %s Study wall time: %.0f s%s."
        % (s["seed"], s["passes"], b["area_mm2"], b["area_column"], b["reference"], b["power_area_cap"],
           s["points_run"], s["generations"], fast_forward_text(s), s["wall_s"],
           " (resumed: %d of the points had been run by an earlier invocation in the same directory)" % s["points_resumed"]
           if s.get("points_resumed") else ""))


def write_page(s, out):
    md = verdict_markdown(s)
    fig = os.path.join(out, "figures", "pareto.png")
    os.makedirs(os.path.dirname(fig), exist_ok=True)
    pareto_figure(s, fig)
    import base64
    with open(fig, "rb") as f:
        png = base64.b64encode(f.read()).decode()
    doc = ["<!doctype html><html><head><meta charset='utf-8'><title>%s</title>" % html.escape(s["name"] or "study"),
           "<style>body{font-family:sans-serif;max-width:1400px;margin:1em auto;font-size:13px}"
           "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top}"
           "th{background:#eee}</style></head><body>",
           "<h1>The verdict at equal silicon</h1><p>%s</p>" % html.escape(s["description"] or ""),
           "<p>Relative throughput: the contender's best design against %s's best design at the same budget and "
           "regime (higher is faster); range over the true unknowns.</p>" % html.escape(s["baseline"]),
           md_table_html(md),
           "<h2>What decides it</h2><ul>%s</ul>" % "".join("<li>%s</li>" % code_html(html.escape(l[2:]).replace("**", ""))
                                                           for l in deciding_text(s).splitlines()),
           "<h2>Break-even HP sub-block rate</h2><ul>%s</ul>" % "".join(
               "<li>%s</li>" % html.escape(l[2:]) for l in breakeven_text(s).splitlines()),
           ("<h2>Designs by hand</h2><ul>%s</ul>" % "".join("<li>%s</li>" % html.escape(l[2:]) for l in fixed_text(s).splitlines())
            if s.get("fixed") else ""),
           "<h2>Speed and accuracy</h2><img src='data:image/png;base64,%s' style='max-width:100%%'>" % png,
           "<h2>Method</h2><p>%s</p>" % code_html(html.escape(method_text(s))),
           "</body></html>"]
    write_text(os.path.join(out, "verdict.html"), "\n".join(doc))


def page_section(s):
    return "\n\n".join([
        "Study `%s` (%s): relative throughput against %s's best design at the same budget and regime, range over "
        "the true unknowns." % (s["name"], s["spec"], s["baseline"]),
        verdict_markdown(s), "What decides it:\n\n" + deciding_text(s),
        "Break-even HP sub-block rate (LampAttention winners re-timed at stage 2 alone, falling tau):\n\n" +
        (breakeven_text(s) or "(none measured)")] + (["Designs by hand:\n\n" + fixed_text(s)] if s.get("fixed") else [])
        + [method_text(s)])


def wall_text(s):
    """A study's wall time, saying when the invocation resumed points of an earlier one (then not the study's)."""
    r = s.get("points_resumed") or 0
    return "%.0f s" % s["wall_s"] + (", %d of them resumed from an earlier invocation" % r if r else "")


def glance_markdown(summaries, names):
    """One table per budget across several studies: a row per contender, a column per (study, regime), each cell
    the contender's best design against the baseline's at that budget, with its range; then the KL per
    column. names: a short label per study (its column headers' suffix)."""
    cols = [(s, n, reg) for s, n in zip(summaries, names) for reg in regime_order(s)]
    contenders = []
    for s in summaries:
        contenders += [c for c in s["contenders"] if c not in contenders]
    label = {r["contender"]: r["label"] for s in summaries for r in s["rows"]}
    # a column: the regime's key, and the study's name where the key does not already say it (as a whole word
    # of the key: a name "r" is not said by "prefill_1k")
    head = "| contender | " + " | ".join(reg.replace("_", " ") + ("" if n in reg.split("_") else " (%s)" % n)
                                         for s, n, reg in cols) + " |"
    rule = "|---|" + "---|" * len(cols)
    out = []
    for b, title in (("area", "At equal mm2"), ("power", "At equal W")):
        out += ["**%s** (x %s's best design at the same budget; range over the true unknowns; bold: the column's "
                "fastest):" % (title, summaries[0]["baseline"]),
                "", head, rule]
        best = [max((x["relative"] for x in s["rows"] if x["regime"] == reg and x["budget"] == b and x.get("feasible")),
                    default=None) for s, n, reg in cols]
        for c in contenders:
            cells = []
            for (s, n, reg), top in zip(cols, best):
                r = next((r for r in s["rows"] if r["contender"] == c and r["regime"] == reg and r["budget"] == b), None)
                cells.append("-" if r is None or not r.get("feasible") else
                             (("**%.2f**" if r["relative"] == top else "%.2f") % r["relative"]
                              + " (%.2f..%.2f)" % (r["relative_lo"], r["relative_hi"])))
            out.append("| %s | %s |" % (label.get(c, c), " | ".join(cells)))
        out.append("")
    out += ["**Accuracy** (KL, nats, mean over rows; the winner at equal mm2):", "", head, rule]
    for c in contenders:
        cells = []
        for s, n, reg in cols:
            r = next((r for r in s["rows"] if r["contender"] == c and r["regime"] == reg and r["budget"] == "area"), None)
            cells.append("-" if r is None or r.get("kl_mean") is None else "%.2g" % abs(r["kl_mean"]))
        out.append("| %s | %s |" % (label.get(c, c), " | ".join(cells)))
    out += ["", "Studies: " + "; ".join("%s = `%s` (%s, %d points, %s)" % (n, s["spec"], s["description"], s["points_run"],
                                                                         wall_text(s)) for s, n in zip(summaries, names))
            + "."]
    return "\n".join(out)


def rewrite_block(path, begin, end, body):
    """Replaces what stands between the marker lines begin and the next end in the page at path with body."""
    with open(path) as f:
        text = f.read()
    if begin not in text or end not in text.split(begin, 1)[1]:
        raise InputError("%s: no '%s' ... '%s' block to rewrite" % (path, begin, end))
    a, rest = text.split(begin, 1)
    _, b = rest.split(end, 1)
    write_text(path, a + begin + "\n" + body + "\n" + end + b)


def write_glance(summaries, names, path):
    """Rewrites PATH's '<!-- study-glance -->' ... '<!-- /study-glance -->' block from the studies' summaries."""
    rewrite_block(path, "<!-- study-glance -->", "<!-- /study-glance -->", glance_markdown(summaries, names))


def write_docs(s, path):
    """Rewrites the block of PATH between '<!-- study: NAME -->' (NAME the study's name) and the next
    '<!-- /study -->', so one page can hold several studies' generated sections."""
    rewrite_block(path, "<!-- study: %s -->" % (s["name"] or "study"), "<!-- /study -->", page_section(s))


# ---------------------------------------------------------------- main

def main(argv):
    ap = argparse.ArgumentParser(prog="lampsim study", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("spec", nargs="?", default=DEFAULT_SPEC)
    r.add_argument("--lampsim", required=True)
    r.add_argument("-o", dest="out")
    r.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1)
    r.add_argument("--shard")
    r.add_argument("--quick", action="store_true")
    r.add_argument("--page")
    pg = sub.add_parser("page")   # the page and the docs section again from a finished study's summary.json
    pg.add_argument("summary")
    pg.add_argument("--write")
    pg.add_argument("--lampsim")   # given by `lampsim study page` (unused)
    gl = sub.add_parser("glance")   # one table across finished studies: NAME=DIR/summary.json ...
    gl.add_argument("studies", nargs="+", metavar="NAME=SUMMARY")
    gl.add_argument("--write")
    gl.add_argument("--lampsim")   # given by `lampsim study glance` (unused)
    a = ap.parse_args(argv)
    if a.cmd == "glance":
        try:
            pairs = [x.split("=", 1) for x in a.studies]
            if any(len(p) != 2 or not p[0] for p in pairs):
                raise InputError("glance: expected NAME=SUMMARY.json arguments, got %s" % " ".join(a.studies))
            summaries = []
            for _, path in pairs:
                with open(path) as f:
                    summaries.append(json.load(f))
            names = [p[0] for p in pairs]
            if a.write:
                write_glance(summaries, names, a.write)
            else:
                print(glance_markdown(summaries, names))
            return 0
        except (OSError, ValueError, KeyError, InputError) as e:
            print("lampsim study: %s" % e, file=sys.stderr)
            return 2
    if a.cmd == "page":
        try:
            with open(a.summary) as f:
                s = json.load(f)
            write_page(s, os.path.dirname(os.path.abspath(a.summary)))
            if a.write:
                write_docs(s, a.write)
            return 0
        except (OSError, ValueError, InputError) as e:
            print("lampsim study: %s" % e, file=sys.stderr)
            return 2
    t0 = time.time()
    log = lambda m: print(m, file=sys.stderr, flush=True)
    try:
        spec = load_spec(a.spec, a.quick)
        if a.jobs < 1:
            raise InputError("-j: expected a positive number of workers, got %d" % a.jobs)
        out = os.path.abspath(a.out or os.path.join("out", (spec.get("name") or "study") + ("_quick" if a.quick else "")))
        os.makedirs(out, exist_ok=True)
        base = write_base(spec, out)
        ls = Lampsim(a.lampsim, base, a.jobs, a.shard)
        search = Search(spec, ls, out, log)
        tasks = [Task(c, b, r) for r in spec["_regimes"] for c in spec["_contenders"] for b in spec["budgets"]]
        budgets = search.run(tasks)
        # ranges over the true unknowns
        extra = {}
        for ti, t in enumerate(tasks):
            if t.state is None:
                continue
            extra[ti] = [("%s=%s" % (k, fmt_value(v)), {k: v}) for k, ends in spec["unknowns"].items() for v in ends]
        unk = retime(search, tasks, "unknowns", extra) if extra else {}
        # the break-even HP rate: LampAttention winners at stage 2 alone over tau
        be_sets = {ti: [("tau%g" % tau, {"algorithm.stage1": False, "algorithm.tau": tau}) for tau in spec["breakeven_taus"]]
                   for ti, t in enumerate(tasks) if t.state is not None and t.state.get("algorithm.mode") == "lamp"
                   and spec["breakeven_taus"]}
        be_ev = retime(search, tasks, "breakeven", be_sets) if be_sets else {}
        by = {(t.contender, t.budget, t.regime): t for t in tasks}
        be = {}
        for ti, evs in be_ev.items():
            t = tasks[ti]
            bt = by[(spec["baseline"], t.budget, t.regime)]
            if bt.score is None:
                continue
            pts = []
            for ev in evs.values():
                if ev is not None:
                    w = [x["weight"] for x in spec["regimes"][t.regime]["workloads"]]
                    pts.append((sum(a_ * b_ for a_, b_ in zip(w, ev["rate"])) / sum(w), ev["time_us"]))
            be[ti] = breakeven(pts, bt.score["time_us"])
        fixed = fixed_designs(search, spec, tasks)
        acc = accuracy(search, spec, tasks)
        ffc = fast_forward_check(search, spec, tasks) if search.ls.config_value(FF_KEY) is True else None
        s = summarise(spec, search, tasks, budgets, unk, acc, be, time.time() - t0)
        s["fixed"] = fixed
        s["fast_forward_check"] = ffc
        write_text(os.path.join(out, "summary.json"), json.dumps(s, indent=1, sort_keys=True) + "\n")
        write_page(s, out)
        if a.page:
            write_docs(s, a.page)
        print(verdict_markdown(s))
        if fixed:
            print("\n" + fixed_text(s))
        print("\n%s\n%s/verdict.html (%.0f s, %d points)" % (deciding_text(s), out, time.time() - t0, search.points_run))
        if ffc and ffc["max_deviation"] > ffc["limit"]:
            print("lampsim study: %s Above the limit: rerun with timed.fast_forward: false in the spec's base" %
                  fast_forward_text(s), file=sys.stderr)
            return 1
        return 0
    except InputError as e:
        print("lampsim study: %s" % e, file=sys.stderr)
        return 2
    except ShardPause as e:
        print("study: shard %s ran its points of the current generation; others are missing (%s): rerun (with or "
              "without --shard) when the other runners finish" % (a.shard, e), file=sys.stderr)
        return 3
    except RuntimeError as e:
        print("lampsim study: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
