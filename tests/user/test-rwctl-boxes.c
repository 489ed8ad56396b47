// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl and a job's box set: the words "boxes ID@ADDR[:PORT],... self ID
 * [epoch E]" of "job add" and "policy set" (IPv4 and IPv6 forms, every
 * refusal with its sentence and exit 2, nothing sent), the request they
 * build (nests flagged as such, an empty one for "boxes none"), the set in
 * job and topology replies (and replies a broken module might send), its
 * text and JSON in "job show" and "topo show", and the module's refusals
 * in words, through rwctl_run() against a scripted backend.
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
#include "boxes.h"
#include "genl.h"
#include "job.h"
#include "print.h"
#include "rwctl.h"
#include "rwtest.h"
#include "status.h"
#include "topo.h"

#define RW_TEST_FAMILY	0x1e

/* The set the tests type: three boxes, one of them IPv6 on its own port. */
#define RW_SET3		"1@10.0.0.1,2@10.0.0.2,3@[fd00::3]:7000"

/* ---- scripted backend ---- */

static struct {
	unsigned int add_calls, policy_calls, get_calls, topo_calls;
	int policy_err;
	bool kernel;
	const char *extack;
	struct rwctl_job_add last;
	bool topo_shares;		/* the topology has a layout */
	bool moving;			/* policy set: a run exists */
	uint32_t carry_due;		/* the reply's chunks still due */
} rw_be;

static void rw_set3(struct rwctl_boxes *b);

/* @b as the module keeps it: epoch 1 unless given, default ports named. */
static void rw_be_store(struct rwctl_boxes *out, const struct rwctl_boxes *b)
{
	size_t i;

	*out = *b;
	if (!out->nr) {
		memset(out, 0, sizeof(*out));
		return;
	}
	if (!out->epoch)
		out->epoch = 1;
	for (i = 0; i < out->nr; i++)
		if (!out->box[i].port)
			out->box[i].port = RW_WIRE_PORT;
}

static void rw_fill_job(struct rwctl_job *j, const char *name)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->id = 4;
	j->workers = 2;
	j->chunk_size = 65536;
	j->sync = RW_SYNC_BSP;
	j->quorum = 2;
	j->evict_ms = 0;
	j->optim = RW_OPTIM_AVERAGE;
}

static int rw_be_add(const struct rwctl_job_add *a, struct rwctl_job *out,
		     struct rwctl_err *e)
{
	(void)e;
	rw_be.add_calls++;
	rw_be.last = *a;
	rw_fill_job(out, a->name);
	if (a->has_boxes)
		rw_be_store(&out->boxes, &a->boxes);
	return 0;
}

static int rw_be_policy(const struct rwctl_job_add *a, struct rwctl_job *out,
			struct rwctl_err *e)
{
	rw_be.policy_calls++;
	rw_be.last = *a;
	if (rw_be.policy_err) {
		e->kernel = rw_be.kernel;
		if (rw_be.extack)
			snprintf(e->extack, sizeof(e->extack), "%s",
				 rw_be.extack);
		return rw_be.policy_err;
	}
	rw_fill_job(out, a->name);
	out->carry_due = rw_be.carry_due;
	if (a->has_boxes && rw_be.moving) {
		/* The job keeps its set (epoch 5); the given one is pending. */
		size_t i;
		bool in = false;

		rw_set3(&out->boxes);
		rw_be_store(&out->move, &a->boxes);
		out->move.epoch = out->boxes.epoch + 1;
		for (i = 0; i < out->move.nr; i++)
			in |= out->move.box[i].id == out->move.self;
		if (!in)
			out->move.self = 0;
		return 0;
	}
	if (a->has_boxes)
		rw_be_store(&out->boxes, &a->boxes);
	if (a->has_boxes && out->boxes.nr && !a->boxes.epoch)
		out->boxes.epoch = 2;
	return 0;
}

static int rw_be_del(const char *name, bool force, struct rwctl_err *e)
{
	(void)name, (void)force, (void)e;
	fail_msg("job del is not a box set's command");
	return -EIO;
}

static int rw_be_get(const char *name, struct rwctl_job_list *list,
		     struct rwctl_err *e)
{
	(void)name, (void)list, (void)e;
	rw_be.get_calls++;
	return -EIO;
}

static void rw_set_box(struct rwctl_box *x, uint32_t id, int family,
		       uint8_t last, uint16_t port)
{
	memset(x, 0, sizeof(*x));
	x->id = id;
	x->family = family;
	x->port = port;
	if (family == AF_INET) {
		x->addr[0] = 10;
		x->addr[3] = last;
	} else {
		x->addr[0] = 0xfd;
		x->addr[15] = last;
	}
}

/* RW_SET3 as the module reports it, self 2, epoch 5. */
static void rw_set3(struct rwctl_boxes *b)
{
	memset(b, 0, sizeof(*b));
	b->epoch = 5;
	b->self = 2;
	b->nr = 3;
	rw_set_box(&b->box[0], 1, AF_INET, 1, RW_WIRE_PORT);
	rw_set_box(&b->box[1], 2, AF_INET, 2, RW_WIRE_PORT);
	rw_set_box(&b->box[2], 3, AF_INET6, 3, 7000);
}

