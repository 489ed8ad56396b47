# SPDX-License-Identifier: GPL-2.0
# Helpers for VM integration tests. Sourced by tests/vm/*.sh, which run
# inside a VM (scripts/vm-run) with the host's root shared read-only and the
# working directory at the top of the RackWeave tree.
#
# Every check prints one TAP line ("ok - ..." / "not ok - ..."); scripts/check
# counts them. A script exits non-zero if any of its checks failed.

RW_TOP=$PWD
RWCTL=$RW_TOP/build/rwctl
# The wire tests' programs (raw verbs peer, local trainer, request
# builder) and the box's address and port in one VM (tests/cluster/ sets
# its own BOX).
PEER=$RW_TOP/build/tests/vm/wire-peer
LOCAL=$RW_TOP/build/tests/vm/wire-local
# (-I -S: the standard library is all these need, and a guest's python3
# starts a third faster without site's scan of the installed packages.)
REQ="/usr/bin/python3 -I -S $RW_TOP/tests/vm/wire-req.py"
BOX=10.77.0.1
PORT=18515
RW_TEST_NAME=${RW_TEST_NAME:-$(basename "$0" .sh)}
t_failed=0
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Where the time goes: every check notes how long it took since the one
# before it; t_done lists the slow ones in the log (not as checks).
t_last=$EPOCHREALTIME
t_slow=()
t_clock() {
	local now=$EPOCHREALTIME
	local ms=$(( (${now/./} - ${t_last/./}) / 1000 ))
	[ "$ms" -lt 3000 ] || t_slow+=("$(printf '%6d ms  %s' "$ms" "$1")")
	t_last=$now
}
t_pass() {
	t_clock "$1"
	echo "ok - $RW_TEST_NAME: $1"
}
t_fail() {
	t_clock "$1"
	echo "not ok - $RW_TEST_NAME: $1"
	t_failed=1
}

# t_ok DESCRIPTION COMMAND...: passes when COMMAND succeeds.
t_ok() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		t_pass "$desc"
	else
		t_fail "$desc"
		printf '#   %s\n' "command: $*" "${out//$'\n'/$'\n#   '}"
	fi
}

# t_fails DESCRIPTION COMMAND...: passes when COMMAND fails.
t_fails() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		t_fail "$desc"
		printf '#   %s\n' "command unexpectedly succeeded: $*" "${out//$'\n'/$'\n#   '}"
	else
		t_pass "$desc"
	fi
}

# t_eq DESCRIPTION EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then
		t_pass "$1"
	else
		t_fail "$1"
		echo "#   expected: '$2'"
		echo "#   actual:   '$3'"
	fi
}

# jpy EXPR: evaluate a Python expression over the JSON document on stdin
# (bound to d) and print the result. Fails on invalid JSON.
jpy() {
	/usr/bin/python3 -I -S -c 'import json, sys
d = json.load(sys.stdin)
r = eval(sys.argv[1])
print(json.dumps(r) if isinstance(r, (dict, list, bool)) or r is None else r)' "$1"
}

# modprobe that finds the test kernel's modules (or the stock kernel's).
rw_modprobe() {
	if [ -n "${RW_MODROOT:-}" ] && [ "$RW_MODROOT" != / ]; then
		modprobe -d "$RW_MODROOT" "$@"
	else
		modprobe "$@"
	fi
}

# Where the modules built for the kernel this VM runs are (RW_MODDIR
# overrides, for a build kept elsewhere).
rw_module_dir() {
	# build/mod-KIND: scripts/check and vm-run's callers build the module
	# there for each kernel (test, kasan, kcsan, bench, stock).
	echo "${RW_MODDIR:-$RW_TOP/build/mod-${RW_KERNEL_KIND:-test}}"
}

rw_module_path() { echo "$(rw_module_dir)/rackweave.ko"; }

rw_load() {
	rw_modprobe -a ib_core rdma_cm && insmod "$(rw_module_path)" "$@"
}

# mon_start FILE: `rwctl -j monitor` in the background, writing FILE; returns
# once it demonstrably listens (it has heard a throw-away job "rw-ping" come
# and go), so no later event can be missed. mon_stop ends it.
mon_start() {
	local _
	"$RWCTL" -j monitor timeout 300 >"$1" 2>&1 &
	mon_pid=$!
	for _ in $(seq 100); do
		"$RWCTL" job add rw-ping workers 1 >/dev/null 2>&1
		"$RWCTL" job del rw-ping >/dev/null 2>&1
		grep -q '"rw-ping"' "$1" && return 0
		rw_nap 0.2
	done
	return 1
}

# mon_until FILE PATTERN: wait (20 s at most) for a line of FILE matching
# PATTERN (grep -E).
mon_until() {
	local _
	for _ in $(seq 100); do
		grep -qE "$2" "$1" && return 0
		rw_nap 0.2
	done
	return 1
}

