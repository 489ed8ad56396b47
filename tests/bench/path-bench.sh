#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --mem 2048
# (Measured alone by scripts/bench-path; beside other VMs in make check,
# which checks its output, not its figures.)
#
# The guest half of scripts/bench-path: W local workers train a 64 MiB
# model under BSP through the module, against the user-space reference
# that moves the same bytes and runs the same kmod/agg code on the same
# CPUs (tests/bench/path-bench.c), in trials that alternate and pair up;
# then one more traced trial says where a chunk's path goes
# (path-report.py). Prints one line "BENCH-JSON {...}" for the host
# script; its checks keep the output's contract, never a speed.
#
#   path-bench.sh [--full] [--pairs N] [--iters N]
#
# Without --full: 4 workers, 32 KiB chunks, one pair of one timed step
# (the smoke test make check runs: about a minute of VM time on a quiet
# host). --full: 1, 2, 4 and 8 workers, chunks of 4 KiB, 32 KiB, 256 KiB
# and 1 MiB, 3 pairs of 2 steps.
. "$(dirname "$0")/../vm/lib.sh"

BENCH=$RW_TOP/build/tests/bench/path-bench
REPORT="/usr/bin/python3 $RW_TOP/tests/bench/path-report.py"
T=/sys/kernel/tracing
MIB=64
WS=4 CHUNKS=32768 PAIRS=1 ITERS=1
while [ $# -gt 0 ]; do
	case $1 in
	--full) WS="1 2 4 8" CHUNKS="4096 32768 262144 1048576" PAIRS=3 ITERS=2 ;;
	--pairs) PAIRS=$2; shift ;;
	--iters) ITERS=$2; shift ;;
	*) echo "usage: path-bench.sh [--full] [--pairs N] [--iters N]" >&2; exit 2 ;;
	esac
	shift
done
# A trial of W workers holds 1 + W copies of the model (parameters and a
# slot per worker), in the module or in the reference's shared memory.
echo "# model ${MIB} MiB, W: $WS, chunks: $CHUNKS, $PAIRS pairs of $ITERS steps"

t_ok "load ib_core, rdma_cm and rackweave.ko" rw_load
head -c 32 /dev/urandom >"$RW_OUT/token"
impl=$("$RWCTL" status | sed -n 's/^ *aggregation: //p')
t_ok "the module chose an aggregation implementation ($impl)" test -n "$impl"
res=$RW_OUT/results
: >"$res"

# max-memory: --full's 8 workers take 9 copies of the model, past the
# default (half the box's budget); the budget itself has room.
job() {
	"$RWCTL" job add "$1" workers "$2" chunk-size "$3" sync bsp \
		optim sgd lr 0.001 max-memory 768M token-file "$RW_OUT/token"
}
# trial rw|ref W CHUNK: one trial, its line appended to the results.
trial() {
	local out t0=$EPOCHREALTIME
	if [ "$1" = rw ]; then
		out=$("$BENCH" rw "p$2-$3" "$RW_OUT/token" "$2" $MIB "$ITERS") || return 1
	else
		out=$("$BENCH" ref "$2" $MIB "$3" "$ITERS" "$impl") || return 1
	fi
	echo "$out" >>"$res"
	echo "# $out (trial wall $(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 )) ms)"
}
# pairs W CHUNK: PAIRS pairs, each a RackWeave and a reference trial, the
# order swapped from one pair to the next so that drift within a pair
# hits both sides alike.
pairs() {
	local p
	job "p$1-$2" "$1" "$2" || return 1
	for p in $(seq "$PAIRS"); do
		if [ $((p % 2)) = 1 ]; then
			trial rw "$1" "$2" && trial ref "$1" "$2" || return 1
		else
			trial ref "$1" "$2" && trial rw "$1" "$2" || return 1
		fi
	done
}
for w in $WS; do
	for cs in $CHUNKS; do
		t_ok "$PAIRS pairs: $w workers, $cs-byte chunks" pairs "$w" "$cs"
	done
done

# One traced RackWeave trial of 4 workers and 32 KiB chunks: the events a
# chunk's path passes, for its timed steps only (path-bench turns tracing
# on and off); 16 MiB per CPU of buffer (2048 chunks and 4 workers make
# about 2 MiB a step).
traced() {
	local e rc
	mountpoint -q $T || mount -t tracefs nodev $T
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 16384 >$T/buffer_size_kb
	for e in rw_xfer rw_xfer_done rw_push rw_arrive rw_step rw_publish \
		rw_gate_wait rw_gate_release; do
		echo 1 >$T/events/rackweave/$e/enable
	done
	PATH_BENCH_TRACE=$T "$BENCH" rw p4-32768 "$RW_OUT/token" 4 $MIB "$ITERS" \
		>"$RW_OUT/traced.log" 2>&1
	rc=$?
	echo 0 >$T/events/rackweave/enable
	cat $T/trace >"$RW_OUT/trace.txt"
	echo 1408 >$T/buffer_size_kb
	sed 's/^/# traced: /' "$RW_OUT/traced.log"
	grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' "$RW_OUT/trace.txt" ||
		{ echo "# the trace buffer overflowed"; return 1; }
	return $rc
}
"$RWCTL" job show p4-32768 >/dev/null 2>&1 || job p4-32768 4 32768
t_ok "a traced trial: 4 workers, 32768-byte chunks" traced

$REPORT --check $(($(wc -w <<<"$WS") * $(wc -w <<<"$CHUNKS"))) "$res" $MIB \
	"$RW_OUT/trace.txt" 4 32768 >"$RW_OUT/report"
grep '^BENCH-JSON ' "$RW_OUT/report" | tee "$RW_OUT/bench.json"

sed 's/^/# /' "$res"

# The contract scripts/bench-path --help documents, checked by
# path-report.py --check on the line it printed (python starts slowly
# under TCG: one interpreter for the report and its checks). It must be
# able to fail, so every key is looked at.
checks=$(sed -n 's/^CHECKS //p' "$RW_OUT/report")
read -r c_ratio c_rows c_break c_same <<<"$checks"
t_eq "path_ratio_w4_32k is a positive number" True "$c_ratio"
t_eq "a row per configuration, each with every key, ratios positive" True "$c_rows"
t_eq "the breakdown has every key, W 4 and 32 KiB, times positive" True "$c_break"
t_eq "the module and the reference computed the same parameters" True "$c_same"
for w in $WS; do
	for cs in $CHUNKS; do
		"$RWCTL" job del "p$w-$cs"
	done
done
t_ok "rmmod rackweave" rmmod rackweave
t_done