/* Shares of a 3 MiB model in 96 chunks, the last one short. */
static void rw_set3_shares(struct rwctl_boxes *b)
{
	static const uint32_t chunks[] = { 32, 33, 31 };
	static const uint64_t bytes[] = { 1048576, 1081344, 1000000 };
	size_t i;

	for (i = 0; i < 3; i++) {
		b->box[i].has_share = true;
		b->box[i].chunks = chunks[i];
		b->box[i].bytes = bytes[i];
	}
}

static int rw_be_topo(const char *name, struct rwctl_topo *t,
		      struct rwctl_err *e)
{
	(void)e;
	rw_be.topo_calls++;
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	rw_set3(&t->boxes);
	if (!rw_be.topo_shares)
		return 0;
	t->declared = true;
	t->nr_chunks = 96;
	rw_set3_shares(&t->boxes);
	return 0;
}

static int rw_be_stats(const char *name, struct rwctl_stats *s,
		       struct rwctl_err *e)
{
	(void)name, (void)s, (void)e;
	fail_msg("stats are not a box set's command");
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

/* A box with no NUMA devices at all keeps the topology's text short. */
static int rw_fetch(struct rwctl_status *st, char *msg, size_t msglen)
{
	(void)msg, (void)msglen;
	memset(st, 0, sizeof(*st));
	return 0;
}

static struct rw_result rw_last;

static const struct rwctl rw_tmpl = {
	.fetch = rw_fetch,
	.job_backend = &rw_test_backend,
};

#define RUN(...) RW_RUN(&rw_last, &rw_tmpl, __VA_ARGS__)

static int rw_setup(void **state)
{
	(void)state;
	memset(&rw_be, 0, sizeof(rw_be));
	return 0;
}

/* ---- the words ---- */

static void rw_test_parse_words(void **state)
{
	char *argv[] = {
		"j", "self", "2", "workers", "4", "boxes",
		"1@10.0.0.1,2@10.0.0.2:7000,3@[fd00::3]:7001,4@fd00::4,5@[fd00::5]",
		"epoch", "9",
	};
	static const uint8_t v6[16] = { 0xfd, [15] = 3 };
	struct rwctl_job_add a;
	char msg[256] = "";

	(void)state;
	assert_int_equal(rwctl_job_parse_add(9, argv, &a, msg, sizeof(msg)), 0);
	assert_true(a.has_boxes);
	assert_int_equal(a.boxes.nr, 5);
	assert_int_equal(a.boxes.self, 2);
	assert_int_equal(a.boxes.epoch, 9);
	assert_int_equal(a.boxes.box[0].id, 1);
	assert_int_equal(a.boxes.box[0].family, AF_INET);
	assert_memory_equal(a.boxes.box[0].addr, "\x0a\x00\x00\x01", 4);
	/* Not given: the module's default, sent as no port at all. */
	assert_int_equal(a.boxes.box[0].port, 0);
	assert_int_equal(a.boxes.box[1].port, 7000);
	assert_int_equal(a.boxes.box[2].family, AF_INET6);
	assert_memory_equal(a.boxes.box[2].addr, v6, 16);
	assert_int_equal(a.boxes.box[2].port, 7001);
	assert_int_equal(a.boxes.box[3].family, AF_INET6);
	assert_int_equal(a.boxes.box[3].port, 0);
	assert_int_equal(a.boxes.box[3].addr[15], 4);
	assert_int_equal(a.boxes.box[4].port, 0);
	assert_int_equal(a.boxes.box[4].addr[15], 5);

	/* policy set: "boxes none" drops the set; no self, no epoch. */
	{
		char *pol[] = { "j", "boxes", "none" };

		assert_int_equal(rwctl_job_parse_policy(3, pol, &a, msg,
							sizeof(msg)), 0);
		assert_true(a.has_boxes);
		assert_int_equal(a.boxes.nr, 0);
	}
}

static void rw_test_usage_errors(void **state)
{
	static const struct {
		const char *args[8];
		const char *why;
	} bad[] = {
		{ { "boxes", NULL }, "'boxes' needs a value" },
		{ { "boxes", "1@10.0.0.1", NULL },
		  "'boxes' needs 'self ID': which box of the set this one is" },
		{ { "self", "1", NULL },
		  "'self' goes with a box set: give 'boxes ID@ADDR,... self ID'" },
		{ { "epoch", "2", NULL }, "'epoch' goes with a box set" },
		{ { "boxes", "none", "self", "1", NULL },
		  "'boxes none' takes no 'self' or 'epoch'" },
		{ { "boxes", "none", "epoch", "3", NULL },
		  "'boxes none' takes no 'self' or 'epoch'" },
		{ { "boxes", "1@10.0.0.1,2@10.0.0.300", "self", "1", NULL },
		  "box 2@10.0.0.300: not an address" },
		{ { "boxes", "1@10.0.0.1,1@10.0.0.2", "self", "1", NULL },
		  "box 1@10.0.0.2: id 1 is in the set twice" },
		{ { "boxes", "1@10.0.0.1,2@10.0.0.1:18515", "self", "1", NULL },
		  "box 2@10.0.0.1:18515: boxes 1 and 2 have one address, 10.0.0.1:18515" },
		{ { "boxes", "1@[fd00::1]:9,2@fd00:0::1", "self", "1", NULL },
		  NULL },	/* other ports: two boxes */
		{ { "boxes", "1@[fd00::1]:9,2@[fd00:0::1]:9", "self", "1", NULL },
		  "boxes 1 and 2 have one address, [fd00::1]:9" },
		{ { "boxes", "1@10.0.0.1,2@10.0.0.2", "self", "3", NULL },
		  "self 3 is not one of the set's box ids" },
		{ { "boxes", "0@10.0.0.1", "self", "1", NULL },
		  "box 0@10.0.0.1: id '0' is out of range (1..65535)" },
		{ { "boxes", "65536@10.0.0.1", "self", "1", NULL },
		  "id '65536' is out of range (1..65535)" },
		{ { "boxes", "x@10.0.0.1", "self", "1", NULL },
		  "box x@10.0.0.1: id 'x' is not a number" },
		{ { "boxes", "@10.0.0.1", "self", "1", NULL },
		  "the id is missing before '@'" },
		{ { "boxes", "10.0.0.1", "self", "1", NULL },
		  "box 10.0.0.1: not ID@ADDR[:PORT]" },
		{ { "boxes", "1@10.0.0.1,,2@10.0.0.2", "self", "1", NULL },
		  "an empty box in the list" },
		{ { "boxes", "1@10.0.0.1,", "self", "1", NULL },
		  "an empty box in the list" },
		{ { "boxes", "", "self", "1", NULL }, "an empty box" },
		{ { "boxes", "1@10.0.0.1:0", "self", "1", NULL },
		  "box 1@10.0.0.1:0: port '0' is out of range (1..65535)" },
		{ { "boxes", "1@10.0.0.1:x", "self", "1", NULL },
		  "port 'x' is not a number" },
		{ { "boxes", "1@10.0.0.1:", "self", "1", NULL },
		  "port '' is not a number" },
		{ { "boxes", "1@[fd00::1", "self", "1", NULL }, "lacks its ']'" },
		{ { "boxes", "1@[fd00::1]x", "self", "1", NULL },
		  "only ':PORT' may follow ']'" },
		{ { "boxes", "1@[10.0.0.1]:9", "self", "1", NULL }, NULL },
		{ { "boxes", "1@0.0.0.0", "self", "1", NULL },
		  "box 1@0.0.0.0: an all-zero address reaches no box" },
		{ { "boxes", "1@::", "self", "1", NULL }, "all-zero" },
		{ { "boxes", "1@box1.example", "self", "1", NULL },
		  "box 1@box1.example: not an address" },
		{ { "boxes", "1@", "self", "1", NULL }, "box 1@: not an address" },
		{ { "boxes", "1@10.0.0.1", "self", "0", NULL },
		  "self '0' is out of range (1..65535)" },
		{ { "boxes", "1@10.0.0.1", "self", "1", "epoch", "0", NULL },
		  "epoch '0' is out of range (1..4294967295)" },
		{ { "boxes", "1@10.0.0.1", "boxes", "1@10.0.0.1", NULL },
		  "'boxes' given twice" },
		{ { "boxes", "1@10.0.0.1", "self", "1", "self", "1", NULL },
		  "'self' given twice" },
	};
	const char *argv[16];
	size_t i, k, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 0;
		argv[n++] = "job";
		argv[n++] = "add";
		argv[n++] = "j";
		argv[n++] = "workers";
		argv[n++] = "1";
		for (k = 0; bad[i].args[k]; k++)
			argv[n++] = bad[i].args[k];
		argv[n] = NULL;
		memset(&rw_be, 0, sizeof(rw_be));
		rw_test_rwctl(&rw_last, &rw_tmpl, argv);
		if (!bad[i].why) {
			assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
			assert_int_equal(rw_be.add_calls, 1);
			continue;
		}
		rw_assert_usage_of(&rw_last, "job", bad[i].why);
		assert_int_equal(rw_be.add_calls, 0);
	}
}

