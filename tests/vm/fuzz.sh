#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 900
#
# Structured fuzzing, a concurrency storm and a soak (docs/fuzzing.md).
#  1. genl-fuzz (as root, and as nobody in a forked child) and dev-fuzz
#     (three threads, forks, SIGKILLed children) for $RW_FUZZ_SECONDS
#     while four softmax-trainers train a separate BSP job, "soak", for
#     more epochs than train.sh: its parameters must stay bit-identical to
#     softmax-ref's, whatever the fuzzers did meanwhile.
#  2. A storm of the same length, halved: trainers attaching and killed
#     with SIGKILL while they hold their mappings, or leaving cleanly, on
#     three jobs (BSP, SSP, adaptive) that are deleted by force and made
#     again, their policies switched among the three, statistics, topology
#     and job dumps and `rwctl monitor` listeners coming and going. Beside
#     it, SSP (bound 2) and adaptive (band 1..3) soaks whose gates must
#     never have let the skew exceed the bound.
#  3. The module unloads; vm-run fails the run on any kernel report.
# RW_FUZZ_SECONDS (default 20) sets the length (make fuzz DURATION=S);
# RW_FUZZ_SEED replays a run's fuzzers.
. "$(dirname "$0")/lib.sh"

SECS=${RW_FUZZ_SECONDS:-20}
SEED=${RW_FUZZ_SEED:-$(( $(date +%s) % 1000000 ))}
STORM=$(( SECS / 2 > 10 ? SECS / 2 : 10 ))
EPOCHS=$(( SECS / 2 > 10 ? SECS / 2 : 10 ))
TRAINER=$RW_TOP/build/examples/softmax-trainer
REF=$RW_TOP/build/tests/vm/softmax-ref
BIN=$RW_TOP/build/tests/vm
W=4
echo "# fuzz: $SECS s of fuzzing, seed $SEED, storm $STORM s, soaks of $EPOCHS epochs"

data=$RW_OUT/digits.bin
tok=$RW_OUT/token
t_ok "load ib_core and rackweave.ko" rw_load
cp "$RW_TOP/build/examples/digits.bin" "$data"
head -c 32 /dev/urandom >"$tok"
impl=$("$RWCTL" -j status | jpy 'd["agg_impl"]')

# trainers JOB EPOCHS: W trainers in the background; pids in $tpids.
trainers() {
	local r
	tpids=()
	for r in $(seq 0 $((W - 1))); do
		"$TRAINER" --job "$1" --token-file "$tok" --rank "$r" --workers $W \
			--data "$data" --epochs "$2" --batch 64 \
			--out "$RW_OUT/$1-params-$r.bin" >"$RW_OUT/$1-rank$r.log" 2>&1 &
		tpids+=($!)
	done
}

# trainers_wait JOB: every trainer of the last trainers call exited 0.
trainers_wait() {
	local r rc=0
	for r in "${!tpids[@]}"; do
		wait "${tpids[$r]}" || { rc=1; sed "s/^/#   $1 rank $r: /" "$RW_OUT/$1-rank$r.log"; }
	done
	return $rc
}

# ---- 1. the fuzzers, while a BSP job trains ----
t_ok "job add soak: BSP, 4 workers, lr 0.5, 4 KiB chunks" \
	"$RWCTL" job add soak workers $W lr 0.5 chunk-size 4096 token-file "$tok"
t_ok "job add fzdev: the device fuzzer's job, 2 workers" \
	"$RWCTL" job add fzdev workers 2 chunk-size 4096 token-file "$tok"
trainers soak "$EPOCHS"
"$BIN/genl-fuzz" --seed "$SEED" --seconds "$SECS" --protect soak \
	--target fzdev --keep fzdev --unprivileged >"$RW_OUT/genl-fuzz.log" 2>&1 &
gpid=$!
"$BIN/dev-fuzz" --seed "$SEED" --seconds "$SECS" --job fzdev --token-file "$tok" \
	--workers 2 --threads 3 --victim soak --rwctl "$RWCTL" >"$RW_OUT/dev-fuzz.log" 2>&1 &
