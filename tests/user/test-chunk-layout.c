// SPDX-License-Identifier: GPL-2.0
/*
 * The model layout (kmod/chunk/layout.c): placement of tensors, chunk
 * geometry, key lookups in both directions checked against each other on
 * random layouts, and every kind of bad input refused with the right
 * error and no output written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "chunktest.h"

#define T(k, n, d)	{ .key = (k), .nelems = (n), .dtype = RW_DTYPE_##d }

struct lay {
	struct rw_layout l;
	u64 off[64];
	u32 idx[64];
};

static int lay_init(struct lay *x, const struct rw_layout_tensor *t, u32 nr,
		    u32 chunk)
{
	assert_true(nr <= 64);
	return rw_layout_init(&x->l, t, nr, chunk, x->off, x->idx);
}

static void layout_dtypes(void **state)
{
	(void)state;
	assert_int_equal(rw_dtype_size(RW_DTYPE_F32), 4);
	assert_int_equal(rw_dtype_size(RW_DTYPE_F16), 2);
	assert_int_equal(rw_dtype_size(RW_DTYPE_BF16), 2);
	assert_int_equal(rw_dtype_size(RW_DTYPE_NR), 0);
	assert_int_equal(rw_dtype_size(U32_MAX), 0);
}

/* Back to back, each tensor on the next 64-byte boundary. */
static void layout_placement(void **state)
{
	static const struct rw_layout_tensor t[] = {
		T(7, 3, F32),		/* 12 bytes at 0 */
		T(3, 1, F16),		/* 2 bytes at 64 */
		T(9, 16, F32),		/* 64 bytes at 128 */
		T(1, 1023, F32),	/* 4092 bytes at 192 */
		T(5, 5, BF16),		/* 10 bytes at 4288 */
	};
	struct rw_layout_geom g;
	struct lay x;
	u64 off;
	u32 len;

	(void)state;
	assert_int_equal(lay_init(&x, t, 5, 4096), 0);
	assert_int_equal(x.off[0], 0);
	assert_int_equal(x.off[1], 64);
	assert_int_equal(x.off[2], 128);
	assert_int_equal(x.off[3], 192);
	assert_int_equal(x.off[4], 4288);
	assert_int_equal(x.l.geom.total_bytes, 4298);
	assert_int_equal(x.l.geom.nr_chunks, 2);
	assert_int_equal(x.l.geom.chunk_shift, 12);
	assert_int_equal(x.l.dtype_mask, 7);
	assert_int_equal(rw_layout_chunk(&x.l.geom, 1, &off, &len), 0);
	assert_int_equal(off, 4096);
	assert_int_equal(len, 202);		/* the short last chunk */
	assert_int_equal(rw_layout_measure(t, 5, 4096, &g), 0);
	assert_int_equal(g.total_bytes, x.l.geom.total_bytes);
	assert_int_equal(g.nr_chunks, x.l.geom.nr_chunks);
	assert_int_equal(g.chunk_shift, x.l.geom.chunk_shift);
	assert_int_equal(g.chunk_size, x.l.geom.chunk_size);

	/* Exactly full chunks: the last is not short. */
	assert_int_equal(rw_layout_geom_init(&g, 3 * 32768, 32768), 0);
	assert_int_equal(g.nr_chunks, 3);
	assert_int_equal(rw_layout_chunk(&g, 2, &off, &len), 0);
	assert_int_equal(len, 32768);
	assert_int_equal(rw_layout_chunk(&g, 3, &off, &len), -EINVAL);
}

