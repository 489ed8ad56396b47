/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunk owners across a job's boxes (kmod/chunk/owner.c), run by
 * tests/user/test-chunk-owner.c (cmocka) and tests/kunit/chunk_test.c
 * (KUnit): the split is as even as whole chunks allow, the table depends
 * on the set and not on the order it is listed in, a box added or drained
 * moves close to the ideal share and nothing else, bad input is refused
 * with nothing written, and one known table is the same bits in the
 * module and in user space. Each returns NULL or what failed.
 */
#ifndef _RW_TESTS_OWNER_CASES_H
#define _RW_TESTS_OWNER_CASES_H

#include "chunk/owner.h"

#define RW_OC_SEED	0x5257424f58455321ULL
#define RW_OC_MAX	4096U

/* Scratch for the cases: a table or two of the largest size. */
static u8 rw_oc_a[RW_OC_MAX], rw_oc_b[RW_OC_MAX];
static const u32 rw_oc_ids[RW_OWNER_MAX_BOXES + 1] = {
	7, 3, 1000, 42, 5, 6, 99, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36,
	37, 38, 39, 40, 41, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,
	54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70,
};

/*
 * Every box holds floor(N / n) or one more, and N mod n hold more; with a
 * short last chunk its box is one of those holding more (when any do), so
 * owned bytes differ by less than a chunk.
 */
static const char *rw_oc_balance(void)
{
	static const u32 chunks[] = { 1, 2, 3, 7, 23, 30, 31, 100, 257, 4096 };
	static const u32 boxes[] = { 1, 2, 3, 4, 5, 8, 13, 64 };
	u32 count[RW_OWNER_MAX_BOXES], i, j, b, more, sum, s;

	for (s = 0; s < 2 * ARRAY_SIZE(chunks); s++) {
		i = s % ARRAY_SIZE(chunks);
		for (j = 0; j < ARRAY_SIZE(boxes); j++) {
			u32 n = chunks[i], k = boxes[j], lo = n / k;
			bool short_last = s >= ARRAY_SIZE(chunks);

			if (rw_owner_assign_bytes(RW_OC_SEED + i, rw_oc_ids, k,
						  n, short_last, rw_oc_a,
						  count))
				return "balance: refused a good set";
			if (short_last && n % k && count[rw_oc_a[n - 1]] != lo + 1)
				return "balance: the short chunk's box holds no more";
			more = 0;
			sum = 0;
			for (b = 0; b < k; b++) {
				if (count[b] != lo && count[b] != lo + 1)
					return "balance: a box off its share";
				more += count[b] == lo + 1;
				sum += count[b];
			}
			if (sum != n || more != n % k)
				return "balance: the shares do not add up";
			for (b = 0; b < n; b++)
				if (rw_oc_a[b] >= k)
					return "balance: an owner out of the set";
		}
	}
	return NULL;
}

/* The same set listed in another order: every chunk, the same box id. */
static const char *rw_oc_order(void)
{
	static const u32 fwd[] = { 7, 3, 1000, 42, 5 };
	static const u32 rev[] = { 5, 42, 1000, 3, 7 };
	u32 c;

	if (rw_owner_assign(RW_OC_SEED, fwd, 5, 1000, rw_oc_a, NULL) ||
	    rw_owner_assign(RW_OC_SEED, rev, 5, 1000, rw_oc_b, NULL))
		return "order: refused a good set";
	for (c = 0; c < 1000; c++)
		if (fwd[rw_oc_a[c]] != rev[rw_oc_b[c]])
			return "order: a chunk's owner depends on the listing";
	/* Another seed (another job) is another table. */
	if (rw_owner_assign(RW_OC_SEED + 1, fwd, 5, 1000, rw_oc_b, NULL))
		return "order: refused a good set";
	for (c = 0; c < 1000; c++)
		if (rw_oc_a[c] != rw_oc_b[c])
			return NULL;
	return "order: two jobs share one table";
}

/*
 * Chunks whose owner (as a box id) changes from @ids1 (@n1) to @ids2
 * (@n2) over @nr chunks.
 */
