// SPDX-License-Identifier: GPL-2.0
/*
 * Model layout: where each tensor lies in the flat buffer, which chunks
 * a piece of it falls in, and which chunks a transfer's ranges select
 * (rw_xfer_select, for local and remote workers alike). The placement rule
 * and its reasons are in layout.h.
 *
 * Every entry point checks its whole input before it writes anything the
 * caller sees, so a rejected call leaves the caller's structures as they
 * were. Sizes are bounded early (RW_LAYOUT_MAX_CHUNKS chunks of at most
 * 1 MiB, so 2^40 bytes), which keeps every later sum far from wrapping;
 * the only products that could wrap, element count times element size,
 * are checked.
 *
 * Lookups by key use an index sorted by key (heapsort: in place, no
 * recursion, O(n log n) whatever the input, same result in kernel and user
 * space), which also makes the duplicate-key check linear after the sort.
 * Lookups by chunk binary-search the offsets, which rise with the index.
 */
#include "compat.h"
#include "layout.h"
#include "rackweave.h"

/* log2 of the element size of @dtype, or -1 if @dtype is unknown. */
static int rw_dtype_shift(u32 dtype)
{
	switch (dtype) {
	case RW_DTYPE_F32:
		return 2;
	case RW_DTYPE_F16:
	case RW_DTYPE_BF16:
		return 1;
	default:
		return -1;
	}
}

u32 rw_dtype_size(u32 dtype)
{
	int shift = rw_dtype_shift(dtype);

	return shift < 0 ? 0 : 1U << shift;
}
EXPORT_SYMBOL_IF_KUNIT(rw_dtype_size);

static int rw_layout_chunk_shift(u32 chunk_size, u32 *shift)
{
	u32 s = 0;

	if (chunk_size < RW_LAYOUT_CHUNK_MIN ||
	    chunk_size > RW_LAYOUT_CHUNK_MAX || !is_power_of_2(chunk_size))
		return -EINVAL;
	while ((1U << s) < chunk_size)
		s++;
	*shift = s;
	return 0;
}

int rw_layout_geom_init(struct rw_layout_geom *g, u64 total_bytes,
			u32 chunk_size)
{
	u32 shift;
	u64 n;

	if (!g || !total_bytes || rw_layout_chunk_shift(chunk_size, &shift))
		return -EINVAL;
	n = total_bytes >> shift;
	if (total_bytes & ((u64)chunk_size - 1))
		n++;
	if (n > RW_LAYOUT_MAX_CHUNKS)
		return -E2BIG;
	g->total_bytes = total_bytes;
	g->chunk_size = chunk_size;
	g->chunk_shift = shift;
	g->nr_chunks = (u32)n;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_geom_init);

int rw_layout_geom_check(const struct rw_layout_geom *g)
{
	struct rw_layout_geom ok;

	if (!g || rw_layout_geom_init(&ok, g->total_bytes, g->chunk_size))
		return -EINVAL;
	if (ok.chunk_shift != g->chunk_shift || ok.nr_chunks != g->nr_chunks)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_geom_check);

int rw_layout_chunk(const struct rw_layout_geom *g, u32 c, u64 *off,
		    u32 *len)
{
	u64 start;

	if (!g || !off || !len || c >= g->nr_chunks)
		return -EINVAL;
	start = (u64)c << g->chunk_shift;
	*off = start;
	*len = (u32)min_t(u64, g->chunk_size, g->total_bytes - start);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_chunk);

/*
 * Place @t[0..nr) back to back, 64-byte aligned, in at most @limit bytes.
 * Writes @offsets (if not NULL) as it goes; the caller treats them as
 * scratch until everything has been checked.
 */
static int rw_layout_place(const struct rw_layout_tensor *t, u32 nr,
			   u64 limit, u64 *offsets, u64 *end, u32 *mask)
{
	u64 pos = 0, off, bytes;
	u32 i, m = 0;
	int shift;

	for (i = 0; i < nr; i++) {
		shift = rw_dtype_shift(t[i].dtype);
		if (shift < 0 || !t[i].nelems)
			return -EINVAL;
		if (t[i].nelems > (U64_MAX >> shift))
			return -EOVERFLOW;
		bytes = t[i].nelems << shift;
		/* pos <= limit <= 2^40: aligning it up cannot wrap. */
		off = (pos + RW_LAYOUT_ALIGN - 1) & ~((u64)RW_LAYOUT_ALIGN - 1);
		if (off > limit || bytes > limit - off)
			return -E2BIG;
		if (offsets)
			offsets[i] = off;
		pos = off + bytes;
		m |= 1U << t[i].dtype;
	}
	*end = pos;
	*mask = m;
	return 0;
}

/* Shared by measure and init: arguments, placement and geometry. */
static int rw_layout_build(const struct rw_layout_tensor *t, u32 nr,
			   u32 chunk_size, u64 *offsets,
			   struct rw_layout_geom *g, u32 *mask)
{
	u64 total;
	u32 shift;
	int err;

