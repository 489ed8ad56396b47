#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# Bad input from user space and netlink on the test kernel (lockdep,
# kmemleak and DEBUG_ATOMIC_SLEEP watching): each gets its errno and leaves
# the module answering.
. "$(dirname "$0")/lib.sh"

t_ok "load ib_core and rackweave.ko" rw_load
"$RW_TOP/build/tests/vm/ioctl-check" || t_failed=1
"$RW_TOP/build/tests/vm/genl-check" || t_failed=1
t_ok "unprivileged netlink: reads work, job changes get EPERM" \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$RW_TOP/build/tests/vm/genl-check" --unprivileged
t_ok "unprivileged user can open the device" \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$RW_TOP/build/tests/vm/ioctl-check"
t_ok "rmmod rackweave" rmmod rackweave
t_done
