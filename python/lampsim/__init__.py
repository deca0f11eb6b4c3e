"""lampsim: LampAttention's bit-exact numerics from Python and PyTorch.

    import lampsim
    o, stats = lampsim.attention(q, k, v, causal=True, mode="lamp", tau=0.25)
    with lampsim.patch_modules(model, mode="pure_8bit") as calls:   # models computing attention themselves
        model(ids)
    with lampsim.patch_sdpa(mode="lamp"):                            # models calling F.scaled_dot_product_attention
        model(ids)
    rows = lampsim.workload_stats(q, k, v, causal=True)                # per-head attention statistics
    rep = lampsim.run(tau=0.25)                                         # a timed run: rep.cycles, rep.utilisation
    df = lampsim.load_sweep("out/tau_layout")                          # results as pandas DataFrames

The engine is liblampsim.so: $LAMPSIM_LIB, the copy `pip install .` puts in the package, the one `make
install` installed, or the repository's build/ (see _lib.py).
See docs/models.md and docs/python.md.
"""
from ._lib import LampsimError, version
from .attention import MODES, attention, head_rates
from .patch import patch_modules, patch_sdpa
from .results import load_model, load_run, load_sweep
from .timing import Report, run
from .workload import workload_stats

# The release of the liblampsim.so in use (version() adds its git revision): CMakeLists.txt's
# project(VERSION), as in `lampsim --version` and pip's metadata.
__version__ = version().split(" ")[0]

__all__ = ["attention", "head_rates", "patch_modules", "patch_sdpa", "LampsimError", "MODES", "version",
           "__version__", "workload_stats", "run", "Report", "load_run", "load_sweep", "load_model"]
