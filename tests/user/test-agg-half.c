// SPDX-License-Identifier: GPL-2.0
/*
 * 16-bit conversions (kmod/agg/agg_half.h) against references of their
 * own: GCC's _Float16 (libgcc's soft conversions, round to nearest even)
 * for f16, every one of the 65536 values widened and a sweep of f32
 * values narrowed (every 16-bit value's image, the ties between
 * neighbours and one ulp either side, and a stride over all 2^32 bit
 * patterns); for bf16 the nearest of the two bf16 values around the f32
 * one, chosen in double precision. NaNs: still NaN, the sign kept, quiet
 * when narrowed. And the edge table KUnit runs too (tests/common).
 *
 * Then the kernels on 16-bit slots, every implementation this CPU runs:
 * one slot of all 65536 values sums to each value widened as above
 * (infinities, NaNs and subnormals through the vector loads), and a sum
 * and every optimizer's step give the bits the same implementation gives
 * on the slots' f32 images, for several W and lengths.
 *
 * And the library's restatement for trainers (lib/half.c,
 * rw_dtype_to_float(3)): the same bits as the header on every 16-bit
 * value and on the same sweep of f32 values.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rackweave.h>

#include "compat.h"
#include "agg_half.h"
#include "agg_impl.h"
#include "aggtest.h"
#include "../common/half_cases.h"

static u16 h_bits(_Float16 h)
{
	u16 b;

	memcpy(&b, &h, sizeof(b));
	return b;
}

static _Float16 bits_h(u16 b)
{
	_Float16 h;

	memcpy(&h, &b, sizeof(h));
	return h;
}

static bool is_nan32(u32 b)
{
	return (b & RW_F32_ABS) > RW_F32_EXP;
}

/* The reference narrowing to bf16: the nearer neighbour, ties to even. */
static u16 ref_bf16(u32 x)
{
	u32 lo = x & 0xffff0000U, hi = lo + 0x10000U;
	double v = fabs((double)aggt_from_bits(x));
	double dl = fabs((double)aggt_from_bits(lo)), dh;

	/* Past the largest finite: the next binade's start, 2^128. */
	dh = (hi & RW_F32_ABS) == RW_F32_EXP ? ldexp(1.0, 128) :
	     fabs((double)aggt_from_bits(hi));
	if (v - dl < dh - v || (v - dl == dh - v && !(lo & 0x10000U)))
		return (u16)(lo >> 16);
	return (u16)(hi >> 16);
}

static void check_f16_out(u32 x)
{
	u16 got = rw_f32_to_f16(x);
	u16 want = h_bits((_Float16)aggt_from_bits(x));

	if (is_nan32(x)) {
		assert_true((got & 0x7c00) == 0x7c00 && (got & 0x200));
		assert_int_equal(got & 0x8000, (x >> 16) & 0x8000);
		return;
	}
	if (got != want)
		fail_msg("f32 %08x to f16: %04x, want %04x", x, got, want);
}

static void check_bf16_out(u32 x)
{
	u16 got = rw_f32_to_bf16(x);

	if (is_nan32(x)) {
		assert_true((got & 0x7f80) == 0x7f80 && (got & 0x40));
		assert_int_equal(got & 0x8000, (x >> 16) & 0x8000);
		return;
	}
	if (got != ref_bf16(x))
		fail_msg("f32 %08x to bf16: %04x, want %04x", x, got,
			 ref_bf16(x));
}

/* Every f16 widened exactly; NaNs keep their sign and payload, quiet. */
static void half_f16_widen(void **state)
{
	u32 h, got, want;

	(void)state;
	for (h = 0; h < 0x10000; h++) {
		got = rw_f16_to_f32((u16)h);
		want = aggt_bits((float)bits_h((u16)h));
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
			assert_true(is_nan32(got));
			assert_int_equal(got >> 13, ((u32)h & 0x8000) << 3 |
					 0x3fc00 | (h & 0x3ff) | 0x200);
			continue;
		}
		if (got != want)
			fail_msg("f16 %04x: %08x, want %08x", h, got, want);
		/* And back again: the same 16 bits. */
		assert_int_equal(rw_f32_to_f16(got), h);
	}
}

/* Every bf16 widened is its bits shifted, and narrows back to itself. */
static void half_bf16_widen(void **state)
{
	u32 h, got;

	(void)state;
	for (h = 0; h < 0x10000; h++) {
		got = rw_bf16_to_f32((u16)h);
		assert_int_equal(got, h << 16);
		if (!is_nan32(got))
			assert_int_equal(rw_f32_to_bf16(got), h);
	}
}

