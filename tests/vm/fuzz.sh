#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 900
# vm-parallel: the storm races and pull-race need CPUs truly in parallel
#
# Structured fuzzing, a concurrency storm and a soak (docs/fuzzing.md).
#  1. genl-fuzz (as root, and as nobody in a forked child) and dev-fuzz
#     (three threads, forks, SIGKILLed children) for $RW_FUZZ_SECONDS
#     while four softmax-trainers train a separate BSP job, "soak", for
#     more epochs than train.sh: its parameters must stay bit-identical to
#     softmax-ref's, whatever the fuzzers did meanwhile.
#  2. storm for half that (6 s at least): trainer children attaching and
#     killed with SIGKILL while they hold their mappings, or leaving by
#     themselves, on three jobs (BSP, SSP, adaptive) that are deleted by
#     force and made again, their policies switched among BSP, SSP,
#     adaptive, ASP and quorums, statistics, topology and job dumps and
#     "events" listeners coming and going. Beside it, SSP (bound 2) and
#     adaptive (band 1..3) soaks whose gates must never have let the skew
#     exceed the bound, and pull-race (no pull may miss its wake-up).
#  3. The module unloads; vm-run fails the run on any kernel report.
# RW_FUZZ_SECONDS (default 10) sets the length (make fuzz DURATION=S);
# RW_FUZZ_SEED replays a run's fuzzers.
. "$(dirname "$0")/lib.sh"

SECS=${RW_FUZZ_SECONDS:-10}
SEED=${RW_FUZZ_SEED:-$(( $(date +%s) % 1000000 ))}
STORM=$(( SECS / 2 > 6 ? SECS / 2 : 6 ))
EPOCHS=$(( SECS / 2 > 6 ? SECS / 2 : 6 ))
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
# No Python on the way (each start costs seconds on a loaded host).
impl=$("$RWCTL" -j status | sed -n 's/.*"agg_impl": *"\([^"]*\)".*/\1/p')

# trainers JOB EPOCHS: W trainers in the background; pids in $tpids. A
# push or pull that waits a minute fails its trainer: a lost wake-up shows
# as a failed check, not as the VM's timeout.
trainers() {
	local r
	tpids=()
	for r in $(seq 0 $((W - 1))); do
		"$TRAINER" --job "$1" --token-file "$tok" --rank "$r" --workers $W \
			--data "$data" --epochs "$2" --batch 64 --timeout 60000 \
			--out "$RW_OUT/$1-params-$r.bin" >"$RW_OUT/$1-rank$r.log" 2>&1 &
		tpids+=($!)
	done
}

# trainers_wait JOB: every trainer of the last trainers call exited 0
# (their logs shown if not; one hung 300 s from now is shown and killed).
trainers_wait() {
	local r
	rw_wait_bounded 300 "${tpids[@]}" && return 0
	for r in "${!tpids[@]}"; do
		sed "s/^/#   $1 rank $r: /" "$RW_OUT/$1-rank$r.log"
	done
	return 1
}

# ---- 1. the fuzzers, while a BSP job trains ----
t_ok "job add soak: BSP, 4 workers, lr 0.5, 4 KiB chunks" \
	"$RWCTL" job add soak workers $W lr 0.5 chunk-size 4096 token-file "$tok"
t_ok "job add fzdev: the device fuzzer's job, 3 workers" \
	"$RWCTL" job add fzdev workers 3 chunk-size 4096 token-file "$tok"
trainers soak "$EPOCHS"
"$BIN/genl-fuzz" --seed "$SEED" --seconds "$SECS" --protect soak \
	--target fzdev --keep fzdev --unprivileged >"$RW_OUT/genl-fuzz.log" 2>&1 &
gpid=$!
"$BIN/dev-fuzz" --seed "$SEED" --seconds "$SECS" --job fzdev --token-file "$tok" \
	--workers 3 --threads 3 --victim soak --rwctl "$RWCTL" >"$RW_OUT/dev-fuzz.log" 2>&1 &
dpid=$!
# Each fuzzer, storm and race is bounded: a hang shows where it hung.
rw_wait_bounded $((SECS + 120)) $gpid
grc=$?
alive=0
for p in "${tpids[@]}"; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
echo "# fuzz: $alive of $W soak trainers still training when genl-fuzz ended"
rw_wait_bounded 120 $dpid
drc=$?
cat "$RW_OUT/genl-fuzz.log" "$RW_OUT/dev-fuzz.log"
t_eq "genl-fuzz (root and nobody) ends clean" 0 $grc
t_eq "dev-fuzz ends clean" 0 $drc
t_ok "the module still answers" "$RWCTL" status
# Not under t_ok: a subshell cannot wait for this shell's children.
trainers_wait soak
t_eq "soak: 4 trainers trained $EPOCHS epochs under the fuzzers" 0 $?
t_ok "soak: the single-process reference ($impl kernels)" \
	"$REF" --workers $W --data "$data" --epochs "$EPOCHS" --batch 64 --lr 0.5 \
	--chunk-size 4096 --impl "$impl" --out "$RW_OUT/soak-ref.bin" --quiet
t_ok "soak: every rank's parameters bit-identical to the reference" \
	sh -c "for r in 0 1 2 3; do cmp '$RW_OUT/soak-ref.bin' \"$RW_OUT/soak-params-\$r.bin\" || exit 1; done"
t_ok "job del soak" "$RWCTL" job del soak
# genl-fuzz may have deleted fzdev last, after dev-fuzz's last look.
"$RWCTL" job del fzdev force >/dev/null 2>&1
t_eq "no fz job left" 0 "$("$RWCTL" job show | grep -c '^job fz')"

# ---- 2. the storm, beside SSP and adaptive soaks ----
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
# Beside the storm too: pull-race, four workers pushing and pulling one
# chunk as fast as they can under adaptive 1..3, each pull bounded (the
# lost wake-up of docs/fuzzing.md).
"$RWCTL" job add race workers 4 chunk-size 4096 token-file "$tok" sync adaptive 1 3 >/dev/null
"$BIN/pull-race" --job race --token-file "$tok" --workers 4 --steps 1000000 \
	--seconds "$STORM" --timeout-ms 60000 >"$RW_OUT/pull-race.log" 2>&1 &
rpid=$!
"$BIN/storm" --seed "$SEED" --seconds "$STORM" --token-file "$tok" >"$RW_OUT/storm.log" 2>&1 &
spid=$!
rw_wait_bounded $((STORM + 120)) $spid
src=$?
rw_wait_bounded 120 $rpid
prc=$?
cat "$RW_OUT/storm.log" "$RW_OUT/pull-race.log"
t_eq "storm ends clean" 0 $src
t_eq "pull-race: no pull missed its wake-up" 0 $prc
t_ok "job del race" "$RWCTL" job del race
t_ok "the module answers after the storm" "$RWCTL" -j job show
t_eq "the storm's jobs are gone" 0 "$("$RWCTL" job show | grep -c '^job st-')"

tpids=("${ssp_pids[@]}")
trainers_wait soak-ssp
t_eq "soak-ssp: 4 trainers trained $EPOCHS epochs beside the storm" 0 $?
tpids=("${ada_pids[@]}")
trainers_wait soak-ada
t_eq "soak-ada: 4 trainers trained $EPOCHS epochs beside the storm" 0 $?
for j in soak-ssp:2 soak-ada:3; do
	skew=$("$RWCTL" -j stats show "${j%:*}" | grep -o '"max_skew": *[0-9]*' | grep -o '[0-9]*$')
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
