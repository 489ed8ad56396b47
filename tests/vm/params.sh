#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# Initial parameters: 4 softmax-trainers under BSP start from rank 0's
# values (--init-seed: rw_params_init on rank 0, rw_params_wait on the
# others); every rank's first pull returns exactly them, the first loss is
# the reference's at those values, and the run ends bit-identical to the
# reference started from them. Then init-check drives every refusal (a
# wrong length, an unknown key, an observer, a second init, an init after
# the first push) and a partial init by tensor key.
. "$(dirname "$0")/lib.sh"

TRAINER=$RW_TOP/build/examples/softmax-trainer
REF=$RW_TOP/build/tests/vm/softmax-ref
CHECK=$RW_TOP/build/tests/vm/init-check
W=4

t_ok "load ib_core and rackweave.ko" rw_load
data=$RW_OUT/digits.bin
t_ok "the digits data set (made on the host by make vm-tests: sklearn in the guest costs 20 s)" \
	cp "$RW_TOP/build/examples/digits.bin" "$data"
impl=$("$RWCTL" -j status | jpy 'd["agg_impl"]')
head -c 32 /dev/urandom >"$RW_OUT/token"

t_ok "job add init4: BSP, momentum, 4 KiB chunks" \
	"$RWCTL" job add init4 workers $W optim momentum lr 0.1 chunk-size 4096 \
	token-file "$RW_OUT/token"
pids=()
for r in $(seq 0 $((W - 1))); do
	"$TRAINER" --job init4 --token-file "$RW_OUT/token" --rank "$r" --workers $W \
		--data "$data" --epochs 2 --batch 64 --init-seed 7 --verbose \
		--out "$RW_OUT/init4-params-$r.bin" >"$RW_OUT/init4-rank$r.log" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
[ $rc = 0 ] || tail -n 3 "$RW_OUT"/init4-rank*.log | sed 's/^/#   /'
t_eq "4 trainers starting from rank 0's parameters finish" 0 $rc
t_ok "rank 0 set them" grep -q "initial parameters set (seed 7)" "$RW_OUT/init4-rank0.log"
t_eq "every rank's first pull returned exactly them" $W \
	"$(cat "$RW_OUT"/init4-rank*.log | grep -c 'first pull returned the initial parameters')"
t_ok "the reference from the same values" sh -c '"$@" >"$0"' "$RW_OUT/init4-ref.log" \
	"$REF" --workers $W --data "$data" --epochs 2 --batch 64 --optim momentum \
	--lr 0.1 --chunk-size 4096 --impl "$impl" --init-seed 7 --out "$RW_OUT/init4-ref.bin"
ref_loss=$(sed -n 's/^initial loss //p' "$RW_OUT/init4-ref.log")
t_ok "the first loss is the reference's at those values ($ref_loss)" \
	grep -q "first pull returned the initial parameters, loss $ref_loss" "$RW_OUT/init4-rank0.log"
t_fails "... which is not the loss at zero parameters" \
	grep -q "loss 2.302585" "$RW_OUT/init4-rank0.log"
t_ok "the run ends bit-identical to the reference" cmp "$RW_OUT/init4-ref.bin" "$RW_OUT/init4-params-0.bin"
t_ok "job del init4" "$RWCTL" job del init4

t_ok "job add inita and initb: 2 workers each" sh -c \
	"'$RWCTL' job add inita workers 2 chunk-size 4096 token-file '$RW_OUT/token' >/dev/null &&
	 '$RWCTL' job add initb workers 2 chunk-size 4096 token-file '$RW_OUT/token' >/dev/null"
"$CHECK" inita initb "$RW_OUT/token"
t_eq "init-check passed" 0 "$?"
t_ok "job del inita" "$RWCTL" job del inita
t_ok "job del initb" "$RWCTL" job del initb
t_ok "rmmod rackweave" rmmod rackweave
t_done
