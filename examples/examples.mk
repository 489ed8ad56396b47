# SPDX-License-Identifier: GPL-2.0
#
# The example trainer and its single-process reference, included by the
# top Makefile after kmod/agg/agg.mk (whose librwagg.a the reference links).
#
#   examples   build/examples/softmax-trainer  (links librackweave.a)
#              build/examples/digits.bin       (digits-export.py --shuffle 1)
#              build/tests/vm/softmax-ref      (links kmod/agg and kmod/chunk/layout.c natively)
#
# The model code is built with -ffp-contract=off: the trainers on the box
# and the reference must compute the same bits (see examples/softmax.h).

RW_EX_SRC	:= $(TOP)/examples
RW_EX_OUT	:= $(BUILD)/examples
RW_EX_TRAINER	:= $(RW_EX_OUT)/softmax-trainer
RW_EX_REF	:= $(BUILD)/tests/vm/softmax-ref
RW_EX_DIGITS	:= $(RW_EX_OUT)/digits.bin
RW_EX_MPL	:= $(BUILD)/mplconfig/fontlist.stamp
RW_EX_FPFLAGS	:= -ffp-contract=off
RW_EX_CFLAGS	:= $(RW_USER_CPPFLAGS) $(USER_CFLAGS) $(RW_EX_FPFLAGS)

.PHONY: examples

examples: $(RW_EX_TRAINER) $(RW_EX_REF) $(RW_EX_DIGITS) $(RW_EX_MPL)

vm-tests: $(RW_EX_REF) $(RW_EX_DIGITS) $(RW_EX_MPL)

# The digits as the PyTorch demo and tests/vm/torch.sh read them, made on
# the host: importing sklearn in a TCG guest takes most of a minute.
$(RW_EX_DIGITS): $(RW_EX_SRC)/digits-export.py
	@mkdir -p $(@D)
	$(call rw_msg,GEN,$@)
	$(Q)/usr/bin/python3 $< $@ --shuffle 1 >/dev/null

# matplotlib's font cache, built once on the host: a guest copies it into
# a writable MPLCONFIGDIR instead of spending half a minute building it.
$(RW_EX_MPL):
	@mkdir -p $(@D)
	$(call rw_msg,GEN,$@)
	$(Q)MPLCONFIGDIR=$(@D) /usr/bin/python3 -c 'import matplotlib.font_manager' && touch $@

$(RW_EX_OUT)/%.o: $(RW_EX_SRC)/%.c $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_EX_CFLAGS) -MMD -MP -c -o $@ $<

$(RW_EX_TRAINER): $(RW_EX_OUT)/softmax-trainer.o $(RW_EX_OUT)/softmax.o \
		$(RW_EX_OUT)/softmax-buf.o $(RW_LIB_A)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $(filter %.o,$^) $(RW_LIB_A) \
		$(RW_LIB_LIBS) -lm

# The reference sees the pure aggregation headers, as the agg tests do.
$(RW_EX_OUT)/softmax-ref.o: $(TOP)/tests/vm/softmax-ref.c
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) -I$(RW_EX_SRC) -I$(TOP)/kmod -I$(RW_AGG_SRC) $(USER_CFLAGS) \
		$(RW_EX_FPFLAGS) -MMD -MP -c -o $@ $<

# It places the model and cuts its 16-bit runs with the module's own layout.c.
$(RW_EX_REF): $(RW_EX_OUT)/softmax-ref.o $(RW_EX_OUT)/softmax.o \
		$(RW_CHUNK_OBJ)/layout.o $(RW_AGG_A)
	@mkdir -p $(@D)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $(filter %.o,$^) $(RW_AGG_A) -lm

-include $(wildcard $(RW_EX_OUT)/*.d)
