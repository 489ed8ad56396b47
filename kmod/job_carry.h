/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's state carried over a move of its job's box set (job_carry.c;
 * docs/design.md "Many boxes", steps 3 and 4). When a run ends with a move
 * taken, this box keeps each chunk it owned: the chunks it owns in the new
 * set too as the job's carry, from which the next run starts; the chunks
 * another box owns now as the job's gift, until that box has taken them.
 * A box that gains chunks has them in its carry once their givers have
 * written them there. Every call holds the job's run_lock.
 */
#ifndef _RW_JOB_CARRY_H
#define _RW_JOB_CARRY_H

#include <linux/types.h>

struct rw_boxset;
struct rw_engine;
struct rw_job;

/* What a carried chunk is a chunk of: both ends of a move agree on it. */
struct rw_carry_desc {
	u64 layout_hash;
	u32 nr_chunks;
	u32 nr_state;			/* optimizer arrays besides parameters */
	u32 chunk_size;
	bool last_short;		/* the last chunk is shorter */
	bool half;			/* a 16-bit tensor: f32 masters */
};

/* @e's run, described. */
void rw_carry_desc_of(const struct rw_engine *e, struct rw_carry_desc *d);

/*
 * One carried chunk's bytes: every array's as the image holds it
 * (rw_layout_image_chunk(): twice the chunk size with @half), then its
 * version (le64).
 */
static inline u64 rw_carry_rec_len(const struct rw_carry_desc *d)
{
	return ((1 + (u64)d->nr_state) * d->chunk_size << (d->half ? 1 : 0)) +
	       sizeof(u64);
}

/* What the end of a run keeps for a move (rw_carry_plan()). */
struct rw_carry_plan {
	u32 owned;		/* chunks this box owns in the new set */
	u32 kept;		/* of them, the run's here */
	u32 given;		/* the run's chunks another box owns now */
	u64 bytes;		/* what the carry and the gift take */
};

/*
 * What the end of @e's run keeps for a move of @job to @to (@to->self 0:
 * this box leaves). 0 or -ENOMEM / -EINVAL.
 */
int rw_carry_plan(const struct rw_job *job, const struct rw_engine *e,
		  const struct rw_boxset *to, struct rw_carry_plan *p);

/*
 * The run of @e ends with a move taken (job->boxes the new set): keep its
 * chunks as the job's carry and gift (which box @giver, this box's id in
 * the old set, gives), charged @charge bytes (0: nothing to keep), which
 * they hold from here on (given back if they cannot be kept).
 */
void rw_job_carry_take(struct rw_job *job, struct rw_engine *e, u64 charge,
		       u32 giver);

/*
 * A new run's engine @e starts from the job's carry, if any: 0, -EAGAIN
 * while chunks it gains have not all come, -EEXIST for another model or
 * share than the carried one, or the errno of setting it. The carry stays
 * until the run ends (rw_job_carry_run_end()).
 */
int rw_job_carry_apply(struct rw_job *job, struct rw_engine *e);

/*
 * The run of @e ends (before rw_job_carry_take(); NULL: a worker left,
 * the run goes on, nothing to do): the carry it started
 * from goes if it stepped, else stays for the next run (a run that ended
 * before its first step, as when a trainer's attach failed on another
 * box, loses nothing).
 */
void rw_job_carry_run_end(struct rw_job *job, struct rw_engine *e);

/* Drop the job's carry and gift, and their charges. */
void rw_job_carry_free(struct rw_job *job);

/*
 * A giver's chunks of @d are coming: @job's carry is of @d (-EEXIST and
 * *@msg if not), made for the chunks this box owns in the job's set if the
 * job has none (a box that joins: charged, -EDQUOT / -ENOSPC), or
 * -EAGAIN while the job's run, which ends with the move, is on.
 */
int rw_job_carry_expect(struct rw_job *job, const struct rw_carry_desc *d,
			const char **msg);

/* Where chunk @c of @job's carry goes, if it is due here, else NULL. */
u8 *rw_job_carry_want(struct rw_job *job, u32 c);

/* Chunk @c, wanted, has come into @job's carry. */
void rw_job_carry_in(struct rw_job *job, u32 c);
/* How many chunks @job's carry still waits for. */
u32 rw_job_carry_due(const struct rw_job *job);

/*
 * The job's gift, out of the job into the caller's hands (NULL: none), to
 * give (rdma/give.c) and then end with rw_gift_done(). The calls below
 * need no lock: the gift is the caller's alone.
 */
struct rw_carry *rw_job_gift_take_out(struct rw_job *job);
/* What the gift's chunks are of, and the id of the box giving them. */
const struct rw_carry_desc *rw_gift_desc(const struct rw_carry *k, u32 *giver);
/* The records (vmalloc memory), *@len bytes. */
void *rw_gift_buf(const struct rw_carry *k, u64 *len);
/* Chunk @c's record, if the gift has it, else NULL. */
const u8 *rw_gift_rec(const struct rw_carry *k, u32 c);
/*
 * The chunks in [@first, @first + @nr) that the gift has for box @to (its
 * index in the new set): bit c - @first of @map (DIV_ROUND_UP(@nr, 64)
 * words) for chunk c, and the first one's record at *@off of the buffer
 * (the others follow it in chunk order). Returns how many.
 */
u32 rw_gift_map(const struct rw_carry *k, u32 to, u32 first, u32 nr,
		u64 *map, u64 *off);
/* The gift is given (or lost): its memory and @job's charge go. */
void rw_gift_done(struct rw_job *job, struct rw_carry *k);

#endif /* _RW_JOB_CARRY_H */
