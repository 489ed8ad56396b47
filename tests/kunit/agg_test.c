// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine in the kernel, through its kernel entry points
 * (kmod/agg/agg.c: FPU sections, slicing, argument checks): every
 * implementation this CPU can run sums bit-identically to the scalar one,
 * the optimizers give known answers and agree with scalar to a few ulp,
 * averaging mode writes the rank-order mean to the bit,
 * NaN stays in its element, and the init-time choice is usable.
 *
 * This file has no floating point (it is built with the kernel's no-FPU
 * flags): data are made and compared as IEEE bit patterns, and the only
 * floats are constants stored into hyper-parameters. The tests walk the
 * implementation table directly, so they do not depend on whether
 * rw_agg_init() has run.
 */
#include <kunit/test.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "agg/agg.h"
#include "agg/agg_half.h"
#include "../common/half_cases.h"

#define RW_AGG_T_NAN		0x7fc00000U
#define RW_AGG_T_MAX_W		64

struct rw_agg_t_bufs {
	const void *src[RW_AGG_T_MAX_W];
	u32 *slot[RW_AGG_T_MAX_W];
	u32 *out, *ref, *st0, *st1;
};

static u32 rw_agg_t_rand(u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Signed values over 2^-12 .. 2^12: sums that depend on the order. */
static void rw_agg_t_fill_wide(u32 *w, size_t n, u32 *seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		u32 r = rw_agg_t_rand(seed), e = 115 + rw_agg_t_rand(seed) % 25;

		w[i] = (r & 0x80000000U) | (e << 23) | (r & 0x7fffffU);
	}
}

/* [1, 2): positive data for the optimizers, so nothing cancels. */
static void rw_agg_t_fill_pos(u32 *w, size_t n, u32 *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = 0x3f800000U | (rw_agg_t_rand(seed) & 0x7fffffU);
}

static bool rw_agg_t_isnan(u32 u)
{
	return (u & 0x7f800000U) == 0x7f800000U && (u & 0x7fffffU);
}

/* Distance in representable floats between two finite values. */
static u32 rw_agg_t_ulp(u32 a, u32 b)
{
	s64 x = (a & 0x80000000U) ? -(s64)(a & 0x7fffffffU) : a;
	s64 y = (b & 0x80000000U) ? -(s64)(b & 0x7fffffffU) : b;

	return x > y ? x - y : y - x;
}

/* Slots misaligned by k floats each, outputs by mis: no alignment help. */
static void rw_agg_t_alloc(struct kunit *test, struct rw_agg_t_bufs *b,
			   unsigned int nsrc, size_t n, unsigned int mis)
{
	unsigned int k;

	for (k = 0; k < nsrc; k++) {
		b->slot[k] = kunit_kmalloc_array(test, n + 16, sizeof(u32),
						 GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->slot[k]);
		b->slot[k] += k % 16;
		b->src[k] = b->slot[k];
	}
	/* Separately: a 1 MiB chunk's four arrays exceed one kmalloc. */
	b->out = kunit_kmalloc_array(test, n + 16, sizeof(u32), GFP_KERNEL);
	b->ref = kunit_kmalloc_array(test, n + 16, sizeof(u32), GFP_KERNEL);
	b->st0 = kunit_kmalloc_array(test, n + 16, sizeof(u32), GFP_KERNEL);
	b->st1 = kunit_kmalloc_array(test, n + 16, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->out);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->ref);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->st0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->st1);
	b->out += mis % 16;
	b->st0 += mis % 16;
	b->st1 += mis % 16;
}

static struct rw_agg_chunk rw_agg_t_chunk(struct rw_agg_t_bufs *b,
					  unsigned int nsrc, size_t n,
					  u32 *out, u32 flags)
{
	struct rw_agg_chunk c = {
		.src = b->src, .nsrc = nsrc, .n = n, .dtype = RW_AGG_F32,
		.flags = flags, .out = (float *)out,
		.state = { (float *)b->st0, (float *)b->st1 },
	};

	return c;
}

