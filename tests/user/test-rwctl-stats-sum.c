// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl stats sum: the "rwctl -j stats show JOB" documents of a job's three
 * boxes, as files and on standard input, give the job's statistics (what
 * is added, what is the least or the most, a rank attached only if it is on
 * every box), in text and JSON, saying over how many boxes; and every
 * refusal: no FILE, unreadable files, what is not JSON or not statistics,
 * another job, one box twice, other ranks, too many documents, a sum past
 * 64 bits. With the box set each document carries: identical documents of
 * distinct boxes sum, and a box missing or twice, or another set, is
 * refused by name.
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

#include "rwctl.h"
#include "rwtest.h"
#include "stats.h"

/*
 * Job emb, two ranks, 32 KiB chunks, over three boxes. Box 2 holds fewer
 * chunks and saw rank 1 leave; box 3 did not report rank 1's parked time.
 */
#define RW_BOX1 \
	"{\"name\":\"emb\",\"totals\":{\"epoch\":2,\"live\":2,\"parked\":0," \
	"\"min_clock\":40,\"max_skew\":1,\"pushes\":1200,\"pulls\":82," \
	"\"bytes\":39321600,\"chunks\":1200,\"steps\":600,\"busy\":3," \
	"\"migrations\":0,\"evictions\":0,\"errors\":1,\"late_dropped\":2}," \
	"\"workers\":[{\"rank\":0,\"attached\":true,\"live\":true,\"clock\":41," \
	"\"pushes\":600,\"pulls\":41,\"bytes\":19660800,\"chunks\":600," \
	"\"parks\":2,\"parked_ns\":500000,\"evictions\":0,\"errors\":0," \
	"\"late_dropped\":2},{\"rank\":1,\"attached\":true,\"live\":true," \
	"\"clock\":40,\"pushes\":600,\"pulls\":41,\"bytes\":19660800," \
	"\"chunks\":600,\"parks\":0,\"parked_ns\":0,\"evictions\":0," \
	"\"errors\":1,\"late_dropped\":0}]}"

#define RW_BOX2 \
	"{\"name\":\"emb\",\"totals\":{\"epoch\":3,\"live\":1,\"parked\":1," \
	"\"min_clock\":39,\"max_skew\":2,\"pushes\":1170,\"pulls\":80," \
	"\"bytes\":38338560,\"chunks\":1170,\"steps\":585,\"busy\":0," \
	"\"migrations\":1,\"evictions\":1,\"errors\":0,\"late_dropped\":0}," \
	"\"workers\":[{\"rank\":1,\"attached\":false,\"live\":false," \
	"\"clock\":39,\"pushes\":585,\"pulls\":40,\"bytes\":19169280," \
	"\"chunks\":585,\"parks\":4,\"parked_ns\":2000000,\"evictions\":1," \
	"\"errors\":0,\"late_dropped\":0},{\"rank\":0,\"attached\":true," \
	"\"live\":true,\"clock\":41,\"pushes\":585,\"pulls\":40," \
	"\"bytes\":19169280,\"chunks\":585,\"parks\":1,\"parked_ns\":1500000," \
	"\"evictions\":0,\"errors\":0,\"late_dropped\":0}]}"

