/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregation math for one element, written once: the scalar
 * implementation is a loop over these, and the SIMD implementations use
 * them for the elements before and after their vector loops, so every
 * element of every implementation goes through the same formula in the
 * same order. Floating point: include only from files built with FPU
 * flags (kmod/agg/agg.kbuild).
 */
#ifndef _RW_AGG_ELEM_H
#define _RW_AGG_ELEM_H

#include "agg_impl.h"
#include "agg_half.h"

#ifdef __CHECKER__
/* sparse does not know GCC's math and x86 builtins; GCC must not see these. */
#define RW_CHK_V8	float __attribute__((__vector_size__(32)))
#define RW_CHK_V16	float __attribute__((__vector_size__(64)))
float __builtin_sqrtf(float x);
double __builtin_sqrt(double x);
void __builtin_ia32_sfence(void);
RW_CHK_V8 __builtin_ia32_sqrtps256(RW_CHK_V8 v);
RW_CHK_V16 __builtin_ia32_sqrtps512_mask(RW_CHK_V16 v, RW_CHK_V16 src,
					 unsigned short k, int rounding);
void __builtin_ia32_movntps256(float *p, RW_CHK_V8 v);
void __builtin_ia32_movntps512(float *p, RW_CHK_V16 v);
#endif

/* The tall sum of element i, in worker-rank order. */
static __always_inline float rw_agg_elem_sum(const float *const *src,
					     unsigned int nsrc, size_t i)
{
	float s = src[0][i];
	unsigned int k;

	for (k = 1; k < nsrc; k++)
		s += src[k][i];
	return s;
}

/* A 16-bit slot's element (@dtype RW_AGG_F16 or _BF16), widened exactly. */
static __always_inline float rw_agg_elem_h16(u16 h, u32 dtype)
{
	u32 b = dtype == RW_AGG_BF16 ? rw_bf16_to_f32(h) : rw_f16_to_f32(h);
	float f;

	__builtin_memcpy(&f, &b, sizeof(f));
	return f;
}

/* The tall sum of element i of 16-bit slots: in f32, in worker-rank order. */
static __always_inline float rw_agg_elem_sum_h16(const u16 *const *src,
						 unsigned int nsrc, size_t i,
						 u32 dtype)
{
	float s = rw_agg_elem_h16(src[0][i], dtype);
	unsigned int k;

	for (k = 1; k < nsrc; k++)
		s += rw_agg_elem_h16(src[k][i], dtype);
	return s;
}

/* Element i's sum for slots of @dtype (a constant where it is inlined). */
static __always_inline float rw_agg_elem_sum_of(const struct rw_agg_chunk *c,
						size_t i, u32 dtype)
{
	if (dtype == RW_AGG_F32)
		return rw_agg_elem_sum((const float *const *)c->src, c->nsrc,
				       i);
	return rw_agg_elem_sum_h16((const u16 *const *)c->src, c->nsrc, i,
				   dtype);
}

/* The sum scaled: the mean under the default scale 1/W. */
static __always_inline float rw_agg_elem_scaled(const struct rw_agg_step *st,
						float sum)
{
	return sum * st->scale;
}

static __always_inline float rw_agg_elem_grad(const struct rw_agg_step *st,
					      float sum, float p)
{
	return rw_agg_elem_scaled(st, sum) + st->wd * p;
}

/* AVERAGE: the parameter is the scaled sum; the old value is not read. */
static __always_inline void rw_agg_elem_average(const struct rw_agg_step *st,
						float sum, float *p)
{
	*p = rw_agg_elem_scaled(st, sum);
}

static __always_inline void rw_agg_elem_sgd(const struct rw_agg_step *st,
					    float sum, float *p)
{
	float g = rw_agg_elem_grad(st, sum, *p);

	*p = *p - st->lr * g;
}

static __always_inline void rw_agg_elem_momentum(const struct rw_agg_step *st,
						 float sum, float *p, float *b,
						 bool nesterov)
{
	float g = rw_agg_elem_grad(st, sum, *p);
	float nb = st->mu * *b + g;

	*b = nb;
	*p = *p - st->lr * (nesterov ? g + st->mu * nb : nb);
}

static __always_inline void rw_agg_elem_adam(const struct rw_agg_step *st,
					     float sum, float *p, float *m,
					     float *v)
{
	float g = rw_agg_elem_grad(st, sum, *p);
	float nm = st->b1 * *m + st->c1 * g;
	float nv = st->b2 * *v + st->c2 * (g * g);
	float denom = __builtin_sqrtf(nv) * st->inv_bc2_sqrt + st->eps;

	*m = nm;
	*v = nv;
	*p = *p - st->step_size * nm / denom;
}

/* Elements before a vector-aligned output, where streaming stores start. */
static __always_inline size_t rw_agg_head(const float *out, size_t vbytes,
					  size_t n)
{
	size_t head = ((vbytes - ((unsigned long)out & (vbytes - 1))) &
		       (vbytes - 1)) / sizeof(float);

	return head < n ? head : n;
}

#endif /* _RW_AGG_ELEM_H */
