#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 900
#
# PyTorch (Debian's python3-torch) through the box, in one Python process
# that imports torch once and forks the trainers (tests/vm/torch-checks.py
# has the checks): torch tensors over the mapping share memory with it;
# 2 DDP ranks run the same steps over gloo's all-reduce and over the
# RackWeave hook (BSP, optim average) and agree within 1e-5 relative;
# and the demo's short mode (examples/torch_digits.py: 4 trainers, two
# slowed, adaptive staleness, DistributedOptimizer with the box's
# momentum) reaches test accuracy >= 0.90 with the box's max skew within
# the band, and writes a valid PNG. Local data path: `make demo` runs the
# same trainers on a second VM over RDMA. The hook refuses an optim sgd
# job and a world size other than the job's workers, and a timeout inside
# it reaches the caller as RackWeaveError(ETIMEDOUT). rackweave.launch
# starts 3 trainers of examples/torch_ddp.py through the hook, equal to
# DDP over gloo within 1e-6 relative. The demo's MLP in bfloat16 reaches
# the float32 run's test accuracy within 0.01, with half the bytes.
. "$(dirname "$0")/lib.sh"

LO=2 HI=4 EPOCHS=8
DATA=$RW_TOP/build/examples/digits.bin

t_ok "load ib_core and rackweave.ko" rw_load
ip link set lo up
head -c 32 /dev/urandom >"$RW_OUT/token"
t_ok "job add tz (1 worker, optim average)" \
	"$RWCTL" job add tz workers 1 chunk-size 4096 optim average token-file "$RW_OUT/token"
t_ok "job add ddp (2 workers, BSP, optim average)" \
	"$RWCTL" job add ddp workers 2 chunk-size 4096 optim average token-file "$RW_OUT/token"
t_ok "job add tsgd (2 workers, optim sgd)" \
	"$RWCTL" job add tsgd workers 2 chunk-size 4096 optim sgd lr 0.1 token-file "$RW_OUT/token"
t_ok "job add t3 (3 workers, optim average)" \
	"$RWCTL" job add t3 workers 3 chunk-size 4096 optim average token-file "$RW_OUT/token"
t_ok "job add tto (2 workers, optim average)" \
	"$RWCTL" job add tto workers 2 chunk-size 4096 optim average token-file "$RW_OUT/token"
t_ok "job add tl (3 workers, optim average)" \
	"$RWCTL" job add tl workers 3 chunk-size 4096 optim average token-file "$RW_OUT/token"
t_ok "job add demo (4 workers, adaptive $LO..$HI, momentum)" \
	"$RWCTL" job add demo workers 4 chunk-size 4096 sync adaptive $LO $HI \
	optim momentum lr 0.1 token-file "$RW_OUT/token"
for j in d32 d16; do
	t_ok "job add $j (4 workers, BSP, momentum)" \
		"$RWCTL" job add $j workers 4 chunk-size 4096 optim momentum lr 0.1 \
		token-file "$RW_OUT/token"
done
start=$(date +%s)
cp -r "$RW_TOP/build/mplconfig" "$RW_OUT/mpl"
MPLCONFIGDIR=$RW_OUT/mpl /usr/bin/python3 "$RW_TOP/tests/vm/torch-checks.py" \
	"$RW_OUT" "$RW_OUT/token" "$DATA" $LO $HI $EPOCHS || t_failed=1
echo "# torch-checks.py took $(($(date +%s) - start)) s"
for j in tz ddp tsgd t3 tto tl demo d32 d16; do
	t_ok "job del $j" "$RWCTL" job del $j
done
t_ok "rmmod rackweave" rmmod rackweave
t_done
