#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""boxes-bench-json: scripts/bench-boxes' figures (docs/performance.md, "Many boxes").

  boxes-bench-json.py run DIR ROLES ITERS SCALE
      one run's row (one N) from what tests/bench/boxes-bench.sh left in the
      group's shared directory DIR: each box's DIR/boxI/JOB-{topo,listen,
      stats,job}.json and the trainers' DIR/worker/JOB-rR.log ("timed S E");
      ROLES is RW_CLUSTER_ROLES. One JSON object on stdout.
  boxes-bench-json.py combine OWNER_TXT KERNEL ROW_FILE...
      the benchmark's JSON from the rows (each file one row) and
      test-chunk-owner's output; ratios to the one-box row. Exits 1 if a
      box counted a control message while the job trained, or a box was
      pushed other chunks than its own, after printing the object.
  boxes-bench-json.py text < JSON
      the object as a table.
"""
import json
import math
import os
import re
import sys

CHUNK = 4096
MOVED_NOTE = ("the 3-box group's job bm: a third box added to two at a run's end, then "
              "one of the three drained, the chunks moving box to box; the fraction is "
              "the chunks the boxes took (their moved_in) over the model's, ideal 1/3 "
              "each; owner_moved_* are the owner function's own figures for 4096 chunks")
MOVED_NONE = "only the 3-box group moves a job"


def load(path):
    with open(path) as f:
        return json.load(f)


def timed(path):
    with open(path) as f:
        for ln in f:
            m = re.match(r"^timed (\d+) (\d+)$", ln.strip())
            if m:
                return int(m.group(1)), int(m.group(2))
    raise ValueError("%s: no 'timed' line" % path)


def rxe(path):
    """soft-RoCE's counters from `rdma -j statistic show` (empty if absent);
    cumulative since the device was added."""
    try:
        d = load(path)
    except (OSError, ValueError):
        return {}
    d = d[0] if isinstance(d, list) and d else d
    return {k: v for k, v in d.items() if isinstance(v, int)} if isinstance(d, dict) else {}


def job_row(d, job, boxes, iters, scale):
    per_box = []
    # The model as the boxes' module laid it out (job show).
    j0 = load(os.path.join(d, boxes[0], job + "-job.json"))["jobs"][0]
    mbytes, chunks = j0["model_bytes"], j0["chunks"]
    for b in boxes:
        pre = os.path.join(d, b, job + "-")
        topo, listen = load(pre + "topo.json"), load(pre + "listen.json")
        stats, jobj = load(pre + "stats.json"), load(pre + "job.json")
        bs = topo.get("box_set")
        if bs:
            me = [x for x in bs["boxes"] if x["self"]]
            if len(me) != 1:
                raise ValueError("%s: topo show names %d boxes as this one" % (b, len(me)))
            me = me[0]
            box_id, owned_chunks, owned_bytes = me["id"], me["chunks"], me["bytes"]
            if sum(x["chunks"] for x in bs["boxes"]) != chunks or \
               sum(x["bytes"] for x in bs["boxes"]) != mbytes:
                raise ValueError("%s: the set's shares add up to %d chunks, %d bytes, not "
                                 "the model's %d and %d" %
                                 (b, sum(x["chunks"] for x in bs["boxes"]),
                                  sum(x["bytes"] for x in bs["boxes"]), chunks, mbytes))
        else:
            box_id, owned_chunks, owned_bytes = None, chunks, mbytes
        conns = [c for c in listen["connections"] if c["job"] == job]
        tot = stats["totals"]
        per_box.append({
            "box": b, "id": box_id, "owned_chunks": owned_chunks, "owned_bytes": owned_bytes,
            "grad_bytes": tot["bytes"], "grad_chunks": tot["chunks"],
            "connections": len(conns), "pushes": sum(c["pushes"] for c in conns),
            "writes": sum(c["writes"] for c in conns),
            "messages": sum(c["messages"] for c in conns),
            # Each connection's setup and its reply are its two messages;
            # anything beyond them is a request or an answer.
            "control_messages": sum(c["messages"] - 2 for c in conns),
            "memory": jobj["jobs"][0]["memory"],
            "rxe": rxe(pre + "rxe.json"),
        })
    owned = [p["owned_bytes"] for p in per_box]
    ownc = [p["owned_chunks"] for p in per_box]
    pushed = sum(p["pushes"] for p in per_box)
    ctl = sum(p["control_messages"] for p in per_box)
    t = [timed(os.path.join(d, "worker", "%s-r%d.log" % (job, r))) for r in (0, 1)]
    secs = (max(e for _, e in t) - max(s for s, _ in t)) / 1e9
    return {
        "boxes": len(boxes), "set": bool(per_box[0]["id"]), "iters": iters, "scale": scale,
        "chunk_size": CHUNK, "chunks": chunks, "model_bytes": mbytes,
        "per_box": per_box,
        "balance": max(owned) / (sum(owned) / len(owned)),
        "balance_chunks": max(ownc) / (sum(ownc) / len(ownc)),
        "memory_max": max(p["memory"] for p in per_box),
        "memory_sum": sum(p["memory"] for p in per_box),
        "chunks_pushed": pushed,
        # Every box took its own chunks of every iteration from both ranks,
        # and no other: by its connections' count and by its stats, chunks
        # and bytes.
        "pushes_as_owned": all(p["pushes"] == p["owned_chunks"] * iters * 2 and
                               p["grad_chunks"] == p["pushes"] and
                               p["grad_bytes"] == p["owned_bytes"] * iters * 2
                               for p in per_box),
        "control_messages": ctl,
        "control_messages_per_chunk": ctl / pushed if pushed else None,
        "worker_rxe": rxe(os.path.join(d, "worker", job + "-rxe.json")),
        "train_seconds": secs,
        "goodput_gbps": mbytes * iters * 2 * 8 / secs / 1e9 if secs > 0 else None,
    }


def moved_in(d, boxes, epoch):
    """The chunks the boxes took in bm's moves, up to the one to EPOCH."""
    n = 0
    for b in boxes:
        st = load(os.path.join(d, b, "bm-moved-%d.json" % epoch))
        n += st["totals"].get("moved_in", 0)
    return n


