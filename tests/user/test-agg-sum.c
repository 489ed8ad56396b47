// SPDX-License-Identifier: GPL-2.0
/*
 * The tall sum of kmod/agg, natively: every implementation this CPU can run
 * against the definition ((src0 + src1) + src2) + ..., bit for bit, over
 * worker counts, odd sizes, misaligned pointers and both store kinds; NaN
 * and Inf behaving per IEEE in exactly their element; the same bits
 * whatever order the workers' pushes arrived in; argument checks; and the
 * init-time selection.
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

#define MAXW	RW_AGG_MAX_SRCS

static const unsigned int aggt_ws[] = { 1, 2, 3, 7, 8, 9, 33, 64 };
static const size_t aggt_sizes[] = {
	1, 3, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 257, 1000, 4099, 8192,
};

/*
 * Values whose sums depend on the order of addition: signs and magnitudes
 * spread over 2^-12 .. 2^12, so a kernel adding in any other order than
 * the definition produces different bits.
 */
static void aggt_fill_wide(float *p, size_t n, uint64_t *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = ldexpf(aggt_uniform(s, -1.0f, 1.0f),
			      (int)(aggt_rand(s) % 25) - 12);
}

/* The definition, one element at a time, in worker order. */
static void aggt_ref_sum(float *out, const float *const *src,
			 unsigned int nsrc, size_t n)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < n; i++) {
		float s = src[0][i];

		for (k = 1; k < nsrc; k++)
			s += src[k][i];
		out[i] = s;
	}
}

struct aggt_sum_case {
	struct aggt_buf src[MAXW];
	const float *sp[MAXW];
	struct aggt_buf out;
	float *ref;
	unsigned int nsrc;
	size_t n;
};

static void aggt_case_init(struct aggt_sum_case *t, unsigned int nsrc,
			   size_t n, unsigned int mis, uint64_t seed)
{
	unsigned int k;

	t->nsrc = nsrc;
	t->n = n;
	for (k = 0; k < nsrc; k++) {
		/* Each worker's slot misaligned its own way. */
		aggt_alloc(&t->src[k], n, (mis + 3 * k) % 16);
		aggt_fill_wide(t->src[k].p, n, &seed);
		t->sp[k] = t->src[k].p;
	}
	aggt_alloc(&t->out, n, (mis * 5) % 16);
	t->ref = test_malloc(n * sizeof(float));
	aggt_ref_sum(t->ref, t->sp, nsrc, n);
}

static void aggt_case_free(struct aggt_sum_case *t)
{
	unsigned int k;

	for (k = 0; k < t->nsrc; k++)
		aggt_free(&t->src[k]);
	aggt_free(&t->out);
	test_free(t->ref);
}

static struct rw_agg_chunk aggt_chunk(const struct aggt_sum_case *t,
				      float *out, u32 flags)
{
	struct rw_agg_chunk c = {
		.src = (const void *const *)t->sp,
		.nsrc = t->nsrc,
		.n = (unsigned int)t->n,
		.dtype = RW_AGG_F32,
		.flags = flags,
		.out = out,
	};

	return c;
}

static void aggt_expect_ref(const struct rw_agg_impl *impl,
			    const struct aggt_sum_case *t, u32 flags,
			    unsigned int mis)
{
	if (memcmp(t->out.p, t->ref, t->n * sizeof(float)) != 0) {
		size_t i;

		for (i = 0; i < t->n; i++)
			if (aggt_bits(t->out.p[i]) != aggt_bits(t->ref[i]))
				break;
		print_error("%s W=%u n=%zu mis=%u flags=%#x: element %zu is %a, definition says %a\n",
			    impl->name, t->nsrc, t->n, mis, flags, i,
			    t->out.p[i], t->ref[i]);
		fail();
	}
	assert_true(aggt_guards_ok(&t->out));
}