static void rw_agg_table_test(struct kunit *test)
{
	const struct rw_agg_impl *impl;
	bool current_found = false;
	unsigned int i;

	KUNIT_EXPECT_STREQ(test, rw_agg_impl_at(0)->name, "scalar");
	KUNIT_EXPECT_TRUE(test, rw_agg_impl_at(0)->usable());
	for (i = 0; (impl = rw_agg_impl_at(i)); i++) {
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, impl->sum_f32);
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, impl->update_f32);
		kunit_info(test, "%s: %s\n", impl->name,
			   impl->usable() ? "usable" : "not on this CPU");
		if (!strcmp(impl->name, rw_agg_impl_name())) {
			current_found = true;
			KUNIT_EXPECT_TRUE(test, impl->usable());
		}
	}
	KUNIT_EXPECT_GE(test, i, 3U);
	KUNIT_EXPECT_LE(test, i, (unsigned int)RW_AGG_MAX_IMPLS);
	/* Whatever is in use (scalar before rw_agg_init) is in the table. */
	KUNIT_EXPECT_TRUE(test, current_found);
}

/* The selection benchmark picks a usable one, the fastest it timed. */
static void rw_agg_choose_test(struct kunit *test)
{
	struct rw_agg_choice ch;
	const struct rw_agg_impl *impl;
	unsigned int i, chosen;

	KUNIT_ASSERT_EQ(test, rw_agg_choose(&ch), 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ch.impl);
	KUNIT_EXPECT_TRUE(test, ch.impl->usable());
	chosen = ch.impl - rw_agg_impl_at(0);
	KUNIT_ASSERT_PTR_EQ(test, rw_agg_impl_at(chosen), ch.impl);
	for (i = 0; (impl = rw_agg_impl_at(i)); i++) {
		KUNIT_EXPECT_EQ(test, ch.ns[i] != 0, impl->usable());
		if (ch.ns[i])
			KUNIT_EXPECT_LE(test, ch.ns[chosen], ch.ns[i]);
		kunit_info(test, "%s: %llu ns\n", impl->name, ch.ns[i]);
	}
}

static const unsigned int rw_agg_t_ws[] = { 1, 2, 3, 7, 8, 9, 33, 64 };

static void rw_agg_t_w_desc(const unsigned int *w, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "W=%u", *w);
}

KUNIT_ARRAY_PARAM(rw_agg_t_w, rw_agg_t_ws, rw_agg_t_w_desc);

/* Bit-identical to scalar, for sizes with every kind of tail. */
static void rw_agg_sum_exact_test(struct kunit *test)
{
	static const size_t sizes[] = { 1, 17, 63, 1000, 4099, 8192 };
	unsigned int nsrc = *(const unsigned int *)test->param_value;
	const struct rw_agg_impl *scalar = rw_agg_impl_at(0), *impl;
	struct rw_agg_t_bufs b;
	unsigned int si, i, fl, k;
	u32 seed = 2024 + nsrc;

	for (si = 0; si < ARRAY_SIZE(sizes); si++) {
		size_t n = sizes[si];
		struct rw_agg_chunk c;

		rw_agg_t_alloc(test, &b, nsrc, n, si * 5);
		for (k = 0; k < nsrc; k++)
			rw_agg_t_fill_wide(b.slot[k], n, &seed);
		c = rw_agg_t_chunk(&b, nsrc, n, b.ref, 0);
		KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk_with(scalar, &c), 0);
		for (i = 1; (impl = rw_agg_impl_at(i)); i++) {
			if (!impl->usable())
				continue;
			for (fl = 0; fl <= RW_AGG_F_STREAM; fl++) {
				memset(b.out, 0, n * sizeof(u32));
				c = rw_agg_t_chunk(&b, nsrc, n, b.out, fl);
				KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk_with(impl, &c), 0);
				KUNIT_EXPECT_EQ_MSG(test, memcmp(b.out, b.ref,
								 n * sizeof(u32)), 0,
						    "%s n=%zu flags=%u",
						    impl->name, n, fl);
			}
		}
	}
}

