#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A job spread over three boxes (docs/design.md "Many boxes"): three box
# VMs hold the same jobs with the set 1@box1,2@box2,3@box3, and two
# trainers on the worker VM attach to all three (wire-local with
# RW_ATTACH_BOXES, the wire tests' model: 23 chunks of 4 KiB).
# - SGD: both ranks end with the exact result (wire-model.h), as on one
#   box; momentum: the same bytes as the same run on box1 alone.
# - While the momentum ranks stay attached each box shows its share: its
#   owned bytes within 10 % of a third, what its run is charged under half
#   of the whole run's on box1, and it took its own chunks of every
#   iteration from each rank and no other.
# - SSP (bound 1) and adaptive (band 1..3) with a slow rank 1: every box's
#   gate keeps its bound (max skew from each box's stats).
# - Refused, each with EXDEV or its own errno, and the job trains on after:
#   an attachment naming one box, or two of the three; a local trainer on a
#   box; boxes that disagree on the set (box3 named at another port); a box that is
#   not there at attach.
# - A job-wide checkpoint: rank 0 saves the momentum run over the three
#   boxes from the worker host (each box's own chunks put together into
#   one image); a new run over the boxes restores it and so does the job
#   whole on box1, both ending with the straight run's bytes.
# - rwctl stats sum over the boxes' stats show counts every chunk of every
#   iteration once, and refuses two boxes of the three.
# - Python: Worker(boxes=[...]) trains a small MLP on the digits over the
#   three boxes (shard-digits.py).
# - A move ordered during a run (policy set ... boxes): refused for an
#   epoch skipped, another id for this box, removing the set, or while
#   one is pending; shown pending by job show; the job's set once the run
#   ends. A momentum run of three iterations ends with a move ordered (the
#   same boxes, epoch 2): each box tells both ranks' hosts of it (a MOVE
#   notice each), keeps its chunks, and the next run goes on from step 3
#   and ends as the straight six-iteration run.
# - A box joins, a box leaves, inside one run (job grow): six momentum
#   iterations, the trainers attached once to boxes 1 and 2. Box 3 is
#   ordered in before iteration 2: rank 0's host asks the boundary, the
#   old boxes end their run there and give box 3 its chunks box to box
#   (what they gave is what it took, about a third), and both hosts
#   switch to the three boxes under the same buffers, rank 1 pushing its
#   iteration 2 again. Box 1 is ordered out before iteration 4 and gives
#   every chunk it had. The run ends as the straight six-iteration one,
#   and a trainer naming the first set (boxes 1 and 2) is refused.
# cluster-roles: box1 box2 box3 worker
# vm-timeout: 900
RW_TEST_NAME=cluster-shard-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

B1=$(rw_cluster_ip box1)
B2=$(rw_cluster_ip box2)
B3=$(rw_cluster_ip box3)
ME=$(rw_cluster_ip "$RW_ROLE")
SET=1@$B1,2@$B2,3@$B3
ALL=$B1,$B2,$B3
TOKEN=$RW_CLUSTER/token
ITERS=6
LOCAL=$RW_TOP/build/tests/vm/wire-local

rw_wire_up "$ME" --eth0