/* Bit-exact against the definition, for every W, size and alignment. */
static void aggt_test_sum_exact(void **state)
{
	unsigned int i, wi, si, mis, fl, checked = 0;

	(void)state;
	for (wi = 0; wi < ARRAY_SIZE(aggt_ws); wi++) {
		for (si = 0; si < ARRAY_SIZE(aggt_sizes); si++) {
			for (mis = 0; mis < 16; mis += 5) {
				struct aggt_sum_case t;

				aggt_case_init(&t, aggt_ws[wi], aggt_sizes[si],
					       mis, 1 + wi * 131 + si * 7 + mis);
				for (i = 0; i < rw_agg_nimpls; i++) {
					const struct rw_agg_impl *impl = aggt_impl(i);

					if (!impl)
						continue;
					for (fl = 0; fl <= RW_AGG_F_STREAM; fl++) {
						struct rw_agg_chunk c = aggt_chunk(&t, t.out.p, fl);

						memset(t.out.p, 0, t.n * sizeof(float));
						assert_int_equal(rw_agg_sum(impl, &c), 0);
						aggt_expect_ref(impl, &t, fl, mis);
						checked++;
					}
				}
				aggt_case_free(&t);
			}
		}
	}
	assert_true(checked >= ARRAY_SIZE(aggt_ws) * ARRAY_SIZE(aggt_sizes) * 8);
}

/* The largest W the interface accepts, and a window inside a chunk. */
static void aggt_test_sum_max_w_and_window(void **state)
{
	const size_t n = 777, off = 45, len = 600;
	struct aggt_sum_case t;
	unsigned int i, fl;

	(void)state;
	aggt_case_init(&t, MAXW, n, 1, 99);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);

		if (!impl)
			continue;
		for (fl = 0; fl <= RW_AGG_F_STREAM; fl++) {
			struct rw_agg_chunk c = aggt_chunk(&t, t.out.p, fl);
			size_t e;

			assert_int_equal(rw_agg_sum(impl, &c), 0);
			aggt_expect_ref(impl, &t, fl, 1);

			/* Only [off, off + len) may change. */
			memset(t.out.p, 0x55, n * sizeof(float));
			c.off = off;
			c.n = len;
			assert_int_equal(rw_agg_sum(impl, &c), 0);
			for (e = 0; e < n; e++) {
				if (e >= off && e < off + len)
					assert_int_equal(aggt_bits(t.out.p[e]),
							 aggt_bits(t.ref[e]));
				else
					assert_int_equal(aggt_bits(t.out.p[e]),
							 0x55555555U);
			}
		}
	}
	aggt_case_free(&t);
}

/* Summing into one of the slots (the first or the last) is allowed. */
static void aggt_test_sum_in_place(void **state)
{
	const size_t n = 1031;
	unsigned int i, fl, which;

	(void)state;
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);

		if (!impl)
			continue;
		for (fl = 0; fl <= RW_AGG_F_STREAM; fl++) {
			for (which = 0; which < 2; which++) {
				struct aggt_sum_case t;
				struct rw_agg_chunk c;
				unsigned int k;

				aggt_case_init(&t, 5, n, 2, 7 + which);
				k = which ? t.nsrc - 1 : 0;
				c = aggt_chunk(&t, t.src[k].p, fl);
				assert_int_equal(rw_agg_sum(impl, &c), 0);
				assert_memory_equal(t.src[k].p, t.ref,
						    n * sizeof(float));
				aggt_case_free(&t);
			}
		}
	}
}

/*
 * IEEE in exactly the elements concerned: a NaN from one worker makes that
 * element NaN, +Inf stays +Inf, +Inf + -Inf is NaN; no other element moves.
 * Elements are placed in vector bodies and in tails.
 */
