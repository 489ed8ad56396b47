# SPDX-License-Identifier: GPL-2.0
#
# User-space build of kmod/chunk's pure sources and their cmocka tests,
# included by the top Makefile after tests/user/user.mk. layout.c, map.c,
# rebalance.c, owner.c and boxset.c compile unchanged against kmod/compat.h (and
# layout.c against the uapi header, for the ranges a selection names); each
# test links them directly (no library).
#
#   build/tests/user/test-chunk-layout   layout geometry, lookups, bad input
#   build/tests/user/test-chunk-map      balance and locality of the map
#   build/tests/user/test-chunk-rebal    rebalancing converges, no oscillation
#   build/tests/user/test-chunk-owner    chunk owners across a job's boxes
#   build/tests/user/test-chunk-boxset   a job's box set: checks, digest, owners

RW_CHUNK_SRC	:= $(TOP)/kmod/chunk
RW_CHUNK_OBJ	:= $(RW_UT_OBJ)/chunk
RW_CHUNK_PURE	:= $(patsubst %,$(RW_CHUNK_OBJ)/%.o,layout map rebalance owner boxset)
RW_CHUNK_HELP	:= $(RW_CHUNK_OBJ)/chunktest.o
RW_CHUNK_NAMES	:= test-chunk-layout test-chunk-map test-chunk-rebal test-chunk-owner \
		   test-chunk-boxset
RW_CHUNK_BINS	:= $(addprefix $(RW_UT_OUT)/,$(RW_CHUNK_NAMES))
RW_CHUNK_TOBJS	:= $(patsubst %,$(RW_CHUNK_OBJ)/%.o,$(RW_CHUNK_NAMES))

RW_CHUNK_CFLAGS	:= -I$(TOP)/kmod -I$(TOP)/uapi -I$(RW_CHUNK_SRC) -I$(TOP)/tests/common \
		   $(USER_CFLAGS)

user-tests: $(RW_CHUNK_BINS)

$(RW_CHUNK_PURE): $(RW_CHUNK_OBJ)/%.o: $(RW_CHUNK_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_CHUNK_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_CHUNK_TOBJS) $(RW_CHUNK_HELP): $(RW_CHUNK_OBJ)/%.o: $(RW_UT_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_CHUNK_CFLAGS) $(RW_CMOCKA_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_CHUNK_BINS): $(RW_UT_OUT)/%: $(RW_CHUNK_OBJ)/%.o $(RW_CHUNK_HELP) \
		$(RW_CHUNK_PURE)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $< $(RW_CHUNK_HELP) $(RW_CHUNK_PURE) \
		$(RW_CMOCKA_LIBS) -lm

-include $(wildcard $(RW_CHUNK_OBJ)/*.d)
