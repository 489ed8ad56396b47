# SPDX-License-Identifier: GPL-2.0
#
# RackWeave top-level Makefile. The kernel module's object lists live in
# Kbuild; this file wraps `make -C $(KERNELDIR) M=$(CURDIR)` and builds the
# user-space pieces (librackweave, rwctl, tests) into build/.
#
#   make                 module + library + rwctl
#   make check           the whole suite (installs what it needs first)
#   make check-user      cmocka tests on the host
#   make check-kunit     KUnit suites in a VM on the test kernel
#   make check-vm        VM integration tests
#   make check-cluster   multi-host tests: box VMs and worker VMs (tests/cluster)
#   make check-kasan     KUnit, VM and multi-host tests on the KASAN test kernel
#   make check-kcsan     the same on the KCSAN (data-race) test kernel
#   make stress          fault injection and 1000 leak cycles, KASAN kernel
#   make check-deb       build the Debian packages, install them in a throwaway
#                        root and boot it (docs/packaging.md)
#   make check-pages     man pages vs exported symbols and the header; versions
#   make bench           every benchmark; build/bench/report.md with tables and
#                        plots (QUICK=1: each in its quick form; scripts/bench)
#   make fuzz            tests/vm/fuzz.sh long: DURATION=SECONDS of fuzzing
#                        (default 600), a storm of half that, soaks to match;
#                        SEED=N replays a run's fuzzers (docs/fuzzing.md);
#                        TEST_KERNEL=kasan|kcsan runs it on that test kernel
#   make deb             Debian packages into build/deb/ (docs/packaging.md)
#   make demo            PyTorch trainers on a worker VM train through a box VM
#                        (POLICY=bsp|ssp|adaptive, WORKERS=N; see scripts/demo)
#   make demo-compare    the three policies one after the other, on one plot
#   make install         builds, then installs the module (extra/) and all of
#                        install-user
#   make install-user    library, headers, pkg-config, man pages, rwctl, bash
#                        completion, udev rule, docs, the rackweave Python
#                        package (no module, no kernel tree)
#   make uninstall       removes what install put there (same variables);
#                        uninstall-user what install-user put there
#
# Honours KERNELDIR, DESTDIR, V=1 and these install directories:
#   PREFIX=/usr/local  LIBDIR=$(PREFIX)/lib  INCLUDEDIR=$(PREFIX)/include
#   BINDIR=$(PREFIX)/bin  MANDIR=$(PREFIX)/share/man
#   DOCDIR=$(PREFIX)/share/doc/rackweave
#   BASHCOMPDIR=$(PREFIX)/share/bash-completion/completions
#   UDEVDIR=/lib/udev/rules.d
#   PYTHONDIR=$(PREFIX)/lib/python3.X/dist-packages (/usr/lib/python3/dist-packages
#   for PREFIX=/usr)
# The one version is RW_VERSION_* in uapi/rackweave.h (make version prints it).

PREFIX    ?= /usr/local
DESTDIR   ?=
V         ?= 0
KERNELDIR ?= $(shell $(CURDIR)/scripts/kerneldir)

TOP       := $(CURDIR)
# The release: MAJOR.MINOR.PATCH from uapi/rackweave.h, the one source.
RW_VERSION := $(shell sed -n 's/^\#define RW_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' \
	$(CURDIR)/uapi/rackweave.h | paste -sd.)
BUILD     := $(TOP)/build
CC        ?= gcc
Q         := $(if $(filter 1,$(V)),,@)

# In-tree user code sees the uapi header as installed, <rackweave/uapi.h>
# (RW_USER_CPPFLAGS in lib/lib.mk), never as a bare "rackweave.h".
USER_CFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE $(CFLAGS)
USER_LDFLAGS := $(LDFLAGS)

.PHONY: all module user check check-user check-kunit check-vm check-cluster check-kasan check-kcsan stress demo deps \
	install install-module install-data uninstall uninstall-module uninstall-data deb check-deb \
	check-pages version demo-compare clean help bench fuzz

all: module user

help:
	@sed -n '3,/^$$/{/^$$/d;p;}' Makefile | sed 's/^# \{0,1\}//'

module:
	@test -d "$(KERNELDIR)" || { echo "KERNELDIR=$(KERNELDIR) is not a kernel build tree;" \
		"install linux-headers-$$(uname -r) or pass KERNELDIR=" >&2; exit 1; }
	$(MAKE) -C $(KERNELDIR) M=$(TOP) V=$(V) modules

include lib/lib.mk
include tools/rwctl/rwctl.mk
include tests/user/user.mk
include tests/vm/vm.mk
include kmod/agg/agg.mk
include tests/bench/path.mk
include tests/bench/bench.mk
include kmod/chunk/chunk.mk
include kmod/sync/sync.mk
include kmod/rdma/rdma.mk
include examples/examples.mk
include python/python.mk

