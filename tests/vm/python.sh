#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 300
#
# The rackweave Python package (python/rackweave) with Debian's python3 and
# numpy, no torch: job control through rwctl, attach, declare, the numpy
# views sharing the mapping (a numpy write is what a push sends, a pull
# shows in an array taken before it, an array outlives close()), async
# start and wait, timeouts, a blocking call that releases the GIL, and
# every refusal (wrong token, unknown job, rank out of range or in use, a
# tensor too big, an unknown key, a closed worker) as a RackWeaveError
# carrying the errno and librackweave's sentence, after which the job
# trains on. tests/vm/python-binding.py holds the checks.
. "$(dirname "$0")/lib.sh"

t_ok "load ib_core and rackweave.ko" rw_load
start=$(date +%s)
/usr/bin/python3 "$RW_TOP/tests/vm/python-binding.py" "$RW_OUT" || t_failed=1
echo "# python-binding.py took $(($(date +%s) - start)) s"
t_eq "no job left behind" "[]" "$("$RWCTL" -j job show | jpy 'd["jobs"]')"
t_ok "rmmod rackweave" rmmod rackweave
t_done
