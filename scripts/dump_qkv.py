#!/usr/bin/env python3
"""Capture attention inputs Q, K, V from a PyTorch model for lampsim traces.

The tensors are taken where attention consumes them: after QK-norm and rotary embeddings,
before the softmax. Two capture points are supported:

* ``sdpa`` (default): every call of ``torch.nn.functional.scaled_dot_product_attention`` made
  during the forward pass is recorded with its arguments (``is_causal`` and ``scale`` too). This
  covers Hugging Face transformers' "sdpa" attention and most modern model code.
* ``hook``: forward pre-hooks on the submodules whose qualified name matches ``--module``
  (a regular expression) and whose forward receives ``(q, k, v, ...)`` positionally, e.g. a
  core-attention module.

Captured layers are numbered in call order. For each selected layer the script writes

    layer{N}_q.npy, layer{N}_k.npy, layer{N}_v.npy   [batch, heads, seq, dim], C order
    layer{N}.safetensors                             tensors "q", "k", "v"
    layer{N}.yaml                                    a lampsim workload file using the .npy files
    layer{N}_st.yaml                                 the same using the .safetensors file

Use a workload file with ``lampsim run --set workload.file=out/layer3.yaml`` or from a config
(``workload: {file: ...}``). Keys and values repeated for grouped-query attention (``repeat_kv``
before SDPA) are collapsed back to the real KV heads unless ``--no-dedup-kv`` is given. dtype
``keep`` stores float32 as '<f4', float16 as '<f2' and bfloat16 as uint16 bit patterns '<u2'.

Library use (what the tests do)::

    from dump_qkv import capture_qkv, write_layer
    layers = capture_qkv(model, lambda: model(tokens), mode="sdpa")
    write_layer(layers[0], "out", 0)

Command line, for a checkpoint lampsim.checkpoints reads (a Hugging Face Llama / Qwen2 / Qwen3 /
Gemma 3 directory, a llama2.c .bin with its tokenizer.bin, the tiny model's .safetensors; no
``transformers`` needed; the text is tokenized with the checkpoint's tokenizer, byte-level for a
vocabulary of 256, or give ``--ids``)::

    dump_qkv.py --checkpoint /path/to/Qwen3-0.6B --ids ids.npy --layers 0,13 --out out/
    dump_qkv.py --checkpoint stories15M.bin --text "Once upon a time" --out out/

or through ``transformers`` when it is installed::

    dump_qkv.py --hf-model /path/to/Qwen3-0.6B --text "The quick brown fox" --layers 0,13 --out out/
"""
import argparse
import contextlib
import json
import math
import os
import re
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F


class CapturedLayer:
    """One attention call: q [B, Hq, Sq, D], k and v [B, Hkv, Sk, D] (torch tensors, detached)."""

    def __init__(self, q, k, v, causal, scale, name):
        self.q, self.k, self.v = q, k, v
        self.causal = bool(causal)
        self.scale = scale
        self.name = name


def _as_bhsd(t):
    t = t.detach()
    if t.dim() == 3:
        t = t.unsqueeze(0)
    if t.dim() != 4:
        raise ValueError("expected q/k/v of rank 3 or 4, got shape %s" % (tuple(t.shape),))
    return t.contiguous().cpu()


def _sdpa_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """Reference scaled_dot_product_attention (used when torch predates it, i.e. torch < 2.0)."""
    if key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(rep, dim=-3), value.repeat_interleave(rep, dim=-3)
    s = scale if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    att = (query @ key.transpose(-2, -1)) * s
    sq, sk = att.shape[-2], att.shape[-1]
    if is_causal:
        keep = torch.ones(sq, sk, dtype=torch.bool, device=att.device).tril(sk - sq)
        att = att.masked_fill(~keep, float("-inf"))
    if attn_mask is not None:
        att = att.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else att + attn_mask
    return torch.softmax(att, dim=-1) @ value


@contextlib.contextmanager
def _sdpa_recorder(records):
    had = hasattr(F, "scaled_dot_product_attention")
    original = F.scaled_dot_product_attention if had else _sdpa_math

    def recording(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kw):
        causal = bool(is_causal)
        if attn_mask is not None and not is_causal:
            # a boolean lower-triangular mask is causal; anything else is recorded as non-causal
            m = attn_mask
            if m.dtype == torch.bool and m.shape[-2] <= m.shape[-1]:
                sq, sk = m.shape[-2], m.shape[-1]
                tri = torch.ones(sq, sk, dtype=torch.bool, device=m.device).tril(sk - sq)
                causal = bool(torch.equal(m.expand(*m.shape[:-2], sq, sk).reshape(-1, sq, sk)[0], tri))
        records.append(CapturedLayer(_as_bhsd(query), _as_bhsd(key), _as_bhsd(value), causal, scale,
                                     "sdpa#%d" % len(records)))
        return original(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
                        scale=scale, **kw)

    F.scaled_dot_product_attention = recording
    try:
        yield
    finally:
        if had:
            F.scaled_dot_product_attention = original
        else:
            del F.scaled_dot_product_attention


