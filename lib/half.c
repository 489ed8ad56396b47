// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * 16-bit tensors to and from float, for trainers that keep a 16-bit
 * model in the job's buffers (RW_DTYPE_F16, RW_DTYPE_BF16): widening is
 * exact, narrowing rounds to nearest, ties to even, as the box does when
 * it publishes a 16-bit tensor's parameters, so a trainer that narrows
 * its gradients here sends the bits the box's reference expects.
 *
 * The box's conversions (kmod/agg/agg_half.h) are GPL-2.0 only; they are
 * restated here, as model.c restates the layout rule, so that programs
 * linking this library keep the MIT choice. tests/user/test-lib-half.c
 * holds both to the same bits on every 16-bit value and on f32 values
 * around every rounding edge.
 */
#include <errno.h>
#include <string.h>

#include "model.h"

#define RW_F32_INF	0x7f800000u
#define RW_F32_ABS	0x7fffffffu

static uint32_t rw_float_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

static float rw_bits_float(uint32_t b)
{
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

/* f16 to f32 bits: exact; a NaN comes out quiet, its payload kept. */
static uint32_t rw_f16_widen(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31;
	uint32_t exp = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
	int e;

	if (exp == 0x1f)
		return sign | RW_F32_INF | frac << 13 |
		       (frac ? 0x400000u : 0);
	if (exp)
		return sign | (exp - 15 + 127) << 23 | frac << 13;
	if (!frac)
		return sign;
	/* frac * 2^-24: shift the leading one up to bit 10. */
	for (e = -14; !(frac & 0x400u); e--)
		frac <<= 1;
	return sign | (uint32_t)(e + 127) << 23 | (frac & 0x3ffu) << 13;
}

/* f32 bits to f16, to nearest even. */
static uint16_t rw_f16_narrow(uint32_t x)
{
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t a = x & RW_F32_ABS, frac, keep, rest, half;
	int exp = (int)(a >> 23) - 127;
	unsigned int drop;

	if (a > RW_F32_INF)
		return sign | 0x7e00u | ((a >> 13) & 0x3ffu);
	if (exp > 15)
		return sign | 0x7c00u;
	frac = (a & 0x7fffffu) | (a >= 0x800000u ? 0x800000u : 0);
	/* Bits below the f16's last place: 13 for normals, more below. */
	drop = exp >= -14 ? 13 : (unsigned int)(13 + (-14 - exp));
	if (drop > 24)
		return sign;
	keep = frac >> drop;
	rest = frac & ((1u << drop) - 1);
	half = 1u << (drop - 1);
	if (rest > half || (rest == half && (keep & 1)))
		keep++;
	if (exp >= -14)		/* normal: the implicit one carries the exponent */
		return sign | (uint16_t)(((uint32_t)(exp + 14) << 10) + keep);
	return sign | (uint16_t)keep;	/* subnormal, or the smallest normal */
}

static uint16_t rw_bf16_narrow(uint32_t x)
{
	if ((x & RW_F32_ABS) > RW_F32_INF)
		return (uint16_t)((x >> 16) | 0x40u);
	return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/*
 * What converting @n elements of @dtype takes: -EINVAL for an unknown
 * type, 1 for f32 (copied here, nothing left to do), 0 for a 16-bit one.
 */
static int rw_dtype_copy(void *dst, const void *src, size_t n, uint32_t dtype)
{
	if (dtype == RW_DTYPE_F32) {
		memmove(dst, src, n * sizeof(float));
		return 1;
	}
	return dtype == RW_DTYPE_F16 || dtype == RW_DTYPE_BF16 ? 0 : -EINVAL;
}

int rw_dtype_to_float(float *dst, const void *src, size_t n, uint32_t dtype)
{
	const uint16_t *h = src;
	int ret = rw_dtype_copy(dst, src, n, dtype);
	size_t i;

	if (ret)
		return ret < 0 ? ret : 0;
	for (i = 0; i < n; i++)
		dst[i] = rw_bits_float(dtype == RW_DTYPE_BF16 ?
				       (uint32_t)h[i] << 16 :
				       rw_f16_widen(h[i]));
	return 0;
}

int rw_dtype_from_float(void *dst, const float *src, size_t n,
			uint32_t dtype)
{
	uint16_t *h = dst;
	int ret = rw_dtype_copy(dst, src, n, dtype);
	size_t i;

	if (ret)
		return ret < 0 ? ret : 0;
	for (i = 0; i < n; i++) {
		uint32_t b = rw_float_bits(src[i]);

		h[i] = dtype == RW_DTYPE_BF16 ? rw_bf16_narrow(b) :
						rw_f16_narrow(b);
	}
	return 0;
}