/* Narrowing at every f16 value's neighbourhood and ties, and a stride. */
static void half_f16_narrow(void **state)
{
	u32 h, a, b, x;
	int d;

	(void)state;
	for (h = 0; h < 0x7c00; h++) {
		a = rw_f16_to_f32((u16)h);
		b = rw_f16_to_f32((u16)(h + 1));
		/* The tie halfway to the next (exact in f32), and around. */
		x = aggt_bits((aggt_from_bits(a) + aggt_from_bits(b)) / 2);
		for (d = -2; d <= 2; d++) {
			check_f16_out(a + (u32)d);
			check_f16_out(x + (u32)d);
			check_f16_out((a + (u32)d) | 0x80000000U);
			check_f16_out((x + (u32)d) | 0x80000000U);
		}
	}
	for (x = 0; x < 0xffffffffU - 65521; x += 65521)
		check_f16_out(x);
}

static void half_bf16_narrow(void **state)
{
	u32 h, x;
	int d;

	(void)state;
	for (h = 0; h < 0x7f80; h++) {
		/* Each bf16 value, the tie above it, and around both. */
		for (d = -2; d <= 2; d++) {
			check_bf16_out((h << 16) + (u32)d);
			check_bf16_out((h << 16) + 0x8000U + (u32)d);
			check_bf16_out(((h << 16) + 0x8000U + (u32)d) |
				       0x80000000U);
		}
	}
	for (x = 0; x < 0xffffffffU - 65521; x += 65521)
		check_bf16_out(x);
}

/* The edge table, as KUnit runs it. */
static void half_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rw_half_cases); i++) {
		const struct rw_half_case *k = &rw_half_cases[i];

		if (rw_f32_to_f16(k->f32) != k->f16 ||
		    rw_f32_to_bf16(k->f32) != k->bf16)
			fail_msg("case %zu (%08x): f16 %04x bf16 %04x, want %04x %04x",
				 i, k->f32, rw_f32_to_f16(k->f32),
				 rw_f32_to_bf16(k->f32), k->f16, k->bf16);
	}
}

/* The library's conversion of one value, both ways, against the header. */
static void check_lib(u32 x, u16 h)
{
	u16 got16[2];
	u32 got[2];
	float f[2];

	memcpy(&f[0], &x, sizeof(x));
	assert_int_equal(rw_dtype_from_float(&got16[0], f, 1, RW_DTYPE_F16), 0);
	assert_int_equal(rw_dtype_from_float(&got16[1], f, 1, RW_DTYPE_BF16),
			 0);
	if (got16[0] != rw_f32_to_f16(x) || got16[1] != rw_f32_to_bf16(x))
		fail_msg("library narrowing of %08x: f16 %04x bf16 %04x, want %04x %04x",
			 x, got16[0], got16[1], rw_f32_to_f16(x),
			 rw_f32_to_bf16(x));
	assert_int_equal(rw_dtype_to_float(&f[0], &h, 1, RW_DTYPE_F16), 0);
	assert_int_equal(rw_dtype_to_float(&f[1], &h, 1, RW_DTYPE_BF16), 0);
	memcpy(got, f, sizeof(got));
	if (got[0] != rw_f16_to_f32(h) || got[1] != rw_bf16_to_f32(h))
		fail_msg("library widening of %04x: f16 %08x bf16 %08x, want %08x %08x",
			 h, got[0], got[1], rw_f16_to_f32(h), rw_bf16_to_f32(h));
}

static void half_library(void **state)
{
	float f[3] = { 1.5f, -2.0f, 3.25f }, back[3];
	u16 h[3];
	u32 i, x;
	int d;

	(void)state;
	for (i = 0; i < 0x10000; i++) {
		x = rw_f16_to_f32((u16)i);
		for (d = -1; d <= 1; d++) {
			check_lib(x + (u32)d, (u16)i);
			check_lib(x + 0x1000U + (u32)d, (u16)i);
			check_lib((i << 16) + 0x8000U + (u32)d, (u16)i);
		}
	}
	for (x = 0; x < 0xffffffffU - 65521; x += 65521)
		check_lib(x, (u16)x);
	for (i = 0; i < ARRAY_SIZE(rw_half_cases); i++)
		check_lib(rw_half_cases[i].f32, rw_half_cases[i].f16);
	/* Arrays, f32 copied, an unknown type refused. */
	assert_int_equal(rw_dtype_from_float(h, f, 3, RW_DTYPE_BF16), 0);
	assert_int_equal(h[2], 0x4050);
	assert_int_equal(rw_dtype_to_float(back, h, 3, RW_DTYPE_BF16), 0);
	assert_memory_equal(back, f, sizeof(f));
	assert_int_equal(rw_dtype_to_float(back, f, 3, RW_DTYPE_F32), 0);
	assert_memory_equal(back, f, sizeof(f));
	assert_int_equal(rw_dtype_from_float(h, f, 3, 3), -EINVAL);
	assert_int_equal(rw_dtype_to_float(back, h, 3, 7), -EINVAL);
}

