// SPDX-License-Identifier: GPL-2.0
/*
 * The fused optimizer steps of kmod/agg, natively. Each optimizer, with
 * and without weight decay and with the default 1/W and an explicit scale,
 * runs several steps on every implementation this CPU can run and is
 * compared with a straightforward double-precision transcription of
 * PyTorch's formulas (tolerance: what f32 rounding over those steps
 * allows), and each SIMD implementation with the scalar one (tighter: they
 * differ only where FMA rounds once instead of twice). Also: the per-step
 * constants, rejected settings, NaN confinement, and that the fused sum is
 * the same tall sum as rw_agg_sum.
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

#define W	5	/* not a power of two: 1/W is rounded */
#define N	1037	/* vector bodies and a tail for every width */
#define STEPS	6

/*
 * Tolerances, relative to max(1, |reference|): parameters and state are
 * O(1) here, so this is a few units in the last place at that magnitude.
 * Against double: accumulated f32 rounding over STEPS steps (observed
 * 2.5e-7 at worst). SIMD against scalar: FMA alone (observed
 * 3.7e-7).
 */
#define TOL_REF		1e-6
#define TOL_IMPL	ldexp(1.0, -20)

struct aggt_optim_case {
	const char *name;
	u32 optim;
	float wd;
	float scale;
};

static const struct aggt_optim_case aggt_cases[] = {
	{ "plain", 0, 0.0f, 0.0f },
	{ "weight decay", 0, 0.01f, 0.0f },
	{ "explicit scale", 0, 0.0f, 0.37f },
	{ "both", 0, 0.05f, 0.25f },
};

static struct rw_agg_hparams aggt_hparams(u32 optim,
					  const struct aggt_optim_case *k)
{
	struct rw_agg_hparams hp = {
		.optim = optim,
		.lr = optim == RW_AGG_ADAM ? 0.01f : 0.1f,
		.momentum = 0.9f,
		.weight_decay = k->wd,
		.beta1 = 0.9f,
		.beta2 = 0.999f,
		.eps = 1e-8f,
		.scale = k->scale,
	};

	return hp;
}

/* PyTorch's update in double; the sum itself is the f32 definition. */
static void aggt_ref_step(const struct rw_agg_hparams *hp, uint64_t t,
			  const float *const *g32, double *p, double *s0,
			  double *s1)
{
	double scale = hp->scale != 0.0f ? hp->scale : 1.0 / W;
	double bc1 = 1.0 - pow(hp->beta1, (double)t);
	double bc2 = 1.0 - pow(hp->beta2, (double)t);
	size_t i;
	unsigned int k;

	for (i = 0; i < N; i++) {
		float sum = g32[0][i];
		double g;

		for (k = 1; k < W; k++)
			sum += g32[k][i];
		g = (double)sum * scale + (double)hp->weight_decay * p[i];
		switch (hp->optim) {
		case RW_AGG_SGD:
			p[i] -= hp->lr * g;
			break;
		case RW_AGG_MOMENTUM:
			s0[i] = hp->momentum * s0[i] + g;
			p[i] -= hp->lr * s0[i];
			break;
		case RW_AGG_NESTEROV:
			s0[i] = hp->momentum * s0[i] + g;
			p[i] -= hp->lr * (g + hp->momentum * s0[i]);
			break;
		case RW_AGG_ADAM:
			s0[i] = hp->beta1 * s0[i] + (1.0 - hp->beta1) * g;
			s1[i] = hp->beta2 * s1[i] + (1.0 - hp->beta2) * g * g;
			p[i] -= (hp->lr / bc1) * s0[i] /
				(sqrt(s1[i]) / sqrt(bc2) + hp->eps);
			break;
		}
	}
}

static double aggt_err(float a, double ref)
{
	return fabs((double)a - ref) / fmax(1.0, fabs(ref));
}

struct aggt_run {
	struct aggt_buf p, s0, s1;
};

