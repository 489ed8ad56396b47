#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 1200
#
# Exact resume from checkpoints. Under BSP with momentum and with Adam: a
# run straight through; then the same run with two checkpoints taken while
# the workers train (rank 0's --checkpoint-at, and `rwctl job checkpoint`
# from outside); then the job deleted and the module unloaded and loaded
# again, the job created anew, and each checkpoint restored into a new run
# (rank 0's --restore): the final parameters are bit-identical to the
# straight run's. Then bad checkpoints (truncated, a byte flipped, an older
# format version, another optimizer, another layout) refused by `rwctl job
# restore` with a reason, and the job trains afterwards.
. "$(dirname "$0")/lib.sh"

TRAINER=$RW_TOP/build/examples/softmax-trainer
W=4
EPOCHS=10

t_ok "load ib_core and rackweave.ko" rw_load
data=$RW_OUT/digits.bin
t_ok "the digits data set (made on the host by make vm-tests: sklearn in the guest costs 20 s)" \
	cp "$RW_TOP/build/examples/digits.bin" "$data"
head -c 32 /dev/urandom >"$RW_OUT/token"

# train TAG JOB [options]: W trainers, EPOCHS epochs; their parameters in
# $RW_OUT/TAG-params-R.bin and logs in TAG-rankR.log; 0 if all exit 0.
train() {
	local tag=$1 job=$2 r p rc=0 pids=()
	shift 2
	for r in $(seq 0 $((W - 1))); do
		"$TRAINER" --job "$job" --token-file "$RW_OUT/token" --rank "$r" \
			--workers $W --data "$data" --epochs $EPOCHS --batch 64 \
			--out "$RW_OUT/$tag-params-$r.bin" "$@" \
			>"$RW_OUT/$tag-rank$r.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || tail -n 3 "$RW_OUT/$tag"-rank*.log | sed 's/^/#   /'
	return $rc
}
job_add() { "$RWCTL" job add "$1" workers $W chunk-size 4096 token-file "$RW_OUT/token" "${@:2}" >/dev/null; }

for optim in momentum adam; do
	case $optim in
	momentum) set -- optim momentum lr 0.1 ;;
	adam) set -- optim adam lr 0.01 ;;
	esac
	t_ok "$optim: job add straight" job_add "s$optim" "$@"
	train "s$optim" "s$optim"
	t_eq "$optim: the straight run" 0 "$?"
	"$RWCTL" job del "s$optim" >/dev/null

	t_ok "$optim: job add ckpt" job_add "c$optim" "$@"
	# 10 ms stalls (sleeps only: the same bits) keep the run long enough
	# for a checkpoint from outside.
	train "c$optim" "c$optim" --stall 1:10 --checkpoint-at "30:$RW_OUT/$optim-a.ckpt" &
	run=$!
	# A second checkpoint from outside, as an observer, while they train.
	for _ in $(seq 400); do
		[ "${s:=0}" -ge 50 ] 2>/dev/null && break
		s=$(rw_steps "c$optim")
		sleep 0.02
	done
	s=
	"$RWCTL" job checkpoint "c$optim" "$RW_OUT/$optim-b.ckpt" \
		token-file "$RW_OUT/token" >"$RW_OUT/$optim-b.out" 2>&1
	t_eq "$optim: rwctl job checkpoint while the workers train" 0 "$?"
	wait $run
	t_eq "$optim: the run that took checkpoints" 0 "$?"
	# Of the boundary the save reached first: 30 or later, mid-run (on
	# the KASAN kernel the observer's attach alone takes a dozen steps).
	sa=$(sed -n 's/.*checkpoint of step \([0-9]*\) to.*/\1/p' "$RW_OUT/c$optim-rank0.log")
	t_ok "$optim: rank 0's checkpoint, started at step 30 while training (${sa:-none})" \
		test "${sa:-0}" -ge 30 -a "${sa:-0}" -lt $((EPOCHS * 28))
	sb=$(sed -n 's/.*checkpoint of step \([0-9]*\).*/\1/p' "$RW_OUT/$optim-b.out")
	t_ok "$optim: rwctl's checkpoint is of a step mid-run (${sb:-none})" \
		test "${sb:-0}" -gt 0 -a "${sb:-0}" -lt $((EPOCHS * 28))
	t_ok "$optim: the run ended as the straight one (checkpoints change nothing)" \
		cmp "$RW_OUT/s$optim-params-0.bin" "$RW_OUT/c$optim-params-0.bin"
	"$RWCTL" job del "c$optim" >/dev/null

	t_ok "$optim: rmmod and load the module again" sh -c "rmmod rackweave && insmod '$(rw_module_path)'"
	for f in a b; do
		t_ok "$optim: job add for restore $f" job_add "r$optim$f" "$@"
		train "r$optim$f" "r$optim$f" --restore "$RW_OUT/$optim-$f.ckpt"
		t_eq "$optim: the run restored from checkpoint $f" 0 "$?"
		t_ok "$optim: rank 0 restored it" grep -q "restored step" "$RW_OUT/r$optim$f-rank0.log"
		# Every rank's first step is the checkpoint's (one run in
		# some twenty once ended off the straight run with a correct
		# checkpoint: this says whether a rank started elsewhere).
		st=$(sed -n 's/.*restored step \([0-9]*\) .*/\1/p' "$RW_OUT/r$optim$f-rank0.log")
		t_eq "$optim: every rank continues at the restored step (${st:-none})" \
			"$(printf 'at %s\n' "$st" "$st" "$st" "$st")" \
			"$(for r in 0 1 2 3; do sed -n 's/.*continuing at step \([0-9]*\)$/at \1/p' "$RW_OUT/r$optim$f-rank$r.log"; done)"
		t_ok "$optim: bit-identical to the straight run after restoring $f" \
			sh -c "for r in 0 1 2 3; do cmp '$RW_OUT/s$optim-params-0.bin' \"$RW_OUT/r$optim$f-params-\$r.bin\" || exit 1; done"
		"$RWCTL" job del "r$optim$f" >/dev/null
	done
