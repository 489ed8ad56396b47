#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""PyTorch on a worker host, the job on another host's box (run by
tests/cluster/params.sh on the worker VM; the box made the jobs).

One process imports torch once and forks the ranks after it:
  1. DistributedOptimizer over RDMA (job tdist: momentum, 2 workers): each
     rank builds its model from a seed of its own, rank 0's values become
     the run's initial parameters (rw_params_init, read by the box) and
     rank 1 waits for them: both ranks' models then hold exactly rank 0's
     start, train three steps, and end with the same bits, not the start;
     then rank 0 saves the run from this host (Worker.checkpoint_save:
     the box writes the image here over RDMA);
  2. that file restored from this host into a new run (job tdist2: rank 0
     Worker.checkpoint_restore, rank 1 params_wait, the optimizer built
     with init_from_rank0=False): both ranks' models are the saved ones,
     the run's head says step 3, and one more step keeps them equal;
  3. the DDP hook over RDMA refuses a job whose optimizer is not average
     (tsgd), which it learns from the run's head (rw_job_head), with
     RackWeaveError(EINVAL).
argv: OUT_DIR TOKEN_FILE BOX. TAP on stdout.
"""

import errno
import os
import sys
import time

import numpy as np

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "python"))
sys.path.insert(0, os.path.join(TOP, "tests", "vm"))
t = time.time()
import torch  # noqa: E402
print(f"# import torch: {time.time() - t:.1f} s", flush=True)
import rackweave as rw  # noqa: E402
import rackweave.torch as rwt  # noqa: E402
from ranks import in_child, reap  # noqa: E402

out, tok, box = sys.argv[1:4]
failed = 0
STORE = f"/tmp/rw-remote-{os.getpid()}.store"


def ok(cond, desc, detail=""):
    global failed
    print(("ok - " if cond else "not ok - ") + "torch-remote: " + desc, flush=True)
    if not cond:
        failed = 1
        for line in str(detail).splitlines():
            print("#   " + line, flush=True)


def model_of(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.Tanh(),
                               torch.nn.Linear(8, 4))


def flat(model: torch.nn.Module) -> np.ndarray:
    return np.concatenate([p.detach().reshape(-1).numpy().copy()
                           for p in model.parameters()])


def dist_rank(rank: int) -> int:
    torch.set_num_threads(1)
    model = model_of(rank)
    with rw.Worker("tdist", tok, rank, box=box, timeout_ms=120000) as w:
        opt = rwt.DistributedOptimizer(model, w, timeout_ms=120000)
        np.save(f"{out}/tdist-start-{rank}.npy", flat(model))
        torch.manual_seed(100 + rank)
        x, y = torch.randn(8, 16), torch.randn(8, 4)
        for _ in range(3):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        np.save(f"{out}/tdist-end-{rank}.npy", flat(model))
        if rank == 0:
            w.checkpoint_save(f"{out}/tdist.ckpt")
    return 0


def restore_rank(rank: int) -> int:
    torch.set_num_threads(1)
    model = model_of(10 + rank)
    with rw.Worker("tdist2", tok, rank, box=box, timeout_ms=120000) as w:
        rwt.declare_model(w, model)
        if rank == 0:
            w.checkpoint_restore(f"{out}/tdist.ckpt")
        else:
            w.params_wait()
        opt = rwt.DistributedOptimizer(model, w, init_from_rank0=False,
                                       timeout_ms=120000)
        np.save(f"{out}/tdist2-start-{rank}.npy", flat(model))
        with open(f"{out}/tdist2-step-{rank}.txt", "w") as f:
            f.write(str(w.job_head()["step"]))
        torch.manual_seed(100 + rank)
        x, y = torch.randn(8, 16), torch.randn(8, 4)
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        np.save(f"{out}/tdist2-end-{rank}.npy", flat(model))
    return 0


def hook_rank(rank: int) -> int:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", init_method=f"file://{STORE}", rank=rank,
                            world_size=2)
    ddp = DDP(model_of(5))
    rc = 1
    with rw.Worker("tsgd", tok, rank, box=box, timeout_ms=120000) as w:
        try:
            rwt.register_ddp_hook(ddp, w)
            print(f"# rank {rank}: registered", flush=True)
        except rw.RackWeaveError as e:
            with open(f"{out}/hook-{rank}.txt", "w") as f:
                f.write(f"{e.errno} {e}")
            rc = 0
    dist.destroy_process_group()
    return rc


rcs = reap([in_child(dist_rank, r) for r in (0, 1)], 300)
ok(rcs == [0, 0], "two remote ranks trained with the DistributedOptimizer", rcs)
if rcs == [0, 0]:
    want = flat(model_of(0))
    s0, s1 = (np.load(f"{out}/tdist-start-{r}.npy") for r in (0, 1))
    e0, e1 = (np.load(f"{out}/tdist-end-{r}.npy") for r in (0, 1))
    ok(np.array_equal(s0, want) and np.array_equal(s1, want),
       "both start from exactly rank 0's model (rank 1 built another)",
       f"rank 1 differs from rank 0's model at {np.flatnonzero(s1 != want)[:5]}")
    ok(not np.array_equal(flat(model_of(1)), want), "... which rank 1's seed does not give")
    ok(np.array_equal(e0, e1) and not np.array_equal(e0, want),
       "after three steps both hold the same bits, trained")
    ok(os.path.exists(f"{out}/tdist.ckpt"), "rank 0 saved the run from this host")

    rcs = reap([in_child(restore_rank, r) for r in (0, 1)], 300)
    ok(rcs == [0, 0], "two remote ranks restored it into a new run and trained on", rcs)
    if rcs == [0, 0]:
        r0, r1 = (np.load(f"{out}/tdist2-start-{r}.npy") for r in (0, 1))
        ok(np.array_equal(r0, e0) and np.array_equal(r1, e0),
           "both start from exactly the saved parameters (their own models differ)")
        steps = [open(f"{out}/tdist2-step-{r}.txt").read() for r in (0, 1)]
        ok(steps == ["3", "3"], "the restored run's head says step 3", steps)
        n0, n1 = (np.load(f"{out}/tdist2-end-{r}.npy") for r in (0, 1))
        ok(np.array_equal(n0, n1) and not np.array_equal(n0, e0),
           "one more step: both hold the same bits, trained on")

rcs = reap([in_child(hook_rank, r) for r in (0, 1)], 300)
said = ""
if os.path.exists(f"{out}/hook-0.txt"):
    with open(f"{out}/hook-0.txt") as f:
        said = f.read()
ok(rcs == [0, 0] and said.startswith(f"{errno.EINVAL} ") and "optim sgd" in said,
   "the DDP hook over RDMA refuses a job of optim sgd (read from the run's head)",
   f"{rcs} {said!r}")
sys.exit(failed)
