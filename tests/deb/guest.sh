#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the stock-kernel VM booted on the throwaway root that
# tests/deb/install-test installed RackWeave's packages into (not the
# host's root: nothing of the work tree is visible here). It uses the
# system as a user of the packages would: modprobe, rwctl from
# rackweave-tools, a trainer built against librackweave-dev, and one in
# Python from python3-rackweave. POSIX sh (the root has dash). Prints TAP.
#
#   guest.sh VERSION
set -u
want=${1:?usage: guest.sh VERSION}
dir=$(dirname "$0")
failed=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; failed=1; }
# check DESC CMD...: one TAP line for whether CMD succeeded.
check() {
	d=$1
	shift
	if out=$("$@" 2>&1); then ok "$d"; else nok "$d"; echo "$out" | sed 's/^/#   /'; fi
}
eq() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1"; echo "#   expected '$2', got '$3'"; fi; }
# stat_of JOB KEY: a job total from `rwctl stats show` (text: "KEY VALUE").
stat_of() {
	rwctl stats show "$1" |
		awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

rel=$(uname -r)
check "modprobe rackweave (the DKMS-built module, with ib_core and its other dependencies)" \
	modprobe rackweave
eq "modinfo: the module came from DKMS (updates/dkms)" \
	"/lib/modules/$rel/updates/dkms/rackweave.ko" "$(modinfo -n rackweave 2>&1)"
eq "/sys/module/rackweave/version is the release's" "$want" \
	"$(cat /sys/module/rackweave/version 2>&1)"
eq "rwctl status: the module's version" "rackweave $want (abi 1)" \
	"$(rwctl status 2>&1 | head -n 1)"
eq "rwctl --version" "rwctl $want (abi 1)" "$(rwctl --version 2>&1)"
eq "the module creates /dev/rackweave 0660 root:root" "660 0:0" \
	"$(stat -c '%a %u:%g' /dev/rackweave)"

# No udevd here: apply what the packaged rule says, by hand.
rule=/lib/udev/rules.d/60-rackweave.rules
grp=$(sed -n 's/.*GROUP="\([^"]*\)".*/\1/p' "$rule")
mode=$(sed -n 's/.*MODE="\([^"]*\)".*/\1/p' "$rule")
eq "the packaged udev rule: group rackweave, mode 0660" "rackweave 0660" "$grp $mode"
gid=$(getent group rackweave | cut -d: -f3)
check "rackweave-tools created the group rackweave" test -n "$gid"
chgrp "$grp" /dev/rackweave && chmod "$mode" /dev/rackweave

head -c 32 /dev/urandom >/tmp/job.token
chmod 644 /tmp/job.token
check "rwctl job add (as root)" rwctl job add deb workers 1 lr 0.5 chunk-size 4096 \
	token-file /tmp/job.token
check "a user outside the group cannot open the device" sh -c \
	"! setpriv --reuid=65534 --regid=65534 --clear-groups $dir/trainer deb /tmp/job.token 1 0.5"
check "a user in the group trains through the installed library: exact SGD after 3 iterations" \
	setpriv --reuid=65534 --regid=65534 --groups="$gid" "$dir/trainer" deb /tmp/job.token 3 0.5
# The run has ended (its only worker closed): the counters stay. The
# tensor is 16 KiB, 4 chunks of 4 KiB: a chunk push and a step each per
# chunk and iteration.
eq "stats after the run: the job's chunk pushes stay" 12 "$(stat_of deb pushes)"
eq "stats after the run: optimizer steps stay" 12 "$(stat_of deb steps)"
check "a second run (from zero parameters again) trains as root" \
	"$dir/trainer" deb /tmp/job.token 2 0.5
eq "stats count both runs: chunk pushes" 20 "$(stat_of deb pushes)"
eq "stats count both runs: steps" 20 "$(stat_of deb steps)"
check "rwctl job del" rwctl job del deb
# python3-rackweave: job control through the installed rwctl, a worker
# through the installed library, numpy views of the mapping.
check "python3-rackweave trains: job_add, a worker, exact SGD after 3 iterations, job_del" \
	python3 -c 'import numpy as np, rackweave as rw
rw.job_add("debpy", 1, optim="sgd", lr=0.5, chunk_size=4096, token_file="/tmp/job.token")
with rw.Worker("debpy", "/tmp/job.token", 0) as w:
    w.declare({0: 1000, 1: 24})
    for _ in range(3):
        w.tensor(0).grad[:] = 1.0
        w.tensor(1).grad[:] = -2.0
        w.pushpull()
    p0, p1 = w.tensor(0).params, w.tensor(1).params
    assert np.all(p0 == -1.5) and np.all(p1 == 3.0), (p0[:3], p1[:3])
rw.job_del("debpy")'

check "rmmod rackweave" rmmod rackweave
echo "1..$n"
exit $failed
