# SPDX-License-Identifier: GPL-2.0
"""A RackWeave worker from Python: attach, declare, map, push and pull.

One Worker owns one librackweave context (one open /dev/rackweave). The
buffers are mapped twice over the same pages: once by the library (which
needs them for its own bookkeeping) and once here (class _Mapping), so
that the numpy arrays handed out own their mapping. That is what makes
close() safe: the context (and with it the rank) is released at once, and
an array still held afterwards keeps reading valid memory until it is
garbage collected, instead of pointing at an unmapped range (close()
swaps such pages for a private copy, see there). Both mappings
are MAP_SHARED views of the engine's (or, on a worker host, the module's)
own pages: nothing is ever copied. The parameter and version arrays are
read-only, as their mappings are; a torch tensor made from them must only
be read (a write would fault).

Every failure raises RackWeaveError, an OSError carrying the errno and
librackweave's sentence for it (rw_strerror), prefixed by the call.

Every wait is finite unless asked otherwise: a Worker bounds its blocking
calls to DEFAULT_TIMEOUT_MS (or $RACKWEAVE_TIMEOUT_MS), because a rank that
never comes (a trainer that died, one too few started, a declare refused
on another rank) would otherwise leave the others asleep for good.
"""

from __future__ import annotations

import ctypes
import errno as _errno
import mmap
import os
import sys
import warnings
from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib
from ._lib import lib

TokenLike = Union[bytes, bytearray, str, os.PathLike]

#: How long a blocking call waits for the job's other workers unless the
#: Worker is given timeout_ms (0: no limit) or $RACKWEAVE_TIMEOUT_MS is set.
DEFAULT_TIMEOUT_MS = 300_000
#: {key: nelems or (nelems, dtype[, priority])} or
#: [(key, nelems[, dtype[, priority]])].
Layout = Union[Mapping[int, object], Sequence[tuple]]

#: A tensor's priority: 0 (the default: the order of declaration) to this;
#: lower goes first on the wire both ways (rw_declare(3)).
PRIORITY_MAX = 65535

#: The element types a tensor may have: float32, float16, bfloat16.
DTYPES = {"float32": _lib.RW_DTYPE_F32, "float16": _lib.RW_DTYPE_F16,
          "bfloat16": _lib.RW_DTYPE_BF16}
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
# numpy has no bfloat16: its views hold the bits (uint16); torch's are real.
_NP_DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": np.uint16}
_SIZES = {"float32": 4, "float16": 2, "bfloat16": 2}


def dtype_name(dtype) -> str:
    """'float32', 'float16' or 'bfloat16' for a name, a numpy dtype or a
    torch dtype (torch.bfloat16); ValueError for anything else."""
    name = str(dtype).replace("torch.", "")
    if isinstance(dtype, type) or hasattr(dtype, "itemsize"):
        try:
            name = np.dtype(dtype).name
        except TypeError:
            pass
    if name in ("float", "f32", "<f4"):
        name = "float32"
    elif name in ("half", "f16", "<f2"):
        name = "float16"
    elif name == "bf16":
        name = "bfloat16"
    if name not in DTYPES:
        raise ValueError(f"dtype {dtype!r}: a tensor is float32, float16 or bfloat16")
    return name


def _layout_items(tensors: Layout) -> list:
    """[(key, nelems, dtype, priority)] of a layout in any accepted form."""
    raw = list(tensors.items()) if isinstance(tensors, Mapping) else list(tensors)
    items = []
    for it in raw:
        k, rest = it[0], tuple(it[1:])
        if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
            rest = tuple(rest[0])
        rest = rest + ("float32", 0)[len(rest) - 1:]
        items.append((k, rest[0], rest[1], rest[2]))
    return items


class RackWeaveError(OSError):
    """A librackweave call (or rwctl) failed.

    ``errno`` is the positive errno, ``strerror`` RackWeave's explanation,
    ``call`` what was being done.
    """

    def __init__(self, err: int, call: str, message: Optional[str] = None):
        err = abs(err)
        msg = message if message is not None else _lib.strerror(err)
        super().__init__(err, msg)
        self.call = call

    def __str__(self) -> str:
        name = _errno.errorcode.get(self.errno, str(self.errno))
        return f"{self.call}: {self.strerror} ({name})"


