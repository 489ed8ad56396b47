// SPDX-License-Identifier: GPL-2.0
/*
 * The table of aggregation implementations, the checked entry points into
 * them, and the init-time choice among them (lib/raid6/algos.c's pattern:
 * among the implementations this CPU can run, time each on the same
 * cache-resident work and keep the fastest).
 *
 * This file has no floating point and is built without FPU or SIMD flags,
 * so its feature checks and argument checks are safe to run outside an FPU
 * section and on any CPU. The benchmark data are made from integer bit
 * patterns for the same reason.
 */
#include "agg_impl.h"
#include "agg_arch.h"

static bool rw_agg_usable_scalar(void)
{
	return true;
}

static bool rw_agg_usable_avx2(void)
{
	return rw_agg_cpu_avx2();
}

static bool rw_agg_usable_avx512(void)
{
	return rw_agg_cpu_avx512();
}

const struct rw_agg_impl rw_agg_impls[] = {
	{
		.name = "scalar",
		.usable = rw_agg_usable_scalar,
		.sum_f32 = rw_agg_scalar_sum_f32,
		.update_f32 = rw_agg_scalar_update_f32,
		.sum_h16 = rw_agg_scalar_sum_h16,
		.update_h16 = rw_agg_scalar_update_h16,
		.narrow_h16 = rw_agg_scalar_narrow_h16,
	},
	{
		.name = "avx2",
		.usable = rw_agg_usable_avx2,
		.sum_f32 = rw_agg_avx2_sum_f32,
		.update_f32 = rw_agg_avx2_update_f32,
		.sum_h16 = rw_agg_avx2_sum_h16,
		.update_h16 = rw_agg_avx2_update_h16,
		.narrow_h16 = rw_agg_avx2_narrow_h16,
	},
	{
		.name = "avx512",
		.usable = rw_agg_usable_avx512,
		.sum_f32 = rw_agg_avx512_sum_f32,
		.update_f32 = rw_agg_avx512_update_f32,
		.sum_h16 = rw_agg_avx512_sum_h16,
		.update_h16 = rw_agg_avx512_update_h16,
		.narrow_h16 = rw_agg_avx512_narrow_h16,
	},
};

const unsigned int rw_agg_nimpls = ARRAY_SIZE(rw_agg_impls);

static_assert(ARRAY_SIZE(rw_agg_impls) <= RW_AGG_MAX_IMPLS,
	      "raise RW_AGG_MAX_IMPLS");

const struct rw_agg_impl *rw_agg_impl_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < rw_agg_nimpls; i++)
		if (!strcmp(rw_agg_impls[i].name, name))
			return &rw_agg_impls[i];
	return NULL;
}

/* Everything a kernel trusts, checked once per call, before any FPU work. */
int rw_agg_check(const struct rw_agg_chunk *c, bool update, u32 optim)
{
	unsigned int k;

	if (!c || !c->src || !c->out || c->nsrc == 0 ||
	    c->nsrc > RW_AGG_MAX_SRCS || c->dtype >= RW_AGG_DTYPE_COUNT ||
	    (c->flags & ~RW_AGG_F_ALL) || c->n > RW_AGG_MAX_ELEMS ||
	    c->off > RW_AGG_MAX_ELEMS - c->n)
		return -EINVAL;
	for (k = 0; k < c->nsrc; k++)
		if (!c->src[k])
			return -EINVAL;
	if (!update)
		return 0;
	switch (optim) {
	case RW_AGG_SGD:
	case RW_AGG_AVERAGE:
		return 0;
	case RW_AGG_MOMENTUM:
	case RW_AGG_NESTEROV:
		return c->state[0] ? 0 : -EINVAL;
	case RW_AGG_ADAM:
		return c->state[0] && c->state[1] ? 0 : -EINVAL;
	}
	return -EINVAL;
}

int rw_agg_sum(const struct rw_agg_impl *impl, const struct rw_agg_chunk *c)
{
	void (*sum)(const struct rw_agg_chunk *c);
	int ret = rw_agg_check(c, false, 0);

	if (ret)
		return ret;
	sum = c->dtype == RW_AGG_F32 ? impl->sum_f32 : impl->sum_h16;
	if (!sum)
		return -EOPNOTSUPP;
	if (c->n)
		sum(c);
	return 0;
}