user: lib rwctl examples

deps:
	$(Q)$(TOP)/scripts/deps

check: deps
	$(Q)$(TOP)/scripts/check all

check-user: user user-tests
	$(Q)$(TOP)/scripts/check user

check-kunit:
	$(Q)$(TOP)/scripts/check kunit

check-vm: user
	$(Q)$(TOP)/scripts/check vm

check-cluster: user
	$(Q)$(TOP)/scripts/check cluster

# The short form runs in check-vm; this is the same script for longer. The
# VM's time limit leaves room for the soaks, the reference and the boot.
DURATION ?= 600
SEED     ?=
TEST_KERNEL ?= test
fuzz: user vm-tests
	$(Q)rm -rf $(BUILD)/fuzz
	$(Q)$(if $(filter-out test,$(TEST_KERNEL)),$(TOP)/scripts/build-test-kernel $(TEST_KERNEL) >/dev/null && \
		$(TOP)/scripts/build-module $$($(TOP)/scripts/build-test-kernel $(TEST_KERNEL))/linux \
		$(BUILD)/mod-$(TEST_KERNEL) >/dev/null &&) \
	$(TOP)/scripts/vm-run --kernel $(TEST_KERNEL) --smp 2 --timeout $$(( $(DURATION) * 3 + 600 )) \
		--out $(BUILD)/fuzz -- env RW_FUZZ_SECONDS=$(DURATION) \
		$(if $(SEED),RW_FUZZ_SEED=$(SEED)) tests/vm/fuzz.sh

check-kasan: user
	$(Q)RW_TEST_KERNEL=kasan $(TOP)/scripts/check kunit
	$(Q)RW_TEST_KERNEL=kasan $(TOP)/scripts/check vm
	$(Q)RW_TEST_KERNEL=kasan $(TOP)/scripts/check cluster

check-kcsan: user
	$(Q)RW_TEST_KERNEL=kcsan $(TOP)/scripts/check kunit
	$(Q)RW_TEST_KERNEL=kcsan $(TOP)/scripts/check vm
	$(Q)RW_TEST_KERNEL=kcsan $(TOP)/scripts/check cluster

stress: user
	$(Q)$(TOP)/scripts/check stress

POLICY  ?= adaptive
WORKERS ?= 4
demo: deps user
	$(Q)POLICY=$(POLICY) WORKERS=$(WORKERS) $(TOP)/scripts/demo

demo-compare: deps user
	$(Q)POLICY=bsp,ssp,adaptive WORKERS=$(WORKERS) $(TOP)/scripts/demo

# The module is built before it is installed: without a kernel build tree
# `make install` stops at `module` with a message saying what to pass.
install-module: module
	$(MAKE) -C $(KERNELDIR) M=$(TOP) V=$(V) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra modules_install

UDEVDIR ?= /lib/udev/rules.d
DOCDIR  ?= $(PREFIX)/share/doc/rackweave
RW_DOCS := README.md LICENSE docs/design.md docs/checkpoint.md docs/packaging.md

# The udev rule, rackweave(4), the modprobe.d example and the docs.
install-data:
	$(Q)install -d $(DESTDIR)$(UDEVDIR) $(DESTDIR)$(MANDIR)/man4 \
		$(DESTDIR)$(DOCDIR)/examples
	$(Q)install -m 0644 $(TOP)/scripts/install/60-rackweave.rules $(DESTDIR)$(UDEVDIR)/
	$(Q)install -m 0644 $(TOP)/man/man4/rackweave.4 $(DESTDIR)$(MANDIR)/man4/
	$(Q)install -m 0644 $(TOP)/scripts/install/rackweave.modprobe.conf \
		$(DESTDIR)$(DOCDIR)/examples/modprobe.d-rackweave.conf
	$(Q)install -m 0644 $(addprefix $(TOP)/,$(RW_DOCS)) $(DESTDIR)$(DOCDIR)/

install-user: install-data

install: install-module install-user

uninstall-module:
	rm -f $(DESTDIR)/lib/modules/$$($(MAKE) -s -C $(KERNELDIR) kernelrelease)/extra/rackweave.ko

uninstall-data:
	rm -f $(DESTDIR)$(UDEVDIR)/60-rackweave.rules $(DESTDIR)$(MANDIR)/man4/rackweave.4
	rm -rf $(DESTDIR)$(DOCDIR)

uninstall-user: uninstall-data

uninstall: uninstall-module uninstall-user

version:
	@echo $(RW_VERSION)

deb:
	$(Q)$(TOP)/scripts/build-deb

check-deb:
	$(Q)$(TOP)/scripts/check deb

check-pages: lib
	$(Q)$(TOP)/scripts/check pages

clean:
	-$(MAKE) -C $(KERNELDIR) M=$(TOP) clean >/dev/null 2>&1
	rm -rf $(BUILD)
