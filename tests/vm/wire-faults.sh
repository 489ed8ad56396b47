#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# The box's device and module go in the middle of training over the wire.
# Two remote workers (wire-peer's train mode, raw verbs) train a BSP job
# for far longer than the test waits; once parameters are flowing, the
# box's rxe device is deleted: every connection closes on the box (its
# agent, windows and queue pairs freed), both peers hear of it and end,
# the run ends, and after the device comes back a new pair trains the job
# from the start, exactly. Then the same with rmmod: the module unloads
# with two workers mid-run, and once loaded again a new job trains
# exactly. Nothing may leave a kernel report (lib.sh checks dmesg,
# lockdep and kmemleak).
#
# Same-device loopback over rxe0, as in wire-listen.sh (the reason is
# there): deleting rxe0 takes the peers' device too, as it would take a
# host's only NIC.
. "$(dirname "$0")/lib.sh"

LONG=100000	# iterations: far more than the test waits for
ITERS=4

rw_wire_up $BOX
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
head -c 32 /dev/urandom >"$RW_OUT/token"

job() {
	"$RWCTL" job add "$1" workers 2 chunk-size 4096 optim sgd lr 0.5 \
		token-file "$RW_OUT/token"
}

# pair JOB ITERS NAME: ranks 0 and 1 train in the background; their pids
# are in $pid0 and $pid1, their output in $RW_OUT/NAME-RANK.log.
pair() {
	local r req
	for r in 0 1; do
		req=$($REQ "$1" "$RW_OUT/token" $r) || return 1
		"$PEER" $BOX $BOX $PORT "$req" train $r 2 "$2" \
			>"$RW_OUT/$3-$r.log" 2>&1 &
		eval "pid$r=\$!"
	done
}

# ended PID: the process exits within 30 s; its status is not 0.
ended() {
	local _
	for _ in $(seq 150); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1"
			[ $? -ne 0 ]
			return
		fi
		sleep 0.2
	done
	echo "pid $1 still running"
	kill -9 "$1"
	return 1
}

# cut LOG: the peer's last line says the connection broke, not trained.
cut() {
	case $(tail -n 1 "$1") in
	disconnected | RDMA_CM_EVENT_* | "error: completion: "*) return 0 ;;
	esac
	tail -n 3 "$1"
	return 1
}

# --- the box's device goes mid-run ---
t_ok "job add dev" job dev
pair dev $LONG dev
t_ok "two remote workers are training" rw_until_flowing 2 dev
t_ok "rdma link delete rxe0 mid-run" timeout 60 rdma link delete rxe0
t_ok "the box closed both connections" rw_until_attached dev 0
t_ok "rank 0 ended with an error" ended "$pid0"
t_ok "rank 1 ended with an error" ended "$pid1"
t_ok "rank 0 heard the connection break" cut "$RW_OUT/dev-0.log"
t_ok "rank 1 heard the connection break" cut "$RW_OUT/dev-1.log"
t_eq "the box logged both closes" 2 \
	"$(dmesg | grep -c 'closed .*: job dev rank')"
t_eq "job show: the run ended (no chunks)" 0 \
	"$("$RWCTL" -j job show dev | jpy 'd["jobs"][0].get("chunks", 0)')"
t_ok "rdma link add rxe0 again" rdma link add rxe0 type rxe netdev veth0
sleep 1
t_ok "listen add binds the listener again" "$RWCTL" listen add $BOX
pair dev $ITERS dev-again
wait "$pid0" "$pid1"
t_eq "a new pair trains the job from the start, exactly" \
	"trained $ITERS exact trained $ITERS exact" \
	"$(rw_wire_result "$RW_OUT/dev-again-0.log") $(rw_wire_result "$RW_OUT/dev-again-1.log")"

# --- the module goes mid-run ---
t_ok "job add mod" job mod
pair mod $LONG mod
t_ok "two remote workers are training" rw_until_flowing 2 mod
t_ok "rmmod rackweave mid-run" timeout 60 rmmod rackweave
t_ok "rank 0 ended with an error" ended "$pid0"
t_ok "rank 1 ended with an error" ended "$pid1"
t_ok "rank 0 heard the connection break" cut "$RW_OUT/mod-0.log"
t_ok "rank 1 heard the connection break" cut "$RW_OUT/mod-1.log"
t_ok "insmod rackweave again" insmod "$(rw_module_path)"
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
t_ok "job add mod again" job mod
pair mod $ITERS mod-again
wait "$pid0" "$pid1"
t_eq "a new pair trains a new job, exactly" \
	"trained $ITERS exact trained $ITERS exact" \
	"$(rw_wire_result "$RW_OUT/mod-again-0.log") $(rw_wire_result "$RW_OUT/mod-again-1.log")"
t_ok "job del mod" "$RWCTL" job del mod
t_ok "rmmod rackweave" rmmod rackweave
t_done
