// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl job: the command line of "job add" / "job del" (every limit of the
 * uapi, exit 2 and a sentence for each bad input), the parser of job
 * replies (messages built with libnl as the module would, or as a broken
 * one might), the text and JSON printers, token files, and whole commands
 * run through rwctl_run() against a scripted backend: friendly errors,
 * the token shown once, a dump retried once after NLM_F_DUMP_INTR.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#define RW_TEST_FAMILY	0x1d

static uint32_t rw_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

/* ---- scripted backend ---- */

static struct {
	unsigned int add_calls, del_calls, get_calls;
	int add_err, del_err;
	int get_err[4];			/* per call; -EAGAIN: DUMP_INTR */
	bool kernel;			/* errors are the module's */
	const char *extack;
	const char *msg;
	struct rwctl_job_add last_add;
	char last_del[RW_JOB_NAME_MAX];
	bool last_force;
	bool last_get_dump;
	bool reply_token;
	bool reply_memory;		/* as a module with memory limits */
} rw_be;

static void rw_fill_job(struct rwctl_job *j, const char *name, uint32_t id)
{
	memset(j, 0, sizeof(*j));
	strcpy(j->name, name);
	j->id = id;
	j->workers = 4;
	j->attached = 2;
	j->chunk_size = 32768;
	j->sync = RW_SYNC_SSP;
	j->staleness = 3;
	j->evict_ms = 5000;
	j->optim = RW_OPTIM_ADAM;
	j->hp[RWCTL_HP_LR] = 0.001f;
	j->hp[RWCTL_HP_WEIGHT_DECAY] = 0.0f;
	j->hp[RWCTL_HP_BETA1] = 0.9f;
	j->hp[RWCTL_HP_BETA2] = 0.999f;
	j->hp[RWCTL_HP_EPS] = 1e-8f;
	j->hp_mask = 1U << RWCTL_HP_LR | 1U << RWCTL_HP_WEIGHT_DECAY |
		     1U << RWCTL_HP_BETA1 | 1U << RWCTL_HP_BETA2 |
		     1U << RWCTL_HP_EPS;
}

static void rw_be_err(struct rwctl_err *e)
{
	e->kernel = rw_be.kernel;
	if (rw_be.extack)
		snprintf(e->extack, sizeof(e->extack), "%s", rw_be.extack);
	if (rw_be.msg)
		snprintf(e->msg, sizeof(e->msg), "%s", rw_be.msg);
}

static int rw_be_add(const struct rwctl_job_add *a, struct rwctl_job *out,
		     struct rwctl_err *e)
{
	size_t i;

	rw_be.add_calls++;
	rw_be.last_add = *a;
	if (rw_be.add_err) {
		rw_be_err(e);
		return rw_be.add_err;
	}
	rw_fill_job(out, a->name, 9);
	out->attached = 0;
	/* The optimizer asked for, as the module reports it back. */
	if (a->has_optim)
		out->optim = a->optim;
	if (rw_be.reply_memory) {
		out->has_memory = true;
		out->max_memory = a->max_memory;
		out->memory_limit = a->max_memory ? a->max_memory : 512 << 20;
	}
	if (rw_be.reply_token) {
		for (i = 0; i < RW_JOB_TOKEN_LEN; i++)
			out->token[i] = (uint8_t)(i * 17 + 1);
		out->has_token = true;
	}
	return 0;
}

static int rw_be_del(const char *name, bool force, struct rwctl_err *e)
{
	rw_be.del_calls++;
	snprintf(rw_be.last_del, sizeof(rw_be.last_del), "%s", name);
	rw_be.last_force = force;
	if (rw_be.del_err) {
		rw_be_err(e);
		return rw_be.del_err;
	}
	return 0;
}

static int rw_be_get(const char *name, struct rwctl_job_list *list,
		     struct rwctl_err *e)
{
	unsigned int call = rw_be.get_calls++;
	int err = call < 4 ? rw_be.get_err[call] : 0;

	rw_be.last_get_dump = !name;
	/* Something partial, as a real interrupted dump leaves. */
	list->jobs = calloc(2, sizeof(*list->jobs));
	assert_non_null(list->jobs);
	rw_fill_job(&list->jobs[0], name ? name : "alpha", 1);
	list->nr = 1;
	if (err) {
		rw_be_err(e);
		if (err == -EAGAIN) {
			e->kernel = false;
			snprintf(e->msg, sizeof(e->msg), "changed");
		}
		return err;
	}
	if (!name) {
		rw_fill_job(&list->jobs[1], "beta", 2);
		list->jobs[1].sync = RW_SYNC_BSP;
		list->nr = 2;
	}
	return 0;
}

static const struct rwctl_job_backend rw_test_backend = {
	.add = rw_be_add,
	.del = rw_be_del,
	.get = rw_be_get,
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
	rw_assert_usage_of(&rw_last, "job", what);
	assert_int_equal(rw_be.add_calls + rw_be.del_calls + rw_be.get_calls, 0);
}

static void rw_assert_error(const char *what)
{
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, what);
}

/* ---- argument parsing ---- */

static void rw_test_parse_add_minimal(void **state)
{
	struct rwctl_job_add a;
	char *argv[] = { "train1", "workers", "4" };
	char msg[256] = "";

	(void)state;
	assert_int_equal(rwctl_job_parse_add(3, argv, &a, msg, sizeof(msg)), 0);
	assert_string_equal(a.name, "train1");
	assert_int_equal(a.workers, 4);
	assert_false(a.has_chunk_size);
	assert_false(a.has_sync);
	assert_false(a.has_evict_ms);
	assert_false(a.has_optim);
	assert_int_equal(a.hp_mask, 0);
	assert_null(a.token_file);
}

static void rw_test_parse_add_full(void **state)
{
	char *argv[] = {
		"a.B_c-9", "chunk-size", "1048576", "workers", "256",
		"sync", "adaptive", "2", "1024", "evict-ms", "0",
		"optim", "nesterov", "lr", "0.01", "momentum", "0.95",
		"weight-decay", "1e-4", "beta1", "0.5", "beta2", "0.75",
		"eps", "1e-8", "token-file", "/dev/null",
	};
	struct rwctl_job_add a;
	char msg[256] = "";

	(void)state;
	assert_int_equal(rwctl_job_parse_add(27, argv, &a, msg, sizeof(msg)), 0);
	assert_string_equal(a.name, "a.B_c-9");
	assert_int_equal(a.workers, 256);
	assert_true(a.has_chunk_size);
	assert_int_equal(a.chunk_size, 1048576);
	assert_true(a.has_sync);
	assert_int_equal(a.sync, RW_SYNC_ADAPTIVE);
	assert_int_equal(a.staleness_lo, 2);
	assert_int_equal(a.staleness_hi, 1024);
	assert_true(a.has_evict_ms);
	assert_int_equal(a.evict_ms, 0);
	assert_true(a.has_optim);
	assert_int_equal(a.optim, RW_OPTIM_NESTEROV);
	assert_int_equal(a.hp_mask, (1U << RWCTL_NR_HP) - 1);
	/* The exact binary32 strtof gives: what goes on the wire. */
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_LR]), rw_bits(0.01f));
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_MOMENTUM]), rw_bits(0.95f));
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_WEIGHT_DECAY]), rw_bits(1e-4f));
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_BETA1]), 0x3f000000);
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_BETA2]), 0x3f400000);
	assert_int_equal(rw_bits(a.hp[RWCTL_HP_EPS]), rw_bits(1e-8f));
	assert_string_equal(a.token_file, "/dev/null");
}

