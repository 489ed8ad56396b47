# SPDX-License-Identifier: GPL-2.0
#
# cmocka tests of librackweave and rwctl, included by the top Makefile after
# lib/lib.mk and tools/rwctl/rwctl.mk.
#
#   user-tests      build build/tests/user/test-* (each prints TAP)
#   run-user-tests  build and run them all; fails if any test fails
#
# scripts/check runs every executable build/tests/user/test-* and counts
# its top-level "ok" / "not ok" lines; objects stay in obj/ beside them.

RW_UT_OUT	:= $(BUILD)/tests/user
RW_UT_OBJ	:= $(RW_UT_OUT)/obj
RW_UT_SRC	:= $(TOP)/tests/user
# lib/lib.mk and tools/rwctl/rwctl.mk name more tests of their own in
# RW_UT_LIB_NAMES (test-lib-*, linked by lib/lib.mk) and RW_UT_RWCTL_NAMES
# (test-rwctl-*).
RW_UT_NAMES	:= test-lib test-rwctl-cli test-rwctl-print test-rwctl-genl \
		   test-rwctl-job $(RW_UT_LIB_NAMES) $(RW_UT_RWCTL_NAMES)
RW_UT_BINS	:= $(addprefix $(RW_UT_OUT)/,$(RW_UT_NAMES))
RW_UT_HELPERS	:= $(RW_UT_OBJ)/rwtest.o $(RW_UT_OBJ)/jsoncheck.o

RW_CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka)
RW_CMOCKA_LIBS	 := $(shell pkg-config --libs cmocka)

RW_UT_CFLAGS	:= $(RW_USER_CPPFLAGS) -I$(TOP)/tools/rwctl $(USER_CFLAGS) \
		   $(RW_NL_CFLAGS) $(RW_CMOCKA_CFLAGS) \
		   -DRW_TEST_LIBDIR='"$(RW_LIB_OUT)"'

.PHONY: user-tests run-user-tests

user-tests: $(RW_UT_BINS)

run-user-tests: user-tests
	$(Q)$(RW_UT_SRC)/run-tests $(RW_UT_OUT)

$(RW_UT_OBJ)/%.o: $(RW_UT_SRC)/%.c $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_UT_CFLAGS) -MMD -MP -c -o $@ $<

# The library's ioctl() and open() are redirected to the test's wrappers,
# which only works when its objects are linked in statically. lib/lib.mk
# links its own test-lib-* tests, which wrap more.
$(RW_UT_OUT)/test-lib: $(RW_UT_OBJ)/test-lib.o $(RW_LIB_A) $(RW_LIB_SO)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -Wl,--wrap=ioctl,--wrap=open -o $@ \
		$(RW_UT_OBJ)/test-lib.o $(RW_LIB_A) $(RW_CMOCKA_LIBS) -ldl

$(RW_UT_OUT)/test-rwctl-%: $(RW_UT_OBJ)/test-rwctl-%.o $(RW_UT_HELPERS) \
		$(RW_RWCTL_LIB) $(RW_LIB_A)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $< $(RW_UT_HELPERS) $(RW_RWCTL_LIB) \
		$(RW_LIB_A) $(RW_NL_LIBS) $(RW_CMOCKA_LIBS)

# Objects reached only through pattern rules would count as intermediate
# and be deleted after every build.
.SECONDARY: $(RW_UT_HELPERS) $(patsubst %,$(RW_UT_OBJ)/%.o,$(RW_UT_NAMES))

-include $(wildcard $(RW_UT_OBJ)/*.d)
