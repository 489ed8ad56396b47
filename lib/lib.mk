# SPDX-License-Identifier: GPL-2.0
#
# librackweave, included by the top Makefile (which sets TOP, BUILD, CC, Q,
# USER_CFLAGS, USER_LDFLAGS, PREFIX, DESTDIR).
#
#   lib            build/lib/librackweave.so.$(RW_VERSION) (+ .so.0, .so links),
#                  build/lib/librackweave.a, build/lib/rackweave.pc
#   install-lib    library, headers, pkg-config file (rackweave.pc, so
#                  `pkg-config rackweave`), man pages (3 and 7)
#   uninstall-lib  removes them
#
# The installed header is <rackweave.h>; it includes the uapi header as
# <rackweave/uapi.h>. In the tree that path is served from build/include, and
# RW_USER_CPPFLAGS must come before USER_CFLAGS so that <rackweave.h> finds
# lib/include/rackweave.h rather than uapi/rackweave.h.

RW_LIB_VERSION	:= $(RW_VERSION)
RW_LIB_SONAME	:= librackweave.so.0
RW_LIB_OUT	:= $(BUILD)/lib
RW_LIB_SO	:= $(RW_LIB_OUT)/librackweave.so.$(RW_LIB_VERSION)
RW_LIB_A	:= $(RW_LIB_OUT)/librackweave.a
RW_LIB_PC	:= $(RW_LIB_OUT)/rackweave.pc
RW_LIB_MAP	:= $(TOP)/lib/librackweave.map
RW_LIB_NAMES	:= ctx attach model map xfer token numa error crc32c ckpt checkpoint \
		   half
