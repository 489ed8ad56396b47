#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# Training over the wire, the box's side: a remote worker (wire-peer's
# train mode, raw verbs) and a local one (wire-local, librackweave) train
# one job under BSP. The remote worker's gradients arrive by RDMA WRITE
# WITH IMMEDIATE straight into its slots, its parameters go back the same
# way, and both end with the exact result (every value is exact in single
# precision) and the same bytes. Two remote workers then train a job
# alone, iteration by iteration and then streaming (a chunk pushed again
# as soon as it is answered), and four remote workers train one as four
# local ones train another: all eight end with the same exact bytes. A peer that breaks the protocol (a chunk id beyond the model, a
# chunk pushed twice, a window that does not fit, one connection of two
# pushing the other's chunk) is refused or disconnected alone, and the job
# trains on with a new peer.
# A rank's keys reach its own slots only (each connection has its own
# protection domain): rank 1 writing into rank 0's slot with rank 0's key,
# another job's peer doing the same, and a write past a peer's own window
# all fail at the peer, and the box closes that connection, logs why and
# counts it; rank 0's gradient is untouched. Every violation is counted
# once, by kind (listen show).
#
# Same-device loopback over rxe0, as in wire-listen.sh (the reason is
# there); the two-VM test covers separate hosts.
. "$(dirname "$0")/lib.sh"

ITERS=5

rw_wire_up $BOX
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
head -c 32 /dev/urandom >"$RW_OUT/token"

# viol: the listener's connections closed for violations, by kind, as
# listen show's text has them ("proto 3, access 1"; no Python: a guest's
# python3 takes seconds to start).
viol() {
	"$RWCTL" listen show | sed -n 's/^  closed for violations [0-9]*: //p'
}

# job NAME [WORKERS]: a BSP job (two workers unless told) whose SGD
# makes every value exact.
job() {
	"$RWCTL" job add "$1" workers "${2:-2}" chunk-size 4096 optim sgd \
		lr 0.5 token-file "$RW_OUT/token"
}

# remote JOB RANK LOG [FAULT]: a remote worker in the background, one of
# $W workers (2 unless set).
remote() {
	local req
	req=$($REQ "$1" "$RW_OUT/token" "$2" $REQ_OPTS) || return 1
	"$PEER" $BOX $BOX $PORT "$req" train "$2" "${W:-2}" $ITERS $4 \
		>"$3" 2>&1 &
}

# --- a local and a remote worker ---
t_ok "job add mix" job mix
remote mix 1 "$RW_OUT/mix-remote.log"
rpid=$!
"$LOCAL" mix "$RW_OUT/token" 0 2 $ITERS >"$RW_OUT/mix-local.log" 2>&1 &
lpid=$!
wait $lpid
wait $rpid
t_eq "local worker: exact after $ITERS iterations" "trained $ITERS exact" \
	"$(rw_wire_result "$RW_OUT/mix-local.log")"
t_eq "remote worker: accepted, exact" "accepted trained $ITERS exact" \
	"$(head -n 1 "$RW_OUT/mix-remote.log") $(rw_wire_result "$RW_OUT/mix-remote.log")"
t_eq "both hold the same parameter bytes" "$(rw_wire_hash "$RW_OUT/mix-local.log")" \
	"$(rw_wire_hash "$RW_OUT/mix-remote.log")"
chunks=$(sed -n 's/^set up \([0-9]*\) chunks$/\1/p' "$RW_OUT/mix-remote.log")
t_eq "the remote rank pushed every chunk every iteration" $((chunks * ITERS)) \
	"$("$RWCTL" -j stats show mix | jpy '[w["chunks"] for w in d["workers"] if w["rank"] == 1][0]')"
t_eq "stats show: the remote rank pulled once per iteration, as the local one" \
	"[$ITERS, $ITERS]" \
	"$("$RWCTL" -j stats show mix | jpy '[w["pulls"] for w in sorted(d["workers"], key=lambda w: w["rank"])]')"

# --- the box's counters of a connection ---
t_ok "job add count" job count
req=$($REQ count "$RW_OUT/token" 1)
coproc HOLD { exec "$PEER" $BOX $BOX $PORT "$req" train 1 2 $ITERS hold >"$RW_OUT/count-remote.log" 2>&1; }
hold_fd=${HOLD[1]}
hold_pid=$HOLD_PID
"$LOCAL" count "$RW_OUT/token" 0 2 $ITERS >"$RW_OUT/count-local.log" 2>&1
for _ in $(seq 100); do
	grep -q trained "$RW_OUT/count-remote.log" && break
	sleep 0.1
done
t_eq "held remote worker: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/count-remote.log")"
t_eq "listen show: pushes, parameter writes and control messages of the connection" \
	"[$((chunks * ITERS)), $((chunks * (ITERS + 1))), 2]" \
	"$("$RWCTL" -j listen show | jpy '[[c["pushes"], c["writes"], c["messages"]] for c in d["connections"]][0]')"
exec {hold_fd}>&-
wait "$hold_pid"

