// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl monitor: the event parser (messages built with libnl as the module
 * would, or as a broken one might), the text and JSON line of each event,
 * the command line, and the command itself against a scripted event
 * source: count, timeout, signals, lost and malformed events, a refused
 * join, a flush after every event. The generic netlink source's own
 * receive loop is run on a socketpair carrying the same datagrams the
 * kernel would send, with a real SIGTERM to end it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "genl.h"
#include "monitor.h"
#include "print.h"
#include "rwctl.h"
#include "rwtest.h"

#define RW_TEST_FAMILY	0x21

/* Every line of @text (each ending in '\n') is one JSON document. */
static size_t rw_assert_json_lines(const char *text)
{
	char line[512];
	const char *nl;
	size_t n = 0, len;

	for (; *text; text = nl + 1, n++) {
		nl = strchr(text, '\n');
		assert_non_null(nl);
		len = (size_t)(nl - text);
		assert_true(len < sizeof(line));
		memcpy(line, text, len);
		line[len] = '\0';
		rw_assert_json(line);
		assert_int_equal(line[0], '{');
	}
	return n;
}

static int64_t rw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- building events ---- */

struct rw_ev_spec {
	int type;			/* -1: no RW_JOB_A_EVENT */
	const char *job;
	int rank;			/* -1: none */
	const char *dev;
};

static struct nl_msg *rw_event_msg(int family, const struct rw_ev_spec *s)
{
	struct nl_msg *m = rw_test_genl_msg(family, RW_CMD_EVENT);

	if (s->type >= 0)
		assert_int_equal(nla_put_u32(m, RW_JOB_A_EVENT, (uint32_t)s->type), 0);
	if (s->job)
		assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, s->job), 0);
	if (s->rank >= 0)
		assert_int_equal(nla_put_u32(m, RW_JOB_A_RANK, (uint32_t)s->rank), 0);
	if (s->dev)
		assert_int_equal(nla_put_string(m, RW_JOB_A_DEV, s->dev), 0);
	return m;
}

static int rw_parse_msg(struct nl_msg *m, struct rwctl_event *ev, char *why,
			size_t len)
{
	why[0] = '\0';
	return rwctl_genl_parse_event(nlmsg_hdr(m), RW_TEST_FAMILY, ev, why,
				      len);
}

/* ---- the event parser ---- */

static void rw_test_parse_events(void **state)
{
	static const struct rw_ev_spec specs[] = {
		{ RW_EVENT_JOB_NEW, "train1", -1, NULL },
		{ RW_EVENT_ATTACHED, "train1", 2, NULL },
		{ RW_EVENT_DEV_GONE, NULL, -1, "rxe1" },
		{ RW_EVENT_EVICTED, "t", 0, "mlx5_0" },
		{ 200, NULL, -1, NULL },	/* newer than this rwctl */
	};
	struct rwctl_event ev;
	struct nl_msg *m;
	char why[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		m = rw_event_msg(RW_TEST_FAMILY, &specs[i]);
		assert_int_equal(rw_parse_msg(m, &ev, why, sizeof(why)), 1);
		assert_int_equal(ev.type, specs[i].type);
		assert_int_equal(ev.has_job, specs[i].job != NULL);
		if (specs[i].job)
			assert_string_equal(ev.job, specs[i].job);
		assert_int_equal(ev.has_rank, specs[i].rank >= 0);
		if (specs[i].rank >= 0)
			assert_int_equal(ev.rank, specs[i].rank);
		assert_int_equal(ev.has_dev, specs[i].dev != NULL);
		if (specs[i].dev)
			assert_string_equal(ev.dev, specs[i].dev);
		nlmsg_free(m);
	}
}

/* Not ours: another family's message, or another command of ours. */
static void rw_test_parse_not_events(void **state)
{
	const struct rw_ev_spec s = { RW_EVENT_JOB_NEW, "j", -1, NULL };
	struct rwctl_event ev;
	struct nl_msg *m;
	char why[256];

	(void)state;
	m = rw_event_msg(RW_TEST_FAMILY + 1, &s);
	assert_int_equal(rw_parse_msg(m, &ev, why, sizeof(why)), 0);
	nlmsg_free(m);

	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_JOB_GET);
	assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, "j"), 0);
	assert_int_equal(rw_parse_msg(m, &ev, why, sizeof(why)), 0);
	nlmsg_free(m);
}

