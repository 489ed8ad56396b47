# SPDX-License-Identifier: GPL-2.0
# Shared by the guest halves of scripts/bench-wire (wire-bench.sh in one
# VM, wire-bench-2vm.sh across two), sourced after tests/vm/lib.sh. Both
# collect their figures in $res, lines that wire-bench-json.py reads.

# wb_options NAME ARGS...: the guest halves' options (NAME: the script's,
# for its messages): --full sets WB_FULL to 1 (0 without it), --rounds N
# sets ROUNDS (1 to 9; the caller sets its default first). Anything else
# ends the script with status 2.
wb_options() {
	local name=$1
	shift
	WB_FULL=0
	while [ $# -gt 0 ]; do
		case $1 in
		--full) WB_FULL=1 ;;
		--rounds)
			ROUNDS=${2:-}
			shift ;;
		*) echo "$name: unknown option $1"; exit 2 ;;
		esac
		shift
	done
	case $ROUNDS in
	[1-9]) ;;
	*) echo "$name: --rounds 1 to 9, not '$ROUNDS'"; exit 2 ;;
	esac
}

# wb_job W CHUNK [ROUND]: WB_JOB, the name of the job of the run of W
# workers and CHUNK-byte chunks (bW-CHUNK), or of the headline's round
# ROUND (bW-CHUNK-rROUND; round 1 is the run itself).
wb_job() {
	WB_JOB=b$1-$2
	[ -n "${3:-}" ] && [ "$3" -gt 1 ] && WB_JOB=$WB_JOB-r$3
	return 0
}

# wb_ibw_opts NAME: ib_write_bw's size, count and QP options for the run
# named NAME. before, after, midK (between headline rounds K and K+1): 32
# KiB messages, 1000 of them, one QP (the headline's link); bidir: the
# same both ways (-b); W.CHUNK (--full, just
# before our run of W workers and CHUNK-byte chunks): CHUNK-byte messages
# on W QPs, 32 MiB per QP, what each of our workers pushes.
wb_ibw_opts() {
	case $1 in
	before|after|mid*) echo "-s 32768 -n 1000" ;;
	bidir) echo "-s 32768 -n 1000 -b" ;;
	*.*) echo "-s ${1#*.} -n $((33554432 / ${1#*.})) -q ${1%.*}" ;;
	*) return 1 ;;
	esac
}

# wb_ibw NAME LOG: ib_write_bw's figure in LOG (for NAME's message size),
# as the "ibw NAME GBPS" line; fails if LOG has none.
wb_ibw() {
	local bw size=32768
	case $1 in *.*) size=${1#*.} ;; esac
	bw=$(awk -v s="$size" '$1 == s && NF >= 5 {print $4}' "$2" | tail -n 1)
	test -n "$bw" && echo "ibw $1 $bw" >>"$res"
}

# ib_write_bw as both guest halves run it: over rdma_cm like ours, on a
# port of its own (its default is the box's).
WB_IBW="ib_write_bw -R -d rxe0 -p 18600 --report_gbits"

# wb_ibw_client NAME SECONDS ATTEMPT HOST: attempt ATTEMPT of link NAME's
# ib_write_bw client against the server on HOST, SECONDS at most per try,
# its output in $RW_OUT/ibw-NAME.log. A busy guest may not listen yet:
# the client is rejected ("Unexpected CM event", RDMA_CM_EVENT_REJECTED)
# until it does, and tries again a second later (ten tries). Then the
# figure (wb_ibw); without one, says so and keeps the log as
# ibw-NAME-attemptATTEMPT.log.
wb_ibw_client() {
	local try log=$RW_OUT/ibw-$1.log
	for try in 1 2 3 4 5 6 7 8 9 10; do
		timeout "$2" $WB_IBW $(wb_ibw_opts "$1") "$4" >"$log" 2>&1 && break
		grep -qE 'Unexpected CM event|RDMA_CM_EVENT_REJECTED' "$log" || break
		sleep 1
	done
	wb_ibw "$1" "$log" && return 0
	echo "# ib_write_bw $1: attempt $3 gave no figure"
	cp "$log" "$RW_OUT/ibw-$1-attempt$3.log"
	return 1
}