# --- two remote workers ---
t_ok "job add far" job far
remote far 0 "$RW_OUT/far0.log"
p0=$!
remote far 1 "$RW_OUT/far1.log"
p1=$!
wait $p0
wait $p1
t_eq "rank 0 remote: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/far0.log")"
t_eq "rank 1 remote: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/far1.log")"
t_eq "... the same bytes" "$(rw_wire_hash "$RW_OUT/far0.log")" "$(rw_wire_hash "$RW_OUT/far1.log")"

# --- two remote workers streaming ---
# Each pushes a chunk's next gradient as soon as its answer is in, so the
# box sees it before the last pushes of the iteration; it waits for them
# (it once took it for a chunk pushed twice and closed the connection).
t_ok "job add flow" job flow
remote flow 0 "$RW_OUT/flow0.log" stream
p0=$!
remote flow 1 "$RW_OUT/flow1.log" stream
p1=$!
wait $p0
wait $p1
t_eq "streaming, rank 0: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/flow0.log")"
t_eq "streaming, rank 1: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/flow1.log")"
t_eq "... the bytes of the two that went iteration by iteration" \
	"$(rw_wire_hash "$RW_OUT/far0.log") $(rw_wire_hash "$RW_OUT/far0.log")" \
	"$(rw_wire_hash "$RW_OUT/flow0.log") $(rw_wire_hash "$RW_OUT/flow1.log")"

# --- four remote workers, and four local ones: the same bytes ---
t_ok "job add four (4 workers)" job four 4
t_ok "job add four-local (4 workers)" job four-local 4
pids=
for r in 0 1 2 3; do
	W=4 remote four $r "$RW_OUT/four$r.log"
	pids="$pids $!"
	"$LOCAL" four-local "$RW_OUT/token" $r 4 $ITERS \
		>"$RW_OUT/four-local$r.log" 2>&1 &
	pids="$pids $!"
done
wait $pids
t_eq "four remote workers: exact" \
	"$(printf 'trained %s exact\n' $ITERS $ITERS $ITERS $ITERS)" \
	"$(for r in 0 1 2 3; do rw_wire_result "$RW_OUT/four$r.log"; done)"
t_eq "four local workers: exact" \
	"$(printf 'trained %s exact\n' $ITERS $ITERS $ITERS $ITERS)" \
	"$(for r in 0 1 2 3; do rw_wire_result "$RW_OUT/four-local$r.log"; done)"
t_eq "all eight hold the same parameter bytes" 1 \
	"$(for r in 0 1 2 3; do rw_wire_hash "$RW_OUT/four$r.log"; rw_wire_hash "$RW_OUT/four-local$r.log"; done | sort -u | wc -l)"

# --- peers that break the protocol, each alone ---
t_ok "job add bad" job bad
remote bad 1 "$RW_OUT/bad-window.log" bad-window
wait $!
t_eq "a window smaller than the model: refused EINVAL" "refused EINVAL" \
	"$(tail -n 1 "$RW_OUT/bad-window.log")"
remote bad 1 "$RW_OUT/bad-imm.log" bad-imm
wait $!
t_eq "a chunk id beyond the model: disconnected" disconnected \
	"$(tail -n 1 "$RW_OUT/bad-imm.log")"
t_ok "the box logged why" sh -c "dmesg | grep -q 'bad immediate: closing'"
REQ_OPTS="nic 0 nr-nics 2 session 7" remote bad 1 "$RW_OUT/other-nic.log" other-nic
wait $!
t_eq "connection 0 of 2 pushing connection 1's chunk: disconnected" \
	disconnected "$(tail -n 1 "$RW_OUT/other-nic.log")"
t_ok "... and the box logged why" \
	sh -c "dmesg | grep -q 'a chunk of another connection or box: closing'"
# Rank 1 left the gate each time; the job still trains, exactly.
remote bad 1 "$RW_OUT/bad-after.log"
rpid=$!
"$LOCAL" bad "$RW_OUT/token" 0 2 $ITERS >"$RW_OUT/bad-local.log" 2>&1 &
lpid=$!
wait $lpid
wait $rpid
t_eq "after them, a good peer and a local worker train exactly" \
	"trained $ITERS exact trained $ITERS exact" \
	"$(rw_wire_result "$RW_OUT/bad-after.log") $(rw_wire_result "$RW_OUT/bad-local.log")"

