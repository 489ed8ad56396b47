/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the aggregation kernels need from their environment and get
 * differently in the module and in user space: FPU sections, CPU feature
 * checks, a clock for the selection benchmark, and static_assert. Included only by the
 * float-free parts of kmod/agg (selection and glue), never by a file built
 * with SIMD flags: a feature check compiled with -mavx2 could itself use
 * AVX2 on a CPU that lacks it.
 */
#ifndef _RW_AGG_ARCH_H
#define _RW_AGG_ARCH_H

#include "compat.h"

#ifdef __KERNEL__

#include <linux/build_bug.h>
#include <linux/ktime.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>

/*
 * kernel_fpu_begin() disables preemption and resets MXCSR to its default
 * (round to nearest, no flush-to-zero), so kernel and user space round
 * alike and sums are bit-identical in both.
 */
static inline void rw_agg_fpu_begin(void)
{
	kernel_fpu_begin();
}

static inline void rw_agg_fpu_end(void)
{
	kernel_fpu_end();
}

/* As lib/raid6 and arch/x86/crypto: the CPU flag and the OS-enabled state. */
static inline bool rw_agg_cpu_avx2(void)
{
	return boot_cpu_has(X86_FEATURE_AVX) &&
	       boot_cpu_has(X86_FEATURE_AVX2) &&
	       boot_cpu_has(X86_FEATURE_FMA) &&
	       boot_cpu_has(X86_FEATURE_F16C) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL);
}

static inline bool rw_agg_cpu_avx512(void)
{
	return rw_agg_cpu_avx2() &&
	       boot_cpu_has(X86_FEATURE_AVX512F) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
				 XFEATURE_MASK_AVX512, NULL);
}

static inline u64 rw_agg_now_ns(void)
{
	return ktime_get_ns();
}

#else /* user space */

#include <assert.h>
#include <time.h>

static inline void rw_agg_fpu_begin(void)
{
}

static inline void rw_agg_fpu_end(void)
{
}

/* libgcc's checks include the OS-enabled state (XGETBV) for AVX/AVX-512. */
static inline bool rw_agg_cpu_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx") &&
	       __builtin_cpu_supports("avx2") &&
	       __builtin_cpu_supports("fma") &&
	       __builtin_cpu_supports("f16c");
}

static inline bool rw_agg_cpu_avx512(void)
{
	return rw_agg_cpu_avx2() && __builtin_cpu_supports("avx512f");
}

static inline u64 rw_agg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

#endif /* __KERNEL__ */

#endif /* _RW_AGG_ARCH_H */
