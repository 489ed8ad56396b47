// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl and BSP quorums (backup workers): "quorum K" and "quorum all" in
 * "job add" and "policy set" (the range 1..workers, the job read first
 * when "policy set" does not give the worker count and the sync mode, the
 * exact sentence of every refusal), the RW_JOB_A_QUORUM attribute sent
 * and read back (absent from older modules: every worker's), and the
 * quorum printed by "job show" and "policy show" in text and JSON.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "backend.h"
#include "genl.h"
#include "job.h"
#include "policy.h"
#include "print.h"
#include "rwctl.h"
#include "rwtest.h"

#define RW_TEST_FAMILY	0x1d

/* ---- scripted backend: one job, "q", whose settings the test picks ---- */

static struct {
	unsigned int add_calls, get_calls, policy_calls;
	int get_err, policy_err;
	const char *extack;
	struct rwctl_job job;		/* what get returns */
	struct rwctl_job_add last;	/* the last add or policy request */
} rw_be;

static void rw_job(struct rwctl_job *j, const char *name, uint32_t workers,
		   uint32_t sync, uint32_t quorum)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->id = 3;
	j->workers = workers;
	j->chunk_size = 32768;
	j->sync = sync;
	if (sync == RW_SYNC_SSP)
		j->staleness = 2;
	j->quorum = quorum;
	j->evict_ms = 0;
	j->optim = RW_OPTIM_SGD;
	j->hp_mask = 1U << RWCTL_HP_LR;
	j->hp[RWCTL_HP_LR] = 0.5f;
}

/* The job after @a, as the module would report it. */
static void rw_apply(struct rwctl_job *out, const struct rwctl_job_add *a)
{
	if (a->has_workers)
		out->workers = a->workers;
	if (a->has_sync) {
		out->sync = a->sync;
		out->staleness = a->staleness;
	}
	if (a->has_quorum)
		out->quorum = a->quorum;
	if (out->quorum > out->workers)
		out->quorum = out->workers;
}

static int rw_be_add(const struct rwctl_job_add *a, struct rwctl_job *out,
		     struct rwctl_err *e)
{
	(void)e;
	rw_be.add_calls++;
	rw_be.last = *a;
	rw_job(out, a->name, a->workers, RW_SYNC_BSP, a->workers);
	rw_apply(out, a);
	return 0;
}

static int rw_be_get(const char *name, struct rwctl_job_list *list,
		     struct rwctl_err *e)
{
	rw_be.get_calls++;
	if (rw_be.get_err) {
		e->kernel = true;
		return rw_be.get_err;
	}
	list->jobs = calloc(1, sizeof(*list->jobs));
	assert_non_null(list->jobs);
	list->jobs[0] = rw_be.job;
	if (name)
		snprintf(list->jobs[0].name, sizeof(list->jobs[0].name), "%s",
			 name);
	list->nr = 1;
	return 0;
}

static int rw_be_policy(const struct rwctl_job_add *a, struct rwctl_job *out,
			struct rwctl_err *e)
{
	rw_be.policy_calls++;
	rw_be.last = *a;
	if (rw_be.policy_err) {
		e->kernel = true;
		if (rw_be.extack)
			snprintf(e->extack, sizeof(e->extack), "%s",
				 rw_be.extack);
		return rw_be.policy_err;
	}
	*out = rw_be.job;
	snprintf(out->name, sizeof(out->name), "%s", a->name);
	rw_apply(out, a);
	return 0;
}

static int rw_be_del(const char *name, bool force, struct rwctl_err *e)
{
	(void)name, (void)force, (void)e;
	fail_msg("job del is not part of these tests");
	return -EIO;
}

static int rw_be_topo(const char *name, struct rwctl_topo *t,
		      struct rwctl_err *e)
{
	(void)name, (void)t, (void)e;
	fail_msg("topo is not part of these tests");
	return -EIO;
}

static int rw_be_stats(const char *name, struct rwctl_stats *s,
		       struct rwctl_err *e)
{
	(void)name, (void)s, (void)e;
	fail_msg("stats is not part of these tests");
	return -EIO;
}

static const struct rwctl_job_backend rw_test_backend = {
	.add = rw_be_add,
	.del = rw_be_del,
	.get = rw_be_get,
	.policy = rw_be_policy,
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
	/* A BSP job of 4 workers, every worker's gradient per step. */
	rw_job(&rw_be.job, "q", 4, RW_SYNC_BSP, 4);
	return 0;
}

