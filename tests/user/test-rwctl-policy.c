// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl policy: the command line of "policy set" (the settings of "job
 * add" without the token, at least one of them; exit 2 and a sentence for
 * each bad input), the request it builds (only what was given), the
 * module's refusals in words (EBUSY worded by what was asked), and "policy
 * show" in text and JSON, all through rwctl_run() against a scripted
 * backend.
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

static uint32_t rw_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

/* ---- scripted backend ---- */

static struct {
	unsigned int policy_calls, get_calls, other_calls;
	int policy_err;
	int get_err[4];			/* per call; -EAGAIN: DUMP_INTR */
	bool kernel;
	const char *extack;
	const char *msg;
	struct rwctl_job_add last;
	const char *last_get;
	bool last_get_dump;
} rw_be;

static void rw_fill_job(struct rwctl_job *j, const char *name, uint32_t id)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->id = id;
	j->workers = 4;
	j->attached = 0;
	j->chunk_size = 65536;
	j->sync = RW_SYNC_SSP;
	j->staleness = 3;
	j->evict_ms = 5000;
	j->optim = RW_OPTIM_ADAM;
	j->hp[RWCTL_HP_LR] = 0.001f;
	j->hp[RWCTL_HP_BETA1] = 0.9f;
	j->hp[RWCTL_HP_BETA2] = 0.999f;
	j->hp_mask = 1U << RWCTL_HP_LR | 1U << RWCTL_HP_BETA1 |
		     1U << RWCTL_HP_BETA2;
}

static void rw_be_err(struct rwctl_err *e)
{
	e->kernel = rw_be.kernel;
	if (rw_be.extack)
		snprintf(e->extack, sizeof(e->extack), "%s", rw_be.extack);
	if (rw_be.msg)
		snprintf(e->msg, sizeof(e->msg), "%s", rw_be.msg);
}

static int rw_be_policy(const struct rwctl_job_add *a, struct rwctl_job *out,
			struct rwctl_err *e)
{
	rw_be.policy_calls++;
	rw_be.last = *a;
	if (rw_be.policy_err) {
		rw_be_err(e);
		return rw_be.policy_err;
	}
	/* The job after the change, as the module would report it. */
	rw_fill_job(out, a->name, 5);
	if (a->has_sync) {
		out->sync = a->sync;
		out->staleness = a->staleness;
		out->staleness_lo = a->staleness_lo;
		out->staleness_hi = a->staleness_hi;
	}
	if (a->has_evict_ms)
		out->evict_ms = a->evict_ms;
	if (a->has_optim)
		out->optim = a->optim;
	if (a->has_max_memory) {
		out->has_memory = true;
		out->max_memory = a->max_memory;
		out->memory_limit = a->max_memory ? a->max_memory : 3ULL << 30;
		out->memory = 700ULL << 20;
	}
	return 0;
}

static int rw_be_get(const char *name, struct rwctl_job_list *list,
		     struct rwctl_err *e)
{
	unsigned int call = rw_be.get_calls++;
	int err = call < 4 ? rw_be.get_err[call] : 0;

	rw_be.last_get = name;
	rw_be.last_get_dump = !name;
	list->jobs = calloc(2, sizeof(*list->jobs));
	assert_non_null(list->jobs);
	rw_fill_job(&list->jobs[0], name ? name : "alpha", 1);
	list->nr = 1;
	if (err) {
		rw_be_err(e);
		if (err == -EAGAIN)
			e->kernel = false;
		return err;
	}
	if (!name) {
		rw_fill_job(&list->jobs[1], "beta", 2);
		list->jobs[1].sync = RW_SYNC_ADAPTIVE;
		list->jobs[1].staleness_lo = 2;
		list->jobs[1].staleness_hi = 8;
		list->jobs[1].evict_ms = 0;
		list->jobs[1].optim = RW_OPTIM_SGD;
		list->jobs[1].hp_mask = 1U << RWCTL_HP_LR;
		list->jobs[1].hp[RWCTL_HP_LR] = 0.01f;
		list->nr = 2;
	}
	return 0;
}

