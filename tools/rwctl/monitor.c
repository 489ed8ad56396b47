// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl monitor [count N] [timeout SECONDS]: print the module's events as
 * they come, one line (or, with -j, one JSON object) each, flushed at once
 * so that a pipe sees every event when it happens:
 *
 *   job-new train1
 *   attached train1 rank 2
 *   policy train1
 *   evicted train1 rank 2
 *   device-gone rxe1
 *
 * It ends with exit status 0 after N events, when SECONDS have passed, or
 * on SIGINT or SIGTERM. Those two are blocked while an event is printed
 * and delivered only while waiting for the next, so the output never ends
 * in the middle of a line.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "genl.h"
#include "monitor.h"
#include "print.h"
#include "rwctl.h"

static const char *const rwctl_event_names[] = {
	[RW_EVENT_JOB_NEW]	= "job-new",
	[RW_EVENT_JOB_DEL]	= "job-del",
	[RW_EVENT_ATTACHED]	= "attached",
	[RW_EVENT_DETACHED]	= "detached",
	[RW_EVENT_EVICTED]	= "evicted",
	[RW_EVENT_DEV_ADDED]	= "device-added",
	[RW_EVENT_DEV_GONE]	= "device-gone",
	[RW_EVENT_DECLARED]	= "declared",
	[RW_EVENT_POLICY]	= "policy",
};

const char *rwctl_event_name(uint32_t type)
{
	if (type >= sizeof(rwctl_event_names) / sizeof(rwctl_event_names[0]))
		return NULL;
	return rwctl_event_names[type];
}

void rwctl_monitor_print(struct rwctl_printer *p, const struct rwctl_event *ev)
{
	const char *name = rwctl_event_name(ev->type);
	char other[24];

	/* A newer module's event: named by number, not dropped. */
	if (!name) {
		snprintf(other, sizeof(other), "event%u", ev->type);
		name = other;
	}
	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_str(p, "event", "%s", name);
	if (ev->has_job)
		rwctl_pr_str(p, "job", " %s", ev->job);
	if (ev->has_rank)
		rwctl_pr_u32(p, "rank", " rank %u", ev->rank);
	/* A device is the subject of its own events: "device-gone rxe1". */
	if (ev->has_dev)
		rwctl_pr_str(p, "dev", ev->has_job ? " dev %s" : " %s", ev->dev);
	rwctl_pr_obj_close(p);
	rwctl_pr_nl(p);
}

struct rwctl_monitor_args {
	uint32_t count;			/* 0: no limit */
	uint32_t timeout_s;		/* 0: none */
};

static int rwctl_monitor_parse(int argc, char **argv,
			       struct rwctl_monitor_args *a, char *msg,
			       size_t msglen)
{
	uint32_t *val;
	int i;

	memset(a, 0, sizeof(*a));
	/* Keyword and value pairs. */
	for (i = 0; i < argc; i += 2) {
		if (!strcmp(argv[i], "count")) {
			val = &a->count;
		} else if (!strcmp(argv[i], "timeout")) {
			val = &a->timeout_s;
		} else {
			snprintf(msg, msglen, argv[i][0] == '-' ?
				 "unexpected argument '%s' (options go before OBJECT)" :
				 "unknown argument '%s' to 'monitor' (count N, timeout SECONDS)",
				 argv[i]);
			return -EINVAL;
		}
		if (*val) {
			snprintf(msg, msglen, "'%s' given twice", argv[i]);
			return -EINVAL;
		}
		if (i + 1 >= argc) {
			snprintf(msg, msglen, "'%s' needs a value", argv[i]);
			return -EINVAL;
		}
		if (rwctl_parse_u32(argv[i], argv[i + 1], 1, UINT32_MAX, val,
				    msg, msglen))
			return -EINVAL;
	}
	return 0;
}

/* Its only job is to make the wait for events return -EINTR. */
static void rwctl_monitor_on_signal(int sig)
{
	(void)sig;
}

/* What the monitor changes about signals, to put back when it ends. */
struct rwctl_monitor_sigs {
	sigset_t mask;
	struct sigaction act_int;
	struct sigaction act_term;
};

static void rwctl_monitor_signals_begin(struct rwctl_monitor_sigs *old)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rwctl_monitor_on_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, &old->mask);
	sigaction(SIGINT, &sa, &old->act_int);
	sigaction(SIGTERM, &sa, &old->act_term);
}