/*
 * A 1 MiB chunk of 16 slots takes several FPU sections in the glue
 * (about 1 MiB of traffic each); the result must not notice.
 */
static void rw_agg_sum_sliced_test(struct kunit *test)
{
	const size_t n = RW_AGG_MAX_ELEMS;
	const unsigned int nsrc = 16;
	const struct rw_agg_impl *impl;
	struct rw_agg_t_bufs b;
	struct rw_agg_chunk c;
	unsigned int i, k;
	u32 seed = 77;

	rw_agg_t_alloc(test, &b, nsrc, n, 3);
	for (k = 0; k < nsrc; k++)
		rw_agg_t_fill_wide(b.slot[k], n, &seed);
	c = rw_agg_t_chunk(&b, nsrc, n, b.ref, 0);
	KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk_with(rw_agg_impl_at(0), &c), 0);
	for (i = 1; (impl = rw_agg_impl_at(i)); i++) {
		if (!impl->usable())
			continue;
		c = rw_agg_t_chunk(&b, nsrc, n, b.out, RW_AGG_F_STREAM);
		KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk_with(impl, &c), 0);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(b.out, b.ref, n * sizeof(u32)),
				    0, "%s", impl->name);
	}
	/* And the public entry point, with whatever implementation is in use. */
	c = rw_agg_t_chunk(&b, nsrc, n, b.out, 0);
	KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk(&c), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b.out, b.ref, n * sizeof(u32)), 0);
	/* One element more than the largest chunk is refused. */
	c.n = RW_AGG_MAX_ELEMS + 1;
	KUNIT_EXPECT_EQ(test, rw_agg_sum_chunk(&c), -EINVAL);
}

/*
 * @u divided by 2^@log2w, exactly, as an exponent change: the f32 product
 * by 1/W for W a power of two, when the result stays normal (zeros stay).
 */
static u32 rw_agg_t_div_pow2(u32 u, unsigned int log2w)
{
	return u & 0x7f800000U ? u - (log2w << 23) : u;
}

/*
 * Averaging mode: every implementation writes the scalar one's bits, for
 * sizes with every kind of tail and both kinds of store; and for W a power
 * of two, where 1/W is exact, those bits are the rank-order sum of
 * rw_agg_sum (tested above) divided by W: the mean a trainer computes.
 */
static void rw_agg_average_exact_test(struct kunit *test)
{
	static const size_t sizes[] = { 1, 17, 63, 1000, 4099, 8192 };
	unsigned int nsrc = *(const unsigned int *)test->param_value;
	const struct rw_agg_impl *scalar = rw_agg_impl_at(0), *impl;
	struct rw_agg_hparams hp = { .optim = RW_AGG_AVERAGE };
	struct rw_agg_t_bufs b;
	struct rw_agg_step st;
	unsigned int si, i, fl, k;
	u32 seed = 4048 + nsrc;
	size_t e;

	KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &hp, nsrc, 1), 0);
	for (si = 0; si < ARRAY_SIZE(sizes); si++) {
		size_t n = sizes[si];
		struct rw_agg_chunk c;

		rw_agg_t_alloc(test, &b, nsrc, n, si * 3);
		for (k = 0; k < nsrc; k++)
			rw_agg_t_fill_wide(b.slot[k], n, &seed);
		c = rw_agg_t_chunk(&b, nsrc, n, b.ref, 0);
		/* No state is needed. */
		c.state[0] = NULL;
		c.state[1] = NULL;
		KUNIT_ASSERT_EQ(test, rw_agg_update_chunk_with(scalar, &c, &st), 0);
		if (is_power_of_2(nsrc)) {
			KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk_with(scalar, &c), 0);
			for (e = 0; e < n; e++)
				b.ref[e] = rw_agg_t_div_pow2(b.ref[e], ilog2(nsrc));
			memset(b.out, 0, n * sizeof(u32));
			c.out = (float *)b.out;
			KUNIT_ASSERT_EQ(test, rw_agg_update_chunk_with(scalar, &c, &st), 0);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(b.out, b.ref, n * sizeof(u32)),
					    0, "scalar n=%zu: not sum / W", n);
		}
		for (i = 1; (impl = rw_agg_impl_at(i)); i++) {
			if (!impl->usable())
				continue;
			for (fl = 0; fl <= RW_AGG_F_STREAM; fl++) {
				memset(b.out, 0xff, n * sizeof(u32));
				c = rw_agg_t_chunk(&b, nsrc, n, b.out, fl);
				KUNIT_ASSERT_EQ(test, rw_agg_update_chunk_with(impl, &c, &st), 0);
				KUNIT_EXPECT_EQ_MSG(test, memcmp(b.out, b.ref,
								 n * sizeof(u32)), 0,
						    "%s n=%zu flags=%u",
						    impl->name, n, fl);
			}
		}
	}
}