static void rw_test_parse_malformed(void **state)
{
	static const struct {
		struct rw_ev_spec s;
		const char *why;
	} bad[] = {
		{ { -1, "j", 1, NULL }, "no event type" },
		{ { RW_EVENT_JOB_NEW, "", -1, NULL }, "empty job name" },
		{ { RW_EVENT_DEV_GONE, NULL, -1, "" }, "empty device name" },
		{ { RW_EVENT_JOB_NEW, "abcdefghijabcdefghijabcdefghij123", -1, NULL },
		  "wrong length" },
		{ { RW_EVENT_DEV_ADDED, NULL, -1,
		    "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd" },
		  "wrong length" },
	};
	struct rwctl_event ev;
	struct nl_msg *m;
	char why[256];
	uint64_t v8 = 1;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = rw_event_msg(RW_TEST_FAMILY, &bad[i].s);
		assert_int_equal(rw_parse_msg(m, &ev, why, sizeof(why)), -EPROTO);
		if (!strstr(why, "malformed event") || !strstr(why, bad[i].why))
			fail_msg("case %zu: %s", i, why);
		nlmsg_free(m);
	}

	/* The type as eight bytes; a name without its NUL; cut short. */
	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_EVENT);
	assert_int_equal(nla_put(m, RW_JOB_A_EVENT, sizeof(v8), &v8), 0);
	assert_int_equal(rw_parse_msg(m, &ev, why, sizeof(why)), -EPROTO);
	nlmsg_free(m);

	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_EVENT);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_EVENT, RW_EVENT_JOB_DEL), 0);
	assert_int_equal(nla_put(m, RW_JOB_A_NAME, 2, "ab"), 0);
	assert_int_equal(rw_parse_msg(m, &ev, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "terminating NUL"));
	nlmsg_free(m);

	m = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_EVENT);
	assert_int_equal(nla_put_u32(m, RW_JOB_A_EVENT, RW_EVENT_JOB_DEL), 0);
	assert_int_equal(nla_put_string(m, RW_JOB_A_NAME, "abcdef"), 0);
	rw_test_genl_cut(m, 4);
	assert_int_equal(rw_parse_msg(m, &ev, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "bytes left after the last attribute"));
	nlmsg_free(m);
}

/* ---- printing ---- */

static char *rw_render(const struct rwctl_event *ev, unsigned int flags)
{
	struct rwctl_printer p;
	struct rw_capture c;
	char *out;

	rw_render_begin(&c, &p, flags);
	rwctl_monitor_print(&p, ev);
	out = rw_render_end(&c, &p);
	return out;
}

static void rw_ev(struct rwctl_event *ev, uint32_t type, const char *job,
		  int rank, const char *dev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	if (job) {
		ev->has_job = true;
		snprintf(ev->job, sizeof(ev->job), "%s", job);
	}
	if (rank >= 0) {
		ev->has_rank = true;
		ev->rank = (uint32_t)rank;
	}
	if (dev) {
		ev->has_dev = true;
		snprintf(ev->dev, sizeof(ev->dev), "%s", dev);
	}
}

static void rw_test_print_events(void **state)
{
	static const struct {
		uint32_t type;
		const char *job;
		int rank;
		const char *dev;
		const char *text;
		const char *json;
	} cases[] = {
		{ RW_EVENT_JOB_NEW, "train1", -1, NULL, "job-new train1\n",
		  "{\"event\":\"job-new\",\"job\":\"train1\"}\n" },
		{ RW_EVENT_JOB_DEL, "train1", -1, NULL, "job-del train1\n",
		  "{\"event\":\"job-del\",\"job\":\"train1\"}\n" },
		{ RW_EVENT_ATTACHED, "train1", 2, NULL, "attached train1 rank 2\n",
		  "{\"event\":\"attached\",\"job\":\"train1\",\"rank\":2}\n" },
		{ RW_EVENT_DETACHED, "train1", 0, NULL, "detached train1 rank 0\n",
		  "{\"event\":\"detached\",\"job\":\"train1\",\"rank\":0}\n" },
		{ RW_EVENT_EVICTED, "train1", 3, NULL, "evicted train1 rank 3\n",
		  "{\"event\":\"evicted\",\"job\":\"train1\",\"rank\":3}\n" },
		{ RW_EVENT_DEV_ADDED, NULL, -1, "rxe1", "device-added rxe1\n",
		  "{\"event\":\"device-added\",\"dev\":\"rxe1\"}\n" },
		{ RW_EVENT_DEV_GONE, NULL, -1, "rxe1", "device-gone rxe1\n",
		  "{\"event\":\"device-gone\",\"dev\":\"rxe1\"}\n" },
		{ RW_EVENT_DECLARED, "bert", -1, NULL, "declared bert\n",
		  "{\"event\":\"declared\",\"job\":\"bert\"}\n" },
		{ RW_EVENT_POLICY, "bert", -1, NULL, "policy bert\n",
		  "{\"event\":\"policy\",\"job\":\"bert\"}\n" },
		/* A job's event naming a device; a newer module's event. */
		{ RW_EVENT_EVICTED, "t", 1, "rxe0", "evicted t rank 1 dev rxe0\n",
		  "{\"event\":\"evicted\",\"job\":\"t\",\"rank\":1,\"dev\":\"rxe0\"}\n" },
		{ 42, "t", -1, NULL, "event42 t\n",
		  "{\"event\":\"event42\",\"job\":\"t\"}\n" },
		{ 0, NULL, -1, NULL, "event0\n", "{\"event\":\"event0\"}\n" },
	};
	struct rwctl_event ev;
	char *out;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rw_ev(&ev, cases[i].type, cases[i].job, cases[i].rank,
		      cases[i].dev);
		out = rw_render(&ev, 0);
		if (strcmp(out, cases[i].text))
			fail_msg("case %zu text: %s", i, out);
		free(out);
		out = rw_render(&ev, RWCTL_PR_JSON);
		rw_assert_json(out);
		if (strcmp(out, cases[i].json))
			fail_msg("case %zu JSON: %s", i, out);
		free(out);
	}
	assert_string_equal(rwctl_event_name(RW_EVENT_DEV_GONE), "device-gone");
	assert_null(rwctl_event_name(__RW_EVENT_MAX));
}

