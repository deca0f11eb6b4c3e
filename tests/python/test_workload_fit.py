#!/usr/bin/env python3
"""`lampsim workload stats` / `fit` against real and random attention: the Python statistics on
constructed inputs (uniform -> entropy 1, one-hot sink -> sink mass 1); the tiny model's traces
(scripts/eval_ppl.py --dump-traces) fitted again give the shipped preset workloads/tiny_kjv_fitted.yaml, and the
fit check's per-layer table agrees with the statistics layer by layer;
the fitted workloads of the tiny model and of random layers with sinks and with local heads (also at d 16, 512
tokens, where the layout is searched) give the traces' LAMP rates within 0.05 at tau 0.25 / 0.5 / 1, averaged over
5 seeds (docs/workloads.md, "Fitting"); d 2, 4, 8 accepted.
--long: the same at 512 tokens, and the BOS model.
usage: test_workload_fit.py LAMPSIM TMPDIR [--long]"""
import csv
import os
import re
import shutil
import subprocess
import sys

try:
    import torch
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)
import numpy as np

from checks import ROOT, check, done  # noqa: E402
import lampsim  # noqa: E402
from lampsim.model import load_pretrained  # noqa: E402
from eval_ppl import dump_traces, heldout_ids  # noqa: E402

# the fit's target (issue 37): the mean over heads of each LAMP rate within 0.05 of the traces' at tau
# 0.25 / 0.5 / 1 and the default tile (measured: 0.041 at most over 5 seeds, 0.044 at the fitted seed,
# docs/workloads.md); the shape within these
# limits of the mean over heads
RATES = ("stage1_rate", "subblock_rate", "disruptive_rate")
SEEDS = (1, 2, 3, 4, 5)   # the fitted workload's seed (the default) and the 4 the fit's check adds
# (entropy 0.06: the random local heads come out less sharp, +0.051 on 4 layers at 256 tokens, +0.044 before the
# fit measured key_share and noise_flip; 2 layers hid it)
LIMIT = {"entropy": 0.06, "local_mass": 0.05, "sink_mass": 0.05}


def rope(x, base=10000.0):
    n, d = x.shape[-2], x.shape[-1]
    half = d // 2
    a = np.arange(n)[:, None] * base ** (-np.arange(half) * 2.0 / d)[None, :]
    c, s = np.cos(a), np.sin(a)
    return np.concatenate([x[..., :half] * c - x[..., half:] * s, x[..., :half] * s + x[..., half:] * c], -1)


