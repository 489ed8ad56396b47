// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl stats: the parser of RW_CMD_STATS_GET replies (the job's totals and
 * one nest per worker, built with libnl as the module would or as a broken
 * one might), the text table and JSON printers, and "stats show" through
 * rwctl_run() against a scripted backend: the job get that gives the box
 * set (which box this is, with a set) and the statistics.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "backend.h"
#include "genl.h"
#include "job.h"
#include "print.h"
#include "rwctl.h"
#include "rwtest.h"
#include "stats.h"

#define RW_TEST_FAMILY	0x20
#define BIT(a)		(1U << (a))

/* ---- the reply parser ---- */

struct rw_fx {
	struct nl_msg *msg;
	struct rwctl_stats s;
	char why[256];
};

static int rw_msg_setup(void **state)
{
	struct rw_fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->msg = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_STATS_GET);
	*state = fx;
	return 0;
}

static int rw_msg_teardown(void **state)
{
	struct rw_fx *fx = *state;

	rwctl_stats_free(&fx->s);
	nlmsg_free(fx->msg);
	free(fx);
	return 0;
}

static void rw_reset(struct rw_fx *fx)
{
	nlmsg_free(fx->msg);
	fx->msg = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_STATS_GET);
}

static int rw_parse(struct rw_fx *fx)
{
	rwctl_stats_free(&fx->s);
	fx->why[0] = '\0';
	return rwctl_genl_parse_stats(nlmsg_hdr(fx->msg), &fx->s, fx->why,
				      sizeof(fx->why));
}

static void rw_assert_malformed(struct rw_fx *fx, const char *what)
{
	rw_assert_malformed_why(rw_parse(fx), fx->why,
				"malformed statistics reply", what);
}

static bool rw_is_u32(int a)
{
	return a == RW_STAT_A_RANK || a == RW_STAT_A_ATTACHED ||
	       a == RW_STAT_A_LIVE || a == RW_STAT_A_EPOCH ||
	       a == RW_STAT_A_PARKED;
}

/* Attribute @a with value @v, at its uapi width. */
static void rw_put_stat(struct nl_msg *m, int a, uint64_t v)
{
	if (rw_is_u32(a))
		assert_int_equal(nla_put_u32(m, a, (uint32_t)v), 0);
	else
		assert_int_equal(nla_put_u64(m, a, v), 0);
}

static const int rw_job_attrs[] = {
	RW_STAT_A_PUSHES, RW_STAT_A_PULLS, RW_STAT_A_BYTES, RW_STAT_A_CHUNKS,
	RW_STAT_A_STEPS, RW_STAT_A_BUSY, RW_STAT_A_MIGRATIONS, RW_STAT_A_ERRORS,
	RW_STAT_A_MIN_CLOCK, RW_STAT_A_MAX_SKEW, RW_STAT_A_EVICTIONS,
	RW_STAT_A_EPOCH, RW_STAT_A_LIVE, RW_STAT_A_PARKED,
	RW_STAT_A_LATE_DROPPED,
};

static const int rw_worker_attrs[] = {
	RW_STAT_A_RANK, RW_STAT_A_ATTACHED, RW_STAT_A_LIVE, RW_STAT_A_CLOCK,
	RW_STAT_A_PUSHES, RW_STAT_A_PULLS, RW_STAT_A_BYTES, RW_STAT_A_CHUNKS,
	RW_STAT_A_PARKS, RW_STAT_A_PARKED_NS, RW_STAT_A_EVICTIONS,
	RW_STAT_A_ERRORS, RW_STAT_A_LATE_DROPPED,
};

#define RW_NR(a)	(sizeof(a) / sizeof((a)[0]))

