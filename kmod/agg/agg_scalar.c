// SPDX-License-Identifier: GPL-2.0
/*
 * The scalar implementation: the reference every SIMD implementation is
 * tested against, and the fallback on CPUs without AVX2. It is the
 * per-element math of agg_elem.h in a plain loop, built without
 * auto-vectorization (agg.kbuild, agg.mk) so that it stays the portable
 * baseline the benchmark compares SIMD against.
 *
 * Element-outer, worker-inner: each element's sum is finished before the
 * next starts, which is the order the SIMD kernels use per lane.
 */
#include "agg_impl.h"
#include "agg_elem.h"

void rw_agg_scalar_sum_f32(const struct rw_agg_chunk *c)
{
	const float *const *src = (const float *const *)c->src;
	float *out = c->out;
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		out[i] = rw_agg_elem_sum(src, c->nsrc, i);
}

static void rw_agg_scalar_sgd(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st,
			      const float *const *src)
{
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_sgd(st, rw_agg_elem_sum(src, c->nsrc, i),
				&c->out[i]);
}

static void rw_agg_scalar_average(const struct rw_agg_chunk *c,
				  const struct rw_agg_step *st,
				  const float *const *src)
{
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_average(st, rw_agg_elem_sum(src, c->nsrc, i),
				    &c->out[i]);
}

static void rw_agg_scalar_momentum(const struct rw_agg_chunk *c,
				   const struct rw_agg_step *st,
				   const float *const *src, bool nesterov)
{
	float *buf = c->state[0];
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_momentum(st, rw_agg_elem_sum(src, c->nsrc, i),
				     &c->out[i], &buf[i], nesterov);
}

static void rw_agg_scalar_adam(const struct rw_agg_chunk *c,
			       const struct rw_agg_step *st,
			       const float *const *src)
{
	float *m = c->state[0], *v = c->state[1];
	size_t i, end = (size_t)c->off + c->n;

	for (i = c->off; i < end; i++)
		rw_agg_elem_adam(st, rw_agg_elem_sum(src, c->nsrc, i),
				 &c->out[i], &m[i], &v[i]);
}

void rw_agg_scalar_update_f32(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st)
{
	const float *const *src = (const float *const *)c->src;

	switch (st->optim) {
	case RW_AGG_SGD:
		rw_agg_scalar_sgd(c, st, src);
		break;
	case RW_AGG_MOMENTUM:
		rw_agg_scalar_momentum(c, st, src, false);
		break;
	case RW_AGG_NESTEROV:
		rw_agg_scalar_momentum(c, st, src, true);
		break;
	case RW_AGG_ADAM:
		rw_agg_scalar_adam(c, st, src);
		break;
	case RW_AGG_AVERAGE:
		rw_agg_scalar_average(c, st, src);
		break;
	}
}