/* STEPS steps of impl from the same start; params and state out. */
static void aggt_run_impl(const struct rw_agg_impl *impl,
			  const struct rw_agg_hparams *hp, u32 flags,
			  unsigned int mis, struct aggt_run *r)
{
	struct aggt_buf g[W];
	const float *gp[W];
	uint64_t seed = 777;
	struct rw_agg_step st;
	unsigned int k, t;

	aggt_alloc(&r->p, N, mis);
	aggt_alloc(&r->s0, N, (mis + 7) % 16);
	aggt_alloc(&r->s1, N, (mis + 2) % 16);
	aggt_fill(r->p.p, N, &seed, -2.0f, 2.0f);
	memset(r->s0.p, 0, N * sizeof(float));
	memset(r->s1.p, 0, N * sizeof(float));
	for (k = 0; k < W; k++) {
		aggt_alloc(&g[k], N, k);
		gp[k] = g[k].p;
	}
	for (t = 1; t <= STEPS; t++) {
		struct rw_agg_chunk c = {
			.src = (const void *const *)gp, .nsrc = W, .n = N,
			.dtype = RW_AGG_F32, .flags = flags, .out = r->p.p,
			.state = { r->s0.p, r->s1.p },
		};

		for (k = 0; k < W; k++)
			aggt_fill(g[k].p, N, &seed, -1.0f, 1.0f);
		assert_int_equal(rw_agg_prepare(&st, hp, W, t), 0);
		assert_int_equal(rw_agg_update(impl, &c, &st), 0);
	}
	assert_true(aggt_guards_ok(&r->p));
	assert_true(aggt_guards_ok(&r->s0));
	assert_true(aggt_guards_ok(&r->s1));
	for (k = 0; k < W; k++)
		aggt_free(&g[k]);
}

static void aggt_run_free(struct aggt_run *r)
{
	aggt_free(&r->p);
	aggt_free(&r->s0);
	aggt_free(&r->s1);
}

/* The same STEPS steps in double, from the same data. */
static void aggt_run_ref(const struct rw_agg_hparams *hp, double *p,
			 double *s0, double *s1)
{
	struct aggt_buf g[W];
	const float *gp[W];
	uint64_t seed = 777;
	unsigned int k, t;
	size_t i;

	for (i = 0; i < N; i++) {
		p[i] = aggt_uniform(&seed, -2.0f, 2.0f);
		s0[i] = s1[i] = 0.0;
	}
	for (k = 0; k < W; k++) {
		aggt_alloc(&g[k], N, 0);
		gp[k] = g[k].p;
	}
	for (t = 1; t <= STEPS; t++) {
		for (k = 0; k < W; k++)
			aggt_fill(g[k].p, N, &seed, -1.0f, 1.0f);
		aggt_ref_step(hp, t, gp, p, s0, s1);
	}
	for (k = 0; k < W; k++)
		aggt_free(&g[k]);
}

static void aggt_check_optim(u32 optim)
{
	static double p[N], s0[N], s1[N];
	unsigned int ci, i, fl, nstate = optim == RW_AGG_ADAM ? 2 :
				      optim == RW_AGG_SGD ? 0 : 1;

	for (ci = 0; ci < ARRAY_SIZE(aggt_cases); ci++) {
		struct rw_agg_hparams hp = aggt_hparams(optim, &aggt_cases[ci]);
		struct aggt_run scalar;
		double worst = 0.0, worst_impl = 0.0;

		aggt_run_ref(&hp, p, s0, s1);
		aggt_run_impl(&rw_agg_impls[0], &hp, 0, 0, &scalar);
		for (i = 0; i < rw_agg_nimpls; i++) {
			const struct rw_agg_impl *impl = aggt_impl(i);

			for (fl = 0; impl && fl <= RW_AGG_F_STREAM; fl++) {
				struct aggt_run r;
				size_t e;

				/* Alignments that do and do not allow streaming. */
				aggt_run_impl(impl, &hp, fl, fl ? 0 : 3, &r);
				for (e = 0; e < N; e++) {
					double ep = aggt_err(r.p.p[e], p[e]);
					double e0 = nstate ? aggt_err(r.s0.p[e], s0[e]) : 0;
					double e1 = nstate > 1 ? aggt_err(r.s1.p[e], s1[e]) : 0;
					double ei = aggt_err(r.p.p[e], scalar.p.p[e]);

					worst = fmax(worst, fmax(ep, fmax(e0, e1)));
					worst_impl = fmax(worst_impl, ei);
					if (ep > TOL_REF || e0 > TOL_REF || e1 > TOL_REF ||
					    ei > TOL_IMPL) {
						print_error("%s/%s flags=%u element %zu: p=%a ref %a scalar %a; state %a %a ref %a %a\n",
							    impl->name, aggt_cases[ci].name,
							    fl, e, r.p.p[e], p[e],
							    scalar.p.p[e], r.s0.p[e],
							    r.s1.p[e], s0[e], s1[e]);
						fail();
					}
				}
				aggt_run_free(&r);
			}
		}
		print_message("# %s: worst relative error %.2g vs double, %.2g vs scalar\n",
			      aggt_cases[ci].name, worst, worst_impl);
		aggt_run_free(&scalar);
	}
}

