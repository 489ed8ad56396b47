#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checkpoints saved from another host (uapi "Requests", RW_OP_SAVE) and
# remote observers (uapi "Observers"): two softmax-trainers on the worker
# VM train the box VM's job through their own host's module. In the
# momentum run a remote observer thread of rank 0 saves the job's state
# at step 10 (--checkpoint-at with --box: rw_attach_remote_flags(3)), and
# observe-remote.py, another remote observer, watches this host's copy of
# the parameters move during the run and become the final ones within a
# second, is refused a push and an init (EPERM) and saves the finished
# run. In the Adam run rank 0 saves itself between its push of step 10
# and its pull (--save-at: the box takes back the iterations it admitted
# ahead, holds the gate at the boundary and writes the image into the
# worker host's memory over RDMA). Both runs end bit-identical to the
# box's straight local runs. The momentum file restores on the box itself into a
# local run; then the box's module is unloaded and loaded again, and both
# files restore from the worker host into new runs, which end bit-identical
# as well. Last, the worker host's link is cut while its rank 0 saves and
# the box waits for rank 1 (on the box, stalled before that step's push):
# the save fails on the worker with a sentence, leaves no file, and the
# box lets the gate go and drops the connection, so rank 1 trains on to
# the end.
RW_TEST_NAME=cluster-ckpt-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

BOX=10.88.0.1
WORKER=10.88.0.2
TOKEN=$RW_CLUSTER/token
TRAINER=$RW_TOP/build/examples/softmax-trainer

rw_wire_up "$([ "$RW_ROLE" = box ] && echo $BOX || echo $WORKER)" --eth0
data=$RW_OUT/digits.bin
cp "$RW_TOP/build/examples/digits.bin" "$data"

# jobs OPTIM JOB...: 2-worker jobs of that optimizer.
jobs() {
	local optim=$1 j
	shift
	for j in "$@"; do
		"$RWCTL" job add "$j" workers 2 optim "$optim" lr 0.1 chunk-size 4096 \
			token-file "$TOKEN" >/dev/null || return 1
	done
}

# pair_run TAG JOB [options]: ranks 0 and 1 from here (the worker VM's
# through the box's listener); 0 if both exit 0.
pair_run() {
	local tag=$1 job=$2 r p rc=0 pids=() where=()
	shift 2
	[ "$RW_ROLE" = box ] || where=(--box "$BOX")
	for r in 0 1; do
		"$TRAINER" --job "$job" --token-file "$TOKEN" --rank $r --workers 2 \
			"${where[@]}" --data "$data" --epochs 1 --batch 64 --timeout 120000 \
			--out "$RW_OUT/$tag-params-$r.bin" "$@" >"$RW_OUT/$tag-rank$r.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || tail -n 3 "$RW_OUT/$tag"-rank*.log | sed 's/^/#   /'
	return $rc
}

