#!/usr/bin/python3
# SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
"""Write scikit-learn's 8x8 digits (1797 samples) as a RackWeave data file.

Usage: examples/digits-export.py OUT [--shuffle SEED] [--limit N]

The file is what examples/softmax-trainer and tests/vm/softmax-ref read
(see examples/softmax.h), little-endian:

    offset 0   char  magic[8]      b"RWDIGIT1"
           8   u32   version       1
          12   u32   n             samples
          16   u32   features      64
          20   u32   classes       10
          24   u32   reserved[2]   0
          32   f32   x[n][64]      pixel / 16, in [0, 1]
    32+256n    u8    y[n]          label, 0..9

Samples keep scikit-learn's order unless --shuffle permutes them with a
fixed seed (the same seed gives the same file). Needs python3-sklearn
(Debian) and runs with /usr/bin/python3, which sees it.
"""
import argparse
import struct
import sys

MAGIC = b"RWDIGIT1"
VERSION = 1
FEATURES = 64
CLASSES = 10


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="data file to write")
    ap.add_argument("--shuffle", type=int, metavar="SEED",
                    help="permute the samples with this seed")
    ap.add_argument("--limit", type=int, metavar="N",
                    help="keep only the first N samples (after shuffling)")
    args = ap.parse_args()

    try:
        import numpy as np
        from sklearn.datasets import load_digits
    except ImportError as e:
        sys.exit(f"digits-export: {e}; install python3-sklearn and run "
                 "with /usr/bin/python3")

    digits = load_digits()
    x = np.asarray(digits.data, dtype=np.float64)
    y = np.asarray(digits.target, dtype=np.int64)
    if x.shape[1] != FEATURES or y.min() < 0 or y.max() >= CLASSES:
        sys.exit("digits-export: unexpected data set shape")
    if args.shuffle is not None:
        perm = np.random.RandomState(args.shuffle).permutation(len(y))
        x, y = x[perm], y[perm]
    if args.limit is not None:
        if args.limit < 1:
            sys.exit("digits-export: --limit must be at least 1")
        x, y = x[:args.limit], y[:args.limit]

    # Pixels are 0..16: dividing by 16 is exact in float32.
    feats = (x / 16.0).astype("<f4")
    labels = y.astype("u1")
    header = MAGIC + struct.pack("<5I", VERSION, len(labels), FEATURES,
                                 CLASSES, 0) + struct.pack("<I", 0)
    assert len(header) == 32
    with open(args.out, "wb") as f:
        f.write(header)
        f.write(feats.tobytes(order="C"))
        f.write(labels.tobytes())
    print(f"{args.out}: {len(labels)} samples, {FEATURES} features, "
          f"{CLASSES} classes")


if __name__ == "__main__":
    main()
