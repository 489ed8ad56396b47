// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk engine over a model with 16-bit tensors (f16, bf16) mixed with
 * f32 ones: gradients pushed in their types, summed and stepped in f32 on
 * masters, parameters published in their types rounded to nearest even.
 * The expected bits come from the f32 kernels run on the gradients
 * widened by hand, tensor part by tensor part, then narrowed by hand, so
 * the engine's runs (chunk/layout.h, engine/half.c), its widening inside
 * the kernels and its publication are all checked against another path.
 * This file has no FPU flags: the f32 kernels go through the agg glue.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rw.h"
#include "engine/engine.h"
#include "agg/agg.h"
#include "agg/agg_half.h"
#include "engine_kunit.h"

#define RW_H_WORKERS	3
#define RW_H_CS		4096U
#define RW_H_TIMEOUT	(10 * HZ)

/*
 * Odd sizes, types side by side, tensors across chunk boundaries: 7
 * chunks of 4 KiB, two bf16 tensors after each other (one run), an f32
 * tensor of 3 elements inside a chunk of 16-bit ones.
 */
static const struct rw_layout_tensor rw_h_odd[] = {
	{ .key = 1, .nelems = 5001, .dtype = RW_DTYPE_BF16 },
	{ .key = 2, .nelems = 3, .dtype = RW_DTYPE_F32 },
	{ .key = 3, .nelems = 3001, .dtype = RW_DTYPE_F16 },
	{ .key = 4, .nelems = 77, .dtype = RW_DTYPE_BF16 },
	{ .key = 5, .nelems = 70, .dtype = RW_DTYPE_BF16 },
	{ .key = 6, .nelems = 1500, .dtype = RW_DTYPE_F32 },
	{ .key = 9, .nelems = 2221, .dtype = RW_DTYPE_F16 },
};

/*
 * Sizes whose every part fills whole vectors of every implementation
 * (16-bit tensors multiples of 32 elements, f32 of 16, chunks cutting them
 * at multiples of those): an optimizer with state gives the same bits
 * by tensor part as by the engine's runs, fused multiply-adds and all.
 */
static const struct rw_layout_tensor rw_h_whole[] = {
	{ .key = 1, .nelems = 4096, .dtype = RW_DTYPE_BF16 },
	{ .key = 2, .nelems = 32, .dtype = RW_DTYPE_F32 },
	{ .key = 3, .nelems = 1536, .dtype = RW_DTYPE_F16 },
	{ .key = 4, .nelems = 64, .dtype = RW_DTYPE_BF16 },
	{ .key = 5, .nelems = 2048, .dtype = RW_DTYPE_BF16 },
	{ .key = 6, .nelems = 1024, .dtype = RW_DTYPE_F32 },
};

static void rw_h_f32(float *f, u32 bits)
{
	memcpy(f, &bits, sizeof(bits));
}

static void rw_h_config(struct rw_engine_config *cfg,
			const struct rw_layout_tensor *t, u32 n, u32 optim)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = "kunit-half";
	cfg->tensors = t;
	cfg->nr_tensors = n;
	cfg->chunk_size = RW_H_CS;
	cfg->nr_workers = RW_H_WORKERS;
	cfg->hp.optim = optim;
	rw_h_f32(&cfg->hp.lr, 0x3c23d70a);		/* 0.01 */
	rw_h_f32(&cfg->hp.momentum, 0x3f666666);	/* 0.9 */
	rw_h_f32(&cfg->hp.weight_decay, 0x3a83126f);	/* 0.001 */
}

/*
 * Worker @w's gradient of chunk @c at @step in the chunk's bytes: each
 * tensor's part in its type (a 16-bit one rounded from the f32 patterns
 * of rw_kt_grad()), zeros between tensors. @pat: scratch of a chunk.
 */
static void rw_h_grad(const struct rw_layout *l, u32 c, u32 step, u32 w,
		      u8 *out, u32 *pat)
{
	u32 first, count, t, i;
	struct rw_layout_seg s;

	memset(out, 0, RW_H_CS);
	rw_kt_grad(pat, RW_H_CS, step, w, c);
	if (rw_layout_chunk_tensors(l, c, &first, &count))
		return;
	for (t = first; t < first + count; t++) {
		if (rw_layout_seg(l, c, t, &s))
			return;
		for (i = 0; i < s.nelems; i++) {
			u32 b = pat[(s.chunk_off / 4 + i) % (RW_H_CS / 4)];

			if (s.dtype == RW_DTYPE_F32)
				memcpy(out + s.chunk_off + 4 * i, &b, 4);
			else
				((u16 *)(out + s.chunk_off))[i] =
					s.dtype == RW_DTYPE_BF16 ?
					rw_f32_to_bf16(b) : rw_f32_to_f16(b);
		}
	}
}

