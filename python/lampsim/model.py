"""Decoder-only language models in plain PyTorch (1.13 and 2.x): Qwen3, Qwen2, Llama, Gemma 3 (text).

RMSNorm (Gemma: 1 + weight, sandwich norms, embeddings scaled by sqrt(hidden)), headwise QK-norm
with learned gains before RoPE (Qwen3, Gemma 3), rotary position embeddings with rope_scaling
default / linear / llama3, grouped-query attention, SwiGLU or tanh-GELU MLP, sliding-window layers,
optional tied embeddings. Parameter names follow Hugging Face's checkpoints
(``model.layers.N.self_attn.q_proj.weight`` ...), so a user's ``config.json`` + ``.safetensors``
loads with :func:`load_pretrained` (lampsim.checkpoints also reads llama2.c ``.bin`` files).

Attention itself is computed by :class:`CoreAttention`, a submodule whose forward takes
``(q, k, v)`` after QK-norm and RoPE. It calls ``torch.nn.functional.scaled_dot_product_attention``
when torch has it (2.x) and the same arithmetic written out otherwise (torch 1.13): so both
:func:`lampsim.patch_sdpa` and :func:`lampsim.patch_modules` can route it through lampsim.
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from .errors import ConfigError, is_int, is_number, show

# Per architecture (config.json's model_type): the math it implies beyond the shared decoder, and
# the defaults Hugging Face's config classes use when a key is absent. One table: check_config,
# the modules and the docs (docs/models.md) follow it.
_ARCH = {
    # QK-norm, bias on q/k/v (key or fixed), bias on o, Gemma-style norms/scaling
    "qwen3": {"qk_norm": True, "qkv_bias": "attention_bias", "o_bias": "attention_bias", "gemma": False,
              "defaults": {"rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False}},
    "lampsim-tiny": {"qk_norm": True, "qkv_bias": "attention_bias", "o_bias": "attention_bias", "gemma": False,
                     "defaults": {"rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False}},
    "llama": {"qk_norm": False, "qkv_bias": "attention_bias", "o_bias": "attention_bias", "gemma": False,
              "defaults": {"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False}},
    "qwen2": {"qk_norm": False, "qkv_bias": True, "o_bias": False, "gemma": False,
              "defaults": {"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False}},
    "gemma3_text": {"qk_norm": True, "qkv_bias": "attention_bias", "o_bias": "attention_bias", "gemma": True,
                    "defaults": {"rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
                                 "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 256,
                                 "rope_local_base_freq": 10000.0, "sliding_window": 4096,
                                 "sliding_window_pattern": 6}},
}
_DEFAULTS = {"attention_bias": False, "mlp_bias": False, "hidden_act": "silu"}
_REQUIRED = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads")
_ACTIVATIONS = ("silu", "gelu_pytorch_tanh")
# Keys that change the math and are not implemented: refused when set to anything but these values.
_UNSUPPORTED = {"partial_rotary_factor": (None, 1, 1.0), "attn_logit_softcapping": (None,),
                "use_bidirectional_attention": (None, False), "quantization_config": (None,),
                "num_experts": (None, 0), "num_local_experts": (None, 0)}
_ROPE_TYPES = ("default", "linear", "llama3")


# Value types, checked before anything is computed from them (a config comes from a user's file).
# Integers are bounded by int32 (the engine's and llama2.c's), layers by _MAX_LAYERS (published
# models have at most a few hundred): a config alone must not make the loader build huge tables.
_INT_KEYS = {"vocab_size": 1, "hidden_size": 1, "intermediate_size": 1, "num_hidden_layers": 1,
             "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 1, "sliding_window": 1,
             "sliding_window_pattern": 1, "max_position_embeddings": 1, "max_window_layers": 0}   # key: minimum
_MAX_INT = (1 << 31) - 1
_MAX_LAYERS = 1 << 16
_POSITIVE_KEYS = ("rms_norm_eps", "rope_theta", "rope_local_base_freq", "query_pre_attn_scalar",
                  "final_logit_softcapping")   # finite and > 0
_BOOL_KEYS = ("tie_word_embeddings", "attention_bias", "mlp_bias", "use_sliding_window")
_STR_KEYS = ("hidden_act", "hidden_activation")


def _check_values(out, source):
    """Refuses a value of the wrong type or out of range, naming the key (None: the key is unset)."""
    for k, lo in _INT_KEYS.items():
        v = out.get(k)
        if v is not None and not (is_int(v) and lo <= v <= _MAX_INT):
            raise ConfigError("%s: %s %s: expected an integer in [%d, %d]" % (source, k, show(v), lo, _MAX_INT))
    if out["num_hidden_layers"] > _MAX_LAYERS:
        raise ConfigError("%s: num_hidden_layers %d: more than %d layers" % (source, out["num_hidden_layers"], _MAX_LAYERS))
    for k in _POSITIVE_KEYS:
        v = out.get(k)
        if v is not None and not (is_number(v) and v > 0):
            raise ConfigError("%s: %s %s: expected a finite number > 0" % (source, k, show(v)))
    for k in _BOOL_KEYS:
        if out.get(k) is not None and not isinstance(out[k], bool):
            raise ConfigError("%s: %s %s: expected true or false" % (source, k, show(out[k])))
    for k in _STR_KEYS:
        if out.get(k) is not None and not isinstance(out[k], str):
            raise ConfigError("%s: %s %s: expected a string" % (source, k, show(out[k])))


def _rope_scaling(rs, source):
    """rope_scaling normalised to a dict with 'rope_type' (None: no scaling), or ConfigError."""
    if not rs:
        return None
    if not isinstance(rs, dict):
        raise ConfigError("%s: rope_scaling: expected an object, got %r" % (source, rs))
    kind = rs.get("rope_type", rs.get("type", "default"))
    if not isinstance(kind, str) or kind not in _ROPE_TYPES:
        raise ConfigError("%s: rope_scaling.rope_type %s is not supported (%s only)" % (source, show(kind), ", ".join(_ROPE_TYPES)))
    need = {"linear": ("factor",), "llama3": ("factor", "low_freq_factor", "high_freq_factor",
                                              "original_max_position_embeddings")}.get(kind, ())
    for k in need:
        if k not in rs:
            raise ConfigError("%s: rope_scaling (%s) misses %r" % (source, kind, k))
        if not (is_number(rs[k]) and rs[k] > 0):
            raise ConfigError("%s: rope_scaling.%s %s: expected a finite number > 0" % (source, k, show(rs[k])))
    if kind == "llama3" and rs["high_freq_factor"] <= rs["low_freq_factor"]:
        raise ConfigError("%s: rope_scaling.high_freq_factor %s: expected more than low_freq_factor %s"
                          % (source, show(rs["high_freq_factor"]), show(rs["low_freq_factor"])))
    return dict(rs, rope_type=kind) if kind != "default" else None


def check_config(cfg, source="config"):
    """Returns a complete config dict or raises ConfigError naming the source and the offending key.

    Adds the derived keys head_dim, num_key_value_heads and layer_types (per layer "full_attention"
    or "sliding_attention")."""
    if not isinstance(cfg, dict):
        raise ConfigError("%s: expected an object of configuration keys, got %s" % (source, show(cfg)))
    mt = cfg.get("model_type", "qwen3")
    if mt == "gemma3" and isinstance(cfg.get("text_config"), dict):
        raise ConfigError("%s: model_type 'gemma3' (multimodal): load it with lampsim.checkpoints.load_hf, which "
                          "takes its text_config" % source)
    if not isinstance(mt, str) or mt not in _ARCH:
        raise ConfigError("%s: model_type %s is not supported (%s)" % (source, show(mt), ", ".join(sorted(_ARCH))))
    arch = _ARCH[mt]
    out = dict(_DEFAULTS)
    out.update(arch["defaults"])
    out.update({k: v for k, v in cfg.items() if v is not None or k not in arch["defaults"]})
    out["model_type"] = mt
    for k in _REQUIRED:
        if out.get(k) is None:
            raise ConfigError("%s: missing key %r" % (source, k))
    for k, allowed in _UNSUPPORTED.items():
        if out.get(k) not in allowed:
            raise ConfigError("%s: %s %s is not supported (it changes the math)" % (source, k, show(out[k])))
    _check_values(out, source)
    if out.get("num_key_value_heads") is None:
        out["num_key_value_heads"] = out["num_attention_heads"]
    if out.get("head_dim") is None:
        out["head_dim"] = out["hidden_size"] // out["num_attention_heads"]
        if out["head_dim"] == 0:
            raise ConfigError("%s: hidden_size %d over num_attention_heads %d leaves head_dim 0"
                              % (source, out["hidden_size"], out["num_attention_heads"]))
    if out["head_dim"] % 2:
        raise ConfigError("%s: head_dim %d is odd (RoPE rotates pairs of coordinates)" % (source, out["head_dim"]))
    if out["num_attention_heads"] % out["num_key_value_heads"]:
        raise ConfigError("%s: num_attention_heads %d is not a multiple of num_key_value_heads %d"
                          % (source, out["num_attention_heads"], out["num_key_value_heads"]))
    act_key = "hidden_activation" if arch["gemma"] else "hidden_act"
    if out.get(act_key) not in _ACTIVATIONS:
        raise ConfigError("%s: %s %s is not supported (%s)" % (source, act_key, show(out.get(act_key)), ", ".join(_ACTIVATIONS)))
    out["rope_scaling"] = _rope_scaling(out.get("rope_scaling"), source)
    out["layer_types"] = _layer_types(out, arch, source)
    if "sliding_attention" in out["layer_types"] and not (isinstance(out.get("sliding_window"), int)
                                                          and out["sliding_window"] > 0):
        raise ConfigError("%s: sliding_window %r: expected a positive integer for the sliding-window layers"
                          % (source, out.get("sliding_window")))
    return out


def _layer_types(out, arch, source):
    n = out["num_hidden_layers"]
    lt = out.get("layer_types")
    if lt is not None:
        if not isinstance(lt, list):
            raise ConfigError("%s: layer_types %s: expected a list" % (source, show(lt)))
        if len(lt) != n:
            raise ConfigError("%s: layer_types has %d entries for %d layers" % (source, len(lt), n))
        for i, t in enumerate(lt):
            if t not in ("full_attention", "sliding_attention"):
                raise ConfigError("%s: layer_types[%d] %s is not supported (full_attention, sliding_attention)"
                                  % (source, i, show(t)))
        return list(lt)
    if arch["gemma"]:   # every sliding_window_pattern-th layer is global
        p = out["sliding_window_pattern"]
        return ["full_attention" if (i + 1) % p == 0 else "sliding_attention" for i in range(n)]
    if out.get("use_sliding_window"):   # Qwen2/Qwen3: layers from max_window_layers on slide
        first = out.get("max_window_layers") or 0
        return ["sliding_attention" if i >= first else "full_attention" for i in range(n)]
    return ["full_attention"] * n


def layer_rope_theta(cfg, i):
    """(theta, scaling) of layer i: Gemma 3's sliding layers use rope_local_base_freq, unscaled."""
    if _ARCH[cfg["model_type"]]["gemma"] and cfg["layer_types"][i] == "sliding_attention":
        return float(cfg["rope_local_base_freq"]), None
    return float(cfg["rope_theta"]), cfg["rope_scaling"]