dpid=$!
wait $gpid
grc=$?
wait $dpid
drc=$?
cat "$RW_OUT/genl-fuzz.log" "$RW_OUT/dev-fuzz.log"
t_eq "genl-fuzz (root and nobody) ends clean" 0 $grc
t_eq "dev-fuzz ends clean" 0 $drc
t_ok "the module still answers" "$RWCTL" status
t_ok "soak: 4 trainers trained $EPOCHS epochs under the fuzzers" trainers_wait soak
t_ok "soak: the single-process reference ($impl kernels)" \
	"$REF" --workers $W --data "$data" --epochs "$EPOCHS" --batch 64 --lr 0.5 \
	--chunk-size 4096 --impl "$impl" --out "$RW_OUT/soak-ref.bin" --quiet
t_ok "soak: every rank's parameters bit-identical to the reference" \
	sh -c "for r in 0 1 2 3; do cmp '$RW_OUT/soak-ref.bin' \"$RW_OUT/soak-params-\$r.bin\" || exit 1; done"
t_ok "job del soak" "$RWCTL" job del soak
t_ok "job del fzdev (forced: a fuzzer's mapping may linger in no one)" \
	"$RWCTL" job del fzdev force

# ---- 2. the storm, beside SSP and adaptive soaks ----
SJOBS=(st-bsp st-ssp st-ada)
SARGS=("sync bsp" "sync ssp 2" "sync adaptive 1 3")
stop=$RW_OUT/storm-stop
ops=$RW_OUT/storm-ops
mkdir -p "$ops"
rm -f "$stop"

storm_add() {	# storm_add I: job SJOBS[I] with its settings
	# shellcheck disable=SC2086 # the settings are words on purpose
	"$RWCTL" job add "${SJOBS[$1]}" workers 2 chunk-size 4096 \
		token-file "$tok" ${SARGS[$1]} >/dev/null 2>&1
}

# A rank's trainer, again and again: killed with SIGKILL after a while
# (holding its mappings), or leaving after a few steps by itself.
storm_rank() {	# storm_rank JOB RANK
	local pid n=0 leave
	while [ ! -e "$stop" ]; do
		leave=
		[ $((RANDOM % 3)) = 0 ] && leave="--leave-after $((1 + RANDOM % 5))"
		# shellcheck disable=SC2086
		"$TRAINER" --job "$1" --token-file "$tok" --rank "$2" --workers 2 \
			--data "$data" --epochs 1000 --batch 64 --timeout 3000 \
			--quiet $leave >/dev/null 2>&1 &
		pid=$!
		sleep "0.$((RANDOM % 9 + 1))"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		n=$((n + 1))
	done
	echo $n >"$ops/attach-$1-$2"
}

storm_del() {	# forced deletion and a new job of the same name
	local n=0 i
	while [ ! -e "$stop" ]; do
		i=$((RANDOM % 3))
		"$RWCTL" job del "${SJOBS[$i]}" force >/dev/null 2>&1
		storm_add $i
		n=$((n + 1))
		sleep "0.$((RANDOM % 9 + 1))"
	done
	echo $n >"$ops/del"
}

