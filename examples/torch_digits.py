#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Train a small PyTorch MLP on the 8x8 digits through a RackWeave box.

Usage (as root, the module loaded, the job created; `make demo` does all):

  examples/torch_digits.py --job digits --token-file TOKEN --workers 4 \\
      --data build/examples/digits.bin [--box ADDR | --boxes ADDR,ADDR,...]
      [--slow 2,3]

W trainers (forked from this process, which imports torch once, so that
it can draw every rank's progress live and run several policies one
after the other; your own trainers start with `python3 -m
rackweave.launch`, as examples/torch_ddp.py does, see docs/python.md) each
train the same MLP (64-64-10, ReLU) on their shard of the training split
with rackweave.torch.DistributedOptimizer: the box runs the optimizer
(the job's `optim`), the trainers push gradients and pull parameters, and
the job's sync policy decides who waits for whom. Rank 0's initial model
is the run's (rw_params_init); rank 0 also measures test accuracy on the
held-out split every half epoch.

--slow RANKS (default none) slows those ranks on purpose: after each
backward pass they sleep a random time drawn from an exponential
distribution of mean --slow-ms (default 40) ms, as stragglers on a busy
host stall now and then. Under BSP every iteration waits for the slower
of them; under SSP and adaptive staleness the fast ranks run ahead within
the bound (the band) and a stall is absorbed instead of waited for.

While it runs a progress line every --every seconds: wall time, rank 0's
epoch and loss, test accuracy, samples/s over all ranks, and per rank its
clock (iterations pushed), staleness (its clock minus the slowest
training rank's; "done" once finished) and time parked by the box's
gate. The box's numbers (time parked, the job's max skew) come from
`rwctl -j stats show JOB` when the job is on this host, or from
--stats-file (a copy the box refreshes) when the trainers attach over
RDMA (--box). At the end: a summary table, and in --out DIR
results.json and, unless --no-plot, accuracy.png (test accuracy against
wall time).

--policies bsp,ssp,adaptive runs once per policy, on jobs JOB-bsp,
JOB-ssp, JOB-adaptive made beforehand (--stats-file may contain {job}),
each into OUT/POLICY, then prints them side by side and draws them all
in OUT/compare.png (one policy: OUT/accuracy.png). torch is imported
once for all of them. --plot PNG FILE... draws saved results.json or
compare.json files (what `make demo` does on the host).

The data file is examples/digits-export.py's (--shuffle 1); its last
--test-frac (0.2) of samples are the test split.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import struct
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import rackweave as rw  # noqa: E402

# Per-rank shared state, written by the trainer, read by the parent.
F_CLOCK, F_EPOCH, F_LOSS, F_SAMPLES, F_PARKED, F_DONE, F_ERR = range(7)
NF = 7
MAXH = 4096  # accuracy history entries (rank 0)


def load_digits_file(path: str, test_frac: float):
    with open(path, "rb") as f:
        head = f.read(32)
        if head[:8] != b"RWDIGIT1":
            raise SystemExit(f"{path}: not a digits file (examples/digits-export.py)")
        _, n, feat, classes = struct.unpack("<4I", head[8:24])
        x = np.frombuffer(f.read(4 * n * feat), dtype="<f4").reshape(n, feat)
        y = np.frombuffer(f.read(n), dtype=np.uint8).astype(np.int64)
    ntest = int(round(n * test_frac))
    return x[:-ntest], y[:-ntest], x[-ntest:], y[-ntest:], classes


def shared(shape, dtype=np.float64) -> np.ndarray:
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    m = mmap.mmap(-1, n, flags=mmap.MAP_SHARED)
    return np.frombuffer(m, dtype=dtype).reshape(shape)


def make_model(torch, classes: int, hidden: int):
    return torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, classes))