def moved_row(d, boxes, chunks):
    if not os.path.exists(os.path.join(d, boxes[0], "bm-moved-3.json")):
        return {"moved_fraction_add": None, "moved_fraction_drain": None,
                "moved_note": MOVED_NONE}
    add = moved_in(d, boxes, 2)
    drain = moved_in(d, boxes, 3) - add
    return {"moved_add": add, "moved_drain": drain,
            "moved_fraction_add": add / chunks, "moved_fraction_drain": drain / chunks,
            "moved_fraction_ideal": 1 / 3, "moved_note": MOVED_NOTE}


def run(d, roles, iters, scale):
    boxes = [r for r in roles.split() if r.startswith("box")]
    row = job_row(d, "bx", boxes, iters, scale)
    row.update(moved_row(d, boxes, row["chunks"]))
    if len(boxes) == 1 and os.path.exists(os.path.join(d, boxes[0], "bxw-topo.json")):
        w = job_row(d, "bxw", boxes, iters, scale)
        row["whole"] = {k: w[k] for k in ("memory_max", "chunks_pushed", "pushes_as_owned",
                                          "control_messages", "control_messages_per_chunk",
                                          "train_seconds", "goodput_gbps")}
    print(json.dumps(row))


def owner_figures(path):
    with open(path) as f:
        txt = f.read()
    m = re.search(r"# moved of (\d+) chunks: (\d+) adding a 4th box to 3 \(ideal (\d+)\), "
                  r"(\d+) draining one of 4 \((\d+)\), (\d+) draining one of 8 \((\d+)\)", txt)
    if not m:
        raise ValueError("%s: no '# moved of' line" % path)
    n, add, iadd, d4, id4, d8, id8 = (int(x) for x in m.groups())
    out = {"owner_chunks": n}
    for k, v, i in (("add_4th", add, iadd), ("drain_1_of_4", d4, id4),
                    ("drain_1_of_8", d8, id8)):
        out["owner_moved_" + k] = v
        out["owner_moved_" + k + "_ideal"] = i
        out["owner_moved_fraction_" + k] = v / n
    return out


def ratio(a, b):
    return a / b if a is not None and b else None


