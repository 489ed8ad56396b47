// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl job checkpoint / job restore against a scripted backend: the
 * words parsed (keywords in any order, each once; the exact sentence of
 * every usage error, exit 2), the token read from a raw or a hex file and
 * handed over (exit 1 when it cannot be), the summary line in text and
 * JSON, the backend's reason passed on as the error (exit 1, nothing on
 * stdout), and the help.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rackweave.h>

#include "ckpt.h"
#include "rwctl.h"
#include "rwtest.h"

/* ---- scripted backend ---- */

static struct {
	unsigned int saves, restores;
	int err;			/* what the next call returns */
	const char *why;		/* and says when it fails */
	struct rwctl_ckpt_info info;
	struct rwctl_ckpt_req last;
	char job[64], file[256];	/* copies: argv is gone afterwards */
} rw_be;

static int rw_be_call(const struct rwctl_ckpt_req *r,
		      struct rwctl_ckpt_info *info, char *why, size_t whylen)
{
	rw_be.last = *r;
	snprintf(rw_be.job, sizeof(rw_be.job), "%s", r->job);
	snprintf(rw_be.file, sizeof(rw_be.file), "%s", r->file);
	if (rw_be.err) {
		if (rw_be.why)
			snprintf(why, whylen, "%s", rw_be.why);
		return rw_be.err;
	}
	*info = rw_be.info;
	return 0;
}

static int rw_be_save(const struct rwctl_ckpt_req *r,
		      struct rwctl_ckpt_info *info, char *why, size_t whylen)
{
	rw_be.saves++;
	return rw_be_call(r, info, why, whylen);
}

static int rw_be_restore(const struct rwctl_ckpt_req *r,
			 struct rwctl_ckpt_info *info, char *why,
			 size_t whylen)
{
	rw_be.restores++;
	return rw_be_call(r, info, why, whylen);
}

static const struct rwctl_ckpt_backend rw_test_backend = {
	.save = rw_be_save,
	.restore = rw_be_restore,
};

static const struct rwctl rw_tmpl = {
	.fetch = rw_test_no_fetch,
	.ckpt_backend = &rw_test_backend,
};

/* Token files: 32 raw bytes, the same as hex, and one of the wrong size. */
static char rw_raw[64], rw_hex[64], rw_bad[64];
static const uint8_t rw_token[RW_JOB_TOKEN_LEN] = {
	0x00, 0x01, 0x02, 0x0a, 0x10, 0x7f, 0x80, 0xff,
	[16] = 0x5a, [31] = 0xa5,
};