def capture_qkv(model, run, mode="sdpa", module=None, causal=True):
    """Runs ``run()`` (which must call the model) and returns the list of CapturedLayer.

    mode "sdpa" intercepts scaled_dot_product_attention; mode "hook" registers forward pre-hooks
    on the submodules of ``model`` whose name matches the regex ``module`` and records their
    first three positional arguments (``causal`` gives the mask flag in that case)."""
    records = []
    with torch.no_grad():
        if mode == "sdpa":
            with _sdpa_recorder(records):
                run()
        elif mode == "hook":
            if not module:
                raise ValueError("mode 'hook' needs a module name pattern")
            pattern = re.compile(module)
            handles = []
            for name, mod in model.named_modules():
                if name and pattern.fullmatch(name):
                    def pre_hook(m, args, _name=name):
                        if len(args) < 3:
                            raise ValueError("module %s was not called with (q, k, v, ...)" % _name)
                        # lampsim.model.CoreAttention carries its softmax scale and sliding window
                        window = getattr(m, "window", None)
                        if window is not None and window < args[1].shape[-2]:
                            raise ValueError("module %s: sliding-window attention (window %d < %d keys): a trace is "
                                             "causal attention over all keys; capture at most %d tokens"
                                             % (_name, window, args[1].shape[-2], window))
                        records.append(CapturedLayer(_as_bhsd(args[0]), _as_bhsd(args[1]), _as_bhsd(args[2]),
                                                     causal, getattr(m, "scale", None), _name))
                    handles.append(mod.register_forward_pre_hook(pre_hook))
            if not handles:
                raise ValueError("no submodule matches %r" % module)
            try:
                run()
            finally:
                for h in handles:
                    h.remove()
        else:
            raise ValueError("unknown mode %r" % mode)
    return records


def dedup_kv(k, v, heads_q):
    """Collapses KV heads repeated for grouped-query attention: returns (k, v) with the real heads."""
    hk = k.shape[1]
    if hk != heads_q:
        return k, v
    for kv_heads in range(1, hk + 1):
        if hk % kv_heads:
            continue
        g = hk // kv_heads
        kk = k.reshape(k.shape[0], kv_heads, g, *k.shape[2:])
        vv = v.reshape(v.shape[0], kv_heads, g, *v.shape[2:])
        if torch.equal(kk, kk[:, :, :1].expand_as(kk)) and torch.equal(vv, vv[:, :, :1].expand_as(vv)):
            return kk[:, :, 0].contiguous(), vv[:, :, 0].contiguous()
    return k, v


def _np_of(t, dtype):
    """numpy array and (npy descr, safetensors dtype) for a tensor in the requested dtype."""
    if dtype == "fp32" or (dtype == "keep" and t.dtype not in (torch.float16, torch.bfloat16)):
        return t.to(torch.float32).numpy().astype("<f4"), "F32"
    if dtype == "fp16" or (dtype == "keep" and t.dtype == torch.float16):
        return t.to(torch.float16).numpy().astype("<f2"), "F16"
    bits = t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16).astype("<u2")
    return bits, "BF16"


def write_safetensors(path, tensors):
    """Minimal .safetensors writer: tensors is a list of (name, numpy array, dtype string)."""
    header, offset, blobs = {}, 0, []
    for name, arr, st_dtype in tensors:
        data = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": st_dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    header["__metadata__"] = {"format": "lampsim-dump_qkv"}
    js = json.dumps(header, separators=(",", ":")).encode()
    js += b" " * ((8 - len(js) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(js)))
        f.write(js)
        for b in blobs:
            f.write(b)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _save_npy(path, arr):
    tmp = path + ".tmp.npy"
    np.save(tmp, arr)
    os.replace(tmp, path)