static void aggt_test_sgd(void **state)
{
	(void)state;
	aggt_check_optim(RW_AGG_SGD);
}

static void aggt_test_momentum(void **state)
{
	(void)state;
	aggt_check_optim(RW_AGG_MOMENTUM);
}

static void aggt_test_nesterov(void **state)
{
	(void)state;
	aggt_check_optim(RW_AGG_NESTEROV);
}

static void aggt_test_adam(void **state)
{
	(void)state;
	aggt_check_optim(RW_AGG_ADAM);
}

/* Bias corrections and the other constants, computed once per call. */
static void aggt_test_prepare(void **state)
{
	static const uint64_t ts[] = { 1, 2, 10, 1000, 1000000 };
	struct aggt_optim_case k = { "", 0, 0.0f, 0.0f };
	struct rw_agg_hparams hp = aggt_hparams(RW_AGG_ADAM, &k);
	struct rw_agg_step st;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		double bc1 = 1.0 - pow(0.9f, (double)ts[i]);
		double bc2 = 1.0 - pow(0.999f, (double)ts[i]);

		assert_int_equal(rw_agg_prepare(&st, &hp, 3, ts[i]), 0);
		assert_true(fabs(st.step_size - 0.01f / bc1) <= 1e-6 * 0.01f / bc1);
		assert_true(fabs(st.inv_bc2_sqrt - 1.0 / sqrt(bc2)) <=
			    1e-6 / sqrt(bc2));
		assert_true(st.scale == 1.0f / 3.0f);
		/* 1 - beta is exact in f32 for beta in [0.5, 1) (Sterbenz). */
		assert_true(st.c1 == 1.0f - 0.9f && st.c2 == 1.0f - 0.999f);
		assert_true(st.b2 == 0.999f && st.eps == 1e-8f);
	}
	hp.scale = 0.5f;
	assert_int_equal(rw_agg_prepare(&st, &hp, 3, 1), 0);
	assert_true(st.scale == 0.5f);
}

static void aggt_test_prepare_rejects(void **state)
{
	struct aggt_optim_case k = { "", 0, 0.0f, 0.0f };
	struct rw_agg_hparams ok = aggt_hparams(RW_AGG_ADAM, &k), hp;
	struct rw_agg_step st;

	(void)state;
	assert_int_equal(rw_agg_prepare(&st, &ok, 4, 1), 0);
	assert_int_equal(rw_agg_prepare(&st, &ok, 4, 0), -EINVAL);
	assert_int_equal(rw_agg_prepare(&st, &ok, 0, 1), -EINVAL);
	assert_int_equal(rw_agg_prepare(&st, &ok, RW_AGG_MAX_SRCS + 1, 1),
			 -EINVAL);
	hp = ok, hp.optim = RW_AGG_OPTIM_COUNT;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.lr = NAN;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.lr = -0.1f;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.weight_decay = INFINITY;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.beta1 = 1.0f;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.beta2 = -0.5f;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.eps = 0.0f;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.scale = NAN;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	hp = ok, hp.optim = RW_AGG_MOMENTUM, hp.momentum = 1.0f;
	assert_int_equal(rw_agg_prepare(&st, &hp, 4, 1), -EINVAL);
	/* Momentum without its buffer, Adam without v. */
	{
		float a[4] = { 0 }, p[4] = { 0 }, b[4] = { 0 };
		const void *src[1] = { a };
		struct rw_agg_chunk c = {
			.src = src, .nsrc = 1, .n = 4, .dtype = RW_AGG_F32,
			.out = p, .state = { b, NULL },
		};

		hp = ok, hp.optim = RW_AGG_MOMENTUM;
		assert_int_equal(rw_agg_prepare(&st, &hp, 1, 1), 0);
		assert_int_equal(rw_agg_update(&rw_agg_impls[0], &c, &st), 0);
		assert_int_equal(rw_agg_prepare(&st, &ok, 1, 1), 0);
		assert_int_equal(rw_agg_update(&rw_agg_impls[0], &c, &st),
				 -EINVAL);
		c.state[0] = NULL;
		assert_int_equal(rw_agg_prepare(&st, &hp, 1, 1), 0);
		assert_int_equal(rw_agg_update(&rw_agg_impls[0], &c, &st),
				 -EINVAL);
	}
}