if [ "$RW_ROLE" != worker ]; then
	id=${RW_ROLE#box}
	# jobs: every job of the test on this box, with the set.
	jobs() {
		local j
		for j in "sgd3 2 optim sgd lr 0.5" "mom3 2 optim momentum lr 0.5 momentum 0.5" \
			"ssp3 2 sync ssp 1 optim sgd lr 0.5" "ada3 2 sync adaptive 1 3 optim sgd lr 0.5" \
			"dig3 1 optim sgd lr 0.2" "mv3 2 optim momentum lr 0.5 momentum 0.5"; do
			set -- $j
			local name=$1 w=$2
			shift 2
			"$RWCTL" job add "$name" workers "$w" chunk-size 4096 token-file "$TOKEN" \
				"$@" boxes "$SET" self "$id" >/dev/null || return 1
		done
	}
	t_ok "the jobs, with the set, this box $id" jobs
	# grow: boxes 1 and 2 first; box 3 holds it in the set it joins.
	if [ "$id" = 3 ]; then
		t_ok "job add grow: box 3 joins it at epoch 2" "$RWCTL" job add grow workers 2 \
			chunk-size 4096 token-file "$TOKEN" optim momentum lr 0.5 momentum 0.5 \
			boxes "$SET" self 3 epoch 2
	else
		t_ok "job add grow on boxes 1 and 2" "$RWCTL" job add grow workers 2 \
			chunk-size 4096 token-file "$TOKEN" optim momentum lr 0.5 momentum 0.5 \
			boxes "1@$B1,2@$B2" self "$id"
	fi
	# Box 3 holds skew3 in a set that names it at another port: the
	# boxes disagree (a set at another epoch would be one box 3 joins).
	if [ "$id" = 3 ]; then
		t_ok "job add skew3, box 3 at port 7000 here" "$RWCTL" job add skew3 workers 2 \
			chunk-size 4096 token-file "$TOKEN" boxes "1@$B1,2@$B2,3@$B3:7000" self 3
	else
		t_ok "job add skew3, epoch 1 here" "$RWCTL" job add skew3 workers 2 \
			chunk-size 4096 token-file "$TOKEN" boxes "$SET" self "$id"
	fi
	if [ "$id" = 1 ]; then
		t_ok "job add mom1: the momentum job whole on this box" "$RWCTL" job add mom1 \
			workers 2 chunk-size 4096 token-file "$TOKEN" optim momentum lr 0.5 momentum 0.5
	fi
	t_eq "topo show: the set, epoch 1, this box $id" "1 $id [1, 2, 3]" \
		"$("$RWCTL" -j topo show sgd3 | jpy '"%d %d %s" % (d["box_set"]["epoch"], d["box_set"]["self"], [b["id"] for b in d["box_set"]["boxes"]])')"
	t_eq "a local trainer of a job over several boxes is refused" \
		"error: declare: the job is spread over several boxes" \
		"$("$LOCAL" sgd3 "$TOKEN" 0 2 1 2>&1 | cut -d'(' -f1 | cut -d: -f1-3)"
	t_ok "listen add $ME" "$RWCTL" listen add "$ME"
	touch "$RW_OUT/ready"

	# While ada3 runs (its last run), a move of its set: box 1 adds a
	# fourth box, box 2 leaves (each its own order: nothing runs on ada3
	# after). Refused first: an epoch skipped, another id for this box,
	# removing the set; then the order, shown pending, and a second one
	# refused while it is. The run's end takes it.
	move_to() {
		"$RWCTL" -j job show ada3 | jpy '"%d %d %s" % (d["jobs"][0]["move_to"]["epoch"], d["jobs"][0]["move_to"]["self"], [b["id"] for b in d["jobs"][0]["move_to"]["boxes"]])'
	}
	move_order() {
		local msg
		case $id in
		1)
			msg=$("$RWCTL" policy set ada3 boxes "$SET" self 1 epoch 3 2>&1)
			t_ok "a move skipping an epoch: refused ($msg)" \
				grep -qF "a move's set has the epoch after the job's" <<<"$msg"
			msg=$("$RWCTL" policy set ada3 boxes "$SET" self 2 2>&1)
			t_ok "a move naming this box by another id: refused ($msg)" \
				grep -qF "in a move, this box's id is its id in the job's set" <<<"$msg"
			msg=$("$RWCTL" policy set ada3 boxes none 2>&1)
			t_ok "removing the set during a run: refused ($msg)" \
				grep -qF "a job's box set is removed between runs" <<<"$msg"
			t_eq "... none of them is pending" false \
				"$("$RWCTL" -j job show ada3 | jpy '"move_to" in d["jobs"][0]')" ;;
		esac
		t_ok "policy set during the run: the same boxes at epoch 2, pending" \
			"$RWCTL" policy set ada3 boxes "$SET" self "$id"
		t_eq "job show: the move to epoch 2, this box $id" "2 $id [1, 2, 3]" "$(move_to)"
		t_ok "job show in text: the move" sh -c \
			"'$RWCTL' job show ada3 | grep -qF 'moving (when the run ends) to box set epoch 2, 3 boxes, this box is $id:'"
		msg=$("$RWCTL" policy set ada3 boxes "$SET" self "$id" 2>&1)
		t_ok "a second move while one is pending: refused ($msg)" \
			grep -qF "the job is moving to another box set already" <<<"$msg"
		t_eq "... the first still pending" "2 $id [1, 2, 3]" "$(move_to)"
	}

	t_ok "the worker's momentum ranks hold" rw_await worker mom3-holding 300
	topo=$("$RWCTL" -j topo show mom3)
	share=$(printf '%s' "$topo" | jpy 'round(3 * [b["bytes"] for b in d["box_set"]["boxes"] if b["self"]][0] / sum(b["bytes"] for b in d["box_set"]["boxes"]), 3)')
	mine=$(printf '%s' "$topo" | jpy '[b["chunks"] for b in d["box_set"]["boxes"] if b["self"]][0]')
	total=$(printf '%s' "$topo" | jpy 'sum(b["chunks"] for b in d["box_set"]["boxes"])')
	t_ok "this box owns 1/3 of the bytes to 10 % ($share of a third; $mine of $total chunks)" \
		/usr/bin/python3 -c "import sys; sys.exit(abs(float('$share') - 1) > 0.1)"
	"$RWCTL" -j job show mom3 | jpy 'd["jobs"][0]["memory"]' >"$RW_OUT/mom3-memory"
	"$RWCTL" -j stats show mom3 >"$RW_OUT/mom3-stats.json"
	echo "$mine" >"$RW_OUT/mom3-chunks"
	t_eq "it took its own chunks of every iteration from each rank" \
		"$((mine * ITERS)) $((mine * ITERS))" \
		"$("$RWCTL" -j listen show | jpy '" ".join(str(c["pushes"]) for c in sorted(d["connections"], key=lambda c: c["rank"]) if c["job"] == "mom3")')"
	touch "$RW_OUT/mom3-checked"

	if [ "$id" = 1 ]; then
		t_ok "the worker's whole-box ranks hold" rw_await worker mom1-holding 300
		whole=$("$RWCTL" -j job show mom1 | jpy 'd["jobs"][0]["memory"]')
		t_ok "each box's run is charged under half of the whole run's ($whole bytes): $(cat "$RW_CLUSTER"/box[123]/mom3-memory | tr '\n' ' ')" \
			sh -c "for f in '$RW_CLUSTER'/box[123]/mom3-memory; do [ \$((\$(cat \$f) * 2)) -lt $whole ] || exit 1; done"
		t_eq "stats sum over the three boxes: every chunk of every iteration from both ranks, once" \
			"3 $((23 * ITERS * 2))" \
			"$("$RWCTL" -j stats sum "$RW_CLUSTER"/box[123]/mom3-stats.json | jpy '"%d %d" % (d["boxes"], d["totals"]["chunks"])')"
		t_fails "stats sum refuses two boxes of three" \
			"$RWCTL" stats sum "$RW_CLUSTER"/box[12]/mom3-stats.json
		t_eq "the three boxes own every chunk once" 23 \
			"$(($(cat "$RW_CLUSTER/box1/mom3-chunks") + $(cat "$RW_CLUSTER/box2/mom3-chunks") + $(cat "$RW_CLUSTER/box3/mom3-chunks")))"
		touch "$RW_OUT/mom1-checked"
	fi

	for j in ssp3 ada3; do
		bound=1
		[ $j = ada3 ] && bound=3
		t_ok "the worker's $j ranks hold" rw_await worker $j-holding 300
		skew=$("$RWCTL" -j stats show $j | grep -o '"max_skew": *[0-9]*' | head -n 1 | grep -o '[0-9]*$')
		t_ok "$j: this box's gate kept the skew within $bound (max_skew ${skew:-none})" \
			test "${skew:-99}" -le $bound
		[ $j = ada3 ] && move_order
		touch "$RW_OUT/$j-checked"
	done
	t_ok "the worker's mv3 ranks hold, three iterations in" rw_await worker mv3a-holding 300
	t_ok "mv3: a move to the same boxes at epoch 2, ordered during the run" \
		"$RWCTL" policy set mv3 boxes "$SET" self "$id"
	touch "$RW_OUT/mv3-ordered"

	# The chunks this box gave (out) and took (in) in the move to EPOCH.
	grow_count() {
		dmesg | sed -n "s/.*job grow: $2 \([0-9]*\) chunks .*epoch $1\b.*/\1/p" |
			awk '{ n += $1 } END { print n + 0 }'
	}
	t_ok "the worker's grow ranks wait before iteration 2, on boxes 1 and 2" \
		rw_await worker gr1-holding 300
	if [ "$id" != 3 ]; then
		t_ok "grow: box 3 joins, ordered during the run" \
			"$RWCTL" policy set grow boxes "$SET" self "$id"
	fi
	touch "$RW_OUT/grow-ordered"
	t_ok "grow: the move to epoch 2 settled here" rw_move_wait grow 2 $((id == 3))
	echo "$(grow_count 2 gave) $(grow_count 2 took)" >"$RW_OUT/grow-2"
	touch "$RW_OUT/grow-moved"
	if [ "$id" != 3 ]; then
		t_ok "grow: the run ended before its iteration 2 here" sh -c \
			"dmesg | grep -q 'job grow: the move to epoch 2 ends the run before its iteration 2\$'"
	fi
	t_ok "the worker's grow ranks wait before iteration 4, on three boxes" \
		rw_await worker gr2-holding 300
	mine=$("$RWCTL" -j topo show grow | jpy '[b["chunks"] for b in d["box_set"]["boxes"] if b["self"]][0]')
	t_ok "grow: box 1 leaves, ordered during the run" \
		"$RWCTL" policy set grow boxes "2@$B2,3@$B3" self "$id"
	touch "$RW_OUT/grow-drain-ordered"
	t_ok "grow: the move to epoch 3 settled here" rw_move_wait grow 3
	if [ "$id" = 1 ]; then
		t_eq "grow: box 1 gave every chunk it had" "$mine" "$(grow_count 3 gave)"
		t_eq "grow: box 1 is out of the job's set" "3 0" \
			"$("$RWCTL" -j job show grow | jpy '"%d %d" % (d["jobs"][0]["box_set"]["epoch"], d["jobs"][0]["box_set"]["self"])')"
	fi
	echo "$(grow_count 3 gave) $(grow_count 3 took)" >"$RW_OUT/grow-3"
	read -r g2 t2 <"$RW_OUT/grow-2"
	read -r g3 t3 <"$RW_OUT/grow-3"
	t_eq "grow: stats show counts the chunks this box gave and took" \
		"$((g2 + g3)) $((t2 + t3))" \
		"$("$RWCTL" -j stats show grow | jpy '"%d %d" % (d["totals"]["moved_out"], d["totals"]["moved_in"])')"
	touch "$RW_OUT/grow-drained"
	t_ok "the worker is done" rw_await worker done 600
	for j in ada3 mv3; do
		t_eq "$j: the run's end took the move" "False 2 $id [1, 2, 3]" \
			"$("$RWCTL" -j job show $j | jpy '"%s %d %d %s" % ("move_to" in d["jobs"][0], d["jobs"][0]["box_set"]["epoch"], d["jobs"][0]["box_set"]["self"], [b["id"] for b in d["jobs"][0]["box_set"]["boxes"]])')"
	done
	t_ok "mv3: the first run's end kept this box's chunks for the move" sh -c \
		"dmesg | grep -q 'job mv3: kept [0-9]* chunks of its run for the move to epoch 2'"
	t_eq "mv3: the next run took them: nothing kept now" "0" \
		"$("$RWCTL" -j job show mv3 | jpy 'd["jobs"][0]["memory"]')"
	t_ok "job del every job" sh -c \
		"for j in sgd3 mom3 ssp3 ada3 dig3 skew3 mv3 grow \$( [ $id = 1 ] && echo mom1); do '$RWCTL' job del \$j || exit 1; done"
	t_ok "rmmod rackweave" rmmod rackweave