/* The job's totals: attribute a has the value 1000 + a; @skip left out. */
static void rw_put_job(struct nl_msg *m, unsigned int skip)
{
	struct nlattr *n = nla_nest_start(m, RW_JOB_A_STATS);
	size_t i;

	assert_non_null(n);
	for (i = 0; i < RW_NR(rw_job_attrs); i++)
		if (!(skip & BIT(rw_job_attrs[i])))
			rw_put_stat(m, rw_job_attrs[i], 1000 + rw_job_attrs[i]);
	nla_nest_end(m, n);
}

/* A worker: rank @rank, attached and live 1, others 100 * rank + a. */
static void rw_put_worker(struct nl_msg *m, uint32_t rank, unsigned int skip)
{
	struct nlattr *e = nla_nest_start(m, RW_JOB_A_ENTRY);
	uint64_t v;
	size_t i;
	int a;

	assert_non_null(e);
	for (i = 0; i < RW_NR(rw_worker_attrs); i++) {
		a = rw_worker_attrs[i];
		if (skip & BIT(a))
			continue;
		v = a == RW_STAT_A_RANK ? rank :
		    a == RW_STAT_A_ATTACHED || a == RW_STAT_A_LIVE ? 1 :
		    100ULL * rank + a;
		if (a == RW_STAT_A_PARKED_NS)	/* as nla_put_u64_64bit pads */
			assert_int_equal(nla_put(m, RW_STAT_A_PAD, 0, NULL), 0);
		rw_put_stat(m, a, v);
	}
	nla_nest_end(m, e);
}

static void rw_test_parse_full(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l;
	size_t i;

	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "train1"), 0);
	rw_put_job(fx->msg, 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	rw_put_worker(fx->msg, 2, 0);
	rw_put_worker(fx->msg, 0, 0);
	rw_put_worker(fx->msg, 1, 0);
	nla_nest_end(fx->msg, l);

	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->s.name, "train1");
	for (i = 0; i < RW_NR(rw_job_attrs); i++) {
		assert_true(fx->s.job.mask & BIT(rw_job_attrs[i]));
		assert_int_equal(fx->s.job.v[rw_job_attrs[i]],
				 1000 + rw_job_attrs[i]);
	}
	assert_false(fx->s.job.mask & BIT(RW_STAT_A_RANK));
	assert_false(fx->s.job.mask & BIT(RW_STAT_A_PAD));

	/* In rank order, whatever order they came in. */
	assert_int_equal(fx->s.nr_workers, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(fx->s.workers[i].v[RW_STAT_A_RANK], i);
		assert_int_equal(fx->s.workers[i].v[RW_STAT_A_ATTACHED], 1);
		assert_int_equal(fx->s.workers[i].v[RW_STAT_A_CLOCK],
				 100 * i + RW_STAT_A_CLOCK);
		assert_int_equal(fx->s.workers[i].v[RW_STAT_A_PARKED_NS],
				 100 * i + RW_STAT_A_PARKED_NS);
		assert_int_equal(fx->s.workers[i].v[RW_STAT_A_LATE_DROPPED],
				 100 * i + RW_STAT_A_LATE_DROPPED);
		assert_false(fx->s.workers[i].mask & BIT(RW_STAT_A_STEPS));
	}
}

/* A large counter survives intact; a job without workers yet is fine. */
static void rw_test_parse_values(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *n;

	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	n = nla_nest_start(fx->msg, RW_JOB_A_STATS);
	assert_int_equal(nla_put_u64(fx->msg, RW_STAT_A_BYTES, UINT64_MAX), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_STAT_A_EPOCH, UINT32_MAX), 0);
	nla_nest_end(fx->msg, n);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->s.job.v[RW_STAT_A_BYTES], UINT64_MAX);
	assert_int_equal(fx->s.job.v[RW_STAT_A_EPOCH], UINT32_MAX);
	/* late_dropped is there even when not sent: 0. */
	assert_int_equal(fx->s.job.mask, BIT(RW_STAT_A_BYTES) |
			 BIT(RW_STAT_A_EPOCH) | BIT(RW_STAT_A_LATE_DROPPED));
	assert_int_equal(fx->s.job.v[RW_STAT_A_LATE_DROPPED], 0);
	assert_int_equal(fx->s.nr_workers, 0);
	assert_non_null(fx->s.workers);
}

