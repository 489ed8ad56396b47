# SPDX-License-Identifier: GPL-2.0
"""Forked ranks for the Python tests that import torch once and fork every
trainer after it (tests/vm/torch-checks.py, tests/cluster/torch-remote.py)."""

import os
import time


def in_child(fn, *args) -> int:
    """fn(*args) in a forked child, whose exit status is its return; the pid."""
    pid = os.fork()
    if pid == 0:
        rc = 1
        try:
            rc = fn(*args)
        except BaseException as e:  # noqa: BLE001 - reported, never re-raised
            print(f"# child: {type(e).__name__}: {e}", flush=True)
        os._exit(rc)
    return pid


def reap(pids, limit_s: float) -> list:
    """Exit statuses of the children; any still running after limit_s is
    killed (one dead rank would leave the others waiting)."""
    end, rcs = time.time() + limit_s, {}
    while len(rcs) < len(pids):
        for p in pids:
            if p not in rcs:
                got, st = os.waitpid(p, os.WNOHANG)
                if got:
                    rcs[p] = os.waitstatus_to_exitcode(st)
        if time.time() > end:
            for p in pids:
                if p not in rcs:
                    os.kill(p, 9)
                    os.waitpid(p, 0)
                    rcs[p] = "killed"
        time.sleep(0.1)
    return [rcs[p] for p in pids]
