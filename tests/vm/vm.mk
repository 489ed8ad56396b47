# SPDX-License-Identifier: GPL-2.0
# Host-built programs that VM integration tests run inside the guest.

VM_TEST_DIR   := $(BUILD)/tests/vm
NL_CFLAGS     := $(shell pkg-config --cflags libnl-genl-3.0)
NL_LIBS       := $(shell pkg-config --libs libnl-genl-3.0)
VM_TEST_BINS  := $(VM_TEST_DIR)/ioctl-check $(VM_TEST_DIR)/genl-check

.PHONY: vm-tests
vm-tests: $(VM_TEST_BINS)

$(VM_TEST_DIR)/ioctl-check: tests/vm/ioctl-check.c $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $< $(USER_LDFLAGS)

$(VM_TEST_DIR)/genl-check: tests/vm/genl-check.c $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) $(NL_CFLAGS) -o $@ $< $(USER_LDFLAGS) $(NL_LIBS)

# dev-check: the device's local path (attach, declare, mmap, push/pull).
# main and dispatch, shared helpers, then one file per group of subcommands.
VM_DEV_CHECK_SRCS := dev-check.c dev-common.c dev-bad-input.c dev-hold.c
VM_DEV_CHECK_OBJS := $(addprefix $(VM_TEST_DIR)/obj/,$(VM_DEV_CHECK_SRCS:.c=.o))
VM_TEST_BINS  += $(VM_TEST_DIR)/dev-check
vm-tests: $(VM_TEST_DIR)/dev-check

$(VM_TEST_DIR)/obj/dev-%.o: tests/vm/dev-%.c tests/vm/dev-check.h \
		uapi/rackweave_sizes.h $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -pthread -c -o $@ $<

$(VM_TEST_DIR)/dev-check: $(VM_DEV_CHECK_OBJS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -pthread -o $@ $^ $(USER_LDFLAGS) -lm

# wire-peer: a raw librdmacm peer for the box's listener (wire-listen.sh)
# and, in its train mode (wire-train.c), a remote worker (wire-train.sh);
# it packs and reads the wire with the module's own pure wire.c and
# layout.c. wire-local trains the same model locally through librackweave.
VM_TEST_BINS  += $(VM_TEST_DIR)/wire-peer $(VM_TEST_DIR)/wire-local
vm-tests: $(VM_TEST_DIR)/wire-peer $(VM_TEST_DIR)/wire-local

VM_WIRE_PEER_SRCS := tests/vm/wire-peer.c tests/vm/wire-train.c \
		     tests/vm/wire-setup.c tests/vm/wire-gift.c kmod/rdma/wire.c \
		     kmod/rdma/wire_move.c kmod/chunk/layout.c
$(VM_TEST_DIR)/wire-peer: $(VM_WIRE_PEER_SRCS) kmod/rdma/wire.h \
		tests/vm/wire-peer.h tests/vm/wire-model.h $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) -I$(TOP)/kmod -I$(TOP)/uapi $(USER_CFLAGS) \
		-o $@ $(VM_WIRE_PEER_SRCS) $(USER_LDFLAGS) -lrdmacm -libverbs

$(VM_TEST_DIR)/wire-local: tests/vm/wire-local.c tests/vm/wire-model.h \
		$(RW_LIB_A) $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $< $(RW_LIB_A) \
		$(USER_LDFLAGS) -pthread -lnuma

# wire-modbench: scripts/bench-wire's module worker, a trainer through
# this host's module (rw_attach_remote), timed as wire-peer's bench mode.
VM_TEST_BINS  += $(VM_TEST_DIR)/wire-modbench
vm-tests: $(VM_TEST_DIR)/wire-modbench