static void rw_test_parse_malformed(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l, *n;
	uint32_t v4 = 5;
	uint64_t v8 = 5;

	/* No totals at all. */
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	rw_assert_malformed(fx, "no job totals");

	/* No name. */
	rw_reset(fx);
	rw_put_job(fx->msg, 0);
	rw_assert_malformed(fx, "no job name");

	/* A worker without its rank. */
	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	rw_put_job(fx->msg, 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	rw_put_worker(fx->msg, 0, 0);
	rw_put_worker(fx->msg, 1, BIT(RW_STAT_A_RANK));
	nla_nest_end(fx->msg, l);
	rw_assert_malformed(fx, "worker entry 1 without its rank");

	/* A rank twice. */
	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	rw_put_job(fx->msg, 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	rw_put_worker(fx->msg, 3, 0);
	rw_put_worker(fx->msg, 1, 0);
	rw_put_worker(fx->msg, 3, 0);
	nla_nest_end(fx->msg, l);
	rw_assert_malformed(fx, "rank 3 reported twice");

	/* A u64 counter as four bytes, a u32 one as eight. */
	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	n = nla_nest_start(fx->msg, RW_JOB_A_STATS);
	assert_int_equal(nla_put(fx->msg, RW_STAT_A_PUSHES, sizeof(v4), &v4), 0);
	nla_nest_end(fx->msg, n);
	rw_assert_malformed(fx, "job totals");

	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	rw_put_job(fx->msg, 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	n = nla_nest_start(fx->msg, RW_JOB_A_ENTRY);
	assert_int_equal(nla_put(fx->msg, RW_STAT_A_RANK, sizeof(v8), &v8), 0);
	nla_nest_end(fx->msg, n);
	nla_nest_end(fx->msg, l);
	rw_assert_malformed(fx, "worker entry 0");
}

static void rw_test_parse_cut_short(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l;

	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	rw_put_job(fx->msg, 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	rw_put_worker(fx->msg, 0, 0);
	rw_put_worker(fx->msg, 1, 0);
	nla_nest_end(fx->msg, l);
	assert_int_equal(rw_parse(fx), 0);

	/* The message loses its tail: the last worker's last counter. */
	rw_test_genl_cut(fx->msg, 12);
	rw_assert_malformed(fx, "bytes left after the last attribute");

	/* The list nest claims less than its last entry needs. */
	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	rw_put_job(fx->msg, 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	rw_put_worker(fx->msg, 0, 0);
	nla_nest_end(fx->msg, l);
	l->nla_len -= 8;
	rw_assert_malformed(fx, NULL);
}

static void rw_test_parse_newer(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *l, *e;

	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	rw_put_job(fx->msg, 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_MAX + 2, 1), 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	e = nla_nest_start(fx->msg, RW_JOB_A_ENTRY + 1);
	assert_int_equal(nla_put_u32(fx->msg, 7, 7), 0);
	nla_nest_end(fx->msg, e);
	e = nla_nest_start(fx->msg, RW_JOB_A_ENTRY);
	assert_int_equal(nla_put_u32(fx->msg, RW_STAT_A_RANK, 4), 0);
	assert_int_equal(nla_put_string(fx->msg, RW_STAT_A_MAX + 1, "x"), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, l);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->s.nr_workers, 1);
	assert_int_equal(fx->s.workers[0].v[RW_STAT_A_RANK], 4);
	assert_int_equal(fx->s.workers[0].mask,
			 BIT(RW_STAT_A_RANK) | BIT(RW_STAT_A_LATE_DROPPED));
}

/*
 * A job over several boxes: the chunks its moves gave and took, a line of
 * their own in text and two keys in JSON; sent with the wrong length, the
 * reply is refused.
 */
static void rw_test_moved(void **state)
{
	struct rw_fx *fx = *state;
	struct rwctl_printer p;
	struct rw_capture c;
	struct nlattr *n;
	const char *out;
	uint32_t v4 = 3;

	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "grow"), 0);
	n = nla_nest_start(fx->msg, RW_JOB_A_STATS);
	assert_int_equal(nla_put_u64(fx->msg, RW_STAT_A_ERRORS, 0), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_STAT_A_MOVED_OUT, 9), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_STAT_A_MOVED_IN, 4), 0);
	nla_nest_end(fx->msg, n);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->s.job.v[RW_STAT_A_MOVED_OUT], 9);
	assert_int_equal(fx->s.job.v[RW_STAT_A_MOVED_IN], 4);
	rw_render_begin(&c, &p, 0);
	rwctl_stats_print(&p, &fx->s);
	out = rw_render_end(&c, &p);
	assert_non_null(strstr(out, "\n    moved out 9 chunks  moved in 4 chunks\n"));
	free((char *)out);
	rw_render_begin(&c, &p, RWCTL_PR_JSON);
	rwctl_stats_print(&p, &fx->s);
	out = rw_render_end(&c, &p);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\"moved_out\":9,\"moved_in\":4"));
	free((char *)out);

	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	n = nla_nest_start(fx->msg, RW_JOB_A_STATS);
	assert_int_equal(nla_put(fx->msg, RW_STAT_A_MOVED_IN, sizeof(v4), &v4),
			 0);
	nla_nest_end(fx->msg, n);
	assert_int_not_equal(rw_parse(fx), 0);
}

