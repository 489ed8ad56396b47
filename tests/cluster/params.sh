#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Initial parameters across hosts (uapi "Requests"): four softmax-trainers
# on the worker VM attach to the box VM's job through their own host's
# module (--box) and start from rank 0's seeded values (--init-seed:
# rw_params_init on rank 0, an RDMA READ by the box; rw_params_wait on the
# others); every rank's first pull returns exactly them and the run ends
# bit-identical to softmax-ref from the same values. Then init-check
# drives every refusal of the local API remotely, with the same errno (a
# wrong length, an unknown key, a second init, an init after the run's
# first push), a wait that times out, a partial init by tensor key, and
# the run's head (rw_job_head). Then a checkpoint saved on the box by a
# run there (--checkpoint-at) is restored from the worker host into a new
# run (rw_checkpoint_restore over RDMA: the box reads head and image), and
# both remote ranks end bit-identical to the box's straight run; the same
# file into a job of another layout (known from the run's head over
# RDMA), a truncated copy and a flipped byte are refused with their
# sentences, and change nothing: the good file then restores into that
# run and ends bit-identical too. Last, PyTorch on the worker VM
# (torch-remote.py): the DistributedOptimizer starts both ranks from rank
# 0's model through the box, rank 0 saves the run from the worker host and
# a new run restores it there, and the DDP hook refuses a job whose
# optimizer, read from the run's head, is not average. The VMs get 1500 s
# (vm-timeout): torch's import alone took 80 to 300 s in make check.
# vm-timeout: 1500
RW_TEST_NAME=cluster-params-$RW_ROLE
. "$(dirname "$0")/../vm/lib.sh"

BOX=10.88.0.1
WORKER=10.88.0.2
TOKEN=$RW_CLUSTER/token
W=4

rw_wire_up "$([ "$RW_ROLE" = box ] && echo $BOX || echo $WORKER)" --eth0

if [ "$RW_ROLE" = box ]; then
	t_ok "job add pinit: BSP, momentum, 4 workers" "$RWCTL" job add pinit \
		workers $W optim momentum lr 0.1 chunk-size 4096 token-file "$TOKEN"
	t_ok "job add inita and initb: 2 workers each" sh -c \
		"'$RWCTL' job add inita workers 2 chunk-size 4096 token-file '$TOKEN' >/dev/null &&
		 '$RWCTL' job add initb workers 2 chunk-size 4096 token-file '$TOKEN' >/dev/null"
	t_ok "job add tdist, tdist2 (momentum) and tsgd (sgd): 2 workers each" sh -c \
		"'$RWCTL' job add tdist workers 2 optim momentum lr 0.1 chunk-size 4096 token-file '$TOKEN' >/dev/null &&
		 '$RWCTL' job add tdist2 workers 2 optim momentum lr 0.1 chunk-size 4096 token-file '$TOKEN' >/dev/null &&
		 '$RWCTL' job add tsgd workers 2 optim sgd lr 0.1 chunk-size 4096 token-file '$TOKEN' >/dev/null"
	t_ok "listen add $BOX" "$RWCTL" listen add $BOX
	"$RWCTL" -j status | jpy 'd["agg_impl"]' >"$RW_OUT/impl"
	touch "$RW_OUT/ready"
	t_ok "the worker host is done" rw_await worker done 600

	# A checkpoint taken here, restored from the worker host.
	TRAINER=$RW_TOP/build/examples/softmax-trainer
	data=$RW_OUT/digits.bin
	cp "$RW_TOP/build/examples/digits.bin" "$data"
	# local TAG JOB [options]: two trainers here; 0 if both exit 0.
	local_run() {
		local tag=$1 job=$2 r rc=0 pids=()
		shift 2
		for r in 0 1; do
			"$TRAINER" --job "$job" --token-file "$TOKEN" --rank $r --workers 2 \
				--data "$data" --epochs 1 --batch 64 \
				--out "$RW_OUT/$tag-params-$r.bin" "$@" >"$RW_OUT/$tag-rank$r.log" 2>&1 &
			pids+=($!)
		done
		for p in "${pids[@]}"; do
			wait "$p" || rc=1
		done
		return $rc
	}
	ck_jobs() {
		local j
		for j in cstr cck crs cbad; do
			"$RWCTL" job add $j workers 2 optim momentum lr 0.1 chunk-size 4096 \
				token-file "$TOKEN" || return 1
		done
		# Another layout: the same model in 8 KiB chunks.
		"$RWCTL" job add clay workers 2 optim momentum lr 0.1 chunk-size 8192 \
			token-file "$TOKEN"
	}
	t_ok "job add cstr, cck, crs, cbad, clay (momentum, 2 workers)" ck_jobs
	t_ok "the straight run, here" local_run cstr cstr
	t_ok "a run that saves a checkpoint at step 10, here" \
		local_run cck cck --stall 1:10 --checkpoint-at "10:$RW_OUT/cck.ckpt"
	t_ok "... which ends as the straight one" cmp "$RW_OUT/cstr-params-0.bin" "$RW_OUT/cck-params-0.bin"
	touch "$RW_OUT/ckpt-ready"
	t_ok "the worker host restored it and trained" rw_await worker restored 600
	# torch's import alone takes minutes under emulation, more beside
	# other tests.
	t_ok "the worker host's PyTorch trainers are done" rw_await worker torch 900
	t_ok "job del every job" sh -c \
		"for j in pinit inita initb tdist tdist2 tsgd cstr cck crs cbad clay; do '$RWCTL' job del \$j || exit 1; done"
	t_ok "rmmod rackweave" rmmod rackweave
