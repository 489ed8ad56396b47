#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# The device's local path on the test kernel (lockdep, kmemleak, KFENCE
# watching): dev-check bad-input (every documented refusal, then two workers
# training under BSP), an observer's read-only view of a live run, and
# deleting a job while a worker holds its three mappings: plainly (EBUSY
# until the holder dies) and with force (the holder's ioctls get ENODEV, its
# mappings stay readable until it exits). scripts/vm-run then fails the run
# on any leak kmemleak finds in what the deleted jobs left behind.
. "$(dirname "$0")/lib.sh"

DEV_CHECK=$RW_TOP/build/tests/vm/dev-check
JOB=devpath
TOKEN=$RW_OUT/devpath.token
holder=

# A holder left running by a failed check must not outlive the script.
trap '[ -n "$holder" ] && kill -9 "$holder" 2>/dev/null; [ -n "${mon_pid:-}" ] && kill "$mon_pid" 2>/dev/null' EXIT

job_add() {
	"$RWCTL" job add "$JOB" workers 2 chunk-size 4096 token-file "$TOKEN"
}

# job_field FIELD: FIELD of $JOB in `rwctl -j job show`, or "gone".
job_field() {
	"$RWCTL" -j job show 2>&1 |
		jpy "next((j['$1'] for j in d['jobs'] if j['name'] == '$JOB'), 'gone')" 2>/dev/null
}

# start_holder LOG RANK [pull]: `dev-check hold` in the background, until
# it has mapped and touched every page ("ready"). Sets $holder, so it must
# not run in a subshell (t_ok would run it in one).
start_holder() {
	local log=$1 _
	shift
	"$DEV_CHECK" hold "$JOB" "$TOKEN" "$@" >"$log" 2>&1 &
	holder=$!
	for _ in $(seq 300); do
		grep -qx ready "$log" && return 0
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/#   /' "$log"
	kill -9 "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	holder=
	return 1
}

t_ok "load ib_core and rackweave.ko" rw_load
head -c 32 /dev/urandom >"$TOKEN"
t_ok "job add $JOB workers 2 chunk-size 4096 token-file" job_add

"$DEV_CHECK" bad-input "$JOB" "$TOKEN" 2>&1 | tee "$RW_OUT/bad-input.log"
t_eq "dev-check bad-input: every check passed" 0 "${PIPESTATUS[0]}"
t_eq "no worker attached once dev-check has exited" 0 "$(job_field attached)"

# Plain delete: refused while a worker is attached, done once it is gone.
plain_delete() {
	local msg

	start_holder "$RW_OUT/hold-0.log" 0
	t_eq "a worker attaches, maps and touches every page" 0 "$?"
	[ -n "$holder" ] || return
	t_eq "the holder is listed as attached" 1 "$(job_field attached)"
	t_eq "an observer maps the params read-only and sees the holder's bytes" \
		"$(sed -n 's/^# params checksum //p' "$RW_OUT/hold-0.log")" \
		"$("$DEV_CHECK" observer "$JOB" "$TOKEN" 2>&1)"
	t_eq "the observer was not counted as a worker" 1 "$(job_field attached)"
	msg=$("$RWCTL" job del "$JOB" 2>&1)
	t_eq "job del with a worker attached: exit 1" 1 "$?"
	t_ok "job del with a worker attached: the message says why and names force" \
		grep -q 'workers are attached.*force' <<<"$msg"
	t_eq "the refused delete left the job" 1 "$(job_field attached)"
	t_fails "rmmod while a worker has the device open" rmmod rackweave
	kill -9 "$holder"
	wait "$holder" 2>/dev/null
	t_eq "kill -9 ends the holder" 137 "$?"
	holder=
	t_eq "the killed holder is detached" 0 "$(job_field attached)"
	t_ok "job del once the holder is gone" "$RWCTL" job del "$JOB"
	t_eq "the job is gone" gone "$(job_field attached)"
}