/*
 * Late drops: a module's count is taken as sent (u64, exact length); an
 * older module's reply has none, which shows as 0 in text and JSON.
 */
static void rw_test_parse_late_dropped(void **state)
{
	struct rw_fx *fx = *state;
	struct rwctl_printer p;
	struct rw_capture c;
	struct nlattr *l, *n;
	const char *out;
	uint32_t v4 = 3;

	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "q"), 0);
	rw_put_job(fx->msg, 0);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	rw_put_worker(fx->msg, 0, 0);
	rw_put_worker(fx->msg, 1, 0);
	nla_nest_end(fx->msg, l);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->s.job.v[RW_STAT_A_LATE_DROPPED],
			 1000 + RW_STAT_A_LATE_DROPPED);
	assert_int_equal(fx->s.workers[1].v[RW_STAT_A_LATE_DROPPED],
			 100 + RW_STAT_A_LATE_DROPPED);

	/* An older module: neither the job nor a rank sends it. */
	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "old"), 0);
	n = nla_nest_start(fx->msg, RW_JOB_A_STATS);
	assert_int_equal(nla_put_u64(fx->msg, RW_STAT_A_ERRORS, 2), 0);
	nla_nest_end(fx->msg, n);
	l = nla_nest_start(fx->msg, RW_JOB_A_WORKER_STATS);
	n = nla_nest_start(fx->msg, RW_JOB_A_ENTRY);
	assert_int_equal(nla_put_u32(fx->msg, RW_STAT_A_RANK, 0), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_STAT_A_ERRORS, 1), 0);
	nla_nest_end(fx->msg, n);
	nla_nest_end(fx->msg, l);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->s.job.mask & BIT(RW_STAT_A_LATE_DROPPED));
	assert_int_equal(fx->s.job.v[RW_STAT_A_LATE_DROPPED], 0);
	assert_true(fx->s.workers[0].mask & BIT(RW_STAT_A_LATE_DROPPED));

	rw_render_begin(&c, &p, 0);
	rwctl_stats_print(&p, &fx->s);
	out = rw_render_end(&c, &p);
	assert_string_equal(out,
		"job old:\n"
		"    errors 2  late_dropped 0\n"
		"rank  attached  live  clock  pushes  pulls  bytes  chunks  parks  parked  evictions  errors  late_dropped\n"
		"   0         -     -      -       -      -      -       -      -       -          -       1             0\n");
	free((char *)out);
	rw_render_begin(&c, &p, RWCTL_PR_JSON);
	rwctl_stats_print(&p, &fx->s);
	out = rw_render_end(&c, &p);
	rw_assert_json(out);
	assert_string_equal(out,
		"{\"name\":\"old\",\"totals\":{\"errors\":2,\"late_dropped\":0},"
		"\"workers\":[{\"rank\":0,\"errors\":1,\"late_dropped\":0}]}\n");
	free((char *)out);

	/* Sent, it must be a u64. */
	rw_reset(fx);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, "j"), 0);
	n = nla_nest_start(fx->msg, RW_JOB_A_STATS);
	assert_int_equal(nla_put(fx->msg, RW_STAT_A_LATE_DROPPED, sizeof(v4),
				 &v4), 0);
	nla_nest_end(fx->msg, n);
	rw_assert_malformed(fx, "job totals");
}