/* As -jp prints it, over several lines. */
#define RW_BOX3 \
	"{\n    \"name\": \"emb\",\n    \"totals\": {\n        \"epoch\": 2,\n" \
	"        \"live\": 2,\n        \"parked\": 0,\n        \"min_clock\": 40,\n" \
	"        \"max_skew\": 1,\n        \"pushes\": 1230,\n        \"pulls\": 81,\n" \
	"        \"bytes\": 40304640,\n        \"chunks\": 1230,\n" \
	"        \"steps\": 615,\n        \"busy\": 1,\n        \"migrations\": 0,\n" \
	"        \"evictions\": 0,\n        \"errors\": 0,\n" \
	"        \"late_dropped\": 1\n    },\n    \"workers\": [\n        {\n" \
	"            \"rank\": 0,\n            \"attached\": true,\n" \
	"            \"live\": true,\n            \"clock\": 42,\n" \
	"            \"pushes\": 615,\n            \"pulls\": 41,\n" \
	"            \"bytes\": 20152320,\n            \"chunks\": 615,\n" \
	"            \"parks\": 0,\n            \"parked_ns\": 0,\n" \
	"            \"evictions\": 0,\n            \"errors\": 0,\n" \
	"            \"late_dropped\": 1\n        },\n        {\n" \
	"            \"rank\": 1,\n            \"attached\": true,\n" \
	"            \"live\": true,\n            \"clock\": 40,\n" \
	"            \"pushes\": 615,\n            \"pulls\": 40,\n" \
	"            \"bytes\": 20152320,\n            \"chunks\": 615,\n" \
	"            \"parks\": 0,\n            \"evictions\": 0,\n" \
	"            \"errors\": 0,\n            \"late_dropped\": 0\n" \
	"        }\n    ]\n}"

/*
 * Added: pushes, bytes, chunks, steps, busy, migrations, evictions,
 * errors, late drops (3600 chunks of 32 KiB: 112.5 MiB); least: live,
 * min_clock, pulls, a rank's clock and pulls; most: epoch, parked,
 * max_skew; rank 1 is not attached on box 2, and its parked time is
 * unknown for the set.
 */
#define RW_SUM_TEXT_TOTALS \
	"job emb: epoch 3, 1 live, 1 parked, min clock 39, max skew 2\n" \
	"    pushes 3600  pulls 80  bytes 112 MiB  chunks 3600  steps 1800\n" \
	"    busy 4  migrations 1  evictions 1  errors 1  late_dropped 3\n"

#define RW_SUM_TEXT_TABLE \
	"rank  attached  live  clock  pushes  pulls     bytes  chunks  parks   parked  evictions  errors  late_dropped\n" \
	"   0  yes       yes      41    1800     40  56.2 MiB    1800      3  2.00 ms          0       0             3\n" \
	"   1  no        no       39    1800     40  56.2 MiB    1800      4        -          1       1             0\n"

static const char rw_sum_text[] =
	RW_SUM_TEXT_TOTALS "    sum over 3 boxes\n" RW_SUM_TEXT_TABLE;

#define RW_SUM_JSON_TOTALS \
	"{\"name\":\"emb\",\"totals\":{\"epoch\":3,\"live\":1,\"parked\":1," \
	"\"min_clock\":39,\"max_skew\":2,\"pushes\":3600,\"pulls\":80," \
	"\"bytes\":117964800,\"chunks\":3600,\"steps\":1800,\"busy\":4," \
	"\"migrations\":1,\"evictions\":1,\"errors\":1,\"late_dropped\":3},"

#define RW_SUM_JSON_WORKERS \
	"\"workers\":[{\"rank\":0,\"attached\":true,\"live\":true,\"clock\":41," \
	"\"pushes\":1800,\"pulls\":40,\"bytes\":58982400,\"chunks\":1800," \
	"\"parks\":3,\"parked_ns\":2000000,\"evictions\":0,\"errors\":0," \
	"\"late_dropped\":3},{\"rank\":1,\"attached\":false,\"live\":false," \
	"\"clock\":39,\"pushes\":1800,\"pulls\":40,\"bytes\":58982400," \
	"\"chunks\":1800,\"parks\":4,\"evictions\":1,\"errors\":1," \
	"\"late_dropped\":0}]}\n"

static const char rw_sum_json[] =
	RW_SUM_JSON_TOTALS "\"boxes\":3," RW_SUM_JSON_WORKERS;

static char rw_dir[] = "/tmp/rw-stats-sum.XXXXXX";
static char rw_path[8][64];
static struct rw_result rw_last;
static struct rwctl rw_tmpl = { .fetch = rw_test_no_fetch };

#define RUN(...) RW_RUN(&rw_last, &rw_tmpl, __VA_ARGS__)

