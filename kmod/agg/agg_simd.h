/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SIMD aggregation kernels, written once over a GCC vector type and
 * instantiated per instruction set (agg_avx2.c, agg_avx512.c), the way
 * lib/raid6 generates its unrolled variants from one template. No
 * <immintrin.h>: in a kernel build it drags in libc headers. GCC vector
 * extensions give the arithmetic; __builtin_ia32_* give what they lack
 * (sqrt, streaming stores, sfence).
 *
 * The including file defines, before including this:
 *	RW_SIMD(x)		the implementation's symbol for x
 *	RW_VL			f32 lanes per vector
 *	RW_V			the vector type, float __vector_size__(4 * RW_VL)
 *	RW_VSQRT(v)		lane-wise square root
 *	RW_VSTREAM(p, v)	non-temporal store of v to vector-aligned p
 *	RW_VSTREAM1(p, v)	optional: the same, for the one-vector loops
 *	RW_VCVTPH(h)		optional: RW_VL f16 (a short vector) widened
 *				(F16C's VCVTPH2PS, exact, NaNs made quiet)
 *
 * Why the kernels look like this:
 * - One pass: each output vector is the sum of the W source vectors,
 *   accumulated in registers, then stored once (or fed to the optimizer).
 *   W read-modify-write passes over an accumulator reach only 2/3 of the
 *   memory bound (docs/performance.md); one pass reaches it.
 * - Lanes are elements. A lane adds src[0], src[1], ... in that order,
 *   exactly what the scalar loop does, so sums are bit-identical.
 * - Sources are walked worker-inner for a block of 4 vectors (sum) or 2
 *   (optimizer step): independent accumulators hide the add latency, and
 *   any W works without grouping since only the accumulators are live.
 * - Unaligned loads and stores go through __builtin_memcpy, which GCC turns
 *   into unaligned vector moves (or folds into the add) with no alias or
 *   alignment assumption about the caller's pointers.
 * - Elements before the first aligned output vector (streaming only) and
 *   after the last whole vector use the scalar formulas of agg_elem.h.
 * - 16-bit slots (f16, bf16) are widened exactly as they are loaded
 *   (F16C's conversion where the instantiation has it, else integer code
 *   that touches no denormal), then summed and stepped as f32 ones: every
 *   loop is written once over the slots' dtype, a constant at each
 *   instantiation.
 */
#ifndef RW_SIMD
#error "define RW_SIMD, RW_VL, RW_V, RW_VSQRT and RW_VSTREAM first"
#endif

#include "agg_impl.h"
#include "agg_elem.h"

#define RW_VBYTES	(RW_VL * sizeof(float))

static __always_inline RW_V RW_SIMD(ld)(const float *p)
{
	RW_V v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static __always_inline void RW_SIMD(st)(float *p, RW_V v, bool nt)
{
	if (nt)
		RW_VSTREAM(p, v);
	else
		__builtin_memcpy(p, &v, sizeof(v));
}

#ifndef RW_VSTREAM1
#define RW_VSTREAM1(p, v)	RW_VSTREAM(p, v)
#endif

/* The store of the one-vector loops. */
static __always_inline void RW_SIMD(st1)(float *p, RW_V v, bool nt)
{
	if (nt)
		RW_VSTREAM1(p, v);
	else
		__builtin_memcpy(p, &v, sizeof(v));
}

/* s - 0 is s for every s, -0 and NaN included (0 + s would lose -0). */
static __always_inline RW_V RW_SIMD(splat)(float s)
{
	RW_V zero = { 0 };

	return s - zero;
}

#define RW_VU	unsigned int __attribute__((__vector_size__(4 * RW_VL)))
#define RW_VI	int __attribute__((__vector_size__(4 * RW_VL)))
#define RW_VH	unsigned short __attribute__((__vector_size__(2 * RW_VL)))
#define RW_VHS	short __attribute__((__vector_size__(2 * RW_VL)))
/*
 * Lane by lane: 16 bits to 32 (zero-extended), and integers to floats
 * (exact below 2^24). sparse does not know the builtin.
 */
#ifdef __CHECKER__
#define RW_VWIDEN(h)	((RW_VU) { 0 })
#define RW_VFLOAT(i)	((RW_V) { 0 })
#else
#define RW_VWIDEN(h)	__builtin_convertvector(h, RW_VU)
#define RW_VFLOAT(i)	__builtin_convertvector(i, RW_V)
#endif

/*
 * RW_VL 16-bit elements at @p widened exactly, as agg_half.h does each:
 * bf16 is the f32's top half. f16: a normal one's exponent rebiased by an
 * integer add; a subnormal one's fraction made a float and scaled by
 * 2^-24, both exact and neither touching a denormal (which would cost
 * a microcode assist per vector); infinities and NaNs (quiet) set apart;
 * then the sign.
 */
static __always_inline RW_V RW_SIMD(ld16)(const u16 *p, u32 dtype)
{
	RW_VH h;
	RW_VU u, em, sub, inf, nan, small;
	RW_V v;

	__builtin_memcpy(&h, p, sizeof(h));
#if defined(RW_VCVTPH) && !defined(__CHECKER__)
	if (dtype == RW_AGG_F16)
		return RW_VCVTPH((RW_VHS)h);
#endif
	u = RW_VWIDEN(h);
	if (dtype == RW_AGG_BF16) {
		u <<= 16;
		__builtin_memcpy(&v, &u, sizeof(v));
		return v;
	}
	em = u & 0x7fff;
	v = RW_VFLOAT((RW_VI)em) * RW_SIMD(splat)(1.0f / 16777216);
	__builtin_memcpy(&small, &v, sizeof(small));
	sub = (RW_VU)(em < 0x400);
	inf = (RW_VU)(em >= 0x7c00);
	nan = (RW_VU)(em > 0x7c00);
	u = (((em << 13) + (112U << 23)) & ~sub & ~inf) | (small & sub) |
	    (inf & ((em << 13) | 0x7f800000)) | (nan & 0x400000);
	u |= (RW_VWIDEN(h) & 0x8000) << 16;
	__builtin_memcpy(&v, &u, sizeof(v));
	return v;
}

/* The vector at element i of slot @s, of @dtype (a constant when inlined). */
static __always_inline RW_V RW_SIMD(ldk)(const void *s, size_t i, u32 dtype)
{
	if (dtype == RW_AGG_F32)
		return RW_SIMD(ld)((const float *)s + i);
	return RW_SIMD(ld16)((const u16 *)s + i, dtype);
}

/*
 * bf16 two vectors at a time: 2 * RW_VL elements at @p loaded as RW_VL
 * 32-bit pairs, each pair's low half (the even element) shifted up and its
 * high half (the odd one) masked, two operations for two vectors instead
 * of a widening and a shift per vector. Lane j of *@e holds element 2j, of
 * *@o element 2j + 1: still one element per lane, summed in rank order,
 * and put back in element order once per output (zip), not per slot.
 */
static __always_inline void RW_SIMD(ld_bf16x2)(const u16 *p, RW_V *e,
					       RW_V *o)
{
	RW_VU u, x;

	__builtin_memcpy(&u, p, sizeof(u));
	x = u << 16;
	__builtin_memcpy(e, &x, sizeof(x));
	x = u & 0xffff0000U;
	__builtin_memcpy(o, &x, sizeof(x));
}

#if RW_VL == 8
#define RW_ZIP_LO	((RW_VI) { 0, 8, 1, 9, 2, 10, 3, 11 })
#define RW_ZIP_HI	((RW_VI) { 4, 12, 5, 13, 6, 14, 7, 15 })
#else
#define RW_ZIP_LO	((RW_VI) { 0, 16, 1, 17, 2, 18, 3, 19, \
				  4, 20, 5, 21, 6, 22, 7, 23 })