/* A usage error with exactly @msg, and nothing sent. */
static void rw_assert_refused(const char *obj, const char *msg)
{
	char want[512];

	snprintf(want, sizeof(want), "rwctl: %s\nTry 'rwctl %s help'.\n", msg,
		 obj);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_USAGE);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, want);
	assert_int_equal(rw_be.add_calls + rw_be.policy_calls, 0);
}

/* ---- job add ---- */

static void rw_test_add_parse(void **state)
{
	static const struct {
		const char *args[10];
		uint32_t quorum;
		bool all;
	} ok[] = {
		{ { "j", "workers", "4", "quorum", "3", NULL }, 3, false },
		{ { "j", "workers", "4", "sync", "bsp", "quorum", "1", NULL }, 1, false },
		{ { "j", "quorum", "2", "workers", "4", NULL }, 2, false },
		{ { "j", "quorum", "2", "sync", "bsp", "workers", "2", NULL }, 2, false },
		{ { "j", "workers", "4", "quorum", "4", NULL }, 4, false },
		{ { "j", "workers", "4", "quorum", "all", NULL }, 4, true },
		{ { "j", "quorum", "all", "workers", "256", NULL }, 256, true },
	};
	struct rwctl_job_add a;
	char *argv[10], msg[256];
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		for (n = 0; ok[i].args[n]; n++)
			argv[n] = (char *)ok[i].args[n];
		msg[0] = '\0';
		if (rwctl_job_parse_add(n, argv, &a, msg, sizeof(msg)))
			fail_msg("case %zu: %s", i, msg);
		assert_true(a.has_quorum);
		assert_int_equal(a.quorum, ok[i].quorum);
		assert_int_equal(a.quorum_all, ok[i].all);
	}

	/* Without the keyword: nothing, the module's default. */
	argv[0] = "j";
	argv[1] = "workers";
	argv[2] = "4";
	assert_int_equal(rwctl_job_parse_add(3, argv, &a, msg, sizeof(msg)), 0);
	assert_false(a.has_quorum);
}

static void rw_test_add_refused(void **state)
{
	static const struct {
		const char *args[12];
		const char *msg;
	} bad[] = {
		{ { "j", "workers", "4", "quorum", "0", NULL },
		  "quorum '0' is out of range (1..4, the job's worker count)" },
		{ { "j", "workers", "4", "quorum", "5", NULL },
		  "quorum '5' is out of range (1..4, the job's worker count)" },
		{ { "j", "quorum", "3", "workers", "2", NULL },
		  "quorum '3' is out of range (1..2, the job's worker count)" },
		{ { "j", "workers", "1", "sync", "bsp", "quorum", "99999999999", NULL },
		  "quorum '99999999999' is out of range (1..1, the job's worker count)" },
		{ { "j", "workers", "4", "quorum", "three", NULL },
		  "quorum 'three' is not a number or 'all'" },
		{ { "j", "workers", "4", "quorum", "-1", NULL },
		  "quorum '-1' is not a number or 'all'" },
		{ { "j", "workers", "4", "quorum", "2.5", NULL },
		  "quorum '2.5' is not a number or 'all'" },
		{ { "j", "workers", "4", "quorum", "", NULL },
		  "quorum '' is not a number or 'all'" },
		{ { "j", "workers", "4", "quorum", "ALL", NULL },
		  "quorum 'ALL' is not a number or 'all'" },
		{ { "j", "workers", "4", "sync", "ssp", "2", "quorum", "3", NULL },
		  "quorum applies to sync bsp only, not to sync ssp" },
		{ { "j", "workers", "4", "quorum", "all", "sync", "asp", NULL },
		  "quorum applies to sync bsp only, not to sync asp" },
		{ { "j", "workers", "4", "sync", "adaptive", "1", "4", "quorum", "2", NULL },
		  "quorum applies to sync bsp only, not to sync adaptive" },
		{ { "j", "workers", "4", "quorum", NULL },
		  "'quorum' needs a value" },
		{ { "j", "workers", "4", "quorum", "2", "quorum", "3", NULL },
		  "'quorum' given twice" },
		{ { "j", "quorum", "2", NULL },
		  "'job add' needs 'workers N' (1..256)" },
	};
	const char *args[16];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		args[0] = "job";
		args[1] = "add";
		for (n = 0; bad[i].args[n]; n++)
			args[n + 2] = bad[i].args[n];
		args[n + 2] = NULL;
		rw_test_rwctl(&rw_last, &rw_tmpl, args);
		rw_assert_refused("job", bad[i].msg);
	}
}

