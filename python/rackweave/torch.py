# SPDX-License-Identifier: GPL-2.0
"""PyTorch integration: a DDP communication hook and a DistributedOptimizer.

Two ways to train a torch model through the box, for two kinds of job:

* ``register_ddp_hook(ddp_model, worker)`` on a job created with
  ``optim average``: DistributedDataParallel keeps its own optimizer on
  every trainer and the box replaces the all-reduce. Each gradient bucket
  DDP hands the hook is copied into the mapped gradient buffer (DDP owns
  its bucket memory, so this one copy cannot be avoided); when the last
  bucket of the backward pass arrives, one pushpull sends every chunk and
  waits for the box's mean, and each bucket's future completes with the
  mean read from the mapped parameter buffer. One transfer per iteration
  rather than one per bucket because buckets do not end on chunk
  boundaries: two buckets may share a chunk, and a chunk is pushed once
  per iteration. Under BSP every replica receives the same mean, bit for
  bit, so DDP's replicas stay identical, as with gloo or NCCL. Under SSP
  and adaptive staleness a pull returns the gradient the box applied last
  (see rwctl(8), ``optim average``) and replicas drift apart: use the
  DistributedOptimizer there.

* ``DistributedOptimizer(model, worker)`` on a job with a box-side
  optimizer (sgd, momentum, nesterov, adam): the box holds the one copy of
  the parameters and runs the optimizer; trainers only push gradients and
  pull parameters. Nothing is copied: the model's parameters become torch
  tensors over the mapped parameter buffer (read-only: never write them),
  and their ``.grad`` tensors over the mapped gradient buffer, so autograd
  accumulates each gradient straight into what the push sends. Works under
  every sync policy (BSP, ASP, SSP, adaptive), on the box's host or over
  RDMA (a worker with box=), where rank 0's initial parameters reach the
  box by an RDMA read.

Both need the worker's layout to be the model's trainable parameters in
``model.parameters()`` order, keys 0, 1, 2, ...: ``declare_model`` does it.
Parameters may be float32, bfloat16 or float16, mixed by tensor: a 16-bit
one travels and is published in its type (half the bytes) while the box
sums in float32 and keeps its optimizer's master copy in float32.
"""

# No "from __future__ import annotations" here: DDP checks the hook's
# return annotation at run time (torch.futures.Future[torch.Tensor]).
import errno as _errno
from typing import List, Optional

import numpy as np
import torch
from torch.autograd import Variable

from . import jobs
from .worker import RackWeaveError, Worker, world_mismatch


_TYPES = (torch.float32, torch.bfloat16, torch.float16)


def model_layout(model: torch.nn.Module) -> dict:
    """{key: (nelems, dtype)} for the model's trainable parameters, keys
    in order."""
    return {i: (p.numel(), str(p.dtype).replace("torch.", ""))
            for i, p in enumerate(_params(model))}


def _params(model: torch.nn.Module) -> List[torch.nn.Parameter]:
    ps = [p for p in model.parameters() if p.requires_grad]
    for p in ps:
        if p.dtype not in _TYPES or p.device.type != "cpu":
            raise RackWeaveError(_errno.EOPNOTSUPP, "declare_model",
                                 "only float32, bfloat16 and float16 parameters on "
                                 f"the CPU go through the box (found {p.dtype} on "
                                 f"{p.device})")
    return ps


def declare_model(worker: Worker, model: torch.nn.Module) -> None:
    """Declare (and map) the model's trainable parameters as the job's layout."""
    worker.declare(model_layout(model))


def _key_of(model: torch.nn.Module) -> dict:
    return {id(p): i for i, p in enumerate(_params(model))}


def _job_info(worker: Worker) -> Optional[dict]:
    """The job's optimizer (and, where rwctl shows the job, all it lists),
    from the run's checkpoint head: on this host's box or another's. None
    when that cannot be known (no run yet, and no rwctl at hand)."""
    info: Optional[dict] = None
    if worker.box is None:
        try:
            found = jobs.job_show(worker.job)
            info = found[0] if found else None
        except RackWeaveError:
            info = None
    if worker.setup is not None:
        try:
            info = dict(info or {}, optim=worker.job_head()["optim"])
        except RackWeaveError:
            pass
    return info


def _check_job(worker: Worker, world_size: int, info: Optional[dict]) -> None:
    """Refuse a job the hook would train wrongly or never finish a step of."""
    job = worker.job
    if info is not None and info.get("optim", "average") != "average":
        raise RackWeaveError(_errno.EINVAL, "register_ddp_hook",
                             f"job {job!r} runs optim {info['optim']} on the box, which "
                             "would hand DDP updated parameters instead of the mean "
                             "gradient: create the job with `optim average` for the "
                             "hook, or train with rackweave.torch.DistributedOptimizer")
    workers = worker.setup.workers if worker.setup else (info or {}).get("workers")
    if workers is not None and workers != world_size:
        raise RackWeaveError(_errno.EINVAL, "register_ddp_hook",
                             world_mismatch(job, world_size, workers,
                                            "the DDP process group's size"))


