#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The smallest two-VM test, for scripts/check's check of a pair's rerun
# (cluster_retry_check): each side sees the other start. It lies below
# tests/cluster/ so that the suite does not run it as a test of its own.
RW_TEST_NAME=cluster-pair-$RW_ROLE
. "$(dirname "$0")/../../vm/lib.sh"

if [ "$RW_ROLE" = box ]; then
	touch "$RW_OUT/up"
	t_ok "the worker VM started" rw_await worker up
else
	touch "$RW_OUT/up"
	t_ok "the box VM started" rw_await box up
fi
t_done