else
	for b in box1 box2 box3; do
		t_ok "$b listens" rw_await $b ready 300
	done
	# pair TAG JOB ADDRS [ENV...]: ranks 0 and 1 of JOB; 0 if both exit 0.
	# WIRE_LOCAL_BOXES=1 in ENV: ADDRS are every box of a set. With SLOW_MS
	# set, rank 1 sleeps that long before each iteration's push.
	pair() {
		local tag=$1 job=$2 addrs=$3 r rc=0 pids=()
		shift 3
		for r in 0 1; do
			env "$@" WIRE_LOCAL_TIMEOUT_MS=120000 \
				WIRE_LOCAL_SLEEP_MS=$((r * ${SLOW_MS:-0})) \
				"$LOCAL" "$job" "$TOKEN" $r 2 $ITERS "$addrs" \
				>"$RW_OUT/$tag-$r.log" 2>&1 &
			pids+=($!)
		done
		for r in "${pids[@]}"; do
			wait "$r" || rc=1
		done
		[ $rc = 0 ] || tail -n 3 "$RW_OUT/$tag"-[01].log | sed 's/^/#   /'
		return $rc
	}
	hash_of() { sed -n 's/^trained [0-9]* [a-z]* \([0-9a-f]*\)$/\1/p' "$RW_OUT/$1.log"; }
	# held TAG JOB ADDRS [ENV...]: the pair in the background, staying
	# attached once trained; TAG-holding says so to the boxes, and
	# release TAG ends it (the pair's status).
	held() {
		local tag=$1
		pair "$@" WIRE_LOCAL_HOLD="$RW_OUT/release-$tag" &
		eval "held_$tag=\$!"
		for _ in $(seq 600); do
			[ "$(cat "$RW_OUT/$tag"-[01].log 2>/dev/null | grep -c '^trained')" = 2 ] && break
			sleep 0.2
		done
		touch "$RW_OUT/$tag-holding"
	}
	release() {
		touch "$RW_OUT/release-$1"
		eval "wait \$held_$1"
	}

	t_ok "SGD over three boxes: both ranks trained" pair sgd sgd3 "$ALL" WIRE_LOCAL_BOXES=1
	t_eq "... exactly the one-box result, both" "trained $ITERS exact trained $ITERS exact" \
		"$(cut -d' ' -f1-3 "$RW_OUT/sgd-0.log") $(cut -d' ' -f1-3 "$RW_OUT/sgd-1.log")"

	held mom3 mom3 "$ALL" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_ANY=1
	for b in box1 box2 box3; do
		t_ok "$b checked its share" rw_await $b mom3-checked 300
	done
	release mom3
	t_eq "momentum over three boxes: both ranks trained" 0 $?

	held mom1 mom1 "$B1" WIRE_LOCAL_ANY=1
	t_ok "box1 compared the memory" rw_await box1 mom1-checked 300
	release mom1
	t_eq "the momentum job whole on box1: both ranks trained" 0 $?
	t_ok "three boxes end with box1's bytes alone ($(hash_of mom1-0))" \
		test -n "$(hash_of mom1-0)" -a "$(hash_of mom3-0)" = "$(hash_of mom1-0)" \
		-a "$(hash_of mom3-1)" = "$(hash_of mom1-0)"

	# refused HOW JOB ADDRS: rank 0 alone, expected to fail; its error.
	refused() {
		local env=$1
		shift
		env $env WIRE_LOCAL_TIMEOUT_MS=20000 "$LOCAL" "$1" "$TOKEN" 0 2 1 "$2" 2>&1 |
			cut -d'(' -f1 | cut -d: -f1-3
	}
	t_eq "naming one box of three: refused" \
		"error: declare: the job is spread over several boxes" \
		"$(refused WIRE_LOCAL_X=1 sgd3 "$B1")"
	t_eq "naming two of the three: refused" \
		"error: declare: the job is spread over several boxes" \
		"$(refused WIRE_LOCAL_BOXES=1 sgd3 "$B1,$B2")"
	t_eq "boxes that disagree on the set: refused" \
		"error: declare: the job is spread over several boxes" \
		"$(refused WIRE_LOCAL_BOXES=1 skew3 "$ALL")"
	t_ok "a box that is not there: the attach fails" sh -c \
		"WIRE_LOCAL_BOXES=1 '$LOCAL' sgd3 '$TOKEN' 0 2 1 '$ALL,10.88.0.99' | grep -q '^error: attach: '"
	t_ok "... and the job trains on: SGD exact again" pair sgd-again sgd3 "$ALL" WIRE_LOCAL_BOXES=1
	t_eq "... both" "trained $ITERS exact trained $ITERS exact" \
		"$(cut -d' ' -f1-3 "$RW_OUT/sgd-again-0.log") $(cut -d' ' -f1-3 "$RW_OUT/sgd-again-1.log")"

	# A job-wide checkpoint: rank 0 saves momentum's run over the three
	# boxes from the worker host (each box's own chunks put together), a
	# new run there restores it, and so does the job whole on box1.
	ck=$RW_OUT/mom3.ckpt
	straight=$(hash_of mom3-0)
	t_ok "momentum over three boxes again, rank 0 saving at iteration 2" \
		pair save mom3 "$ALL" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_ANY=1 WIRE_LOCAL_SAVE="2:$ck"
	t_eq "... it saved step 3 and the run ended as the straight one" "saved step 3 $straight" \
		"$(grep -o '^saved step [0-9]*' "$RW_OUT/save-0.log") $(hash_of save-0)"
	t_ok "a new run over the three boxes restores it" \
		pair rs3 mom3 "$ALL" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_ANY=1 WIRE_LOCAL_RESTORE="$ck"
	t_eq "... both ranks go on from step 3 and end as the straight run" \
		"restored step 3 restored step 3 $straight $straight" \
		"$(cat "$RW_OUT/rs3-0.log" "$RW_OUT/rs3-1.log" | grep '^restored' | tr '\n' ' ')$(hash_of rs3-0) $(hash_of rs3-1)"
	t_ok "the job whole on box1 restores the same file" \
		pair rs1 mom1 "$B1" WIRE_LOCAL_ANY=1 WIRE_LOCAL_RESTORE="$ck"
	t_eq "... and ends as the straight run too" "$straight $straight" \
		"$(hash_of rs1-0) $(hash_of rs1-1)"

	# Rank 1 sleeps 100 ms per iteration: rank 0 runs ahead to the bound.
	# Both stay attached until every box has read its gate's max skew.
	for j in ssp3 ada3; do
		SLOW_MS=100 held $j $j "$ALL" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_ANY=1
		for b in box1 box2 box3; do
			rw_await $b $j-checked 300
		done
		release $j
		t_eq "$j over three boxes, rank 1 slow: trained" 0 $?
	done

	# A run ends with a move ordered (the same boxes, epoch 2): each box
	# keeps its chunks of it, and the next run goes on from them.
	ITERS=3 held mv3a mv3 "$ALL" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_ANY=1
	for b in box1 box2 box3; do
		rw_await $b mv3-ordered 300
	done
	t_ok "each box told both ranks' hosts of the move: six notices, each logged" sh -c \
		'for _ in $(seq 100); do [ "$(dmesg | grep -c "job mv3 rank [01]: box [123] says the job moves to box set epoch 2 (3 boxes)")" = 6 ] && exit 0; sleep 0.1; done; exit 1'
	release mv3a
	t_eq "mv3: three iterations of momentum, then a move ordered: trained" 0 $?
	t_ok "a run after the move goes on from the boxes' state" \
		pair mvc mv3 "$ALL" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_ANY=1 WIRE_LOCAL_CONTINUE=1
	t_eq "... both from step 3, ending as the straight run" \
		"continued step 3 continued step 3 $straight $straight" \
		"$(cat "$RW_OUT/mvc-0.log" "$RW_OUT/mvc-1.log" | grep '^continued' | tr '\n' ' ')$(hash_of mvc-0) $(hash_of mvc-1)"

	# grow: one run of six momentum iterations, its trainers never
	# attaching again. Box 3 joins boxes 1 and 2 before iteration 2, box 1
	# leaves before iteration 4: each time the trainers wait while the
	# boxes take the order, then rank 1 goes on first (it pushes the
	# boundary's iteration to the old set, and again to the new one) and
	# rank 0 a second later (it asks the boundary). The run ends as the
	# straight six-iteration one.
	go=$RW_OUT/gr-go
	# notices EPOCH N: N MOVE notices of the move to EPOCH reached the hosts.
	notices() {
		local _
		for _ in $(seq 300); do
			[ "$(dmesg | grep -c "job grow rank [01]: box [123] says the job moves to box set epoch $1 ")" = "$2" ] && return 0
			sleep 0.2
		done
		return 1
	}
	# paused N: both ranks wait before iteration N.
	paused() {
		local _
		for _ in $(seq 1500); do
			[ "$(cat "$RW_OUT"/gr-[01].log 2>/dev/null | grep -c "^paused $1\$")" = 2 ] && return 0
			sleep 0.2
		done
		return 1
	}
	pair gr grow "$B1,$B2" WIRE_LOCAL_BOXES=1 WIRE_LOCAL_ANY=1 \
		WIRE_LOCAL_PAUSE="2:$go-2,4:$go-4" &
	grow_pid=$!
	t_ok "grow: both ranks wait before iteration 2" paused 2
	touch "$RW_OUT/gr1-holding"
	for b in box1 box2 box3; do
		rw_await $b grow-ordered 300
	done
	t_ok "grow: boxes 1 and 2 told both hosts of the move to epoch 2" notices 2 4
	touch "$go-2-1"
	sleep 1
	touch "$go-2-0"
	t_ok "grow: both ranks wait before iteration 4" paused 4
	t_ok "grow: rank 0 switched to the three boxes, pushing nothing again" sh -c \
		"dmesg | grep -q 'job grow rank 0: the run moves to box set epoch 2 (3 boxes) before iteration 2; 0 chunks to push again'"
	t_ok "grow: rank 1 pushed its iteration 2 again to the new set" sh -c \
		"dmesg | grep -q 'job grow rank 1: the run moves to box set epoch 2 (3 boxes) before iteration 2; [1-9][0-9]* chunks to push again'"
	for b in box1 box2 box3; do
		t_ok "grow: $b settled the move to epoch 2" rw_await $b grow-moved 300
	done
	touch "$RW_OUT/gr2-holding"
	# moved EPOCH: each box's chunks given and taken in the move to EPOCH.
	moved() {
		read -r g1 t1 <"$RW_CLUSTER/box1/grow-$1"
		read -r g2 t2 <"$RW_CLUSTER/box2/grow-$1"
		read -r g3 t3 <"$RW_CLUSTER/box3/grow-$1"
	}
	moved 2
	t_eq "grow: the boxes took what they gave" "$((g1 + g2 + g3))" "$((t1 + t2 + t3))"
	t_ok "grow: about a third of the 23 chunks moved to box 3 ($t3)" \
		test "$t3" -ge 5 -a "$t3" -le 12
	for b in box1 box2 box3; do
		rw_await $b grow-drain-ordered 300
	done
	t_ok "grow: the three boxes told both hosts of the move to epoch 3" notices 3 6
	touch "$go-4-1"
	sleep 1
	touch "$go-4-0"
	wait $grow_pid
	t_eq "grow: six iterations in one run over three sets of boxes: trained" 0 $?
	t_eq "grow: ... ending as the straight run" "$straight $straight" \
		"$(hash_of gr-0) $(hash_of gr-1)"
	t_ok "grow: both ranks switched to boxes 2 and 3" sh -c \
		"[ \"\$(dmesg | grep -c 'job grow rank [01]: switched to box set epoch 3 (2 boxes)')\" = 2 ]"
	for b in box1 box2 box3; do
		t_ok "grow: $b settled the move to epoch 3" rw_await $b grow-drained 300
	done
	moved 3
	t_eq "grow: boxes 2 and 3 took what box 1 gave, and box 1 took nothing" \
		"$((g1 + g2 + g3)) 0" "$((t2 + t3)) $t1"
	t_eq "grow: a trainer with the first set (boxes 1 and 2) is refused" \
		"error: declare: the job is spread over several boxes" \
		"$(refused WIRE_LOCAL_BOXES=1 grow "$B1,$B2")"

	t_ok "Python: Worker(boxes=[...]) trains the digits over three boxes" \
		/usr/bin/python3 "$RW_TOP/tests/cluster/shard-digits.py" "$TOKEN" "$ALL" "$RW_OUT"
	touch "$RW_OUT/done"
fi
t_done