class _DDPHookState:
    def __init__(self, worker: Worker, model: torch.nn.Module):
        self.worker = worker
        self.key = _key_of(model)
        self.grad = {k: worker.tensor(k).grad_tensor() for k in self.key.values()}
        self.mean = {k: worker.tensor(k).params_tensor() for k in self.key.values()}
        self.pending: list = []
        self.error: Optional[BaseException] = None  # the backward pass's first
        self.steps = 0      # iterations averaged through the box
        self.buckets = 0    # DDP buckets in the last one


def _raise_after_ddp(err: BaseException) -> None:
    """Make backward() raise err itself, after DDP has finished its pass.

    DDP turns an exception raised by a hook, or set on its future, into a
    RuntimeError carrying only the text (the type and errno are lost in
    its C++ reducer). An exception raised by a callback of the autograd
    engine keeps its type, so the hook completes its futures and queues
    one; the callback queues the raise once more, so that it runs after
    the reducer's own end-of-pass callback (queued when the last bucket
    was handed over) and the DDP model stays usable for another step."""
    def fail():
        raise err

    Variable._execution_engine.queue_callback(
        lambda: Variable._execution_engine.queue_callback(fail))


def _ddp_hook(state: _DDPHookState, bucket) -> torch.futures.Future[torch.Tensor]:
    fut: torch.futures.Future = torch.futures.Future()
    keys: list = []
    grads: list = []
    try:
        if state.error is None:
            keys = [state.key[id(p)] for p in bucket.parameters()]
            grads = bucket.gradients()
            for k, g in zip(keys, grads):
                state.grad[k].copy_(g.reshape(-1))
    except Exception as e:  # noqa: BLE001 - backward() raises it, type kept
        state.error = e
    state.pending.append((fut, bucket.buffer(), keys, grads))
    if not bucket.is_last():
        return fut
    try:
        if state.error is None:
            state.worker.pushpull()
            state.steps += 1
            state.buckets = len(state.pending)
            for _, _, ks, gs in state.pending:
                for k, g in zip(ks, gs):
                    g.copy_(state.mean[k].view(g.shape))
    except Exception as e:  # noqa: BLE001
        state.error = e
    # On an error the gradients stay this rank's own: backward() raises,
    # so no optimizer step is taken on them unless the caller catches it.
    for f, buf, _, _ in state.pending:
        f.set_result(buf)
    state.pending = []
    if state.error is not None:
        err, state.error = state.error, None
        _raise_after_ddp(err)
    return fut


def register_ddp_hook(ddp_model: torch.nn.parallel.DistributedDataParallel,
                      worker: Optional[Worker] = None, *,
                      declare: bool = True) -> _DDPHookState:
    """Make ``ddp_model`` average its gradients through the box.

    ``worker`` is attached to a job created with ``optim average`` whose
    worker count is the DDP process group's size: anything else raises
    RackWeaveError (EINVAL) saying what to change. With ``declare`` (the
    default) the model's parameters are declared and mapped first; with
    ``declare=False`` the worker must be declared (``declare_model``) and
    mapped already. Returns the hook's state (``steps`` counts
    iterations; ``worker`` the worker). Without ``worker``, one is made
    from the environment (``Worker.from_env()``: what ``python3 -m
    rackweave.launch`` or torchrun and RACKWEAVE_JOB/RACKWEAVE_TOKEN_FILE
    give). An error inside the hook (a timeout: ETIMEDOUT) is raised by
    ``backward()`` with its own type, RackWeaveError."""
    module = ddp_model.module
    if worker is None:
        worker = Worker.from_env()
    world = torch.distributed.get_world_size(ddp_model.process_group)
    info = _job_info(worker)
    _check_job(worker, world, info)      # before declare fixes the layout
    if declare:
        declare_model(worker, module)
    elif worker.params is None:
        raise RackWeaveError(_errno.ENOTCONN, "register_ddp_hook",
                             "declare=False needs a worker declared and mapped "
                             "already (rackweave.torch.declare_model)")
    # Over RDMA the workers come from the setup, the optimizer from the
    # run's head: both known once declared.
    _check_job(worker, world, _job_info(worker))
    state = _DDPHookState(worker, module)
    ddp_model.register_comm_hook(state, _ddp_hook)
    return state


def _init_image(worker: Worker, params: List[torch.nn.Parameter]) -> np.ndarray:
    """The parameter buffer's bytes holding @params, each in its type."""
    image = np.zeros(worker.params.nbytes, dtype=np.uint8)
    for k, p in enumerate(params):
        t = worker.tensor(k)
        v = p.detach().reshape(-1)
        if v.dtype == torch.bfloat16:
            v = v.view(torch.int16)
        raw = v.numpy().view(np.uint8)
        image[t.offset:t.offset + raw.size] = raw
    return image.view(worker.params.dtype)


