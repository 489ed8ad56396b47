// SPDX-License-Identifier: GPL-2.0
/*
 * Averaging mode of kmod/agg (RW_AGG_AVERAGE): the step writes the mean of
 * the gradients as the parameters. Every implementation this CPU can run
 * must equal, bit for bit, what a trainer computes on its own: the f32 sum
 * in rank order, times the f32 scale (1/W as rw_agg_prepare rounds it), for
 * several W and lengths with vector bodies and tails, windows, misaligned
 * and streaming outputs. Also: that the reference is order-sensitive (so
 * the comparison can tell a wrong order), that the result is not an SGD
 * step, that lr and weight decay are ignored and no state is needed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "aggtest.h"

#define MAXW	33
#define MAXN	4099

/* Worker counts: one, powers of two (exact 1/W) and not (rounded 1/W). */
static const unsigned int aggt_ws[] = { 1, 2, 3, 4, 5, 7, 16, 33 };
/* Lengths around 8 and 16 lanes and their blocks, and longer ones. */
static const unsigned int aggt_ns[] = {
	1, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 1000, 1037, MAXN,
};

/* Gradients over many binades, both signs: every sum rounds. */
static void aggt_fill_wide(float *p, size_t n, uint64_t *s)
{
	size_t i;

	for (i = 0; i < n; i++) {
		float m = aggt_uniform(s, 1.0f, 2.0f);
		int e = (int)(aggt_rand(s) % 24) - 12;

		p[i] = ldexpf(aggt_rand(s) & 1 ? -m : m, e);
	}
}

/* What a trainer computes: the f32 sum in rank order, times the scale. */
static float aggt_ref_mean(const float *const *g, unsigned int w, size_t i,
			   float scale)
{
	float s = g[0][i];
	unsigned int k;

	for (k = 1; k < w; k++)
		s += g[k][i];
	return s * scale;
}

struct aggt_grads {
	struct aggt_buf g[MAXW];
	const float *gp[MAXW];
};

static void aggt_grads_make(struct aggt_grads *gs, unsigned int w, size_t n,
			    uint64_t *seed)
{
	unsigned int k;

	for (k = 0; k < w; k++) {
		aggt_alloc(&gs->g[k], n, k % 16);
		aggt_fill_wide(gs->g[k].p, n, seed);
		gs->gp[k] = gs->g[k].p;
	}
}

static void aggt_grads_free(struct aggt_grads *gs, unsigned int w)
{
	unsigned int k;

	for (k = 0; k < w; k++)
		aggt_free(&gs->g[k]);
}

static struct rw_agg_step aggt_average_step(unsigned int w, float scale)
{
	struct rw_agg_hparams hp = { .optim = RW_AGG_AVERAGE, .scale = scale };
	struct rw_agg_step st;

	assert_int_equal(rw_agg_prepare(&st, &hp, w, 1), 0);
	return st;
}

/*
 * One implementation on one case: the window [off, n) of an output that
 * holds junk first, at misalignment mis; elements outside the window and
 * the guards must be left alone.
 */
static void aggt_check_one(const struct rw_agg_impl *impl,
			   const struct aggt_grads *gs, unsigned int w,
			   size_t n, unsigned int off, unsigned int mis,
			   u32 flags, const struct rw_agg_step *st)
{
	struct rw_agg_chunk c = {
		.src = (const void *const *)gs->gp, .nsrc = w,
		.off = off, .n = (unsigned int)n - off, .dtype = RW_AGG_F32,
		.flags = flags,
	};
	struct aggt_buf out;
	size_t i;

	aggt_alloc(&out, n, mis);
	for (i = 0; i < n; i++)
		out.p[i] = 1234.5f;
	c.out = out.p;
	assert_int_equal(rw_agg_update(impl, &c, st), 0);
	for (i = 0; i < n; i++) {
		uint32_t want = i < off ? aggt_bits(1234.5f) :
			aggt_bits(aggt_ref_mean(gs->gp, w, i, st->scale));

		if (aggt_bits(out.p[i]) != want) {
			print_error("%s W=%u n=%zu off=%u mis=%u flags=%u element %zu: %a, want %a\n",
				    impl->name, w, n, off, mis, flags, i,
				    out.p[i], aggt_from_bits(want));
			fail();
		}
	}
	assert_true(aggt_guards_ok(&out));
	aggt_free(&out);
}