#define RW_ZIP_HI	((RW_VI) { 8, 24, 9, 25, 10, 26, 11, 27, \
				  12, 28, 13, 29, 14, 30, 15, 31 })
#endif

#ifdef __CHECKER__
#define RW_VZIP(e, o, m)	(e)
#else
#define RW_VZIP(e, o, m)	__builtin_shuffle(e, o, m)
#endif

/* a[0..2) = sum over workers of bf16 elements [i, i + 2 * RW_VL). */
static __always_inline void RW_SIMD(sum2_bf16)(const void *const *src,
					       unsigned int nsrc, size_t i,
					       RW_V *a)
{
	RW_V e, o, x, y;
	unsigned int k;

	RW_SIMD(ld_bf16x2)((const u16 *)src[0] + i, &e, &o);
	for (k = 1; k < nsrc; k++) {
		RW_SIMD(ld_bf16x2)((const u16 *)src[k] + i, &x, &y);
		e += x;
		o += y;
	}
	a[0] = RW_VZIP(e, o, RW_ZIP_LO);
	a[1] = RW_VZIP(e, o, RW_ZIP_HI);
}

/* a[u] = sum over workers of the vector at element i + u * RW_VL. */
static __always_inline void RW_SIMD(sum4)(const void *const *src,
					  unsigned int nsrc, size_t i,
					  RW_V *a, u32 dtype)
{
	if (dtype == RW_AGG_BF16) {
		RW_V e0, o0, e1, o1, x, y;
		unsigned int k;

		RW_SIMD(ld_bf16x2)((const u16 *)src[0] + i, &e0, &o0);
		RW_SIMD(ld_bf16x2)((const u16 *)src[0] + i + 2 * RW_VL,
				   &e1, &o1);
		for (k = 1; k < nsrc; k++) {
			RW_SIMD(ld_bf16x2)((const u16 *)src[k] + i, &x, &y);
			e0 += x;
			o0 += y;
			RW_SIMD(ld_bf16x2)((const u16 *)src[k] + i + 2 * RW_VL,
					   &x, &y);
			e1 += x;
			o1 += y;
		}
		a[0] = RW_VZIP(e0, o0, RW_ZIP_LO);
		a[1] = RW_VZIP(e0, o0, RW_ZIP_HI);
		a[2] = RW_VZIP(e1, o1, RW_ZIP_LO);
		a[3] = RW_VZIP(e1, o1, RW_ZIP_HI);
		return;
	}
	RW_V a0 = RW_SIMD(ldk)(src[0], i, dtype);
	RW_V a1 = RW_SIMD(ldk)(src[0], i + RW_VL, dtype);
	RW_V a2 = RW_SIMD(ldk)(src[0], i + 2 * RW_VL, dtype);
	RW_V a3 = RW_SIMD(ldk)(src[0], i + 3 * RW_VL, dtype);
	unsigned int k;

	for (k = 1; k < nsrc; k++) {
		a0 += RW_SIMD(ldk)(src[k], i, dtype);
		a1 += RW_SIMD(ldk)(src[k], i + RW_VL, dtype);
		a2 += RW_SIMD(ldk)(src[k], i + 2 * RW_VL, dtype);
		a3 += RW_SIMD(ldk)(src[k], i + 3 * RW_VL, dtype);
	}
	a[0] = a0;
	a[1] = a1;
	a[2] = a2;
	a[3] = a3;
}