def _check(ret: int, call: str, enoent: Optional[str] = None) -> int:
    """Raise RackWeaveError for a negative return. ``enoent`` replaces
    librackweave's ENOENT sentence, which must name every thing a call
    may not find, by the one this call looked for."""
    if ret < 0:
        raise RackWeaveError(-ret, call, enoent if ret == -_errno.ENOENT else None)
    return ret


def world_mismatch(job: str, world: int, workers: int, what: str) -> str:
    """The sentence for trainers that are not the job's worker count."""
    return (f"{what} is {world} but job {job!r} has {workers} workers: every step "
            f"would wait for the missing ranks; start {workers} trainers "
            f"(python3 -m rackweave.launch --nproc {workers}), or create the job "
            f"with `workers {world}`")


def _env_int(name: str, env: Mapping[str, str]) -> Optional[int]:
    v = env.get(name)
    if v is None or v == "":
        return None
    try:
        n = int(v)
    except ValueError:
        n = -1
    if n < 0:
        raise RackWeaveError(_errno.EINVAL, "Worker.from_env",
                             f"{name}={v!r} is not a non-negative integer")
    return n


def default_timeout_ms() -> int:
    """$RACKWEAVE_TIMEOUT_MS if set (0: no limit), else DEFAULT_TIMEOUT_MS."""
    env = os.environ.get("RACKWEAVE_TIMEOUT_MS")
    if env is None or env == "":
        return DEFAULT_TIMEOUT_MS
    try:
        ms = int(env)
    except ValueError:
        ms = -1
    if not 0 <= ms < 1 << 32:
        raise RackWeaveError(_errno.EINVAL, "RACKWEAVE_TIMEOUT_MS",
                             f"{env!r} is not a number of milliseconds (0: no limit)")
    return ms


def read_token(token: TokenLike) -> bytes:
    """A job token as 32 raw bytes.

    Accepts the raw bytes, 64 hex digits (what rwctl prints), or a path to
    a token file (raw or hex, as rw_token_read(3) reads it).
    """
    if isinstance(token, (bytes, bytearray)):
        if len(token) != _lib.RW_JOB_TOKEN_LEN:
            raise RackWeaveError(_errno.EINVAL, "token",
                                 f"a token is {_lib.RW_JOB_TOKEN_LEN} bytes, "
                                 f"not {len(token)}")
        return bytes(token)
    s = os.fspath(token)
    if len(s) == 2 * _lib.RW_JOB_TOKEN_LEN and not os.path.exists(s):
        try:
            return bytes.fromhex(s)
        except ValueError:
            pass
    buf = (ctypes.c_uint8 * _lib.RW_JOB_TOKEN_LEN)()
    _check(lib.rw_token_read(s.encode(), buf), f"rw_token_read({s!r})",
           f"no token file {s!r}")
    return bytes(buf)


@dataclass(frozen=True)
class Setup:
    """The job's geometry as RW_IOC_SETUP reports it."""
    rank: int
    workers: int
    chunk_size: int
    nr_chunks: int
    nr_tensors: int
    sync: str
    model_bytes: int
    node: int
    epoch: int


@dataclass(frozen=True)
class Tensor:
    """One declared tensor: numpy views of its gradient and parameters.

    ``grad`` is writable (what a push sends; None for an observer),
    ``params`` read-only (what a pull brings). Both are views of the mapped
    buffers in the tensor's ``dtype``, no copy: float32, float16, or for
    bfloat16 (which numpy lacks) uint16 arrays of the bits, whose torch
    tensors (``grad_tensor()``, ``params_tensor()``) are torch.bfloat16.
    ``first_chunk``/``nr_chunks`` name its chunks.
    """
    key: int
    nelems: int
    offset: int
    first_chunk: int
    nr_chunks: int
    grad: Optional[np.ndarray]
    params: np.ndarray
    dtype: str = "float32"

    def grad_tensor(self):
        """The gradient as a torch tensor sharing the mapping."""
        if self.grad is None:
            raise RackWeaveError(_errno.EPERM, "grad_tensor",
                                 "an observer has no gradient buffer")
        return _torch_view(self.grad, self.dtype, False)

    def params_tensor(self):
        """The parameters as a torch tensor sharing the (read-only) mapping."""
        return _torch_view(self.params, self.dtype, True)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.restype = ctypes.c_int
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_MAP_FAILED = ctypes.c_void_p(-1).value
_MAP_FIXED = 0x10


