// SPDX-License-Identifier: GPL-2.0
/*
 * A job's box set (boxset.h): checks, digest, seed, owners and what a
 * move to another set does. Pure.
 */
#include "compat.h"
#include "boxset.h"

static bool rw_box_same_addr(const struct rw_box *a, const struct rw_box *b)
{
	u32 len = a->family == RW_BOX_AF_INET ? 4 : 16;

	return a->family == b->family && a->port == b->port &&
	       !memcmp(a->addr, b->addr, len);
}

static bool rw_box_addr_ok(const struct rw_box *b)
{
	u32 len, i;

	if (b->family == RW_BOX_AF_INET)
		len = 4;
	else if (b->family == RW_BOX_AF_INET6)
		len = 16;
	else
		return false;
	for (i = 0; i < len; i++)
		if (b->addr[i])
			return true;
	return false;
}

int rw_boxset_check(const struct rw_boxset *s, bool need_self,
		    const char **msg)
{
	const char *why = NULL;
	u32 i, j;

	if (!s->nr || s->nr > RW_OWNER_MAX_BOXES)
		why = "a box set holds 1 to 64 boxes";
	else if (!s->epoch)
		why = "a box set's epoch starts at 1";
	for (i = 0; !why && i < s->nr; i++) {
		const struct rw_box *b = &s->box[i];

		if (!b->id || b->id > RW_BOX_ID_MAX)
			why = "a box id is 1..65535";
		else if (!rw_box_addr_ok(b))
			why = "a box needs an IPv4 or IPv6 address";
		for (j = 0; !why && j < i; j++) {
			if (s->box[j].id == b->id)
				why = "a box id is in the set twice";
			else if (rw_box_same_addr(&s->box[j], b))
				why = "two boxes of the set have one address";
		}
	}
	if (!why && (need_self || s->self) && rw_boxset_find(s, s->self) < 0)
		why = "this box's id is not in the set";
	if (!why)
		return 0;
	if (msg)
		*msg = why;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(rw_boxset_check);

int rw_boxset_find(const struct rw_boxset *s, u32 id)
{
	u32 i;

	for (i = 0; id && i < s->nr && i < RW_OWNER_MAX_BOXES; i++)
		if (s->box[i].id == id)
			return (int)i;
	return -1;
}
EXPORT_SYMBOL_IF_KUNIT(rw_boxset_find);

/* FNV-1a, 64 bits, over @len bytes, continuing from @h. */
static u64 rw_boxset_fnv(u64 h, const void *p, size_t len)
{
	const u8 *b = p;

	while (len--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static u64 rw_boxset_u32(u64 h, u32 v)
{
	u8 le[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };

	return rw_boxset_fnv(h, le, sizeof(le));
}

u64 rw_boxset_digest(const struct rw_boxset *s)
{
	u64 h = rw_boxset_u32(0xcbf29ce484222325ULL, s->epoch);
	u32 last = 0, i, n = min_t(u32, s->nr, RW_OWNER_MAX_BOXES);

	h = rw_boxset_u32(h, n);
	/* Smallest id above @last, n times: id order, whatever the order. */
	while (n--) {
		const struct rw_box *next = NULL;

		for (i = 0; i < s->nr && i < RW_OWNER_MAX_BOXES; i++)
			if (s->box[i].id > last &&
			    (!next || s->box[i].id < next->id))
				next = &s->box[i];
		if (!next)
			break;
		last = next->id;
		h = rw_boxset_u32(h, next->id);
		h = rw_boxset_u32(h, (u32)next->family << 16 | next->port);
		h = rw_boxset_fnv(h, next->addr, sizeof(next->addr));
	}
	return h;
}
EXPORT_SYMBOL_IF_KUNIT(rw_boxset_digest);

u64 rw_boxset_seed(const char *name)
{
	return rw_boxset_fnv(0xcbf29ce484222325ULL, name, strlen(name));
}
EXPORT_SYMBOL_IF_KUNIT(rw_boxset_seed);

int rw_boxset_owners(const struct rw_boxset *s, const char *name,
		     u32 nr_chunks, bool last_short, u8 *owner, u32 *count)
{
	u32 ids[RW_OWNER_MAX_BOXES], i;

	if (!s->nr || s->nr > RW_OWNER_MAX_BOXES)
		return -EINVAL;
	for (i = 0; i < s->nr; i++)
		ids[i] = s->box[i].id;
	return rw_owner_assign_bytes(rw_boxset_seed(name), ids, s->nr,
				     nr_chunks, last_short, owner, count);
}
EXPORT_SYMBOL_IF_KUNIT(rw_boxset_owners);

int rw_boxset_move_check(const struct rw_boxset *from,
			 const struct rw_boxset *to, const char **msg)
{
	int ret = rw_boxset_check(to, false, msg);

	if (ret)
		return ret;
	if (from->epoch != U32_MAX && to->epoch == from->epoch + 1)
		return 0;
	if (msg)
		*msg = "a move's set has the epoch after the job's";
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(rw_boxset_move_check);

void rw_boxset_moves(const struct rw_boxset *from, const u8 *a,
		     const struct rw_boxset *to, const u8 *b, u32 nr,
		     u32 self, struct rw_boxset_moves *m)
{
	u32 c;

	memset(m, 0, sizeof(*m));
	for (c = 0; c < nr; c++) {
		if (!rw_boxset_chunk_moves(from, a, to, b, c))
			continue;
		m->moved++;
		if (self && from->box[a[c]].id == self)
			m->sent++;
		if (self && to->box[b[c]].id == self)
			m->taken++;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rw_boxset_moves);
