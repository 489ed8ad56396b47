# SPDX-License-Identifier: GPL-2.0
"""Job control from Python: create, show, delete jobs and read statistics.

These functions run rwctl (`rwctl -j ...`) and parse its JSON rather than
speak generic netlink themselves: rwctl already validates every argument,
turns the module's extended-ack messages into sentences and is tested
against the family, so a second netlink client in Python would only be a
second place to get the attribute policies wrong. A failure raises
RackWeaveError with rwctl's message; its errno is EINVAL for a usage error
(exit status 2) and otherwise the errno whose text rwctl's message ends
with, else EIO.

rwctl is looked for in $RACKWEAVE_RWCTL, then in the build tree this
package lies in (build/rwctl), then on $PATH.
"""

from __future__ import annotations

import errno as _errno
import json
import os
import shutil
import subprocess
from typing import Optional, Sequence, Union

from .worker import RackWeaveError


def rwctl_path() -> str:
    env = os.environ.get("RACKWEAVE_RWCTL")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.normpath(os.path.join(here, "..", "..", "build", "rwctl"))
    if os.access(tree, os.X_OK):
        return tree
    found = shutil.which("rwctl")
    if not found:
        raise RackWeaveError(_errno.ENOENT, "rwctl",
                             "rwctl not found (make user, make install, or set RACKWEAVE_RWCTL)")
    return found


def _errno_of(msg: str) -> int:
    for e in sorted(_errno.errorcode):
        text = os.strerror(e)
        if text and msg.rstrip(").").endswith(text):
            return e
    low = msg.lower()
    for needle, e in (("not found", _errno.ENOENT), ("no such", _errno.ENOENT),
                      ("no job", _errno.ENOENT),
                      ("already", _errno.EEXIST), ("exists", _errno.EEXIST),
                      ("permission", _errno.EPERM), ("not loaded", _errno.ENOENT),
                      ("busy", _errno.EBUSY), ("attached", _errno.EBUSY)):
        if needle in low:
            return e
    return _errno.EIO


def rwctl(*args: str, json_out: bool = True) -> Union[dict, str]:
    """Run ``rwctl [-j] ARGS``; the parsed JSON (or the text)."""
    argv = [rwctl_path()] + (["-j"] if json_out else []) + [str(a) for a in args]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).removeprefix("rwctl: ")
        err = _errno.EINVAL if p.returncode == 2 else _errno_of(msg)
        raise RackWeaveError(err, "rwctl " + " ".join(str(a) for a in args),
                             msg.splitlines()[0] if msg else f"exit status {p.returncode}")
    if not json_out:
        return p.stdout
    return json.loads(p.stdout) if p.stdout.strip() else {}


def job_add(name: str, workers: int, *, sync: str = "bsp",
            staleness: Optional[Union[int, Sequence[int]]] = None,
            optim: str = "sgd", lr: Optional[float] = None,
            momentum: Optional[float] = None, chunk_size: Optional[int] = None,
            token_file: Optional[str] = None, quorum: Optional[int] = None,
            evict_ms: Optional[int] = None) -> Optional[str]:
    """Create a job. ``sync`` is bsp, asp, ssp (``staleness=S``) or adaptive
    (``staleness=(LO, HI)``). With ``token_file`` the token is read from that
    file; without, the module makes one and it is returned as hex (shown
    once)."""
    args = ["job", "add", name, "workers", str(workers)]
    if chunk_size:
        args += ["chunk-size", str(chunk_size)]
    args += ["sync", sync]
    if sync == "ssp":
        args.append(str(int(staleness)))  # type: ignore[arg-type]
    elif sync == "adaptive":
        lo, hi = staleness  # type: ignore[misc]
        args += [str(lo), str(hi)]
    if quorum is not None:
        args += ["quorum", str(quorum)]
    if evict_ms is not None:
        args += ["evict-ms", str(evict_ms)]
    args += ["optim", optim]
    if lr is not None:
        args += ["lr", repr(float(lr))]
    if momentum is not None:
        args += ["momentum", repr(float(momentum))]
    if token_file:
        args += ["token-file", token_file]
    out = rwctl(*args)
    tok = out.get("token") if isinstance(out, dict) else None
    return tok


def job_show(name: Optional[str] = None) -> list:
    """Every job (or the one named) as rwctl -j job show lists them."""
    out = rwctl("job", "show", *([name] if name else []))
    return out.get("jobs", []) if isinstance(out, dict) else []


def job_del(name: str, force: bool = False) -> None:
    """Delete a job (``force`` detaches its workers)."""
    rwctl("job", "del", name, *(["force"] if force else []))


def policy_set(name: str, *args: str) -> None:
    """``rwctl policy set NAME ARGS`` (e.g. "sync", "ssp", "3")."""
    rwctl("policy", "set", name, *args)


def stats(name: str) -> dict:
    """``rwctl -j stats show NAME``: the job's totals and each rank's."""
    out = rwctl("stats", "show", name)
    if isinstance(out, list):
        out = out[0] if out else {}
    return out