/* The reference of one run: masters and state of every chunk, 2 * cs. */
struct rw_h_ref {
	const struct rw_layout *l;
	struct rw_agg_hparams hp;
	float *master;
	float *state;
	u8 *grads;			/* W chunks, the step's */
	float *wide;			/* W tensor parts widened */
	u32 *pat;
	u8 *want;			/* a chunk's published bytes */
};

static void rw_h_ref_init(struct kunit *test, struct rw_h_ref *r,
			  const struct rw_layout *l,
			  const struct rw_engine_config *cfg)
{
	u32 n = l->geom.nr_chunks;

	r->l = l;
	r->hp = cfg->hp;
	r->master = kunit_kzalloc(test, n * 2 * RW_H_CS, GFP_KERNEL);
	r->state = kunit_kzalloc(test, n * 2 * RW_H_CS, GFP_KERNEL);
	r->grads = kunit_kzalloc(test, RW_H_WORKERS * RW_H_CS, GFP_KERNEL);
	r->wide = kunit_kzalloc(test, RW_H_WORKERS * 2 * RW_H_CS, GFP_KERNEL);
	r->pat = kunit_kzalloc(test, RW_H_CS, GFP_KERNEL);
	r->want = kunit_kzalloc(test, RW_H_CS, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, r->master && r->state && r->grads && r->wide &&
			  r->pat && r->want);
}

/*
 * Step @step of chunk @c in the reference, tensor part by tensor part
 * with the f32 kernel on widened gradients, and its published bytes into
 * r->want. The step's gradients are in r->grads.
 */
static void rw_h_ref_step(struct kunit *test, struct rw_h_ref *r, u32 c,
			  u32 step)
{
	float *cm = r->master + c * (2 * RW_H_CS / 4);
	float *cst = r->state + c * (2 * RW_H_CS / 4);
	const void *src[RW_H_WORKERS];
	struct rw_layout_seg s;
	struct rw_agg_step st;
	u32 first, count, t, w, sz;

	KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &r->hp, RW_H_WORKERS,
						  step + 1), 0);
	KUNIT_ASSERT_EQ(test, rw_layout_chunk_tensors(r->l, c, &first, &count),
			0);
	memset(r->want, 0, RW_H_CS);
	for (t = first; t < first + count; t++) {
		struct rw_agg_chunk ch = {
			.src = src, .nsrc = RW_H_WORKERS, .dtype = RW_AGG_F32,
		};

		KUNIT_ASSERT_EQ(test, rw_layout_seg(r->l, c, t, &s), 0);
		sz = rw_dtype_size(s.dtype);
		for (w = 0; w < RW_H_WORKERS; w++) {
			const u8 *g = r->grads + w * RW_H_CS + s.chunk_off;
			float *to = r->wide + w * (2 * RW_H_CS / 4);

			if (sz == 4)
				memcpy(to, g, s.nelems * 4);
			else
				rw_half_widen(to, (const u16 *)g, s.nelems,
					      s.dtype == RW_DTYPE_BF16);
			src[w] = to;
		}
		ch.n = s.nelems;
		ch.out = cm + s.chunk_off / 2;
		ch.state[0] = cst + s.chunk_off / 2;
		KUNIT_ASSERT_EQ(test, rw_agg_update_chunk(&ch, &st), 0);
		if (sz == 4)
			memcpy(r->want + s.chunk_off, ch.out, s.nelems * 4);
		else
			rw_half_narrow((u16 *)(r->want + s.chunk_off), ch.out,
				       s.nelems, s.dtype == RW_DTYPE_BF16);
	}
}

/*
 * @steps steps of @e, workers pushing in rank order or backwards; after
 * each, every chunk's published bytes and version match the reference.
 */
