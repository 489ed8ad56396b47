# SPDX-License-Identifier: GPL-2.0
"""Start N trainers of one job: ``python3 -m rackweave.launch``.

    python3 -m rackweave.launch --nproc 3 --job digits \\
        --token-file /tmp/digits.token [--box 10.88.0.1] train.py ARGS...

Why a launcher of our own: Debian's python3-torch 1.13 on Python 3.11
ships a torchrun that fails at start (AttributeError in its argument
parsing), and under emulation `import torch` costs a minute per process.
This one checks the job before anything else (a world size other than the
job's worker count fails at once, with the sentence saying what to
change), imports torch once, then forks the trainers from that process
before any torch computation in it (so no thread pool is forked). Each
trainer runs SCRIPT as __main__ with the environment torchrun would give
it (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT: torch.distributed.init_process_group("gloo") needs nothing
more) and the job's (RACKWEAVE_JOB, RACKWEAVE_TOKEN_FILE, RACKWEAVE_BOX,
RACKWEAVE_TIMEOUT_MS), which rackweave.Worker.from_env() and the torch
helpers read. The launcher waits for them all; when one fails it stops
the others (SIGTERM, then SIGKILL after --grace seconds) and exits with
the first failure's status.
"""

from __future__ import annotations

import argparse
import errno
import os
import runpy
import signal
import socket
import sys
import time
import traceback
from typing import List, Optional, Sequence

from .worker import RackWeaveError, world_mismatch


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m rackweave.launch",
        description="Start the trainers of a RackWeave job (one process each, "
                    "forked after importing torch once).")
    p.add_argument("--nproc", "--nproc-per-node", dest="nproc", type=int, required=True,
                   help="trainers on this host")
    p.add_argument("--nnodes", type=int, default=1,
                   help="hosts taking part (WORLD_SIZE = nnodes * nproc)")
    p.add_argument("--node-rank", type=int, default=0,
                   help="this host's index: its trainers are ranks "
                        "node_rank * nproc ... + nproc - 1")
    p.add_argument("--job", required=True, help="the RackWeave job")
    p.add_argument("--token-file", required=True, help="the job's token file")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--box", help="the box's address when the job is on another "
                                     "host (RDMA); unset: this host")
    where.add_argument("--boxes", help="ADDR,ADDR,...: every box of a job spread "
                                       "over several (RDMA, one address per box)")
    p.add_argument("--timeout-ms", type=int,
                   help="RACKWEAVE_TIMEOUT_MS for the trainers (0: no limit)")
    p.add_argument("--master-addr", default=None,
                   help="MASTER_ADDR for torch.distributed (default 127.0.0.1, "
                        "or the environment's)")
    p.add_argument("--master-port", type=int, default=None,
                   help="MASTER_PORT (default: the environment's, else a free port; "
                        "give one with --nnodes > 1)")
    p.add_argument("--no-torch", action="store_true",
                   help="do not import torch before forking (numpy-only trainers)")
    p.add_argument("--grace", type=float, default=10.0,
                   help="seconds between SIGTERM and SIGKILL when stopping trainers")
    p.add_argument("script", help="the trainer (run as __main__ in every process)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the trainer's arguments")
    return p


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_job(job: str, world: int, box: Optional[str]) -> None:
    """Refuse, before any trainer starts, a world size other than the job's
    worker count (when the job is on this host and rwctl can show it)."""
    if box is not None:
        return  # the box's jobs are not visible from here; map() checks
    from .jobs import job_show
    try:
        found = job_show(job)
    except RackWeaveError as e:
        if e.call == "rwctl":
            return  # no rwctl on this host: Worker.from_env() checks at map()
        raise
    if not found:
        raise RackWeaveError(errno.ENOENT, f"job {job!r}",
                             f"no job named {job!r} on this host (rwctl job show); "
                             "create it, or give --box for a job on another host")
    workers = found[0].get("workers")
    if workers is not None and workers != world:
        raise RackWeaveError(errno.EINVAL, f"job {job!r}",
                             world_mismatch(job, world, workers, "WORLD_SIZE"))


def _child(script: str, args: Sequence[str], env: dict) -> int:
    os.environ.update(env)
    sys.argv = [script] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: BLE001 - shown, then the exit status says it
        traceback.print_exc()
        return 1
    return 0


def _stop(pids: dict, grace: float) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    end = time.time() + grace
    while pids and time.time() < end:
        for pid in list(pids):
            got, st = os.waitpid(pid, os.WNOHANG)
            if got:
                del pids[pid]
        time.sleep(0.05)
    for pid in list(pids):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        del pids[pid]


def _interrupted(*_) -> None:
    raise KeyboardInterrupt


def run(argv: Optional[List[str]] = None) -> int:
    """The launcher; returns its exit status (0: every trainer exited 0)."""
    a = _parser().parse_args(argv)
    if a.nproc < 1 or a.nnodes < 1 or not 0 <= a.node_rank < a.nnodes:
        print("rackweave.launch: --nproc and --nnodes are >= 1, and --node-rank "
              "below --nnodes", file=sys.stderr)
        return 2
    world = a.nproc * a.nnodes
    try:
        check_job(a.job, world, a.box or a.boxes)
    except RackWeaveError as e:
        print(f"rackweave.launch: {e}", file=sys.stderr)
        return 1
    if not a.no_torch:
        try:
            import torch  # noqa: F401 - once here, not once per trainer
        except ImportError:
            pass
    base = {
        "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(a.nproc),
        "MASTER_ADDR": a.master_addr or os.environ.get("MASTER_ADDR", "127.0.0.1"),
        "MASTER_PORT": str(a.master_port or os.environ.get("MASTER_PORT")
                           or _free_port()),
        "RACKWEAVE_JOB": a.job,
        "RACKWEAVE_TOKEN_FILE": os.path.abspath(a.token_file),
    }
    if a.box:
        base["RACKWEAVE_BOX"] = a.box
    if a.boxes:
        base["RACKWEAVE_BOXES"] = a.boxes
    if a.timeout_ms is not None:
        base["RACKWEAVE_TIMEOUT_MS"] = str(a.timeout_ms)
    sys.stdout.flush()
    sys.stderr.flush()
    pids: dict = {}
    for local in range(a.nproc):
        rank = a.node_rank * a.nproc + local
        env = dict(base, RANK=str(rank), LOCAL_RANK=str(local), GROUP_RANK=str(a.node_rank))
        pid = os.fork()
        if pid == 0:
            rc = 1
            try:
                rc = _child(a.script, a.args, env)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(rc if 0 <= rc < 256 else 1)
        pids[pid] = rank
    status = 0
    # A launcher told to stop stops its trainers first.
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        while pids:
            pid, st = os.wait()
            rank = pids.pop(pid, None)
            if rank is None:
                continue
            rc = os.waitstatus_to_exitcode(st)
            if rc != 0:
                why = f"signal {-rc}" if rc < 0 else f"status {rc}"
                print(f"rackweave.launch: rank {rank} exited with {why}; stopping "
                      f"the other {len(pids)}", file=sys.stderr)
                status = rc if rc > 0 else 128 - rc
                _stop(pids, a.grace)
    except KeyboardInterrupt:
        _stop(pids, a.grace)
        return 130
    return status


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