class RMSNorm(nn.Module):
    """x / rms(x) * weight, in float32; offset 1 gives Gemma's x / rms(x) * (1 + weight)."""

    def __init__(self, dim, eps, offset=0.0):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(dim) if offset else torch.ones(dim))
        self.eps = eps
        self.offset = offset

    def forward(self, x):
        x32 = x.float()
        y = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        w = self.weight.float() + self.offset if self.offset else self.weight
        return (w * y).to(x.dtype)


def rope_frequencies(dim, theta, scaling=None):
    """The rotary inverse frequencies (float64) for head dim `dim`, with rope_scaling applied:
    'linear' divides every frequency by factor (positions / factor); 'llama3' divides the
    low-frequency ones (wavelength above original_max_position_embeddings / low_freq_factor) by
    factor, keeps the high-frequency ones (wavelength below ... / high_freq_factor) and blends
    linearly in between (Llama 3.1's published rule)."""
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    if not scaling:
        return inv
    factor = float(scaling["factor"])
    if scaling["rope_type"] == "linear":
        return inv / factor
    lo, hi = float(scaling["low_freq_factor"]), float(scaling["high_freq_factor"])
    orig = float(scaling["original_max_position_embeddings"])
    wavelen = 2 * math.pi / inv
    smooth = ((orig / wavelen - lo) / (hi - lo)).clamp(0.0, 1.0)
    return torch.where(wavelen < orig / hi, inv,
                       torch.where(wavelen > orig / lo, inv / factor, (1 - smooth) * inv / factor + smooth * inv))