static void rw_test_parse_add_sync(void **state)
{
	char *bsp[] = { "j", "workers", "1", "sync", "bsp" };
	char *asp[] = { "j", "workers", "1", "sync", "asp" };
	char *ssp[] = { "j", "workers", "1", "sync", "ssp", "1024" };
	char *eq[] = { "j", "workers", "1", "sync", "adaptive", "5", "5" };
	struct rwctl_job_add a;
	char msg[256];

	(void)state;
	assert_int_equal(rwctl_job_parse_add(5, bsp, &a, msg, sizeof(msg)), 0);
	assert_int_equal(a.sync, RW_SYNC_BSP);
	assert_true(a.has_sync);
	assert_int_equal(rwctl_job_parse_add(5, asp, &a, msg, sizeof(msg)), 0);
	assert_int_equal(a.sync, RW_SYNC_ASP);
	assert_int_equal(rwctl_job_parse_add(6, ssp, &a, msg, sizeof(msg)), 0);
	assert_int_equal(a.sync, RW_SYNC_SSP);
	assert_int_equal(a.staleness, RW_JOB_MAX_STALENESS);
	assert_int_equal(rwctl_job_parse_add(7, eq, &a, msg, sizeof(msg)), 0);
	assert_int_equal(a.staleness_lo, 5);
	assert_int_equal(a.staleness_hi, 5);
}

/* Sizes: bytes or a binary unit in any case, up to 2^64 - 1; the default. */
static void rw_test_parse_max_memory(void **state)
{
	static const struct {
		const char *arg;
		uint64_t bytes;
	} good[] = {
		{ "default", 0 },
		{ "0", 0 },
		{ "0G", 0 },
		{ "1", 1 },
		{ "4097", 4097 },
		{ "100B", 100 },
		{ "100b", 100 },
		{ "1k", 1024 },
		{ "1K", 1024 },
		{ "8KiB", 8192 },
		{ "8kib", 8192 },
		{ "512M", 512ULL << 20 },
		{ "512MiB", 512ULL << 20 },
		{ "512mIb", 512ULL << 20 },
		{ "2g", 2ULL << 30 },
		{ "2GiB", 2ULL << 30 },
		{ "1536M", 1536ULL << 20 },
		{ "3T", 3ULL << 40 },
		{ "3tib", 3ULL << 40 },
		{ "007G", 7ULL << 30 },
		{ "16777215T", 16777215ULL << 40 },
		{ "17179869183G", 17179869183ULL << 30 },
		{ "18446744073709551615", UINT64_MAX },
	};
	char *argv[] = { "j", "workers", "1", "max-memory", NULL };
	struct rwctl_job_add a;
	uint64_t v;
	char msg[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		argv[4] = (char *)good[i].arg;
		msg[0] = '\0';
		if (rwctl_job_parse_add(5, argv, &a, msg, sizeof(msg)))
			fail_msg("max-memory %s: %s", good[i].arg, msg);
		assert_true(a.has_max_memory);
		if (a.max_memory != good[i].bytes)
			fail_msg("max-memory %s: %" PRIu64 " bytes, want %" PRIu64,
				 good[i].arg, a.max_memory, good[i].bytes);
	}

	/* Not given: not sent, the module's default. */
	assert_int_equal(rwctl_job_parse_add(3, argv, &a, msg, sizeof(msg)), 0);
	assert_false(a.has_max_memory);

	/* The parser alone: not a size, or past 64 bits. */
	assert_int_equal(rwctl_parse_size("size", "1KB", &v, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "size '1KB' is not a size: bytes, or a whole number with K, M, G or T (KiB, MiB, GiB, TiB)");
	assert_int_equal(rwctl_parse_size("size", "default", &v, msg,
					  sizeof(msg)), -EINVAL);
	assert_int_equal(rwctl_parse_size("size", "16384P", &v, msg,
					  sizeof(msg)), -EINVAL);
	assert_int_equal(rwctl_parse_size("size", "16777216t", &v, msg,
					  sizeof(msg)), -ERANGE);
	assert_string_equal(msg, "size '16777216t' is too large (a size must be below 16 EiB)");
	assert_int_equal(rwctl_parse_size("size", "17179869184g", &v, msg,
					  sizeof(msg)), -ERANGE);
	assert_int_equal(rwctl_parse_size("size", "18014398509481984K", &v,
					  msg, sizeof(msg)), -ERANGE);
	assert_int_equal(rwctl_parse_size("size", "18014398509481983K", &v,
					  msg, sizeof(msg)), 0);
	assert_true(v == UINT64_MAX - 1023);
}

/* The longest name fits; every bad "job add" is exit 2 with a reason. */
static void rw_test_add_usage_errors(void **state)
{
	static const struct {
		const char *args[12];
		const char *why;
	} bad[] = {
		{ { NULL }, "needs a NAME" },
		{ { "j", NULL }, "needs 'workers N'" },
		{ { "j", "chunk-size", "4096", NULL }, "needs 'workers N'" },
		{ { "", "workers", "1", NULL }, "job name is empty" },
		{ { "abcdefghijabcdefghijabcdefghij12", "workers", "1", NULL },
		  "too long (32 bytes; at most 31)" },
		{ { "a b", "workers", "1", NULL }, "invalid character at byte 2" },
		{ { "a/b", "workers", "1", NULL }, "invalid character" },
		{ { "caf\xc3\xa9", "workers", "1", NULL }, "invalid character" },
		{ { "j", "workers", NULL }, "'workers' needs a value" },
		{ { "j", "workers", "0", NULL }, "workers '0' is out of range (1..256)" },
		{ { "j", "workers", "257", NULL }, "out of range (1..256)" },
		{ { "j", "workers", "-1", NULL }, "workers '-1' is not a number" },
		{ { "j", "workers", "4x", NULL }, "not a number" },
		{ { "j", "workers", "", NULL }, "not a number" },
		{ { "j", "workers", "99999999999999999999999", NULL }, "out of range" },
		{ { "j", "workers", "1", "workers", "2", NULL }, "'workers' given twice" },
		{ { "j", "workers", "1", "chunk-size", "4095", NULL },
		  "chunk-size '4095' is out of range (4096..1048576)" },
		{ { "j", "workers", "1", "chunk-size", "2097152", NULL }, "out of range" },
		{ { "j", "workers", "1", "chunk-size", "12288", NULL },
		  "chunk-size 12288 is not a power of two" },
		{ { "j", "workers", "1", "sync", NULL }, "'sync' needs a value" },
		{ { "j", "workers", "1", "sync", "bogus", NULL }, "unknown sync mode 'bogus'" },
		{ { "j", "workers", "1", "sync", "ssp", NULL }, "needs the staleness bound S" },
		{ { "j", "workers", "1", "sync", "ssp", "0", NULL },
		  "staleness '0' is out of range (1..1024)" },
		{ { "j", "workers", "1", "sync", "ssp", "1025", NULL }, "out of range" },
		{ { "j", "workers", "1", "sync", "adaptive", "3", NULL },
		  "needs the staleness band LO HI" },
		{ { "j", "workers", "1", "sync", "adaptive", "0", "4", NULL },
		  "staleness LO '0' is out of range" },
		{ { "j", "workers", "1", "sync", "adaptive", "1", "2000", NULL },
		  "staleness HI '2000' is out of range" },
		{ { "j", "workers", "1", "sync", "adaptive", "5", "4", NULL },
		  "LO must not exceed HI" },
		{ { "j", "workers", "1", "sync", "bsp", "sync", "asp", NULL },
		  "'sync' given twice" },
		{ { "j", "workers", "1", "evict-ms", "-5", NULL }, "not a number" },
		{ { "j", "workers", "1", "evict-ms", "4294967296", NULL }, "out of range" },
		{ { "j", "workers", "1", "optim", "rmsprop", NULL }, "unknown optimizer 'rmsprop'" },
		{ { "j", "workers", "1", "optim", "none", NULL },
		  "unknown optimizer 'none' (sgd, momentum, nesterov, adam, average)" },
		{ { "j", "workers", "1", "lr", NULL }, "'lr' needs a value" },
		{ { "j", "workers", "1", "lr", "fast", NULL }, "lr 'fast' is not a number" },
		{ { "j", "workers", "1", "lr", "0.1x", NULL }, "not a number" },
		{ { "j", "workers", "1", "eps", "nan", NULL }, "not a finite" },
		{ { "j", "workers", "1", "beta1", "inf", NULL }, "not a finite" },
		{ { "j", "workers", "1", "beta2", "1e39", NULL }, "not a finite" },
		{ { "j", "workers", "1", "momentum", "0.9", "momentum", "0.8", NULL },
		  "'momentum' given twice" },
		{ { "j", "workers", "1", "weight-decay", "", NULL }, "not a number" },
		{ { "j", "workers", "1", "token-file", "", NULL }, "needs a path" },
		{ { "j", "workers", "1", "max-memory", NULL }, "'max-memory' needs a value" },
		{ { "j", "workers", "1", "max-memory", "4GB", NULL },
		  "max-memory '4GB' is not a size: bytes, or a whole number with K, M, G or T (KiB, MiB, GiB, TiB); or 'default'" },
		{ { "j", "workers", "1", "max-memory", "1.5G", NULL }, "max-memory '1.5G' is not a size" },
		{ { "j", "workers", "1", "max-memory", "-1", NULL }, "max-memory '-1' is not a size" },
		{ { "j", "workers", "1", "max-memory", "+1", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", " 1", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", "1 G", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", "G", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", "", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", "0x10", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", "1Gi", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", "2P", NULL }, "not a size" },
		{ { "j", "workers", "1", "max-memory", "none", NULL }, "max-memory 'none' is not a size" },
		{ { "j", "workers", "1", "max-memory", "16777216T", NULL },
		  "max-memory '16777216T' is too large (a size must be below 16 EiB)" },
		{ { "j", "workers", "1", "max-memory", "18446744073709551616", NULL },
		  "too large" },
		{ { "j", "workers", "1", "max-memory", "99999999999999999999999k", NULL },
		  "too large" },
		{ { "j", "workers", "1", "max-memory", "1G", "max-memory", "2G", NULL },
		  "'max-memory' given twice" },
		{ { "j", "workers", "1", "bogus", NULL }, "unknown argument 'bogus' to 'job add'" },
		{ { "j", "workers", "1", "-j", NULL }, "options go before OBJECT" },
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
		rw_assert_usage(bad[i].why);
	}

	RUN("job", "add", "abcdefghijabcdefghijabcdefghij1", "workers", "1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_be.last_add.name, "abcdefghijabcdefghijabcdefghij1");
}

static void rw_test_del_and_show_usage(void **state)
{
	(void)state;
	RUN("job", "del");
	rw_assert_usage("'job del' needs a NAME");
	RUN("job", "del", "j", "now");
	rw_assert_usage("unknown argument 'now' to 'job del' (only 'force')");
	RUN("job", "del", "j", "force", "x");
	rw_assert_usage("unexpected argument 'x'");
	RUN("job", "del", "a:b");
	rw_assert_usage("invalid character");
	RUN("job", "show", "a b");
	rw_assert_usage("invalid character");
	RUN("job", "show", "a", "b");
	rw_assert_usage("unexpected argument 'b'");
	RUN("job", "bogus");
	rw_assert_usage("unknown command 'bogus' for object 'job'");
}

static void rw_test_help(void **state)
{
	(void)state;
	RUN("job", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "Usage: rwctl [OPTIONS] job {"));
	assert_non_null(strstr(rw_last.out, "adaptive LO HI"));
	assert_non_null(strstr(rw_last.out, "token-file PATH"));
	assert_non_null(strstr(rw_last.out, "[ max-memory { SIZE | default } ]"));
	assert_non_null(strstr(rw_last.out, "half the box's\n              budget (max_memory)"));
	RUN("job", "add", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "job add NAME workers N"));
	RUN("help", "job");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	RUN("help");
	assert_non_null(strstr(rw_last.out,
			       "{ status | dev | listen | job | policy | topo | stats | monitor }"));
	assert_int_equal(rw_be.add_calls + rw_be.get_calls, 0);
}

/* ---- commands against the scripted backend ---- */

/* Averaging mode: the word, what is sent, and the job shown back. */
static void rw_test_add_average(void **state)
{
	char *argv[] = { "ddp", "workers", "4", "optim", "average" };
	struct rwctl_job_add a;
	char msg[256] = "";

	(void)state;
	assert_int_equal(rwctl_job_parse_add(5, argv, &a, msg, sizeof(msg)), 0);
	assert_true(a.has_optim);
	assert_int_equal(a.optim, RW_OPTIM_AVERAGE);
	assert_int_equal(a.hp_mask, 0);

	RUN("job", "add", "ddp", "workers", "4", "optim", "average");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_be.add_calls, 1);
	assert_true(rw_be.last_add.has_optim);
	assert_int_equal(rw_be.last_add.optim, RW_OPTIM_AVERAGE);
	assert_string_equal(rw_last.out,
		"job ddp id 9\n"
		"    workers 4 (0 attached)  chunk-size 32768  evict-ms 5000\n"
		"    sync ssp staleness 3\n"
		"    optim average\n");	/* it reads no hyper-parameter */

	RUN("-j", "job", "add", "ddp", "workers", "4", "optim", "average");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"staleness\":3,\"optim\":\"average\""));
	assert_null(strstr(rw_last.out, "\"lr\""));
}

