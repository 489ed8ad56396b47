#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 1200
#
# Training through the box: 4 local workers (examples/softmax-trainer, one
# process each) train softmax regression on scikit-learn's digits under BSP
# and under SSP. BSP parameters must be bit-identical to the single-process
# reference (tests/vm/softmax-ref: the same shards and gradients, summed
# and applied by the module's own aggregation code); under both the loss
# must fall. Then the same BSP job with 4 trainers that attach over the
# wire (--box: rw_attach_remote through this host's module, rxe0 looped
# back as in wire-listen.sh), two of them asynchronous: bit-identical too. A read-only observer keeps the run alive and reads the
# parameters the way a checkpointer would; topology and statistics are read
# with rwctl while the run exists. Then 16-bit models (--dtype bf16, f16,
# mixed), locally and over the wire: bit-identical to the reference run in
# the same types, the wire's byte count halved.
. "$(dirname "$0")/lib.sh"

TRAINER=$RW_TOP/build/examples/softmax-trainer
REF=$RW_TOP/build/tests/vm/softmax-ref
EPOCHS=3
BATCH=64
W=4

rw_wire_up $BOX
data=$RW_OUT/digits.bin
t_ok "the digits data set (made on the host by make vm-tests: sklearn in the guest costs 20 s)" \
	cp "$RW_TOP/build/examples/digits.bin" "$data"
impl=$("$RWCTL" -j status | jpy 'd["agg_impl"]')
head -c 32 /dev/urandom >"$RW_OUT/token"

# run_job NAME: train with W workers while an observer holds the run;
# leaves the trainers' logs and outputs in $RW_OUT/NAME-*. $EXTRA: more
# trainer options; ranks from $ASYNC_FROM on add --async. NOOBS=1: no
# observer (a guest's python3 takes seconds to start); $E: the epochs.
run_job() {
	local job=$1 r pids=() rc=0
	rm -f "$RW_OUT/$job-go"
	if [ -n "${NOOBS:-}" ]; then
		(exit 0) &
		obs=$!
	else
		/usr/bin/python3 "$RW_TOP/tests/vm/observer.py" "$job" "$RW_OUT/token" \
			"$RW_OUT/$job-go" "$RW_OUT/$job-observed.bin" >"$RW_OUT/$job-observer.log" 2>&1 &
		obs=$!
		for _ in $(seq 50); do
			grep -q attached "$RW_OUT/$job-observer.log" && break
			sleep 0.1
		done
	fi
	for r in $(seq 0 $((W - 1))); do
		# shellcheck disable=SC2086 # $extra: words on purpose
		"$TRAINER" --job "$job" --token-file "$RW_OUT/token" --rank "$r" --workers $W \
			--data "$data" --epochs "${E:-$EPOCHS}" --batch $BATCH --verbose \
			--out "$RW_OUT/$job-params-$r.bin" ${EXTRA:-} \
			$([ -n "${ASYNC_FROM:-}" ] && [ "$r" -ge "$ASYNC_FROM" ] && echo --async) \
			>"$RW_OUT/$job-rank$r.log" 2>&1 &
		pids+=($!)
	done
	for r in "${!pids[@]}"; do
		wait "${pids[$r]}" || { rc=1; sed "s/^/#   rank $r: /" "$RW_OUT/$job-rank$r.log"; }
	done
	return $rc
}

# losses JOB: rank 0's epoch losses, one per line.
losses() { sed -n 's/^epoch [0-9]* loss \([0-9.]*\)$/\1/p' "$RW_OUT/$1-rank0.log"; }
# loss_falls JOB: the last epoch's loss is below 0.8 times the first's.
loss_falls() {
	losses "$1" | awk 'NR == 1 { f = $1 } { l = $1 } END { exit !(NR >= 2 && l < 0.8 * f) }'
}

# ---- BSP ----
t_ok "job add bsp4: 4 workers, SGD lr 0.5, 4 KiB chunks" \
	"$RWCTL" job add bsp4 workers $W lr 0.5 chunk-size 4096 token-file "$RW_OUT/token"
t_ok "BSP: 4 workers train $EPOCHS epochs" run_job bsp4
t_eq "BSP: rank 0 printed one loss per epoch" $EPOCHS "$(losses bsp4 | wc -l)"
t_ok "BSP: the loss falls by a fifth or more" loss_falls bsp4
t_ok "BSP: every worker ends with the same parameters" \
	sh -c "for r in 1 2 3; do cmp '$RW_OUT/bsp4-params-0.bin' \"$RW_OUT/bsp4-params-\$r.bin\" || exit 1; done"
t_ok "BSP: the single-process reference ($impl kernels)" \
	"$REF" --workers $W --data "$data" --epochs $EPOCHS --batch $BATCH --lr 0.5 \
	--chunk-size 4096 --impl "$impl" --out "$RW_OUT/bsp4-ref.bin"