	if (!t || !nr || rw_layout_chunk_shift(chunk_size, &shift))
		return -EINVAL;
	if (nr > RW_LAYOUT_MAX_TENSORS)
		return -E2BIG;
	err = rw_layout_place(t, nr, (u64)RW_LAYOUT_MAX_CHUNKS << shift,
			      offsets, &total, mask);
	if (err)
		return err;
	return rw_layout_geom_init(g, total, chunk_size);
}

int rw_layout_measure(const struct rw_layout_tensor *t, u32 nr,
		      u32 chunk_size, struct rw_layout_geom *g)
{
	struct rw_layout_geom tmp;
	u32 mask;
	int err;

	if (!g)
		return -EINVAL;
	err = rw_layout_build(t, nr, chunk_size, NULL, &tmp, &mask);
	if (!err)
		*g = tmp;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_measure);

static bool rw_layout_key_less(const struct rw_layout_tensor *t, u32 a, u32 b)
{
	return t[a].key < t[b].key || (t[a].key == t[b].key && a < b);
}

static void rw_layout_sift(const struct rw_layout_tensor *t, u32 *idx,
			   u32 root, u32 n)
{
	u32 child, tmp;

	while ((u64)root * 2 + 1 < n) {
		child = root * 2 + 1;
		if (child + 1 < n &&
		    rw_layout_key_less(t, idx[child], idx[child + 1]))
			child++;
		if (!rw_layout_key_less(t, idx[root], idx[child]))
			return;
		tmp = idx[root];
		idx[root] = idx[child];
		idx[child] = tmp;
		root = child;
	}
}

/* Heapsort @idx[0..n) by the keys they point at. */
static void rw_layout_sort(const struct rw_layout_tensor *t, u32 *idx, u32 n)
{
	u32 i, tmp;

	for (i = n / 2; i-- > 0;)
		rw_layout_sift(t, idx, i, n);
	for (i = n; i-- > 1;) {
		tmp = idx[0];
		idx[0] = idx[i];
		idx[i] = tmp;
		rw_layout_sift(t, idx, 0, i);
	}
}

int rw_layout_init(struct rw_layout *l, const struct rw_layout_tensor *t,
		   u32 nr, u32 chunk_size, u64 *offsets, u32 *by_key)
{
	struct rw_layout_geom g;
	u32 i, mask;
	int err;

	if (!l || !offsets || !by_key)
		return -EINVAL;
	err = rw_layout_build(t, nr, chunk_size, offsets, &g, &mask);
	if (err)
		return err;
	for (i = 0; i < nr; i++)
		by_key[i] = i;
	rw_layout_sort(t, by_key, nr);
	for (i = 1; i < nr; i++)
		if (t[by_key[i - 1]].key == t[by_key[i]].key)
			return -EINVAL;

	l->tensors = t;
	l->offsets = offsets;
	l->by_key = by_key;
	l->nr_tensors = nr;
	l->dtype_mask = mask;
	l->geom = g;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_init);

int rw_layout_find(const struct rw_layout *l, u64 key, u32 *idx)
{
	u32 lo = 0, hi, mid;
	u64 k;

	if (!l || !idx)
		return -EINVAL;
	hi = l->nr_tensors;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		k = l->tensors[l->by_key[mid]].key;
		if (k == key) {
			*idx = l->by_key[mid];
			return 0;
		}
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_find);

/* End (exclusive) of tensor @i in the flat buffer. */
static u64 rw_layout_end(const struct rw_layout *l, u32 i)
{
	return l->offsets[i] +
	       (l->tensors[i].nelems << rw_dtype_shift(l->tensors[i].dtype));
}

int rw_layout_span(const struct rw_layout *l, u64 key, u64 first, u64 n,
		   struct rw_layout_span *s)
{
	u64 off, len;
	u32 i, shift;
	int err;

	if (!s)
		return -EINVAL;
	err = rw_layout_find(l, key, &i);
	if (err)
		return err;
	if (!n || first >= l->tensors[i].nelems ||
	    n > l->tensors[i].nelems - first)
		return -EINVAL;
	shift = rw_dtype_shift(l->tensors[i].dtype);
	off = l->offsets[i] + (first << shift);
	len = n << shift;

	s->off = off;
	s->len = len;
	s->first_chunk = (u32)(off >> l->geom.chunk_shift);
	s->nr_chunks = (u32)((off + len - 1) >> l->geom.chunk_shift) -
		       s->first_chunk + 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_span);

int rw_layout_chunk_tensors(const struct rw_layout *l, u32 c, u32 *first,
			    u32 *count)
{
	u32 lo, hi, mid, f;
	u64 start, end;
	u32 len;

	if (!l || !first || !count || rw_layout_chunk(&l->geom, c, &start, &len))
		return -EINVAL;
	end = start + len;

	/* First tensor that ends after the chunk starts. */
	lo = 0;
	hi = l->nr_tensors;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rw_layout_end(l, mid) > start)
			hi = mid;
		else
			lo = mid + 1;
	}
	f = lo;
	/* First tensor that starts at or after the chunk ends. */
	hi = l->nr_tensors;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->offsets[mid] >= end)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* Gaps are under 64 bytes and chunks at least 4 KiB: never empty. */
	if (lo <= f)
		return -EINVAL;
	*first = f;
	*count = lo - f;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_chunk_tensors);

