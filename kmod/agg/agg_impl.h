/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation kernels: the pure interface shared by the module (through
 * kmod/agg/agg.c) and by user space (cmocka tests, scripts/bench-agg).
 *
 * One call works on one chunk: the W gradient slots of that chunk, one per
 * worker, are summed in worker-rank order,
 *
 *	sum[i] = ((src[0][i] + src[1][i]) + src[2][i]) + ... + src[W-1][i]
 *
 * and either stored (rw_agg_sum) or fed straight into the optimizer step on
 * the chunk's parameters (rw_agg_update) without ever being written out.
 * Every implementation adds in exactly that order, one element at a time
 * (SIMD lanes are elements, never partial sums), so the scalar, AVX2 and
 * AVX-512 sums are bit-identical and a caller that stores slots by worker
 * rank gets the same bits whatever order the pushes arrived in.
 *
 * The optimizer step follows PyTorch's torch.optim semantics (dampening 0):
 *
 *	g = sum * scale + weight_decay * p		(L2, coupled as in SGD/Adam)
 *	SGD:      p -= lr * g
 *	MOMENTUM: b = mu * b + g;  p -= lr * b
 *	NESTEROV: b = mu * b + g;  p -= lr * (g + mu * b)
 *	ADAM:     m = b1 * m + (1 - b1) * g;  v = b2 * v + (1 - b2) * g * g
 *		  p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
 *	AVERAGE:  p = sum * scale
 *
 * AVERAGE is no optimizer: the parameters become the mean of the
 * gradients (scale being 1/W), for trainers that keep their optimizer and
 * use the box as an all-reduce. It is the first product of the gradient
 * formula above, one rounding of the same tall sum (no FMA can fuse
 * into it), so every implementation gives the same bits, and so does a
 * caller that sums in rank order in f32 and multiplies by the same f32
 * scale; lr and weight decay are ignored, and there is no state.
 *
 * State starts at zero. PyTorch's first momentum step sets b = g, which is
 * what mu * 0 + g gives, so no first-step special case exists. The SIMD
 * kernels use fused multiply-add, so optimizer results may differ from the
 * scalar ones in the last bits (the tests allow a few ulp); the sum never.
 *
 * Gradients are typed (enum rw_agg_dtype): f32 slots, or 16-bit ones (f16,
 * bf16), whose elements are widened exactly (agg_half.h) and summed in f32
 * in the same order, so a 16-bit chunk sums to the bits its f32 image
 * would; parameters, the sum and the optimizer state are always f32. Every
 * implementation has 16-bit kernels; one without them would answer
 * -EOPNOTSUPP.
 *
 * All pointers are float-aligned; nothing else about alignment is assumed.
 * In the kernel every call into an implementation must sit between
 * kernel_fpu_begin() and kernel_fpu_end() (kmod/agg/agg.c does that).
 */
#ifndef _RW_AGG_IMPL_H
#define _RW_AGG_IMPL_H

#include "compat.h"

/* Largest chunk, in bytes of f32 output: bounds one FPU section's work. */
#define RW_AGG_MAX_CHUNK_BYTES	(1024U * 1024U)
#define RW_AGG_MAX_ELEMS	(RW_AGG_MAX_CHUNK_BYTES / 4)
/* Most worker slots summed by one call (any W works; this bounds time). */
#define RW_AGG_MAX_SRCS		256

enum rw_agg_dtype {
	RW_AGG_F32 = 0,
	RW_AGG_F16 = 1,		/* IEEE binary16 slots */
	RW_AGG_BF16 = 2,	/* bfloat16 slots */
	RW_AGG_DTYPE_COUNT
};

enum rw_agg_optim {
	RW_AGG_SGD = 0,
	RW_AGG_MOMENTUM = 1,
	RW_AGG_NESTEROV = 2,
	RW_AGG_ADAM = 3,
	RW_AGG_AVERAGE = 4,	/* the mean alone: no optimizer, no state */
	RW_AGG_OPTIM_COUNT
};

