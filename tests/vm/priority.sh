#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 900
#
# Priority (uapi "priority"): two trainers of 4 layers (tests/vm/
# prio-trainer.c) attach over soft-RoCE to the box in the same guest, each
# pushing a layer as its backward pass reaches it (last layer first) and
# waiting for each layer's parameters as its forward pass needs them, with
# the link slowed (tc on lo, which the loopback RoCE traffic crosses) and
# the host's push window at two chunks. Declared in layer order, layer 0,
# pushed last, overtakes the layers still queued: in every iteration its
# parameters are back before the last layer's (the host's rw_host_params
# trace events); with the priorities the other way round ("fifo": the
# order the pushes are made in) they come last, and the run ends with the
# same parameters bit for bit. push_window refuses a value out of range
# (a priority out of range: dev-bad-input.c, python-binding.py).
#
# The times (iteration, first layer fresh) are shown, and judged by
# scripts/bench-priority, which runs this with RW_CHECK unset: more
# iterations, more compute a layer, the figures in $RW_OUT/priority.json.
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing
P=/sys/module/rackweave/parameters
TRAINER=$RW_TOP/build/tests/vm/prio-trainer
L=4 N=16384 US=${RW_PRIO_US:-1000}
# The test pushes the layers back to back (no backward compute), so every
# iteration's pushes queue together whatever the host's load: the order is
# then the queue's alone. The benchmark computes both ways.
BACK=${RW_PRIO_US:-0}
ITERS=${RW_PRIO_ITERS:-12}
[ -n "${RW_CHECK:-}" ] || ITERS=${RW_PRIO_ITERS:-40}
RATE=${RW_PRIO_RATE:-50mbit}

rw_wire_up $BOX
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
head -c 32 /dev/urandom >"$RW_OUT/token"
mountpoint -q $T || mount -t tracefs nodev $T

t_fails "push_window past its range: refused" sh -c "echo 1048577 >$P/push_window"
t_eq "... and left as it was" 0 "$(cat $P/push_window)"
t_ok "push_window 8 (KiB): two 4 KiB chunks on their way per link" \
	sh -c "echo 8 >$P/push_window"
t_ok "tc: lo slowed to $RATE" \
	tc qdisc add dev lo root tbf rate "$RATE" burst 32kb latency 400ms

# run MODE: both ranks train job p-MODE; their outputs in $RW_OUT/MODE-*.
run() {
	local mode=$1 r pids=() rc=0
	"$RWCTL" job add "p$mode" workers 2 lr 0.1 chunk-size 4096 \
		token-file "$RW_OUT/token" >/dev/null || return 1
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 1 >$T/events/rackweave/rw_host_params/enable
	echo 1 >$T/tracing_on
	for r in 0 1; do
		"$TRAINER" "p$mode" "$RW_OUT/token" $r $BOX $L $N $ITERS $US \
			$([ "$mode" = fifo ] && echo fifo) back=$BACK "$RW_OUT/$mode-$r.bin" \
			>"$RW_OUT/$mode-$r.out" 2>&1 &
		pids+=($!)
	done
	for r in "${!pids[@]}"; do
		wait "${pids[$r]}" || { rc=1; sed "s/^/#   $mode rank $r: /" "$RW_OUT/$mode-$r.out"; }
	done
	echo 0 >$T/events/rackweave/rw_host_params/enable
	cp $T/trace "$RW_OUT/$mode.trace"
	"$RWCTL" job del "p$mode" >/dev/null
	return $rc
}
# field MODE KEY: rank 0's figure.
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$RW_OUT/$1-0.out"; }
# first_before_last MODE: per iteration (version) and rank, the time the
# last chunk of layer 0 came back against that of layer L-1; prints
# "AHEAD OF-TOTAL".
first_before_last() {
	/usr/bin/python3 - "$RW_OUT/$1.trace" $L $((N * 4 / 4096)) <<'EOF'
import re, sys
path, layers, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
last = {}
pat = re.compile(r"\s(\d+\.\d+): rw_host_params: job=\S+ rank=(\d+) chunk=(\d+) clock=(\d+)")
for line in open(path):
    m = pat.search(line)
    if not m or m.group(4) == "0":
        continue
    t, rank, chunk, v = float(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))
    key = (rank, v, chunk // per)
    last[key] = max(last.get(key, 0.0), t)
its = sorted({(r, v) for (r, v, _) in last})
ahead = sum(1 for (r, v) in its
            if (r, v, 0) in last and (r, v, layers - 1) in last
            and last[(r, v, 0)] < last[(r, v, layers - 1)])
print(ahead, len(its))
EOF
}

for mode in prio fifo; do
	t_ok "$mode: 2 trainers of $L layers x $((N * 4 / 1024)) KiB, $ITERS iterations, ${BACK} and ${US} us a layer backward and forward" run $mode
done
t_ok "the parameters are the same bits with priority and without" \
	sh -c "cmp '$RW_OUT/prio-0.bin' '$RW_OUT/fifo-0.bin' && cmp '$RW_OUT/prio-0.bin' '$RW_OUT/prio-1.bin'"
t_eq "... as both ranks' hashes say" "$(field prio hash)" "$(field fifo hash)"
res=$(first_before_last prio) ahead=${res% *} total=${res#* }
res=$(first_before_last fifo) fahead=${res% *} ftotal=${res#* }
# The benchmark's settings may leave nothing queued (compute longer than
# the link needs): there the order is reported, not judged.
if [ -n "${RW_CHECK:-}" ]; then
	t_ok "priority: layer 0's parameters back before layer $((L - 1))'s in every iteration of both ranks ($ahead of $total)" \
		test "${total:-0}" -ge $((2 * ITERS)) -a "${ahead:-0}" = "${total:-x}"
	t_ok "fifo: layer 0's come last instead (ahead in $fahead of $ftotal)" \
		test "${ftotal:-0}" -ge $((2 * ITERS)) -a "${fahead:-1}" -lt $((ftotal / 4 + 1))
fi
# The times are the benchmark's to judge (scripts/bench-priority): here
# they are only shown.
pi=$(field prio iter_us) fi=$(field fifo iter_us)
pf=$(field prio first_us) ff=$(field fifo first_us)
echo "# median iteration $pi us with priority, $fi us fifo; layer 0 fresh $pf us and $ff us after the last push"
echo "{\"layers\": $L, \"layer_kib\": $((N * 4 / 1024)), \"iters\": $ITERS, \"compute_us\": $US, \"rate\": \"$RATE\", \"push_window_kib\": 8, \"iter_us_priority\": ${pi:-null}, \"iter_us_fifo\": ${fi:-null}, \"first_fresh_us_priority\": ${pf:-null}, \"first_fresh_us_fifo\": ${ff:-null}, \"layer0_ahead_priority\": \"${ahead:-0}/${total:-0}\", \"layer0_ahead_fifo\": \"${fahead:-0}/${ftotal:-0}\"}" >"$RW_OUT/priority.json"

tc qdisc del dev lo root
echo 0 >$P/push_window
t_ok "rmmod rackweave" rmmod rackweave
t_done
