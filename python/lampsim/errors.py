"""The refusals of the Python model and checkpoint code: one type each, a ValueError, naming the file."""
import math
import os


class ConfigError(ValueError):
    """A model configuration this implementation cannot represent faithfully."""


class CheckpointError(ConfigError):
    """A checkpoint file lampsim refuses (missing, damaged, or not matching its config): str(e) is
    'PATH: TENSOR: REASON', or 'PATH: REASON' when no one tensor is at fault, as the C loader's
    messages (sim/io/safetensors.c); e.path, e.tensor (None) and e.reason hold the parts. A message
    never quotes the file's raw bytes: names and values from it are shown escaped and shortened."""

    def __init__(self, path, reason, tensor=None):
        self.path, self.tensor, self.reason = os.fspath(path), tensor, reason
        super().__init__("%s: %s%s" % (self.path, "" if tensor is None else show(tensor, quote=False) + ": ", reason))


def show(v, limit=60, quote=True):
    """A value read from a file, for a message: printable ASCII kept (strings quoted unless quote is
    False), anything else escaped as repr() does, cut to `limit` characters."""
    if isinstance(v, str) and not quote and v.isprintable() and v.isascii():
        s = v
    elif isinstance(v, float) and not math.isfinite(v):   # as JSON spells them
        s = "NaN" if v != v else "Infinity" if v > 0 else "-Infinity"
    else:
        s = ascii(v)
    return s if len(s) <= limit else s[:limit - 3] + "..."


def is_int(v):
    """A JSON integer (bool is not one)."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    """A finite JSON number (bool is not one)."""
    return is_int(v) or (isinstance(v, float) and math.isfinite(v))