/* ---- the command against a scripted source ---- */

#define RW_MAX_STEPS	16

static struct {
	struct {
		int ret;		/* what next() returns */
		struct rwctl_event ev;
		const char *msg;
	} step[RW_MAX_STEPS];
	unsigned int nr, at;
	unsigned int opens, closes;
	int open_err;
	const char *open_msg;
	int64_t timeouts[RW_MAX_STEPS];	/* timeout_ms of each call */
	/* Flush check: a pipe's read end, and what it held at each call. */
	int peek_fd;
	size_t peeked[RW_MAX_STEPS];
} rw_src;

static void rw_step(int ret, uint32_t type, const char *job, int rank,
		    const char *dev, const char *msg)
{
	assert_true(rw_src.nr < RW_MAX_STEPS);
	rw_src.step[rw_src.nr].ret = ret;
	rw_ev(&rw_src.step[rw_src.nr].ev, type, job, rank, dev);
	rw_src.step[rw_src.nr].msg = msg;
	rw_src.nr++;
}

static int rw_src_open(void **h, struct rwctl_err *e)
{
	rw_src.opens++;
	*h = &rw_src;
	if (rw_src.open_err) {
		if (rw_src.open_msg)
			snprintf(e->msg, sizeof(e->msg), "%s", rw_src.open_msg);
		e->kernel = rw_src.open_err == -EPERM;
		*h = NULL;
		return rw_src.open_err;
	}
	return 0;
}

static int rw_src_next(void *h, struct rwctl_event *ev, int64_t timeout_ms,
		       struct rwctl_err *e)
{
	unsigned int at = rw_src.at++;
	char buf[4096];
	ssize_t n;

	assert_ptr_equal(h, &rw_src);
	rw_src.timeouts[at] = timeout_ms;
	if (rw_src.peek_fd > 0) {
		n = read(rw_src.peek_fd, buf, sizeof(buf));
		rw_src.peeked[at] = (at ? rw_src.peeked[at - 1] : 0) +
				    (n > 0 ? (size_t)n : 0);
	}
	if (at >= rw_src.nr)
		fail_msg("next() called %u times, %u scripted", at + 1,
			 rw_src.nr);
	if (rw_src.step[at].msg)
		snprintf(e->msg, sizeof(e->msg), "%s", rw_src.step[at].msg);
	/* A time out takes the time it says, as a real wait does. */
	if (rw_src.step[at].ret == 0 && timeout_ms > 0)
		usleep((useconds_t)timeout_ms * 1000);
	*ev = rw_src.step[at].ev;
	return rw_src.step[at].ret;
}

static void rw_src_close(void *h)
{
	assert_ptr_equal(h, &rw_src);
	rw_src.closes++;
}

static const struct rwctl_monitor_backend rw_test_source = {
	.open = rw_src_open,
	.next = rw_src_next,
	.close = rw_src_close,
};

static struct rw_result rw_last;

static const struct rwctl rw_tmpl = { .monitor_backend = &rw_test_source };

#define RUN(...) RW_RUN(&rw_last, &rw_tmpl, __VA_ARGS__)

static int rw_setup(void **state)
{
	(void)state;
	memset(&rw_src, 0, sizeof(rw_src));
	return 0;
}

