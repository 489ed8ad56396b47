// SPDX-License-Identifier: GPL-2.0
/*
 * AVX-512F aggregation kernels: agg_simd.h over 16-lane vectors. Built
 * with -mavx512f (agg.kbuild, agg.mk); only called once rw_agg_cpu_avx512()
 * has said yes, and in the kernel inside an FPU section. Only AVX-512F
 * instructions are needed (add, FMA, sqrt, div, streaming store, and the
 * f16 widening VCVTPH2PS).
 */
#include "agg_impl.h"
#include "agg_elem.h"

#define RW_SIMD(x)		rw_agg_avx512_##x
#define RW_VL			16
#define RW_V			float __attribute__((__vector_size__(64)))
/* Lane-wise, all lanes, rounding from MXCSR (_MM_FROUND_CUR_DIRECTION). */
#define RW_VSQRT(v)		__builtin_ia32_sqrtps512_mask(v, v, 0xffff, 4)
#define RW_V8			float __attribute__((__vector_size__(32)))
#define RW_VSTREAM(p, v)	__builtin_ia32_movntps512(p, v)
#define RW_VCVTPH(h)		__builtin_ia32_vcvtph2ps512_mask(h, (RW_V) { 0 }, \
								 0xffff, 4)
#define RW_VCVTPS2PH(v)		__builtin_ia32_vcvtps2ph512_mask(v, 0, \
								 (RW_VHS) { 0 }, \
								 0xffff)
/*
 * One vector at a time (the streaming copy of W <= 2), two 256-bit
 * streaming stores drain faster than one 512-bit store on this host
 * (docs/performance.md); blocks of four keep the 512-bit store.
 */
#define RW_VSTREAM1(p, v)	rw_agg_avx512_stream_halves(p, v)

static __always_inline void rw_agg_avx512_stream_halves(float *p, RW_V v)
{
	RW_V8 lo, hi;

	__builtin_memcpy(&lo, &v, sizeof(lo));
	__builtin_memcpy(&hi, (char *)&v + sizeof(lo), sizeof(hi));
	__builtin_ia32_movntps256(p, lo);
	__builtin_ia32_movntps256(p + 8, hi);
}

#include "agg_simd.h"
