/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's box set (kmod/chunk/boxset.c), run by
 * tests/user/test-chunk-boxset.c (cmocka) and tests/kunit/chunk_test.c
 * (KUnit): every rule of rw_boxset_check() refuses its own bad set with a
 * message, the digest ignores the order and this box's id but not the
 * epoch, an id, an address or a port, the owners of a set cover every
 * chunk as rw_owner_assign() would give them, and one known digest and
 * one known seed are the same bits in the module and in user space. Each
 * returns NULL or what failed.
 */
#ifndef _RW_TESTS_BOXSET_CASES_H
#define _RW_TESTS_BOXSET_CASES_H

#include "chunk/boxset.h"

/* Scratch: sets are too large for a kernel stack. */
static struct rw_boxset rw_bc_s, rw_bc_t;
static u8 rw_bc_owner[4096];

/*
 * A good set of @n boxes: ids 10, 20, ... in reverse order (the order a
 * set is written in is free), IPv4 10.0.b.1 on port 18515 but every
 * fourth box on IPv6 fd00::b and port 7000, epoch 3, this box the first.
 */
static void rw_bc_fill(struct rw_boxset *s, u32 n)
{
	u32 i;

	memset(s, 0, sizeof(*s));
	s->epoch = 3;
	s->nr = n;
	for (i = 0; i < n && i < RW_OWNER_MAX_BOXES; i++) {
		struct rw_box *b = &s->box[i];

		b->id = 10 * (n - i);
		if (i % 4 == 3) {
			b->family = RW_BOX_AF_INET6;
			b->port = 7000;
			b->addr[0] = 0xfd;
			b->addr[15] = (u8)i;
		} else {
			b->family = RW_BOX_AF_INET;
			b->port = 18515;
			b->addr[0] = 10;
			b->addr[2] = (u8)i;
			b->addr[3] = 1;
		}
	}
	s->self = s->box[0].id;
}

/* @s must be refused with a message holding @what. */
static const char *rw_bc_refused(const struct rw_boxset *s, bool need_self,
				 const char *what, const char *fail)
{
	const char *msg = NULL;

	if (rw_boxset_check(s, need_self, &msg) != -EINVAL)
		return fail;
	if (!msg || !strstr(msg, what))
		return fail;
	/* Without a message pointer too. */
	return rw_boxset_check(s, need_self, NULL) == -EINVAL ? NULL : fail;
}