def write_layer(layer, out_dir, index, dtype="keep", dedup=True, name=None):
    """Writes the files of one captured layer; returns the paths of the two workload YAML files."""
    os.makedirs(out_dir, exist_ok=True)
    q, k, v = layer.q, layer.k, layer.v
    if dedup:
        k, v = dedup_kv(k, v, q.shape[1])
    base = "layer%d" % index
    arrays = []
    for tag, t in (("q", q), ("k", k), ("v", v)):
        arr, st_dtype = _np_of(t, dtype)
        _save_npy(os.path.join(out_dir, "%s_%s.npy" % (base, tag)), arr)
        arrays.append((tag, arr, st_dtype))
    write_safetensors(os.path.join(out_dir, base + ".safetensors"), arrays)
    d = q.shape[-1]
    sharpness = 1.0 if layer.scale is None else float(layer.scale) * d ** 0.5
    common = [
        "# Traced attention inputs written by scripts/dump_qkv.py (%s, layer %d)." % (layer.name, index),
        "name: %s" % json.dumps(name or ("%s-layer%d" % (os.path.basename(os.path.abspath(out_dir)), index))),
        "description: %s" % json.dumps("TRACE: Q/K/V captured after QK-norm and RoPE (%s)" % layer.name),
        "generator: trace",
        "causal: %s" % ("true" if layer.causal else "false"),
        "dtype: %s" % {"F32": "fp32", "F16": "fp16", "BF16": "bf16"}[arrays[0][2]],
        "sharpness: %r  # model scale * sqrt(d); 1 when the model uses 1/sqrt(d)" % sharpness,
    ]
    npy_yaml = os.path.join(out_dir, base + ".yaml")
    st_yaml = os.path.join(out_dir, base + "_st.yaml")
    with open(npy_yaml, "w") as f:
        f.write("\n".join(common + ["trace:", "  q: %s_q.npy" % base, "  k: %s_k.npy" % base, "  v: %s_v.npy" % base]) + "\n")
    with open(st_yaml, "w") as f:
        f.write("\n".join(common + ["trace:", "  safetensors: %s.safetensors" % base, "  q_name: q", "  k_name: k",
                                    "  v_name: v"]) + "\n")
    return npy_yaml, st_yaml


def _parse_layers(spec, n):
    if not spec:
        return list(range(n))
    out = []
    for part in spec.split(","):
        i = int(part)
        if not -n <= i < n:
            raise SystemExit("layer %d out of range (captured %d attention calls)" % (i, n))
        out.append(i % n)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hf-model", help="local Hugging Face model directory (needs the transformers package)")
    ap.add_argument("--checkpoint", help="a checkpoint lampsim.checkpoints reads (HF directory, llama2.c .bin, "
                                         ".safetensors); no transformers needed")
    ap.add_argument("--tokenizer", help="with --checkpoint: tokenizer.bin or tokenizer.json (default: the checkpoint's)")
    ap.add_argument("--ids", help="with --checkpoint: .npy int array [1, tokens] instead of --text")
    ap.add_argument("--factory", help="MODULE:FUNCTION returning (model, run) where run() calls the model")
    ap.add_argument("--text", default="The quick brown fox jumps over the lazy dog.", help="prompt for --hf-model")
    ap.add_argument("--mode", choices=["sdpa", "hook"], default="sdpa")
    ap.add_argument("--module", help="regex of submodule names for --mode hook")
    ap.add_argument("--layers", help="comma-separated capture indices (default: all)")
    ap.add_argument("--dtype", choices=["keep", "fp32", "bf16", "fp16"], default="keep")
    ap.add_argument("--no-dedup-kv", action="store_true", help="keep KV heads repeated for GQA")
    ap.add_argument("--out", required=True, help="output directory")
    args = ap.parse_args(argv)
    if args.hf_model:
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise SystemExit("--hf-model needs the transformers package")
        tok = AutoTokenizer.from_pretrained(args.hf_model)
        model = AutoModelForCausalLM.from_pretrained(args.hf_model, attn_implementation="sdpa")
        model.eval()
        ids = tok(args.text, return_tensors="pt")
        run = lambda: model(**ids)
    elif args.checkpoint:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
        from lampsim.checkpoints import load_tokenizer
        from lampsim.model import load_pretrained
        try:
            model = load_pretrained(args.checkpoint)
            vocab = model.config["vocab_size"]
            if args.ids:
                ids = torch.from_numpy(np.load(args.ids).astype(np.int64)).reshape(1, -1)
            else:
                tok, why = load_tokenizer(args.checkpoint, vocab, args.tokenizer)
                if tok is None:
                    raise SystemExit("dump_qkv: %s: give --tokenizer or --ids" % why)
                ids = torch.tensor([tok.encode(args.text)], dtype=torch.int64)
        except (ValueError, OSError) as e:
            raise SystemExit("dump_qkv: %s" % e)
        if int(ids.min()) < 0 or int(ids.max()) >= vocab:
            raise SystemExit("dump_qkv: token ids must lie in [0, %d)" % vocab)
        args.mode, args.module = "hook", r".*\.core"
        run = lambda: model(ids)
    elif args.factory:
        modname, fn = args.factory.split(":")
        sys.path.insert(0, os.getcwd())
        mod = __import__(modname)
        model, run = getattr(mod, fn)()
    else:
        raise SystemExit("give --checkpoint, --hf-model or --factory")
    try:
        layers = capture_qkv(model, run, mode=args.mode, module=args.module)
    except ValueError as e:
        raise SystemExit("dump_qkv: %s" % e)
    if not layers:
        raise SystemExit("no attention call was captured (does the model use scaled_dot_product_attention?)")
    for i in _parse_layers(args.layers, len(layers)):
        npy_yaml, _ = write_layer(layers[i], args.out, i, dtype=args.dtype, dedup=not args.no_dedup_kv)
        print("wrote", npy_yaml)
    return 0


if __name__ == "__main__":
    sys.exit(main())