$(VM_TEST_DIR)/wire-modbench: tests/vm/wire-modbench.c $(RW_LIB_A) \
		$(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $< $(RW_LIB_A) \
		$(USER_LDFLAGS) -pthread -lnuma

# prio-trainer: a trainer of layers with per-layer compute, pushing each
# layer as its backward pass ends and waiting for each as its forward
# pass begins (tests/vm/priority.sh, scripts/bench-priority).
VM_TEST_BINS  += $(VM_TEST_DIR)/prio-trainer
vm-tests: $(VM_TEST_DIR)/prio-trainer

$(VM_TEST_DIR)/prio-trainer: tests/vm/prio-trainer.c $(RW_LIB_A) \
		$(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $< $(RW_LIB_A) \
		$(USER_LDFLAGS) -pthread -lnuma

# init-check: initial parameters and their refusals through librackweave.
VM_TEST_BINS  += $(VM_TEST_DIR)/init-check
vm-tests: $(VM_TEST_DIR)/init-check

$(VM_TEST_DIR)/init-check: tests/vm/init-check.c $(RW_LIB_A) $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $< $(RW_LIB_A) \
		$(USER_LDFLAGS) -pthread -lnuma

# average-check: W workers (threads) through librackweave against a job in
# averaging mode (average.sh).
VM_TEST_BINS  += $(VM_TEST_DIR)/average-check
vm-tests: $(VM_TEST_DIR)/average-check

$(VM_TEST_DIR)/average-check: tests/vm/average-check.c $(RW_LIB_A) \
		$(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $< $(RW_LIB_A) \
		$(USER_LDFLAGS) -pthread -lnuma

# The fuzzers of fuzz.sh: genl-fuzz (raw generic netlink messages from the
# family's policies) and dev-fuzz (ioctls, mmap, fork and close on
# /dev/rackweave from several threads); both seeded and replayable.
# storm races trainers killed with SIGKILL against forced deletions,
# policy switches, dumps and event listeners.
VM_TEST_BINS  += $(VM_TEST_DIR)/genl-fuzz $(VM_TEST_DIR)/dev-fuzz \
		 $(VM_TEST_DIR)/storm
vm-tests: $(VM_TEST_DIR)/genl-fuzz $(VM_TEST_DIR)/dev-fuzz $(VM_TEST_DIR)/storm

$(VM_TEST_DIR)/genl-fuzz: tests/vm/genl-fuzz.c tests/vm/fuzz-common.h \
		$(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -o $@ $< $(USER_LDFLAGS)

$(VM_TEST_DIR)/dev-fuzz: tests/vm/dev-fuzz.c tests/vm/fuzz-common.h \
		uapi/rackweave_sizes.h $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -pthread -o $@ $< \
		$(USER_LDFLAGS)

$(VM_TEST_DIR)/storm: tests/vm/storm.c tests/vm/fuzz-common.h $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -pthread -o $@ $< \
		$(USER_LDFLAGS)

# pull-race: W workers push and pull one chunk as fast as they can under a
# step-per-gradient rule; a pull that misses its wake-up times out.
VM_TEST_BINS  += $(VM_TEST_DIR)/pull-race
vm-tests: $(VM_TEST_DIR)/pull-race

$(VM_TEST_DIR)/pull-race: tests/vm/pull-race.c $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -pthread -o $@ $< \
		$(USER_LDFLAGS)

# fault-cycle: the job and worker life cycle, over and over, optionally
# under fault injection (faults.sh, cycles.sh); the model and the raw calls
# are dev-check's.
VM_TEST_BINS  += $(VM_TEST_DIR)/fault-cycle
vm-tests: $(VM_TEST_DIR)/fault-cycle

$(VM_TEST_DIR)/fault-cycle: $(VM_TEST_DIR)/obj/fault-cycle.o $(VM_TEST_DIR)/obj/dev-common.o
	@mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -o $@ $^ $(USER_LDFLAGS) $(NL_LIBS) -lm

$(VM_TEST_DIR)/obj/fault-cycle.o: tests/vm/fault-cycle.c tests/vm/dev-check.h \
		uapi/rackweave_sizes.h $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) $(NL_CFLAGS) -c -o $@ $<
