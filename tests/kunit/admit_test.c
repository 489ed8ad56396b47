// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rackweave_admit: the box's checks of a connect request
 * (kmod/rdma/admit.c) against a real job: a signed request gets in, and
 * each kind of bad request gets its own refusal (uapi "RDMA wire") while
 * leaving the job as it was; refused requests cost no other rank its
 * connect, and stay refused when the job's workers change.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "rw.h"
#include "job.h"
#include "rdma/admit.h"
#include "rdma/auth.h"
#include "rdma/wire.h"

#define RW_AT_NOW	1795000000LL

static struct rw_job *rw_at_job(struct kunit *test, const char *name,
				u8 *token)
{
	struct rw_job_config c = {};
	struct rw_job *job;
	const char *msg;
	int i;

	strscpy(c.name, name, sizeof(c.name));
	c.workers = 2;
	c.chunk_size = 4096;
	c.sync = RW_SYNC_BSP;
	c.optim = RW_OPTIM_SGD;
	c.lr = 0x3f000000U;		/* 0.5 */
	c.has_token = true;
	for (i = 0; i < RW_JOB_TOKEN_LEN; i++)
		c.token[i] = i * 7 + name[0];
	KUNIT_ASSERT_EQ(test, rw_job_new(&c, &msg, token, &job), 0);
	return job;
}

/* A request of @rank for the job @name/@token, signed. */
static void rw_at_req(struct rw_wire_req *w, const u8 *token,
		      const char *name, u32 rank, u32 epoch, u64 nonce,
		      s64 time_s)
{
	struct rw_wire_req_info in = {
		.rank = rank, .epoch = epoch, .nonce = nonce, .time_s = time_s,
	};

	rw_auth_job_tag(token, name, in.job_tag);
	rw_wire_req_pack(w, &in);
	rw_auth_req_sign(token, w);
}

static int rw_at_check(const struct rw_wire_req *w, size_t len, s64 now,
		       struct rw_job *expect)
{
	struct rw_admit adm;
	const char *why = NULL;
	int ret;

	ret = rw_admit_check(w, len, now, &adm, &why);
	if (!ret) {
		if (adm.job != expect)
			ret = -EXDEV;
		rw_job_put(adm.job);
	} else if (adm.job || !why) {
		ret = -EFAULT;		/* a refusal holds nothing, says why */
	}
	return ret;
}

static void rw_admit_refusals_test(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN], other[RW_JOB_TOKEN_LEN];
	struct {
		struct rw_wire_req w;
		u8 tail[8];
	} pad;
	struct rw_wire_req w, bad;
	struct rw_job *job;
	u64 nonce = 1;

	job = rw_at_job(test, "kunit-admit", token);
	memcpy(other, token, sizeof(other));
	other[5] ^= 0x40;

	rw_at_req(&w, token, "kunit-admit", 1, 0, nonce++, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job), 0);
	/* The same request again is a replay. */
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-ETIMEDOUT);
	/* Bytes after the request (a transport's padding) are ignored. */
	rw_at_req(&pad.w, token, "kunit-admit", 1, 0, nonce++, RW_AT_NOW);
	memset(pad.tail, 0xee, sizeof(pad.tail));
	KUNIT_EXPECT_EQ(test, rw_at_check(&pad.w, sizeof(pad), RW_AT_NOW, job),
			0);

	rw_at_req(&w, token, "kunit-admit", 1, 0, nonce++, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w) - 1, RW_AT_NOW, job),
			-EPROTO);
	bad = w;
	bad.magic ^= cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, rw_at_check(&bad, sizeof(bad), RW_AT_NOW, job),
			-EPROTO);

	/* Another job's name, another token, a flipped authenticator bit. */
	rw_at_req(&w, token, "kunit-other", 1, 0, nonce++, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-EACCES);
	rw_at_req(&w, other, "kunit-admit", 1, 0, nonce++, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-EACCES);
	rw_at_req(&w, token, "kunit-admit", 1, 0, nonce++, RW_AT_NOW);
	w.auth[15] ^= 0x01;
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-EACCES);
	/* Refused before the replay check: the same nonce, signed, gets in. */
	w.auth[15] ^= 0x01;
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job), 0);

	/* The clock window, at both of its edges. */
	rw_at_req(&w, token, "kunit-admit", 0, 0, nonce++,
		  RW_AT_NOW + RW_WIRE_MAX_SKEW_S + 1);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-ETIMEDOUT);
	rw_at_req(&w, token, "kunit-admit", 0, 0, nonce++,
		  RW_AT_NOW - RW_WIRE_MAX_SKEW_S);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job), 0);

	/* A rank the job does not have; an epoch with no run to resume. */
	rw_at_req(&w, token, "kunit-admit", 2, 0, nonce++, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-ERANGE);
	rw_at_req(&w, token, "kunit-admit", 0, 3, nonce++, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-ESTALE);

	/* Nothing of the job changed. */
	KUNIT_EXPECT_EQ(test, job->attached, 0U);
	KUNIT_EXPECT_EQ(test, job->users, 0U);

	/* Once deleted, the job is unknown on the wire. */
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-admit", 0), 0);
	rw_at_req(&w, token, "kunit-admit", 0, 0, nonce++, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-EACCES);
	rw_job_put(job);
}

