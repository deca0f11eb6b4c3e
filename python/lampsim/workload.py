"""`lampsim workload stats` from Python: per-head attention statistics and LAMP rates of Q, K, V arrays
(the C implementation, sim/workload/workload_stats.c, through liblampsim.so)."""
import csv
import ctypes
import io

import numpy as np

from . import _lib

_lib._lib.ls_api_workload_stats.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 7 + [_lib._c_float_p] * 3 + [
    ctypes.c_int] * 4 + [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]


def _as4(x):
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
    return x[None] if x.ndim == 3 else x


def workload_stats(q, k, v=None, causal=True, config=None, overrides=(), sink_keys=1, local_keys=16, engine_rows=0,
                   lamp=True):
    """Statistics of every query head of q [B, Hq, Sq, D] (or [Hq, Sq, D]) against k (and v, zeros if None):
    a list of dicts with the columns of `lampsim workload stats` (entropy, top1, sink_mass, local_mass,
    logit_span, max_abs_logit, logit_std, top_cos, raise_tile, raise_sub, stage1_exact, stage1_rate, stage2_rate, subblock_rate,
    disruptive_rate, ...). config / overrides choose the algorithm (tile, tau, delta) as for lampsim.attention."""
    q, k = _as4(q), _as4(k)
    v = np.zeros_like(k) if v is None else _as4(v)
    if q.ndim != 4 or k.shape != v.shape or k.ndim != 4 or q.shape[0] != k.shape[0] or q.shape[3] != k.shape[3]:
        raise _lib.LampsimError("q [B, Hq, Sq, D], k and v [B, Hk, Sk, D] expected, got %s, %s, %s"
                                % (q.shape, k.shape, v.shape))
    ctx = _lib.context(config, tuple(overrides))
    out = ctypes.c_void_p()
    err = ctypes.create_string_buffer(_lib._ERRLEN)
    b, hq, sq, d = q.shape
    rc = _lib._lib.ls_api_workload_stats(ctx._h, b, hq, k.shape[1], sq, k.shape[2], d, int(bool(causal)),
                                        q.ctypes.data_as(_lib._c_float_p), k.ctypes.data_as(_lib._c_float_p),
                                        v.ctypes.data_as(_lib._c_float_p), sink_keys, local_keys, engine_rows,
                                        int(bool(lamp)), ctypes.byref(out), err, _lib._ERRLEN)
    text = _lib._take_string(out.value)
    if rc:
        raise (_lib.LampsimError if rc == 2 else RuntimeError)(err.value.decode())
    rows = list(csv.DictReader(io.StringIO(text)))
    ints = ("layer", "head", "kv_head", "rows", "row_stride", "engine_rows")
    return [{key: (int(val) if key in ints else float(val)) for key, val in r.items()} for r in rows]