def rope_tables(seq, dim, theta, device=None, scaling=None):
    inv = rope_frequencies(dim, theta, scaling).to(device)
    ang = torch.arange(seq, dtype=torch.float64, device=device)[:, None] * inv[None, :]
    ang = torch.cat([ang, ang], dim=-1)
    return ang.cos().float(), ang.sin().float()


def apply_rope(x, cos, sin, interleaved=False):
    """Rotary embedding with rope_tables' tables: half-split pairs (j, j + d/2), or with interleaved the
    pairs (2j, 2j + 1) of llama2.c checkpoints, kept in the checkpoint's coordinate order."""
    half = x.shape[-1] // 2
    if interleaved:
        c, s = cos[..., :half], sin[..., :half]
        p = x.unflatten(-1, (half, 2))
        e, o = p[..., 0], p[..., 1]
        return torch.stack([e * c - o * s, o * c + e * s], dim=-1).flatten(-2)
    rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rot * sin


def attention_mask(sq, sk, causal=True, window=None, device=None):
    """Boolean keep-mask [sq, sk], bottom-right aligned: causal keeps key j for query i when j <= i
    (i counted from sk - sq); a window W also drops keys with i - j >= W (W keys visible, self
    included, as Hugging Face's sliding-window layers)."""
    i = torch.arange(sk - sq, sk, device=device)[:, None]
    j = torch.arange(sk, device=device)[None, :]
    keep = j <= i if causal else torch.ones(sq, sk, dtype=torch.bool, device=device)
    if window is not None:
        keep = keep & (i - j < window)
    return keep


