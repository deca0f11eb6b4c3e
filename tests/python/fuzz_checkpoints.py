#!/usr/bin/env python3
"""Seeded mutation fuzz of the Python checkpoint loaders (issue #39; no Python fuzzing engine is
packaged in Debian 12). Valid tiny checkpoints are made here in every format lampsim.checkpoints
reads (a .safetensors read alone, a Hugging Face directory with config.json, one sharded through
model.safetensors.index.json, a .safetensors with its config in the metadata, a llama2.c .bin);
each case copies one pristine file, damages it (bit flips, byte overwrites, truncation, spliced
bytes, the header-length field, the llama2.c header, and edits of the JSON inside: the safetensors
header, its metadata config, config.json, the index: values swapped for other types, huge, NaN,
negative, escaping paths, keys dropped or added, deep nesting) and loads it. Every refusal must be
a CheckpointError whose message holds the damaged file's path; anything else (another exception,
a message without the path, a case over its time limit, MemoryError under the address-space cap)
is a finding, printed with the case number that reproduces it (--seed S --first N --cases 1).

usage: fuzz_checkpoints.py TMPDIR [--cases N | --seconds S] [--seed S] [--first N] [--no-fail] [-v]"""
import argparse
import copy
import json
import os
import random
import resource
import shutil
import signal
import struct
import sys
import time

try:
    import torch
except ImportError:  # python3-torch missing: skip (ctest SKIP_RETURN_CODE)
    print("skipped: no torch")
    sys.exit(77)

import checks  # noqa: E402,F401  (puts python/ on the path)
from lampsim import checkpoints as C  # noqa: E402
from lampsim.checkpoints import CheckpointError  # noqa: E402
from lampsim.model import CausalLM  # noqa: E402
from lampsim.safetensors_io import read_safetensors, write_safetensors  # noqa: E402

# llama2.c can express it (RMSNorm eps 1e-5, theta 10000, no QK-norm), GQA, untied
CFG = {"model_type": "llama", "vocab_size": 40, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 2,
       "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
       "tie_word_embeddings": False, "max_position_embeddings": 32}
CASE_SECONDS = 20      # one load of these files takes milliseconds
ADDRESS_SPACE = 6 << 30   # a mutation that makes a loader allocate gigabytes fails as MemoryError, not the machine


class CaseTimeout(Exception):
    pass


def make_targets(tmp):
    """{kind: (pristine dir, mutated file name, loader(dir) -> None)}"""
    torch.manual_seed(3)
    model = CausalLM(CFG).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    base = os.path.join(tmp, "pristine")
    os.makedirs(base)
    single, sharded = os.path.join(base, "hf_single"), os.path.join(base, "hf_sharded")
    C.export_hf(model, single)
    C.export_hf(model, sharded, shards=2)
    meta = os.path.join(base, "meta")
    os.makedirs(meta)
    sd = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    write_safetensors(os.path.join(meta, "model.safetensors"), sd, {"config": json.dumps(CFG), "note": "fuzz"})
    l2c = os.path.join(base, "llama2c")
    os.makedirs(l2c)
    C.export_llama2c(model, os.path.join(l2c, "model.bin"))
    shard0 = sorted(n for n in os.listdir(sharded) if n.endswith(".safetensors"))[0]
    return {
        "safetensors": (single, "model.safetensors", lambda d: read_safetensors(os.path.join(d, "model.safetensors"))),
        "config": (single, "config.json", lambda d: C.load_model(d)),
        "hf_shard": (sharded, shard0, lambda d: C.load_model(d)),
        "index": (sharded, "model.safetensors.index.json", lambda d: C.load_model(d)),
        "meta_safetensors": (meta, "model.safetensors", lambda d: C.load_model(os.path.join(d, "model.safetensors"))),
        "llama2c": (l2c, "model.bin", lambda d: C.load_model(os.path.join(d, "model.bin"))),
    }


# ----------------------------------------------------------------------------- JSON mutations

DEEP = "[" * 50000 + "]" * 50000
POOL = [None, True, False, 0, -1, 1, 2, 3, 7, 1 << 24, 1 << 31, 1 << 63, 1 << 64, 10 ** 30, 1.5, -0.0, 1e-300, 1e308,
        float("nan"), float("inf"), float("-inf"), "", "x", "F32", "BF16", "I64", "U8", "F16", "llama", "qwen3",
        "model.safetensors", "../escape.safetensors", "/etc/passwd", "sub/../../x.safetensors", [], [1], [0, 0],
        [1 << 40, 1 << 40], [3, -1], [0, 1 << 62], {}, {"a": 1}, ["x"] * 3, "@DEEP@"]


def pick(rng):
    """A fresh copy of a pool value: edits of one case never change the pool (cases replay alone)."""
    return copy.deepcopy(rng.choice(POOL))


