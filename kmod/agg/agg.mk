# SPDX-License-Identifier: GPL-2.0
# User-space build of kmod/agg pure sources (included by the top Makefile).