/* ---- printing ---- */

static void rw_set(struct rwctl_stat_set *s, int a, uint64_t v)
{
	s->v[a] = v;
	s->mask |= BIT(a);
}

/* Two workers; rank 1 is parked and did not report its parked time. */
static void rw_stats_fill(struct rwctl_stats *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	strcpy(s->name, "train1");
	rw_set(&s->job, RW_STAT_A_EPOCH, 2);
	rw_set(&s->job, RW_STAT_A_LIVE, 2);
	rw_set(&s->job, RW_STAT_A_PARKED, 1);
	rw_set(&s->job, RW_STAT_A_MIN_CLOCK, 118);
	rw_set(&s->job, RW_STAT_A_MAX_SKEW, 2);
	rw_set(&s->job, RW_STAT_A_PUSHES, 48000);
	rw_set(&s->job, RW_STAT_A_PULLS, 480);
	rw_set(&s->job, RW_STAT_A_BYTES, 1572864000ULL);
	rw_set(&s->job, RW_STAT_A_CHUNKS, 48000);
	rw_set(&s->job, RW_STAT_A_STEPS, 12000);
	rw_set(&s->job, RW_STAT_A_BUSY, 12);
	rw_set(&s->job, RW_STAT_A_MIGRATIONS, 0);
	rw_set(&s->job, RW_STAT_A_EVICTIONS, 1);
	rw_set(&s->job, RW_STAT_A_ERRORS, 1);
	rw_set(&s->job, RW_STAT_A_LATE_DROPPED, 7);
	s->workers = calloc(3, sizeof(*s->workers));
	assert_non_null(s->workers);
	s->nr_workers = 2;
	for (i = 0; i < 2; i++) {
		struct rwctl_stat_set *w = &s->workers[i];

		rw_set(w, RW_STAT_A_RANK, i);
		rw_set(w, RW_STAT_A_ATTACHED, 1);
		rw_set(w, RW_STAT_A_LIVE, !i);
		rw_set(w, RW_STAT_A_CLOCK, 120 - i * 2);
		rw_set(w, RW_STAT_A_PUSHES, 120);
		rw_set(w, RW_STAT_A_PULLS, 120);
		rw_set(w, RW_STAT_A_BYTES, 393216000);
		rw_set(w, RW_STAT_A_CHUNKS, 12000);
		rw_set(w, RW_STAT_A_PARKS, 3 + i * 1000);
		rw_set(w, RW_STAT_A_PARKED_NS, 1200000);
		rw_set(w, RW_STAT_A_EVICTIONS, i);
		rw_set(w, RW_STAT_A_ERRORS, 0);
		rw_set(w, RW_STAT_A_LATE_DROPPED, i * 7);
	}
	s->workers[1].mask &= ~BIT(RW_STAT_A_PARKED_NS);
}

