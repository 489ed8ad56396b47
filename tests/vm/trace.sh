#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# The rackweave trace events (kmod/trace.h) while jobs train, and
# scripts/rw-timeline on the capture.
#
#   1. Two local trainers (wire-local) of a BSP job, rank 1 started once
#      rank 0 waits in the gate for it: every worker's push of every chunk
#      of every iteration is traced with its iteration, every chunk steps
#      once per iteration with both ranks summed and its version published,
#      rank 0's gate wait ends in a release, both attach and detach; every
#      push is taken off its core's queue (rw_arrive) after it was queued,
#      and lies inside its trainer's pushpull ioctl (rw_xfer, rw_xfer_done).
#   2. A job with evict-ms 1000 whose rank 1 is stopped (SIGSTOP) mid-run:
#      its eviction is traced.
#   3. Over soft-RoCE, a remote worker (wire-peer, raw verbs) and a local
#      one: the box traces each chunk that came over the wire and each
#      parameter write back; a peer sending a bad immediate is traced as a
#      wire error.
#   4. With the events disabled, training leaves nothing in the trace; perf
#      stat counts them (as many steps as pushes for one worker).
#   5. rw-timeline turns the capture of 1 into Chrome trace JSON: a lane per
#      rank, a step slice per chunk per iteration, timestamps in order.
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing
ITERS=4

rw_wire_up $BOX
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
head -c 32 /dev/urandom >"$RW_OUT/token"
mountpoint -q $T || mount -t tracefs nodev $T
t_ok "the rackweave events are in tracefs" test -d $T/events/rackweave/rw_step

