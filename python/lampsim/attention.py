"""lampsim.attention: the golden engine's bit-exact attention on numpy arrays or torch tensors."""
import collections.abc
import json
import math
import numbers
import os

import numpy as np

from . import _lib

MODES = ("lamp", "pure_8bit", "fa2_16bit", "fa2_fp32", "lamp_code", "random", "fa3_fp8")


def _full_key(key):
    """The configuration key of a keyword override: full keys as they are, short ones in algorithm."""
    return key if "." in key else ("algorithm." + key if _lib.is_key("algorithm." + key) else key)


def _override_strings(overrides, settings):
    """["algorithm.tau=0.25", ...] from short keyword overrides (tau=0.25, mode="lamp", seed=3) and a
    dict of full keys ({"algorithm.b_k": 16})."""
    if settings is not None and not isinstance(settings, collections.abc.Mapping):
        raise TypeError("settings: expected a dict of configuration keys to values, got %s" % type(settings).__name__)
    for key in (settings or {}):
        if not isinstance(key, str):
            raise TypeError("settings: key %r is not a string (configuration keys are like 'algorithm.tau')" % (key,))
    for key in ("attn_mask", "mask"):
        if key in overrides:
            raise _lib.LampsimError("%s: masks are not supported (causal=True or causal=False only)" % key)
    out = []
    items = [(k, v, k) for k, v in sorted(overrides.items())] + [(k, v, k) for k, v in sorted((settings or {}).items())]
    for key, value, given in items:
        full = _full_key(key)
        if not _lib.is_key(full):
            # a short keyword is an algorithm key: the closest of those first
            hint = (_lib.suggest_key("algorithm." + key) if "." not in key else None) or _lib.suggest_key(full)
            raise _lib.LampsimError("unknown configuration key %r%s (see `lampsim config --explain`)"
                                    % (given, "; did you mean %r?" % hint if hint else ""))
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, float):
            value = repr(value)
        out.append("%s=%s" % (full, value))
    return out


def _to_numpy(t, name):
    """(float32 C-contiguous [B, H, S, D] array, restore function). Refuses what is not a real
    floating-point tensor (integers, booleans, complex numbers: their float32 values are not what the
    caller computes with) with a TypeError naming the argument."""
    if hasattr(t, "detach"):  # torch.Tensor
        import torch
        if not t.dtype.is_floating_point:
            raise TypeError("%s: expected a floating-point tensor, got dtype %s" % (name, t.dtype))
        like = t
        a = t.detach().to(device="cpu", dtype=torch.float32).contiguous().numpy()

        def back(x):
            return torch.from_numpy(x).to(device=like.device, dtype=like.dtype)
    else:
        try:
            a = np.asarray(t)
        except (TypeError, ValueError) as e:
            raise TypeError("%s: expected a float array or tensor, got %s (%s)" % (name, type(t).__name__, e)) from None
        if a.dtype.kind != "f":
            raise TypeError("%s: expected a floating-point array, got dtype %s" % (name, a.dtype))
        a = np.ascontiguousarray(a, dtype=np.float32)

        def back(x):
            return x
    if a.ndim == 3:
        a = a[None]
    if a.ndim != 4:
        raise _lib.LampsimError("%s: expected [batch, heads, seq, dim] or [heads, seq, dim], got shape %s"
                                % (name, a.shape))
    return a, back


