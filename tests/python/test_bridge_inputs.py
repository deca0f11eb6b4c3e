#!/usr/bin/env python3
"""python/lampsim refuses bad input clearly (issue #25): non-finite tensors and scales (D4), masks in
the options' place, bad argument types, unknown settings keys with a did-you-mean, integer and
complex tensors; patch_modules restores exactly what was there (D5).
usage: test_bridge_inputs.py"""
import sys

import numpy as np

try:
    import torch
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)

from checks import check, done  # noqa: E402
import lampsim  # noqa: E402


def refused(call, exc, needle, what):
    """call() raises exc (or a subclass) whose message contains needle."""
    try:
        call()
    except exc as e:
        check(needle in str(e), "%s: %s" % (what, str(e).splitlines()[0][:110]))
        return
    except Exception as e:  # noqa: BLE001 - the wrong kind of error is the failure reported
        check(False, "%s: %s instead of %s: %s" % (what, type(e).__name__, exc.__name__, e))
        return
    check(False, "%s: accepted" % what)


def main():
    rng = np.random.default_rng(5)
    q = rng.standard_normal((1, 2, 64, 64)).astype(np.float32)
    k = rng.standard_normal((1, 2, 64, 64)).astype(np.float32)
    v = rng.standard_normal((1, 2, 64, 64)).astype(np.float32)

    # D4: a NaN or infinity anywhere is refused with the CLI's message and position, in every mode
    for mode in ("lamp", "fa2_fp32", "pure_8bit"):
        for name, bad in (("q", np.nan), ("k", np.inf), ("v", -np.inf)):
            t = {"q": q.copy(), "k": k.copy(), "v": v.copy()}
            t[name][0, 1, 3, 5] = bad
            refused(lambda: lampsim.attention(t["q"], t["k"], t["v"], mode=mode, reference=True), lampsim.LampsimError,
                    "%s: element [0, 1, 3, 5] is %s; inputs must be finite" % (name, "NaN" if name == "q" else "infinite"),
                    "D4 %s: %s with a non-finite element" % (mode, name))
    refused(lambda: lampsim.attention(torch.from_numpy(np.where(q > 3, np.nan, q).astype(np.float32)), k, v),
            lampsim.LampsimError, "is NaN", "D4: a NaN in a torch tensor")
    for s in (float("nan"), float("inf")):
        refused(lambda: lampsim.attention(q, k, v, scale=s), lampsim.LampsimError, "scale", "D4: scale %r" % s)
    refused(lambda: lampsim.attention(q * 1e30, k, v, scale=1e10), lampsim.LampsimError, "after multiplying",
            "D4: a scale that overflows q")

    # the options are keyword-only: a mask in SDPA's 4th place is refused, never taken for `causal`
    mask = torch.ones(64, 64, dtype=torch.bool)
    refused(lambda: lampsim.attention(q, k, v, mask), TypeError, "positional", "a 4th positional argument (a mask)")
    refused(lambda: lampsim.attention(q, k, v, None), TypeError, "positional", "a 4th positional None")
    refused(lambda: lampsim.attention(q, k, v, attn_mask=mask), lampsim.LampsimError, "attn_mask: masks are not supported",
            "attn_mask=")
    refused(lambda: lampsim.attention(q, k, v, causal=mask), TypeError, "causal", "causal=<a tensor>")
    refused(lambda: lampsim.attention(q, k, v, causal="yes"), TypeError, "causal: expected True or False", "causal='yes'")

    # bad argument types name the argument
    refused(lambda: lampsim.attention([], [], []), lampsim.LampsimError, "empty", "attention([], [], [])")
    refused(lambda: lampsim.attention(q, k, v, settings={1: 1}), TypeError, "settings", "settings={1: 1}")
    refused(lambda: lampsim.attention(q, k, v, settings=[("algorithm.tau", 0.5)]), TypeError, "settings",
            "settings as a list of pairs")
    refused(lambda: lampsim.attention(q, k, v, config=3), TypeError, "config", "config=3")
    refused(lambda: lampsim.attention(q, k, v, scale="0.1"), TypeError, "scale", "scale='0.1'")
    refused(lambda: lampsim.attention(q, k, v, settings={"algorithm.tauu": 0.5}), lampsim.LampsimError,
            "did you mean 'algorithm.tau'", "unknown settings key: did you mean")
    refused(lambda: lampsim.attention(q, k, v, tauu=0.5), lampsim.LampsimError, "did you mean", "unknown keyword: did you mean")

    # only real floating-point tensors ("any float dtype"): integers and complex numbers are refused
    qi = (q * 4).astype(np.int64)
    refused(lambda: lampsim.attention(qi, qi, qi), TypeError, "q: expected a floating-point", "int64 numpy arrays")
    refused(lambda: lampsim.attention(torch.from_numpy(qi), torch.from_numpy(qi), torch.from_numpy(qi)), TypeError,
            "q: expected a floating-point", "int64 torch tensors")
    refused(lambda: lampsim.attention(q, k.astype(np.complex64), v), TypeError, "k: expected a floating-point",
            "complex numpy array")
    refused(lambda: lampsim.attention(q, k, torch.from_numpy(v).to(torch.complex64)), TypeError,
            "v: expected a floating-point", "complex torch tensor")
    o, _ = lampsim.attention(q.astype(np.float16), k, v)
    check(o.dtype == np.float32 and np.isfinite(o).all(), "float16 arrays still run")

    # D5: patch_modules restores exactly what was there (nested patches, a user's own forward)
    from lampsim.model import CoreAttention
    holder = torch.nn.Sequential(CoreAttention())
    mod = holder[0]
    tq, tk, tv = torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v)
    with lampsim.patch_modules(holder, mode="fa2_16bit") as outer:
        with lampsim.patch_modules(holder, mode="pure_8bit") as inner:
            mod(tq, tk, tv)
        mod(tq, tk, tv)
    check(len(inner) == 1 and len(outer) == 1 and inner[0][1]["mode"] == "pure_8bit"
          and outer[0][1]["mode"] == "fa2_16bit", "D5: nested patches: the inner call is the inner's, then the outer's")
    check("forward" not in vars(mod), "D5: after nested patches the class's forward is back")
    seen = []

    def wrapper(*a, **kw):
        seen.append(1)
        return type(mod).forward(mod, *a, **kw)
    mod.forward = wrapper
    with lampsim.patch_modules(holder):
        mod(tq, tk, tv)
    check(vars(mod).get("forward") is wrapper and not seen, "D5: a user's instance forward is restored after the patch")
    mod(tq, tk, tv)
    check(seen == [1], "D5: the restored wrapper runs")
    return done()


if __name__ == "__main__":
    sys.exit(main())
