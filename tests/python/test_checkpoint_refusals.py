#!/usr/bin/env python3
"""The Python checkpoint loaders refuse bad input with one error type naming the file (issue #39):
shard paths from an index are confined to the checkpoint directory and no refusal quotes a file's
bytes (D5); a config's shapes are checked against the tensors before anything is allocated, so a
small checkpoint claiming a huge vocabulary or many layers is refused at once (D6); every refusal
of read_safetensors, config.json, the index, a metadata config and a llama2.c .bin is a
CheckpointError (a ValueError) 'FILE: TENSOR: reason', with NaN / non-positive / wrong-typed config
values refused by key; parameter_shapes agrees with the model's own state_dict.
usage: test_checkpoint_refusals.py TMPDIR"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

try:
    import torch
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)

from checks import ROOT, check, done  # noqa: E402
from lampsim import checkpoints as C  # noqa: E402
from lampsim.checkpoints import CheckpointError  # noqa: E402
from lampsim.model import CausalLM  # noqa: E402
from lampsim.safetensors_io import read_safetensors, write_safetensors  # noqa: E402

CFG = {"model_type": "llama", "vocab_size": 40, "hidden_size": 64, "intermediate_size": 48, "num_hidden_layers": 2,
       "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
       "tie_word_embeddings": False}


def refused(fn, path, needles, what, absent=()):
    """fn() must raise a CheckpointError whose message starts with path and holds every needle."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the type is what is checked)
        msg = str(e)
        ok = (isinstance(e, CheckpointError) and isinstance(e, ValueError) and msg.startswith(path + ": ")
              and getattr(e, "path", None) == path and all(n in msg for n in needles) and not any(a in msg for a in absent))
        check(ok, "%s: %s: %s" % (what, type(e).__name__, msg[:220]))
        return
    check(False, "%s: not refused" % what)


def st_bytes(header, body=b"", pad=True):
    js = header if isinstance(header, bytes) else json.dumps(header).encode()
    if pad:
        js += b" " * (-len(js) % 8)
    return struct.pack("<Q", len(js)) + js + body


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def shards_dir(tmp, name, model):
    d = os.path.join(tmp, name)
    C.export_hf(model, d, shards=2)
    return d


def edit_index(d, fn):
    p = os.path.join(d, "model.safetensors.index.json")
    with open(p) as f:
        idx = json.load(f)
    fn(idx["weight_map"])
    write(p, json.dumps(idx))
    return p


def d5(tmp, model):
    """shard paths that leave the directory; no file bytes in a message"""
    other = shards_dir(tmp, "other", model)
    shard0 = sorted(n for n in os.listdir(other) if n.endswith(".safetensors"))[0]
    d = shards_dir(tmp, "d5_rel", model)
    idx = edit_index(d, lambda wm: wm.update({k: "../other/" + shard0 for k, v in wm.items() if v == shard0}))
    os.remove(os.path.join(d, shard0))
    refused(lambda: C.load_model(d), idx, ["../other/" + shard0, "leaves the checkpoint directory"],
            "D5: an index naming ../other/SHARD (a valid shard outside) is refused")
    secret = os.path.join(tmp, "secret.txt")
    write(secret, "SECRETXY root:x:0:0 private line\n" * 4)
    d = shards_dir(tmp, "d5_abs", model)
    idx = edit_index(d, lambda wm: wm.update({k: secret for k, v in wm.items() if v == shard0}))
    first8 = str(struct.unpack("<Q", b"SECRETXY")[0])
    refused(lambda: C.load_model(d), idx, ["leaves the checkpoint directory"],
            "D5: an index naming an absolute path is refused, no byte of that file shown", absent=["SECRET", first8])
    if os.path.isfile("/etc/passwd"):
        edit_index(d, lambda wm: wm.update({k: "/etc/passwd" for k in wm}))
        refused(lambda: C.load_model(d), idx, ["/etc/passwd", "leaves the checkpoint directory"],
                "D5: an index naming /etc/passwd is refused")
    d = shards_dir(tmp, "d5_climb", model)
    idx = edit_index(d, lambda wm: wm.update({k: "sub/../../d5_rel/" + shard0 for k, v in wm.items() if v == shard0}))
    refused(lambda: C.load_model(d), idx, ["leaves the checkpoint directory"], "D5: sub/../../X climbs out: refused")
    # a file that is not a safetensors read directly: refused without its first bytes as a number
    refused(lambda: read_safetensors(secret), secret, ["header length field exceeds"],
            "D5: a text file read as safetensors: no byte shown", absent=["SECRET", first8])
    # symlinks inside the directory are the owner's (the Hugging Face cache's layout): followed
    d = shards_dir(tmp, "d5_link", model)
    os.remove(os.path.join(d, shard0))
    os.symlink(os.path.join(other, shard0), os.path.join(d, shard0))
    ids = torch.arange(8)[None] % 40
    check(torch.equal(C.load_model(d)(ids), model(ids)), "D5: a symlinked shard (Hugging Face cache layout) loads")
    d = shards_dir(tmp, "d5_fifo", model)
    os.remove(os.path.join(d, shard0))
    os.mkfifo(os.path.join(d, shard0))
    t0 = time.time()

    def on_alarm(signum, frame):
        raise TimeoutError("blocked on the FIFO")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(5)   # a loader blocking on the FIFO fails here instead of hanging
    try:
        refused(lambda: read_safetensors(os.path.join(d, shard0)), os.path.join(d, shard0), ["not a regular file"],
                "D5: a FIFO is refused without blocking")
    finally:
        signal.alarm(0)
    check(time.time() - t0 < 5, "D5: ... at once (%.2f s)" % (time.time() - t0))


CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
if "libasan" not in open("/proc/self/maps").read():   # AddressSanitizer's allocator needs the address space
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
from lampsim import checkpoints as C
t0 = time.time()
try:
    C.load_model(sys.argv[2])
    out = {"type": None, "msg": "loaded"}
except BaseException as e:
    out = {"type": type(e).__name__, "checkpoint_error": isinstance(e, C.CheckpointError), "msg": str(e)[:300]}
out["seconds"] = time.time() - t0
out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def d6(tmp, model):
    """a config claiming far more than its tensors, refused before allocating"""
    for key, value, needles in (("vocab_size", 1 << 24, ["model.embed_tokens.weight", "vocab_size 16777216",
                                                          "[16777216, 64]", "[40, 64]"]),
                                ("intermediate_size", 1 << 22, ["mlp.gate_proj.weight", "intermediate_size 4194304"]),
                                ("num_hidden_layers", 5000, ["model.layers.2.", "missing", "num_hidden_layers 5000"]),
                                ("num_hidden_layers", 1 << 30, ["num_hidden_layers 1073741824"])):
        d = os.path.join(tmp, "d6_%s_%d" % (key, value))
        C.export_hf(model, d)
        cfg_path = os.path.join(d, "config.json")
        with open(cfg_path) as f:
            cfg = json.load(f)
        cfg[key] = value
        cfg.pop("layer_types")   # derived, written by export_hf
        write(cfg_path, json.dumps(cfg))
        r = subprocess.run([sys.executable, "-c", CHILD, ROOT, d], capture_output=True, text=True, timeout=300)
        try:
            out = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            out = {"type": "crash", "msg": r.stderr[-300:], "seconds": -1, "maxrss_mb": -1}
        msg = out["msg"].replace(tmp, "TMP")
        check(out.get("checkpoint_error") and d in out["msg"] and "config.json" in out["msg"]
              and all(n in out["msg"] for n in needles),
              "D6: config.json %s %d on a %d kB checkpoint: %s: %s" % (
                  key, value, os.path.getsize(os.path.join(d, "model.safetensors")) // 1024, out["type"], msg))
        check(out["seconds"] < 2.0 and out["maxrss_mb"] < 1024,
              "D6: ... refused in %.2f s (< 2), peak RSS %.0f MB (< 1024)" % (out["seconds"], out["maxrss_mb"]))


def error_type(tmp, model):
    """every refusal a CheckpointError naming the file"""
    f = os.path.join(tmp, "bad.safetensors")
    good = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}
    body = b"\0" * 16
    cases = [
        ("header not JSON", st_bytes(b"{not json"), ["header", "not JSON"]),
        ("header a list", st_bytes([1, 2]), ["expected a JSON object"]),
        ("header not UTF-8", st_bytes(b'{"\xff": 1}'), ["not UTF-8"]),
        ("header nested 100000 deep", st_bytes(b"[" * 100000 + b"]" * 100000), ["nested too deeply"]),
        ("NaN in the header", st_bytes(b'{"w": {"dtype": "F32", "shape": [NaN], "data_offsets": [0, 16]}}', body),
         ["NaN"]),
        ("duplicate tensor name", st_bytes(b'{"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}, '
                                           b'"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}', body),
         ["appears twice"]),
        ("tensor not an object", st_bytes({"w": 3}), ["w: expected an object"]),
        ("no shape", st_bytes({"w": {"dtype": "F32", "data_offsets": [0, 16]}}, body), ["w: no shape"]),
        ("shape a string", st_bytes({"w": dict(good, shape="2x2")}, body), ["w: shape '2x2'"]),
        ("shape negative", st_bytes({"w": dict(good, shape=[-2, -2])}, body), ["w: shape"]),
        ("data_offsets a float", st_bytes({"w": dict(good, data_offsets=[0, 16.0])}, body), ["w: data_offsets"]),
        ("shape vs bytes (cannot reshape)", st_bytes({"w": dict(good, shape=[3, 2])}, body),
         ["w: shape [3, 2] of F32 needs 24 bytes but data_offsets span 16"]),
        ("data beyond the file", st_bytes({"w": dict(good, data_offsets=[0, 16])}, b"\0" * 8), ["w: data_offsets [0, 16]"]),
        ("dtype a list", st_bytes({"w": dict(good, dtype=["F32"])}, body), ["w: unsupported dtype"]),
        ("gap after the tensors", st_bytes({"w": good}, body + b"\0" * 4), ["gap in the data buffer"]),
        ("overlapping tensors", st_bytes({"a": good, "b": good}, body), ["overlaps"]),
        ("metadata not strings", st_bytes({"__metadata__": {"x": 1}}), ["__metadata__"]),
        ("truncated to 5 bytes", b"\x10\0\0\0\0", ["too short"]),
    ]
    for what, data, needles in cases:
        write(f, data)
        refused(lambda: read_safetensors(f), f, needles, "read_safetensors: " + what)

    single = os.path.join(tmp, "cfg")
    C.export_hf(model, single)
    cfg_path = os.path.join(single, "config.json")
    for what, edit, needles in (
            ("rms_norm_eps NaN", {"rms_norm_eps": float("nan")}, ["rms_norm_eps NaN"]),
            ("rms_norm_eps 0", {"rms_norm_eps": 0}, ["rms_norm_eps 0", "> 0"]),
            ("rms_norm_eps -1e-6", {"rms_norm_eps": -1e-6}, ["rms_norm_eps"]),
            ("rope_theta 0", {"rope_theta": 0.0}, ["rope_theta 0.0"]),
            ("rope_theta -10000", {"rope_theta": -10000.0}, ["rope_theta"]),
            ("rope_theta Infinity", {"rope_theta": float("inf")}, ["rope_theta Infinity"]),
            ("rope_theta a string", {"rope_theta": "1e4"}, ["rope_theta '1e4'"]),
            ("hidden_size a string", {"hidden_size": "64"}, ["hidden_size '64'", "integer"]),
            ("hidden_size 64.5", {"hidden_size": 64.5}, ["hidden_size 64.5"]),
            ("num_attention_heads 0", {"num_attention_heads": 0}, ["num_attention_heads 0"]),
            ("num_key_value_heads true", {"num_key_value_heads": True}, ["num_key_value_heads True"]),
            ("model_type a list", {"model_type": ["llama"]}, ["model_type ['llama']"]),
            ("tie_word_embeddings 'yes'", {"tie_word_embeddings": "yes"}, ["tie_word_embeddings 'yes'"]),
            ("vocab_size null", {"vocab_size": None}, ["missing key 'vocab_size'"]),
            ("rope_scaling factor NaN", {"rope_scaling": {"rope_type": "linear", "factor": float("nan")}},
             ["rope_scaling.factor NaN"]),
            ("llama3 high == low", {"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                     "high_freq_factor": 1.0, "original_max_position_embeddings": 64}},
             ["high_freq_factor"]),
            ("layer_types a string", {"layer_types": "full_attention"}, ["layer_types 'full_attention'"]),
            ("head_dim odd", {"head_dim": 15}, ["head_dim 15 is odd"])):
        with open(os.path.join(tmp, "cfg0.json")) as fh:
            cfg = json.load(fh)
        cfg.update(edit)
        write(cfg_path, json.dumps(cfg))
        refused(lambda: C.load_model(single), cfg_path, needles, "config.json: " + what)
    for what, text, needles in (("a list", "[1, 2]", ["expected a JSON object"]),
                                ("nested 100000 deep", "[" * 100000 + "]" * 100000, ["nested too deeply"]),
                                ("not UTF-8", b'{"model_type": "\xff"}', ["not UTF-8"]),
                                ("truncated", '{"model_type": "llama", "vocab', ["not JSON", "line 1"])):
        write(cfg_path, text)
        refused(lambda: C.load_model(single), cfg_path, needles, "config.json " + what)

    d = shards_dir(tmp, "idx", model)
    idx = os.path.join(d, "model.safetensors.index.json")
    for what, text, needles in (("not JSON", "{", ["not JSON"]), ("a list", "[]", ["weight_map"]),
                                ("weight_map a list", '{"weight_map": ["a"]}', ["weight_map"]),
                                ("a shard an integer", '{"weight_map": {"model.norm.weight": 3}}', ["shard 3"]),
                                ("nested deep", '{"weight_map": ' + "[" * 100000 + "]" * 100000 + "}",
                                 ["nested too deeply"])):
        write(idx, text)
        refused(lambda: C.load_model(d), idx, needles, "index " + what)

    meta = os.path.join(tmp, "meta.safetensors")
    sd = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    for what, conf, needles in (("not JSON", "{oops", ["metadata config", "not JSON"]),
                                ("rms_norm_eps NaN", json.dumps(dict(CFG, rms_norm_eps=float("nan"))), ["rms_norm_eps NaN"]),
                                ("a number", "3", ["expected an object"])):
        write_safetensors(meta, sd, {"config": conf})
        refused(lambda: C.load_model(meta), meta, needles, "metadata config " + what)
    # a tensor of integers where weights are expected
    bad = dict(sd, **{"model.norm.weight": sd["model.norm.weight"].astype("int32")})
    write_safetensors(meta, bad, {"config": json.dumps(CFG)})
    refused(lambda: C.load_model(meta), meta, ["model.norm.weight: dtype int32"], "an integer weight tensor")
    write(os.path.join(tmp, "x.bin"), struct.pack("<7i", 64, 48, 2, 4, 2, 40, 1 << 30) + b"\0" * 64)
    refused(lambda: C.load_model(os.path.join(tmp, "x.bin")), os.path.join(tmp, "x.bin"), ["bytes, but the header"],
            "llama2.c header claiming seq_len 2^30: refused by size before reading")


def shapes_agree():
    """parameter_shapes == CausalLM(cfg).state_dict() shapes, per architecture and option"""
    from lampsim.model import check_config, parameter_shapes
    base = dict(vocab_size=24, hidden_size=16, intermediate_size=20, num_hidden_layers=3, num_attention_heads=4,
                num_key_value_heads=2)
    for extra in ({"model_type": "llama"}, {"model_type": "llama", "attention_bias": True, "mlp_bias": True},
                  {"model_type": "qwen2"}, {"model_type": "qwen3", "head_dim": 8, "tie_word_embeddings": True},
                  {"model_type": "gemma3_text", "head_dim": 6, "query_pre_attn_scalar": 6, "sliding_window_pattern": 2},
                  {"model_type": "lampsim-tiny", "attention_bias": True}):
        cfg = check_config(dict(base, **extra))
        got = {n: s for n, s, _ in parameter_shapes(cfg)}
        want = {k: tuple(v.shape) for k, v in CausalLM(cfg).state_dict().items()}
        check(got == want, "parameter_shapes == state_dict shapes: %s (%d tensors)" % (json.dumps(extra), len(want)))


def main(tmp):
    torch.set_num_threads(1)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    torch.manual_seed(5)
    model = CausalLM(CFG).eval()
    write(os.path.join(tmp, "cfg0.json"), json.dumps(model.config))
    d5(tmp, model)
    d6(tmp, model)
    error_type(tmp, model)
    shapes_agree()
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
