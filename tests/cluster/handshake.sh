#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two hosts: a box VM and a worker VM joined by QEMU socket networking on
# 127.0.0.1, each with soft-RoCE on its eth0. The box listens; the worker's
# raw librdmacm peer (tests/vm/wire-peer) is refused with a wrong token,
# then connects as rank 0 and holds it while the box sees the worker
# attached, and a second connection for rank 0 is refused as in use.
#
# Run by scripts/check cluster with RW_ROLE=box or worker and RW_CLUSTER,
# a host directory both can read (the token, each side's out directory):
# the two sides take turns through files there.
RW_TEST_NAME=cluster-handshake-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

BOX=10.88.0.1
WORKER=10.88.0.2
JOB=cj
TOKEN=$RW_CLUSTER/token

rw_wire_up "$([ "$RW_ROLE" = box ] && echo $BOX || echo $WORKER)" --eth0

if [ "$RW_ROLE" = box ]; then
	t_ok "job add $JOB workers 2" "$RWCTL" job add $JOB workers 2 \
		chunk-size 4096 token-file "$TOKEN"
	t_ok "listen add $BOX" "$RWCTL" listen add $BOX
	touch "$RW_OUT/ready"
	t_ok "the worker holds rank 0" rw_await worker holding
	t_eq "the job has the remote worker attached" 1 \
		"$("$RWCTL" -j job show $JOB | jpy 'd["jobs"][0]["attached"]')"
	t_eq "listen show: the worker host's connection as rank 0 of $JOB" \
		"[[\"$WORKER\", \"$JOB\", 0]]" \
		"$("$RWCTL" -j listen show | jpy '[[c["addr"], c["job"], c["rank"]] for c in d["connections"]]')"
	t_eq "stats: rank 0 attached" true \
		"$("$RWCTL" -j stats show $JOB | jpy '[w["attached"] for w in d["workers"] if w["rank"] == 0][0]')"
	touch "$RW_OUT/checked"
	t_ok "the worker is done" rw_await worker done
	t_ok "its disconnect freed the rank" rw_until_attached $JOB 0
	t_eq "listen show: 3 requests, 1 accepted, auth and in-use refused" \
		'[3, 1, 1, 1, 0]' \
		"$("$RWCTL" -j listen show | jpy '[[l["requests"], l["accepted"], l["refused"]["auth"], l["refused"]["in-use"], l["connected"]] for l in d["listeners"]][0]')"
	t_ok "rmmod rackweave" rmmod rackweave
else
	t_ok "the box listens" rw_await box ready
	out=$(rw_retry_connect "$PEER" $WORKER $BOX 18515 \
		"$($REQ $JOB "$TOKEN" 0 sign-with "$RW_CLUSTER/other")")
	t_eq "a wrong token is refused across hosts" "refused EACCES" "$out"

	req=$($REQ $JOB "$TOKEN" 0)
	coproc HOLD { exec "$PEER" $WORKER $BOX 18515 "$req" stdin \
		>"$RW_OUT/hold" 2>&1; }
	for _ in $(seq 100); do
		grep -q . "$RW_OUT/hold" && break
		sleep 0.1
	done
	t_eq "rank 0 connects to the box" accepted "$(head -n 1 "$RW_OUT/hold")"
	touch "$RW_OUT/holding"
	t_ok "the box has seen it" rw_await box checked
	t_eq "rank 0 again: refused as in use" "refused EADDRINUSE" \
		"$("$PEER" $WORKER $BOX 18515 "$($REQ $JOB "$TOKEN" 0)" 2>&1)"
	exec {HOLD[1]}>&-
	wait "$HOLD_PID"
	t_eq "rank 0 disconnects cleanly" "accepted closed" \
		"$(tr '\n' ' ' <"$RW_OUT/hold" | sed 's/ $//')"
	touch "$RW_OUT/done"
fi
t_done