int rw_layout_seg(const struct rw_layout *l, u32 c, u32 tensor,
		  struct rw_layout_seg *seg)
{
	u64 start, lo, hi;
	u32 len, shift;

	if (!l || !seg || tensor >= l->nr_tensors ||
	    rw_layout_chunk(&l->geom, c, &start, &len))
		return -EINVAL;
	lo = max_t(u64, start, l->offsets[tensor]);
	hi = min_t(u64, start + len, rw_layout_end(l, tensor));
	if (lo >= hi)
		return -EINVAL;
	shift = rw_dtype_shift(l->tensors[tensor].dtype);

	seg->key = l->tensors[tensor].key;
	seg->first_elem = (lo - l->offsets[tensor]) >> shift;
	seg->nelems = (hi - lo) >> shift;
	seg->tensor = tensor;
	seg->chunk_off = (u32)(lo - start);
	seg->dtype = l->tensors[tensor].dtype;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_seg);

int rw_layout_run(const struct rw_layout *l, u32 c, u32 *t, u32 last,
		  struct rw_layout_run *run)
{
	struct rw_layout_seg seg;
	struct rw_layout_run r;
	u32 i;
	int ret;

	if (!t || !run || *t >= last)
		return -EINVAL;
	ret = rw_layout_seg(l, c, *t, &seg);
	if (ret)
		return ret;
	r.off = seg.chunk_off;
	r.end = seg.chunk_off + (u32)(seg.nelems << rw_dtype_shift(seg.dtype));
	r.dtype = seg.dtype;
	for (i = *t + 1; r.dtype != RW_DTYPE_F32 && i < last; i++) {
		if (rw_layout_seg(l, c, i, &seg) || seg.dtype != r.dtype)
			break;
		r.end = seg.chunk_off + (u32)(seg.nelems << 1);
	}
	*t = i;
	*run = r;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_run);

/* Chunk @a goes before @b: a lower key, or the same and a lower index. */
static bool rw_order_less(const u32 *key, u32 a, u32 b)
{
	return key[a] < key[b] || (key[a] == key[b] && a < b);
}

static void rw_order_sift(const u32 *key, u32 *idx, u32 root, u32 n)
{
	u32 child, tmp;

	while ((u64)root * 2 + 1 < n) {
		child = root * 2 + 1;
		if (child + 1 < n && rw_order_less(key, idx[child], idx[child + 1]))
			child++;
		if (!rw_order_less(key, idx[root], idx[child]))
			return;
		tmp = idx[root];
		idx[root] = idx[child];
		idx[child] = tmp;
		root = child;
	}
}

/* The priority chunk @c goes by: its first tensor's. */
static u32 rw_layout_chunk_prio(const struct rw_layout *l, u32 c)
{
	u32 first, count;

	if (rw_layout_chunk_tensors(l, c, &first, &count))
		return 0;
	return l->tensors[first].priority;
}

bool rw_layout_order(const struct rw_layout *l, u32 *order, u32 *rank)
{
	u32 n = l->geom.nr_chunks, c, i, tmp, p, prev = 0;
	bool own = true;

	for (c = 0; c < n && own; c++) {
		p = rw_layout_chunk_prio(l, c);
		own = p >= prev;
		prev = p;
	}
	if (own)
		return false;
	/* @rank holds each chunk's key while @order is sorted by it. */
	for (c = 0; c < n; c++) {
		rank[c] = rw_layout_chunk_prio(l, c);
		order[c] = c;
	}
	for (i = n / 2; i-- > 0;)
		rw_order_sift(rank, order, i, n);
	for (i = n; i-- > 1;) {
		tmp = order[0];
		order[0] = order[i];
		order[i] = tmp;
		rw_order_sift(rank, order, 0, i);
	}
	for (i = 0; i < n; i++)
		rank[order[i]] = i;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rw_layout_order);

int rw_xfer_select(const struct rw_layout *l, const struct rw_range *r,
		   u32 nr, bool keys, unsigned long *sel)
{
	u32 nc = l->geom.nr_chunks, i, idx;
	struct rw_layout_span sp;
	int ret;

	bitmap_zero(sel, nc);
	if (!nr) {
		bitmap_set(sel, 0, nc);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		if (keys) {
			if (r[i].count)
				return -EINVAL;
			ret = rw_layout_find(l, r[i].first, &idx);
			if (ret)
				return ret;
			ret = rw_layout_span(l, r[i].first, 0,
					     l->tensors[idx].nelems, &sp);
			if (ret)
				return ret;
			bitmap_set(sel, sp.first_chunk, sp.nr_chunks);
		} else {
			if (!r[i].count || r[i].first >= nc ||
			    r[i].count > nc - r[i].first)
				return -EINVAL;
			bitmap_set(sel, r[i].first, r[i].count);
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_xfer_select);