#define KW	7
#define KN	1000

static u32 lcg(u32 *s)
{
	*s = *s * 1664525U + 1013904223U;
	return *s;
}

/* Random finite values of @dtype in about [-4, 4], and their f32 images. */
static void fill_h16(u16 *h, float *f, size_t n, u32 dtype, u32 *seed)
{
	size_t i;
	u32 x;

	for (i = 0; i < n; i++) {
		/* Exponents 2^-8 .. 2^1, both signs. */
		x = (lcg(seed) & 0x807fffffU) | (119U + lcg(seed) % 10) << 23;
		h[i] = dtype == RW_AGG_BF16 ? rw_f32_to_bf16(x) :
		       rw_f32_to_f16(x);
		x = dtype == RW_AGG_BF16 ? rw_bf16_to_f32(h[i]) :
		    rw_f16_to_f32(h[i]);
		f[i] = aggt_from_bits(x);
	}
}

static void half_kernels(void **state)
{
	static const unsigned int ws[] = { 1, 2, 3, KW };
	static const unsigned int ns[] = { 1, 17, KN };
	static const u32 dts[] = { RW_AGG_F16, RW_AGG_BF16 };
	static u16 h[KW][KN];
	static float f[KW][KN], p16[KN], p32[KN], s16[2][KN], s32[2][KN];
	const struct rw_agg_impl *impl;
	const void *src16[KW], *src32[KW];
	struct rw_agg_hparams hp = { .lr = 0.05f, .momentum = 0.9f,
				     .weight_decay = 0.01f, .beta1 = 0.9f,
				     .beta2 = 0.999f, .eps = 1e-8f };
	struct rw_agg_chunk c16 = {}, c32 = {};
	struct rw_agg_step st;
	unsigned int wi, ni, di, k, o, i, m;
	u32 seed = 12345;

	(void)state;
	for (k = 0; k < KW; k++) {
		src16[k] = h[k];
		src32[k] = f[k];
	}
	for (m = 0; m < rw_agg_nimpls; m++)
	for (di = 0; di < ARRAY_SIZE(dts); di++)
	for (wi = 0; wi < ARRAY_SIZE(ws); wi++)
	for (ni = 0; ni < ARRAY_SIZE(ns); ni++) {
		impl = &rw_agg_impls[m];
		if (!impl->usable())
			continue;
		for (k = 0; k < ws[wi]; k++)
			fill_h16(h[k], f[k], ns[ni], dts[di], &seed);
		c16.src = src16;
		c32.src = src32;
		c16.nsrc = c32.nsrc = ws[wi];
		c16.n = c32.n = ns[ni];
		c16.dtype = dts[di];
		c32.dtype = RW_AGG_F32;
		c16.out = p16;
		c32.out = p32;
		assert_int_equal(rw_agg_sum(impl, &c16), 0);
		assert_int_equal(rw_agg_sum(impl, &c32), 0);
		assert_memory_equal(p16, p32, ns[ni] * sizeof(float));
		for (o = 0; o < RW_AGG_OPTIM_COUNT; o++) {
			hp.optim = o;
			assert_int_equal(rw_agg_prepare(&st, &hp, ws[wi], 3), 0);
			for (i = 0; i < ns[ni]; i++) {
				p16[i] = p32[i] = aggt_from_bits(0x3f000000U +
							 (lcg(&seed) >> 12));
				s16[0][i] = s32[0][i] = 0.01f * (float)i;
				s16[1][i] = s32[1][i] = 0.001f * (float)i;
			}
			c16.state[0] = s16[0];
			c16.state[1] = s16[1];
			c32.state[0] = s32[0];
			c32.state[1] = s32[1];
			assert_int_equal(rw_agg_update(impl, &c16, &st), 0);
			assert_int_equal(rw_agg_update(impl, &c32, &st), 0);
			assert_memory_equal(p16, p32, ns[ni] * sizeof(float));
			assert_memory_equal(s16, s32, sizeof(s16));
		}
	}
}