/* File @i of the test's directory, holding @text; returns its path. */
static const char *rw_file(unsigned int i, const char *text)
{
	FILE *f;

	snprintf(rw_path[i], sizeof(rw_path[i]), "%s/box%u.json", rw_dir, i);
	f = fopen(rw_path[i], "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return rw_path[i];
}

/* Standard input holding @text for the next run (NULL: none). */
static void rw_stdin(const char *text)
{
	if (rw_tmpl.in)
		fclose(rw_tmpl.in);
	rw_tmpl.in = text ? fmemopen((void *)text, strlen(text), "r") : NULL;
	if (text)
		assert_non_null(rw_tmpl.in);
}

static int rw_group_setup(void **state)
{
	(void)state;
	return mkdtemp(rw_dir) ? 0 : -1;
}

static int rw_group_teardown(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 8; i++)
		if (rw_path[i][0])
			unlink(rw_path[i]);
	rw_stdin(NULL);
	rw_result_free(&rw_last);
	return rmdir(rw_dir);
}

static void rw_test_files(void **state)
{
	const char *a = rw_file(1, RW_BOX1 "\n"), *b = rw_file(2, RW_BOX2),
		   *c = rw_file(3, RW_BOX3 "\n");

	(void)state;
	RUN("stats", "sum", a, b, c);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_last.out, rw_sum_text);
	RUN("-j", "stats", "sum", c, a, b);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_string_equal(rw_last.out, rw_sum_json);
	RUN("-jp", "stats", "sum", b, c, a);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\n        \"bytes\": 117964800,\n"));
}

/* Standard input with every box's, one per line, alone or with files. */
static void rw_test_stdin(void **state)
{
	const char *a = rw_file(1, RW_BOX1);

	(void)state;
	rw_stdin(RW_BOX1 "\n" RW_BOX2 "\n\n" RW_BOX3 "\n");
	RUN("stats", "sum", "-");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, rw_sum_text);

	rw_stdin(RW_BOX3 "\n" RW_BOX2 "\n");
	RUN("-j", "stats", "sum", "-", a);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, rw_sum_json);
}

/* One box: its own figures, as stats show printed them, over one box. */
static void rw_test_one_box(void **state)
{
	const char *end = strstr(RW_BOX1, "\"workers\"");
	char want[sizeof(RW_BOX1) + 16];

	(void)state;
	rw_stdin(RW_BOX1);
	RUN("-j", "stats", "sum", "-");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	snprintf(want, sizeof(want), "%.*s\"boxes\":1,%s\n",
		 (int)(end - RW_BOX1), RW_BOX1, end);
	assert_string_equal(rw_last.out, want);
}

/* A figure one box lacks is unknown for the set; unknown keys are ignored. */
static void rw_test_partial(void **state)
{
	(void)state;
	rw_stdin("{\"name\":\"j\",\"totals\":{\"pushes\":1,\"errors\":2,\"new\":[1]},"
		 "\"workers\":[],\"box\":{\"id\":1}}\n"
		 "{\"name\":\"j\",\"totals\":{\"pushes\":3,\"steps\":4},\"workers\":[]}\n");
	RUN("-j", "stats", "sum", "-");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out,
			    "{\"name\":\"j\",\"totals\":{\"pushes\":4,\"late_dropped\":0},"
			    "\"boxes\":2,\"workers\":[]}\n");
	RUN("stats", "sum", "-");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.err,
			    "rwctl: stats sum: standard input is empty: expected the output of 'rwctl -j stats show JOB'\n");
}

static void rw_test_usage(void **state)
{
	(void)state;
	RUN("stats", "sum");
	rw_assert_usage_of(&rw_last, "stats", "'stats sum' needs the 'rwctl -j stats show JOB' output of each box");
	RUN("stats", "sum", "-", "x", "-");
	rw_assert_usage_of(&rw_last, "stats", "'-' (standard input) given twice");
	RUN("stats", "sum", "x", "-j");
	rw_assert_usage_of(&rw_last, "stats", "unexpected argument '-j' (options go before OBJECT; a file of that name is ./-j)");
	RUN("stats", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "  sum FILE..."));
	assert_non_null(strstr(rw_last.out, "    summed: pushes, bytes, chunks, steps"));
	assert_non_null(strstr(rw_last.out, "    least of the boxes': live, min_clock, pulls; per rank clock, pulls"));
	assert_non_null(strstr(rw_last.out, "    most of the boxes': epoch, parked, max_skew"));
	assert_non_null(strstr(rw_last.out, "each box once and none missing"));
	assert_non_null(strstr(rw_last.out, "two identical ones are refused"));
}

