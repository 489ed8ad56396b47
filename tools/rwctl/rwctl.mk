# SPDX-License-Identifier: GPL-2.0
#
# rwctl, included by the top Makefile after lib/lib.mk.
#
#   rwctl          build/rwctl (librackweave linked statically, so the
#                  binary runs from the tree without LD_LIBRARY_PATH)
#   install-rwctl  binary, rwctl(8), bash completion
#   uninstall-rwctl  removes them
#
# Everything except main.c also goes into build/tools/rwctl/librwctl.a, which
# the tests link to drive rwctl_run() and the printers without main().

RW_RWCTL_OUT	:= $(BUILD)/tools/rwctl
RW_RWCTL_BIN	:= $(BUILD)/rwctl
RW_RWCTL_LIB	:= $(RW_RWCTL_OUT)/librwctl.a
RW_RWCTL_SRCS	:= backend.c boxes.c boxes-genl.c ckpt.c ckpt-dev.c cli.c cmd.c dev.c genl.c job.c job-args.c \
		   job-genl.c listen.c listen-genl.c monitor.c monitor-genl.c policy.c print.c \
		   stats.c stats-genl.c stats-set.c stats-sum.c json.c status.c status-genl.c topo.c \
		   topo-genl.c
RW_RWCTL_OBJS	:= $(addprefix $(RW_RWCTL_OUT)/,$(RW_RWCTL_SRCS:.c=.o))
RW_RWCTL_MAIN	:= $(RW_RWCTL_OUT)/main.o

RW_NL_CFLAGS	:= $(shell pkg-config --cflags libnl-genl-3.0)
RW_NL_LIBS	:= $(shell pkg-config --libs libnl-genl-3.0)

BINDIR		?= $(PREFIX)/bin
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions

.PHONY: rwctl install-rwctl uninstall-rwctl

rwctl: $(RW_RWCTL_BIN)

$(RW_RWCTL_OUT)/%.o: $(TOP)/tools/rwctl/%.c $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) $(RW_NL_CFLAGS) -MMD -MP \
		-c -o $@ $<

$(RW_RWCTL_LIB): $(RW_RWCTL_OBJS)
	$(call rw_msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(RW_RWCTL_BIN): $(RW_RWCTL_MAIN) $(RW_RWCTL_LIB) $(RW_LIB_A)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -o $@ $(RW_RWCTL_MAIN) $(RW_RWCTL_LIB) \
		$(RW_LIB_A) $(RW_NL_LIBS)

install-rwctl: rwctl
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR)
	$(Q)install -m 0755 $(RW_RWCTL_BIN) $(DESTDIR)$(BINDIR)/rwctl
	$(Q)install -m 0644 $(TOP)/tools/rwctl/rwctl.8 $(DESTDIR)$(MANDIR)/man8/
	$(Q)install -m 0644 $(TOP)/tools/rwctl/rwctl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/rwctl

install-user: install-rwctl

uninstall-rwctl:
	rm -f $(DESTDIR)$(BINDIR)/rwctl $(DESTDIR)$(MANDIR)/man8/rwctl.8 \
		$(DESTDIR)$(BASHCOMPDIR)/rwctl

uninstall-user: uninstall-rwctl

-include $(RW_RWCTL_OBJS:.o=.d) $(RW_RWCTL_MAIN:.o=.d)

# Tests of the commands added after the first four (user.mk names those).
RW_UT_RWCTL_NAMES := test-rwctl-policy test-rwctl-topo test-rwctl-stats \
		     test-rwctl-monitor test-rwctl-listen test-rwctl-quorum \
		     test-rwctl-ckpt test-rwctl-boxes test-rwctl-stats-sum \
		     test-rwctl-json
