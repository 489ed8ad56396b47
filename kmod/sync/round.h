/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rounds: which gradients a chunk's next optimizer step takes. Pure logic
 * (see compat.h): the chunk's owner (kmod/engine/path.c) calls it, and so
 * do the cmocka tests. Deterministic: the outcome depends only on the
 * arguments.
 *
 * Every gradient in a slot carries a tag written by its pusher: the
 * iteration it belongs to (the worker's gate clock when it was admitted)
 * and the pusher's membership generation (its gate epoch + 1). The job
 * publishes a view: who is a member now, with which generation, from which
 * iteration on each member is needed (join), and the rule of each
 * iteration: synchronous with a quorum, or a step per gradient.
 *
 * Synchronous rule (BSP), per chunk: round i sums the gradients tagged i.
 * It completes once it holds need = min(K, E) of them, E the members
 * needed in iteration i (join <= i) and K the quorum (0: all, K = E); the
 * sum takes them in rank order and is scaled by 1/(number summed). So:
 *  - a member that leaves stops being waited for at once; its gradients
 *    still held are dropped (never summed into a later step), and so is a
 *    gradient whose pusher left and rejoined since it pushed;
 *  - a gradient tagged i that arrives after round i completed is late: it
 *    is dropped and counted;
 *  - a gradient tagged above the current round waits for its round;
 *  - no round ever sums two gradients of one rank (one slot per rank) nor
 *    one tagged with another iteration.
 * Each-gradient rule (ASP, SSP, adaptive): a gradient is applied alone on
 * arrival, whatever its tag.
 *
 * Rule changes take effect at an iteration boundary: the view keeps the
 * old rule for iterations below @from and the new one from there on. A
 * view's @stop holds every synchronous round from it on, however many of
 * its gradients are in (a move's boundary: the run ends there).
 */
#ifndef _RW_SYNC_ROUND_H
#define _RW_SYNC_ROUND_H

#include "compat.h"

#define RW_ROUND_MAX_RANKS	256U
#define RW_ROUND_WORDS		(RW_ROUND_MAX_RANKS / 64)
#define RW_ROUND_ANY		(~0ULL)	/* tag: whatever round is current */

/* What the pusher writes next to a gradient. */
struct rw_round_tag {
	u64 iter;		/* RW_ROUND_ANY: no gate (tests, benches) */
	u32 gen;		/* 0: not checked */
	u32 pad;
};

struct rw_round_rule {
	u32 quorum;		/* synchronous: gradients per step; 0: all */
	u32 each;		/* 1: a step per gradient */
};

/* The job's membership and rules, as chunk owners read them. */
struct rw_round_view {
	u32 nr_ranks;
	u32 nr_members;
	u64 max_join;			/* over members */
	u64 from;			/* first iteration under @rule */
	struct rw_round_rule old;	/* iterations below @from */
	struct rw_round_rule rule;
	/*
	 * A move's boundary (docs/design.md "Many boxes"): no synchronous
	 * round at or above it steps; 0: none. Kept by member updates.
	 */
	u64 stop;
	u32 gen[RW_ROUND_MAX_RANKS];	/* 0: not a member */
	u64 join[RW_ROUND_MAX_RANKS];	/* first iteration it is needed in */
};

/* A chunk's state, its owner's alone. */
struct rw_round {
	u64 iter;			/* the round the next sync step ends */
	u64 held[RW_ROUND_WORDS];	/* ranks whose gradient waits */
};

enum rw_round_act {
	RW_ROUND_WAIT = 0,	/* nothing to do until something changes */
	RW_ROUND_DROP,		/* @rank's gradient: its pusher left */
	RW_ROUND_LATE,		/* @rank's gradient: its round is done */
	RW_ROUND_ONE,		/* apply @rank's gradient alone */
	RW_ROUND_STEP,		/* sum the @nsum ranks in @sum */
};

struct rw_round_out {
	u32 act;
	u32 rank;
	u32 nsum;
	u64 iter;			/* the round @act belongs to */
	u64 sum[RW_ROUND_WORDS];
};

/* A view in which ranks 0..@nr_ranks-1 are members from iteration 0. */
int rw_round_view_init(struct rw_round_view *v, u32 nr_ranks,
		       const struct rw_round_rule *rule);

/*
 * Switch to @rule from iteration @from on (never below the current
 * @from); iterations below it keep the rule in force for them now.
 */
void rw_round_view_rule(struct rw_round_view *v,
			const struct rw_round_rule *rule, u64 from);

/* Set rank @p's membership (@gen 0: not a member). Recounts. */
void rw_round_view_member(struct rw_round_view *v, u32 p, u32 gen, u64 join);

/* After writing gen[] and join[] directly: count the members again. */
void rw_round_recount(struct rw_round_view *v);

/* The rule in force for iteration @iter. */
const struct rw_round_rule *rw_round_rule_at(const struct rw_round_view *v,
					     u64 iter);

/* Rank @p's gradient landed: hold it. -EINVAL if out of range or held. */
int rw_round_hold(struct rw_round *r, u32 nr_ranks, u32 p);

/*
 * The next thing to do with @r's held gradients (@tags: one per rank).
 * Reads only; rw_round_apply() then commits it. Call again until WAIT.
 */
void rw_round_decide(const struct rw_round_view *v, const struct rw_round *r,
		     const struct rw_round_tag *tags, struct rw_round_out *out);
void rw_round_apply(struct rw_round *r, const struct rw_round_out *out);

bool rw_round_test(const u64 *bits, u32 p);
u32 rw_round_weight(const u64 *bits);

#endif /* _RW_SYNC_ROUND_H */
