#!/usr/bin/python3
"""scripts/dump_qkv.py against lampsim's loaders: a tiny randomly initialised attention model
(QK-norm, RoPE, GQA with repeat_kv, causal) is captured in both modes, written as .npy and
.safetensors, and loaded back through lampsim's configuration and workload path
(tests/io/lstrace_check). Exits 77 (skipped) when torch is not importable.

usage: test_dump_qkv.py DUMP_QKV_PY LSTRACE_CHECK OUT_DIR"""
import importlib.util
import math
import os
import shutil
import subprocess
import sys

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("torch not importable by", sys.executable, "- skipping")
    sys.exit(77)
import numpy as np

script, checker, out = sys.argv[1], sys.argv[2], sys.argv[3]
spec = importlib.util.spec_from_file_location("dump_qkv", script)
dq = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dq)

HIDDEN, HQ, HKV, D, S, B = 64, 4, 2, 16, 24, 2


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.5 * torch.rand(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def rope(x, base=10000.0):
    d = x.shape[-1]
    pos = torch.arange(x.shape[-2], dtype=torch.float32)
    inv = base ** (-torch.arange(0, d // 2, dtype=torch.float32) * 2 / d)
    ang = pos[:, None] * inv[None, :]
    c, s = torch.cos(ang), torch.sin(ang)
    a, b = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([a * c - b * s, a * s + b * c], dim=-1)


class Core(nn.Module):
    """Consumes (q, k, v) like a core-attention module (target of the forward pre-hook)."""

    def forward(self, q, k, v):
        sdpa = getattr(F, "scaled_dot_product_attention", None) or dq._sdpa_math
        return sdpa(q, k, v, is_causal=True)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(HIDDEN, HQ * D, bias=False)
        self.k_proj = nn.Linear(HIDDEN, HKV * D, bias=False)
        self.v_proj = nn.Linear(HIDDEN, HKV * D, bias=False)
        self.o_proj = nn.Linear(HQ * D, HIDDEN, bias=False)
        self.q_norm, self.k_norm = RMSNorm(D), RMSNorm(D)
        self.core = Core()

    def forward(self, x):
        b, s, _ = x.shape
        q = rope(self.q_norm(self.q_proj(x).view(b, s, HQ, D)).transpose(1, 2))
        k = rope(self.k_norm(self.k_proj(x).view(b, s, HKV, D)).transpose(1, 2))
        v = self.v_proj(x).view(b, s, HKV, D).transpose(1, 2)
        k = k.repeat_interleave(HQ // HKV, dim=1)  # repeat_kv, as HF does before SDPA
        v = v.repeat_interleave(HQ // HKV, dim=1)
        o = self.core(q, k, v)
        return self.o_proj(o.transpose(1, 2).reshape(b, s, HQ * D))


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, HIDDEN)
        self.layers = nn.ModuleList([Attention() for _ in range(2)])

    def forward(self, ids):
        x = self.emb(ids)
        for layer in self.layers:
            x = x + layer(x)
        return x


torch.manual_seed(0)
model = Tiny().eval()
ids = torch.randint(0, 50, (B, S))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


by_sdpa = dq.capture_qkv(model, lambda: model(ids), mode="sdpa")
by_hook = dq.capture_qkv(model, lambda: model(ids), mode="hook", module=r"layers\.\d+\.core", causal=True)
check(len(by_sdpa) == 2 and len(by_hook) == 2, "two attention calls captured in each mode")
for a, b in zip(by_sdpa, by_hook):
    check(torch.equal(a.q, b.q) and torch.equal(a.k, b.k) and torch.equal(a.v, b.v), "sdpa and hook captures agree")
    check(a.causal and b.causal, "causal flag captured")
check(tuple(by_sdpa[0].q.shape) == (B, HQ, S, D) and tuple(by_sdpa[0].k.shape) == (B, HQ, S, D), "captured shapes")
# QK-norm then RoPE: each q row norm is at most max|gain| * sqrt(D)
g = model.layers[0].q_norm.weight.abs().max().item()
check(by_sdpa[0].q.norm(dim=-1).max().item() <= g * math.sqrt(D) * (1 + 1e-5), "QK-norm bound on captured q")

shutil.rmtree(out, ignore_errors=True)


def run_checker(yaml_path, *extra):
    r = subprocess.run([checker, yaml_path, *extra], capture_output=True, text=True)
    if r.returncode != 0:
        check(False, "lstrace_check %s: %s" % (yaml_path, r.stderr.strip()))
        return None
    info = {}
    for line in r.stdout.splitlines():
        key, *vals = line.split()
        info[key] = vals
    return info


for i, layer in enumerate(by_sdpa):
    dtype = "fp32" if i == 0 else "bf16"
    npy_yaml, st_yaml = dq.write_layer(layer, out, i, dtype=dtype)
    k_real, v_real = dq.dedup_kv(layer.k, layer.v, HQ)
    check(k_real.shape[1] == HKV, "GQA repeats collapsed to %d KV heads" % HKV)
    q_ref = layer.q.float()
    if dtype == "bf16":
        q_ref, k_real, v_real = (t.to(torch.bfloat16).float() for t in (q_ref, k_real, v_real))
    want = [q_ref.double().sum().item(), k_real.double().sum().item(), v_real.double().sum().item()]
    for path in (npy_yaml, st_yaml):
        info = run_checker(path)
        if info is None:
            continue
        check(info["shape"] == [str(B), str(HQ), str(HKV), str(S), str(S), str(D), "causal", "1"],
              "%s shape %s" % (path, info["shape"]))
        got = [float(x) for x in info["sums"]]
        for name, gv, wv in zip("qkv", got, want):
            check(abs(gv - wv) <= 1e-4 * (1 + abs(wv)), "%s sum of %s: %r vs %r" % (path, name, gv, wv))
        check(np.float32(float(info["first"][0])) == np.float32(q_ref.reshape(-1)[0].item()), "%s first element of q" % path)
    # the .npy files are plain numpy arrays of the documented layout
    arr = np.load(os.path.join(out, "layer%d_k.npy" % i))
    check(arr.shape == (B, HKV, S, D) and arr.dtype == (np.float32 if dtype == "fp32" else np.uint16), "npy layout")

# a corrupted trace is rejected with a precise message
bad = os.path.join(out, "layer0_v.npy")
with open(bad, "r+b") as f:
    f.truncate(os.path.getsize(bad) - 4)
r = subprocess.run([checker, os.path.join(out, "layer0.yaml")], capture_output=True, text=True)
check(r.returncode == 2 and "truncated data" in r.stderr and "workload.trace.v" in r.stderr, "truncated trace rejected: " + r.stderr)

# the CLI entry point with a factory
factory_dir = os.path.join(out, "factory")
os.makedirs(factory_dir, exist_ok=True)
with open(os.path.join(factory_dir, "tinyfactory.py"), "w") as f:
    f.write("import torch\n"
            "def build():\n"
            "    m = torch.nn.MultiheadAttention(16, 2, batch_first=True)\n"
            "    x = torch.randn(1, 5, 16)\n"
            "    import torch.nn.functional as F\n"
            "    def run():\n"
            "        q = x.view(1, 5, 2, 8).transpose(1, 2)\n"
            "        return F.scaled_dot_product_attention(q, q, q, is_causal=True)\n"
            "    return m, run\n")
r = subprocess.run([sys.executable, script, "--factory", "tinyfactory:build", "--out", os.path.join(out, "cli")],
                   cwd=factory_dir, capture_output=True, text=True)
check(r.returncode == 0 and "layer0.yaml" in r.stdout, "CLI run: " + r.stderr)
if r.returncode == 0:
    info = run_checker(os.path.join(out, "cli", "layer0.yaml"))
    check(info is not None and info["shape"][:6] == ["1", "2", "2", "5", "5", "8"], "CLI output loads")

if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("dump_qkv test passed")
