#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --nodes 2 --smp 4
# vm-parallel: rw_engine_fresh_version_test races a puller on one CPU against the owner on another
#
# Run RackWeave's KUnit suites: load kunit.ko, rackweave.ko and
# rackweave_kunit.ko; KUnit runs the suites at load. Every suite declared in
# tests/kunit/*.c must report, and every test case becomes one TAP line.
. "$(dirname "$0")/lib.sh"

t_ok "load kunit.ko" rw_modprobe kunit
t_ok "load ib_core and rackweave.ko" rw_load
t_ok "load rackweave_kunit.ko" insmod "$(rw_module_dir)/rackweave_kunit.ko"

expect=$(sed -n 's/^\s*\.name = "\(rackweave_[a-z0-9_]*\)",$/\1/p' "$RW_TOP"/tests/kunit/*.c)
args=()
for d in /sys/kernel/debug/kunit/rackweave_*; do
	[ -e "$d/results" ] && args+=("$(basename "$d")=$d/results")
done
python3 "$RW_TOP/tests/vm/ktap2tap.py" "${args[@]}" --expect $expect || t_failed=1

t_ok "rmmod rackweave_kunit" rmmod rackweave_kunit
t_ok "rmmod rackweave" rmmod rackweave
t_done