static __always_inline void RW_SIMD(sum2)(const void *const *src,
					  unsigned int nsrc, size_t i,
					  RW_V *a, u32 dtype)
{
	if (dtype == RW_AGG_BF16) {
		RW_SIMD(sum2_bf16)(src, nsrc, i, a);
		return;
	}
	RW_V a0 = RW_SIMD(ldk)(src[0], i, dtype);
	RW_V a1 = RW_SIMD(ldk)(src[0], i + RW_VL, dtype);
	unsigned int k;

	for (k = 1; k < nsrc; k++) {
		a0 += RW_SIMD(ldk)(src[k], i, dtype);
		a1 += RW_SIMD(ldk)(src[k], i + RW_VL, dtype);
	}
	a[0] = a0;
	a[1] = a1;
}

static __always_inline RW_V RW_SIMD(sum1)(const void *const *src,
					  unsigned int nsrc, size_t i,
					  u32 dtype)
{
	RW_V a = RW_SIMD(ldk)(src[0], i, dtype);
	unsigned int k;

	for (k = 1; k < nsrc; k++)
		a += RW_SIMD(ldk)(src[k], i, dtype);
	return a;
}

static __always_inline void RW_SIMD(sum_loop)(const struct rw_agg_chunk *c,
					      bool nt, u32 dtype)
{
	const void *const *src = c->src;
	unsigned int nsrc = c->nsrc;
	size_t i = c->off, end = i + c->n, head;
	float *out = c->out;
	RW_V a[4];

	if (nt) {
		head = i + rw_agg_head(out + i, RW_VBYTES, c->n);
		for (; i < head; i++)
			out[i] = rw_agg_elem_sum_of(c, i, dtype);
	}
	/*
	 * With one or two sources the loop is a streaming copy, and storing
	 * each vector as soon as it is ready keeps the write-combining
	 * buffers draining: 20% faster than four stores at a time here
	 * (docs/performance.md). With more sources the four-vector step wins.
	 */
	for (; (!nt || nsrc > 2) && i + 4 * RW_VL <= end; i += 4 * RW_VL) {
		RW_SIMD(sum4)(src, nsrc, i, a, dtype);
		RW_SIMD(st)(out + i, a[0], nt);
		RW_SIMD(st)(out + i + RW_VL, a[1], nt);
		RW_SIMD(st)(out + i + 2 * RW_VL, a[2], nt);
		RW_SIMD(st)(out + i + 3 * RW_VL, a[3], nt);
	}
	for (; i + RW_VL <= end; i += RW_VL)
		RW_SIMD(st1)(out + i, RW_SIMD(sum1)(src, nsrc, i, dtype), nt);
	for (; i < end; i++)
		out[i] = rw_agg_elem_sum_of(c, i, dtype);
	/* Streaming stores are weakly ordered: publish them before returning. */
	if (nt)
		__builtin_ia32_sfence();
}