/* Each rule refuses its own bad set, saying which rule. */
static const char *rw_bc_refusals(void)
{
	struct rw_boxset *s = &rw_bc_s;
	const char *msg = NULL, *fail;

	rw_bc_fill(s, 5);
	if (rw_boxset_check(s, true, &msg) || msg)
		return "refusals: a good set refused";
	rw_bc_fill(s, RW_OWNER_MAX_BOXES);
	if (rw_boxset_check(s, true, NULL))
		return "refusals: 64 boxes refused";
	/* The same address on another port is another box. */
	rw_bc_fill(s, 5);
	s->box[1].addr[2] = s->box[0].addr[2];
	s->box[1].port = 18516;
	if (rw_boxset_check(s, true, NULL))
		return "refusals: one address on two ports refused";
	/* A set held by no box of its own (a trainer's view). */
	s->self = 0;
	if (rw_boxset_check(s, false, NULL))
		return "refusals: a set without this box refused where allowed";

	rw_bc_fill(s, 3);
	s->nr = 0;
	fail = rw_bc_refused(s, true, "1 to 64", "refusals: no box accepted");
	if (fail)
		return fail;
	/* Only nr is read past the 64th box: there is no 65th slot. */
	rw_bc_fill(s, RW_OWNER_MAX_BOXES);
	s->nr = RW_OWNER_MAX_BOXES + 1;
	fail = rw_bc_refused(s, true, "1 to 64", "refusals: 65 boxes accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	s->box[2].id = 0;
	fail = rw_bc_refused(s, true, "1..65535", "refusals: id 0 accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	s->box[1].id = RW_BOX_ID_MAX + 1;
	fail = rw_bc_refused(s, true, "1..65535", "refusals: id 65536 accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	s->box[2].id = s->box[0].id;
	fail = rw_bc_refused(s, true, "twice", "refusals: a duplicate id accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	memcpy(s->box[2].addr, s->box[1].addr, sizeof(s->box[2].addr));
	fail = rw_bc_refused(s, true, "one address",
			     "refusals: a duplicate address accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	s->box[1].family = 0;
	fail = rw_bc_refused(s, true, "IPv4 or IPv6",
			     "refusals: family 0 accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	memset(s->box[1].addr, 0, sizeof(s->box[1].addr));
	fail = rw_bc_refused(s, true, "IPv4 or IPv6",
			     "refusals: an all-zero address accepted");
	if (fail)
		return fail;
	/* IPv4 reads 4 bytes: what follows them is not the address. */
	rw_bc_fill(s, 3);
	memset(s->box[1].addr, 0, 4);
	s->box[1].addr[7] = 1;
	fail = rw_bc_refused(s, true, "IPv4 or IPv6",
			     "refusals: an IPv4 address of zeros accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	s->epoch = 0;
	fail = rw_bc_refused(s, true, "epoch", "refusals: epoch 0 accepted");
	if (fail)
		return fail;
	rw_bc_fill(s, 3);
	s->self = 7;
	fail = rw_bc_refused(s, true, "not in the set",
			     "refusals: this box outside the set accepted");
	if (fail)
		return fail;
	s->self = 0;
	return rw_bc_refused(s, true, "not in the set",
			     "refusals: no self accepted where one is needed");
}

/* The digest: order and self are free; epoch, id, address, port are not. */
static const char *rw_bc_digest(void)
{
	struct rw_boxset *s = &rw_bc_s, *t = &rw_bc_t;
	u64 d;
	u32 i;

	rw_bc_fill(s, 7);
	d = rw_boxset_digest(s);
	/* Reversed, and held by another box of the set. */
	memset(t, 0, sizeof(*t));
	t->epoch = s->epoch;
	t->nr = s->nr;
	for (i = 0; i < s->nr; i++)
		t->box[i] = s->box[s->nr - 1 - i];
	t->self = s->box[3].id;
	if (rw_boxset_digest(t) != d)
		return "digest: depends on the order or on this box";

	*t = *s;
	t->epoch++;
	if (rw_boxset_digest(t) == d)
		return "digest: blind to the epoch";
	*t = *s;
	t->box[4].id = 1000;
	if (rw_boxset_digest(t) == d)
		return "digest: blind to an id";
	*t = *s;
	t->box[2].addr[3] ^= 0x80;
	if (rw_boxset_digest(t) == d)
		return "digest: blind to an IPv4 address";
	*t = *s;
	t->box[3].addr[9] = 1;
	if (rw_boxset_digest(t) == d)
		return "digest: blind to an IPv6 address";
	*t = *s;
	t->box[0].port++;
	if (rw_boxset_digest(t) == d)
		return "digest: blind to a port";
	*t = *s;
	t->nr--;
	if (rw_boxset_digest(t) == d)
		return "digest: blind to a box gone";
	return NULL;
}

/*
 * The owners of 4096 chunks of job "resnet50" over a set of 5: every
 * chunk owned by a box of the set, the counts adding up, and the table
 * rw_owner_assign() gives for the job's seed and the set's ids.
 */
static const char *rw_bc_owners(void)
{
	static u8 ref[4096];
	struct rw_boxset *s = &rw_bc_s;
	u32 count[RW_OWNER_MAX_BOXES], ids[RW_OWNER_MAX_BOXES];
	u32 i, sum = 0, n = 4096;

	rw_bc_fill(s, 5);
	if (rw_boxset_owners(s, "resnet50", n, false, rw_bc_owner, count))
		return "owners: a good set refused";
	for (i = 0; i < n; i++)
		if (rw_bc_owner[i] >= s->nr)
			return "owners: a chunk owned by no box of the set";
	for (i = 0; i < s->nr; i++) {
		sum += count[i];
		ids[i] = s->box[i].id;
	}
	if (sum != n)
		return "owners: the counts do not add up to the chunks";
	if (rw_owner_assign(rw_boxset_seed("resnet50"), ids, s->nr, n, ref,
			    NULL))
		return "owners: rw_owner_assign refused the set";
	if (memcmp(ref, rw_bc_owner, n))
		return "owners: not rw_owner_assign's table for the job's seed";
	/* Refused as rw_owner_assign refuses. */
	s->nr = 0;
	if (rw_boxset_owners(s, "resnet50", n, false, rw_bc_owner, count) != -EINVAL)
		return "owners: a set without boxes accepted";
	rw_bc_fill(s, 5);
	if (rw_boxset_owners(s, "resnet50", 0, false, rw_bc_owner, count) != -EINVAL)
		return "owners: no chunks accepted";
	return NULL;
}

#define RW_BC_KNOWN_DIGEST	0x77a33bbad11a8c06ULL
#define RW_BC_KNOWN_SEED	0xea38d543720f1831ULL

/* One known digest (the set of 7 above) and the seed of "resnet50". */
static const char *rw_bc_known(u64 *digest, u64 *seed)
{
	rw_bc_fill(&rw_bc_s, 7);
	*digest = rw_boxset_digest(&rw_bc_s);
	*seed = rw_boxset_seed("resnet50");
	if (*digest != RW_BC_KNOWN_DIGEST)
		return "known: another digest";
	return *seed == RW_BC_KNOWN_SEED ? NULL : "known: another seed";
}

#endif /* _RW_TESTS_BOXSET_CASES_H */
