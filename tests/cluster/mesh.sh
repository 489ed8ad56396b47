#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cluster-roles: box1 box2 box3 worker
#
# Four hosts on one L2 segment: three box VMs and a worker VM, joined by
# QEMU's multicast socket networking on 127.0.0.1 (vm-run --net-mcast),
# each with soft-RoCE on its eth0 at its address by its role's place
# (rw_cluster_ip: box1 10.88.0.1 ... worker 10.88.0.4). Each box adds a
# job and listens on its address. The worker's raw librdmacm peer
# (tests/vm/wire-peer) reaches every box over RDMA with requests signed
# with a wrong token: box K is sent K of them, each refused with EACCES,
# and the worker has resolved each box to the MAC vm-run gives that VM.
# Each box then finds exactly its own K requests in its listener's
# counts, all refused for their token: a box the worker could not reach,
# or requests that went to the wrong box, fail a check.
#
# Run by scripts/check cluster (alone: scripts/check cluster mesh) with
# RW_ROLE one of the roles above, RW_CLUSTER_ROLES all of them and
# RW_CLUSTER, a host directory all four read: the token, and each role's
# out directory, through which the VMs take turns.
RW_TEST_NAME=cluster-mesh-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

JOB=cm
TOKEN=$RW_CLUSTER/token
BOXES="box1 box2 box3"
ME=$(rw_cluster_ip "$RW_ROLE") || exit 1

rw_wire_up "$ME" --eth0

case $RW_ROLE in
box*)
	k=${RW_ROLE#box}
	t_ok "job add $JOB" "$RWCTL" job add $JOB workers 1 chunk-size 4096 token-file "$TOKEN"
	t_ok "listen add $ME" "$RWCTL" listen add "$ME"
	touch "$RW_OUT/ready"
	t_ok "the worker probed every box" rw_await worker done
	t_eq "the worker saw its $k request(s) to $RW_ROLE refused" "$k" \
		"$(cat "$RW_CLUSTER/worker/refused-$RW_ROLE" 2>&1)"
	# [address, requests, accepted, refused, refused for the token,
	# connected]
	t_eq "listen show: $k request(s) from the worker, each refused for its token, none accepted" \
		"[[\"$ME\", $k, 0, $k, $k, 0]]" \
		"$("$RWCTL" -j listen show | jpy '[[l["addr"], l["requests"], l["accepted"], l["refused_total"], l["refused"]["auth"], l["connected"]] for l in d["listeners"]]')"
	t_ok "rmmod rackweave" rmmod rackweave
	;;
worker)
	for b in $BOXES; do
		t_ok "$b listens" rw_await "$b" ready
	done
	for b in $BOXES; do
		k=${b#box}
		addr=$(rw_cluster_ip "$b")
		$REQ $JOB "$TOKEN" 0 sign-with "$RW_CLUSTER/other" count "$k" >"/tmp/req-$b"
		out=$(rw_retry_connect "$PEER" "$ME" "$addr" 18515 "@/tmp/req-$b")
		t_eq "$b ($addr): $k request(s) with a wrong token over RDMA, each refused" \
			"$(for _ in $(seq "$k"); do echo "refused EACCES"; done)" "$out"
		printf '%s\n' "$out" | grep -c '^refused EACCES$' >"$RW_OUT/refused-$b"
		# vm-run's MAC for the VM at place K of the segment ends
		# in K: the address led to that VM's NIC.
		t_eq "$b's address resolved to its own VM's MAC" "0$k" \
			"$(ip neigh show "$addr" dev eth0 | awk '{ for (i = 1; i < NF; i++) if ($i == "lladdr") print substr($(i + 1), 16) }')"
	done
	touch "$RW_OUT/done"
	;;
*)
	t_fail "role $RW_ROLE: not one of box1 box2 box3 worker"
	;;
esac
t_done