static __always_inline void RW_SIMD(sum_as)(const struct rw_agg_chunk *c,
					    u32 dtype)
{
	if (c->flags & RW_AGG_F_STREAM)
		RW_SIMD(sum_loop)(c, true, dtype);
	else
		RW_SIMD(sum_loop)(c, false, dtype);
}

void RW_SIMD(sum_f32)(const struct rw_agg_chunk *c)
{
	RW_SIMD(sum_as)(c, RW_AGG_F32);
}

void RW_SIMD(sum_h16)(const struct rw_agg_chunk *c)
{
	if (c->dtype == RW_AGG_BF16)
		RW_SIMD(sum_as)(c, RW_AGG_BF16);
	else
		RW_SIMD(sum_as)(c, RW_AGG_F16);
}

/* The step's constants, broadcast once per call. */
struct rw_agg_vconsts {
	RW_V scale, wd, lr, mu, b1, c1, b2, c2, eps, step_size, inv_bc2_sqrt;
};

static __always_inline void RW_SIMD(consts_init)(struct rw_agg_vconsts *k,
						 const struct rw_agg_step *st)
{
	k->scale = RW_SIMD(splat)(st->scale);
	k->wd = RW_SIMD(splat)(st->wd);
	k->lr = RW_SIMD(splat)(st->lr);
	k->mu = RW_SIMD(splat)(st->mu);
	k->b1 = RW_SIMD(splat)(st->b1);
	k->c1 = RW_SIMD(splat)(st->c1);
	k->b2 = RW_SIMD(splat)(st->b2);
	k->c2 = RW_SIMD(splat)(st->c2);
	k->eps = RW_SIMD(splat)(st->eps);
	k->step_size = RW_SIMD(splat)(st->step_size);
	k->inv_bc2_sqrt = RW_SIMD(splat)(st->inv_bc2_sqrt);
}

/* One vector of the optimizer step, given the vector's sum s. */
static __always_inline void RW_SIMD(apply)(const struct rw_agg_vconsts *k,
					   u32 optim, RW_V s, float *p,
					   float *s0, float *s1, bool nt)
{
	RW_V vp, g, b, m, v, denom;

	/* The product alone, as rw_agg_elem_average: p is not even read. */
	if (optim == RW_AGG_AVERAGE) {
		RW_SIMD(st)(p, s * k->scale, nt);
		return;
	}
	vp = RW_SIMD(ld)(p);
	g = s * k->scale + k->wd * vp;
	switch (optim) {
	case RW_AGG_SGD:
		vp = vp - k->lr * g;
		break;
	case RW_AGG_MOMENTUM:
	case RW_AGG_NESTEROV:
		b = k->mu * RW_SIMD(ld)(s0) + g;
		RW_SIMD(st)(s0, b, nt);
		if (optim == RW_AGG_NESTEROV)
			vp = vp - k->lr * (g + k->mu * b);
		else
			vp = vp - k->lr * b;
		break;
	case RW_AGG_ADAM:
		m = k->b1 * RW_SIMD(ld)(s0) + k->c1 * g;
		v = k->b2 * RW_SIMD(ld)(s1) + k->c2 * (g * g);
		denom = RW_VSQRT(v) * k->inv_bc2_sqrt + k->eps;
		RW_SIMD(st)(s0, m, nt);
		RW_SIMD(st)(s1, v, nt);
		vp = vp - k->step_size * m / denom;
		break;
	}
	RW_SIMD(st)(p, vp, nt);
}