int rw_agg_update(const struct rw_agg_impl *impl,
		  const struct rw_agg_chunk *c, const struct rw_agg_step *st)
{
	void (*update)(const struct rw_agg_chunk *c,
		       const struct rw_agg_step *st);
	int ret;

	if (!st)
		return -EINVAL;
	ret = rw_agg_check(c, true, st->optim);
	if (ret)
		return ret;
	update = c->dtype == RW_AGG_F32 ? impl->update_f32 : impl->update_h16;
	if (!update)
		return -EOPNOTSUPP;
	if (c->n)
		update(c, st);
	return 0;
}

int rw_agg_narrow(const struct rw_agg_impl *impl, u16 *dst, const float *src,
		  unsigned int n, u32 dtype)
{
	if ((dtype != RW_AGG_F16 && dtype != RW_AGG_BF16) ||
	    n > RW_AGG_MAX_ELEMS || (n && (!dst || !src)))
		return -EINVAL;
	if (!impl->narrow_h16)
		return -EOPNOTSUPP;
	if (n)
		impl->narrow_h16(dst, src, n, dtype);
	return 0;
}

/* A few repetitions; the minimum is the figure least disturbed by noise. */
#define RW_AGG_SELECT_REPS	9

/* Normal floats in [1, 2) from a fixed LCG: no FPU needed to make them. */
static void rw_agg_select_fill(u32 *w, size_t n, u32 seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1664525U + 1013904223U;
		w[i] = 0x3f800000U | (seed >> 9);
	}
}

static u64 rw_agg_select_time(const struct rw_agg_impl *impl,
			      const struct rw_agg_chunk *sum,
			      const struct rw_agg_chunk *upd,
			      const struct rw_agg_step *st)
{
	u64 best = ~0ULL, t0, t1, t2, t3;
	unsigned int rep;

	/* The first repetition warms caches and is timed like the others. */
	for (rep = 0; rep < RW_AGG_SELECT_REPS; rep++) {
		rw_agg_fpu_begin();
		t0 = rw_agg_now_ns();
		impl->sum_f32(sum);
		t1 = rw_agg_now_ns();
		rw_agg_fpu_end();
		rw_agg_fpu_begin();
		t2 = rw_agg_now_ns();
		impl->update_f32(upd, st);
		t3 = rw_agg_now_ns();
		rw_agg_fpu_end();
		if ((t1 - t0) + (t3 - t2) < best)
			best = (t1 - t0) + (t3 - t2);
	}
	return best ? best : 1;
}

int rw_agg_select(struct rw_agg_choice *ch, void *scratch, size_t len)
{
	const size_t n = RW_AGG_SELECT_ELEMS;
	const void *src[RW_AGG_SELECT_NSRC];
	struct rw_agg_hparams hp = { 0 };
	struct rw_agg_chunk sum = { 0 }, upd;
	struct rw_agg_step st;
	unsigned int i;
	float *f;
	int ret;

	if (!ch || !scratch || len < RW_AGG_SELECT_SCRATCH)
		return -EINVAL;
	/*
	 * Chunks are page-aligned in the arenas; misaligned buffers would
	 * split every 64-byte load across two lines and rank AVX-512 last.
	 */
	f = (float *)(((unsigned long)scratch + 63) & ~63UL);
	memset(ch, 0, sizeof(*ch));
	rw_agg_select_fill((u32 *)f, (RW_AGG_SELECT_NSRC + 1) * n, 12345);
	memset(f + (RW_AGG_SELECT_NSRC + 1) * n, 0, n * sizeof(float));
	for (i = 0; i < RW_AGG_SELECT_NSRC; i++)
		src[i] = f + i * n;

	/* A sum into the last slot's place, then a momentum step on it. */
	sum.src = src;
	sum.nsrc = RW_AGG_SELECT_NSRC;
	sum.n = n;
	sum.dtype = RW_AGG_F32;
	sum.out = f + RW_AGG_SELECT_NSRC * n;
	upd = sum;
	upd.state[0] = f + (RW_AGG_SELECT_NSRC + 1) * n;

	hp.optim = RW_AGG_MOMENTUM;
	hp.lr = 0.0001f;
	hp.momentum = 0.9f;
	rw_agg_fpu_begin();
	ret = rw_agg_prepare(&st, &hp, RW_AGG_SELECT_NSRC, 1);
	rw_agg_fpu_end();
	if (ret)
		return ret;

	ch->impl = &rw_agg_impls[0];
	ch->bytes = 2 * RW_AGG_SELECT_NSRC * n * sizeof(float);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = &rw_agg_impls[i];

		if (!impl->usable())
			continue;
		ch->ns[i] = rw_agg_select_time(impl, &sum, &upd, &st);
		if (ch->ns[i] < ch->ns[ch->impl - rw_agg_impls])
			ch->impl = impl;
	}
	return 0;
}