static void rw_test_count(void **state)
{
	(void)state;
	rw_step(1, RW_EVENT_JOB_NEW, "train1", -1, NULL, NULL);
	rw_step(1, RW_EVENT_ATTACHED, "train1", 2, NULL, NULL);
	rw_step(1, RW_EVENT_DEV_GONE, NULL, -1, "rxe1", NULL);
	RUN("monitor", "count", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_last.out, "job-new train1\nattached train1 rank 2\n");
	/* Not one more wait after the last event counted. */
	assert_int_equal(rw_src.at, 2);
	assert_int_equal(rw_src.opens, 1);
	assert_int_equal(rw_src.closes, 1);
	/* No timeout asked: every wait is unbounded. */
	assert_true(rw_src.timeouts[0] < 0);
	assert_true(rw_src.timeouts[1] < 0);

	rw_src.at = 0;
	RUN("-j", "monitor", "count", "3");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_assert_json_lines(rw_last.out), 3);
	assert_string_equal(rw_last.out,
		"{\"event\":\"job-new\",\"job\":\"train1\"}\n"
		"{\"event\":\"attached\",\"job\":\"train1\",\"rank\":2}\n"
		"{\"event\":\"device-gone\",\"dev\":\"rxe1\"}\n");
}

static void rw_test_timeout(void **state)
{
	int64_t t0;

	(void)state;
	rw_step(1, RW_EVENT_JOB_DEL, "old", -1, NULL, NULL);
	rw_step(0, 0, NULL, -1, NULL, NULL);
	t0 = rw_now_ms();
	RUN("monitor", "timeout", "1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "job-del old\n");
	assert_string_equal(rw_last.err, "");
	/* Each wait gets what is left of the second, and the second ends it. */
	assert_true(rw_src.timeouts[0] > 900 && rw_src.timeouts[0] <= 1000);
	assert_true(rw_src.timeouts[1] > 0 &&
		    rw_src.timeouts[1] <= rw_src.timeouts[0]);
	assert_int_equal(rw_src.at, 2);
	assert_true(rw_now_ms() - t0 >= 990);
	assert_int_equal(rw_src.closes, 1);
}

/* SIGINT or SIGTERM while waiting: what came so far, and exit 0. */
static void rw_test_signal(void **state)
{
	(void)state;
	rw_step(1, RW_EVENT_ATTACHED, "t", 0, NULL, NULL);
	rw_step(-EINTR, 0, NULL, -1, NULL, NULL);
	RUN("monitor", "count", "5", "timeout", "60");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "attached t rank 0\n");
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_src.closes, 1);
}

static void rw_test_lost_and_malformed(void **state)
{
	(void)state;
	rw_step(-ENOBUFS, 0, NULL, -1, NULL, NULL);
	rw_step(1, RW_EVENT_EVICTED, "t", 3, NULL, NULL);
	rw_step(-EPROTO, 0, NULL, -1, NULL,
		"malformed event from the rackweave module: no event type");
	rw_step(1, RW_EVENT_DETACHED, "t", 1, NULL, NULL);
	RUN("-j", "monitor", "count", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_assert_json_lines(rw_last.out), 2);
	assert_non_null(strstr(rw_last.out, "\"evicted\""));
	assert_non_null(strstr(rw_last.out, "\"detached\""));
	assert_string_equal(rw_last.err,
		"rwctl: monitor: events were lost (the receive buffer overflowed)\n"
		"rwctl: monitor: skipped: malformed event from the rackweave module: no event type\n");
}

static void rw_test_read_error(void **state)
{
	(void)state;
	rw_step(1, RW_EVENT_JOB_NEW, "a", -1, NULL, NULL);
	rw_step(-EIO, 0, NULL, -1, NULL, "cannot read events: Input/output error");
	RUN("monitor");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "job-new a\n");
	assert_string_equal(rw_last.err,
			    "rwctl: monitor: cannot read events: Input/output error\n");
	assert_int_equal(rw_src.closes, 1);
}

static void rw_test_open_refused(void **state)
{
	(void)state;
	rw_src.open_err = -EPERM;
	rw_src.open_msg = "joining the 'events' multicast group needs CAP_NET_ADMIN";
	RUN("monitor");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err,
		"rwctl: monitor: joining the rackweave 'events' multicast group needs CAP_NET_ADMIN (run as root)\n");
	assert_int_equal(rw_src.at, 0);
	assert_int_equal(rw_src.closes, 0);

	rw_src.open_err = -ENOENT;
	rw_src.open_msg = "rackweave module not loaded (generic netlink family 'rackweave' not found); load it with: modprobe rackweave";
	RUN("-j", "monitor", "count", "1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err,
		"rwctl: monitor: rackweave module not loaded (generic netlink family 'rackweave' not found); load it with: modprobe rackweave\n");
}

