// SPDX-License-Identifier: GPL-2.0
/*
 * The scalar implementation: the reference every SIMD implementation is
 * tested against, and the fallback on CPUs without AVX2. It is the
 * per-element math of agg_elem.h in a plain loop, built without
 * auto-vectorization (agg.kbuild, agg.mk) so that it stays the portable
 * baseline the benchmark compares SIMD against.
 *
 * Element-outer, worker-inner: each element's sum is finished before the
 * next starts, which is the order the SIMD kernels use per lane. Each loop
 * is written once over the slots' dtype, a constant at every call, so the
 * f32 kernels and the 16-bit ones (elements widened exactly, then the same
 * sum and step in f32) are the same code.
 */
#include "agg_impl.h"
#include "agg_elem.h"

static __always_inline void rw_agg_scalar_sum(const struct rw_agg_chunk *c,
					      u32 dtype)
{
	float *out = c->out;
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		out[i] = rw_agg_elem_sum_of(c, i, dtype);
}

static __always_inline void rw_agg_scalar_sgd(const struct rw_agg_chunk *c,
					      const struct rw_agg_step *st,
					      u32 dtype)
{
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_sgd(st, rw_agg_elem_sum_of(c, i, dtype),
				&c->out[i]);
}

static __always_inline void
rw_agg_scalar_average(const struct rw_agg_chunk *c,
		      const struct rw_agg_step *st, u32 dtype)
{
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_average(st, rw_agg_elem_sum_of(c, i, dtype),
				    &c->out[i]);
}

static __always_inline void
rw_agg_scalar_momentum(const struct rw_agg_chunk *c,
		       const struct rw_agg_step *st, bool nesterov, u32 dtype)
{
	float *buf = c->state[0];
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_momentum(st, rw_agg_elem_sum_of(c, i, dtype),
				     &c->out[i], &buf[i], nesterov);
}

static __always_inline void rw_agg_scalar_adam(const struct rw_agg_chunk *c,
					       const struct rw_agg_step *st,
					       u32 dtype)
{
	float *m = c->state[0], *v = c->state[1];
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_adam(st, rw_agg_elem_sum_of(c, i, dtype),
				 &c->out[i], &m[i], &v[i]);
}

static __always_inline void
rw_agg_scalar_update(const struct rw_agg_chunk *c,
		     const struct rw_agg_step *st, u32 dtype)
{
	switch (st->optim) {
	case RW_AGG_SGD:
		rw_agg_scalar_sgd(c, st, dtype);
		break;
	case RW_AGG_MOMENTUM:
		rw_agg_scalar_momentum(c, st, false, dtype);
		break;
	case RW_AGG_NESTEROV:
		rw_agg_scalar_momentum(c, st, true, dtype);
		break;
	case RW_AGG_ADAM:
		rw_agg_scalar_adam(c, st, dtype);
		break;
	case RW_AGG_AVERAGE:
		rw_agg_scalar_average(c, st, dtype);
		break;
	}
}

void rw_agg_scalar_sum_f32(const struct rw_agg_chunk *c)
{
	rw_agg_scalar_sum(c, RW_AGG_F32);
}

void rw_agg_scalar_update_f32(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st)
{
	rw_agg_scalar_update(c, st, RW_AGG_F32);
}

void rw_agg_scalar_sum_h16(const struct rw_agg_chunk *c)
{
	if (c->dtype == RW_AGG_BF16)
		rw_agg_scalar_sum(c, RW_AGG_BF16);
	else
		rw_agg_scalar_sum(c, RW_AGG_F16);
}

void rw_agg_scalar_narrow_h16(u16 *dst, const float *src, unsigned int n,
			      u32 dtype)
{
	rw_half_narrow(dst, src, n, dtype == RW_AGG_BF16);
}

void rw_agg_scalar_update_h16(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st)
{
	if (c->dtype == RW_AGG_BF16)
		rw_agg_scalar_update(c, st, RW_AGG_BF16);
	else
		rw_agg_scalar_update(c, st, RW_AGG_F16);
}