def reference_attention(q, k, v, causal=True, scale=None, window=None):
    """softmax(q k^T * scale) v with GQA (KV head h serves query heads h*g .. h*g+g-1) and a
    bottom-right aligned causal mask (optionally a sliding window), in the input dtype: the fp32
    baseline."""
    hq, hk = q.shape[-3], k.shape[-3]
    if hq != hk:
        k = k.repeat_interleave(hq // hk, dim=-3)
        v = v.repeat_interleave(hq // hk, dim=-3)
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    att = torch.matmul(q, k.transpose(-2, -1)) * s
    if causal or window is not None:
        keep = attention_mask(att.shape[-2], att.shape[-1], causal, window, att.device)
        att = att.masked_fill(~keep, float("-inf"))
    return torch.matmul(torch.softmax(att, dim=-1), v)


class CoreAttention(nn.Module):
    """softmax(q k^T * scale) v on q [B, Hq, S, D], k and v [B, Hkv, S, D]: the part lampsim replaces.

    scale None means 1/sqrt(D); window (sliding-window layers) limits each query to its last
    `window` keys. Both are attributes, so the patch helpers and trace capture read them from the
    module (lampsim.patch refuses a window shorter than the sequence: the engine has no mask)."""

    def __init__(self, scale=None, window=None):
        super().__init__()
        self.scale = scale
        self.window = window

    def forward(self, q, k, v, causal=True):
        window = self.window if self.window is not None and self.window < k.shape[-2] else None
        sdpa = getattr(F, "scaled_dot_product_attention", None)
        if sdpa is not None:
            if q.shape[1] != k.shape[1]:
                g = q.shape[1] // k.shape[1]
                k, v = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
            kw = {} if self.scale is None else {"scale": self.scale}
            if window is not None:
                mask = attention_mask(q.shape[-2], k.shape[-2], causal, window, q.device)
                return sdpa(q, k, v, attn_mask=mask, **kw)
            return sdpa(q, k, v, is_causal=causal, **kw)
        return reference_attention(q, k, v, causal, self.scale, window)


def _bias(arch, which, cfg):
    b = arch[which]
    return bool(cfg[b]) if isinstance(b, str) else b


class Attention(nn.Module):
    def __init__(self, cfg, layer):
        super().__init__()
        arch = _ARCH[cfg["model_type"]]
        h, hq, hk, d = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        qkv_bias, o_bias = _bias(arch, "qkv_bias", cfg), _bias(arch, "o_bias", cfg)
        self.hq, self.hk, self.d = hq, hk, d
        self.interleaved = bool(cfg.get("rope_interleaved", False))   # llama2.c's pairs, checkpoint order
        self.q_proj = nn.Linear(h, hq * d, bias=qkv_bias)
        self.k_proj = nn.Linear(h, hk * d, bias=qkv_bias)
        self.v_proj = nn.Linear(h, hk * d, bias=qkv_bias)
        self.o_proj = nn.Linear(hq * d, h, bias=o_bias)
        if arch["qk_norm"]:
            offset = 1.0 if arch["gemma"] else 0.0
            self.q_norm = RMSNorm(d, cfg["rms_norm_eps"], offset)
            self.k_norm = RMSNorm(d, cfg["rms_norm_eps"], offset)
        else:
            self.q_norm = self.k_norm = None
        scale = float(cfg["query_pre_attn_scalar"]) ** -0.5 if arch["gemma"] else None
        window = cfg["sliding_window"] if cfg["layer_types"][layer] == "sliding_attention" else None
        self.core = CoreAttention(scale, window)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.hq, self.d)
        k = self.k_proj(x).view(b, s, self.hk, self.d)
        if self.q_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.hk, self.d).transpose(1, 2)
        q, k = apply_rope(q, cos, sin, self.interleaved), apply_rope(k, cos, sin, self.interleaved)
        o = self.core(q.contiguous(), k.contiguous(), v.contiguous(), causal=True)
        return self.o_proj(o.transpose(1, 2).reshape(b, s, self.hq * self.d))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, m, bias = cfg["hidden_size"], cfg["intermediate_size"], bool(cfg["mlp_bias"])
        self.gate_proj = nn.Linear(h, m, bias=bias)
        self.up_proj = nn.Linear(h, m, bias=bias)
        self.down_proj = nn.Linear(m, h, bias=bias)
        gemma = _ARCH[cfg["model_type"]]["gemma"]
        self.tanh_gelu = (cfg["hidden_activation"] if gemma else cfg["hidden_act"]) == "gelu_pytorch_tanh"

    def forward(self, x):
        g = self.gate_proj(x)
        g = F.gelu(g, approximate="tanh") if self.tanh_gelu else F.silu(g)
        return self.down_proj(g * self.up_proj(x))


