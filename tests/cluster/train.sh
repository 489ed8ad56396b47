#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two hosts train over the wire: a box VM and a worker VM (QEMU socket
# networking on 127.0.0.1, soft-RoCE on each eth0, as in handshake.sh).
# Two trainers on the worker host (tests/vm/wire-peer's train mode, raw
# verbs) train the wire tests' model as ranks 0 and 1 under BSP; both end
# with the exact result and the same bytes, and the box counted every
# chunk. Then both hold their connections and one is killed with kill -9:
# the box frees its rank at once, and once the other has gone too a new
# pair trains the next run from the start, exactly again.
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
	t_eq "both ranks attached from the worker host" \
		"[[\"$WORKER\", 0], [\"$WORKER\", 1]]" \
		"$("$RWCTL" -j listen show | jpy 'sorted([c["addr"], c["rank"]] for c in d["connections"])')"
	t_eq "the box took every chunk of every iteration from each" \
		"$(cat "$RW_CLUSTER/worker/chunks") $(cat "$RW_CLUSTER/worker/chunks")" \
		"$("$RWCTL" -j listen show | jpy '" ".join(str(c["pushes"]) for c in sorted(d["connections"], key=lambda c: c["rank"]))')"
	touch "$RW_OUT/checked"
	t_ok "the worker killed rank 1" rw_await worker killed
	t_ok "kill -9 freed rank 1 on the box" rw_until_attached $JOB 1
	touch "$RW_OUT/freed"
	t_ok "the worker is done" rw_await worker done
	t_ok "every worker left" rw_until_attached $JOB 0
	t_ok "rmmod rackweave" rmmod rackweave
else
	t_ok "the box listens" rw_await box ready
	out=$(rw_retry_connect "$PEER" $WORKER $BOX 18515 \
		"$($REQ $JOB "$TOKEN" 0 sign-with "$RW_CLUSTER/other")")
	t_eq "a wrong token is refused" "refused EACCES" "$out"

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
	kill -9 "$pid_1"
	wait "$pid_1" 2>/dev/null
	touch "$RW_OUT/killed"
	t_ok "the box freed rank 1" rw_await box freed
	exec 8>&-
	wait "$pid_0"
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
