"""Read and write .safetensors files with numpy only (no `safetensors` package on Debian)."""
import json
import os
import struct

import numpy as np

_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4", "U8": "u1"}


def read_safetensors(path):
    """Returns ({name: numpy array}, metadata dict). BF16 tensors are widened to float32 exactly."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError("%s: not a safetensors file (too short)" % path)
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError("%s: header length %d exceeds the file" % (path, n))
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    body = memoryview(raw)[8 + n:]
    out = {}
    for name, e in header.items():
        a, b = e["data_offsets"]
        if e["dtype"] == "BF16":
            bits = np.frombuffer(body[a:b], dtype="<u2").astype(np.uint32) << 16
            arr = bits.view(np.float32)
        elif e["dtype"] in _DTYPES:
            arr = np.frombuffer(body[a:b], dtype=_DTYPES[e["dtype"]])
        else:
            raise ValueError("%s: tensor %s has unsupported dtype %s" % (path, name, e["dtype"]))
        out[name] = arr.reshape(e["shape"]).copy()
    return out, meta


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