static u32 rw_oc_moved(const u32 *ids1, u32 n1, const u32 *ids2, u32 n2,
		       u32 nr)
{
	u32 c, moved = 0;

	if (rw_owner_assign(RW_OC_SEED, ids1, n1, nr, rw_oc_a, NULL) ||
	    rw_owner_assign(RW_OC_SEED, ids2, n2, nr, rw_oc_b, NULL))
		return U32_MAX;
	for (c = 0; c < nr; c++)
		moved += ids1[rw_oc_a[c]] != ids2[rw_oc_b[c]];
	return moved;
}

/*
 * A box added to three, one of four drained, one of eight drained: the
 * moved chunks within 1.25 times the ideal share (1/4, 1/4, 1/8).
 * @moved gets the three counts, of RW_OC_MAX chunks each.
 */
static const char *rw_oc_movement(u32 moved[3])
{
	static const u32 four[] = { 7, 3, 1000, 42 };
	static const u32 drained[] = { 7, 1000, 42 };
	u32 ideal[3] = { RW_OC_MAX / 4, RW_OC_MAX / 4, RW_OC_MAX / 8 };
	int i;

	moved[0] = rw_oc_moved(four, 3, four, 4, RW_OC_MAX);
	moved[1] = rw_oc_moved(four, 4, drained, 3, RW_OC_MAX);
	moved[2] = rw_oc_moved(rw_oc_ids, 8, rw_oc_ids + 1, 7, RW_OC_MAX);
	for (i = 0; i < 3; i++) {
		if (moved[i] == U32_MAX)
			return "movement: refused a good set";
		if (moved[i] < ideal[i] || moved[i] > ideal[i] + ideal[i] / 4)
			return "movement: more chunks moved than the change asks";
	}
	return NULL;
}

/* Bad input: refused, nothing written. */
static const char *rw_oc_bad(void)
{
	static const u32 dup[] = { 4, 9, 4 };
	u32 count[3] = { 77, 77, 77 };

	memset(rw_oc_a, 0xee, 16);
	if (rw_owner_assign(RW_OC_SEED, dup, 3, 16, rw_oc_a, count) != -EINVAL ||
	    rw_owner_assign(RW_OC_SEED, rw_oc_ids, 0, 16, rw_oc_a, count) !=
	    -EINVAL ||
	    rw_owner_assign(RW_OC_SEED, rw_oc_ids, RW_OWNER_MAX_BOXES + 1, 16,
			    rw_oc_a, count) != -EINVAL ||
	    rw_owner_assign(RW_OC_SEED, rw_oc_ids, 3, 0, rw_oc_a, count) !=
	    -EINVAL ||
	    rw_owner_assign(RW_OC_SEED, NULL, 3, 16, rw_oc_a, count) != -EINVAL ||
	    rw_owner_assign(RW_OC_SEED, rw_oc_ids, 3, 16, NULL, count) !=
	    -EINVAL)
		return "bad input: accepted";
	if (rw_oc_a[0] != 0xee || rw_oc_a[15] != 0xee || count[0] != 77)
		return "bad input: something was written";
	return NULL;
}

/* FNV-1a 64 of a table: the same bits wherever it was computed. */
static u64 rw_oc_fnv(const u8 *t, u32 n)
{
	u64 h = 0xcbf29ce484222325ULL;
	u32 i;

	for (i = 0; i < n; i++) {
		h ^= t[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define RW_OC_KNOWN	0xf088d2e866346a6dULL

/* One known table: 1000 chunks over the first five ids. */
static const char *rw_oc_known(u64 *got)
{
	if (rw_owner_assign(RW_OC_SEED, rw_oc_ids, 5, 1000, rw_oc_a, NULL))
		return "known: refused a good set";
	*got = rw_oc_fnv(rw_oc_a, 1000);
	return *got == RW_OC_KNOWN ? NULL : "known: another table";
}

#endif /* _RW_TESTS_OWNER_CASES_H */