class DistributedOptimizer:
    """Train ``model`` with the box's optimizer, zero copy.

    On creation the model's parameters are declared (unless the worker is
    declared already), the run's initial parameters are rank 0's model
    (``rw_params_init``; the other ranks wait for them), and the model is
    rebuilt over the mapped buffers: ``p.data`` views the parameter buffer,
    ``p.grad`` the gradient buffer. Per iteration::

        opt.zero_grad(); loss.backward(); opt.step()

    ``step()`` pushes every gradient and pulls the new parameters in one
    call (``step_start()``/``step_wait()`` split it for overlap). With
    ``layer_by_layer=True`` it pushes only, and the next forward pass
    waits for each module's parameters as it reaches the module (a
    forward pre-hook: ``Worker.wait_tensor``), so the first layers compute
    while the last ones' parameters still come: the box answers, and this
    host pushes, in the order the parameters are declared, which
    ``model.parameters()`` gives (define the modules in forward order).
    ``zero_grad()`` then zeroes each module's gradients once its
    parameters are back, and ``synchronize()`` waits for every one (call
    it before reading the parameters outside a forward pass). The
    arithmetic is the same either way: the same bits under BSP. The
    parameters may change under a running forward pass only under ASP,
    SSP or adaptive staleness, when another worker's push completes a step
    (Hogwild-style reads, as a parameter server gives). Without ``worker``
    one is made from the environment (``Worker.from_env()``).
    """

    def __init__(self, model: torch.nn.Module, worker: Optional[Worker] = None, *,
                 init_from_rank0: bool = True, timeout_ms: Optional[int] = None,
                 layer_by_layer: bool = False):
        if worker is None:
            worker = Worker.from_env()
        self.worker = worker
        self.model = model
        params = _params(model)
        if worker.params is None:
            declare_model(worker, model)
        if init_from_rank0:
            if worker.rank == 0:
                worker.params_init(_init_image(worker, params))
            else:
                worker.params_wait(timeout_ms)
        worker.pull()
        self._views = []
        for k, p in enumerate(params):
            t = worker.tensor(k)
            view = t.params_tensor().view(p.shape)
            self._views.append((p, view))
            p.data = view
            p.grad = t.grad_tensor().view(p.shape)
        self.steps = 0
        self._pending = False
        # layer by layer: keys pushed and not yet waited for, and whether
        # their gradients are to be zeroed once their parameters are back
        self._params = params
        self._due: set = set()
        self._zero_due = False
        self._hooks = []
        if layer_by_layer:
            key = {id(p): k for k, p in enumerate(params)}
            for m in model.modules():
                ks = [key[id(p)] for p in m.parameters(recurse=False) if id(p) in key]
                if ks:
                    self._hooks.append(m.register_forward_pre_hook(
                        lambda mod, inp, ks=ks: self._arrive(ks)))
        self.layer_by_layer = layer_by_layer

    def _arrive(self, keys) -> None:
        """Wait for these keys' parameters if they are due (a module's
        forward is about to read them), then zero their gradients if asked."""
        due = [k for k in keys if k in self._due]
        if not due:
            return
        self.worker.pull(keys=due)
        self._due.difference_update(due)
        if self._zero_due:
            for k in due:
                self.worker.tensor(k).grad[:] = 0

    def synchronize(self) -> None:
        """Wait for every parameter still due (layer by layer)."""
        self._arrive(sorted(self._due))
        self._zero_due = False

    def zero_grad(self, set_to_none: bool = False) -> None:
        """Zero the mapped gradients in place (never set them to None: the
        next backward must accumulate into the mapping). Layer by layer, a
        gradient still on its way is zeroed once its parameters are back."""
        if set_to_none:
            raise RackWeaveError(_errno.EINVAL, "zero_grad",
                                 "set_to_none would detach .grad from the mapping")
        if self._due:
            self._zero_due = True
            for k in range(len(self._params)):
                if k not in self._due:
                    self.worker.tensor(k).grad[:] = 0
            return
        self.worker.grad[:] = 0

    def step(self, closure=None) -> Optional[float]:
        """Push every gradient, pull the box's new parameters (layer by
        layer: the next forward pass pulls them, module by module)."""
        loss = closure() if closure is not None else None
        if self.layer_by_layer:
            # A module the forward pass did not reach: its parameters now.
            self.synchronize()
            self.worker.push()
            self._due = set(range(len(self._params)))
        else:
            self.worker.pushpull()
        self.steps += 1
        return loss

    def step_start(self) -> bool:
        """Push now, start the pull; True if the parameters are already fresh."""
        done = self.worker.pushpull_start()
        self._pending = not done
        self.steps += 1
        return done

    def step_wait(self, timeout_ms: Optional[int] = None) -> None:
        """Finish what step_start() began."""
        if self._pending:
            self.worker.wait(timeout_ms)
            self._pending = False