/*
 * A rank's table holds RW_REPLAY_SLOTS requests of one second; the next
 * second has room again, and the other rank never waited.
 */
static void rw_admit_busy_test(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_wire_req w;
	struct rw_job *job;
	u64 n;

	job = rw_at_job(test, "kunit-busy", token);
	for (n = 0; n < RW_REPLAY_SLOTS; n++) {
		rw_at_req(&w, token, "kunit-busy", 0, 0, 100 + n, RW_AT_NOW);
		KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
				0);
	}
	rw_at_req(&w, token, "kunit-busy", 0, 0, 99, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-EBUSY);
	rw_at_req(&w, token, "kunit-busy", 1, 0, 99, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job), 0);
	rw_at_req(&w, token, "kunit-busy", 0, 0, 98, RW_AT_NOW + 1);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW + 1, job),
			0);
	/* Those of the full second stay refused, pushed out or not. */
	for (n = 0; n < RW_REPLAY_SLOTS; n++) {
		rw_at_req(&w, token, "kunit-busy", 0, 0, 100 + n, RW_AT_NOW);
		KUNIT_EXPECT_NE(test, rw_at_check(&w, sizeof(w), RW_AT_NOW + 1,
						  job), 0);
	}
	rw_at_req(&w, token, "kunit-busy", 0, 0, 99, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW + 1, job),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-busy", 0), 0);
	rw_job_put(job);
}

/*
 * Issue 34, finding 2: requests refused after authentication (a rank out
 * of range, a stale epoch) used to hold the job's slots for ten minutes,
 * so the next honest connect was told EBUSY. Now they cost a slot of
 * their own rank only, and honest ranks get in at once.
 */
static void rw_admit_flood_test(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_wire_req w, first;
	struct rw_job *job;
	u64 n;

	job = rw_at_job(test, "kunit-flood", token);
	for (n = 0; n < 100; n++) {
		rw_at_req(&w, token, "kunit-flood", 2, 0, 1000 + n, RW_AT_NOW);
		KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
				-ERANGE);
	}
	for (n = 0; n < 100; n++) {
		rw_at_req(&w, token, "kunit-flood", 256 + n * 600, 0, 2000 + n,
			  RW_AT_NOW);
		KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
				-ERANGE);
	}
	for (n = 0; n < 100; n++) {
		rw_at_req(&w, token, "kunit-flood", 1, 5, 3000 + n, RW_AT_NOW);
		if (!n)
			first = w;
		KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
				-ESTALE);
	}
	/* Rank 0 gets in at once, then its request cannot again. */
	rw_at_req(&w, token, "kunit-flood", 0, 0, 4000, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job), 0);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-ETIMEDOUT);
	/*
	 * Rank 1 filled its own second with its stale requests: it waits
	 * for the next one, and its refused request stays refused.
	 */
	rw_at_req(&w, token, "kunit-flood", 1, 0, 4001, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-EBUSY);
	rw_at_req(&w, token, "kunit-flood", 1, 0, 4002, RW_AT_NOW + 1);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW + 1, job),
			0);
	KUNIT_EXPECT_NE(test, rw_at_check(&first, sizeof(first), RW_AT_NOW + 1,
					  job), 0);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-flood", 0), 0);
	rw_job_put(job);
}

/*
 * Observers hold no rank: their requests get in as rank 0's would, but
 * count against the table beyond the workers, so a flood of them leaves
 * rank 0 its own second; one with a rank is no request at all.
 */