/* 64 boxes are a set, 65 are not; both as policy set words. */
static void rw_test_many_boxes(void **state)
{
	static char list[65 * 20];
	size_t off = 0;
	int i;

	(void)state;
	for (i = 1; i <= 64; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off,
					"%s%d@10.0.%d.%d", i > 1 ? "," : "",
					i, i / 200, i % 200 + 1);
	RUN("policy", "set", "j", "boxes", list, "self", "64");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.last.boxes.nr, 64);
	snprintf(list + off, sizeof(list) - off, ",65@10.1.0.1");
	RUN("policy", "set", "j", "boxes", list, "self", "64");
	rw_assert_usage_of(&rw_last, "policy",
			   "boxes: a box set holds at most 64 boxes");
	assert_int_equal(rw_be.policy_calls, 1);
}

/* ---- whole commands ---- */

static const char rw_job_text[] =
	"job train1 id 4\n"
	"    workers 2 (0 attached)  chunk-size 65536  evict-ms 0 (never)\n"
	"    sync bsp\n"
	"    optim average\n"
	"    box set epoch 1, 3 boxes, this box is 2:\n"
	"        box 1  10.0.0.1:18515\n"
	"        box 2  10.0.0.2:18515  (this box)\n"
	"        box 3  [fd00::3]:7000\n";