static void rw_test_unreadable(void **state)
{
	char gone[96];

	(void)state;
	snprintf(gone, sizeof(gone), "%s/none.json", rw_dir);
	RUN("stats", "sum", rw_file(1, RW_BOX1), gone);
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, "/none.json: No such file or directory");
	assert_string_equal(rw_last.out, "");
	RUN("stats", "sum", rw_dir);
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, "rwctl: stats sum: cannot read /tmp/rw-stats-sum.");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, ": Is a directory\n");
	RUN("stats", "sum", rw_file(1, RW_BOX1), rw_file(2, ""));
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, "/box2.json is empty: expected the output of 'rwctl -j stats show JOB'");
}

/* What is not JSON, or not statistics: where, and why. */
static const struct {
	const char *text;
	const char *why;
} rw_bad[] = {
	{ RW_BOX1 "\n{\"name\":\"emb\",", "standard input:2:15: not JSON: expected a key in quotes" },
	{ "{\"name\":\"emb\",\"totals\":{},\"workers\":[],}", "standard input:1:40: not JSON: expected a key in quotes" },
	{ RW_BOX1 RW_BOX2, "not JSON: expected a new line after a document" },
	{ "[]", "standard input:1: not the output of 'rwctl -j stats show JOB': an array, not an object" },
	{ "{\"totals\":{},\"workers\":[]}", "standard input:1: not the output of 'rwctl -j stats show JOB': no \"name\"" },
	{ "{\"name\":\"e\",\"workers\":[]}", "no \"totals\"" },
	{ "{\"name\":\"e\",\"totals\":{}}", "no \"workers\"" },
	{ "{\"name\":7,\"totals\":{},\"workers\":[]}", "\"name\" is a number, not a string" },
	{ "{\"name\":\"a b\",\"totals\":{},\"workers\":[]}", "\"name\": " },
	{ "{\"name\":\"e\",\"totals\":[],\"workers\":[]}", "\"totals\" is not an object" },
	{ "{\"name\":\"e\",\"totals\":{},\"workers\":{}}", "\"workers\" is not an array" },
	{ "{\"name\":\"e\",\"totals\":{\"pushes\":\"1\"},\"workers\":[]}", "totals: \"pushes\" is a string, not a whole number below 2^64" },
	{ "{\"name\":\"e\",\"totals\":{\"bytes\":-1},\"workers\":[]}", "totals: \"bytes\" is a number, not a whole number" },
	{ "{\"name\":\"e\",\"totals\":{\"steps\":1.5},\"workers\":[]}", "totals: \"steps\" is a number, not a whole number" },
	{ "{\"name\":\"e\",\"totals\":{\"chunks\":18446744073709551616},\"workers\":[]}", "\"chunks\" is a number, not a whole number below 2^64" },
	{ "{\"name\":\"e\",\"totals\":{\"epoch\":4294967296},\"workers\":[]}", "totals: \"epoch\" is a number, not a whole number below 2^32" },
	{ "{\"name\":\"e\",\"totals\":{},\"workers\":[1]}", "workers[0] is a number, not an object" },
	{ "{\"name\":\"e\",\"totals\":{},\"workers\":[{\"rank\":0},{\"clock\":1}]}", "workers[1] has no \"rank\"" },
	{ "{\"name\":\"e\",\"totals\":{},\"workers\":[{\"rank\":0,\"attached\":1}]}", "workers[0]: \"attached\" is a number, not true or false" },
	{ "{\"name\":\"e\",\"totals\":{},\"workers\":[{\"rank\":2},{\"rank\":2}]}", "rank 2 is in \"workers\" twice" },
};