/* One slot of every 16-bit value: its sum is each value widened. */
static void half_widen_loads(void **state)
{
	static u16 all[0x10000];
	static float out[0x10000];
	static const u32 dts[] = { RW_AGG_F16, RW_AGG_BF16 };
	const void *src[1] = { all };
	struct rw_agg_chunk c = { .src = src, .nsrc = 1, .out = out };
	unsigned int m, di, i;
	u32 want;

	(void)state;
	for (i = 0; i < 0x10000; i++)
		all[i] = (u16)i;
	for (m = 0; m < rw_agg_nimpls; m++) {
		if (!rw_agg_impls[m].usable())
			continue;
		for (di = 0; di < ARRAY_SIZE(dts); di++) {
			c.dtype = dts[di];
			/* Whole, and from an odd element: unaligned vectors. */
			for (c.off = 0; c.off < 2; c.off++) {
				c.n = 0x10000 - c.off;
				memset(out, 0, sizeof(out));
				assert_int_equal(rw_agg_sum(&rw_agg_impls[m], &c),
						 0);
				for (i = c.off; i < 0x10000; i++) {
					want = dts[di] == RW_AGG_BF16 ?
					       rw_bf16_to_f32((u16)i) :
					       rw_f16_to_f32((u16)i);
					if (aggt_bits(out[i]) != want)
						fail_msg("%s %s %04x: %08x, want %08x",
							 rw_agg_impls[m].name,
							 di ? "bf16" : "f16", i,
							 aggt_bits(out[i]), want);
				}
			}
		}
	}
}

/*
 * Every implementation's narrowing (the published parameters of a 16-bit
 * tensor) against the header's, element for element: every 16-bit value's
 * image and the ties between neighbours, one ulp either side, both signs,
 * a stride over all 2^32 bit patterns (NaNs, infinities, f32 denormals,
 * overflow), the edge table; in blocks of odd lengths, so the vector loops
 * and the tails both run.
 */
#define NB	4099

static void half_narrow_kernels(void **state)
{
	static u32 in[NB];
	static float f[NB];
	static u16 out[NB];
	static const u32 dts[] = { RW_AGG_F16, RW_AGG_BF16 };
	unsigned int m, di, n = 0, i, j;
	u32 x, h, a, b;
	int d;

	(void)state;
	for (m = 0; m < rw_agg_nimpls; m++)
	for (di = 0; di < ARRAY_SIZE(dts); di++) {
		const struct rw_agg_impl *impl = &rw_agg_impls[m];
		u32 dt = dts[di];
		u64 next = 0;

		if (!impl->usable())
			continue;
		assert_int_equal(rw_agg_narrow(impl, out, f, 1, RW_AGG_F32),
				 -EINVAL);
		assert_int_equal(rw_agg_narrow(impl, out, f, 0, dt), 0);
		for (;;) {
			/* The next block of inputs: @next walks them all. */
			for (n = 0; n < NB - (next % 7); n++, next++) {
				if (next < 0x10000ULL * 10) {
					h = (u32)(next / 10);
					a = rw_f16_to_f32((u16)h);
					b = rw_f16_to_f32((u16)(h + 1));
					x = aggt_bits((aggt_from_bits(a) +
						       aggt_from_bits(b)) / 2);
					d = (int)(next % 5) - 2;
					in[n] = (next % 10 < 5 ? a : x) + (u32)d;
					in[n] ^= (h & 1) << 31;
				} else if (next < 0x10000ULL * 10 + 65536) {
					/* bf16's ties: each value's halfway up. */
					in[n] = (u32)(next - 0x10000ULL * 10) << 16 | 0x8000U;
				} else if (next < 0x10000ULL * 10 + 65536 + 65536) {
					in[n] = (u32)(next - 0x10000ULL * 10 - 65536) * 65537U;
				} else if (next < 0x10000ULL * 10 + 65536 * 2 +
					   ARRAY_SIZE(rw_half_cases)) {
					in[n] = rw_half_cases[next - 0x10000ULL * 10 -
							      65536 * 2].f32;
				} else {
					break;
				}
			}
			if (!n)
				break;
			memcpy(f, in, n * sizeof(u32));
			memset(out, 0xa5, sizeof(out));
			assert_int_equal(rw_agg_narrow(impl, out, f, n, dt), 0);
			for (j = 0; j < n; j++) {
				u16 want = dt == RW_AGG_BF16 ?
					   rw_f32_to_bf16(in[j]) :
					   rw_f32_to_f16(in[j]);

				if (out[j] != want)
					fail_msg("%s %s: %08x narrowed to %04x, not %04x",
						 impl->name,
						 dt == RW_AGG_BF16 ? "bf16" : "f16",
						 in[j], out[j], want);
			}
			/* Nothing written past the block. */
			for (i = n; i < n + 1 && i < NB; i++)
				assert_int_equal(out[i], 0xa5a5);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(half_f16_widen),
		cmocka_unit_test(half_bf16_widen),
		cmocka_unit_test(half_f16_narrow),
		cmocka_unit_test(half_bf16_narrow),
		cmocka_unit_test(half_cases),
		cmocka_unit_test(half_library),
		cmocka_unit_test(half_narrow_kernels),
		cmocka_unit_test(half_kernels),
		cmocka_unit_test(half_widen_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