/* max-memory reaches the backend and comes back in the job shown. */
static void rw_test_add_max_memory(void **state)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	struct rwctl_job_add a;
	struct nl_msg *m;
	char *argv[] = { "big", "workers", "2", "max-memory", "1536M" };
	char msg[256];

	(void)state;
	rw_be.reply_memory = true;
	RUN("job", "add", "big", "workers", "2", "max-memory", "1536M");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_true(rw_be.last_add.has_max_memory);
	assert_true(rw_be.last_add.max_memory == 1536ULL << 20);
	assert_string_equal(rw_last.out,
		"job big id 9\n"
		"    workers 4 (0 attached)  chunk-size 32768  evict-ms 5000\n"
		"    sync ssp staleness 3\n"
		"    optim adam  lr 0.001 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08\n"
		"    memory 0 B of 1.50 GiB (max-memory 1536 MiB)\n");

	RUN("-j", "job", "add", "big", "workers", "2", "max-memory", "default");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_true(rw_be.last_add.has_max_memory);
	assert_true(rw_be.last_add.max_memory == 0);
	assert_non_null(strstr(rw_last.out,
			       "\"eps\":1e-08,\"max_memory\":0,\"memory_limit\":536870912,\"memory\":0}]}"));

	/* On the wire: a u64, and nothing when not given. */
	assert_int_equal(rwctl_job_parse_add(5, argv, &a, msg, sizeof(msg)), 0);
	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_JOB_NEW);
	assert_int_equal(rwctl_job_put_settings(m, &a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
	assert_non_null(tb[RW_JOB_A_MAX_MEMORY]);
	assert_int_equal(nla_len(tb[RW_JOB_A_MAX_MEMORY]), 8);
	assert_true(nla_get_u64(tb[RW_JOB_A_MAX_MEMORY]) == 1536ULL << 20);
	assert_null(tb[RW_JOB_A_MEMORY_LIMIT]);
	assert_null(tb[RW_JOB_A_MEMORY]);
	nlmsg_free(m);

	assert_int_equal(rwctl_job_parse_add(3, argv, &a, msg, sizeof(msg)), 0);
	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_JOB_NEW);
	assert_int_equal(rwctl_job_put_settings(m, &a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
	assert_null(tb[RW_JOB_A_MAX_MEMORY]);
	nlmsg_free(m);

	/* "default" is sent, as 0. */
	argv[4] = "default";
	assert_int_equal(rwctl_job_parse_add(5, argv, &a, msg, sizeof(msg)), 0);
	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_JOB_NEW);
	assert_int_equal(rwctl_job_put_settings(m, &a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
	assert_non_null(tb[RW_JOB_A_MAX_MEMORY]);
	assert_true(nla_get_u64(tb[RW_JOB_A_MAX_MEMORY]) == 0);
	nlmsg_free(m);
}

/*
 * A module older than memory limits parses strictly: it refuses the
 * attribute it does not know, and rwctl says what to do.
 */
static void rw_test_add_old_module(void **state)
{
	(void)state;
	rw_be.kernel = true;
	rw_be.add_err = -EINVAL;
	rw_be.extack = "Unknown attribute type";
	RUN("job", "add", "j", "workers", "2", "max-memory", "1G");
	rw_assert_error("rwctl: job add: the loaded rackweave module has no memory limits (max-memory); load the module of rwctl's release (" RW_VERSION_STRING "), or leave max-memory out\n");
	RUN("job", "add", "j", "workers", "2", "quorum", "1");
	rw_assert_error("rwctl: job add: the loaded rackweave module does not know a setting given; load the module of rwctl's release (" RW_VERSION_STRING ")\n");
	/* Another EINVAL keeps the module's words. */
	rw_be.extack = "chunk size not supported";
	RUN("job", "add", "j", "workers", "2", "max-memory", "1G");
	rw_assert_error("rwctl: job add: Invalid argument: chunk size not supported\n");
}

static void rw_test_add_ok_token(void **state)
{
	char *tok = NULL;

	(void)state;
	rw_be.reply_token = true;
	RUN("job", "add", "t1", "workers", "4", "sync", "ssp", "3",
	    "optim", "adam", "lr", "0.001");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_be.add_calls, 1);
	assert_int_equal(rw_be.last_add.sync, RW_SYNC_SSP);
	assert_int_equal(rw_be.last_add.staleness, 3);
	assert_false(rw_be.last_add.has_token);
	assert_non_null(strstr(rw_last.out, "job t1 id 9\n"));
	tok = strstr(rw_last.out, "token: ");
	assert_non_null(tok);
	assert_non_null(strstr(tok, "token: 0112233445566778899aabbccddeef0"
				    "0112233445566778899aabbccddeeff10"
				    " (shown once; store it now)\n"));

	RUN("-j", "job", "add", "t1", "workers", "4");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out,
			       "\"token\":\"0112233445566778899aabbccddeef0"
			       "0112233445566778899aabbccddeeff10\"}]}"));

	/* Without a generated token there is no token line. */
	rw_be.reply_token = false;
	RUN("job", "add", "t1", "workers", "4");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_null(strstr(rw_last.out, "token"));
}

