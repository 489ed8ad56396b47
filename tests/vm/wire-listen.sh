#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2
#
# The box's RDMA listener and the connect handshake, over soft-RoCE: the
# box listens on rxe0's address and a raw librdmacm peer (tests/vm/wire-peer)
# connects with requests built by tests/vm/wire-req.py. Every bad request is
# refused with its own reason and counted, and keeps no other rank out; a
# replay is refused, even of a request refused for a rank the job gets
# later. A good one becomes a worker of the job, holding its rank until it
# disconnects, is killed, or its device or the module goes. A box giving
# chunks of a move is admitted by the same rules, and its bad gifts are
# refused with their reasons.
#
# The peer connects from rxe0's own address: the kernel routes a local
# address through lo, so within one VM a second rxe device cannot reach the
# first (6.1 has no policy routing here, and rxe no network namespaces); rxe
# loops the connection back through the same device, over the same CM and
# RC queue pairs. Separate hosts are the two-VM test's.
. "$(dirname "$0")/lib.sh"

SRC=$BOX
JOB=wj

rw_wire_up $BOX

head -c 32 /dev/urandom >"$RW_OUT/token"
head -c 32 /dev/urandom >"$RW_OUT/other"
t_ok "job add $JOB workers 2" "$RWCTL" job add $JOB workers 2 chunk-size 4096 \
	token-file "$RW_OUT/token"

# Listener configuration and its refusals.
out=$("$RWCTL" listen add 10.99.0.1 2>&1)
t_eq "listen add on an address no RDMA device has: exit 1" 1 "$?"
t_eq "... and says so" \
	"rwctl: listen add: no RDMA device has the address of 10.99.0.1:$PORT (rwctl dev show lists them)" \
	"$out"
t_ok "listen add $BOX" "$RWCTL" listen add $BOX
out=$("$RWCTL" listen add $BOX port $PORT 2>&1)
t_eq "listen add twice: refused" \
	"rwctl: listen add: the box already listens on $BOX:$PORT" "$out"
t_fails "listen del of a port not listened on" "$RWCTL" listen del $BOX port 7
ls_json() { "$RWCTL" -j listen show | jpy "$1"; }
t_eq "listen show: one listener, up on rxe0, nothing asked yet" \
	"[\"$BOX\", $PORT, \"rxe0\", true, 0]" \
	"$(ls_json '[[l["addr"], l["port"], l["device"], l["up"], l["requests"]] for l in d["listeners"]][0]')"
t_eq "dev show lists the listener" "$BOX" \
	"$("$RWCTL" -j dev show | jpy 'd["listeners"][0]["addr"]')"

# peer RANK [wire-req.py options]: one connect attempt, its outcome.
peer() {
	local rank=$1
	shift
	"$PEER" $SRC $BOX $PORT "$($REQ $JOB "$RW_OUT/token" "$rank" "$@")" 2>&1
}

t_eq "wrong token: refused EACCES" "refused EACCES" \
	"$(peer 0 sign-with "$RW_OUT/other")"
t_eq "unknown job: refused EACCES" "refused EACCES" \
	"$("$PEER" $SRC $BOX $PORT "$($REQ nosuchjob "$RW_OUT/token" 0)" 2>&1)"
t_eq "authenticator bit flipped: refused EACCES" "refused EACCES" \
	"$(peer 0 tamper auth)"
t_eq "bad magic: refused EPROTO" "refused EPROTO" "$(peer 0 tamper magic)"
t_eq "unknown version: refused EPROTO" "refused EPROTO" "$(peer 0 tamper version)"
t_eq "reserved bytes set: refused EPROTO" "refused EPROTO" "$(peer 0 tamper reserved)"
t_eq "rank 2 of 2 workers: refused ERANGE" "refused ERANGE" "$(peer 2)"
t_eq "an epoch with no membership to resume: refused ESTALE" "refused ESTALE" \
	"$(peer 0 epoch 5)"
t_eq "clock 400 s ahead: refused ETIMEDOUT" "refused ETIMEDOUT" \
	"$(peer 0 time-offset 400)"
t_eq "no request at all: refused EPROTO" "refused EPROTO" \
	"$("$PEER" $SRC $BOX $PORT "" 2>&1)"

# A box of the job's set giving chunks of a move (uapi "Gifts"): refused
# at connect without an epoch; admitted with one, its gift is checked
# before anything is read: for a set the job does not have (this job has
# none), refused EXDEV and the link kept; cut short, refused EPROTO and
# the link closed by the box. The job's listener counts no worker.
t_eq "a giving box without an epoch: refused EPROTO" "refused EPROTO" \
	"$(peer 0 box 2)"
t_eq "a gift for a set the job does not have: refused EXDEV, the link kept" \
	"accepted refused EXDEV still open" \
	"$("$PEER" $SRC $BOX $PORT "$($REQ $JOB "$RW_OUT/token" 0 box 2 epoch 9)" gift set 2>&1 | tr '\n' ' ' | sed 's/ $//')"