def random_layer(kind, n, d, seed, hq=4, hk=2):
    """A random attention layer (GQA 4/2, RoPE) with attention sinks ('sink': key 0 far out along the lowest
    rotary frequency, every query leaning on it with a per-head strength) or local heads ('local': a direction
    shared by queries and keys, rotated by RoPE, and a little of the query's own key)."""
    r = np.random.default_rng(seed)
    g = hq // hk
    k, c = r.standard_normal((hk, n, d)), r.standard_normal((hk, 1, d))
    q = np.empty((hq, n, d))
    for h in range(hq):
        qh = r.standard_normal((n, d)) * (0.6 + 0.2 * h)
        if kind == "sink":
            u = np.zeros(d)
            u[d // 2 - 1] = u[-1] = 1 / np.sqrt(2)
            qh += (0.5 + 0.25 * h) * u * np.sqrt(d) / 4
            k[h // g, 0] += u * np.sqrt(d) * 2
        else:
            kk = k[h // g]
            if h % g == 0:
                kk += 1.5 * c[h // g]
            qh += (0.8 + 0.4 * h) * c[h // g] + 0.3 * kk
        q[h] = qh
    return rope(q).astype(np.float32), rope(k).astype(np.float32), r.standard_normal((hk, n, d)).astype(np.float32)


def write_layers(out, kind, n, d, layers=2):
    os.makedirs(out, exist_ok=True)
    paths = []
    for L in range(layers):
        for t, x in zip("qkv", random_layer(kind, n, d, seed=L)):
            np.save(os.path.join(out, "layer%d_%s.npy" % (L, t)), x)
        paths.append(os.path.join(out, "layer%d.yaml" % L))
        with open(paths[-1], "w") as f:
            f.write("name: %s-%d\ngenerator: trace\ncausal: true\ndtype: fp32\ntrace:\n  q: layer%d_q.npy\n"
                    "  k: layer%d_k.npy\n  v: layer%d_v.npy\n" % (kind, L, L, L, L))
    return paths


def fit(lampsim_bin, inputs, out):
    r = subprocess.run([lampsim_bin, "workload", "fit"] + inputs + ["-o", out], capture_output=True, text=True)
    check(r.returncode == 0, "workload fit %s (exit %d)" % (" ".join(os.path.basename(i) for i in inputs), r.returncode))
    return r.stderr


def compare(lampsim_bin, what, inputs, fitted, tmp, shape=True):
    """The fitted workload against the traces at tau 0.25 / 0.5 / 1: the mean LAMP rates over the fit check's 5
    seeds (the fitted seed and the next 4) within 0.05, at the fitted seed alone within 0.08 (a few hundred tiles
    move a rate by 0.02-0.04 from seed to seed); the shape at the fitted seed."""
    for tau in (0.25, 0.5, 1.0):
        t = stats(lampsim_bin, inputs, tmp, "traces", tau)
        fs = [stats(lampsim_bin, [fitted], tmp, "fitted", tau, seed) for seed in SEEDS]
        f = fs[0]
        check(len(t) == len(f), "%s: as many fitted heads as traced (%d, %d)" % (what, len(t), len(f)))
        for key in RATES:
            x = np.array([float(r[key]) for r in t])
            y = [np.array([float(r[key]) for r in g]) for g in fs]
            m5 = np.mean([v.mean() for v in y])
            check(abs(m5 - x.mean()) <= 0.05 and abs(y[0].mean() - x.mean()) <= 0.08,
                  "%s tau %g %s: traces %.3f, fitted %.3f over 5 seeds (limit 0.05), %.3f at the fitted seed (limit "
                  "0.08; worst head %.3f)" % (what, tau, key, x.mean(), m5, y[0].mean(), np.abs(y[0] - x).max()))
        for key in ("entropy", "local_mass", "sink_mass") if tau == 0.5 and shape else ():
            x, y = np.array([float(r[key]) for r in t]), np.array([float(r[key]) for r in f])
            lim = LIMIT.get(key, 0.05)
            check(abs(y.mean() - x.mean()) <= lim, "%s tau %g %s: traces %.3f, fitted %.3f (limit %.2f; worst head %.3f)"
                  % (what, tau, key, x.mean(), y.mean(), lim, np.abs(y - x).max()))


def layer_table(lampsim_bin, inputs, fitted, err, tmp, what):
    """The fit check's per-layer table (several layers fitted together) against the traces' and fitted workload's
    statistics at the default tau, layer by layer: the mean errors at the fitted seed and over the 5 seeds."""
    rows = re.findall(r"^ +(\d+) +(\d+) +([-+][.\d]+) / ([-+][.\d]+) +([-+][.\d]+) / ([-+][.\d]+) +([-+][.\d]+) / "
                      r"([-+][.\d]+)$", err.split("per fitted layer")[-1], re.M)
    t = stats(lampsim_bin, inputs, tmp, "traces")
    fs = [stats(lampsim_bin, [fitted], tmp, "fitted", 0.5, seed) for seed in SEEDS]
    layers = sorted({int(r["layer"]) for r in t})
    ok = len(rows) == len(layers) >= 2
    for row, layer in zip(rows, layers):
        idx = [i for i, r in enumerate(t) if int(r["layer"]) == layer]
        for c, key in enumerate(RATES):
            e = [np.mean([float(f[i][key]) - float(t[i][key]) for i in idx]) for f in fs]
            ok &= int(row[1]) == len(idx) and abs(float(row[2 + 2 * c]) - e[0]) < 0.0015 and \
                abs(float(row[3 + 2 * c]) - np.mean(e)) < 0.0015
    check(ok, "%s: the check's per-layer table gives each layer's rate errors (%s)" % (what, rows))


def stats(lampsim_bin, what, tmp, name, tau=0.5, seed=None):
    out = os.path.join(tmp, name + ".csv")
    what = what if isinstance(what, list) else [what]
    extra = ["--set", "seed=%d" % seed] if seed is not None else []
    subprocess.run([lampsim_bin, "workload", "stats"] + what + ["-o", out, "--set", "algorithm.tau=%g" % tau] + extra,
                   check=True, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return list(csv.DictReader(f))


def knobs(path):
    vals = {}
    with open(path) as f:
        for line in f:
            key, _, rest = line.strip().partition(": ")
            if key in ("scale", "bias", "sink", "sink_spread", "key_share", "noise_flip", "pairs", "freq", "amp_cos",
                       "amp_sin", "noise_cos", "noise_sin"):
                vals[key] = np.array([float(x) for x in rest.strip('"').split()])
    return vals


def main(lampsim_bin, tmp, long=False):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # constructed inputs through the Python binding
    q, k = np.zeros((1, 2, 32, 16), np.float32), np.zeros((1, 1, 64, 16), np.float32)
    r = lampsim.workload_stats(q, k, causal=False)
    check(len(r) == 2 and abs(r[0]["entropy"] - 1) < 1e-6 and abs(r[0]["top1"] - 1 / 64) < 1e-7,
          "uniform attention: entropy 1, top-1 1/64 (%s)" % r[0])
    q[..., 0], k[0, 0, 0, 0] = 80.0, 1.0
    r = lampsim.workload_stats(q, k, causal=False, lamp=False)
    check(r[1]["sink_mass"] > 1 - 1e-6 and r[1]["local_mass"] < 1e-6 and np.isnan(r[1]["stage1_rate"]),
          "one-hot sink: sink mass 1, local mass 0, no engine run (%s)" % r[1])
    # top_cos against numpy: causal rows of random heads (GQA 2/1), the cosine of each query with its top key
    g = np.random.default_rng(3)
    q, k = g.standard_normal((1, 2, 48, 16)).astype(np.float32), g.standard_normal((1, 1, 48, 16)).astype(np.float32)
    r = lampsim.workload_stats(q, k, causal=True, lamp=False)
    for h in range(2):
        qh, kh = q[0, h].astype(np.float64), k[0, 0].astype(np.float64)
        top = [int(np.argmax(qh[i] @ kh[: i + 1].T)) for i in range(48)]
        want = np.mean([qh[i] @ kh[t] / np.linalg.norm(qh[i]) / np.linalg.norm(kh[t]) for i, t in enumerate(top)])
        check(abs(r[h]["top_cos"] - want) < 1e-6, "head %d: top_cos %.9f, numpy %.9f" % (h, r[h]["top_cos"], want))
    # the tiny model's traces, fitted again: the shipped preset, and its rates within 0.05 of the traces'
    torch.set_num_threads(1)
    model = load_pretrained(os.path.join(ROOT, "models", "tiny_kjv.safetensors"))
    n = 512 if long else 256
    traces = os.path.join(tmp, "traces")
    dump_traces(model, heldout_ids(1, n)[:1, :-1], traces)
    fitted = os.path.join(tmp, "fitted.yaml")
    err = fit(lampsim_bin, [traces], fitted)
    check("fit check: 16 heads" in err and "stage1_rate" in err, "the fit reports its own errors:\n" + err)
    if not long:
        shipped = os.path.join(ROOT, "workloads", "tiny_kjv_fitted.yaml")
        a, b = knobs(fitted), knobs(shipped)
        check(sorted(a) == sorted(b) and all(np.allclose(a[x], b[x], rtol=2e-3, atol=2e-3) for x in a),
              "fitting the traces again gives the shipped preset's knobs")
    compare(lampsim_bin, "tiny model %d tokens" % n, [traces], fitted, tmp)
    layer_table(lampsim_bin, [traces], fitted, err, tmp, "tiny model %d tokens" % n)
    if long:
        bos = load_pretrained(os.path.join(ROOT, "models", "tiny_kjv_bos.safetensors"))
        traces = os.path.join(tmp, "traces_bos")
        dump_traces(bos, heldout_ids(1, n)[:1, :-1], traces)
        fit(lampsim_bin, [traces], fitted)
        compare(lampsim_bin, "tiny BOS model %d tokens" % n, [traces], fitted, tmp)
    # random layers with sinks and with local heads (GQA 4/2, d 64)
    for kind in ("sink", "local"):
        # 4 layers at 256 tokens: with 2 the traces' own disruptive rate is pinned only to about 0.04 (the sink
        # layers' fit came out -0.050 there over 5 seeds, -0.041 on 4)
        layers = write_layers(os.path.join(tmp, kind), kind, n, 64, layers=2 if long else 4)
        fit(lampsim_bin, layers, fitted)
        compare(lampsim_bin, "random %s heads %d tokens" % (kind, n), layers, fitted, tmp)
    # d 16 at 512 tokens: d / 5 would leave two cosines for a sharp local profile; the layout search finds more
    layers = write_layers(os.path.join(tmp, "d16"), "local", 512, 16)
    err = fit(lampsim_bin, layers, fitted)
    check("pairs: 2\n" not in open(fitted).read(), "d 16: the layout search gives the profile more than two pairs")
    compare(lampsim_bin, "random local heads d 16, 512 tokens", layers, fitted, tmp, shape=False)
    # any even d >= 2: accepted, with a warning where d leaves out a part of the model
    for d in (2, 4, 8):
        layers = write_layers(os.path.join(tmp, "d%d" % d), "local", 128, d, layers=1)
        err = fit(lampsim_bin, layers, fitted)
        check("fit check" in err and (d > 4 or "warning" in err), "d %d fitted, what it leaves out said:\n%s" % (d, err))
    # d 8 at 256 tokens, 4 layers: the one profile pair the layout search finds on layer 0 makes layer 2's sharp local
    # heads far sharper than traced; the check names every head whose logit spread is off by more than 2x, and only those
    layers = write_layers(os.path.join(tmp, "d8_256"), "local", 256, 8, layers=4)
    err = fit(lampsim_bin, layers, fitted)
    t, f = stats(lampsim_bin, layers, tmp, "traces"), stats(lampsim_bin, [fitted], tmp, "fitted")
    off = sorted((int(a["layer"]), int(a["head"])) for a, b in zip(t, f)
                 if not 0.5 <= float(b["logit_std"]) / float(a["logit_std"]) <= 2)
    said = [line for line in err.splitlines() if "logit spread" in line]
    named = sorted((int(L), int(h)) for L, h in re.findall(r"layer (\d+) head (\d+) [0-9.]+ against", "".join(said)))
    check(off and len(said) == 1 and named == off, "d 8, 4 layers: the heads whose logit spread is more than 2x off (%s) "
          "are the ones the fit's warning names (%s)" % (off, named))
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], "--long" in sys.argv[3:]))