/* Parse what rwctl_job_put_settings() makes of @a. */
static struct nl_msg *rw_put(const struct rwctl_job_add *a,
			     struct nlattr **tb)
{
	struct nl_msg *m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_JOB_NEW);

	assert_int_equal(rwctl_job_put_settings(m, a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
	return m;
}

static void rw_test_add_sends(void **state)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	struct nl_msg *m;

	(void)state;
	RUN("job", "add", "j", "workers", "4", "sync", "bsp", "quorum", "3");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.add_calls, 1);
	m = rw_put(&rw_be.last, tb);
	assert_non_null(tb[RW_JOB_A_QUORUM]);
	assert_int_equal(nla_len(tb[RW_JOB_A_QUORUM]), 4);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_QUORUM]), 3);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_SYNC]), RW_SYNC_BSP);
	nlmsg_free(m);
	/* The job comes back as the module has it. */
	assert_non_null(strstr(rw_last.out, "    sync bsp quorum 3/4\n"));

	/* "all" is sent as the worker count. */
	RUN("job", "add", "j", "workers", "6", "quorum", "all");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	m = rw_put(&rw_be.last, tb);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_QUORUM]), 6);
	assert_null(tb[RW_JOB_A_SYNC]);
	nlmsg_free(m);
	assert_non_null(strstr(rw_last.out, "    sync bsp\n"));

	/* Not given: not sent. */
	RUN("job", "add", "j", "workers", "6");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	m = rw_put(&rw_be.last, tb);
	assert_null(tb[RW_JOB_A_QUORUM]);
	nlmsg_free(m);
}

/* ---- policy set ---- */

static void rw_test_policy_parse(void **state)
{
	char *alone[] = { "q", "quorum", "3" };
	char *bsp[] = { "q", "sync", "bsp", "quorum", "all" };
	char *both[] = { "q", "workers", "6", "sync", "bsp", "quorum", "all" };
	char *none[] = { "q", "sync", "bsp" };
	struct rwctl_job_add a;
	char msg[256];

	(void)state;
	assert_int_equal(rwctl_job_parse_policy(3, alone, &a, msg, sizeof(msg)), 0);
	assert_true(a.has_quorum);
	assert_int_equal(a.quorum, 3);
	assert_false(a.has_sync);
	assert_true(rwctl_job_quorum_needs_job(&a));
	/* The quorum alone changes nothing the run's memory depends on. */
	assert_false(rwctl_job_add_shapes_memory(&a));

	/* The worker count is the job's: read it first. */
	assert_int_equal(rwctl_job_parse_policy(5, bsp, &a, msg, sizeof(msg)), 0);
	assert_true(a.quorum_all);
	assert_true(rwctl_job_quorum_needs_job(&a));

	/* Both given: resolved on the spot. */
	assert_int_equal(rwctl_job_parse_policy(7, both, &a, msg, sizeof(msg)), 0);
	assert_false(rwctl_job_quorum_needs_job(&a));
	assert_int_equal(a.quorum, 6);

	assert_int_equal(rwctl_job_parse_policy(3, none, &a, msg, sizeof(msg)), 0);
	assert_false(rwctl_job_quorum_needs_job(&a));
}