static const char rw_job_json[] =
	"\"box_set\":{\"epoch\":1,\"self\":2,\"boxes\":["
	"{\"id\":1,\"addr\":\"10.0.0.1\",\"port\":18515,\"self\":false},"
	"{\"id\":2,\"addr\":\"10.0.0.2\",\"port\":18515,\"self\":true},"
	"{\"id\":3,\"addr\":\"fd00::3\",\"port\":7000,\"self\":false}]}}]}\n";

static void rw_test_add(void **state)
{
	(void)state;
	RUN("job", "add", "train1", "workers", "2", "boxes", RW_SET3, "self",
	    "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_true(rw_be.last.has_boxes);
	assert_int_equal(rw_be.last.boxes.nr, 3);
	assert_int_equal(rw_be.last.boxes.self, 2);
	assert_int_equal(rw_be.last.boxes.epoch, 0);
	assert_string_equal(rw_last.out, rw_job_text);

	RUN("-j", "job", "add", "train1", "workers", "2", "boxes", RW_SET3,
	    "self", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, rw_job_json));

	/* A job without a set says nothing of one. */
	RUN("-j", "job", "add", "train1", "workers", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_false(rw_be.last.has_boxes);
	assert_null(strstr(rw_last.out, "box_set"));
	RUN("job", "add", "train1", "workers", "2", "boxes", "none");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_null(strstr(rw_last.out, "box set"));
}

static void rw_test_policy(void **state)
{
	(void)state;
	RUN("policy", "set", "train1", "boxes", "1@10.0.0.1,4@10.0.0.4",
	    "self", "4", "epoch", "7");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.last.boxes.nr, 2);
	assert_int_equal(rw_be.last.boxes.epoch, 7);
	assert_non_null(strstr(rw_last.out,
			       "    box set epoch 7, 2 boxes, this box is 4:\n"
			       "        box 1  10.0.0.1:18515\n"
			       "        box 4  10.0.0.4:18515  (this box)\n"));
	/* No epoch: the module's (the old + 1). */
	RUN("policy", "set", "train1", "boxes", RW_SET3, "self", "3");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.last.boxes.epoch, 0);
	assert_non_null(strstr(rw_last.out, "box set epoch 2, 3 boxes, this box is 3:"));

	RUN("policy", "set", "train1", "boxes", "none");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_true(rw_be.last.has_boxes);
	assert_int_equal(rw_be.last.boxes.nr, 0);
	assert_null(strstr(rw_last.out, "box set"));
	assert_int_equal(rw_be.get_calls, 0);
}

/*
 * A set given while the job runs: rwctl lets this box name itself outside
 * it (it leaves), and prints the pending move under the job's own set.
 */
static void rw_test_policy_move(void **state)
{
	(void)state;
	rw_be.moving = true;
	RUN("policy", "set", "train1", "boxes", "1@10.0.0.1,4@10.0.0.4",
	    "self", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.policy_calls, 1);
	assert_int_equal(rw_be.last.boxes.self, 2);
	assert_non_null(strstr(rw_last.out,
			       "    box set epoch 5, 3 boxes, this box is 2:\n"));
	assert_non_null(strstr(rw_last.out,
			       "    moving (when the run ends) to box set epoch 6, 2 boxes, without this box:\n"
			       "        box 1  10.0.0.1:18515\n"
			       "        box 4  10.0.0.4:18515\n"));
	RUN("-j", "policy", "set", "train1", "boxes", "1@10.0.0.1,2@10.0.0.2",
	    "self", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"move_to\":{\"epoch\":6,\"self\":2,"));
	/* A box still waiting for chunks a move gives it says how many. */
	rw_be.carry_due = 8;
	RUN("policy", "set", "train1", "boxes", "1@10.0.0.1,2@10.0.0.2",
	    "self", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out,
			       "    waiting for 8 chunks a move gives this box (its next run starts once they have come)\n"));
	RUN("-j", "policy", "set", "train1", "boxes", "1@10.0.0.1,2@10.0.0.2",
	    "self", "2");
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"carry_due\":8"));
	rw_be.carry_due = 0;
	RUN("policy", "set", "train1", "boxes", "1@10.0.0.1,2@10.0.0.2",
	    "self", "2");
	assert_null(strstr(rw_last.out, "waiting for"));
	/* job add still wants this box in its set. */
	RUN("job", "add", "train1", "workers", "2", "boxes",
	    "1@10.0.0.1,4@10.0.0.4", "self", "2");
	rw_assert_usage_of(&rw_last, "job", "self 2 is not one of the set's box ids");
	assert_int_equal(rw_be.add_calls, 0);
}

