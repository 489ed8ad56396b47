# SPDX-License-Identifier: GPL-2.0
# path-bench: one trial of scripts/bench-path (tests/bench/path-bench.sh),
# through the module (librackweave) or through the user-space reference,
# which runs the module's own kmod/agg sources (build/agg/librwagg.a).
# Built with the VM test programs, since it runs in the guest. Included
# after kmod/agg/agg.mk.

RW_PATH_BENCH	:= $(BUILD)/tests/bench/path-bench

vm-tests: $(RW_PATH_BENCH)

$(RW_PATH_BENCH): tests/bench/path-bench.c $(RW_LIB_A) $(RW_AGG_A) \
		$(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(RW_AGG_CFLAGS) -o $@ $< $(RW_LIB_A) \
		$(RW_AGG_A) $(USER_LDFLAGS) -pthread -lnuma -lm