static int rw_be_add(const struct rwctl_job_add *a, struct rwctl_job *out,
		     struct rwctl_err *e)
{
	(void)a;
	(void)out;
	(void)e;
	rw_be.other_calls++;
	return -EIO;
}

static int rw_be_del(const char *name, bool force, struct rwctl_err *e)
{
	(void)name;
	(void)force;
	(void)e;
	rw_be.other_calls++;
	return -EIO;
}

static int rw_be_topo(const char *name, struct rwctl_topo *t,
		      struct rwctl_err *e)
{
	(void)name;
	(void)t;
	(void)e;
	rw_be.other_calls++;
	return -EIO;
}

static int rw_be_stats(const char *name, struct rwctl_stats *s,
		       struct rwctl_err *e)
{
	(void)name;
	(void)s;
	(void)e;
	rw_be.other_calls++;
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
	return 0;
}

static void rw_assert_usage(const char *what)
{
	rw_assert_usage_of(&rw_last, "policy", what);
	assert_int_equal(rw_be.policy_calls + rw_be.get_calls +
			 rw_be.other_calls, 0);
}

static void rw_assert_error(const char *what)
{
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, what);
}

/* ---- parsing ---- */

static void rw_test_parse_one_setting(void **state)
{
	char *argv[] = { "train1", "sync", "asp" };
	struct rwctl_job_add a;
	char msg[256] = "";

	(void)state;
	assert_int_equal(rwctl_job_parse_policy(3, argv, &a, msg, sizeof(msg)), 0);
	assert_string_equal(a.name, "train1");
	assert_true(a.has_sync);
	assert_int_equal(a.sync, RW_SYNC_ASP);
	/* Nothing else is marked given: the module keeps the rest. */
	assert_false(a.has_workers);
	assert_false(a.has_chunk_size);
	assert_false(a.has_evict_ms);
	assert_false(a.has_optim);
	assert_int_equal(a.hp_mask, 0);
	assert_false(rwctl_job_add_shapes_memory(&a));
}

static void rw_test_parse_all_settings(void **state)
{
	char *argv[] = {
		"j", "workers", "8", "chunk-size", "4096", "sync", "ssp", "7",
		"evict-ms", "250", "optim", "momentum", "lr", "0.5",
		"momentum", "0.75", "weight-decay", "0", "beta1", "0.25",
		"beta2", "0.125", "eps", "1e-6",
	};
	struct rwctl_job_add a;
	char msg[256] = "";

	(void)state;
	assert_int_equal(rwctl_job_parse_policy(24, argv, &a, msg, sizeof(msg)), 0);
	assert_true(a.has_workers);
	assert_int_equal(a.workers, 8);
	assert_true(a.has_chunk_size);
	assert_int_equal(a.chunk_size, 4096);
	assert_int_equal(a.sync, RW_SYNC_SSP);
	assert_int_equal(a.staleness, 7);
	assert_int_equal(a.evict_ms, 250);
	assert_int_equal(a.optim, RW_OPTIM_MOMENTUM);
	assert_int_equal(a.hp_mask, (1U << RWCTL_NR_HP) - 1);
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_LR]), 0x3f000000);
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_EPS]), rw_bits(1e-6f));
	assert_null(a.token_file);
	assert_true(rwctl_job_add_shapes_memory(&a));
}

/* Each of these changes the job's memory; sync and evict-ms do not. */
static void rw_test_shapes_memory(void **state)
{
	static const char *const shaping[][2] = {
		{ "workers", "2" }, { "chunk-size", "8192" },
		{ "optim", "sgd" }, { "eps", "1" }, { "lr", "0.1" },
	};
	struct rwctl_job_add a;
	char *argv[3], msg[256];
	size_t i;

	(void)state;
	argv[0] = "j";
	for (i = 0; i < sizeof(shaping) / sizeof(shaping[0]); i++) {
		argv[1] = (char *)shaping[i][0];
		argv[2] = (char *)shaping[i][1];
		assert_int_equal(rwctl_job_parse_policy(3, argv, &a, msg,
							sizeof(msg)), 0);
		if (!rwctl_job_add_shapes_memory(&a))
			fail_msg("'%s' should shape memory", shaping[i][0]);
	}
	argv[1] = "evict-ms";
	argv[2] = "0";
	assert_int_equal(rwctl_job_parse_policy(3, argv, &a, msg, sizeof(msg)), 0);
	assert_false(rwctl_job_add_shapes_memory(&a));
}