static void layout_span(void **state)
{
	static const struct rw_layout_tensor t[] = {
		T(100, 1000, F32),	/* [0, 4000) */
		T(200, 3000, F32),	/* [4032, 16032) */
		T(300, 2, F16),		/* [16064, 16068) */
	};
	struct rw_layout_span s;
	struct lay x;
	u32 i;

	(void)state;
	assert_int_equal(lay_init(&x, t, 3, 4096), 0);
	assert_int_equal(rw_layout_find(&x.l, 200, &i), 0);
	assert_int_equal(i, 1);
	assert_int_equal(rw_layout_find(&x.l, 201, &i), -ENOENT);

	/* Whole tensor 200: chunks 0..3. */
	assert_int_equal(rw_layout_span(&x.l, 200, 0, 3000, &s), 0);
	assert_int_equal(s.off, 4032);
	assert_int_equal(s.len, 12000);
	assert_int_equal(s.first_chunk, 0);
	assert_int_equal(s.nr_chunks, 4);
	/* Its element 16 is the first byte of chunk 1. */
	assert_int_equal(rw_layout_span(&x.l, 200, 16, 1, &s), 0);
	assert_int_equal(s.off, 4096);
	assert_int_equal(s.first_chunk, 1);
	assert_int_equal(s.nr_chunks, 1);
	/* Elements 15..16 straddle chunks 0 and 1. */
	assert_int_equal(rw_layout_span(&x.l, 200, 15, 2, &s), 0);
	assert_int_equal(s.first_chunk, 0);
	assert_int_equal(s.nr_chunks, 2);
	/* The last element of the model, in the last (short) chunk. */
	assert_int_equal(rw_layout_span(&x.l, 300, 1, 1, &s), 0);
	assert_int_equal(s.off, 16066);
	assert_int_equal(s.first_chunk, 3);
	assert_int_equal(x.l.geom.nr_chunks, 4);
}

static void layout_reverse(void **state)
{
	static const struct rw_layout_tensor t[] = {
		T(100, 1000, F32), T(200, 3000, F32), T(300, 2, F16),
	};
	struct rw_layout_seg seg;
	struct lay x;
	u32 first, count;

	(void)state;
	assert_int_equal(lay_init(&x, t, 3, 4096), 0);
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 0, &first, &count), 0);
	assert_int_equal(first, 0);
	assert_int_equal(count, 2);
	assert_int_equal(rw_layout_seg(&x.l, 0, 1, &seg), 0);
	assert_int_equal(seg.key, 200);
	assert_int_equal(seg.first_elem, 0);
	assert_int_equal(seg.nelems, 16);
	assert_int_equal(seg.chunk_off, 4032);
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 2, &first, &count), 0);
	assert_int_equal(first, 1);
	assert_int_equal(count, 1);
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 3, &first, &count), 0);
	assert_int_equal(first, 1);
	assert_int_equal(count, 2);
	assert_int_equal(rw_layout_seg(&x.l, 3, 2, &seg), 0);
	assert_int_equal(seg.chunk_off, 16064 - 12288);
	assert_int_equal(seg.nelems, 2);
	assert_int_equal(seg.dtype, RW_DTYPE_F16);
	/* Tensor 0 has nothing in chunk 1; out of range chunk and tensor. */
	assert_int_equal(rw_layout_seg(&x.l, 1, 0, &seg), -EINVAL);
	assert_int_equal(rw_layout_seg(&x.l, 4, 1, &seg), -EINVAL);
	assert_int_equal(rw_layout_seg(&x.l, 0, 3, &seg), -EINVAL);
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 4, &first, &count),
			 -EINVAL);
}

/*
 * The runs a box steps a chunk of a model with 16-bit tensors in: 16-bit
 * parts of one type together, an f32 part alone, a run cut at the chunk's
 * end; and which layouts count as 16-bit ones.
 */