if [ "$RW_ROLE" = box ]; then
	first_jobs() { jobs momentum mstr msv mloc && jobs adam astr asv; }
	t_ok "job add mstr, msv, mloc (momentum) and astr, asv (adam)" first_jobs
	t_ok "listen add $BOX" "$RWCTL" listen add $BOX
	touch "$RW_OUT/ready"
	t_ok "the straight momentum run, here" pair_run mstr mstr
	t_ok "the straight Adam run, here" pair_run astr astr
	touch "$RW_OUT/straight"

	t_ok "the worker host saved its runs" rw_await worker saved 600
	ck=$RW_CLUSTER/worker/msv.ckpt
	t_ok "the worker host's momentum file restores here" pair_run mloc mloc --restore "$ck"
	st=$(sed -n 's/.*restored step \([0-9]*\) .*/\1/p' "$RW_OUT/mloc-rank0.log")
	t_eq "... at the step it was saved at" "$(cat "$RW_CLUSTER/worker/msv.step")" "${st:-none}"
	t_ok "... and ends bit-identical to the straight run" \
		cmp "$RW_OUT/mstr-params-0.bin" "$RW_OUT/mloc-params-0.bin"

	# The module unloaded and loaded again: nothing of the runs is left.
	t_ok "job del every job" sh -c \
		"for j in mstr msv mloc astr asv; do '$RWCTL' job del \$j || exit 1; done"
	t_ok "rmmod rackweave" rmmod rackweave
	t_ok "insmod rackweave.ko again" rw_load
	again() { jobs momentum mre && jobs adam are && "$RWCTL" listen add $BOX; }
	t_ok "job add mre (momentum), are (adam), listen again" again
	touch "$RW_OUT/reloaded"
	t_ok "the worker host restored and trained" rw_await worker restored 600

	# The link cut during a save: rank 1 trains here, stalled before
	# its push of step 3, for which the worker's rank 0 saves.
	t_ok "job add cut (momentum)" jobs momentum cut
	"$TRAINER" --job cut --token-file "$TOKEN" --rank 1 --workers 2 --data "$data" \
		--epochs 1 --batch 64 --timeout 300000 --stall-at 3:40000 --verbose \
		>"$RW_OUT/cut-rank1.log" 2>&1 &
	rank1=$!
	touch "$RW_OUT/cut-ready"
	# Rank 0 has pushed step 3 (its clock is 4): it is saving now.
	saving() {
		local _
		for _ in $(seq 60); do
			[ "$("$RWCTL" -j stats show cut | jpy 'd["workers"][0]["clock"] >= 4')" = true ] &&
				return 0
			sleep 0.5
		done
		return 1
	}
	t_ok "the worker's rank 0 pushed step 3 and saves" saving
	t0=$SECONDS
	touch "$RW_OUT/saving"
	t_ok "the worker host cut its link" rw_await worker cut 120
	conns() { "$RWCTL" listen show | grep -c ' job cut ' || true; }
	gone() {
		local _
		for _ in $(seq 90); do
			[ "$(conns)" = 0 ] && return 0
			sleep 1
		done
		"$RWCTL" listen show | sed 's/^/#   /'
		return 1
	}
	t_ok "the box dropped the silent connection, its gate let go" gone
	echo "# the connection went $((SECONDS - t0)) s after the cut"
	# Here, not in t_ok's subshell: rank 1 is this shell's child.
	rw_wait_bounded 240 $rank1
	t_eq "rank 1 trained on to the end" 0 $?
	t_ok "... alone, after its stall" grep -q "stall 40000 ms before the push of step 3" \
		"$RW_OUT/cut-rank1.log"
	t_ok "job del every job" sh -c \
		"for j in mre are cut; do '$RWCTL' job del \$j || exit 1; done"
	t_ok "rmmod rackweave" rmmod rackweave
