#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The worker role across hosts: trainers on the worker VM attach to the
# box VM's job through librackweave (rw_attach_remote) and their own
# host's rackweave module, which connects to the box over soft-RoCE.
# Two trainers train a BSP job to the exact result and the same bytes.
# Then, mid-run, the worker host's module cannot be unloaded under its
# trainers, and its rxe device is deleted: both trainers end with
# ECONNRESET and the box frees both ranks. With the device back, a new
# pair trains the next run exactly. Last, two trainers of a three-worker
# job push and wait for a third that never comes, so neither side has
# anything on the wire, and one side falls silent (no disconnect, no
# error, nothing reaches the other: the worker VM's eth0 goes down; then
# the worker VM's neighbour entry for the box points at a MAC nobody has).
# Only the heartbeats can tell: when the worker host goes, the box frees
# both ranks; when the box goes, both trainers end with ECONNRESET.
RW_TEST_NAME=cluster-remote-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

BOX=10.88.0.1
WORKER=10.88.0.2
JOB=cr
TOKEN=$RW_CLUSTER/token
ITERS=4
LONG=1000000

rw_wire_up "$([ "$RW_ROLE" = box ] && echo $BOX || echo $WORKER)" --eth0

if [ "$RW_ROLE" = box ]; then
	# Both cs connections have pushed; a while later nothing moves.
	pushed_and_waiting() {
		local _ n
		for _ in $(seq 100); do
			n=$("$RWCTL" listen show | awk '/^connections:/ { on = 1; next }
				/^[^ ]/ { on = 0 }
				on && / job cs / && !/ pushes 0 / { n++ }
				END { print n + 0 }')
			[ "$n" = 2 ] && sleep 3 && return 0
			sleep 0.5
		done
		"$RWCTL" listen show
		return 1
	}

	t_ok "job add $JOB workers 2" "$RWCTL" job add $JOB workers 2 \
		chunk-size 4096 optim sgd lr 0.5 token-file "$TOKEN"
	t_ok "listen add $BOX" "$RWCTL" listen add $BOX
	touch "$RW_OUT/ready"
	t_ok "the worker host started a long run" rw_await worker long
	t_ok "both remote trainers' chunks flow" rw_until_flowing 2
	t_eq "both ranks attached from the worker host" \
		"[[\"$WORKER\", 0], [\"$WORKER\", 1]]" \
		"$("$RWCTL" -j listen show | jpy 'sorted([c["addr"], c["rank"]] for c in d["connections"])')"
	touch "$RW_OUT/flowing"
	t_ok "the worker host deleted its device" rw_await worker cut
	t_ok "the box freed both ranks" rw_until_attached $JOB 0
	touch "$RW_OUT/freed"
	t_ok "job add cs workers 3" "$RWCTL" job add cs workers 3 \
		chunk-size 4096 optim sgd lr 0.5 token-file "$TOKEN"
	touch "$RW_OUT/cs"
	t_ok "ranks 0 and 1 of cs pushed and wait for rank 2" pushed_and_waiting
	touch "$RW_OUT/waiting"
	t_ok "the worker host fell silent" rw_await worker silent
	t0=$SECONDS
	t_ok "the box freed both ranks of the silent host (heartbeats)" \
		rw_until_attached cs 0
	echo "# the box noticed the silence in $((SECONDS - t0)) s"
	t_ok "the box logged why" sh -c 'dmesg | grep -q "heartbeat: .*: closing"'
	touch "$RW_OUT/freed-cs"
	t_ok "the worker host's next pair pushed and waits" pushed_and_waiting
	touch "$RW_OUT/waiting2"
	t_ok "the worker host cut us off" rw_await worker cut-off
	t_ok "the box frees those ranks too" rw_until_attached cs 0
	t_ok "the worker is done" rw_await worker done
	t_ok "rmmod rackweave" rmmod rackweave
else
	# trainer NAME RANK ITERS: wire-local through this host's module.
	trainer() {
		"$LOCAL" $JOB "$TOKEN" "$2" 2 "$3" $BOX >"$RW_OUT/$1-$2.log" 2>&1 &
	}

	# probe LOG: attach to a job the box does not have until it answers
	# (its ARP entry may take a moment), the answer in LOG.
	probe() {
		local _
		for _ in $(seq 10); do
			"$LOCAL" nosuchjob "$TOKEN" 0 2 1 $BOX >"$1" 2>&1
			grep -q "access denied" "$1" && return 0
			sleep 1
		done
	}

	t_ok "the box listens" rw_await box ready
	probe "$RW_OUT/probe.log"
	t_ok "an unknown job: access denied, as a wrong token" \
		grep -q "^error: attach: access denied" "$RW_OUT/probe.log"

	trainer a 0 $ITERS
	p0=$!
	trainer a 1 $ITERS
	p1=$!
	wait $p0 $p1
	t_eq "two trainers on this host trained the box's job: exact" \
		"trained $ITERS exact trained $ITERS exact" \
		"$(rw_wire_result "$RW_OUT/a-0.log") $(rw_wire_result "$RW_OUT/a-1.log")"
	t_eq "... the same bytes" "$(rw_wire_hash "$RW_OUT/a-0.log")" "$(rw_wire_hash "$RW_OUT/a-1.log")"

	trainer long 0 $LONG
	p0=$!
	trainer long 1 $LONG
	p1=$!
	touch "$RW_OUT/long"
	t_ok "the box sees them training" rw_await box flowing
	t_fails "rmmod rackweave under attached trainers: refused" rmmod rackweave
	t_ok "rdma link delete rxe0 mid-run" timeout 60 rdma link delete rxe0
	wait $p0
	wait $p1
	t_ok "rank 0 ended: the connection was lost" \
		grep -q "^error: .*connection to the remote box was lost" "$RW_OUT/long-0.log"
	t_ok "rank 1 ended: the connection was lost" \
		grep -q "^error: .*connection to the remote box was lost" "$RW_OUT/long-1.log"
	touch "$RW_OUT/cut"
	t_ok "the box freed the ranks" rw_await box freed
	t_ok "rdma link add rxe0 again" rdma link add rxe0 type rxe netdev eth0
	probe "$RW_OUT/probe2.log"
	trainer b 0 $ITERS
	p0=$!
	trainer b 1 $ITERS
	p1=$!
	wait $p0 $p1
	t_eq "a new pair trains the next run: exact" \
		"trained $ITERS exact trained $ITERS exact" \
		"$(rw_wire_result "$RW_OUT/b-0.log") $(rw_wire_result "$RW_OUT/b-1.log")"

	# waiting NAME: ranks 0 and 1 of cs (3 workers) push iteration 0 and
	# wait for rank 2, which never comes, with no timeout of their own;
	# pids in p0 and p1.
	waiting() {
		WIRE_LOCAL_TIMEOUT_MS=0 "$LOCAL" cs "$TOKEN" 0 3 1 $BOX \
			>"$RW_OUT/$1-0.log" 2>&1 &
		p0=$!
		WIRE_LOCAL_TIMEOUT_MS=0 "$LOCAL" cs "$TOKEN" 1 3 1 $BOX \
			>"$RW_OUT/$1-1.log" 2>&1 &
		p1=$!
	}
	# ended NAME: both have ended (60 s at most), and how long it took.
	# One still there 20 s after kill -9 is stuck in the kernel: its
	# stack is shown, it is left and counted in stuck, so a check fails
	# instead of the VM timing out.
	ended() {
		local t0=$SECONDS _
		stuck=0
		for _ in $(seq 120); do
			kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break
			sleep 0.5
		done
		echo "# $1: the trainers ended $((SECONDS - t0)) s after the cut"
		kill -9 $p0 $p1 2>/dev/null
		for _ in $(seq 40); do
			kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break
			sleep 0.5
		done
		for p in $p0 $p1; do
			if kill -0 $p 2>/dev/null; then
				echo "#   pid $p still there 20 s after kill -9, in:"
				sed 's/^/#     /' /proc/$p/stack
				stuck=$((stuck + 1))
			else
				wait $p
			fi
		done
	}
	lost() { grep -q "^error: .*connection to the remote box was lost" "$1"; }

	t_ok "the box made job cs" rw_await box cs
	waiting c
	t_ok "the box sees them wait" rw_await box waiting
	t_ok "ip link set eth0 down, both sides idle" ip link set eth0 down
	touch "$RW_OUT/silent"
	ended c
	t_eq "both gone, neither stuck in a close" 0 "$stuck"
	t_ok "rank 0 ended: the connection was lost" lost "$RW_OUT/c-0.log"
	t_ok "rank 1 ended: the connection was lost" lost "$RW_OUT/c-1.log"
	t_ok "the box freed them (heartbeats)" rw_await box freed-cs
	# The link back, and soft-RoCE on it anew (its port stays down).
	t_ok "ip link set eth0 up, rxe0 again" sh -c 'ip link set eth0 up &&
		rdma link delete rxe0 && rdma link add rxe0 type rxe netdev eth0'
	probe "$RW_OUT/probe3.log"
	waiting d
	t_ok "the box sees the new pair wait" rw_await box waiting2
	# The box falls silent without any link going down (soft-RoCE can
	# hang destroying queue pairs whose port went down under them): the
	# box's address now resolves to a MAC nobody has, so nothing of ours
	# reaches it, acknowledgments included, and it seems to say nothing.
	t_ok "ip neigh: the box's address to a MAC nobody has, both sides idle" \
		ip neigh replace $BOX lladdr 02:00:5e:00:00:01 dev eth0 nud permanent
	touch "$RW_OUT/cut-off"
	ended d
	t_eq "both gone, neither stuck in a close" 0 "$stuck"
	t_ok "rank 0 noticed the silent box (heartbeats)" lost "$RW_OUT/d-0.log"
	t_ok "rank 1 noticed the silent box (heartbeats)" lost "$RW_OUT/d-1.log"
	t_ok "... and the log says why" sh -c 'dmesg | grep -q "the box went silent\|heartbeat: "'
	touch "$RW_OUT/done"
	t_ok "rmmod rackweave once the trainers are gone" rmmod rackweave
fi
t_done
