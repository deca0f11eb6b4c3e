"""Model checkpoints without `transformers`: read, write, tokenize.

Formats read (load_model):
* a Hugging Face directory: config.json + one or more *.safetensors, or shards listed in
  model.safetensors.index.json (Llama, Qwen2, Qwen3, Gemma 3 text; the multimodal Gemma 3's
  text_config and language-model tensors);
* a llama2.c .bin (the legacy "version 0" export: seven int32 dim, hidden_dim, n_layers, n_heads,
  n_kv_heads, vocab_size (negative: unshared classifier), seq_len, then fp32 weights);
* a single .safetensors whose metadata holds the config (models/tiny_kjv.safetensors).

Writers (export_hf, export_llama2c) make the test checkpoints and let a user move the project's
models to other tools. Tokenizers: byte-level (vocabulary 256), llama2.c's tokenizer.bin, and
tokenizer.json through the `tokenizers` package when it is installed (it is not on Debian).
Every error names the file and the tensor or key.
"""
import heapq
import json
import math
import os
import re
import struct

import numpy as np
import torch

from .errors import CheckpointError, ConfigError, show
from .model import CausalLM, check_config, parameter_shapes, rope_frequencies
from .safetensors_io import open_regular, parse_json, read_safetensors, write_safetensors

__all__ = ["CheckpointError", "load_model", "load_hf", "load_llama2c", "read_llama2c", "export_hf", "export_llama2c",
           "load_tokenizer", "ByteTokenizer", "Llama2cTokenizer"]

MAX_JSON = 64 << 20   # config.json and the index: a few kB to a few MB in published checkpoints


# ----------------------------------------------------------------------------- loading

def _read_json(path):
    """A JSON file (config.json, the index) parsed; CheckpointError naming it. NaN and Infinity parse:
    the config check names the key that holds them."""
    try:
        with open_regular(path) as f:
            raw = f.read(MAX_JSON + 1)
    except OSError as e:
        raise CheckpointError(path, "cannot read: %s" % (e.strerror or e)) from None
    if len(raw) > MAX_JSON:
        raise CheckpointError(path, "larger than %d bytes" % MAX_JSON)
    return parse_json(path, raw, constants=True)


def _config(raw, path):
    """check_config of a checkpoint's config, its refusals as CheckpointErrors naming path."""
    try:
        return check_config(raw, path)
    except CheckpointError:
        raise
    except ConfigError as e:
        msg = str(e)
        raise CheckpointError(path, msg[len(path) + 2:] if msg.startswith(path + ": ") else msg) from None


