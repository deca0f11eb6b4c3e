#!/usr/bin/env python3
"""The tiny trained model (models/tiny_kjv.safetensors) through lampsim on short held-out text:
fp32 through the bridge == torch's attention (perplexity to 4 significant digits); the SDPA
replacement and the module hook give the same logits; LAMP's perplexity lies between pure 8-bit's
and fp32's and moves toward fp32 as tau falls; configs the architecture cannot represent are refused.
usage: test_tiny_model.py TMPDIR [CHECKPOINT] (default models/tiny_kjv.safetensors; a checkpoint trained
with a BOS byte sees it first, as eval_ppl.py gives it)"""
import json
import os
import shutil
import sys


try:
    import torch
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)
import torch.nn.functional as F
if shutil.which("bible") is None:  # the held-out text's reader: skip, as for torch
    print("skipped: no /usr/bin/bible (Debian packages bible-kjv, bible-kjv-text: scripts/install-deps.sh test)")
    sys.exit(77)

from checks import ROOT, check, done  # noqa: E402
import lampsim  # noqa: E402
from lampsim.model import ConfigError, check_config, load_pretrained  # noqa: E402
from lampsim.safetensors_io import write_safetensors  # noqa: E402
from eval_ppl import begin_with_bos, heldout_ids, perplexity  # noqa: E402



def sig4(x):
    return float("%.4g" % x)


def main(tmp, checkpoint):
    torch.set_num_threads(1)
    model = load_pretrained(checkpoint)
    ids = heldout_ids(4, 256)
    begin_with_bos(ids, model)  # a checkpoint trained with a BOS byte sees it first, as in training
    ppl_torch = perplexity(model, ids, 4)
    check(2.0 < ppl_torch < 8.0, "the trained model predicts held-out text: perplexity %.4f per byte" % ppl_torch)
    had_sdpa = hasattr(F, "scaled_dot_product_attention")
    ppl = {}
    for label, opts in (("fa2_fp32", {"mode": "fa2_fp32"}), ("pure_8bit", {"mode": "pure_8bit"}),
                        ("fa2_16bit", {"mode": "fa2_16bit"}), ("tau=1", {"mode": "lamp", "tau": 1.0}),
                        ("tau=0.25", {"mode": "lamp", "tau": 0.25}), ("tau=0.0625", {"mode": "lamp", "tau": 0.0625})):
        with lampsim.patch_modules(model, threads=2, **opts) as calls:
            ppl[label] = perplexity(model, ids, 4)
        check(len(calls) == 4 and calls[0][0] == "model.layers.0.self_attn.core",
              "%s: one lampsim call per layer (%d)" % (label, len(calls)))
        print("     %-10s ppl %.6f" % (label, ppl[label]))
    check(sig4(ppl["fa2_fp32"]) == sig4(ppl_torch),
          "fp32 through the bridge %.6f == torch %.6f to 4 significant digits" % (ppl["fa2_fp32"], ppl_torch))
    # restored after the block: the plain model gives torch's perplexity again
    check(perplexity(model, ids[:1], 1) == perplexity(load_pretrained(checkpoint), ids[:1], 1),
          "patch_modules restores the modules' forward")
    # the SDPA replacement (installed for the block on torch 1.13) == the module hook, bit for bit
    x = ids[:2, :-1]
    with lampsim.patch_modules(model, mode="lamp", tau=0.25):
        hooked = model(x)
    with lampsim.patch_sdpa(mode="lamp", tau=0.25) as calls:
        via_sdpa = model(x)
    check(len(calls) == 4 and torch.equal(hooked, via_sdpa), "patch_sdpa == patch_modules on the same model")
    check(hasattr(F, "scaled_dot_product_attention") == had_sdpa, "patch_sdpa leaves torch.nn.functional as it was")
    # The measured ordering (4 x 256 held-out bytes, docs/models.md): fp32 6.4171, 16-bit 6.4175,
    # pure 8-bit 7.6758, LAMP 6.4238 / 6.4211 / 6.4170 at tau 1 / 0.25 / 0.0625. Margins: 8-bit is
    # 20 % worse (asserted: > 5 %); LAMP at tau 1 closes 99.5 % of that gap (asserted: >= 98 %); at
    # small tau LAMP is within fp32's rounding noise (|excess| < 1e-4 relative; 16-bit: 5e-5).
    p8, p32, p16 = ppl["pure_8bit"], ppl["fa2_fp32"], ppl["fa2_16bit"]
    check(p8 > p32 * 1.05, "pure 8-bit costs perplexity: %.5f vs fp32 %.5f" % (p8, p32))
    for t in ("tau=1", "tau=0.25", "tau=0.0625"):
        check(p32 * (1 - 1e-4) <= ppl[t] < p8, "LAMP %s: %.5f between fp32 %.5f (-1e-4) and pure 8-bit %.5f"
              % (t, ppl[t], p32, p8))
    closed = (p8 - ppl["tau=1"]) / (p8 - p32)
    check(closed >= 0.98, "LAMP at tau 1 closes %.1f %% of the 8-bit perplexity gap" % (100 * closed))
    gap = [ppl[t] - p32 for t in ("tau=1", "tau=0.25", "tau=0.0625")]
    check(gap[0] >= gap[1] >= gap[2], "LAMP moves toward fp32 as tau falls (excess %.2e, %.2e, %.2e)" % tuple(gap))
    check(abs(p16 - p32) < 1e-4 * p32, "16-bit within 1e-4 of fp32 (%.2e)" % ((p16 - p32) / p32))
    # a Hugging Face-layout directory (config.json + model.safetensors) loads to the same model
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    cfg = dict(model.config, model_type="qwen3")
    with open(os.path.join(tmp, "config.json"), "w") as f:
        json.dump(cfg, f)
    write_safetensors(os.path.join(tmp, "model.safetensors"),
                      {k: v.numpy() for k, v in model.state_dict().items() if k != "lm_head.weight"})
    hf = load_pretrained(tmp)
    check(torch.equal(hf(x), model(x)), "Qwen3 checkpoint directory (config.json + safetensors) loads identically")
    # configurations the architecture cannot represent are refused by name
    for bad, needle in (({"model_type": "gemma3"}, "gemma3"), ({"layer_types": ["chunked_attention"] * 4}, "layer_types[0]"),
                        ({"num_key_value_heads": 3}, "num_key_value_heads"), ({"rope_scaling": {"type": "yarn"}}, "rope_scaling")):
        try:
            check_config(dict(cfg, **bad), "config.json")
            check(False, "refused: %s" % bad)
        except ConfigError as e:
            check(needle in str(e), "refused: %s" % str(e)[:100])
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "models", "tiny_kjv.safetensors")))
