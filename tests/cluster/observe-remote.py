#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A read-only observer on a worker host, the job on another host's box
(run by tests/cluster/ckpt.sh on the worker VM while two softmax-trainers
there train the job).

Attaches as the job's remote observer (rackweave.Worker(observer=True,
box=...), rw_attach_remote_flags(3)) as soon as the run exists, maps this
host's copy of the parameters and watches it while the trainers train:
the versions it sees move during the run, not only at its end. Once
DIR/JOB-done exists (the trainers have exited), its copy must become the
trainers' final parameters, bit for bit, within a second (the box
refreshes an observer within RW_WIRE_OBSERVE_MS of a step). An observer
refuses to push and to set initial parameters (EPERM), as on the box, and
saves a checkpoint of the finished run from here.
argv: JOB TOKEN_FILE BOX DIR. Writes DIR/JOB-obs-ready once imported.
TAP on stdout.
"""

import errno
import os
import sys
import time

import numpy as np

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
import rackweave as rw  # noqa: E402

job, tok, box, out = sys.argv[1:5]
LAYOUT = {1: 640, 2: 10}     # softmax-trainer's W (10 x 64) and b
failed = 0


def ok(cond, desc, detail=""):
    global failed
    print(("ok - " if cond else "not ok - ") + "observe-remote: " + desc, flush=True)
    if not cond:
        failed = 1
        for line in str(detail).splitlines():
            print("#   " + line, flush=True)


def attach(limit_s: float):
    """The observer, once the job has a run (ENOTCONN until then)."""
    end = time.time() + limit_s
    while True:
        w = rw.Worker(job, tok, observer=True, box=box, timeout_ms=20000)
        try:
            w.declare(LAYOUT)
            return w
        except rw.RackWeaveError as e:
            w.close()
            if e.errno != errno.ENOTCONN or time.time() > end:
                raise
        time.sleep(0.1)


def flat(w) -> np.ndarray:
    return np.concatenate([w.tensor(k).params for k in LAYOUT])


open(f"{out}/{job}-obs-ready", "w").close()
try:
    w = attach(120)
except rw.RackWeaveError as e:
    ok(False, "attached as the job's observer on the box", e)
    sys.exit(1)
ok(w.grad is None and w.params is not None and not w.params.flags.writeable,
   "attached as the job's observer: parameters mapped read-only, no gradients")

seen = set()
while not os.path.exists(f"{out}/{job}-done"):
    seen.add(int(w.versions[0]))
    time.sleep(0.02)
ok(len(seen) >= 3, f"its copy moved during the run ({len(seen)} versions of chunk 0 seen)",
   sorted(seen))

want = np.concatenate([np.fromfile(f"{out}/{job}-params-0.bin", dtype=np.float32)])
t0 = time.time()
while not np.array_equal(flat(w), want) and time.time() - t0 < 5:
    time.sleep(0.01)
lag = time.time() - t0
ok(np.array_equal(flat(w), want),
   f"it became the trainers' final parameters, bit for bit, {lag * 1000:.0f} ms after they exited")
ok(lag < 1.0, "... within a second of their end", f"{lag:.3f} s")

for what, call in (("push", lambda: w.push()),
                   ("params_init", lambda: w.params_init(np.zeros(w.params.size,
                                                                  dtype=np.float32)))):
    try:
        call()
        ok(False, f"an observer's {what} is refused with EPERM", "it was not")
    except rw.RackWeaveError as e:
        ok(e.errno == errno.EPERM, f"an observer's {what} is refused with EPERM", e)

step = int(w.job_head()["step"])
try:
    w.checkpoint_save(f"{out}/{job}-obs.ckpt")
    head = w.job_head()
    ok(os.path.getsize(f"{out}/{job}-obs.ckpt") > head["image_len"] and head["step"] == step,
       f"it saves the finished run from here (step {step})")
except rw.RackWeaveError as e:
    ok(False, "it saves the finished run from here", e)
w.close()
sys.exit(failed)
