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
import os
import re
import struct

import numpy as np
import torch

from .model import CausalLM, ConfigError, check_config, rope_frequencies
from .safetensors_io import read_safetensors, write_safetensors


class CheckpointError(ConfigError):
    """A checkpoint file that is missing, truncated or does not match its config."""


# ----------------------------------------------------------------------------- loading

def load_model(path, dtype=torch.float32):
    """A CausalLM (eval mode) from a Hugging Face directory, a llama2.c .bin or a .safetensors with
    its config in the metadata."""
    if os.path.isdir(path):
        return load_hf(path, dtype)
    if not os.path.isfile(path):
        raise CheckpointError("%s: no such checkpoint (a directory with config.json, a .bin or a .safetensors)" % path)
    if path.endswith(".bin"):
        return load_llama2c(path, dtype)
    if path.endswith(".safetensors"):
        tensors, meta = read_safetensors(path)
        if "config" not in meta:
            raise CheckpointError("%s: no 'config' entry in the safetensors metadata (a Hugging Face checkpoint is "
                                  "loaded from its directory, with config.json)" % path)
        return _build(check_config(json.loads(meta["config"]), path), {k: (v, path) for k, v in tensors.items()},
                      path, dtype)
    raise CheckpointError("%s: unknown checkpoint format (expected a directory, .bin or .safetensors)" % path)


def _hf_tensors(d):
    """{name: (array, file)} from DIR's index and shards, or from every *.safetensors in DIR."""
    index = os.path.join(d, "model.safetensors.index.json")
    out = {}
    if os.path.exists(index):
        with open(index) as f:
            weight_map = json.load(f).get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise CheckpointError("%s: no 'weight_map' object" % index)
        shards = {}
        for name, shard in weight_map.items():
            shards.setdefault(shard, []).append(name)
        for shard, names in sorted(shards.items()):
            sp = os.path.join(d, shard)
            if not os.path.isfile(sp):
                raise CheckpointError("%s: shard %s is missing (it holds tensor %s%s)"
                                      % (index, sp, names[0], " and %d more" % (len(names) - 1) if len(names) > 1 else ""))
            arrays, _ = read_safetensors(sp)
            for name in names:
                if name not in arrays:
                    raise CheckpointError("%s: tensor %s is not in %s, where %s puts it" % (sp, name, shard, index))
                out[name] = (arrays[name], sp)
        return out
    files = sorted(n for n in os.listdir(d) if n.endswith(".safetensors"))
    if not files:
        raise CheckpointError("%s: no *.safetensors files (pytorch_model.bin and other formats are not read: "
                              "convert them to safetensors)" % d)
    for n in files:
        sp = os.path.join(d, n)
        for name, arr in read_safetensors(sp)[0].items():
            if name in out:
                raise CheckpointError("%s: tensor %s is also in %s" % (sp, name, out[name][1]))
            out[name] = (arr, sp)
    return out


# multimodal Gemma 3: the language model's tensors under these prefixes, the vision tower's ignored
_GEMMA3_TEXT_PREFIXES = (("language_model.model.", "model."), ("model.language_model.", "model."),
                         ("language_model.lm_head.", "lm_head."))
_GEMMA3_OTHER_PREFIXES = ("vision_tower.", "multi_modal_projector.", "model.vision_tower.", "model.multi_modal_projector.")


def load_hf(d, dtype=torch.float32):
    """A CausalLM from a Hugging Face checkpoint directory."""
    cfg_path = os.path.join(d, "config.json")
    if not os.path.isfile(cfg_path):
        raise CheckpointError("%s: missing (a Hugging Face checkpoint directory needs config.json)" % cfg_path)
    with open(cfg_path) as f:
        try:
            raw = json.load(f)
        except json.JSONDecodeError as e:
            raise CheckpointError("%s: line %d: not JSON (%s)" % (cfg_path, e.lineno, e.msg))
    tensors = _hf_tensors(d)
    if raw.get("model_type") == "gemma3" and isinstance(raw.get("text_config"), dict):
        raw = dict(raw["text_config"], model_type="gemma3_text")
        raw.setdefault("tie_word_embeddings", True)
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
    return _build(check_config(raw, cfg_path), tensors, d, dtype)


