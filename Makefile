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
#   make check-cluster   two-host tests: a box VM and a worker VM
#   make demo            boot VMs and show the box at work
#   make install         module, library, headers, pkg-config, man, rwctl
#
# Honours KERNELDIR, DESTDIR, PREFIX, V=1.

PREFIX    ?= /usr/local
DESTDIR   ?=
V         ?= 0
KERNELDIR ?= $(shell $(CURDIR)/scripts/kerneldir)

TOP       := $(CURDIR)
BUILD     := $(TOP)/build
CC        ?= gcc
Q         := $(if $(filter 1,$(V)),,@)

# In-tree user code sees the uapi header as installed, <rackweave/uapi.h>
# (RW_USER_CPPFLAGS in lib/lib.mk), never as a bare "rackweave.h".
USER_CFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE $(CFLAGS)
USER_LDFLAGS := $(LDFLAGS)

.PHONY: all module user check check-user check-kunit check-vm check-cluster demo deps \
	install install-module clean help

all: module user

help:
	@sed -n '3,14p' Makefile | sed 's/^# \{0,1\}//'

module:
	@test -d "$(KERNELDIR)" || { echo "KERNELDIR=$(KERNELDIR) is not a kernel build tree;" \
		"install linux-headers-$$(uname -r) or pass KERNELDIR=" >&2; exit 1; }
	$(MAKE) -C $(KERNELDIR) M=$(TOP) V=$(V) modules

include lib/lib.mk
include tools/rwctl/rwctl.mk
include tests/user/user.mk
include tests/vm/vm.mk
include kmod/agg/agg.mk
include kmod/chunk/chunk.mk
include kmod/sync/sync.mk
include kmod/rdma/rdma.mk
include examples/examples.mk

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

demo: deps user
	$(Q)$(TOP)/scripts/demo

install-module:
	$(MAKE) -C $(KERNELDIR) M=$(TOP) V=$(V) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra modules_install

UDEVDIR ?= /lib/udev/rules.d

install: install-module install-user
	install -d $(DESTDIR)$(UDEVDIR)
	install -m 0644 $(TOP)/scripts/install/60-rackweave.rules $(DESTDIR)$(UDEVDIR)/

clean:
	-$(MAKE) -C $(KERNELDIR) M=$(TOP) clean >/dev/null 2>&1
	rm -rf $(BUILD)
