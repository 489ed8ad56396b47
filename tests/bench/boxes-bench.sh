#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of scripts/bench-boxes: one job spread over N boxes
# (docs/design.md "Many boxes"), N box VMs and a worker VM on one
# segment, as a tests/cluster script with the roles "box1 ... boxN
# worker" runs (RW_ROLE, RW_CLUSTER, RW_CLUSTER_ROLES; rw_cluster_ip).
#
#   boxes-bench.sh ITERS SCALE
#
# Each box: soft-RoCE on its eth0, `rwctl job add bx workers 2 chunk-size
# 4096 optim sgd lr 0.5 ... boxes 1@A1,...,N@AN self I` (a set of one box
# when N is 1), and with N = 1 also the same job whole, without a set
# (bxw); then it listens at its address.
# The worker: two trainers (build/tests/vm/wire-local, ranks 0 and 1)
# attached to every box, the wire tests' model with its largest tensor
# SCALE times as long (WIRE_LOCAL_SCALE), ITERS iterations, timed by the
# trainers themselves (WIRE_LOCAL_TIMED) and checked exact. While they
# stay attached (WIRE_LOCAL_HOLD) each box writes into its out directory
# what its own counters say: JOB-topo.json (`rwctl -j topo show`: its
# share), JOB-listen.json (`listen show`: pushes, writes and control
# messages per connection), JOB-stats.json (`stats show`: gradient bytes
# and chunks pushed to it) and JOB-job.json (`job show`: memory charged).
# With N = 3, a job moves too (bm, SGD): two iterations on boxes 1 and 2
# (box 3 holds the job in the set it joins), box 3 ordered in; at the
# run's end the chunks it gains go to it box to box; two iterations on
# the three, box 1 ordered out; the last two on boxes 2 and 3, exact. Each
# box writes its stats after each move (bm-moved-2.json, bm-moved-3.json):
# the chunks it took, over the model's, are the moved fractions.
# The worker then prints "BENCH-JSON {...}", this N's row
# (tests/bench/boxes-bench-json.py run), and checks that the boxes
# counted no control message while the job trained and that each was
# pushed exactly its own chunks, by its connections and its stats.
RW_TEST_NAME=boxes-bench-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