static void rw_test_malformed(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rw_bad) / sizeof(rw_bad[0]); i++) {
		rw_stdin(rw_bad[i].text);
		RUN("stats", "sum", "-");
		if (rw_last.rc != RWCTL_EXIT_ERR ||
		    !strstr(rw_last.err, rw_bad[i].why) || rw_last.out[0])
			fail_msg("case %zu: exit %d, '%s'; wanted '%s'", i,
				 rw_last.rc, rw_last.err, rw_bad[i].why);
	}
	/* A file's name and line. */
	RUN("stats", "sum", rw_file(1, "\n\n{\"name\":\"e\",\"totals\":{},\"workers\":[]\n"));
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, "/box1.json:4:1: not JSON: expected ',' or '}'\n");
}

static void rw_test_other_job(void **state)
{
	(void)state;
	rw_stdin(RW_BOX1 "\n{\"name\":\"gpt\",\"totals\":{},\"workers\":[]}\n");
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: stats sum: standard input:1 is job 'emb' but standard input:2 is job 'gpt': give one job's statistics, one document per box\n");
}

static int rw_lines(const char *text)
{
	int n = 1;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* Without a box set, one box twice: the same file, or the same figures printed by -j and -jp. */
static void rw_test_twice(void **state)
{
	const char *a = rw_file(1, RW_BOX1), *b = rw_file(2, RW_BOX2);
	char msg[256];

	(void)state;
	RUN("stats", "sum", a, b, a);
	snprintf(msg, sizeof(msg), "rwctl: stats sum: %s:1 and %s:1 are the same statistics, and say no box: one box given twice? Give each box's once\n", a, a);
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, msg);

	/* Box 2 comes on standard input after box 3's lines. */
	rw_stdin(RW_BOX3 "\n" RW_BOX2 "\n");
	RUN("stats", "sum", "-", rw_file(3, RW_BOX2 "\n"));
	snprintf(msg, sizeof(msg), "standard input:%d and %s:1 are the same statistics",
		 rw_lines(RW_BOX3) + 1, rw_path[3]);
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, msg);
}

static void rw_test_other_ranks(void **state)
{
	(void)state;
	rw_stdin(RW_BOX1 "\n{\"name\":\"emb\",\"totals\":{},\"workers\":[{\"rank\":0}]}\n");
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "standard input:1 has rank 1 but standard input:2 does not: a job has the same workers on every box\n");
	rw_stdin("{\"name\":\"emb\",\"totals\":{},\"workers\":[{\"rank\":0}]}\n"
		 "{\"name\":\"emb\",\"totals\":{},\"workers\":[{\"rank\":0},{\"rank\":5}]}\n");
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "standard input:2 has rank 5 but standard input:1 does not");
}

/* No more documents than a box set has boxes. */
static void rw_test_too_many(void **state)
{
	static char text[RWCTL_STATS_SUM_MAX * 64 + 64];
	size_t len = 0;
	int i;

	(void)state;
	for (i = 0; i <= RWCTL_STATS_SUM_MAX; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"{\"name\":\"e\",\"totals\":{\"errors\":%d},\"workers\":[]}\n", i);
	rw_stdin(text);
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: stats sum: standard input:65: more than 64 documents: a box set has at most 64 boxes\n");
	text[strlen(text) - 1] = '\0';
	*strrchr(text, '\n') = '\0';
	rw_stdin(text);
	RUN("-j", "stats", "sum", "-");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "{\"name\":\"e\",\"totals\":{\"errors\":2016,\"late_dropped\":0},\"boxes\":64,\"workers\":[]}\n");
}

/* ---- documents that say which box of the set they are from ---- */

/*
 * @doc with the "box_set" of box @self of a set of @nr boxes (ids 1..@nr,
 * or from @first on), epoch @epoch, as "stats show" prints it, into @buf.
 */