/*
 * Known answers: W = 2 slots holding 1 and 3, scale 1/2 (so g = 2),
 * parameters starting at 1, two steps. Exact decimal results rounded to
 * f32; a few ulp allowed for rounding and FMA.
 */
struct rw_agg_t_known {
	const char *name;
	struct rw_agg_hparams hp;
	u32 p, s0, s1;		/* after two steps; 0: not checked */
};

static const struct rw_agg_t_known rw_agg_t_knowns[] = {
	/* 1 - 2 * 0.125 * 2 */
	{ "sgd", { .optim = RW_AGG_SGD, .lr = 0.125f }, 0x3f000000U },
	/* g = 2 + 0.5 * p: 1 - 0.125 * 2.5 = 0.6875, then 0.39453125 */
	{ "sgd+wd", { .optim = RW_AGG_SGD, .lr = 0.125f, .weight_decay = 0.5f },
	  0x3eca0000U },
	/* b = 2, 3.8; p = 1 - 0.125 * 2 = 0.75, 0.75 - 0.125 * 3.8 = 0.275 */
	{ "momentum", { .optim = RW_AGG_MOMENTUM, .lr = 0.125f, .momentum = 0.9f },
	  0x3e8ccccdU, 0x40733333U },
	/* p = 1 - 0.0625 * 3.8 = 0.7625, 0.7625 - 0.0625 * 5.42 = 0.42375 */
	{ "nesterov", { .optim = RW_AGG_NESTEROV, .lr = 0.0625f, .momentum = 0.9f },
	  0x3ed8f5c3U, 0x40733333U },
	/*
	 * Bias-corrected steps of lr * sign(g): p = 0.75, 0.5. The state is
	 * raw: with the f32 betas (0.9f, 0.999f) m = 0.38000009 and
	 * v = 0.0079958971, not the decimal 0.38 and 0.007996.
	 */
	{ "adam", { .optim = RW_AGG_ADAM, .lr = 0.25f, .beta1 = 0.9f,
		    .beta2 = 0.999f, .eps = 0.00000001f }, 0x3f000000U, 0x3ec28f5fU,
	  0x3c030139U },
	/* The mean (1 + 3) / 2 = 2 each step; lr is ignored. */
	{ "average", { .optim = RW_AGG_AVERAGE, .lr = 0.125f }, 0x40000000U },
};

static void rw_agg_t_known_desc(const struct rw_agg_t_known *k, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", k->name);
}

KUNIT_ARRAY_PARAM(rw_agg_t_known, rw_agg_t_knowns, rw_agg_t_known_desc);