static void rw_test_usage(void **state)
{
	static const struct {
		const char *args[6];
		const char *why;
	} bad[] = {
		{ { "count", NULL }, "'count' needs a value" },
		{ { "count", "0", NULL }, "count '0' is out of range (1..4294967295)" },
		{ { "count", "-1", NULL }, "count '-1' is not a number" },
		{ { "count", "five", NULL }, "count 'five' is not a number" },
		{ { "count", "4294967296", NULL }, "out of range" },
		{ { "timeout", "0", NULL }, "timeout '0' is out of range" },
		{ { "timeout", "1.5", NULL }, "timeout '1.5' is not a number" },
		{ { "count", "1", "count", "2", NULL }, "'count' given twice" },
		{ { "events", NULL }, "unknown argument 'events' to 'monitor' (count N, timeout SECONDS)" },
		{ { "count", "1", "-j", NULL }, "options go before OBJECT" },
		{ { "count", "1", "timeout", "2", "x" }, "unexpected argument 'x' to 'monitor'" },
	};
	const char *args[8];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		args[0] = "monitor";
		for (n = 0; n < 5 && bad[i].args[n]; n++)
			args[n + 1] = bad[i].args[n];
		args[n + 1] = NULL;
		rw_test_rwctl(&rw_last, &rw_tmpl, args);
		if (rw_last.rc != RWCTL_EXIT_USAGE ||
		    !strstr(rw_last.err, bad[i].why) ||
		    !strstr(rw_last.err, "Try 'rwctl monitor help'."))
			fail_msg("case %zu: %d %s", i, rw_last.rc, rw_last.err);
		assert_string_equal(rw_last.out, "");
	}
	assert_int_equal(rw_src.opens, 0);
}

static void rw_test_help(void **state)
{
	(void)state;
	RUN("monitor", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out,
		"Usage: rwctl [OPTIONS] monitor [ count N ] [ timeout SECONDS ]\n"
		"       rwctl monitor help\n"));
	assert_non_null(strstr(rw_last.out, "device-gone"));
	RUN("help", "monitor");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "rwctl [OPTIONS] monitor [ count N ]"));
	RUN("monitor", "count", "3", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	RUN("help");
	assert_non_null(strstr(rw_last.out, "  monitor    print the rackweave module's events"));
	assert_int_equal(rw_src.opens, 0);
}

/* Each event reaches a pipe before the next wait begins. */
static void rw_test_flush(void **state)
{
	struct rwctl ctl = { .monitor_backend = &rw_test_source };
	char *argv[] = { "rwctl", "monitor", "count", "3", NULL };
	int fds[2];
	FILE *out;

	(void)state;
	assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
	out = fdopen(fds[1], "w");
	assert_non_null(out);
	/* Fully buffered, as stdout is when it is a pipe. */
	assert_int_equal(setvbuf(out, NULL, _IOFBF, 65536), 0);
	rw_src.peek_fd = fds[0];
	rw_step(1, RW_EVENT_JOB_NEW, "a", -1, NULL, NULL);
	rw_step(1, RW_EVENT_JOB_NEW, "bb", -1, NULL, NULL);
	rw_step(1, RW_EVENT_JOB_NEW, "ccc", -1, NULL, NULL);
	ctl.out = out;
	ctl.err = stderr;
	assert_int_equal(rwctl_run(&ctl, 4, argv), RWCTL_EXIT_OK);
	assert_int_equal(rw_src.peeked[0], 0);
	assert_int_equal(rw_src.peeked[1], strlen("job-new a\n"));
	assert_int_equal(rw_src.peeked[2], strlen("job-new a\njob-new bb\n"));
	fclose(out);
	close(fds[0]);
}

/* Output that cannot be written ends the monitor with exit 1. */
static void rw_test_write_error(void **state)
{
	struct rwctl ctl = { .monitor_backend = &rw_test_source };
	char *argv[] = { "rwctl", "monitor", NULL };
	struct rw_capture err;
	FILE *full;

	(void)state;
	full = fopen("/dev/full", "w");
	if (!full)
		skip();
	rw_capture_open(&err);
	rw_step(1, RW_EVENT_JOB_NEW, "a", -1, NULL, NULL);
	rw_step(1, RW_EVENT_JOB_NEW, "b", -1, NULL, NULL);
	ctl.out = full;
	ctl.err = err.f;
	assert_int_equal(rwctl_run(&ctl, 2, argv), RWCTL_EXIT_ERR);
	assert_string_equal(rw_capture_str(&err), "rwctl: cannot write the output\n");
	assert_int_equal(rw_src.at, 1);
	assert_int_equal(rw_src.closes, 1);
	rw_capture_free(&err);
	fclose(full);
}