static void rw_test_set_usage_errors(void **state)
{
	static const struct {
		const char *args[10];
		const char *why;
	} bad[] = {
		{ { NULL }, "'policy set' needs a job NAME and a setting" },
		{ { "j", NULL },
		  "'policy set j' changes nothing: give at least one setting (workers, chunk-size, sync, quorum, evict-ms, max-memory, boxes, optim, lr, ...)" },
		{ { "a b", "sync", "bsp", NULL }, "invalid character at byte 2" },
		{ { "", "sync", "bsp", NULL }, "job name is empty" },
		{ { "j", "token-file", "/dev/null", NULL },
		  "'policy set' does not take 'token-file'" },
		{ { "j", "sync", NULL }, "'sync' needs a value" },
		{ { "j", "sync", "ssp", NULL }, "needs the staleness bound S" },
		{ { "j", "sync", "ssp", "0", NULL }, "staleness '0' is out of range (1..1024)" },
		{ { "j", "sync", "adaptive", "9", "3", NULL }, "LO must not exceed HI" },
		{ { "j", "sync", "lockstep", NULL }, "unknown sync mode 'lockstep'" },
		{ { "j", "workers", "0", NULL }, "workers '0' is out of range (1..256)" },
		{ { "j", "chunk-size", "4000", NULL }, "out of range (4096..1048576)" },
		{ { "j", "chunk-size", "12288", NULL }, "not a power of two" },
		{ { "j", "evict-ms", "soon", NULL }, "evict-ms 'soon' is not a number" },
		{ { "j", "optim", "rmsprop", NULL }, "unknown optimizer 'rmsprop'" },
		{ { "j", "lr", "nan", NULL }, "not a finite" },
		{ { "j", "beta1", NULL }, "'beta1' needs a value" },
		{ { "j", "lr", "0.1", "lr", "0.2", NULL }, "'lr' given twice" },
		{ { "j", "sync", "bsp", "sync", "asp", NULL }, "'sync' given twice" },
		{ { "j", "max-memory", NULL }, "'max-memory' needs a value" },
		{ { "j", "max-memory", "lots", NULL },
		  "max-memory 'lots' is not a size: bytes, or a whole number with K, M, G or T (KiB, MiB, GiB, TiB); or 'default'" },
		{ { "j", "max-memory", "2GB", NULL }, "max-memory '2GB' is not a size" },
		{ { "j", "max-memory", "99999999999T", NULL },
		  "max-memory '99999999999T' is too large (a size must be below 16 EiB)" },
		{ { "j", "max-memory", "1G", "max-memory", "default", NULL },
		  "'max-memory' given twice" },
		{ { "j", "speed", "9", NULL }, "unknown argument 'speed' to 'policy set'" },
		{ { "j", "sync", "bsp", "-j", NULL }, "options go before OBJECT" },
	};
	const char *args[16];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		args[0] = "policy";
		args[1] = "set";
		for (n = 0; bad[i].args[n]; n++)
			args[n + 2] = bad[i].args[n];
		args[n + 2] = NULL;
		rw_test_rwctl(&rw_last, &rw_tmpl, args);
		rw_assert_usage(bad[i].why);
	}
}

static void rw_test_show_usage(void **state)
{
	(void)state;
	RUN("policy", "show", "a/b");
	rw_assert_usage("invalid character");
	RUN("policy", "show", "a", "b");
	rw_assert_usage("unexpected argument 'b' to 'policy show'");
	RUN("policy", "bogus");
	rw_assert_usage("unknown command 'bogus' for object 'policy'");
}

/* ---- the request ---- */

