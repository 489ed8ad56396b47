#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --nodes 2 --smp 2 --timeout 900
#
# A box with two NICs: rxe0 on veth0 ($BOX) and rxe1 on veth2 ($BOX2),
# the box listening on both. Remote trainers attach with both addresses
# (rw_attach_remote "ADDR,ADDR2"): their module opens one connection per
# address, and each chunk travels on the connection the box gives it, its
# pushes and its parameter writes both. On two NUMA nodes the box's chunk
# map homes chunks 0, 2, 4... on node 0 and 1, 3, 5... on node 1;
# soft-RoCE's devices are on no node, so each node's chunks are spread
# over both connections in turn: 0 and 1 on rxe0, 2 and 3 on rxe1, and so
# on, which c % 2 is not. The worker learns each chunk's connection from
# where its first parameters arrive. Each trainer connects from the
# device that owns the address it dials (same-device loopback, as in
# wire-listen.sh), so the box sees each rank on rxe0 and on rxe1.
#
# 4 trainers train the digits (examples/softmax-trainer) from rank 0's
# seeded initial parameters (read by the box over one connection, re-sent
# to every rank on both) to parameters bit-identical to the single-process
# reference, every rank's first pull returning exactly the initial ones,
# and 4 train the wire
# tests' model (wire-local, 23 chunks) to its exact result, where the
# box's own per-connection counters show that both NICs carried pushes
# and parameter writes, each its share. A second attachment of a held
# rank is refused EADDRINUSE; killing the holder's process tears down
# both its connections and frees the rank, which attaches again and
# trains exactly.
. "$(dirname "$0")/lib.sh"

BOX2=10.78.0.1
TRAINER=$RW_TOP/build/examples/softmax-trainer
REF=$RW_TOP/build/tests/vm/softmax-ref
EPOCHS=2
BATCH=64
ITERS=5
W=4

rw_wire_up $BOX
ip link add veth2 type veth peer name veth3
ip link set veth3 up
ip addr add $BOX2/24 dev veth2
ip link set veth2 up
t_ok "rdma link add rxe1 on veth2" rdma link add rxe1 type rxe netdev veth2
t_ok "listen add $BOX (rxe0)" "$RWCTL" listen add $BOX
t_ok "listen add $BOX2 (rxe1)" "$RWCTL" listen add $BOX2
t_eq "listen show: one listener on each device" '["rxe0", "rxe1"]' \
	"$("$RWCTL" -j listen show | jpy 'sorted(l["device"] for l in d["listeners"])')"
head -c 32 /dev/urandom >"$RW_OUT/token"
data=$RW_OUT/digits.bin
t_ok "the digits data set" cp "$RW_TOP/build/examples/digits.bin" "$data"
impl=$("$RWCTL" -j status | jpy 'd["agg_impl"]')

# until_conns JOB EXPECTED [EXPR]: the job's connections, each as
# EXPR (default: [rank, device]), are EXPECTED (30 s at most).
until_conns() {
	local _ now
	for _ in $(seq 150); do
		now=$(conns "$1" "${3:-[c['rank'], c['device']]}")
		[ "$now" = "$2" ] && return 0
		sleep 0.2
	done
	echo "connections of $1: $now, wanted $2"
	return 1
}

# conns JOB EXPR: a Python expression over the job's connections (c).
conns() {
	"$RWCTL" -j listen show |
		jpy "[$2 for c in sorted(d['connections'], key=lambda c: (c['rank'], c['device'])) if c['job'] == '$1']"
}

# ---- the digits, 4 trainers on both NICs: bit-identical ----
t_ok "job add digits: $W workers, SGD lr 0.5, 4 KiB chunks" \
	"$RWCTL" job add digits workers $W lr 0.5 chunk-size 4096 token-file "$RW_OUT/token"