ITERS=${1:?usage: boxes-bench.sh ITERS SCALE}
SCALE=${2:?usage: boxes-bench.sh ITERS SCALE}
TOKEN=$RW_CLUSTER/token
ME=$(rw_cluster_ip "$RW_ROLE")
BOXES=() SET= ALL=
for r in $RW_CLUSTER_ROLES; do
	case $r in
	box*)
		BOXES+=("$r")
		SET=$SET${SET:+,}${r#box}@$(rw_cluster_ip "$r")
		ALL=$ALL${ALL:+,}$(rw_cluster_ip "$r")
		;;
	esac
done
N=${#BOXES[@]}
# The jobs of this run: the set, and with one box the whole job too (a
# baseline without a set; it trains first).
JOBS=bx
[ "$N" = 1 ] && JOBS="bxw bx"

rw_wire_up "$ME" --eth0

if [ "$RW_ROLE" != worker ]; then
	id=${RW_ROLE#box}
	t_ok "job add bx: boxes $SET, this box $id" "$RWCTL" job add bx workers 2 \
		chunk-size 4096 optim sgd lr 0.5 token-file "$TOKEN" boxes "$SET" self "$id"
	if [ "$N" = 1 ]; then
		t_ok "job add bxw: the same job whole, no set" "$RWCTL" job add bxw workers 2 \
			chunk-size 4096 optim sgd lr 0.5 token-file "$TOKEN"
	fi
	if [ "$N" = 3 ]; then
		if [ "$id" = 3 ]; then
			t_ok "job add bm: box 3 joins it at epoch 2" "$RWCTL" job add bm \
				workers 2 chunk-size 4096 optim sgd lr 0.5 token-file "$TOKEN" \
				boxes "$SET" self 3 epoch 2
		else
			t_ok "job add bm on boxes 1 and 2" "$RWCTL" job add bm workers 2 \
				chunk-size 4096 optim sgd lr 0.5 token-file "$TOKEN" \
				boxes "1@$(rw_cluster_ip box1),2@$(rw_cluster_ip box2)" self "$id"
		fi
	fi
	t_ok "listen add $ME" "$RWCTL" listen add "$ME"
	touch "$RW_OUT/ready"
	for job in $JOBS; do
		t_ok "$job: the worker's ranks have trained and hold" \
			rw_await worker "holding-$job" 900
		for what in topo listen stats job; do
			case $what in
			listen) "$RWCTL" -j listen show ;;
			*) "$RWCTL" -j $what show $job ;;
			esac >"$RW_OUT/$job-$what.json" 2>&1
		done
		# soft-RoCE's own counters (retries, sequence errors: frames the
		# segment lost), to tell the link's trouble from ours.
		rdma -j statistic show link rxe0/1 >"$RW_OUT/$job-rxe.json" 2>&1
		t_ok "$job: recorded this box's counters" sh -c \
			"for w in topo listen stats job; do python3 -I -S -c 'import json, sys; json.load(open(sys.argv[1]))' '$RW_OUT/$job-'\$w.json || exit 1; done"
		touch "$RW_OUT/recorded-$job"
	done
	if [ "$N" = 3 ]; then
		t_ok "bm: the worker's ranks hold on boxes 1 and 2" rw_await worker holding-bm1 900
		if [ "$id" != 3 ]; then
			t_ok "bm: box 3 joins, ordered during the run" \
				"$RWCTL" policy set bm boxes "$SET" self "$id"
		fi
		touch "$RW_OUT/ordered-bm1"
		t_ok "bm: the move to epoch 2 settled here" rw_move_wait bm 2 $((id == 3))
		"$RWCTL" -j stats show bm >"$RW_OUT/bm-moved-2.json"
		touch "$RW_OUT/moved-bm1"
		t_ok "bm: the worker's ranks hold on the three boxes" rw_await worker holding-bm2 900
		t_ok "bm: box 1 leaves, ordered during the run" "$RWCTL" policy set bm \
			boxes "2@$(rw_cluster_ip box2),3@$(rw_cluster_ip box3)" self "$id"
		touch "$RW_OUT/ordered-bm2"
		t_ok "bm: the move to epoch 3 settled here" rw_move_wait bm 3
		"$RWCTL" -j stats show bm >"$RW_OUT/bm-moved-3.json"
		touch "$RW_OUT/moved-bm2"
		JOBS="$JOBS bm"
	fi
	t_ok "the worker is done" rw_await worker done 900
	for job in $JOBS; do
		t_ok "job del $job" "$RWCTL" job del $job
	done
	t_ok "rmmod rackweave" rmmod rackweave
	t_done
fi

for b in "${BOXES[@]}"; do
	t_ok "$b listens" rw_await "$b" ready 300
done

# both_trained PREFIX PID0 PID1: until PREFIX-r0.log and PREFIX-r1.log
# both say "trained", or one of the ranks has ended (it failed).
both_trained() {
	while [ "$(cat "$1"-r[01].log 2>/dev/null | grep -c '^trained')" != 2 ]; do
		kill -0 "$2" 2>/dev/null && kill -0 "$3" 2>/dev/null || return 0
		rw_nap 0.2
	done
}

# train JOB: ranks 0 and 1 of JOB, attached to every box (JOB bxw: the one
# box, no set); once both have trained, each box records its counters
# while they hold; then they are released. 0 if both end exact.
train() {
	local job=$1 r rc=0 pids=() envs=()
	[ "$job" = bxw ] || envs=(WIRE_LOCAL_BOXES=1)
	rm -f "$RW_OUT/release-$job"
	for r in 0 1; do
		env "${envs[@]}" WIRE_LOCAL_SCALE="$SCALE" WIRE_LOCAL_TIMED=1 \
			WIRE_LOCAL_TIMEOUT_MS=300000 WIRE_LOCAL_HOLD="$RW_OUT/release-$job" \
			"$LOCAL" "$job" "$TOKEN" $r 2 "$ITERS" "$ALL" >"$RW_OUT/$job-r$r.log" 2>&1 &
		pids+=($!)
	done
	both_trained "$RW_OUT/$job" "${pids[@]}"
	touch "$RW_OUT/holding-$job"
	for b in "${BOXES[@]}"; do
		rw_await "$b" "recorded-$job" 300 || rc=1
	done
	touch "$RW_OUT/release-$job"
	rw_wait_bounded 120 "${pids[@]}" || rc=1
	rdma -j statistic show link rxe0/1 >"$RW_OUT/$job-rxe.json" 2>&1
	for r in 0 1; do
		grep -q "^trained $ITERS exact " "$RW_OUT/$job-r$r.log" ||
			{ rc=1; sed 's/^/#   /' "$RW_OUT/$job-r$r.log" | tail -n 3; }
	done
	return $rc
}

for job in $JOBS; do
	t_ok "$job over $N box(es): both ranks trained $ITERS iterations, exact" train $job
done

# bm_leg TAG HOLD ADDRS ITERS [ENV...]: ranks 0 and 1 of bm to ITERS;
# with HOLD 1 they hold once trained until every box says ordered-TAG,
# then go, and every box says moved-TAG. 0 if both ended exact.
bm_leg() {
	local tag=$1 hold=$2 addrs=$3 iters=$4 r rc=0 pids=() b envs=()
	shift 4
	[ "$hold" = 1 ] && envs=(WIRE_LOCAL_HOLD="$RW_OUT/release-$tag")
	for r in 0 1; do
		env "$@" "${envs[@]}" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_SCALE="$SCALE" \
			WIRE_LOCAL_TIMEOUT_MS=300000 \
			"$LOCAL" bm "$TOKEN" $r 2 "$iters" "$addrs" >"$RW_OUT/bm-$tag-r$r.log" 2>&1 &
		pids+=($!)
	done
	if [ "$hold" = 1 ]; then
		both_trained "$RW_OUT/bm-$tag" "${pids[@]}"
		touch "$RW_OUT/holding-$tag"
		for b in "${BOXES[@]}"; do
			rw_await "$b" "ordered-$tag" 300 || rc=1
		done
		touch "$RW_OUT/release-$tag"
	fi
	rw_wait_bounded 120 "${pids[@]}" || rc=1
	for r in 0 1; do
		grep -q "^trained $iters exact " "$RW_OUT/bm-$tag-r$r.log" ||
			{ rc=1; sed 's/^/#   /' "$RW_OUT/bm-$tag-r$r.log" | tail -n 3; }
	done
	if [ "$hold" = 1 ]; then
		for b in "${BOXES[@]}"; do
			rw_await "$b" "moved-$tag" 300 || rc=1
		done
	fi
	return $rc
}
if [ "$N" = 3 ]; then
	A1=$(rw_cluster_ip box1) A2=$(rw_cluster_ip box2) A3=$(rw_cluster_ip box3)
	t_ok "bm: two iterations on boxes 1 and 2, exact; box 3 ordered in" \
		bm_leg bm1 1 "$A1,$A2" 2
	t_ok "bm: on to iteration 4 on the three boxes, exact; box 1 ordered out" \
		bm_leg bm2 1 "$ALL" 4 WIRE_LOCAL_CONTINUE=1
	t_ok "bm: the last two on boxes 2 and 3, exact" \
		bm_leg bm3 0 "$A2,$A3" 6 WIRE_LOCAL_CONTINUE=1
fi
touch "$RW_OUT/done"
row=$(/usr/bin/python3 -I -S "$RW_TOP/tests/bench/boxes-bench-json.py" run "$RW_CLUSTER" \
	"$RW_CLUSTER_ROLES" "$ITERS" "$SCALE") || row=
t_ok "this run's row" test -n "$row"
echo "BENCH-JSON $row"
t_eq "the boxes counted no control message while the job trained" 0 \
	"$(printf '%s' "$row" | jpy 'd["control_messages"] + d.get("whole", {}).get("control_messages", 0)')"
t_eq "each box was pushed its own chunks of every iteration by both ranks, and no other" true \
	"$(printf '%s' "$row" | jpy 'd["pushes_as_owned"] and d.get("whole", {}).get("pushes_as_owned", True)')"
t_done
