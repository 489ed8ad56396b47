# SPDX-License-Identifier: GPL-2.0
"""The guest half of scripts/bench-path, its arithmetic: trials and a trace
capture in, one line "BENCH-JSON {...}" out (the keys: scripts/bench-path
--help).

    path-report.py [--check ROWS] RESULTS MIB [TRACE W CHUNK]

RESULTS holds the trial lines of tests/bench/path-bench ("trial MODE W
CHUNK ITERS SECONDS STEPS_PER_S SUM AGG_NS"), in the order they ran: pair
k of a configuration is its k-th rw trial and its k-th ref trial. TRACE
is the text of /sys/kernel/tracing/trace after one more rw trial of W
workers and CHUNK-byte chunks with the events rw_xfer, rw_xfer_done,
rw_push, rw_arrive, rw_step, rw_publish, rw_gate_wait and
rw_gate_release enabled and tracing on for its timed steps only.

--check ROWS: a second line "CHECKS A B C D", each True or False: the
headline ratio is a positive number; ROWS rows, each with every key and
positive ratios and rates; the breakdown has every key; both sides ended
with the same parameters (path-bench.sh turns each into a TAP check).
"""
import bisect
import json
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
        if len(f) == 9 and f[0] == "trial":
            trials[(int(f[2]), int(f[3]))][f[1]].append(
                (float(f[6]), float(f[5]) / int(f[4]), f[7], float(f[8])))
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
            "reference_aggregation_ns": statistics.median(
                b[3] for _, b in pairs),
        })
    return rows


def events(path):
    """(ns, pid, cpu, event, fields) of every rackweave event, in time order.

    A line: "COMM-PID [CPU] FLAGS SECONDS: EVENT: key=value ...".
    """
    ev = []
    for line in open(path):
        if ": rw_" not in line or line.startswith("#"):
            continue
        head, name, rest = line.split(": ", 2)
        h = head.split()
        f = dict(x.split("=", 1) for x in rest.split() if "=" in x)
        ev.append((float(h[-1]) * 1e9, int(h[0].rsplit("-", 1)[1]),
                   int(h[1].strip("[]")), name, f))
    ev.sort(key=lambda e: e[0])
    return ev


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def ioctls(ev):
    """Each push/pull ioctl: entry, its pushes, its park in the gate, return."""
    cur, out = {}, []
    for ts, pid, _, name, f in ev:
        c = cur.get(pid)
        if name == "rw_xfer":
            cur[pid] = {"t": ts, "pushes": [], "parks": [], "wait": None}
        elif c is None:
            continue
        elif name == "rw_push":
            c["pushes"].append(ts)
        elif name == "rw_gate_wait":
            c["wait"] = ts
        elif name == "rw_gate_release" and c["wait"] is not None:
            c["parks"].append((c["wait"], ts))
            c["wait"] = None
        elif name == "rw_xfer_done":
            c["done"] = ts
            out.append(c)
            del cur[pid]
    return out


def breakdown(path, w, chunk):
    """Where a chunk's path goes, from the trace of the timed steps of one
    rw trial (path-bench turns tracing on for those only)."""
    ev = events(path)
    pushed = defaultdict(list)      # (rank, chunk) -> [ts]
    arrived = defaultdict(list)     # (rank, chunk) -> [ts]
    steps = defaultdict(list)       # (cpu, iter) -> [(ts, ns)]
    publishes = []
    for ts, _, cpu, name, f in ev:
        if name == "rw_push":
            pushed[(f["rank"], f["chunk"])].append(ts)
        elif name == "rw_arrive":
            arrived[(f["rank"], f["chunk"])].append(ts)
        elif name == "rw_step":
            steps[(cpu, f["iter"])].append((ts, int(f["ns"])))
        elif name == "rw_publish":
            publishes.append(ts)

    # Per ioctl: entry to its last chunk queued (less a park before it)
    # over the chunks it queued; its time parked in the gate; the last
    # publication before it returned, to its return.
    q_ns = q_n = 0.0
    park, woken, xs = [], [], ioctls(ev)
    for x in xs:
        if x["pushes"]:
            last = x["pushes"][-1]
            before = sum(b - a for a, b in x["parks"] if b <= last)
            q_ns += last - x["t"] - before
            q_n += len(x["pushes"])
        park.append(sum(b - a for a, b in x["parks"]))
        i = bisect.bisect_right(publishes, x["done"])
        if i:
            woken.append(x["done"] - publishes[i - 1])

    # Push to the owner thread taking it off its queue. A pushed chunk
    # whose arrival fell outside the capture has no pair.
    run = []
    for key, ps in pushed.items():
        run += [ta - tp for tp, ta in zip(ps, arrived.get(key, []))]
    # Each core's time per chunk it stepped in a step of the job: from its
    # first step to its last, over the steps between (against the steps'
    # own time, aggregation_ns, the rest of the core's work per chunk).
    core, ns = [], []
    for s in steps.values():
        ns += [n for _, n in s]
        if len(s) > 1:
            core.append((s[-1][0] - s[0][0]) / (len(s) - 1))
    return {
        "w": w, "chunk": chunk,
        "ioctl_to_queued_ns": q_ns / q_n if q_n else 0.0,
        "queued_to_running_ns": mean(run),
        "aggregation_ns": mean(ns),
        "gate_ns": mean(park),
        "publish_to_woken_ns": mean(woken),
        "aggregation_median_ns": statistics.median(ns) if ns else 0.0,
        "core_ns_per_chunk": mean(core),
        "traced_ioctls": len(xs),
        "traced_pushes": int(q_n),
        "traced_steps": len(ns),
    }


def check(line, rows):
    """The contract, on the printed line: four booleans, each a check."""
    d = json.loads(line.split(" ", 1)[1])
    num = lambda v: (isinstance(v, (int, float)) and not isinstance(v, bool)
                     and v == v)
    pos = lambda v: num(v) and v > 0
    row = lambda r: (isinstance(r.get("w"), int)
                     and isinstance(r.get("chunk"), int)
                     and all(num(r.get(k)) for k in (
                         "rackweave_steps_per_s", "reference_steps_per_s",
                         "ratio", "ratio_iqr", "chunk_ns"))
                     and pos(r["ratio"]) and pos(r["rackweave_steps_per_s"])
                     and pos(r["reference_steps_per_s"])
                     and r["ratio_iqr"] >= 0)
    b = d.get("breakdown", {})
    return (pos(d.get("path_ratio_w4_32k")),
            len(d.get("rows", [])) == rows and all(row(r) for r in d["rows"]),
            b.get("w") == 4 and b.get("chunk") == 32768
            and num(b.get("gate_ns")) and b["gate_ns"] >= 0
            and b.get("traced_pushes", 0) > 0
            and all(pos(b.get(k)) for k in (
                "ioctl_to_queued_ns", "queued_to_running_ns",
                "aggregation_ns", "publish_to_woken_ns")),
            all(r.get("same_result") is True for r in d.get("rows", [])))


def main():
    args = sys.argv[1:]
    rows = None
    if args[0] == "--check":
        rows = int(args[1])
        args = args[2:]
    mib = int(args[1])
    out = {"model_mib": mib, "rows": rows_of(args[0], mib)}
    for r in out["rows"]:
        if r["w"] == 4 and r["chunk"] == 32768:
            out["path_ratio_w4_32k"] = r["ratio"]
    if len(args) > 4:
        out["breakdown"] = breakdown(args[2], int(args[3]), int(args[4]))
    line = "BENCH-JSON " + json.dumps(out)
    print(line)
    if rows is not None:
        print("CHECKS", *check(line, rows))


main()