static void rw_test_kernel_errors(void **state)
{
	static const struct {
		int err;
		const char *want;
	} cases[] = {
		{ -EEXIST, "rwctl: job add: a job named 'dup' already exists\n" },
		{ -EPERM, "rwctl: job add: needs CAP_NET_ADMIN (run as root)\n" },
		{ -ENOSPC, "rwctl: job add: the box serves its maximum number of jobs (max_jobs)\n" },
		{ -EINVAL, "rwctl: job add: Invalid argument\n" },
	};
	size_t i;

	(void)state;
	rw_be.kernel = true;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rw_be.add_err = cases[i].err;
		RUN("job", "add", "dup", "workers", "2");
		rw_assert_error(cases[i].want);
	}

	rw_be.add_err = -EINVAL;
	rw_be.extack = "chunk size not supported";
	RUN("job", "add", "dup", "workers", "2");
	rw_assert_error("rwctl: job add: Invalid argument: chunk size not supported\n");

	rw_be.extack = NULL;
	rw_be.del_err = -EBUSY;
	RUN("job", "del", "busy");
	rw_assert_error("rwctl: job del: workers are attached to job 'busy'; use 'force' to detach them\n");
	assert_false(rw_be.last_force);
	rw_be.del_err = -ENOENT;
	RUN("job", "delete", "gone", "force");
	rw_assert_error("rwctl: job del: no job named 'gone'\n");
	assert_true(rw_be.last_force);

	rw_be.get_err[0] = -ENOENT;
	RUN("job", "show", "gone");
	rw_assert_error("rwctl: job show: no job named 'gone'\n");
}

static void rw_test_not_loaded(void **state)
{
	static const char *nl = "rackweave module not loaded (generic netlink family 'rackweave' not found); load it with: modprobe rackweave";

	(void)state;
	rw_be.kernel = false;
	rw_be.msg = nl;
	rw_be.get_err[0] = -ENOENT;
	RUN("job");
	rw_assert_error(nl);
	/* Not the module's ENOENT: no "no job named". */
	assert_null(strstr(rw_last.err, "no job named"));
	rw_be.add_err = -ENOENT;
	RUN("job", "add", "x", "workers", "1");
	rw_assert_error(nl);
}

static void rw_test_del_ok(void **state)
{
	(void)state;
	RUN("job", "del", "old");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_be.last_del, "old");
	assert_false(rw_be.last_force);
	RUN("job", "del", "old", "force");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_true(rw_be.last_force);
}

static void rw_test_show_dump(void **state)
{
	(void)state;
	RUN("-j", "job", "list");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_true(rw_be.last_get_dump);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "{\"jobs\":[{\"name\":\"alpha\""));
	assert_non_null(strstr(rw_last.out, "{\"name\":\"beta\",\"id\":2"));

	RUN("job", "show", "alpha");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_false(rw_be.last_get_dump);
}

static void rw_test_dump_intr(void **state)
{
	(void)state;
	rw_be.get_err[0] = -EAGAIN;
	RUN("-j", "job", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.get_calls, 2);
	/* The retry's list only, not the interrupted one's leftovers too. */
	assert_non_null(strstr(rw_last.out, "\"beta\""));
	assert_null(strstr(strstr(rw_last.out, "\"alpha\"") + 1, "\"alpha\""));

	rw_setup(NULL);
	rw_be.get_err[0] = -EAGAIN;
	rw_be.get_err[1] = -EAGAIN;
	RUN("job", "show");
	rw_assert_error("the job list changed while it was read, twice in a row");
	assert_int_equal(rw_be.get_calls, 2);
}

/* ---- token files ---- */

static char *rw_token_file(size_t len)
{
	char tmpl[] = "/tmp/rwctl-token-XXXXXX";
	char buf[64];
	size_t i;
	int fd;

	assert_true(len <= sizeof(buf));
	for (i = 0; i < len; i++)
		buf[i] = (char)(0xf0 + (i & 0xf));
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	return strdup(tmpl);
}

