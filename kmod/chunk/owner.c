// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk owners across a job's boxes (owner.h): rendezvous hashing with
 * bounded loads. Pure and deterministic: the same inputs give the same
 * table in the module, the library and rwctl.
 */
#include "compat.h"
#include "owner.h"

/* splitmix64's finalizer: every input bit reaches every output bit. */
static u64 rw_owner_mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

u64 rw_owner_score(u64 seed, u32 chunk, u32 id)
{
	return rw_owner_mix(rw_owner_mix(seed ^ ((u64)id << 32 | chunk)) ^
			    ((u64)chunk << 32 | id));
}
EXPORT_SYMBOL_IF_KUNIT(rw_owner_score);

/* The best-ranked box for chunk @c among those @room allows (-1: none). */
static int rw_owner_best(u64 seed, const u32 *ids, u32 nr_boxes, u32 c,
			 const u32 *taken, const bool *big, u32 lo, u32 extra)
{
	u64 best_score = 0, s;
	int best = -1;
	u32 b;

	for (b = 0; b < nr_boxes; b++) {
		/* Room: below its quota, or one of the extras left. */
		if (taken[b] >= lo + big[b] &&
		    (big[b] || taken[b] != lo || !extra))
			continue;
		s = rw_owner_score(seed, c, ids[b]);
		if (best < 0 || s > best_score ||
		    (s == best_score && ids[b] < ids[best])) {
			best = (int)b;
			best_score = s;
		}
	}
	return best;
}

int rw_owner_assign_bytes(u64 seed, const u32 *ids, u32 nr_boxes,
			  u32 nr_chunks, bool last_short, u8 *owner,
			  u32 *count)
{
	u32 taken[RW_OWNER_MAX_BOXES] = { 0 };
	bool big[RW_OWNER_MAX_BOXES] = { false };
	u32 lo, extra, c, b, i, n;
	int best;

	if (!ids || !owner || !nr_boxes || nr_boxes > RW_OWNER_MAX_BOXES ||
	    !nr_chunks)
		return -EINVAL;
	for (b = 0; b < nr_boxes; b++)
		for (i = b + 1; i < nr_boxes; i++)
			if (ids[i] == ids[b])
				return -EINVAL;
	lo = nr_chunks / nr_boxes;
	extra = nr_chunks % nr_boxes;
	n = nr_chunks;
	/*
	 * A short last chunk goes first, to its best-ranked box, which then
	 * owns one of the extra chunks if there are any: the box with the
	 * short chunk holds one chunk more, so bytes, not counts, balance.
	 */
	if (last_short) {
		n--;
		best = rw_owner_best(seed, ids, nr_boxes, n, taken, big, lo + 1,
				     0);
		taken[best] = 1;
		if (extra) {
			big[best] = true;
			extra--;
		}
		owner[n] = (u8)best;
	}
	for (c = 0; c < n; c++) {
		best = rw_owner_best(seed, ids, nr_boxes, c, taken, big, lo,
				     extra);
		/* The quotas add up to the chunks: some box has room. */
		if (taken[best]++ == lo && !big[best]) {
			big[best] = true;
			extra--;
		}
		owner[c] = (u8)best;
	}
	if (count)
		for (b = 0; b < nr_boxes; b++)
			count[b] = taken[b];
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_owner_assign_bytes);

int rw_owner_assign(u64 seed, const u32 *ids, u32 nr_boxes, u32 nr_chunks,
		    u8 *owner, u32 *count)
{
	return rw_owner_assign_bytes(seed, ids, nr_boxes, nr_chunks, false,
				     owner, count);
}
EXPORT_SYMBOL_IF_KUNIT(rw_owner_assign);