static void rw_test_policy_reads_job(void **state)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	struct nl_msg *m;

	(void)state;
	RUN("policy", "set", "q", "quorum", "3");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_be.get_calls, 1);
	assert_int_equal(rw_be.policy_calls, 1);
	m = rw_put(&rw_be.last, tb);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_QUORUM]), 3);
	/* Only the quorum: the sync mode is not repeated. */
	assert_null(tb[RW_JOB_A_SYNC]);
	assert_null(tb[RW_JOB_A_WORKERS]);
	nlmsg_free(m);
	assert_string_equal(rw_last.out,
		"job q id 3\n"
		"    workers 4 (0 attached)  chunk-size 32768  evict-ms 0 (never)\n"
		"    sync bsp quorum 3/4\n"
		"    optim sgd  lr 0.5\n");

	/* "all": the job's worker count, read from the job. */
	rw_setup(NULL);
	rw_be.job.quorum = 2;
	RUN("-j", "policy", "set", "q", "quorum", "all");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.get_calls, 1);
	assert_true(rw_be.last.has_quorum);
	assert_int_equal(rw_be.last.quorum, 4);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"sync\":\"bsp\",\"quorum\":4,"));

	/* Workers given, sync not: the new count, the job's sync mode. */
	rw_setup(NULL);
	RUN("policy", "set", "q", "workers", "8", "quorum", "6");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.get_calls, 1);
	assert_int_equal(rw_be.last.quorum, 6);
	assert_non_null(strstr(rw_last.out, "    sync bsp quorum 6/8\n"));

	/* An SSP job switched to BSP with a quorum in one request. */
	rw_setup(NULL);
	rw_job(&rw_be.job, "q", 4, RW_SYNC_SSP, 4);
	RUN("policy", "set", "q", "sync", "bsp", "quorum", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.get_calls, 1);
	m = rw_put(&rw_be.last, tb);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_SYNC]), RW_SYNC_BSP);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_QUORUM]), 2);
	nlmsg_free(m);

	/* Everything on the command line: the job is not read. */
	rw_setup(NULL);
	RUN("policy", "set", "q", "workers", "6", "sync", "bsp", "quorum", "all");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.get_calls, 0);
	assert_int_equal(rw_be.last.quorum, 6);

	/* No quorum: no read either. */
	rw_setup(NULL);
	RUN("policy", "set", "q", "sync", "bsp");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.get_calls, 0);
	assert_false(rw_be.last.has_quorum);
}

static void rw_test_policy_refused(void **state)
{
	(void)state;
	RUN("policy", "set", "q", "quorum", "5");
	rw_assert_refused("policy",
			  "quorum '5' is out of range (1..4, the job's worker count)");
	assert_int_equal(rw_be.get_calls, 1);

	RUN("policy", "set", "q", "quorum", "0");
	rw_assert_refused("policy",
			  "quorum '0' is out of range (1..4, the job's worker count)");

	RUN("policy", "set", "q", "workers", "2", "quorum", "3");
	rw_assert_refused("policy",
			  "quorum '3' is out of range (1..2, the job's worker count)");

	RUN("policy", "set", "q", "quorum", "x");
	rw_assert_refused("policy", "quorum 'x' is not a number or 'all'");

	/* The job's own sync mode has no quorum. */
	rw_job(&rw_be.job, "q", 4, RW_SYNC_SSP, 4);
	RUN("policy", "set", "q", "quorum", "2");
	rw_assert_refused("policy",
			  "quorum applies to sync bsp only, and job 'q' is sync ssp; give 'sync bsp quorum K' to change both");

	/* Nor does the one given, which is refused before any request. */
	rw_setup(NULL);
	RUN("policy", "set", "q", "sync", "ssp", "3", "quorum", "2");
	rw_assert_refused("policy",
			  "quorum applies to sync bsp only, not to sync ssp");
	assert_int_equal(rw_be.get_calls, 0);
	RUN("policy", "set", "q", "quorum", "all", "sync", "asp", "workers", "4");
	rw_assert_refused("policy",
			  "quorum applies to sync bsp only, not to sync asp");
	assert_int_equal(rw_be.get_calls, 0);
	RUN("policy", "set", "q", "quorum", "1", "quorum", "1");
	rw_assert_refused("policy", "'quorum' given twice");

	/* The job cannot be read: said as for any command on it. */
	rw_setup(NULL);
	rw_be.get_err = -ENOENT;
	RUN("policy", "set", "gone", "quorum", "2");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: policy set: no job named 'gone'\n");
	assert_int_equal(rw_be.policy_calls, 0);
}