/* Parse what rwctl_job_put_settings() put into a message. */
static void rw_put_and_parse(const struct rwctl_job_add *a,
			     struct nlattr **tb, struct nl_msg **m)
{
	*m = rw_test_genl_msg(0x1e, RW_CMD_POLICY_SET);
	assert_int_equal(rwctl_job_put_settings(*m, a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(*m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
}

static void rw_test_request_only_given(void **state)
{
	char *argv[] = { "train1", "sync", "adaptive", "2", "6", "lr", "0.25" };
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	struct rwctl_job_add a;
	struct nl_msg *m;
	char msg[256];
	int i;

	(void)state;
	assert_int_equal(rwctl_job_parse_policy(7, argv, &a, msg, sizeof(msg)), 0);
	rw_put_and_parse(&a, tb, &m);
	assert_string_equal(nla_get_string(tb[RW_JOB_A_NAME]), "train1");
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_SYNC]), RW_SYNC_ADAPTIVE);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_STALENESS_LO]), 2);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_STALENESS_HI]), 6);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_LR]), 0x3e800000);
	for (i = 1; i <= RW_JOB_A_MAX; i++) {
		if (i == RW_JOB_A_NAME || i == RW_JOB_A_SYNC ||
		    i == RW_JOB_A_STALENESS_LO || i == RW_JOB_A_STALENESS_HI ||
		    i == RW_JOB_A_LR)
			continue;
		if (tb[i])
			fail_msg("attribute %d sent but not given", i);
	}
	nlmsg_free(m);

	/* "job add" always sends the worker count. */
	memset(&a, 0, sizeof(a));
	strcpy(a.name, "x");
	a.has_workers = true;
	a.workers = 3;
	rw_put_and_parse(&a, tb, &m);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_WORKERS]), 3);
	assert_null(tb[RW_JOB_A_SYNC]);
	assert_null(tb[RW_JOB_A_TOKEN]);
	nlmsg_free(m);
}

/* ---- policy set against the backend ---- */

static void rw_test_set_ok(void **state)
{
	(void)state;
	RUN("policy", "set", "train1", "sync", "ssp", "9", "evict-ms", "0");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_be.policy_calls, 1);
	assert_string_equal(rw_be.last.name, "train1");
	assert_true(rw_be.last.has_sync);
	assert_int_equal(rw_be.last.staleness, 9);
	assert_true(rw_be.last.has_evict_ms);
	assert_false(rw_be.last.has_workers);
	assert_false(rw_be.last.has_token);
	/* Printed as "job show" prints the job. */
	assert_string_equal(rw_last.out,
		"job train1 id 5\n"
		"    workers 4 (0 attached)  chunk-size 65536  evict-ms 0 (never)\n"
		"    sync ssp staleness 9\n"
		"    optim adam  lr 0.001 beta1 0.9 beta2 0.999\n");

	RUN("-j", "policy", "set", "train1", "sync", "bsp");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out,
			       "{\"jobs\":[{\"name\":\"train1\",\"id\":5,"));
	assert_non_null(strstr(rw_last.out,
			       "\"sync\":\"bsp\",\"quorum\":4,\"optim\""));
}

/*
 * max-memory alone: sent as a u64 (0 for "default"), allowed during a run
 * (it does not shape the run's memory), and the job shown with its memory.
 */