/* ---- the generic netlink source on a socketpair ---- */

static void rw_send(int fd, struct nl_msg *const *msgs, size_t nr)
{
	unsigned char buf[4096];
	size_t len = 0, i, n;

	for (i = 0; i < nr; i++) {
		n = nlmsg_hdr(msgs[i])->nlmsg_len;
		assert_true(len + NLMSG_ALIGN(n) <= sizeof(buf));
		memset(buf + len, 0, NLMSG_ALIGN(n));
		memcpy(buf + len, nlmsg_hdr(msgs[i]), n);
		len += NLMSG_ALIGN(n);
	}
	assert_int_equal(send(fd, buf, len, 0), (ssize_t)len);
}

static void rw_send_event(int fd, int family, const struct rw_ev_spec *s)
{
	struct nl_msg *m = rw_event_msg(family, s);

	rw_send(fd, &m, 1);
	nlmsg_free(m);
}

struct rw_pair {
	int fds[2];			/* [0]: the source reads, [1]: we send */
	void *h;
};

static int rw_pair_setup(void **state)
{
	struct rw_pair *p = calloc(1, sizeof(*p));
	struct rwctl_err e;

	assert_non_null(p);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0,
				    p->fds), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(rwctl_monitor_genl_from_fd(&p->h, p->fds[0],
						    RW_TEST_FAMILY, &e), 0);
	*state = p;
	return 0;
}

static int rw_pair_teardown(void **state)
{
	struct rw_pair *p = *state;

	rwctl_monitor_genl_backend.close(p->h);		/* closes fds[0] */
	close(p->fds[1]);
	free(p);
	return 0;
}

static int rw_next(struct rw_pair *p, struct rwctl_event *ev,
		   int64_t timeout_ms, struct rwctl_err *e)
{
	memset(e, 0, sizeof(*e));
	return rwctl_monitor_genl_backend.next(p->h, ev, timeout_ms, e);
}

static void rw_test_genl_events(void **state)
{
	const struct rw_ev_spec a = { RW_EVENT_ATTACHED, "train1", 2, NULL };
	const struct rw_ev_spec b = { RW_EVENT_DEV_GONE, NULL, -1, "rxe1" };
	const struct rw_ev_spec c = { RW_EVENT_JOB_DEL, "train1", -1, NULL };
	struct rw_pair *p = *state;
	struct rwctl_err e;
	struct rwctl_event ev;
	struct nl_msg *m[3];

	rw_send_event(p->fds[1], RW_TEST_FAMILY, &a);
	assert_int_equal(rw_next(p, &ev, 1000, &e), 1);
	assert_int_equal(ev.type, RW_EVENT_ATTACHED);
	assert_string_equal(ev.job, "train1");
	assert_int_equal(ev.rank, 2);

	/* Two events in one datagram, and another family's message between. */
	m[0] = rw_event_msg(RW_TEST_FAMILY, &b);
	m[1] = rw_event_msg(RW_TEST_FAMILY + 7, &a);
	m[2] = rw_event_msg(RW_TEST_FAMILY, &c);
	rw_send(p->fds[1], m, 3);
	assert_int_equal(rw_next(p, &ev, 1000, &e), 1);
	assert_int_equal(ev.type, RW_EVENT_DEV_GONE);
	assert_string_equal(ev.dev, "rxe1");
	assert_int_equal(rw_next(p, &ev, 0, &e), 1);
	assert_int_equal(ev.type, RW_EVENT_JOB_DEL);
	assert_false(ev.has_rank);
	nlmsg_free(m[0]);
	nlmsg_free(m[1]);
	nlmsg_free(m[2]);

	/* Nothing more: the wait ends with the time given. */
	assert_int_equal(rw_next(p, &ev, 30, &e), 0);
}