/*
 * With lr 1, scale 1 and no decay, SGD from p = 0 leaves p = -sum: the
 * fused kernel's sum must be the same tall sum, bit for bit.
 */
static void aggt_test_fused_sum_exact(void **state)
{
	enum { NW = 9, NN = 2053 };
	struct aggt_buf g[NW], p, ref;
	const float *gp[NW];
	struct rw_agg_hparams hp = { .optim = RW_AGG_SGD, .lr = 1.0f,
				     .scale = 1.0f };
	struct rw_agg_step st;
	uint64_t seed = 5;
	unsigned int i, k;

	(void)state;
	for (k = 0; k < NW; k++) {
		aggt_alloc(&g[k], NN, k);
		aggt_fill(g[k].p, NN, &seed, -1000.0f, 1000.0f);
		gp[k] = g[k].p;
	}
	aggt_alloc(&p, NN, 1);
	aggt_alloc(&ref, NN, 0);
	for (i = 0; i < NN; i++) {
		float s = gp[0][i];

		for (k = 1; k < NW; k++)
			s += gp[k][i];
		ref.p[i] = -s;
	}
	assert_int_equal(rw_agg_prepare(&st, &hp, NW, 1), 0);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);
		struct rw_agg_chunk c = {
			.src = (const void *const *)gp, .nsrc = NW, .n = NN,
			.dtype = RW_AGG_F32, .out = p.p,
		};

		if (!impl)
			continue;
		memset(p.p, 0, NN * sizeof(float));
		assert_int_equal(rw_agg_update(impl, &c, &st), 0);
		assert_memory_equal(p.p, ref.p, NN * sizeof(float));
	}
	for (k = 0; k < NW; k++)
		aggt_free(&g[k]);
	aggt_free(&p);
	aggt_free(&ref);
}

/* A NaN gradient poisons its own element's parameter and state only. */
static void aggt_test_update_nan(void **state)
{
	struct aggt_optim_case k = { "", 0, 0.01f, 0.0f };
	static const u32 optims[] = { RW_AGG_MOMENTUM, RW_AGG_ADAM };
	unsigned int i, o;

	(void)state;
	for (o = 0; o < ARRAY_SIZE(optims); o++) {
		struct rw_agg_hparams hp = aggt_hparams(optims[o], &k);

		for (i = 0; i < rw_agg_nimpls; i++) {
			const struct rw_agg_impl *impl = aggt_impl(i);
			float g[3][N], p[2][N], m[2][N], v[2][N];
			const float *gp[3] = { g[0], g[1], g[2] };
			struct rw_agg_step st;
			uint64_t seed = 9;
			unsigned int run;
			size_t e;

			if (!impl)
				continue;
			aggt_fill(&g[0][0], 3 * N, &seed, -1.0f, 1.0f);
			assert_int_equal(rw_agg_prepare(&st, &hp, 3, 1), 0);
			for (run = 0; run < 2; run++) {
				struct rw_agg_chunk c = {
					.src = (const void *const *)gp,
					.nsrc = 3, .n = N, .dtype = RW_AGG_F32,
					.out = p[run], .state = { m[run], v[run] },
				};

				for (e = 0; e < N; e++) {
					p[run][e] = 1.0f;
					m[run][e] = v[run][e] = 0.0f;
				}
				if (run)
					g[1][40] = g[2][N - 1] = NAN;
				assert_int_equal(rw_agg_update(impl, &c, &st), 0);
			}
			for (e = 0; e < N; e++) {
				if (e == 40 || e == N - 1) {
					assert_true(isnan(p[1][e]) && isnan(m[1][e]));
					continue;
				}
				assert_int_equal(aggt_bits(p[1][e]), aggt_bits(p[0][e]));
				assert_int_equal(aggt_bits(m[1][e]), aggt_bits(m[0][e]));
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aggt_test_sgd),
		cmocka_unit_test(aggt_test_momentum),
		cmocka_unit_test(aggt_test_nesterov),
		cmocka_unit_test(aggt_test_adam),
		cmocka_unit_test(aggt_test_prepare),
		cmocka_unit_test(aggt_test_prepare_rejects),
		cmocka_unit_test(aggt_test_fused_sum_exact),
		cmocka_unit_test(aggt_test_update_nan),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("agg-optim", tests, NULL, NULL);
}
