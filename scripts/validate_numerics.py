#!/usr/bin/python3
"""Numerics validation: the LampAttention paper's trends on QK-norm synthetic workloads.

Runs `lampsim run --golden` (numerics only) over the paper's knobs and checks the trends of
numerics.md D.4 (docs/validation.md):

  T1  the disruptive-tile rate rises monotonically as tau = 2^-t decreases, t = 0..5;
  T2  accuracy moves from the pure 8-bit baseline toward the 16-bit baseline as tau decreases,
      tau = 1 and tau = 0.5 close to each other;
  T3  stage 1 alone (stage2 off) delivers most of what LAMP at tau = 0.5 recovers; stage 2 adds
      a correction at extra recompute;
  T4  delta = 2^-4 triggers more stage-1 recomputes than 2^-8;
  T5  LAMP selection beats random recompute at the same sub-block rate;
  T7  at tau = 0 LAMP equals the 16-bit machine only with above_one = raise (G-15);
  T6  `paper` and `hardware` arithmetic differ where numerics.md G-2 says: 448 saturation (only
      hardware saturates, and only above the D.5 bound), LUT underflow (hardware only); the
      truncated running max (G-8) is a separate knob, identical in both modes.

    scripts/validate_numerics.py                  # all workloads, CSV + figures in docs/figures
    scripts/validate_numerics.py --workload default --check   # the assertions (tests/validation)
    scripts/validate_numerics.py --trace my_layer.yaml        # any workload file (e.g. a trace)

Each assertion prints the measured numbers and the margin; --check exits 1 if any fails.
Needs /usr/bin/python3 with numpy and matplotlib, and a built lampsim (--lampsim, $LAMPSIM,
else build/lampsim). Runs are kept in --work and reused.
"""
import argparse
import concurrent.futures as cf
import csv
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAUS = [2.0 ** -t for t in range(6)]

# Small QK-norm workloads (synthetic; workloads/*.yaml shapes cut down to run in seconds).
WORKLOADS = {
    # the embedded default: 2 query heads / 1 KV head, 512 x 512 causal, d 128, gain 2.5
    "default": [],
    # Qwen3-8B-shaped (d 128, gain 2.5, RoPE 1e6, sink), 4 query heads / 1 KV head, 1024 causal
    "qwen3": ["workload.file=workloads/qwen3_8b_like.yaml", "workload.heads_q=4", "workload.heads_kv=1",
              "workload.seq_q=1024", "workload.seq_k=1024"],
    # Gemma-3-12B-global-shaped (d 256, gain 1.5), 2 query heads / 1 KV head, 1024 causal
    "gemma3": ["workload.file=workloads/gemma3_like.yaml", "workload.heads_q=2", "workload.heads_kv=1",
               "workload.seq_q=1024", "workload.seq_k=1024"],
}
# Above the D.5 bound (gain 12 > 6.29, sharper queries, strong locality, no sink): logits reach
# beyond 448, so the hardware e4m3 accumulator saturates.
SATURATING = ["workload.qknorm.gain=12", "workload.sharpness=1.5", "workload.locality=1", "workload.sinks.count=0"]
RANDOM_SEEDS = [11, 12, 13]


def lampsim_path(arg):
    for p in (arg, os.environ.get("LAMPSIM"), os.path.join(ROOT, "build", "lampsim"), shutil.which("lampsim")):
        if p and os.path.exists(p):
            return p
    sys.exit("lampsim not found: build it (make), install it (make install) or pass --lampsim")


class Runner:
    def __init__(self, lampsim, work, base, jobs):
        self.lampsim, self.work, self.base, self.jobs = lampsim, work, base, jobs

    def _one(self, name, sets):
        out = os.path.join(self.work, name)
        rep = os.path.join(out, "report.json")
        if not os.path.exists(rep):
            # workload.seed pinned so that the top-level seed only drives the random policy
            # (after workload.file, which resets the workload section)
            cmd = [self.lampsim, "run", "--golden", "--quiet", "-o", out, "--force"]
            for s in self.base + sets + ["workload.seed=1"]:
                if s.startswith("workload.file=") and not os.path.isabs(s.split("=", 1)[1]):
                    s = "workload.file=" + os.path.join(ROOT, s.split("=", 1)[1])
                cmd += ["--set", s]
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            if r.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)}\n{r.stderr}")
        return json.load(open(rep))

    def many(self, runs):
        """runs: {name: [sets]} -> {name: report}"""
        with cf.ThreadPoolExecutor(max_workers=self.jobs) as ex:
            futs = {n: ex.submit(self._one, n, s) for n, s in runs.items()}
            return {n: f.result() for n, f in futs.items()}