else
	t_ok "the box listens" rw_await box ready
	# The box's ARP entry may take a moment: ask until it answers.
	for _ in $(seq 10); do
		"$LOCAL" nosuchjob "$TOKEN" 0 2 1 $BOX 2>&1 | grep -q "access denied" && break
		sleep 1
	done
	# saved TAG: the step rank 0's log says it saved.
	saved() { sed -n 's/^rank 0: checkpoint of step \([0-9]*\) to .*/\1/p' "$RW_OUT/$1-rank0.log"; }
	# same TAG STRAIGHT: both ranks' final parameters are the box's run's.
	same() {
		cmp "$RW_CLUSTER/box/$2-params-0.bin" "$RW_OUT/$1-params-0.bin" &&
			cmp "$RW_CLUSTER/box/$2-params-0.bin" "$RW_OUT/$1-params-1.bin"
	}
	t_ok "the box ran its straight runs" rw_await box straight 600
	# Momentum: a remote observer saves mid-run (--checkpoint-at), and
	# another (observe-remote.py) watches the run from here; both ranks
	# stall 2 s at step 15 so that it sees the run live.
	/usr/bin/python3 "$RW_TOP/tests/cluster/observe-remote.py" msv "$TOKEN" $BOX \
		"$RW_OUT" >"$RW_OUT/observe.tap" 2>"$RW_OUT/observe.err" &
	obs=$!
	for _ in $(seq 300); do
		[ -e "$RW_OUT/msv-obs-ready" ] && break
		sleep 0.2
	done
	t_ok "m: two remote trainers, a remote observer saving at step 10" \
		pair_run msv msv --checkpoint-at "10:$RW_OUT/msv.ckpt" --stall-at 15:2000
	t_ok "rwctl listen show names this host's attachment as the job's observer" \
		sh -c "'$RWCTL' listen show | grep -q ' job msv  observer '"
	touch "$RW_OUT/msv-done"
	rw_wait_bounded 120 $obs
	rc=$?
	cat "$RW_OUT/observe.tap"
	if [ $rc != 0 ]; then
		sed 's/^/#   /' "$RW_OUT/observe.err"
		# What this host's module said of the job's links.
		dmesg | grep 'job msv' | tail -n 12 | sed 's/^/#   /'
	fi
	t_eq "observe-remote passed" 0 $rc
	st=$(saved msv)
	t_ok "m: the checkpoint is of a boundary at or after step 10 (${st:-none})" \
		test "${st:-0}" -ge 10
	echo "$st" >"$RW_OUT/msv.step"
	t_ok "m: both ranks end bit-identical to the box's straight run" same msv mstr
	# Adam: rank 0 saves itself between its push of step 10 and its pull.
	t_ok "a: two remote trainers, rank 0 saving between its push of step 10 and its pull" \
		pair_run asv asv --save-at "10:$RW_OUT/asv.ckpt"
	st=$(saved asv)
	t_eq "a: the checkpoint is of the boundary after step 10" 11 "${st:-none}"
	echo "$st" >"$RW_OUT/asv.step"
	t_ok "a: both ranks end bit-identical to the box's straight run" same asv astr
	touch "$RW_OUT/saved"

	t_ok "the box reloaded its module" rw_await box reloaded 600
	# restored TAG JOB FILE: ranks 0 and 1 restore FILE into JOB's new run.
	for o in m:mre a:are; do
		t=${o%%:*} j=${o#*:}
		t_ok "$t: the worker's own file restored over RDMA into a fresh module's run" \
			pair_run "$j" "$j" --restore "$RW_OUT/${t}sv.ckpt"
		st=$(sed -n 's/.*restored step \([0-9]*\) .*/\1/p' "$RW_OUT/$j-rank0.log")
		t_eq "$t: rank 0 restored the step saved" "$(cat "$RW_OUT/${t}sv.step")" "${st:-none}"
		t_ok "$t: both end bit-identical to the straight run" same "$j" "${t}str"
	done
	touch "$RW_OUT/restored"

	# The link cut while rank 0 saves and the box waits for rank 1.
	t_ok "the box made job cut, its rank 1 stalls before step 3" rw_await box cut-ready
	rm -f "$RW_OUT/cut.ckpt"
	"$TRAINER" --job cut --token-file "$TOKEN" --rank 0 --workers 2 --box $BOX \
		--data "$data" --epochs 1 --batch 64 --timeout 300000 \
		--save-at "3:$RW_OUT/cut.ckpt" >"$RW_OUT/cut-rank0.log" 2>&1 &
	rank0=$!
	t_ok "the box sees rank 0 saving" rw_await box saving 120
	# The box's address to a MAC nobody has: nothing reaches it, and
	# nothing of it comes back (no link goes down: see remote.sh).
	t_ok "ip neigh: the box's address to a MAC nobody has" \
		ip neigh replace $BOX lladdr 02:00:5e:00:00:01 dev eth0 nud permanent
	touch "$RW_OUT/cut"
	t0=$SECONDS
	wait $rank0
	rc=$?
	echo "# rank 0 ended $((SECONDS - t0)) s after the cut"
	t_ok "rank 0's save failed" test $rc != 0
	t_ok "... saying the file was not saved, the connection lost" sh -c \
		"grep -q 'cut.ckpt: not saved: .*connection to the remote box was lost' '$RW_OUT/cut-rank0.log' ||
		 { cat '$RW_OUT/cut-rank0.log'; exit 1; }"
	t_ok "... and left no file, nor its temporary" sh -c \
		"! ls '$RW_OUT'/cut.ckpt* 2>/dev/null | grep -q ."
	t_ok "ip neigh: the box's address resolved again" ip neigh del $BOX dev eth0
fi
t_done