storm_policy() {	# the three modes, a quorum, an eviction time
	local n=0 set
	local sets=("sync bsp" "sync ssp 3" "sync adaptive 1 4" "sync bsp quorum 1"
		    "evict-ms 400" "evict-ms 0" "sync asp")
	while [ ! -e "$stop" ]; do
		set=${sets[$((RANDOM % ${#sets[@]}))]}
		# shellcheck disable=SC2086
		"$RWCTL" policy set "${SJOBS[$((RANDOM % 3))]}" $set >/dev/null 2>&1
		n=$((n + 1))
	done
	echo $n >"$ops/policy"
}

storm_read() {	# statistics, topology, job dumps, status
	local n=0 j
	while [ ! -e "$stop" ]; do
		j=${SJOBS[$((RANDOM % 3))]}
		"$RWCTL" -j stats show "$j" >/dev/null 2>&1
		"$RWCTL" -j topo show "$j" >/dev/null 2>&1
		"$RWCTL" -j job show >/dev/null 2>&1
		"$RWCTL" stats show "$j" >/dev/null 2>&1
		n=$((n + 4))
	done
	echo $n >"$ops/read"
}

storm_monitor() {	# listeners joining and leaving the events group
	local n=0 pid
	while [ ! -e "$stop" ]; do
		"$RWCTL" -j monitor timeout 5 >/dev/null 2>&1 &
		pid=$!
		sleep "0.$((RANDOM % 9 + 1))"
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		n=$((n + 1))
	done
	echo $n >"$ops/monitor"
}

for i in 0 1 2; do storm_add $i; done
t_ok "job add soak-ssp (SSP 2) and soak-ada (adaptive 1..3)" sh -c \
	"'$RWCTL' job add soak-ssp workers $W lr 0.5 chunk-size 4096 token-file '$tok' sync ssp 2 &&
	 '$RWCTL' job add soak-ada workers $W lr 0.5 chunk-size 4096 token-file '$tok' sync adaptive 1 3"
# Observers hold the soaks' runs, so their gate statistics outlive the
# trainers (a run's _MAX_SKEW is 0 once the run ends).
obs=()
for j in soak-ssp soak-ada; do
	rm -f "$RW_OUT/$j-go"
	/usr/bin/python3 "$RW_TOP/tests/vm/observer.py" "$j" "$tok" "$RW_OUT/$j-go" \
		"$RW_OUT/$j-observed.bin" >"$RW_OUT/$j-observer.log" 2>&1 &
	obs+=($!)
	for _ in $(seq 100); do
		grep -q attached "$RW_OUT/$j-observer.log" && break
		sleep 0.1
	done
done
trainers soak-ssp "$EPOCHS"
ssp_pids=("${tpids[@]}")
trainers soak-ada "$EPOCHS"
ada_pids=("${tpids[@]}")
spids=()
for j in "${SJOBS[@]}"; do
	storm_rank "$j" 0 & spids+=($!)
	storm_rank "$j" 1 & spids+=($!)
done
storm_del & spids+=($!)
storm_policy & spids+=($!)
storm_read & spids+=($!)
storm_monitor & spids+=($!)
sleep "$STORM"
touch "$stop"
wait "${spids[@]}"
echo "# storm: $STORM s: attach/kill or leave cycles per job and rank:" \
	"$(cd "$ops" && for f in attach-*; do printf '%s=%s ' "${f#attach-}" "$(cat "$f")"; done)"
echo "# storm: forced deletions $(cat "$ops/del"), policy sets $(cat "$ops/policy")," \
	"reads $(cat "$ops/read"), monitor listeners $(cat "$ops/monitor")"
t_ok "the module answers after the storm" "$RWCTL" -j job show
for j in "${SJOBS[@]}"; do "$RWCTL" job del "$j" force >/dev/null 2>&1; done
t_eq "the storm's jobs are gone" '[]' \
	"$("$RWCTL" -j job show | jpy '[j["name"] for j in d["jobs"] if j["name"].startswith("st-")]')"

tpids=("${ssp_pids[@]}")
t_ok "soak-ssp: 4 trainers trained $EPOCHS epochs beside the storm" trainers_wait soak-ssp
tpids=("${ada_pids[@]}")
t_ok "soak-ada: 4 trainers trained $EPOCHS epochs beside the storm" trainers_wait soak-ada
for j in soak-ssp:2 soak-ada:3; do
	skew=$("$RWCTL" -j stats show "${j%:*}" | jpy 'd["totals"]["max_skew"]')
	t_ok "${j%:*}: the gate kept the skew within ${j#*:} (max_skew $skew)" \
		test "$skew" -le "${j#*:}"
done
touch "$RW_OUT/soak-ssp-go" "$RW_OUT/soak-ada-go"
orc=0
for p in "${obs[@]}"; do wait "$p" || orc=1; done
t_eq "the soaks' observers end clean" 0 $orc
for j in soak-ssp soak-ada; do t_ok "job del $j" "$RWCTL" job del "$j"; done
t_ok "rmmod rackweave" rmmod rackweave
t_done
