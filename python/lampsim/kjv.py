"""The training and held-out text: the King James Bible (public domain, 1611) as shipped by the
Debian packages bible-kjv-text (the compressed text) and bible-kjv (its reader, /usr/bin/bible)."""
import re
import subprocess

# The last 300 kB (part of the Epistles and the Revelation) are held out; the rest trains.
HELDOUT_BYTES = 300_000


def kjv_bytes():
    """The whole text as bytes, one verse per line, verse references stripped."""
    try:
        out = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], check=True, capture_output=True).stdout
    except FileNotFoundError:
        raise SystemExit("the King James text needs the Debian packages bible-kjv and bible-kjv-text "
                         "(scripts/install-deps.sh test installs them)")
    lines = [re.sub(rb"^[0-9A-Za-z]+[0-9]+:[0-9]+ ", b"", ln) for ln in out.splitlines() if ln.strip()]
    return b"\n".join(lines) + b"\n"


def split(data):
    """(train, held-out) byte strings."""
    return data[:-HELDOUT_BYTES], data[-HELDOUT_BYTES:]