/* The scalar formula for element i (heads and tails). */
static __always_inline void RW_SIMD(apply1)(const struct rw_agg_chunk *c,
					    const struct rw_agg_step *st,
					    u32 optim, size_t i, u32 dtype)
{
	float s = rw_agg_elem_sum_of(c, i, dtype);

	switch (optim) {
	case RW_AGG_SGD:
		rw_agg_elem_sgd(st, s, &c->out[i]);
		break;
	case RW_AGG_MOMENTUM:
	case RW_AGG_NESTEROV:
		rw_agg_elem_momentum(st, s, &c->out[i], &c->state[0][i],
				     optim == RW_AGG_NESTEROV);
		break;
	case RW_AGG_ADAM:
		rw_agg_elem_adam(st, s, &c->out[i], &c->state[0][i],
				 &c->state[1][i]);
		break;
	case RW_AGG_AVERAGE:
		rw_agg_elem_average(st, s, &c->out[i]);
		break;
	}
}

static __always_inline void RW_SIMD(update_loop)(const struct rw_agg_chunk *c,
						 const struct rw_agg_step *st,
						 u32 optim, bool nt, u32 dtype)
{
	const void *const *src = c->src;
	float *p = c->out, *s0 = c->state[0], *s1 = c->state[1];
	size_t i = c->off, end = i + c->n, head;
	struct rw_agg_vconsts k;
	RW_V a[4];
	unsigned int u;

	RW_SIMD(consts_init)(&k, st);
	if (nt) {
		head = i + rw_agg_head(p + i, RW_VBYTES, c->n);
		for (; i < head; i++)
			RW_SIMD(apply1)(c, st, optim, i, dtype);
	}
	/*
	 * 16-bit slots carry half the bytes per element: four vectors a step
	 * give the widening and the step enough independent work to keep up
	 * with memory (docs/performance.md).
	 */
	for (; dtype != RW_AGG_F32 && i + 4 * RW_VL <= end; i += 4 * RW_VL) {
		RW_SIMD(sum4)(src, c->nsrc, i, a, dtype);
		for (u = 0; u < 4; u++)
			RW_SIMD(apply)(&k, optim, a[u], p + i + u * RW_VL,
				       s0 + i + u * RW_VL, s1 + i + u * RW_VL,
				       nt);
	}
	for (; i + 2 * RW_VL <= end; i += 2 * RW_VL) {
		RW_SIMD(sum2)(src, c->nsrc, i, a, dtype);
		RW_SIMD(apply)(&k, optim, a[0], p + i, s0 + i, s1 + i, nt);
		RW_SIMD(apply)(&k, optim, a[1], p + i + RW_VL,
			       s0 + i + RW_VL, s1 + i + RW_VL, nt);
	}
	for (; i + RW_VL <= end; i += RW_VL)
		RW_SIMD(apply)(&k, optim, RW_SIMD(sum1)(src, c->nsrc, i, dtype),
			       p + i, s0 + i, s1 + i, nt);
	for (; i < end; i++)
		RW_SIMD(apply1)(c, st, optim, i, dtype);
	if (nt)
		__builtin_ia32_sfence();
}

/*
 * Streaming stores need every output vector-aligned at the same element;
 * state arrays placed differently from the parameters fall back to cached
 * stores (results are the same either way).
 */
static bool RW_SIMD(update_nt)(const struct rw_agg_chunk *c, u32 optim)
{
	unsigned long mask = RW_VBYTES - 1;
	unsigned long pa = (unsigned long)c->out & mask;

	if (!(c->flags & RW_AGG_F_STREAM))
		return false;
	if (optim == RW_AGG_SGD || optim == RW_AGG_AVERAGE)
		return true;
	if (((unsigned long)c->state[0] & mask) != pa)
		return false;
	return optim != RW_AGG_ADAM ||
	       ((unsigned long)c->state[1] & mask) == pa;
}

/* Both store kinds of one optimizer's loop, chosen once per call. */
static __always_inline void RW_SIMD(update_as)(const struct rw_agg_chunk *c,
					       const struct rw_agg_step *st,
					       u32 optim, bool nt, u32 dtype)
{
	if (nt)
		RW_SIMD(update_loop)(c, st, optim, true, dtype);
	else
		RW_SIMD(update_loop)(c, st, optim, false, dtype);
}

