# SPDX-License-Identifier: GPL-2.0
"""The guest half of scripts/bench-path, its arithmetic: trials and a trace
capture in, one line "BENCH-JSON {...}" out (the keys: scripts/bench-path
--help).

    path-report.py RESULTS MIB [TRACE W CHUNK]

RESULTS holds the trial lines of tests/bench/path-bench ("trial MODE W
CHUNK ITERS SECONDS STEPS_PER_S SUM"), in the order they ran: pair k of a
configuration is its k-th rw trial and its k-th ref trial. TRACE is the
text of /sys/kernel/tracing/trace while one more rw trial of W workers
and CHUNK-byte chunks ran with the events rw_xfer, rw_xfer_done, rw_push,
rw_arrive, rw_step, rw_publish, rw_gate_wait and rw_gate_release on.
"""
import json
import re
import statistics
import sys
from collections import defaultdict


def quartiles(xs):
    if len(xs) < 2:
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[1], q[2]


def rows_of(path, mib):
    trials = defaultdict(lambda: {"rw": [], "ref": []})
    for line in open(path):
        f = line.split()
        if len(f) == 8 and f[0] == "trial":
            trials[(int(f[2]), int(f[3]))][f[1]].append(
                (float(f[6]), float(f[5]) / int(f[4]), f[7]))
    rows = []
    for (w, chunk), t in sorted(trials.items()):
        pairs = list(zip(t["rw"], t["ref"]))
        if not pairs:
            continue
        nchunks = (mib << 20) // chunk
        ratios = [a[0] / b[0] for a, b in pairs]
        extra = [(a[1] - b[1]) * 1e9 / nchunks for a, b in pairs]
        q1, med, q3 = quartiles(ratios)
        rows.append({
            "w": w, "chunk": chunk, "pairs": len(pairs),
            "chunks_per_step": nchunks,
            "rackweave_steps_per_s": statistics.median(a[0] for a, _ in pairs),
            "reference_steps_per_s": statistics.median(b[0] for _, b in pairs),
            "ratio": med, "ratio_iqr": q3 - q1, "ratio_q1": q1, "ratio_q3": q3,
            "ratios": ratios,
            "chunk_ns": statistics.median(extra),
            "rackweave_chunk_ns": statistics.median(
                a[1] * 1e9 / nchunks for a, _ in pairs),
            "reference_chunk_ns": statistics.median(
                b[1] * 1e9 / nchunks for _, b in pairs),
            "same_result": all(a[2] == b[2] for a, b in pairs),
        })
    return rows


LINE = re.compile(r"-(\d+)\s+\[\d+\].*?\s(\d+\.\d+): (rw_\w+): (.*)$")


def events(path):
    ev = []
    for line in open(path):
        m = LINE.search(line)
        if m:
            f = dict(re.findall(r"(\w+)=(\S+)", m.group(4)))
            ev.append((float(m.group(2)) * 1e9, int(m.group(1)), m.group(3), f))
    ev.sort(key=lambda e: e[0])
    return ev


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def breakdown(path, w, chunk):
    """Where a chunk's path goes, from the trace of one traced rw trial.

    Every figure leaves out the warm-up step (gate iteration 0, and each
    worker's first ioctl).
    """
    ev = events(path)
    by_pid = defaultdict(list)
    pushed = defaultdict(list)      # (rank, chunk) -> [(ts, iter)]
    arrived = defaultdict(list)     # (rank, chunk) -> [ts]
    steps, publishes = [], []
    for e in ev:
        ts, pid, name, f = e
        if name in ("rw_xfer", "rw_xfer_done", "rw_push", "rw_gate_wait",
                    "rw_gate_release"):
            by_pid[pid].append(e)
        if name == "rw_push":
            pushed[(f["rank"], f["chunk"])].append((ts, int(f["iter"])))
        elif name == "rw_arrive":
            arrived[(f["rank"], f["chunk"])].append(ts)
        elif name == "rw_step":
            steps.append((int(f["iter"]), int(f["ns"])))
        elif name == "rw_publish":
            publishes.append(ts)

    # Per ioctl: entry to its last chunk queued, less any park in the
    # gate, over the chunks it queued; the park itself; the last
    # publication before it returned, to its return.
    q_ns = q_n = park_ns = 0.0
    woken, xfers = [], 0
    for pid, es in by_pid.items():
        cur, first = None, True
        for ts, _, name, f in es:
            if name == "rw_xfer":
                cur = {"t": ts, "last": None, "n": 0, "park": 0.0,
                       "wait": None}
            elif cur is None:
                continue
            elif name == "rw_push":
                cur["last"] = ts
                cur["n"] += 1
            elif name == "rw_gate_wait":
                cur["wait"] = ts
            elif name == "rw_gate_release" and cur["wait"] is not None:
                cur["park"] += ts - cur["wait"]
                cur["wait"] = None
            elif name == "rw_xfer_done":
                if not first and cur["n"]:
                    q_ns += cur["last"] - cur["t"] - cur["park"]
                    q_n += cur["n"]
                    park_ns += cur["park"]
                    xfers += 1
                    before = [p for p in publishes if p <= ts]
                    if before:
                        woken.append(ts - before[-1])
                first, cur = False, None

    # Push to the owner thread taking it, and each round's first to last
    # gradient on its core (the BSP wait for the other members).
    run, rounds = [], defaultdict(list)
    for key, ps in pushed.items():
        for (ts, it), ta in zip(ps, arrived.get(key, [])):
            if it >= 1:
                run.append(ta - ts)
                rounds[(key[1], it)].append(ta)
    round_wait = mean(max(r) - min(r) for r in rounds.values() if len(r) == w)
    chunk_steps = sum(1 for it, _ in steps if it >= 1)
    park_per_chunk = park_ns / (w * chunk_steps) if chunk_steps else 0.0
    return {
        "w": w, "chunk": chunk,
        "ioctl_to_queued_ns": q_ns / q_n if q_n else 0.0,
        "queued_to_running_ns": mean(run),
        "aggregation_ns": mean(ns for it, ns in steps if it >= 1),
        "gate_ns": round_wait + park_per_chunk,
        "publish_to_woken_ns": mean(woken),
        "round_wait_ns": round_wait,
        "gate_park_ns": park_per_chunk,
        "traced_ioctls": xfers,
        "traced_pushes": int(q_n),
        "traced_steps": chunk_steps,
    }


def main():
    mib = int(sys.argv[2])
    out = {"model_mib": mib, "rows": rows_of(sys.argv[1], mib)}
    for r in out["rows"]:
        if r["w"] == 4 and r["chunk"] == 32768:
            out["path_ratio_w4_32k"] = r["ratio"]
    if len(sys.argv) > 5:
        out["breakdown"] = breakdown(sys.argv[3], int(sys.argv[4]),
                                     int(sys.argv[5]))
    print("BENCH-JSON " + json.dumps(out))


main()