class DecoderLayer(nn.Module):
    """Pre-norm residual block; Gemma adds a norm after attention and after the MLP ("sandwich")."""

    def __init__(self, cfg, layer):
        super().__init__()
        gemma = _ARCH[cfg["model_type"]]["gemma"]
        h, eps, off = cfg["hidden_size"], cfg["rms_norm_eps"], 1.0 if gemma else 0.0
        self.input_layernorm = RMSNorm(h, eps, off)
        self.self_attn = Attention(cfg, layer)
        self.post_attention_layernorm = RMSNorm(h, eps, off)
        self.mlp = MLP(cfg)
        if gemma:
            self.pre_feedforward_layernorm = RMSNorm(h, eps, off)
            self.post_feedforward_layernorm = RMSNorm(h, eps, off)
        self.gemma = gemma

    def forward(self, x, cos, sin):
        if self.gemma:
            x = x + self.post_attention_layernorm(self.self_attn(self.input_layernorm(x), cos, sin))
            return x + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x)))
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Backbone(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        off = 1.0 if _ARCH[cfg["model_type"]]["gemma"] else 0.0
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.layers = nn.ModuleList([DecoderLayer(cfg, i) for i in range(cfg["num_hidden_layers"])])
        self.norm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"], off)


class CausalLM(nn.Module):
    """Decoder-only causal LM (Qwen3, Qwen2, Llama, Gemma 3 text; see _ARCH); forward(ids [B, S]) ->
    logits [B, S, vocab]."""

    def __init__(self, cfg):
        super().__init__()
        self.config = check_config(cfg)
        c = self.config
        self.model = Backbone(c)
        self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)
        if c["tie_word_embeddings"]:
            self.lm_head.weight = self.model.embed_tokens.weight
        gemma = _ARCH[c["model_type"]]["gemma"]
        self.embed_scale = math.sqrt(c["hidden_size"]) if gemma else None
        self.final_softcap = c.get("final_logit_softcapping") if gemma else None
        # layers sharing (theta, scaling) share one table
        self.layer_rope = [layer_rope_theta(c, i) for i in range(c["num_hidden_layers"])]

    def forward(self, ids):
        x = self.model.embed_tokens(ids)
        if self.embed_scale is not None:   # Gemma: the scale rounded to the activations' dtype first
            x = x * torch.tensor(self.embed_scale, dtype=x.dtype)
        tables = {}
        for layer, (theta, scaling) in zip(self.model.layers, self.layer_rope):
            key = (theta, json.dumps(scaling, sort_keys=True))
            if key not in tables:
                tables[key] = rope_tables(ids.shape[1], self.config["head_dim"], theta, ids.device, scaling)
            x = layer(x, *tables[key])
        logits = self.lm_head(self.model.norm(x))
        if self.final_softcap:
            logits = torch.tanh(logits / self.final_softcap) * self.final_softcap
        return logits

    def core_attention_names(self):
        """Qualified names of the CoreAttention submodules, in layer order."""
        return [n for n, m in self.named_modules() if isinstance(m, CoreAttention)]


