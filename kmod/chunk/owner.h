/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which box of a job's set owns each chunk (docs/design.md, "Many
 * boxes"): a pure function of the job's seed, the set's box ids and the
 * chunk count, so that every box, every trainer's host and rwctl compute
 * the same table from the same inputs. Pure logic (see compat.h).
 *
 * Rendezvous hashing with bounded loads. Chunk c's boxes rank by a hash
 * of (seed, c, box id); chunk by chunk, in order, c goes to the highest
 * ranked box that still has room. Room is what splits the chunks as
 * evenly as whole chunks allow: each box takes floor(N / n) of the N
 * chunks, and N mod n of them one more. Owned bytes then differ by at
 * most one chunk between boxes (every chunk but a model's last has the
 * same size). A box added or taken away changes each chunk's ranking
 * only where that box is concerned, so most chunks keep their owner:
 * about 1/(n + 1) of them move to a box added to n, a drained box's
 * share moves away, and the caps shift a few more (tests/user/
 * test-chunk-owner.c measures both against those ideals).
 */
#ifndef _RW_CHUNK_OWNER_H
#define _RW_CHUNK_OWNER_H

#include "compat.h"

/* The most boxes a job's set holds (an owner fits a u8). */
#define RW_OWNER_MAX_BOXES	64U

/* Chunk @chunk's rank score for box @id under @seed: higher ranks first. */
u64 rw_owner_score(u64 seed, u32 chunk, u32 id);

/*
 * Fill @owner[0..@nr_chunks) with indices into @ids (@nr_boxes of them,
 * 1..RW_OWNER_MAX_BOXES, no id twice), each box's @count (may be NULL,
 * else @nr_boxes entries) with the chunks it owns. 0, or -EINVAL (no box,
 * too many, a duplicate id, no chunk) with nothing written.
 */
int rw_owner_assign(u64 seed, const u32 *ids, u32 nr_boxes, u32 nr_chunks,
		    u8 *owner, u32 *count);
/*
 * The same for a model whose last chunk is shorter than the others
 * (@last_short; false is rw_owner_assign()): that chunk's box is one of
 * those owning a chunk more when the count does not divide evenly, so
 * owned bytes differ by less than one chunk between boxes.
 */
int rw_owner_assign_bytes(u64 seed, const u32 *ids, u32 nr_boxes,
			  u32 nr_chunks, bool last_short, u8 *owner,
			  u32 *count);

#endif /* _RW_CHUNK_OWNER_H */
