# SPDX-License-Identifier: GPL-2.0
#
# User-space build of kmod/sync's pure gate and round rule, its cmocka tests and the
# staleness simulator, included by the top Makefile after
# tests/user/user.mk. The gate's files (RW_SYNC_GATE) and round.c compile
# unchanged against kmod/compat.h; each program links them directly (no
# library).
#
#   build/tests/user/test-sync-gate     policies on scripted clocks, liveness,
#                                       epochs, rejoin, bad input
#   build/tests/user/test-sync-random   the invariant over random schedules
#   build/tests/user/test-sync-ctl      the controller on hand-computed timelines
#   build/tests/user/test-sync-round    a chunk's step rule: members leaving
#                                       and joining, quorum, late gradients
#   sim-staleness  build/sim/sim-staleness, run by scripts/sim-staleness

RW_SYNC_SRC	:= $(TOP)/kmod/sync
RW_SYNC_OBJ	:= $(RW_UT_OBJ)/sync
RW_SYNC_GATE	:= gate request member adapt
RW_SYNC_PURE	:= $(patsubst %,$(RW_SYNC_OBJ)/%.o,$(RW_SYNC_GATE) round)
RW_SYNC_HELP	:= $(RW_SYNC_OBJ)/synctest.o
RW_SYNC_NAMES	:= test-sync-gate test-sync-random test-sync-ctl test-sync-round
RW_SYNC_BINS	:= $(addprefix $(RW_UT_OUT)/,$(RW_SYNC_NAMES))
RW_SYNC_TOBJS	:= $(patsubst %,$(RW_SYNC_OBJ)/%.o,$(RW_SYNC_NAMES))

RW_SYNC_CFLAGS	:= -I$(TOP)/kmod -I$(RW_SYNC_SRC) $(USER_CFLAGS)

RW_SIM_SRC	:= $(TOP)/tests/sim
RW_SIM_OUT	:= $(BUILD)/sim
RW_SIM		:= $(RW_SIM_OUT)/sim-staleness
RW_SIM_NAMES	:= sim-main sim-run sim-model sim-profile
RW_SIM_PURE	:= $(patsubst %,$(RW_SIM_OUT)/%.o,$(RW_SYNC_GATE) round)
RW_SIM_OBJS	:= $(patsubst %,$(RW_SIM_OUT)/%.o,$(RW_SIM_NAMES)) $(RW_SIM_PURE)

.PHONY: sim-staleness

user-tests: $(RW_SYNC_BINS)

sim-staleness: $(RW_SIM)

$(RW_SYNC_PURE): $(RW_SYNC_OBJ)/%.o: $(RW_SYNC_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_SYNC_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_SYNC_TOBJS) $(RW_SYNC_HELP): $(RW_SYNC_OBJ)/%.o: $(RW_UT_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_SYNC_CFLAGS) $(RW_CMOCKA_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_SYNC_BINS): $(RW_UT_OUT)/%: $(RW_SYNC_OBJ)/%.o $(RW_SYNC_HELP) \
		$(RW_SYNC_PURE)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $< $(RW_SYNC_HELP) $(RW_SYNC_PURE) \
		$(RW_CMOCKA_LIBS)

# The simulator is float code in user space; the gate and round.c are shared.
$(RW_SIM_PURE): $(RW_SIM_OUT)/%.o: $(RW_SYNC_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_SYNC_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_SIM_OUT)/sim-%.o: $(RW_SIM_SRC)/sim-%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_SYNC_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_SIM): $(RW_SIM_OBJS)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -pthread -o $@ $(RW_SIM_OBJS) -lm

-include $(wildcard $(RW_SYNC_OBJ)/*.d $(RW_SIM_OUT)/*.d)
