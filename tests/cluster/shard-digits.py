#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The Python attach over several boxes, as docs/python.md shows it:
Worker(boxes=[...]) of job dig3 (one worker, SGD, spread over the boxes
given) trains a numpy MLP (64-128-10, about 38 KB: ten 4 KiB chunks, so
every box owns some) on the digits: it sets the initial parameters
(params_init, read by every box for its own chunks), pushes its gradients
and pulls the parameters each step, and must reach 85 % test accuracy.

  shard-digits.py TOKEN_FILE ADDR,ADDR,... OUT_DIR
"""
import struct
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/python")
from rackweave import Worker   # noqa: E402

HIDDEN = 128


def load(path):
    with open(path, "rb") as f:
        head = f.read(32)
        assert head[:8] == b"RWDIGIT1", path
        _, n, feat, _classes = struct.unpack("<4I", head[8:24])
        x = np.frombuffer(f.read(4 * n * feat), dtype="<f4").reshape(n, feat)
        y = np.frombuffer(f.read(n), dtype=np.uint8).astype(np.int64)
    ntest = n // 5
    return x[:-ntest], y[:-ntest], x[-ntest:], y[-ntest:]


def main():
    token, boxes, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
    top = __file__.rsplit("/tests/", 1)[0]
    xtr, ytr, xte, yte = load(top + "/build/examples/digits.bin")
    layout = [(1, 64 * HIDDEN), (2, HIDDEN), (3, HIDDEN * 10), (4, 10)]
    with Worker("dig3", token, 0, boxes=boxes, timeout_ms=120000) as w:
        w.declare(layout)
        assert w.setup.nr_chunks >= 3, w.setup
        rng = np.random.default_rng(5)
        init = np.zeros_like(w.params)
        for key, n in layout:
            t = w.tensor(key)
            fan = 64 if key <= 2 else HIDDEN
            init[t.offset // 4:t.offset // 4 + n] = \
                rng.normal(0, fan ** -0.5, n) if key in (1, 3) else 0
        w.params_init(init)
        w.pull()
        assert np.array_equal(w.params, init), "the first pull is not the initial parameters"
        w1, b1, w2, b2 = (w.tensor(k) for k, _ in layout)
        batch = 64
        for epoch in range(6):
            for i in range(0, len(xtr) - batch + 1, batch):
                x, y = xtr[i:i + batch], ytr[i:i + batch]
                W1 = w1.params.reshape(64, HIDDEN)
                W2 = w2.params.reshape(HIDDEN, 10)
                h = np.maximum(x @ W1 + b1.params, 0)
                z = h @ W2 + b2.params
                p = np.exp(z - z.max(1, keepdims=True))
                p /= p.sum(1, keepdims=True)
                p[np.arange(batch), y] -= 1
                p /= batch
                dh = (p @ W2.T) * (h > 0)
                w2.grad[:] = (h.T @ p).ravel()
                b2.grad[:] = p.sum(0)
                w1.grad[:] = (x.T @ dh).ravel()
                b1.grad[:] = dh.sum(0)
                w.pushpull()
        W1 = w1.params.reshape(64, HIDDEN)
        W2 = w2.params.reshape(HIDDEN, 10)
        acc = float(((np.maximum(xte @ W1 + b1.params, 0) @ W2 + b2.params)
                     .argmax(1) == yte).mean())
        with open(out + "/digits-accuracy", "w") as f:
            f.write(f"{acc:.3f}\n")
        print(f"test accuracy {acc:.3f} over {len(boxes)} boxes, "
              f"{w.setup.nr_chunks} chunks")
        sys.exit(0 if acc >= 0.85 else 1)


if __name__ == "__main__":
    main()