# wb_requests JOB TOKEN_FILE W: the connection requests of ranks 0..W-1
# of JOB in WB_REQS, made before any worker starts: wire-req.py is a
# Python process, and one started for rank 1 while rank 0 is measured
# would take its vCPUs.
wb_requests() {
	local r
	WB_REQS=()
	for ((r = 0; r < $3; r++)); do
		WB_REQS+=("$($REQ "$1" "$2" $r)") || return 1
	done
}

# wb_peer JOB RANK ARGS...: start a bench worker, "$PEER" ARGS (or
# "$WB_PROG" ARGS: the module worker, $MODBENCH), its standard input
# /tmp/hold; its output comes through a pipe that wb_wait_bench reads and
# copies to $RW_OUT/JOB-RANK.log. Its pid is added to WB_PIDS, the pipe's
# end to WB_FDS (start each run with both empty).
wb_peer() {
	local f=${TMPDIR:-/tmp}/wb-$1-$2 fd
	: >"$RW_OUT/$1-$2.log"
	rm -f "$f"
	mkfifo "$f" || return 1
	shift 2
	# The pipe first: whatever fails after it, this end sees its end.
	"${WB_PROG:-$PEER}" "$@" >"$f" 2>&1 </tmp/hold 9>&- &
	WB_PIDS+=($!)
	# Opens once the worker has opened its end.
	exec {fd}<"$f"
	rm -f "$f"
	WB_FDS+=("$fd")
}