static void rw_write(char *path, const char *tmpl, const void *buf,
		     size_t len)
{
	int fd;

	snprintf(path, 64, "%s", tmpl);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static int rw_setup(void **state)
{
	char hex[2 * RW_JOB_TOKEN_LEN + 2];
	int i;

	(void)state;
	for (i = 0; i < RW_JOB_TOKEN_LEN; i++)
		sprintf(hex + 2 * i, "%02x", rw_token[i]);
	strcat(hex, "\n");
	rw_write(rw_raw, "/tmp/rw-ckpt-raw-XXXXXX", rw_token, sizeof(rw_token));
	rw_write(rw_hex, "/tmp/rw-ckpt-hex-XXXXXX", hex, strlen(hex));
	rw_write(rw_bad, "/tmp/rw-ckpt-bad-XXXXXX", "short\n", 6);
	return 0;
}

static int rw_teardown(void **state)
{
	(void)state;
	unlink(rw_raw);
	unlink(rw_hex);
	unlink(rw_bad);
	return 0;
}

static int rw_reset(void **state)
{
	(void)state;
	memset(&rw_be, 0, sizeof(rw_be));
	rw_be.info.step = 1200;
	rw_be.info.bytes = 7340160;
	return 0;
}

/* ---- the words ---- */

static void rw_test_parse(void **state)
{
	char *a1[] = { "train", "run.ckpt", "token-file", "t.tok" };
	char *a2[] = { "train", "run.ckpt", "timeout", "5000", "token-file",
		       "t.tok" };
	char *a3[] = { "train", "/data/x", "token-file", "t.tok", "timeout",
		       "0" };
	struct rwctl_ckpt_req r;
	char msg[256] = "";

	(void)state;
	assert_int_equal(rwctl_ckpt_parse(4, a1, true, &r, msg, sizeof(msg)), 0);
	assert_string_equal(r.job, "train");
	assert_string_equal(r.file, "run.ckpt");
	assert_string_equal(r.token_file, "t.tok");
	assert_int_equal(r.timeout_ms, 0);
	assert_int_equal(rwctl_ckpt_parse(6, a2, true, &r, msg, sizeof(msg)), 0);
	assert_int_equal(r.timeout_ms, 5000);
	assert_string_equal(r.token_file, "t.tok");
	assert_int_equal(rwctl_ckpt_parse(6, a3, true, &r, msg, sizeof(msg)), 0);
	assert_string_equal(r.file, "/data/x");
	assert_int_equal(rwctl_ckpt_parse(4, a1, false, &r, msg, sizeof(msg)), 0);
	assert_string_equal(r.token_file, "t.tok");
	for (size_t i = 0; i < sizeof(r.token); i++)
		assert_int_equal(r.token[i], 0);	/* read later */
}

/* Every usage error: its sentence, exit 2, the backend never asked. */
static void rw_test_usage(void **state)
{
	static const struct {
		const char *args[9];
		const char *why;
	} bad[] = {
		{ { "checkpoint" },
		  "'job checkpoint' needs a JOB, a FILE and 'token-file PATH'" },
		{ { "checkpoint", "train" },
		  "'job checkpoint' needs a JOB, a FILE and 'token-file PATH'" },
		{ { "restore", "train" },
		  "'job restore' needs a JOB, a FILE and 'token-file PATH'" },
		{ { "checkpoint", "train", "f" },
		  "'job checkpoint' needs 'token-file PATH': the job's token, with which rwctl attaches as an observer" },
		{ { "restore", "train", "f", "timeout", "5" },
		  "unknown argument 'timeout' to 'job restore' (token-file PATH)" },
		{ { "checkpoint", "train", "f", "token", "x" },
		  "unknown argument 'token' to 'job checkpoint' (token-file PATH, timeout MS)" },
		{ { "checkpoint", "train", "f", "-j", "x" },
		  "unexpected argument '-j' (options go before OBJECT)" },
		{ { "checkpoint", "train", "f", "token-file" },
		  "'token-file' needs a value" },
		{ { "checkpoint", "train", "f", "token-file", "" },
		  "'token-file' needs a path" },
		{ { "checkpoint", "train", "f", "token-file", "a", "timeout" },
		  "'timeout' needs a value" },
		{ { "checkpoint", "train", "f", "token-file", "a", "timeout", "soon" },
		  "timeout 'soon' is not a number" },
		{ { "checkpoint", "train", "f", "token-file", "a", "timeout", "-1" },
		  "timeout '-1' is not a number" },
		{ { "checkpoint", "train", "f", "token-file", "a", "timeout",
		    "4294967296" },
		  "timeout '4294967296' is out of range (0..4294967295)" },
		{ { "checkpoint", "train", "f", "token-file", "a", "token-file", "b" },
		  "'token-file' given twice" },
		{ { "checkpoint", "train", "f", "token-file", "a", "timeout", "1",
		    "x" },
		  "unexpected argument 'x' to 'job checkpoint'" },
		{ { "restore", "train", "f", "token-file", "a", "token-file" },
		  "unexpected argument 'token-file' to 'job restore'" },
		{ { "checkpoint", "train", "f", "timeout", "1", "timeout", "2" },
		  "'timeout' given twice" },
		{ { "checkpoint", "bad/name", "f", "token-file", "a" },
		  "job name 'bad/name' has an invalid character at byte 4" },
		{ { "restore", "", "f", "token-file", "a" }, "job name is empty" },
		{ { "restore", "train", "", "token-file", "a" },
		  "'job restore' needs a FILE, not an empty word" },
	};
	struct rw_result res = { 0 };
	const char *args[11];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		args[0] = "job";
		for (n = 0; n < 9 && bad[i].args[n]; n++)
			args[n + 1] = bad[i].args[n];
		args[n + 1] = NULL;
		rw_test_rwctl(&res, &rw_tmpl, args);
		rw_assert_usage_of(&res, "job", bad[i].why);
	}
	assert_int_equal(rw_be.saves, 0);
	assert_int_equal(rw_be.restores, 0);
	rw_result_free(&res);
}

/* ---- what runs ---- */

static void rw_test_checkpoint(void **state)
{
	struct rw_result res = { 0 };
	char want[512];

	(void)state;
	RW_RUN(&res, &rw_tmpl, "job", "checkpoint", "train", "/data/run.ckpt",
	       "token-file", rw_hex, "timeout", "30000");
	assert_int_equal(res.rc, RWCTL_EXIT_OK);
	assert_string_equal(res.out,
		"job train: checkpoint of step 1200, 7340160 bytes, to /data/run.ckpt\n");
	assert_string_equal(res.err, "");
	assert_int_equal(rw_be.saves, 1);
	assert_int_equal(rw_be.restores, 0);
	assert_string_equal(rw_be.job, "train");
	assert_string_equal(rw_be.file, "/data/run.ckpt");
	assert_int_equal(rw_be.last.timeout_ms, 30000);
	assert_memory_equal(rw_be.last.token, rw_token, sizeof(rw_token));

	/* JSON, from the same calls. */
	rw_be.info.step = 0;
	rw_be.info.bytes = 1ULL << 33;
	RW_RUN(&res, &rw_tmpl, "-j", "job", "checkpoint", "t.2", "a b",
	       "token-file", rw_raw);
	assert_int_equal(res.rc, RWCTL_EXIT_OK);
	rw_assert_json(res.out);
	assert_string_equal(res.out,
		"{\"job\":\"t.2\",\"step\":0,\"bytes\":8589934592,\"file\":\"a b\"}\n");
	assert_int_equal(rw_be.last.timeout_ms, 0);
	assert_memory_equal(rw_be.last.token, rw_token, sizeof(rw_token));
	snprintf(want, sizeof(want), "%s", rw_raw);
	assert_string_equal(rw_be.last.token_file, want);
	rw_result_free(&res);
}

