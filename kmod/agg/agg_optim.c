// SPDX-License-Identifier: GPL-2.0
/*
 * Optimizer settings to per-step constants. Everything that depends only
 * on the job's hyper-parameters, W and the step number is computed here,
 * once per call, so the kernels do no per-element work that is the same
 * for every element (Adam's bias corrections above all: a power and a
 * square root per step, not per element).
 *
 * Settings are f32 (what a job stores); derived constants are computed in
 * double and rounded once, as PyTorch computes its step size in double.
 * There is no libm in the kernel: the powers are by repeated squaring and
 * the square root is the instruction (-fno-math-errno keeps
 * __builtin_sqrt from calling sqrt()). Built with FPU flags: in the kernel
 * it runs inside an FPU section.
 */
#include "agg_impl.h"
#include "agg_elem.h"

/* b^t for 0 <= b < 1: at most 64 squarings, exact enough for 1 - b^t. */
static double rw_agg_powi(double b, u64 t)
{
	double r = 1.0;

	while (t) {
		if (t & 1)
			r *= b;
		b *= b;
		t >>= 1;
	}
	return r;
}

static bool rw_agg_in(float x, float lo, float hi)
{
	return x >= lo && x < hi;	/* false for NaN */
}

static bool rw_agg_finite(float x)
{
	return __builtin_isfinite(x);
}

static int rw_agg_prepare_adam(struct rw_agg_step *st,
			       const struct rw_agg_hparams *hp, u64 t)
{
	double bc1, bc2;

	if (!rw_agg_in(hp->beta1, 0.0f, 1.0f) ||
	    !rw_agg_in(hp->beta2, 0.0f, 1.0f) ||
	    !rw_agg_finite(hp->eps) || !(hp->eps > 0.0f) || t == 0)
		return -EINVAL;
	bc1 = 1.0 - rw_agg_powi(hp->beta1, t);
	bc2 = 1.0 - rw_agg_powi(hp->beta2, t);
	st->b1 = hp->beta1;
	st->c1 = (float)(1.0 - (double)hp->beta1);
	st->b2 = hp->beta2;
	st->c2 = (float)(1.0 - (double)hp->beta2);
	st->eps = hp->eps;
	st->step_size = (float)((double)hp->lr / bc1);
	st->inv_bc2_sqrt = (float)(1.0 / __builtin_sqrt(bc2));
	return 0;
}

int rw_agg_prepare(struct rw_agg_step *st, const struct rw_agg_hparams *hp,
		   unsigned int nsrc, u64 t)
{
	if (!st || !hp || nsrc == 0 || nsrc > RW_AGG_MAX_SRCS ||
	    hp->optim >= RW_AGG_OPTIM_COUNT || !rw_agg_finite(hp->scale))
		return -EINVAL;

	memset(st, 0, sizeof(*st));
	st->optim = hp->optim;
	/* 1/W rounded once; exact whenever W is a power of two. */
	st->scale = hp->scale != 0.0f ? hp->scale : (float)(1.0 / nsrc);
	/* The mean alone: lr and decay are ignored, as SGD ignores momentum. */
	if (hp->optim == RW_AGG_AVERAGE)
		return 0;
	if (!rw_agg_finite(hp->lr) || !(hp->lr >= 0.0f) ||
	    !rw_agg_finite(hp->weight_decay) || !(hp->weight_decay >= 0.0f))
		return -EINVAL;
	st->lr = hp->lr;
	st->wd = hp->weight_decay;

	switch (hp->optim) {
	case RW_AGG_SGD:
		return 0;
	case RW_AGG_MOMENTUM:
	case RW_AGG_NESTEROV:
		if (!rw_agg_in(hp->momentum, 0.0f, 1.0f))
			return -EINVAL;
		st->mu = hp->momentum;
		return 0;
	case RW_AGG_ADAM:
		return rw_agg_prepare_adam(st, hp, t);
	}
	return -EINVAL;
}
