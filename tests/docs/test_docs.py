#!/usr/bin/python3
"""Docs test: runs the shell commands of a Markdown file's fenced ```sh blocks as a new user would.

    test_docs.py BUILD REPO FILE.md [FILE.md ...]

First the documented install step: `cmake --install BUILD --prefix P` (what `make install
PREFIX=P` does after building) into a temporary P, with P/bin first on PATH, so `lampsim` is the
installed binary. Every `lampsim ...` or `build/lampsim ...` line of a ```sh / ```bash block runs
(bash, in order, in one temporary directory per file; `build/lampsim` is BUILD's binary). The
directory holds links to the repository's configs/, workloads/, scripts/, hw/, docs/ and tests/ (a
new user works in the repository root) and the fixtures a.npy, b.npy (two float32 vectors, for
`lampsim fp dot`). Other lines (make, apt, scripts, sbatch, comments) are not run, except in a
file marked with the HTML comment `<!-- docs-test: run-all -->`: there every line runs but the
install step itself (`make ...`, `export PATH=...`), which the test has done. Skipped: lines
ending in `# not run in tests`. A line ending in `# exit N` must exit with status N; a block right
after the HTML comment `<!-- docs-test: expect-failure -->` must exit non-zero; every other
command must exit 0. Backslash-continued lines are joined. Each command has a time limit
(DOCS_TEST_TIMEOUT, 300 s).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

build, repo, files = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
lampsim = os.path.join(build, "lampsim")
limit = float(os.environ.get("DOCS_TEST_TIMEOUT", "300"))
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


def blocks(text):
    """yield (first line number, expect_failure, [lines]) of each sh/bash block"""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            lang, start = m.group(2), i
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            if lang in ("sh", "bash", "shell"):
                prev = "\n".join(lines[max(0, start - 3):start])
                yield start + 2, "docs-test: expect-failure" in prev, lines[start + 1:j]
            i = j + 1
        else:
            i += 1


def commands(body, first):
    cmd, at = "", first
    for k, ln in enumerate(body):
        if not cmd:
            at = first + k
        if ln.rstrip().endswith("\\"):
            cmd += ln.rstrip()[:-1] + " "
            continue
        cmd += ln
        yield at, cmd.strip()
        cmd = ""


def is_lampsim(cmd):
    return re.match(r"^(\./)?(build/)?lampsim(\s|$)", cmd) is not None


def is_install_step(cmd):
    return re.match(r"^(make(\s|$)|export\s+PATH=)", cmd) is not None


def install(prefix):
    """the documented install step; returns the PATH a new user has after it"""
    r = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"cmake --install {build} --prefix {prefix} failed:\n{r.stdout}{r.stderr}")
    return os.path.join(prefix, "bin") + os.pathsep + os.environ.get("PATH", "")


def main():
    total = fails = skipped = 0
    for f in files:
        path = f if os.path.isabs(f) else os.path.join(repo, f)
        text = open(path).read()
        run_all = "<!-- docs-test: run-all -->" in text
        tmp = tempfile.mkdtemp(prefix="lampsim-docs-")
        try:
            for d in ("configs", "workloads", "scripts", "hw", "docs", "tests"):
                os.symlink(os.path.join(repo, d), os.path.join(tmp, d))
            os.makedirs(os.path.join(tmp, "build"))
            os.symlink(lampsim, os.path.join(tmp, "build", "lampsim"))
            np.save(os.path.join(tmp, "a.npy"), np.array([1.5, 0.375, -2.0, 0.25], dtype=np.float32))
            np.save(os.path.join(tmp, "b.npy"), np.array([0.75, -1.25, 0.5, 3.0], dtype=np.float32))
            env = dict(os.environ, PATH=install(os.path.join(tmp, ".prefix")))
            for first, expect_fail, body in blocks(text):
                for line, cmd in commands(body, first):
                    if not (is_lampsim(cmd) or (run_all and cmd and not cmd.startswith("#")
                                                    and not is_install_step(cmd))):
                        continue
                    where = f"{os.path.relpath(path, repo)}:{line}"
                    if re.search(r"#\s*not run in tests\s*$", cmd):
                        skipped += 1
                        print(f"skip  {where}: {cmd}")
                        continue
                    m = re.search(r"#\s*exit\s+(\d+)\s*$", cmd)
                    want = int(m.group(1)) if m else None
                    total += 1
                    t0 = time.time()
                    try:
                        r = subprocess.run(["bash", "-c", cmd], cwd=tmp, env=env, capture_output=True, text=True,
                                           timeout=limit)
                        rc, err = r.returncode, r.stderr
                    except subprocess.TimeoutExpired:
                        rc, err = "timeout", f"longer than {limit:.0f} s"
                    if want is not None:
                        ok = rc == want
                    elif expect_fail:
                        ok = rc not in (0, "timeout")
                    else:
                        ok = rc == 0
                    print(f"{'ok   ' if ok else 'FAIL '} {where}: {cmd}  (exit {rc}, {time.time() - t0:.1f} s)")
                    if not ok:
                        fails += 1
                        print("      " + "\n      ".join(err.strip().split("\n")[-8:]))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{total} command(s) run, {skipped} skipped, {fails} failed")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