static void rw_test_policy_refused(void **state)
{
	(void)state;
	rw_be.kernel = true;
	rw_be.policy_err = -EBUSY;
	rw_be.extack = "a job's first box set is given between runs";
	RUN("policy", "set", "train1", "boxes", RW_SET3, "self", "1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: policy set: job 'train1' is busy: a job's first box set is given between runs\n");

	/* A module that says no more: rwctl names the rule. */
	rw_be.extack = NULL;
	RUN("policy", "set", "train1", "boxes", "none");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "its box set changes between runs only; wait for the run to end");

	rw_be.policy_err = -EINVAL;
	rw_be.extack = "this box's id is not in the set";
	RUN("policy", "set", "train1", "boxes", RW_SET3, "self", "1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: policy set: Invalid argument: this box's id is not in the set\n");

	/* A module older than box sets: strict parsing refuses the nest. */
	rw_be.extack = "Unknown attribute type";
	RUN("policy", "set", "train1", "boxes", RW_SET3, "self", "1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "the loaded rackweave module has no box sets (boxes, self, epoch)");
}

static const char rw_topo_text[] =
	"job train1: 96 chunks on 0 cores and 0 nics\n"
	"box set epoch 5, 3 boxes, this box is 2:\n"
	"    box 1  10.0.0.1:18515  32 chunks (33.5%)  1.00 MiB\n"
	"    box 2  10.0.0.2:18515  33 chunks (34.5%)  1.03 MiB  (this box)\n"
	"    box 3  [fd00::3]:7000  31 chunks (31.9%)   977 KiB\n"
	"chunk map:\n"
	"    (no runs)\n";

static const char rw_topo_json[] =
	"{\"name\":\"train1\",\"declared\":true,\"chunks\":96,"
	"\"box_set\":{\"epoch\":5,\"self\":2,\"boxes\":["
	"{\"id\":1,\"addr\":\"10.0.0.1\",\"port\":18515,\"self\":false,"
	"\"chunks\":32,\"bytes\":1048576,\"model_pct\":33.5},"
	"{\"id\":2,\"addr\":\"10.0.0.2\",\"port\":18515,\"self\":true,"
	"\"chunks\":33,\"bytes\":1081344,\"model_pct\":34.5},"
	"{\"id\":3,\"addr\":\"fd00::3\",\"port\":7000,\"self\":false,"
	"\"chunks\":31,\"bytes\":1000000,\"model_pct\":31.9}]},"
	"\"nodes\":[],\"devices\":[],\"cores\":[],\"nics\":[],"
	"\"chunk_map\":[],\"truncated\":false}\n";

static void rw_test_topo(void **state)
{
	(void)state;
	rw_be.topo_shares = true;
	RUN("topo", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, rw_topo_text);
	RUN("-j", "topo", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_string_equal(rw_last.out, rw_topo_json);

	/* Before a layout: the set without shares. */
	rw_be.topo_shares = false;
	RUN("topo", "show", "train1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out,
			       "box set epoch 5, 3 boxes, this box is 2:\n"
			       "    box 1  10.0.0.1:18515\n"
			       "    box 2  10.0.0.2:18515  (this box)\n"
			       "    box 3  [fd00::3]:7000\n"));
	RUN("-j", "topo", "show", "train1");
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out,
			       "{\"id\":3,\"addr\":\"fd00::3\",\"port\":7000,\"self\":false}]}"));
	assert_null(strstr(rw_last.out, "model_pct"));
}

/* ---- the request ---- */

