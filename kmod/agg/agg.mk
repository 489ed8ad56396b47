# SPDX-License-Identifier: GPL-2.0
# User-space build of kmod/agg pure sources (included by the top Makefile
# after tests/user/user.mk, whose RW_UT_* and RW_CMOCKA_* it uses).
#
#   agg         build/agg/librwagg.a: the aggregation kernels, built natively
#   user-tests  also builds build/tests/user/test-agg-* (cmocka, TAP)
#   bench-agg   build/bench/bench-agg, run by scripts/bench-agg
#
# The per-file flags mirror kmod/agg/agg.kbuild, so the code tested and timed
# here is the code the module runs. agg.c is the kernel glue and is not
# built here.

RW_AGG_SRC	:= $(TOP)/kmod/agg
RW_AGG_OUT	:= $(BUILD)/agg
RW_AGG_A	:= $(RW_AGG_OUT)/librwagg.a
RW_AGG_NAMES	:= agg_select agg_optim agg_scalar agg_avx2 agg_avx512
RW_AGG_OBJS	:= $(patsubst %,$(RW_AGG_OUT)/%.o,$(RW_AGG_NAMES))
RW_AGG_CFLAGS	:= -I$(TOP)/kmod -I$(RW_AGG_SRC) $(USER_CFLAGS)

RW_AGG_FPU		:= -fno-math-errno
RW_AGG_FLAGS_agg_select	:=
RW_AGG_FLAGS_agg_optim	:= $(RW_AGG_FPU)
RW_AGG_FLAGS_agg_scalar	:= $(RW_AGG_FPU) -fno-tree-vectorize
RW_AGG_FLAGS_agg_avx2	:= $(RW_AGG_FPU) -mavx -mavx2 -mfma -mf16c
RW_AGG_FLAGS_agg_avx512	:= $(RW_AGG_FPU) -mavx -mavx2 -mfma -mf16c -mavx512f

RW_AGG_TEST_NAMES := test-agg-sum test-agg-optim test-agg-average test-agg-half
RW_AGG_TESTS	:= $(addprefix $(RW_UT_OUT)/,$(RW_AGG_TEST_NAMES))
RW_AGG_TEST_HELPER := $(RW_UT_OBJ)/aggtest.o

RW_AGG_BENCH_OUT := $(BUILD)/bench
RW_AGG_BENCH	:= $(RW_AGG_BENCH_OUT)/bench-agg
RW_AGG_BENCH_SRC := $(TOP)/tests/bench
RW_AGG_BENCH_OBJS := $(addprefix $(RW_AGG_BENCH_OUT)/,bench-agg.o \
		     bench-agg-pool.o bench-agg-bound.o)

.PHONY: agg bench-agg

agg: $(RW_AGG_A)

user-tests: $(RW_AGG_TESTS)

bench-agg: $(RW_AGG_BENCH)

$(RW_AGG_OUT)/%.o: $(RW_AGG_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_AGG_CFLAGS) $(RW_AGG_FLAGS_$*) -MMD -MP -c -o $@ $<

$(RW_AGG_A): $(RW_AGG_OBJS)
	$(call rw_msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The tests see the pure headers; user.mk's pattern rule compiles them.
$(RW_UT_OBJ)/test-agg-%.o $(RW_AGG_TEST_HELPER): \
	RW_UT_CFLAGS += -I$(TOP)/kmod -I$(RW_AGG_SRC)

# test-agg-half also holds the library's restatement (lib/half.c) to them.
$(RW_UT_OUT)/test-agg-half: $(RW_LIB_A)
$(RW_UT_OUT)/test-agg-half: RW_AGG_TEST_LIBS = $(RW_LIB_A)

$(RW_UT_OUT)/test-agg-%: $(RW_UT_OBJ)/test-agg-%.o $(RW_AGG_TEST_HELPER) \
		$(RW_AGG_A)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $< $(RW_AGG_TEST_HELPER) $(RW_AGG_A) \
		$(RW_AGG_TEST_LIBS) $(RW_CMOCKA_LIBS) -lm

# The bench's bound loops pick their ISA per function (target attributes).
$(RW_AGG_BENCH_OUT)/%.o: $(RW_AGG_BENCH_SRC)/%.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_AGG_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_AGG_BENCH): $(RW_AGG_BENCH_OBJS) $(RW_AGG_A)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -pthread -o $@ $(RW_AGG_BENCH_OBJS) \
		$(RW_AGG_A) -lm

.SECONDARY: $(RW_AGG_OBJS) $(RW_AGG_TEST_HELPER) $(RW_AGG_BENCH_OBJS) \
	$(patsubst %,$(RW_UT_OBJ)/%.o,$(RW_AGG_TEST_NAMES))

-include $(wildcard $(RW_AGG_OUT)/*.d $(RW_AGG_BENCH_OUT)/*.d)