# The requests of the isolation checks below, in the background meanwhile
# (a python3 start takes seconds; each stays good for 300 s).
reqs=
for jr in iso.0 iso.1 iso2.0 iso2.1; do
	$REQ ${jr%.*} "$RW_OUT/token" ${jr#*.} >"$RW_OUT/req-$jr" &
	reqs="$reqs $!"
done

# A chunk pushed twice lands in a slot still being summed: a job of its
# own, since under BSP that gradient stays in the step (issue of elastic
# membership, not of the wire).
t_ok "job add twice" job twice
remote twice 1 "$RW_OUT/twice.log" twice
wait $!
t_eq "a chunk pushed twice before its answer: disconnected" disconnected \
	"$(tail -n 1 "$RW_OUT/twice.log")"
t_eq "listen show: these three closed for protocol violations" "proto 3" \
	"$(viol)"

# --- a rank writes only into its own slots ---
# gate FILE: a stdin that gives FILE once it exists (made by a rename).
gate() {
	until [ -e "$1" ]; do rw_nap 0.1; done
	cat "$1"
}
# put FILE LINE: make FILE at once, for gate.
put() { echo "$2" >"$1.tmp" && mv "$1.tmp" "$1"; }
# until_line LOG PATTERN: the log has such a line (60 s at most).
until_line() {
	local _
	for _ in $(seq 600); do
		grep -q "$2" "$1" && return 0
		rw_nap 0.1
	done
	return 1
}
# refusal LOG: how a foreign write ended, on one line.
refusal() { tail -n 2 "$1" | tr '\n' ' ' | sed 's/ $//'; }
refused="write failed: remote access error disconnected"
# A refused write with immediate of one packet: the NAK, or, if the box
# closed first, a write never acknowledged (wire-train.c's foreign_write).
refused_imm() {
	case "$(refusal "$1")" in
	"$refused"|"disconnected write failed: Work Request Flushed Error")
		return 0 ;;
	esac
	refusal "$1"
	return 1
}
# logged TEXT...: dmesg has each.
logged() {
	local d t
	d=$(dmesg)
	for t in "$@"; do
		[[ $d == *"$t"* ]] || { echo "not in dmesg: $t"; return 1; }
	done
}
rm -f "$RW_OUT"/go0 "$RW_OUT"/go1 "$RW_OUT"/win	# (an out dir may be reused)
t_ok "job add iso" job iso
t_ok "job add iso2" job iso2
wait $reqs
# All four peers start at once (each start takes seconds here). Rank 0
# of iso waits once set up (it expects to be alone, as it will be);
# rank 1 of iso2 writes just past its own window at once; rank 0 of iso2,
# another job's peer, writes 64 bytes with a push's immediate (one
# packet: the box's receive sees the error) under rank 0's key once it is
# known; rank 1 of iso, set up before rank 0 pushes (so that rank 0's
# first iteration waits for it), writes 4 KiB into rank 0's chunk 0 with
# rank 0's key once rank 0's gradient is in that slot.
gate "$RW_OUT/go0" | "$PEER" $BOX $BOX $PORT "$(cat "$RW_OUT/req-iso.0")" \
	train 0 1 $ITERS wait >"$RW_OUT/iso0.log" 2>&1 &
p0=$!
"$PEER" $BOX $BOX $PORT "$(cat "$RW_OUT/req-iso2.1")" train 1 2 $ITERS \
	past >"$RW_OUT/iso-past.log" 2>&1 &
pb=$!
gate "$RW_OUT/win" | "$PEER" $BOX $BOX $PORT "$(cat "$RW_OUT/req-iso2.0")" \
	train 0 2 $ITERS foreign-imm >"$RW_OUT/iso-job.log" 2>&1 &
pa=$!
gate "$RW_OUT/go1" | "$PEER" $BOX $BOX $PORT "$(cat "$RW_OUT/req-iso.1")" \
	train 1 2 $ITERS foreign >"$RW_OUT/iso1.log" 2>&1 &
p1=$!
t_ok "rank 0 set up: the address and key of its chunk 0" \
	until_line "$RW_OUT/iso0.log" '^window '
win=$(grep '^window ' "$RW_OUT/iso0.log")
put "$RW_OUT/win" "$win"
wait $pa
wait $pb
t_ok "another job's peer with rank 0's key: failed, disconnected" \
	refused_imm "$RW_OUT/iso-job.log"
t_eq "a peer writing past its own window: failed, disconnected" \
	"$refused" "$(refusal "$RW_OUT/iso-past.log")"
t_eq "listen show: two access violations" "proto 3, access 2" "$(viol)"
t_ok "rank 1 set up" until_line "$RW_OUT/iso1.log" '^set up '
put "$RW_OUT/go0" ""
t_ok "rank 0 pushed its first iteration, which waits for rank 1" \
	until_line "$RW_OUT/iso0.log" '^pushed$'
put "$RW_OUT/go1" "$win"
wait $p1
t_eq "rank 1 writing 4 KiB into rank 0's slot with rank 0's key: failed, disconnected" \
	"$refused" "$(refusal "$RW_OUT/iso1.log")"
t_eq "listen show: exactly one access violation more" "proto 3, access 3" \
	"$(viol)"
wait $p0
t_eq "rank 0's gradient untouched: alone once rank 1 is gone, exact" \
	"trained $ITERS exact" "$(rw_wire_result "$RW_OUT/iso0.log")"
t_ok "both ranks are free" rw_until_attached iso 0
t_ok "the box logged each: job, rank, remote access error" logged \
	"job iso rank 1: remote access error" \
	"job iso2 rank 0: remote access error" \
	"job iso2 rank 1: remote access error"

t_ok "job del with everyone gone" sh -c "for j in mix count far flow four four-local bad twice iso iso2; do '$RWCTL' job del \$j || exit 1; done"
t_ok "rmmod rackweave" rmmod rackweave
t_done
