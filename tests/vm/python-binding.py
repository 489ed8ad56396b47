#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The rackweave Python package against the module (run by tests/vm/python.sh).

numpy only (no torch: its import costs a minute under TCG; tests/vm/torch.sh
covers the torch side). Prints one TAP line per check; exits 1 if any failed.
argv: OUT_DIR (writable, for the token file).
"""

import errno
import os
import subprocess
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import rackweave as rw  # noqa: E402

failed = 0


def ok(cond, desc, detail=""):
    global failed
    print(("ok - " if cond else "not ok - ") + "python: " + desc)
    if not cond:
        failed = 1
        for line in str(detail).splitlines():
            print("#   " + line)
    sys.stdout.flush()


def raises(err, desc, fn, *args, **kw):
    """fn(...) raises RackWeaveError with errno err and a sentence."""
    try:
        fn(*args, **kw)
    except rw.RackWeaveError as e:
        good = e.errno == err and len(e.strerror) > 10 and errno.errorcode[err] in str(e)
        ok(good, f"{desc}: {errno.errorcode[err]}, '{e}'", f"got errno {e.errno}: {e}")
        return e
    except Exception as e:  # noqa: BLE001 - the wrong kind is a failure
        ok(False, desc, f"raised {type(e).__name__}: {e}")
        return None
    ok(False, desc, "no exception")
    return None


out = sys.argv[1]
tok = os.path.join(out, "py.token")
with open(tok, "wb") as f:
    f.write(os.urandom(32))

# --- job control through rwctl -j -----------------------------------------
rw.job_add("py1", 1, optim="average", chunk_size=4096, token_file=tok)
jobs = rw.job_show("py1")
ok(len(jobs) == 1 and jobs[0]["name"] == "py1" and jobs[0]["optim"] == "average",
   "job_add/job_show: a 1-worker averaging job", jobs)
raises(errno.EEXIST, "job_add of an existing name", rw.job_add, "py1", 1, token_file=tok)
raises(errno.EINVAL, "job_add with a bad worker count (usage error)",
       rw.job_add, "py2", 0, token_file=tok)

# --- one worker: the views are the mapping --------------------------------
w = rw.Worker("py1", tok, rank=0)
w.declare({7: 3000, 9: 100})
s = w.setup
ok(s.workers == 1 and s.nr_tensors == 2 and s.chunk_size == 4096 and s.sync == "bsp",
   f"declare and map: setup {s}")
t7, t9 = w.tensor(7), w.tensor(9)
ok(t7.grad.dtype == np.float32 and t7.grad.shape == (3000,) and t9.params.shape == (100,),
   "tensor views: float32, one element per declared element")
ok(t7.grad.base is not None and np.shares_memory(t7.grad, w.grad)
   and np.shares_memory(t9.params, w.params), "tensor views are slices of the buffer views")
ok(not w.params.flags.writeable and not w.versions.flags.writeable and w.grad.flags.writeable,
   "grad is writable; params and versions are read-only, as mapped")
try:
    t9.params[0] = 1.0
    ok(False, "writing the parameters through numpy is refused")
except ValueError:
    ok(True, "writing the parameters through numpy is refused (ValueError)")

vals7 = np.arange(3000, dtype=np.float32) * 0.5 - 7
vals9 = np.linspace(-1, 1, 100, dtype=np.float32)
t7.grad[:] = vals7  # a write through numpy is what the push sends
t9.grad[:] = vals9
before = w.versions.copy()
p7 = t7.params      # held across the pull: no new array, no copy
w.pushpull()
ok(np.array_equal(p7, vals7) and np.array_equal(t9.params, vals9),
   "a numpy write is pushed; the pull shows in the array taken before it (1 worker: mean = gradient)",
   f"{p7[:4]} vs {vals7[:4]}")
ok(bool((w.versions > before).all()), "every chunk's version advanced",
   f"{before} -> {w.versions}")

# An observer maps the same pages read-only.
with rw.Worker("py1", tok, observer=True) as obs:
    obs.declare({7: 3000, 9: 100})
    ok(np.array_equal(obs.tensor(7).params, vals7) and obs.grad is None,
       "an observer sees the same parameters and has no gradient buffer")
    raises(errno.EPERM, "an observer cannot push", obs.push)

# --- bad input: clear exceptions, the job keeps working ----------------
raises(errno.EACCES, "attach with a wrong token", rw.Worker, "py1", bytes(32), 0)
e = raises(errno.ENOENT, "attach to a job that does not exist", rw.Worker, "nosuchjob", tok, 0)
ok(e is not None and "no job named 'nosuchjob'" in str(e), "... naming the job it did not find", e)
raises(errno.ERANGE, "attach with a rank out of range", rw.Worker, "py1", tok, 5)
raises(errno.EADDRINUSE, "attach to a rank in use", rw.Worker, "py1", tok, 0)
raises(errno.EINVAL, "a token of the wrong length", rw.Worker, "py1", b"short", 0)
e = raises(errno.ENOENT, "an unknown tensor key", w.tensor, 8)
ok(e is not None and "key 8" in str(e), "... naming the key", e)
raises(errno.ENOENT, "a push of an unknown tensor key", w.push, keys=[8])
raises(errno.EINVAL, "a chunk range beyond the model", w.pull, chunks=[(0, 1000)])
raises(errno.EINVAL, "declare with a zero-element tensor", w.declare, {1: 0})
rw.job_add("pybig", 1, chunk_size=4096, token_file=tok)
with rw.Worker("pybig", tok, 0) as big:
    e = raises(errno.E2BIG, "declare a tensor too big for the engine",
               big.declare, {1: 1 << 40})
    if e is None:  # show what the module said instead
        print("#   (see above)")
w.close()
raises(errno.EBADF, "push on a closed worker", w.push)
raises(errno.EBADF, "tensor() on a closed worker", w.tensor, 7)
ok(np.array_equal(p7, vals7), "an array taken before close() still reads the parameters")
with rw.Worker("py1", tok, 0) as w2:  # the rank came free at close()
    w2.declare({7: 3000, 9: 100})
    w2.tensor(7).grad[:] = 2 * vals7
    w2.tensor(9).grad[:] = 0
    w2.pushpull()
    ok(np.array_equal(w2.tensor(7).params, 2 * vals7),
       "after every refusal the job trains on (rank 0 attached again, pushed, pulled)")
rw.job_del("pybig")

# --- two workers: a mean, async start/wait, timeouts ---------------------
rw.job_add("py2", 2, optim="average", chunk_size=4096, token_file=tok)
a, b = rw.Worker("py2", tok, 0), rw.Worker("py2", tok, 1)
ok(a.timeout_ms == rw.DEFAULT_TIMEOUT_MS == 300000,
   f"a Worker's waits are finite by default ({a.timeout_ms} ms)")
os.environ["RACKWEAVE_TIMEOUT_MS"] = "0"
with rw.Worker("py1", tok, 0) as w3:
    ok(w3.timeout_ms == 0, "RACKWEAVE_TIMEOUT_MS=0 lifts the limit")
os.environ["RACKWEAVE_TIMEOUT_MS"] = "soon"
raises(errno.EINVAL, "RACKWEAVE_TIMEOUT_MS that is not a number", rw.Worker, "py1", tok, 0)
del os.environ["RACKWEAVE_TIMEOUT_MS"]
# torchrun's variables (RANK, WORLD_SIZE, ...) and the job's.
TORCHRUN = {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
            "GROUP_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500",
            "TORCHELASTIC_RUN_ID": "none", "RACKWEAVE_JOB": "py2",
            "RACKWEAVE_TOKEN_FILE": tok}
e = raises(errno.EINVAL, "Worker.from_env() on a job of 2 workers with WORLD_SIZE=3",
           rw.Worker.from_env, dict(TORCHRUN, WORLD_SIZE="3"))
ok(e is not None and "WORLD_SIZE is 3 but job 'py2' has 2 workers" in str(e),
   "... saying what to change", e)
raises(errno.EINVAL, "Worker.from_env() without RACKWEAVE_JOB",
       rw.Worker.from_env, {"RANK": "0"})
with rw.Worker.from_env(dict(TORCHRUN, RANK="0", WORLD_SIZE="1", RACKWEAVE_JOB="py1",
                             RACKWEAVE_TIMEOUT_MS="5000")) as fe:
    fe.declare({7: 3000, 9: 100})
    ok(fe.rank == 0 and fe.world_size == 1 and fe.job == "py1" and fe.timeout_ms == 5000
       and fe.setup.workers == 1,
       "Worker.from_env() with torchrun's variables attaches rank 0 of job py1's 1")
a.declare([(1, 5000)])
e = raises(errno.EEXIST, "declare another layout than the job's", b.declare, [(1, 4999)])
ok(e is not None and "another model" in str(e) and "py2" in str(e),
   "the refused rank hears that the job runs another model", e)
a.set_timeout(300)
e = raises(errno.ETIMEDOUT, "the rank that was not refused waits for the initial "
           "parameters beyond its timeout", a.params_wait)
ok(e is not None and "declare was refused" in str(e) and "0.3 s" in str(e),
   "its timeout names a refused declare as a cause", e)
b.declare([(1, 5000)])
a.grad[:] = 1.0
b.grad[:] = 3.0
a.push()
raises(errno.ETIMEDOUT, "a pull that waits for the other worker beyond set_timeout", a.pull)
done = b.pushpull_start()
ok(done in (True, False), f"pushpull_start returns ({'done' if done else 'pending'})")
b.wait(20000)
a.pull()
ok(np.all(a.tensor(1).params == 2.0) and np.all(b.tensor(1).params == 2.0),
   "two workers pull the mean (1 + 3) / 2 into their views")

# A blocking pull sleeps in the kernel without holding the GIL.
a.set_timeout(20000)  # the 0.3 s above would end the blocked call first
a.tensor(1).grad[:] = 5.0
b.tensor(1).grad[:] = 7.0
res = {}
th = threading.Thread(target=lambda: res.setdefault("a", a.pushpull()))
th.start()
ticks = 0
while th.is_alive() and ticks < 3:
    ticks += 1  # the main thread runs while rank 0 waits for rank 1
    th.join(0.2)
b.pushpull()
th.join(20)
ok(ticks >= 1 and not th.is_alive() and np.all(a.tensor(1).params == 6.0),
   "a pushpull blocked in one thread lets other threads run; both pull 6")
a.close()
b.close()

# --- 16-bit tensors: typed views, half the bytes, the mean rounded -------
def bf16(f: np.ndarray) -> np.ndarray:
    """float32 to bfloat16 bits, to nearest even (no NaN here)."""
    u = f.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def widen(h: np.ndarray) -> np.ndarray:
    return (h.astype(np.uint32) << 16).view(np.float32)


rw.job_add("py16", 2, optim="average", chunk_size=4096, token_file=tok)
a, b = rw.Worker("py16", tok, 0), rw.Worker("py16", tok, 1)
raises(errno.EINVAL, "declare a tensor of an unknown type (int8)",
       a.declare, {1: (10, "int8")})
raises(errno.EINVAL, "declare a priority out of range (65536)",
       a.declare, {1: (10, "float32", rw.PRIORITY_MAX + 1)})
layout = {1: (1000, "bfloat16"), 2: 3, 3: (501, np.float16)}
a.declare(layout)
b.declare([(1, 1000, "bfloat16"), (2, 3), (3, 501, "float16")])
t1, t2, t3 = a.tensor(1), a.tensor(2), a.tensor(3)
ok(a.setup.model_bytes == 2048 + 64 + 1002 and t2.offset == 2048 and t3.offset == 2112,
   f"a mixed layout: 2 bytes per 16-bit element ({a.setup.model_bytes} bytes)")
ok((t1.dtype, t1.grad.dtype, t2.grad.dtype, t3.params.dtype, a.grad.dtype) ==
   ("bfloat16", np.uint16, np.float32, np.float16, np.uint8),
   "typed views: bfloat16 bits as uint16, float16, float32; the mixed buffers as bytes",
   (t1.dtype, t1.grad.dtype, t2.grad.dtype, t3.params.dtype, a.grad.dtype))
rng = np.random.default_rng(5)
va, vb = (rng.standard_normal(1000).astype(np.float32) for _ in range(2))
ha, hb = (rng.standard_normal(501).astype(np.float16) for _ in range(2))
t1.grad[:], b.tensor(1).grad[:] = bf16(va), bf16(vb)
t2.grad[:], b.tensor(2).grad[:] = [1, 2, 3], [3, 4, 5]
t3.grad[:], b.tensor(3).grad[:] = ha, hb
half = np.float32(0.5)
done = b.pushpull_start()
a.pushpull()
b.wait(20000)
want1 = bf16((widen(bf16(va)) + widen(bf16(vb))) * half)
want3 = ((ha.astype(np.float32) + hb.astype(np.float32)) * half).astype(np.float16)
ok(np.array_equal(t1.params, want1) and np.array_equal(b.tensor(1).params, want1),
   "bfloat16: the mean of the widened gradients, rounded to nearest even, on both ranks")
ok(np.array_equal(t3.params.view(np.uint16), want3.view(np.uint16)),
   "float16: likewise, bit for bit with numpy's float16 rounding")
ok(np.array_equal(t2.params, [2, 3, 4]), "the float32 tensor between them: the mean")
a.close()
b.close()
for j in ("py1", "py2", "py16"):
    rw.job_del(j)
raises(errno.ENOENT, "job_del of a job that is gone", rw.job_del, "py2")

# --- numpy's SIMD loops in this guest ------------------------------------
# Under QEMU 7.2's emulation of AVX2 (-cpu max) this call died with SIGSEGV
# in numpy's AVX2 loops, every time; scripts/vm-run sets
# NPY_DISABLE_CPU_FEATURES in the guest so numpy keeps to its AVX code. In
# a child process, so that a crash is a failed check, not a lost test.
NP_CODE = """
import numpy as np
for n in (1000, 5018, 1 << 20):
    for dt in (np.float32, np.float64):
        a = (np.random.default_rng(n).random(n) - 0.5).astype(dt)
        b = np.maximum(a, 1e-6)
        r = np.abs(a - b) / np.maximum(np.abs(b), 1e-6)
        assert b.min() >= dt(1e-6) and b.max() == a.max() and r.shape == a.shape
"""
p = subprocess.run([sys.executable, "-c", NP_CODE], capture_output=True, text=True)
ok(p.returncode == 0, "numpy: np.maximum(array, 1e-6) and friends on float32/float64 arrays "
   f"up to 1M elements (exit {p.returncode}; NPY_DISABLE_CPU_FEATURES="
   f"{os.environ.get('NPY_DISABLE_CPU_FEATURES', '')!r})", p.stderr[-1500:])
sys.exit(failed)
