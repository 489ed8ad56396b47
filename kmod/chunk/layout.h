/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's model layout: its tensors laid back to back in one flat buffer,
 * cut into fixed-size chunks. Pure logic (see compat.h): builds in the
 * module and in user space, never allocates, never sleeps.
 *
 * Placement rule: tensor i starts at the first multiple of RW_LAYOUT_ALIGN
 * at or after the end of tensor i - 1 (tensor 0 at offset 0); the buffer
 * ends where the last tensor ends. Why 64 bytes and not padding each tensor
 * to a chunk: a model has many small tensors (biases, norms) and a chunk per
 * tensor would multiply chunks and waste up to a chunk each, while 64 bytes
 * costs at most 60 bytes per tensor yet starts every tensor on a cache line
 * and on a full AVX-512 vector, so no two tensors share a line and a
 * segment's start is always aligned. Chunk sizes are multiples of 64 and
 * element sizes divide 64, so an element never straddles a chunk boundary.
 * A tensor may span many chunks, a chunk may hold pieces of many tensors
 * (and the padding between them, which stays zero), and the last chunk may
 * be short.
 */
#ifndef _RW_CHUNK_LAYOUT_H
#define _RW_CHUNK_LAYOUT_H

#include "compat.h"

#define RW_LAYOUT_ALIGN		64U
#define RW_LAYOUT_CHUNK_MIN	4096U		/* = RW_CHUNK_SIZE_MIN (uapi) */
#define RW_LAYOUT_CHUNK_MAX	1048576U	/* = RW_CHUNK_SIZE_MAX (uapi) */
/* 1M chunks: 4 GiB of model at 4 KiB chunks, 32 GiB at the default 32 KiB. */
#define RW_LAYOUT_MAX_CHUNKS	1048576U
#define RW_LAYOUT_MAX_TENSORS	1048576U

/*
 * Element types: the same numbers as the uapi's RW_DTYPE_* (a macro may be
 * defined twice when both definitions are identical). 16-bit tensors
 * travel and sit in the slots and the published parameters in their
 * type; the box keeps their master copy in f32 (rw_layout_half()).
 */
#define RW_DTYPE_F32		0
#define RW_DTYPE_F16		1
#define RW_DTYPE_BF16		2
#define RW_DTYPE_NR		3

/* Size in bytes of one element of @dtype; 0 if @dtype is unknown. */
u32 rw_dtype_size(u32 dtype);

/* One tensor as the job declares it. Immutable once the layout is built. */
struct rw_layout_tensor {
	u64 key;		/* unique within the job */
	u64 nelems;		/* at least 1 */
	u32 dtype;		/* RW_DTYPE_* */
	u32 priority;		/* lower goes first (uapi RW_PRIORITY_MAX) */
};

/*
 * Chunk geometry of a flat buffer: everything the mapper needs. Chunk c
 * covers bytes [c * chunk_size, min(total_bytes, (c + 1) * chunk_size)).
 */
struct rw_layout_geom {
	u64 total_bytes;	/* 1 .. RW_LAYOUT_MAX_CHUNKS * chunk_size */
	u32 chunk_size;		/* power of two, RW_LAYOUT_CHUNK_MIN..MAX */
	u32 chunk_shift;	/* log2(chunk_size) */
	u32 nr_chunks;		/* DIV_ROUND_UP(total_bytes, chunk_size) */
};

/*
 * A built layout. Caller-owned and immutable after rw_layout_init(); any
 * number of readers may use it without a lock while the caller keeps
 * @tensors, @offsets and @by_key alive.
 */
struct rw_layout {
	const struct rw_layout_tensor *tensors;	/* caller's, layout order */
	u64 *offsets;		/* byte offset of each tensor (caller storage) */
	u32 *by_key;		/* tensor indices in key order (caller storage) */
	u32 nr_tensors;
	u32 dtype_mask;		/* bit d set: some tensor has dtype d */
	struct rw_layout_geom geom;
};

/*
 * Whether @l has a 16-bit tensor. Such a model's box keeps, per chunk, an
 * f32 master copy of its parameters and its optimizer state in f32, each
 * twice the chunk's size: the part of a tensor at byte offset b of the
 * chunk has its master (and state) at byte offset 2 * b, which holds a
 * 16-bit element's f32 at twice its place and keeps an f32 tensor's
 * elements together, so every tensor's part is one run in the master.
 */
static inline bool rw_layout_half(const struct rw_layout *l)
{
	return l->dtype_mask & ~(1U << RW_DTYPE_F32);
}

/*
 * Bytes per chunk of each array of a checkpoint image of @l (uapi
 * RW_IOC_CHECKPOINT): the chunk size, twice it for a model with a 16-bit
 * tensor, whose image holds the f32 master copy.
 */
static inline u32 rw_layout_image_chunk(const struct rw_layout *l)
{
	return l->geom.chunk_size << (rw_layout_half(l) ? 1 : 0);
}

/* Where a (key, element range) lies: bytes and the chunks they touch. */
struct rw_layout_span {
	u64 off;		/* byte offset in the flat buffer */
	u64 len;		/* bytes */
	u32 first_chunk;
	u32 nr_chunks;
};