static void aggt_test_sum_nan_inf(void **state)
{
	const size_t n = 203;
	unsigned int i, fl;

	(void)state;
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);

		if (!impl)
			continue;
		for (fl = 0; fl <= RW_AGG_F_STREAM; fl++) {
			struct aggt_sum_case t;
			struct rw_agg_chunk c;
			size_t e;

			aggt_case_init(&t, 8, n, 3, 1234);
			t.src[3].p[17] = NAN;
			t.src[7].p[202] = NAN;
			t.src[1].p[5] = INFINITY;
			t.src[0].p[100] = INFINITY;
			t.src[6].p[100] = -INFINITY;
			t.src[2].p[201] = -INFINITY;
			aggt_ref_sum(t.ref, t.sp, t.nsrc, n);
			c = aggt_chunk(&t, t.out.p, fl);
			assert_int_equal(rw_agg_sum(impl, &c), 0);
			for (e = 0; e < n; e++) {
				float v = t.out.p[e];

				if (e == 17 || e == 100 || e == 202)
					assert_true(isnan(v));
				else if (e == 5)
					assert_true(isinf(v) && v > 0);
				else if (e == 201)
					assert_true(isinf(v) && v < 0);
				else
					assert_int_equal(aggt_bits(v),
							 aggt_bits(t.ref[e]));
			}
			aggt_case_free(&t);
		}
	}
}

/*
 * A caller stores each push in the slot of its worker's rank, whichever
 * buffer the push happened to land in. Any arrival order then sums to the
 * same bits. Summing in arrival order instead does not, on these data:
 * that is checked too, so the test could catch an order-dependent kernel.
 */
static void aggt_test_sum_arrival_order(void **state)
{
	enum { W = 8, N = 4096, ORDERS = 24 };
	struct aggt_buf grad[W], pool[W], out, first;
	const float *slot[W], *arrival[W];
	unsigned int perm[W], i, k, o, differs = 0;
	uint64_t seed = 42;

	(void)state;
	for (k = 0; k < W; k++) {
		aggt_alloc(&grad[k], N, 0);
		aggt_alloc(&pool[k], N, k);
		aggt_fill_wide(grad[k].p, N, &seed);
	}
	aggt_alloc(&out, N, 0);
	aggt_alloc(&first, N, 0);
	for (i = 0; i < rw_agg_nimpls; i++) {
		const struct rw_agg_impl *impl = aggt_impl(i);

		if (!impl)
			continue;
		for (o = 0; o < ORDERS; o++) {
			struct rw_agg_chunk c = {
				.src = (const void *const *)slot, .nsrc = W,
				.n = N, .dtype = RW_AGG_F32, .out = out.p,
			};

			for (k = 0; k < W; k++)
				perm[k] = k;
			for (k = W - 1; o && k > 0; k--) {
				unsigned int j = aggt_rand(&seed) % (k + 1);
				unsigned int tmp = perm[k];

				perm[k] = perm[j];
				perm[j] = tmp;
			}
			/* The a-th push (from worker perm[a]) lands in pool[a]. */
			for (k = 0; k < W; k++) {
				memcpy(pool[k].p, grad[perm[k]].p, N * sizeof(float));
				slot[perm[k]] = pool[k].p;
				arrival[k] = pool[k].p;
			}
			assert_int_equal(rw_agg_sum(impl, &c), 0);
			if (o == 0 && i == 0)
				memcpy(first.p, out.p, N * sizeof(float));
			assert_memory_equal(out.p, first.p, N * sizeof(float));

			c.src = (const void *const *)arrival;
			assert_int_equal(rw_agg_sum(impl, &c), 0);
			differs += memcmp(out.p, first.p, N * sizeof(float)) != 0;
		}
	}
	/* Every shuffled arrival order, summed as it came, gave other bits. */
	assert_true(differs >= ORDERS - 2);
	for (k = 0; k < W; k++) {
		aggt_free(&grad[k]);
		aggt_free(&pool[k]);
	}
	aggt_free(&out);
	aggt_free(&first);
}

