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
# trains on. tests/vm/python-binding.py holds the checks. Then
# rackweave.launch (without torch): a world size other than the job's
# fails at once with the sentence, 3 trainers made by Worker.from_env()
# pull the mean, and a trainer that fails stops the others.
. "$(dirname "$0")/lib.sh"

t_ok "load ib_core and rackweave.ko" rw_load
start=$(date +%s)
/usr/bin/python3 "$RW_TOP/tests/vm/python-binding.py" "$RW_OUT" || t_failed=1
echo "# python-binding.py took $(($(date +%s) - start)) s"

# rackweave.launch (no torch here: --no-torch) and Worker.from_env().
LAUNCH="env PYTHONPATH=$RW_TOP/python /usr/bin/python3 -m rackweave.launch"
TRAINER=$RW_TOP/tests/vm/launch-trainer.py
head -c 32 /dev/urandom >"$RW_OUT/launch.token"
t_ok "job add pl (3 workers, optim average)" \
	"$RWCTL" job add pl workers 3 chunk-size 4096 optim average token-file "$RW_OUT/launch.token"
rm -f "$RW_OUT"/launch-*
t0=$(date +%s)
out=$($LAUNCH --nproc 2 --job pl --token-file "$RW_OUT/launch.token" --no-torch \
	"$TRAINER" "$RW_OUT" 2>&1)
rc=$?
t_eq "launch --nproc 2 on a job of 3 workers fails (exit 1)" 1 "$rc"
case $out in
*"WORLD_SIZE is 2 but job 'pl' has 3 workers"*"start 3 trainers"*"workers 2"*)
	t_pass "... at once ($(($(date +%s) - t0)) s), saying what to change" ;;
*) t_fail "... saying what to change"; printf '#   %s\n' "$out" ;;
esac
[ ! -e "$RW_OUT/launch-0" ] && t_pass "... and no trainer started" || t_fail "... and no trainer started"
t_ok "launch --nproc 3: 3 trainers from the environment pull the mean" \
	$LAUNCH --nproc 3 --job pl --token-file "$RW_OUT/launch.token" --no-torch "$TRAINER" "$RW_OUT"
t_eq "every rank saw its place and the mean (1 + 2 + 3) / 3" \
	"rank 0 of 3 workers 3 local 0 mean 2 expected 2 uniform True
rank 1 of 3 workers 3 local 1 mean 2 expected 2 uniform True
rank 2 of 3 workers 3 local 2 mean 2 expected 2 uniform True" "$(cat "$RW_OUT"/launch-[012])"
t0=$(date +%s)
$LAUNCH --nproc 3 --grace 2 --job pl --token-file "$RW_OUT/launch.token" --no-torch \
	"$TRAINER" "$RW_OUT" --fail 1 >"$RW_OUT/launch-fail.log" 2>&1
rc=$?
t_eq "a trainer that fails (exit 3) fails the launch with its status" 3 "$rc"
took=$(($(date +%s) - t0))
[ "$took" -lt 60 ] && t_pass "... and the launcher stops the other two ($took s)" ||
	t_fail "... and the launcher stops the other two ($took s)"
t_ok "job del pl" "$RWCTL" job del pl
t_eq "no job left behind" "[]" "$("$RWCTL" -j job show | jpy 'd["jobs"]')"
t_ok "rmmod rackweave" rmmod rackweave
t_done