t_eq "a gift cut after its header: refused EPROTO, the link closed by the box" \
	"accepted refused EPROTO closed by the box" \
	"$("$PEER" $SRC $BOX $PORT "$($REQ $JOB "$RW_OUT/token" 0 box 2 epoch 9)" gift short 2>&1 | tr '\n' ' ' | sed 's/ $//')"
t_ok "... and the box logged why" sh -c \
	"dmesg | grep -q 'job $JOB: a bad gift from box 2: gift length does not match its segments and map'"
t_eq "... no worker attached" 0 "$(ls_json 'd["listeners"][0]["connected"]')"
t_eq "job unchanged by refusals: nobody attached" 0 \
	"$("$RWCTL" -j job show $JOB | jpy 'd["jobs"][0]["attached"]')"

# A good request, then the same bytes again: a replay.
req=$($REQ $JOB "$RW_OUT/token" 1)
t_eq "a signed request is accepted (then closed)" "accepted closed" \
	"$("$PEER" $SRC $BOX $PORT "$req" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
t_eq "the same request again: refused ETIMEDOUT (replay)" "refused ETIMEDOUT" \
	"$("$PEER" $SRC $BOX $PORT "$req" 2>&1)"

# Requests refused after authentication cost no other rank its connect
# (they once filled the job's 64 nonces for ten minutes): 32 for a rank
# the job does not have and 32 of rank 1 with a stale epoch, from one
# process, each refused for its own reason; rank 0 gets in right after.
$REQ $JOB "$RW_OUT/token" 2 count 32 >"$RW_OUT/flood"
$REQ $JOB "$RW_OUT/token" 1 epoch 5 count 32 >>"$RW_OUT/flood"
t_eq "64 authenticated requests refused: each for its rank or epoch" \
	"32 refused ERANGE,32 refused ESTALE" \
	"$("$PEER" $SRC $BOX $PORT "@$RW_OUT/flood" 2>&1 | sort | uniq -c |
		sed 's/^ *//' | paste -sd,)"
t_eq "rank 0 right after them: accepted (then closed)" "accepted closed" \
	"$(peer 0 | tr '\n' ' ' | sed 's/ $//')"
# Refused for its rank, still refused once a policy set gives the job
# that rank (100 s ahead: no floor the requests above raised covers it).
late=$($REQ $JOB "$RW_OUT/token" 2 time-offset 100)
t_eq "rank 2 of 2 again: refused ERANGE" "refused ERANGE" \
	"$("$PEER" $SRC $BOX $PORT "$late" 2>&1)"
# (rank 0's connection above may hold the job's run for a moment yet.)
workers() {
	local _
	for _ in $(seq 50); do
		"$RWCTL" policy set $JOB workers "$1" 2>/dev/null && return 0
		rw_nap 0.2
	done
	"$RWCTL" policy set $JOB workers "$1"
}
t_ok "policy set $JOB workers 3" workers 3
t_eq "... its replay with rank 2 in the job: refused ETIMEDOUT" \
	"refused ETIMEDOUT" "$("$PEER" $SRC $BOX $PORT "$late" 2>&1)"
t_ok "policy set $JOB workers 2" workers 2

# hold RANK LOG: a connected peer in the background (a coprocess, whose
# stdin is ours to close with unhold); returns once it printed its outcome.
# Run it in this shell, not in $(...): the coprocess must be ours.
hold() {
	local _ req
	req=$($REQ $JOB "$RW_OUT/token" "$1")
	coproc HOLD { exec "$PEER" $SRC $BOX $PORT "$req" stdin >"$2" 2>&1; }
	hold_pid=$HOLD_PID
	hold_fd=${HOLD[1]}
	for _ in $(seq 100); do
		grep -q . "$2" && return 0
		sleep 0.1
	done
	return 1
}

# unhold: end the peer's stdin and wait for it.
unhold() {
	exec {hold_fd}>&-
	wait "$hold_pid" 2>/dev/null
}

# The box's protection domains (rdma_cm names the module as their owner).
box_pds() { rdma resource show pd | grep -c "\[rackweave\]"; }

until_attached() { rw_until_attached $JOB "$1"; }

hold 0 "$RW_OUT/hold0"
t_eq "a peer connects as rank 0 and holds" accepted "$(head -n 1 "$RW_OUT/hold0")"
t_ok "the job counts it as an attached worker" until_attached 1
t_eq "rank 0 again from elsewhere: refused EADDRINUSE" "refused EADDRINUSE" \
	"$(peer 0)"
