// SPDX-License-Identifier: GPL-2.0
/*
 * AVX2 + FMA aggregation kernels: agg_simd.h over 8-lane vectors, f16
 * slots widened by F16C. Built with -mavx2 -mfma -mf16c (agg.kbuild,
 * agg.mk); only called once rw_agg_cpu_avx2() has said yes, and in the
 * kernel inside an FPU section.
 */
#include "agg_impl.h"

#define RW_SIMD(x)		rw_agg_avx2_##x
#define RW_VL			8
#define RW_V			float __attribute__((__vector_size__(32)))
#define RW_VSQRT(v)		__builtin_ia32_sqrtps256(v)
#define RW_VSTREAM(p, v)	__builtin_ia32_movntps256(p, v)
#define RW_VCVTPH(h)		__builtin_ia32_vcvtph2ps256(h)
#define RW_VCVTPS2PH(v)		__builtin_ia32_vcvtps2ph256(v, 0)

#include "agg_simd.h"