static char *rw_render(const struct rwctl_stats *s, unsigned int flags)
{
	struct rwctl_printer p;
	struct rw_capture c;
	char *out;

	rw_render_begin(&c, &p, flags);
	rwctl_stats_print(&p, s);
	out = rw_render_end(&c, &p);
	return out;
}

#define RW_TEXT_TOTALS \
	"job train1: epoch 2, 2 live, 1 parked, min clock 118, max skew 2\n" \
	"    pushes 48000  pulls 480  bytes 1.46 GiB  chunks 48000  steps 12000\n" \
	"    busy 12  migrations 0  evictions 1  errors 1  late_dropped 7\n"

#define RW_TEXT_TABLE \
	"rank  attached  live  clock  pushes  pulls    bytes  chunks  parks   parked  evictions  errors  late_dropped\n" \
	"   0  yes       yes     120     120    120  375 MiB   12000      3  1.20 ms          0       0             0\n" \
	"   1  yes       no      118     120    120  375 MiB   12000   1003        -          1       0             7\n"

static const char rw_text[] = RW_TEXT_TOTALS RW_TEXT_TABLE;

#define RW_JSON_TOTALS \
	"{\"name\":\"train1\",\"totals\":{\"epoch\":2,\"live\":2,\"parked\":1," \
	"\"min_clock\":118,\"max_skew\":2,\"pushes\":48000,\"pulls\":480," \
	"\"bytes\":1572864000,\"chunks\":48000,\"steps\":12000,\"busy\":12," \
	"\"migrations\":0,\"evictions\":1,\"errors\":1,\"late_dropped\":7},"

#define RW_JSON_WORKERS \
	"\"workers\":[{\"rank\":0,\"attached\":true,\"live\":true,\"clock\":120," \
	"\"pushes\":120,\"pulls\":120,\"bytes\":393216000,\"chunks\":12000," \
	"\"parks\":3,\"parked_ns\":1200000,\"evictions\":0,\"errors\":0," \
	"\"late_dropped\":0}," \
	"{\"rank\":1,\"attached\":true,\"live\":false,\"clock\":118," \
	"\"pushes\":120,\"pulls\":120,\"bytes\":393216000,\"chunks\":12000," \
	"\"parks\":1003,\"evictions\":1,\"errors\":0,\"late_dropped\":7}]}\n"

static const char rw_json[] = RW_JSON_TOTALS RW_JSON_WORKERS;

static void rw_test_print_text(void **state)
{
	struct rwctl_stats s;
	char *out;

	(void)state;
	rw_stats_fill(&s);
	out = rw_render(&s, 0);
	assert_string_equal(out, rw_text);
	free(out);
	rwctl_stats_free(&s);
}

static void rw_test_print_json(void **state)
{
	struct rwctl_stats s;
	char *out;

	(void)state;
	rw_stats_fill(&s);
	out = rw_render(&s, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_string_equal(out, rw_json);
	free(out);

	out = rw_render(&s, RWCTL_PR_JSON | RWCTL_PR_PRETTY);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\n            \"live\": false,\n"));
	free(out);
	rwctl_stats_free(&s);
}

