#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The JSON of scripts/bench-wire from the lines its guest scripts collect
(tests/bench/wire-bench.sh in one VM, wire-bench-2vm.sh across two):
  ibw NAME GBPS                      ib_write_bw's average (before, after, bidir,
                                     or W.CHUNK: W QPs, CHUNK-byte messages)
  run W CHUNK bench KEY VALUE ...    one bench worker's line (tests/vm/wire-peer)
  round K 1 32768 bench KEY VALUE ... the worker's line of headline round K >= 2
                                     (between ibw midK-1, or before, and midK,
                                     or after)
  conns W CHUNK N PUSHES MESSAGES    the box's counters of that run's connections
  mrun W CHUNK mbench KEY VALUE ...  one module worker's line (tests/vm/wire-modbench)
  mround K 1 32768 mbench KEY VALUE ... the module worker's line of headline round K >= 2
  mconns W CHUNK N PUSHES MESSAGES   the box's counters of a module run's connections
Prints one line "BENCH-JSON {...}"; the keys are scripts/bench-wire's. The
unprefixed figures are wire-peer's (raw user verbs), the module_ ones the
module worker's ("key_prefixes" in the JSON says so).

  wire-bench-json.py RESULTS [SETUP]   the JSON ("setup": SETUP, one-vm)
  wire-bench-json.py conns LISTEN_JSON JOB W CHUNK
                                       the conns line of JOB's connections
                                       from `rwctl -j listen show`
  wire-bench-json.py text              that JSON (stdin, with or without
                                       its "BENCH-JSON " prefix) as the
                                       table scripts/bench-wire prints"""
import json, statistics, sys


def text(d):
    bidir = d["ib_write_bw_bidir_gbps"]
    f = lambda v, fmt: "-" if v is None else fmt % v
    print("setup: %s" % d.get("setup", "one-vm"))
    h = d.get("headline_rounds", [])
    print("ib_write_bw, 32 KiB, 1 QP: %.3f Gb/s one way (%s %.3f, %s %.3f), %s both ways"
          % (d["ib_write_bw_gbps"],
             "the rounds' median; first" if len(h) > 1 else "before",
             d["ib_write_bw_before_gbps"], "last" if len(h) > 1 else "after",
             d["ib_write_bw_after_gbps"], "no figure" if bidir is None else "%.3f" % bidir))
    print("%8s %8s %10s %10s %10s %10s %10s %6s %8s %6s %6s" % (
        "workers", "chunk", "push", "pull", "pushpull", "s-push", "s-pushpull",
        "meta", "link", "push/", "pp/"))
    for r in d["runs"]:
        print("%8d %8d %10.3f %10.3f %10.3f %10.3f %10.3f %6.2f %8s %6s %6s" % (
            r["workers"], r["chunk_size"], r["push_goodput_gbps"],
            r["pull_goodput_gbps"], r["pushpull_goodput_gbps"],
            r["stream_push_goodput_gbps"], r["stream_pushpull_goodput_gbps"],
            r["metadata_messages_per_chunk"], f(r.get("ib_write_bw_gbps"), "%.3f"),
            f(r.get("push_ratio_to_ib_write_bw"), "%.2f"),
            f(r.get("pushpull_ratio_to_ib_write_bw"), "%.2f")))
    print("(wire-peer, raw user verbs; link: ib_write_bw with as many QPs as workers"
          " and the run's chunk size; push/ and pp/: push and pushpull against it)")
    mod = [r for r in d["runs"] if "module_pull_goodput_gbps" in r]
    if mod:
        print("the module worker (rw_attach_remote through the worker host's rackweave.ko):")
        print("%8s %8s %10s %10s %10s %6s %8s %6s %6s" % (
            "workers", "chunk", "push", "pull", "pushpull", "meta", "link", "push/", "pp/"))
        for r in mod:
            print("%8d %8d %10s %10.3f %10.3f %6.2f %8s %6s %6s" % (
                r["workers"], r["chunk_size"], f(r["module_push_goodput_gbps"], "%.3f"),
                r["module_pull_goodput_gbps"], r["module_pushpull_goodput_gbps"],
                r["module_metadata_messages_per_chunk"], f(r.get("ib_write_bw_gbps"), "%.3f"),
                f(r.get("module_push_ratio_to_ib_write_bw"), "%.2f"),
                f(r.get("module_pushpull_ratio_to_ib_write_bw"), "%.2f")))
    if len(h) > 1:
        for p, who in (("", "wire-peer"), ("module_", "module worker")):
            for m in ("push", "pushpull"):
                if p + m + "_ratio_to_ib_write_bw" in h[0]:
                    print("%s, %s by round (each against the links either side): %s" % (
                        who, m, " ".join(f(e[p + m + "_ratio_to_ib_write_bw"], "%.2f")
                                         for e in h)))
    if "module_push_ratio_to_ib_write_bw_32k" in d:
        print("the module worker's ratios to ib_write_bw at 32 KiB, 1 worker%s: push %s, pull %s, pushpull %s"
              % (" (median of %d rounds)" % len(h) if len(h) > 1 else "",
                 f(d["module_push_ratio_to_ib_write_bw_32k"], "%.2f"),
                 f(d["module_pull_ratio_to_ib_write_bw_32k"], "%.2f"),
                 f(d["module_pushpull_ratio_to_ib_write_bw_32k"], "%.2f")))
    print("ratios to ib_write_bw at 32 KiB, 1 worker%s: push %.2f, pull %.2f, pushpull %.2f"
          % (" (median of %d rounds)" % len(h) if len(h) > 1 else "",
             d["push_ratio_to_ib_write_bw_32k"], d["pull_ratio_to_ib_write_bw_32k"],
             d["pushpull_ratio_to_ib_write_bw_32k"]))


if sys.argv[1] == "text":
    line = sys.stdin.read().strip()
    text(json.loads(line[len("BENCH-JSON "):] if line.startswith("BENCH-JSON ") else line))
    sys.exit(0)
if sys.argv[1] == "conns":
    c = [x for x in json.load(open(sys.argv[2]))["connections"]
         if x["job"] == sys.argv[3]]
    print("conns", sys.argv[4], sys.argv[5], len(c), sum(x["pushes"] for x in c),
          sum(x["messages"] for x in c))
    sys.exit(0)
ibws, runs, conns, rounds = {}, {}, {}, {}
mruns, mrounds, mconns = {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "mrun":
        mruns.setdefault((int(f[1]), int(f[2])), []).append(dict(zip(f[4::2], f[5::2])))
    elif f[0] == "mround":
        mrounds[int(f[1])] = dict(zip(f[5::2], f[6::2]))
    elif f[0] == "mconns":
        mconns[(int(f[1]), int(f[2]))] = [int(x) for x in f[3:]]
    elif f[0] == "ibw":
        ibws[f[1]] = float(f[2])
    elif f[0] == "run":
        d = dict(zip(f[4::2], f[5::2]))
        runs.setdefault((int(f[1]), int(f[2])), []).append(d)
    elif f[0] == "round":
        rounds[int(f[1])] = dict(zip(f[5::2], f[6::2]))
    elif f[0] == "conns":
        conns[(int(f[1]), int(f[2]))] = [int(x) for x in f[3:]]


def goodputs(ranks):
    """Gb/s of payload of one run's workers (their bench lines)."""
    b = sum(int(r["bytes"]) for r in ranks)
    it = int(ranks[0]["iters"])
    g = lambda k, n: 8 * b * n / max(float(r[k]) for r in ranks) / 1e9
    # A run without a stream reports its iterations there.
    si = int(ranks[0]["stream_iters"]) or it
    return b, {"push_goodput_gbps": g("push_s", it),
               "pull_goodput_gbps": g("pull_s", 1),
               "pushpull_goodput_gbps": g("pushpull_s", it),
               "stream_push_goodput_gbps": g("stream_push_s", si),
               "stream_pushpull_goodput_gbps": g("stream_pushpull_s", si)}


