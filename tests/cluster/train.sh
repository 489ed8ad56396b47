#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two hosts train over the wire: a box VM and a worker VM joined by QEMU
# socket networking on 127.0.0.1, each with soft-RoCE on its eth0. The
# worker's raw librdmacm peer (tests/vm/wire-peer) is refused with a wrong
# token. Then two trainers on the worker host (wire-peer's train mode, raw
# verbs) train the wire tests' model as ranks 0 and 1 under BSP; both end
# with the exact result and the same bytes, and the box shows both ranks
# attached and counted every chunk. While they hold their connections, a
# second connection for rank 0 is refused as in use; then one is killed
# with kill -9: the box frees its rank at once, the other closes cleanly,
# and a new pair trains the next run from the start, exactly again. The
# listener counted every request by its outcome.
#
# Run by scripts/check cluster with RW_ROLE=box or worker and RW_CLUSTER,
# a host directory both can read (the token, each side's out directory):
# the two sides take turns through files there.
RW_TEST_NAME=cluster-train-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

BOX=10.88.0.1
WORKER=10.88.0.2
JOB=ct
TOKEN=$RW_CLUSTER/token
ITERS=4

rw_wire_up "$([ "$RW_ROLE" = box ] && echo $BOX || echo $WORKER)" --eth0

if [ "$RW_ROLE" = box ]; then
	t_ok "job add $JOB workers 2" "$RWCTL" job add $JOB workers 2 \
		chunk-size 4096 optim sgd lr 0.5 token-file "$TOKEN"
	t_ok "listen add $BOX" "$RWCTL" listen add $BOX
	touch "$RW_OUT/ready"
	t_ok "the worker host trained and holds" rw_await worker holding
	t_eq "both ranks of $JOB attached from the worker host" \
		"[[\"$WORKER\", \"$JOB\", 0], [\"$WORKER\", \"$JOB\", 1]]" \
		"$("$RWCTL" -j listen show | jpy 'sorted([c["addr"], c["job"], c["rank"]] for c in d["connections"])')"
	t_eq "the job counts both as attached workers, in stats too" "2 [true, true]" \
		"$("$RWCTL" -j job show $JOB | jpy 'd["jobs"][0]["attached"]') $("$RWCTL" -j stats show $JOB | jpy '[w["attached"] for w in sorted(d["workers"], key=lambda w: w["rank"])]')"
	t_eq "the box took every chunk of every iteration from each" \
		"$(cat "$RW_CLUSTER/worker/chunks") $(cat "$RW_CLUSTER/worker/chunks")" \
		"$("$RWCTL" -j listen show | jpy '" ".join(str(c["pushes"]) for c in sorted(d["connections"], key=lambda c: c["rank"]))')"
	touch "$RW_OUT/checked"
	t_ok "the worker killed rank 1" rw_await worker killed
	t_ok "kill -9 freed rank 1 on the box" rw_until_attached $JOB 1
	touch "$RW_OUT/freed"
	t_ok "the worker is done" rw_await worker done
	t_ok "every worker left" rw_until_attached $JOB 0
	# 6 requests: the wrong token, pair a, rank 0 in use, pair b.
	t_eq "listen show: 6 requests, 4 accepted, auth and in-use refused, none connected" \
		'[6, 4, 1, 1, 0]' \
		"$("$RWCTL" -j listen show | jpy '[[l["requests"], l["accepted"], l["refused"]["auth"], l["refused"]["in-use"], l["connected"]] for l in d["listeners"]][0]')"
	t_ok "rmmod rackweave" rmmod rackweave
else
	t_ok "the box listens" rw_await box ready
	out=$(rw_retry_connect "$PEER" $WORKER $BOX 18515 \
		"$($REQ $JOB "$TOKEN" 0 sign-with "$RW_CLUSTER/other")")
	t_eq "a wrong token is refused across hosts" "refused EACCES" "$out"

	# pair NAME: ranks 0 and 1 train in the background, holding after.
	pair() {
		exec 8<>/tmp/hold-$1-0 9<>/tmp/hold-$1-1
		for r in 0 1; do
			"$PEER" $WORKER $BOX 18515 "$($REQ $JOB "$TOKEN" $r)" \
				train $r 2 $ITERS hold </tmp/hold-$1-$r \
				>"$RW_OUT/$1-$r.log" 2>&1 8>&- 9>&- &
			eval "pid_$r=\$!"
		done
	}
	# trained NAME: both printed their result (120 s at most).
	trained() {
		local _
		for _ in $(seq 600); do
			[ "$(cat "$RW_OUT/$1"-[01].log | grep -c '^trained')" = 2 ] && return 0
			sleep 0.2
		done
		cat "$RW_OUT/$1"-[01].log
		return 1
	}

	mkfifo /tmp/hold-a-0 /tmp/hold-a-1 /tmp/hold-b-0 /tmp/hold-b-1
	pair a
	t_ok "ranks 0 and 1 trained across hosts" trained a
	t_eq "rank 0: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/a-0.log")"
	t_eq "rank 1: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/a-1.log")"
	t_eq "... the same bytes" "$(rw_wire_hash "$RW_OUT/a-0.log")" "$(rw_wire_hash "$RW_OUT/a-1.log")"
	sed -n 's/^set up \([0-9]*\) chunks$/\1/p' "$RW_OUT/a-0.log" |
		awk -v i=$ITERS '{print $1 * i}' >"$RW_OUT/chunks"
	touch "$RW_OUT/holding"
	t_ok "the box has seen them" rw_await box checked
	t_eq "rank 0 again while it holds: refused as in use" "refused EADDRINUSE" \
		"$("$PEER" $WORKER $BOX 18515 "$($REQ $JOB "$TOKEN" 0)" 2>&1)"
	kill -9 "$pid_1"
	wait "$pid_1" 2>/dev/null
	touch "$RW_OUT/killed"
	t_ok "the box freed rank 1" rw_await box freed
	exec 8>&-
	wait "$pid_0"
	t_eq "rank 0 ends cleanly once its hold ends" 0 "$?"
	exec 9>&-
	pair b
	t_ok "a new pair trained the next run" trained b
	t_eq "both exact again" "trained $ITERS exact trained $ITERS exact" \
		"$(rw_wire_result "$RW_OUT/b-0.log") $(rw_wire_result "$RW_OUT/b-1.log")"
	exec 8>&- 9>&-
	wait
	touch "$RW_OUT/done"
fi
t_done
