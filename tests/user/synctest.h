/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the kmod/sync cmocka tests: gates on heap storage, a
 * scripted driver that checks every verdict, release and the invariant
 * step by step, snapshots to prove that refused calls change nothing, and
 * a deterministic random source.
 */
#ifndef RW_TEST_SYNCTEST_H
#define RW_TEST_SYNCTEST_H

#include "compat.h"
#include "gate.h"

#define ST_MAX_W	64

/* A gate with its own heap storage. */
struct st_gate {
	struct rw_gate g;
	struct rw_gate_worker *w;
	u64 *ts;
};

struct rw_gate_config st_cfg(u32 policy, u32 nr, u32 s, u32 lo, u32 hi);
/* rw_gate_init at @now on fresh storage; fails the test on error. */
void st_new(struct st_gate *sg, const struct rw_gate_config *cfg, u64 now);
void st_free(struct st_gate *sg);

/* A copy of everything a gate owns, to compare after a refused call. */
struct st_snap {
	struct rw_gate g;
	struct rw_gate_worker w[ST_MAX_W];
	u64 ts[ST_MAX_W * RW_GATE_MAX_WINDOW];
};

void st_snap_take(struct st_snap *s, const struct st_gate *sg);
/* Fail the test unless @sg still holds exactly what @s saw. */
void st_snap_same(const struct st_snap *s, const struct st_gate *sg);

enum st_op {
	ST_REQ,		/* expect: verdict or -errno */
	ST_PUSH,	/* expect: 0 or -errno */
	ST_HB,		/* heartbeat */
	ST_EVICT,	/* expect: rw_gate_evict's return */
	ST_EXPIRE,	/* expect: how many; mask: of whom */
	ST_JOIN,	/* expect: 0 or -errno; the new epoch is remembered */
};

/*
 * One scripted step at time t (ns since the script began): worker p does
 * op with the epoch it last joined in (or @epoch when use_epoch), and the
 * call must return @expect. Then rw_gate_release runs and must list
 * exactly the workers in @released (a bit mask), and rw_gate_check must
 * pass. For ST_EXPIRE, @evicted is the mask of evicted workers.
 */
struct st_step {
	u64 t;
	u8 op;
	u8 p;
	bool use_epoch;
	u32 epoch;
	int expect;
	u64 released;
	u64 evicted;
};

#define ST_MS	1000000ULL

/* Run @n steps on @sg; the message names the failing step. */
void st_run(struct st_gate *sg, const struct st_step *steps, u32 n);

/* Deterministic pseudo-random numbers (xorshift64*). */
u64 st_rand(u64 *s);

#endif /* RW_TEST_SYNCTEST_H */