static const char *rw_set_doc(char *buf, size_t len, const char *doc,
			      unsigned int epoch, unsigned int self,
			      unsigned int nr, unsigned int first)
{
	size_t n = strlen(doc), at;
	unsigned int i;

	assert_true(n > 0 && doc[n - 1] == '}');
	at = (size_t)snprintf(buf, len, "%.*s,\"box_set\":{\"epoch\":%u,"
			      "\"self\":%u,\"boxes\":[", (int)(n - 1), doc,
			      epoch, self);
	for (i = first; i < first + nr; i++)
		at += (size_t)snprintf(buf + at, len - at,
				       "%s{\"id\":%u,\"addr\":\"10.0.0.%u\","
				       "\"port\":18515,\"self\":%s}",
				       i > first ? "," : "", i, i,
				       i == self ? "true" : "false");
	at += (size_t)snprintf(buf + at, len - at, "]}}");
	assert_true(at < len);
	return buf;
}

static char rw_doc[6][4096];

/* Box @self of the set of three, epoch @epoch, with @doc's figures. */
static const char *rw_box(unsigned int i, const char *doc, unsigned int epoch,
			  unsigned int self)
{
	return rw_set_doc(rw_doc[i], sizeof(rw_doc[i]), doc, epoch, self, 3, 1);
}

/* The three boxes, each saying which it is: the same sum, over the set. */
static void rw_test_set_sum(void **state)
{
	const char *a = rw_file(1, rw_box(0, RW_BOX1, 1, 1)),
		   *b = rw_file(2, rw_box(1, RW_BOX2, 1, 2)),
		   *c = rw_file(3, rw_box(2, RW_BOX3, 1, 3));

	(void)state;
	RUN("stats", "sum", a, b, c);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_last.out, RW_SUM_TEXT_TOTALS
			    "    sum over 3 boxes (set epoch 1)\n"
			    RW_SUM_TEXT_TABLE);
	RUN("-j", "stats", "sum", c, a, b);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_string_equal(rw_last.out, RW_SUM_JSON_TOTALS
			    "\"boxes\":3,\"set_epoch\":1," RW_SUM_JSON_WORKERS);

	/* A sum is not one box's: given back, it is refused. */
	snprintf(rw_doc[3], sizeof(rw_doc[3]), "%s", rw_last.out);
	rw_stdin(rw_doc[3]);
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "standard input:1: not the output of 'rwctl -j stats show JOB': \"boxes\" at the top: 'rwctl stats sum' output, a sum already, not one box's\n");
}

/*
 * A job not trained yet counts alike on every box: identical figures of
 * distinct boxes sum (each of the set once), without the set they are
 * refused as one file twice.
 */
#define RW_IDLE \
	"{\"name\":\"emb\",\"totals\":{\"pushes\":0,\"live\":2}," \
	"\"workers\":[{\"rank\":0,\"pushes\":0},{\"rank\":1,\"pushes\":0}]}"

static void rw_test_set_identical(void **state)
{
	char text[3 * 4096];

	(void)state;
	snprintf(text, sizeof(text), "%s\n%s\n%s\n", rw_box(0, RW_IDLE, 1, 1),
		 rw_box(1, RW_IDLE, 1, 2), rw_box(2, RW_IDLE, 1, 3));
	rw_stdin(text);
	RUN("-j", "stats", "sum", "-");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_last.out,
			    "{\"name\":\"emb\",\"totals\":{\"live\":2,\"pushes\":0,"
			    "\"late_dropped\":0},\"boxes\":3,\"set_epoch\":1,"
			    "\"workers\":[{\"rank\":0,\"pushes\":0,\"late_dropped\":0},"
			    "{\"rank\":1,\"pushes\":0,\"late_dropped\":0}]}\n");

	rw_stdin(RW_IDLE "\n" RW_IDLE "\n");
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "standard input:1 and standard input:2 are the same statistics, and say no box");
}

/* Two of three: the one missing is named; so are several. */
static void rw_test_set_missing(void **state)
{
	const char *a = rw_file(1, rw_box(0, RW_BOX1, 1, 1)),
		   *c = rw_file(3, rw_box(2, RW_BOX3, 1, 3));
	char four[4096];

	(void)state;
	RUN("stats", "sum", a, c);
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: stats sum: box 2 of the set (epoch 1) is missing: the set has 3 boxes and 2 of them were given; give each box's statistics once\n");
	assert_string_equal(rw_last.out, "");

	/* Box 7 of boxes 5..8, epoch 9, alone. */
	rw_stdin(rw_set_doc(four, sizeof(four), RW_BOX2, 9, 7, 4, 5));
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: stats sum: boxes 5, 6, 8 of the set (epoch 9) are missing: the set has 4 boxes and 1 of them were given");
}

