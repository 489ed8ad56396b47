#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel stock --smp 2
#
# The module as users run it: built against Debian's linux-headers-amd64,
# loaded on Debian's own kernel, answering rwctl and the device ioctls.
. "$(dirname "$0")/lib.sh"

t_eq "running Debian's stock kernel" stock "${RW_KERNEL_KIND:-}"
t_ok "load ib_core and rackweave.ko" rw_load
st=$("$RWCTL" -j status)
t_eq "rwctl status: version" "$(cat /sys/module/rackweave/version)" \
	"$(echo "$st" | jpy 'd["version"]')"
t_eq "rwctl status: online CPUs" "$(nproc)" "$(echo "$st" | jpy 'd["cpus_online"]')"
t_ok "rwctl status: text output" sh -c "'$RWCTL' status | grep -q '^rackweave '"
"$RW_TOP/build/tests/vm/ioctl-check" || t_failed=1
"$RW_TOP/build/tests/vm/genl-check" || t_failed=1
t_ok "rmmod rackweave" rmmod rackweave
t_done
