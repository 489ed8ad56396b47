#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 900
#
# Fault injection into the job and worker life cycle (build/tests/vm/
# fault-cycle: job add, open, attach, declare, setup, mmap, policy set,
# push, pull, pushpull, unmap, close, job del). failslab, fail_page_alloc
# and fail_usercopy fail, at several probabilities, what the kernel
# allocates or copies for the test's own calls and nothing else (task-filter,
# /proc/self/make-it-fail set around each call); then every fault point of
# one life cycle is failed once, in order (/proc/thread-self/fail-nth;
# every 8th of the first 480 in the short form).
# Every failure must reach the caller as ENOMEM, ENOBUFS or EFAULT and
# leave nothing behind (`job del force`, then the job is gone); after each
# phase a cycle without injection trains to the exact SGD result; at the
# end no job is left, the module unloads and scripts/vm-run's kmemleak scan
# finds nothing.
#
# The kernel warns with a stack when a page or vmalloc allocation fails,
# which is what fail_page_alloc is for: after each phase the whole log is
# checked against scripts/kernel-reports, allowing only those warnings
# (a "Call Trace:" right after "page allocation failure" or "vmalloc
# error"); the log is then saved in $RW_OUT/faults-dmesg-N.txt and cleared,
# so that vm-run's own check sees the rest of the run.
#
# RW_STRESS=1 (make stress): more probabilities, 10x the cycles, three
# workers and three iterations, and fail-nth on each of the first 3000
# points instead of every 8th of the first 480.
. "$(dirname "$0")/lib.sh"

FC=$RW_TOP/build/tests/vm/fault-cycle
FI=/sys/kernel/debug
if [ "${RW_STRESS:-0}" = 1 ]; then
	probs="1 2 5 10 25"
	cycles=200
	fc_args="-w 3 -i 3"
	stride=1
	sweep=3000
else
	probs="2 10"
	cycles=20
	fc_args="-w 2 -i 2"
	stride=8
	sweep=60
fi
clean=0

# The failure classes this test drives, and their switches.
fi_set() {	# ATTR FILE VALUE
	echo "$3" >"$FI/$1/$2"
}
fi_setup() {
	local a
	for a in failslab fail_page_alloc fail_usercopy; do
		fi_set $a probability 0
		fi_set $a interval 1
		fi_set $a times -1
		fi_set $a space 0
		fi_set $a verbose 0
		fi_set $a task-filter Y
	done
	# GFP_KERNEL allocations are what the module makes: fail them too.
	fi_set failslab ignore-gfp-wait N
	fi_set fail_page_alloc ignore-gfp-wait N
	fi_set fail_page_alloc ignore-gfp-highmem N
	fi_set fail_page_alloc min-order 0
}

# vet_log NAME: the kernel log so far has no report but page/vmalloc
# allocation failure warnings (with their stacks); saved, then cleared.
vet_log() {
	local f=$RW_OUT/faults-dmesg-$1.txt
	dmesg >"$f"
	python3 - "$f" "$RW_TOP/scripts/kernel-reports" <<'EOF'
import re, sys
log = open(sys.argv[1], errors="replace").read().splitlines()
pats = [l for l in open(sys.argv[2]).read().splitlines() if l and not l.startswith("#")]
bad = re.compile("|".join(pats))
allowed = re.compile(r"page allocation failure|vmalloc error")
ok = True
for i, line in enumerate(log):
    if not bad.search(line):
        continue
    if "Call Trace:" in line and any(allowed.search(l) for l in log[max(0, i - 4):i]):
        continue
    ok = False
    print("#   " + "\n#   ".join(log[max(0, i - 3):i + 25]))
    break
n = sum(1 for l in log if allowed.search(l))
print("# allocation failure warnings in the log: %d" % n)
sys.exit(0 if ok else 1)
EOF
	local rc=$?
	dmesg -C
	t_eq "$1: no kernel report but allocation failure warnings" 0 $rc
}

# run_fc DESC ARGS...: fault-cycle with ARGS, its "#" lines shown, its
# output kept (fc-PREFIX.log, PREFIX its last argument); passes when it
# exits 0.
run_fc() {
	local desc=$1 log=$RW_OUT/fc-${*: -1}.log rc
	shift
	"$FC" "$@" >"$log" 2>&1
	rc=$?
	grep -E '^#|^not ok' "$log" | head -n 20
	t_eq "$desc" 0 "$rc"
}

# clean_cycle AFTER: a cycle without injection trains exactly.
clean_cycle() {
	# shellcheck disable=SC2086
	run_fc "after $1: a cycle without injection trains to the exact result" \
		$fc_args -c 1 "fc-clean-${1%%[ %]*}-$((++clean))"
}

t_ok "load ib_core and rackweave.ko" rw_load
t_ok "debugfs has failslab, fail_page_alloc and fail_usercopy" \
	test -d $FI/failslab -a -d $FI/fail_page_alloc -a -d $FI/fail_usercopy
fi_setup
# shellcheck disable=SC2086
run_fc "3 cycles without injection train to the exact result" $fc_args -c 3 fc-warm

for attr in failslab fail_page_alloc fail_usercopy all; do
	for p in $probs; do
		if [ $attr = all ]; then
			for a in failslab fail_page_alloc fail_usercopy; do fi_set $a probability "$p"; done
		else
			fi_set $attr probability "$p"
		fi
		# shellcheck disable=SC2086
		run_fc "$attr at $p%: $cycles cycles, every failure a clean errno, nothing left behind" \
			-f $fc_args -c "$cycles" "fc-$attr-$p"
		for a in failslab fail_page_alloc fail_usercopy; do fi_set $a probability 0; done
		clean_cycle "$attr at $p%"
	done
	vet_log "$attr"
done

# The first fault points of the life cycle (every 8th of the first 480 in
# the short form, each of the first 3000 in the long one), failed once
# each, in order.
# shellcheck disable=SC2086
run_fc "fail-nth: every ${stride}th of the first $((stride * sweep)) fault points of a life cycle fails once, each cleanly" \
	-n -s $stride $fc_args -c $sweep fc-nth
clean_cycle "fail-nth"
vet_log fail-nth

t_eq "no job is left" 0 "$("$RWCTL" -j job show | jpy 'len(d["jobs"])')"
t_ok "rmmod rackweave" rmmod rackweave
t_done
