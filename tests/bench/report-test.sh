#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bench/report-test.sh full|partial
#
# scripts/bench-report on the fixtures in tests/bench/fixtures/, no VM and
# no benchmark run (scripts/check runs both modes, one TAP step each):
#
#   full     every benchmark ok: report.md names every section, has its
#            tables (bench-boxes': a row per box count, the whole job's,
#            the owner function's movement) and links the four plots,
#            which are PNG files
#   partial  bench-path and bench-boxes absent (no status line and no
#            JSON, for bench-boxes), bench-wire failed, bench-agg's JSON lacking
#            a field: each gets its line in the report, sim-staleness still
#            reports with its plot, and the exit status is 1 (only the
#            malformed JSON counts: absent and failed are scripts/bench's
#            to count)
#
# Prints what is wrong and exits 1 on the first failed expectation.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/tests/bench/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks: $2"; }
png() {
	[ -s "$1" ] || fail "no plot $1"
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$1 is not a PNG"
	[ "$(stat -c %s "$1")" -gt 10000 ] || fail "$1 is too small to hold a plot"
}
report() { /usr/bin/python3 "$top/scripts/bench-report" "$@"; }

sections=("## Aggregation kernels (\`scripts/bench-agg\`)"
	"## Local data path (\`scripts/bench-path\`)"
	"## Staleness policies (\`scripts/sim-staleness\`)"
	"## RDMA transport (\`scripts/bench-wire\`)"
	"## Many boxes (\`scripts/bench-boxes\`)")

case ${1:-} in
full)
	report "$fix" "$tmp/out" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "exit $?"; }
	md=$tmp/out/report.md
	for s in "${sections[@]}"; do has "$md" "$s"; done
	for p in agg-ratio path-ratio path-breakdown staleness-ttt; do
		png "$tmp/out/$p.png"
		has "$md" "($p.png)"
	done
	has "$md" "| \`sum_ratio_to_bound_w8_32k\` |"
	has "$md" "| \`fused_momentum_ratio_to_bound_w8_32k\` |"
	has "$md" "\`path_ratio_w4_32k\`"
	has "$md" "| adaptive3_15 |"
	has "$md" "| \`pushpull_ratio_to_ib_write_bw_32k\` |"
	grep -q '^| 8 | 32K | ' "$md" || fail "no W = 8, 32 KiB row in the agg table"
	grep -q '^| 3 | [0-9]*/[0-9]*/[0-9]* | [0-9.]* | 0.00 | yes | ' "$md" ||
		fail "no three-box row (shares, balance, no control message) in the boxes table"
	has "$md" "| 1 (whole, no set) |"
	has "$md" "\`max_control_messages_per_chunk\` = **0.00**"
	has "$md" "| a 4th box added to 3 | "
	;;
partial)
	mkdir -p "$tmp/in"
	cp "$fix/staleness.json" "$fix/wire.json" "$tmp/in/"
	/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
del d["fused_momentum_ratio_to_bound_w8_32k_iqr"]
json.dump(d, open(sys.argv[2], "w"))' "$fix/agg.json" "$tmp/in/agg.json"
	printf '%s\n' "agg ok" "staleness ok" \
		"path absent scripts/bench-path does not exist in this tree" \
		"wire failed exit 1 after 3 s; log: wire.log" >"$tmp/status"
	rc=0
	report --status "$tmp/status" "$tmp/in" "$tmp/out" >"$tmp/log" 2>&1 || rc=$?
	[ $rc = 1 ] || { cat "$tmp/log"; fail "exit $rc, not 1, with a malformed agg.json"; }
	has "$tmp/log" "fused_momentum_ratio_to_bound_w8_32k_iqr"
	md=$tmp/out/report.md
	for s in "${sections[@]}"; do has "$md" "$s"; done
	has "$md" "**scripts/bench-path absent**: scripts/bench-path does not exist"
	has "$md" "**scripts/bench-wire failed**: exit 1"
	has "$md" "**scripts/bench-agg: its JSON could not be reported**"
	has "$md" "**scripts/bench-boxes absent**: no boxes.json"
	png "$tmp/out/staleness-ttt.png"
	for p in agg-ratio path-ratio path-breakdown; do
		[ ! -e "$tmp/out/$p.png" ] || fail "$p.png drawn for a benchmark that did not report"
	done
	;;
*)
	echo "usage: $0 full|partial" >&2
	exit 2 ;;
esac
echo "ok: bench-report $1"