def _build(cfg, tensors, source, dtype):
    """The model of cfg with tensors {name: (array, file)}; refuses missing, unexpected or misshapen ones."""
    model = CausalLM(cfg)
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    tensors = {k: v for k, v in tensors.items() if not k.endswith("rotary_emb.inv_freq")}  # recomputed
    if cfg["tie_word_embeddings"] and "lm_head.weight" in tensors and "model.embed_tokens.weight" in tensors:
        head, emb = tensors.pop("lm_head.weight"), tensors["model.embed_tokens.weight"]
        if head[0].shape != emb[0].shape or not np.array_equal(head[0], emb[0]):
            raise CheckpointError("%s: tensor lm_head.weight differs from model.embed_tokens.weight but the config "
                                  "ties them (tie_word_embeddings)" % head[1])
    for name, (arr, f) in sorted(tensors.items()):
        if name not in expected:
            raise CheckpointError("%s: unexpected tensor %s (not in a %s model of this config)" % (f, name, cfg["model_type"]))
        if tuple(arr.shape) != expected[name]:
            raise CheckpointError("%s: tensor %s has shape %s, the config implies %s"
                                  % (f, name, list(arr.shape), list(expected[name])))
    state = {k: torch.from_numpy(np.ascontiguousarray(v[0])).to(dtype) for k, v in tensors.items()}
    if cfg["tie_word_embeddings"] and "model.embed_tokens.weight" in state:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    missing = sorted(set(expected) - set(state))
    if missing:
        raise CheckpointError("%s: tensor %s is missing%s" % (source, missing[0], " (and %d more)" % (len(missing) - 1)
                                                             if len(missing) > 1 else ""))
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
    """(header dict, {array name: float32 array}) of a llama2.c .bin; CheckpointError naming the file."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 28:
        raise CheckpointError("%s: %d bytes: too short for a llama2.c header (seven int32)" % (path, len(raw)))
    if struct.unpack("<I", raw[:4])[0] == _LLAMA2C_MAGIC:
        raise CheckpointError("%s: a llama2.c version-%d export (magic 'ak42'): only the legacy format (header of seven "
                              "int32, fp32 weights) is read" % (path, struct.unpack("<i", raw[4:8])[0]))
    h = dict(zip(_LLAMA2C_HEADER, struct.unpack("<7i", raw[:28])))
    for k in _LLAMA2C_HEADER:
        if h[k] <= 0 and (k != "vocab_size" or h[k] == 0):
            raise CheckpointError("%s: header %s = %d is not positive (not a llama2.c checkpoint?)" % (path, k, h[k]))
    if h["dim"] % h["n_heads"] or h["n_heads"] % h["n_kv_heads"] or (h["dim"] // h["n_heads"]) % 2:
        raise CheckpointError("%s: header dim %d, n_heads %d, n_kv_heads %d: dim must be an even multiple of n_heads "
                              "and n_heads a multiple of n_kv_heads" % (path, h["dim"], h["n_heads"], h["n_kv_heads"]))
    layout = _llama2c_layout(h)
    need = 28 + 4 * sum(int(np.prod(s)) for _, s in layout)
    if len(raw) != need:
        raise CheckpointError("%s: %d bytes, but the header (%s) implies %d (fp32 weights in llama2.c's order)"
                              % (path, len(raw), ", ".join("%s %d" % (k, h[k]) for k in _LLAMA2C_HEADER), need))
    arrays, off = {}, 28
    for name, shape in layout:
        n = int(np.prod(shape))
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
    cfg = check_config(llama2c_config(h), path)
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
    return _build(cfg, {k: (v, path) for k, v in t.items()}, path, dtype)


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
        with open(path, "rb") as f:
            raw = f.read()
        if len(raw) < 4:
            raise CheckpointError("%s: too short for a tokenizer.bin" % path)
        self.max_token_length = struct.unpack("<i", raw[:4])[0]
        self.pieces, self.scores, off = [], [], 4
        for i in range(vocab_size):
            if off + 8 > len(raw):
                raise CheckpointError("%s: ends at token %d of the model's %d" % (path, i, vocab_size))
            score, n = struct.unpack("<fi", raw[off:off + 8])
            if n < 0 or off + 8 + n > len(raw):
                raise CheckpointError("%s: token %d has length %d beyond the file" % (path, i, n))
            self.pieces.append(raw[off + 8:off + 8 + n])
            self.scores.append(score)
            off += 8 + n
        if off != len(raw):
            raise CheckpointError("%s: %d bytes after the model's %d tokens (a tokenizer for a larger vocabulary?)"
                                  % (path, len(raw) - off, vocab_size))
        self.vocab_size = vocab_size
        self.lookup = {}
        for i, p in enumerate(self.pieces):
            self.lookup.setdefault(p, i)

    def _byte_id(self, b):
        for piece in (b"<0x%02X>" % b, bytes([b])):
            if piece in self.lookup:
                return self.lookup[piece]
        raise CheckpointError("tokenizer: byte 0x%02X has no token" % b)

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
        raise CheckpointError("%s: no such tokenizer file" % path)
    if path.endswith(".bin"):
        return Llama2cTokenizer(path, vocab_size), None
    try:
        tok = _HFTokenizer(path)
    except ImportError:
        if vocab_size == 256:
            return ByteTokenizer(), None
        return None, "%s needs the `tokenizers` package, which is not installed" % path
    if tok.vocab_size > vocab_size:
        raise CheckpointError("%s: %d tokens, the model has %d" % (path, tok.vocab_size, vocab_size))
    return tok, None