/* No gate yet, no workers: the name line still ends, nothing else shows. */
static void rw_test_print_sparse(void **state)
{
	struct rwctl_stats s;
	char *out;

	(void)state;
	memset(&s, 0, sizeof(s));
	strcpy(s.name, "fresh");
	rw_set(&s.job, RW_STAT_A_PUSHES, 0);
	rw_set(&s.job, RW_STAT_A_ERRORS, 2);
	out = rw_render(&s, 0);
	assert_string_equal(out,
		"job fresh:\n"
		"    pushes 0\n"
		"    errors 2\n"
		"no workers\n");
	free(out);
	out = rw_render(&s, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_string_equal(out, "{\"name\":\"fresh\",\"totals\":{\"pushes\":0,"
				 "\"errors\":2},\"workers\":[]}\n");
	free(out);

	s.job.mask = 0;
	out = rw_render(&s, RWCTL_PR_JSON);
	assert_string_equal(out, "{\"name\":\"fresh\",\"totals\":{},\"workers\":[]}\n");
	free(out);
}

/* ---- "stats show" against a scripted backend ---- */

static struct {
	unsigned int calls;
	int err;
	bool kernel;
	char last[RW_JOB_NAME_MAX];
	/* The job get: its calls, its refusal, the job's set (nr 0: none). */
	unsigned int get_calls;
	int get_err;
	char get_last[RW_JOB_NAME_MAX];
	struct rwctl_boxes boxes;
} rw_be;

static int rw_be_stats(const char *name, struct rwctl_stats *s,
		       struct rwctl_err *e)
{
	rw_be.calls++;
	snprintf(rw_be.last, sizeof(rw_be.last), "%s", name);
	if (rw_be.err) {
		e->kernel = rw_be.kernel;
		snprintf(e->msg, sizeof(e->msg), "scripted failure");
		return rw_be.err;
	}
	rw_stats_fill(s);
	return 0;
}

static int rw_be_none(void)
{
	fail_msg("only the job get and stats operations may be called");
	return -EIO;
}

static int rw_be_add(const struct rwctl_job_add *a, struct rwctl_job *o,
		     struct rwctl_err *e)
{
	(void)a, (void)o, (void)e;
	return rw_be_none();
}

static int rw_be_del(const char *n, bool f, struct rwctl_err *e)
{
	(void)n, (void)f, (void)e;
	return rw_be_none();
}

/* The job named, as "job show" gets it, with rw_be.boxes as its set. */
static int rw_be_get(const char *n, struct rwctl_job_list *l,
		     struct rwctl_err *e)
{
	assert_non_null(n);
	rw_be.get_calls++;
	snprintf(rw_be.get_last, sizeof(rw_be.get_last), "%s", n);
	if (rw_be.get_err) {
		e->kernel = true;
		return rw_be.get_err;
	}
	l->jobs = calloc(1, sizeof(*l->jobs));
	assert_non_null(l->jobs);
	l->nr = 1;
	snprintf(l->jobs[0].name, sizeof(l->jobs[0].name), "%s", n);
	l->jobs[0].workers = 2;
	l->jobs[0].boxes = rw_be.boxes;
	return 0;
}

static int rw_be_topo(const char *n, struct rwctl_topo *t,
		      struct rwctl_err *e)
{
	(void)n, (void)t, (void)e;
	return rw_be_none();
}

static const struct rwctl_job_backend rw_test_backend = {
	.add = rw_be_add,
	.del = rw_be_del,
	.get = rw_be_get,
	.policy = rw_be_add,
	.topo = rw_be_topo,
	.stats = rw_be_stats,
};

static struct rw_result rw_last;

static const struct rwctl rw_tmpl = {
	.fetch = rw_test_no_fetch,
	.job_backend = &rw_test_backend,
};

#define RUN(...) RW_RUN(&rw_last, &rw_tmpl, __VA_ARGS__)

static int rw_setup(void **state)
{
	(void)state;
	memset(&rw_be, 0, sizeof(rw_be));
	return 0;
}

/* A job without a box set: no box line, no "box_set". */
static void rw_test_show(void **state)
{
	(void)state;
	RUN("stats", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_be.last, "train1");
	assert_string_equal(rw_be.get_last, "train1");
	assert_int_equal(rw_be.get_calls, 1);
	assert_string_equal(rw_last.out, rw_text);
	RUN("-j", "stats", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, rw_json);
}

/* Box 2 of a set of three, epoch 4: the one line, and the set as job show. */
static void rw_test_show_box_set(void **state)
{
	static const uint16_t port[] = { 7000, 7000, 7001 };
	uint32_t i;

	(void)state;
	rw_be.boxes.epoch = 4;
	rw_be.boxes.self = 2;
	rw_be.boxes.nr = 3;
	for (i = 0; i < 3; i++) {
		rw_be.boxes.box[i].id = i + 1;
		rw_be.boxes.box[i].family = AF_INET;
		rw_be.boxes.box[i].addr[0] = 10;
		rw_be.boxes.box[i].addr[3] = (uint8_t)(i + 1);
		rw_be.boxes.box[i].port = port[i];
	}
	RUN("stats", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_last.out, RW_TEXT_TOTALS
			    "    box 2 of 3 (set epoch 4)\n" RW_TEXT_TABLE);
	RUN("-j", "stats", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_string_equal(rw_last.out, RW_JSON_TOTALS
		"\"box_set\":{\"epoch\":4,\"self\":2,\"boxes\":["
		"{\"id\":1,\"addr\":\"10.0.0.1\",\"port\":7000,\"self\":false},"
		"{\"id\":2,\"addr\":\"10.0.0.2\",\"port\":7000,\"self\":true},"
		"{\"id\":3,\"addr\":\"10.0.0.3\",\"port\":7001,\"self\":false}]},"
		RW_JSON_WORKERS);
	assert_int_equal(rw_be.get_calls, 2);
	assert_int_equal(rw_be.calls, 2);
}

static void rw_test_show_usage(void **state)
{
	(void)state;
	RUN("stats");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_USAGE);
	assert_string_equal(rw_last.err, "rwctl: 'stats show' needs a JOB\nTry 'rwctl stats help'.\n");
	RUN("stats", "show", "x", "y");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_USAGE);
	assert_non_null(strstr(rw_last.err, "unexpected argument 'y' to 'stats show'"));
	RUN("stats", "show", "bad name");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_USAGE);
	assert_non_null(strstr(rw_last.err, "invalid character at byte 4"));
	assert_string_equal(rw_last.out, "");
	assert_int_equal(rw_be.calls, 0);
	assert_int_equal(rw_be.get_calls, 0);
}