static void aggt_check_all(float scale)
{
	unsigned int wi, ni, i, fl, checked = 0;
	uint64_t seed = 31337;

	for (wi = 0; wi < ARRAY_SIZE(aggt_ws); wi++) {
		unsigned int w = aggt_ws[wi];
		struct rw_agg_step st = aggt_average_step(w, scale);

		assert_true(st.scale == (scale != 0.0f ? scale :
					 (float)(1.0 / w)));
		for (ni = 0; ni < ARRAY_SIZE(aggt_ns); ni++) {
			size_t n = aggt_ns[ni];
			struct aggt_grads gs;

			aggt_grads_make(&gs, w, n, &seed);
			for (i = 0; i < rw_agg_nimpls; i++) {
				const struct rw_agg_impl *impl = aggt_impl(i);

				for (fl = 0; impl && fl <= RW_AGG_F_STREAM; fl++) {
					aggt_check_one(impl, &gs, w, n, 0,
						       fl ? 0 : 3, fl, &st);
					aggt_check_one(impl, &gs, w, n,
						       n > 5 ? 5 : 0, 1, fl, &st);
					checked++;
				}
			}
			aggt_grads_free(&gs, w);
		}
	}
	print_message("# %u (W, length, implementation, store) cases bit-exact\n",
		      checked);
}

static void aggt_test_default_scale(void **state)
{
	(void)state;
	aggt_check_all(0.0f);
}

static void aggt_test_explicit_scale(void **state)
{
	(void)state;
	aggt_check_all(0.37f);
}

/*
 * The comparison above can tell a wrong summation order: with these data,
 * rank order and reverse order differ in many elements.
 */
static void aggt_test_order_matters(void **state)
{
	enum { W = 5, N = 1037 };
	const float scale = (float)(1.0 / W);
	struct aggt_grads gs;
	uint64_t seed = 99;
	unsigned int differ = 0, k;
	size_t i;

	(void)state;
	aggt_grads_make(&gs, W, N, &seed);
	for (i = 0; i < N; i++) {
		float rev = gs.gp[W - 1][i];

		for (k = W - 1; k-- > 0;)
			rev += gs.gp[k][i];
		differ += aggt_bits(rev * scale) !=
			  aggt_bits(aggt_ref_mean(gs.gp, W, i, scale));
	}
	print_message("# rank order and reverse order differ in %u of %u elements\n",
		      differ, N);
	assert_true(differ > N / 10);
	aggt_grads_free(&gs, W);
}

/*
 * Not an optimizer step: from the same parameters and gradients, SGD gives
 * p - lr * mean, averaging the mean itself, whatever lr and weight decay
 * say; no state array is needed.
 */
static void aggt_test_not_sgd(void **state)
{
	enum { W = 3, N = 1037 };
	struct rw_agg_hparams sgd = { .optim = RW_AGG_SGD, .lr = 0.1f };
	struct rw_agg_hparams avg = { .optim = RW_AGG_AVERAGE, .lr = 0.1f };
	struct aggt_buf p0, ps, pa, pb;
	struct rw_agg_step st;
	struct aggt_grads gs;
	uint64_t seed = 4242;
	unsigned int i, same;
	size_t e;

	(void)state;
	aggt_grads_make(&gs, W, N, &seed);
	aggt_alloc(&p0, N, 0);
	aggt_alloc(&ps, N, 0);
	aggt_alloc(&pa, N, 0);
	aggt_alloc(&pb, N, 0);
	aggt_fill(p0.p, N, &seed, -2.0f, 2.0f);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);
		struct rw_agg_chunk c = {
			.src = (const void *const *)gs.gp, .nsrc = W, .n = N,
			.dtype = RW_AGG_F32,
		};

		if (!impl)
			continue;
		memcpy(ps.p, p0.p, N * sizeof(float));
		memcpy(pa.p, p0.p, N * sizeof(float));
		memcpy(pb.p, p0.p, N * sizeof(float));
		assert_int_equal(rw_agg_prepare(&st, &sgd, W, 1), 0);
		c.out = ps.p;
		assert_int_equal(rw_agg_update(impl, &c, &st), 0);
		assert_int_equal(rw_agg_prepare(&st, &avg, W, 1), 0);
		c.out = pa.p;
		assert_int_equal(rw_agg_update(impl, &c, &st), 0);
		/* Other settings, even ones SGD would refuse: the same bits. */
		avg.lr = NAN;
		avg.weight_decay = -1.0f;
		avg.momentum = 7.0f;
		assert_int_equal(rw_agg_prepare(&st, &avg, W, 1), 0);
		assert_true(st.lr == 0.0f && st.wd == 0.0f);
		c.out = pb.p;
		assert_int_equal(rw_agg_update(impl, &c, &st), 0);
		assert_memory_equal(pa.p, pb.p, N * sizeof(float));
		avg.lr = 0.1f;
		avg.weight_decay = 0.0f;
		avg.momentum = 0.0f;

		same = 0;
		for (e = 0; e < N; e++) {
			float mean = aggt_ref_mean(gs.gp, W, e, (float)(1.0 / W));

			assert_int_equal(aggt_bits(pa.p[e]), aggt_bits(mean));
			same += aggt_bits(ps.p[e]) == aggt_bits(pa.p[e]);
			/* SGD moved the parameters by about lr * mean. */
			assert_true(fabs(ps.p[e] - (p0.p[e] - 0.1 * mean)) <=
				    1e-6 * fmax(1.0, fmax(fabs(p0.p[e]),
							  fabs(0.1 * mean))));
		}
		assert_int_equal(same, 0);
	}
	aggt_grads_free(&gs, W);
	aggt_free(&p0);
	aggt_free(&ps);
	aggt_free(&pa);
	aggt_free(&pb);
}