/* The part of one tensor that lies in one chunk. */
struct rw_layout_seg {
	u64 key;
	u64 first_elem;		/* first element of the tensor in the chunk */
	u64 nelems;		/* elements of the tensor in the chunk */
	u32 tensor;		/* index in layout order */
	u32 chunk_off;		/* byte offset of first_elem inside the chunk */
	u32 dtype;
};

/*
 * Geometry of a buffer of @total_bytes cut into @chunk_size chunks.
 * -EINVAL: zero size or a chunk size that is not a power of two in range;
 * -E2BIG: more than RW_LAYOUT_MAX_CHUNKS chunks. @g is written on success
 * only.
 */
int rw_layout_geom_init(struct rw_layout_geom *g, u64 total_bytes,
			u32 chunk_size);

/* 0 if @g is what rw_layout_geom_init() would produce, else -EINVAL. */
int rw_layout_geom_check(const struct rw_layout_geom *g);

/* Byte offset and length of chunk @c; -EINVAL if out of range. */
int rw_layout_chunk(const struct rw_layout_geom *g, u32 c, u64 *off,
		    u32 *len);

/*
 * Validate @t[0..nr) as far as possible without storage (everything but
 * key uniqueness) and compute the geometry: use it to size storage before
 * rw_layout_init(). -EINVAL: no tensors, a NULL array, a zero-length
 * tensor, an unknown dtype, a bad chunk size; -EOVERFLOW: a size that does
 * not fit in 64 bits; -E2BIG: too many tensors or chunks. @g is written on
 * success only.
 */
int rw_layout_measure(const struct rw_layout_tensor *t, u32 nr,
		      u32 chunk_size, struct rw_layout_geom *g);

/*
 * Build @l over @t[0..nr): as rw_layout_measure(), plus -EINVAL on a
 * duplicate key. @offsets and @by_key hold @nr entries each and become the
 * layout's; they are scratch until this returns 0 (contents unspecified
 * after an error). @l itself is written on success only.
 */
int rw_layout_init(struct rw_layout *l, const struct rw_layout_tensor *t,
		   u32 nr, u32 chunk_size, u64 *offsets, u32 *by_key);

/* Index of the tensor with @key in layout order; -ENOENT if none. */
int rw_layout_find(const struct rw_layout *l, u64 key, u32 *idx);

/*
 * Elements [@first, @first + @n) of tensor @key: their bytes and chunks.
 * -ENOENT: no such key; -EINVAL: @n == 0 or the range leaves the tensor.
 * @s is written on success only.
 */
int rw_layout_span(const struct rw_layout *l, u64 key, u64 first, u64 n,
		   struct rw_layout_span *s);

/*
 * Tensors (layout-order indices [@first, @first + @count)) that have at
 * least one element in chunk @c; @count >= 1 for every valid chunk.
 */
int rw_layout_chunk_tensors(const struct rw_layout *l, u32 c, u32 *first,
			    u32 *count);

/* The part of tensor @tensor in chunk @c; -EINVAL if it has none there. */
int rw_layout_seg(const struct rw_layout *l, u32 c, u32 tensor,
		  struct rw_layout_seg *seg);

/* Bytes [off, end) of a chunk, elements of one type. */
struct rw_layout_run {
	u32 off;
	u32 end;
	u32 dtype;
};

/*
 * How a box with 16-bit tensors (rw_layout_half()) steps chunk @c: in
 * runs, each f32 tensor's part alone, 16-bit parts of one type that follow
 * each other together (with the padding between them), in layout order.
 * The run that starts at tensor *@t (layout order, in [first, first +
 * count) of rw_layout_chunk_tensors()): *@t moves past it, never beyond
 * @last. -EINVAL if tensor *@t has nothing in the chunk or *@t >= @last.
 * Its master and state lie at twice its offsets (rw_layout_half()).
 */
int rw_layout_run(const struct rw_layout *l, u32 c, u32 *t, u32 last,
		  struct rw_layout_run *run);

/*
 * The order a worker host sends a model's chunks in and the box answers
 * them (uapi "priority"): each chunk by its first tensor's priority, then
 * by index (so the declaration order when every priority is equal).
 * @order[k] is the k-th chunk to go and @rank[c] chunk c's place in it
 * (nr_chunks entries each). Returns false, writing nothing, if that order
 * is the chunks' own (every priority equal, or rising with the tensors):
 * no table is needed then.
 */
bool rw_layout_order(const struct rw_layout *l, u32 *order, u32 *rank);

struct rw_range;

/*
 * The chunks a transfer or an initialisation names (uapi struct rw_range):
 * @nr ranges (0: all) of chunk indices or, with @keys, whole tensors, as
 * bits set in @sel (nr_chunks bits, cleared first). -EINVAL: an empty
 * range, one outside the model, a key range with a count; -ENOENT: an
 * unknown key. Local and remote workers both select so.
 */
int rw_xfer_select(const struct rw_layout *l, const struct rw_range *r,
		   u32 nr, bool keys, unsigned long *sel);

#endif /* _RW_CHUNK_LAYOUT_H */
