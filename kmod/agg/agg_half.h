/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 16-bit floating point (IEEE binary16, "f16", and bfloat16, "bf16") to
 * and from f32, on the bits alone: integer code, no FPU, so the module's
 * non-FPU paths and user space share it (tests/user/test-agg-half.c,
 * tests/kunit/agg_test.c).
 *
 * Widening is exact (every 16-bit value is an f32 value; a NaN keeps its
 * sign and payload, as the top bits of the f32 payload, and an f16 NaN
 * comes out quiet, as x86's VCVTPH2PS makes it). Narrowing rounds
 * to nearest, ties to even, as IEEE 754's default and the conversions of
 * PyTorch and of the CPUs' instructions (VCVTPS2PH with imm 0,
 * VCVTNEPS2BF16) do: a value past the largest finite one that rounds up
 * becomes infinity, one below half the smallest subnormal becomes a zero
 * of its sign, and a NaN stays a NaN, quiet, its sign and the top bits of
 * its payload kept.
 */
#ifndef _RW_AGG_HALF_H
#define _RW_AGG_HALF_H

#include "compat.h"

#define RW_F32_EXP	0x7f800000U
#define RW_F32_ABS	0x7fffffffU

/* bf16 to f32: its 16 bits are the f32's top half. */
static inline u32 rw_bf16_to_f32(u16 h)
{
	return (u32)h << 16;
}

/* f32 to bf16, rounding to nearest even. */
static inline u16 rw_f32_to_bf16(u32 x)
{
	/* A NaN: quiet (the payload's top bit), never rounded to infinity. */
	if ((x & RW_F32_ABS) > RW_F32_EXP)
		return (u16)((x >> 16) | 0x40);
	/* Add just under half the dropped ulp, plus one if the kept is odd. */
	return (u16)((x + 0x7fffU + ((x >> 16) & 1)) >> 16);
}

/* f16 to f32: exact. */
static inline u32 rw_f16_to_f32(u16 h)
{
	u32 s = (u32)(h & 0x8000) << 16;
	u32 e = (h >> 10) & 0x1f;
	u32 m = h & 0x3ff;

	if (e == 0x1f)			/* infinity; NaN: quiet, payload kept */
		return s | RW_F32_EXP | m << 13 | (m ? 0x400000U : 0);
	if (e)				/* normal: rebias 15 to 127 */
		return s | (e + 112) << 23 | m << 13;
	if (!m)
		return s;
	/* Subnormal, m * 2^-24: normalized, 1.f * 2^(-14 - shifts). */
	e = 113;
	do {
		m <<= 1;
		e--;
	} while (!(m & 0x400));
	return s | e << 23 | (m & 0x3ff) << 13;
}

/* f32 to f16, rounding to nearest even. */
static inline u16 rw_f32_to_f16(u32 x)
{
	u32 s = (x >> 16) & 0x8000;
	u32 a = x & RW_F32_ABS;
	u32 m, q, rem, half, shift;

	if (a > RW_F32_EXP)		/* NaN: quiet, the payload's top bits */
		return (u16)(s | 0x7e00 | ((a >> 13) & 0x3ff));
	if (a >= 0x477ff000U)		/* 65520 and up round to infinity */
		return (u16)(s | 0x7c00);
	if (a >= 0x38800000U) {		/* 2^-14 and up: normal */
		a -= 112U << 23;
		a += 0xfffU + ((a >> 13) & 1);
		return (u16)(s | a >> 13);
	}
	if (a <= 0x33000000U)		/* up to 2^-25: a zero (a tie at it) */
		return (u16)s;
	/* Subnormal: the significand shifted to units of 2^-24, rounded. */
	m = (a & 0x7fffffU) | 0x800000U;
	shift = 126 - (a >> 23);	/* 14 (2^-15) to 24 (2^-25) */
	q = m >> shift;
	rem = m & ((1U << shift) - 1);
	half = 1U << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;			/* 0x400 is the smallest normal: right */
	return (u16)(s | q);
}

/*
 * @n elements between f32 and a 16-bit type (@bf16: bfloat16, else f16),
 * as the functions above do each: the box's master copy of a 16-bit
 * tensor widened from the parameters it was given, and narrowed into the
 * parameters it publishes. Bits only: callable outside FPU sections.
 */
static inline void rw_half_widen(float *dst, const u16 *src, size_t n,
				 bool bf16)
{
	size_t i;
	u32 b;

	for (i = 0; i < n; i++) {
		b = bf16 ? rw_bf16_to_f32(src[i]) : rw_f16_to_f32(src[i]);
		__builtin_memcpy(&dst[i], &b, sizeof(b));
	}
}

static inline void rw_half_narrow(u16 *dst, const float *src, size_t n,
				  bool bf16)
{
	size_t i;
	u32 b;

	for (i = 0; i < n; i++) {
		__builtin_memcpy(&b, &src[i], sizeof(b));
		dst[i] = bf16 ? rw_f32_to_bf16(b) : rw_f32_to_f16(b);
	}
}

#endif /* _RW_AGG_HALF_H */