# wb_wait_bench JOB W SECONDS [WORD]: wait (SECONDS at most) until the W
# bench workers of JOB (started by wb_peer) have printed their result
# lines ("bench ...", or "WORD ...": "mbench" for the module's), or one
# has printed an error or ended; WB_N is how many printed the line.
# The shell sleeps in read on the workers' pipes meanwhile: polling their
# logs, or any process started, would take the vCPUs the run is measured
# on (ib_write_bw's client runs with nothing beside it). Then each pipe's
# rest goes to its log (a cat per worker, added to WB_PIDS).
wb_wait_bench() {
	local r l fd left end=$((SECONDS + $3)) ok=1 word=${4:-bench}
	WB_N=0
	for ((r = 0; r < $2 && ok; r++)); do
		while :; do
			left=$((end - SECONDS))
			if [ "$left" -le 0 ] ||
			   ! IFS= read -r -t "$left" -u "${WB_FDS[$r]}" l; then
				ok=0
				break
			fi
			printf '%s\n' "$l" >>"$RW_OUT/$1-$r.log"
			case $l in
			"$word "*) WB_N=$((WB_N + 1)); break ;;
			error*) ok=0; break ;;
			esac
		done
	done
	for ((r = 0; r < ${#WB_FDS[@]}; r++)); do
		fd=${WB_FDS[$r]}
		cat <&"$fd" 9>&- >>"$RW_OUT/$1-$r.log" &
		WB_PIDS+=($!)
		exec {fd}<&-
	done
	[ "$WB_N" = "$2" ]
}

# wb_record W CHUNK JOB CONNS_JSON [ROUND]: the bench workers' lines of run
# JOB (their logs $RW_OUT/JOB-RANK.log) and its connections' counters from
# the box's `rwctl -j listen show` in CONNS_JSON; a headline round after the
# first (ROUND 2 or more) records its workers' lines as "round ROUND ...".
wb_record() {
	local r
	if [ -n "${5:-}" ] && [ "$5" -gt 1 ]; then
		grep '^bench ' "$RW_OUT/$3-0.log" | sed "s/^/round $5 $1 $2 /" >>"$res"
		return
	fi
	for r in $(seq 0 $(($1 - 1))); do
		grep '^bench ' "$RW_OUT/$3-$r.log" | sed "s/^/run $1 $2 /" >>"$res"
	done
	/usr/bin/python3 "$RW_TOP/tests/bench/wire-bench-json.py" conns \
		"$4" "$3" "$1" "$2" >>"$res"
}

# The module worker: a trainer through this host's own rackweave.ko
# (rw_attach_remote), timed as wire-peer's bench mode is.
MODBENCH=$RW_TOP/build/tests/vm/wire-modbench
# wb_mrecord W CHUNK JOB CONNS_JSON [ROUND]: as wb_record, for a run of W
# module workers: their "mbench" lines as "mrun W CHUNK mbench ..."
# ("mround ROUND W CHUNK mbench ..." for a headline round after the
# first) and the box's counters of their connections as an "mconns" line
# (wire-bench-json.py).
wb_mrecord() {
	local r
	if [ -n "${5:-}" ] && [ "$5" -gt 1 ]; then
		grep -h '^mbench ' "$RW_OUT/$3-0.log" | sed "s/^/mround $5 $1 $2 /" >>"$res"
		return
	fi
	for r in $(seq 0 $(($1 - 1))); do
		grep -h '^mbench ' "$RW_OUT/$3-$r.log" | sed "s/^/mrun $1 $2 /" >>"$res"
	done
	/usr/bin/python3 "$RW_TOP/tests/bench/wire-bench-json.py" conns \
		"$4" "$3" "$1" "$2" | sed 's/^conns/mconns/' >>"$res"
}

# wb_jpy FILE EXPR: jpy EXPR over the JSON in FILE (a BENCH-JSON line).
wb_jpy() {
	sed 's/^BENCH-JSON //' "$1" | jpy "$2"
}

# wb_check_module BENCH_JSON ROUNDS RUNS: the module worker's part of the
# output contract, where it is produced (wire-bench.sh and
# wire-bench-2vm.sh): "key_prefixes" names both workers; every module_
# headline figure is there and positive, and each the median of ROUNDS
# rounds; each run of RUNS ("W.CHUNK ...") has the module worker's
# goodputs (the credit checks' runs are wire-peer's alone); the box sent and
# received no message per chunk on its connections either; and
# scripts/bench-wire's table has the module worker's headline line.
wb_check_module() {
	local f=$1
	t_eq "the JSON says which worker is which" true \
		"$(wb_jpy "$f" 'sorted(d["key_prefixes"]) == ["", "module_"] and "wire-peer" in d["key_prefixes"][""] and "rw_attach_remote" in d["key_prefixes"]["module_"]')"
	t_eq "every module worker's headline field is there and positive" true \
		"$(wb_jpy "$f" 'all((d.get("module_" + m + k) or 0) > 0 for m in ("push", "pull", "pushpull") for k in ("_goodput_gbps", "_ratio_to_ib_write_bw_32k"))')"
	t_eq "the module worker's headline is its rounds' median" true \
		"$(wb_jpy "$f" '(lambda h, m: len(h) == '"$2"' and all(d["module_" + k + "_ratio_to_ib_write_bw_32k"] == m([x["module_" + k + "_ratio_to_ib_write_bw"] for x in h]) for k in ("push", "pull", "pushpull")))(d["headline_rounds"], __import__("statistics").median)')"
	t_eq "each run has the module worker's goodputs" true \
		"$(wb_jpy "$f" '(lambda want: sorted("%d.%d" % (r["workers"], r["chunk_size"]) for r in d["runs"] if all((r.get("module_" + m + "_goodput_gbps") or 0) > 0 for m in ("push", "pull", "pushpull"))) == sorted(want))("'"$3"'".split())')"
	t_eq "the box sent and received no message per chunk with the module worker" 0.0 \
		"$(wb_jpy "$f" 'd["module_metadata_messages_per_chunk"]')"
	t_eq "scripts/bench-wire's table has the module worker's headline ratios" 1 \
		"$(/usr/bin/python3 -I -S "$RW_TOP/tests/bench/wire-bench-json.py" text <"$f" |
			grep -c "^the module worker's ratios to ib_write_bw at 32 KiB, 1 worker[a-z0-9 ()]*: push [0-9.]*, pull [0-9.]*, pushpull [0-9.]*\$")"
}