static void aggt_test_check(void **state)
{
	float a[8] = { 0 }, b[8] = { 0 }, o[8];
	const void *src[2] = { a, b }, *bad[2] = { a, NULL };
	const struct rw_agg_impl *impl = &rw_agg_impls[0];
	struct rw_agg_chunk c = {
		.src = src, .nsrc = 2, .n = 8, .dtype = RW_AGG_F32, .out = o,
	}, x;

	(void)state;
	assert_int_equal(rw_agg_sum(impl, &c), 0);
	x = c, x.nsrc = 0;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.nsrc = RW_AGG_MAX_SRCS + 1;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.src = bad;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.src = NULL;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.out = NULL;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.flags = 2;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.n = RW_AGG_MAX_ELEMS + 1;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.off = RW_AGG_MAX_ELEMS, x.n = 1;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.off = UINT32_MAX, x.n = 8;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	x = c, x.dtype = RW_AGG_DTYPE_COUNT;
	assert_int_equal(rw_agg_sum(impl, &x), -EINVAL);
	/* 16-bit slots: the implementations that have their kernels. */
	x = c, x.dtype = RW_AGG_BF16;
	assert_int_equal(rw_agg_sum(impl, &x),
			 impl->sum_h16 ? 0 : -EOPNOTSUPP);
	x = c, x.n = 0;
	assert_int_equal(rw_agg_sum(impl, &x), 0);
	assert_int_equal(rw_agg_update(impl, &c, NULL), -EINVAL);
}

static void aggt_test_table(void **state)
{
	unsigned int i;

	(void)state;
	assert_true(rw_agg_nimpls >= 3 && rw_agg_nimpls <= RW_AGG_MAX_IMPLS);
	assert_string_equal(rw_agg_impls[0].name, "scalar");
	assert_true(rw_agg_impls[0].usable());
	for (i = 0; i < rw_agg_nimpls; i++) {
		assert_non_null(rw_agg_impls[i].sum_f32);
		assert_non_null(rw_agg_impls[i].update_f32);
		assert_ptr_equal(rw_agg_impl_find(rw_agg_impls[i].name),
				 &rw_agg_impls[i]);
	}
	assert_null(rw_agg_impl_find("sse7"));
	/* This test host has AVX2 and AVX-512 (docs/testing.md). */
	if (__builtin_cpu_supports("avx512f"))
		assert_true(rw_agg_impl_find("avx512")->usable());
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		assert_true(rw_agg_impl_find("avx2")->usable());
}

/* The choice is usable, timed, and the fastest of those timed. */
static void aggt_test_select(void **state)
{
	struct rw_agg_choice ch;
	unsigned int i, chosen;
	void *scratch = test_malloc(RW_AGG_SELECT_SCRATCH);

	(void)state;
	assert_int_equal(rw_agg_select(&ch, scratch, RW_AGG_SELECT_SCRATCH - 1),
			 -EINVAL);
	assert_int_equal(rw_agg_select(&ch, scratch, RW_AGG_SELECT_SCRATCH), 0);
	assert_non_null(ch.impl);
	assert_true(ch.impl->usable());
	assert_true(ch.bytes > 0);
	chosen = ch.impl - rw_agg_impls;
	assert_true(chosen < rw_agg_nimpls);
	for (i = 0; i < rw_agg_nimpls; i++) {
		assert_int_equal(ch.ns[i] != 0, rw_agg_impls[i].usable());
		if (ch.ns[i])
			assert_true(ch.ns[chosen] <= ch.ns[i]);
	}
	test_free(scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aggt_test_sum_exact),
		cmocka_unit_test(aggt_test_sum_max_w_and_window),
		cmocka_unit_test(aggt_test_sum_in_place),
		cmocka_unit_test(aggt_test_sum_nan_inf),
		cmocka_unit_test(aggt_test_sum_arrival_order),
		cmocka_unit_test(aggt_test_check),
		cmocka_unit_test(aggt_test_table),
		cmocka_unit_test(aggt_test_select),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("agg-sum", tests, NULL, NULL);
}