/* The module has the last word: its extended ack is shown. */
static void rw_test_policy_module_refuses(void **state)
{
	(void)state;
	rw_be.policy_err = -ERANGE;
	rw_be.extack = "quorum exceeds the job's workers";
	RUN("policy", "set", "q", "quorum", "4");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: policy set: Numerical result out of range: quorum exceeds the job's workers\n");
	assert_int_equal(rw_be.policy_calls, 1);

	/* A run exists: the quorum is one of the settings that may change. */
	rw_setup(NULL);
	rw_be.policy_err = -EBUSY;
	RUN("policy", "set", "q", "workers", "2", "quorum", "1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "sync, quorum, evict-ms and max-memory may change now, set without them");
	RUN("policy", "set", "q", "quorum", "1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "the loaded rackweave module changes sync settings only between runs");
}

/* ---- the reply ---- */

static struct nl_msg *rw_reply(uint32_t workers, uint32_t sync)
{
	struct nl_msg *m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_JOB_GET);

	assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, "q"), 0);
	rw_test_put_u32(m, 0, RW_JOB_A_ID, 1);
	rw_test_put_u32(m, 0, RW_JOB_A_WORKERS, workers);
	rw_test_put_u32(m, 0, RW_JOB_A_CHUNK_SIZE, 4096);
	rw_test_put_u32(m, 0, RW_JOB_A_SYNC, sync);
	if (sync == RW_SYNC_SSP)
		rw_test_put_u32(m, 0, RW_JOB_A_STALENESS, 2);
	rw_test_put_u32(m, 0, RW_JOB_A_EVICT_MS, 0);
	rw_test_put_u32(m, 0, RW_JOB_A_OPTIM, RW_OPTIM_SGD);
	rw_test_put_u32(m, 0, RW_JOB_A_ATTACHED, 0);
	return m;
}

static void rw_test_reply(void **state)
{
	struct rwctl_job job;
	struct nl_msg *m;
	char why[256];
	uint64_t v8 = 3;

	(void)state;
	m = rw_reply(4, RW_SYNC_BSP);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_QUORUM, 3), 0);
	assert_int_equal(rwctl_genl_parse_job(nlmsg_hdr(m), &job, why,
					      sizeof(why)), 0);
	assert_int_equal(job.quorum, 3);
	nlmsg_free(m);

	/* An older module sends none: every worker's gradient. */
	m = rw_reply(4, RW_SYNC_BSP);
	assert_int_equal(rwctl_genl_parse_job(nlmsg_hdr(m), &job, why,
					      sizeof(why)), 0);
	assert_int_equal(job.quorum, 4);
	nlmsg_free(m);

	/* 0, as the uapi's enum comment allows, means the same. */
	m = rw_reply(5, RW_SYNC_BSP);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_QUORUM, 0), 0);
	assert_int_equal(rwctl_genl_parse_job(nlmsg_hdr(m), &job, why,
					      sizeof(why)), 0);
	assert_int_equal(job.quorum, 5);
	nlmsg_free(m);

	/* A u32, exactly. */
	m = rw_reply(4, RW_SYNC_BSP);
	assert_int_equal(nla_put(m, RW_JOB_A_QUORUM, sizeof(v8), &v8), 0);
	rw_assert_malformed_why(rwctl_genl_parse_job(nlmsg_hdr(m), &job, why,
						     sizeof(why)),
				why, "malformed job reply", NULL);
	nlmsg_free(m);
}

/* ---- printing ---- */

static char *rw_render(void (*print)(struct rwctl_printer *,
				     const struct rwctl_job *, size_t),
		       const struct rwctl_job *jobs, size_t nr,
		       unsigned int flags)
{
	struct rwctl_printer p;
	struct rw_capture c;

	rw_render_begin(&c, &p, flags);
	print(&p, jobs, nr);
	return rw_render_end(&c, &p);
}

/* A BSP job with backup workers, a BSP job without, an SSP job. */
static void rw_three_jobs(struct rwctl_job j[3])
{
	rw_job(&j[0], "backup", 4, RW_SYNC_BSP, 3);
	rw_job(&j[1], "full", 4, RW_SYNC_BSP, 4);
	rw_job(&j[2], "stale", 4, RW_SYNC_SSP, 4);
	j[2].evict_ms = 500;
}

static void rw_test_print_text(void **state)
{
	struct rwctl_job j[3];
	char *out;

	(void)state;
	rw_three_jobs(j);
	out = rw_render(rwctl_job_print, j, 3, 0);
	assert_string_equal(out,
		"job backup id 3\n"
		"    workers 4 (0 attached)  chunk-size 32768  evict-ms 0 (never)\n"
		"    sync bsp quorum 3/4\n"
		"    optim sgd  lr 0.5\n"
		"job full id 3\n"
		"    workers 4 (0 attached)  chunk-size 32768  evict-ms 0 (never)\n"
		"    sync bsp\n"
		"    optim sgd  lr 0.5\n"
		"job stale id 3\n"
		"    workers 4 (0 attached)  chunk-size 32768  evict-ms 500\n"
		"    sync ssp staleness 2\n"
		"    optim sgd  lr 0.5\n");
	free(out);

	out = rw_render(rwctl_policy_print, j, 3, 0);
	assert_string_equal(out,
		"job backup\n"
		"    sync bsp quorum 3/4  evict-ms 0 (never)\n"
		"    optim sgd  lr 0.5\n"
		"job full\n"
		"    sync bsp  evict-ms 0 (never)\n"
		"    optim sgd  lr 0.5\n"
		"job stale\n"
		"    sync ssp staleness 2  evict-ms 500\n"
		"    optim sgd  lr 0.5\n");
	free(out);
}

