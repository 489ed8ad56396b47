# SPDX-License-Identifier: GPL-2.0
#
# User-space build of kmod/rdma's pure source and its cmocka test, included
# by the top Makefile after tests/user/user.mk. wire.c and replay.c compile unchanged
# against kmod/compat.h and the uapi header.
#
#   build/tests/user/test-rdma-wire   immediates, connect requests and
#                                     refusals, packed and refused
#   build/tests/user/test-rdma-replay the clock window and replayed nonces

RW_RDMA_SRC	:= $(TOP)/kmod/rdma
RW_RDMA_OBJ	:= $(RW_UT_OBJ)/rdma
RW_RDMA_PURE	:= $(RW_RDMA_OBJ)/wire.o $(RW_RDMA_OBJ)/wire_ctl.o \
		   $(RW_RDMA_OBJ)/wire_move.o $(RW_RDMA_OBJ)/replay.o
RW_RDMA_NAMES	:= test-rdma-wire test-rdma-replay
RW_RDMA_BINS	:= $(addprefix $(RW_UT_OUT)/,$(RW_RDMA_NAMES))
RW_RDMA_TOBJS	:= $(patsubst %,$(RW_RDMA_OBJ)/%.o,$(RW_RDMA_NAMES))

RW_RDMA_CFLAGS	:= -I$(TOP)/kmod -I$(TOP)/uapi -I$(TOP)/tests $(USER_CFLAGS)

user-tests: $(RW_RDMA_BINS)

$(RW_RDMA_PURE): $(RW_RDMA_OBJ)/%.o: $(RW_RDMA_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_RDMA_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_RDMA_TOBJS): $(RW_RDMA_OBJ)/%.o: $(RW_UT_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_RDMA_CFLAGS) $(RW_CMOCKA_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_RDMA_BINS): $(RW_UT_OUT)/%: $(RW_RDMA_OBJ)/%.o $(RW_RDMA_PURE)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $< $(RW_RDMA_PURE) $(RW_CMOCKA_LIBS)

-include $(wildcard $(RW_RDMA_OBJ)/*.d)