class _Mapping:
    """One mmap of the device, owned by the numpy arrays made over it.

    numpy keeps this object as the arrays' base (through
    __array_interface__), so the pages stay mapped while any array, slice
    or torch tensor over them lives, and are unmapped when the last one
    goes. Python's own mmap module is not used because it keeps a
    duplicate of the device fd open for as long as the object lives,
    which would keep the worker attached after close().
    """

    def __init__(self, fd: int, off: int, length: int, writable: bool, dtype):
        prot = mmap.PROT_READ | (mmap.PROT_WRITE if writable else 0)
        addr = _libc.mmap(None, length, prot, mmap.MAP_SHARED, fd, off)
        if addr in (None, _MAP_FAILED):
            raise RackWeaveError(ctypes.get_errno() or _errno.EIO,
                                 f"mmap(offset {off:#x}, {length} bytes)")
        self.addr, self.length = addr, length
        dt = np.dtype(dtype)
        self.__array_interface__ = {"data": (addr, not writable), "version": 3,
                                    "shape": (length // dt.itemsize,),
                                    "typestr": dt.str}

    def detach(self) -> None:
        """Swap the pages for a private anonymous copy of their bytes: arrays
        still over them read the last values; the device file is let go."""
        if not self.addr:
            return
        data = ctypes.string_at(self.addr, self.length)
        got = _libc.mmap(self.addr, self.length, mmap.PROT_READ | mmap.PROT_WRITE,
                         mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED, -1, 0)
        if got != self.addr:
            raise RackWeaveError(ctypes.get_errno() or _errno.ENOMEM, "close",
                                 "cannot detach the arrays still in use from the device")
        ctypes.memmove(self.addr, data, self.length)

    def __del__(self):
        if getattr(self, "addr", None):
            _libc.munmap(self.addr, self.length)
            self.addr = None


def _ro_tensor(a: np.ndarray):
    import torch
    with warnings.catch_warnings():
        # torch warns that the array is not writable: it is not, by design.
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(a)


def _torch_view(a: np.ndarray, dtype: str, readonly: bool):
    """A torch tensor over @a's memory in @dtype (bfloat16: a's bits)."""
    import torch
    if dtype == "bfloat16":
        # torch takes no uint16 array: the same bits as int16, then viewed.
        a = a.view(np.int16)
    t = _ro_tensor(a) if readonly else torch.from_numpy(a)
    return t.view(torch.bfloat16) if dtype == "bfloat16" else t


_NO_KEY = "a tensor key that is not in the declared layout"


def _ranges(keys: Optional[Iterable[int]],
            chunks: Optional[Sequence[Tuple[int, int]]]):
    if keys is not None and chunks is not None:
        raise RackWeaveError(_errno.EINVAL, "transfer",
                             "give tensor keys or chunk ranges, not both")
    if keys is not None:
        ks = list(keys)
        arr = (_lib.Range * max(len(ks), 1))()
        for i, k in enumerate(ks):
            arr[i].first, arr[i].count = int(k), 0
        if not ks:
            raise RackWeaveError(_errno.EINVAL, "transfer",
                                 "an empty list of keys (None means every chunk)")
        return arr, len(ks), _lib.RW_XFER_KEYS
    if chunks is not None:
        cs = list(chunks)
        if not cs:
            raise RackWeaveError(_errno.EINVAL, "transfer",
                                 "an empty list of ranges (None means every chunk)")
        arr = (_lib.Range * len(cs))()
        for i, (first, count) in enumerate(cs):
            arr[i].first, arr[i].count = int(first), int(count)
        return arr, len(cs), 0
    return None, 0, 0


class Worker:
    """A worker (or observer) of one job.

    ``Worker("digits", token, rank=0)`` attaches on this host;
    ``box="10.88.0.1"`` attaches to a job on another host over RDMA
    (rw_attach_remote(3); ``box="10.88.0.1,10.89.0.1"`` for a box with
    two NICs: one connection each); ``boxes=["10.88.0.1", "10.88.0.3"]`` for
    a job spread over several boxes (every box of its set, one address each:
    rw_attach_remote_flags(3) with RW_ATTACH_BOXES; also on a box itself);
    ``observer=True`` maps a running job read-only
    (with ``box=`` too: this host's copy, which the box refreshes within 100 ms
    of a step; declare the layout first, as the box checks it).
    Use as a context manager or call close().

    Blocking calls wait at most ``timeout_ms`` (default DEFAULT_TIMEOUT_MS,
    300 s, or $RACKWEAVE_TIMEOUT_MS; 0: no limit), then raise
    RackWeaveError(ETIMEDOUT).
    """

    def __init__(self, job: str, token: TokenLike, rank: int = 0, *,
                 box: Optional[str] = None, observer: bool = False,
                 boxes: Optional[Sequence[str]] = None,
                 device: Optional[str] = None, timeout_ms: Optional[int] = None):
        self._ctx = ctypes.c_void_p()
        self._maps: list = []
        self.job = job
        self.rank = rank
        self.box = box
        self.grad: Optional[np.ndarray] = None
        self.params: Optional[np.ndarray] = None
        self.versions: Optional[np.ndarray] = None
        self.setup: Optional[Setup] = None
        self._tensors: dict = {}
        self.observer = observer
        self.world_size: Optional[int] = None   # from_env's WORLD_SIZE
        self.timeout_ms = default_timeout_ms() if timeout_ms is None else timeout_ms
        tok = read_token(token)
        if not isinstance(rank, int) or rank < 0 or rank >= 1 << 32:
            raise RackWeaveError(_errno.ERANGE, f"attach(rank={rank!r})",
                                 "a rank is an integer from 0 to 2^32-1")
        attach_flags = 0
        if boxes is not None:
            if box is not None or isinstance(boxes, str) or not boxes or \
                    not all(isinstance(b, str) and b and "," not in b for b in boxes):
                raise RackWeaveError(_errno.EINVAL, "attach",
                                     "boxes= is a list of box addresses, one per box "
                                     "(and no box= with it)")
            box = ",".join(boxes)
            attach_flags = _lib.RW_ATTACH_BOXES
        self.box = box
        if box is not None and observer and (rank or ("," in box and not attach_flags)):
            raise RackWeaveError(_errno.EINVAL, "attach",
                                 "a remote observer is rank 0 on one address per box")
        _check(lib.rw_ctx_open(ctypes.byref(self._ctx),
                               device.encode() if device else None),
               f"rw_ctx_open({device or '/dev/rackweave'})",
               f"no RackWeave device {device or '/dev/rackweave'}: is the rackweave "
               "module loaded? (modprobe rackweave)")
        try:
            tbuf = (ctypes.c_uint8 * len(tok)).from_buffer_copy(tok)
            if box is None:
                flags = _lib.RW_ATTACH_OBSERVER if observer else 0
                _check(lib.rw_attach(self._ctx, job.encode(), tbuf, rank, flags),
                       f"rw_attach(job {job!r}, rank {rank})",
                       f"no job named {job!r} on this host (rwctl job show lists them)")
            elif observer or attach_flags:
                if observer:
                    attach_flags |= _lib.RW_ATTACH_OBSERVER
                _check(lib.rw_attach_remote_flags(self._ctx, job.encode(), tbuf, rank,
                                                  box.encode(), attach_flags),
                       f"rw_attach_remote_flags(job {job!r}, "
                       f"{'observer' if observer else f'rank {rank}'}, box {box!r})")
            else:
                _check(lib.rw_attach_remote(self._ctx, job.encode(), tbuf, rank,
                                            box.encode()),
                       f"rw_attach_remote(job {job!r}, rank {rank}, box {box!r})")
            self.set_timeout(self.timeout_ms)
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_env(cls, env: Optional[Mapping[str, str]] = None, **kw) -> "Worker":
        """A worker as ``python3 -m rackweave.launch`` (or torchrun and a
        job named in the environment) describes it.

        RANK and WORLD_SIZE (torchrun's and the launcher's), the job from
        RACKWEAVE_JOB, the token from RACKWEAVE_TOKEN_FILE (a path) or
        RACKWEAVE_TOKEN (64 hex digits), the box from RACKWEAVE_BOX (unset:
        this host) or the boxes of a job over several from RACKWEAVE_BOXES
        (comma-separated), the timeout from RACKWEAVE_TIMEOUT_MS. WORLD_SIZE must
        be the job's worker count: checked before attaching when the job is
        on this host, and against the job's setup once the model is
        declared otherwise (RackWeaveError EINVAL with what to change).
        Keyword arguments override the environment (``rank=``, ``box=``...).
        """
        env = os.environ if env is None else env
        job = kw.pop("job", None) or env.get("RACKWEAVE_JOB")
        token = kw.pop("token", None) or env.get("RACKWEAVE_TOKEN_FILE") \
            or env.get("RACKWEAVE_TOKEN")
        if not job or not token:
            raise RackWeaveError(_errno.EINVAL, "Worker.from_env",
                                 "RACKWEAVE_JOB and RACKWEAVE_TOKEN_FILE (or "
                                 "RACKWEAVE_TOKEN) name the job and its token; start "
                                 "trainers with python3 -m rackweave.launch, or set them")
        rank = kw.pop("rank", None)
        if rank is None:
            rank = _env_int("RANK", env)
        if rank is None:
            raise RackWeaveError(_errno.EINVAL, "Worker.from_env",
                                 "RANK is not set (python3 -m rackweave.launch and "
                                 "torchrun set it)")
        world = _env_int("WORLD_SIZE", env)
        if "timeout_ms" not in kw:
            kw["timeout_ms"] = _env_int("RACKWEAVE_TIMEOUT_MS", env)
        if "box" not in kw and "boxes" not in kw and env.get("RACKWEAVE_BOXES"):
            kw["boxes"] = env["RACKWEAVE_BOXES"].split(",")
        elif "box" not in kw and "boxes" not in kw and env.get("RACKWEAVE_BOX"):
            kw["box"] = env["RACKWEAVE_BOX"]
        if world is not None and kw.get("box") is None and kw.get("boxes") is None:
            from .jobs import job_show   # jobs imports this module
            try:
                found = job_show(job)
            except RackWeaveError:
                found = []   # no rwctl here: checked at map() instead
            if found and found[0].get("workers", world) != world:
                raise RackWeaveError(_errno.EINVAL, f"Worker.from_env(job {job!r})",
                                     world_mismatch(job, world, found[0]["workers"],
                                                    "WORLD_SIZE"))
        w = cls(job, token, rank, **kw)
        w.world_size = world
        return w

    # -- lifetime --------------------------------------------------------
    def _c(self, call: str) -> ctypes.c_void_p:
        if not self._ctx:
            raise RackWeaveError(_errno.EBADF, call, "the worker is closed")
        return self._ctx

    def close(self) -> None:
        """Detach (the rank is free at once) and drop this object's views.

        A mapping holds the device file open, so an array still alive would
        keep the rank attached: its pages are replaced by a private copy
        of what they held (mmap MAP_FIXED over the same addresses), and the
        array goes on reading those last values, no longer shared with the
        box. Closing twice does nothing.
        """
        self.grad = self.params = self.versions = None
        self._tensors = {}
        maps, self._maps = self._maps, []
        while maps:
            m = maps.pop()
            if sys.getrefcount(m) > 2:  # here and the call's argument: else arrays
                m.detach()
            del m  # unmapped now unless an array still holds it
        if self._ctx:
            lib.rw_ctx_close(self._ctx)
            self._ctx = ctypes.c_void_p()

    @property
    def closed(self) -> bool:
        return not self._ctx

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def fileno(self) -> int:
        """The device's fd (for select/poll: POLLIN when a pull would succeed)."""
        return _check(lib.rw_ctx_fd(self._c("fileno")), "rw_ctx_fd")

    # -- layout and mapping ----------------------------------------------
    def declare(self, tensors: Layout, *, verify: bool = False,
                map: bool = True) -> None:
        """Declare the model's tensors, in the order they lie in the flat
        buffer: {key: nelems} or [(key, nelems)] for float32 ones, and
        {key: (nelems, dtype)} or [(key, nelems, dtype)] for any type
        (float32, float16, bfloat16: a name, numpy or torch dtype; a model
        may mix them). A 16-bit tensor travels and is published in its
        type, half the bytes; the box sums and steps it in float32
        (docs/python.md). Then map the buffers (unless map=False)."""
        items = _layout_items(tensors)
        call = f"rw_declare({len(items)} tensors)"
        if not items:
            raise RackWeaveError(_errno.EINVAL, call, "no tensors to declare")
        arr = (_lib.TensorDesc * len(items))()
        dtypes = {}
        for i, (k, n, dt, prio) in enumerate(items):
            if int(k) < 0 or int(n) < 1:
                raise RackWeaveError(_errno.EINVAL, call,
                                     f"tensor {k}: keys are >= 0 and sizes >= 1 element")
            if not 0 <= int(prio) <= PRIORITY_MAX:
                raise RackWeaveError(_errno.EINVAL, call,
                                     f"tensor {k}: priority {prio} is not 0..{PRIORITY_MAX}")
            arr[i].priority = int(prio)
            try:
                dtypes[int(k)] = dtype_name(dt)
            except ValueError as e:
                raise RackWeaveError(_errno.EINVAL, call, f"tensor {k}: {e}") from None
            arr[i].key, arr[i].nelems = int(k), int(n)
            arr[i].dtype = DTYPES[dtypes[int(k)]]
        ret = lib.rw_declare(self._c(call), arr, len(items), 1 if verify else 0)
        if ret == -_errno.EEXIST:
            raise RackWeaveError(_errno.EEXIST, call,
                                 f"job {self.job!r} runs another model: a worker declared "
                                 "a different layout first (keys, sizes, types and order "
                                 "must match on every rank); the job's other ranks wait "
                                 "for this one until their timeout")
        _check(ret, call)
        self._keys = [int(it[0]) for it in items]
        self._dtypes = dtypes
        if map:
            self.map()

    def _mmap(self, off: int, length: int, writable: bool, dtype) -> np.ndarray:
        m = _Mapping(self.fileno(), off, length, writable, dtype)
        self._maps.append(m)
        return np.asarray(m)

    def map(self) -> None:
        """Map the buffers: ``grad`` (writable), ``params`` (read-only) and
        ``versions`` (uint64, read-only, one per chunk). ``grad`` and
        ``params`` are float32 arrays for a float32 model; for a model of
        one 16-bit type, arrays of that type (bfloat16: uint16 bits); for a
        mixed one, uint8 bytes. Each tensor's views are typed
        (``tensor()``)."""
        ctx = self._c("rw_map")
        _check(lib.rw_map(ctx), "rw_map")
        s = self._setup_raw()
        self.setup = Setup(rank=s.rank, workers=s.nr_workers, chunk_size=s.chunk_size,
                           nr_chunks=s.nr_chunks, nr_tensors=s.nr_tensors,
                           sync=_lib.RW_SYNC_NAMES.get(s.sync, str(s.sync)),
                           model_bytes=s.model_bytes, node=s.node, epoch=s.epoch)
        if self.world_size is not None and self.world_size != s.nr_workers:
            raise RackWeaveError(_errno.EINVAL, f"rw_map(job {self.job!r})",
                                 world_mismatch(self.job, self.world_size,
                                                s.nr_workers, "WORLD_SIZE"))
        flat = _NP_DTYPES.get(self._flat_dtype(), np.uint8)
        if not self.observer:
            self.grad = self._mmap(s.grad_offset, s.grad_len, True, flat)
        self.params = self._mmap(s.params_offset, s.params_len, False, flat)
        self.versions = self._mmap(s.versions_offset, s.versions_len, False,
                                   np.uint64)[:s.nr_chunks]
        self._tensors = {}
        for k in getattr(self, "_keys", []):
            self.tensor(k)

    def _setup_raw(self) -> _lib.Setup:
        s = _lib.Setup()
        s.size = ctypes.sizeof(s)
        _check(lib.rw_setup_get(self._c("rw_setup_get"), ctypes.byref(s)), "rw_setup_get")
        return s

    def tensor(self, key: int) -> Tensor:
        """The views of one declared tensor (after map())."""
        if key in self._tensors:
            return self._tensors[key]
        v = _lib.TensorView()
        call = f"rw_tensor(key {key})"
        _check(lib.rw_tensor(self._c(call), key, ctypes.byref(v)), call,
               f"no tensor with key {key} in the declared layout")
        dt = _DTYPE_NAMES.get(v.dtype, "float32")
        lo, hi = v.offset, v.offset + v.nelems * _SIZES[dt]

        def typed(a: np.ndarray) -> np.ndarray:
            return a.view(np.uint8)[lo:hi].view(_NP_DTYPES[dt])
        t = Tensor(key=v.key, nelems=v.nelems, offset=v.offset,
                   first_chunk=v.first_chunk, nr_chunks=v.nr_chunks,
                   grad=None if self.grad is None else typed(self.grad),
                   params=typed(self.params), dtype=dt)
        self._tensors[key] = t
        return t

    @property
    def tensors(self) -> dict:
        """Every declared tensor by key, in declaration order."""
        return {k: self.tensor(k) for k in getattr(self, "_keys", [])}

    # -- transfers -------------------------------------------------------
    def _xfer(self, fn, name: str, keys, chunks, nonblock: bool) -> int:
        arr, n, flags = _ranges(keys, chunks)
        if nonblock:
            flags |= _lib.RW_XFER_NONBLOCK
        return fn(self._c(name), arr, n, flags)

    def _wait_check(self, ret: int, call: str) -> None:
        """_check() for a call that waits for the other workers: a timeout
        says what usually keeps them away, since this rank cannot see it."""
        if ret != -_errno.ETIMEDOUT:
            _check(ret, call, _NO_KEY)
            return
        waited = f" {self.timeout_ms / 1000:g} s" if self.timeout_ms else ""
        workers = f" ({self.setup.workers} workers)" if self.setup else ""
        raise RackWeaveError(_errno.ETIMEDOUT, call,
                             f"timed out after{waited} waiting for job {self.job!r}'s "
                             f"other workers{workers}: a rank that is not running, or "
                             "one whose declare was refused (EEXIST: it declared another "
                             "model than this one), keeps the others waiting; see the "
                             "other ranks' errors" + ("" if self.box is None else
                                                      ", or the box did not answer"))

    def push(self, keys: Optional[Iterable[int]] = None,
             chunks: Optional[Sequence[Tuple[int, int]]] = None, *,
             nonblock: bool = False) -> None:
        """Push the gradients of ``keys`` (tensor keys), ``chunks``
        ([(first, count)]), or every chunk."""
        _check(self._xfer(lib.rw_push, "rw_push", keys, chunks, nonblock), "rw_push",
               _NO_KEY)

    def pull(self, keys: Optional[Iterable[int]] = None,
             chunks: Optional[Sequence[Tuple[int, int]]] = None, *,
             nonblock: bool = False) -> None:
        """Wait for fresh parameters (the gate's and the chunks' turn)."""
        self._wait_check(self._xfer(lib.rw_pull, "rw_pull", keys, chunks, nonblock),
                         "rw_pull")

    def pushpull(self, keys: Optional[Iterable[int]] = None,
                 chunks: Optional[Sequence[Tuple[int, int]]] = None, *,
                 nonblock: bool = False) -> None:
        """Push, then pull the same chunks, in one call."""
        self._wait_check(self._xfer(lib.rw_pushpull, "rw_pushpull", keys, chunks,
                                    nonblock), "rw_pushpull")

    def wait_tensor(self, key: int, timeout_ms: Optional[int] = None) -> None:
        """Wait until tensor ``key``'s parameters are fresh for this worker
        (its pushed gradient applied): a pull of that tensor alone, so a
        forward pass can start layer by layer while the rest still flows
        (the box answers, and this host pushes, by priority: rw_pull(3))."""
        if timeout_ms is not None and timeout_ms != self.timeout_ms:
            old = self.timeout_ms
            self.set_timeout(timeout_ms)
            try:
                self.pull(keys=[key])
            finally:
                self.set_timeout(old)
            return
        self.pull(keys=[key])

    def pull_start(self, keys=None, chunks=None) -> bool:
        """Start a pull without sleeping: True if done, False if pending
        (finish it with wait())."""
        return self._start(lib.rw_pull_start, "rw_pull_start", keys, chunks)

    def pushpull_start(self, keys=None, chunks=None) -> bool:
        """Push now and start the pull: True if done, False if pending."""
        return self._start(lib.rw_pushpull_start, "rw_pushpull_start", keys, chunks)

    def _start(self, fn, name, keys, chunks) -> bool:
        ret = self._xfer(fn, name, keys, chunks, False)
        if ret == -_errno.EINPROGRESS:
            return False
        _check(ret, name)
        return True

    def wait(self, timeout_ms: Optional[int] = None) -> None:
        """Finish the pending transfer within ``timeout_ms`` (default: the
        worker's timeout; -1: no limit); ETIMEDOUT leaves it pending, any
        other error drops it."""
        if timeout_ms is None:
            timeout_ms = self.timeout_ms or -1
        ret = lib.rw_wait(self._c("rw_wait"), timeout_ms)
        if ret == -_errno.ETIMEDOUT:
            raise RackWeaveError(_errno.ETIMEDOUT, "rw_wait",
                                 f"the transfer is still pending after {timeout_ms} ms "
                                 "(wait again, or close the worker)")
        _check(ret, "rw_wait")

    def set_timeout(self, ms: int) -> None:
        """Bound every later blocking call to ``ms`` ms (0: none)."""
        _check(lib.rw_set_timeout(self._c("rw_set_timeout"), ms), "rw_set_timeout")
        self.timeout_ms = ms

    # -- initial parameters and checkpoints ------------------------------
    def params_init(self, values: np.ndarray) -> None:
        """Set the run's initial parameters (before anyone's first push).

        ``values`` is laid out as the parameter buffer, of its type
        (len(params) elements; build it with ``np.zeros_like(w.params)``
        and the tensors' offsets; a 16-bit tensor's elements in its type).
        Once per run, else EBUSY."""
        a = np.ascontiguousarray(values, dtype=self.params.dtype)
        call = "rw_params_init"
        _check(lib.rw_params_init(self._c(call), a.ctypes.data_as(ctypes.c_void_p),
                                  a.nbytes, None, 0, 0), call)

    def params_wait(self, timeout_ms: Optional[int] = None) -> None:
        """Wait until some worker set the initial parameters or the run
        began (default: the worker's timeout; 0: no limit)."""
        if timeout_ms is None:
            timeout_ms = self.timeout_ms
        self._wait_check(lib.rw_params_wait(self._c("rw_params_wait"), timeout_ms),
                         "rw_params_wait")

    def checkpoint_save(self, path: str, timeout_ms: Optional[int] = None) -> None:
        """Save parameters, optimizer state and versions (docs/checkpoint.md);
        waits at most ``timeout_ms`` (default: the worker's; 0: no limit)."""
        if timeout_ms is None:
            timeout_ms = self.timeout_ms
        self._ckpt(lambda why: lib.rw_checkpoint_save(self._c("checkpoint_save"),
                                                      os.fsencode(path), timeout_ms,
                                                      why, len(why)),
                   f"rw_checkpoint_save({path!r})")

    def checkpoint_restore(self, path: str) -> None:
        """Restore a checkpoint before the run's first push."""
        self._ckpt(lambda why: lib.rw_checkpoint_restore(
            self._c("checkpoint_restore"), os.fsencode(path), why, len(why)),
            f"rw_checkpoint_restore({path!r})")

    # enum rw_optim (uapi), as rwctl names each optimizer.
    _OPTIMS = ("sgd", "momentum", "nesterov", "adam", "average")

    def job_head(self) -> dict:
        """What a checkpoint of the job's run would say of it now, on this
        host's box or another's: ``optim`` (rwctl's word), ``step``,
        ``nr_chunks``, ``chunk_size``, ``layout_hash`` and ``image_len``."""
        h = _lib.CkptHead()
        _check(lib.rw_job_head(self._c("job_head"), ctypes.byref(h)), "rw_job_head")
        optim = (self._OPTIMS[h.optim] if h.optim < len(self._OPTIMS)
                 else f"optim{h.optim}")
        return {"optim": optim, "step": h.step, "nr_chunks": h.nr_chunks,
                "chunk_size": h.chunk_size, "layout_hash": h.layout_hash,
                "image_len": h.image_len}

    @staticmethod
    def _ckpt(fn, call: str) -> None:
        why = ctypes.create_string_buffer(256)
        ret = fn(why)
        if ret < 0:
            raise RackWeaveError(-ret, call, why.value.decode() or None)

    def version_info(self) -> dict:
        """The module's version, ABI and feature bits."""
        v = _lib.VersionInfo()
        v.size = ctypes.sizeof(v)
        _check(lib.rw_ctx_version(self._c("rw_ctx_version"), ctypes.byref(v)),
               "rw_ctx_version")
        return {"version": v.version, "abi": v.abi, "features": v.features}

    # -- torch views -----------------------------------------------------
    def grad_tensor(self):
        """The whole gradient buffer as a flat torch tensor (shared), typed
        as ``grad`` is (a mixed model's: uint8 bytes)."""
        if self.grad is None:
            raise RackWeaveError(_errno.ENOTCONN, "grad_tensor",
                                 "no gradient buffer mapped (declare first; observers have none)")
        return _torch_view(self.grad, self._flat_dtype(), False)

    def params_tensor(self):
        """The whole parameter buffer as a flat torch tensor (shared, read-only)."""
        if self.params is None:
            raise RackWeaveError(_errno.ENOTCONN, "params_tensor",
                                 "no parameter buffer mapped (declare first)")
        return _torch_view(self.params, self._flat_dtype(), True)

    def _flat_dtype(self) -> str:
        """The whole buffers' torch type: the model's one type, or bytes."""
        kinds = set(getattr(self, "_dtypes", {}).values()) or {"float32"}
        return kinds.pop() if len(kinds) == 1 else "uint8"