def parameter_shapes(cfg):
    """(name, shape, config keys that set it) of every tensor in CausalLM(cfg).state_dict(), computed
    from a checked config without building the model: the loaders compare a checkpoint's tensors
    with these before allocating anything (tests/python/test_checkpoints.py holds the two equal).
    A generator, so a config claiming many layers is refused at the first missing one."""
    arch = _ARCH[cfg["model_type"]]
    h, m, v, d = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], cfg["head_dim"]
    hq, hk = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    H, M, D = ("hidden_size",), ("intermediate_size",), ("head_dim",)
    Q, K = ("num_attention_heads", "head_dim"), ("num_key_value_heads", "head_dim")
    yield "model.embed_tokens.weight", (v, h), ("vocab_size", "hidden_size")
    norms = ["input_layernorm", "post_attention_layernorm"]
    if arch["gemma"]:
        norms += ["pre_feedforward_layernorm", "post_feedforward_layernorm"]
    qkv_bias, o_bias, mlp_bias = _bias(arch, "qkv_bias", cfg), _bias(arch, "o_bias", cfg), bool(cfg["mlp_bias"])
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        for n in norms:
            yield p + n + ".weight", (h,), H
        a = p + "self_attn."
        for proj, rows, keys in (("q", hq * d, Q), ("k", hk * d, K), ("v", hk * d, K)):
            yield a + proj + "_proj.weight", (rows, h), keys + H
            if qkv_bias:
                yield a + proj + "_proj.bias", (rows,), keys
        yield a + "o_proj.weight", (h, hq * d), H + Q
        if o_bias:
            yield a + "o_proj.bias", (h,), H
        if arch["qk_norm"]:
            yield a + "q_norm.weight", (d,), D
            yield a + "k_norm.weight", (d,), D
        for proj, shape, keys in (("gate", (m, h), M + H), ("up", (m, h), M + H), ("down", (h, m), H + M)):
            yield p + "mlp." + proj + "_proj.weight", shape, keys
            if mlp_bias:
                yield p + "mlp." + proj + "_proj.bias", shape[:1], keys[:1]
    yield "model.norm.weight", (h,), H
    yield "lm_head.weight", (v, h), ("vocab_size", "hidden_size")


def greedy_generate(model, ids, steps):
    """ids [1, S] followed by `steps` greedily chosen tokens (full recompute per step: small models)."""
    out = ids
    with torch.no_grad():
        for _ in range(steps):
            nxt = model(out)[:, -1].argmax(-1, keepdim=True)
            out = torch.cat([out, nxt], dim=1)
    return out


def load_pretrained(path, dtype=torch.float32):
    """A CausalLM from a checkpoint (lampsim.checkpoints.load_model): a Hugging Face directory
    (config.json + *.safetensors, sharded or not), a llama2.c .bin, or a single .safetensors file
    whose metadata holds the config (the tiny model's checkpoint)."""
    from .checkpoints import load_model
    return load_model(path, dtype)