def combine(owner, kernel, files):
    runs = sorted((load(f) for f in files), key=lambda r: r["boxes"])
    base = next((r for r in runs if r["boxes"] == 1), None)
    for r in runs:
        r["memory_ratio_to_1"] = ratio(r["memory_max"], base and base["memory_max"])
        r["memory_sum_ratio_to_1"] = ratio(r["memory_sum"], base and base["memory_max"])
        r["goodput_ratio_to_1"] = ratio(r["goodput_gbps"], base and base["goodput_gbps"])
    moved = next((r for r in runs if r.get("moved_fraction_add") is not None), {})
    per = [r["control_messages_per_chunk"] for r in runs]
    per += [r["whole"]["control_messages_per_chunk"] for r in runs if "whole" in r]
    out = {
        "setup": "N box VMs and a worker VM on one segment, 1 vCPU and 1 GiB each, "
                 "the host's 2 cores shared",
        "kernel": kernel, "boxes": [r["boxes"] for r in runs],
        "iters": runs[0]["iters"] if runs else None,
        "scale": runs[0]["scale"] if runs else None,
        "chunks": runs[0]["chunks"] if runs else None,
        "model_bytes": runs[0]["model_bytes"] if runs else None,
        "balance_max": max((r["balance"] for r in runs), default=None),
        "max_control_messages_per_chunk":
            None if any(p is None for p in per) else max(per, default=None),
        "pushes_as_owned": all(r["pushes_as_owned"] for r in runs),
        "memory_ratio_to_1": {str(r["boxes"]): r["memory_ratio_to_1"] for r in runs},
        "goodput_ratio_to_1": {str(r["boxes"]): r["goodput_ratio_to_1"] for r in runs},
        "moved_fraction_add": moved.get("moved_fraction_add"),
        "moved_fraction_drain": moved.get("moved_fraction_drain"),
        "moved_fraction_ideal": moved.get("moved_fraction_ideal"),
        "moved_note": moved.get("moved_note", MOVED_NONE),
        "runs": runs,
    }
    out.update(owner_figures(owner))
    print(json.dumps(out))
    bad = out["max_control_messages_per_chunk"]
    return 0 if bad == 0 and out["pushes_as_owned"] else 1


def f(x, fmt="%.3f"):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt % x


def text(d):
    print("A job over N boxes (%s; %s kernel): %d iterations of %d bytes in %d chunks of "
          "4 KiB, two ranks, SGD" % (d["setup"], d["kernel"], d["iters"], d["model_bytes"],
                                     d["chunks"]))
    print()
    print("%5s  %-22s %8s %8s  %-9s %8s %7s %9s %7s" %
          ("boxes", "owned chunks per box", "balance", "ctl/chk", "memory", "mem/1",
           "secs", "goodput", "gp/1"))
    for r in d["runs"]:
        print("%5d  %-22s %8s %8s  %-9d %8s %7s %9s %7s" %
              (r["boxes"], "/".join(str(p["owned_chunks"]) for p in r["per_box"]),
               f(r["balance"]), f(r["control_messages_per_chunk"], "%.2f"), r["memory_max"],
               f(r.get("memory_ratio_to_1")), f(r["train_seconds"], "%.2f"),
               f(r["goodput_gbps"]), f(r.get("goodput_ratio_to_1"))))
        if "whole" in r:
            w = r["whole"]
            print("%5s  %-22s %8s %8s  %-9d %8s %7s %9s %7s" %
                  ("1", "(whole job, no set)", "-", f(w["control_messages_per_chunk"], "%.2f"),
                   w["memory_max"], "-", f(w["train_seconds"], "%.2f"),
                   f(w["goodput_gbps"]), "-"))
    print()
    print("judged: balance (max/mean owned bytes) at most %s, control messages per chunk "
          "%s (must be 0), every box pushed exactly its own chunks: %s"
          % (f(d["balance_max"]), f(d["max_control_messages_per_chunk"], "%.2f"),
             "yes" if d["pushes_as_owned"] else "NO"))
    print("reported only: goodput (Gb/s of gradients, both ranks), N + 1 VMs on 2 shared "
          "cores; memory is the largest box's charge")
    print("moved between runs of a job, box to box: add %s, drain %s of the chunks "
          "(ideal %s): %s" % (f(d.get("moved_fraction_add")), f(d.get("moved_fraction_drain")),
                              f(d.get("moved_fraction_ideal")), d["moved_note"]))
    print("owner function, %d chunks: %d moved adding a 4th box to 3 (ideal %d), %d draining "
          "one of 4 (%d), %d draining one of 8 (%d)"
          % (d["owner_chunks"], d["owner_moved_add_4th"], d["owner_moved_add_4th_ideal"],
             d["owner_moved_drain_1_of_4"], d["owner_moved_drain_1_of_4_ideal"],
             d["owner_moved_drain_1_of_8"], d["owner_moved_drain_1_of_8_ideal"]))


def main(a):
    if len(a) == 5 and a[0] == "run":
        run(a[1], a[2], int(a[3]), int(a[4]))
        return 0
    if len(a) >= 4 and a[0] == "combine":
        return combine(a[1], a[2], a[3:])
    if a == ["text"]:
        text(json.load(sys.stdin))
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