static void rw_agg_optim_known_test(struct kunit *test)
{
	const struct rw_agg_t_known *k = test->param_value;
	const struct rw_agg_impl *impl;
	struct rw_agg_t_bufs b;
	struct rw_agg_step st;
	unsigned int i, e;
	u64 t;

	rw_agg_t_alloc(test, &b, 2, 37, 1);
	for (e = 0; e < 37; e++) {
		b.slot[0][e] = 0x3f800000U;	/* 1 */
		b.slot[1][e] = 0x40400000U;	/* 3 */
	}
	for (i = 0; (impl = rw_agg_impl_at(i)); i++) {
		if (!impl->usable())
			continue;
		for (e = 0; e < 37; e++) {
			b.out[e] = 0x3f800000U;
			b.st0[e] = 0;
			b.st1[e] = 0;
		}
		for (t = 1; t <= 2; t++) {
			struct rw_agg_chunk c = rw_agg_t_chunk(&b, 2, 37, b.out, 0);

			KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &k->hp, 2, t), 0);
			KUNIT_ASSERT_EQ(test, rw_agg_update_chunk_with(impl, &c, &st), 0);
		}
		for (e = 0; e < 37; e++) {
			KUNIT_EXPECT_LE_MSG(test, rw_agg_t_ulp(b.out[e], k->p), 4U,
					    "%s p[%u] = %#x, expected %#x",
					    impl->name, e, b.out[e], k->p);
			if (k->s0)
				KUNIT_EXPECT_LE(test, rw_agg_t_ulp(b.st0[e], k->s0), 4U);
			if (k->s1)
				KUNIT_EXPECT_LE(test, rw_agg_t_ulp(b.st1[e], k->s1), 4U);
		}
	}
}

/*
 * Random positive data and a small lr keep parameters and state near 1,
 * so nothing cancels and an ulp there is a relative error of 2^-23.
 */
static const struct rw_agg_t_known rw_agg_t_randoms[] = {
	{ "sgd", { .optim = RW_AGG_SGD, .lr = 0.001f } },
	{ "sgd+wd", { .optim = RW_AGG_SGD, .lr = 0.001f, .weight_decay = 0.01f } },
	{ "momentum", { .optim = RW_AGG_MOMENTUM, .lr = 0.001f, .momentum = 0.9f,
			.weight_decay = 0.01f } },
	{ "nesterov", { .optim = RW_AGG_NESTEROV, .lr = 0.001f, .momentum = 0.9f } },
	{ "adam", { .optim = RW_AGG_ADAM, .lr = 0.001f, .beta1 = 0.9f,
		    .beta2 = 0.999f, .eps = 0.00000001f, .weight_decay = 0.01f } },
	{ "average", { .optim = RW_AGG_AVERAGE } },
};

KUNIT_ARRAY_PARAM(rw_agg_t_random, rw_agg_t_randoms, rw_agg_t_known_desc);