def load_model(path, dtype=torch.float32):
    """A CausalLM (eval mode) from a Hugging Face directory, a llama2.c .bin or a .safetensors with
    its config in the metadata. Every refusal is a CheckpointError (a ValueError) naming the file."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return load_hf(path, dtype)
    if not os.path.isfile(path):
        raise CheckpointError(path, "no such checkpoint (a directory with config.json, a .bin or a .safetensors)")
    if path.endswith(".bin"):
        return load_llama2c(path, dtype)
    if path.endswith(".safetensors"):
        tensors, meta = read_safetensors(path)
        if "config" not in meta:
            raise CheckpointError(path, "no 'config' entry in the safetensors metadata (a Hugging Face checkpoint is "
                                  "loaded from its directory, with config.json)")
        cfg = _config(parse_json(path, meta["config"], "metadata config", constants=True), path)
        return _build(cfg, {k: (v, path) for k, v in tensors.items()}, path, path, dtype)
    raise CheckpointError(path, "unknown checkpoint format (expected a directory, .bin or .safetensors)")


def _shard_path(d, index, shard):
    """DIR/shard for a file name from the index, which travels with a download and so is confined
    to the directory: an absolute path, or one that climbs out with '..', is refused. (Symlinks in
    the directory are followed: the directory's owner made them, as the Hugging Face cache links
    every snapshot file to ../../blobs/.)"""
    if not isinstance(shard, str) or not shard or "\0" in shard:
        raise CheckpointError(index, "weight_map: shard %s: expected a file name" % show(shard))
    norm = os.path.normpath(shard)
    if os.path.isabs(shard) or norm == os.curdir or norm == os.pardir or norm.startswith(os.pardir + os.sep):
        raise CheckpointError(index, "weight_map: shard %s leaves the checkpoint directory (a shard is a file "
                              "in it)" % show(shard))
    return os.path.join(d, norm)


def _hf_tensors(d):
    """({name: (array, file)}, the file that lists them: the index or DIR) from DIR's index and
    shards, or from every *.safetensors in DIR."""
    index = os.path.join(d, "model.safetensors.index.json")
    out = {}
    if os.path.exists(index):
        weight_map = _read_json(index)
        weight_map = weight_map.get("weight_map") if isinstance(weight_map, dict) else None
        if not isinstance(weight_map, dict) or not weight_map:
            raise CheckpointError(index, "no 'weight_map' object")
        shards = {}
        for name, shard in weight_map.items():
            shards.setdefault(_shard_path(d, index, shard), []).append(name)
        for sp, names in sorted(shards.items()):
            if not os.path.isfile(sp):
                raise CheckpointError(index, "shard %s is missing (it holds tensor %s%s)" % (
                    sp, show(names[0], quote=False), " and %d more" % (len(names) - 1) if len(names) > 1 else ""))
            arrays, _ = read_safetensors(sp)
            for name in names:
                if name not in arrays:
                    raise CheckpointError(sp, "not in this shard, where %s puts it" % index, name)
                out[name] = (arrays[name], sp)
        return out, index
    files = sorted(n for n in os.listdir(d) if n.endswith(".safetensors"))
    if not files:
        raise CheckpointError(d, "no *.safetensors files (pytorch_model.bin and other formats are not read: "
                              "convert them to safetensors)")
    for n in files:
        sp = os.path.join(d, n)
        for name, arr in read_safetensors(sp)[0].items():
            if name in out:
                raise CheckpointError(sp, "also in %s" % out[name][1], name)
            out[name] = (arr, sp)
    return out, d


# multimodal Gemma 3: the language model's tensors under these prefixes, the vision tower's ignored
_GEMMA3_TEXT_PREFIXES = (("language_model.model.", "model."), ("model.language_model.", "model."),
                         ("language_model.lm_head.", "lm_head."))
_GEMMA3_OTHER_PREFIXES = ("vision_tower.", "multi_modal_projector.", "model.vision_tower.", "model.multi_modal_projector.")


def load_hf(d, dtype=torch.float32):
    """A CausalLM from a Hugging Face checkpoint directory."""
    d = os.fspath(d)
    cfg_path = os.path.join(d, "config.json")
    if not os.path.isfile(cfg_path):
        raise CheckpointError(cfg_path, "missing (a Hugging Face checkpoint directory needs config.json)")
    raw = _read_json(cfg_path)
    if not isinstance(raw, dict):
        raise CheckpointError(cfg_path, "expected a JSON object of configuration keys")
    gemma3 = raw.get("model_type") == "gemma3" and isinstance(raw.get("text_config"), dict)
    if gemma3:
        raw = dict(raw["text_config"], model_type="gemma3_text")
        raw.setdefault("tie_word_embeddings", True)
    cfg = _config(raw, cfg_path)   # before the tensors are read: a bad config costs no I/O
    tensors, source = _hf_tensors(d)
    if gemma3:
        mapped = {}
        for name, val in tensors.items():
            if name.startswith(_GEMMA3_OTHER_PREFIXES):
                continue
            for old, new in _GEMMA3_TEXT_PREFIXES:
                if name.startswith(old):
                    name = new + name[len(old):]
                    break
            mapped[name] = val
        tensors = mapped
    return _build(cfg, tensors, source, cfg_path, dtype)


def _check_tensors(cfg, tensors, source, cfg_path):
    """Every tensor of cfg's model present with its shape and a floating-point dtype, none other:
    checked against parameter_shapes(cfg) before the model exists, so a config claiming a huge
    vocabulary or many layers is refused, naming the file, the tensor and the config keys, without
    allocating it. tensors: {name: (array, file)}."""
    seen = set()
    for name, shape, keys in parameter_shapes(cfg):
        seen.add(name)
        if name not in tensors:
            if name == "lm_head.weight" and cfg["tie_word_embeddings"]:
                continue
            why = ("num_hidden_layers %d" % cfg["num_hidden_layers"] if name.startswith("model.layers.")
                   else "model_type %s" % cfg["model_type"])
            raise CheckpointError(source, "missing, though %s's %s implies it" % (cfg_path, why), name)
        arr, f = tensors[name]
        if tuple(arr.shape) != shape:
            raise CheckpointError(f, "shape %s, but %s's %s make it %s" % (
                list(arr.shape), cfg_path, ", ".join("%s %d" % (k, cfg[k]) for k in keys), list(shape)), name)
        if arr.dtype.kind != "f":
            raise CheckpointError(f, "dtype %s: expected floating-point weights" % arr.dtype, name)
    for name in sorted(set(tensors) - seen):
        raise CheckpointError(tensors[name][1], "unexpected tensor: not in the %s model %s describes"
                              % (cfg["model_type"], cfg_path), name)


def _build(cfg, tensors, source, cfg_path, dtype):
    """The model of cfg with tensors {name: (array, file)}; refuses missing, unexpected or misshapen
    ones (source: the file that lists the tensors, cfg_path: the config's) before building it."""
    tensors = {k: v for k, v in tensors.items() if not k.endswith("rotary_emb.inv_freq")}  # recomputed
    _check_tensors(cfg, tensors, source, cfg_path)
    if cfg["tie_word_embeddings"] and "lm_head.weight" in tensors:
        head, emb = tensors.pop("lm_head.weight"), tensors["model.embed_tokens.weight"]
        if not np.array_equal(head[0], emb[0]):
            raise CheckpointError(head[1], "differs from model.embed_tokens.weight but %s ties them "
                                  "(tie_word_embeddings)" % cfg_path, "lm_head.weight")
    model = CausalLM(cfg)
    state = {k: torch.from_numpy(np.ascontiguousarray(v[0])).to(dtype) for k, v in tensors.items()}
    if cfg["tie_word_embeddings"]:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    model.load_state_dict(state, strict=True)
    return model.to(dtype).eval()


# ----------------------------------------------------------------------------- llama2.c

_LLAMA2C_MAGIC = 0x616B3432   # "ak42": llama2.c's version 1/2 exports, which this reader does not take
_LLAMA2C_HEADER = ("dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len")


def _llama2c_layout(h):
    """[(name, shape)] of the fp32 arrays after the header, in file order (shapes as torch Linear weights)."""
    L, dim, hid, hs = h["n_layers"], h["dim"], h["hidden_dim"], h["dim"] // h["n_heads"]
    v, kv = abs(h["vocab_size"]), h["n_kv_heads"] * hs
    out = [("token_embedding", (v, dim)), ("rms_att", (L, dim)), ("wq", (L, h["n_heads"] * hs, dim)),
           ("wk", (L, kv, dim)), ("wv", (L, kv, dim)), ("wo", (L, dim, h["n_heads"] * hs)), ("rms_ffn", (L, dim)),
           ("w1", (L, hid, dim)), ("w2", (L, dim, hid)), ("w3", (L, hid, dim)), ("rms_final", (dim,)),
           ("freq_cis_real", (h["seq_len"], hs // 2)), ("freq_cis_imag", (h["seq_len"], hs // 2))]
    return out + ([("wcls", (v, dim))] if h["vocab_size"] < 0 else [])


def read_llama2c(path):
    """(header dict, {array name: float32 array}) of a llama2.c .bin; CheckpointError naming the file.
    The header's sizes are checked against the file's length before the weights are read."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(28)
            if len(head) < 28:
                raise CheckpointError(path, "%d bytes: too short for a llama2.c header (seven int32)" % len(head))
            if struct.unpack("<I", head[:4])[0] == _LLAMA2C_MAGIC:
                raise CheckpointError(path, "a llama2.c version-%d export (magic 'ak42'): only the legacy format (header "
                                      "of seven int32, fp32 weights) is read" % struct.unpack("<i", head[4:8])[0])
            h = dict(zip(_LLAMA2C_HEADER, struct.unpack("<7i", head)))
            for k in _LLAMA2C_HEADER:
                if h[k] <= 0 and (k != "vocab_size" or h[k] == 0):
                    raise CheckpointError(path, "header %s = %d is not positive (not a llama2.c checkpoint?)" % (k, h[k]))
            if h["dim"] % h["n_heads"] or h["n_heads"] % h["n_kv_heads"] or (h["dim"] // h["n_heads"]) % 2:
                raise CheckpointError(path, "header dim %d, n_heads %d, n_kv_heads %d: dim must be an even multiple of "
                                      "n_heads and n_heads a multiple of n_kv_heads"
                                      % (h["dim"], h["n_heads"], h["n_kv_heads"]))
            layout = _llama2c_layout(h)
            need = 28 + 4 * sum(math.prod(s) for _, s in layout)
            if size != need:
                raise CheckpointError(path, "%d bytes, but the header (%s) implies %d (fp32 weights in llama2.c's order)"
                                      % (size, ", ".join("%s %d" % (k, h[k]) for k in _LLAMA2C_HEADER), need))
            raw = f.read(need - 28 + 1)
    except OSError as e:
        raise CheckpointError(path, "cannot read: %s" % (e.strerror or e)) from None
    if len(raw) != need - 28:
        raise CheckpointError(path, "changed size while being read")
    arrays, off = {}, 0
    for name, shape in layout:
        n = math.prod(shape)
        arrays[name] = np.frombuffer(raw, dtype="<f4", count=n, offset=off).reshape(shape).copy()
        off += 4 * n
    return h, arrays


def _half_to_interleaved(w, heads):
    """Rows of a q/k projection from the half-split RoPE pairs (j, j + d/2) to llama2.c's (2j, 2j+1)."""
    rows, cols = w.shape
    d = rows // heads
    return w.reshape(heads, 2, d // 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def llama2c_config(h):
    """The Hugging Face Llama config of a llama2.c header (run.c: RMSNorm eps 1e-5, RoPE theta 10000)."""
    return {"model_type": "llama", "hidden_size": h["dim"], "intermediate_size": h["hidden_dim"],
            "num_hidden_layers": h["n_layers"], "num_attention_heads": h["n_heads"],
            "num_key_value_heads": h["n_kv_heads"], "vocab_size": abs(h["vocab_size"]),
            "max_position_embeddings": h["seq_len"], "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
            "tie_word_embeddings": h["vocab_size"] > 0, "head_dim": h["dim"] // h["n_heads"],
            "rope_interleaved": True}   # the checkpoint's head-dim order kept: 8-bit sums depend on it


def load_llama2c(path, dtype=torch.float32):
    """A Llama CausalLM from a llama2.c .bin."""
    h, a = read_llama2c(path)
    cfg = _config(llama2c_config(h), path)
    t = {"model.embed_tokens.weight": a["token_embedding"], "model.norm.weight": a["rms_final"]}
    for i in range(h["n_layers"]):
        p = "model.layers.%d." % i
        t[p + "input_layernorm.weight"] = a["rms_att"][i]
        t[p + "post_attention_layernorm.weight"] = a["rms_ffn"][i]
        t[p + "self_attn.q_proj.weight"] = a["wq"][i]   # rows in llama2.c's RoPE pairs (rope_interleaved)
        t[p + "self_attn.k_proj.weight"] = a["wk"][i]
        t[p + "self_attn.v_proj.weight"] = a["wv"][i]
        t[p + "self_attn.o_proj.weight"] = a["wo"][i]
        t[p + "mlp.gate_proj.weight"] = a["w1"][i]
        t[p + "mlp.down_proj.weight"] = a["w2"][i]
        t[p + "mlp.up_proj.weight"] = a["w3"][i]
    if "wcls" in a:
        t["lm_head.weight"] = a["wcls"]
    return _build(cfg, {k: (v, path) for k, v in t.items()}, path, path, dtype)


def export_llama2c(model, path, seq_len=None):
    """Writes a Llama-architecture CausalLM as a legacy llama2.c .bin (what run.c computes must be
    what the model computes: refuses QK-norm, biases, Gemma, sliding windows, rope_scaling, theta
    other than 10000, RMSNorm eps other than 1e-5, head_dim other than hidden / heads)."""
    c = model.config
    why = [k for k, bad in (("model_type", c["model_type"] not in ("llama", "qwen2", "qwen3", "lampsim-tiny")),
                            ("QK-norm", model.model.layers[0].self_attn.q_norm is not None),
                            ("biases", any(n.endswith(".bias") for n, _ in model.named_parameters())),
                            ("hidden_act", c.get("hidden_act") != "silu"),
                            ("layer_types", any(t != "full_attention" for t in c["layer_types"])),
                            ("rope_scaling", bool(c["rope_scaling"])), ("rope_theta", float(c["rope_theta"]) != 10000.0),
                            ("rms_norm_eps", float(c["rms_norm_eps"]) != 1e-5),
                            ("head_dim", c["head_dim"] * c["num_attention_heads"] != c["hidden_size"])) if bad]
    if why:
        raise ConfigError("export_llama2c: llama2.c's format cannot express %s of this model" % ", ".join(why))
    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    L, hq, hk = c["num_hidden_layers"], c["num_attention_heads"], c["num_key_value_heads"]
    seq_len = seq_len or int(c.get("max_position_embeddings") or 2048)
    vocab = c["vocab_size"] if c["tie_word_embeddings"] else -c["vocab_size"]
    lay = ["model.layers.%d." % i for i in range(L)]
    inv = rope_frequencies(c["head_dim"], 10000.0).numpy()
    order = (lambda w, heads: w) if c.get("rope_interleaved") else _half_to_interleaved
    ang = np.arange(seq_len)[:, None] * inv[None, :]
    parts = [sd["model.embed_tokens.weight"], np.stack([sd[p + "input_layernorm.weight"] for p in lay]),
             np.stack([order(sd[p + "self_attn.q_proj.weight"], hq) for p in lay]),
             np.stack([order(sd[p + "self_attn.k_proj.weight"], hk) for p in lay]),
             np.stack([sd[p + "self_attn.v_proj.weight"] for p in lay]),
             np.stack([sd[p + "self_attn.o_proj.weight"] for p in lay]),
             np.stack([sd[p + "post_attention_layernorm.weight"] for p in lay]),
             np.stack([sd[p + "mlp.gate_proj.weight"] for p in lay]), np.stack([sd[p + "mlp.down_proj.weight"] for p in lay]),
             np.stack([sd[p + "mlp.up_proj.weight"] for p in lay]), sd["model.norm.weight"], np.cos(ang), np.sin(ang)]
    if vocab < 0:
        parts.append(sd["lm_head.weight"])
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<7i", c["hidden_size"], c["intermediate_size"], L, hq, hk, vocab, seq_len))
        for p in parts:
            f.write(np.ascontiguousarray(p, dtype="<f4").tobytes())
    os.replace(tmp, path)


def export_hf(model, out_dir, shards=1):
    """Writes config.json and the fp32 tensors (one model.safetensors, or `shards` files with
    model.safetensors.index.json) of a CausalLM: a Hugging Face checkpoint directory."""
    os.makedirs(out_dir, exist_ok=True)
    c = model.config
    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()
          if not (c["tie_word_embeddings"] and k == "lm_head.weight")}
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(c, f, indent=1, sort_keys=True)
    names = sorted(sd)
    if shards <= 1:
        write_safetensors(os.path.join(out_dir, "model.safetensors"), sd, {"format": "pt"})
        return
    weight_map = {}
    for s in range(shards):
        part = names[s::shards]
        fname = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        write_safetensors(os.path.join(out_dir, fname), {n: sd[n] for n in part}, {"format": "pt"})
        weight_map.update({n: fname for n in part})
    with open(os.path.join(out_dir, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": int(sum(a.nbytes for a in sd.values()))}, "weight_map": weight_map},
                  f, indent=1, sort_keys=True)


# ----------------------------------------------------------------------------- tokenizers

class ByteTokenizer:
    """UTF-8 bytes as token ids (vocabulary 256, the tiny model's)."""
    vocab_size = 256

    def encode(self, text):
        return list(text.encode("utf-8"))

    def decode(self, ids):
        return bytes(int(i) for i in ids).decode("utf-8", errors="replace")


class Llama2cTokenizer:
    """llama2.c's tokenizer.bin: int32 max_token_length, then per token float32 score, int32 length,
    bytes. encode: each character's token (else its bytes' <0xXX> tokens), then repeatedly merge the
    adjacent pair whose concatenation is a token with the highest score (sentencepiece BPE)."""

    def __init__(self, path, vocab_size):
        self.path = path
        try:
            with open_regular(path) as f:
                raw = f.read()
        except OSError as e:
            raise CheckpointError(path, "cannot read: %s" % (e.strerror or e)) from None
        if len(raw) < 4:
            raise CheckpointError(path, "too short for a tokenizer.bin")
        self.max_token_length = struct.unpack("<i", raw[:4])[0]
        self.pieces, self.scores, off = [], [], 4
        for i in range(vocab_size):
            if off + 8 > len(raw):
                raise CheckpointError(path, "ends at token %d of the model's %d" % (i, vocab_size))
            score, n = struct.unpack("<fi", raw[off:off + 8])
            if n < 0 or off + 8 + n > len(raw):
                raise CheckpointError(path, "token %d has length %d beyond the file" % (i, n))
            self.pieces.append(raw[off + 8:off + 8 + n])
            self.scores.append(score)
            off += 8 + n
        if off != len(raw):
            raise CheckpointError(path, "%d bytes after the model's %d tokens (a tokenizer for a larger vocabulary?)"
                                  % (len(raw) - off, vocab_size))
        self.vocab_size = vocab_size
        self.lookup = {}
        for i, p in enumerate(self.pieces):
            self.lookup.setdefault(p, i)

    def _byte_id(self, b):
        for piece in (b"<0x%02X>" % b, bytes([b])):
            if piece in self.lookup:
                return self.lookup[piece]
        raise CheckpointError(self.path, "byte 0x%02X has no token" % b)

    def encode(self, text, bos=None, dummy_prefix=False):
        """Token ids of text; bos: an id to put first; dummy_prefix: prepend a space (sentencepiece's)."""
        if dummy_prefix and text:
            text = " " + text
        ids = []
        for ch in text:
            b = ch.encode("utf-8")
            ids += [self.lookup[b]] if b in self.lookup else [self._byte_id(x) for x in b]
        return ([bos] if bos is not None else []) + self._merge(ids)

    def _merge(self, ids):
        """The best-scoring merge first, the leftmost among equals, until no adjacent pair merges:
        llama2.c's loop, with a heap of candidate pairs and a linked list (n log n, not n^2)."""
        n = len(ids)
        if n < 2:
            return ids
        nxt, prv = list(range(1, n + 1)), list(range(-1, n - 1))
        nxt[-1] = -1
        ver, alive, heap = [0] * n, [True] * n, []

        def push(i):
            j = nxt[i]
            if j >= 0:
                m = self.lookup.get(self.pieces[ids[i]] + self.pieces[ids[j]])
                if m is not None:   # position i orders equal scores left to right
                    heapq.heappush(heap, (-self.scores[m], i, ver[i], j, ver[j], m))

        for i in range(n - 1):
            push(i)
        while heap:
            _, i, vi, j, vj, m = heapq.heappop(heap)
            if not (alive[i] and alive[j] and nxt[i] == j and ver[i] == vi and ver[j] == vj):
                continue   # stale: one side merged since
            ids[i], ver[i], alive[j] = m, ver[i] + 1, False
            nxt[i] = nxt[j]
            if nxt[j] >= 0:
                prv[nxt[j]] = i
            if prv[i] >= 0:
                push(prv[i])
            push(i)
        out, i = [], 0
        while i >= 0:
            out.append(ids[i])
            i = nxt[i]
        return out

    def decode(self, ids):
        out = b""
        for i in ids:
            p = self.pieces[int(i)]
            m = re.fullmatch(rb"<0x([0-9A-Fa-f]{2})>", p)
            out += bytes([int(m.group(1), 16)]) if m else p
        return out.decode("utf-8", errors="replace")


def write_llama2c_tokenizer(path, pieces, scores=None):
    """tokenizer.bin for the given token byte strings (scores default 0)."""
    scores = scores or [0.0] * len(pieces)
    with open(path, "wb") as f:
        f.write(struct.pack("<i", max(len(p) for p in pieces)))
        for p, s in zip(pieces, scores):
            f.write(struct.pack("<fi", s, len(p)) + p)


class _HFTokenizer:
    def __init__(self, path):
        from tokenizers import Tokenizer
        self._t = Tokenizer.from_file(path)
        self.vocab_size = self._t.get_vocab_size()

    def encode(self, text):
        return self._t.encode(text, add_special_tokens=False).ids

    def decode(self, ids):
        return self._t.decode([int(i) for i in ids])


def load_tokenizer(checkpoint, vocab_size, tokenizer=None):
    """The tokenizer of a checkpoint: `tokenizer` (a tokenizer.bin or tokenizer.json) if given, else
    the checkpoint's own (DIR/tokenizer.json; tokenizer.bin beside a .bin), else byte-level when the
    vocabulary is 256. Returns (tokenizer or None, why not)."""
    path = tokenizer
    if path is None:
        base = checkpoint if os.path.isdir(checkpoint) else os.path.dirname(os.path.abspath(checkpoint))
        for name in (("tokenizer.json",) if os.path.isdir(checkpoint) else ("tokenizer.bin",)):
            if os.path.isfile(os.path.join(base, name)):
                path = os.path.join(base, name)
    if path is None:
        if vocab_size == 256:
            return ByteTokenizer(), None
        return None, "%s: no tokenizer found (tokenizer.json, or tokenizer.bin beside a .bin)" % checkpoint
    if not os.path.isfile(path):
        raise CheckpointError(path, "no such tokenizer file")
    if path.endswith(".bin"):
        return Llama2cTokenizer(path, vocab_size), None
    try:
        tok = _HFTokenizer(path)
    except ImportError:
        if vocab_size == 256:
            return ByteTokenizer(), None
        return None, "%s needs the `tokenizers` package, which is not installed" % path
    if tok.vocab_size > vocab_size:
        raise CheckpointError(path, "%d tokens, the model has %d" % (tok.vocab_size, vocab_size))
    return tok, None
