#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 900
#
# One tenant cannot take the box's memory. Job B trains (a remote and a
# local worker, BSP) while a token holder of job A, over the wire (raw
# verbs, wire-peer's setup mode) and locally (the Python package),
# declares a model of 640 MiB: refused with EDQUOT for the job's
# max-memory, and, once A's limit is raised past the box, with ENOSPC for
# the box's max_memory, the kernel log naming each limit. Nothing is
# allocated: the box's free memory stays where it was, B ends bit-exact.
# A setup within the limits whose peer disconnects in the middle of its
# allocation (slowed to 60 ms per MiB by the test build's test_arena_ms)
# is given up at once and gives everything back: slab, vmalloc and free
# memory return to where they were; so is a local declare whose process
# is killed in the middle. Then rmmod.
. "$(dirname "$0")/lib.sh"

B_ITERS=40
BIG=167772160			# 640 MiB of f32

rw_wire_up $BOX
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
head -c 32 /dev/urandom >"$RW_OUT/token"

# meminfo FIELD: kB
meminfo() { awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo; }
# within A B SLACK_KB: |A - B| <= SLACK_KB
within() { local d=$(($1 - $2)); [ ${d#-} -le "$3" ]; }
# until_zero JPY CMD...: CMD's JSON, through jpy JPY, until it reads 0
# (10 s at most); prints the last reading.
until_zero() {
	local expr=$1 v= _
	shift
	for _ in $(seq 20); do
		v=$("$@" | jpy "$expr")
		[ "$v" = 0 ] && break
		sleep 0.5
	done
	echo "$v"
}

slab0=$(meminfo Slab)
vmalloc0=$(meminfo VmallocUsed)
avail0=$(meminfo MemAvailable)
echo "# before: MemAvailable $avail0 kB, Slab $slab0 kB, VmallocUsed $vmalloc0 kB"

# --- job B trains throughout ---
t_ok "job add b" "$RWCTL" job add b workers 2 chunk-size 4096 optim sgd lr 0.5 \
	token-file "$RW_OUT/token"
req=$($REQ b "$RW_OUT/token" 1)
"$PEER" $BOX $BOX $PORT "$req" train 1 2 $B_ITERS >"$RW_OUT/b-remote.log" 2>&1 &
b_remote=$!
"$LOCAL" b "$RW_OUT/token" 0 2 $B_ITERS >"$RW_OUT/b-local.log" 2>&1 &
b_local=$!

# --- job A: a model of 640 MiB, over the wire and locally ---
t_ok "job add a (1 MiB chunks, default max-memory)" "$RWCTL" job add a workers 2 \
	chunk-size 1048576 token-file "$RW_OUT/token"
big() {
	local req
	req=$($REQ a "$RW_OUT/token" "$1") || return 1
	"$PEER" $BOX $BOX $PORT "$req" setup $BIG | tail -n 1
}
t_eq "a 640 MiB setup over the wire: refused for the job's limit" \
	"refused EDQUOT" "$(big 0)"
t_ok "the kernel log names the job's max-memory" \
	sh -c "dmesg | grep -q 'job a: a run needs .* over the job.s max-memory'"

declare_big() {
	/usr/bin/python3 - "$RW_TOP" "$RW_OUT/token" <<'PY'
import errno, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import rackweave as rw
try:
    with rw.Worker("a", rw.read_token(sys.argv[2]), 1) as w:
        w.declare({1: 167772160})
    print("declared")
except rw.RackWeaveError as e:
    print(errno.errorcode.get(e.errno, e.errno), "-", e)
PY
}
out=$(declare_big)
echo "# local declare: $out"
t_eq "a local 640 MiB declare: refused for the job's limit" EDQUOT "${out%% *}"

t_ok "policy set a max-memory 64G (past the box's budget)" \
	"$RWCTL" policy set a max-memory 64G
t_eq "the same setup: refused for the box's budget" "refused ENOSPC" "$(big 0)"
t_ok "the kernel log names the box's max_memory" \
	sh -c "dmesg | grep -q 'job a: a run needs .* over what the box.s max_memory'"
out=$(declare_big)
t_eq "the same local declare: refused for the box's budget" ENOSPC "${out%% *}"
t_eq "nothing is charged to job a" 0 \
	"$("$RWCTL" -j job show a | jpy 'd["jobs"][0]["memory"]')"

# --- B trained through it, bit-exact ---
wait $b_local
wait $b_remote
t_eq "job b's local worker: exact" "trained $B_ITERS exact" \
	"$(rw_wire_result "$RW_OUT/b-local.log")"
t_eq "job b's remote worker: exact, same bytes" \
	"trained $B_ITERS exact $(rw_wire_hash "$RW_OUT/b-local.log")" \
	"$(rw_wire_result "$RW_OUT/b-remote.log") $(rw_wire_hash "$RW_OUT/b-remote.log")"
avail=$(meminfo MemAvailable)
echo "# after the refusals: MemAvailable $avail kB"
t_ok "the box's free memory did not move (64 MiB slack)" within "$avail" "$avail0" 65536

# --- a setup whose peer leaves in the middle of the allocation ---
# 40 MiB of f32, two workers, SGD: about 120 MiB of arenas, 60 ms a MiB,
# 7 s in all; the peer leaves 1.5 s after sending it.
t_ok "policy set a max-memory 512M" "$RWCTL" policy set a max-memory 512M
echo 60 >/sys/module/rackweave/parameters/test_arena_ms
req=$($REQ a "$RW_OUT/token" 0)
dmesg -C
t_eq "a peer sends a 40 MiB setup and leaves after 1.5 s" dropped \
	"$("$PEER" $BOX $BOX $PORT "$req" setup 10485760 drop 1500 | tail -n 1)"
t0=$(date +%s%N)
given=""
while [ $((($(date +%s%N) - t0) / 1000000)) -lt 30000 ]; do
	given=$(dmesg | grep -m 1 'job a rank 0: setup given up') && break
	sleep 0.1
done
ms=$((($(date +%s%N) - t0) / 1000000))
echo "# $given"
t_ok "the box gave the setup up (seen ${ms} ms after the peer left)" test -n "$given"
t_ok "within 3 s of the peer leaving" test $ms -lt 3000
echo 0 >/sys/module/rackweave/parameters/test_arena_ms
t_eq "the box's charge is back to 0" 0 \
	"$(until_zero 'd["mem_used"]' "$RWCTL" -j status)"
t_eq "no run of job a" "[0, 0]" \
	"$("$RWCTL" -j job show a | jpy '[d["jobs"][0]["memory"], d["jobs"][0].get("chunks", 0)]')"
sleep 1
slab=$(meminfo Slab)
vmalloc=$(meminfo VmallocUsed)
avail=$(meminfo MemAvailable)
echo "# after: MemAvailable $avail kB, Slab $slab kB, VmallocUsed $vmalloc kB"
t_ok "slab back where it started (8 MiB slack)" within "$slab" "$slab0" 8192
t_ok "vmalloc back where it started (8 MiB slack)" within "$vmalloc" "$vmalloc0" 8192
t_ok "free memory back where it started (64 MiB slack)" within "$avail" "$avail0" 65536

# --- a local declare whose process is killed in the middle ---
echo 40 >/sys/module/rackweave/parameters/test_arena_ms
/usr/bin/python3 - "$RW_TOP" "$RW_OUT/token" >"$RW_OUT/killed.log" 2>&1 <<'PY' &
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import rackweave as rw
w = rw.Worker("a", rw.read_token(sys.argv[2]), 1)
print("declaring", flush=True)
w.declare({1: 10485760})
print("declared", flush=True)
PY
kpid=$!
for _ in $(seq 300); do
	grep -q declaring "$RW_OUT/killed.log" && break
	sleep 0.1
done
sleep 1.5
t0=$(date +%s%N)
kill -9 $kpid
wait $kpid
ms=$((($(date +%s%N) - t0) / 1000000))
echo 0 >/sys/module/rackweave/parameters/test_arena_ms
t_eq "the declaring process was still declaring when killed" declaring \
	"$(tail -n 1 "$RW_OUT/killed.log")"
t_ok "killed in the middle of its declare, it was gone in ${ms} ms (< 2 s)" \
	test $ms -lt 2000
t_eq "nothing of the run is left: job a holds no memory" 0 \
	"$("$RWCTL" -j job show a | jpy 'd["jobs"][0]["memory"]')"

# --- within the limits, the same setup is taken ---
t_eq "job a's 40 MiB model within its limit: the same setup is taken" \
	"set up 40 chunks" "$("$PEER" $BOX $BOX $PORT "$($REQ a "$RW_OUT/token" 0)" setup 10485760 | tail -n 1)"
t_eq "its peer gone, the run ended and gave its charge back" 0 \
	"$(until_zero 'd["jobs"][0]["memory"]' "$RWCTL" -j job show a)"

t_ok "job del a" "$RWCTL" job del a
t_ok "job del b" "$RWCTL" job del b
t_ok "rmmod rackweave" rmmod rackweave
t_done