/* Several steps on random data: every implementation within 8 ulp of scalar. */
static void rw_agg_optim_vs_scalar_test(struct kunit *test)
{
	const struct rw_agg_t_known *k = test->param_value;
	const size_t n = 1037;
	const unsigned int nsrc = 5;
	const struct rw_agg_impl *impl;
	struct rw_agg_t_bufs b;
	u32 *p0, *m0, *v0, worst = 0;
	unsigned int i, kk;
	size_t e;

	rw_agg_t_alloc(test, &b, nsrc, n, 7);
	p0 = kunit_kmalloc_array(test, 3 * n, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p0);
	m0 = p0 + n;
	v0 = m0 + n;
	for (i = 0; (impl = rw_agg_impl_at(i)); i++) {
		struct rw_agg_step st;
		u32 seed = 99;
		u64 t;

		if (!impl->usable())
			continue;
		rw_agg_t_fill_pos(b.out, n, &seed);
		memset(b.st0, 0, n * sizeof(u32));
		memset(b.st1, 0, n * sizeof(u32));
		for (t = 1; t <= 4; t++) {
			struct rw_agg_chunk c = rw_agg_t_chunk(&b, nsrc, n, b.out, 0);

			for (kk = 0; kk < nsrc; kk++)
				rw_agg_t_fill_pos(b.slot[kk], n, &seed);
			KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &k->hp, nsrc, t), 0);
			KUNIT_ASSERT_EQ(test, rw_agg_update_chunk_with(impl, &c, &st), 0);
		}
		if (i == 0) {
			memcpy(p0, b.out, n * sizeof(u32));
			memcpy(m0, b.st0, n * sizeof(u32));
			memcpy(v0, b.st1, n * sizeof(u32));
			continue;
		}
		for (e = 0; e < n; e++) {
			u32 d = max3(rw_agg_t_ulp(b.out[e], p0[e]),
				     rw_agg_t_ulp(b.st0[e], m0[e]),
				     rw_agg_t_ulp(b.st1[e], v0[e]));

			worst = max(worst, d);
			KUNIT_EXPECT_LE_MSG(test, d, 8U, "%s element %zu",
					    impl->name, e);
		}
		kunit_info(test, "%s: at most %u ulp from scalar\n", impl->name,
			   worst);
	}
}

/* A NaN from one worker makes its own element NaN, nothing else. */
static void rw_agg_nan_test(struct kunit *test)
{
	const size_t n = 203;
	const unsigned int nsrc = 4;
	const struct rw_agg_t_known *mom = &rw_agg_t_knowns[2];
	const struct rw_agg_impl *impl;
	struct rw_agg_t_bufs b;
	struct rw_agg_step st;
	unsigned int i, k;
	size_t e;
	u32 seed = 5;

	rw_agg_t_alloc(test, &b, nsrc, n, 2);
	for (k = 0; k < nsrc; k++)
		rw_agg_t_fill_pos(b.slot[k], n, &seed);
	KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &mom->hp, nsrc, 1), 0);
	for (i = 0; (impl = rw_agg_impl_at(i)); i++) {
		struct rw_agg_chunk c = rw_agg_t_chunk(&b, nsrc, n, b.ref, 0);

		if (!impl->usable())
			continue;
		KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk_with(impl, &c), 0);
		b.slot[2][37] = RW_AGG_T_NAN;
		b.slot[0][n - 1] = RW_AGG_T_NAN;
		c.out = (float *)b.out;
		KUNIT_ASSERT_EQ(test, rw_agg_sum_chunk_with(impl, &c), 0);
		for (e = 0; e < n; e++) {
			if (e == 37 || e == n - 1)
				KUNIT_EXPECT_TRUE(test, rw_agg_t_isnan(b.out[e]));
			else
				KUNIT_EXPECT_EQ(test, b.out[e], b.ref[e]);
		}
		/* The fused step: parameters and buffer poisoned there only. */
		for (e = 0; e < n; e++) {
			b.out[e] = 0x3f800000U;
			b.st0[e] = 0;
		}
		KUNIT_ASSERT_EQ(test, rw_agg_update_chunk_with(impl, &c, &st), 0);
		for (e = 0; e < n; e++) {
			bool bad = e == 37 || e == n - 1;

			KUNIT_EXPECT_EQ(test, rw_agg_t_isnan(b.out[e]), bad);
			KUNIT_EXPECT_EQ(test, rw_agg_t_isnan(b.st0[e]), bad);
		}
		b.slot[2][37] = 0x3f800000U;
		b.slot[0][n - 1] = 0x3f800000U;
	}
}