/* A box twice, whether its figures are the same or not. */
static void rw_test_set_twice(void **state)
{
	const char *a = rw_file(1, rw_box(0, RW_BOX1, 1, 1)),
		   *b = rw_file(2, rw_box(1, RW_BOX2, 1, 2)),
		   *c = rw_file(3, rw_box(2, RW_BOX3, 1, 1));
	char msg[512];

	(void)state;
	RUN("stats", "sum", a, b, a);
	snprintf(msg, sizeof(msg), "rwctl: stats sum: %s:1 and %s:1 are both box 1 of the set (epoch 1): give each box's statistics once\n", a, a);
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, msg);

	/* Box 3's figures, but saying box 1: box 1 twice, box 3 missing. */
	RUN("stats", "sum", b, a, c);
	snprintf(msg, sizeof(msg), "%s:1 and %s:1 are both box 1 of the set (epoch 1)", a, c);
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, msg);
}

/* Documents of different sets: another epoch, other boxes, or none. */
static void rw_test_set_other(void **state)
{
	char text[3 * 4096], two[4096], other[4096];

	(void)state;
	snprintf(text, sizeof(text), "%s\n%s\n%s\n", rw_box(0, RW_BOX1, 1, 1),
		 rw_box(1, RW_BOX2, 2, 2), rw_box(2, RW_BOX3, 1, 3));
	rw_stdin(text);
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: stats sum: standard input:1 is box 1 of the set of epoch 1 but standard input:2 box 2 of epoch 2: give every box's statistics of one set\n");

	/* Epoch 1 both, but a set of two boxes in one. */
	snprintf(text, sizeof(text), "%s\n%s\n", rw_box(0, RW_BOX1, 1, 1),
		 rw_set_doc(two, sizeof(two), RW_BOX2, 1, 2, 2, 1));
	rw_stdin(text);
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "standard input:1 has a set of 3 boxes but standard input:2 one of 2, both epoch 1");

	/* Boxes 2..4 in the other. */
	snprintf(text, sizeof(text), "%s\n%s\n", rw_box(0, RW_BOX1, 1, 1),
		 rw_set_doc(other, sizeof(other), RW_BOX2, 1, 2, 3, 2));
	rw_stdin(text);
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "box 1 is in the set (epoch 1) of standard input:1 but not of standard input:2");

	/* One says its box, the other does not. */
	snprintf(text, sizeof(text), "%s\n%s\n", RW_BOX2,
		 rw_box(0, RW_BOX1, 1, 1));
	rw_stdin(text);
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: stats sum: standard input:2 says which box of the set it is from (\"box_set\") but standard input:1 does not");
}