t_ok "BSP: parameters bit-identical to the reference" cmp "$RW_OUT/bsp4-ref.bin" "$RW_OUT/bsp4-params-0.bin"

# The run still exists: the observer holds it.
topo=$("$RWCTL" -j topo show bsp4)
t_eq "topo show -j: valid JSON with the job's one chunk" 1 \
	"$(echo "$topo" | jpy 'sum(c["count"] for c in d["chunk_map"])')"
t_ok "topo show: text lists the cores and the chunk map" sh -c "'$RWCTL' topo show bsp4 | grep -qi chunk"
stats=$("$RWCTL" -j stats show bsp4)
iters=$(echo "$stats" | jpy 'sorted(set(w["clock"] for w in d["workers"]))')
t_ok "stats show -j: every rank completed the same number of iterations ($iters)" \
	test "$(echo "$stats" | jpy 'len(set(w["clock"] for w in d["workers"])) == 1 and d["workers"][0]["clock"] > 0')" = true
t_eq "stats show -j: 4 workers pushed gradients" 4 \
	"$(echo "$stats" | jpy 'sum(1 for w in d["workers"] if w["bytes"] > 0)')"
t_eq "job show -j: the run's layout (2 tensors, 2600 bytes)" '[2, 2600]' \
	"$("$RWCTL" -j job show bsp4 | jpy '[d["jobs"][0][k] for k in ("tensors", "model_bytes")]')"
t_fails "policy set while the run lives: refused" "$RWCTL" policy set bsp4 lr 0.1
touch "$RW_OUT/bsp4-go"
wait $obs
t_eq "observer: reads the parameters read-only" 0 "$?"
t_ok "observer: its copy equals the trainers' parameters" cmp "$RW_OUT/bsp4-observed.bin" "$RW_OUT/bsp4-params-0.bin"
t_eq "the run ended with its last user: no layout left" null \
	"$("$RWCTL" -j job show bsp4 | jpy 'd["jobs"][0].get("tensors")')"
t_ok "job del bsp4" "$RWCTL" job del bsp4

# ---- BSP over the wire: the trainers attach through rw_attach_remote ----
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
t_ok "job add wire4: the same BSP job" \
	"$RWCTL" job add wire4 workers $W lr 0.5 chunk-size 4096 token-file "$RW_OUT/token"
EXTRA="--box $BOX" ASYNC_FROM=2
t_ok "BSP over the wire: 4 remote trainers (2 async) train $EPOCHS epochs" run_job wire4
EXTRA= ASYNC_FROM=
t_eq "... each trainer was a connection of the box" 4 \
	"$(dmesg | grep -c 'job wire4 rank [0-3]: connected to')"
t_ok "BSP over the wire: parameters bit-identical to the reference" \
	sh -c "for r in 0 1 2 3; do cmp '$RW_OUT/bsp4-ref.bin' \"$RW_OUT/wire4-params-\$r.bin\" || exit 1; done"
wire_bytes=$("$RWCTL" -j stats show wire4 | jpy 'd["totals"]["bytes"]')
touch "$RW_OUT/wire4-go"
wait $obs
t_ok "observer on the box: its copy equals the remote trainers' parameters" \
	cmp "$RW_OUT/wire4-observed.bin" "$RW_OUT/wire4-params-0.bin"
t_ok "job del wire4" "$RWCTL" job del wire4

# ---- 16-bit tensors (softmax-trainer --dtype) ----
# The trainers push gradients rounded to bf16 or f16 and read the
# parameters widened; the box sums in f32 in rank order, steps f32
# masters with f32 momentum and publishes them rounded to nearest even.
# The reference replays exactly that (softmax-ref --dtype).
# same_as_ref JOB DTYPE REF-OPTIONS...: every rank's parameters are the
# reference's, bit for bit ($E epochs).
same_as_ref() {
	local job=$1 dt=$2
	shift 2
	"$REF" --workers $W --data "$data" --epochs "${E:-$EPOCHS}" --batch $BATCH \
		--chunk-size 4096 --impl "$impl" --dtype "$dt" --quiet \
		--out "$RW_OUT/$job-ref.bin" "$@" || return 1
	for r in 0 1 2 3; do
		cmp "$RW_OUT/$job-ref.bin" "$RW_OUT/$job-params-$r.bin" || return 1
	done
}
# widened OBSERVED OUT: bf16 bytes of the published model, widened, are OUT.
widened() {
	/usr/bin/python3 -c '
import sys, numpy as np
h = np.fromfile(sys.argv[1], dtype=np.uint16)
f = (h.astype(np.uint32) << 16).view(np.float32)
sys.exit(0 if f.tobytes() == open(sys.argv[2], "rb").read() else 1)' "$1" "$2"
}
# bf16 for $EPOCHS epochs with an observer; f16 and mixed for one, alone.
for dt in bf16 f16 mixed; do
	t_ok "job add h$dt: BSP, momentum 0.9, lr 0.1" \
		"$RWCTL" job add "h$dt" workers $W optim momentum lr 0.1 chunk-size 4096 \
		token-file "$RW_OUT/token"
	EXTRA="--dtype $dt"
	[ $dt = bf16 ] || { NOOBS=1; E=1; }
	t_ok "$dt: 4 workers train ${E:-$EPOCHS} epochs" run_job "h$dt"
	EXTRA=
	[ $dt = bf16 ] && t_ok "$dt: the loss falls by a fifth or more" loss_falls "h$dt"
	t_ok "$dt: parameters bit-identical to the reference in $dt" \
		same_as_ref "h$dt" "$dt" --optim momentum --lr 0.1
	NOOBS= E=
	[ $dt = mixed ] && t_ok "mixed: the run's layout (W bf16 1280 bytes, b f32 at 1280: 1320 bytes)" \
		grep -q "model 1320 bytes" "$RW_OUT/hmixed-rank0.log"
	touch "$RW_OUT/h$dt-go"
	wait $obs
	[ $dt = bf16 ] && t_ok "bf16: the observer's copy of the published bytes, widened, is the trainers'" \
		widened "$RW_OUT/hbf16-observed.bin" "$RW_OUT/hbf16-params-0.bin"
	t_ok "job del h$dt" "$RWCTL" job del "h$dt"