static void rw_test_set_max_memory(void **state)
{
	char *argv[] = { "train1", "max-memory", "2G" };
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	struct rwctl_job_add a;
	struct nl_msg *m;
	char msg[256];
	int i;

	(void)state;
	assert_int_equal(rwctl_job_parse_policy(3, argv, &a, msg, sizeof(msg)), 0);
	assert_true(a.has_max_memory);
	assert_true(a.max_memory == 2ULL << 30);
	assert_false(rwctl_job_add_shapes_memory(&a));
	assert_false(rwctl_job_quorum_needs_job(&a));
	rw_put_and_parse(&a, tb, &m);
	assert_int_equal(nla_len(tb[RW_JOB_A_MAX_MEMORY]), 8);
	assert_true(nla_get_u64(tb[RW_JOB_A_MAX_MEMORY]) == 2ULL << 30);
	for (i = 1; i <= RW_JOB_A_MAX; i++)
		if (tb[i] && i != RW_JOB_A_NAME && i != RW_JOB_A_MAX_MEMORY)
			fail_msg("attribute %d sent but not given", i);
	nlmsg_free(m);

	argv[2] = "default";
	assert_int_equal(rwctl_job_parse_policy(3, argv, &a, msg, sizeof(msg)), 0);
	rw_put_and_parse(&a, tb, &m);
	assert_non_null(tb[RW_JOB_A_MAX_MEMORY]);
	assert_true(nla_get_u64(tb[RW_JOB_A_MAX_MEMORY]) == 0);
	nlmsg_free(m);

	RUN("policy", "set", "train1", "max-memory", "2g");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_be.policy_calls, 1);
	/* Nothing to read first: no quorum to check. */
	assert_int_equal(rw_be.get_calls, 0);
	assert_true(rw_be.last.has_max_memory);
	assert_true(rw_be.last.max_memory == 2ULL << 30);
	assert_false(rw_be.last.has_sync);
	assert_false(rw_be.last.has_workers);
	assert_string_equal(rw_last.out,
		"job train1 id 5\n"
		"    workers 4 (0 attached)  chunk-size 65536  evict-ms 5000\n"
		"    sync ssp staleness 3\n"
		"    optim adam  lr 0.001 beta1 0.9 beta2 0.999\n"
		"    memory 700 MiB of 2.00 GiB (max-memory 2 GiB)\n");

	RUN("-j", "policy", "set", "train1", "max-memory", "0", "evict-ms", "100");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_true(rw_be.last.has_max_memory);
	assert_true(rw_be.last.max_memory == 0);
	assert_true(rw_be.last.has_evict_ms);
	assert_non_null(strstr(rw_last.out,
			       "\"max_memory\":0,\"memory_limit\":3221225472,\"memory\":734003200}]}"));

	/* policy show stays the sync and optimizer settings. */
	RUN("policy", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_null(strstr(rw_last.out, "memory"));
}

/* Averaging mode: sent as RW_OPTIM_AVERAGE alone, shown by its name. */
static void rw_test_set_average(void **state)
{
	char *argv[] = { "ddp", "optim", "average" };
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	struct rwctl_printer p;
	struct rwctl_job_add a;
	struct rw_capture c;
	struct rwctl_job j;
	struct nl_msg *m;
	char msg[256];

	(void)state;
	assert_int_equal(rwctl_job_parse_policy(3, argv, &a, msg, sizeof(msg)), 0);
	/* Another run's memory: refused while one exists, like any optimizer. */
	assert_true(rwctl_job_add_shapes_memory(&a));
	rw_put_and_parse(&a, tb, &m);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_OPTIM]), RW_OPTIM_AVERAGE);
	assert_null(tb[RW_JOB_A_LR]);
	assert_null(tb[RW_JOB_A_SYNC]);
	nlmsg_free(m);

	RUN("policy", "set", "ddp", "optim", "average");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.policy_calls, 1);
	assert_true(rw_be.last.has_optim);
	assert_int_equal(rw_be.last.optim, RW_OPTIM_AVERAGE);
	assert_false(rw_be.last.has_sync);
	assert_int_equal(rw_be.last.hp_mask, 0);
	assert_string_equal(rw_last.out,
		"job ddp id 5\n"
		"    workers 4 (0 attached)  chunk-size 65536  evict-ms 5000\n"
		"    sync ssp staleness 3\n"
		"    optim average\n");

	rw_setup(NULL);
	RUN("policy", "set", "ddp", "optim", "mean");
	rw_assert_usage("unknown optimizer 'mean' (sgd, momentum, nesterov, adam, average)");

	/* policy show, text and JSON. */
	rw_fill_job(&j, "ddp", 5);
	j.optim = RW_OPTIM_AVERAGE;
	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, 0);
	rwctl_policy_print(&p, &j, 1);
	assert_int_equal(rwctl_pr_end(&p), 0);
	assert_string_equal(rw_capture_str(&c),
		"job ddp\n"
		"    sync ssp staleness 3  evict-ms 5000\n"
		"    optim average\n");
	rw_capture_free(&c);
	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, RWCTL_PR_JSON);
	rwctl_policy_print(&p, &j, 1);
	assert_int_equal(rwctl_pr_end(&p), 0);
	assert_string_equal(rw_capture_str(&c),
		"{\"jobs\":[{\"name\":\"ddp\",\"sync\":\"ssp\",\"staleness\":3,"
		"\"evict_ms\":5000,\"optim\":\"average\"}]}\n");
	rw_capture_free(&c);
}

