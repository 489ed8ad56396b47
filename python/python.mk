# SPDX-License-Identifier: GPL-2.0
#
# The rackweave Python package (python/rackweave), pure Python over
# librackweave through ctypes: nothing to build. From the build tree it
# runs with PYTHONPATH=python (it finds build/lib/librackweave.so.0 and
# build/rwctl itself); `make install-python` (part of install-user) puts it where Debian's
# /usr/bin/python3 looks: $(PREFIX)/lib/python3.X/dist-packages, or
# /usr/lib/python3/dist-packages for PREFIX=/usr. PYTHONDIR overrides.
# install-user and uninstall-user include it.

RW_PY_VER	:= $(shell /usr/bin/python3 -c 'import sys; print("3.%d" % sys.version_info[1])' 2>/dev/null)
PYTHONDIR	?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(RW_PY_VER)/dist-packages)
RW_PY_SRC	:= $(wildcard $(TOP)/python/rackweave/*.py)

.PHONY: install-python uninstall-python

install-user: install-python
uninstall-user: uninstall-python

install-python:
	$(Q)install -d $(DESTDIR)$(PYTHONDIR)/rackweave
	$(Q)install -m 0644 $(RW_PY_SRC) $(DESTDIR)$(PYTHONDIR)/rackweave/

uninstall-python:
	rm -rf $(DESTDIR)$(PYTHONDIR)/rackweave