static void rw_agg_bad_args_test(struct kunit *test)
{
	struct rw_agg_t_bufs b;
	struct rw_agg_chunk c, x;
	struct rw_agg_step st;
	struct rw_agg_hparams hp = { .optim = RW_AGG_ADAM, .lr = 0.1f,
				     .beta1 = 0.9f, .beta2 = 0.999f,
				     .eps = 0.00000001f };

	rw_agg_t_alloc(test, &b, 2, 64, 0);
	c = rw_agg_t_chunk(&b, 2, 64, b.out, 0);
	KUNIT_EXPECT_EQ(test, rw_agg_sum_chunk(&c), 0);
	x = c;
	x.nsrc = 0;
	KUNIT_EXPECT_EQ(test, rw_agg_sum_chunk(&x), -EINVAL);
	x = c;
	x.flags = 0x80;
	KUNIT_EXPECT_EQ(test, rw_agg_sum_chunk(&x), -EINVAL);
	x = c;
	x.off = RW_AGG_MAX_ELEMS;
	KUNIT_EXPECT_EQ(test, rw_agg_sum_chunk(&x), -EINVAL);
	/* 16-bit slots: summed (test-agg-half checks the bits). */
	x = c;
	x.dtype = RW_AGG_F16;
	KUNIT_EXPECT_EQ(test, rw_agg_sum_chunk(&x), 0);
	KUNIT_EXPECT_EQ(test, rw_agg_update_chunk(&c, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_agg_step_prepare(&st, &hp, 2, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &hp, 2, 1), 0);
	x = c;
	x.state[1] = NULL;
	KUNIT_EXPECT_EQ(test, rw_agg_update_chunk(&x, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_agg_update_chunk(&c, &st), 0);
	hp.beta1 = 1.0f;
	KUNIT_EXPECT_EQ(test, rw_agg_step_prepare(&st, &hp, 2, 1), -EINVAL);
}

/*
 * The 16-bit conversions at their edges (tests/common/half_cases.h, as
 * cmocka runs them): rounding to nearest even, overflow to infinity,
 * subnormals, NaNs kept quiet; every value widened back where exact.
 */
static void rw_agg_half_test(struct kunit *test)
{
	size_t i;
	u32 h;

	for (i = 0; i < ARRAY_SIZE(rw_half_cases); i++) {
		const struct rw_half_case *k = &rw_half_cases[i];

		KUNIT_EXPECT_EQ_MSG(test, rw_f32_to_f16(k->f32), k->f16,
				    "case %zu (%08x)", i, k->f32);
		KUNIT_EXPECT_EQ_MSG(test, rw_f32_to_bf16(k->f32), k->bf16,
				    "case %zu (%08x)", i, k->f32);
	}
	/* Every finite f16 and bf16 comes back from its f32 image. */
	for (h = 0; h < 0x10000; h++) {
		if ((h & 0x7c00) != 0x7c00)
			KUNIT_EXPECT_EQ(test, rw_f32_to_f16(rw_f16_to_f32(h)),
					(u16)h);
		if ((h & 0x7f80) != 0x7f80)
			KUNIT_EXPECT_EQ(test,
					rw_f32_to_bf16(rw_bf16_to_f32(h)),
					(u16)h);
	}
}

static struct kunit_case rw_agg_test_cases[] = {
	KUNIT_CASE(rw_agg_table_test),
	KUNIT_CASE(rw_agg_choose_test),
	KUNIT_CASE_PARAM(rw_agg_sum_exact_test, rw_agg_t_w_gen_params),
	KUNIT_CASE(rw_agg_sum_sliced_test),
	KUNIT_CASE_PARAM(rw_agg_average_exact_test, rw_agg_t_w_gen_params),
	KUNIT_CASE_PARAM(rw_agg_optim_known_test, rw_agg_t_known_gen_params),
	KUNIT_CASE_PARAM(rw_agg_optim_vs_scalar_test, rw_agg_t_random_gen_params),
	KUNIT_CASE(rw_agg_nan_test),
	KUNIT_CASE(rw_agg_bad_args_test),
	KUNIT_CASE(rw_agg_half_test),
	{}
};

static struct kunit_suite rw_agg_test_suite = {
	.name = "rackweave_agg",
	.test_cases = rw_agg_test_cases,
};

kunit_test_suite(rw_agg_test_suite);
