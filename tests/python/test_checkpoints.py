#!/usr/bin/env python3
"""Checkpoints without `transformers` (lampsim.checkpoints, issue #27 part 3): tiny checkpoints made
here in each format load back to the project's own model code (Hugging Face directories single and
sharded: bit for bit; llama2.c .bin: equal up to rounding, wq/wk in the checkpoint's order (rope_interleaved), and equal to a
numpy forward written in this file from llama2.c's format description, greedy generation included);
Llama, Qwen2, Qwen3 and Gemma 3 configs (QK-norm, GQA, biases, rope_scaling, tied embeddings,
Gemma's norms and scaling, sliding windows) load and run, through lampsim too; bad inputs are
refused naming the file and the tensor or key.
usage: test_checkpoints.py TMPDIR"""
import json
import math
import os
import shutil
import struct
import sys

try:
    import torch
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)
import numpy as np

from checks import ROOT, check, done  # noqa: E402
import lampsim  # noqa: E402
from lampsim import checkpoints as C  # noqa: E402
from lampsim.model import CausalLM, ConfigError, RMSNorm, greedy_generate, load_pretrained, rope_frequencies  # noqa: E402
from lampsim.safetensors_io import read_safetensors, write_safetensors  # noqa: E402


def randomized(cfg, seed):
    """A CausalLM of cfg with every parameter random (norm gains around their identity value)."""
    torch.manual_seed(seed)
    m = CausalLM(cfg).eval()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, RMSNorm):
                mod.weight.normal_(0.0 if mod.offset else 1.0, 0.1)
            elif isinstance(mod, (torch.nn.Linear, torch.nn.Embedding)):
                mod.weight.normal_(0.0, 1.0 / math.sqrt(mod.weight.shape[-1]) if isinstance(mod, torch.nn.Linear) else 0.5)
                if getattr(mod, "bias", None) is not None:
                    mod.bias.normal_(0.0, 0.1)
    return m


def refused(fn, needles, what):
    try:
        fn()
    except (ConfigError, NotImplementedError, ValueError, SystemExit) as e:
        msg = str(e)
        check(all(n in msg for n in needles), "%s: %s" % (what, msg[:160]))
        return
    check(False, "%s: not refused" % what)


# ----------------------------------------------------------------------------- llama2.c reference
# From the format's description only: header of seven int32, fp32 arrays in the order token
# embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, freq_cis real/imag, [wcls];
# run.c's forward: RMSNorm eps 1e-5, RoPE rotating pairs (2j, 2j+1) by pos / 10000^(2j/head_size),
# KV head of query head h = h // (n_heads / n_kv_heads), SwiGLU w2(silu(w1 x) * w3 x).