static void rw_admit_observer_test(struct kunit *test)
{
	struct rw_wire_req_info in = { .observer = true, .time_s = RW_AT_NOW };
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_wire_req w;
	struct rw_job *job;
	int ret, in_first = 0;
	u64 n;

	job = rw_at_job(test, "kunit-obs", token);
	rw_auth_job_tag(token, "kunit-obs", in.job_tag);
	for (n = 0; n < 100; n++) {
		in.nonce = 5000 + n;
		rw_wire_req_pack(&w, &in);
		rw_auth_req_sign(token, &w);
		ret = rw_at_check(&w, sizeof(w), RW_AT_NOW, job);
		KUNIT_EXPECT_TRUE(test, ret == 0 || ret == -EBUSY);
		in_first += !ret;
	}
	KUNIT_EXPECT_GT(test, in_first, 0);
	KUNIT_EXPECT_LT(test, in_first, 100);
	/* Rank 0's own table is untouched by them. */
	rw_at_req(&w, token, "kunit-obs", 0, 0, 6000, RW_AT_NOW);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job), 0);
	/* An observer with a rank: refused as malformed, signed or not. */
	in.nonce = 7000;
	in.rank = 1;
	rw_wire_req_pack(&w, &in);
	rw_auth_req_sign(token, &w);
	KUNIT_EXPECT_EQ(test, rw_at_check(&w, sizeof(w), RW_AT_NOW, job),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-obs", 0), 0);
	rw_job_put(job);
}

static int rw_at_workers(const char *name, u32 workers)
{
	struct rw_job_config c = { .workers = workers };
	const char *msg;

	return rw_job_set_policy(name, &c, RW_JOB_SET_WORKERS, &msg);
}

/*
 * A request refused for its rank is remembered all the same: once a
 * policy set gives the job that rank, its replay is still refused, and a
 * rank taken away and given back keeps what it had seen. The tables move
 * at the box's real time, so the requests carry it.
 */
static void rw_admit_grow_test(struct kunit *test)
{
	s64 now = ktime_get_real_seconds();
	struct rw_wire_req a, b, c, d;
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_job *job;

	job = rw_at_job(test, "kunit-grow", token);
	rw_at_req(&a, token, "kunit-grow", 2, 0, 1, now - 5);
	KUNIT_EXPECT_EQ(test, rw_at_check(&a, sizeof(a), now, job), -ERANGE);
	rw_at_req(&b, token, "kunit-grow", 3, 0, 2, now);
	KUNIT_EXPECT_EQ(test, rw_at_check(&b, sizeof(b), now, job), -ERANGE);
	rw_at_req(&c, token, "kunit-grow", 1, 0, 3, now);
	KUNIT_EXPECT_EQ(test, rw_at_check(&c, sizeof(c), now, job), 0);

	KUNIT_ASSERT_EQ(test, rw_at_workers("kunit-grow", 4), 0);
	KUNIT_EXPECT_EQ(test, rw_at_check(&a, sizeof(a), now, job), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, rw_at_check(&b, sizeof(b), now, job), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, rw_at_check(&c, sizeof(c), now, job), -ETIMEDOUT);
	rw_at_req(&d, token, "kunit-grow", 3, 0, 4, now);
	KUNIT_EXPECT_EQ(test, rw_at_check(&d, sizeof(d), now, job), 0);

	KUNIT_ASSERT_EQ(test, rw_at_workers("kunit-grow", 1), 0);
	KUNIT_EXPECT_EQ(test, rw_at_check(&c, sizeof(c), now, job), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, rw_at_check(&d, sizeof(d), now, job), -ETIMEDOUT);
	KUNIT_ASSERT_EQ(test, rw_at_workers("kunit-grow", 4), 0);
	KUNIT_EXPECT_EQ(test, rw_at_check(&a, sizeof(a), now, job), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, rw_at_check(&c, sizeof(c), now, job), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, rw_at_check(&d, sizeof(d), now, job), -ETIMEDOUT);
	rw_at_req(&d, token, "kunit-grow", 2, 0, 5, now);
	KUNIT_EXPECT_EQ(test, rw_at_check(&d, sizeof(d), now, job), 0);

	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-grow", 0), 0);
	rw_job_put(job);
}

static struct kunit_case rw_admit_test_cases[] = {
	KUNIT_CASE(rw_admit_refusals_test),
	KUNIT_CASE(rw_admit_busy_test),
	KUNIT_CASE(rw_admit_flood_test),
	KUNIT_CASE(rw_admit_observer_test),
	KUNIT_CASE(rw_admit_grow_test),
	{}
};

static struct kunit_suite rw_admit_test_suite = {
	.name = "rackweave_admit",
	.test_cases = rw_admit_test_cases,
};

kunit_test_suite(rw_admit_test_suite);
