#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build a RackWeave connect request (struct rw_wire_req) and print it in hex.

Written from the construction documented in uapi/rackweave.h ("RDMA wire")
with Python's own hmac, so the module's tag and authenticator are checked
against an independent implementation. Fields may be set wrong on purpose
to drive the box's refusals:

  wire-req.py JOB TOKEN_FILE RANK [epoch N] [nonce N] [time-offset S]
              [tamper auth|magic|version|reserved] [sign-with FILE]
              [nic I nr-nics N session S]   (one connection of several)
              [box ID]    (a box of the job's set giving chunks: RANK unused)
              [count N]   (N requests, each with its own nonce, a line each)
"""
import hashlib
import hmac
import os
import struct
import sys
import time

MAGIC = 0x31575752


def wire_version():
    """RW_WIRE_VERSION as uapi/rackweave.h defines it (it is signed)."""
    uapi = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "uapi", "rackweave.h")
    with open(uapi) as f:
        for line in f:
            words = line.split()
            if words[:2] == ["#define", "RW_WIRE_VERSION"]:
                return int(words[2])
    sys.exit("wire-req.py: no RW_WIRE_VERSION in " + uapi)


VERSION = wire_version()


def mac(key, label, data):
    return hmac.new(key, label + b"\0" + data, hashlib.sha256).digest()


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    job, token_file, rank = argv[1], argv[2], int(argv[3])
    opts = dict(zip(argv[4::2], argv[5::2]))
    with open(token_file, "rb") as f:
        token = f.read()
    if len(token) != 32:
        sys.exit("token file must hold 32 raw bytes")
    signer = token
    if "sign-with" in opts:
        with open(opts["sign-with"], "rb") as f:
            signer = f.read()
    for _ in range(int(opts.get("count", 1))):
        print(request(job, token, signer, rank, opts).hex())


def request(job, token, signer, rank, opts):
    epoch = int(opts.get("epoch", 0))
    nonce = int(opts.get("nonce", 0)) or int.from_bytes(os.urandom(8), "little")
    when = int(time.time()) + int(opts.get("time-offset", 0))
    tamper = opts.get("tamper", "")

    tag = mac(token, b"rackweave job tag", job.encode())[:8]
    magic = MAGIC ^ 1 if tamper == "magic" else MAGIC
    version = VERSION + 1 if tamper == "version" else VERSION
    nic = int(opts.get("nic", 0))
    nr_nics = int(opts.get("nr-nics", 0))
    session = int(opts.get("session", 0))
    if tamper == "reserved":
        nic, nr_nics, session = 1, 0, 0     # a field set with no count
    flags = 0
    if "box" in opts:
        flags, rank = 2, int(opts["box"])     # RW_WIRE_REQ_BOX
    head = struct.pack("<IBBHIBBH8sQQ", magic, version, flags, rank, epoch,
                       nic, nr_nics, session, tag, nonce, when)
    auth = bytearray(mac(signer, b"rackweave connect", head)[:16])
    if tamper == "auth":
        auth[0] ^= 1
    req = head + bytes(auth)
    assert len(req) == 56
    return req


if __name__ == "__main__":
    main(sys.argv)
