#!/usr/bin/env python3
"""python/lampsim against the engine and the CLI: numpy and torch inputs, every mode, GQA, batch,
ragged lists, threads, records vs statistics, scale, errors, and the bridge's O == `lampsim run`'s
O.npy bit for bit on the same trace.  usage: test_bridge.py LAMPSIM_BINARY TMPDIR"""
import os
import shutil
import subprocess
import sys

import numpy as np

try:
    import torch
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)

from checks import check, child_env, done  # noqa: E402
import lampsim  # noqa: E402
from lampsim.model import reference_attention  # noqa: E402



def qkv(seed, b=1, hq=4, hk=2, sq=192, sk=192, d=128, gain=2.0):
    """QK-norm-like rows: unit RMS times a gain, as after Qwen3's q_norm/k_norm."""
    rng = np.random.default_rng(seed)
    def rows(h, s):
        x = rng.standard_normal((b, h, s, d)).astype(np.float32)
        return (x / np.sqrt((x * x).mean(-1, keepdims=True)) * gain).astype(np.float32)
    return rows(hq, sq), rows(hk, sk), rng.standard_normal((b, hk, sk, d)).astype(np.float32)


def main(binary, tmp):
    q, k, v = qkv(1)
    # every mode runs and reports its own name
    outs = {}
    for m in lampsim.MODES:
        o, st = lampsim.attention(q, k, v, mode=m, reference=True, random_rate=0.25)
        outs[m] = o
        check(st["mode"] == m and o.shape == q.shape and np.isfinite(o).all(), "mode %s runs" % m)
    o, st = lampsim.attention(q, k, v, mode="pure_8bit", reference=True)
    check(st["tiles.disruptive_rate"] == 0.0 and st["recompute.subblock_rate"] == 0.0, "pure_8bit recomputes nothing")
    o16, st16 = lampsim.attention(q, k, v, mode="fa2_16bit", reference=True)
    ol, stl = lampsim.attention(q, k, v, mode="lamp", tau=0.25, reference=True)
    check(st16["accuracy.kl_mean"] < stl["accuracy.kl_mean"] < st["accuracy.kl_mean"],
          "KL: 16-bit %.3g < lamp %.3g < pure 8-bit %.3g" % (st16["accuracy.kl_mean"], stl["accuracy.kl_mean"],
                                                             st["accuracy.kl_mean"]))
    # fa2_fp32 equals torch's attention to float32 rounding: both as far from fp64 as each other
    tq, tk, tv = torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v)
    ref = reference_attention(tq, tk, tv, True).numpy()
    ref64 = reference_attention(tq.double(), tk.double(), tv.double(), True).numpy()
    err, err_torch = float(np.abs(outs["fa2_fp32"] - ref64).max()), float(np.abs(ref - ref64).max())
    check(err < 1e-5 and err < 8 * err_torch, "fa2_fp32 vs fp64: max |diff| %.2e (torch fp32: %.2e)" % (err, err_torch))
    err = float(np.abs(outs["fa2_fp32"] - ref).max())
    check(float(np.abs(outs["pure_8bit"] - ref).max()) > 100 * err, "pure_8bit differs from fp32 far more than fp32 rounding")
    # torch tensors in, torch tensors out (dtype kept), same numbers as numpy
    ot, _ = lampsim.attention(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), mode="lamp")
    on, _ = lampsim.attention(q, k, v, mode="lamp")
    check(isinstance(ot, torch.Tensor) and ot.dtype == torch.float32 and np.array_equal(ot.numpy(), on),
          "torch input gives a torch output equal to the numpy one")
    ob, _ = lampsim.attention(torch.from_numpy(q).double(), torch.from_numpy(k).double(), torch.from_numpy(v).double())
    check(ob.dtype == torch.float64 and np.array_equal(ob.float().numpy(), on), "float64 tensors: computed from float32 values, dtype kept")
    # GQA == the same attention with the KV heads repeated
    kr, vr = np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)
    og, _ = lampsim.attention(q, kr, vr)
    check(np.array_equal(og, on), "GQA (4 query heads on 2 KV heads) == MHA with KV repeated, bit for bit")
    # batch == per-item; threads do not change anything
    q2, k2, v2 = qkv(2, b=2, sq=96, sk=160)
    ob, sb = lampsim.attention(q2, k2, v2, tau=0.5, threads=2)
    o1, s1 = lampsim.attention(q2, k2, v2, tau=0.5, threads=1)
    check(np.array_equal(ob, o1) and sb["tiles.hp_subblocks_hist"] == s1["tiles.hp_subblocks_hist"],
          "threads 2 == threads 1 bit for bit")
    parts = [lampsim.attention(q2[i:i + 1], k2[i:i + 1], v2[i:i + 1], tau=0.5) for i in range(2)]
    check(np.array_equal(ob, np.concatenate([p[0] for p in parts])), "batch of 2 == two single calls")
    # ragged lists: per-sequence results and statistics merged from the counts
    lens = [(64, 64), (160, 200)]
    rq = [qkv(10 + i, sq=a, sk=b)[0][0] for i, (a, b) in enumerate(lens)]
    rk = [qkv(10 + i, sq=a, sk=b)[1][0] for i, (a, b) in enumerate(lens)]
    rv = [qkv(10 + i, sq=a, sk=b)[2][0] for i, (a, b) in enumerate(lens)]
    ro, rs = lampsim.attention(rq, rk, rv, tau=0.5)
    singles = [lampsim.attention(a, b, c, tau=0.5) for a, b, c in zip(rq, rk, rv)]
    check(all(np.array_equal(x, s[0]) for x, s in zip(ro, singles)) and ro[1].shape == (4, 160, 128),
          "ragged list: each output == its own call, shapes kept")
    ex = sum(s[1]["tiles.executed"] for s in singles)
    dis = sum(sum(s[1]["tiles.hp_subblocks_hist"][2:]) for s in singles)
    un = sum(s[1]["bridge.logits_unmasked"] for s in singles)
    hp = sum(s[1]["bridge.logits_hp"] for s in singles)
    check(rs["tiles.executed"] == ex and abs(rs["tiles.disruptive_rate"] - dis / ex) < 1e-12
          and abs(rs["recompute.logit_rate"] - hp / un) < 1e-12, "ragged statistics merged from the counts")
    # per-tile records agree with the statistics
    o, st = lampsim.attention(q, k, v, tau=0.5, records=True)
    hr = lampsim.head_rates(st["records"])
    check(int(hr["executed"].sum()) == st["tiles.executed"]
          and int(hr["disruptive"].sum()) == sum(st["tiles.hp_subblocks_hist"][2:])
          and int(hr["hp_subblocks"].sum()) == st["recompute.stage1_subblocks"] + st["recompute.stage2_subblocks"],
          "per-head figures from the records sum to the run's statistics")
    # errors are clear
    for kw, needle in (({"tau": 2.0}, "algorithm.tau"), ({"mode": "fp8"}, "algorithm.mode"), ({"nonsense": 1}, "nonsense")):
        try:
            lampsim.attention(q, k, v, **kw)
            check(False, "bad override %s refused" % kw)
        except lampsim.LampsimError as e:
            check(needle in str(e), "bad override %s refused: %s" % (kw, str(e).splitlines()[0][:90]))
    try:
        lampsim.attention(q, k[:, :1].repeat(3, axis=1), v[:, :1].repeat(3, axis=1))
        check(False, "heads 4 over 3 KV heads refused")
    except lampsim.LampsimError as e:
        check("multiple" in str(e), "heads 4 over 3 KV heads refused: %s" % e)
    # the patch helpers refuse what they do not model, and say so
    from lampsim.model import CoreAttention
    holder = torch.nn.Sequential(CoreAttention())
    tq, tk, tv = torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v)
    for what, call in (("attn_mask", lambda: torch.nn.functional.scaled_dot_product_attention(
                            tq, tk, tv, attn_mask=torch.ones(192, 192, dtype=torch.bool))),
                       ("dropout_p", lambda: torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, dropout_p=0.1))):
        try:
            with lampsim.patch_sdpa():
                call()
            check(False, "patch_sdpa refuses %s" % what)
        except NotImplementedError as e:
            check(what in str(e), "patch_sdpa refuses %s: %s" % (what, e))
    try:
        with lampsim.patch_modules(holder):
            holder[0](tq, tk, tv, mask=None)
        check(False, "patch_modules refuses an unknown argument")
    except NotImplementedError as e:
        check("mask" in str(e), "patch_modules refuses an unknown argument: %s" % e)
    try:
        with lampsim.patch_modules(holder, pattern=r"nothing\.here"):
            pass
        check(False, "patch_modules with no match refused")
    except ValueError as e:
        check("no submodule" in str(e), "patch_modules with no match refused: %s" % e)
    with lampsim.patch_modules(holder, mode="fa2_16bit") as calls:
        o_h = holder[0](tq, tk, tv)
    check(len(calls) == 1 and calls[0][0] == "0" and torch.equal(o_h, torch.from_numpy(outs["fa2_16bit"]))
          and "forward" not in vars(holder[0]), "patch_modules: the call is lampsim's, recorded, and undone after")
    # the bridge == `lampsim run` on the same trace, bit for bit, with a non-default scale
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    qt, kt, vt = qkv(3, b=1, hq=4, hk=2, sq=200, sk=200)
    for name, a in (("q", qt), ("k", kt), ("v", vt)):
        np.save(os.path.join(tmp, name + ".npy"), a)
    sharp = 0.75
    with open(os.path.join(tmp, "trace.yaml"), "w") as f:
        f.write("name: bridge-test\ngenerator: trace\ncausal: true\ndtype: fp32\nsharpness: %r\n"
                "trace:\n  q: q.npy\n  k: k.npy\n  v: v.npy\n" % sharp)
    out = os.path.join(tmp, "run")
    for mode in ("lamp", "pure_8bit"):
        subprocess.run([binary, "run", "--golden", "--save-o", "--quiet", "--force", "-o", out, "--set",
                        "workload.file=" + os.path.join(tmp, "trace.yaml"), "--set", "algorithm.mode=" + mode,
                        "--set", "algorithm.tau=0.25"], check=True, env=child_env())
        o_run = np.load(os.path.join(out, "O.npy"))
        o_br, _ = lampsim.attention(qt, kt, vt, causal=True, scale=sharp / np.sqrt(128), mode=mode, tau=0.25)
        check(o_run.dtype == np.float32 and o_run.shape == o_br.shape and
              np.array_equal(o_run.view(np.uint32), o_br.view(np.uint32)),
              "bridge O == lampsim run O.npy bit for bit (%s, scale %.3g/sqrt(d))" % (mode, sharp))
    # the configuration's regimes apply through the bridge as in `lampsim run`: a sliding window,
    # split-KV and GQA packing, each changing O (or the records) and each equal to the run's
    o_plain, st_plain = lampsim.attention(qt, kt, vt, causal=True, scale=sharp / np.sqrt(128), mode="lamp", tau=0.25,
                                          records=True)
    for key, val in (("workload.window", 64), ("workload.split_kv", 3), ("workload.pack_gqa", True)):
        subprocess.run([binary, "run", "--golden", "--save-o", "--quiet", "--force", "-o", out, "--set",
                        "workload.file=" + os.path.join(tmp, "trace.yaml"), "--set", "algorithm.mode=lamp",
                        "--set", "algorithm.tau=0.25", "--set", "%s=%s" % (key, str(val).lower())],
                       check=True, env=child_env())
        o_run = np.load(os.path.join(out, "O.npy"))
        o_br, st = lampsim.attention(qt, kt, vt, causal=True, scale=sharp / np.sqrt(128), mode="lamp", tau=0.25,
                                     settings={key: val}, records=True)
        check(np.array_equal(o_run.view(np.uint32), o_br.view(np.uint32)) and not np.array_equal(o_br, o_plain),
              "%s = %s: bridge O == lampsim run O.npy bit for bit, and differs from the plain run" % (key, val))
        if key == "workload.pack_gqa":
            check(st["records"].shape[1] == 2, "pack_gqa records per KV head: %s" % (st["records"].shape,))
    try:
        lampsim.attention(qt, kt, vt, settings={"algorithm.sample_query_blocks": 1})
        check(False, "a sampled run is refused by the bridge")
    except lampsim.LampsimError as e:
        check("sample_query_blocks" in str(e), "a sampled run is refused by the bridge: %s" % e)
    try:
        lampsim.attention(qt, kt, vt, causal=False, settings={"workload.window": 64})
        check(False, "a window without causal is refused")
    except lampsim.LampsimError as e:
        check("causal" in str(e), "a window without causal is refused: %s" % e)
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