class Llama2cReference:
    def __init__(self, path):
        raw = open(path, "rb").read()
        dim, hid, L, nh, nkv, vocab, seq = struct.unpack("<7i", raw[:28])
        hs = dim // nh
        self.dim, self.L, self.nh, self.nkv, self.hs, self.vocab = dim, L, nh, nkv, hs, abs(vocab)
        shapes = [("emb", (abs(vocab), dim)), ("rms_att", (L, dim)), ("wq", (L, dim, dim)), ("wk", (L, nkv * hs, dim)),
                  ("wv", (L, nkv * hs, dim)), ("wo", (L, dim, dim)), ("rms_ffn", (L, dim)), ("w1", (L, hid, dim)),
                  ("w2", (L, dim, hid)), ("w3", (L, hid, dim)), ("rms_final", (dim,)), ("fr", (seq, hs // 2)),
                  ("fi", (seq, hs // 2))]
        w, off = {}, 28
        for name, shape in shapes:
            n = int(np.prod(shape))
            w[name] = np.frombuffer(raw, "<f4", n, off).reshape(shape).astype(np.float64)
            off += 4 * n
        w["wcls"] = w["emb"] if vocab > 0 else np.frombuffer(raw, "<f4", abs(vocab) * dim, off).reshape(
            abs(vocab), dim).astype(np.float64)
        self.w = w

    @staticmethod
    def rmsnorm(x, g):
        return x / np.sqrt(np.mean(x * x) + 1e-5) * g

    def rope(self, vec, pos):
        out = vec.copy()
        for i in range(0, len(vec), 2):
            f = 1.0 / 10000.0 ** ((i % self.hs) / self.hs)
            c, s = math.cos(pos * f), math.sin(pos * f)
            out[i], out[i + 1] = vec[i] * c - vec[i + 1] * s, vec[i] * s + vec[i + 1] * c
        return out

    def logits(self, tokens):
        """Logits [T, vocab], token by token with a KV cache, as run.c's forward."""
        w, hs = self.w, self.hs
        kc = [[] for _ in range(self.L)]
        vc = [[] for _ in range(self.L)]
        out = []
        for pos, tok in enumerate(tokens):
            x = w["emb"][tok].copy()
            for l in range(self.L):
                xb = self.rmsnorm(x, w["rms_att"][l])
                q = self.rope(w["wq"][l] @ xb, pos)
                kc[l].append(self.rope(w["wk"][l] @ xb, pos))
                vc[l].append(w["wv"][l] @ xb)
                att_out = np.zeros(self.dim)
                for h in range(self.nh):
                    kv = h // (self.nh // self.nkv)
                    qh = q[h * hs:(h + 1) * hs]
                    sc = np.array([qh @ k[kv * hs:(kv + 1) * hs] for k in kc[l]]) / math.sqrt(hs)
                    p = np.exp(sc - sc.max())
                    p /= p.sum()
                    att_out[h * hs:(h + 1) * hs] = sum(pi * v[kv * hs:(kv + 1) * hs] for pi, v in zip(p, vc[l]))
                x = x + w["wo"][l] @ att_out
                xb = self.rmsnorm(x, w["rms_ffn"][l])
                a = w["w1"][l] @ xb
                x = x + w["w2"][l] @ (a / (1 + np.exp(-a)) * (w["w3"][l] @ xb))
            out.append(w["wcls"] @ self.rmsnorm(x, w["rms_final"]))
        return np.array(out)

    def greedy(self, prompt, steps):
        toks = list(prompt)
        for _ in range(steps):
            toks.append(int(np.argmax(self.logits(toks)[-1])))
        return toks


def hf_reference(cfg, sd, tokens):
    """Logits [T, vocab] of one sequence in float64 numpy, written from the Hugging Face model
    descriptions (Llama / Qwen2 / Qwen3 / Gemma 3) independently of lampsim.model: a second
    implementation of the same math, with the window mask, per-layer RoPE and Gemma's norms."""
    gemma = cfg["model_type"] == "gemma3_text"
    w = {k: v.detach().double().numpy() for k, v in sd.items()}
    T, hq, hk, d = len(tokens), cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    eps = cfg["rms_norm_eps"]

    def norm(x, g):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * ((1 + g) if gemma else g)

    def lin(x, name):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    def rope(x, theta, factor):
        inv = 1.0 / theta ** (np.arange(0, d, 2) / d) / factor
        ang = np.arange(T)[:, None] * inv[None, :]
        c, s_ = np.cos(ang), np.sin(ang)
        a, b = x[..., :d // 2], x[..., d // 2:]
        return np.concatenate([a * c - b * s_, b * c + a * s_], -1)

    x = w["model.embed_tokens.weight"][tokens] * (math.sqrt(cfg["hidden_size"]) if gemma else 1.0)
    rs = cfg.get("rope_scaling") or {}
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        sliding = cfg["layer_types"][i] == "sliding_attention"
        theta = cfg["rope_local_base_freq"] if gemma and sliding else cfg["rope_theta"]
        factor = rs.get("factor", 1.0) if rs.get("rope_type", rs.get("type")) == "linear" and not (gemma and sliding) else 1.0
        h = norm(x, w[p + "input_layernorm.weight"])
        q = lin(h, p + "self_attn.q_proj").reshape(T, hq, d)
        k = lin(h, p + "self_attn.k_proj").reshape(T, hk, d)
        v = lin(h, p + "self_attn.v_proj").reshape(T, hk, d)
        if p + "self_attn.q_norm.weight" in w:
            q, k = norm(q, w[p + "self_attn.q_norm.weight"]), norm(k, w[p + "self_attn.k_norm.weight"])
        q, k = rope(q.transpose(1, 0, 2), theta, factor), rope(k.transpose(1, 0, 2), theta, factor)
        v = v.transpose(1, 0, 2)
        scale = cfg["query_pre_attn_scalar"] ** -0.5 if gemma else d ** -0.5
        o = np.zeros((hq, T, d))
        for hh in range(hq):
            kv = hh // (hq // hk)
            sc = q[hh] @ k[kv].T * scale
            for qi in range(T):
                for kj in range(T):
                    if kj > qi or (sliding and qi - kj >= cfg["sliding_window"]):
                        sc[qi, kj] = -np.inf
            pr = np.exp(sc - sc.max(-1, keepdims=True))
            o[hh] = (pr / pr.sum(-1, keepdims=True)) @ v[kv]
        a = lin(o.transpose(1, 0, 2).reshape(T, hq * d), p + "self_attn.o_proj")
        if gemma:
            x = x + norm(a, w[p + "post_attention_layernorm.weight"])
            h = norm(x, w[p + "pre_feedforward_layernorm.weight"])
        else:
            x = x + a
            h = norm(x, w[p + "post_attention_layernorm.weight"])
        g = lin(h, p + "mlp.gate_proj")
        g = 0.5 * g * (1 + np.tanh(math.sqrt(2 / math.pi) * (g + 0.044715 * g ** 3))) if gemma else g / (1 + np.exp(-g))
        m = lin(g * lin(h, p + "mlp.up_proj"), p + "mlp.down_proj")
        x = x + (norm(m, w[p + "post_feedforward_layernorm.weight"]) if gemma else m)
    head = w["lm_head.weight"] if "lm_head.weight" in w else w["model.embed_tokens.weight"]
    logits = norm(x, w["model.norm.weight"]) @ head.T
    cap = cfg.get("final_logit_softcapping")
    return np.tanh(logits / cap) * cap if gemma and cap else logits


LLAMA = {"model_type": "llama", "vocab_size": 96, "hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
         "max_position_embeddings": 64, "tie_word_embeddings": True}


def close(a, b, tol):
    err = float((a - b).abs().max())
    return err <= tol, err


def main(tmp):
    torch.set_num_threads(1)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    ids = torch.randint(0, 256, (2, 48), generator=torch.Generator().manual_seed(7))

    # 1. the tiny model (Qwen3-style, QK-norm, GQA, tied) as Hugging Face directories
    tiny = load_pretrained(os.path.join(ROOT, "models", "tiny_kjv.safetensors"))
    ref = tiny(ids)
    for shards in (1, 3):
        d = os.path.join(tmp, "tiny_hf%d" % shards)
        C.export_hf(tiny, d, shards=shards)
        check(torch.equal(load_pretrained(d)(ids), ref),
              "tiny model -> HF directory (%d shard%s%s) -> logits bit for bit" % (
                  shards, "s" if shards > 1 else "", ", index" if shards > 1 else ""))
    refused(lambda: C.export_llama2c(tiny, os.path.join(tmp, "tiny.bin")), ["QK-norm"],
            "llama2.c cannot express the tiny model's QK-norm")

    # 2. llama2.c: export, load, and a numpy forward from the format description
    for tied in (True, False):
        cfg = dict(LLAMA, tie_word_embeddings=tied)
        m = randomized(cfg, 11 + tied)
        path = os.path.join(tmp, "llama_%s.bin" % ("tied" if tied else "untied"))
        C.export_llama2c(m, path)
        with open(path, "rb") as f:
            vocab_field = struct.unpack("<7i", f.read(28))[5]
        check(vocab_field == (96 if tied else -96), "llama2.c header vocab_size %d (negative = unshared classifier)"
              % vocab_field)
        loaded = load_pretrained(path)
        x = ids[:1, :20] % 96
        ok, err = close(loaded(x)[0].double(), m(x)[0].double(), 1e-4)
        check(ok, "llama2.c .bin (%s) -> project model: the same logits up to rounding (max |dlogit| %.2e; the"
              " loaded model rotates llama2.c's pairs in the checkpoint's order)" % ("tied" if tied else "untied", err))
        wq = torch.from_numpy(C.read_llama2c(path)[1]["wq"][0])
        check(loaded.config.get("rope_interleaved") is True and torch.equal(
              loaded.model.layers[0].self_attn.q_proj.weight.detach(), wq),
              "llama2.c (%s): wq rows kept in the checkpoint's head-dim order, recorded as rope_interleaved" %
              ("tied" if tied else "untied"))
        if tied:
            # scripts/order_sensitivity.py's "interleaved" order is what this loader keeps: the half-split
            # model with q/k permuted that way before the core gives the loaded model's pure 8-bit logits
            # bit for bit (and, as the permutation changes 8-bit sums, not the half-split model's own)
            from order_sensitivity import orders, permuted_cores
            perm = dict(orders(m.config["head_dim"], 0))["interleaved"]
            with lampsim.patch_modules(loaded, mode="pure_8bit"):
                got = loaded(x)
            with lampsim.patch_modules(m, mode="pure_8bit"):
                own = m(x)
                with permuted_cores(m, perm):
                    via = m(x)
            check(torch.equal(got, via) and not torch.equal(own, via),
                  "llama2.c (tied), pure 8-bit: loaded .bin == half-split model in order_sensitivity.py's "
                  "interleaved order (max |d| %.2e), != its stored order (max |d| %.2e)" % (
                      float((got - via).abs().max()), float((own - via).abs().max())))
        back = os.path.join(tmp, "llama_back.bin")
        C.export_llama2c(loaded, back)
        with open(path, "rb") as f1, open(back, "rb") as f2:
            check(f1.read() == f2.read(), "llama2.c (%s) loaded and exported again: the same file" %
                  ("tied" if tied else "untied"))
        rl = Llama2cReference(path)
        ok, err = close(loaded(x)[0].double(), torch.from_numpy(rl.logits(x[0].tolist())), 1e-4)
        check(ok, "llama2.c (%s) == numpy forward from the format description: max |dlogit| %.2e"
              % ("tied" if tied else "untied", err))
        prompt = [1, 17, 42]
        ours = greedy_generate(loaded, torch.tensor([prompt]), 16)[0].tolist()
        theirs = rl.greedy(prompt, 16)
        check(ours == theirs, "greedy generation from llama2.c %s: %s == reference %s"
              % ("tied" if tied else "untied", ours[3:], theirs[3:]))
        check(len(set(ours[3:])) > 1, "the generated tokens are not one repeated token")
    # the byte tokenizer as a tokenizer.bin; a BPE tokenizer.bin merges by score
    byte_tok = os.path.join(tmp, "bytes_tokenizer.bin")
    C.write_llama2c_tokenizer(byte_tok, [bytes([i]) for i in range(256)])
    text = "In the beginning God created the heaven and the earth.\n"
    t = C.Llama2cTokenizer(byte_tok, 256)
    check(t.encode(text) == list(text.encode()), "byte-level tokenizer.bin maps text to its bytes")
    pieces = ([b"<unk>", b"<s>", b"</s>"] + [b"<0x%02X>" % i for i in range(256)] + [b"i", b"n", b" ", b"t", b"h", b"e"]
              + [b"th", b"the", b" the", b"he", b"in"])
    scores = [0.0] * 265 + [-1.0, -0.5, -0.2, -3.0, -2.0]
    bpe = os.path.join(tmp, "bpe_tokenizer.bin")
    C.write_llama2c_tokenizer(bpe, pieces, scores)
    t = C.Llama2cTokenizer(bpe, len(pieces))
    enc = t.encode("in the")
    check(enc == [269, 267], "BPE by score: 'in the' -> ['in', ' the'] (%s)" % [pieces[i] for i in enc])
    check(t.decode(t.encode(text)) == text, "llama2.c tokenizer: decode(encode(text)) == text (byte fallback)")
    # the heap merge == llama2.c's loop as described (scan all pairs, best score, leftmost), on a
    # random vocabulary of merges with tied scores and random text
    rng = np.random.default_rng(5)
    alphabet = [b"a", b"b", b"c", b" "]
    merged = set()
    while len(merged) < 40:
        merged.add(b"".join(rng.choice(alphabet, size=int(rng.integers(2, 5)))))
    rpieces = [b"<unk>", b"<s>", b"</s>"] + [b"<0x%02X>" % i for i in range(256)] + alphabet + sorted(merged)
    rscores = [0.0] * (259 + len(alphabet)) + [float(rng.integers(-6, 0)) for _ in merged]
    rpath = os.path.join(tmp, "random_tokenizer.bin")
    C.write_llama2c_tokenizer(rpath, rpieces, rscores)
    rt = C.Llama2cTokenizer(rpath, len(rpieces))
    look = {p: i for i, p in enumerate(rpieces)}

    def naive(txt):
        ids = [look[ch.encode()] for ch in txt]
        while True:
            best, at = None, -1
            for i in range(len(ids) - 1):
                j = look.get(rpieces[ids[i]] + rpieces[ids[i + 1]])
                if j is not None and (best is None or rscores[j] > rscores[best]):
                    best, at = j, i
            if best is None:
                return ids
            ids[at:at + 2] = [best]
    texts = ["".join(rng.choice(["a", "b", "c", " "], size=int(rng.integers(1, 60)))) for _ in range(200)]
    check(all(rt.encode(tx) == naive(tx) for tx in texts),
          "tokenizer.bin: the heap merge == the described scan-all-pairs loop on 200 random texts")
    tok, _ = C.load_tokenizer(path, 96)
    check(tok is None, "no tokenizer.bin beside the .bin, vocabulary 96: no tokenizer (eval_ppl then needs --ids)")

    # 3. Hugging Face configs: Llama with biases and rope_scaling, Qwen2, Qwen3, Gemma 3
    inv = rope_frequencies(16, 10000.0)
    check(torch.allclose(rope_frequencies(16, 10000.0, {"rope_type": "linear", "factor": 4.0}), inv / 4),
          "rope_scaling linear divides every frequency by factor")
    l3 = rope_frequencies(16, 10000.0, {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                        "high_freq_factor": 4.0, "original_max_position_embeddings": 64})
    wl = 2 * math.pi / inv
    check(torch.equal(l3[wl < 16], inv[wl < 16]) and torch.allclose(l3[wl > 64], inv[wl > 64] / 8)
          and bool(((l3 < inv) & (l3 > inv / 8))[(wl > 16) & (wl < 64)].all()),
          "rope_scaling llama3 keeps high frequencies, divides low ones by factor, blends between")
    variants = {
        "llama (attention_bias, mlp_bias, llama3 rope_scaling, untied)": dict(
            LLAMA, attention_bias=True, mlp_bias=True, tie_word_embeddings=False, rope_theta=500000.0,
            rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 32}),
        "qwen2 (q/k/v bias, linear rope_scaling)": dict(LLAMA, model_type="qwen2", rope_scaling={"type": "linear",
                                                                                                  "factor": 2.0}),
        "qwen3 (QK-norm, head_dim 16 != hidden/heads)": dict(LLAMA, model_type="qwen3", head_dim=16),
        "gemma3_text (1+w norms, sandwich, sqrt(hidden) embeddings, query_pre_attn_scalar, sliding 8 / global)": dict(
            LLAMA, model_type="gemma3_text", head_dim=16, query_pre_attn_scalar=64, sliding_window=8,
            sliding_window_pattern=2, rope_local_base_freq=10000.0, rope_theta=1000000.0,
            rope_scaling={"rope_type": "linear", "factor": 8.0}, final_logit_softcapping=30.0),
    }
    x = ids[:, :24] % 96
    models = {}
    for i, (label, cfg) in enumerate(variants.items()):
        m = randomized(cfg, 21 + i)
        d = os.path.join(tmp, "hf_%d" % i)
        C.export_hf(m, d, shards=2)
        loaded = load_pretrained(d)
        out = loaded(x)
        check(torch.equal(out, m(x)) and bool(torch.isfinite(out).all()), "%s: HF directory -> same logits" % label)
        if cfg["model_type"] != "llama":   # llama3 rope_scaling: checked through rope_frequencies above
            ok, err = close(out[1].double(), torch.from_numpy(hf_reference(loaded.config, loaded.state_dict(),
                                                                           x[1].tolist())), 1e-4)
            check(ok, "%s == numpy forward from the model description: max |dlogit| %.1e" % (cfg["model_type"], err))
        models[cfg["model_type"]] = (loaded, d)
    qwen2 = models["qwen2"][0].model.layers[0].self_attn
    check(qwen2.q_proj.bias is not None and qwen2.o_proj.bias is None, "qwen2: bias on q/k/v, none on o_proj")
    gemma, gemma_dir = models["gemma3_text"]
    check([lay.self_attn.core.window for lay in gemma.model.layers] == [8, None],
          "gemma3: layer 0 slides (window 8), layer 1 is global (sliding_window_pattern 2)")
    # the window matters exactly where it should: positions < 8 see the same keys either way
    full = gemma(x)
    gemma.model.layers[0].self_attn.core.window = None
    nowin = gemma(x)
    gemma.model.layers[0].self_attn.core.window = 8
    check(torch.equal(full[:, :8], nowin[:, :8]) and not torch.allclose(full[:, 8:], nowin[:, 8:]),
          "gemma3 sliding window: first 8 positions unchanged, later ones change")
    # the multimodal Gemma 3 layout: text_config + language-model tensors, vision tensors ignored
    mm = os.path.join(tmp, "gemma3_mm")
    os.makedirs(mm)
    with open(os.path.join(gemma_dir, "config.json")) as f:
        text_cfg = json.load(f)
    with open(os.path.join(mm, "config.json"), "w") as f:
        json.dump({"model_type": "gemma3", "text_config": text_cfg, "vision_config": {"hidden_size": 8}}, f)
    tensors = {}
    for name in sorted(os.listdir(gemma_dir)):
        if name.endswith(".safetensors"):
            tensors.update(read_safetensors(os.path.join(gemma_dir, name))[0])
    tensors = {("language_model." + k): v for k, v in tensors.items()}
    tensors["vision_tower.patch.weight"] = np.zeros((2, 2), np.float32)
    write_safetensors(os.path.join(mm, "model.safetensors"), tensors)
    check(torch.equal(load_pretrained(mm)(x), full), "gemma3 multimodal layout (text_config, language_model.*) loads")
    # through lampsim: fp32 mode == torch, Gemma's scale honoured; a live sliding window refused by layer
    for mt in ("qwen3", "gemma3_text", "llama"):
        m = models[mt][0]
        xs = x[:1, :8]
        with lampsim.patch_modules(m, mode="fa2_fp32") as calls:
            via = m(xs)
        ok, err = close(via, m(xs), 2e-4)
        check(ok and len(calls) == 2, "%s through lampsim fa2_fp32 == torch (max |dlogit| %.1e)" % (mt, err))

    def gemma_long():
        with lampsim.patch_modules(gemma, mode="lamp"):
            gemma(x)
    refused(gemma_long, ["sliding-window", "model.layers.0.self_attn.core"], "lampsim refuses a live sliding window")

    # 4. the scripts on these checkpoints: eval_ppl on a llama2.c .bin with its tokenizer.bin and a
    # text file; dump_qkv on the Gemma 3 directory (its softmax scale becomes the trace's sharpness)
    import eval_ppl
    import dump_qkv
    C.write_llama2c_tokenizer(os.path.join(tmp, "tokenizer.bin"), [bytes([32 + i]) for i in range(96)])
    with open(os.path.join(tmp, "sample.txt"), "w") as f:
        f.write("In the beginning God created the heaven and the earth. " * 12)
    out = os.path.join(tmp, "ppl_llama2c")
    eval_ppl.main(["-o", out, "--checkpoint", os.path.join(tmp, "llama_tied.bin"), "--text", os.path.join(tmp, "sample.txt"),
                   "--sequences", "2", "--tokens", "48", "--tau", "0.5", "--no-random", "--threads", "1"])
    with open(os.path.join(out, "ppl.json")) as f:
        res = {r["label"]: r["ppl"] for r in json.load(f)["results"]}
    check(set(res) == {"torch fp32", "fa2_fp32", "fa2_16bit", "pure_8bit", "lamp tau=0.5"}
          and float("%.4g" % res["torch fp32"]) == float("%.4g" % res["fa2_fp32"]),
          "eval_ppl on llama2.c .bin + tokenizer.bin + --text: fp32 through lampsim == torch (%.5g, %.5g)"
          % (res["torch fp32"], res["fa2_fp32"]))
    ids_path = os.path.join(tmp, "ids8.npy")
    np.save(ids_path, x[:1, :8].numpy())
    dump_dir = os.path.join(tmp, "gemma_traces")
    dump_qkv.main(["--checkpoint", gemma_dir, "--ids", ids_path, "--out", dump_dir])
    with open(os.path.join(dump_dir, "layer0.yaml")) as f:
        text0 = f.read()
    check(os.path.isfile(os.path.join(dump_dir, "layer1_q.npy")) and "sharpness: 0.5 " in text0,
          "dump_qkv --checkpoint gemma3: 2 layers, sharpness 0.5 (query_pre_attn_scalar 64, head dim 16)")
    np.save(ids_path, x[:1, :12].numpy())
    refused(lambda: dump_qkv.main(["--checkpoint", gemma_dir, "--ids", ids_path, "--out", dump_dir]),
            ["sliding-window", "model.layers.0.self_attn.core"], "dump_qkv refuses a trace of a live sliding window")
    np.save(ids_path, x[:1, :13].numpy())
    refused(lambda: eval_ppl.main(["-o", os.path.join(tmp, "ppl_gemma"), "--checkpoint", gemma_dir, "--ids", ids_path,
                                   "--tau", "0.5", "--no-random"]),
            ["eval_ppl", "sliding-window", "model.layers.0.self_attn.core"], "eval_ppl refuses a live sliding window")
    check(not os.path.exists(os.path.join(tmp, "ppl_gemma")), "eval_ppl: nothing written for the refused run")

    # 5. bad inputs name the file and the tensor or key
    d = os.path.join(tmp, "hf_0")
    with open(os.path.join(d, "model.safetensors.index.json")) as f:
        index = json.load(f)
    shard = sorted(set(index["weight_map"].values()))[1]
    os.rename(os.path.join(d, shard), os.path.join(tmp, "moved.safetensors"))
    refused(lambda: load_pretrained(d), ["model.safetensors.index.json", shard, "holds tensor"], "missing shard")
    arrays = read_safetensors(os.path.join(tmp, "moved.safetensors"))[0]
    victim = sorted(arrays)[0]
    arrays[victim] = np.zeros((3, 5), np.float32)
    write_safetensors(os.path.join(d, shard), arrays)
    refused(lambda: load_pretrained(d), [shard, victim, "[3, 5]"], "wrong tensor shape")
    del arrays[victim]
    write_safetensors(os.path.join(d, shard), arrays)
    refused(lambda: load_pretrained(d), [shard, victim, "not in"], "tensor listed in the index but absent")
    single = os.path.join(tmp, "tiny_hf1")
    with open(os.path.join(single, "config.json")) as f:
        good_cfg = json.load(f)
    for bad, needles in (({"model_type": "mistral"}, ["config.json", "model_type", "mistral"]),
                         ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, ["config.json", "rope_scaling", "yarn"]),
                         ({"attn_logit_softcapping": 50.0}, ["config.json", "attn_logit_softcapping"]),
                         ({"partial_rotary_factor": 0.5}, ["config.json", "partial_rotary_factor"]),
                         ({"hidden_act": "relu"}, ["config.json", "hidden_act"]),
                         ({"layer_types": ["chunked_attention"] * 4}, ["config.json", "layer_types[0]"]),
                         ({"num_hidden_layers": 5, "layer_types": None}, ["tiny_hf1", "model.layers.4.", "missing"])):
        with open(os.path.join(single, "config.json"), "w") as f:
            json.dump({k: v for k, v in dict(good_cfg, **bad).items() if v is not None}, f)
        refused(lambda: load_pretrained(single), needles, "config %s" % json.dumps(bad)[:60])
    bin_path = os.path.join(tmp, "llama_tied.bin")
    raw = open(bin_path, "rb").read()
    for label, content, needles in (("truncated .bin", raw[:-4], ["truncated.bin", "bytes", "implies"]),
                                    ("version-2 .bin", struct.pack("<Ii", 0x616B3432, 2) + raw[8:], ["version-2", "ak42"]),
                                    ("bad header", struct.pack("<7i", 48, 80, 2, 5, 1, 96, 64) + raw[28:],
                                     ["n_heads 5"])):
        p = os.path.join(tmp, "truncated.bin" if label.startswith("trunc") else "bad.bin")
        with open(p, "wb") as f:
            f.write(content)
        refused(lambda: load_pretrained(p), needles, label)
    with open(os.path.join(tmp, "short_tok.bin"), "wb") as f:
        f.write(open(bpe, "rb").read()[:-3])
    refused(lambda: C.Llama2cTokenizer(os.path.join(tmp, "short_tok.bin"), len(pieces)), ["short_tok.bin", "token %d" % (len(pieces) - 1)],
            "truncated tokenizer.bin")
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