RW_LIB_OBJS	:= $(patsubst %,$(RW_LIB_OUT)/%.o,$(RW_LIB_NAMES))
# What the library needs from others; also Libs.private in rackweave.pc.
RW_LIB_LIBS	:= -lnuma -pthread
RW_UAPI_COPY	:= $(BUILD)/include/rackweave/uapi.h
RW_LIB_MAN3	:= $(wildcard $(TOP)/man/man3/*.3)
RW_LIB_MAN7	:= $(TOP)/man/man7/librackweave.7

RW_USER_CPPFLAGS := -I$(TOP)/lib/include -I$(BUILD)/include

LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
AR		?= ar

# $(call rw_msg,TAG,file): a kbuild-style progress line unless V=1.
rw_msg = $(if $(Q),@printf '  %-8s %s\n' '$(1)' '$(patsubst $(TOP)/%,%,$(2))',@:)

rw_pc_subst = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(RW_LIB_VERSION)|g' \
	-e 's|@LIBS_PRIVATE@|$(RW_LIB_LIBS)|g'

.PHONY: lib install-lib uninstall-lib install-user uninstall-user rw-force

lib: $(RW_LIB_SO) $(RW_LIB_OUT)/librackweave.so.0 $(RW_LIB_OUT)/librackweave.so \
	$(RW_LIB_A) $(RW_LIB_PC)

$(RW_UAPI_COPY): $(TOP)/uapi/rackweave.h
	@mkdir -p $(@D)
	$(Q)cp $< $@

# Position-independent objects serve both the shared and the static library.
$(RW_LIB_OUT)/%.o: $(TOP)/lib/%.c $(RW_UAPI_COPY)
	@mkdir -p $(@D)
	$(call rw_msg,CC,$@)
	$(Q)$(CC) $(RW_USER_CPPFLAGS) $(USER_CFLAGS) -pthread -fPIC -MMD -MP -c -o $@ $<

$(RW_LIB_SO): $(RW_LIB_OBJS) $(RW_LIB_MAP)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(RW_LIB_SONAME) \
		-Wl,--version-script=$(RW_LIB_MAP) -Wl,--no-undefined \
		$(USER_LDFLAGS) -o $@ $(RW_LIB_OBJS) $(RW_LIB_LIBS)

$(RW_LIB_OUT)/librackweave.so.0: $(RW_LIB_SO)
	$(Q)ln -sf $(notdir $<) $@

$(RW_LIB_OUT)/librackweave.so: $(RW_LIB_OUT)/librackweave.so.0
	$(Q)ln -sf $(notdir $<) $@

$(RW_LIB_A): $(RW_LIB_OBJS)
	$(call rw_msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Regenerated on every run but only replaced when PREFIX or LIBDIR changed.
$(RW_LIB_PC): $(TOP)/lib/rackweave.pc.in rw-force
	@mkdir -p $(@D)
	$(Q)$(rw_pc_subst) $< > $@.tmp && \
		if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

rw-force:

install-lib: lib
	$(Q)install -d $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/rackweave $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man7
	$(Q)install -m 0755 $(RW_LIB_SO) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sf $(notdir $(RW_LIB_SO)) $(DESTDIR)$(LIBDIR)/librackweave.so.0
	$(Q)ln -sf librackweave.so.0 $(DESTDIR)$(LIBDIR)/librackweave.so
	$(Q)install -m 0644 $(RW_LIB_A) $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 0644 $(TOP)/lib/include/rackweave.h $(DESTDIR)$(INCLUDEDIR)/
	$(Q)install -m 0644 $(TOP)/uapi/rackweave.h \
		$(DESTDIR)$(INCLUDEDIR)/rackweave/uapi.h
	$(Q)$(rw_pc_subst) $(TOP)/lib/rackweave.pc.in > \
		$(DESTDIR)$(LIBDIR)/pkgconfig/rackweave.pc
	$(Q)install -m 0644 $(RW_LIB_MAN3) $(DESTDIR)$(MANDIR)/man3/
	$(Q)install -m 0644 $(RW_LIB_MAN7) $(DESTDIR)$(MANDIR)/man7/

install-user: install-lib

uninstall-lib:
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(RW_LIB_SO)) $(DESTDIR)$(LIBDIR)/librackweave.so.0 \
		$(DESTDIR)$(LIBDIR)/librackweave.so $(DESTDIR)$(LIBDIR)/librackweave.a \
		$(DESTDIR)$(LIBDIR)/pkgconfig/rackweave.pc \
		$(DESTDIR)$(INCLUDEDIR)/rackweave.h $(DESTDIR)$(INCLUDEDIR)/rackweave/uapi.h \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(RW_LIB_MAN3))) \
		$(DESTDIR)$(MANDIR)/man7/librackweave.7
	-rmdir $(DESTDIR)$(INCLUDEDIR)/rackweave 2>/dev/null

uninstall-user: uninstall-lib

-include $(RW_LIB_OBJS:.o=.d)

# cmocka tests of the library. Each includes tests/user/test-lib-mock.c,
# which scripts the module's ioctls and also stands in for mmap, munmap,
# poll and libnuma; the older tests/user/test-lib wraps only ioctl and
# open, so the extra wraps are given to these targets alone.
RW_UT_LIB_NAMES	:= test-lib-token test-lib-job test-lib-map test-lib-xfer \
		   test-lib-async test-lib-numa test-lib-threads test-lib-api \
		   test-lib-ckpt test-lib-checkpoint
RW_UT_LIB_BINS	:= $(patsubst %,$(BUILD)/tests/user/%,$(RW_UT_LIB_NAMES))
RW_UT_LIB_LIBS	:= -lnuma -pthread
RW_UT_LIB_NUMA	:= --wrap=numa_available,--wrap=numa_run_on_node,--wrap=numa_set_preferred
$(RW_UT_LIB_BINS): RW_UT_LIB_WRAP := ,--wrap=mmap,--wrap=munmap,--wrap=poll,$(RW_UT_LIB_NUMA)

$(RW_UT_LIB_BINS): $(BUILD)/tests/user/%: $(BUILD)/tests/user/obj/%.o \
		$(RW_LIB_A) $(RW_LIB_SO)
	$(call rw_msg,LD,$@)
	$(Q)$(CC) $(USER_LDFLAGS) -Wl,--wrap=ioctl,--wrap=open$(RW_UT_LIB_WRAP) \
		-o $@ $< $(RW_LIB_A) $(RW_UT_LIB_LIBS) $(RW_CMOCKA_LIBS) -ldl
