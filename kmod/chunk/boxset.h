/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's box set (docs/design.md, "Many boxes"): the boxes a job's chunks
 * are spread over, each with its id and the address trainers reach it at,
 * the set's epoch (bumped by every change) and which of them this box is.
 * Pure logic (see compat.h), shared by the module, the library and rwctl:
 * checking a set, its digest (what boxes and trainers compare to agree on
 * it), a job's owner seed, and the chunk owners (chunk/owner.h) under it.
 */
#ifndef _RW_CHUNK_BOXSET_H
#define _RW_CHUNK_BOXSET_H

#include "compat.h"
#include "owner.h"

/* Box ids are 1..RW_BOX_ID_MAX (0 is "no box"). */
#define RW_BOX_ID_MAX		65535U

/* Address families as Linux numbers them (AF_INET, AF_INET6). */
#define RW_BOX_AF_INET		2U
#define RW_BOX_AF_INET6		10U

struct rw_box {
	u32 id;
	u16 family;			/* RW_BOX_AF_INET or RW_BOX_AF_INET6 */
	u16 port;			/* host order; 0: RW_WIRE_PORT */
	u8 addr[16];			/* IPv4: the first 4 bytes */
};

struct rw_boxset {
	u32 epoch;			/* 1 when set, +1 with every change */
	u32 nr;				/* 1..RW_OWNER_MAX_BOXES */
	u32 self;			/* this box's id; 0: not a box's */
	u32 reserved;
	struct rw_box box[RW_OWNER_MAX_BOXES];
};

/*
 * 0 if @s is a set a job may have: 1..RW_OWNER_MAX_BOXES boxes, ids in
 * 1..RW_BOX_ID_MAX and none twice, no address twice (family, address and
 * port), a known family with a non-zero address, an epoch, and @self one of
 * the ids (or 0 when @need_self is false). Else -EINVAL and *@msg (may be
 * NULL) says what is wrong, in words fit for an extended ack.
 */
int rw_boxset_check(const struct rw_boxset *s, bool need_self,
		    const char **msg);

/* Index of box @id in @s, or -1. */
int rw_boxset_find(const struct rw_boxset *s, u32 id);

/*
 * What two holders of a set compare: the epoch and every box (id, family,
 * address, port) taken in id order, so the order a set was written in
 * does not matter; @self is not in it.
 */
u64 rw_boxset_digest(const struct rw_boxset *s);

/* The owner seed of the job named @name (NUL-terminated). */
u64 rw_boxset_seed(const char *name);

/*
 * Chunk owners of a job @name's @nr_chunks chunks under @s, the last of
 * them shorter than the others if @last_short: @owner[c] is an index into
 * @s->box, @count (may be NULL, else RW_OWNER_MAX_BOXES entries) each
 * box's chunks. 0 or -EINVAL (see rw_owner_assign_bytes()).
 */
int rw_boxset_owners(const struct rw_boxset *s, const char *name,
		     u32 nr_chunks, bool last_short, u8 *owner, u32 *count);

/*
 * Whether @to may follow @from, the job's current set, in a move
 * (docs/design.md "Many boxes"): @to a good set (rw_boxset_check(), its
 * own @self unread) at the epoch after @from's (the same boxes again
 * may give one a new address). 0, or -EINVAL and *@msg (may be NULL) as rw_boxset_check() says it.
 */
int rw_boxset_move_check(const struct rw_boxset *from,
			 const struct rw_boxset *to, const char **msg);

/* What a move does to a job's chunks, from the two owner tables. */
struct rw_boxset_moves {
	u32 moved;			/* chunks whose owner changes */
	u32 sent;			/* of them, those box @self gives */
	u32 taken;			/* of them, those box @self takes */
};

/*
 * Whether chunk @c changes owner: @a and @b are the owner tables of
 * @from and @to (rw_boxset_owners()); a box is its id in both sets.
 */
static inline bool rw_boxset_chunk_moves(const struct rw_boxset *from,
					 const u8 *a,
					 const struct rw_boxset *to,
					 const u8 *b, u32 c)
{
	return from->box[a[c]].id != to->box[b[c]].id;
}

/* The moves of @nr chunks from @from (table @a) to @to (table @b). */
void rw_boxset_moves(const struct rw_boxset *from, const u8 *a,
		     const struct rw_boxset *to, const u8 *b, u32 nr,
		     u32 self, struct rw_boxset_moves *m);

#endif /* _RW_CHUNK_BOXSET_H */
