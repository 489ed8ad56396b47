# SPDX-License-Identifier: GPL-2.0
# Shared helpers for RackWeave's scripts. Sourced, not executed.

RW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RW_CACHE=${RW_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rackweave}

rw_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
rw_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Test kernels come in flavours: "test" is scripts/test-kernel.config alone
# (lockdep, kmemleak, KFENCE, UBSAN, debug objects, fault injection: what
# every VM test runs on); "kasan" adds scripts/test-kernel-kasan.config
# (KASAN, DEBUG_PAGEALLOC), whose VM runs take minutes more each, for the
# reliability runs (docs/testing.md); "kcsan" adds
# scripts/test-kernel-kcsan.config (the data-race detector, which cannot
# share a kernel with KASAN). rw_kernel_fragments FLAVOUR lists the
# fragments, merged in that order (a later line wins).
rw_kernel_fragments() {
	case "${1:-test}" in
	test) echo "$RW_TOP/scripts/test-kernel.config" ;;
	kasan) echo "$RW_TOP/scripts/test-kernel.config $RW_TOP/scripts/test-kernel-kasan.config" ;;
	kcsan) echo "$RW_TOP/scripts/test-kernel.config $RW_TOP/scripts/test-kernel-kcsan.config" ;;
	bench) echo "$RW_TOP/scripts/test-kernel.config $(rw_bench_overrides)" ;;
	*) rw_die "unknown test kernel flavour '$1' (test, kasan, kcsan or bench)" ;;
	esac
}

# The "bench" flavour is the test kernel without its checkers, for
# measuring, never for testing (a report it would print goes unseen):
# scripts/bench-wire runs on it. Its second fragment, written here from
# scripts/test-kernel.config, turns off every checker that one turns on
# (lockdep, kmemleak, KFENCE, UBSAN, debug objects, fault injection: every
# symbol named below, debugfs, the DEBUG_KERNEL menu and SLUB_DEBUG
# excepted) and gives the kernel a release name of its own.
rw_bench_overrides() {
	local f=$RW_CACHE/bench-overrides.config
	mkdir -p "$RW_CACHE"
	awk -F= '
		BEGIN { print "CONFIG_LOCALVERSION=\"-rackweave-bench\"" }
		$1 == "CONFIG_DEBUG_FS" || $1 == "CONFIG_DEBUG_KERNEL" { next }
		$1 == "CONFIG_SLUB_DEBUG" { next }	# on unless EXPERT; idle unless booted with slub_debug
		$1 ~ /^CONFIG_.*(DEBUG|KASAN|UBSAN|KMEMLEAK|KFENCE|KCSAN|LOCKDEP|PROVE_|LOCK_STAT|FAULT_INJECTION|FAILSLAB|FAIL_|ERROR_INJECTION|PAGE_POISONING|PAGE_OWNER)/ { print $1 "=n" }
	' "$RW_TOP/scripts/test-kernel.config" >"$f.tmp"
	if cmp -s "$f.tmp" "$f"; then rm -f "$f.tmp"; else mv "$f.tmp" "$f"; fi
	echo "$f"
}

# A test kernel is keyed by what it is built from: the source package
# version, its fragments and the build script itself.
rw_kernel_key() {
	local ver flavour=${1:-test}
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
		rw_die "linux-source-6.1 is not installed (run: make deps)"
	# shellcheck disable=SC2046
	{ echo "$ver"; [ "$flavour" = test ] || echo "$flavour"
	  cat $(rw_kernel_fragments "$flavour") "$RW_TOP/scripts/build-test-kernel"; } |
		sha256sum | cut -c1-16
}

rw_kernel_dir() { echo "$RW_CACHE/kernel-$(rw_kernel_key "${1:-test}")"; }

# Debian's stock kernel: the newest installed linux-image for 6.1.
rw_stock_release() {
	local r
	r=$(ls -1 /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' |
		sort -V | tail -n 1)
	[ -n "$r" ] || rw_die "no Debian 6.1 kernel in /lib/modules (run: make deps)"
	echo "$r"
}