pids=()
for r in $(seq 0 $((W - 1))); do
	"$TRAINER" --job digits --token-file "$RW_OUT/token" --rank "$r" --workers $W \
		--data "$data" --epochs $EPOCHS --batch $BATCH --box "$BOX,$BOX2" \
		--init-seed 7 \
		--out "$RW_OUT/digits-params-$r.bin" >"$RW_OUT/digits-rank$r.log" 2>&1 &
	pids+=($!)
done
rw_wait_bounded 400 "${pids[@]}"
t_eq "4 remote trainers, two connections each, train $EPOCHS epochs" 0 "$?"
t_eq "... each rank connected to both addresses" 8 \
	"$(dmesg | grep -c 'job digits rank [0-3]: connected to .* (link [01] of 2)')"
t_eq "... and the box accepted each rank on rxe0 and on rxe1" 8 \
	"$(dmesg | grep -c 'on rxe[01]: job digits rank [0-3] nic [01]/2$')"
t_eq "... every rank's first pull returned rank 0's initial parameters (re-sent on both connections)" $W \
	"$(cat "$RW_OUT"/digits-rank*.log | grep -c 'first pull returned the initial parameters')"
t_ok "the single-process reference ($impl kernels)" \
	"$REF" --workers $W --data "$data" --epochs $EPOCHS --batch $BATCH --lr 0.5 \
	--chunk-size 4096 --impl "$impl" --init-seed 7 --out "$RW_OUT/digits-ref.bin"
t_ok "two NICs: parameters bit-identical to the reference" \
	sh -c "for r in 0 1 2 3; do cmp '$RW_OUT/digits-ref.bin' \"$RW_OUT/digits-params-\$r.bin\" || exit 1; done"

# ---- the wire model, 23 chunks, spread over both NICs ----
t_ok "job add spread: $W workers" "$RWCTL" job add spread workers $W \
	chunk-size 4096 optim sgd lr 0.5 token-file "$RW_OUT/token"
pids=()
for r in 0 1 2 3; do
	"$LOCAL" spread "$RW_OUT/token" $r $W $ITERS "$BOX,$BOX2" \
		>"$RW_OUT/spread$r.log" 2>&1 &
	pids+=($!)
done
rw_wait_bounded 300 "${pids[@]}"
t_eq "4 trainers on both NICs train $ITERS iterations" 0 "$?"
t_eq "4 trainers on both NICs: exact" \
	"$(printf 'trained %s exact\n' $ITERS $ITERS $ITERS $ITERS)" \
	"$(for r in 0 1 2 3; do rw_wire_result "$RW_OUT/spread$r.log"; done)"
t_eq "... all four hold the same parameter bytes" 1 \
	"$(for r in 0 1 2 3; do rw_wire_hash "$RW_OUT/spread$r.log"; done | sort -u | wc -l)"
chunks=$(dmesg | sed -n 's/.*job spread rank 0 nic 0\/2 set up: \([0-9]*\) chunks, [0-9]* here$/\1/p' | head -n 1)
t_ok "the model has chunks for both NICs (${chunks:-none})" test "${chunks:-0}" -ge 2
# here JOB NIC: the chunks the box gave rank 0's connection NIC in JOB,
# from the box's log.
here() {
	dmesg | sed -n "s/.*job $1 rank 0 nic $2\/2 set up: [0-9]* chunks, \([0-9]*\) here$/\1/p" | tail -n 1
}
# The rule on two nodes, soft-RoCE: chunk c on NIC (c / 2) % 2.
even=0
odd=0
for c in $(seq 0 $((${chunks:-1} - 1))); do
	if [ $(((c / 2) % 2)) = 0 ]; then even=$((even + 1)); else odd=$((odd + 1)); fi
done
t_eq "the box gave rxe0 and rxe1 each node's chunks in turn: $even and $odd" \
	"$even $odd" "$(here spread 0) $(here spread 1)"