def row(name, r):
    a, t, rc, e = r["accuracy"], r["tiles"], r["recompute"], r["events"]
    c = r["config"]["algorithm"]
    return {"run": name, "mode": c["mode"], "arithmetic": c["arithmetic"], "tau": c["tau"], "delta": c["delta"],
            "stage1": c["stage1"], "stage2": c["stage2"], "random_rate": c["random_rate"] if c["mode"] == "random" else "",
            "mu_lp_shift": c["mu_lp_shift"], "seed": r["seed"],
            "disruptive_rate": t["disruptive_rate"], "hist": ";".join(map(str, t["hp_subblocks_hist"])),
            "subblock_rate": rc["subblock_rate"], "logit_rate": rc["logit_rate"],
            "stage1_subblocks": rc["stage1_subblocks"], "stage2_subblocks": rc["stage2_subblocks"],
            "kl_mean": a["kl_mean"], "l1_mean": a["l1_mean"], "o_rel_fro_err": a["o_rel_fro_err"],
            "argmax_flip_rate": a["argmax_flip_rate"], "e4m3_saturations": e["e4m3_saturations"],
            "hp_saturations": e["hp_saturations"], "exp_underflows": e["exp_underflows"],
            "exp_above_one": e["exp_above_one"]}


def study(runner, modes_runner):
    runs = {"pure_8bit": ["algorithm.mode=pure_8bit"], "fa2_16bit": ["algorithm.mode=fa2_16bit"]}
    for t, tau in enumerate(TAUS):
        runs[f"lamp_t{t}"] = [f"algorithm.tau={tau!r}"]
    runs["stage1_only"] = ["algorithm.stage2=false"]
    runs["stage2_only"] = ["algorithm.stage1=false"]
    runs["delta_2m4"] = ["algorithm.delta=0.0625"]
    runs["delta_2m4_stage1_only"] = ["algorithm.delta=0.0625", "algorithm.stage2=false"]
    runs["tau0_keep"] = ["algorithm.tau=0"]
    runs["tau0_raise"] = ["algorithm.tau=0", "algorithm.above_one=raise"]
    runs["paper_lamp"] = ["algorithm.arithmetic=paper"]
    runs["paper_pure_8bit"] = ["algorithm.arithmetic=paper", "algorithm.mode=pure_8bit"]
    runs["mu_exact"] = ["algorithm.mu_lp_shift=exact"]
    runs["paper_mu_exact"] = ["algorithm.arithmetic=paper", "algorithm.mu_lp_shift=exact"]
    res = runner.many(runs)
    # arithmetic-mode cases on the default shape (d 128), whatever the workload studied: within
    # the D.5 bound (LUT underflow) and above it (448 saturation)
    mruns = {"mode_pure_8bit_hardware": ["algorithm.mode=pure_8bit"],
             "mode_pure_8bit_paper": ["algorithm.mode=pure_8bit", "algorithm.arithmetic=paper"]}
    for mode in ("lamp", "pure_8bit", "fa2_16bit"):
        for ar in ("hardware", "paper"):
            mruns[f"sat_{mode}_{ar}"] = SATURATING + [f"algorithm.mode={mode}", f"algorithm.arithmetic={ar}"]
    res.update(modes_runner.many(mruns))
    # random recompute at the sub-block rate LAMP reached at each tau, several seeds
    rnd = {}
    for t in range(len(TAUS)):
        rate = res[f"lamp_t{t}"]["recompute"]["subblock_rate"]
        for s in RANDOM_SEEDS:
            rnd[f"random_t{t}_s{s}"] = ["algorithm.mode=random", f"algorithm.random_rate={rate!r}", f"seed={s}"]
    res.update(runner.many(rnd))
    return res


class Checks:
    def __init__(self, wl):
        self.wl, self.results = wl, []

    def check(self, tag, ok, text):
        self.results.append((tag, bool(ok), text))
        print(f"  [{'PASS' if ok else 'FAIL'}] {tag}: {text}")


