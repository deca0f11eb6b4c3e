"""Route a PyTorch model's attention through lampsim without editing the model.

* patch_sdpa: replaces torch.nn.functional.scaled_dot_product_attention for the duration of a
  ``with`` block (torch 2.x models, e.g. Hugging Face "sdpa" attention). On torch 1.13, which has
  no SDPA, the function is installed for the block, so code that looks it up at call time uses it.
* patch_modules: replaces the forward of the submodules that compute attention themselves from
  (q, k, v, ...) (default: every module whose class is named CoreAttention, as in
  lampsim.model), the path for models on torch 1.13. A module's ``scale`` attribute (softmax scale,
  e.g. Gemma's query_pre_attn_scalar ** -0.5) is honoured; a ``window`` attribute shorter than the
  keys (a sliding-window layer) is refused, naming the module: the engine has no mask.

Both yield a list that receives one (name, stats) per attention call, in call order. They compute
without autograd (evaluation only). torch is imported when a patch is made, so that
`import lampsim` stays light for numpy-only use.
"""
import contextlib
import re

from .attention import attention


_NONE = object()


def _refuse(what):
    raise NotImplementedError("lampsim attention: %s not supported (causal or full attention only)" % what)


@contextlib.contextmanager
def patch_sdpa(config=None, **options):
    """Within the block, F.scaled_dot_product_attention(q, k, v, is_causal=..., scale=...) runs on
    lampsim with the given config and overrides (see lampsim.attention)."""
    import torch.nn.functional as F
    calls = []
    had = hasattr(F, "scaled_dot_product_attention")
    original = getattr(F, "scaled_dot_product_attention", None)

    def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
        if attn_mask is not None:
            _refuse("attn_mask")
        if dropout_p:
            _refuse("dropout_p > 0")
        o, stats = attention(query, key, value, causal=is_causal, config=config, scale=scale, **options)
        calls.append(("sdpa#%d" % len(calls), stats))
        return o

    F.scaled_dot_product_attention = sdpa
    try:
        yield calls
    finally:
        if had:
            F.scaled_dot_product_attention = original
        else:
            del F.scaled_dot_product_attention


def _matching_modules(model, pattern, class_name):
    rx = re.compile(pattern) if pattern else None
    for name, mod in model.named_modules():
        if rx is not None and name and rx.fullmatch(name):
            yield name, mod
        elif rx is None and type(mod).__name__ == class_name:
            yield name, mod


@contextlib.contextmanager
def patch_modules(model, pattern=None, class_name="CoreAttention", config=None, **options):
    """Within the block, the forward of each matching submodule (qualified name matching the regex
    pattern, else class name class_name) becomes lampsim attention of its (q, k, v) arguments; a
    ``causal`` keyword (default True) is honoured, any other keyword (a mask...) is refused with
    NotImplementedError. Raises ValueError if nothing matches."""
    import torch
    calls = []
    patched = []   # (module, its own forward attribute before the patch, or _NONE)
    for name, mod in _matching_modules(model, pattern, class_name):
        def forward(q, k, v, causal=True, _name=name, _mod=mod, **extra):
            if extra:
                _refuse("the argument(s) %s of %s" % (", ".join(sorted(extra)), _name))
            # a module's own softmax scale and sliding window (lampsim.model.CoreAttention's attributes)
            window = getattr(_mod, "window", None)
            if window is not None and window < k.shape[-2]:
                _refuse("sliding-window attention (window %d < %d keys) in %s" % (window, k.shape[-2], _name))
            scale = getattr(_mod, "scale", None)
            opts = options if scale is None else dict(options, scale=scale)
            with torch.no_grad():
                o, stats = attention(q, k, v, causal=causal, config=config, **opts)
            calls.append((_name, stats))
            return o
        patched.append((mod, vars(mod).get("forward", _NONE)))
        mod.forward = forward       # instance attribute shadows the class's forward
    if not patched:
        raise ValueError("patch_modules: no submodule matches %s" % (repr(pattern) if pattern else class_name))
    try:
        yield calls
    finally:
        # exactly what was there: an outer patch, a user's wrapper, or nothing (the class's forward)
        for mod, before in reversed(patched):
            if before is _NONE:
                vars(mod).pop("forward", None)
            else:
                mod.forward = before