def mgoodputs(ranks):
    """Gb/s of payload of one run's module workers (their mbench lines)."""
    b = sum(int(r["bytes"]) for r in ranks)
    it = int(ranks[0]["iters"])
    g = lambda k, n: 8 * b * n / max(float(r[k]) for r in ranks) / 1e9
    return {"module_push_goodput_gbps": g("push_s", it),
            "module_pull_goodput_gbps": g("pull_s", 1),
            "module_pushpull_goodput_gbps": g("pushpull_s", it)}


def set_link(e, link):
    """Entry @e's link (None: not measured) and its goodputs against it,
    wire-peer's and, if it has them, the module worker's."""
    e["ib_write_bw_gbps"] = link
    for p in ("", "module_"):
        for m in ("push", "pull", "pushpull"):
            if p + m + "_goodput_gbps" in e:
                v = e[p + m + "_goodput_gbps"]
                e[p + m + "_ratio_to_ib_write_bw"] = v / link if link and v is not None else None
    return e


def med(v):
    """The median of @v, None if any is None (or there are none)."""
    return None if not v or None in v else statistics.median(v)


# The headline's rounds: round 1 is the (1, 32768) run, each later one a
# "round" line; each is set against the mean of the links on either side.
head_links = [ibws["before"]] + [ibws["mid%d" % k] for k in range(1, len(rounds) + 1)
                                 if "mid%d" % k in ibws] + [ibws["after"]]