static void layout_runs(void **state)
{
	static const struct rw_layout_tensor t[] = {
		T(1, 100, BF16),	/* 200 bytes at 0 */
		T(2, 30, BF16),		/* 60 bytes at 256 */
		T(3, 3, F32),		/* 12 bytes at 320 */
		T(4, 16, F32),		/* 64 bytes at 384 */
		T(5, 10, F16),		/* 20 bytes at 448 */
		T(6, 3000, BF16),	/* 6000 bytes at 512: to 6512 */
		T(7, 8, F16),		/* 16 bytes at 6528 */
	};
	static const struct rw_layout_tensor f32[] = { T(1, 5, F32) };
	struct rw_layout_run run;
	struct lay x;
	u32 first, count, i;

	(void)state;
	assert_int_equal(lay_init(&x, t, 7, 4096), 0);
	assert_true(rw_layout_half(&x.l));
	assert_int_equal(rw_layout_image_chunk(&x.l), 8192);
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 0, &first, &count), 0);
	assert_int_equal(count, 6);
	i = first;
	assert_int_equal(rw_layout_run(&x.l, 0, &i, first + count, &run), 0);
	assert_int_equal(run.off, 0);
	assert_int_equal(run.end, 316);
	assert_int_equal(run.dtype, RW_DTYPE_BF16);
	assert_int_equal(i, 2);
	assert_int_equal(rw_layout_run(&x.l, 0, &i, first + count, &run), 0);
	assert_int_equal(run.off, 320);
	assert_int_equal(run.end, 332);
	assert_int_equal(run.dtype, RW_DTYPE_F32);
	assert_int_equal(i, 3);
	assert_int_equal(rw_layout_run(&x.l, 0, &i, first + count, &run), 0);
	assert_int_equal(run.off, 384);
	assert_int_equal(run.end, 448);
	assert_int_equal(i, 4);
	assert_int_equal(rw_layout_run(&x.l, 0, &i, first + count, &run), 0);
	assert_int_equal(run.off, 448);
	assert_int_equal(run.end, 468);
	assert_int_equal(run.dtype, RW_DTYPE_F16);
	assert_int_equal(i, 5);
	/* Tensor 6 to the chunk's end: a run stops at its chunk. */
	assert_int_equal(rw_layout_run(&x.l, 0, &i, first + count, &run), 0);
	assert_int_equal(run.off, 512);
	assert_int_equal(run.end, 4096);
	assert_int_equal(i, 6);
	assert_int_equal(rw_layout_run(&x.l, 0, &i, first + count, &run),
			 -EINVAL);
	/* Chunk 1: the rest of tensor 6, then tensor 7 of another type. */
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 1, &first, &count), 0);
	assert_int_equal(first, 5);
	assert_int_equal(count, 2);
	i = first;
	assert_int_equal(rw_layout_run(&x.l, 1, &i, first + count, &run), 0);
	assert_int_equal(run.off, 0);
	assert_int_equal(run.end, 6512 - 4096);
	assert_int_equal(rw_layout_run(&x.l, 1, &i, first + count, &run), 0);
	assert_int_equal(run.off, 6528 - 4096);
	assert_int_equal(run.end, 6544 - 4096);
	assert_int_equal(run.dtype, RW_DTYPE_F16);
	/* Bad input: a tensor with nothing in the chunk, no cursor. */
	i = 0;
	assert_int_equal(rw_layout_run(&x.l, 1, &i, 7, &run), -EINVAL);
	assert_int_equal(rw_layout_run(&x.l, 1, NULL, 7, &run), -EINVAL);

	assert_int_equal(lay_init(&x, f32, 1, 4096), 0);
	assert_false(rw_layout_half(&x.l));
	assert_int_equal(rw_layout_image_chunk(&x.l), 4096);
}

/*
 * The order chunks go in (uapi "priority"): by their first tensor's
 * priority, ties by index; the chunks' own order needs no table.
 */
static void layout_order(void **state)
{
	struct rw_layout_tensor t[] = {
		{ .key = 1, .nelems = 1500, .dtype = RW_DTYPE_F32 },	/* 0..6000 */
		{ .key = 2, .nelems = 1000, .dtype = RW_DTYPE_F32,	/* 6016.. */
		  .priority = 2 },
		{ .key = 3, .nelems = 2000, .dtype = RW_DTYPE_F32,	/* 10048.. */
		  .priority = 1 },
	};
	static const u32 want_order[] = { 0, 1, 3, 4, 2 };
	static const u32 want_rank[] = { 0, 1, 4, 2, 3 };
	u32 order[5] = { 99, 99, 99, 99, 99 }, rank[5] = { 99, 99, 99, 99, 99 };
	struct lay x;
	u32 i;

	(void)state;
	assert_int_equal(lay_init(&x, t, 3, 4096), 0);
	assert_int_equal(x.l.geom.nr_chunks, 5);
	assert_true(rw_layout_order(&x.l, order, rank));
	for (i = 0; i < 5; i++) {
		assert_int_equal(order[i], want_order[i]);
		assert_int_equal(rank[i], want_rank[i]);
	}
	/* Equal, or rising with the tensors: the chunks' own, nothing written. */
	t[1].priority = t[2].priority = 0;
	assert_int_equal(lay_init(&x, t, 3, 4096), 0);
	order[0] = 99;
	assert_false(rw_layout_order(&x.l, order, rank));
	assert_int_equal(order[0], 99);
	t[1].priority = 1;
	t[2].priority = 7;
	assert_int_equal(lay_init(&x, t, 3, 4096), 0);
	assert_false(rw_layout_order(&x.l, order, rank));
	/* Backwards: the last tensor first, a tie (chunk 1) by index. */
	t[0].priority = 9;
	t[1].priority = 5;
	t[2].priority = 0;
	assert_int_equal(lay_init(&x, t, 3, 4096), 0);
	assert_true(rw_layout_order(&x.l, order, rank));
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 4);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 0);
	assert_int_equal(order[4], 1);
}