static void rw_test_request(void **state)
{
	char *argv[] = { "j", "boxes", "7@10.1.2.3,9@[fd00::9]:7000", "self",
			 "9", "epoch", "12" };
	struct nlattr *tb[RW_JOB_A_MAX + 1], *bt[RW_BOX_A_MAX + 1], *e;
	struct rwctl_job_add a;
	struct nl_msg *m;
	char msg[256];
	int rem, n = 0;

	(void)state;
	assert_int_equal(rwctl_job_parse_policy(7, argv, &a, msg, sizeof(msg)), 0);
	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_POLICY_SET);
	assert_int_equal(rwctl_job_put_settings(m, &a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
	assert_non_null(tb[RW_JOB_A_BOXES]);
	/* The module's strict parsing wants nests flagged as nests. */
	assert_true(tb[RW_JOB_A_BOXES]->nla_type & NLA_F_NESTED);
	nla_for_each_nested(e, tb[RW_JOB_A_BOXES], rem) {
		assert_int_equal(nla_type(e), RW_JOB_A_BOX);
		assert_true(e->nla_type & NLA_F_NESTED);
		assert_int_equal(nla_parse_nested(bt, RW_BOX_A_MAX, e, NULL), 0);
		assert_non_null(bt[RW_BOX_A_ID]);
		assert_non_null(bt[RW_BOX_A_ADDR]);
		assert_null(bt[RW_BOX_A_CHUNKS]);
		if (n++ == 0) {
			assert_int_equal(nla_get_u32(bt[RW_BOX_A_ID]), 7);
			assert_int_equal(nla_len(bt[RW_BOX_A_ADDR]), 4);
			assert_memory_equal(nla_data(bt[RW_BOX_A_ADDR]),
					    "\x0a\x01\x02\x03", 4);
			/* The default port is the module's to fill in. */
			assert_null(bt[RW_BOX_A_PORT]);
		} else {
			assert_int_equal(nla_get_u32(bt[RW_BOX_A_ID]), 9);
			assert_int_equal(nla_len(bt[RW_BOX_A_ADDR]), 16);
			assert_int_equal(nla_len(bt[RW_BOX_A_PORT]), 2);
			assert_int_equal(nla_get_u16(bt[RW_BOX_A_PORT]), 7000);
		}
	}
	assert_int_equal(n, 2);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_BOX_SELF]), 9);
	assert_int_equal(nla_get_u32(tb[RW_JOB_A_BOX_EPOCH]), 12);
	/* Nothing else was asked for. */
	assert_null(tb[RW_JOB_A_WORKERS]);
	assert_null(tb[RW_JOB_A_SYNC]);
	nlmsg_free(m);

	/* No epoch given: none sent (the module bumps the old one). */
	argv[5] = NULL;
	assert_int_equal(rwctl_job_parse_policy(5, argv, &a, msg, sizeof(msg)), 0);
	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_POLICY_SET);
	assert_int_equal(rwctl_job_put_settings(m, &a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
	assert_non_null(tb[RW_JOB_A_BOX_SELF]);
	assert_null(tb[RW_JOB_A_BOX_EPOCH]);
	nlmsg_free(m);

	/* "boxes none": an empty nest, kept, and nothing with it. */
	argv[2] = "none";
	assert_int_equal(rwctl_job_parse_policy(3, argv, &a, msg, sizeof(msg)), 0);
	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_POLICY_SET);
	assert_int_equal(rwctl_job_put_settings(m, &a), 0);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(m), 0, tb, RW_JOB_A_MAX,
				       NULL), 0);
	assert_non_null(tb[RW_JOB_A_BOXES]);
	assert_int_equal(nla_len(tb[RW_JOB_A_BOXES]), 0);
	assert_null(tb[RW_JOB_A_BOX_SELF]);
	assert_null(tb[RW_JOB_A_BOX_EPOCH]);
	nlmsg_free(m);
}

/* ---- replies ---- */

/* How rw_put_set() breaks a set, as a broken module might. */
enum {
	RW_BAD_NONE,
	RW_BAD_NO_EPOCH,	/* boxes and self, no epoch */
	RW_BAD_NO_LIST,		/* self and epoch, no boxes */
	RW_BAD_SELF,		/* self not in the set */
	RW_BAD_ADDR5,		/* a 5-byte address */
	RW_BAD_NO_PORT,		/* a box without its port */
	RW_BAD_ID16,		/* an id of 2 bytes */
	RW_BAD_HALF_SHARE,	/* chunks without bytes */
	RW_BAD_SOME_SHARES,	/* a share for the first box only */
	RW_BAD_EMPTY,		/* no box at all */
	RW_BAD_65,		/* 65 boxes */
};

static void rw_put_box(struct nl_msg *m, uint32_t id, int bad, bool share)
{
	struct nlattr *e = nla_nest_start(m, RW_JOB_A_BOX);
	uint8_t addr[5] = { 10, 0, 0, (uint8_t)id, 0 };

	assert_non_null(e);
	if (bad == RW_BAD_ID16)
		assert_int_equal(nla_put_u16(m, RW_BOX_A_ID, (uint16_t)id), 0);
	else
		assert_int_equal(nla_put_u32(m, RW_BOX_A_ID, id), 0);
	assert_int_equal(nla_put(m, RW_BOX_A_ADDR, bad == RW_BAD_ADDR5 ? 5 : 4,
				 addr), 0);
	if (bad != RW_BAD_NO_PORT)
		assert_int_equal(nla_put_u16(m, RW_BOX_A_PORT, 18515), 0);
	/* Something newer than this rwctl: skipped. */
	assert_int_equal(nla_put_u32(m, RW_BOX_A_MAX + 1, 1), 0);
	if (share) {
		assert_int_equal(nla_put_u32(m, RW_BOX_A_CHUNKS, 10 * id), 0);
		if (bad != RW_BAD_HALF_SHARE) {
			/* Padded first, as nla_put_u64_64bit() may. */
			assert_int_equal(nla_put(m, RW_BOX_A_PAD, 0, NULL), 0);
			assert_int_equal(nla_put_u64(m, RW_BOX_A_BYTES,
						     4096ULL * 10 * id), 0);
		}
	}
	assert_int_equal(nla_nest_end(m, e), 0);
}

/* A set of @n boxes with ids 1..@n (self 2, epoch 6), broken as @bad says. */
static void rw_put_set(struct nl_msg *m, uint32_t n, int bad, bool shares)
{
	struct nlattr *list;
	uint32_t i;

	if (bad != RW_BAD_NO_LIST) {
		list = nla_nest_start(m, RW_JOB_A_BOXES);
		assert_non_null(list);
		if (bad == RW_BAD_65)
			n = 65;
		for (i = 1; bad != RW_BAD_EMPTY && i <= n; i++)
			rw_put_box(m, i, bad, shares &&
				   (bad != RW_BAD_SOME_SHARES || i == 1));
		/* An entry of another kind: skipped. */
		assert_int_equal(nla_put_u32(m, RW_JOB_A_BOX + 1, 0), 0);
		assert_int_equal(nla_nest_end_keep_empty(m, list), 0);
	}
	assert_int_equal(nla_put_u32(m, RW_JOB_A_BOX_SELF,
				     bad == RW_BAD_SELF ? 9 : 2), 0);
	if (bad != RW_BAD_NO_EPOCH)
		assert_int_equal(nla_put_u32(m, RW_JOB_A_BOX_EPOCH, 6), 0);
}