ibw = (ibws["before"] + ibws["after"]) / 2
hrounds = []
if (1, 32768) in runs:
    lines = [runs[(1, 32768)][0]] + [rounds[k] for k in sorted(rounds)]
    if len(head_links) != len(lines) + 1:
        sys.exit("wire-bench-json: %d headline rounds but %d links around them"
                 % (len(lines), len(head_links)))
    mlines = ([mruns[(1, 32768)][0]] + [mrounds[k] for k in sorted(mrounds)]
              if (1, 32768) in mruns else [])
    if mlines and len(mlines) != len(lines):
        sys.exit("wire-bench-json: %d headline rounds but %d of the module worker"
                 % (len(lines), len(mlines)))
    for k, line in enumerate(lines):
        e = dict(round=k + 1, **goodputs([line])[1])
        if mlines:
            e.update(mgoodputs([mlines[k]]))
        hrounds.append(set_link(e, (head_links[k] + head_links[k + 1]) / 2))
    ibw = statistics.median(e["ib_write_bw_gbps"] for e in hrounds)
out = {"setup": sys.argv[2] if len(sys.argv) > 2 else "one-vm",
       "key_prefixes": {
           "": "wire-peer: tests/vm/wire-peer's bench mode, a worker of raw user verbs",
           "module_": "module worker: tests/vm/wire-modbench, a trainer through librackweave's"
                      " rw_attach_remote and the worker host's own rackweave.ko"},
       "ib_write_bw_gbps": ibw, "ib_write_bw_before_gbps": ibws["before"],
       "ib_write_bw_after_gbps": ibws["after"],
       "ib_write_bw_bidir_gbps": ibws.get("bidir"), "runs": [],
       "headline_rounds": hrounds}
meta = 0.0
mmeta = None
for (w, cs), ranks in sorted(runs.items()):
    b, gp = goodputs(ranks)
    n, pushes, msgs = conns.get((w, cs), [0, 0, 0])
    m = (msgs - 2 * n) / pushes if pushes else float("nan")
    meta = max(meta, m)
    out["runs"].append(dict({"workers": w, "chunk_size": cs, "model_bytes": b // w},
                            **gp, connections=n, pushes=pushes, messages=msgs,
                            metadata_messages_per_chunk=m))
    if (w, cs) in mruns:
        n, pushes, msgs = mconns.get((w, cs), [0, 0, 0])
        m = (msgs - 2 * n) / pushes if pushes else float("nan")
        mmeta = m if mmeta is None else max(mmeta, m)
        out["runs"][-1].update(mgoodputs(mruns[(w, cs)]),
                               module_connections=n, module_pushes=pushes,
                               module_messages=msgs,
                               module_metadata_messages_per_chunk=m)
    # The link with as many QPs and this chunk size (--full measures it just
    # before the run; the headline run has its before and after).
    set_link(out["runs"][-1], hrounds[0]["ib_write_bw_gbps"] if (w, cs) == (1, 32768)
             else ibws.get("%d.%d" % (w, cs)))
# The headline: each figure the median of the rounds' (one round: its own).
if hrounds:
    for k in ("push_goodput_gbps", "pull_goodput_gbps", "pushpull_goodput_gbps",
              "stream_push_goodput_gbps", "stream_pushpull_goodput_gbps"):
        out[k] = statistics.median(e[k] for e in hrounds)
    for m in ("push", "pull", "pushpull"):
        out[m + "_ratio_to_ib_write_bw_32k"] = statistics.median(
            e[m + "_ratio_to_ib_write_bw"] for e in hrounds)
    if "module_pull_goodput_gbps" in hrounds[0]:
        for m in ("push", "pull", "pushpull"):
            out["module_" + m + "_goodput_gbps"] = med(
                [e["module_" + m + "_goodput_gbps"] for e in hrounds])
            out["module_" + m + "_ratio_to_ib_write_bw_32k"] = med(
                [e["module_" + m + "_ratio_to_ib_write_bw"] for e in hrounds])
out["metadata_messages_per_chunk"] = meta
if mmeta is not None:
    out["module_metadata_messages_per_chunk"] = mmeta
print("BENCH-JSON " + json.dumps(out))
