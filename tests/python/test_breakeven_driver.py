#!/usr/bin/env python3
"""scripts/breakeven_study.py leaves nothing behind (issue #39): summary.json (and every file it
writes) is replaced atomically, and a driver stopped by SIGTERM or killed by SIGKILL does not leave
its `lampsim sweep run` running (a stand-in lampsim that sleeps, with a child of its own).
usage: test_breakeven_driver.py TMPDIR"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from checks import ROOT, check, done  # noqa: E402
import breakeven_study as B  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "breakeven_study.py")


def alive(pid):
    """pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(cond, seconds):
    t0 = time.time()
    while time.time() - t0 < seconds:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def pids_in(path):
    try:
        with open(path) as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return []


def driver_case(tmp, name, sig, grandchild):
    """Starts the driver with a stand-in lampsim, stops it with sig, checks that no stand-in survives."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    pids = os.path.join(d, "pids")
    fake = os.path.join(d, "lampsim")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\n" + ("sleep 120 &\necho $! >> %s\necho $$ >> %s\nwait\n" % (pids, pids) if grandchild
                                 else "echo $$ >> %s\nexec sleep 120\n" % pids))
    os.chmod(fake, 0o755)
    drv = subprocess.Popen([sys.executable, SCRIPT, "run", "-o", os.path.join(d, "out"), "--lampsim", fake],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    want = 2 if grandchild else 1
    started = wait_for(lambda: len(pids_in(pids)) >= want, 30)
    check(started, "%s: the stand-in sweep started (%s)" % (name, pids_in(pids)))
    drv.send_signal(sig)
    rc = drv.wait(timeout=30)
    gone = wait_for(lambda: not any(alive(p) for p in pids_in(pids)), 5)
    check(gone, "%s: driver ended (exit %d) and its sweep with it: %s still running"
          % (name, rc, [p for p in pids_in(pids) if alive(p)] or "none"))
    if sig == signal.SIGTERM:
        check(rc == 128 + signal.SIGTERM, "%s: the driver exits 143 (128 + SIGTERM): %d" % (name, rc))
    for p in pids_in(pids):   # what this test started, by id, should the check have failed
        if alive(p):
            os.kill(p, signal.SIGKILL)


def main(tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # atomic summary.json: a failure while producing it leaves the old file whole, no temporary behind
    path = os.path.join(tmp, "summary.json")
    with open(path, "w") as f:
        f.write('{"old": 1}\n')
    write = getattr(B, "write_json_atomic", None)
    check(write is not None, "breakeven_study.write_json_atomic writes summary.json")
    if write:
        try:
            write(path, {"ok": 1, "bad": object()})
            raised = False
        except TypeError:
            raised = True
        check(raised and open(path).read() == '{"old": 1}\n' and os.listdir(tmp) == ["summary.json"],
              "write_json_atomic: a summary that fails to serialise leaves summary.json as it was, no temporary")
        write(path, {"new": [1, 2]})
        mask = os.umask(0)
        os.umask(mask)
        check(json.load(open(path)) == {"new": [1, 2]} and os.listdir(tmp) == ["summary.json"]
              and os.stat(path).st_mode & 0o777 == 0o666 & ~mask,
              "write_json_atomic: replaced whole, mode %o as open() gives" % (os.stat(path).st_mode & 0o777))
    driver_case(tmp, "sigterm", signal.SIGTERM, False)
    driver_case(tmp, "sigterm_workers", signal.SIGTERM, True)
    driver_case(tmp, "sigkill", signal.SIGKILL, False)
    return done()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