def trainer(a, rank, data, state, hist, hcount, t0) -> int:
    import torch
    import rackweave.torch as rwt
    torch.set_num_threads(1)
    xtr, ytr, xte, yte, classes = data
    torch.manual_seed(a.seed)
    dtype = getattr(torch, a.dtype)
    model = make_model(torch, classes, a.hidden).to(dtype)
    w = rw.Worker(a.job, a.token_file, rank, box=a.box,
                  boxes=a.boxes.split(",") if a.boxes else None,
                  timeout_ms=a.timeout_ms)
    opt = rwt.DistributedOptimizer(model, w, timeout_ms=a.timeout_ms,
                                   layer_by_layer=a.layer_by_layer)
    x = torch.from_numpy(np.ascontiguousarray(xtr[rank::a.workers])).to(dtype)
    y = torch.from_numpy(np.ascontiguousarray(ytr[rank::a.workers]))
    xt, yt = torch.from_numpy(np.ascontiguousarray(xte)).to(dtype), torch.from_numpy(yte)
    gen = torch.Generator().manual_seed(a.seed + rank)
    steps_per_epoch = (len(y) + a.batch - 1) // a.batch
    eval_every = max(1, steps_per_epoch // 2)
    lossf = torch.nn.CrossEntropyLoss()
    slow = a.slow_ms / 1000.0 if rank in a.slow else 0.0
    stall = np.random.RandomState(a.seed * 1000 + rank)
    me = state[rank]

    def evaluate(step: int, loss: float) -> None:
        with torch.no_grad():
            acc = (model(xt).argmax(1) == yt).float().mean().item()
        i = int(hcount[0])
        if i < MAXH:
            hist[i] = (time.time() - t0, step / steps_per_epoch, acc, loss)
            hcount[0] = i + 1

    step = 0
    if rank == 0:
        evaluate(0, float("nan"))
    for epoch in range(a.epochs):
        perm = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), a.batch):
            idx = perm[i:i + a.batch]
            opt.zero_grad()
            loss = lossf(model(x[idx]), y[idx])
            loss.backward()
            if slow:
                time.sleep(stall.exponential(slow))
            t = time.time()
            opt.step()
            me[F_PARKED] += time.time() - t
            step += 1
            me[F_CLOCK], me[F_EPOCH] = step, epoch + (i + a.batch) / len(y)
            me[F_LOSS], me[F_SAMPLES] = loss.item(), me[F_SAMPLES] + len(idx)
            if rank == 0 and (step % eval_every == 0 or step == a.epochs * steps_per_epoch):
                evaluate(step, loss.item())
    opt.synchronize()
    w.close()
    return 0


class BoxStats:
    """The box's view of the job: rwctl here, or a file the box refreshes."""

    def __init__(self, job: str, path: str | None):
        self.job, self.path = job, path
        self.last: dict = {}
        self.max_skew = 0

    def read(self) -> dict:
        """The latest view while the run lasts: once every worker has left,
        the box starts the job's next run (clocks and totals at 0), so
        the last view of this run is kept, and the largest max skew seen."""
        try:
            if self.path:
                with open(self.path) as f:
                    cur = json.load(f)
            else:
                cur = rw.stats(self.job)
        except (OSError, ValueError):
            return self.last
        if any(w.get("attached") for w in cur.get("workers", [])):
            self.last = cur
            self.max_skew = max(self.max_skew, cur.get("totals", {}).get("max_skew", 0))
        return self.last


def per_rank(box: dict, state: np.ndarray):
    """Each rank's clock (iterations pushed, counted by the trainer as it
    returns from the push: the box's copy reaches a worker host only every
    second or so) and seconds parked by the box's gate (the box's count,
    else the trainer's time in push-and-pull)."""
    ws = {w["rank"]: w for w in box.get("workers", [])}
    clocks, parked = [], []
    for r in range(len(state)):
        w = ws.get(r)
        clocks.append(int(state[r][F_CLOCK]))
        parked.append(w["parked_ns"] / 1e9 if w and "parked_ns" in w else state[r][F_PARKED])
    return clocks, parked


def progress(a, t0, state, hist, hcount, box) -> str:
    clocks, parked = per_rank(box, state)
    live = [c for r, c in enumerate(clocks) if not state[r][F_DONE]] or clocks
    # A rank's clock is its pushed iterations; its staleness, how far it
    # is ahead of the slowest rank still training.
    lo = min(live)
    n = int(hcount[0])
    acc = f"{hist[n - 1][2]:.3f}" if n else "  -  "
    wall = time.time() - t0
    sps = state[:, F_SAMPLES].sum() / max(wall, 1e-9)
    stale = ["done" if state[r][F_DONE] else f"+{c - lo:<3d}" for r, c in enumerate(clocks)]
    return (f"{wall:6.1f}s  epoch {state[0][F_EPOCH]:5.2f}/{a.epochs}  "
            f"loss {state[0][F_LOSS]:.3f}  test acc {acc}  {sps:5.0f} samples/s"
            f" | clock {' '.join(f'{c:3d}' for c in clocks)}"
            f" | stale {' '.join(stale)}"
            f" | parked {' '.join(f'{p:4.1f}' for p in parked)} s")


def _bytes_per_iter(box: dict):
    """Gradient bytes a rank pushes per iteration, from the box's counts."""
    ws = box.get("workers", []) if box else []
    iters = sum(w.get("clock", 0) for w in ws)
    return sum(w.get("bytes", 0) for w in ws) / iters if iters else None