def nodes(obj):
    """Every (container, key) pair of a parsed JSON value."""
    out = []
    if isinstance(obj, dict):
        for k in list(obj):
            out.append((obj, k))
            out += nodes(obj[k])
    elif isinstance(obj, list):
        for i in range(len(obj)):
            out.append((obj, i))
            out += nodes(obj[i])
    return out


def mutate_value(rng, v):
    if isinstance(v, bool) or v is None:
        return pick(rng)
    if isinstance(v, (int, float)) and rng.random() < 0.6:
        return rng.choice([-v, 0, v + 1, v - 1, v * 2, v * (1 << 20), float(v), v / 3, float("nan"), float("inf"),
                           str(v), [v], 1 << 24])
    if isinstance(v, str) and rng.random() < 0.6:
        return rng.choice([v + "x", v[:-1], "../" + v, "/" + v, v.upper(), v + "/../../" + v, "", v * 2, [v], 0])
    if isinstance(v, list) and v and rng.random() < 0.5:
        w = list(v)
        rng.choice([lambda: w.pop(), lambda: w.append(pick(rng)), lambda: w.reverse(),
                    lambda: w.__setitem__(0, pick(rng))])()
        return w
    return pick(rng)


def mutate_json_text(rng, text):
    """A structural edit of a JSON document (or a textual one when it does not parse)."""
    try:
        obj = json.loads(text)
    except ValueError:
        return mutate_bytes(rng, text.encode()).decode("utf-8", "replace")
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        ns = nodes(obj)
        choice = rng.random()
        if not ns or choice < 0.08:
            obj = pick(rng) if rng.random() < 0.9 else [obj]
            continue
        cont, key = rng.choice(ns)
        if choice < 0.7:
            cont[key] = mutate_value(rng, cont[key])
        elif choice < 0.85:
            del cont[key]
        elif isinstance(cont, dict):
            cont[rng.choice(["__metadata__", "extra", "config", "x" * 300, key + "_"])] = pick(rng)
        else:
            cont.insert(key, pick(rng))
    out = json.dumps(obj)
    return out.replace('"@DEEP@"', DEEP)


# ----------------------------------------------------------------------------- byte mutations

INTERESTING = [0, 0xFF, 0x7F, 0x80, ord('"'), ord("{"), ord("}"), ord(","), ord("["), ord("]"), ord(":"), ord("-"),
               ord("9"), ord("\\"), 0x0A]


def mutate_bytes(rng, raw):
    raw = bytearray(raw)
    kind = rng.randrange(7)
    if kind == 0 or not raw:                 # bit flips
        for _ in range(rng.choice([1, 1, 2, 4, 8])):
            if raw:
                i = rng.randrange(len(raw))
                raw[i] ^= 1 << rng.randrange(8)
    elif kind == 1:                          # interesting bytes
        for _ in range(rng.choice([1, 2, 3])):
            raw[rng.randrange(len(raw))] = rng.choice(INTERESTING)
    elif kind == 2:                          # truncation
        raw = raw[:rng.randrange(len(raw))]
    elif kind == 3:                          # appended bytes
        raw += bytes(rng.randrange(256) for _ in range(rng.choice([1, 7, 64])))
    elif kind == 4:                          # a span deleted
        i = rng.randrange(len(raw))
        del raw[i:i + rng.choice([1, 4, 100])]
    elif kind == 5:                          # a span duplicated
        i = rng.randrange(len(raw))
        j = min(len(raw), i + rng.choice([1, 8, 200]))
        raw[i:i] = raw[i:j]
    else:                                    # a span overwritten with random bytes
        i = rng.randrange(len(raw))
        for j in range(i, min(len(raw), i + rng.choice([2, 8, 32]))):
            raw[j] = rng.randrange(256)
    return bytes(raw)


def mutate_safetensors(rng, raw):
    n = struct.unpack("<Q", raw[:8])[0]
    header, body = raw[8:8 + n].decode(), raw[8 + n:]
    r = rng.random()
    if r < 0.35:
        return mutate_bytes(rng, raw)
    if r < 0.45:                             # the header-length field
        v = rng.choice([0, 1, 2, 7, n - 1, n + 1, n + 8, len(raw) - 8, len(raw), 1 << 31, 1 << 63, (1 << 64) - 1,
                        rng.randrange(1 << 64)])
        return struct.pack("<Q", max(0, v)) + raw[8:]
    hobj = json.loads(header)
    if r < 0.6 and "__metadata__" in hobj and "config" in hobj["__metadata__"]:   # the config inside the metadata
        hobj["__metadata__"]["config"] = mutate_json_text(rng, hobj["__metadata__"]["config"])
        text = json.dumps(hobj)
    else:
        text = mutate_json_text(rng, header)
    js = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.8:                   # usually a consistent length field, padded as the writer does
        js += b" " * (-len(js) % 8)
        return struct.pack("<Q", len(js)) + js + body
    return struct.pack("<Q", n) + js + body


