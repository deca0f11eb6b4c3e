"""Read and write .safetensors files with numpy only (no `safetensors` package on Debian).

read_safetensors checks what the C loader (sim/io/safetensors.c) checks: the header length within
the file and the limit, a JSON object (UTF-8, no NaN, no duplicate names, nesting bounded) of
tensors with a known dtype, a shape of non-negative integers and data_offsets that hold exactly the
shape's bytes, the tensors tiling the data buffer with no gap or overlap, a str -> str __metadata__.
Every refusal is a CheckpointError 'FILE: TENSOR: reason'."""
import json
import math
import os
import stat
import struct

import numpy as np

from .errors import CheckpointError, is_int, show

_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4", "U8": "u1"}
_SIZES = dict({k: np.dtype(v).itemsize for k, v in _DTYPES.items()}, BF16=2)
MAX_HEADER = 64 << 20   # LS_SAFETENSORS_MAX_HEADER (sim/io/safetensors.h)
MAX_DIMS = 8


def parse_json(path, data, what="", constants=False):
    """data (bytes or str) parsed as JSON; CheckpointError naming path (and `what`, the part of the
    file it is) when it is not UTF-8, not JSON, nested too deeply or names a key twice; NaN and
    Infinity only with constants=True (Python's own json writes them; a config check names the key)."""
    where = what + ": " if what else ""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CheckpointError(path, "%snot UTF-8 (byte %d)" % (where, e.start)) from None

    def pairs(items):
        seen = set()
        for k, _ in items:
            if k in seen:
                raise CheckpointError(path, "%skey %s appears twice" % (where, show(k)))
            seen.add(k)
        return dict(items)

    def constant(name):
        raise CheckpointError(path, "%s%s is not a JSON number" % (where, name))

    try:
        return json.loads(data, object_pairs_hook=pairs, **({} if constants else {"parse_constant": constant}))
    except json.JSONDecodeError as e:
        raise CheckpointError(path, "%snot JSON: line %d column %d: %s" % (where, e.lineno, e.colno, e.msg)) from None
    except RecursionError:
        raise CheckpointError(path, "%sJSON nested too deeply" % where) from None


def _tensor_entries(path, header, data_len):
    """[(name, dtype, shape, begin, end)] of a parsed header, checked; the tensors must tile the data."""
    out = []
    for name, e in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(e, dict):
            raise CheckpointError(path, "expected an object with dtype, shape and data_offsets", name)
        for k in ("dtype", "shape", "data_offsets"):
            if k not in e:
                raise CheckpointError(path, "no %s" % k, name)
        dt, shape, offs = e["dtype"], e["shape"], e["data_offsets"]
        if not isinstance(dt, str) or dt not in _SIZES:
            raise CheckpointError(path, "unsupported dtype %s (%s)" % (show(dt), ", ".join(sorted(_SIZES))), name)
        if not isinstance(shape, list) or len(shape) > MAX_DIMS or not all(is_int(x) and x >= 0 for x in shape):
            raise CheckpointError(path, "shape %s: expected a list of at most %d non-negative integers"
                                  % (show(shape), MAX_DIMS), name)
        if not (isinstance(offs, list) and len(offs) == 2 and all(is_int(x) and x >= 0 for x in offs)):
            raise CheckpointError(path, "data_offsets %s: expected [begin, end], non-negative integers" % show(offs), name)
        a, b = offs
        if a > b:
            raise CheckpointError(path, "data_offsets [%d, %d] are reversed (begin after end)" % (a, b), name)
        if b > data_len:
            raise CheckpointError(path, "data_offsets [%d, %d] outside the %d data bytes (truncated file?)"
                                  % (a, b, data_len), name)
        need = math.prod(shape) * _SIZES[dt]
        if need != b - a:
            raise CheckpointError(path, "shape %s of %s needs %d bytes but data_offsets span %d" % (shape, dt, need, b - a),
                                  name)
        out.append((name, dt, shape, a, b))
    at, prev = 0, None
    for name, _, _, a, b in sorted(out, key=lambda t: (t[3], t[4])):
        if a < at:
            raise CheckpointError(path, "overlaps tensor %s in the data buffer" % show(prev), name)
        if a > at:
            raise CheckpointError(path, "gap in the data buffer: bytes [%d, %d) before it belong to no tensor" % (at, a),
                                  name)
        at, prev = b, name
    if at != data_len:
        raise CheckpointError(path, "gap in the data buffer: bytes [%d, %d) after the last tensor belong to no tensor"
                              % (at, data_len))
    return out


def open_regular(path):
    """path opened for reading in binary, or CheckpointError when it is not a regular file (a FIFO
    or a device would block or never end: opened without blocking, checked before any read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CheckpointError(path, "not a regular file")
    return os.fdopen(fd, "rb")


def read_safetensors(path):
    """Returns ({name: numpy array}, metadata dict). BF16 tensors are widened to float32 exactly.
    CheckpointError (a ValueError) naming the file and the tensor for anything else than a valid file."""
    path = os.fspath(path)
    try:
        with open_regular(path) as f:
            st = os.fstat(f.fileno())
            size = st.st_size
            if size < 8:
                raise CheckpointError(path, "%d bytes: too short for a safetensors file (an 8-byte header length first)"
                                      % size)
            (n,) = struct.unpack("<Q", f.read(8))
            if n > size - 8:   # the field's value is not shown: it is the file's first bytes
                raise CheckpointError(path, "its header length field exceeds the file's %d bytes (not a safetensors "
                                      "file, or truncated)" % size)
            if n > MAX_HEADER:
                raise CheckpointError(path, "header of %d bytes exceeds the limit of %d" % (n, MAX_HEADER))
            head = f.read(n)
            body = f.read(size - 8 - n + 1)
    except OSError as e:
        raise CheckpointError(path, "cannot read: %s" % (e.strerror or e)) from None
    if len(head) != n or len(body) != size - 8 - n:
        raise CheckpointError(path, "changed size while being read")
    header = parse_json(path, head, "header")
    if not isinstance(header, dict):
        raise CheckpointError(path, "header: expected a JSON object of tensors")
    meta = header.get("__metadata__")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise CheckpointError(path, "__metadata__: expected an object of strings")
    out = {}
    for name, dt, shape, a, b in _tensor_entries(path, header, len(body)):
        if dt == "BF16":
            arr = (np.frombuffer(body, dtype="<u2", count=(b - a) // 2, offset=a).astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(body, dtype=_DTYPES[dt], count=(b - a) // _SIZES[dt], offset=a).copy()
        out[name] = arr.reshape(shape)
    return out, dict(meta)


def write_safetensors(path, arrays, metadata=None):
    """Writes {name: numpy array} (float16/float32/...) atomically; metadata is a str -> str dict."""
    inv = {v: k for k, v in _DTYPES.items()}
    header, blobs, offset = {}, [], 0
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        code = inv[arr.dtype.newbyteorder("<").str if arr.dtype.byteorder not in "<|" else arr.dtype.str]
        data = arr.astype(_DTYPES[code], copy=False).tobytes()
        header[name] = {"dtype": code, "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    js = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    js += b" " * (-len(js) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(js)) + js)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)