static void rw_test_token_file(void **state)
{
	uint8_t token[RW_JOB_TOKEN_LEN];
	static const size_t sizes[] = { 0, 31, 33, 64 };
	char msg[512], want[96];
	char *path;
	size_t i;
	int fd;

	(void)state;
	path = rw_token_file(RW_JOB_TOKEN_LEN);
	assert_int_equal(rwctl_job_read_token(path, token, msg, sizeof(msg)), 0);
	assert_int_equal(token[0], 0xf0);
	assert_int_equal(token[31], 0xff);
	RUN("job", "add", "tk", "workers", "1", "token-file", path);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_true(rw_be.last_add.has_token);
	assert_int_equal(rw_be.last_add.token[17], 0xf1);
	unlink(path);
	free(path);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		path = rw_token_file(sizes[i]);
		assert_int_equal(rwctl_job_read_token(path, token, msg,
						      sizeof(msg)), -EINVAL);
		snprintf(want, sizeof(want),
			 "holds %zu bytes; a token is exactly 32 raw bytes, or 64 hex digits",
			 sizes[i]);
		if (!strstr(msg, want))
			fail_msg("size %zu: %s", sizes[i], msg);
		rw_setup(NULL);
		RUN("job", "add", "tk", "workers", "1", "token-file", path);
		rw_assert_error(want);
		assert_int_equal(rw_be.add_calls, 0);
		unlink(path);
		free(path);
	}

	assert_int_equal(rwctl_job_read_token("/nonexistent/rw-token", token,
					      msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "cannot open token file '/nonexistent/rw-token'"));
	RUN("job", "add", "tk", "workers", "1", "token-file", "/nonexistent/rw-token");
	rw_assert_error("No such file or directory");

	/* The 64 hex digits rwctl prints for a generated token, as trainers take. */
	path = rw_token_file(0);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	for (i = 0; i < RW_JOB_TOKEN_LEN; i++)
		assert_int_equal(dprintf(fd, "%02x", (unsigned int)(0xa0 + i)), 2);
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	rw_setup(NULL);
	RUN("job", "add", "tk", "workers", "1", "token-file", path);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_true(rw_be.last_add.has_token);
	assert_int_equal(rw_be.last_add.token[0], 0xa0);
	assert_int_equal(rw_be.last_add.token[31], 0xbf);
	unlink(path);
	free(path);
}

/* ---- the reply parser ---- */

struct rw_fx {
	struct nl_msg *msg;
	struct rwctl_job job;
	char why[256];
};

static int rw_msg_setup(void **state)
{
	struct rw_fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->msg = nlmsg_alloc();
	assert_non_null(fx->msg);
	assert_non_null(genlmsg_put(fx->msg, NL_AUTO_PORT, NL_AUTO_SEQ,
				    RW_TEST_FAMILY, 0, 0, RW_CMD_JOB_GET,
				    RW_GENL_VERSION));
	*state = fx;
	return 0;
}

static int rw_msg_teardown(void **state)
{
	struct rw_fx *fx = *state;

	nlmsg_free(fx->msg);
	free(fx);
	return 0;
}

/* A fresh message for the next case of a test. */
static void rw_reset(struct rw_fx *fx)
{
	nlmsg_free(fx->msg);
	fx->msg = nlmsg_alloc();
	assert_non_null(fx->msg);
	assert_non_null(genlmsg_put(fx->msg, NL_AUTO_PORT, NL_AUTO_SEQ,
				    RW_TEST_FAMILY, 0, 0, RW_CMD_JOB_GET,
				    RW_GENL_VERSION));
}

static int rw_parse(struct rw_fx *fx)
{
	fx->why[0] = '\0';
	return rwctl_genl_parse_job(nlmsg_hdr(fx->msg), &fx->job, fx->why,
				    sizeof(fx->why));
}

static void rw_assert_malformed(struct rw_fx *fx)
{
	rw_assert_malformed_why(rw_parse(fx), fx->why, "malformed job reply",
				NULL);
}

#define SKIP(a)	(1U << (a))

/* A job as the module sends it; attributes in @skip are left out. */
static void rw_put_job(struct nl_msg *m, uint32_t sync, unsigned int skip)
{
#define PUT32(a, v)	rw_test_put_u32(m, skip, a, v)
	if (!(skip & SKIP(RW_JOB_A_NAME)))
		assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, "train1"), 0);
	PUT32(RW_JOB_A_ID, 7);
	PUT32(RW_JOB_A_WORKERS, 8);
	PUT32(RW_JOB_A_CHUNK_SIZE, 65536);
	PUT32(RW_JOB_A_SYNC, sync);
	if (sync == RW_SYNC_SSP)
		PUT32(RW_JOB_A_STALENESS, 4);
	if (sync == RW_SYNC_ADAPTIVE) {
		PUT32(RW_JOB_A_STALENESS_LO, 2);
		PUT32(RW_JOB_A_STALENESS_HI, 9);
	}
	PUT32(RW_JOB_A_EVICT_MS, 3000);
	PUT32(RW_JOB_A_OPTIM, RW_OPTIM_MOMENTUM);
	PUT32(RW_JOB_A_LR, rw_bits(0.01f));
	PUT32(RW_JOB_A_MOMENTUM, rw_bits(0.9f));
	PUT32(RW_JOB_A_WEIGHT_DECAY, rw_bits(0.0f));
	PUT32(RW_JOB_A_BETA1, rw_bits(0.9f));
	PUT32(RW_JOB_A_BETA2, rw_bits(0.999f));
	PUT32(RW_JOB_A_EPS, rw_bits(1e-8f));
	PUT32(RW_JOB_A_ATTACHED, 3);
#undef PUT32
}

static void rw_test_parse_reply(void **state)
{
	struct rw_fx *fx = *state;

	rw_put_job(fx->msg, RW_SYNC_ADAPTIVE, 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->job.name, "train1");
	assert_int_equal(fx->job.id, 7);
	assert_int_equal(fx->job.workers, 8);
	assert_int_equal(fx->job.chunk_size, 65536);
	assert_int_equal(fx->job.sync, RW_SYNC_ADAPTIVE);
	assert_int_equal(fx->job.staleness_lo, 2);
	assert_int_equal(fx->job.staleness_hi, 9);
	assert_int_equal(fx->job.evict_ms, 3000);
	assert_int_equal(fx->job.optim, RW_OPTIM_MOMENTUM);
	assert_int_equal(fx->job.attached, 3);
	assert_int_equal(fx->job.hp_mask, (1U << RWCTL_NR_HP) - 1);
	assert_int_equal(rw_bits(fx->job.hp[RWCTL_HP_LR]), rw_bits(0.01f));
	assert_int_equal(rw_bits(fx->job.hp[RWCTL_HP_BETA2]), rw_bits(0.999f));
	assert_int_equal(rw_bits(fx->job.hp[RWCTL_HP_EPS]), rw_bits(1e-8f));
	assert_false(fx->job.has_token);
}

static void rw_test_parse_token(void **state)
{
	struct rw_fx *fx = *state;
	uint8_t tok[RW_JOB_TOKEN_LEN];
	char hex[2 * RW_JOB_TOKEN_LEN + 1];
	size_t i;

	for (i = 0; i < sizeof(tok); i++)
		tok[i] = (uint8_t)(0xa0 + i);
	rw_put_job(fx->msg, RW_SYNC_SSP, 0);
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_TOKEN, sizeof(tok), tok), 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->job.has_token);
	assert_memory_equal(fx->job.token, tok, sizeof(tok));
	assert_int_equal(fx->job.staleness, 4);
	rwctl_job_format_token(hex, fx->job.token);
	assert_string_equal(hex, "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
				 "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf");
}

