#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest halves of scripts/bench-wire --two-vm: a box VM and a worker VM
# joined by QEMU socket networking on 127.0.0.1, each with soft-RoCE on its
# eth0 (as tests/cluster/*.sh), so the link has a sender and a receiver on
# hosts of their own, as separate hosts would. In the same run, on the same
# link: ib_write_bw with our chunk size and one QP, just before and just
# after each round of the one-worker 32 KiB run and once both ways, and the
# box's push, pull and pushpull goodput with remote workers on the worker
# VM: each run twice, with raw verbs workers (tests/vm/wire-peer's bench
# mode) and then with module workers (tests/vm/wire-modbench: trainers
# through the worker VM's own rackweave.ko, rw_attach_remote). The worker VM
# prints "BENCH-JSON {...}" (the keys of wire-bench.sh, "setup": "two-vm")
# and checks that the module worker's keys are there.
#
#   RW_ROLE=box|worker RW_CLUSTER=DIR wire-bench-2vm.sh [--full] [--rounds N]
#
# --rounds N (1 to 9, 3 by default): the headline run N times, each between
# two ib_write_bw runs, as wire-bench.sh does; the headline is the rounds'
# median (wire-bench-json.py).
#
# The two sides take turns through files in DIR (rw_await): the box starts
# each ib_write_bw server and says so; the worker holds each run's
# connections until the box has read their counters.
RW_TEST_NAME=wire-bench-2vm-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"
. "$(dirname "$0")/wire-bench-lib.sh"

BOX=10.88.0.1
WORKER=10.88.0.2
TOKEN=$RW_CLUSTER/token
NELEMS=$((2 * 1024 * 1024))	# an 8 MiB model
# 4 iterations: 32 MiB pushed, the bytes of ib_write_bw's run (as in
# wire-bench.sh).
ITERS=4
RUNS="1.32768"
ROUNDS=3
wb_options wire-bench-2vm.sh "$@"
if [ $WB_FULL = 1 ]; then
	RUNS=
	for w in 1 2 4; do
		for cs in 4096 32768 262144 1048576; do
			RUNS="$RUNS $w.$cs"
		done
	done
fi
# An attempt's seconds: its 32 MiB take 3 to 10 s on this link.
IBW_S=120
# The order both sides follow: the link before, the headline run and its
# later rounds (run:W.CHUNK:K), each after a link of its own (midK-1), the
# link after and both ways, then the other runs, each just after the link
# with its QP count and chunk size (wb_ibw_opts). Each run of wire-peer
# workers is followed at once by the same run of module workers
# (mod:W.CHUNK[:K]), set against the same links.
STEPS="ibw:before run:1.32768 mod:1.32768"
for ((k = 2; k <= ROUNDS; k++)); do
	STEPS="$STEPS ibw:mid$((k - 1)) run:1.32768:$k mod:1.32768:$k"
done
STEPS="$STEPS ibw:after ibw:bidir"
for r in $RUNS; do
	[ "$r" = 1.32768 ] || STEPS="$STEPS ibw:$r run:$r mod:$r"
done

# step_run W.CHUNK[:K] [run|mod]: a run step's workers, chunk size and
# headline round (empty but for K) in STEP_W, STEP_CS and STEP_K, its job
# in WB_JOB (with "mod", the module workers' run: the name ends in -m).
step_run() {
	STEP_W=${1%%.*}
	STEP_CS=${1#*.}
	STEP_CS=${STEP_CS%%:*}
	STEP_K=
	case $1 in *:*) STEP_K=${1#*:} ;; esac
	wb_job "$STEP_W" "$STEP_CS" "$STEP_K"
	[ "${2:-}" != mod ] || WB_JOB=$WB_JOB-m
}

# wb_listening SECONDS: wait (SECONDS at most, then go on) until this
# host's ib_write_bw server listens (its rdma_cm id on port 18600, as
# `rdma resource show cm_id` lists it), at least a second: a client that
# came before it did was rejected, and twice (2026-11-29, runs of
# note 18) a client died at once with a general protection fault in
# librdmacm (no output), a kernel report for vm-run that failed the run.
wb_listening() {
	local end=$((SECONDS + $1))
	sleep 1
	until rdma resource show cm_id 2>/dev/null | grep -q 'LISTEN.*:18600\b'; do
		[ $SECONDS -lt $end ] || { echo "# ib_write_bw's server: no listener after $1 s"; return 0; }
		rw_nap 0.2
	done
	rdma resource show cm_id >>"$RW_OUT/ibw-listeners.txt" 2>&1
}

rw_wire_up "$([ "$RW_ROLE" = box ] && echo $BOX || echo $WORKER)" --eth0

if [ "$RW_ROLE" = box ]; then
	t_ok "listen add $BOX" "$RWCTL" listen add $BOX
	for step in $STEPS; do
		case $step in
		ibw:*)
			# A server per attempt of the worker's (ibw, below),
			# ended when the worker says "again" (it is stuck).
			name=${step#ibw:}
			for attempt in 1 2 3; do
				timeout $IBW_S $WB_IBW $(wb_ibw_opts "$name") \
					>"$RW_OUT/ibw-$name-server.log" 2>&1 &
				server=$!
				wb_listening 10
				touch "$RW_OUT/ibw-$name.$attempt"
				again=0
				rw_await worker "ibw-$name.$attempt.end" &&
					grep -q again "$RW_CLUSTER/worker/ibw-$name.$attempt.end" &&
					again=1
				[ $again = 1 ] && kill $server 2>/dev/null
				wait $server
				[ $again = 1 ] || break
			done
			;;
		run:* | mod:*)
			step_run "${step#*:}" "${step%%:*}"
			job=$WB_JOB
			t_ok "job add $job" "$RWCTL" job add $job workers "$STEP_W" \
				chunk-size "$STEP_CS" optim sgd lr 0 token-file "$TOKEN"
			touch "$RW_OUT/job-$job"
			t_ok "$job: the worker host holds its connections" \
				rw_await worker held-$job
			"$RWCTL" -j listen show >"$RW_OUT/$job-conns.json"
			touch "$RW_OUT/read-$job"
			t_ok "$job: the worker host is done with it" \
				rw_await worker done-$job
			t_ok "job del $job" "$RWCTL" job del $job
			;;
		esac
	done
	t_ok "rmmod rackweave" rmmod rackweave
	t_done
	exit