/* The job attributes the parser needs, then the set. */
static struct nl_msg *rw_job_msg(uint32_t n, int bad, bool shares)
{
	struct nl_msg *m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_JOB_GET);

	assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, "train1"), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_ID, 1), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_WORKERS, 2), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_CHUNK_SIZE, 65536), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_SYNC, RW_SYNC_ASP), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_EVICT_MS, 0), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_OPTIM, RW_OPTIM_SGD), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_ATTACHED, 0), 0);
	if (n)
		rw_put_set(m, n, bad, shares);
	return m;
}

static int rw_parse_job(struct nl_msg *m, struct rwctl_job *j, char *why,
			size_t len)
{
	int err;

	why[0] = '\0';
	err = rwctl_genl_parse_job(nlmsg_hdr(m), j, why, len);
	nlmsg_free(m);
	return err;
}

static void rw_test_parse_job(void **state)
{
	static const struct {
		int bad;
		bool shares;
		const char *what;
	} broken[] = {
		{ RW_BAD_NO_EPOCH, false, "do not come together" },
		{ RW_BAD_NO_LIST, false, "do not come together" },
		{ RW_BAD_SELF, false, "this box's id 9 is not in it" },
		{ RW_BAD_ADDR5, false, "box 0 has an address of 5 bytes" },
		{ RW_BAD_NO_PORT, false, "box 0 lacks its id, address or port" },
		{ RW_BAD_ID16, false, "box 0: " },
		{ RW_BAD_EMPTY, false, "no box" },
		{ RW_BAD_65, false, "more than 64 boxes" },
		/* A job reply never carries a share. */
		{ RW_BAD_NONE, true, "box 1 has a share where none belongs" },
	};
	struct rwctl_job j;
	char why[512];
	size_t i;

	(void)state;
	assert_int_equal(rw_parse_job(rw_job_msg(0, 0, false), &j, why,
				      sizeof(why)), 0);
	assert_int_equal(j.boxes.nr, 0);

	assert_int_equal(rw_parse_job(rw_job_msg(3, RW_BAD_NONE, false), &j,
				      why, sizeof(why)), 0);
	assert_int_equal(j.boxes.nr, 3);
	assert_int_equal(j.boxes.self, 2);
	assert_int_equal(j.boxes.epoch, 6);
	assert_int_equal(j.boxes.box[2].id, 3);
	assert_int_equal(j.boxes.box[2].family, AF_INET);
	assert_int_equal(j.boxes.box[2].addr[3], 3);
	assert_int_equal(j.boxes.box[2].port, 18515);
	assert_false(j.boxes.box[2].has_share);

	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		int err = rw_parse_job(rw_job_msg(3, broken[i].bad,
						  broken[i].shares),
				       &j, why, sizeof(why));

		rw_assert_malformed_why(err, why,
					"malformed job reply from the rackweave module: box set: ",
					broken[i].what);
	}
}

/*
 * A job of three boxes moving to boxes 1 and 3 (epoch 7), this box's id
 * @self in the move (0: it leaves), or a move without its boxes.
 */
static struct nl_msg *rw_job_move_msg(uint32_t self, bool no_boxes)
{
	struct nl_msg *m = rw_job_msg(3, RW_BAD_NONE, false);
	struct nlattr *move = nla_nest_start(m, RW_JOB_A_MOVE), *list;

	assert_non_null(move);
	if (!no_boxes) {
		list = nla_nest_start(m, RW_JOB_A_BOXES);
		assert_non_null(list);
		rw_put_box(m, 1, RW_BAD_NONE, false);
		rw_put_box(m, 3, RW_BAD_NONE, false);
		assert_int_equal(nla_nest_end(m, list), 0);
	}
	assert_int_equal(nla_put_u32(m, RW_JOB_A_BOX_SELF, self), 0);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_BOX_EPOCH, 7), 0);
	assert_int_equal(nla_nest_end(m, move), 0);
	return m;
}