# trace_on [EVENT...]: a fresh buffer, and the rackweave events on (all
# of them, or those named).
trace_on() {
	local e
	echo 0 >$T/tracing_on
	echo >$T/trace
	if [ $# = 0 ]; then
		echo 1 >$T/events/rackweave/enable
	else
		for e in "$@"; do
			echo 1 >$T/events/rackweave/$e/enable
		done
	fi
	echo 1 >$T/tracing_on
}
trace_off() {
	echo 0 >$T/events/rackweave/enable
	cat $T/trace >"$RW_OUT/$1"
}
job() {
	"$RWCTL" job add "$@" chunk-size 4096 optim sgd lr 0.5 \
		token-file "$RW_OUT/token"
}
# chunks JOB: the running job's chunk count.
chunks() { "$RWCTL" -j job show "$1" | jpy 'd["jobs"][0].get("chunks", 0)'; }

# --- 1. two local trainers ---
t_ok "job add tj workers 2" job tj workers 2
trace_on
"$LOCAL" tj "$RW_OUT/token" 0 2 $ITERS >"$RW_OUT/tj-0.log" 2>&1 &
p0=$!
# Rank 0 pushes its first iteration and parks in the gate for rank 1.
n=0
for _ in $(seq 100); do
	grep -q "rw_gate_wait: job=tj rank=0" $T/trace && n=$(chunks tj) && break
	sleep 0.2
done
"$LOCAL" tj "$RW_OUT/token" 1 2 $ITERS >"$RW_OUT/tj-1.log" 2>&1 &
p1=$!
wait $p0 $p1
sleep 0.5
trace_off tj.txt
t_eq "both trained exactly" "trained $ITERS exact trained $ITERS exact" \
	"$(for r in 0 1; do tail -n 1 "$RW_OUT/tj-$r.log" | cut -d' ' -f1-3; done | tr '\n' ' ' | sed 's/ $//')"
echo "# tj: $n chunks, $(grep -c ': rw_' "$RW_OUT/tj.txt") events"

# check WHAT: the capture of part 1 against what the trainers did.
check() {
	/usr/bin/python3 - "$RW_OUT/tj.txt" "$n" $ITERS "$1" <<'PY'
import re, sys
path, nchunks, iters, what = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ev, evp = [], []
for line in open(path):
    m = re.search(r"-(\d+)\s+\[\d+\].*?\s(\d+\.\d+): (rw_\w+): (.*)$", line)
    if m:
        f = dict(re.findall(r"(\w+)=(\S+)", m.group(4)))
        if f.get("job") == "tj":
            ev.append((float(m.group(2)), m.group(3), f))
            evp.append((float(m.group(2)), m.group(3), f, m.group(1)))
def of(name):
    return [f for _, e, f in ev if e == name]
want = sorted((r, c, i) for r in (0, 1) for c in range(nchunks) for i in range(iters))
bad = None
if nchunks < 2:
    bad = "no chunk count (%d)" % nchunks
elif what == "push":
    got = sorted((int(f["rank"]), int(f["chunk"]), int(f["iter"])) for f in of("rw_push"))
    bad = got != want and "pushes %d, wanted %d" % (len(got), len(want))
elif what == "step":
    got = sorted((int(f["chunk"]), int(f["iter"]), int(f["version"])) for f in of("rw_step"))
    want = sorted((c, i, i + 1) for c in range(nchunks) for i in range(iters))
    bad = got != want and "steps %s..., wanted %s..." % (got[:3], want[:3])
    bad = bad or any(f["nsum"] != "2" or f["optim"] != "sgd" for f in of("rw_step")) and "nsum/optim"
elif what == "publish":
    got = sorted((int(f["chunk"]), int(f["version"])) for f in of("rw_publish"))
    want = sorted((c, i + 1) for c in range(nchunks) for i in range(iters))
    bad = got != want and "publishes %d, wanted %d" % (len(got), len(want))
elif what == "order":
    # Each chunk's step of iteration i follows both pushes of iteration i.
    seen = {}
    for t, e, f in ev:
        if e == "rw_push":
            seen.setdefault((f["chunk"], f["iter"]), set()).add(f["rank"])
        elif e == "rw_step" and seen.get((f["chunk"], f["iter"])) != {"0", "1"}:
            bad = "chunk %s stepped iteration %s before both pushes" % (f["chunk"], f["iter"])
            break
elif what == "gate":
    w = [f for f in of("rw_gate_wait") if f["rank"] == "0"]
    r = [f for f in of("rw_gate_release") if f["rank"] == "0" and f["ret"] == "0"]
    bad = not (w and r and w[0]["clock"] == "1" and w[0]["bound"] == "1") and \
        "rank 0 waits %s, releases %s" % (w[:1], r[:1])
elif what == "arrive":
    # Each push is taken off its core's queue once, after it was queued.
    pushes, arrives = {}, {}
    for t, e, f in ev:
        if e in ("rw_push", "rw_arrive"):
            (pushes if e == "rw_push" else arrives).setdefault(
                (f["rank"], f["chunk"]), []).append(t)
    bad = sorted(pushes) != sorted(arrives) and "arrivals %d, pushes %d" % (len(arrives), len(pushes))
    bad = bad or any(len(pushes[k]) != len(arrives[k]) or
                     any(a < p for p, a in zip(pushes[k], arrives[k])) for k in pushes) and \
        "an arrival before its push, or a count that differs"
    bad = bad or len(pushes) != 2 * nchunks and "pushes of %d (rank, chunk)" % len(pushes)
elif what == "xfer":
    # Each trainer's pushpulls (op 3, all chunks) enter and return 0, and
    # every push of theirs happens inside one of them, on its own task.
    x = [(t, e, f, pid) for t, e, f, pid in evp if e in ("rw_xfer", "rw_xfer_done")]
    ent = [f for _, e, f, _ in x if e == "rw_xfer"]
    ret = [f for _, e, f, _ in x if e == "rw_xfer_done"]
    bad = (len(ent), len(ret)) != (2 * iters, 2 * iters) and "%d entries, %d returns" % (len(ent), len(ret))
    bad = bad or any(f["op"] != "3" or f["nr"] != "0" for f in ent) and "entries %s" % ent[:2]
    bad = bad or any(f["op"] != "3" or f["ret"] != "0" for f in ret) and "returns %s" % ret[:2]
    inside = {}
    for t, e, f, pid in evp:
        if e == "rw_xfer":
            inside[pid] = True
        elif e == "rw_xfer_done":
            inside[pid] = False
        elif e == "rw_push" and not inside.get(pid):
            bad = bad or "a push outside its worker's ioctl"
elif what == "members":
    a = sorted(f["rank"] for f in of("rw_attach"))
    d = sorted(f["rank"] for f in of("rw_detach"))
    bad = (a, d) != (["0", "1"], ["0", "1"]) and "attach %s detach %s" % (a, d)
if bad:
    sys.exit(bad)
PY
}
t_ok "rw_push: every rank, chunk and iteration once, with its iteration" check push
t_ok "rw_step: every chunk once per iteration, 2 ranks summed, sgd, versions 1..$ITERS" check step
t_ok "rw_publish: every new version" check publish
t_ok "... each step after both of its pushes" check order
t_ok "rw_gate_wait and rw_gate_release: rank 0 parked at clock 1 for bound 1, released" check gate
t_ok "rw_attach and rw_detach: ranks 0 and 1" check members
t_ok "rw_arrive: every push taken off its core's queue once, after it was queued" check arrive
t_ok "rw_xfer and rw_xfer_done: each pushpull enters and returns 0, the pushes inside" check xfer

# --- 2. an eviction ---
# Only rw_evict is on: the trainers step thousands of times, and a
# buffer full of their events is slow to read back in a polling loop.
t_ok "job add te workers 2 evict-ms 1000" job te workers 2 evict-ms 1000
trace_on rw_evict
WIRE_LOCAL_TIMEOUT_MS=0 "$LOCAL" te "$RW_OUT/token" 0 2 100000 >"$RW_OUT/te-0.log" 2>&1 &
p0=$!
"$LOCAL" te "$RW_OUT/token" 1 2 100000 >"$RW_OUT/te-1.log" 2>&1 &
p1=$!
for _ in $(seq 100); do
	[ "$(rw_steps te)" -gt 0 ] 2>/dev/null && break
	sleep 0.2
done
kill -STOP $p1
for _ in $(seq 100); do
	grep -q "rw_evict: job=te rank=1" $T/trace && break
	sleep 0.2
done
trace_off te.txt
kill -9 $p0 $p1
wait $p0 $p1 2>/dev/null
t_ok "rw_evict: the stopped rank 1 evicted" grep -q "rw_evict: job=te rank=1$" "$RW_OUT/te.txt"

# --- 3. over the wire ---
t_ok "job add tw workers 2" job tw workers 2
trace_on
"$PEER" $BOX $BOX $PORT "$($REQ tw "$RW_OUT/token" 1)" train 1 2 2 >"$RW_OUT/tw-1.log" 2>&1 &
p1=$!
"$LOCAL" tw "$RW_OUT/token" 0 2 2 >"$RW_OUT/tw-0.log" 2>&1
wait $p1
"$PEER" $BOX $BOX $PORT "$($REQ tw "$RW_OUT/token" 1)" train 1 2 2 bad-imm \
	>"$RW_OUT/tw-bad.log" 2>&1
trace_off tw.txt
t_eq "the remote worker trained exactly" "trained 2 exact" \
	"$(tail -n 1 "$RW_OUT/tw-1.log" | cut -d' ' -f1-3)"
t_ok "rw_wire_push: rank 1's chunks came over the wire, iterations 0 and 1" \
	sh -c "grep -q 'rw_wire_push: job=tw rank=1 chunk=0 clock=0' '$RW_OUT/tw.txt' &&
		grep -q 'rw_wire_push: job=tw rank=1 chunk=0 clock=1' '$RW_OUT/tw.txt'"
t_ok "rw_wire_write: parameters written back to rank 1" \
	grep -q "rw_wire_write: job=tw rank=1 chunk=0 " "$RW_OUT/tw.txt"
t_ok "rw_wire_error: the bad immediate" \
	grep -q 'rw_wire_error: job=tw rank=1 what="bad immediate" status=-71' "$RW_OUT/tw.txt"
t_ok "rw_push: the wire's pushes go through the same path" \
	grep -q "rw_push: job=tw rank=1 " "$RW_OUT/tw.txt"

# --- 4. disabled ---
t_ok "job add td workers 1" job td workers 1
echo >$T/trace
"$LOCAL" td "$RW_OUT/token" 0 1 2 >"$RW_OUT/td-0.log" 2>&1
t_eq "events disabled: training leaves no rackweave event" 0 \
	"$(grep -c ': rw_' $T/trace)"

# --- perf reads them too (the one-liner in docs/design.md) ---
t_ok "job add tp workers 1" job tp workers 1
perf stat -e rackweave:rw_push,rackweave:rw_step -x, -a -o "$RW_OUT/perf.csv" -- \
	"$LOCAL" tp "$RW_OUT/token" 0 1 2 >"$RW_OUT/tp-0.log" 2>&1
t_ok "perf stat counts as many steps as pushes for one worker" \
	awk -F, '/rw_push/ {p = $1} /rw_step/ {s = $1} END {exit !(p > 0 && p == s)}' \
	"$RW_OUT/perf.csv"

# --- 5. the timeline ---
t_ok "rw-timeline writes JSON" \
	/usr/bin/python3 "$RW_TOP/scripts/rw-timeline" --job tj "$RW_OUT/tj.txt" \
	-o "$RW_OUT/tj.json"
t_ok "... a lane per rank, a step slice per chunk per iteration, in time order" \
	/usr/bin/python3 - "$RW_OUT/tj.json" "$n" $ITERS <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n, iters = int(sys.argv[2]), int(sys.argv[3])
ev = d["traceEvents"]
lanes = sorted(e["args"]["name"] for e in ev if e["name"] == "thread_name" and e["pid"] == 1)
steps = [e for e in ev if e["ph"] == "X" and e["name"].startswith("step ")]
ts = [e["ts"] for e in ev if e["ph"] != "M"]
keys = sorted({(e["args"]["chunk"], e["args"]["iter"]) for e in steps})
ok = (lanes == ["rank 0", "rank 1"] and len(steps) == n * iters and
      keys == sorted((c, i) for c in range(n) for i in range(iters)) and
      ts == sorted(ts) and all(e["dur"] > 0 for e in steps) and
      any(e["name"] == "gate wait" for e in ev))
sys.exit(0 if ok else "lanes %s, %d steps for %d chunks" % (lanes, len(steps), n))
PY
t_fails "rw-timeline: a capture without events is refused" \
	/usr/bin/python3 "$RW_TOP/scripts/rw-timeline" /dev/null

t_ok "rmmod rackweave" rmmod rackweave
t_done