def _check_flag(value, name):
    """True/False (or numpy's bool, 0, 1): a tensor here is most likely a mask in the wrong place."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError("%s: expected True or False, got %s (masks are not supported)" % (name, type(value).__name__))


def _scale_sharpness(scale, dim):
    """The factor Q is multiplied by for a softmax scale other than 1/sqrt(dim)."""
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (numbers.Real, np.floating, np.integer)):
        raise TypeError("scale: expected a number, got %s" % type(scale).__name__)
    if not math.isfinite(float(scale)):
        raise _lib.LampsimError("scale: %r is not finite" % float(scale))
    return float(scale) * math.sqrt(dim)


def _flatten(obj, prefix="", out=None):
    out = {} if out is None else out
    for k, v in obj.items():
        if isinstance(v, dict):
            _flatten(v, prefix + k + ".", out)
        else:
            out[prefix + k] = v
    return out


# The report's workload block describes generated inputs; of it the bridge keeps the shape.
_SHAPE_KEYS = ("batch", "heads_q", "heads_kv", "seq_q", "seq_k", "dim", "causal")

# Counters summed when ragged pieces are merged; the rates are then recomputed from them.
_SUMMED = ("tiles.executed", "tiles.masked_skipped", "recompute.stage1_subblocks", "recompute.stage2_subblocks",
           "recompute.subblocks_active", "accuracy.kl_inf_count", "accuracy.rows", "bridge.wall_seconds",
           "bridge.logits_unmasked", "bridge.logits_hp")


def _merge_stats(parts):
    """Stats of several engine calls (ragged batch) as one: counts summed, rates from counts,
    row-weighted means, maxima."""
    if len(parts) == 1:
        return parts[0]
    m = dict(parts[0])
    for key in _SUMMED:
        if key in m:
            m[key] = sum(p[key] for p in parts)
    m["tiles.hp_subblocks_hist"] = [sum(h) for h in zip(*(p["tiles.hp_subblocks_hist"] for p in parts))]
    ex = m["tiles.executed"]
    m["tiles.disruptive_rate"] = sum(m["tiles.hp_subblocks_hist"][2:]) / ex if ex else 0.0
    act = m["recompute.subblocks_active"]
    m["recompute.subblock_rate"] = ((m["recompute.stage1_subblocks"] + m["recompute.stage2_subblocks"]) / act
                                    if act else 0.0)
    for key in [k for k in m if k.startswith("events.")]:
        m[key] = sum(p[key] for p in parts)
    rows = m.get("accuracy.rows") or 0
    for key in [k for k in m if k.startswith("accuracy.") and k.endswith("_mean") or k == "accuracy.argmax_flip_rate"]:
        if rows and all(p.get(key) is not None for p in parts):
            m[key] = sum(p[key] * p["accuracy.rows"] for p in parts) / rows
    for key in [k for k in m if k.startswith("accuracy.") and k.endswith("_max")]:
        if all(p.get(key) is not None for p in parts):
            m[key] = max(p[key] for p in parts)
    # every logit rate is (HP logits) / (unmasked logits): weighting by the unmasked counts is exact
    un = m["bridge.logits_unmasked"]
    for key in ("recompute.logit_rate", "recompute.logit_rate_stage1", "recompute.logit_rate_stage2"):
        m[key] = (sum(p[key] * p["bridge.logits_unmasked"] for p in parts) / un) if un else 0.0
    m["ragged_pieces"] = len(parts)
    return m


def attention(q, k, v, *, causal=True, config=None, scale=None, reference=False, records=False, settings=None,
              **overrides):
    """Attention through lampsim's golden engine. Returns (o, stats).

    q [B, Hq, Sq, D] (or [Hq, Sq, D]), k and v [B, Hkv, Sk, D]: torch tensors or numpy arrays, any float
    dtype (computed from their float32 values); Hq a multiple of Hkv (grouped-query attention). Ragged
    batches: lists of per-sequence [H, S_i, D] tensors (o is then a list). causal masks bottom-right
    aligned as in FlashAttention-2. scale: the softmax scale if not 1/sqrt(D) (Q is multiplied by
    scale * sqrt(D) in float32 first, as a trace's `sharpness` does).

    config: a YAML configuration path (default: the embedded default); overrides are configuration
    keys, short for the algorithm section (mode="pure_8bit", tau=0.25, threads=2, random_rate=0.05,
    seed=7) or full keys in settings={"algorithm.b_k": 16}. stats: the report's numerics fields with
    their report names ("tiles.disruptive_rate", "recompute.subblock_rate", "accuracy.kl_mean" when
    reference=True, ...). records=True adds stats["records"], int32 [B, Hq, query blocks, warps,
    key tiles, 4] = (stage1_mask, stage2_mask, n_hp, flags) as in docs/engine.md ([B, Hkv, ...] with
    settings={"workload.pack_gqa": True}). The configuration's workload.window (sliding window, causal
    only), workload.split_kv (FlashDecoding splits, combined) and workload.pack_gqa (FA3's PackGQA) apply
    as in `lampsim run`; algorithm.sample_query_blocks is refused (O would be incomplete).

    Everything after v is keyword-only (a 4th positional argument would be SDPA's attn_mask, which
    is not supported). causal defaults to True, where torch's scaled_dot_product_attention defaults
    is_causal to False: pass causal=False for bidirectional attention; it takes True or False only
    (causal="yes" is a TypeError). NaN or infinite elements of q, k, v (or q after scaling) are refused
    (LampsimError naming the tensor and the element), as `lampsim run` refuses a trace.
    """
    if config is not None:
        try:
            config = os.fspath(config)
        except TypeError:
            raise TypeError("config: expected a path to a YAML configuration, got %s" % type(config).__name__) from None
    causal = _check_flag(causal, "causal")
    ctx = _lib.context(config, _override_strings(overrides, settings))
    if isinstance(q, (list, tuple)):
        if not (isinstance(k, (list, tuple)) and isinstance(v, (list, tuple)) and len(q) == len(k) == len(v)):
            raise _lib.LampsimError("ragged batch: q, k and v must be lists of the same length")
        if not q:
            raise _lib.LampsimError("ragged batch: q, k and v are empty lists (nothing to compute)")
        outs, parts = [], []
        for qi, ki, vi in zip(q, k, v):
            oi, si = attention(qi, ki, vi, causal=causal, config=config, scale=scale, reference=reference,
                               records=records, settings=settings, **overrides)
            outs.append(oi)
            parts.append(si)
        merged = _merge_stats(parts)
        if records:
            merged["records"] = [p["records"] for p in parts]
        return outs, merged
    qa, back = _to_numpy(q, "q")
    ka, _ = _to_numpy(k, "k")
    va, _ = _to_numpy(v, "v")
    if ka.shape != va.shape or ka.shape[0] != qa.shape[0] or ka.shape[3] != qa.shape[3]:
        raise _lib.LampsimError("shapes do not match: q %s, k %s, v %s" % (qa.shape, ka.shape, va.shape))
    if scale is not None:
        sharp = _scale_sharpness(scale, qa.shape[-1])
        if sharp != 1.0:
            with np.errstate(over="ignore", invalid="ignore"):
                scaled = (qa.astype(np.float64) * sharp).astype(np.float32)
            bad = np.flatnonzero(~np.isfinite(scaled) & np.isfinite(qa))
            if bad.size:
                raise _lib.LampsimError("scale: q element %s is not finite in float32 after multiplying by scale * "
                                        "sqrt(dim) = %r" % (list(np.unravel_index(bad[0], qa.shape)), sharp))
            qa = scaled
    o, js, rec, geom = ctx.run(qa, ka, va, causal, reference, records)
    stats = {k: v for k, v in _flatten(json.loads(js)).items()
             if not k.startswith("workload.") or k[9:] in _SHAPE_KEYS}
    if records:
        # with workload.pack_gqa the second axis is the KV heads (each block holds its group's query rows)
        stats["records"] = np.frombuffer(rec, dtype=np.int32).reshape(qa.shape[0], -1, *geom, 4)
    out = back(o)
    if getattr(q, "ndim", 4) == 3:
        out = out[0]
    return out, stats


def head_rates(records):
    """Per-head figures from stats["records"] ([B, Hq, qb, warps, key tiles, 4]): dict of arrays over
    query heads: executed tiles, disruptive tiles (>= 2 HP sub-blocks) and HP sub-blocks."""
    r = np.asarray(records)
    executed = (r[..., 3] & (1 | 8)) == 0   # neither fully masked (bit 0) nor a missing warp (bit 3)
    n_hp = np.where(executed, r[..., 2], 0)
    axes = (0,) + tuple(range(2, r.ndim - 1))
    ex = executed.sum(axis=axes)
    dis = (executed & (r[..., 2] >= 2)).sum(axis=axes)
    return {"executed": ex, "disruptive": dis, "hp_subblocks": n_hp.sum(axis=axes),
            "disruptive_rate": np.where(ex > 0, dis / np.maximum(ex, 1), 0.0)}
