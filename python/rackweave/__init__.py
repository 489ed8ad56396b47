# SPDX-License-Identifier: GPL-2.0
"""rackweave: train through a RackWeave parameter box from Python.

    import rackweave as rw
    rw.job_add("digits", workers=4, optim="momentum", lr=0.1,
               token_file="/tmp/digits.token")
    with rw.Worker("digits", "/tmp/digits.token", rank=0) as w:
        w.declare({0: 4096, 1: 64})      # key: float32 elements
        w.tensor(0).grad[:] = ...        # numpy views of the mapping
        w.pushpull()                     # push gradients, pull parameters
        print(w.tensor(0).params)

rackweave.torch adds a DDP communication hook and a DistributedOptimizer
(import it explicitly: it imports torch). docs/python.md is the reference.
"""

from .jobs import job_add, job_del, job_show, policy_set, rwctl, stats
from .worker import (DEFAULT_TIMEOUT_MS, DTYPES, PRIORITY_MAX, RackWeaveError,
                     Setup, Tensor, Worker, read_token)
from ._lib import strerror

__all__ = ["Worker", "Tensor", "Setup", "RackWeaveError", "read_token",
           "strerror", "job_add", "job_del", "job_show", "policy_set",
           "stats", "rwctl", "DEFAULT_TIMEOUT_MS", "DTYPES", "PRIORITY_MAX"]
__version__ = "0.2.0"
