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

static u8 rw_bc_owner2[4096];

/*
 * A move's set: the epoch after the job's and a good set, or refused with
 * a message; the same boxes again (an address changed) may follow.
 */
static const char *rw_bc_move_check(void)
{
	struct rw_boxset *s = &rw_bc_s, *t = &rw_bc_t;
	const char *msg = NULL;

	rw_bc_fill(s, 3);
	rw_bc_fill(t, 4);
	t->epoch = s->epoch + 1;
	if (rw_boxset_move_check(s, t, &msg) || msg)
		return "move check: a box added refused";
	/* A box drained: the set it leaves holds no self of its. */
	rw_bc_fill(t, 2);
	t->epoch = s->epoch + 1;
	t->self = 0;
	if (rw_boxset_move_check(s, t, NULL))
		return "move check: a drained box's set refused";
	*t = *s;
	t->epoch++;
	t->box[1].addr[3] = 9;
	if (rw_boxset_move_check(s, t, NULL))
		return "move check: a new address refused";
	t->epoch = s->epoch;
	if (rw_boxset_move_check(s, t, &msg) != -EINVAL || !msg ||
	    !strstr(msg, "epoch after"))
		return "move check: the job's own epoch accepted";
	t->epoch = s->epoch + 2;
	if (rw_boxset_move_check(s, t, NULL) != -EINVAL)
		return "move check: an epoch skipped accepted";
	s->epoch = U32_MAX;
	t->epoch = 0;
	if (rw_boxset_move_check(s, t, NULL) != -EINVAL)
		return "move check: an epoch wrapped accepted";
	rw_bc_fill(s, 3);
	*t = *s;
	t->epoch++;
	t->box[2].id = t->box[0].id;
	msg = NULL;
	if (rw_boxset_move_check(s, t, &msg) != -EINVAL || !msg ||
	    !strstr(msg, "twice"))
		return "move check: a bad set accepted";
	return NULL;
}

/*
 * @n boxes to @m (the first min(n, m) kept, ids and addresses as
 * rw_bc_fill() gives them for the larger): the moves of 4096 chunks of
 * job "resnet50", box @self's view. Each chunk that moves is counted
 * once, given by one box and taken by one; a box that leaves gives every
 * chunk it had, one that joins takes every chunk it gets.
 */
static const char *rw_bc_move(u32 n, u32 m, struct rw_boxset_moves *all)
{
	struct rw_boxset *s = &rw_bc_s, *t = &rw_bc_t;
	u32 big = n > m ? n : m, nr = 4096, i, c, sent = 0, taken = 0;
	u32 count[RW_OWNER_MAX_BOXES], count2[RW_OWNER_MAX_BOXES];
	struct rw_boxset_moves mv;

	rw_bc_fill(s, big);
	*t = *s;
	s->nr = n;
	t->nr = m;
	t->epoch++;
	if (rw_boxset_owners(s, "resnet50", nr, true, rw_bc_owner, count) ||
	    rw_boxset_owners(t, "resnet50", nr, true, rw_bc_owner2, count2))
		return "move: owners refused";
	rw_boxset_moves(s, rw_bc_owner, t, rw_bc_owner2, nr, 0, all);
	if (all->sent || all->taken)
		return "move: a set's view gave or took";
	for (i = 0; i < big; i++) {
		rw_boxset_moves(s, rw_bc_owner, t, rw_bc_owner2, nr,
				s->box[i].id, &mv);
		if (mv.moved != all->moved)
			return "move: boxes disagree on what moves";
		/* Leaving: every chunk of its own; joining: every one it gets. */
		if (i >= m && mv.sent != count[i])
			return "move: a drained box kept a chunk";
		if (i >= n && mv.taken != count2[i])
			return "move: a new box was given a chunk it did not take";
		sent += mv.sent;
		taken += mv.taken;
	}
	if (sent != all->moved || taken != all->moved)
		return "move: a moved chunk not given and taken once";
	for (c = 0, i = 0; c < nr; c++)
		i += s->box[rw_bc_owner[c]].id != t->box[rw_bc_owner2[c]].id;
	return i == all->moved ? NULL : "move: the count is not the chunks'";
}

/*
 * Minimal movement: a fourth box joining three takes about a quarter of
 * the chunks, and moves little else; draining one of four moves its
 * quarter, and little else; a new address alone moves nothing.
 */
static const char *rw_bc_moves(u32 *added, u32 *drained)
{
	struct rw_boxset_moves all;
	const char *fail;

	fail = rw_bc_move(3, 4, &all);
	if (fail)
		return fail;
	*added = all.moved;
	/* 1024 ideal: the bounded loads move a few more. */
	if (all.moved < 1024 || all.moved > 1024 + 1024 / 8)
		return "move: a box added moved far from a quarter";
	fail = rw_bc_move(4, 3, &all);
	if (fail)
		return fail;
	*drained = all.moved;
	if (all.moved < 1024 || all.moved > 1024 + 1024 / 8)
		return "move: a box drained moved far from its quarter";
	fail = rw_bc_move(3, 3, &all);
	if (fail)
		return fail;
	return all.moved ? "move: the same boxes moved a chunk" : NULL;
}

#endif /* _RW_TESTS_BOXSET_CASES_H */
