#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# The worker role: a trainer attaches to a job on a box through its own
# host's module (librackweave's rw_attach_remote, RW_ATTACH_REMOTE), and
# everything after works as it does locally. Here the box and the worker
# are the same module in one VM, joined over rxe0 (same-device loopback,
# as in wire-listen.sh; the two-VM test covers separate hosts): the
# trainer's module connects to the box's listener like any remote peer.
#
# A remote trainer (wire-local with BOX) and a local one train a BSP job
# to the exact result and the same bytes; then two remote trainers alone.
# A wrong token, a taken rank, a rank beyond the job, an address nobody
# listens at and one no device reaches are refused with their errno, and
# nothing is left behind. Deleting the box's job by force ends a remote
# trainer with ECONNRESET. A killed remote trainer is gone at once even
# when the destruction of its rdma_cm id is held up (the test build's
# hook, as an IB CM that keeps an id), and rmmod waits for nothing: it
# says the module is in use until the id is gone.
. "$(dirname "$0")/lib.sh"

ITERS=5

rw_wire_up $BOX
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
head -c 32 /dev/urandom >"$RW_OUT/token"
head -c 32 /dev/urandom >"$RW_OUT/other"

job() {
	"$RWCTL" job add "$1" workers 2 chunk-size 4096 optim sgd lr 0.5 \
		token-file "$RW_OUT/token"
}

# trainer JOB RANK LOG [BOX [TOKEN]]: wire-local in the background.
trainer() {
	"$LOCAL" "$1" "${5:-$RW_OUT/token}" "$2" 2 $ITERS $4 >"$3" 2>&1 &
}

# --- a remote trainer and a local one ---
t_ok "job add mix" job mix
trainer mix 1 "$RW_OUT/mix-remote.log" $BOX
rpid=$!
trainer mix 0 "$RW_OUT/mix-local.log"
lpid=$!
wait $lpid
wait $rpid
t_eq "local trainer: exact" "trained $ITERS exact" "$(rw_wire_result "$RW_OUT/mix-local.log")"
t_eq "remote trainer (rw_attach_remote): exact" "trained $ITERS exact" \
	"$(rw_wire_result "$RW_OUT/mix-remote.log")"
t_eq "both hold the same parameter bytes" "$(rw_wire_hash "$RW_OUT/mix-local.log")" \
	"$(rw_wire_hash "$RW_OUT/mix-remote.log")"
t_ok "the box logged the remote rank's connection" \
	sh -c "dmesg | grep -q 'job mix rank 1: connected to $BOX'"

# --- two remote trainers, the port given ---
t_ok "job add far" job far
trainer far 0 "$RW_OUT/far0.log" $BOX:18515
p0=$!
trainer far 1 "$RW_OUT/far1.log" $BOX
p1=$!
wait $p0
wait $p1
t_eq "two remote trainers: exact" "trained $ITERS exact trained $ITERS exact" \
	"$(rw_wire_result "$RW_OUT/far0.log") $(rw_wire_result "$RW_OUT/far1.log")"
t_eq "... the same bytes" "$(rw_wire_hash "$RW_OUT/far0.log")" "$(rw_wire_hash "$RW_OUT/far1.log")"

# --- refusals ---
t_ok "job add bad" job bad
trainer bad 0 "$RW_OUT/bad-token.log" $BOX "$RW_OUT/other"
wait $!
t_ok "a wrong token: access denied" grep -q "^error: attach: access denied" "$RW_OUT/bad-token.log"
trainer bad 2 "$RW_OUT/bad-rank.log" $BOX
wait $!
t_ok "a rank beyond the job: refused" grep -q "^error: attach: rank not below" "$RW_OUT/bad-rank.log"
trainer bad 0 "$RW_OUT/bad-port.log" $BOX:18999
wait $!
t_ok "a port nobody listens at: refused" grep -q "^error: attach: nothing listens" "$RW_OUT/bad-port.log"
trainer bad 0 "$RW_OUT/bad-addr.log" 10.99.0.1
wait $!
t_ok "an address no RDMA device reaches: an error" grep -q "^error: attach: " "$RW_OUT/bad-addr.log"
trainer bad 0 "$RW_OUT/bad-parse.log" "10.77.0.1:99999"
wait $!
t_ok "a port out of range: invalid argument" grep -q "^error: attach: invalid argument" "$RW_OUT/bad-parse.log"
t_eq "nothing is attached to the job after them" 0 \
	"$("$RWCTL" -j job show bad | jpy 'd["jobs"][0]["attached"]')"

