"""ctypes binding of liblampsim.so (sim/api/api.h)."""
import atexit
import ctypes
import ctypes.util
import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))


def _installed_library():
    """The liblampsim.so `make install` put beside this package (it writes _installed.py), or None."""
    try:
        from ._installed import LIBRARY
    except ImportError:
        return None
    return LIBRARY


def _find_library():
    """$LAMPSIM_LIB, else a copy inside the package (`pip install .`), else the one `make install`
    installed with it, else the repository's build directory, else the system's library path."""
    candidates = [os.environ.get("LAMPSIM_LIB"),
                  os.path.join(_HERE, "liblampsim.so"),
                  _installed_library(),
                  os.path.join(_HERE, "..", "..", "build", "liblampsim.so"),
                  ctypes.util.find_library("lampsim")]
    for c in candidates:
        if c and (os.path.exists(c) or not os.path.isabs(c)):
            return c
    raise ImportError("liblampsim.so not found: build lampsim (`make build`), install it (`make install` or "
                      "`pip install .`) or set LAMPSIM_LIB to its path")


_lib = ctypes.CDLL(_find_library())
_c_float_p = ctypes.POINTER(ctypes.c_float)
_lib.ls_api_open.restype = ctypes.c_void_p
_lib.ls_api_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_char_p,
                            ctypes.c_size_t]
_lib.ls_api_close.argtypes = [ctypes.c_void_p]
_lib.ls_api_config_yaml.restype = ctypes.c_void_p
_lib.ls_api_config_yaml.argtypes = [ctypes.c_void_p]
_lib.ls_api_is_key.argtypes = [ctypes.c_char_p]
_lib.ls_api_suggest_key.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
_lib.ls_api_attention.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 7 + [_c_float_p] * 4 + [
    ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_size_t]
_lib.ls_api_run.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
_lib.ls_api_sweep_merge.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int),
                                    ctypes.c_char_p, ctypes.c_size_t]
_lib.ls_api_free.argtypes = [ctypes.c_void_p]
_lib.ls_api_version.restype = ctypes.c_char_p

REFERENCE, RECORDS = 1, 2
_ERRLEN = 2048


class LampsimError(ValueError):
    """Bad configuration or input, with the message lampsim gives (file:line: key: reason)."""


def version():
    return _lib.ls_api_version().decode()


def is_key(key):
    return bool(_lib.ls_api_is_key(key.encode()))


def suggest_key(key):
    """The closest configuration key or section to an unknown key, or None."""
    buf = ctypes.create_string_buffer(256)
    return buf.value.decode() if _lib.ls_api_suggest_key(key.encode(), buf, len(buf)) else None


def _take_string(ptr):
    if not ptr:
        return None
    s = ctypes.string_at(ptr).decode()
    _lib.ls_api_free(ptr)
    return s


class Context:
    """A loaded, validated configuration (one ls_api_ctx)."""

    def __init__(self, config, overrides):
        arr = (ctypes.c_char_p * max(1, len(overrides)))(*[o.encode() for o in overrides])
        err = ctypes.create_string_buffer(_ERRLEN)
        self._h = _lib.ls_api_open(config.encode() if config else None, arr, len(overrides), err, _ERRLEN)
        if not self._h:
            raise LampsimError(err.value.decode())

    def close(self):
        if self._h:
            _lib.ls_api_close(self._h)
            self._h = None

    def config_yaml(self):
        return _take_string(_lib.ls_api_config_yaml(self._h))

    def run_dir(self, out_dir, force):
        """`lampsim run -o out_dir` of this configuration (the run directory, written atomically)."""
        err = ctypes.create_string_buffer(_ERRLEN)
        rc = _lib.ls_api_run(self._h, os.fsencode(out_dir), int(bool(force)), err, _ERRLEN)
        if rc != 0:
            raise (LampsimError if rc == 2 else RuntimeError)(err.value.decode())

    def run(self, q, k, v, causal, reference, records):
        """q, k, v: C-contiguous float32 numpy arrays [B, H, S, D]. Returns (o, stats JSON, records, geometry)."""
        b, hq, sq, d = q.shape
        hk, sk = k.shape[1], k.shape[2]
        o = np.empty(q.shape, dtype=np.float32)
        stats, recs = ctypes.c_void_p(), ctypes.c_void_p()
        nrec, geom = ctypes.c_size_t(), (ctypes.c_int * 3)()
        err = ctypes.create_string_buffer(_ERRLEN)
        flags = (REFERENCE if reference else 0) | (RECORDS if records else 0)
        rc = _lib.ls_api_attention(self._h, b, hq, hk, sq, sk, d, int(bool(causal)),
                                  q.ctypes.data_as(_c_float_p), k.ctypes.data_as(_c_float_p),
                                  v.ctypes.data_as(_c_float_p), o.ctypes.data_as(_c_float_p), flags,
                                  ctypes.byref(stats), ctypes.byref(recs), ctypes.byref(nrec), geom, err, _ERRLEN)
        if rc != 0:
            _lib.ls_api_free(recs)
            _take_string(stats.value)
            raise (LampsimError if rc == 2 else RuntimeError)(err.value.decode())
        rec_bytes = None
        if records:
            rec_bytes = ctypes.string_at(recs, nrec.value * 16)
            _lib.ls_api_free(recs)
        return o, _take_string(stats.value), rec_bytes, tuple(geom)


def sweep_merge(sweep_dir):
    """`lampsim sweep merge DIR`: (the merged CSV text, (points, merged, failed, missing))."""
    csv, counts = ctypes.c_void_p(), (ctypes.c_int * 4)()
    err = ctypes.create_string_buffer(_ERRLEN)
    rc = _lib.ls_api_sweep_merge(os.fsencode(sweep_dir), ctypes.byref(csv), counts, err, _ERRLEN)
    text = _take_string(csv.value)
    if rc != 0:
        raise (LampsimError if rc == 2 else RuntimeError)(err.value.decode())
    return text, tuple(counts)


_contexts = {}


def context(config, overrides):
    """The cached Context for (config path, overrides)."""
    key = (config, tuple(overrides))
    ctx = _contexts.get(key)
    if ctx is None:
        ctx = _contexts[key] = Context(config, list(overrides))
    return ctx


@atexit.register
def _close_all():
    for c in _contexts.values():
        c.close()
    _contexts.clear()