static void rw_test_parse_token_length(void **state)
{
	struct rw_fx *fx = *state;
	uint8_t tok[RW_JOB_TOKEN_LEN + 1] = { 0 };

	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_TOKEN, RW_JOB_TOKEN_LEN - 1, tok), 0);
	rw_assert_malformed(fx);

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_TOKEN, RW_JOB_TOKEN_LEN + 1, tok), 0);
	rw_assert_malformed(fx);
}

/* A running job's layout: whole, or the reply is malformed. */
static void rw_test_parse_run(void **state)
{
	struct rw_fx *fx = *state;

	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_false(fx->job.has_run);

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_MAPPINGS, 5), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_TENSORS, 2), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_CHUNKS, 3), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_JOB_A_MODEL_BYTES, 1ULL << 33), 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->job.has_run);
	assert_int_equal(fx->job.mappings, 5);
	assert_int_equal(fx->job.tensors, 2);
	assert_int_equal(fx->job.chunks, 3);
	assert_true(fx->job.model_bytes == 1ULL << 33);

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_TENSORS, 2), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_CHUNKS, 3), 0);
	rw_assert_malformed(fx);

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_TENSORS, 2), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_CHUNKS, 3), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_MODEL_BYTES, 7), 0);
	rw_assert_malformed(fx);
}

/*
 * The memory figures as the module puts them (u64, each after a pad
 * attribute that aligns it): all three or none, eight bytes each.
 */
enum { RW_MEM_SETTING = 1, RW_MEM_LIMIT = 2, RW_MEM_HELD = 4, RW_MEM_ALL = 7 };

static void rw_put_memory(struct nl_msg *m, unsigned int which,
			  uint64_t setting, uint64_t limit, uint64_t held)
{
	if (which & RW_MEM_SETTING) {
		assert_int_equal(nla_put(m, RW_JOB_A_UNSPEC, 0, NULL), 0);
		assert_int_equal(nla_put_u64(m, RW_JOB_A_MAX_MEMORY, setting), 0);
	}
	if (which & RW_MEM_LIMIT) {
		assert_int_equal(nla_put(m, RW_JOB_A_UNSPEC, 0, NULL), 0);
		assert_int_equal(nla_put_u64(m, RW_JOB_A_MEMORY_LIMIT, limit), 0);
	}
	if (which & RW_MEM_HELD) {
		assert_int_equal(nla_put(m, RW_JOB_A_UNSPEC, 0, NULL), 0);
		assert_int_equal(nla_put_u64(m, RW_JOB_A_MEMORY, held), 0);
	}
}

static void rw_test_parse_memory(void **state)
{
	struct rw_fx *fx = *state;
	static const unsigned int partial[] = {
		RW_MEM_SETTING, RW_MEM_LIMIT, RW_MEM_HELD,
		RW_MEM_SETTING | RW_MEM_LIMIT, RW_MEM_LIMIT | RW_MEM_HELD,
	};
	uint32_t v4 = 1;
	size_t i;

	/* A module older than memory limits: none, and nothing shown. */
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_false(fx->job.has_memory);

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	rw_put_memory(fx->msg, RW_MEM_ALL, 0, 6ULL << 30, 12897485);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->job.has_memory);
	assert_true(fx->job.max_memory == 0);
	assert_true(fx->job.memory_limit == 6ULL << 30);
	assert_true(fx->job.memory == 12897485);

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	rw_put_memory(fx->msg, RW_MEM_ALL, UINT64_MAX, UINT64_MAX, 1ULL << 62);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->job.max_memory == UINT64_MAX);
	assert_true(fx->job.memory == 1ULL << 62);

	for (i = 0; i < sizeof(partial) / sizeof(partial[0]); i++) {
		rw_reset(fx);
		rw_put_job(fx->msg, RW_SYNC_BSP, 0);
		rw_put_memory(fx->msg, partial[i], 1, 2, 3);
		rw_assert_malformed_why(rw_parse(fx), fx->why,
					"malformed job reply",
					"job 'train1' with part of its memory figures");
	}

	/* A u32 where a u64 belongs. */
	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	rw_put_memory(fx->msg, RW_MEM_SETTING | RW_MEM_LIMIT, 1, 2, 3);
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_MEMORY, sizeof(v4), &v4), 0);
	rw_assert_malformed(fx);
}

static void rw_test_parse_int_lengths(void **state)
{
	struct rw_fx *fx = *state;
	uint64_t v8 = 4;
	uint16_t v2 = 4;

	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_WORKERS));
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_WORKERS, sizeof(v8), &v8), 0);
	rw_assert_malformed(fx);

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_LR));
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_LR, sizeof(v2), &v2), 0);
	rw_assert_malformed(fx);
}

static void rw_test_parse_names(void **state)
{
	struct rw_fx *fx = *state;
	char name[RW_JOB_NAME_MAX + 1];

	/* Unterminated. */
	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_NAME));
	assert_int_equal(nla_put(fx->msg, RW_JOB_A_NAME, 3, "abc"), 0);
	rw_assert_malformed(fx);

	/* 32 characters: one too many. */
	rw_reset(fx);
	memset(name, 'n', sizeof(name));
	name[RW_JOB_NAME_MAX] = '\0';
	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_NAME));
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, name), 0);
	rw_assert_malformed(fx);

	/* 31 fit. */
	rw_reset(fx);
	name[RW_JOB_NAME_MAX - 1] = '\0';
	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_NAME));
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, name), 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->job.name, name);

	/* Empty. */
	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_NAME));
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_NAME, ""), 0);
	rw_assert_malformed(fx);
}

static void rw_test_parse_missing(void **state)
{
	static const int attrs[] = {
		RW_JOB_A_NAME, RW_JOB_A_ID, RW_JOB_A_WORKERS,
		RW_JOB_A_CHUNK_SIZE, RW_JOB_A_SYNC, RW_JOB_A_EVICT_MS,
		RW_JOB_A_OPTIM, RW_JOB_A_ATTACHED,
	};
	struct rw_fx *fx = *state;
	size_t i;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		rw_reset(fx);
		rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(attrs[i]));
		rw_assert_malformed(fx);
	}
	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_SSP, SKIP(RW_JOB_A_STALENESS));
	rw_assert_malformed(fx);
	assert_non_null(strstr(fx->why, "staleness bound"));

	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_ADAPTIVE, SKIP(RW_JOB_A_STALENESS_HI));
	rw_assert_malformed(fx);
	assert_non_null(strstr(fx->why, "staleness band"));

	/* Hyper-parameters are optional: only what is reported is shown. */
	rw_reset(fx);
	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_BETA1) | SKIP(RW_JOB_A_EPS));
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->job.hp_mask, ((1U << RWCTL_NR_HP) - 1) &
			 ~(1U << RWCTL_HP_BETA1) & ~(1U << RWCTL_HP_EPS));
}

static void rw_test_parse_newer(void **state)
{
	struct rw_fx *fx = *state;

	rw_put_job(fx->msg, RW_SYNC_BSP, 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_JOB_A_MAX + 1, 1), 0);
	assert_int_equal(nla_put_string(fx->msg, RW_JOB_A_MAX + 5, "future"), 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->job.name, "train1");
}

/* ---- printing ---- */