static void rw_test_genl_malformed(void **state)
{
	const struct rw_ev_spec bad = { -1, "j", -1, NULL };
	const struct rw_ev_spec ok = { RW_EVENT_POLICY, "j", -1, NULL };
	struct rw_pair *p = *state;
	struct rwctl_err e;
	struct rwctl_event ev;
	static const char junk[3] = { 1, 2, 3 };

	/* A bad event is reported and skipped; the next one still comes. */
	rw_send_event(p->fds[1], RW_TEST_FAMILY, &bad);
	rw_send_event(p->fds[1], RW_TEST_FAMILY, &ok);
	assert_int_equal(rw_next(p, &ev, 1000, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "no event type"));
	assert_int_equal(rw_next(p, &ev, 1000, &e), 1);
	assert_int_equal(ev.type, RW_EVENT_POLICY);

	/* A datagram that is not a netlink message at all. */
	assert_int_equal(send(p->fds[1], junk, sizeof(junk), 0), 3);
	rw_send_event(p->fds[1], RW_TEST_FAMILY, &ok);
	assert_int_equal(rw_next(p, &ev, 1000, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "3 bytes that are not a whole message"));
	assert_int_equal(rw_next(p, &ev, 1000, &e), 1);
	assert_int_equal(ev.type, RW_EVENT_POLICY);
}

static void rw_noop_handler(int sig)
{
	(void)sig;
}

/* A signal pending before the wait ends it at once: no lost wake-up. */
static void rw_test_genl_signal(void **state)
{
	struct rw_pair *p = *state;
	struct sigaction sa, old;
	struct rwctl_err e;
	struct rwctl_event ev;
	sigset_t set, oldmask;
	int64_t t0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rw_noop_handler;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	assert_int_equal(sigprocmask(SIG_BLOCK, &set, &oldmask), 0);
	assert_int_equal(sigaction(SIGTERM, &sa, &old), 0);
	assert_int_equal(raise(SIGTERM), 0);

	t0 = rw_now_ms();
	assert_int_equal(rw_next(p, &ev, 5000, &e), -EINTR);
	assert_true(rw_now_ms() - t0 < 1000);

	assert_int_equal(sigaction(SIGTERM, &old, NULL), 0);
	assert_int_equal(sigprocmask(SIG_SETMASK, &oldmask, NULL), 0);
}

static void rw_test_wait(void **state)
{
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(rwctl_monitor_wait(fds[0], 20), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	assert_int_equal(rwctl_monitor_wait(fds[0], 20), 1);
	assert_int_equal(rwctl_monitor_wait(fds[0], -1), 1);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(rwctl_monitor_wait(fds[0], 20), -EBADF);
}

/* The whole command on the socketpair source. */
static struct {
	int fd;				/* what open() hands the source */
	int raise_at;			/* next() call that raises SIGTERM */
	unsigned int calls;
} rw_pair_src;

static int rw_pair_open(void **h, struct rwctl_err *e)
{
	return rwctl_monitor_genl_from_fd(h, rw_pair_src.fd, RW_TEST_FAMILY, e);
}

static int rw_pair_next(void *h, struct rwctl_event *ev, int64_t timeout_ms,
			struct rwctl_err *e)
{
	if (++rw_pair_src.calls == (unsigned int)rw_pair_src.raise_at)
		raise(SIGTERM);
	return rwctl_monitor_genl_backend.next(h, ev, timeout_ms, e);
}

static const struct rwctl_monitor_backend rw_pair_source = {
	.open = rw_pair_open,
	.next = rw_pair_next,
	.close = NULL,			/* set from the genl backend at run time */
};

static int rw_run_pair(const char *const *args)
{
	static struct rwctl_monitor_backend be;
	struct rwctl tmpl = { .monitor_backend = &be };

	be = rw_pair_source;
	be.close = rwctl_monitor_genl_backend.close;
	return rw_test_rwctl(&rw_last, &tmpl, args);
}

#define RUN_PAIR(...) rw_run_pair((const char *const[]){ __VA_ARGS__, NULL })

static void rw_test_command_on_pair(void **state)
{
	const struct rw_ev_spec evs[] = {
		{ RW_EVENT_JOB_NEW, "train1", -1, NULL },
		{ RW_EVENT_ATTACHED, "train1", 0, NULL },
		{ RW_EVENT_DEV_ADDED, NULL, -1, "rxe1" },
	};
	struct sigaction before, after;
	sigset_t mask;
	int fds[2];
	size_t i;
	int64_t t0;

	(void)state;
	memset(&rw_pair_src, 0, sizeof(rw_pair_src));
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds), 0);
	for (i = 0; i < 3; i++)
		rw_send_event(fds[1], RW_TEST_FAMILY, &evs[i]);
	rw_pair_src.fd = fds[0];
	RUN_PAIR("-j", "monitor", "count", "3");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out,
		"{\"event\":\"job-new\",\"job\":\"train1\"}\n"
		"{\"event\":\"attached\",\"job\":\"train1\",\"rank\":0}\n"
		"{\"event\":\"device-added\",\"dev\":\"rxe1\"}\n");
	/* The source closed the descriptor it was given. */
	assert_int_equal(fcntl(fds[0], F_GETFD), -1);

	/* A real SIGTERM while waiting: exit 0, the old disposition back. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds + 0), 0);
	rw_send_event(fds[1], RW_TEST_FAMILY, &evs[0]);
	memset(&rw_pair_src, 0, sizeof(rw_pair_src));
	rw_pair_src.fd = fds[0];
	rw_pair_src.raise_at = 2;
	/* A handler of the caller's own, which the monitor must put back. */
	memset(&before, 0, sizeof(before));
	before.sa_handler = rw_noop_handler;
	sigemptyset(&before.sa_mask);
	assert_int_equal(sigaction(SIGTERM, &before, NULL), 0);
	assert_int_equal(sigaction(SIGINT, &before, NULL), 0);
	t0 = rw_now_ms();
	RUN_PAIR("monitor", "timeout", "30");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "job-new train1\n");
	assert_string_equal(rw_last.err, "");
	assert_true(rw_now_ms() - t0 < 5000);
	assert_int_equal(sigaction(SIGTERM, NULL, &after), 0);
	assert_ptr_equal(after.sa_handler, rw_noop_handler);
	assert_int_equal(sigaction(SIGINT, NULL, &after), 0);
	assert_ptr_equal(after.sa_handler, rw_noop_handler);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &mask), 0);
	assert_false(sigismember(&mask, SIGTERM));
	assert_false(sigismember(&mask, SIGINT));
	close(fds[1]);

	/* Nothing comes: the timeout ends it. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds), 0);
	memset(&rw_pair_src, 0, sizeof(rw_pair_src));
	rw_pair_src.fd = fds[0];
	t0 = rw_now_ms();
	RUN_PAIR("monitor", "timeout", "1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "");
	assert_true(rw_now_ms() - t0 >= 990);
	assert_true(rw_now_ms() - t0 < 3000);
	close(fds[1]);
}

/*
 * A job's settings changed, also while it runs (sync settings apply from
 * the next iteration): the module sends RW_EVENT_POLICY with the job's
 * name and nothing else. From the datagram to the line.
 */
