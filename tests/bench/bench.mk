# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks, included by the top Makefile after kmod/agg/agg.mk.
#
#   bench          every benchmark (scripts/bench): bench-agg, sim-staleness,
#                  bench-path and bench-boxes when present, bench-wire;
#                  build/bench/report.md
#                  with tables and plots, each benchmark's JSON beside it.
#                  QUICK=1: every benchmark in its quick form
#
# bench-agg's report (bench-agg-report.c) is linked here: kmod/agg/agg.mk
# lists the objects it builds from tests/bench/ with the kernels' flags,
# and its link recipe reads RW_AGG_BENCH_OBJS when it runs.

RW_AGG_BENCH_REPORT := $(RW_AGG_BENCH_OUT)/bench-agg-report.o
RW_AGG_BENCH_OBJS += $(RW_AGG_BENCH_REPORT)

$(RW_AGG_BENCH): $(RW_AGG_BENCH_REPORT)

.SECONDARY: $(RW_AGG_BENCH_REPORT)

QUICK ?=

.PHONY: bench

bench:
	$(Q)$(TOP)/scripts/bench $(if $(filter 1,$(QUICK)),--quick)