# Forced delete: the holder's file dies, its mappings do not.
forced_delete() {
	t_ok "job add $JOB again, same name and token" job_add
	start_holder "$RW_OUT/hold-1.log" 1
	t_eq "a worker attaches rank 1, declares, maps and touches every page" 0 "$?"
	[ -n "$holder" ] || return
	t_ok "job del force with a worker attached" "$RWCTL" job del "$JOB" force
	t_eq "the forced delete removed the job" gone "$(job_field attached)"
	t_fails "rmmod while the holder still has the device open" rmmod rackweave
	t_ok "a new job of the same name while the old one's pages are mapped" job_add
	kill -USR1 "$holder"
	wait "$holder"
	t_eq "holder after the forced delete: ENODEV, mappings still readable" 0 "$?"
	holder=
	grep -E '^(ok|not ok) ' "$RW_OUT/hold-1.log"
	t_eq "the new job has no worker attached" 0 "$(job_field attached)"
	t_ok "job del of the new job" "$RWCTL" job del "$JOB"
}

# Waits up to 10 s for $holder to exit; 0 if it did.
holder_exits() {
	local _
	for _ in $(seq 100); do
		kill -0 "$holder" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# Forced delete of a worker blocked in a pull that can never complete: a
# signal interrupts it (EINTR), the delete wakes it (ENODEV).
blocked_delete() {
	local log=$RW_OUT/hold-pull.log _

	t_ok "job add $JOB for a worker that will block" job_add
	start_holder "$log" 0 pull
	t_eq "a worker pushes iteration 1 and pulls, rank 1 absent" 0 "$?"
	[ -n "$holder" ] || return
	for _ in $(seq 50); do
		grep -qx interrupted "$log" && break
		kill -USR2 "$holder"
		sleep 0.2
	done
	t_ok "SIGUSR2 interrupts the blocked pull" grep -qx interrupted "$log"
	t_ok "job del force with a worker blocked in a pull" \
		"$RWCTL" job del "$JOB" force
	if holder_exits; then
		t_pass "the forced delete ends the blocked worker within 10 s"
	else
		t_fail "the forced delete ends the blocked worker within 10 s"
		kill -9 "$holder"
	fi
	wait "$holder"
	t_eq "blocked worker after the forced delete: ENODEV, mappings readable" \
		0 "$?"
	holder=
	grep -E '^(ok|not ok) ' "$log"
}

# Silent workers: the gate evicts them after evict-ms (rank 0 never came,
# rank 1 attaches and then says nothing), rwctl monitor hears of it, and
# the statistics count the evictions.
silent_worker() {
	local ev=$RW_OUT/events
	t_ok "job add $JOB with evict-ms 300" \
		"$RWCTL" job add "$JOB" workers 2 chunk-size 4096 evict-ms 300 token-file "$TOKEN"
	mon_start "$ev"
	t_eq "monitor: listening" 0 "$?"
	start_holder "$RW_OUT/hold-silent.log" 1
	[ -n "$holder" ] || { mon_stop; return; }
	t_ok "monitor: both ranks evicted" mon_until "$ev" '"evicted".*"rank":0|"rank":0.*"evicted"'
	t_ok "monitor: rank 1 evicted" mon_until "$ev" '"evicted".*"rank":1|"rank":1.*"evicted"'
	mon_stop
	t_eq "monitor -j: rank 1 attaches and declares; ranks 0 and 1 are evicted" \
		'[["attached", 1], ["declared", 1], ["evicted", 0], ["evicted", 1]]' \
		"$(mon_events "$ev" '[e["event"], e.get("rank")]' | jpy 'd[:2] + sorted(d[2:])')"
	t_eq "stats show -j: each rank evicted once, none live" '[[1, false], [1, false]]' \
		"$("$RWCTL" -j stats show "$JOB" | jpy '[[w[k] for k in ("evictions", "live")] for w in d["workers"]]')"
	kill -9 "$holder"
	wait "$holder" 2>/dev/null
	holder=
	t_ok "job del $JOB" "$RWCTL" job del "$JOB"
}

plain_delete
forced_delete
blocked_delete
silent_worker
t_ok "rmmod rackweave" rmmod rackweave
t_done
