"""lampsim: LampAttention's bit-exact numerics from Python and PyTorch.

    import lampsim
    o, stats = lampsim.attention(q, k, v, causal=True, mode="lamp", tau=0.25)
    with lampsim.patch_modules(model, mode="pure_8bit") as calls:   # models computing attention themselves
        model(ids)
    with lampsim.patch_sdpa(mode="lamp"):                            # models calling F.scaled_dot_product_attention
        model(ids)
    rows = lampsim.workload_stats(q, k, v, causal=True)                # per-head attention statistics

The engine is liblampsim.so (built with lampsim; found in ../../build or through $LAMPSIM_LIB).
See docs/models.md.
"""
from ._lib import LampsimError, version
from .attention import MODES, attention, head_rates
from .patch import patch_modules, patch_sdpa
from .workload import workload_stats

__all__ = ["attention", "head_rates", "patch_modules", "patch_sdpa", "LampsimError", "MODES", "version", "workload_stats"]