/* With scale 1 the average is the stored sum of rw_agg_sum, bit for bit. */
static void aggt_test_scale_one_is_sum(void **state)
{
	enum { W = 9, N = 2053 };
	struct aggt_buf sum, avg;
	struct rw_agg_step st = aggt_average_step(W, 1.0f);
	struct aggt_grads gs;
	uint64_t seed = 5;
	unsigned int i;

	(void)state;
	aggt_grads_make(&gs, W, N, &seed);
	aggt_alloc(&sum, N, 1);
	aggt_alloc(&avg, N, 2);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);
		struct rw_agg_chunk c = {
			.src = (const void *const *)gs.gp, .nsrc = W, .n = N,
			.dtype = RW_AGG_F32,
		};

		if (!impl)
			continue;
		c.out = sum.p;
		assert_int_equal(rw_agg_sum(impl, &c), 0);
		c.out = avg.p;
		assert_int_equal(rw_agg_update(impl, &c, &st), 0);
		assert_memory_equal(sum.p, avg.p, N * sizeof(float));
	}
	aggt_grads_free(&gs, W);
	aggt_free(&sum);
	aggt_free(&avg);
}

/* A NaN gradient poisons its own element only; bad settings are refused. */
static void aggt_test_nan_and_rejects(void **state)
{
	enum { W = 4, N = 100 };
	struct rw_agg_hparams hp = { .optim = RW_AGG_AVERAGE };
	struct rw_agg_step st = aggt_average_step(W, 0.0f);
	struct aggt_buf out;
	struct aggt_grads gs;
	uint64_t seed = 8;
	unsigned int i;
	size_t e;

	(void)state;
	aggt_grads_make(&gs, W, N, &seed);
	gs.g[2].p[40] = NAN;
	aggt_alloc(&out, N, 0);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);
		struct rw_agg_chunk c = {
			.src = (const void *const *)gs.gp, .nsrc = W, .n = N,
			.dtype = RW_AGG_F32, .out = out.p,
		};

		if (!impl)
			continue;
		assert_int_equal(rw_agg_update(impl, &c, &st), 0);
		for (e = 0; e < N; e++)
			assert_true(e == 40 ? isnan(out.p[e]) : isfinite(out.p[e]));
	}
	hp.scale = INFINITY;
	assert_int_equal(rw_agg_prepare(&st, &hp, W, 1), -EINVAL);
	hp.scale = 0.0f;
	assert_int_equal(rw_agg_prepare(&st, &hp, 0, 1), -EINVAL);
	assert_int_equal(rw_agg_prepare(&st, &hp, RW_AGG_MAX_SRCS + 1, 1),
			 -EINVAL);
	aggt_grads_free(&gs, W);
	aggt_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aggt_test_default_scale),
		cmocka_unit_test(aggt_test_explicit_scale),
		cmocka_unit_test(aggt_test_order_matters),
		cmocka_unit_test(aggt_test_not_sgd),
		cmocka_unit_test(aggt_test_scale_one_is_sum),
		cmocka_unit_test(aggt_test_nan_and_rejects),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("agg-average", tests, NULL, NULL);
}