/*
 * Non-temporal (streaming) stores for the outputs: right when the output
 * will not be read again by this CPU soon (big buffers, output handed to a
 * NIC); wrong for a chunk that stays cache-resident. See docs/performance.md.
 */
#define RW_AGG_F_STREAM		0x1U
#define RW_AGG_F_ALL		RW_AGG_F_STREAM

/* A job's optimizer settings, as configured; validated by rw_agg_prepare. */
struct rw_agg_hparams {
	u32 optim;		/* enum rw_agg_optim */
	float lr;
	float momentum;		/* MOMENTUM, NESTEROV: 0 <= mu < 1 */
	float weight_decay;	/* >= 0, L2 added to the gradient */
	float beta1;		/* ADAM: 0 <= beta < 1 */
	float beta2;
	float eps;		/* ADAM: > 0 */
	float scale;		/* gradient = sum * scale; 0 means 1/W */
};

/*
 * Constants of one optimizer step, computed once per call (per chunk or per
 * job step) by rw_agg_prepare, never per element.
 */
struct rw_agg_step {
	u32 optim;
	float scale;
	float lr;
	float wd;
	float mu;
	float b1, c1;		/* ADAM: beta1, 1 - beta1 */
	float b2, c2;		/* ADAM: beta2, 1 - beta2 */
	float eps;
	float step_size;	/* ADAM: lr / (1 - beta1^t) */
	float inv_bc2_sqrt;	/* ADAM: 1 / sqrt(1 - beta2^t) */
};

/*
 * One unit of work: elements [off, off + n) of every array below. The
 * window lets a caller (and the kernel glue, which bounds FPU sections)
 * work on part of a chunk without building a new pointer array.
 */
struct rw_agg_chunk {
	const void *const *src;	/* nsrc gradient slots, in worker-rank order */
	unsigned int nsrc;	/* W, 1..RW_AGG_MAX_SRCS */
	unsigned int off;
	unsigned int n;		/* off + n <= RW_AGG_MAX_ELEMS */
	u32 dtype;		/* enum rw_agg_dtype of the slots */
	u32 flags;		/* RW_AGG_F_* */
	/*
	 * rw_agg_sum: the f32 sum (may be exactly one of the slots).
	 * rw_agg_update: the parameters, updated in place.
	 */
	float *out;
	float *state[2];	/* MOMENTUM/NESTEROV: [0] buffer; ADAM: m, v */
};

/*
 * One implementation, as in lib/raid6/algos.c: a name, whether this CPU and
 * OS can run it, and its kernels per gradient dtype (NULL: not provided).
 * The kernels trust their arguments; rw_agg_sum/rw_agg_update check them.
 */
struct rw_agg_impl {
	const char *name;
	bool (*usable)(void);
	void (*sum_f32)(const struct rw_agg_chunk *c);
	void (*update_f32)(const struct rw_agg_chunk *c,
			   const struct rw_agg_step *st);
	/* Slots of a 16-bit dtype (the chunk's: RW_AGG_F16 or _BF16). */
	void (*sum_h16)(const struct rw_agg_chunk *c);
	void (*update_h16)(const struct rw_agg_chunk *c,
			   const struct rw_agg_step *st);
	/*
	 * @n f32 narrowed to a 16-bit dtype, to nearest even, as
	 * agg_half.h does each (the published parameters of a 16-bit
	 * tensor): the same bits in every implementation.
	 */
	void (*narrow_h16)(u16 *dst, const float *src, unsigned int n,
			   u32 dtype);
};

#define RW_AGG_MAX_IMPLS	4

/* Every implementation built in, scalar first; scalar is always usable. */
extern const struct rw_agg_impl rw_agg_impls[];
extern const unsigned int rw_agg_nimpls;

const struct rw_agg_impl *rw_agg_impl_find(const char *name);