static void rw_test_restore(void **state)
{
	struct rw_result res = { 0 };

	(void)state;
	RW_RUN(&res, &rw_tmpl, "job", "restore", "train", "run.ckpt",
	       "token-file", rw_raw);
	assert_int_equal(res.rc, RWCTL_EXIT_OK);
	assert_string_equal(res.out,
		"job train: restored step 1200, 7340160 bytes, from run.ckpt\n");
	assert_int_equal(rw_be.restores, 1);
	assert_int_equal(rw_be.saves, 0);
	assert_memory_equal(rw_be.last.token, rw_token, sizeof(rw_token));
	RW_RUN(&res, &rw_tmpl, "-jp", "job", "restore", "train", "run.ckpt",
	       "token-file", rw_hex);
	assert_int_equal(res.rc, RWCTL_EXIT_OK);
	rw_assert_json(res.out);
	assert_non_null(strstr(res.out, "\"step\": 1200"));
	rw_result_free(&res);
}

/* A token file that cannot be read or holds no token: exit 1, no request. */
static void rw_test_token(void **state)
{
	struct rw_result res = { 0 };
	char want[256];

	(void)state;
	RW_RUN(&res, &rw_tmpl, "job", "checkpoint", "train", "f", "token-file",
	       "/nonexistent/token");
	rw_assert_exit(&res, RWCTL_EXIT_ERR,
		       "rwctl: job checkpoint: cannot read token file '/nonexistent/token': No such file or directory\n");
	RW_RUN(&res, &rw_tmpl, "job", "restore", "train", "f", "token-file",
	       rw_bad);
	snprintf(want, sizeof(want),
		 "rwctl: job restore: token file '%s' holds no token (32 raw bytes, or 64 hex digits as 'job add' prints them)\n",
		 rw_bad);
	rw_assert_exit(&res, RWCTL_EXIT_ERR, want);
	assert_int_equal(rw_be.saves + rw_be.restores, 0);
	rw_result_free(&res);
}

/* The backend's sentence is the error; exit 1 as for every refusal. */
static void rw_test_refused(void **state)
{
	struct rw_result res = { 0 };

	(void)state;
	rw_be.err = -EINVAL;
	rw_be.why = "run.ckpt: another optimizer: the file's adam, the job's momentum";
	RW_RUN(&res, &rw_tmpl, "job", "restore", "train", "run.ckpt",
	       "token-file", rw_raw);
	rw_assert_exit(&res, RWCTL_EXIT_ERR,
		       "rwctl: job restore: run.ckpt: another optimizer: the file's adam, the job's momentum\n");
	assert_string_equal(res.err,
		"rwctl: job restore: run.ckpt: another optimizer: the file's adam, the job's momentum\n");

	rw_be.err = -ENOENT;
	rw_be.why = "no job named 'train'";
	RW_RUN(&res, &rw_tmpl, "-j", "job", "checkpoint", "train", "run.ckpt",
	       "token-file", rw_raw);
	rw_assert_exit(&res, RWCTL_EXIT_ERR,
		       "rwctl: job checkpoint: no job named 'train'\n");

	/* A backend without words: strerror. */
	rw_be.err = -ETIMEDOUT;
	rw_be.why = NULL;
	RW_RUN(&res, &rw_tmpl, "job", "checkpoint", "train", "run.ckpt",
	       "token-file", rw_raw);
	rw_assert_exit(&res, RWCTL_EXIT_ERR,
		       "rwctl: job checkpoint: Connection timed out\n");
	rw_result_free(&res);
}

static void rw_test_help(void **state)
{
	struct rw_result res = { 0 };

	(void)state;
	RW_RUN(&res, &rw_tmpl, "job", "help");
	assert_int_equal(res.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(res.out,
		"  checkpoint JOB FILE ARGS  save a job's parameters and optimizer state to FILE\n"));
	assert_non_null(strstr(res.out,
		"  restore JOB FILE ARGS     load a checkpoint into a job's new run\n"));
	assert_non_null(strstr(res.out,
		"job checkpoint JOB FILE token-file PATH [ timeout MS ]\n"
		"job restore JOB FILE token-file PATH\n"));
	/* The column the older commands set stays where it was. */
	assert_non_null(strstr(res.out,
		"  add NAME workers N [ARGS] create a job"));
	RW_RUN(&res, &rw_tmpl, "job", "checkpoint", "help");
	assert_int_equal(res.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(res.out, "job restore JOB FILE token-file PATH"));
	assert_int_equal(rw_be.saves + rw_be.restores, 0);
	rw_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, rw_reset)
		T(rw_test_parse),
		T(rw_test_usage),
		T(rw_test_checkpoint),
		T(rw_test_restore),
		T(rw_test_token),
		T(rw_test_refused),
		T(rw_test_help),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, rw_setup, rw_teardown);
}