fi

res=$RW_OUT/results
: >"$res"
# wb_say FILE WORD: FILE holds WORD when the box sees it.
wb_say() {
	echo "$2" >"$1.tmp" && mv "$1.tmp" "$1"
}

# ibw NAME: the client against the box's server, started a second before
# the box said so (ibw-NAME.ATTEMPT; wb_ibw_client). Now and then a pair
# stops mid-run and waits for ever, as in one VM (wire-bench.sh): each
# attempt has $IBW_S seconds, and one without a figure ends with "again"
# in ibw-NAME.ATTEMPT.end, which has the box start another server (three
# attempts in all).
ibw() {
	local attempt
	for attempt in 1 2 3; do
		rw_await box "ibw-$1.$attempt" || return 1
		if wb_ibw_client "$1" $IBW_S "$attempt" $BOX; then
			wb_say "$RW_OUT/ibw-$1.$attempt.end" "done"
			return 0
		fi
		wb_say "$RW_OUT/ibw-$1.$attempt.end" again
	done
	return 1
}

# run W CHUNK [ROUND]: W bench workers of the box's job bW-CHUNK (round
# ROUND's of the headline: bW-CHUNK-rROUND), held until the box has read
# their connections' counters.
run() {
	local w=$1 cs=$2 job r n=0
	wb_job "$w" "$cs" "${3:-}"
	job=$WB_JOB
	wb_requests $job "$TOKEN" "$w" || return 1
	rm -f /tmp/hold
	mkfifo /tmp/hold
	exec 9<>/tmp/hold
	WB_PIDS=() WB_FDS=()
	for r in $(seq 0 $((w - 1))); do
		wb_peer $job "$r" $WORKER $BOX $PORT "${WB_REQS[$r]}" \
			bench "$r" $NELEMS $ITERS hold || return 1
	done
	# A worker that failed ends the wait.
	wb_wait_bench $job "$w" 300
	n=$WB_N
	touch "$RW_OUT/held-$job"
	rw_await box read-$job
	exec 9>&-
	for r in "${WB_PIDS[@]}"; do
		wait "$r"
	done
	touch "$RW_OUT/done-$job"
	wb_record "$w" "$cs" $job "$RW_CLUSTER/box/$job-conns.json" "${3:-}"
	[ "$n" = "$w" ]
}

# mrun W CHUNK [ROUND]: as run, with W module workers (wire-modbench,
# through this VM's rackweave.ko) of the box's job bW-CHUNK[-rROUND]-m.
mrun() {
	local w=$1 cs=$2 job r n=0
	wb_job "$w" "$cs" "${3:-}"
	job=$WB_JOB-m
	rm -f /tmp/hold
	mkfifo /tmp/hold
	exec 9<>/tmp/hold
	WB_PIDS=() WB_FDS=()
	for r in $(seq 0 $((w - 1))); do
		WB_PROG=$MODBENCH wb_peer $job "$r" $job "$TOKEN" "$r" $NELEMS \
			$ITERS $BOX hold || return 1
	done
	wb_wait_bench $job "$w" 300 mbench
	n=$WB_N
	touch "$RW_OUT/held-$job"
	rw_await box read-$job
	exec 9>&-
	for r in "${WB_PIDS[@]}"; do
		wait "$r"
	done
	touch "$RW_OUT/done-$job"
	wb_mrecord "$w" "$cs" $job "$RW_CLUSTER/box/$job-conns.json" "${3:-}"
	[ "$n" = "$w" ]
}

for step in $STEPS; do
	case $step in
	ibw:*)
		name=${step#ibw:}
		# A --full run's link is detail: its run goes on without it.
		case $name in
		*.*) ibw "$name" || echo "# ib_write_bw $name gave no figure" ;;
		*) t_ok "ib_write_bw, $name" ibw "$name" ;;
		esac
		;;
	run:*)
		step_run "${step#run:}"
		t_ok "the box has job $WB_JOB" rw_await box "job-$WB_JOB"
		t_ok "push, pull and pushpull: $STEP_W workers, $STEP_CS-byte chunks${STEP_K:+, round $STEP_K}" \
			run "$STEP_W" "$STEP_CS" $STEP_K
		;;
	mod:*)
		step_run "${step#mod:}" mod
		t_ok "the box has job $WB_JOB" rw_await box "job-$WB_JOB"
		t_ok "module worker: push, pull and pushpull: $STEP_W workers, $STEP_CS-byte chunks${STEP_K:+, round $STEP_K}" \
			mrun "$STEP_W" "$STEP_CS" $STEP_K
		;;
	esac
done
/usr/bin/python3 "$(dirname "$0")/wire-bench-json.py" "$res" two-vm |
	tee "$RW_OUT/bench.json"
wb_check_module "$RW_OUT/bench.json" "$ROUNDS" "$RUNS"
t_done