/*
 * Random layouts: walking the chunks and their segments must visit every
 * element of every tensor exactly once, in order, agree with the forward
 * lookup and leave only alignment padding uncovered.
 */
static void layout_random_roundtrip(void **state)
{
	static const u32 chunks[] = { 4096, 8192, 32768 };
	struct rw_layout_tensor t[64];
	u64 rng = 42, next[64], covered;
	struct rw_layout_span s;
	struct rw_layout_seg seg;
	u32 iter, i, c, first, count, nr, len;
	struct lay x;
	u64 off;

	(void)state;
	for (iter = 0; iter < 300; iter++) {
		nr = 1 + ct_rand(&rng) % 64;
		for (i = 0; i < nr; i++) {
			t[i].key = ct_rand(&rng);	/* unique in practice */
			t[i].dtype = ct_rand(&rng) % RW_DTYPE_NR;
			t[i].nelems = 1 + ct_rand(&rng) %
				      (ct_rand(&rng) % 2 ? 20 : 20000);
			next[i] = 0;
		}
		assert_int_equal(lay_init(&x, t, nr, chunks[iter % 3]), 0);
		for (i = 0; i < nr; i++) {
			assert_int_equal(x.off[i] % RW_LAYOUT_ALIGN, 0);
			assert_int_equal(rw_layout_find(&x.l, t[i].key, &c), 0);
			assert_int_equal(c, i);
			assert_int_equal(rw_layout_span(&x.l, t[i].key, 0,
							t[i].nelems, &s), 0);
			assert_int_equal(s.off, x.off[i]);
		}
		for (c = 0; c < x.l.geom.nr_chunks; c++) {
			assert_int_equal(rw_layout_chunk(&x.l.geom, c, &off,
							 &len), 0);
			assert_int_equal(rw_layout_chunk_tensors(&x.l, c, &first,
								 &count), 0);
			assert_true(count >= 1);
			covered = 0;
			for (i = first; i < first + count; i++) {
				assert_int_equal(rw_layout_seg(&x.l, c, i, &seg), 0);
				assert_int_equal(seg.first_elem, next[i]);
				next[i] += seg.nelems;
				covered += seg.nelems * rw_dtype_size(seg.dtype);
				/* The forward lookup lands in this chunk. */
				assert_int_equal(rw_layout_span(&x.l, seg.key,
								seg.first_elem,
								seg.nelems, &s), 0);
				assert_int_equal(s.first_chunk, c);
				assert_int_equal(s.nr_chunks, 1);
				assert_int_equal(s.off, off + seg.chunk_off);
			}
			/* Padding between tensors is under 64 bytes each. */
			assert_true(covered <= len);
			assert_true(len - covered < (u64)RW_LAYOUT_ALIGN * count);
			if (first > 0)
				assert_int_equal(rw_layout_seg(&x.l, c, first - 1,
							       &seg), -EINVAL);
			if (first + count < nr)
				assert_int_equal(rw_layout_seg(&x.l, c,
							       first + count,
							       &seg), -EINVAL);
		}
		for (i = 0; i < nr; i++)
			assert_int_equal(next[i], t[i].nelems);
	}
}

struct bad_case {
	const char *name;
	struct rw_layout_tensor t[3];
	u32 nr;
	u32 chunk;
	int err;	/* of rw_layout_init */
	int merr;	/* of rw_layout_measure (no duplicate check) */
};