static void rw_h_run(struct kunit *test, struct rw_engine *e,
		     struct rw_h_ref *r, u32 from, u32 steps, bool backwards)
{
	const struct rw_layout *l = rw_engine_layout(e);
	u8 *got = kunit_kzalloc(test, RW_H_CS, GFP_KERNEL);
	u32 n = rw_engine_nr_chunks(e), s, c, k, w, len;
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, got);
	for (s = from; s < from + steps; s++) {
		for (c = 0; c < n; c++) {
			len = rw_engine_chunk_len(e, c);
			for (k = 0; k < RW_H_WORKERS; k++) {
				w = backwards ? RW_H_WORKERS - 1 - k : k;
				rw_h_grad(l, c, s, w, r->grads + w * RW_H_CS,
					  r->pat);
				KUNIT_ASSERT_EQ(test,
						rw_engine_push(e, w, c,
							       r->grads +
							       w * RW_H_CS,
							       len), 0);
			}
			rw_h_ref_step(test, r, c, s);
			KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, s + 1,
							     RW_H_TIMEOUT), 0);
			KUNIT_ASSERT_EQ(test, rw_engine_read(e, c, got, len, &v),
					0);
			KUNIT_EXPECT_EQ(test, v, (u64)s + 1);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(got, r->want, len), 0,
					    "step %u chunk %u", s, c);
		}
	}
}

/*
 * The mean of 16-bit gradients (averaging: one rounding of the f32 sum,
 * whatever the kernel), odd sizes and mixed types: bit for bit.
 */
static void rw_engine_half_average_test(struct kunit *test)
{
	struct rw_engine_config cfg;
	struct rw_engine *e;
	struct rw_h_ref r;

	rw_h_config(&cfg, rw_h_odd, ARRAY_SIZE(rw_h_odd), RW_AGG_AVERAGE);
	e = rw_kt_engine(test, &cfg);
	KUNIT_EXPECT_EQ(test, rw_engine_nr_chunks(e), 7U);
	KUNIT_EXPECT_EQ(test, rw_engine_image_chunk(e), 2 * RW_H_CS);
	rw_h_ref_init(test, &r, rw_engine_layout(e), &cfg);
	rw_h_run(test, e, &r, 0, 2, false);
	rw_h_run(test, e, &r, 2, 1, true);
}

/* The image's arrays of chunk @c: master, then state, from @img. */
static const u8 *rw_h_image_at(const struct rw_engine *e, const u8 *img,
			       u32 a, u32 c)
{
	return img + (u64)a * rw_engine_nr_chunks(e) * 2 * RW_H_CS +
	       (u64)c * 2 * RW_H_CS;
}

/*
 * Momentum with weight decay: the masters and the state the checkpoint
 * image holds are the reference's f32 ones, and the image put into
 * another engine makes it publish and step the same.
 */
static void rw_engine_half_momentum_image_test(struct kunit *test)
{
	struct rw_engine_config cfg;
	struct rw_engine *a, *b;
	struct rw_h_ref r;
	u32 n, c;
	u8 *img, *back;
	u64 len;

	rw_h_config(&cfg, rw_h_whole, ARRAY_SIZE(rw_h_whole),
		    RW_AGG_MOMENTUM);
	a = rw_kt_engine(test, &cfg);
	b = rw_kt_engine(test, &cfg);
	n = rw_engine_nr_chunks(a);
	len = rw_engine_image_len(a);
	KUNIT_EXPECT_EQ(test, len, 2ULL * n * 2 * RW_H_CS + 8ULL * n);
	img = kunit_kzalloc(test, len, GFP_KERNEL);
	back = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, img && back);
	rw_h_ref_init(test, &r, rw_engine_layout(a), &cfg);
	rw_h_run(test, a, &r, 0, 3, false);

	KUNIT_ASSERT_TRUE(test, rw_engine_quiet(a));
	KUNIT_ASSERT_EQ(test, rw_engine_image_get(a, 0, len, img), 0);
	for (c = 0; c < n; c++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    memcmp(rw_h_image_at(a, img, 0, c),
					   (u8 *)r.master + c * 2 * RW_H_CS,
					   2 * RW_H_CS), 0, "master %u", c);
		KUNIT_EXPECT_EQ_MSG(test,
				    memcmp(rw_h_image_at(a, img, 1, c),
					   (u8 *)r.state + c * 2 * RW_H_CS,
					   2 * RW_H_CS), 0, "state %u", c);
	}
	KUNIT_EXPECT_EQ(test, *(u64 *)(img + len - 8), 3ULL);

	/* Restored in pieces: the same image, parameters and next step. */
	KUNIT_ASSERT_EQ(test, rw_engine_init_begin(b), 0);
	for (c = 0; c < len; c += 3000)
		KUNIT_ASSERT_EQ(test, rw_engine_image_put(b, c,
							  min_t(u64, 3000,
								len - c),
							  img + c), 0);
	rw_engine_init_end(b, true);
	KUNIT_ASSERT_EQ(test, rw_engine_image_get(b, 0, len, back), 0);
	KUNIT_EXPECT_EQ(test, memcmp(img, back, len), 0);
	rw_h_run(test, a, &r, 3, 1, false);
	/* b's reference is a's before that step: run b against a copy. */
	{
		struct rw_h_ref rb = r;
		u32 arr = n * 2 * RW_H_CS;

		rb.master = kunit_kzalloc(test, arr, GFP_KERNEL);
		rb.state = kunit_kzalloc(test, arr, GFP_KERNEL);
		KUNIT_ASSERT_TRUE(test, rb.master && rb.state);
		memcpy(rb.master, rw_h_image_at(a, img, 0, 0), arr);
		memcpy(rb.state, rw_h_image_at(a, img, 1, 0), arr);
		rw_h_run(test, b, &rb, 3, 1, true);
		KUNIT_EXPECT_EQ(test, memcmp(rb.master, r.master, arr), 0);
	}
}