# A taken rank: one remote trainer holds rank 0 (it waits for rank 1).
"$LOCAL" bad "$RW_OUT/token" 0 2 1 $BOX >"$RW_OUT/hold.log" 2>&1 &
hpid=$!
rw_until_attached bad 1 >/dev/null
trainer bad 0 "$RW_OUT/bad-taken.log" $BOX
wait $!
t_ok "a rank already attached: refused" grep -q "^error: attach: this rank is already attached" "$RW_OUT/bad-taken.log"
t_eq "listen show: this host's attachment to the box, up" \
	"[[\"$BOX\", 18515, \"rxe0\", \"bad\", 0, 2, false]]" \
	"$("$RWCTL" -j listen show | jpy '[[r["addr"], r["port"], r["device"], r["job"], r["rank"], r["messages"], r["broken"]] for r in d["remotes"]]')"
t_eq "... and the box's view of it: a connection of job bad, rank 0" \
	'[["bad", 0]]' \
	"$("$RWCTL" -j listen show | jpy '[[c["job"], c["rank"]] for c in d["connections"]]')"
t_ok "listen show in text: the attachment" sh -c \
	"'$RWCTL' listen show | grep -A1 '^attached to other boxes:' | grep -q '$BOX:18515  rxe0  job bad  rank 0'"

# Deleting the job by force ends the waiting remote trainer.
t_ok "job del bad force" "$RWCTL" job del bad force
wait $hpid
t_ok "the remote trainer hears the connection go" grep -q "connection to the remote box was lost\|the job was deleted" "$RW_OUT/hold.log"

# --- a trainer's exit never waits for its rdma_cm id ---
# The IB CM can hold a destroyed id for minutes when its disconnect
# request cannot leave (a port gone down under it): the test build's
# hook holds every worker-side id's destruction 60 s the same way.
HOLD=/sys/module/rackweave/parameters/test_id_hold_ms
t_ok "job add hold" job hold
"$LOCAL" hold "$RW_OUT/token" 0 2 1 $BOX >"$RW_OUT/held.log" 2>&1 &
hpid=$!
rw_until_attached hold 1 >/dev/null
echo 60000 >$HOLD
t0=$EPOCHREALTIME
kill -9 $hpid
wait $hpid 2>/dev/null
ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
echo "# a killed remote trainer was gone in $ms ms, its id held 60 s"
t_ok "a killed remote trainer is gone at once (${ms} ms), its id's destruction held" \
	test "$ms" -lt 5000
t_ok "... and the box freed its rank (the disconnect left at its close)" \
	rw_until_attached hold 0
t_eq "... listen show: the attachment is gone" '[]' \
	"$("$RWCTL" -j listen show | jpy 'd["remotes"]')"
t_fails "... rmmod refused while the held id waits: the module is in use" rmmod rackweave
echo 0 >$HOLD
unused() {
	local _
	for _ in $(seq 100); do
		[ "$(cat /sys/module/rackweave/refcnt)" = 0 ] && return 0
		rw_nap 0.1
	done
	echo "refcnt $(cat /sys/module/rackweave/refcnt)"
	return 1
}
t_ok "... the held id goes once let go: the module is free" unused
t_ok "job del hold" "$RWCTL" job del hold

t_ok "job del mix far" sh -c "'$RWCTL' job del mix && '$RWCTL' job del far"
t_eq "listen show: no attachment left" '[]' \
	"$("$RWCTL" -j listen show | jpy 'd["remotes"]')"
t_ok "rmmod rackweave" rmmod rackweave
t_done
