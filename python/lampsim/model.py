"""A Qwen3-style decoder-only language model in plain PyTorch (1.13 and 2.x).

RMSNorm, headwise QK-norm with learned gains (RMSNorm over the head dimension, applied before
RoPE), rotary position embeddings, grouped-query attention, SwiGLU MLP, optional tied embeddings.
Parameter names follow Hugging Face's Qwen3 checkpoints (``model.layers.N.self_attn.q_proj.weight``
...), so a user's Qwen3 ``config.json`` + ``.safetensors`` loads with :func:`load_pretrained`.

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

# Config keys (Hugging Face spelling) with the defaults Qwen3 uses when a key is absent.
_DEFAULTS = {
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "hidden_act": "silu",
}
_REQUIRED = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads")


class ConfigError(ValueError):
    """A model configuration this implementation cannot represent faithfully."""


def check_config(cfg, source="config"):
    """Returns a complete config dict or raises ConfigError naming the offending key."""
    out = dict(_DEFAULTS)
    out.update(cfg)
    mt = out.get("model_type", "qwen3")
    if mt not in ("qwen3", "lampsim-tiny"):
        raise ConfigError("%s: model_type %r is not supported (Qwen3-style models only; Gemma 3 needs "
                          "sliding-window attention, soft-capping and sandwich norms, not implemented)" % (source, mt))
    for k in _REQUIRED:
        if k not in out:
            raise ConfigError("%s: missing key %r" % (source, k))
    out.setdefault("num_key_value_heads", out["num_attention_heads"])
    out.setdefault("head_dim", out["hidden_size"] // out["num_attention_heads"])
    if out["num_attention_heads"] % out["num_key_value_heads"]:
        raise ConfigError("%s: num_attention_heads %d is not a multiple of num_key_value_heads %d"
                          % (source, out["num_attention_heads"], out["num_key_value_heads"]))
    if out.get("use_sliding_window") or (out.get("layer_types") and any(t != "full_attention" for t in out["layer_types"])):
        raise ConfigError("%s: sliding-window attention is not supported (use_sliding_window / layer_types)" % source)
    if out["hidden_act"] != "silu":
        raise ConfigError("%s: hidden_act %r is not supported (silu only)" % (source, out["hidden_act"]))
    if out.get("rope_scaling"):
        raise ConfigError("%s: rope_scaling %r is not supported" % (source, out["rope_scaling"]))
    return out


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        x32 = x.float()
        y = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return (self.weight * y).to(x.dtype)


def rope_tables(seq, dim, theta, device=None):
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64, device=device) / dim))
    ang = torch.arange(seq, dtype=torch.float64, device=device)[:, None] * inv[None, :]
    ang = torch.cat([ang, ang], dim=-1)
    return ang.cos().float(), ang.sin().float()


def apply_rope(x, cos, sin):
    half = x.shape[-1] // 2
    rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rot * sin


def reference_attention(q, k, v, causal=True, scale=None):
    """softmax(q k^T * scale) v with GQA (KV head h serves query heads h*g .. h*g+g-1) and a
    bottom-right aligned causal mask, in the input dtype: the fp32 baseline."""
    hq, hk = q.shape[-3], k.shape[-3]
    if hq != hk:
        k = k.repeat_interleave(hq // hk, dim=-3)
        v = v.repeat_interleave(hq // hk, dim=-3)
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    att = torch.matmul(q, k.transpose(-2, -1)) * s
    if causal:
        sq, sk = att.shape[-2], att.shape[-1]
        keep = torch.ones(sq, sk, dtype=torch.bool, device=att.device).tril(sk - sq)
        att = att.masked_fill(~keep, float("-inf"))
    return torch.matmul(torch.softmax(att, dim=-1), v)


class CoreAttention(nn.Module):
    """softmax(q k^T / sqrt(d)) v on q [B, Hq, S, D], k and v [B, Hkv, S, D]: the part lampsim replaces."""

    def forward(self, q, k, v, causal=True):
        sdpa = getattr(F, "scaled_dot_product_attention", None)
        if sdpa is not None:
            if q.shape[1] != k.shape[1]:
                g = q.shape[1] // k.shape[1]
                k, v = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
            return sdpa(q, k, v, is_causal=causal)
        return reference_attention(q, k, v, causal)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, hq, hk, d = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        bias = bool(cfg["attention_bias"])
        self.hq, self.hk, self.d = hq, hk, d
        self.q_proj = nn.Linear(h, hq * d, bias=bias)
        self.k_proj = nn.Linear(h, hk * d, bias=bias)
        self.v_proj = nn.Linear(h, hk * d, bias=bias)
        self.o_proj = nn.Linear(hq * d, h, bias=bias)
        self.q_norm = RMSNorm(d, cfg["rms_norm_eps"])
        self.k_norm = RMSNorm(d, cfg["rms_norm_eps"])
        self.core = CoreAttention()

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_norm(self.q_proj(x).view(b, s, self.hq, self.d)).transpose(1, 2)
        k = self.k_norm(self.k_proj(x).view(b, s, self.hk, self.d)).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.hk, self.d).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        o = self.core(q.contiguous(), k.contiguous(), v.contiguous(), causal=True)
        return self.o_proj(o.transpose(1, 2).reshape(b, s, self.hq * self.d))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, m = cfg["hidden_size"], cfg["intermediate_size"]
        self.gate_proj = nn.Linear(h, m, bias=False)
        self.up_proj = nn.Linear(h, m, bias=False)
        self.down_proj = nn.Linear(m, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        self.mlp = MLP(cfg)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Backbone(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.layers = nn.ModuleList([DecoderLayer(cfg) for _ in range(cfg["num_hidden_layers"])])
        self.norm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])


class CausalLM(nn.Module):
    """Qwen3-style causal LM; forward(ids [B, S]) -> logits [B, S, vocab]."""

    def __init__(self, cfg):
        super().__init__()
        self.config = check_config(cfg)
        self.model = Backbone(self.config)
        self.lm_head = nn.Linear(self.config["hidden_size"], self.config["vocab_size"], bias=False)
        if self.config["tie_word_embeddings"]:
            self.lm_head.weight = self.model.embed_tokens.weight

    def forward(self, ids):
        x = self.model.embed_tokens(ids)
        cos, sin = rope_tables(ids.shape[1], self.config["head_dim"], self.config["rope_theta"], ids.device)
        for layer in self.model.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.model.norm(x))

    def core_attention_names(self):
        """Qualified names of the CoreAttention submodules, in layer order."""
        return [n for n, m in self.named_modules() if isinstance(m, CoreAttention)]


def load_pretrained(path, dtype=torch.float32):
    """A CausalLM from a directory with config.json and *.safetensors (Hugging Face layout) or from
    a single .safetensors file whose metadata holds the config (the tiny model's checkpoint)."""
    from .safetensors_io import read_safetensors
    if os.path.isdir(path):
        cfg_path = os.path.join(path, "config.json")
        with open(cfg_path) as f:
            cfg = check_config(json.load(f), cfg_path)
        tensors = {}
        for name in sorted(os.listdir(path)):
            if name.endswith(".safetensors"):
                tensors.update(read_safetensors(os.path.join(path, name))[0])
    else:
        tensors, meta = read_safetensors(path)
        if "config" not in meta:
            raise ConfigError("%s: no 'config' entry in the safetensors metadata" % path)
        cfg = check_config(json.loads(meta["config"]), path)
    model = CausalLM(cfg)
    state = {k: torch.from_numpy(v).to(dtype) for k, v in tensors.items()}
    if cfg["tie_word_embeddings"]:
        state.setdefault("lm_head.weight", state.get("model.embed_tokens.weight"))
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ConfigError("%s: checkpoint does not match the config (missing %s, unexpected %s)"
                          % (path, missing[:5], unexpected[:5]))
    return model.to(dtype).eval()