static const struct bad_case bad_cases[] = {
	{ "no tensors", { T(1, 1, F32) }, 0, 4096, -EINVAL, -EINVAL },
	{ "zero elements", { T(1, 1, F32), T(2, 0, F32) }, 2, 4096, -EINVAL, -EINVAL },
	{ "unknown dtype", { T(1, 1, F32), { 2, 1, RW_DTYPE_NR, 0 } }, 2, 4096, -EINVAL, -EINVAL },
	{ "duplicate key", { T(5, 1, F32), T(6, 1, F32), T(5, 9, F16) }, 3, 4096, -EINVAL, 0 },
	{ "duplicate key 0", { T(0, 1, F32), T(0, 1, F32) }, 2, 4096, -EINVAL, 0 },
	{ "chunk 0", { T(1, 1, F32) }, 1, 0, -EINVAL, -EINVAL },
	{ "chunk 2048", { T(1, 1, F32) }, 1, 2048, -EINVAL, -EINVAL },
	{ "chunk 12288", { T(1, 1, F32) }, 1, 12288, -EINVAL, -EINVAL },
	{ "chunk 2 MiB", { T(1, 1, F32) }, 1, 2u << 20, -EINVAL, -EINVAL },
	{ "chunk 2^31", { T(1, 1, F32) }, 1, 1u << 31, -EINVAL, -EINVAL },
	{ "elements x size wraps", { T(1, U64_MAX / 2, F32) }, 1, 4096, -EOVERFLOW, -EOVERFLOW },
	{ "elements x size wraps, f16", { T(1, 1, F32), T(2, U64_MAX, F16) }, 2, 4096, -EOVERFLOW, -EOVERFLOW },
	{ "one tensor too big", { T(1, (1ULL << 30) + 1, F32) }, 1, 4096, -E2BIG, -E2BIG },
	{ "sum too big", { T(1, 1ULL << 29, F32), T(2, 1ULL << 29, F32), T(3, 1, F32) }, 3, 4096, -E2BIG, -E2BIG },
	{ "too many tensors", { T(1, 1, F32) }, RW_LAYOUT_MAX_TENSORS + 1, 4096, -E2BIG, -E2BIG },
};

static void layout_bad_input(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct rw_layout_geom g, g0;
		struct lay x;
		struct rw_layout l0;

		print_message("# %s\n", b->name);
		memset(&x.l, 0x3c, sizeof(x.l));
		l0 = x.l;
		memset(&g, 0x3c, sizeof(g));
		g0 = g;
		assert_int_equal(rw_layout_init(&x.l, b->t, b->nr, b->chunk,
						x.off, x.idx), b->err);
		assert_memory_equal(&x.l, &l0, sizeof(l0));
		assert_int_equal(rw_layout_measure(b->t, b->nr, b->chunk, &g),
				 b->merr);
		if (b->merr)
			assert_memory_equal(&g, &g0, sizeof(g));
	}
}

/* The largest model that fits, and one element more. */
static void layout_limits(void **state)
{
	struct rw_layout_tensor t[2] = {
		T(1, (u64)RW_LAYOUT_MAX_CHUNKS * 1024, F32),	/* 4 GiB */
		T(2, 1, F32),
	};
	struct rw_layout_geom g;
	struct lay x;

	(void)state;
	assert_int_equal(lay_init(&x, t, 1, 4096), 0);
	assert_int_equal(x.l.geom.nr_chunks, RW_LAYOUT_MAX_CHUNKS);
	assert_int_equal(lay_init(&x, t, 2, 4096), -E2BIG);
	assert_int_equal(lay_init(&x, t, 2, 8192), 0);
	assert_int_equal(x.l.geom.nr_chunks, RW_LAYOUT_MAX_CHUNKS / 2 + 1);

	assert_int_equal(rw_layout_geom_init(&g, (u64)RW_LAYOUT_MAX_CHUNKS << 20,
					     1 << 20), 0);
	assert_int_equal(rw_layout_geom_init(&g, ((u64)RW_LAYOUT_MAX_CHUNKS << 20) + 1,
					     1 << 20), -E2BIG);
	assert_int_equal(rw_layout_geom_init(&g, 0, 4096), -EINVAL);
	assert_int_equal(rw_layout_geom_init(&g, U64_MAX, 4096), -E2BIG);
	assert_int_equal(rw_layout_geom_init(NULL, 1, 4096), -EINVAL);
	assert_int_equal(rw_layout_geom_init(&g, 1, 4096), 0);
	assert_int_equal(g.nr_chunks, 1);
	assert_int_equal(rw_layout_geom_check(&g), 0);
	g.chunk_shift++;
	assert_int_equal(rw_layout_geom_check(&g), -EINVAL);
	assert_int_equal(rw_layout_geom_check(NULL), -EINVAL);
}