static void rw_test_policy_event(void **state)
{
	const struct rw_ev_spec evs[] = {
		{ RW_EVENT_ATTACHED, "bert", 1, NULL },
		{ RW_EVENT_POLICY, "bert", -1, NULL },
	};
	int fds[2];
	size_t i;

	(void)state;
	memset(&rw_pair_src, 0, sizeof(rw_pair_src));
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds), 0);
	for (i = 0; i < 2; i++)
		rw_send_event(fds[1], RW_TEST_FAMILY, &evs[i]);
	rw_pair_src.fd = fds[0];
	RUN_PAIR("monitor", "count", "2");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_string_equal(rw_last.out, "attached bert rank 1\npolicy bert\n");
	close(fds[1]);

	memset(&rw_pair_src, 0, sizeof(rw_pair_src));
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds), 0);
	rw_send_event(fds[1], RW_TEST_FAMILY, &evs[1]);
	rw_pair_src.fd = fds[0];
	RUN_PAIR("-j", "monitor", "count", "1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_assert_json_lines(rw_last.out), 1);
	assert_string_equal(rw_last.out, "{\"event\":\"policy\",\"job\":\"bert\"}\n");
	close(fds[1]);

	/* The help says what the event means now. */
	rw_setup(NULL);
	RUN("monitor", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "sync settings may change while it runs"));
}

static int rw_group_teardown(void **state)
{
	(void)state;
	rw_result_free(&rw_last);
	return 0;
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)
#define RW_P(fn)	cmocka_unit_test_setup_teardown(fn, rw_pair_setup, rw_pair_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_parse_events),
		RW_T(rw_test_parse_not_events),
		RW_T(rw_test_parse_malformed),
		RW_T(rw_test_print_events),
		RW_T(rw_test_count),
		RW_T(rw_test_timeout),
		RW_T(rw_test_signal),
		RW_T(rw_test_lost_and_malformed),
		RW_T(rw_test_read_error),
		RW_T(rw_test_open_refused),
		RW_T(rw_test_usage),
		RW_T(rw_test_help),
		RW_T(rw_test_flush),
		RW_T(rw_test_write_error),
		RW_P(rw_test_genl_events),
		RW_P(rw_test_genl_malformed),
		RW_P(rw_test_genl_signal),
		RW_T(rw_test_wait),
		RW_T(rw_test_command_on_pair),
		RW_T(rw_test_policy_event),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("rwctl-monitor", tests, NULL,
					   rw_group_teardown);
}
