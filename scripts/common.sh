# SPDX-License-Identifier: GPL-2.0
# Shared helpers for RackWeave's scripts. Sourced, not executed.

RW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RW_CACHE=${RW_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rackweave}

rw_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
rw_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The test kernel is keyed by what it is built from: the source package
# version, the config fragment and the build script itself.
rw_kernel_key() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
		rw_die "linux-source-6.1 is not installed (run: make deps)"
	{ echo "$ver"; cat "$RW_TOP/scripts/test-kernel.config" \
		"$RW_TOP/scripts/build-test-kernel"; } | sha256sum | cut -c1-16
}

rw_kernel_dir() { echo "$RW_CACHE/kernel-$(rw_kernel_key)"; }

# Debian's stock kernel: the newest installed linux-image for 6.1.
rw_stock_release() {
	local r
	r=$(ls -1 /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' |
		sort -V | tail -n 1)
	[ -n "$r" ] || rw_die "no Debian 6.1 kernel in /lib/modules (run: make deps)"
	echo "$r"
}