static void layout_bad_lookups(void **state)
{
	static const struct rw_layout_tensor t[] = {
		T(10, 100, F32), T(20, 50, F16),
	};
	struct rw_layout_span s, s0;
	struct lay x;
	u32 first, count;
	u64 off;
	u32 len;

	(void)state;
	assert_int_equal(lay_init(&x, t, 2, 4096), 0);
	memset(&s, 0x11, sizeof(s));
	s0 = s;
	assert_int_equal(rw_layout_span(&x.l, 30, 0, 1, &s), -ENOENT);
	assert_int_equal(rw_layout_span(&x.l, 10, 0, 0, &s), -EINVAL);
	assert_int_equal(rw_layout_span(&x.l, 10, 100, 1, &s), -EINVAL);
	assert_int_equal(rw_layout_span(&x.l, 10, 99, 2, &s), -EINVAL);
	assert_int_equal(rw_layout_span(&x.l, 10, 1, U64_MAX, &s), -EINVAL);
	assert_int_equal(rw_layout_span(&x.l, 10, U64_MAX, 2, &s), -EINVAL);
	assert_memory_equal(&s, &s0, sizeof(s));
	assert_int_equal(rw_layout_span(&x.l, 10, 99, 1, &s), 0);
	assert_int_equal(rw_layout_span(&x.l, 10, 0, 1, NULL), -EINVAL);
	assert_int_equal(rw_layout_span(NULL, 10, 0, 1, &s), -EINVAL);
	assert_int_equal(rw_layout_find(&x.l, 10, NULL), -EINVAL);
	assert_int_equal(rw_layout_chunk(&x.l.geom, 1, &off, &len), -EINVAL);
	assert_int_equal(rw_layout_chunk(NULL, 0, &off, &len), -EINVAL);
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 0, NULL, &count),
			 -EINVAL);
	assert_int_equal(rw_layout_chunk_tensors(&x.l, 0, &first, &count), 0);
	assert_int_equal(count, 2);
	assert_int_equal(rw_layout_init(&x.l, t, 2, 4096, NULL, x.idx), -EINVAL);
	assert_int_equal(rw_layout_init(&x.l, t, 2, 4096, x.off, NULL), -EINVAL);
	assert_int_equal(rw_layout_init(NULL, t, 2, 4096, x.off, x.idx), -EINVAL);
	assert_int_equal(rw_layout_init(&x.l, NULL, 2, 4096, x.off, x.idx),
			 -EINVAL);
	assert_int_equal(rw_layout_measure(t, 2, 4096, NULL), -EINVAL);
}

/* Keys in any order are found; the index is the key order. */
static void layout_key_order(void **state)
{
	struct rw_layout_tensor t[64];
	struct lay x;
	u32 i, idx;

	(void)state;
	for (i = 0; i < 64; i++) {
		t[i].key = (i * 37) % 64 + 1000;	/* a permutation */
		t[i].nelems = 1;
		t[i].dtype = RW_DTYPE_F32;
	}
	assert_int_equal(lay_init(&x, t, 64, 4096), 0);
	for (i = 0; i < 64; i++) {
		assert_int_equal(t[x.idx[i]].key, 1000 + i);
		assert_int_equal(rw_layout_find(&x.l, 1000 + i, &idx), 0);
		assert_int_equal(t[idx].key, 1000 + i);
	}
	assert_int_equal(rw_layout_find(&x.l, 999, &idx), -ENOENT);
	assert_int_equal(rw_layout_find(&x.l, 1064, &idx), -ENOENT);
	/* A duplicate far from its twin in input order. */
	t[63].key = t[0].key;
	assert_int_equal(lay_init(&x, t, 64, 4096), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout_dtypes),
		cmocka_unit_test(layout_placement),
		cmocka_unit_test(layout_span),
		cmocka_unit_test(layout_reverse),
		cmocka_unit_test(layout_runs),
		cmocka_unit_test(layout_order),
		cmocka_unit_test(layout_random_roundtrip),
		cmocka_unit_test(layout_bad_input),
		cmocka_unit_test(layout_limits),
		cmocka_unit_test(layout_bad_lookups),
		cmocka_unit_test(layout_key_order),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("chunk-layout", tests, NULL, NULL);
}