/* What is not a box set as stats show prints it. */
static const struct {
	const char *set;
	const char *why;
} rw_bad_set[] = {
	{ "[]", "\"box_set\" is an array, not an object" },
	{ "{\"self\":1,\"boxes\":[{\"id\":1}]}", "box_set has no \"epoch\"" },
	{ "{\"epoch\":0,\"self\":1,\"boxes\":[{\"id\":1}]}", "box_set: \"epoch\" is a number, not a whole number 1..4294967295" },
	{ "{\"epoch\":1,\"boxes\":[{\"id\":1}]}", "box_set has no \"self\"" },
	{ "{\"epoch\":1,\"self\":\"1\",\"boxes\":[{\"id\":1}]}", "box_set: \"self\" is a string, not a whole number 1..65535" },
	{ "{\"epoch\":1,\"self\":1}", "box_set: \"boxes\" is missing, not an array of boxes" },
	{ "{\"epoch\":1,\"self\":1,\"boxes\":[]}", "box_set: \"boxes\" is an array, not an array of boxes" },
	{ "{\"epoch\":1,\"self\":1,\"boxes\":3}", "box_set: \"boxes\" is a number, not an array of boxes" },
	{ "{\"epoch\":1,\"self\":1,\"boxes\":[1]}", "box_set: boxes[0] is a number, not an object" },
	{ "{\"epoch\":1,\"self\":1,\"boxes\":[{\"id\":1},{\"addr\":\"x\"}]}", "box_set: boxes[1] has no \"id\"" },
	{ "{\"epoch\":1,\"self\":1,\"boxes\":[{\"id\":65536}]}", "box_set: boxes[0]: \"id\" is a number, not a whole number 1..65535" },
	{ "{\"epoch\":1,\"self\":1,\"boxes\":[{\"id\":1},{\"id\":1}]}", "box_set: box 1 is in \"boxes\" twice" },
	{ "{\"epoch\":1,\"self\":3,\"boxes\":[{\"id\":1},{\"id\":2}]}", "box_set: \"self\" 3 is not one of its \"boxes\"" },
};

static void rw_test_set_malformed(void **state)
{
	char text[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rw_bad_set) / sizeof(rw_bad_set[0]); i++) {
		snprintf(text, sizeof(text),
			 "{\"name\":\"e\",\"totals\":{},\"workers\":[],\"box_set\":%s}",
			 rw_bad_set[i].set);
		rw_stdin(text);
		RUN("stats", "sum", "-");
		if (rw_last.rc != RWCTL_EXIT_ERR ||
		    !strstr(rw_last.err, rw_bad_set[i].why) ||
		    !strstr(rw_last.err, "standard input:1: not the output of 'rwctl -j stats show JOB': ") ||
		    rw_last.out[0])
			fail_msg("case %zu: exit %d, '%s'; wanted '%s'", i,
				 rw_last.rc, rw_last.err, rw_bad_set[i].why);
	}
}

static void rw_test_overflow(void **state)
{
	(void)state;
	rw_stdin("{\"name\":\"e\",\"totals\":{\"bytes\":18446744073709551615},\"workers\":[]}\n"
		 "{\"name\":\"e\",\"totals\":{\"bytes\":0},\"workers\":[]}\n");
	RUN("-j", "stats", "sum", "-");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "\"bytes\":18446744073709551615"));
	rw_stdin("{\"name\":\"e\",\"totals\":{\"bytes\":18446744073709551615},\"workers\":[]}\n"
		 "{\"name\":\"e\",\"totals\":{\"bytes\":1},\"workers\":[]}\n");
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, "the sum of \"bytes\" passes 2^64 - 1");
	rw_stdin("{\"name\":\"e\",\"totals\":{},\"workers\":[{\"rank\":0,\"parked_ns\":18446744073709551615}]}\n"
		 "{\"name\":\"e\",\"totals\":{},\"workers\":[{\"rank\":0,\"parked_ns\":9}]}\n");
	RUN("stats", "sum", "-");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, "the sum of a rank's \"parked_ns\" passes 2^64 - 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rw_test_files),
		cmocka_unit_test(rw_test_stdin),
		cmocka_unit_test(rw_test_one_box),
		cmocka_unit_test(rw_test_partial),
		cmocka_unit_test(rw_test_usage),
		cmocka_unit_test(rw_test_unreadable),
		cmocka_unit_test(rw_test_malformed),
		cmocka_unit_test(rw_test_other_job),
		cmocka_unit_test(rw_test_twice),
		cmocka_unit_test(rw_test_other_ranks),
		cmocka_unit_test(rw_test_too_many),
		cmocka_unit_test(rw_test_overflow),
		cmocka_unit_test(rw_test_set_sum),
		cmocka_unit_test(rw_test_set_identical),
		cmocka_unit_test(rw_test_set_missing),
		cmocka_unit_test(rw_test_set_twice),
		cmocka_unit_test(rw_test_set_other),
		cmocka_unit_test(rw_test_set_malformed),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("rwctl-stats-sum", tests,
					   rw_group_setup, rw_group_teardown);
}
