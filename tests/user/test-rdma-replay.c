// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka tests of kmod/rdma/replay.c built in user space: the clock window
 * of connect requests, replayed nonces, a rank's full table (its floor),
 * tables per rank that do not share their room, slots freed when their
 * time leaves the window, tables following a job's worker count, and a
 * random run of ranks, replays and policy sets in which no request is
 * taken twice and no rank keeping to the rules is ever refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rdma/replay.h"

#define NOW	1795000000LL
#define SKEW	300
#define N	RW_REPLAY_SLOTS

static void replay_window(void **state)
{
	struct rw_replay r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(rw_replay_check(&r, 1, NOW + SKEW + 1, NOW, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&r, 2, NOW - SKEW - 1, NOW, SKEW),
			 -ETIMEDOUT);
	/* Refused for the clock, they leave nothing: both nonces are new. */
	assert_int_equal(rw_replay_check(&r, 1, NOW + SKEW, NOW, SKEW), 0);
	assert_int_equal(rw_replay_check(&r, 2, NOW - SKEW, NOW, SKEW), 0);
	assert_int_equal(rw_replay_check(&r, 3, NOW, NOW, SKEW), 0);
}

static void replay_nonce(void **state)
{
	struct rw_replay r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(rw_replay_check(&r, 42, NOW, NOW, SKEW), 0);
	assert_int_equal(rw_replay_check(&r, 42, NOW, NOW, SKEW), -ETIMEDOUT);
	/* Another time does not make an old nonce new while it is remembered. */
	assert_int_equal(rw_replay_check(&r, 42, NOW + 10, NOW + 5, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&r, 42, NOW + SKEW, NOW + SKEW, SKEW),
			 -ETIMEDOUT);
	/*
	 * Its slot is kept until its time leaves the window: one second
	 * later, a request with its time would be refused for the clock.
	 */
	assert_int_equal(rw_replay_check(&r, 42, NOW + 1, NOW + SKEW + 1, SKEW),
			 0);
}

/* More than a table holds in one second: the rest wait for the next. */
static void replay_full(void **state)
{
	struct rw_replay r;
	uint64_t n;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (n = 0; n < N; n++)
		assert_int_equal(rw_replay_check(&r, 1000 + n, NOW, NOW, SKEW),
				 0);
	assert_int_equal(rw_replay_check(&r, 7, NOW, NOW, SKEW), -EBUSY);
	/* The floor covers it now, and every nonce of that second. */
	assert_int_equal(r.floor, NOW);
	assert_int_equal(rw_replay_check(&r, 7, NOW, NOW + 1, SKEW), -EBUSY);
	for (n = 0; n < N; n++)
		assert_int_equal(rw_replay_check(&r, 1000 + n, NOW, NOW + 1,
						 SKEW), -EBUSY);
	/* The next second has the whole table. */
	for (n = 0; n < N; n++)
		assert_int_equal(rw_replay_check(&r, 2000 + n, NOW + 1, NOW + 1,
						 SKEW), 0);
	assert_int_equal(rw_replay_check(&r, 2000, NOW + 1, NOW + 1, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&r, 8, NOW + 1, NOW + 1, SKEW),
			 -EBUSY);
}

/* A newer request pushes out the oldest second only. */
static void replay_push_out(void **state)
{
	struct rw_replay r;
	int64_t t;

	(void)state;
	memset(&r, 0, sizeof(r));
	/* One request a second, oldest first, from NOW - N + 1 to NOW. */
	for (t = 0; t < N; t++)
		assert_int_equal(rw_replay_check(&r, 100 + t, NOW - N + 1 + t,
						 NOW, SKEW), 0);
	assert_int_equal(r.floor, 0);
	assert_int_equal(rw_replay_check(&r, 50, NOW + 1, NOW + 1, SKEW), 0);
	assert_int_equal(r.floor, NOW - N + 1);
	/* The one pushed out is under the floor; the others are remembered. */
	assert_int_equal(rw_replay_check(&r, 100, NOW - N + 1, NOW + 1, SKEW),
			 -EBUSY);
	for (t = 1; t < N; t++)
		assert_int_equal(rw_replay_check(&r, 100 + t, NOW - N + 1 + t,
						 NOW + 1, SKEW), -ETIMEDOUT);
	/* Older than the floor, though in the window: refused, no change. */
	assert_int_equal(rw_replay_check(&r, 51, NOW - 100, NOW + 1, SKEW),
			 -EBUSY);
	assert_int_equal(r.floor, NOW - N + 1);
	/*
	 * Full again, and a new request no newer than any slot: refused, and
	 * the floor rises to its time (freeing the slot of that time).
	 */
	assert_int_equal(rw_replay_check(&r, 52, NOW - N + 2, NOW + 1, SKEW),
			 -EBUSY);
	assert_int_equal(r.floor, NOW - N + 2);
	assert_int_equal(rw_replay_check(&r, 101, NOW - N + 2, NOW + 1, SKEW),
			 -EBUSY);
	assert_int_equal(rw_replay_check(&r, 52, NOW - N + 2, NOW + 1, SKEW),
			 -EBUSY);
	/* The slot freed takes the next request without pushing anything. */
	assert_int_equal(rw_replay_check(&r, 53, NOW, NOW + 1, SKEW), 0);
	assert_int_equal(r.floor, NOW - N + 2);
	assert_int_equal(rw_replay_check(&r, 102, NOW - N + 3, NOW + 1, SKEW),
			 -ETIMEDOUT);
}