# What each connection of the box moved, as the module counted it (its
# last word on a connection, when it closed): its own chunks, each
# pushed once an iteration and written once more (the first write).
t_eq "box: each rank's rxe0 connection carried its $even chunks, rxe1 its $odd, pushes and writes" \
	"$(for r in 0 1 2 3; do
		echo "rxe0 $r 0 $((even * ITERS)) $((even * (ITERS + 1)))"
		echo "rxe1 $r 1 $((odd * ITERS)) $((odd * (ITERS + 1)))"
	done)" \
	"$(dmesg | sed -n 's/.*closed .* on \(rxe[01]\): job spread rank \([0-9]\) nic \([01]\)\/2: \([0-9]*\) pushes, \([0-9]*\) writes$/\1 \2 \3 \4 \5/p' | sort -k2,2n -k1,1)"

# ---- one rank's connections go together ----
t_ok "job add hold: 2 workers" "$RWCTL" job add hold workers 2 chunk-size 4096 \
	optim sgd lr 0.5 token-file "$RW_OUT/token"
# Rank 0 alone: it waits in the gate for rank 1, both connections up.
"$LOCAL" hold "$RW_OUT/token" 0 2 $ITERS "$BOX,$BOX2" >"$RW_OUT/hold0.log" 2>&1 &
hpid=$!
t_ok "rank 0 attached with two connections" rw_until_attached hold 1
t_ok "... on rxe0 and on rxe1" until_conns hold '[[0, "rxe0"], [0, "rxe1"]]'
# Its first iteration is out, waiting for rank 1: listen show counts
# each connection's own chunks, pushed once and written once (the first
# parameters).
h0=$(here hold 0)
h1=$(here hold 1)
t_ok "listen show: rxe0 pushed and got its ${h0:-?} chunks, rxe1 its ${h1:-?}" \
	until_conns hold "[[0, \"rxe0\", ${h0:-0}, ${h0:-0}], [0, \"rxe1\", ${h1:-0}, ${h1:-0}]]" \
	"[c['rank'], c['device'], c['pushes'], c['writes']]"
"$LOCAL" hold "$RW_OUT/token" 0 2 $ITERS "$BOX,$BOX2" >"$RW_OUT/taken.log" 2>&1
t_ok "a second attachment of rank 0: refused" \
	grep -q "^error: attach: this rank is already attached" "$RW_OUT/taken.log"
t_eq "... and the holder's two connections stay" '[[0, "rxe0"], [0, "rxe1"]]' \
	"$(conns hold '[c["rank"], c["device"]]')"
kill -9 $hpid
wait $hpid 2>/dev/null
t_ok "kill -9 of the holder: the box frees rank 0" rw_until_attached hold 0
t_ok "... and closes both its connections" until_conns hold '[]'
# pair TAG DESC ADDRS0 ADDRS1: ranks 0 and 1 of job hold, each with its
# box addresses, train $ITERS iterations; both must end exact.
pair() {
	local tag=$1 desc=$2 r pids=()
	shift 2
	for r in 0 1; do
		"$LOCAL" hold "$RW_OUT/token" $r 2 $ITERS "$1" >"$RW_OUT/$tag$r.log" 2>&1 &
		pids+=($!)
		shift
	done
	rw_wait_bounded 200 "${pids[@]}"
	t_eq "$desc" 0 "$?"
	t_eq "... both train exactly" "trained $ITERS exact trained $ITERS exact" \
		"$(rw_wire_result "$RW_OUT/${tag}0.log") $(rw_wire_result "$RW_OUT/${tag}1.log")"
}
pair again "rank 0 attaches again, with rank 1" "$BOX,$BOX2" "$BOX,$BOX2"

# ---- one address still works on the two-NIC box ----
pair one "one address each (rank 0 on $BOX, rank 1 on $BOX2)" $BOX $BOX2

t_ok "job del digits spread hold" sh -c \
	"'$RWCTL' job del digits && '$RWCTL' job del spread && '$RWCTL' job del hold"
t_eq "listen show: no connection left" '[]' \
	"$("$RWCTL" -j listen show | jpy 'd["connections"]')"
t_ok "rmmod rackweave" rmmod rackweave
t_done
