#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A numpy trainer for rackweave.launch (run by tests/vm/python.sh).

Under the launcher (--no-torch): a Worker from the environment, one
tensor, each rank pushes rank + 1 and pulls the mean; writes OUT/launch-RANK
with what it saw. argv: OUT [--fail RANK]: that rank exits 3 at once and
the others sleep (the launcher must stop them).
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import rackweave as rw  # noqa: E402

out = sys.argv[1]
rank = int(os.environ["RANK"])
if "--fail" in sys.argv:
    if rank == int(sys.argv[sys.argv.index("--fail") + 1]):
        sys.exit(3)
    time.sleep(600)
    sys.exit(0)
with rw.Worker.from_env() as w:
    w.declare({0: 1000})
    w.grad[:] = w.rank + 1
    w.pushpull()
    mean = sum(range(1, w.world_size + 1)) / w.world_size
    p = w.tensor(0).params  # (w.params also holds the last chunk's padding)
    got = float(p[0])
    same = bool((p == p[0]).all())
    with open(os.path.join(out, f"launch-{rank}"), "w") as f:
        f.write(f"rank {w.rank} of {w.world_size} workers {w.setup.workers} "
                f"local {os.environ['LOCAL_RANK']} mean {got:g} expected {mean:g} "
                f"uniform {same}\n")
    sys.exit(0 if got == mean and same else 1)