mon_stop() {
	kill "$mon_pid" 2>/dev/null
	wait "$mon_pid" 2>/dev/null
	mon_pid=
}

# mon_events FILE EXPR: EXPR (Python, over e: one event) for each event of
# FILE not about rw-ping, as a JSON list.
mon_events() {
	/usr/bin/python3 -I -S -c 'import json, sys
ev = [e for e in map(json.loads, open(sys.argv[1])) if e.get("job") != "rw-ping"]
print(json.dumps([eval(sys.argv[2]) for e in ev]))' "$1" "$2"
}

# rw_wire_up ADDR: the modules the wire needs (rdma_ucm before ours: ib_core
# removes a device's clients newest first, so the module lets go of a
# device before ib_uverbs waits for user contexts rxe cannot disassociate)
# and rxe0 with ADDR, over a veth pair, or over eth0 with --eth0 (the
# two-VM tests). Each step is a TAP check.
rw_wire_up() {
	local dev=veth0
	t_ok "load rdma_ucm" rw_modprobe rdma_ucm
	t_ok "load ib_core, rdma_cm and rackweave.ko" rw_load
	t_ok "load rdma_rxe" rw_modprobe rdma_rxe
	if [ "${2:-}" = --eth0 ]; then
		dev=eth0
	else
		ip link add veth0 type veth peer name veth1
		ip link set veth1 up
	fi
	ip addr add "$1/24" dev $dev
	ip link set $dev up
	t_ok "rdma link add rxe0 on $dev" rdma link add rxe0 type rxe netdev $dev
}

# rw_until_attached JOB N: the job has N workers attached (30 s at most).
# rw_steps JOB: the job's optimizer steps so far, from rwctl's text (a
# guest's python3 starts too slowly for a loop that counts seconds).
rw_steps() {
	"$RWCTL" stats show "$1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "steps") { print $(i + 1); exit } }'
}

# rw_wire_result LOG: a wire trainer's outcome, its log's last line
# without the parameter hash that ends it; rw_wire_hash LOG: that hash.
rw_wire_result() { tail -n 1 "$1" | sed 's/ [0-9a-f]\{16\}$//'; }
rw_wire_hash() { tail -n 1 "$1" | awk '{print $NF}'; }

rw_until_attached() {
	local _ n
	for _ in $(seq 150); do
		# No Python in a polling loop: a guest's python3 starts in
		# seconds (over 9 s on a two-VM test's uncached root).
		n=$("$RWCTL" -j job show "$1" | grep -o '"attached": *[0-9]*' |
			head -n 1 | grep -o '[0-9]*$')
		[ "$n" = "$2" ] && return 0
		rw_nap 0.2
	done
	echo "attached: $n, wanted $2"
	return 1
}

# rw_until_flowing N [JOB]: N connections (of JOB) have each pushed 64
# chunks and had 64 answered, so training is under way (60 s at most).
rw_until_flowing() {
	local _ n
	for _ in $(seq 300); do
		n=$("$RWCTL" listen show | awk -v job="${2:-}" '
			/^connections:/ { on = 1; next }
			/^[^ ]/ { on = 0 }
			on {
				j = ""; p = 0; w = 0
				for (i = 1; i < NF; i++) {
					if ($i == "job") j = $(i + 1)
					if ($i == "pushes") p = $(i + 1)
					if ($i == "writes") w = $(i + 1)
				}
				if ((job == "" || j == job) && p >= 64 && w >= 64) n++
			}
			END { print n + 0 }')
		[ "$n" = "$1" ] && return 0
		rw_nap 0.2
	done
	"$RWCTL" listen show
	return 1
}

# rw_retry_connect COMMAND...: run a peer's first connection until it gets
# past "error:" (the other host's ARP entry may take a moment; 10 tries,
# a second apart) and print its output.
rw_retry_connect() {
	local _ out
	for _ in $(seq 10); do
		out=$("$@" 2>&1)
		case $out in error:*) sleep 1 ;; *) break ;; esac
	done
	printf '%s\n' "$out"
}

# rw_nap SECONDS: sleep without starting a process (bash's read -t on a
# FIFO nobody writes, opened once per shell). Under TCG every process
# started costs the guest's vCPUs tens of milliseconds: a benchmark that
# waited for its workers with `sleep 0.1` and `grep` took a share of the
# very CPUs it measured (2026-11-27, docs/performance.md).
rw_nap() {
	local f=${TMPDIR:-/tmp}/rw-nap.$BASHPID
	if [ "${RW_NAP_PID:-}" != "$BASHPID" ]; then
		# (A subshell opens its own: one mkfifo, as one sleep would cost.)
		mkfifo "$f" 2>/dev/null || [ -p "$f" ] || return 1
		exec {RW_NAP_FD}<>"$f"
		rm -f "$f"
		RW_NAP_PID=$BASHPID
	fi
	read -r -t "$1" -u "$RW_NAP_FD" _ || :
}