def analyse(wl, res, strict):
    c = Checks(wl)
    kl = lambda n: res[n]["accuracy"]["kl_mean"]
    fro = lambda n: res[n]["accuracy"]["o_rel_fro_err"] if res[n]["accuracy"]["o_rel_fro_err"] is not None else float("inf")
    disr = [res[f"lamp_t{t}"]["tiles"]["disruptive_rate"] for t in range(6)]
    sbr = lambda n: res[n]["recompute"]["subblock_rate"]
    k8, k16 = kl("pure_8bit"), kl("fa2_16bit")
    gap = lambda n: (kl(n) - k16) / (k8 - k16)          # 1 = as bad as 8-bit, 0 = 16-bit
    fgap = lambda n: (fro(n) - fro("fa2_16bit")) / (fro("pure_8bit") - fro("fa2_16bit"))
    print(f"workload {wl}: KL 8-bit {k8:.4g}, 16-bit {k16:.4g}; O rel. err 8-bit {fro('pure_8bit'):.4g}, "
          f"16-bit {fro('fa2_16bit'):.4g}")
    print("  tau      disruptive  sub-block rate  KL mean     gap(KL)  gap(O)")
    for t in range(6):
        n = f"lamp_t{t}"
        print(f"  2^-{t}     {disr[t]:.4f}      {sbr(n):.4f}          {kl(n):.4e}  {gap(n):.3f}    {fgap(n):.3f}")
    # T1: monotone rise of the disruptive rate (>=), and a real rise overall
    steps = [disr[t + 1] - disr[t] for t in range(5)]
    c.check("T1 disruptive rate rises as tau falls", min(steps) >= 0 and disr[5] - disr[0] >= 0.1,
            f"rates {', '.join(f'{x:.4f}' for x in disr)}; smallest step {min(steps):+.4f} (must be >= 0), "
            f"total rise {disr[5] - disr[0]:+.4f} (must be >= 0.10)")
    # T2: between the baselines, toward 16-bit, tau 1 and 0.5 close
    gaps = [gap(f"lamp_t{t}") for t in range(6)]
    inside = all(k16 <= kl(f"lamp_t{t}") <= k8 for t in range(6))
    c.check("T2a every tau lies between the 8-bit and 16-bit baselines (KL)", inside,
            f"KL gap fractions {', '.join(f'{g:.3f}' for g in gaps)} (each must be in [0, 1])")
    c.check("T2b accuracy approaches 16-bit as tau falls", gaps[5] < 0.5 * gaps[0] and gaps[5] < 0.15,
            f"gap(2^-5) = {gaps[5]:.3f} vs gap(1) = {gaps[0]:.3f} (must be < half of it and < 0.15)")
    c.check("T2c tau = 1 and tau = 0.5 close", abs(gaps[0] - gaps[1]) <= 0.05,
            f"|gap(1) - gap(0.5)| = {abs(gaps[0] - gaps[1]):.4f} (must be <= 0.05); "
            f"disruptive {disr[0]:.4f} vs {disr[1]:.4f}")
    # T3: stage 1 alone
    rec_s1 = 1 - gap("stage1_only")
    rec_lamp = 1 - gap("lamp_t1")
    share = rec_s1 / rec_lamp if rec_lamp > 0 else float("nan")
    c.check("T3a stage 1 alone delivers most of LAMP's recovery at tau = 0.5", share >= 0.8,
            f"stage 1 alone recovers {100 * rec_s1:.1f}% of the 8-to-16-bit KL gap, LAMP at tau 0.5 "
            f"{100 * rec_lamp:.1f}%: share {100 * share:.1f}% (must be >= 80%)")
    c.check("T3b stage 1 alone recovers a large part of the 8-to-16-bit gap", rec_s1 >= (0.2 if not strict else 0.5),
            f"recovered {100 * rec_s1:.1f}% of the KL gap, {100 * (1 - fgap('stage1_only')):.1f}% of the O-error gap "
            f"(must be >= {50 if strict else 20}%)")
    c.check("T3c stage 2 adds a correction at extra recompute",
            kl("lamp_t1") <= kl("stage1_only") and kl("lamp_t5") < kl("stage1_only")
            and sbr("lamp_t1") >= sbr("stage1_only") and sbr("lamp_t5") > sbr("stage1_only"),
            f"KL stage1-only {kl('stage1_only'):.4e} -> tau 0.5 {kl('lamp_t1'):.4e} -> tau 2^-5 {kl('lamp_t5'):.4e}; "
            f"sub-block rate {sbr('stage1_only'):.4f} -> {sbr('lamp_t1'):.4f} -> {sbr('lamp_t5'):.4f}")
    s2o = res["stage2_only"]
    c.check("T3d without stage 1 (stage 2 alone) LAMP is worse than with it", kl("stage2_only") > kl("lamp_t1"),
            f"KL stage 2 alone {kl('stage2_only'):.4e} vs both stages {kl('lamp_t1'):.4e} "
            f"(sub-block rate {s2o['recompute']['subblock_rate']:.4f} vs {sbr('lamp_t1'):.4f})")
    # T4: delta
    s1a = res["delta_2m4"]["recompute"]["stage1_subblocks"]
    s1b = res["lamp_t1"]["recompute"]["stage1_subblocks"]
    c.check("T4 delta 2^-4 triggers more stage-1 recomputes than 2^-8", s1a > s1b,
            f"stage-1 sub-blocks {s1a} (2^-4) vs {s1b} (2^-8): {100 * (s1a / s1b - 1):+.1f}%; "
            f"KL {kl('delta_2m4'):.4e} vs {kl('lamp_t1'):.4e}")
    # T5: LAMP vs random at equal rate (mean over seeds), tau = 0.5 and over the sweep
    ratios = []
    print("  tau      rate     KL LAMP     KL random (mean of seeds)  ratio")
    for t in range(6):
        rk = [kl(f"random_t{t}_s{s}") for s in RANDOM_SEEDS]
        mk = sum(rk) / len(rk)
        ratios.append(mk / max(kl(f"lamp_t{t}"), 1e-300))
        print(f"  2^-{t}     {sbr(f'lamp_t{t}'):.4f}   {kl(f'lamp_t{t}'):.4e}  {mk:.4e} "
              f"(min {min(rk):.3e})     {ratios[-1]:.2f}x")
    rk1 = [kl(f"random_t1_s{s}") for s in RANDOM_SEEDS]
    rec_rand = 1 - (sum(rk1) / len(rk1) - k16) / (k8 - k16)
    # below ~97 % HP sub-blocks; at the all-HP limit both are the 16-bit machine but for a handful
    # of sub-blocks and the comparison measures those few (reported, not asserted)
    part = [t for t in range(6) if sbr(f"lamp_t{t}") <= 0.97]
    c.check("T5a LAMP beats random at the same rate (rates <= 0.97)", all(ratios[t] >= 1.2 for t in part),
            f"KL(random) / KL(LAMP) = {', '.join(f'{r:.2f}' for r in ratios)} at tau 2^-0..2^-5; "
            f"each with rate <= 0.97 (t = {', '.join(map(str, part))}) must be >= 1.2")
    c.check("T5b recovered gap at tau = 0.5: LAMP above random", rec_lamp > 0 and rec_lamp >= 1.2 * rec_rand,
            f"LAMP recovers {100 * rec_lamp:.1f}% of the KL gap, random {100 * rec_rand:.1f}% at rate "
            f"{sbr('lamp_t1'):.4f}: " + (f"{rec_lamp / rec_rand:.2f}x" if rec_rand > 0 else "random recovers nothing")
            + " (LAMP's must be > 0 and >= 1.2x random's)")
    wide = [ratios[t] for t in (2, 3, 4) if t in part]
    c.check("T5c wide margin where stage 2 selects (tau 2^-2..2^-4)", bool(wide) and min(wide) >= 1.5,
            f"KL(random) / KL(LAMP) = {', '.join(f'{r:.2f}' for r in wide)} (must be >= 1.5)")
    # T7: the limit tau -> 0 (every sub-block HP) and G-15
    ev0 = res["tau0_keep"]["events"]["exp_above_one"]
    c.check("T7 at tau = 0 LAMP reaches the 16-bit baseline only with above_one = raise (G-15)",
            abs(kl("tau0_raise") / k16 - 1) <= 0.01 and kl("tau0_keep") >= kl("tau0_raise"),
            f"KL tau 0: raise {kl('tau0_raise'):.4e}, keep (default) {kl('tau0_keep'):.4e} with {ev0} exponentials "
            f"above one, 16-bit {k16:.4e} (raise must be within 1% of 16-bit); O rel. err keep "
            f"{fro('tau0_keep'):.4f} vs raise {fro('tau0_raise'):.4f}")
    # T6: arithmetic modes
    if "paper_lamp" in res:
        ev = lambda n, k: res[n]["events"][k]
        c.check("T6a within the D.5 bound nothing saturates in either mode (this workload)",
                ev("lamp_t1", "e4m3_saturations") == 0 and ev("paper_lamp", "e4m3_saturations") == 0,
                f"saturations hardware {ev('lamp_t1', 'e4m3_saturations')}, paper {ev('paper_lamp', 'e4m3_saturations')}")
        sh, sp = ev("sat_lamp_hardware", "e4m3_saturations"), ev("sat_lamp_paper", "e4m3_saturations")
        c.check("T6b above the bound (default shape, gain 12) only hardware saturates at 448, and it costs accuracy",
                sh > 0 and sp == 0 and fro("sat_lamp_hardware") > fro("sat_lamp_paper"),
                f"saturations hardware {sh} / paper {sp}; O rel. err LAMP hardware {fro('sat_lamp_hardware'):.4f} vs paper "
                f"{fro('sat_lamp_paper'):.4f}, pure 8-bit {fro('sat_pure_8bit_hardware'):.4f} vs "
                f"{fro('sat_pure_8bit_paper'):.4f}, 16-bit {fro('sat_fa2_16bit_hardware'):.4f} vs {fro('sat_fa2_16bit_paper'):.4f}")
        uh, up = ev("mode_pure_8bit_hardware", "exp_underflows"), ev("mode_pure_8bit_paper", "exp_underflows")
        c.check("T6c LUT underflow: hardware flushes exponentials to zero that paper keeps",
                uh > up and ev("pure_8bit", "exp_underflows") >= ev("paper_pure_8bit", "exp_underflows"),
                f"exp underflows, pure 8-bit on the default workload: hardware {uh} vs paper {up}; on this workload: "
                f"pure 8-bit {ev('pure_8bit', 'exp_underflows')} vs {ev('paper_pure_8bit', 'exp_underflows')}, LAMP "
                f"{ev('lamp_t1', 'exp_underflows')} vs {ev('paper_lamp', 'exp_underflows')}; KL LAMP hardware "
                f"{kl('lamp_t1'):.4e} vs paper {kl('paper_lamp'):.4e}")
        dm_h = kl("lamp_t1") / kl("mu_exact") - 1
        dm_p = kl("paper_lamp") / kl("paper_mu_exact") - 1
        c.check("T6d truncated running max (G-8): same effect in both modes",
                abs(dm_h - dm_p) < 0.02,
                f"KL with trunc_e4m3 vs exact mu_hat for the LP shifts: {100 * dm_h:+.2f}% (hardware), "
                f"{100 * dm_p:+.2f}% (paper), must agree within 2 points; O rel. err {fro('lamp_t1'):.4f} (trunc) vs "
                f"{fro('mu_exact'):.4f} (exact)")
    return c


