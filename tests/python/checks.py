"""Shared by the tests of this folder: the repository's python/ on the path and a check recorder."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

failures = []


def check(cond, what):
    """Prints ok/FAIL with what was checked; failures are counted for done()."""
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def done():
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


def child_env():
    """The environment for the lampsim binary: without the ASan preload and leak-check opt-out that
    Sanitize builds give this Python process (tests/python/CMakeLists.txt), so the binary is checked."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("ASAN_OPTIONS", None)
    return env