/* The set a job moves to: this box in it or leaving it; broken ones. */
static void rw_test_parse_move(void **state)
{
	struct nl_msg *m;
	struct rwctl_job j;
	char why[512];
	int err;

	(void)state;
	assert_int_equal(rw_parse_job(rw_job_move_msg(3, false), &j, why,
				      sizeof(why)), 0);
	assert_int_equal(j.boxes.epoch, 6);
	assert_int_equal(j.move.nr, 2);
	assert_int_equal(j.move.epoch, 7);
	assert_int_equal(j.move.self, 3);
	assert_int_equal(j.move.box[1].id, 3);
	assert_int_equal(rw_parse_job(rw_job_move_msg(0, false), &j, why,
				      sizeof(why)), 0);
	assert_int_equal(j.move.nr, 2);
	assert_int_equal(j.move.self, 0);
	/* Without a move: none. */
	assert_int_equal(rw_parse_job(rw_job_msg(3, RW_BAD_NONE, false), &j,
				      why, sizeof(why)), 0);
	assert_int_equal(j.move.nr, 0);
	assert_int_equal(j.carry_due, 0);
	/* Chunks still due: read as sent, refused at another length. */
	m = rw_job_msg(3, RW_BAD_NONE, false);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_CARRY_DUE, 5), 0);
	assert_int_equal(rw_parse_job(m, &j, why, sizeof(why)), 0);
	assert_int_equal(j.carry_due, 5);
	m = rw_job_msg(3, RW_BAD_NONE, false);
	assert_int_equal(nla_put_u64(m, RW_JOB_A_CARRY_DUE, 5), 0);
	assert_int_not_equal(rw_parse_job(m, &j, why, sizeof(why)), 0);

	err = rw_parse_job(rw_job_move_msg(2, false), &j, why, sizeof(why));
	rw_assert_malformed_why(err, why,
				"malformed job reply from the rackweave module: box set: ",
				"this box's id 2 is not in it");
	err = rw_parse_job(rw_job_move_msg(0, true), &j, why, sizeof(why));
	rw_assert_malformed_why(err, why,
				"malformed job reply from the rackweave module: box set: ",
				"it moves to no set");
}

static int rw_parse_topo(struct nl_msg *m, struct rwctl_topo *t, char *why,
			 size_t len)
{
	int err;

	why[0] = '\0';
	err = rwctl_genl_parse_topo(nlmsg_hdr(m), t, why, len);
	nlmsg_free(m);
	return err;
}

static struct nl_msg *rw_topo_msg(bool declared, int bad, bool shares)
{
	struct nl_msg *m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_TOPO_GET);

	assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, "train1"), 0);
	if (declared)
		assert_int_equal(nla_put_u32(m, RW_JOB_A_CHUNKS, 60), 0);
	rw_put_set(m, 3, bad, shares);
	return m;
}

static void rw_test_parse_topo(void **state)
{
	struct rwctl_topo t;
	char why[512];

	(void)state;
	assert_int_equal(rw_parse_topo(rw_topo_msg(true, RW_BAD_NONE, true),
				       &t, why, sizeof(why)), 0);
	assert_int_equal(t.boxes.nr, 3);
	assert_true(t.boxes.box[1].has_share);
	assert_int_equal(t.boxes.box[1].chunks, 20);
	assert_int_equal(t.boxes.box[1].bytes, 4096 * 20);
	rwctl_topo_free(&t);

	/* Declared, but the shares have not come (an older module). */
	assert_int_equal(rw_parse_topo(rw_topo_msg(true, RW_BAD_NONE, false),
				       &t, why, sizeof(why)), 0);
	assert_false(t.boxes.box[0].has_share);
	rwctl_topo_free(&t);

	assert_int_equal(rw_parse_topo(rw_topo_msg(false, RW_BAD_NONE, false),
				       &t, why, sizeof(why)), 0);
	assert_false(t.declared);
	assert_int_equal(t.boxes.nr, 3);
	rwctl_topo_free(&t);

	rw_assert_malformed_why(rw_parse_topo(rw_topo_msg(false, RW_BAD_NONE,
							  true),
					      &t, why, sizeof(why)),
				why, "malformed topology reply",
				"box 1 has a share where none belongs");
	rwctl_topo_free(&t);
	rw_assert_malformed_why(rw_parse_topo(rw_topo_msg(true,
							  RW_BAD_HALF_SHARE,
							  true),
					      &t, why, sizeof(why)),
				why, "malformed topology reply",
				"box 1 has part of a share");
	rwctl_topo_free(&t);
	rw_assert_malformed_why(rw_parse_topo(rw_topo_msg(true,
							  RW_BAD_SOME_SHARES,
							  true),
					      &t, why, sizeof(why)),
				why, "malformed topology reply",
				"a share for some boxes only");
	rwctl_topo_free(&t);
}

/* ---- help ---- */

static void rw_test_help(void **state)
{
	(void)state;
	RUN("job", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out,
			       "[ boxes { ID@ADDR[:PORT],... | none } self ID [ epoch E ] ]"));
	RUN("policy", "help");
	assert_non_null(strstr(rw_last.out, "'boxes none' drops the set"));
	RUN("topo", "help");
	assert_non_null(strstr(rw_last.out, "A job with a box"));
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_parse_words),
		RW_T(rw_test_usage_errors),
		RW_T(rw_test_many_boxes),
		RW_T(rw_test_add),
		RW_T(rw_test_policy),
		RW_T(rw_test_policy_move),
		RW_T(rw_test_policy_refused),
		RW_T(rw_test_topo),
		RW_T(rw_test_request),
		RW_T(rw_test_parse_job),
		RW_T(rw_test_parse_move),
		RW_T(rw_test_parse_topo),
		RW_T(rw_test_help),
	};
	int ret;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("rwctl-boxes", tests, NULL, NULL);
	rw_result_free(&rw_last);
	return ret;
}