else
	TRAINER=$RW_TOP/build/examples/softmax-trainer
	REF=$RW_TOP/build/tests/vm/softmax-ref
	CHECK=$RW_TOP/build/tests/vm/init-check
	data=$RW_OUT/digits.bin
	cp "$RW_TOP/build/examples/digits.bin" "$data"

	t_ok "the box listens" rw_await box ready
	impl=$(cat "$RW_CLUSTER/box/impl")
	# The box's ARP entry may take a moment: ask until it answers.
	for _ in $(seq 10); do
		"$LOCAL" nosuchjob "$TOKEN" 0 2 1 $BOX 2>&1 | grep -q "access denied" && break
		sleep 1
	done
	pids=()
	for r in $(seq 0 $((W - 1))); do
		"$TRAINER" --job pinit --token-file "$TOKEN" --rank "$r" --workers $W \
			--box $BOX --data "$data" --epochs 1 --batch 64 --init-seed 7 \
			--verbose --timeout 120000 --out "$RW_OUT/pinit-params-$r.bin" \
			>"$RW_OUT/pinit-rank$r.log" 2>&1 &
		pids+=($!)
	done
	rc=0
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || tail -n 3 "$RW_OUT"/pinit-rank*.log | sed 's/^/#   /'
	t_eq "4 remote trainers starting from rank 0's parameters finish" 0 $rc
	t_ok "rank 0 set them" grep -q "initial parameters set (seed 7)" "$RW_OUT/pinit-rank0.log"
	t_eq "every rank's first pull returned exactly them" $W \
		"$(cat "$RW_OUT"/pinit-rank*.log | grep -c 'first pull returned the initial parameters')"
	t_ok "the reference from the same values" sh -c '"$@" >"$0"' "$RW_OUT/pinit-ref.log" \
		"$REF" --workers $W --data "$data" --epochs 1 --batch 64 --optim momentum \
		--lr 0.1 --chunk-size 4096 --impl "$impl" --init-seed 7 --out "$RW_OUT/pinit-ref.bin"
	ref_loss=$(sed -n 's/^initial loss //p' "$RW_OUT/pinit-ref.log")
	t_ok "the first loss is the reference's at those values (${ref_loss:-none})" \
		grep -q "first pull returned the initial parameters, loss ${ref_loss:-none}" \
		"$RW_OUT/pinit-rank0.log"
	t_ok "the run ends bit-identical to the reference" \
		cmp "$RW_OUT/pinit-ref.bin" "$RW_OUT/pinit-params-0.bin"
	t_ok "... on every rank" sh -c "for r in 1 2 3; do cmp '$RW_OUT/pinit-params-0.bin' '$RW_OUT/pinit-params-'\$r.bin || exit 1; done"

	"$CHECK" inita initb "$TOKEN" $BOX
	t_eq "init-check over RDMA passed" 0 "$?"

	touch "$RW_OUT/done"

	# The box's checkpoint, restored from here into a new run (crs).
	t_ok "the box saved a checkpoint" rw_await box ckpt-ready 600
	ck=$RW_CLUSTER/box/cck.ckpt
	# restored JOB: ranks 0 and 1 from here restore $ck into JOB's new
	# run and train it; 0 if both exit 0.
	restored() {
		local r p rc=0 pids=()
		for r in 0 1; do
			"$TRAINER" --job "$1" --token-file "$TOKEN" --rank "$r" --workers 2 \
				--box $BOX --data "$data" --epochs 1 --batch 64 --restore "$ck" \
				--timeout 120000 --out "$RW_OUT/$1-params-$r.bin" \
				>"$RW_OUT/$1-rank$r.log" 2>&1 &
			pids+=($!)
		done
		for p in "${pids[@]}"; do
			wait "$p" || rc=1
		done
		return $rc
	}
	restored crs
	rc=$?
	[ $rc = 0 ] || tail -n 3 "$RW_OUT"/crs-rank*.log | sed 's/^/#   /'
	t_eq "two remote trainers restored the box's checkpoint and trained" 0 $rc
	st=$(sed -n 's/.*restored step \([0-9]*\) .*/\1/p' "$RW_OUT/crs-rank0.log")
	t_ok "rank 0 restored step ${st:-none} over RDMA (10 or later)" test "${st:-0}" -ge 10
	t_eq "both ranks continue at that step" "at $st at $st" \
		"$(for r in 0 1; do sed -n 's/.*continuing at step \([0-9]*\)$/at \1/p' "$RW_OUT/crs-rank$r.log"; done | tr '\n' ' ' | sed 's/ $//')"
	t_ok "both end bit-identical to the box's straight run" sh -c \
		"cmp '$RW_CLUSTER/box/cstr-params-0.bin' '$RW_OUT/crs-params-0.bin' &&
		 cmp '$RW_CLUSTER/box/cstr-params-0.bin' '$RW_OUT/crs-params-1.bin'"

	# refused JOB FILE WORDS: rank 0 alone restores FILE into JOB from
	# here: it must fail, saying WORDS.
	refused() {
		"$TRAINER" --job "$1" --token-file "$TOKEN" --rank 0 --workers 2 \
			--box $BOX --data "$data" --epochs 1 --batch 64 --restore "$2" \
			--timeout 60000 >"$RW_OUT/refused-$1.log" 2>&1 && return 1
		grep -q "$3" "$RW_OUT/refused-$1.log" || { cat "$RW_OUT/refused-$1.log"; return 1; }
	}
	len=$(stat -c %s "$ck")
	head -c $((len - 4096)) "$ck" >"$RW_OUT/short.ckpt"
	cp "$ck" "$RW_OUT/flipped.ckpt"
	printf '\x5a' | dd of="$RW_OUT/flipped.ckpt" bs=1 seek=$((len / 2)) conv=notrunc 2>/dev/null
	t_ok "another layout (8 KiB chunks), told by the run's head over RDMA: refused" \
		refused clay "$ck" "another model layout"
	t_ok "a truncated file: refused" refused cbad "$RW_OUT/short.ckpt" "truncated"
	t_ok "a flipped byte: refused" refused cbad "$RW_OUT/flipped.ckpt" "checksum mismatch"
	restored cbad
	rc=$?
	t_ok "... which changed nothing: the good file restores there, bit-identical at the end" \
		sh -c "[ $rc = 0 ] && cmp '$RW_CLUSTER/box/cstr-params-0.bin' '$RW_OUT/cbad-params-0.bin'"
	touch "$RW_OUT/restored"

	/usr/bin/python3 "$RW_TOP/tests/cluster/torch-remote.py" "$RW_OUT" "$TOKEN" $BOX
	t_eq "torch-remote passed" 0 "$?"
	touch "$RW_OUT/torch"
fi
t_done