static char *rw_render(const struct rwctl_job *jobs, size_t nr,
		       unsigned int flags)
{
	struct rwctl_printer p;
	struct rw_capture c;
	char *out;

	rw_render_begin(&c, &p, flags);
	rwctl_job_print(&p, jobs, nr);
	out = rw_render_end(&c, &p);
	return out;
}

static void rw_test_print_text(void **state)
{
	struct rwctl_job j[2];
	char *out;

	(void)state;
	rw_fill_job(&j[0], "train1", 3);
	rw_fill_job(&j[1], "tune", 4);
	j[1].sync = RW_SYNC_ADAPTIVE;
	j[1].staleness_lo = 2;
	j[1].staleness_hi = 8;
	j[1].evict_ms = 0;
	j[1].optim = RW_OPTIM_SGD;
	j[1].hp_mask = 1U << RWCTL_HP_LR;
	j[1].hp[RWCTL_HP_LR] = 0.01f;
	out = rw_render(j, 2, 0);
	assert_string_equal(out,
		"job train1 id 3\n"
		"    workers 4 (2 attached)  chunk-size 32768  evict-ms 5000\n"
		"    sync ssp staleness 3\n"
		"    optim adam  lr 0.001 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08\n"
		"job tune id 4\n"
		"    workers 4 (2 attached)  chunk-size 32768  evict-ms 0 (never)\n"
		"    sync adaptive staleness 2..8\n"
		"    optim sgd  lr 0.01\n");
	free(out);

	out = rw_render(j, 0, 0);
	assert_string_equal(out, "");
	free(out);
}

static void rw_test_print_json(void **state)
{
	struct rwctl_job j[2];
	char *out;

	(void)state;
	rw_fill_job(&j[0], "train1", 3);
	rw_fill_job(&j[1], "b", 4);
	j[1].sync = RW_SYNC_ADAPTIVE;
	j[1].staleness_lo = 2;
	j[1].staleness_hi = 8;
	j[1].optim = RW_OPTIM_MOMENTUM;
	j[1].hp_mask = 1U << RWCTL_HP_LR | 1U << RWCTL_HP_MOMENTUM;
	j[1].hp[RWCTL_HP_LR] = 0.1f;
	j[1].hp[RWCTL_HP_MOMENTUM] = 0.9f;
	out = rw_render(j, 2, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_string_equal(out,
		"{\"jobs\":[{\"name\":\"train1\",\"id\":3,\"workers\":4,"
		"\"attached\":2,\"chunk_size\":32768,\"evict_ms\":5000,"
		"\"sync\":\"ssp\",\"staleness\":3,\"optim\":\"adam\","
		"\"lr\":0.001,\"weight_decay\":0,\"beta1\":0.9,\"beta2\":0.999,"
		"\"eps\":1e-08},"
		"{\"name\":\"b\",\"id\":4,\"workers\":4,\"attached\":2,"
		"\"chunk_size\":32768,\"evict_ms\":5000,\"sync\":\"adaptive\","
		"\"staleness_lo\":2,\"staleness_hi\":8,\"optim\":\"momentum\","
		"\"lr\":0.1,\"momentum\":0.9}]}\n");
	free(out);

	out = rw_render(j, 2, RWCTL_PR_JSON | RWCTL_PR_PRETTY);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\n            \"staleness_lo\": 2,"));
	free(out);

	out = rw_render(j, 0, RWCTL_PR_JSON);
	assert_string_equal(out, "{\"jobs\":[]}\n");
	free(out);
}

/* The memory line: the charge, the limit in force and the setting. */
static void rw_test_print_memory(void **state)
{
	static const struct {
		uint64_t setting, limit, held;
		const char *text;
		const char *json;
	} cases[] = {
		{ 0, 512ULL << 20, 12897485,
		  "    memory 12.3 MiB of 512 MiB (max-memory default)\n",
		  "\"max_memory\":0,\"memory_limit\":536870912,\"memory\":12897485}" },
		{ 1ULL << 30, 1ULL << 30, 0,
		  "    memory 0 B of 1.00 GiB (max-memory 1 GiB)\n",
		  "\"max_memory\":1073741824,\"memory_limit\":1073741824,\"memory\":0}" },
		{ 1536ULL << 20, 1536ULL << 20, 1536ULL << 20,
		  "    memory 1.50 GiB of 1.50 GiB (max-memory 1536 MiB)\n",
		  "\"max_memory\":1610612736,\"memory_limit\":1610612736,\"memory\":1610612736}" },
		{ 4097, 4097, 4000,
		  "    memory 3.91 KiB of 4.00 KiB (max-memory 4097 B)\n",
		  "\"max_memory\":4097,\"memory_limit\":4097,\"memory\":4000}" },
		{ 3ULL << 40, 3ULL << 40, 1ULL << 40,
		  "    memory 1.00 TiB of 3.00 TiB (max-memory 3 TiB)\n",
		  "\"memory\":1099511627776}" },
		{ UINT64_MAX, UINT64_MAX, 0,
		  "(max-memory 18446744073709551615 B)\n",
		  "\"max_memory\":18446744073709551615," },
	};
	struct rwctl_job j;
	char *out;
	size_t i;

	(void)state;
	rw_fill_job(&j, "m", 1);
	j.has_memory = true;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		j.max_memory = cases[i].setting;
		j.memory_limit = cases[i].limit;
		j.memory = cases[i].held;
		out = rw_render(&j, 1, 0);
		if (!strstr(out, cases[i].text))
			fail_msg("case %zu: want %s in %s", i, cases[i].text, out);
		free(out);
		out = rw_render(&j, 1, RWCTL_PR_JSON);
		rw_assert_json(out);
		if (!strstr(out, cases[i].json))
			fail_msg("case %zu: want %s in %s", i, cases[i].json, out);
		free(out);
	}

	/* After the optimizer, before the run's layout and the token. */
	j.max_memory = 0;
	j.memory_limit = 512ULL << 20;
	j.memory = 3ULL << 20;
	j.has_run = true;
	j.tensors = 2;
	j.chunks = 3;
	j.model_bytes = 1000;
	j.mappings = 4;
	out = rw_render(&j, 1, 0);
	assert_string_equal(out,
		"job m id 1\n"
		"    workers 4 (2 attached)  chunk-size 32768  evict-ms 5000\n"
		"    sync ssp staleness 3\n"
		"    optim adam  lr 0.001 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08\n"
		"    memory 3.00 MiB of 512 MiB (max-memory default)\n"
		"    running: 2 tensors, 1000 bytes in 3 chunks, 4 mappings\n");
	free(out);
	out = rw_render(&j, 1, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_non_null(strstr(out,
		"\"eps\":1e-08,\"max_memory\":0,\"memory_limit\":536870912,"
		"\"memory\":3145728,\"tensors\":2,"));
	free(out);

	/* Without the figures (an older module): no line, no keys. */
	j.has_memory = false;
	out = rw_render(&j, 1, 0);
	assert_null(strstr(out, "memory"));
	free(out);
	out = rw_render(&j, 1, RWCTL_PR_JSON);
	assert_null(strstr(out, "memory"));
	free(out);
}

