#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""PyTorch DDP averaging its gradients through a RackWeave box.

As root, with the module loaded (job commands need CAP_NET_ADMIN):

  head -c 32 /dev/urandom > /tmp/ddp.token
  build/rwctl job add ddp workers 3 optim average token-file /tmp/ddp.token

then, as any user who may read the token file:

  PYTHONPATH=python python3 -m rackweave.launch --nproc 3 --job ddp \\
      --token-file /tmp/ddp.token examples/torch_ddp.py --steps 60

The launcher imports torch once, checks that the job has 3 workers, and
forks 3 trainers with RANK, WORLD_SIZE, MASTER_ADDR/MASTER_PORT and the
job in their environment. Each trainer here:
  1. torch.distributed.init_process_group("gloo"): DDP still needs a
     process group of its own (it broadcasts rank 0's parameters when it
     is built, and checks that every rank has the same model);
  2. wraps a small 1-D CNN (Conv1d, LayerNorm, Linear) in DDP;
  3. rackweave.torch.register_ddp_hook(ddp): a Worker from the
     environment (Worker.from_env()), the model declared as the job's
     layout; from then on the box averages the gradients instead of
     gloo's all-reduce;
  4. trains with torch.optim.SGD (momentum 0.9) on synthetic sequences,
     each rank its own batches; rank 0 prints the loss every --every steps.

--via gloo trains the same steps over plain DDP (gloo's all-reduce) for a
comparison; --save PREFIX writes each rank's final parameters as raw
float32 to PREFIX-RANK. For trainers on other hosts, give the launcher
--box ADDR (the job's box, over RDMA), --nnodes and --node-rank.
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import rackweave.torch as rwt  # noqa: E402


class SeqNet(torch.nn.Module):
    """4 channels x 32 steps -> 5 classes."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(4, 8, kernel_size=5, padding=2)
        self.norm = torch.nn.LayerNorm([8, 32])
        self.head = torch.nn.Linear(8 * 32, 5)

    def forward(self, x):
        return self.head(torch.relu(self.norm(self.conv(x))).flatten(1))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--via", choices=("rackweave", "gloo"), default="rackweave")
    p.add_argument("--every", type=int, default=10, help="print the loss every N steps")
    p.add_argument("--save", help="write the final parameters to SAVE-RANK")
    a = p.parse_args(argv)

    torch.set_num_threads(1)  # one trainer per core, as many as --nproc
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo")  # env://: the launcher's MASTER_ADDR/PORT
    rank = dist.get_rank()
    torch.manual_seed(1)  # DDP broadcasts rank 0's start anyway
    model = SeqNet()
    ddp = DDP(model)
    state = rwt.register_ddp_hook(ddp) if a.via == "rackweave" else None
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=0.9)
    gen = torch.Generator().manual_seed(100 + rank)
    for step in range(1, a.steps + 1):
        x = torch.randn(a.batch, 4, 32, generator=gen)
        y = (x[:, 0, :].sum(1) > 0).long() + 2 * (x[:, 1, :].sum(1) > 0).long()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        if rank == 0 and a.every and step % a.every == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    if a.save:
        flat = torch.cat([q.detach().reshape(-1) for q in model.parameters()])
        with open(f"{a.save}-{rank}", "wb") as f:
            f.write(flat.numpy().tobytes())
    if state is not None:
        state.worker.close()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