# rw_await ROLE FILE [SECONDS]: in a tests/cluster test, the VM of ROLE
# (box or worker, or any role of the script's "# cluster-roles:" line)
# has made FILE in its out directory, $RW_CLUSTER/ROLE (180 s at most, or
# SECONDS).
rw_await() {
	local _ limit=${3:-180}
	for _ in $(seq $((limit * 5))); do
		[ -e "$RW_CLUSTER/$1/$2" ] && return 0
		rw_nap 0.2
	done
	echo "no $1/$2 after $limit s"
	return 1
}

# rw_move_settled JOB EPOCH [JOINS]: this box gave what the move of JOB to
# box set EPOCH left it for other boxes, and took every chunk it gains
# there, as its kernel log says (kmod/job_carry.c, rdma/give.c,
# rdma/take.c). JOINS 1: the box joins the job at EPOCH, so it kept
# nothing of a run and every chunk it owns comes.
rw_move_settled() {
	local kept give due
	kept=$(dmesg | grep "job $1: kept [0-9]* chunks of its run for the move to epoch $2," | tail -n 1)
	give=$(sed -n 's/.*, \([0-9]*\) of them for other boxes;.*/\1/p' <<<"$kept")
	due=$(sed -n 's/.*; \([0-9]*\) to come from them$/\1/p' <<<"$kept")
	if [ -z "$kept" ] && [ "${3:-0}" = 1 ]; then
		give=0 due=1
	fi
	[ -n "$give" ] || return 1
	if [ "$give" != 0 ]; then
		dmesg | grep -q "job $1: gave $give chunks of its move to epoch $2\$" || return 1
	fi
	if [ "$due" != 0 ]; then
		dmesg | grep -q "job $1: took [0-9]* chunks from box [0-9]* for the move to epoch $2, 0 still due" ||
			return 1
	fi
}

# rw_move_wait JOB EPOCH [JOINS]: rw_move_settled, within 180 s (a giver
# offers its gift again for 120 s while the taker's own run goes on).
rw_move_wait() {
	local _
	for _ in $(seq 360); do
		rw_move_settled "$@" && return 0
		rw_nap 0.5
	done
	echo "the move of $1 to epoch $2 did not settle: $(dmesg | grep "job $1: " | tail -n 3)"
	return 1
}

# rw_cluster_ip ROLE: in a tests/cluster test, ROLE's address on the
# VMs' segment by convention: 10.88.0.N for the role at place N of
# RW_CLUSTER_ROLES (scripts/check exports the script's roles in order:
# "box worker" gives the box 10.88.0.1 and the worker 10.88.0.2). Fails
# for a role not in the list.
rw_cluster_ip() {
	local r n=0
	for r in ${RW_CLUSTER_ROLES:-box worker}; do
		n=$((n + 1))
		[ "$r" = "$1" ] && { echo "10.88.0.$n"; return 0; }
	done
	echo "rw_cluster_ip: no role '$1' in '${RW_CLUSTER_ROLES:-box worker}'" >&2
	return 1
}

# rw_wait_bounded SECONDS PID...: wait for these children of the calling
# shell; one still running after SECONDS is hung: the kernel stacks of its
# threads and of its own children are shown, the kernel is asked for its
# blocked tasks (sysrq w, where the kernel has it), and it is killed.
# So a hang fails a check, with where it hung, instead of timing out the
# VM. Returns 1 if any was hung or exited non-zero.
rw_wait_bounded() {
	local limit=$1 p t c rc=0 alive i
	shift
	for i in $(seq $((limit * 5))); do
		alive=
		for p in "$@"; do
			kill -0 "$p" 2>/dev/null && alive="$alive $p"
		done
		[ -z "$alive" ] && break
		rw_nap 0.2
	done
	[ -z "$alive" ] || [ ! -w /proc/sysrq-trigger ] || echo w >/proc/sysrq-trigger
	for p in $alive; do
		echo "#   pid $p ($(cat "/proc/$p/comm" 2>/dev/null)) still running after $limit s"
		for c in $p $(cat /proc/"$p"/task/*/children 2>/dev/null); do
			for t in /proc/"$c"/task/*; do
				echo "#   task ${t##*/} ($(cat "$t/comm" 2>/dev/null)) in:"
				sed 's/^/#     /' "$t/stack" 2>/dev/null
			done
		done
		kill -9 $(cat /proc/"$p"/task/*/children 2>/dev/null) "$p" 2>/dev/null
		rc=1
	done
	for p in "$@"; do
		wait "$p" || { echo "#   pid $p exited $?"; rc=1; }
	done
	return $rc
}

t_done() {
	[ ${#t_slow[@]} -eq 0 ] || printf '# slow: %s\n' "${t_slow[@]}"
	exit "$t_failed"
}