done

# ---- bad checkpoints ----
t_ok "job add lay: 8 KiB chunks, another layout" \
	"$RWCTL" job add lay workers $W chunk-size 8192 optim momentum lr 0.1 \
	token-file "$RW_OUT/token"
train lay lay --checkpoint-at "5:$RW_OUT/layout.ckpt"
t_eq "a checkpoint of another layout" 0 "$?"
"$RWCTL" job del lay >/dev/null
good=$RW_OUT/momentum-a.ckpt
size=$(stat -c %s "$good")
head -c $((size - 9)) "$good" >"$RW_OUT/trunc.ckpt"
cp "$good" "$RW_OUT/flip.ckpt"
printf '\x5a' | dd of="$RW_OUT/flip.ckpt" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
cp "$good" "$RW_OUT/old.ckpt"
printf '\x00\x00\x00\x00' | dd of="$RW_OUT/old.ckpt" bs=1 seek=8 conv=notrunc 2>/dev/null
t_ok "job add bad: momentum, as the good checkpoint's" job_add bad optim momentum lr 0.1
# A run waiting for its state: trainers declared, nobody pushes yet.
train bad bad --wait-params &
run=$!
t_ok "the waiting run exists" sh -c "for i in \$(seq 100); do '$RWCTL' -j job show bad | grep -q '\"tensors\"' && exit 0; sleep 0.1; done; exit 1"
restore_fails() {
	local f=$1 why=$2 out
	out=$("$RWCTL" job restore bad "$f" token-file "$RW_OUT/token" 2>&1)
	[ $? = 1 ] || { echo "# exit status not 1: $out"; return 1; }
	echo "$out" | grep -qi "$why" || { echo "# message: $out"; return 1; }
}
t_ok "a truncated checkpoint: refused" restore_fails "$RW_OUT/trunc.ckpt" "trunc\|short\|length"
t_ok "a byte flipped: refused" restore_fails "$RW_OUT/flip.ckpt" "checksum\|crc\|corrupt"
t_ok "an older format version: refused" restore_fails "$RW_OUT/old.ckpt" "version"
t_ok "another optimizer (adam): refused" restore_fails "$RW_OUT/adam-a.ckpt" "optimizer"
t_ok "another layout (8 KiB chunks): refused" restore_fails "$RW_OUT/layout.ckpt" "layout"
t_ok "the good checkpoint: restored by rwctl" \
	"$RWCTL" job restore bad "$good" token-file "$RW_OUT/token"
wait $run
t_eq "the job trains afterwards" 0 "$?"
t_ok "... to the straight run's parameters" cmp "$RW_OUT/smomentum-params-0.bin" "$RW_OUT/bad-params-0.bin"
t_ok "job del bad" "$RWCTL" job del bad
t_ok "rmmod rackweave" rmmod rackweave
t_done
