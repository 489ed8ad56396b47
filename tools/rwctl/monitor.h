/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl monitor: the module's events (RW_CMD_EVENT on the "events"
 * multicast group) as they happen. The command reads them from a backend,
 * by default the generic netlink one in monitor-genl.c, or a test's own
 * through struct rwctl.monitor_backend.
 */
#ifndef RWCTL_MONITOR_H
#define RWCTL_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

struct nlmsghdr;
struct rwctl_err;
struct rwctl_printer;

/* One RW_CMD_EVENT; has_* say which of the optional attributes came. */
struct rwctl_event {
	uint32_t type;			/* enum rw_event */
	bool has_job;
	char job[RW_JOB_NAME_MAX];
	bool has_rank;
	uint32_t rank;
	bool has_dev;
	char dev[RW_DEV_NAME_MAX];
};

struct rwctl_monitor_backend {
	/*
	 * Start listening: 0 with *@h set, or a negative errno with @e
	 * filled; -EPERM when joining the group was refused.
	 */
	int (*open)(void **h, struct rwctl_err *e);
	/*
	 * The next event into @ev, waiting at most @timeout_ms (negative: no
	 * limit) with SIGINT and SIGTERM deliverable meanwhile. Returns 1 (an
	 * event), 0 (the time ran out), -EINTR (a signal came), -ENOBUFS
	 * (events were lost; more follow), -EPROTO (a malformed message was
	 * skipped; e->msg says how), or another negative errno with e->msg,
	 * after which nothing more can be read.
	 */
	int (*next)(void *h, struct rwctl_event *ev, int64_t timeout_ms,
		    struct rwctl_err *e);
	void (*close)(void *h);
};

extern const struct rwctl_monitor_backend rwctl_monitor_genl_backend;

/*
 * The genl backend on datagrams from @fd instead of its socket, for tests
 * (a socketpair fed with messages of type @family). The handle owns @fd.
 */
int rwctl_monitor_genl_from_fd(void **h, int fd, int family,
			       struct rwctl_err *e);

/*
 * Wait until @fd is readable, at most @timeout_ms (negative: no limit),
 * with SIGINT and SIGTERM unblocked for the wait only, so that a signal
 * that came while they were blocked ends it at once. Returns 1, 0 (time
 * out), -EINTR or another negative errno.
 */
int rwctl_monitor_wait(int fd, int64_t timeout_ms);

/*
 * One message read from the group into @ev: 1; 0 if it is not an event of
 * the family with id @family (to be skipped); -EPROTO with a sentence in
 * @msg if it is a malformed one. RW_JOB_A_EVENT must come; the job name,
 * rank and device are optional, checked for length and termination.
 */
int rwctl_genl_parse_event(struct nlmsghdr *nlh, int family,
			   struct rwctl_event *ev, char *msg, size_t msglen);

/* "job-new", ..., or NULL for an event this rwctl does not know. */
const char *rwctl_event_name(uint32_t type);

/*
 * One event: a line ("attached train1 rank 2", "device-gone rxe1") or a
 * JSON object ({"event":"attached","job":"train1","rank":2}).
 */
void rwctl_monitor_print(struct rwctl_printer *p, const struct rwctl_event *ev);

#endif /* RWCTL_MONITOR_H */
