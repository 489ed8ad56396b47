#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 600
#
# The box as an all-reduce by averaging: jobs with "optim average", trained
# by average-check (W workers, one thread and one librackweave context each,
# deterministic non-zero gradients over 25 binades). Under BSP, after every
# pull the parameter buffer equals bit for bit the mean a trainer computes
# itself (the f32 sum in rank order times the f32 1/W), with 4 workers (1/W
# exact) and 3 (1/W rounded). Under SSP 2 and ASP a step applies one
# gradient and writes it unscaled: every element pulled is one of the pushed
# gradients, and at the end every chunk is one rank's last gradient. rwctl
# shows the mode; the same check run on an SGD job must fail.
. "$(dirname "$0")/lib.sh"

CHECK=$RW_TOP/build/tests/vm/average-check
TOKEN=$RW_OUT/average.token
ITERS=8

# job_field JOB FIELD: FIELD of JOB in `rwctl -j job show JOB`.
job_field() {
	"$RWCTL" -j job show "$1" | jpy "d['jobs'][0]['$2']"
}

# run_check JOB WORKERS MODE: average-check, its output kept and shown.
run_check() {
	local out=$RW_OUT/$1.log rc
	"$CHECK" "$1" "$TOKEN" "$2" $ITERS "$3" >"$out" 2>&1
	rc=$?
	sed 's/^/#   /' "$out"
	return $rc
}

t_ok "load ib_core and rackweave.ko" rw_load
head -c 32 /dev/urandom >"$TOKEN"

t_ok "job add avg4 workers 4 optim average (BSP)" \
	"$RWCTL" job add avg4 workers 4 chunk-size 4096 optim average token-file "$TOKEN"
t_eq "job show: optim average" average "$(job_field avg4 optim)"
t_ok "job show text: 'optim average', no hyper-parameters (it uses none)" \
	sh -c "'$RWCTL' job show avg4 | grep -q '^    optim average$'"
t_ok "policy show: optim average" sh -c "'$RWCTL' -j policy show avg4 | grep -q '\"optim\":\"average\"'"

run_check avg4 4 bsp
t_eq "BSP, 4 workers: every pull is the rank-order mean, to the bit" 0 $?

t_ok "job add avg3 workers 3 optim average (BSP, 1/3 rounded)" \
	"$RWCTL" job add avg3 workers 3 chunk-size 4096 optim average token-file "$TOKEN"
run_check avg3 3 bsp
t_eq "BSP, 3 workers: every pull is the rank-order mean times (float)(1/3)" 0 $?

t_ok "job add avgssp workers 4 sync ssp 2 optim average" \
	"$RWCTL" job add avgssp workers 4 chunk-size 4096 sync ssp 2 optim average token-file "$TOKEN"
run_check avgssp 4 each
t_eq "SSP 2: every pull holds applied gradients, unscaled; each chunk ends as one rank's last" 0 $?

t_ok "job add avgasp workers 4 sync asp optim average" \
	"$RWCTL" job add avgasp workers 4 chunk-size 4096 sync asp optim average token-file "$TOKEN"
run_check avgasp 4 each
t_eq "ASP: the same" 0 $?

# An SGD job with the same gradients is no averaging: the check must fail
# there, or it proves nothing.
t_ok "job add sgd4 workers 4 optim sgd" \
	"$RWCTL" job add sgd4 workers 4 chunk-size 4096 optim sgd token-file "$TOKEN"
t_fails "the BSP check fails on an SGD job" run_check sgd4 4 bsp

# Between runs the optimizer may change, to average and back.
t_ok "policy set sgd4 optim average (between runs)" "$RWCTL" policy set sgd4 optim average
t_eq "policy show: sgd4 is now average" average "$(job_field sgd4 optim)"
t_ok "policy set sgd4 optim sgd" "$RWCTL" policy set sgd4 optim sgd

for j in avg4 avg3 avgssp avgasp sgd4; do
	t_ok "job del $j" "$RWCTL" job del "$j"
done
t_ok "rmmod rackweave" rmmod rackweave
t_done