def mutate_llama2c(rng, raw):
    if rng.random() < 0.5:
        return mutate_bytes(rng, raw)
    h = list(struct.unpack("<7i", raw[:28]))
    for _ in range(rng.choice([1, 1, 2])):
        i = rng.randrange(7)
        h[i] = rng.choice([0, -1, 1, 2, 3, -h[i], h[i] + 1, h[i] - 1, h[i] * 2, 1 << 24, (1 << 31) - 1, -(1 << 31),
                           rng.randrange(-(1 << 31), 1 << 31)])
    return struct.pack("<7i", *(((v + (1 << 31)) % (1 << 32)) - (1 << 31) for v in h)) + raw[28:]   # int32 wrap


def mutate(rng, kind, raw):
    if kind in ("safetensors", "hf_shard", "meta_safetensors"):
        return mutate_safetensors(rng, raw)
    if kind == "llama2c":
        return mutate_llama2c(rng, raw)
    if rng.random() < 0.25:
        return mutate_bytes(rng, raw)
    return mutate_json_text(rng, raw.decode()).encode("utf-8", "surrogatepass")


# ----------------------------------------------------------------------------- driver

def on_alarm(signum, frame):
    raise CaseTimeout()


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("tmp")
    ap.add_argument("--cases", type=int, default=600)
    ap.add_argument("--seconds", type=float, help="run until this much time has passed (instead of --cases)")
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--first", type=int, default=0, help="the first case number (to replay one)")
    ap.add_argument("--no-fail", action="store_true", help="report the figures, exit 0 even with findings")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    targets = make_targets(a.tmp)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    # an address-space cap starves AddressSanitizer's allocator (the sanitizer build preloads it): not there
    asan = "libasan" in open("/proc/self/maps").read()
    if not asan and (hard == resource.RLIM_INFINITY or hard > ADDRESS_SPACE):
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, hard))
    signal.signal(signal.SIGALRM, on_alarm)
    work = os.path.join(a.tmp, "work")
    kinds = sorted(targets)
    counts = {"cases": 0, "accepted": 0, "refused": 0, "good": 0}
    by_type, findings = {}, []
    t0 = time.time()
    case = a.first
    while (time.time() - t0 < a.seconds) if a.seconds else (case < a.first + a.cases):
        rng = random.Random(a.seed * 1000003 + case)
        kind = kinds[case % len(kinds)]
        src, name, load = targets[kind]
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(src, work)
        path = os.path.join(work, name)
        with open(path, "rb") as f:
            raw = f.read()
        with open(path, "wb") as f:
            f.write(mutate(rng, kind, raw))
        counts["cases"] += 1
        ts = time.time()
        signal.alarm(CASE_SECONDS)
        err = None
        try:
            load(work)
        except CaseTimeout:
            err = CaseTimeout("over %d s" % CASE_SECONDS)
        except (Exception, RecursionError) as e:  # noqa: B014  (every escape is counted)
            err = e
        finally:
            signal.alarm(0)
        dt = time.time() - ts
        if err is None:
            counts["accepted"] += 1
        else:
            counts["refused"] += 1
            msg = str(err)
            tname = type(err).__name__
            good = isinstance(err, CheckpointError) and path in msg
            by_type[tname] = by_type.get(tname, 0) + 1
            if good:
                counts["good"] += 1
            else:
                findings.append((case, kind, tname, msg[:200].replace(work, "DIR")))
            if a.verbose:
                print("case %d %s %s %.3fs %s" % (case, kind, tname, dt, msg[:160].replace(work, "DIR")))
        case += 1
    refused = counts["refused"]
    share = counts["good"] / refused if refused else 1.0
    print("fuzz_checkpoints: seed %d, %d mutations in %.1f s: %d loaded, %d refused, %d of them (%.1f %%) a "
          "CheckpointError naming the damaged file" % (a.seed, counts["cases"], time.time() - t0, counts["accepted"],
                                                       refused, counts["good"], 100 * share))
    print("  refusals by type: " + ", ".join("%s %d" % kv for kv in sorted(by_type.items(), key=lambda kv: -kv[1])))
    seen = set()
    for case, kind, tname, msg in findings:
        if (kind, tname) in seen and not a.verbose:
            continue
        seen.add((kind, tname))
        print("FINDING case %d (%s): %s: %s" % (case, kind, tname, msg))
    if findings:
        print("%d finding(s); replay one with --seed %d --first CASE --cases 1 -v" % (len(findings), a.seed))
    return 1 if findings and not a.no_fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