static void rw_test_show_errors(void **state)
{
	(void)state;
	rw_be.kernel = true;
	rw_be.err = -ENOENT;
	RUN("stats", "show", "gone");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "rwctl: stats show: no job named 'gone'\n");

	rw_be.kernel = false;
	rw_be.err = -EPROTO;
	RUN("-j", "stats", "show", "j");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "rwctl: scripted failure\n");

	/* The job get fails first: no statistics are asked for. */
	rw_be.calls = 0;
	rw_be.get_err = -ENOENT;
	RUN("stats", "show", "gone");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "rwctl: stats show: no job named 'gone'\n");
	assert_int_equal(rw_be.calls, 0);
}

static void rw_test_help(void **state)
{
	(void)state;
	RUN("stats", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "Usage: rwctl [OPTIONS] stats { COMMAND | help }"));
	assert_non_null(strstr(rw_last.out, "  show JOB"));
	assert_non_null(strstr(rw_last.out, "late_dropped: gradients that came"));
	RUN("help", "stats");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.calls, 0);
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)
#define RW_M(fn)	cmocka_unit_test_setup_teardown(fn, rw_msg_setup, rw_msg_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_M(rw_test_parse_full),
		RW_M(rw_test_parse_values),
		RW_M(rw_test_parse_malformed),
		RW_M(rw_test_parse_cut_short),
		RW_M(rw_test_parse_newer),
		RW_M(rw_test_parse_late_dropped),
		RW_M(rw_test_moved),
		RW_T(rw_test_print_text),
		RW_T(rw_test_print_json),
		RW_T(rw_test_print_sparse),
		RW_T(rw_test_show),
		RW_T(rw_test_show_box_set),
		RW_T(rw_test_show_usage),
		RW_T(rw_test_show_errors),
		RW_T(rw_test_help),
	};
	int ret;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("rwctl-stats", tests, NULL, NULL);
	rw_result_free(&rw_last);
	return ret;
}