static void rw_test_print_json(void **state)
{
	struct rwctl_job j[3];
	char *out;

	(void)state;
	rw_three_jobs(j);
	out = rw_render(rwctl_job_print, j, 3, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_string_equal(out,
		"{\"jobs\":[{\"name\":\"backup\",\"id\":3,\"workers\":4,"
		"\"attached\":0,\"chunk_size\":32768,\"evict_ms\":0,"
		"\"sync\":\"bsp\",\"quorum\":3,\"optim\":\"sgd\",\"lr\":0.5},"
		"{\"name\":\"full\",\"id\":3,\"workers\":4,\"attached\":0,"
		"\"chunk_size\":32768,\"evict_ms\":0,\"sync\":\"bsp\","
		"\"quorum\":4,\"optim\":\"sgd\",\"lr\":0.5},"
		"{\"name\":\"stale\",\"id\":3,\"workers\":4,\"attached\":0,"
		"\"chunk_size\":32768,\"evict_ms\":500,\"sync\":\"ssp\","
		"\"staleness\":2,\"optim\":\"sgd\",\"lr\":0.5}]}\n");
	free(out);

	out = rw_render(rwctl_policy_print, j, 3, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_string_equal(out,
		"{\"jobs\":[{\"name\":\"backup\",\"sync\":\"bsp\",\"quorum\":3,"
		"\"evict_ms\":0,\"optim\":\"sgd\",\"lr\":0.5},"
		"{\"name\":\"full\",\"sync\":\"bsp\",\"quorum\":4,"
		"\"evict_ms\":0,\"optim\":\"sgd\",\"lr\":0.5},"
		"{\"name\":\"stale\",\"sync\":\"ssp\",\"staleness\":2,"
		"\"evict_ms\":500,\"optim\":\"sgd\",\"lr\":0.5}]}\n");
	free(out);

	out = rw_render(rwctl_policy_print, j, 3,
			RWCTL_PR_JSON | RWCTL_PR_PRETTY);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\n            \"quorum\": 3,\n"));
	free(out);

	/* A job filled without a quorum has every worker's. */
	j[0].quorum = 0;
	out = rw_render(rwctl_policy_print, j, 1, RWCTL_PR_JSON);
	assert_non_null(strstr(out, "\"quorum\":4,"));
	free(out);
}

/* The commands, through the backend: show, list and policy show. */
static void rw_test_show_commands(void **state)
{
	(void)state;
	rw_be.job.quorum = 2;
	RUN("job", "show", "q");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "\n    sync bsp quorum 2/4\n"));
	RUN("-j", "job", "list");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"sync\":\"bsp\",\"quorum\":2,"));
	RUN("policy");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out,
		"job q\n"
		"    sync bsp quorum 2/4  evict-ms 0 (never)\n"
		"    optim sgd  lr 0.5\n");
}

static void rw_test_help(void **state)
{
	(void)state;
	RUN("job", "add", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "[ quorum { K | all } ]"));
	assert_non_null(strstr(rw_last.out, "  K           BSP only:"));
	RUN("policy", "set", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "[ quorum { K | all } ]"));
	assert_non_null(strstr(rw_last.out, "may change while the job runs"));
	assert_int_equal(rw_be.get_calls + rw_be.policy_calls, 0);
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_add_parse),
		RW_T(rw_test_add_refused),
		RW_T(rw_test_add_sends),
		RW_T(rw_test_policy_parse),
		RW_T(rw_test_policy_reads_job),
		RW_T(rw_test_policy_refused),
		RW_T(rw_test_policy_module_refuses),
		RW_T(rw_test_reply),
		RW_T(rw_test_print_text),
		RW_T(rw_test_print_json),
		RW_T(rw_test_show_commands),
		RW_T(rw_test_help),
	};
	int ret;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("rwctl-quorum", tests, NULL, NULL);
	rw_result_free(&rw_last);
	return ret;
}