/* Every optimizer's loop for slots of @dtype, one chosen per call. */
static __always_inline void RW_SIMD(update_of)(const struct rw_agg_chunk *c,
					       const struct rw_agg_step *st,
					       u32 dtype)
{
	bool nt = RW_SIMD(update_nt)(c, st->optim);

	switch (st->optim) {
	case RW_AGG_SGD:
		RW_SIMD(update_as)(c, st, RW_AGG_SGD, nt, dtype);
		break;
	case RW_AGG_MOMENTUM:
		RW_SIMD(update_as)(c, st, RW_AGG_MOMENTUM, nt, dtype);
		break;
	case RW_AGG_NESTEROV:
		RW_SIMD(update_as)(c, st, RW_AGG_NESTEROV, nt, dtype);
		break;
	case RW_AGG_ADAM:
		RW_SIMD(update_as)(c, st, RW_AGG_ADAM, nt, dtype);
		break;
	case RW_AGG_AVERAGE:
		RW_SIMD(update_as)(c, st, RW_AGG_AVERAGE, nt, dtype);
		break;
	}
}

void RW_SIMD(update_f32)(const struct rw_agg_chunk *c,
			 const struct rw_agg_step *st)
{
	RW_SIMD(update_of)(c, st, RW_AGG_F32);
}

void RW_SIMD(update_h16)(const struct rw_agg_chunk *c,
			 const struct rw_agg_step *st)
{
	if (c->dtype == RW_AGG_BF16)
		RW_SIMD(update_of)(c, st, RW_AGG_BF16);
	else
		RW_SIMD(update_of)(c, st, RW_AGG_F16);
}

#ifdef __CHECKER__
#define RW_VNARROW(u)	((RW_VH) { 0 })
#else
#define RW_VNARROW(u)	__builtin_convertvector(u, RW_VH)
#endif

/*
 * RW_VL floats at @s narrowed to @dtype at @d, as agg_half.h narrows
 * each: f16 by F16C's VCVTPS2PH (imm 0: to nearest even; a NaN keeps its
 * sign and payload's top bits, made quiet, as rw_f32_to_f16 does), bf16
 * on the bits: half the dropped ulp added, plus one if the kept is odd,
 * a NaN made quiet instead.
 */
static __always_inline void RW_SIMD(nr16)(u16 *d, const float *s, u32 dtype)
{
	RW_VU u, r, nan;
	RW_VH h;

#if defined(RW_VCVTPS2PH) && !defined(__CHECKER__)
	if (dtype == RW_AGG_F16) {
		RW_V v;

		__builtin_memcpy(&v, s, sizeof(v));
		h = (RW_VH)RW_VCVTPS2PH(v);
		__builtin_memcpy(d, &h, sizeof(h));
		return;
	}
#endif
	__builtin_memcpy(&u, s, sizeof(u));
	nan = (RW_VU)((u & 0x7fffffffU) > 0x7f800000U);
	r = (u + 0x7fffU + ((u >> 16) & 1)) >> 16;
	r = (r & ~nan) | (((u >> 16) | 0x40) & nan);
	h = RW_VNARROW(r);
	__builtin_memcpy(d, &h, sizeof(h));
}

void RW_SIMD(narrow_h16)(u16 *dst, const float *src, unsigned int n,
			 u32 dtype)
{
	unsigned int i = 0;
	u32 b;

	if (dtype == RW_AGG_BF16)
		for (; i + RW_VL <= n; i += RW_VL)
			RW_SIMD(nr16)(dst + i, src + i, RW_AGG_BF16);
	else
		for (; i + RW_VL <= n; i += RW_VL)
			RW_SIMD(nr16)(dst + i, src + i, RW_AGG_F16);
	for (; i < n; i++) {
		__builtin_memcpy(&b, &src[i], sizeof(b));
		dst[i] = dtype == RW_AGG_BF16 ? rw_f32_to_bf16(b) :
						rw_f32_to_f16(b);
	}
}

#undef RW_VBYTES
#undef RW_VU
#undef RW_VI
#undef RW_VH
#undef RW_VHS
#undef RW_VNARROW
#undef RW_VWIDEN
#undef RW_VFLOAT