def summary(a, wall, state, hist, hcount, boxs, band) -> dict:
    box = boxs.last
    clocks, parked = per_rank(box, state)
    n = int(hcount[0])
    tot = box.get("totals", {})
    res = {
        "job": a.job, "policy": a.policy, "workers": a.workers,
        "slow_ranks": sorted(a.slow), "slow_ms": a.slow_ms, "epochs": a.epochs,
        "wall_s": round(wall, 2),
        "test_acc": float(hist[n - 1][2]) if n else None,
        "max_skew": boxs.max_skew if box else None, "band": band,
        "dtype": a.dtype,
        # gradient bytes the box took per iteration of a rank (its last view)
        "bytes_per_iter": _bytes_per_iter(box),
        "ranks": [{"rank": r, "steps": int(state[r][F_CLOCK]),
                   "samples": int(state[r][F_SAMPLES]), "clock": clocks[r],
                   "parked_s": round(float(parked[r]), 2),
                   "slowed": r in a.slow} for r in range(a.workers)],
        "history": [[float(v) for v in hist[i]] for i in range(n)],
    }
    print(f"\n== Summary: {a.policy}, {a.workers} trainers"
          f"{', ranks ' + ','.join(map(str, sorted(a.slow))) + ' slowed by ' + str(a.slow_ms) + ' ms/step' if a.slow else ''}")
    print(" rank  slowed  steps  samples  samples/s  parked s")
    for r in res["ranks"]:
        print(f" {r['rank']:4d}  {'yes' if r['slowed'] else 'no':>6}  {r['steps']:5d}"
              f"  {r['samples']:7d}  {r['samples'] / max(wall, 1e-9):9.0f}  {r['parked_s']:8.2f}")
    acc = res["test_acc"]
    print(f" test accuracy {acc:.3f}" if acc is not None else " test accuracy -",
          f"  wall {wall:.1f} s  box: max skew {res['max_skew']}"
          + (f" (band {band[0]}..{band[1]})" if band else "")
          + f", steps {tot.get('steps', '-')}, pushes {tot.get('pushes', '-')}")
    return res


def plot(paths_and_runs, out_png: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    for label, run in paths_and_runs:
        h = np.array(run["history"])
        if len(h):
            ax.plot(h[:, 0], h[:, 2], marker=".", label=f"{label} ({run['wall_s']:.0f} s)")
    ax.set_xlabel("wall time (s)")
    ax.set_ylabel("test accuracy")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    r0 = paths_and_runs[0][1]
    ax.set_title(f"MLP on the digits through RackWeave: {r0['workers']} trainers"
                 + (f", ranks {','.join(map(str, r0['slow_ranks']))} slowed" if r0["slow_ranks"] else ""))
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out_png)
    plt.close(fig)


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--job", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--data", required=True, help="digits file (digits-export.py)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--box", help="the box's address: attach over RDMA")
    where.add_argument("--boxes", help="ADDR,ADDR,...: every box of a job spread "
                                       "over several (docs/design.md \"Many boxes\")")
    ap.add_argument("--stats-file", help="the box's `rwctl -j stats show` (with --box)")
    ap.add_argument("--policy", default="", help="label for the output (the job decides)")
    ap.add_argument("--band", default="", help="LO,HI: the adaptive band, for the summary")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layer-by-layer", action="store_true",
                    help="step() pushes only; each module waits for its own "
                    "parameters as the next forward pass reaches it")
    ap.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"),
                    help="the model's parameters: bfloat16 halves the bytes each "
                    "way (the box sums and steps in float32)")
    ap.add_argument("--slow", default="", help="ranks to slow, e.g. 2,3")
    ap.add_argument("--slow-ms", type=float, default=40.0)
    ap.add_argument("--test-frac", type=float, default=0.2)
    ap.add_argument("--every", type=float, default=2.0, help="progress period (s)")
    ap.add_argument("--timeout-ms", type=int, default=120000)
    ap.add_argument("--out", default=".", help="directory for results.json, accuracy.png")
    ap.add_argument("--no-plot", action="store_true")
    a = ap.parse_args(argv)
    a.slow = {int(s) for s in a.slow.split(",") if s}
    if a.workers < 1 or any(not 0 <= s < a.workers for s in a.slow):
        ap.error("--slow names ranks below --workers")
    return a


