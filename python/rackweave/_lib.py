# SPDX-License-Identifier: GPL-2.0
"""ctypes declarations of librackweave (lib/include/rackweave.h).

Why ctypes and not a C extension: the library is already a small, stable,
versioned C ABI that returns -errno from every call, so a binding needs no
compiled code of its own, builds nothing against python3-dev, and keeps
working with any CPython that can dlopen librackweave.so.0. The structs
below mirror uapi/rackweave.h; their sizes are checked against the header's
*_SIZE constants when the library is loaded (a mismatch raises ImportError
rather than corrupting memory).

Where the library is looked for, first match wins:
  1. $RACKWEAVE_LIB (a path to librackweave.so.0),
  2. the build tree this package lies in (build/lib/librackweave.so.0),
  3. the system's loader path ("librackweave.so.0", what `make install` puts
     in $(PREFIX)/lib).
"""

from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, c_char_p, c_int, c_int32, c_size_t, c_uint8,
                    c_uint32, c_uint64, c_void_p)

RW_JOB_TOKEN_LEN = 32
RW_JOB_NAME_MAX = 32
RW_DTYPE_F32 = 0
RW_DTYPE_F16 = 1
RW_DTYPE_BF16 = 2
RW_ATTACH_OBSERVER = 1 << 0
RW_ATTACH_BOXES = 1 << 2
RW_XFER_NONBLOCK = 1 << 0
RW_XFER_KEYS = 1 << 1
RW_INIT_KEYS = RW_XFER_KEYS
RW_SYNC_NAMES = {0: "bsp", 1: "asp", 2: "ssp", 3: "adaptive"}


class TensorDesc(ctypes.Structure):
    _fields_ = [("key", c_uint64), ("nelems", c_uint64),
                ("dtype", c_uint32), ("priority", c_uint32)]


class Range(ctypes.Structure):
    _fields_ = [("first", c_uint64), ("count", c_uint64)]


class Setup(ctypes.Structure):
    _fields_ = [("size", c_uint32), ("flags", c_uint32), ("rank", c_uint32),
                ("nr_workers", c_uint32), ("chunk_size", c_uint32),
                ("nr_chunks", c_uint32), ("nr_tensors", c_uint32),
                ("sync", c_uint32), ("model_bytes", c_uint64),
                ("grad_offset", c_uint64), ("grad_len", c_uint64),
                ("params_offset", c_uint64), ("params_len", c_uint64),
                ("versions_offset", c_uint64), ("versions_len", c_uint64),
                ("features", c_uint64), ("node", c_int32), ("epoch", c_uint32),
                ("reserved", c_uint64 * 4)]


class VersionInfo(ctypes.Structure):
    _fields_ = [("size", c_uint32), ("flags", c_uint32), ("version", c_uint32),
                ("abi", c_uint32), ("features", c_uint64),
                ("reserved", c_uint64 * 3)]


class TensorView(ctypes.Structure):
    _fields_ = [("key", c_uint64), ("nelems", c_uint64), ("offset", c_uint64),
                ("dtype", c_uint32), ("first_chunk", c_uint32),
                ("nr_chunks", c_uint32), ("grad", c_void_p),
                ("params", c_void_p)]


class CkptHead(ctypes.Structure):
    _fields_ = [("magic", c_uint32), ("head_len", c_uint32),
                ("layout_hash", c_uint64), ("nr_tensors", c_uint32),
                ("nr_chunks", c_uint32), ("chunk_size", c_uint32),
                ("nr_state", c_uint32), ("optim", c_uint32),
                ("hparams", c_uint32 * 6), ("reserved0", c_uint32),
                ("params_len", c_uint64), ("image_len", c_uint64),
                ("step", c_uint64), ("reserved", c_uint64 * 2)]


# uapi sizes (RW_*_SIZE) the structs above must have.
_SIZES = {TensorDesc: 24, Range: 16, Setup: 136, VersionInfo: 48,
          CkptHead: 104}

_Ctx = c_void_p
_SIGS = {
    "rw_ctx_open": (c_int, [POINTER(_Ctx), c_char_p]),
    "rw_ctx_close": (None, [_Ctx]),
    "rw_ctx_fd": (c_int, [_Ctx]),
    "rw_ctx_version": (c_int, [_Ctx, POINTER(VersionInfo)]),
    "rw_strerror": (c_char_p, [c_int]),
    "rw_token_read": (c_int, [c_char_p, POINTER(c_uint8)]),
    "rw_attach": (c_int, [_Ctx, c_char_p, POINTER(c_uint8), c_uint32, c_uint32]),
    "rw_attach_remote": (c_int, [_Ctx, c_char_p, POINTER(c_uint8), c_uint32,
                                 c_char_p]),
    "rw_attach_remote_flags": (c_int, [_Ctx, c_char_p, POINTER(c_uint8), c_uint32,
                                       c_char_p, c_uint32]),
    "rw_declare": (c_int, [_Ctx, POINTER(TensorDesc), c_uint32, c_uint32]),
    "rw_map": (c_int, [_Ctx]),
    "rw_setup_get": (c_int, [_Ctx, POINTER(Setup)]),
    "rw_tensor": (c_int, [_Ctx, c_uint64, POINTER(TensorView)]),
    "rw_versions": (c_void_p, [_Ctx]),
    "rw_push": (c_int, [_Ctx, POINTER(Range), c_uint32, c_uint32]),
    "rw_pull": (c_int, [_Ctx, POINTER(Range), c_uint32, c_uint32]),
    "rw_pushpull": (c_int, [_Ctx, POINTER(Range), c_uint32, c_uint32]),
    "rw_pull_start": (c_int, [_Ctx, POINTER(Range), c_uint32, c_uint32]),
    "rw_pushpull_start": (c_int, [_Ctx, POINTER(Range), c_uint32, c_uint32]),
    "rw_wait": (c_int, [_Ctx, c_int]),
    "rw_set_timeout": (c_int, [_Ctx, c_uint32]),
    "rw_params_init": (c_int, [_Ctx, c_void_p, c_size_t, POINTER(Range),
                               c_uint32, c_uint32]),
    "rw_params_wait": (c_int, [_Ctx, c_uint32]),
    "rw_checkpoint_save": (c_int, [_Ctx, c_char_p, c_uint32, c_char_p, c_size_t]),
    "rw_checkpoint_restore": (c_int, [_Ctx, c_char_p, c_char_p, c_size_t]),
    "rw_job_head": (c_int, [_Ctx, POINTER(CkptHead)]),
}


def _candidates() -> list[str]:
    env = os.environ.get("RACKWEAVE_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, "..", "..", "build", "lib", "librackweave.so.0")
    return [os.path.normpath(tree), "librackweave.so.0"]


def _load() -> ctypes.CDLL:
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: not found")
            continue
        try:
            lib = ctypes.CDLL(path, use_errno=False)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise ImportError("rackweave: cannot load librackweave ("
                          + "; ".join(errors)
                          + "); build it with `make user`, install it with "
                          "`make install`, or set RACKWEAVE_LIB")
    for name, (res, args) in _SIGS.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    for cls, size in _SIZES.items():
        if ctypes.sizeof(cls) != size:
            raise ImportError(f"rackweave: {cls.__name__} is {ctypes.sizeof(cls)}"
                              f" bytes, the uapi header says {size}")
    return lib


lib = _load()


def strerror(err: int) -> str:
    """librackweave's sentence for errno @err (sign ignored)."""
    return lib.rw_strerror(-abs(err)).decode()