/* Each rank has its own room: one rank's flood leaves the others be. */
static void replay_ranks(void **state)
{
	struct rw_replay t[3];
	uint64_t n;
	int busy = 0;

	(void)state;
	memset(t, 0, sizeof(t));
	for (n = 0; n < 64; n++)
		busy += rw_replay_check(&t[1], 1000 + n, NOW, NOW, SKEW) ==
			-EBUSY;
	assert_int_equal(busy, 64 - N);
	for (n = 0; n < 64; n++)
		busy += rw_replay_check(&t[2], 3000 + n, NOW, NOW, SKEW) ==
			-EBUSY;
	assert_int_equal(busy, 2 * (64 - N));
	/* Rank 0 still takes a whole table in the same second. */
	for (n = 0; n < N; n++)
		assert_int_equal(rw_replay_check(&t[0], 1000 + n, NOW, NOW,
						 SKEW), 0);
	assert_int_equal(t[0].floor, 0);
	/* And the flooded rank takes the next second's. */
	assert_int_equal(rw_replay_check(&t[1], 1, NOW + 1, NOW + 1, SKEW), 0);
}

/* Slots and the floor stop mattering once their times leave the window. */
static void replay_expiry(void **state)
{
	struct rw_replay r;
	uint64_t n;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (n = 0; n <= N; n++)
		rw_replay_check(&r, 1000 + n, NOW, NOW, SKEW);
	assert_int_equal(r.floor, NOW);
	/* Still in the window: refused. */
	assert_int_equal(rw_replay_check(&r, 1000, NOW, NOW + SKEW, SKEW),
			 -EBUSY);
	/* Out of it: refused for the clock; the table is free again. */
	assert_int_equal(rw_replay_check(&r, 1000, NOW, NOW + SKEW + 1, SKEW),
			 -ETIMEDOUT);
	for (n = 0; n < N; n++)
		assert_int_equal(rw_replay_check(&r, 1000 + n, NOW + 1,
						 NOW + SKEW + 1, SKEW), 0);
	/* At the window's old edge, the earliest free slot is reused. */
	assert_int_equal(rw_replay_check(&r, 5000, NOW + 2, NOW + SKEW + 2,
					 SKEW), 0);
	assert_int_equal(r.floor, NOW);
}

/* The tables follow a job's worker count: nothing is forgotten. */
static void replay_move(void **state)
{
	struct rw_replay a[9], b[9];
	uint64_t n;

	(void)state;
	memset(a, 0, sizeof(a));
	/* Two workers: ranks 0 and 1, then the ranks beyond. */
	assert_int_equal(rw_replay_check(&a[0], 10, NOW, NOW, SKEW), 0);
	assert_int_equal(rw_replay_check(&a[1], 11, NOW, NOW, SKEW), 0);
	assert_int_equal(rw_replay_check(&a[2], 13, NOW, NOW, SKEW), 0);
	/* Rank 1 overflows: its floor is NOW. */
	for (n = 0; n < N; n++)
		rw_replay_check(&a[1], 100 + n, NOW, NOW, SKEW);
	assert_int_equal(a[1].floor, NOW);

	/* Grown to four: rank 3 starts from the table of the ranks beyond. */
	memset(b, 0xa5, sizeof(b));
	rw_replay_move(b, 4, a, 2, NOW + 1, SKEW);
	assert_int_equal(rw_replay_check(&b[3], 13, NOW, NOW + 1, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&b[2], 13, NOW, NOW + 1, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&b[4], 13, NOW, NOW + 1, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&b[0], 10, NOW, NOW + 1, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&b[1], 11, NOW, NOW + 1, SKEW),
			 -EBUSY);
	assert_int_equal(rw_replay_check(&b[3], 14, NOW + 1, NOW + 1, SKEW), 0);

	/* Shrunk to one: ranks 1 to 3 give theirs to the table beyond. */
	memset(a, 0x5a, sizeof(a));
	rw_replay_move(a, 1, b, 4, NOW + 2, SKEW);
	assert_int_equal(a[1].floor, NOW);
	assert_int_equal(rw_replay_check(&a[1], 11, NOW, NOW + 2, SKEW),
			 -EBUSY);
	assert_int_equal(rw_replay_check(&a[1], 14, NOW + 1, NOW + 2, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&a[0], 10, NOW, NOW + 2, SKEW),
			 -ETIMEDOUT);

	/* And grown to eight again: every rank still refuses them all. */
	memset(b, 0xa5, sizeof(b));
	rw_replay_move(b, 8, a, 1, NOW + 3, SKEW);
	for (n = 1; n <= 8; n++) {
		assert_int_equal(rw_replay_check(&b[n], 14, NOW + 1, NOW + 3,
						 SKEW), -ETIMEDOUT);
		assert_int_equal(rw_replay_check(&b[n], 100, NOW, NOW + 3,
						 SKEW), -EBUSY);
		assert_int_equal(rw_replay_check(&b[n], 500 + n, NOW + 3,
						 NOW + 3, SKEW), 0);
	}
}