def write_csv(path, res):
    rows = [row(n, r) for n, r in sorted(res.items())]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.8g}" if isinstance(v, float) else v) for k, v in r.items()})


def plot(allres, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(allres)
    fig, axes = plt.subplots(n, 3, figsize=(14, 3.6 * n), squeeze=False)
    ts = list(range(6))
    for i, (wl, res) in enumerate(allres.items()):
        kl = lambda k: res[k]["accuracy"]["kl_mean"]
        ax = axes[i][0]
        hist = [res[f"lamp_t{t}"]["tiles"]["hp_subblocks_hist"] for t in ts]
        tot = [sum(h) for h in hist]
        ax.plot(ts, [res[f"lamp_t{t}"]["tiles"]["disruptive_rate"] for t in ts], "o-", label="disruptive (>= 2 HP)")
        ax.plot(ts, [h[0] / s for h, s in zip(hist, tot)], "s--", label="0 HP sub-blocks")
        ax.plot(ts, [h[1] / s for h, s in zip(hist, tot)], "^--", label="1 HP sub-block")
        ax.plot(ts, [res[f"lamp_t{t}"]["recompute"]["subblock_rate"] for t in ts], "d:", label="HP sub-block rate")
        ax.set_xlabel("t (tau = 2^-t)")
        ax.set_ylabel("share of tiles")
        ax.set_title(f"{wl}: tiles by HP sub-blocks")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        ax = axes[i][1]
        ax.semilogy(ts, [kl(f"lamp_t{t}") for t in ts], "o-", label="LAMP")
        ax.axhline(kl("pure_8bit"), color="tab:red", ls="--", label="pure 8-bit")
        ax.axhline(kl("fa2_16bit"), color="tab:green", ls="--", label="16-bit")
        ax.axhline(kl("stage1_only"), color="tab:purple", ls=":", label="stage 1 only")
        ax.semilogy(ts, [sum(kl(f"random_t{t}_s{s}") for s in RANDOM_SEEDS) / len(RANDOM_SEEDS) for t in ts],
                    "x-", color="gray", label="random, same rate")
        ax.set_xlabel("t (tau = 2^-t)")
        ax.set_ylabel("mean KL(p_ref || p) per row")
        ax.set_title(f"{wl}: accuracy vs tau")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        ax = axes[i][2]
        xs = [res[f"lamp_t{t}"]["recompute"]["subblock_rate"] for t in ts]
        ax.semilogy(xs, [kl(f"lamp_t{t}") for t in ts], "o-", label="LAMP (tau sweep)")
        for s in RANDOM_SEEDS:
            ax.semilogy(xs, [kl(f"random_t{t}_s{s}") for t in ts], "x", color="gray",
                        label="random (3 seeds)" if s == RANDOM_SEEDS[0] else None)
        ax.set_xlabel("HP sub-block rate")
        ax.set_ylabel("mean KL per row")
        ax.set_title(f"{wl}: LAMP vs random at equal rate")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    fig.savefig(path[:-4] + ".svg")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lampsim")
    ap.add_argument("--workload", default="default,qwen3,gemma3",
                    help="comma list of " + ", ".join(WORKLOADS))
    ap.add_argument("--trace", help="a workload YAML (e.g. a captured trace, docs/workloads.md) studied as 'trace'")
    ap.add_argument("--set", action="append", default=[], help="extra key=value for every run")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "validation_numerics"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "figures"))
    ap.add_argument("--check", action="store_true", help="exit 1 if an assertion fails; no figures")
    ap.add_argument("--fresh", action="store_true", help="delete --work first (no reuse of earlier runs)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args()
    lampsim = lampsim_path(a.lampsim)
    if a.fresh:
        shutil.rmtree(a.work, ignore_errors=True)
    wls = {}
    for w in a.workload.split(","):
        if w:
            wls[w] = WORKLOADS[w]
    if a.trace and not os.path.isfile(a.trace):
        sys.exit(f"--trace {a.trace}: no such workload file (capture one with scripts/dump_qkv.py, docs/workloads.md)")
    if a.trace:
        wls = {"trace": ["workload.file=" + os.path.abspath(a.trace)]}
    allres, failed = {}, []
    for wl, sets in wls.items():
        runner = Runner(lampsim, os.path.join(a.work, wl), sets + a.set, a.jobs)
        modes_runner = Runner(lampsim, os.path.join(a.work, "arithmetic_modes"), a.set, a.jobs)
        res = study(runner, modes_runner)
        allres[wl] = res
        c = analyse(wl, res, strict=(wl == "default"))
        failed += [f"{wl}: {t}" for t, ok, _ in c.results if not ok]
        if not a.check:
            os.makedirs(a.out, exist_ok=True)
            write_csv(os.path.join(a.out, f"numerics_{wl}.csv"), res)
            with open(os.path.join(a.out, f"numerics_{wl}_checks.txt"), "w") as f:
                for t, ok, text in c.results:
                    f.write(f"[{'PASS' if ok else 'FAIL'}] {t}: {text}\n")
    if not a.check:
        try:
            plot(allres, os.path.join(a.out, "numerics_trends.png"))
        except ImportError:
            print("matplotlib missing: no figure", file=sys.stderr)
    if failed:
        print("FAILED:\n  " + "\n  ".join(failed))
        sys.exit(1 if a.check else 0)


if __name__ == "__main__":
    main()