/*
 * Checked entry points: 0, or -EINVAL for a malformed chunk, -EOPNOTSUPP
 * for a dtype the implementation lacks. In the kernel, call them between
 * kernel_fpu_begin() and kernel_fpu_end().
 */
int rw_agg_check(const struct rw_agg_chunk *c, bool update, u32 optim);
int rw_agg_sum(const struct rw_agg_impl *impl, const struct rw_agg_chunk *c);
int rw_agg_update(const struct rw_agg_impl *impl,
		  const struct rw_agg_chunk *c, const struct rw_agg_step *st);

/*
 * @n elements of @src narrowed into @dst (checked: -EINVAL for a dtype
 * that is not 16-bit or @n past RW_AGG_MAX_ELEMS). In the kernel, between
 * kernel_fpu_begin() and kernel_fpu_end().
 */
int rw_agg_narrow(const struct rw_agg_impl *impl, u16 *dst, const float *src,
		  unsigned int n, u32 dtype);

/*
 * Fill *st for step t (1-based; Adam's bias correction needs it) of a job
 * summing nsrc workers. 0 or -EINVAL for settings that are out of range.
 * Uses floating point: in the kernel, call it inside an FPU section.
 */
int rw_agg_prepare(struct rw_agg_step *st, const struct rw_agg_hparams *hp,
		   unsigned int nsrc, u64 t);

/*
 * Selection at init: time every usable implementation on a cache-resident
 * chunk (sum plus a momentum step of RW_AGG_SELECT_NSRC slots of
 * RW_AGG_SELECT_ELEMS elements) and pick the fastest. The caller provides
 * the scratch memory (pure code never allocates); each timed call runs in
 * its own FPU section.
 */
#define RW_AGG_SELECT_NSRC	4
#define RW_AGG_SELECT_ELEMS	4096
/* The buffers are carved 64-byte aligned from it, as real chunks are. */
#define RW_AGG_SELECT_SCRATCH	((RW_AGG_SELECT_NSRC + 2) * \
				 RW_AGG_SELECT_ELEMS * sizeof(float) + 64)

struct rw_agg_choice {
	const struct rw_agg_impl *impl;		/* the fastest usable one */
	u64 ns[RW_AGG_MAX_IMPLS];		/* best time; 0: not usable */
	u32 bytes;				/* gradient bytes per timed call */
};

int rw_agg_select(struct rw_agg_choice *ch, void *scratch, size_t len);

/* The kernels of each implementation, named for the table in agg_select.c. */
void rw_agg_scalar_sum_f32(const struct rw_agg_chunk *c);
void rw_agg_scalar_update_f32(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st);
void rw_agg_scalar_sum_h16(const struct rw_agg_chunk *c);
void rw_agg_scalar_update_h16(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st);
void rw_agg_scalar_narrow_h16(u16 *dst, const float *src, unsigned int n,
			      u32 dtype);
void rw_agg_avx2_sum_f32(const struct rw_agg_chunk *c);
void rw_agg_avx2_update_f32(const struct rw_agg_chunk *c,
			    const struct rw_agg_step *st);
void rw_agg_avx2_sum_h16(const struct rw_agg_chunk *c);
void rw_agg_avx2_update_h16(const struct rw_agg_chunk *c,
			    const struct rw_agg_step *st);
void rw_agg_avx2_narrow_h16(u16 *dst, const float *src, unsigned int n,
			    u32 dtype);
void rw_agg_avx512_sum_f32(const struct rw_agg_chunk *c);
void rw_agg_avx512_update_f32(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st);
void rw_agg_avx512_sum_h16(const struct rw_agg_chunk *c);
void rw_agg_avx512_update_h16(const struct rw_agg_chunk *c,
			      const struct rw_agg_step *st);
void rw_agg_avx512_narrow_h16(u16 *dst, const float *src, unsigned int n,
			      u32 dtype);

#endif /* _RW_AGG_IMPL_H */