/*
 * A random run: RANKS hosts, each with its own clock (within the window)
 * sending at most N requests a second for its rank; an observer replaying
 * any request seen so far; policy sets moving the tables between 1 and
 * RANKS workers. No request that met the window is ever taken twice, or
 * taken after being refused; a host of a rank below every worker count
 * the run uses is never refused.
 */
#define RANKS	8
#define SENT	20000
#define STEADY	2		/* ranks 0 and 1 are below every count */

struct sent {
	uint64_t nonce;
	int64_t time;
	uint32_t rank;
	bool taken, met;	/* met the window when first checked */
};

static struct rw_replay *table(struct rw_replay *t, uint32_t nr, uint32_t rank)
{
	return &t[rank < nr ? rank : nr];
}

static void replay_random(void **state)
{
	static struct sent s[SENT];
	struct rw_replay t[2][RANKS + 1];
	int64_t now = NOW, off[RANKS];
	uint32_t nr = RANKS, cur = 0, n = 0, i, r;
	uint64_t taken = 0, refused_honest = 0, replays = 0, moves = 0;

	(void)state;
	srandom(4242);
	memset(t, 0, sizeof(t));
	for (r = 0; r < RANKS; r++)
		off[r] = (int64_t)(random() % (2 * SKEW - 40)) - SKEW + 20;
	while (n < SENT) {
		now += 1 + random() % 2;
		if (random() % 8 == 0) {
			uint32_t to = 1 + random() % RANKS;

			if (to < STEADY)
				to = STEADY;
			rw_replay_move(t[!cur], to, t[cur], nr, now, SKEW);
			memset(t[cur], 0xee, sizeof(t[cur]));
			cur = !cur;
			nr = to;
			moves++;
		}
		/* This second: each host up to N requests, its own times. */
		for (r = 0; r < RANKS && n < SENT; r++) {
			uint32_t k, burst = random() % (N + 1);

			for (k = 0; k < burst && n < SENT; k++, n++) {
				struct sent *q = &s[n];
				int ret;

				q->nonce = ((uint64_t)random() << 32) ^ random();
				q->time = now + off[r];
				q->rank = r;
				ret = rw_replay_check(table(t[cur], nr, r),
						      q->nonce, q->time, now,
						      SKEW);
				q->met = q->time >= now - SKEW &&
					 q->time <= now + SKEW;
				q->taken = !ret;
				taken += !ret;
				if (r < STEADY) {
					refused_honest += !!ret;
					assert_int_equal(ret, 0);
				}
			}
		}
		/* The observer replays a few requests it saw. */
		for (i = 0; n && i < 8; i++, replays++) {
			struct sent *q = &s[random() % n];
			int ret = rw_replay_check(table(t[cur], nr, q->rank),
						  q->nonce, q->time, now, SKEW);

			if (q->met)
				assert_int_not_equal(ret, 0);
		}
	}
	assert_int_equal(refused_honest, 0);
	/* Ranks beyond the workers share a table: many of theirs wait. */
	assert_true(taken > SENT / 3);
	assert_true(replays > SENT / 10);
	print_message("%u requests, %llu taken, %llu replays refused, %llu policy sets\n",
		      n, (unsigned long long)taken,
		      (unsigned long long)replays, (unsigned long long)moves);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replay_window),
		cmocka_unit_test(replay_nonce),
		cmocka_unit_test(replay_full),
		cmocka_unit_test(replay_push_out),
		cmocka_unit_test(replay_ranks),
		cmocka_unit_test(replay_expiry),
		cmocka_unit_test(replay_move),
		cmocka_unit_test(replay_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