def run(argv) -> dict:
    """The whole demo; returns the results (also in OUT/results.json)."""
    a = parse(argv)
    import torch  # noqa: F401  once, here: the forked trainers inherit it
    data = load_digits_file(a.data, a.test_frac)
    band = [int(v) for v in a.band.split(",")] if a.band else None
    state = shared((a.workers, NF))
    hist, hcount = shared((MAXH, 4)), shared((1,))
    where = (f"over RDMA to the boxes at {a.boxes}" if a.boxes else
             f"over RDMA to the box at {a.box}" if a.box else "on the box (local data path)")
    print(f"== {a.workers} PyTorch trainers attach {where}: job {a.job}"
          f"{' (' + a.policy + ')' if a.policy else ''}, MLP 64-{a.hidden}-10 on the digits,"
          f" {len(data[1])} train / {len(data[3])} test samples, {a.epochs} epochs", flush=True)
    t0 = time.time()
    pids = {}
    for r in range(a.workers):
        pid = os.fork()
        if pid == 0:
            rc = 1
            try:
                rc = trainer(a, r, data, state, hist, hcount, t0)
            except rw.RackWeaveError as e:
                print(f"trainer {r}: {e}", file=sys.stderr, flush=True)
            except BaseException as e:  # report, never fall back into the parent
                print(f"trainer {r}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            finally:
                state[r][F_DONE] = 1
                state[r][F_ERR] = rc
                sys.stdout.flush()
                os._exit(rc)
        pids[pid] = r
    boxs = BoxStats(a.job, a.stats_file)
    failed = []
    next_line = time.time() + a.every
    while pids:
        pid, st = os.waitpid(-1, os.WNOHANG)
        if pid:
            r = pids.pop(pid)
            if os.waitstatus_to_exitcode(st) != 0:
                failed.append(r)
            continue
        boxs.read()
        if time.time() >= next_line and not state[:, F_SAMPLES].any():
            print(f"{time.time() - t0:6.1f}s  trainers attaching, declaring the model,"
                  " starting the run", flush=True)
            next_line += 4 * a.every
        elif time.time() >= next_line:
            print(progress(a, t0, state, hist, hcount, boxs.last), flush=True)
            next_line += a.every
        time.sleep(0.3)
    wall = time.time() - t0
    print(progress(a, t0, state, hist, hcount, boxs.last), flush=True)
    res = summary(a, wall, state, hist, hcount, boxs, band)
    res["failed_ranks"] = failed
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    if not a.no_plot:
        png = os.path.join(a.out, "accuracy.png")
        plot([(a.policy or a.job, res)], png)
        print(f" plot: {png}")
    if failed:
        raise SystemExit(f"torch_digits: trainers {failed} failed")
    return res


def compare(argv, policies, out: str, plot_png: bool) -> list:
    """One run per policy, job JOB-POLICY (--stats-file may hold {job}),
    results in OUT/POLICY; then a table and OUT/compare.png of them all."""
    a = parse(argv)
    runs = []
    for p in policies:
        job = f"{a.job}-{p}"
        args = list(argv) + ["--job", job, "--policy", p, "--out", os.path.join(out, p),
                             "--no-plot"]
        if a.stats_file:
            args += ["--stats-file", a.stats_file.replace("{job}", job)]
        if p != "adaptive":
            args += ["--band", ""]
        runs.append((p, run(args)))
        print(flush=True)
    print("== The policies side by side")
    print(" policy    wall s  test acc  max skew  parked s (slowed ranks / others)")
    for p, r in runs:
        sl = [x["parked_s"] for x in r["ranks"] if x["slowed"]]
        fa = [x["parked_s"] for x in r["ranks"] if not x["slowed"]]
        print(f" {p:<8} {r['wall_s']:7.1f}  {r['test_acc']:8.3f}  {str(r['max_skew']):>8}"
              f"  {sum(sl) / max(len(sl), 1):5.1f} / {sum(fa) / max(len(fa), 1):5.1f}")
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump({p: r for p, r in runs}, f, indent=1)
    if plot_png:
        png = os.path.join(out, "compare.png" if len(runs) > 1 else "accuracy.png")
        plot(runs, png)
        print(f" plot: {png}")
    return runs


def main(argv) -> None:
    if "--plot" in argv:  # --plot PNG RESULTS.json...: draw saved runs
        i = argv.index("--plot")
        png, files = argv[i + 1], argv[i + 2:]
        runs = []
        for fn in files:
            with open(fn) as f:
                d = json.load(f)
            runs += list(d.items()) if "history" not in d else [(d["policy"] or d["job"], d)]
        plot(runs, png)
        print(f" plot: {png}")
        return
    if "--policies" in argv:
        i = argv.index("--policies")
        pols, rest = argv[i + 1].split(","), argv[:i] + argv[i + 2:]
        a = parse(rest)
        compare(rest, pols, a.out, not a.no_plot)
        return
    run(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