t_eq "one protection domain, the connection's own" 1 "$(box_pds)"
# (No process substitution in the guest: no /dev/fd. A fifo on the
# guest's tmpfs is the peer's stdin, held open by this shell; $! is the
# peer alone, so waiting for it waits for nothing else.)
req=$($REQ $JOB "$RW_OUT/token" 1)
fifo=/tmp/wire-listen-second
rm -f "$fifo"
mkfifo "$fifo"
"$PEER" $SRC $BOX $PORT "$req" stdin <"$fifo" >"$RW_OUT/second" 2>&1 &
second=$!
exec {second_fd}>"$fifo"
t_ok "a second worker of the job connects" until_attached 2
t_eq "... with a protection domain of its own" 2 "$(box_pds)"
kill "$second"
t_ok "... then goes" until_attached 1
t_eq "... and its protection domain with it" 1 "$(box_pds)"
wait "$second" 2>/dev/null
exec {second_fd}>&-
rm -f "$fifo"
t_eq "listen show: connected 1" 1 "$(ls_json 'd["listeners"][0]["connected"]')"
t_eq "listen show: the connection, its peer, job and rank" \
	"[[\"$SRC\", \"rxe0\", \"$JOB\", 0]]" \
	"$(ls_json '[[c["addr"], c["device"], c["job"], c["rank"]] for c in d["connections"]]')"
unhold
t_eq "the peer closes: it saw no error" "accepted closed" \
	"$(tr '\n' ' ' <"$RW_OUT/hold0" | sed 's/ $//')"
t_ok "the box lets the rank go" until_attached 0
t_eq "no protection domain left" 0 "$(box_pds)"

# Killed: its ids die with the process and the box hears the disconnect.
hold 1 "$RW_OUT/hold1"
t_eq "a peer holds rank 1" accepted "$(head -n 1 "$RW_OUT/hold1")"
t_ok "... attached" until_attached 1
kill -9 "$hold_pid"
unhold
t_ok "kill -9 of the peer frees rank 1" until_attached 0

# proto: four bad requests and the giving box without an epoch.
t_eq "listen show: every refusal counted by reason" \
	'{"proto": 5, "auth": 3, "clock": 3, "busy": 0, "rank": 34, "in-use": 1, "stale": 33, "other": 0}' \
	"$(ls_json 'd["listeners"][0]["refused"]')"
t_eq "listen show: requests = accepted + refused" true \
	"$(ls_json 'd["listeners"][0]["requests"] == d["listeners"][0]["accepted"] + d["listeners"][0]["refused_total"]')"
# Accepted: five workers' connects and the two giving boxes'.
t_eq "listen show: 7 accepted, none connected now" "[7, 0, []]" \
	"$(ls_json '[d["listeners"][0]["accepted"], d["listeners"][0]["connected"], d["connections"]]')"

# The box's device goes with a peer connected: both ends hear of it.
hold 0 "$RW_OUT/hold2"
t_eq "a peer holds rank 0" accepted "$(head -n 1 "$RW_OUT/hold2")"
t_ok "... attached" until_attached 1
t_ok "rdma link delete rxe0 with a connection up" timeout 60 rdma link delete rxe0
t_ok "the device's connection is closed" until_attached 0
unhold
t_eq "listen show: the listener is down" "[false, \"\"]" \
	"$(ls_json '[d["listeners"][0]["up"], d["listeners"][0]["device"]]')"
t_ok "rdma link add rxe0 again" rdma link add rxe0 type rxe netdev veth0
sleep 1
t_ok "listen add binds the down listener again" "$RWCTL" listen add $BOX
t_eq "listen show: up on rxe0" "[true, \"rxe0\"]" \
	"$(ls_json '[d["listeners"][0]["up"], d["listeners"][0]["device"]]')"

# Deleting the job by force disconnects its remote workers.
hold 0 "$RW_OUT/hold4"
t_eq "a peer holds rank 0" accepted "$(head -n 1 "$RW_OUT/hold4")"
t_ok "... attached" until_attached 1
t_ok "job del $JOB force with a remote worker" "$RWCTL" job del $JOB force
t_eq "the peer hears the disconnect" "accepted disconnected" \
	"$(sleep 1; tr '\n' ' ' <"$RW_OUT/hold4" | sed 's/ $//')"
unhold
t_eq "listen show: nobody connected" 0 "$(ls_json 'd["listeners"][0]["connected"]')"
t_ok "job add $JOB again" "$RWCTL" job add $JOB workers 2 chunk-size 4096 \
	token-file "$RW_OUT/token"

# Unloading the module with a peer connected ends it on both sides.
hold 1 "$RW_OUT/hold3"
t_eq "a peer holds rank 1" accepted "$(head -n 1 "$RW_OUT/hold3")"
t_ok "... attached" until_attached 1
t_ok "rmmod rackweave with a connection up" rmmod rackweave
t_eq "the peer hears the disconnect" "accepted disconnected" \
	"$(sleep 1; tr '\n' ' ' <"$RW_OUT/hold3" | sed 's/ $//')"
unhold

t_ok "listen del after a reload: nothing to delete" sh -c \
	"insmod '$(rw_module_path)' && ! '$RWCTL' listen del $BOX && rmmod rackweave"
t_done