done
# A checkpoint of a bf16 run holds its f32 masters and momentum: a new
# run restored from it ends where the straight run did, bit for bit.
for job in cbf16 rbf16; do
	t_ok "job add $job: as hbf16" "$RWCTL" job add $job workers $W optim momentum \
		lr 0.1 chunk-size 4096 token-file "$RW_OUT/token"
done
NOOBS=1
EXTRA="--dtype bf16 --save-at 40:$RW_OUT/bf16.ckpt"
t_ok "bf16: rank 0 saves the run at step 40" run_job cbf16
touch "$RW_OUT/cbf16-go"
wait $obs
EXTRA="--dtype bf16 --restore $RW_OUT/bf16.ckpt"
t_ok "bf16: a new run restored from it" run_job rbf16
t_ok "bf16: rank 0 restored the boundary after step 40" \
	grep -q 'restored step 41 ' "$RW_OUT/rbf16-rank0.log"
# 128 bytes of head and checksum; f32 masters and momentum, 8 KiB each
# for the one 4 KiB chunk, and its version (an f32 model's: 8328 bytes).
t_eq "bf16: the file holds the f32 masters" 16520 "$(stat -c %s "$RW_OUT/bf16.ckpt")"
EXTRA= NOOBS=
touch "$RW_OUT/rbf16-go"
wait $obs
t_ok "bf16: the restored run ends bit-identical to the straight one" \
	sh -c "for r in 0 1 2 3; do cmp '$RW_OUT/hbf16-params-0.bin' \"$RW_OUT/rbf16-params-\$r.bin\" || exit 1; done"
t_ok "job del cbf16 rbf16" sh -c "'$RWCTL' job del cbf16 && '$RWCTL' job del rbf16"
t_ok "job add wire16: the wire's BSP job" \
	"$RWCTL" job add wire16 workers $W lr 0.5 chunk-size 4096 token-file "$RW_OUT/token"
EXTRA="--box $BOX --dtype bf16"
t_ok "bf16 over the wire: 4 remote trainers train $EPOCHS epochs" run_job wire16
EXTRA=
t_ok "bf16 over the wire: parameters bit-identical to the reference" \
	same_as_ref wire16 bf16 --lr 0.5
half_bytes=$("$RWCTL" -j stats show wire16 | jpy 'd["totals"]["bytes"]')
t_eq "bf16 over the wire: the box's byte count is half the f32 run's ($half_bytes of $wire_bytes)" \
	"$wire_bytes" "$((half_bytes * 2))"
touch "$RW_OUT/wire16-go"
wait $obs
t_ok "job del wire16" "$RWCTL" job del wire16

# ---- SSP ----
t_ok "job add ssp4: SSP with bound 2" \
	"$RWCTL" job add ssp4 workers $W sync ssp 2 lr 0.5 chunk-size 4096 token-file "$RW_OUT/token"
t_ok "SSP: 4 workers train $EPOCHS epochs" run_job ssp4
t_ok "SSP: the loss falls by a fifth or more" loss_falls ssp4
t_ok "SSP: the gate kept every worker within 2 iterations" \
	test "$("$RWCTL" -j stats show ssp4 | jpy 'd["totals"]["max_skew"] <= 2')" = true
touch "$RW_OUT/ssp4-go"
wait $obs
t_eq "observer of the SSP run" 0 "$?"
t_ok "job del ssp4" "$RWCTL" job del ssp4
t_ok "rmmod rackweave" rmmod rackweave
t_done