static void rw_test_set_refused(void **state)
{
	(void)state;
	rw_be.kernel = true;
	rw_be.policy_err = -EBUSY;
	/* Sync settings alone: only a module older than live changes. */
	RUN("policy", "set", "t", "sync", "asp");
	rw_assert_error("rwctl: policy set: job 't' has a run (workers attached or buffers mapped) and the loaded rackweave module changes sync settings only between runs; wait for it to end, or load the module of rwctl's release (" RW_VERSION_STRING ")\n");

	RUN("policy", "set", "t", "chunk-size", "8192");
	rw_assert_error("rwctl: policy set: job 't' has a run (workers attached or buffers mapped): workers, chunk-size, optim and the hyper-parameters wait for it to end (or delete and re-create the job); sync, quorum, evict-ms and max-memory may change now, set without them\n");

	/* max-memory beside a setting that waits: named among those that may not. */
	RUN("policy", "set", "t", "workers", "2", "max-memory", "1G");
	rw_assert_error("rwctl: policy set: job 't' has a run (workers attached or buffers mapped): workers, chunk-size, optim and the hyper-parameters wait for it to end (or delete and re-create the job); sync, quorum, evict-ms and max-memory may change now, set without them\n");

	/* The module's own reason, when it gives one, says it best. */
	rw_be.extack = "files are attached or buffers mapped; change settings between runs";
	RUN("policy", "set", "t", "workers", "2");
	rw_assert_error("rwctl: policy set: job 't' is busy: files are attached or buffers mapped; change settings between runs\n");

	rw_be.extack = NULL;
	rw_be.policy_err = -EPERM;
	RUN("policy", "set", "t", "lr", "1");
	rw_assert_error("rwctl: policy set: needs CAP_NET_ADMIN (run as root)\n");
	rw_be.policy_err = -ENOENT;
	RUN("policy", "set", "gone", "lr", "1");
	rw_assert_error("rwctl: policy set: no job named 'gone'\n");
	rw_be.policy_err = -EINVAL;
	rw_be.extack = "staleness band too wide";
	RUN("policy", "set", "t", "sync", "adaptive", "1", "1024");
	rw_assert_error("rwctl: policy set: Invalid argument: staleness band too wide\n");

	/* A module older than memory limits does not know the attribute. */
	rw_be.extack = "Unknown attribute type";
	RUN("policy", "set", "t", "max-memory", "512M");
	rw_assert_error("rwctl: policy set: the loaded rackweave module has no memory limits (max-memory); load the module of rwctl's release (" RW_VERSION_STRING "), or leave max-memory out\n");

	/* Not the module's refusal: the backend's own sentence. */
	rw_be.kernel = false;
	rw_be.policy_err = -ENOENT;
	rw_be.msg = "rackweave module not loaded";
	RUN("policy", "set", "t", "lr", "1");
	rw_assert_error("rwctl: rackweave module not loaded\n");
	assert_null(strstr(rw_last.err, "no job named"));
}

/* ---- policy show ---- */

