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
# The access model (rackweave(4)): the module creates the node 0660 root's,
# the udev rule gives it to the group "rackweave". No udev here: chgrp
# stands in for the rule, with 4242 as the group.
t_eq "the module creates /dev/rackweave 0660 root:root" "660 0:0" \
	"$(stat -c '%a %u:%g' /dev/rackweave)"
t_ok "a user outside the device's group cannot open it" sh -c \
	"! setpriv --reuid=65534 --regid=65534 --clear-groups \
	   sh -c ': < /dev/rackweave' 2>/dev/null"
chgrp 4242 /dev/rackweave
t_ok "a user in the device's group can open it and use every ioctl" \
	setpriv --reuid=65534 --regid=65534 --groups=4242 \
	"$RW_TOP/build/tests/vm/ioctl-check"
t_ok "rmmod rackweave" rmmod rackweave
t_done
