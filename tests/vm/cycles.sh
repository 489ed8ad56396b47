#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: --kernel test --smp 2 --timeout 900 --append slub_debug=U
#
# Leak cycles: N life cycles of a job (build/tests/vm/fault-cycle: job add,
# W workers attach, declare, set up and map, a policy set, pushes, pulls
# and pushpulls checked against the exact SGD result, unmap, close, job
# del), then nothing of them may be left: the slab objects the module
# allocated (SLUB's alloc_traces in debugfs, with slub_debug=U: every live
# object with the stack that allocated it; those with a rackweave frame
# count) and its vmalloc areas (/proc/vmallocinfo lines naming a rackweave
# caller) are back to where they were after a few warm-up cycles, a
# kmemleak scan is clean, and the module unloads. A leak of one object per
# cycle shows as N more objects.
#
# N is 100 (RW_CYCLES overrides), 1000 with RW_STRESS=1 (make stress).
. "$(dirname "$0")/lib.sh"

FC=$RW_TOP/build/tests/vm/fault-cycle
if [ "${RW_STRESS:-0}" = 1 ]; then
	n=${RW_CYCLES:-1000}
else
	n=${RW_CYCLES:-100}
fi
workers=3

# mod_slab: live slab objects with a rackweave frame in their allocation
# stack, summed over every cache ("caller count" lines too, for the log).
# Every cache is shrunk first: KASAN keeps freed objects in its quarantine,
# where SLUB still counts them, and a shrink empties the cache's share.
mod_slab() {
	python3 - "$@" <<'EOF'
import glob, re, sys
for f in glob.glob("/sys/kernel/slab/*/shrink"):
    try:
        open(f, "w").write("1")
    except OSError:
        pass
total, where = 0, {}
for f in glob.glob("/sys/kernel/debug/slab/*/alloc_traces"):
    try:
        text = open(f).read()
    except OSError:
        continue
    # An entry: "<count> <caller> age=..." then its stack, indented.
    for entry in re.split(r"\n(?=\s*\d+ )", text):
        m = re.match(r"\s*(\d+) (\S+)", entry)
        if m and "[rackweave]" in entry:
            n = int(m.group(1))
            total += n
            key = f.split("/")[-2] + " " + m.group(2).split("+")[0]
            where[key] = where.get(key, 0) + n
print(total)
if len(sys.argv) > 1:
    for k, v in sorted(where.items()):
        print("#   %6d %s" % (v, k), file=sys.stderr)
EOF
}

# mod_vmalloc: "AREAS BYTES" of vmalloc areas a rackweave function made.
mod_vmalloc() {
	awk '/\[rackweave\]/ { n++; b += $2 } END { print n + 0, b + 0 }' /proc/vmallocinfo
}

# settled NAME CMD WANT: CMD prints WANT within 10 s (RCU callbacks and
# deferred work may still be freeing).
settled() {
	local _ got
	for _ in $(seq 20); do
		got=$("$2")
		[ "$got" = "$3" ] && break
		sleep 0.5
	done
	t_eq "$1" "$3" "$got"
}

t_ok "load ib_core and rackweave.ko" rw_load
t_ok "slab allocation traces are on (slub_debug=U)" \
	test -r /sys/kernel/debug/slab/kmalloc-64/alloc_traces
t_ok "5 warm-up cycles with $workers workers train exactly" \
	"$FC" -w $workers -i 2 -c 5 cyc-warm
# The warm-up's last frees may still be on their way (RCU, deferred work):
# the count before is the one that holds for two readings in a row.
slab0=$(mod_slab)
for _ in $(seq 20); do
	sleep 0.5
	s=$(mod_slab)
	[ "$s" = "$slab0" ] && break
	slab0=$s
done
mod_slab x 2>"$RW_OUT/slab-before.txt" >/dev/null
vm0=$(mod_vmalloc)
echo "# before: $slab0 slab objects, vmalloc $vm0 (areas bytes) of rackweave"

start=$EPOCHREALTIME
out=$("$FC" -w $workers -i 2 -c "$n" cyc 2>&1)
rc=$?
secs=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000000 ))
printf '%s\n' "$out" | grep -E '^#|^not ok' | head -n 20
t_eq "$n cycles (job add, $workers workers, 2 iterations, job del) train exactly each time" 0 "$rc"
echo "# $n cycles in $secs s"

settled "slab objects allocated by rackweave: as many as before the $n cycles" mod_slab "$slab0"
mod_slab x 2>"$RW_OUT/slab-after.txt" >/dev/null
settled "vmalloc areas and bytes of rackweave: as before the $n cycles" mod_vmalloc "$vm0"
t_eq "no job is left" 0 "$("$RWCTL" -j job show | jpy 'len(d["jobs"])')"

# kmemleak does not judge objects younger than 5 s.
sleep 5
echo scan >/sys/kernel/debug/kmemleak
echo scan >/sys/kernel/debug/kmemleak
cp /sys/kernel/debug/kmemleak "$RW_OUT/kmemleak-cycles.txt"
t_eq "kmemleak: no leak after the cycles" 0 "$(grep -c 'unreferenced object' "$RW_OUT/kmemleak-cycles.txt")"
t_ok "rmmod rackweave" rmmod rackweave
t_done