/* Shortest round-trip in JSON, %g in text; NaN/inf become null. */
static void rw_test_print_floats(void **state)
{
	static const struct {
		float v;
		const char *json;
		const char *text;
	} cases[] = {
		{ 0.01f, "\"lr\":0.01}", "lr 0.01\n" },
		{ 1e-8f, "\"lr\":1e-08}", "lr 1e-08\n" },
		{ 0.1234567f, "\"lr\":0.1234567}", "lr 0.123457\n" },
		{ 3.0f, "\"lr\":3}", "lr 3\n" },
		{ -2.5f, "\"lr\":-2.5}", "lr -2.5\n" },
		{ 16777216.0f, "\"lr\":16777216}", "lr 1.67772e+07\n" },
		{ 3.4028235e38f, "\"lr\":3.4028235e+38}", "lr 3.40282e+38\n" },
		{ 1.17549435e-38f, "\"lr\":1.1754944e-38}", "lr 1.17549e-38\n" },
	};
	struct rwctl_job j;
	uint32_t nan_bits = 0x7fc00000, inf_bits = 0x7f800000;
	char *out;
	size_t i;

	(void)state;
	rw_fill_job(&j, "f", 1);
	j.hp_mask = 1U << RWCTL_HP_LR;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		j.hp[RWCTL_HP_LR] = cases[i].v;
		out = rw_render(&j, 1, RWCTL_PR_JSON);
		rw_assert_json(out);
		if (!strstr(out, cases[i].json))
			fail_msg("case %zu: want %s in %s", i, cases[i].json, out);
		free(out);
		out = rw_render(&j, 1, 0);
		if (!strstr(out, cases[i].text))
			fail_msg("case %zu: want %s in %s", i, cases[i].text, out);
		free(out);
	}

	memcpy(&j.hp[RWCTL_HP_LR], &nan_bits, 4);
	out = rw_render(&j, 1, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\"lr\":null"));
	free(out);
	memcpy(&j.hp[RWCTL_HP_LR], &inf_bits, 4);
	out = rw_render(&j, 1, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\"lr\":null"));
	free(out);
}

/* Values from a newer module are named by number, never dropped. */
static void rw_test_print_unknown_enums(void **state)
{
	struct rwctl_job j;
	char *out;

	(void)state;
	rw_fill_job(&j, "new", 1);
	j.sync = 7;
	j.optim = 9;
	j.hp_mask = 0;
	out = rw_render(&j, 1, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\"sync\":\"sync7\""));
	assert_non_null(strstr(out, "\"optim\":\"optim9\"}"));
	assert_null(strstr(out, "staleness"));
	free(out);
}

/* A job in averaging mode, as the module reports it, read and shown. */
static void rw_test_parse_average(void **state)
{
	struct rw_fx *fx = *state;
	char *out;

	rw_put_job(fx->msg, RW_SYNC_BSP, SKIP(RW_JOB_A_OPTIM));
	assert_int_equal(nla_put_u32(fx->msg, RW_JOB_A_OPTIM, RW_OPTIM_AVERAGE), 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->job.optim, RW_OPTIM_AVERAGE);
	assert_string_equal(rwctl_job_optim_name(fx->job.optim), "average");

	out = rw_render(&fx->job, 1, 0);
	assert_string_equal(out,
		"job train1 id 7\n"
		"    workers 8 (3 attached)  chunk-size 65536  evict-ms 3000\n"
		"    sync bsp\n"
		"    optim average\n");
	free(out);
	out = rw_render(&fx->job, 1, RWCTL_PR_JSON);
	rw_assert_json(out);
	assert_non_null(strstr(out, "\"quorum\":8,\"optim\":\"average\""));
	assert_null(strstr(out, "\"momentum\""));
	free(out);

	/* The others show what they read, of the six the module reports. */
	fx->job.optim = RW_OPTIM_SGD;
	out = rw_render(&fx->job, 1, 0);
	assert_non_null(strstr(out, "    optim sgd  lr 0.01 weight-decay 0\n"));
	free(out);
	fx->job.optim = RW_OPTIM_NESTEROV;
	out = rw_render(&fx->job, 1, 0);
	assert_non_null(strstr(out, "    optim nesterov  lr 0.01 momentum 0.9 weight-decay 0\n"));
	free(out);
	fx->job.optim = RW_OPTIM_ADAM;
	out = rw_render(&fx->job, 1, 0);
	assert_non_null(strstr(out,
			       "    optim adam  lr 0.01 weight-decay 0 beta1 0.9 beta2 0.999 eps 1e-08\n"));
	free(out);
}

static void rw_test_explain(void **state)
{
	char buf[256];

	(void)state;
	rwctl_job_explain(buf, sizeof(buf), "job add", "x", -EEXIST, NULL, "");
	assert_string_equal(buf, "job add: a job named 'x' already exists");
	rwctl_job_explain(buf, sizeof(buf), "job add", "x", -EEXIST, NULL,
			  "name taken");
	assert_string_equal(buf, "job add: a job named 'x' already exists: name taken");
	rwctl_job_explain(buf, sizeof(buf), "job del", "x", -EIO, NULL, NULL);
	assert_string_equal(buf, "job del: Input/output error");
	/* An older module does not know the command at all. */
	rwctl_job_explain(buf, sizeof(buf), "topo show", "x", -EOPNOTSUPP,
			  NULL, NULL);
	assert_string_equal(buf, "topo show: the loaded rackweave module does not know this command; load the module of rwctl's release (" RW_VERSION_STRING ")");
	/* The caller's own words for an errno win; the extended ack follows. */
	rwctl_job_explain(buf, sizeof(buf), "policy set", "x", -EBUSY,
			  "detach them", "workers attached");
	assert_string_equal(buf, "policy set: detach them: workers attached");
	rwctl_job_explain(buf, sizeof(buf), "stats show", "x", -EBUSY, NULL,
			  NULL);
	assert_string_equal(buf, "stats show: job 'x' is busy");
	/* "no job by that name" would only repeat the sentence. */
	rwctl_job_explain(buf, sizeof(buf), "topo show", "x", -ENOENT, NULL,
			  "no job by that name");
	assert_string_equal(buf, "topo show: no job named 'x'");
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)
#define RW_M(fn)	cmocka_unit_test_setup_teardown(fn, rw_msg_setup, rw_msg_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_parse_add_minimal),
		RW_T(rw_test_parse_add_full),
		RW_T(rw_test_parse_add_sync),
		RW_T(rw_test_parse_max_memory),
		RW_T(rw_test_add_usage_errors),
		RW_T(rw_test_del_and_show_usage),
		RW_T(rw_test_help),
		RW_T(rw_test_add_ok_token),
		RW_T(rw_test_add_average),
		RW_T(rw_test_add_max_memory),
		RW_T(rw_test_add_old_module),
		RW_T(rw_test_kernel_errors),
		RW_T(rw_test_not_loaded),
		RW_T(rw_test_del_ok),
		RW_T(rw_test_show_dump),
		RW_T(rw_test_dump_intr),
		RW_T(rw_test_token_file),
		RW_M(rw_test_parse_reply),
		RW_M(rw_test_parse_average),
		RW_M(rw_test_parse_token),
		RW_M(rw_test_parse_token_length),
		RW_M(rw_test_parse_run),
		RW_M(rw_test_parse_memory),
		RW_M(rw_test_parse_int_lengths),
		RW_M(rw_test_parse_names),
		RW_M(rw_test_parse_missing),
		RW_M(rw_test_parse_newer),
		RW_T(rw_test_print_text),
		RW_T(rw_test_print_json),
		RW_T(rw_test_print_memory),
		RW_T(rw_test_print_floats),
		RW_T(rw_test_print_unknown_enums),
		RW_T(rw_test_explain),
	};
	int ret;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("rwctl-job", tests, NULL, NULL);
	rw_result_free(&rw_last);
	return ret;
}
