#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A box-side checkpointer, as a test sees one: attach to a job as an
observer (read-only), keep the job's run alive while it waits, then map the
parameters read-only and write them out.

Usage: observer.py JOB TOKEN_FILE GO_FILE OUT_FILE

Attaches at once and prints "attached"; waits until GO_FILE exists, then
writes the model's bytes of the parameter buffer to OUT_FILE, checks that
a writable mapping of them is refused (EACCES), and exits 0.
"""
import errno
import fcntl
import mmap
import os
import struct
import sys
import time

IOC_WRITE, IOC_READ = 1, 2


def ioc(direction, nr, size):
    return (direction << 30) | (size << 16) | (0xB2 << 8) | nr


RW_IOC_ATTACH = ioc(IOC_WRITE, 0x01, 112)
RW_IOC_SETUP = ioc(IOC_READ | IOC_WRITE, 0x03, 136)
RW_ATTACH_OBSERVER = 1


def main():
    job, token_file, go, out = sys.argv[1:5]
    token = open(token_file, "rb").read()
    fd = os.open("/dev/rackweave", os.O_RDWR)
    fcntl.ioctl(fd, RW_IOC_ATTACH, struct.pack(
        "II32s32sII32x", 112, RW_ATTACH_OBSERVER, job.encode(), token, 0, 0))
    print("attached", flush=True)
    while not os.path.exists(go):
        time.sleep(0.1)
    buf = bytearray(struct.pack("II128x", 136, 0))
    fcntl.ioctl(fd, RW_IOC_SETUP, buf)
    f = struct.unpack("8I8QiI32x", bytes(buf))
    model_bytes, params_off, params_len = f[8], f[11], f[12]
    try:
        mmap.mmap(fd, params_len, mmap.MAP_SHARED,
                  mmap.PROT_READ | mmap.PROT_WRITE, offset=params_off)
        print("writable parameter mapping was allowed", file=sys.stderr)
        return 1
    except OSError as e:
        if e.errno != errno.EACCES:
            print("writable mapping: %s" % e, file=sys.stderr)
            return 1
    m = mmap.mmap(fd, params_len, mmap.MAP_SHARED, mmap.PROT_READ,
                  offset=params_off)
    with open(out, "wb") as o:
        o.write(m[:model_bytes])
    m.close()
    os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