static void rwctl_monitor_signals_end(const struct rwctl_monitor_sigs *old)
{
	/* A signal still pending reaches our handler, not the default. */
	sigprocmask(SIG_SETMASK, &old->mask, NULL);
	sigaction(SIGINT, &old->act_int, NULL);
	sigaction(SIGTERM, &old->act_term, NULL);
}

static int64_t rwctl_monitor_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read and print until done; returns RWCTL_EXIT_*. */
static int rwctl_monitor_loop(struct rwctl *ctl,
			      const struct rwctl_monitor_backend *be, void *h,
			      const struct rwctl_monitor_args *a)
{
	int64_t end = rwctl_monitor_clock_ms() + (int64_t)a->timeout_s * 1000;
	struct rwctl_printer p;
	struct rwctl_event ev;
	struct rwctl_err e;
	uint64_t seen = 0;
	int64_t left = -1;
	int ret;

	while (!a->count || seen < a->count) {
		if (a->timeout_s) {
			left = end - rwctl_monitor_clock_ms();
			if (left <= 0)
				return RWCTL_EXIT_OK;
		}
		memset(&e, 0, sizeof(e));
		ret = be->next(h, &ev, left, &e);
		if (ret == 1) {
			rwctl_begin_output(ctl, &p);
			rwctl_monitor_print(&p, &ev);
			if (rwctl_end_output(ctl, &p))
				return RWCTL_EXIT_ERR;
			seen++;
			continue;
		}
		switch (ret) {
		case 0:			/* the time ran out (or a spurious wake) */
			continue;
		case -EINTR:		/* SIGINT or SIGTERM */
			return RWCTL_EXIT_OK;
		case -ENOBUFS:
			fprintf(ctl->err,
				"rwctl: monitor: events were lost (the receive buffer overflowed)\n");
			fflush(ctl->err);
			continue;
		case -EPROTO:
			fprintf(ctl->err, "rwctl: monitor: skipped: %s\n",
				e.msg[0] ? e.msg : "a malformed message");
			fflush(ctl->err);
			continue;
		default:
			fprintf(ctl->err, "rwctl: monitor: %s\n",
				e.msg[0] ? e.msg : strerror(-ret));
			return RWCTL_EXIT_ERR;
		}
	}
	return RWCTL_EXIT_OK;
}

static int rwctl_monitor_run(struct rwctl *ctl, int argc, char **argv)
{
	const struct rwctl_monitor_backend *be = ctl->monitor_backend ?
		ctl->monitor_backend : &rwctl_monitor_genl_backend;
	struct rwctl_monitor_args a;
	struct rwctl_monitor_sigs old;
	struct rwctl_err e;
	void *h = NULL;
	char msg[256];
	int err, ret;

	if (rwctl_monitor_parse(argc, argv, &a, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "monitor", "%s", msg);

	memset(&e, 0, sizeof(e));
	err = be->open(&h, &e);
	if (err == -EPERM) {
		fprintf(ctl->err,
			"rwctl: monitor: joining the rackweave '%s' multicast group needs CAP_NET_ADMIN (run as root)\n",
			RW_GENL_MCGRP_EVENTS);
		return RWCTL_EXIT_ERR;
	}
	if (err) {
		fprintf(ctl->err, "rwctl: monitor: %s\n",
			e.msg[0] ? e.msg : strerror(-err));
		return RWCTL_EXIT_ERR;
	}

	rwctl_monitor_signals_begin(&old);
	ret = rwctl_monitor_loop(ctl, be, h, &a);
	rwctl_monitor_signals_end(&old);
	be->close(h);
	return ret;
}

static const struct rwctl_cmd rwctl_monitor_cmds[] = {
	{
		.name = "monitor",
		.args = "[ count N ] [ timeout SECONDS ]",
		.help = "print the rackweave module's events as they happen",
		.details =
"Events: job-new, job-del, declared (a layout), policy (a job's settings\n"
"changed; sync settings may change while it runs, from the next iteration),\n"
"attached, detached, evicted (a worker, with its rank), device-added and\n"
"device-gone (an RDMA device). One line each, or one JSON object per line\n"
"with -j. Ends after N events (count), after SECONDS (timeout), or on\n"
"SIGINT or SIGTERM, with exit status 0. Needs CAP_NET_ADMIN.\n",
		.max_args = 4,
		.run = rwctl_monitor_run,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_monitor = {
	.name = "monitor",
	.help = "print the rackweave module's events as they happen",
	.cmds = rwctl_monitor_cmds,
	.args_only = true,
};