/*
 * Initial parameters written into the published buffer (as a transport's
 * RDMA read does, between init_open and init_close) become the f32
 * masters, widened exactly; a failed one leaves zeros everywhere.
 */
static void rw_engine_half_init_test(struct kunit *test)
{
	struct rw_engine_config cfg;
	struct rw_h_ref r;
	struct rw_engine *e;
	u8 *img, *pub;
	u32 n, c;
	u64 len;

	rw_h_config(&cfg, rw_h_odd, ARRAY_SIZE(rw_h_odd), RW_AGG_MOMENTUM);
	e = rw_kt_engine(test, &cfg);
	n = rw_engine_nr_chunks(e);
	len = rw_engine_image_len(e);
	img = kunit_kzalloc(test, len, GFP_KERNEL);
	pub = kunit_kzalloc(test, RW_H_CS, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, img && pub);
	rw_h_ref_init(test, &r, rw_engine_layout(e), &cfg);

	KUNIT_ASSERT_EQ(test, rw_engine_init_begin(e), 0);
	for (c = 0; c < n; c++) {
		u32 clen = rw_engine_chunk_len(e, c), off;

		rw_engine_init_open(e, c);
		rw_h_grad(rw_engine_layout(e), c, 7, 0, pub, r.pat);
		for (off = 0; off < clen; off += PAGE_SIZE) {
			struct page *pg = rw_engine_page(e, RW_BUF_PARAMS, 0,
							 (u64)c * RW_H_CS +
							 off);

			KUNIT_ASSERT_NOT_NULL(test, pg);
			memcpy(page_address(pg), pub + off,
			       min_t(u32, PAGE_SIZE, clen - off));
		}
		rw_engine_init_close(e, c, c != n - 1);
	}
	rw_engine_init_end(e, true);
	KUNIT_ASSERT_EQ(test, rw_engine_image_get(e, 0, len, img), 0);
	for (c = 0; c < n; c++) {
		const u32 *m = (const u32 *)rw_h_image_at(e, img, 0, c);
		struct rw_layout_seg s;
		u32 first, count, t, i, want, bad = 0;

		rw_h_grad(rw_engine_layout(e), c, 7, 0, pub, r.pat);
		KUNIT_ASSERT_EQ(test, rw_layout_chunk_tensors(rw_engine_layout(e),
							      c, &first, &count),
				0);
		for (t = first; t < first + count; t++) {
			KUNIT_ASSERT_EQ(test, rw_layout_seg(rw_engine_layout(e),
							    c, t, &s), 0);
			for (i = 0; i < s.nelems; i++) {
				const u8 *p = pub + s.chunk_off;

				if (s.dtype == RW_DTYPE_F32)
					memcpy(&want, p + 4 * i, 4);
				else if (s.dtype == RW_DTYPE_BF16)
					want = rw_bf16_to_f32(((u16 *)p)[i]);
				else
					want = rw_f16_to_f32(((u16 *)p)[i]);
				/* The last chunk's init failed: zeros. */
				if (c == n - 1)
					want = 0;
				bad += m[s.chunk_off / 2 + i] != want;
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, bad, 0U, "chunk %u", c);
	}
}

static struct kunit_case rw_engine_half_test_cases[] = {
	KUNIT_CASE(rw_engine_half_average_test),
	KUNIT_CASE(rw_engine_half_momentum_image_test),
	KUNIT_CASE(rw_engine_half_init_test),
	{}
};

static struct kunit_suite rw_engine_half_test_suite = {
	.name = "rackweave_engine_half",
	.test_cases = rw_engine_half_test_cases,
};

kunit_test_suite(rw_engine_half_test_suite);