static void rw_test_show_text(void **state)
{
	(void)state;
	RUN("policy");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_true(rw_be.last_get_dump);
	assert_string_equal(rw_last.out,
		"job alpha\n"
		"    sync ssp staleness 3  evict-ms 5000\n"
		"    optim adam  lr 0.001 beta1 0.9 beta2 0.999\n"
		"job beta\n"
		"    sync adaptive staleness 2..8  evict-ms 0 (never)\n"
		"    optim sgd  lr 0.01\n");

	RUN("policy", "show", "one");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_false(rw_be.last_get_dump);
	assert_string_equal(rw_be.last_get, "one");
	assert_non_null(strstr(rw_last.out, "job one\n"));
	assert_null(strstr(rw_last.out, "job beta"));
}

static void rw_test_show_json(void **state)
{
	(void)state;
	RUN("-j", "policy", "list");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_string_equal(rw_last.out,
		"{\"jobs\":[{\"name\":\"alpha\",\"sync\":\"ssp\",\"staleness\":3,"
		"\"evict_ms\":5000,\"optim\":\"adam\",\"lr\":0.001,\"beta1\":0.9,"
		"\"beta2\":0.999},"
		"{\"name\":\"beta\",\"sync\":\"adaptive\",\"staleness_lo\":2,"
		"\"staleness_hi\":8,\"evict_ms\":0,\"optim\":\"sgd\",\"lr\":0.01}]}\n");
	/* No job fields beyond the policy. */
	assert_null(strstr(rw_last.out, "workers"));
	assert_null(strstr(rw_last.out, "chunk_size"));

	RUN("-jp", "policy");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
}

static void rw_test_show_empty_and_errors(void **state)
{
	struct rwctl_printer p;
	struct rw_capture c;

	(void)state;
	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, RWCTL_PR_JSON);
	rwctl_policy_print(&p, NULL, 0);
	assert_int_equal(rwctl_pr_end(&p), 0);
	assert_string_equal(rw_capture_str(&c), "{\"jobs\":[]}\n");
	rw_capture_free(&c);

	rw_be.kernel = true;
	rw_be.get_err[0] = -ENOENT;
	RUN("policy", "show", "gone");
	rw_assert_error("rwctl: policy show: no job named 'gone'\n");

	rw_setup(NULL);
	rw_be.get_err[0] = -EAGAIN;
	RUN("policy");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.get_calls, 2);

	rw_setup(NULL);
	rw_be.get_err[0] = -EAGAIN;
	rw_be.get_err[1] = -EAGAIN;
	RUN("policy");
	rw_assert_error("rwctl: policy show: the job list changed while it was read, twice in a row; try again\n");
}

static void rw_test_help(void **state)
{
	(void)state;
	RUN("policy", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "Usage: rwctl [OPTIONS] policy { COMMAND | help }"));
	assert_non_null(strstr(rw_last.out, "policy set JOB [ workers N ]"));
	assert_non_null(strstr(rw_last.out, "the next iteration boundary"));
	assert_non_null(strstr(rw_last.out, "[ quorum { K | all } ]"));
	assert_non_null(strstr(rw_last.out, "[ max-memory { SIZE | default } ]"));
	assert_non_null(strstr(rw_last.out,
			       "max-memory may change at any time and limits the job's next run"));
	assert_null(strstr(rw_last.out, "restarts the gate"));
	assert_null(strstr(rw_last.out, "token-file"));
	RUN("policy", "set", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "  set JOB SETTING..."));
	RUN("help", "policy");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "(alias: list) (default)"));
	assert_int_equal(rw_be.policy_calls + rw_be.get_calls, 0);
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_parse_one_setting),
		RW_T(rw_test_parse_all_settings),
		RW_T(rw_test_shapes_memory),
		RW_T(rw_test_set_usage_errors),
		RW_T(rw_test_show_usage),
		RW_T(rw_test_request_only_given),
		RW_T(rw_test_set_ok),
		RW_T(rw_test_set_max_memory),
		RW_T(rw_test_set_average),
		RW_T(rw_test_set_refused),
		RW_T(rw_test_show_text),
		RW_T(rw_test_show_json),
		RW_T(rw_test_show_empty_and_errors),
		RW_T(rw_test_help),
	};
	int ret;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("rwctl-policy", tests, NULL, NULL);
	rw_result_free(&rw_last);
	return ret;
}
